// Renderer tests on hand-built Trace values (no index, no tree): the JSON
// keeps the optrace.trace/1 contract (every required field, its type, no
// line-0 locations, dispatch in YAML order, no snippets), the text face fits
// its width and has no escapes without colour, markdown and DOT are well
// formed, and big traces stay compact. The values mirror the real 2.6.0
// nn.LayerNorm trace (lines checked in the tree) but nothing is read here.
#include "render/render.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <tuple>
#include <vector>

namespace optrace {
namespace {

using Json = nlohmann::ordered_json;
using ::testing::HasSubstr;
using ::testing::Not;

NativeFunction MakeFunction(const std::string& schema, int line,
                            std::vector<std::pair<std::string, std::string>> dispatch) {
  NativeFunction f;
  std::string error;
  EXPECT_TRUE(ParseFunctionSchema(schema, &f.schema, &error)) << error;
  f.schema.text = schema;
  f.name = f.schema.full_name();
  f.line = line;
  f.variants = {"function"};
  f.dispatch = std::move(dispatch);
  return f;
}

Location Loc(std::string file, int line, std::string snippet = "") {
  return Location{std::move(file), line, std::move(snippet)};
}

// A forward op of `f` reached from `from` ("" for an entry op), on the
// typical path or not.
OpStep ForwardOp(const std::string& name, const NativeFunction* f, const std::string& from, bool typical) {
  OpStep s;
  s.name = name;
  s.role = OpRole::kForward;
  s.yaml = f;
  s.reached_from = from;
  s.typical = typical;
  return s;
}

// A forward op of `f` reached from `from` ("" for an entry op), launching
// `kernel` (none when empty) on CUDA at the typical path.
OpStep CudaOp(const std::string& name, const NativeFunction* f, const std::string& from, const std::string& kernel) {
  OpStep s;
  s.name = name;
  s.role = OpRole::kForward;
  s.yaml = f;
  s.reached_from = from;
  if (!kernel.empty()) {
    KernelStep k;
    k.name = kernel;
    k.device = CodeDevice::kCuda;
    k.typical = true;
    k.where = Loc("aten/src/ATen/native/cuda/K.cu", 9);
    s.kernels = {k};
  }
  return s;
}

// nn.LayerNorm as the 2.6.0 tree has it.
struct LayerNormTrace {
  NativeFunction layer_norm = MakeFunction(
      "layer_norm(Tensor input, SymInt[] normalized_shape, Tensor? weight=None, Tensor? bias=None, "
      "float eps=1e-05, bool cudnn_enable=True) -> Tensor",
      3283, {{"CompositeImplicitAutograd", "layer_norm_symint"}});
  NativeFunction native = MakeFunction(
      "native_layer_norm(Tensor input, SymInt[] normalized_shape, Tensor? weight, Tensor? bias, float eps) -> "
      "(Tensor, Tensor, Tensor)",
      3287,
      {{"CPU", "layer_norm_cpu"},
       {"CUDA", "layer_norm_cuda"},
       {"MPS", "layer_norm_mps"},
       {"CompositeExplicitAutograd", "math_native_layer_norm"},
       {"NestedTensorCPU", "nested_layer_norm"},
       {"NestedTensorCUDA", "nested_layer_norm"}});
  NativeFunction backward = MakeFunction(
      "native_layer_norm_backward(Tensor grad_out, Tensor input, SymInt[] normalized_shape, Tensor mean, "
      "Tensor rstd, Tensor? weight, Tensor? bias, bool[3] output_mask) -> (Tensor, Tensor, Tensor)",
      3297, {{"CPU", "layer_norm_backward_cpu"}, {"CUDA", "layer_norm_backward_cuda"}});
  DerivativeEntry derivative;
  Trace trace;

  LayerNormTrace() {
    native.autogen = {"native_layer_norm.out"};
    native.tags = {"core"};
    derivative.schema = native.schema;
    derivative.name = "native_layer_norm";
    derivative.text = native.schema.text;
    derivative.line = 1255;
    derivative.formulas = {
        {"input, weight, bias",
         "grad.defined() ? native_layer_norm_backward_symint(grad, input, normalized_shape, result1, result2, "
         "weight, bias, grad_input_mask) : std::tuple<Tensor, Tensor, Tensor>()",
         1256},
        {"result0",
         "layer_norm_jvp(input_p, input_t, weight_p, weight_t, bias_p, bias_t, result1, result2, "
         "normalized_shape)",
         1257}};

    Trace& t = trace;
    t.query = "nn.LayerNorm";
    t.source_root = "/src/pytorch-2.6.0";
    t.source_version = "2.6.0a0";
    t.target_kind = TargetKind::kModule;
    t.target_name = "torch.nn.LayerNorm";
    PyFrame forward;
    forward.symbol = "torch.nn.modules.normalization.LayerNorm.forward";
    forward.where = Loc("torch/nn/modules/normalization.py", 216,
                        "    def forward(self, input: Tensor) -> Tensor:\n        return F.layer_norm(\n");
    forward.calls = {{"F.layer_norm", 217, PyCallTarget::kFunctional, "torch.nn.functional.layer_norm"}};
    PyFrame functional;
    functional.symbol = "torch.nn.functional.layer_norm";
    functional.where = Loc("torch/nn/functional.py", 2890);
    functional.calls = {{"torch.layer_norm", 2911, PyCallTarget::kTorch, "aten::layer_norm"}};
    functional.bridge = "torch.x";
    t.python = {forward, functional};

    OpStep entry;
    entry.name = "layer_norm";
    entry.role = OpRole::kForward;
    entry.yaml = &layer_norm;
    entry.impls = {{"CompositeImplicitAutograd",
                    "layer_norm_symint",
                    ImplForm::kFunction,
                    Loc("aten/src/ATen/native/layer_norm.cpp", 190),
                    "",
                    {}}};
    entry.calls = {{"native_layer_norm", CodeDevice::kAny, "layer_norm_symint",
                    Loc("aten/src/ATen/native/layer_norm.cpp", 205), "at::native_layer_norm_symint"}};
    OpStep op;
    op.name = "native_layer_norm";
    op.role = OpRole::kForward;
    op.yaml = &native;
    op.reached_from = "layer_norm";
    op.depth = 1;
    op.impls = {{"CPU", "layer_norm_cpu", ImplForm::kFunction, Loc("aten/src/ATen/native/layer_norm.cpp", 96), "", {}},
                {"CUDA",
                 "layer_norm_cuda",
                 ImplForm::kFunction,
                 Loc("aten/src/ATen/native/cuda/layer_norm_kernel.cu", 1334,
                     "std::tuple<Tensor, Tensor, Tensor> layer_norm_cuda(\n    const Tensor& input,\n"),
                 "const Tensor& input, IntArrayRef normalized_shape",
                 {"float", "double", "Half", "BFloat16"}}};
    StubStep stub;
    stub.name = "LayerNormKernel";
    stub.declared = Loc("aten/src/ATen/native/layer_norm.h", 98);
    stub.registrations = {{"CUDA",
                           "REGISTER_DISPATCH",
                           "LayerNormKernelImpl",
                           Loc("aten/src/ATen/native/cuda/layer_norm_kernel.cu", 1462),
                           {}}};
    op.stubs = {stub};
    KernelStep kernel;
    kernel.name = "vectorized_layer_norm_kernel";
    kernel.device = CodeDevice::kCuda;
    kernel.where = Loc("aten/src/ATen/native/cuda/layer_norm_kernel.cu", 200);
    kernel.launch = KernelLaunch::kTripleChevron;
    kernel.path = {"layer_norm_cuda", "LayerNormKernelImpl", "launch_vectorized_layer_norm_kernel"};
    op.kernels = {kernel};
    OpStep bwd;
    bwd.name = "native_layer_norm_backward";
    bwd.role = OpRole::kBackward;
    bwd.yaml = &backward;
    bwd.reached_from = "native_layer_norm";
    bwd.impls = {{"CUDA",
                  "layer_norm_backward_cuda",
                  ImplForm::kFunction,
                  Loc("aten/src/ATen/native/cuda/layer_norm_kernel.cu", 1400),
                  "",
                  {}}};
    t.ops = {entry, op, bwd};
    BackwardStep b;
    b.op = "native_layer_norm";
    b.derivatives = &derivative;
    b.ops = {"native_layer_norm_backward"};
    b.helpers = {"layer_norm_jvp"};
    t.backward = {b};
    t.decompositions = {{"native_layer_norm", Loc("torch/_decomp/decompositions.py", 3021), "native_layer_norm",
                         "torch._decomp", "aten.native_layer_norm.default"}};
    t.notes = {"layer_norm_cuda uses the vectorized kernel when the input is aligned"};
  }
};

// ---------------------------------------------------------------- JSON

// Every required field of optrace.trace/1 with the type the contract gives.
TEST(TraceToJson, HasEveryContractFieldWithItsType) {
  LayerNormTrace fixture;
  Json j = TraceToJson(fixture.trace);
  enum Type { kString, kInt, kBool, kArray, kObject, kNull };
  struct Case {
    const char* pointer;
    Type type;
  };
  const Case cases[] = {
      {"/schema", kString},
      {"/query", kString},
      {"/source/root", kString},
      {"/source/version", kString},
      {"/target/kind", kString},
      {"/target/name", kString},
      {"/python/0/symbol", kString},
      {"/python/0/file", kString},
      {"/python/0/line", kInt},
      {"/python/0/calls/0/callee", kString},
      {"/python/0/calls/0/line", kInt},
      {"/python/0/calls/0/kind", kString},
      {"/ops/1/name", kString},
      {"/ops/1/role", kString},
      {"/ops/1/yaml/file", kString},
      {"/ops/1/yaml/line", kInt},
      {"/ops/1/yaml/func", kString},
      {"/ops/1/yaml/variants", kArray},
      {"/ops/1/yaml/dispatch", kObject},
      {"/ops/1/yaml/implicit_composite", kBool},
      {"/ops/1/yaml/structured", kBool},
      {"/ops/1/yaml/structured_delegate", kNull},
      {"/ops/1/yaml/autogen", kArray},
      {"/ops/1/yaml/tags", kArray},
      {"/ops/1/yaml/python_module", kNull},
      {"/ops/1/impls/1/key", kString},
      {"/ops/1/impls/1/function", kString},
      {"/ops/1/impls/1/file", kString},
      {"/ops/1/impls/1/line", kInt},
      {"/ops/1/impls/1/form", kString},
      {"/ops/1/stubs/0/name", kString},
      {"/ops/1/stubs/0/declared/file", kString},
      {"/ops/1/stubs/0/declared/line", kInt},
      {"/ops/1/stubs/0/registrations/0/device", kString},
      {"/ops/1/stubs/0/registrations/0/macro", kString},
      {"/ops/1/stubs/0/registrations/0/target", kString},
      {"/ops/1/stubs/0/registrations/0/file", kString},
      {"/ops/1/stubs/0/registrations/0/line", kInt},
      {"/ops/1/kernels/0/name", kString},
      {"/ops/1/kernels/0/device", kString},
      {"/ops/1/kernels/0/file", kString},
      {"/ops/1/kernels/0/line", kInt},
      {"/ops/1/kernels/0/launch", kString},
      {"/ops/1/kernels/0/path", kArray},
      {"/ops/1/libraries", kArray},
      {"/ops/0/calls/0/op", kString},
      {"/ops/0/calls/0/device", kString},
      {"/ops/0/calls/0/file", kString},
      {"/ops/0/calls/0/line", kInt},
      {"/backward/0/op", kString},
      {"/backward/0/derivatives/file", kString},
      {"/backward/0/derivatives/line", kInt},
      {"/backward/0/derivatives/name", kString},
      {"/backward/0/derivatives/formulas", kObject},
      {"/backward/0/ops", kArray},
      {"/decompositions/0/op", kString},
      {"/decompositions/0/file", kString},
      {"/decompositions/0/line", kInt},
      {"/decompositions/0/function", kString},
      {"/decompositions/0/registry", kString},
      {"/not_found", kArray},
      {"/notes", kArray},
  };
  for (const Case& c : cases) {
    Json::json_pointer p(c.pointer);
    ASSERT_TRUE(j.contains(p)) << c.pointer;
    const Json& v = j.at(p);
    switch (c.type) {
      case kString:
        EXPECT_TRUE(v.is_string()) << c.pointer;
        break;
      case kInt:
        EXPECT_TRUE(v.is_number_integer()) << c.pointer;
        break;
      case kBool:
        EXPECT_TRUE(v.is_boolean()) << c.pointer;
        break;
      case kArray:
        EXPECT_TRUE(v.is_array()) << c.pointer;
        break;
      case kObject:
        EXPECT_TRUE(v.is_object()) << c.pointer;
        break;
      case kNull:
        EXPECT_TRUE(v.is_null()) << c.pointer;
        break;
    }
  }
  EXPECT_EQ(j["schema"], "optrace.trace/1");
  EXPECT_EQ(j["ops"][1]["yaml"]["file"], "aten/src/ATen/native/native_functions.yaml");
  EXPECT_EQ(j["ops"][1]["yaml"]["line"], 3287);
  EXPECT_EQ(j["backward"][0]["derivatives"]["file"], "tools/autograd/derivatives.yaml");
  EXPECT_EQ(j["backward"][0]["derivatives"]["line"], 1255);
  EXPECT_EQ(j["backward"][0]["derivatives"]["formulas"]["result0"], fixture.derivative.formulas[1].formula);
  EXPECT_EQ(j["ops"][1]["impls"][1]["dtypes"], Json({"float", "double", "Half", "BFloat16"}));
  EXPECT_EQ(j["ops"][1]["reached_from"], "layer_norm");
  EXPECT_EQ(j["python"][1]["bridge"], "torch.x");
  EXPECT_EQ(j["backward"][0]["calls"], Json({"layer_norm_jvp"}));  // helpers the formulas call
}

TEST(TraceToJson, KeepsDispatchInYamlOrder) {
  LayerNormTrace fixture;
  Json dispatch = TraceToJson(fixture.trace)["ops"][1]["yaml"]["dispatch"];
  std::vector<std::string> keys;
  for (const auto& [key, value] : dispatch.items()) keys.push_back(key);
  EXPECT_EQ(keys, (std::vector<std::string>{"CPU", "CUDA", "MPS", "CompositeExplicitAutograd", "NestedTensorCPU",
                                            "NestedTensorCUDA"}));
  EXPECT_EQ(dispatch["NestedTensorCUDA"], "nested_layer_norm");
}

TEST(TraceToJson, OmitsLocationsWithoutALine) {
  LayerNormTrace fixture;
  Trace& t = fixture.trace;
  t.python[0].where.line = 0;
  t.python[0].calls[0].line = 0;
  t.ops[1].impls.Edit()[0].where.line = 0;
  t.ops[1].stubs.Edit()[0].declared = {};
  t.ops[1].kernels.Edit()[0].where = Loc("aten/src/ATen/native/cuda/layer_norm_kernel.cu", 0);
  fixture.native.line = 0;
  t.decompositions[0].where.line = 0;
  Json j = TraceToJson(t);
  EXPECT_FALSE(j["python"][0].contains("file"));
  EXPECT_FALSE(j["python"][0].contains("line"));
  EXPECT_FALSE(j["python"][0]["calls"][0].contains("line"));
  EXPECT_EQ(j["python"][0]["calls"][0]["callee"], "F.layer_norm");
  EXPECT_FALSE(j["ops"][1]["impls"][0].contains("line"));
  EXPECT_EQ(j["ops"][1]["impls"][0]["function"], "layer_norm_cpu");
  EXPECT_FALSE(j["ops"][1]["stubs"][0].contains("declared"));
  EXPECT_FALSE(j["ops"][1]["kernels"][0].contains("line"));
  EXPECT_FALSE(j["ops"][1]["yaml"].contains("line"));
  EXPECT_FALSE(j["decompositions"][0].contains("line"));
  EXPECT_THAT(DumpJson(j), Not(HasSubstr("\"line\":0")));
}

TEST(TraceToJson, CarriesNoSnippetsAndNoEmptyExtras) {
  LayerNormTrace fixture;
  std::string dumped = DumpJson(TraceToJson(fixture.trace));
  EXPECT_THAT(dumped, Not(HasSubstr("snippet")));
  EXPECT_THAT(dumped, Not(HasSubstr("def forward")));
  EXPECT_THAT(dumped, Not(HasSubstr("other_keys")));
  EXPECT_THAT(dumped, Not(HasSubstr("manual_cpp_binding")));
  fixture.native.ufunc_inner_loop = {{"Generic", "add (AllAndComplex, BFloat16, Half, ComplexHalf)"}};
  Json yaml = TraceToJson(fixture.trace)["ops"][1]["yaml"];
  EXPECT_EQ(yaml["ufunc_inner_loop"]["Generic"], "add (AllAndComplex, BFloat16, Half, ComplexHalf)");
}

TEST(TraceToJson, NotFoundCarriesSuggestions) {
  Trace t;
  t.query = "nn.LayerNorn";
  t.not_found = {{"query", "nothing named nn.LayerNorn"}};
  t.suggestions = {"nn.LayerNorm", "nn.GroupNorm"};
  Json j = TraceToJson(t);
  EXPECT_EQ(j["not_found"][0]["what"], "query");
  EXPECT_EQ(j["suggestions"][1], "nn.GroupNorm");
  EXPECT_TRUE(j["python"].is_array() && j["python"].empty());
  EXPECT_TRUE(j["ops"].is_array() && j["ops"].empty());
}

TEST(TraceToJson, MinimalTraceGolden) {
  NativeFunction mm = MakeFunction("mm(Tensor self, Tensor mat2) -> Tensor", 4132, {});
  mm.variants = {"function", "method"};
  mm.structured_delegate = "mm.out";
  Trace t;
  t.query = "aten::mm";
  t.source_root = "/r";
  t.source_version = "2.6.0a0";
  t.target_kind = TargetKind::kAten;
  t.target_name = "aten::mm";
  OpStep op;
  op.name = "mm";
  op.role = OpRole::kForward;
  op.yaml = &mm;
  t.ops = {op};
  EXPECT_EQ(
      DumpJson(TraceToJson(t)),
      R"({"schema":"optrace.trace/1","query":"aten::mm","source":{"root":"/r","version":"2.6.0a0","installed_torch":null},)"
      R"("target":{"kind":"aten","name":"aten::mm"},"summary":{"entry":"mm","device":"cuda","assumptions":[],)"
      R"("path":[{"op":"mm"}],"selections":[],"backward":{"derivatives":[],"path":[]}},)"
      R"("python":[],"ops":[{"name":"mm","role":"forward",)"
      R"("depth":0,"yaml":{"name":"mm","file":"aten/src/ATen/native/native_functions.yaml","line":4132,)"
      R"("func":"mm(Tensor self, Tensor mat2) -> Tensor","variants":["function","method"],"dispatch":{},)"
      R"("implicit_composite":false,"structured":false,"structured_delegate":"mm.out","autogen":[],)"
      R"("tags":[],"python_module":null},"impls":[],"stubs":[],"kernels":[],"libraries":[],"calls":[],"typical":false}],)"
      R"("backward":[],"decompositions":[],"not_found":[],"notes":[]})");
}

TEST(DumpJson, ReplacesInvalidUtf8InsteadOfThrowing) {
  Trace t;
  t.query = std::string("bad\xff\xfename");
  std::string out;
  ASSERT_NO_THROW(out = DumpJson(TraceToJson(t)));
  EXPECT_THAT(out, HasSubstr("bad\xEF\xBF\xBD"));
}

// ---------------------------------------------------------------- text

size_t Columns(const std::string& line) {
  size_t n = 0;
  for (unsigned char c : line)
    if ((c & 0xC0) != 0x80) ++n;
  return n;
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start < text.size()) {
    size_t nl = text.find('\n', start);
    if (nl == std::string::npos) nl = text.size();
    lines.push_back(text.substr(start, nl - start));
    start = nl + 1;
  }
  return lines;
}

std::string StripAnsi(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\x1b') {
      while (i < s.size() && s[i] != 'm') ++i;
      continue;
    }
    out += s[i];
  }
  return out;
}

TEST(RenderText, ShowsFlowLayersTableAndNotes) {
  LayerNormTrace fixture;
  std::string text = RenderText(fixture.trace, RenderOptions{});
  // Each expected fragment sits on one line of the output.
  const std::vector<std::vector<std::string>> expected_lines = {
      {"optrace trace nn.LayerNorm"},
      {"target", "module torch.nn.LayerNorm"},
      {"checkout", "/src/pytorch-2.6.0", "2.6.0a0"},
      {"nn.LayerNorm(...)"},
      {"torch.nn.modules.normalization.LayerNorm.forward", "torch/nn/modules/normalization.py:216"},
      {"│  F.layer_norm  (functional, :217) → torch.nn.functional.layer_norm"},
      {"│  bridge: torch.x"},
      {"aten::layer_norm  CompositeImplicit", "native_functions.yaml:3283"},
      {"└─▶ aten::native_layer_norm", "CPU · CUDA · CompositeExplicit +3 more", "native_functions.yaml:3287"},
      {"├─ CompositeImplicit layer_norm_symint", "layer_norm.cpp:190"},
      {"├─ CUDA  layer_norm_cuda", "cuda/layer_norm_kernel.cu:1334"},
      {"├─ stub  LayerNormKernel", "layer_norm.h:98"},
      {"│  └─ CUDA → LayerNormKernelImpl", "cuda/layer_norm_kernel.cu:1462"},
      {"└─ kernel vectorized_layer_norm_kernel  CUDA <<<>>>", "cuda/layer_norm_kernel.cu:200"},
      {"via layer_norm_cuda → LayerNormKernelImpl → launch_vectorized_layer_norm_kernel"},
      {"∂ native_layer_norm", "input, weight, bias; result0", "derivatives.yaml:1255"},
      {"└─▶ aten::native_layer_norm_backward"},
      {"native_layer_norm", "torch._decomp", "torch/_decomp/decompositions.py:3021"},
      // The walk: full paths and numbered snippet lines.
      {"Python", "torch.nn.modules.normalization.LayerNorm.forward"},
      {"   216 │     def forward(self, input: Tensor) -> Tensor:"},
      {"   217 │         return F.layer_norm("},
      {"func: native_layer_norm(Tensor input"},
      {"dispatch: CPU: layer_norm_cpu, CUDA: layer_norm_cuda, MPS: layer_norm_mps,"},
      {"NestedTensorCUDA: nested_layer_norm"},  // wrapped, not cut
      {"dtypes: float, double, Half, BFloat16"},
      {"CUDA: REGISTER_DISPATCH → LayerNormKernelImpl at"},
      {"aten/src/ATen/native/cuda/layer_norm_kernel.cu:1462"},
      {"input, weight, bias: grad.defined() ? native_layer_norm_backward_symint("},
      // The summary table.
      {"layer", "│ file:line", "│ function"},
      {"Python", "│ torch/nn/modules/normalization.py:216", "│ torch.nn.modules.normalization."},
      {"│ LayerNorm.forward"},  // a long name continues on the next row
      {"YAML", "│ aten/src/ATen/native/native_functions.yaml:3287", "│ native_layer_norm"},
      {"C++ CompImplicit │ aten/src/ATen/native/layer_norm.cpp:190", "│ layer_norm_symint"},
      // A long path loses its head, never its tail.
      {"C++ CUDA", "│ …src/ATen/native/cuda/layer_norm_kernel.cu:1334", "│ layer_norm_cuda"},
      {"kernel CUDA", "│ …/src/ATen/native/cuda/layer_norm_kernel.cu:200", "│ vectorized_layer_norm_kernel"},
      {"derivatives", "│ tools/autograd/derivatives.yaml:1255", "│ native_layer_norm"},
      {"YAML (bwd)", "│ aten/src/ATen/native/native_functions.yaml:3297", "│ native_layer_norm_backward"},
      {"• layer_norm_cuda uses the vectorized kernel when the input is aligned"},
  };
  std::vector<std::string> lines = Lines(text);
  for (const auto& fragments : expected_lines) {
    bool found = false;
    for (const auto& line : lines) {
      bool all = true;
      size_t at = 0;
      for (const auto& f : fragments) {
        size_t p = line.find(f, at);
        if (p == std::string::npos) {
          all = false;
          break;
        }
        at = p + f.size();
      }
      if (all) {
        found = true;
        break;
      }
    }
    EXPECT_TRUE(found) << "no line with: " << fragments[0] << (fragments.size() > 1 ? " ... " + fragments[1] : "")
                       << "\n"
                       << text;
  }
  // The flow goes down: Python frames above the entry op, entry op above the op it reaches.
  EXPECT_LT(text.find("LayerNorm.forward"), text.find("aten::layer_norm"));
  EXPECT_LT(text.find("aten::layer_norm"), text.find("aten::native_layer_norm"));
}

// The whole text of a small aten trace: mm.out on CUDA calling cuBLAS.
TEST(RenderText, SmallAtenTraceGolden) {
  NativeFunction mm_out = MakeFunction("mm.out(Tensor self, Tensor mat2, *, Tensor(a!) out) -> Tensor(a!)", 4140,
                                       {{"CPU", "mm_out_cpu"}, {"CUDA", "mm_out_cuda"}});
  mm_out.structured = true;
  Trace t;
  t.query = "aten::mm.out";
  t.source_root = "/r";
  t.source_version = "2.6.0a0";
  t.target_kind = TargetKind::kAten;
  t.target_name = "aten::mm.out";
  OpStep op;
  op.name = "mm.out";
  op.role = OpRole::kForward;
  op.yaml = &mm_out;
  op.impls = {{"CUDA", "mm_out_cuda", ImplForm::kImplFunc, Loc("aten/src/ATen/native/cuda/Blas.cpp", 500), "", {}}};
  op.libraries = {{"cuBLAS",
                   Loc("aten/src/ATen/native/cuda/Blas.cpp", 393),
                   {"at::cuda::blas::gemm"},
                   {"mm_out_cuda", "addmm_out_cuda_impl"}}};
  t.ops = {op};
  // Section rules run to column 100.
  auto rule = [](const std::string& title) {
    std::string s = "── " + title + " ";
    for (size_t n = title.size() + 4; n < 100; ++n) s += "─";
    return s + "\n";
  };
  std::string table_rule = "─────────┼─────────────────────────────────────────────────┼";
  for (int i = 0; i < 40; ++i) table_rule += "─";
  EXPECT_EQ(RenderText(t, RenderOptions{}),
            "optrace trace aten::mm.out\n"
            "  target    aten aten::mm.out\n"
            "  checkout  /r  (version 2.6.0a0)\n"
            "\n" +
                rule("Main path (cuda)") +
                "▶ aten::mm.out                                              native_functions.yaml:4140\n"
                "     CUDA mm_out_cuda                                       cuda/Blas.cpp:500\n"
                "     lib cuBLAS at::cuda::blas::gemm                        cuda/Blas.cpp:393\n"
                "\n" +
                rule("Flow") +
                "aten::mm.out  CPU · CUDA                                    native_functions.yaml:4140\n"
                "├─ CUDA  mm_out_cuda  [TORCH_IMPL_FUNC]                     cuda/Blas.cpp:500\n"
                "└─ lib   cuBLAS  at::cuda::blas::gemm                       cuda/Blas.cpp:393\n"
                "\n" +
                rule("Layers") +
                "  1  YAML  aten::mm.out\n"
                "     aten/src/ATen/native/native_functions.yaml:4140\n"
                "       func: mm.out(Tensor self, Tensor mat2, *, Tensor(a!) out) -> Tensor(a!)\n"
                "       dispatch: CPU: mm_out_cpu, CUDA: mm_out_cuda\n"
                "       structured: True\n"
                "  2  C++ CUDA  mm_out_cuda\n"
                "     aten/src/ATen/native/cuda/Blas.cpp:500\n"
                "       form: TORCH_IMPL_FUNC\n"
                "  3  library  cuBLAS\n"
                "     aten/src/ATen/native/cuda/Blas.cpp:393\n"
                "       calls at::cuda::blas::gemm\n"
                "       via mm_out_cuda → addmm_out_cuda_impl\n"
                "\n" +
                rule("Summary") + "layer    │ file:line                                       │ function\n" +
                table_rule + "\n" +
                "YAML     │ aten/src/ATen/native/native_functions.yaml:4140 │ mm.out\n"
                "C++ CUDA │ aten/src/ATen/native/cuda/Blas.cpp:500          │ mm_out_cuda\n"
                "cuBLAS   │ aten/src/ATen/native/cuda/Blas.cpp:393          │ at::cuda::blas::gemm\n"
                "\n" +
                rule("Notes") +
                "  • mm.out: calls into cuBLAS (prebuilt library: the kernels that run are not in this tree)\n");
}

TEST(RenderText, HelperFramesHangBesideTheChain) {
  LayerNormTrace fixture;
  PyFrame helper;
  helper.symbol = "torch.nn.functional._get_softmax_dim";
  helper.where = Loc("torch/nn/functional.py", 2057);
  helper.calls = {{"warnings.warn", 2060, PyCallTarget::kPython, ""}};
  fixture.trace.python.push_back(helper);
  std::string text = RenderText(fixture.trace, RenderOptions{});
  EXPECT_THAT(text, HasSubstr("  │  ↳ helper torch.nn.functional._get_softmax_dim"));
  // The chain still runs from the last real frame into the entry op.
  EXPECT_THAT(text, HasSubstr("  │  bridge: torch.x\n  │  ↳ helper"));
  EXPECT_THAT(text, HasSubstr("functional.py:2057\n  │\n  ▼\naten::layer_norm"));
}

TEST(RenderText, FitsTheWidthAndHasNoEscapesWithoutColour) {
  LayerNormTrace fixture;
  fixture.trace.ops[1].kernels.Edit()[0].name = std::string(150, 'k');
  fixture.trace.notes.push_back(std::string(30, 'w') + " " + std::string(250, 'x'));
  for (int width : {100, 72, 40}) {
    RenderOptions options;
    options.width = width;
    std::string text = RenderText(fixture.trace, options);
    EXPECT_EQ(text.find('\x1b'), std::string::npos);
    for (const auto& line : Lines(text)) EXPECT_LE(Columns(line), static_cast<size_t>(width)) << line;
  }
}

TEST(RenderText, ColourOnlyWhenAskedAndStillFits) {
  LayerNormTrace fixture;
  RenderOptions options;
  options.color = true;
  std::string text = RenderText(fixture.trace, options);
  EXPECT_THAT(text, HasSubstr("\x1b["));
  for (const auto& line : Lines(text)) EXPECT_LE(Columns(StripAnsi(line)), 100u) << line;
  // Same words as without colour.
  EXPECT_EQ(StripAnsi(text), RenderText(fixture.trace, RenderOptions{}));
}

TEST(RenderText, CleansControlCharactersFromSnippets) {
  LayerNormTrace fixture;
  fixture.trace.python[0].where.snippet = std::string("x\x1b[31m\x01\x7f\ty\0z", 13) + "\n\xff\xfe";
  std::string text = RenderText(fixture.trace, RenderOptions{});
  EXPECT_EQ(text.find('\x1b'), std::string::npos);
  EXPECT_EQ(text.find('\x01'), std::string::npos);
  EXPECT_EQ(text.find('\t'), std::string::npos);
  EXPECT_EQ(text.find('\0'), std::string::npos);
}

// A chain of 40 ops (nn.MultiheadAttention reaches 30+): the first ones are
// shown in full, the rest one line each; every op is still named.
Trace ChainTrace(size_t n, std::vector<NativeFunction>* functions) {
  functions->clear();
  functions->reserve(n);
  Trace t;
  t.query = "nn.MultiheadAttention";
  t.target_kind = TargetKind::kModule;
  t.target_name = "torch.nn.MultiheadAttention";
  for (size_t i = 0; i < n; ++i) {
    std::string name = "op" + std::to_string(i);
    functions->push_back(MakeFunction(name + "(Tensor self) -> Tensor", static_cast<int>(100 + i),
                                      {{"CPU", name + "_cpu"}, {"CUDA", name + "_cuda"}}));
    OpStep op;
    op.name = name;
    op.role = OpRole::kForward;
    op.yaml = &functions->back();
    op.reached_from = i == 0 ? "" : "op" + std::to_string(i - 1);
    op.depth = static_cast<int>(i);
    op.impls = {{"CPU",
                 name + "_cpu",
                 ImplForm::kFunction,
                 Loc("aten/src/ATen/native/A.cpp", static_cast<int>(10 + i)),
                 "",
                 {}},
                {"CUDA",
                 name + "_cuda",
                 ImplForm::kFunction,
                 Loc("aten/src/ATen/native/cuda/A.cu", static_cast<int>(10 + i)),
                 "",
                 {}}};
    op.kernels = {{name + "_kernel",
                   CodeDevice::kCuda,
                   Loc("aten/src/ATen/native/cuda/A.cu", static_cast<int>(500 + i)),
                   KernelLaunch::kTripleChevron,
                   {},
                   "",
                   {name + "_cuda"}}};
    t.ops.push_back(std::move(op));
  }
  return t;
}

TEST(RenderText, BigTracesAreCondensed) {
  std::vector<NativeFunction> functions;
  Trace t = ChainTrace(40, &functions);
  std::string text = RenderText(t, RenderOptions{});
  for (size_t i = 0; i < 40; ++i) EXPECT_THAT(text, HasSubstr("aten::op" + std::to_string(i) + " ")) << i;
  EXPECT_THAT(text, HasSubstr("deeper ops (shown condensed"));
  // Condensed ops get one table row each.
  EXPECT_THAT(text,
              HasSubstr("│ aten/src/ATen/native/native_functions.yaml:130 │ op30 → CPU op30_cpu, CUDA op30_cuda"));
  EXPECT_THAT(text, Not(HasSubstr("│ op30_kernel")));
  // Deep chains do not march off the page: deeper ops restart at the margin.
  EXPECT_THAT(text, HasSubstr("op(s) continued below"));
  EXPECT_THAT(text, HasSubstr("\naten::op7  (from op6)"));
  // Condensed ops keep their functions and kernels on one line.
  EXPECT_THAT(text, HasSubstr("aten::op30  CPU op30_cpu · CUDA op30_cuda  ⇒ op30_kernel"));
  // Full detail (the ├─ CUDA line) only for the first ops.
  EXPECT_THAT(text, HasSubstr("├─ CUDA  op0_cuda"));
  EXPECT_THAT(text, Not(HasSubstr("├─ CUDA  op30_cuda")));
  EXPECT_LT(Lines(text).size(), 300u);
  for (const auto& line : Lines(text)) EXPECT_LE(Columns(line), 100u) << line;
}

TEST(RenderText, LongDiagramsNameTheOpsTheyLeaveOut) {
  std::vector<NativeFunction> functions;
  Trace t = ChainTrace(150, &functions);
  for (size_t i = 1; i < t.ops.size(); ++i) t.ops[i].reached_from = "op0";  // one wide tree
  std::string text = RenderText(t, RenderOptions{});
  std::string flow = text.substr(0, text.find("── Layers"));
  EXPECT_THAT(flow, HasSubstr("more ops not drawn (Summary and --json have them):"));
  EXPECT_LT(Lines(flow).size(), 190u);
  for (size_t i = 0; i < 150; ++i) {
    std::string name = "op" + std::to_string(i);
    bool named = flow.find("aten::" + name + " ") != std::string::npos ||
                 flow.find(" " + name + ",") != std::string::npos || flow.find(" " + name + "\n") != std::string::npos;
    EXPECT_TRUE(named) << name;
  }
  for (const auto& line : Lines(text)) EXPECT_LE(Columns(line), 100u) << line;
}

TEST(RenderText, SurvivesReachedFromCycles) {
  std::vector<NativeFunction> functions;
  Trace t = ChainTrace(3, &functions);
  t.ops[0].reached_from = "op2";  // op0 -> op1 -> op2 -> op0
  std::string text = RenderText(t, RenderOptions{});
  for (const char* op : {"aten::op0", "aten::op1", "aten::op2"}) EXPECT_THAT(text, HasSubstr(op));
  EXPECT_THAT(RenderMarkdown(t), HasSubstr("aten::op2"));
  EXPECT_THAT(RenderDot(t), HasSubstr("op2"));
}

// nn.ReLU on CUDA as 2.6.0 has it: relu's CUDA implementation calls
// clamp_min, whose kernels live in its structured delegate clamp_min.out,
// which the tracer reached first from clamp_min_ (off the path). The main
// path folds the delegate's kernels into clamp_min, names them first (the
// "runs on" digest), and lists only relu's derivative: autograd records
// relu, so clamp_min's entry never applies.
TEST(RenderText, MainPathFoldsStructuredDelegatesAndRecordsTheOutermostDerivative) {
  NativeFunction relu = MakeFunction("relu(Tensor self) -> Tensor", 5028, {{"CUDA", "relu"}});
  NativeFunction clamp_min = MakeFunction("clamp_min(Tensor self, Scalar min) -> Tensor", 1584, {});
  clamp_min.structured_delegate = "clamp_min.out";
  NativeFunction clamp_min_ = MakeFunction("clamp_min_(Tensor(a!) self, Scalar min) -> Tensor(a!)", 1595, {});
  clamp_min_.structured_delegate = "clamp_min.out";
  NativeFunction out = MakeFunction("clamp_min.out(Tensor self, Scalar min, *, Tensor(a!) out) -> Tensor(a!)", 1606,
                                    {{"CUDA", "clamp_min_out"}});
  DerivativeEntry relu_d, clamp_d;
  relu_d.name = "relu";
  relu_d.line = 2091;
  clamp_d.name = "clamp_min";
  clamp_d.line = 432;
  Trace t;
  t.query = "aten::relu";
  t.assumptions = {"device=cuda"};
  OpStep r = ForwardOp("relu", &relu, "", true);
  r.impls = {{"CUDA", "relu", ImplForm::kFunction, Loc("aten/src/ATen/native/Activation.cpp", 511), "", {}}};
  OpStep delegate = ForwardOp("clamp_min.out", &out, "clamp_min_", false);
  delegate.impls = {
      {"CUDA", "clamp_min_out", ImplForm::kImplFunc, Loc("aten/src/ATen/native/TensorCompare.cpp", 741), "", {}}};
  KernelStep k;
  k.name = "launch_clamp_scalar";
  k.device = CodeDevice::kCuda;
  k.where = Loc("aten/src/ATen/native/cuda/TensorCompare.cu", 65);
  k.path = {"clamp_min_out", "clamp_min_scalar_stub", "clamp_min_scalar_kernel_impl"};
  delegate.kernels = {k};
  NativeFunction threshold_backward =
      MakeFunction("threshold_backward(Tensor grad_output, Tensor self, Scalar threshold) -> Tensor", 6094, {});
  OpStep backward =
      ForwardOp("threshold_backward", &threshold_backward, "relu", true);  // typical: below relu's derivative
  backward.role = OpRole::kBackward;
  KernelStep bk;
  bk.name = "threshold_kernel_impl";
  bk.device = CodeDevice::kCuda;
  bk.where = Loc("aten/src/ATen/native/cuda/ActivationThresholdKernel.cu", 27);
  backward.kernels = {bk};
  t.ops = {r, ForwardOp("clamp_min", &clamp_min, "relu", true), ForwardOp("clamp_min_", &clamp_min_, "relu", false),
           delegate, backward};
  BackwardStep br, bc;
  br.op = "relu";
  br.derivatives = &relu_d;
  br.ops = {"threshold_backward"};
  bc.op = "clamp_min";
  bc.derivatives = &clamp_d;
  bc.ops = {"where"};
  t.backward = {br, bc};
  std::string all = RenderText(t, RenderOptions{});
  std::string text = all.substr(0, all.find("── Flow"));  // the main path
  EXPECT_THAT(text, HasSubstr("  clamp_min: launch_clamp_scalar, clamp_min_scalar_kernel_impl\n")) << text;
  EXPECT_THAT(text, HasSubstr("CUDA clamp_min_out")) << text;
  EXPECT_THAT(text, HasSubstr("kernel launch_clamp_scalar via clamp_min_scalar_kernel_impl")) << text;
  EXPECT_THAT(text, HasSubstr("∂ relu → threshold_backward")) << text;
  EXPECT_THAT(text, HasSubstr("  ∂ threshold_backward: threshold_kernel_impl\n")) << text;
  EXPECT_THAT(text, Not(HasSubstr("∂ clamp_min"))) << text;
  EXPECT_THAT(text, Not(HasSubstr("aten::clamp_min.out"))) << text;  // folded into clamp_min, not a child
}

// An op behind a C++ condition the assumptions leave open (batch_norm's
// backend selection: cudnn_batch_norm when backend == Cudnn) is on the
// Main path marked open; so is its backward, which runs when it does.
TEST(RenderText, TheBackwardOfAnOpenCppBranchIsOnTheMainPathMarkedOpen) {
  NativeFunction norm = MakeFunction("norm(Tensor self) -> Tensor", 10, {{"CompositeImplicitAutograd", "norm"}});
  NativeFunction fast = MakeFunction("fast_norm(Tensor self) -> Tensor", 20, {{"CUDA", "fast_norm_cuda"}});
  NativeFunction fast_back = MakeFunction("fast_norm_backward(Tensor grad) -> Tensor", 30, {{"CUDA", "fnb_cuda"}});
  DerivativeEntry fast_d;
  fast_d.name = "fast_norm";
  fast_d.line = 40;
  Trace t;
  t.query = "aten::norm";
  t.assumptions = {"device=cuda"};
  OpStep entry = CudaOp("norm", &norm, "", "");
  entry.typical = true;
  OpStep open = CudaOp("fast_norm", &fast, "norm", "fast_norm_kernel");
  Condition backend{"backend == Backend::Fast", false, ConditionKind::kIf, Loc("aten/src/ATen/native/Norm.cpp", 5)};
  backend.open = true;
  open.when = {backend};
  open.undecided = true;  // typical stays false: an open C++ branch is left off the typical path
  OpStep back = CudaOp("fast_norm_backward", &fast_back, "fast_norm", "fast_norm_backward_kernel");
  back.role = OpRole::kBackward;
  back.undecided = true;
  t.ops = {entry, open, back};
  BackwardStep b;
  b.op = "fast_norm";
  b.derivatives = &fast_d;
  b.ops = {"fast_norm_backward"};
  t.backward = {b};
  std::string all = RenderText(t, RenderOptions{});
  std::string text = all.substr(0, all.find("── Flow"));
  EXPECT_THAT(text, HasSubstr("  ? fast_norm: fast_norm_kernel\n")) << text;
  EXPECT_THAT(text, HasSubstr("  ?∂ fast_norm_backward: fast_norm_backward_kernel\n")) << text;
  EXPECT_THAT(text, HasSubstr("∂ fast_norm → fast_norm_backward")) << text;
}

TEST(RenderText, ABackwardRootsCalleeOfItsForwardsNameIsDrawnOnceBelowIt) {
  // diag's formula names diag_back, whose code calls a backward diag (and
  // copy_): that diag is diag_back's callee, reached from it; diag_back is
  // drawn once, never folded below its own callee, and copy_ sits right below it.
  NativeFunction diag = MakeFunction("diag(Tensor self) -> Tensor", 10, {{"CUDA", "diag_cuda"}});
  NativeFunction back = MakeFunction("diag_back(Tensor grad) -> Tensor", 20, {{"CUDA", "diag_back_cuda"}});
  NativeFunction copy = MakeFunction("copy_(Tensor(a!) self, Tensor src) -> Tensor(a!)", 30, {{"CUDA", "copy_cuda"}});
  DerivativeEntry d;
  d.name = "diag";
  d.line = 40;
  Trace t;
  t.query = "aten::diag";
  t.assumptions = {"device=cuda"};
  OpStep entry = CudaOp("diag", &diag, "", "diag_kernel");
  entry.typical = true;
  OpStep root = CudaOp("diag_back", &back, "diag", "diag_back_kernel");
  root.role = OpRole::kBackward;
  root.typical = true;
  OpStep callee = CudaOp("diag", &diag, "diag_back", "diag_kernel");
  callee.role = OpRole::kBackward;
  callee.typical = true;
  OpStep copy_op = CudaOp("copy_", &copy, "diag_back", "copy_kernel");
  copy_op.role = OpRole::kBackward;
  copy_op.typical = true;
  t.ops = {entry, root, callee, copy_op};
  BackwardStep b;
  b.op = "diag";
  b.derivatives = &d;
  b.ops = {"diag_back"};
  t.backward = {b};
  std::string all = RenderText(t, RenderOptions{});
  std::string text = all.substr(all.find("backward (autograd)"));
  EXPECT_THAT(text, HasSubstr("  ▶ aten::diag_back  ")) << text;
  EXPECT_THAT(text, Not(HasSubstr("diag_back (+1 overload)"))) << text;
  EXPECT_THAT(text, HasSubstr("\n    └▶ aten::copy_  ")) << text;
}

// An alternative names what its branch runs: an op off the path whose
// edge carries the alternative's condition. As 2.6.0 has it: RNN.cpp:1434
// `if (at::cudnn_is_acceptable(_input))` returns early, the `_lstm_impl`
// fallback after it reaches at::_thnn_fused_lstm_cell (RNN.cpp:736), whose
// CUDA implementation launches lstm_cell_forward (cuda/RNN.cu:100).
TEST(RenderText, AlternativesNameWhatTheirBranchRuns) {
  NativeFunction lstm = MakeFunction(
      "lstm.input(Tensor input, Tensor[] hx, Tensor[] params, bool has_biases, "
      "int num_layers, float dropout, bool train, bool bidirectional, bool batch_first) "
      "-> (Tensor, Tensor, Tensor)",
      7854, {{"CompositeImplicitAutograd", "lstm"}});
  NativeFunction cell = MakeFunction(
      "_thnn_fused_lstm_cell(Tensor input_gates, Tensor hidden_gates, Tensor cx, "
      "Tensor? input_bias=None, Tensor? hidden_bias=None) -> (Tensor, Tensor, Tensor)",
      7824, {{"CUDA", "_thnn_fused_lstm_cell_cuda"}});
  Trace t;
  t.query = "aten::lstm.input";
  t.assumptions = {"device=cuda"};
  OpStep entry;
  entry.name = "lstm.input";
  entry.role = OpRole::kForward;
  entry.yaml = &lstm;
  entry.typical = true;
  OpStep fused;
  fused.name = "_thnn_fused_lstm_cell";
  fused.role = OpRole::kForward;
  fused.yaml = &cell;
  fused.reached_from = "lstm.input";
  Location cond = Loc("aten/src/ATen/native/RNN.cpp", 1434);
  fused.when = {{"at::cudnn_is_acceptable(_input)", true, ConditionKind::kReturn, cond},
                {"dispatch device == CUDA", false, ConditionKind::kDevice, Loc("aten/src/ATen/native/RNN.cpp", 736)}};
  fused.impls = {{"CUDA",
                  "_thnn_fused_lstm_cell_cuda",
                  ImplForm::kFunction,
                  Loc("aten/src/ATen/native/cuda/RNN.cu", 517),
                  "",
                  {}}};
  KernelStep k;
  k.name = "lstm_cell_forward";
  k.device = CodeDevice::kCuda;
  k.where = Loc("aten/src/ATen/native/cuda/RNN.cu", 100);
  fused.kernels = {k};
  t.ops = {entry, fused};
  t.selections = {{"cudnn_is_acceptable",
                   Loc("aten/src/ATen/native/TensorProperties.cpp", 81),
                   "lstm.input",
                   {{"lstm_cudnn_stub", "when at::cudnn_is_acceptable(_input)", true, cond},
                    {"_lstm_impl", "unless at::cudnn_is_acceptable(_input)", false, cond}}}};
  std::string text = RenderText(t, RenderOptions{});
  std::string main = text.substr(0, text.find("── Flow"));
  EXPECT_THAT(main, HasSubstr("unless at::cudnn_is_acceptable(_input): _lstm_impl")) << main;
  EXPECT_THAT(main, HasSubstr("→ aten::_thnn_fused_lstm_cell: lstm_cell_forward")) << main;
  EXPECT_THAT(main, HasSubstr("cuda/RNN.cu:100")) << main;
  // Off the path: not drawn as a step of the main path.
  EXPECT_THAT(main, Not(HasSubstr("▶ aten::_thnn_fused_lstm_cell"))) << main;
}

TEST(RenderText, AnOpenBranchSaysHowManyMoreConditionsItWaitsOn) {
  NativeFunction loss =
      MakeFunction("loss(Tensor self, Tensor target) -> Tensor", 10, {{"CompositeImplicitAutograd", "loss"}});
  NativeFunction mul = MakeFunction("mul.Tensor(Tensor self, Tensor other) -> Tensor", 20, {{"CUDA", "mul_cuda"}});
  Trace t;
  t.query = "aten::loss";
  t.assumptions = {"device=cuda"};
  OpStep entry;
  entry.name = "loss";
  entry.role = OpRole::kForward;
  entry.yaml = &loss;
  entry.typical = true;
  OpStep step;
  step.name = "mul.Tensor";
  step.role = OpRole::kForward;
  step.yaml = &mul;
  step.reached_from = "loss";
  step.undecided = true;
  Location at = Loc("aten/src/ATen/native/Loss.cpp", 30);
  Condition sizes{"self.sizes() == target.sizes()", false, ConditionKind::kIf, at};
  Condition weight{"weight.defined()", false, ConditionKind::kIf, at};
  Condition mean{"reduction == Reduction::Mean", false, ConditionKind::kCase, at};
  Condition empty{"input.numel() == 0", false, ConditionKind::kIf, at};
  sizes.open = weight.open = empty.open = true;  // mean: decided, the default reduction
  step.when = {sizes, weight, mean, empty, {"dispatch device == CUDA", false, ConditionKind::kDevice, at}};
  step.impls = {{"CUDA", "mul_cuda", ImplForm::kFunction, Loc("aten/src/ATen/native/cuda/Mul.cu", 5), "", {}}};
  KernelStep k;
  k.name = "mul_kernel";
  k.device = CodeDevice::kCuda;
  k.where = Loc("aten/src/ATen/native/cuda/Mul.cu", 9);
  step.kernels = {k};
  t.ops = {entry, step};
  std::string text = RenderText(t, RenderOptions{});
  std::string main = text.substr(0, text.find("── Flow"));
  // The innermost open condition, and that two more open ones decide it too.
  EXPECT_THAT(main, HasSubstr("?▶ aten::mul.Tensor when input.numel() == 0 (+2 conditions)")) << main;
}

// Where the assumptions rule out every op the walk reached (the walk
// stopped above the code that runs, or the op raises for a typical tensor),
// nothing is said to run: the entry ops are alternatives, never the path.
TEST(RenderText, EveryOpRuledOutLeavesThePathEmptyAndSaysSo) {
  NativeFunction mask = MakeFunction("logical_not(Tensor self) -> Tensor", 10, {{"CUDA", "logical_not_cuda"}});
  Trace t;
  t.query = "nn.Model";
  t.assumptions = {"device=cuda"};
  OpStep op = CudaOp("logical_not", &mask, "", "logical_not_kernel");
  op.typical = false;
  op.when = {{"src_key_padding_mask is None", true, ConditionKind::kElse, Loc("torch/nn/modules/model.py", 456)}};
  t.ops = {op};
  EXPECT_TRUE(TraceToJson(t)["summary"]["path"].empty());
  std::string text = RenderText(t, RenderOptions{});
  std::string main = text.substr(0, text.find("alternatives"));
  EXPECT_THAT(main, HasSubstr("nothing found that runs on cuda for a typical call")) << text;
  EXPECT_THAT(main, Not(HasSubstr("logical_not_kernel"))) << text;
}

// An entry op an open Python condition keeps as an optional step
// (functional.py `if dropout_p > 0.0: dropout(...)`: not typical, the code
// goes on without it, but undecided) may run: the main path names it and
// what it runs, marked open, with the typical ops.
TEST(RenderText, AnOptionalStepAnOpenPythonConditionKeepsIsOnThePathMarkedOpen) {
  NativeFunction attn = MakeFunction("attn(Tensor self) -> Tensor", 10, {{"CUDA", "attn_cuda"}});
  NativeFunction drop = MakeFunction("dropout(Tensor self, float p) -> Tensor", 20, {{"CUDA", "dropout_cuda"}});
  Trace t;
  t.query = "F.attn";
  t.assumptions = {"device=cuda"};
  OpStep a = CudaOp("attn", &attn, "", "attn_kernel");
  a.typical = true;
  OpStep d = CudaOp("dropout", &drop, "", "fused_dropout_kernel");
  d.undecided = true;  // typical stays false: an optional step
  Condition p{"dropout_p > 0.0", false, ConditionKind::kIf, Loc("torch/nn/functional.py", 6375)};
  p.open = true;
  d.when = {p};
  NativeFunction unsq = MakeFunction("unsqueeze(Tensor self, int dim) -> Tensor", 30, {});
  OpStep u;  // `if not is_batched: input = input.unsqueeze(1)`: set-up, open
  u.name = "unsqueeze";
  u.role = OpRole::kForward;
  u.yaml = &unsq;
  u.undecided = true;
  u.when = {p};
  t.ops = {a, d, u};
  std::string text = RenderText(t, RenderOptions{});
  std::string names = text.substr(0, text.find("alternatives"));
  EXPECT_THAT(names, HasSubstr("  attn: attn_kernel")) << text;
  EXPECT_THAT(names, HasSubstr("  ? dropout: fused_dropout_kernel")) << text;
  EXPECT_THAT(text, HasSubstr("set-up (factories, views): ?unsqueeze")) << text;
}

// An op's overloads share one Main path entry: where an open branch shows
// one first (add_.Scalar under an open linear) and the typical path takes
// another (add_.Tensor in the caller), the entry runs.
TEST(RenderText, AnOverloadThePathTakesDecidesTheEntryAnOpenOneBegan) {
  NativeFunction enc = MakeFunction("enc(Tensor self) -> Tensor", 10, {{"CUDA", "enc_cuda"}});
  NativeFunction lin = MakeFunction("lin(Tensor self) -> Tensor", 20, {{"CompositeImplicitAutograd", "lin"}});
  NativeFunction add_s = MakeFunction("add_.Scalar(Tensor(a!) self, Scalar other) -> Tensor(a!)", 30, {});
  NativeFunction add_t = MakeFunction("add_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)", 40, {});
  auto op = [](const std::string& name, const NativeFunction* f, const std::string& from, bool typical) {
    OpStep s = ForwardOp(name, f, from, typical);
    s.undecided = !typical;
    KernelStep k;
    k.name = name.substr(0, name.find('.')) + "_kernel";
    k.device = CodeDevice::kCuda;
    k.typical = true;
    k.where = Loc("aten/src/ATen/native/cuda/K.cu", 9);
    s.kernels = {k};
    return s;
  };
  Trace t;
  t.query = "aten::enc";
  t.assumptions = {"device=cuda"};
  t.ops = {op("enc", &enc, "", true), op("lin", &lin, "enc", false), op("add_.Scalar", &add_s, "lin", false),
           op("add_.Tensor", &add_t, "enc", true)};
  std::string text = RenderText(t, RenderOptions{});
  std::string names = text.substr(0, text.find("\n\n", text.find("runs on cuda")));
  EXPECT_THAT(names, HasSubstr("\n  add_: add__kernel")) << text;
  EXPECT_THAT(names, Not(HasSubstr("? add_"))) << text;
  EXPECT_THAT(names, HasSubstr("? lin: lin_kernel")) << text;
  const auto json = TraceToJson(t);
  bool named = false;
  for (const auto& entry : json.at("summary").at("path"))
    named = named || entry.at("op").get<std::string>() == "add_.Tensor";
  EXPECT_TRUE(named) << "the entry names the overload that runs: " << json.at("summary").dump();
}

// An op's own kernels come before those its code reaches through another
// op's implementation it calls directly (cat_out_cuda's copy_ of a single
// input: copy_'s kernels), whatever order the walk found them in.
TEST(RenderText, AnOpsOwnKernelsComeBeforeThoseOfAnotherOpsImplementationItCalls) {
  NativeFunction cat = MakeFunction("cat(Tensor[] tensors, int dim=0) -> Tensor", 10, {{"CUDA", "cat_out_cuda"}});
  NativeFunction copy =
      MakeFunction("copy_(Tensor(a!) self, Tensor src) -> Tensor(a!)", 20, {{"CompositeExplicitAutograd", "copy_"}});
  auto kernel = [](const std::string& name, std::vector<std::string> path) {
    KernelStep k;
    k.name = name;
    k.device = CodeDevice::kCuda;
    k.where = Loc("aten/src/ATen/native/cuda/K.cu", 9);
    k.path = std::move(path);
    return k;
  };
  auto op = [](const std::string& name, const NativeFunction* f, const std::string& impl, const std::string& from) {
    OpStep s = ForwardOp(name, f, from, true);
    ImplStep im;
    im.key = from.empty() ? "CUDA" : "CompositeExplicitAutograd";
    im.function = impl;
    s.impls = {im};
    return s;
  };
  OpStep c = op("cat", &cat, "cat_out_cuda", "");
  c.kernels = {kernel("direct_copy_kernel_cuda", {"cat_out_cuda", "copy_", "copy_impl", "copy_kernel_cuda"}),
               kernel("CatArrayBatchedCopy", {"cat_out_cuda", "parallel_cat"})};
  Trace t;
  t.query = "aten::cat";
  t.assumptions = {"device=cuda"};
  t.ops = {c, op("copy_", &copy, "copy_", "cat")};
  std::string text = RenderText(t, RenderOptions{});
  EXPECT_THAT(text, HasSubstr("  cat: CatArrayBatchedCopy, direct_copy_kernel_cuda")) << text;
}

// The stub target of an op (maximum_stub -> maximum_kernel_cuda) is named
// among what it runs; where a launch of that very name is left open, the
// name is given once, marked open.
TEST(RenderText, AStubTargetWhoseLaunchIsOpenIsNamedOnceMarkedOpen) {
  NativeFunction top = MakeFunction("top(Tensor self) -> Tensor", 10, {{"CUDA", "top_cuda"}});
  NativeFunction most = MakeFunction("most(Tensor self, Tensor other) -> Tensor", 20, {{"CUDA", "most_out"}});
  Trace t;
  t.query = "aten::top";
  t.assumptions = {"device=cuda"};
  OpStep a;
  a.name = "top";
  a.role = OpRole::kForward;
  a.yaml = &top;
  a.typical = true;
  KernelStep k;
  k.name = "top_kernel";
  k.device = CodeDevice::kCuda;
  k.typical = true;
  k.where = Loc("aten/src/ATen/native/cuda/Top.cu", 9);
  a.kernels = {k};
  OpStep m;
  m.name = "most";
  m.role = OpRole::kForward;
  m.yaml = &most;
  m.reached_from = "top";
  m.undecided = true;
  Condition c{"self.numel() > 4", false, ConditionKind::kIf, Loc("aten/src/ATen/native/Top.cpp", 5)};
  c.open = true;
  m.when = {c};
  StubStep stub;
  stub.name = "most_stub";
  stub.registrations = {
      {"CUDA", "REGISTER_DISPATCH", "most_kernel_cuda", Loc("aten/src/ATen/native/cuda/Most.cu", 30), {}}};
  m.stubs = {stub};
  KernelStep open = k;
  open.name = "most_kernel_cuda";
  open.undecided = true;
  open.where = Loc("aten/src/ATen/native/cuda/Most.cu", 16);
  m.kernels = {open};
  t.ops = {a, m};
  std::string text = RenderText(t, RenderOptions{});
  EXPECT_THAT(text, HasSubstr("? most: ?most_kernel_cuda\n")) << text;
}

// What else runs follows what runs: with the names' lines drawn (two ops
// or more), the alternatives come before the Python frames and the tree
// that locate each name; a heading with nothing under it (the only open
// branch is drawn on the path already) is left out.
Trace LossWithAnOpenMul(bool with_selection) {
  static const NativeFunction loss =
      MakeFunction("loss(Tensor self, Tensor target) -> Tensor", 10, {{"CompositeImplicitAutograd", "loss"}});
  static const NativeFunction mul =
      MakeFunction("mul.Tensor(Tensor self, Tensor other) -> Tensor", 20, {{"CUDA", "mul_cuda"}});
  Trace t;
  t.query = "aten::loss";
  t.assumptions = {"device=cuda"};
  OpStep entry;
  entry.name = "loss";
  entry.role = OpRole::kForward;
  entry.yaml = &loss;
  entry.typical = true;
  OpStep step;
  step.name = "mul.Tensor";
  step.role = OpRole::kForward;
  step.yaml = &mul;
  step.reached_from = "loss";
  step.undecided = true;
  Location at = Loc("aten/src/ATen/native/Loss.cpp", 30);
  step.when = {{"weight.defined()", true, ConditionKind::kIf, at}};
  KernelStep k;
  k.name = "mul_kernel";
  k.device = CodeDevice::kCuda;
  k.where = Loc("aten/src/ATen/native/cuda/Mul.cu", 9);
  step.kernels = {k};
  t.ops = {entry, step};
  if (with_selection)
    t.selections = {{"pick_loss_backend",
                     Loc("aten/src/ATen/native/Loss.cpp", 12),
                     "loss",
                     {{"fused_loss", "when use_fused(self)", false, Loc("aten/src/ATen/native/Loss.cpp", 14)}}}};
  return t;
}

TEST(RenderText, AlternativesFollowTheNamesOfWhatRuns) {
  std::string text = RenderText(LossWithAnOpenMul(true), RenderOptions{});
  size_t runs = text.find("runs on cuda"), alternatives = text.find("alternatives (what else runs, and when)"),
         tree = text.find("▶ aten::loss"), decides = text.find("pick_loss_backend decides in loss");
  ASSERT_NE(runs, std::string::npos) << text;
  ASSERT_NE(alternatives, std::string::npos) << text;
  ASSERT_NE(tree, std::string::npos) << text;
  EXPECT_LT(runs, alternatives) << text;
  EXPECT_LT(alternatives, decides) << text;
  EXPECT_LT(decides, tree) << text;
}

TEST(RenderText, AnAlternativesHeadingWithNothingUnderItIsLeftOut) {
  std::string text = RenderText(LossWithAnOpenMul(false), RenderOptions{});
  std::string main = text.substr(0, text.find("── Flow"));
  EXPECT_THAT(main, HasSubstr("?▶ aten::mul.Tensor")) << main;  // the open branch, drawn on the path
  EXPECT_THAT(main, Not(HasSubstr("alternatives (what else runs"))) << main;
}

// A family of kernels built per GPU architecture (`_sm50`, `_sm80`) lists
// the newest first, in the names of what runs and in the tree: a launcher
// picks the newest one the device's compute capability allows.
TEST(RenderText, TheNewestArchitectureOfAKernelFamilyComesFirst) {
  Trace t = LossWithAnOpenMul(false);
  OpStep& mul = t.ops[1];
  mul.undecided = false;
  mul.typical = true;
  mul.when.clear();
  mul.kernels.clear();
  for (const char* name : {"attn_f32_sm50", "attn_f32_sm80", "attn_f32_sm75"}) {
    KernelStep k;
    k.name = name;
    k.device = CodeDevice::kCuda;
    k.where = Loc("aten/src/ATen/native/cuda/Attn.cu", 9);
    mul.kernels.push_back(k);
  }
  std::string text = RenderText(t, RenderOptions{});
  EXPECT_THAT(text, HasSubstr("mul: attn_f32_sm80, attn_f32_sm75, attn_f32_sm50")) << text;
  EXPECT_THAT(text, HasSubstr("kernels attn_f32_sm80:9, attn_f32_sm75:9, attn_f32_sm50:9")) << text;
}

// An op the path's op calls on a branch of one of its own non-Tensor
// arguments (kl_div's `if (log_target)`, Loss.cpp:245 in 2.6.0) is what
// else runs for another argument: listed with what it runs. A branch on a
// Tensor's state is no argument's; one that runs nothing is left out.
TEST(RenderText, AnArgumentsBranchInTheCalledCodeIsAnAlternative) {
  NativeFunction kl =
      MakeFunction("kl_div(Tensor self, Tensor target, int reduction=Mean, *, bool log_target=False) -> Tensor", 10,
                   {{"CompositeImplicitAutograd", "kl_div"}});
  NativeFunction mul = MakeFunction("mul.Tensor(Tensor self, Tensor other) -> Tensor", 20, {{"CUDA", "mul_out"}});
  NativeFunction exp = MakeFunction("exp(Tensor self) -> Tensor", 30, {{"CUDA", "exp_out"}});
  NativeFunction neg = MakeFunction("neg(Tensor self) -> Tensor", 40, {{"CUDA", "neg_out"}});
  NativeFunction view = MakeFunction("view(Tensor self, int[] size) -> Tensor", 50, {});
  Trace t;
  t.query = "aten::kl_div";
  t.assumptions = {"device=cuda"};
  auto kernel = [](const std::string& name, int line) {
    KernelStep k;
    k.name = name;
    k.device = CodeDevice::kCuda;
    k.where = Loc("aten/src/ATen/native/cuda/K.cu", line);
    return k;
  };
  Location at = Loc("aten/src/ATen/native/Loss.cpp", 245);
  OpStep m = ForwardOp("mul.Tensor", &mul, "kl_div", true);
  m.kernels = {kernel("MulFunctor", 33)};
  OpStep n = ForwardOp("neg", &neg, "kl_div", true);
  n.kernels = {kernel("neg_kernel_cuda", 48)};
  OpStep e = ForwardOp("exp", &exp, "kl_div", false);
  e.when = {{"log_target", false, ConditionKind::kIf, at}};
  e.kernels = {kernel("exp_kernel_cuda", 56)};
  OpStep v = ForwardOp("view", &view, "kl_div", false);
  v.when = {{"log_target", true, ConditionKind::kIf, at}};  // runs nothing
  OpStep s = ForwardOp("neg", &neg, "kl_div", false);
  s.name = "sign";
  s.when = {{"self.is_sparse()", false, ConditionKind::kIf, at}};  // the tensor's state
  s.kernels = {kernel("sign_kernel_cuda", 60)};
  // A call of the CPU implementation's helper on the argument's branch
  // (_embedding_bag_cpu's apply_bag_size under `mode == MEAN`) runs on no
  // CUDA tensor, whatever the argument.
  OpStep c = ForwardOp("neg", &neg, "kl_div", false);
  c.name = "abs";
  c.when = {{"log_target", false, ConditionKind::kIf, at},
            {"dispatch device == CPU", false, ConditionKind::kDevice, at}};
  c.kernels = {kernel("abs_kernel_cpu", 70)};
  t.ops = {ForwardOp("kl_div", &kl, "", true), m, n, e, v, s, c};
  std::string text = RenderText(t, RenderOptions{});
  std::string main = text.substr(0, text.find("── Flow"));
  EXPECT_THAT(main, HasSubstr("when log_target: aten::exp → exp_kernel_cuda")) << main;
  EXPECT_THAT(main, Not(HasSubstr("aten::view"))) << main;
  EXPECT_THAT(main, Not(HasSubstr("sign_kernel_cuda"))) << main;
  EXPECT_THAT(main, Not(HasSubstr("abs_kernel_cpu"))) << main;
  EXPECT_LT(main.find("aten::exp →"), main.find("kl_div(...)")) << main;
}

// In the names of what runs, an op the assumptions decide runs has four
// lines for its kernels; an op behind an open condition two.
TEST(RenderText, AnOpThatRunsHasRoomForItsKernelsNames) {
  NativeFunction norm = MakeFunction("norm(Tensor self) -> Tensor", 10, {{"CUDA", "norm_cuda"}});
  NativeFunction side = MakeFunction("side(Tensor self) -> Tensor", 20, {{"CUDA", "side_cuda"}});
  Trace t;
  t.query = "aten::norm";
  t.assumptions = {"device=cuda"};
  auto with_kernels = [](OpStep s, const std::string& stem) {
    for (int i = 0; i < 12; ++i) {
      KernelStep k;
      k.name = stem + "_kernel_with_a_long_name_" + std::to_string(i);
      k.device = CodeDevice::kCuda;
      k.where = Loc("aten/src/ATen/native/cuda/Norm.cu", 10 + i);
      s.kernels.push_back(k);
    }
    return s;
  };
  OpStep n;
  n.name = "norm";
  n.role = OpRole::kForward;
  n.yaml = &norm;
  n.typical = true;
  OpStep o;
  o.name = "side";
  o.role = OpRole::kForward;
  o.yaml = &side;
  o.reached_from = "norm";
  o.undecided = true;
  o.when = {{"self.numel() > 4", true, ConditionKind::kIf, Loc("aten/src/ATen/native/cuda/Norm.cu", 5)}};
  o.when.back().open = true;
  t.ops = {with_kernels(n, "norm"), with_kernels(o, "side")};
  std::string text = RenderText(t, RenderOptions{});
  std::string names = text.substr(text.find("runs on cuda"), text.find("▶ aten::norm") - text.find("runs on cuda"));
  EXPECT_THAT(names, HasSubstr("norm_kernel_with_a_long_name_7")) << names;  // past two lines
  EXPECT_THAT(names, HasSubstr("side_kernel_with_a_long_name_2")) << names;
  EXPECT_THAT(names, Not(HasSubstr("side_kernel_with_a_long_name_7"))) << names;
}

TEST(RenderText, NotFoundListsSuggestions) {
  Trace t;
  t.query = "nn.LayerNorn";
  t.not_found = {{"query", "nothing named nn.LayerNorn"}};
  t.suggestions = {"nn.LayerNorm", "nn.GroupNorm"};
  std::string text = RenderText(t, RenderOptions{});
  EXPECT_THAT(text, HasSubstr("query: nothing named nn.LayerNorn"));
  EXPECT_THAT(text, HasSubstr("did you mean: nn.LayerNorm, nn.GroupNorm"));
  EXPECT_THAT(text, Not(HasSubstr("── Flow")));
}

// ---------------------------------------------------------------- markdown, DOT

TEST(RenderMarkdown, IsWellFormed) {
  LayerNormTrace fixture;
  fixture.trace.ops[1].impls.Edit()[0].function = "weird|name";
  std::string md = RenderMarkdown(fixture.trace);
  EXPECT_EQ(md.rfind("# optrace: `nn.LayerNorm`", 0), 0u);
  for (const char* heading : {"\n## Flow\n", "\n## Layers\n", "\n## Summary\n", "\n## Notes\n"})
    EXPECT_THAT(md, HasSubstr(heading));
  EXPECT_THAT(md, HasSubstr("| Layer | File:line | Function |\n|---|---|---|\n"));
  EXPECT_THAT(md,
              HasSubstr("| C++ CUDA | `aten/src/ATen/native/cuda/layer_norm_kernel.cu:1334` | `layer_norm_cuda` |"));
  EXPECT_THAT(md, HasSubstr("```python\n    def forward(self, input: Tensor) -> Tensor:\n"));
  EXPECT_THAT(md, HasSubstr("weird\\|name"));
  size_t fences = 0;
  for (const auto& line : Lines(md)) {
    if (line.rfind("```", 0) == 0) ++fences;
    // Every table row has the same number of unescaped cell separators.
    if (line.rfind("| ", 0) == 0) {
      size_t bars = 0;
      for (size_t i = 0; i < line.size(); ++i)
        if (line[i] == '|' && (i == 0 || line[i - 1] != '\\')) ++bars;
      EXPECT_EQ(bars, 4u) << line;
    }
  }
  EXPECT_EQ(fences % 2, 0u);
  EXPECT_GE(fences, 4u);
}

TEST(RenderDot, IsBalancedAndDrawsBackwardDashed) {
  LayerNormTrace fixture;
  fixture.trace.ops[1].impls.Edit()[0].function = "with \"quotes\" {and braces}";
  std::string dot = RenderDot(fixture.trace);
  EXPECT_EQ(dot.rfind("digraph optrace {", 0), 0u);
  int depth = 0;
  bool quoted = false;
  for (size_t i = 0; i < dot.size(); ++i) {
    char c = dot[i];
    if (quoted) {
      if (c == '\\') ++i;
      else if (c == '"') quoted = false;
      continue;
    }
    if (c == '"') quoted = true;
    else if (c == '{') ++depth;
    else if (c == '}') --depth;
    EXPECT_GE(depth, 0);
  }
  EXPECT_EQ(depth, 0);
  EXPECT_FALSE(quoted);
  EXPECT_THAT(dot, HasSubstr("with \\\"quotes\\\" {and braces}"));
  EXPECT_THAT(dot, HasSubstr("op0 -> op1;"));                // layer_norm -> native_layer_norm
  EXPECT_THAT(dot, HasSubstr("op1 -> op2 [style=dashed]"));  // its backward
  EXPECT_THAT(dot, HasSubstr("op1_i1 -> op1_k0;"));          // the kernel hangs off layer_norm_cuda
  EXPECT_THAT(dot, HasSubstr("py1 -> op0;"));
}

// A stub whose call the assumptions rule out (`if (use_half_path(x))
// half_stub(...)` at float32), and the library below it, name nothing on
// the Main path; one left open is marked `?`.
TEST(RenderText, AStubOrLibraryRuledOutNamesNothingThatRuns) {
  static const NativeFunction blend = MakeFunction("blend(Tensor self) -> Tensor", 10, {{"CUDA", "blend_cuda"}});
  for (const auto& [typical, undecided] : {std::pair{false, false}, {true, true}}) {
    Trace t;
    t.query = "aten::blend";
    t.assumptions = {"device=cuda"};
    OpStep op;
    op.name = "blend";
    op.role = OpRole::kForward;
    op.yaml = &blend;
    op.typical = true;
    StubStep stub;
    stub.name = "blend_half_stub";
    stub.registrations = {
        {"CUDA", "REGISTER_CUDA_DISPATCH", "blend_half_cuda", Loc("aten/src/ATen/native/cuda/B.cu", 30), {}}};
    stub.typical = typical;
    stub.undecided = undecided;
    op.stubs = {stub};
    LibraryStep lib;
    lib.name = "cuBLAS";
    lib.where = Loc("aten/src/ATen/native/cuda/B.cu", 12);
    lib.typical = typical;
    lib.undecided = undecided;
    op.libraries = {lib};
    OpStep fill;  // a second op on the path: the names line is drawn
    fill.name = "fill_";
    fill.role = OpRole::kForward;
    fill.reached_from = "blend";
    fill.typical = true;
    KernelStep k;
    k.name = "fill_kernel";
    k.where = Loc("aten/src/ATen/native/cuda/Fill.cu", 9);
    fill.kernels = {k};
    t.ops = {op, fill};
    const std::string text = RenderText(t, RenderOptions{});
    const std::string main = text.substr(0, text.find("── Flow"));
    EXPECT_EQ(main.find("blend_half_cuda") != std::string::npos, typical) << main;
    EXPECT_EQ(main.find("?cuBLAS") != std::string::npos, typical) << main;
  }
}

TEST(RenderText, AKernelsHandedAtomicsAreSaidWhereTheirStubRuns) {
  // ScatterGatherKernel.cu:495-497: scatter_add_cuda_kernel hands its kernel ReduceAdd (:34),
  // whose operator() calls fastAtomicAdd: said as the stub on the way is taken, open or ruled out.
  static const NativeFunction scatter =
      MakeFunction("scatter_add(Tensor self) -> Tensor", 10, {{"CUDA", "scatter_add"}});
  for (const auto& [typical, undecided, said] : {std::tuple{true, false, "atomics fastAtomicAdd in ReduceAdd"},
                                                 {true, true, "?atomics fastAtomicAdd in ReduceAdd"},
                                                 {false, false, ""}}) {
    Trace t;
    t.query = "aten::scatter_add";
    t.assumptions = {"device=cuda"};
    OpStep op;
    op.name = "scatter_add";
    op.role = OpRole::kForward;
    op.yaml = &scatter;
    op.typical = true;
    StubStep stub;
    stub.name = "scatter_add_stub";
    stub.typical = typical;
    stub.undecided = undecided;
    op.stubs = {stub};
    KernelStep k;
    k.name = "_scatter_gather_elementwise_kernel";
    k.where = Loc("aten/src/ATen/native/cuda/ScatterGatherKernel.cu", 88);
    k.passed_atomics = {{"ReduceAdd",
                         Loc("aten/src/ATen/native/cuda/ScatterGatherKernel.cu", 34),
                         Loc("aten/src/ATen/native/cuda/ScatterGatherKernel.cu", 495),
                         "scatter_add_stub",
                         {"fastAtomicAdd"}}};
    op.kernels = {k};
    t.ops = {op};
    const std::string text = RenderText(t, RenderOptions{});
    const std::string main = text.substr(0, text.find("── Notes"));
    const std::string line = std::string(said) + ", handed to _scatter_gather_elementwise_kernel";
    if (*said) EXPECT_NE(main.find(line), std::string::npos) << main;
    else EXPECT_EQ(main.find("ReduceAdd"), std::string::npos) << main;
    if (*said && !undecided) EXPECT_EQ(main.find("?atomics"), std::string::npos) << main;
  }
}

}  // namespace
}  // namespace optrace
