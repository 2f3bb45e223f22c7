// Unit tests of the YAML tree, the schema parser and the model's torchgen
// rules on small in-memory YAML texts.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "base/disk.h"

#include "yaml/yaml_json.h"
#include "yaml/yaml_model.h"
#include "yaml/yaml_tree.h"

namespace optrace {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Pair;

YamlModel LoadOk(std::string_view native, std::string_view tags = "", std::string_view derivatives = "",
                 std::string_view release = "") {
  YamlModel m;
  Status s = YamlModel::LoadFromText(native, tags, derivatives, &m, release);
  EXPECT_TRUE(s.ok()) << s.message();
  return m;
}

// --- YAML tree ---------------------------------------------------------------

// Issue 18 item 14: torchgen's YamlLoader refuses a repeated key; we kept
// the last one silently.
TEST(YamlTree, DuplicateKeyIsAnErrorNamingBothLines) {
  YamlNode root;
  Status s = ParseYaml("- func: a(Tensor x) -> Tensor\n  variants: function\n  func: b(Tensor x) -> Tensor\n", "n.yaml",
                       &root);
  EXPECT_EQ(s.code(), ExitCode::kSource);
  EXPECT_THAT(s.message(), HasSubstr("n.yaml:3: duplicate key 'func' in one mapping (first at line 1)"));
  // The same key in two mappings is fine.
  EXPECT_TRUE(ParseYaml("- func: a() -> ()\n- func: b() -> ()\n", "n.yaml", &root).ok());
}

// Issue 18 item 14: a reader error (a control character, bad UTF-8) late in
// the file was blamed on line 1.
TEST(YamlTree, ReaderErrorLateInTheFileNamesItsLine) {
  std::string good;
  for (int i = 0; i < 40; ++i) good += "- func: f" + std::to_string(i) + "() -> ()\n";
  YamlNode root;
  Status s = ParseYaml(good + "- func: bad\x01() -> ()\n", "n.yaml", &root);
  EXPECT_EQ(s.code(), ExitCode::kSource);
  EXPECT_THAT(s.message(), HasSubstr("n.yaml:41:"));
  EXPECT_THAT(ParseYaml(good + "- func: bad\xc3\x28() -> ()\n", "n.yaml", &root).message(), HasSubstr("n.yaml:41:"));
}

TEST(YamlTree, LinesAndKinds) {
  YamlNode root;
  ASSERT_TRUE(ParseYaml("# c\n- a: 1\n  b: [x, 'y']\n- c:\n", "t.yaml", &root).ok());
  ASSERT_TRUE(root.is_sequence());
  ASSERT_EQ(root.items.size(), 2u);
  EXPECT_EQ(root.items[0].line, 2);
  EXPECT_EQ(root.items[0].Get("a")->value, "1");
  EXPECT_EQ(root.items[0].Get("b")->Flow(), "[x, y]");
  EXPECT_EQ(root.items[0].Get("b")->line, 3);
  EXPECT_EQ(root.items[1].Get("c")->kind, YamlNode::Kind::kNull);
  EXPECT_EQ(root.items[1].Get("missing"), nullptr);
}

TEST(YamlTree, BoolsAsPyYamlResolvesThem) {
  YamlNode root;
  ASSERT_TRUE(ParseYaml("a: True\nb: off\nc: 'True'\nd: maybe\n", "t.yaml", &root).ok());
  bool v = false;
  EXPECT_TRUE(root.Get("a")->AsBool(&v) && v);
  EXPECT_TRUE(root.Get("b")->AsBool(&v) && !v);
  EXPECT_FALSE(root.Get("c")->AsBool(&v));  // quoted: a string
  EXPECT_FALSE(root.Get("d")->AsBool(&v));
}

TEST(YamlTree, TruncatedQuoteIsSourceErrorWithLine) {
  YamlNode root;
  Status s = ParseYaml("- func: a() -> Tensor\n- func: \"b(Tensor self\n", "nf.yaml", &root);
  EXPECT_EQ(s.code(), ExitCode::kSource);
  EXPECT_THAT(s.message(), HasSubstr("nf.yaml:"));
}

TEST(YamlTree, BinaryGarbageIsSourceError) {
  YamlNode root;
  std::string garbage(
      "\x7f"
      "ELF\x02\x01\x01\0\0\0\x03\x00",
      12);
  Status s = ParseYaml(garbage, "nf.yaml", &root);
  EXPECT_EQ(s.code(), ExitCode::kSource);
  EXPECT_THAT(s.message(), HasSubstr("nf.yaml"));
  // Invalid UTF-8 without NULs is refused by libyaml, not crashed on.
  s = ParseYaml("- func: \xff\xfe\xfd\n", "nf.yaml", &root);
  EXPECT_EQ(s.code(), ExitCode::kSource);
}

TEST(YamlTree, DeepNestingIsRefused) {
  YamlNode root;
  Status s = ParseYaml(std::string(10000, '[') + std::string(10000, ']'), "deep.yaml", &root);
  EXPECT_EQ(s.code(), ExitCode::kSource);
  EXPECT_THAT(s.message(), HasSubstr("deep.yaml:1: YAML nested deeper"));
}

TEST(YamlTree, TabIndentReportsLine) {
  YamlNode root;
  Status s = ParseYaml("- func: a() -> Tensor\n  dispatch:\n\tCPU: a\n", "nf.yaml", &root);
  EXPECT_EQ(s.code(), ExitCode::kSource);
  EXPECT_THAT(s.message(), HasSubstr("nf.yaml:3"));
}

// --- schemas -----------------------------------------------------------------

TEST(Schema, AnnotationsDefaultsKwargOnlyAndOut) {
  FunctionSchema s;
  std::string err;
  const char* text =
      "foo.out(Tensor(a!) self, int[1] dim=[], str reduce=\"mean\", *, Scalar? alpha=None, "
      "Tensor(b!) out) -> Tensor(b!)";
  ASSERT_TRUE(ParseFunctionSchema(text, &s, &err)) << err;
  EXPECT_EQ(s.name, "foo");
  EXPECT_EQ(s.overload, "out");
  ASSERT_EQ(s.arguments.size(), 5u);
  EXPECT_EQ(s.arguments[0].type, "Tensor");
  EXPECT_EQ(s.arguments[0].annotation, "a!");
  EXPECT_FALSE(s.arguments[0].is_out);  // positional mutable self is not out=
  EXPECT_EQ(s.arguments[1].type, "int[1]");
  EXPECT_EQ(s.arguments[1].default_value.value_or("?"), "[]");
  EXPECT_EQ(s.arguments[2].default_value.value_or("?"), "\"mean\"");
  EXPECT_TRUE(s.arguments[3].kwarg_only);
  EXPECT_FALSE(s.arguments[3].is_out);
  EXPECT_EQ(s.arguments[3].type, "Scalar?");
  EXPECT_TRUE(s.arguments[4].is_out);
  EXPECT_TRUE(s.is_out());
  ASSERT_EQ(s.returns.size(), 1u);
  EXPECT_EQ(s.returns[0].annotation, "b!");
  EXPECT_EQ(FunctionSchemaToString(s), text);
}

TEST(Schema, DefaultsWithCommasAndNamedTupleReturns) {
  FunctionSchema s;
  std::string err;
  ASSERT_TRUE(
      ParseFunctionSchema("max.dim(Tensor self, int[2] k=[0,1], str s=\"a, b\", bool keepdim=False) -> "
                          "(Tensor values, Tensor indices)",
                          &s, &err))
      << err;
  ASSERT_EQ(s.arguments.size(), 4u);
  EXPECT_EQ(s.arguments[1].default_value.value_or(""), "[0,1]");
  EXPECT_EQ(s.arguments[2].default_value.value_or(""), "\"a, b\"");
  ASSERT_EQ(s.returns.size(), 2u);
  EXPECT_EQ(s.returns[0].name, "values");
  EXPECT_EQ(s.returns[1].name, "indices");
  EXPECT_EQ(s.full_name(), "max.dim");
}

TEST(Schema, WildcardAnnotationAndOptionalAnnotatedTensor) {
  FunctionSchema s;
  std::string err;
  ASSERT_TRUE(ParseFunctionSchema("split(Tensor(a -> *) self, Tensor(b!)? w) -> Tensor(a)[]", &s, &err)) << err;
  EXPECT_EQ(s.arguments[0].annotation, "a -> *");
  EXPECT_EQ(s.arguments[1].type, "Tensor?");
  EXPECT_EQ(s.returns[0].type, "Tensor[]");
  EXPECT_EQ(s.returns[0].annotation, "a");
  ASSERT_TRUE(ParseFunctionSchema("_nnz(Tensor self) -> ()", &s, &err));
  EXPECT_TRUE(s.returns.empty());
}

TEST(Schema, MalformedIsRejectedWithReason) {
  FunctionSchema s;
  std::string err;
  EXPECT_FALSE(ParseFunctionSchema("add(Tensor self", &s, &err));
  EXPECT_FALSE(ParseFunctionSchema("(Tensor self) -> Tensor", &s, &err));
  EXPECT_FALSE(ParseFunctionSchema("add(Tensor) -> Tensor", &s, &err));  // no argument name
  EXPECT_THAT(err, HasSubstr("without a name"));
  EXPECT_FALSE(ParseFunctionSchema("add(Tensor self, *, *, int x) -> Tensor", &s, &err));
  EXPECT_FALSE(ParseFunctionSchema("add.(Tensor self) -> Tensor", &s, &err));
  EXPECT_FALSE(ParseFunctionSchema("add(Tensor( self) -> Tensor", &s, &err));
}

// --- model -------------------------------------------------------------------

TEST(Model, CommaKeysSplitInYamlOrder) {
  auto m = LoadOk(
      "- func: foo(Tensor self) -> Tensor\n"
      "  variants: function, method\n"
      "  dispatch:\n"
      "    CPU, CUDA: foo_kernel\n"
      "    MPS: foo_mps\n");
  const NativeFunction* f = m.Find("foo");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->line, 1);
  EXPECT_THAT(f->dispatch, ElementsAre(Pair("CPU", "foo_kernel"), Pair("CUDA", "foo_kernel"), Pair("MPS", "foo_mps")));
  EXPECT_FALSE(f->implicit_composite);
  EXPECT_TRUE(f->HasVariant("method"));
}

TEST(Model, ImplicitCompositeUsesCppName) {
  auto m = LoadOk(
      "- func: bar.input(Tensor self) -> Tensor\n"
      "\n"
      "- func: bar.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)\n"
      "  manual_kernel_registration: True\n"
      "\n"
      "- func: baz(Tensor self) -> Tensor\n"
      "  structured_delegate: baz.out\n");
  const NativeFunction* in = m.Find("bar.input");
  ASSERT_NE(in, nullptr);
  EXPECT_TRUE(in->implicit_composite);
  EXPECT_THAT(in->dispatch, ElementsAre(Pair("CompositeImplicitAutograd", "bar")));
  EXPECT_THAT(in->variants, ElementsAre("function"));
  const NativeFunction* out = m.Find("bar.out");
  ASSERT_NE(out, nullptr);
  EXPECT_EQ(out->line, 3);
  EXPECT_THAT(out->dispatch, ElementsAre(Pair("CompositeImplicitAutograd", "bar_out")));
  EXPECT_TRUE(out->manual_kernel_registration);
  const NativeFunction* baz = m.Find("baz");
  ASSERT_NE(baz, nullptr);
  EXPECT_TRUE(baz->dispatch.empty());  // delegated: no implied entry
  EXPECT_FALSE(baz->implicit_composite);
}

// C++ writes every argument up to the last one cpp_no_default_args names
// (torchgen gives it no default there); out= arguments are not counted.
TEST(Model, CppRequiredArgumentsReachTheLastOneWithoutADefaultInCpp) {
  auto m = LoadOk(
      "- func: any.dims(Tensor self, int[]? dim=None, bool keepdim=False) -> Tensor\n"
      "  cpp_no_default_args: ['dim']\n"
      "\n"
      "- func: pinv.f(Tensor self, *, float? atol=None, float? rtol=None, bool hermitian=False) -> Tensor\n"
      "  cpp_no_default_args: ['atol', 'rtol']\n"
      "\n"
      "- func: any.dims_out(Tensor self, int[]? dim=None, bool keepdim=False, *, Tensor(a!) out) -> Tensor(a!)\n"
      "  cpp_no_default_args: [dim]\n"
      "\n"
      "- func: scatter.reduce(Tensor self, int dim, Tensor index, Tensor src, *, str reduce) -> Tensor\n"
      "\n"
      "- func: sum(Tensor self, *, ScalarType? dtype=None) -> Tensor\n");
  const std::pair<const char*, size_t> expected[] = {
      {"any.dims", 2}, {"pinv.f", 3}, {"any.dims_out", 2}, {"scatter.reduce", 5}, {"sum", 1}};
  for (const auto& [name, n] : expected) {
    const NativeFunction* f = m.Find(name);
    ASSERT_NE(f, nullptr) << name;
    EXPECT_EQ(f->CppRequiredArguments(), n) << name;
  }
}

TEST(Model, UfuncKernelsAndTagsAndOtherKeys) {
  auto m = LoadOk(
      "- func: sub.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)\n"
      "  structured: True\n"
      "  ufunc_inner_loop:\n"
      "    Generic: sub (AllAndComplex)\n"
      "  dispatch:\n"
      "    MPS: sub_mps\n"
      "  tags: pointwise\n"
      "  cpp_no_default_args: ['alpha']\n",
      "- tag: pointwise\n  desc: x\n- tag: pt2_compliant_tag\n  desc: y\n");
  const NativeFunction* f = m.Find("sub.out");
  ASSERT_NE(f, nullptr);
  EXPECT_THAT(f->dispatch,
              ElementsAre(Pair("MPS", "sub_mps"), Pair("CPU", "ufunc_sub_CPU"), Pair("CUDA", "ufunc_sub_CUDA")));
  EXPECT_THAT(f->tags, ElementsAre("pointwise", "pt2_compliant_tag"));
  EXPECT_THAT(f->other_keys, ElementsAre(Pair("cpp_no_default_args", "[alpha]")));
  EXPECT_THAT(m.known_tags(), ElementsAre("pointwise", "pt2_compliant_tag"));
}

TEST(Model, GeneratesFunctionalAndOutForInplaceOnlyOp) {
  const char* yaml =
      "- func: frob_(Tensor(a!) self, SymInt n) -> Tensor(a!)\n"
      "  dispatch:\n"
      "    CPU: frob_\n"
      "  autogen: frob, frob.out\n"
      "  tags: nondeterministic_seeded\n";
  const char* tags = "- tag: nondeterministic_seeded\n  desc: x\n- tag: generated\n  desc: y\n";
  auto m = LoadOk(yaml, tags);
  ASSERT_EQ(m.functions().size(), 3u);
  const NativeFunction* out = m.Find("frob.out");
  ASSERT_NE(out, nullptr);
  EXPECT_EQ(out->schema.text, "frob.out(Tensor self, SymInt n, *, Tensor(a!) out) -> Tensor(a!)");
  EXPECT_THAT(out->dispatch, ElementsAre(Pair("CompositeExplicitAutograd", "frob_out_symint")));
  EXPECT_EQ(out->autogen_from.value_or(""), "frob_");
  EXPECT_EQ(out->line, 1);
  EXPECT_THAT(out->tags, ElementsAre("generated", "nondeterministic_seeded"));
  const NativeFunction* fn = m.Find("frob");
  ASSERT_NE(fn, nullptr);
  EXPECT_EQ(fn->schema.text, "frob(Tensor self, SymInt n) -> Tensor");
  EXPECT_THAT(fn->dispatch, ElementsAre(Pair("CompositeExplicitAutograd", "frob_symint")));
  EXPECT_EQ(m.Overloads("frob").size(), 2u);
}

TEST(Model, NoOutVariantWithoutAutogenOutAndNoneForComposites) {
  auto m = LoadOk(
      "- func: quux_(Tensor(a!) self) -> Tensor(a!)\n"
      "  dispatch:\n"
      "    CPU: quux_\n"
      "- func: comp_(Tensor(a!) self) -> Tensor(a!)\n"
      "  autogen: comp.out\n");
  EXPECT_EQ(m.functions().size(), 2u);  // no autogen of an out= name; comp_ is CompositeImplicit
}

TEST(Model, MutableOpGetsFunctionalSuffixAndOutArgs) {
  auto m = LoadOk(
      "- func: mut(Tensor self, Tensor(a!) buf) -> (Tensor res, int n)\n"
      "  dispatch:\n"
      "    CPU: mut\n"
      "  autogen: mut_functional, mut.out\n");
  const NativeFunction* out = m.Find("mut.out");
  ASSERT_NE(out, nullptr);
  EXPECT_EQ(out->schema.text, "mut.out(Tensor self, Tensor(a!) buf, *, Tensor(b!) out0) -> int n");
  const NativeFunction* fn = m.Find("mut_functional");
  ASSERT_NE(fn, nullptr);
  EXPECT_EQ(fn->schema.text, "mut_functional(Tensor self, Tensor buf) -> (Tensor res, int n, Tensor buf_out)");
}

TEST(Model, ReleaseRulesDifferForGeneratedTags) {
  const char* yaml =
      "- func: v_copy(Tensor self) -> Tensor\n"
      "  dispatch:\n"
      "    CPU: v_copy\n"
      "  tags: view_copy\n"
      "  autogen: v_copy.out\n";
  const char* tags = "- tag: view_copy\n  desc: x\n";
  auto now = LoadOk(yaml, tags, "", "2.6.0");
  auto old = LoadOk(yaml, tags, "", "1.13.1");
  ASSERT_NE(now.Find("v_copy.out"), nullptr);
  ASSERT_NE(old.Find("v_copy.out"), nullptr);
  EXPECT_THAT(now.Find("v_copy.out")->tags, ElementsAre("generated", "view_copy"));
  EXPECT_THAT(old.Find("v_copy.out")->tags, ElementsAre("generated"));
}

TEST(Model, AViewCopyOpIsGroupedWithItsViewAndTakesItsDerivative) {
  // torchgen pairs v_copy with the view v of its signature (gen.py's view
  // groups), writes v_copy's kernel as v + clone, and differentiates it by
  // v's entry; w_copy has no view to pair with, v_copy.out is no view_copy.
  auto m = LoadOk(
      "- func: v(Tensor(a) self, int dim=0) -> Tensor(a)\n"
      "- func: v.other(Tensor(a) self, Tensor other) -> Tensor(a)\n"
      "- func: v_copy(Tensor self, int dim=0) -> Tensor\n"
      "  dispatch:\n"
      "    CompositeExplicitAutogradNonFunctional: v_copy\n"
      "  autogen: v_copy.out\n"
      "- func: w_copy(Tensor self) -> Tensor\n"
      "- func: clone(Tensor self, *, MemoryFormat? memory_format=None) -> Tensor\n",
      "", "- name: v(Tensor(a) self, int dim=0) -> Tensor(a)\n  self: grad.sum(dim)\n");
  const NativeFunction* copy = m.Find("v_copy");
  ASSERT_NE(copy, nullptr);
  ASSERT_NE(m.ViewOfCopy(*copy), nullptr);
  EXPECT_EQ(m.ViewOfCopy(*copy)->name, "v");
  std::vector<std::string> callees;
  for (const NativeFunction* f : m.GeneratedKernelCallees(*copy)) callees.push_back(f->name);
  EXPECT_THAT(callees, ElementsAre("v", "clone"));
  ASSERT_NE(m.DerivativeOf(*copy), nullptr);
  EXPECT_EQ(m.DerivativeOf(*copy)->name, "v");
  EXPECT_EQ(m.ViewOfCopy(*m.Find("w_copy")), nullptr);
  EXPECT_EQ(m.ViewOfCopy(*m.Find("v_copy.out")), nullptr);
  EXPECT_EQ(m.ViewOfCopy(*m.Find("v")), nullptr);
  callees.clear();
  for (const NativeFunction* f : m.GeneratedKernelCallees(*m.Find("v_copy.out"))) callees.push_back(f->name);
  EXPECT_THAT(callees, ElementsAre("v_copy"));
}

TEST(Model, BadSchemaIsSourceErrorWithFileAndLine) {
  YamlModel m;
  Status s = YamlModel::LoadFromText("- func: ok(Tensor self) -> Tensor\n\n- func: broken(Tensor self\n", "", "", &m);
  EXPECT_EQ(s.code(), ExitCode::kSource);
  EXPECT_THAT(s.message(), HasSubstr("native_functions.yaml:3: bad schema"));
}

TEST(Model, WrongShapesAreSourceErrors) {
  YamlModel m;
  EXPECT_EQ(YamlModel::LoadFromText("func: x() -> Tensor\n", "", "", &m).code(), ExitCode::kSource);
  Status s = YamlModel::LoadFromText("- func: x(Tensor self) -> Tensor\n  structured: maybe\n", "", "", &m);
  EXPECT_THAT(s.message(), HasSubstr("native_functions.yaml:2: structured: expected True or False"));
  s = YamlModel::LoadFromText("- func: x(Tensor self) -> Tensor\n  dispatch: [CPU]\n", "", "", &m);
  EXPECT_THAT(s.message(), HasSubstr("native_functions.yaml:2: dispatch: expected a mapping"));
  s = YamlModel::LoadFromText("- variants: function\n", "", "", &m);
  EXPECT_THAT(s.message(), HasSubstr("native_functions.yaml:1: entry without a func:"));
  s = YamlModel::LoadFromText("- func: x(Tensor self) -> Tensor\n", "", "- name: y(Tensor self\n", &m);
  EXPECT_THAT(s.message(), HasSubstr("derivatives.yaml:1: bad schema"));
}

TEST(Model, TruncatedFileIsSourceErrorNotCrash) {
  std::string text =
      "- func: a(Tensor self) -> Tensor\n"
      "  dispatch:\n"
      "    CPU: \"a_cpu\"\n"
      "- func: b(Tensor self, int x=1) -> Tensor\n";
  // Every prefix either loads or fails with a SourceError; none crashes.
  for (size_t n = 0; n <= text.size(); ++n) {
    YamlModel m;
    Status s = YamlModel::LoadFromText(text.substr(0, n), "", "", &m);
    EXPECT_TRUE(s.ok() || s.code() == ExitCode::kSource) << n;
  }
  YamlModel m;
  Status s = YamlModel::LoadFromText(text.substr(0, 50), "", "", &m);  // inside "a_cpu
  EXPECT_THAT(s.message(), HasSubstr("native_functions.yaml:"));
}

// Issue 18 item 14: torchgen asserts each (signature, kind) once; a second
// entry of one name shadowed the first silently.
TEST(Model, DuplicateEntryIsAnError) {
  YamlModel m;
  Status s = YamlModel::LoadFromText(
      "- func: a.x(Tensor self) -> Tensor\n- func: b(Tensor self) -> Tensor\n- func: a.x(Tensor self) -> Tensor\n", "",
      "", &m);
  EXPECT_EQ(s.code(), ExitCode::kSource);
  EXPECT_THAT(s.message(), HasSubstr("native_functions.yaml:3: duplicate entry a.x (first at line 1)"));
}

// Issue 18 item 14: a derivatives.yaml symlinked out of the checkout was
// dropped silently (no backward at all) instead of refused and reported.
TEST(Model, DerivativesOutsideTheCheckoutIsReported) {
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / ("optrace-yaml-outside-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir / "tree/aten/src/ATen/native");
  fs::create_directories(dir / "tree/tools/autograd");
  std::ofstream(dir / "tree/aten/src/ATen/native/native_functions.yaml") << "- func: a(Tensor self) -> Tensor\n";
  std::ofstream(dir / "elsewhere.yaml") << "- name: a(Tensor self) -> Tensor\n  self: grad\n";
  fs::create_symlink(dir / "elsewhere.yaml", dir / "tree/tools/autograd/derivatives.yaml");
  RealDisk disk(fs::canonical(dir / "tree").string());
  YamlModel m;
  Status s = YamlModel::Load(disk, &m);
  EXPECT_EQ(s.code(), ExitCode::kSource);
  EXPECT_THAT(s.message(), HasSubstr("tools/autograd/derivatives.yaml: refused, it leads outside the checkout"));
  // Absent is fine: a tree without derivatives.yaml loads.
  fs::remove(dir / "tree/tools/autograd/derivatives.yaml");
  EXPECT_TRUE(YamlModel::Load(disk, &m).ok());
  fs::remove_all(dir);
}

TEST(Model, DerivativesFormulasSectionsAndLines) {
  auto m = LoadOk("- func: f(Tensor self, Tensor w) -> Tensor\n", "",
                  "- name: f(Tensor self, Tensor w) -> Tensor\n"
                  "  self, w: f_backward(grad)\n"
                  "  output_differentiability: [True]\n"
                  "  result: auto_linear\n"
                  "\n"
                  "- name: g.int(Tensor self) -> Tensor\n"
                  "  dispatch:\n"
                  "    Default:\n"
                  "      self: g_back(grad)\n"
                  "    AutogradNestedTensor:\n"
                  "      self: g_nested(grad)\n");
  const DerivativeEntry* f = m.FindDerivative("f");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->line, 1);
  ASSERT_EQ(f->formulas.size(), 2u);
  EXPECT_EQ(f->formulas[0].inputs, "self, w");
  EXPECT_EQ(f->formulas[0].line, 2);
  EXPECT_EQ(f->formulas[1].inputs, "result");
  EXPECT_EQ(f->output_differentiability.value_or(""), "[True]");
  const DerivativeEntry* g = m.FindDerivative("g.int");
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(g->line, 6);
  ASSERT_EQ(g->dispatch_sections.size(), 2u);
  EXPECT_EQ(g->dispatch_sections[1].first, "AutogradNestedTensor");
  EXPECT_EQ(g->dispatch_sections[1].second[0].line, 11);
  EXPECT_EQ(m.FindDerivative("g"), nullptr);
}

TEST(Model, JsonKeepsDispatchOrder) {
  auto m = LoadOk(
      "- func: foo(Tensor self) -> Tensor\n"
      "  dispatch:\n"
      "    MPS: z\n"
      "    CPU: a\n");
  auto j = NativeFunctionToJson(*m.Find("foo"));
  EXPECT_EQ(j["dispatch"].dump(), R"({"MPS":"z","CPU":"a"})");
  EXPECT_EQ(j["line"], 1);
  EXPECT_EQ(j["variants"].dump(), R"(["function"])");
  EXPECT_TRUE(j["structured_delegate"].is_null());
}

}  // namespace
}  // namespace optrace
