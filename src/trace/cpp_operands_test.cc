// The textual reading of C++ bodies (cpp_operands.h): declarations,
// bindings, call arguments and the overloads they admit. Small bodies
// written here, each modelled on a line of the 2.6.0 tree named in its comment.
#include "trace/cpp_operands.h"

#include <gtest/gtest.h>

#include "trace/trace_internal.h"

namespace optrace {
namespace {

TEST(ArgumentKind, AnOperatorOnATensorIsATensor) {
  // TensorOperators.h: `self == other`, `grad / 2`, `-x` are Tensors; an
  // operator on numbers alone, or one no Tensor overload returns a Tensor
  // from (&&, a pointer's *), is not read.
  const std::string params = "const Tensor& self, const Tensor& other, int64_t n, Tensor* out";
  EXPECT_EQ(ArgumentKind(params, "", "self == other"), 't');
  EXPECT_EQ(ArgumentKind(params, "", "self / 2"), 't');
  EXPECT_EQ(ArgumentKind(params, "", "2 * n - other"), 't');
  EXPECT_EQ(ArgumentKind(params, "", "-self"), 't');
  EXPECT_EQ(ArgumentKind(params, "", "n * 2"), 'n');  // numbers alone: a number
  EXPECT_EQ(ArgumentKind(params, "", "n * k"), '?');  // k undeclared
  EXPECT_EQ(ArgumentKind(params, "  constexpr double alpha = 1.75;\n  double a = 2.0;\n", "alpha * a"), 'n');
  EXPECT_EQ(ArgumentKind(params, "", "self.dim() == 2"), '?');
  EXPECT_EQ(ArgumentKind(params, "", "*out"), '?');
  EXPECT_EQ(ArgumentKind(params, "", "self.defined() && other.defined()"), '?');
  // <cmath>'s macros are numbers.
  EXPECT_EQ(ArgumentKind(params, "", "NAN"), 'n');
  EXPECT_EQ(ArgumentKind(params, "", "-INFINITY"), 'n');
}

TEST(CallArguments, KindsAsWrittenPickTheOverloadsCppCouldCall) {
  CppCall c;
  c.callee = "scatter_";
  c.kind = CallKind::kMember;
  c.qualifier = "self.";
  c.line = 12;
  std::string body = "{\n  scalar_t init_val;\n  self.scatter_(dim, index, init_val);\n}";
  auto args = CallArguments(body, 10, c);
  ASSERT_TRUE(args.has_value());
  EXPECT_EQ(*args, (std::vector<std::string>{"dim", "index", "init_val"}));
  EXPECT_EQ(ArgumentKind("const Tensor& index", body, "index"), 't');
  EXPECT_EQ(ArgumentKind("", body, "init_val"), 'n');
  EXPECT_EQ(ArgumentKind("", body, "-1"), 'n');
  EXPECT_EQ(ArgumentKind("", body, "\"sum\""), 's');
  EXPECT_EQ(ArgumentKind("", body, "a + b"), '?');
  // `n == 0` compares: no declaration of n (TensorShape.cpp:967, chunk's `if (split_size == 0 &&
  // dim_size == 0)`); std::move(x) is x.
  const std::string locals =
      "  int64_t split_size = 2;\n"
      "  int64_t dim_size = 3;\n"
      "  if (split_size == 0 && dim_size == 0) return;\n";
  EXPECT_EQ(ArgumentKind("", locals, "dim_size"), 'n');
  EXPECT_EQ(ArgumentKind("", locals, "std::move(split_size)"), 'n');
  // TensorShape.cpp:960-961 (2.6.0): an `auto` of arithmetic on sizes and numbers is a number.
  const std::string autos =
      "  const auto dim_size = self.sym_size(dim);\n"
      "  auto split_size = (dim_size + chunks - 1) / chunks;\n"
      "  auto total = self.sum(0);\n"
      "  auto mixed = dim_size + total;\n";
  EXPECT_EQ(ArgumentKind("int64_t chunks", autos, "split_size"), 'n');
  EXPECT_EQ(ArgumentKind("", autos, "dim_size"), 'n');
  EXPECT_EQ(ArgumentKind("", autos, "total"), '?') << "a Tensor method other than a size";
  EXPECT_EQ(ArgumentKind("", autos, "mixed"), '?');
  // An element of a Tensor is a Tensor (TensorBody.h's operator[]); of anything else, not known.
  std::string sorted = "{\n  Tensor sorted = f(self);\n  IntArrayRef sizes = self.sizes();\n}";
  EXPECT_EQ(ArgumentKind("", sorted, "sorted[-1]"), 't');
  EXPECT_EQ(ArgumentKind("const Tensor& t", sorted, "t[k]"), 't');
  EXPECT_EQ(ArgumentKind("", sorted, "sizes[0]"), '?');
  EXPECT_EQ(ArgumentKind("", sorted, "sorted[-1].isnan()"), '?');
  c.line = 11;  // not on that line: not read
  EXPECT_FALSE(CallArguments(body, 10, c).has_value());

  FunctionSchema src, value, reduce;
  std::string error;
  ASSERT_TRUE(ParseFunctionSchema("scatter_.src(Tensor(a!) self, int dim, Tensor index, Tensor src) -> Tensor(a!)",
                                  &src, &error));
  ASSERT_TRUE(ParseFunctionSchema("scatter_.value(Tensor(a!) self, int dim, Tensor index, Scalar value) -> Tensor(a!)",
                                  &value, &error));
  ASSERT_TRUE(ParseFunctionSchema(
      "scatter_.reduce(Tensor(a!) self, int dim, Tensor index, Tensor src, *, str reduce) -> Tensor(a!)", &reduce,
      &error));
  const std::vector<char> kinds = {'?', 't', 'n'};
  EXPECT_FALSE(AdmitsArguments(src, true, kinds));  // a number is no Tensor
  EXPECT_TRUE(AdmitsArguments(value, true, kinds));
  EXPECT_FALSE(AdmitsArguments(reduce, true, kinds));  // `reduce` has no default
  EXPECT_TRUE(AdmitsArguments(src, true, {'?', '?', '?'}));
  // `x.any()`: any.dims takes no C++ call without its dim (cpp_no_default_args), aten::any does.
  FunctionSchema dims;
  ASSERT_TRUE(
      ParseFunctionSchema("any.dims(Tensor self, int[]? dim=None, bool keepdim=False) -> Tensor", &dims, &error));
  EXPECT_TRUE(AdmitsArguments(dims, true, {}));
  EXPECT_FALSE(AdmitsArguments(dims, true, {}, 2));
  EXPECT_TRUE(AdmitsArguments(dims, true, {'?'}, 2));
  // self.split(split_size, dim) with a number: both overloads admit it, the list one by a conversion.
  FunctionSchema split, sizes;
  ASSERT_TRUE(ParseFunctionSchema("split.Tensor(Tensor(a -> *) self, SymInt split_size, int dim=0) -> Tensor(a)[]",
                                  &split, &error));
  ASSERT_TRUE(ParseFunctionSchema("split.sizes(Tensor(a -> *) self, SymInt[] split_size, int dim=0) -> Tensor(a)[]",
                                  &sizes, &error));
  EXPECT_TRUE(AdmitsArguments(sizes, true, {'n', 'n'}));
  EXPECT_EQ(ListConversions(split, true, {'n', 'n'}), 0u);
  EXPECT_EQ(ListConversions(sizes, true, {'n', 'n'}), 1u);
  EXPECT_EQ(ListConversions(sizes, true, {'?', 'n'}), 0u);
}

TEST(CallArguments, ACallIsReadWhereItIsWrittenInItsForm) {
  // cuda/SummaryOps.cu:276 (2.6.0): `std::max(self.max().item<input_t>() + (int64_t)1, minlength)`.
  // The Tensor method max takes no argument (aten::max, the full reduction), not std::max's two.
  const std::string body =
      "{\n  const int64_t nbins =\n      std::max(self.max().item<input_t>() + (int64_t)1, minlength);\n}";
  CppCall method;
  method.callee = "max";
  method.kind = CallKind::kMember;
  method.qualifier = "self.";
  method.line = 12;
  auto args = CallArguments(body, 10, method);
  ASSERT_TRUE(args.has_value());
  EXPECT_TRUE(args->empty());
  CppCall qualified = method;
  qualified.kind = CallKind::kQualified;
  qualified.qualifier = "std::";
  args = CallArguments(body, 10, qualified);
  ASSERT_TRUE(args.has_value());
  EXPECT_EQ(args->size(), 2u);
  // Another receiver's method, and a plain call, are not written on that line.
  CppCall other = method;
  other.qualifier = "result.";
  EXPECT_FALSE(CallArguments(body, 10, other).has_value());
  CppCall plain = method;
  plain.kind = CallKind::kPlain;
  plain.qualifier.clear();
  EXPECT_FALSE(CallArguments(body, 10, plain).has_value());
}

TEST(CallArguments, ABracedListOfSeveralElementsIsAList) {
  // transformers/cuda/attention.cu:475 `q_k_v.view({3 * B, num_head, T, dim_per_head})` with `T`
  // written again after its initializer: not every element is read, yet C++ initialises no single
  // value (a ScalarType) from a braced list of four: view, never view.dtype.
  const std::string body = "  auto T = qkv.size(1);\n  T = T + (8 - (T % 8)) % 8;\n";
  EXPECT_EQ(ArgumentKind("Tensor q_k_v", body, "{3 * B, num_head, T, dim_per_head}"), 'B');
  EXPECT_EQ(ArgumentKind("", body, "{a, b}"), 'B');
  EXPECT_EQ(ArgumentKind("", body, "{a}"), '?') << "one element may initialise a single value";
  FunctionSchema view, dtype, cat;
  std::string error;
  ASSERT_TRUE(ParseFunctionSchema("view(Tensor(a) self, SymInt[] size) -> Tensor(a)", &view, &error));
  ASSERT_TRUE(ParseFunctionSchema("view.dtype(Tensor(a) self, ScalarType dtype) -> Tensor(a)", &dtype, &error));
  ASSERT_TRUE(ParseFunctionSchema("cat(Tensor[] tensors, int dim=0) -> Tensor", &cat, &error));
  EXPECT_TRUE(AdmitsArguments(view, true, {'B'}));
  EXPECT_FALSE(AdmitsArguments(dtype, true, {'B'}));
  EXPECT_TRUE(AdmitsArguments(cat, false, {'B'})) << "a braced list of Tensors is a Tensor list";
}

TEST(CallArguments, ADtypeArgumentTakesTheOverloadWithAScalarTypeParameter) {
  // ReduceOps.cpp:487 `self.to(result.scalar_type())`: to.dtype; to.other needs a Tensor, and
  // to.dtype_layout takes the dtype only packed into TensorOptions (a user-defined conversion).
  const std::string body = "  ScalarType want = kFloat;\n  at::ScalarType other = want;\n";
  EXPECT_EQ(ArgumentKind("", body, "result.scalar_type()"), 'd');
  EXPECT_EQ(ArgumentKind("", body, "result->scalar_type()"), 'd');
  EXPECT_EQ(ArgumentKind("", body, "at::kLong"), 'd');
  EXPECT_EQ(ArgumentKind("", body, "c10::ScalarType::Half"), 'd');
  EXPECT_EQ(ArgumentKind("", body, "want"), 'd');
  EXPECT_EQ(ArgumentKind("ScalarType dtype", body, "dtype"), 'd');
  EXPECT_EQ(ArgumentKind("", body, "kNoSuchType"), '?');
  EXPECT_EQ(ArgumentKind("", body, "f(x).scalar_type()"), '?');
  FunctionSchema dtype, dtype_layout, other;
  std::string error;
  ASSERT_TRUE(
      ParseFunctionSchema("to.dtype(Tensor(a) self, ScalarType dtype, bool non_blocking=False, bool "
                          "copy=False, MemoryFormat? memory_format=None) -> Tensor(a)",
                          &dtype, &error));
  ASSERT_TRUE(
      ParseFunctionSchema("to.dtype_layout(Tensor(a) self, *, ScalarType? dtype=None, Layout? layout=None, "
                          "Device? device=None, bool? pin_memory=None, bool non_blocking=False, bool "
                          "copy=False, MemoryFormat? memory_format=None) -> Tensor(a)",
                          &dtype_layout, &error));
  ASSERT_TRUE(
      ParseFunctionSchema("to.other(Tensor(a) self, Tensor other, bool non_blocking=False, bool copy=False, "
                          "MemoryFormat? memory_format=None) -> Tensor(a)",
                          &other, &error));
  const std::vector<char> kinds = {'d'};
  EXPECT_TRUE(AdmitsArguments(dtype, true, kinds));
  EXPECT_TRUE(AdmitsArguments(dtype_layout, true, kinds));
  EXPECT_FALSE(AdmitsArguments(other, true, kinds));
  EXPECT_EQ(ListConversions(dtype, true, kinds), 0u);
  EXPECT_EQ(ListConversions(dtype_layout, true, kinds), 1u);
}

TEST(CallArguments, AListOfSizesTakesTheOverloadWithAnIntList) {
  // cuda/layer_norm_kernel.cu:1373-1381 `std::vector<int64_t> stat_shape; ... mean.view(stat_shape)`:
  // view(SymInt[] size), never view.dtype(ScalarType dtype), which a vector cannot convert to.
  const std::string body =
      "  std::vector<int64_t> stat_shape;\n  DimVector sizes(2);\n  c10::SmallVector<int64_t, 4> shape;\n"
      "  std::vector<double> weights;\n";
  EXPECT_EQ(ArgumentKind("", body, "stat_shape"), 'l');
  EXPECT_EQ(ArgumentKind("", body, "sizes"), 'l');
  EXPECT_EQ(ArgumentKind("", body, "shape"), 'l');
  EXPECT_EQ(DeclaredType("", body, "shape"), "c10::SmallVector<int64_t, 4>");
  EXPECT_EQ(ArgumentKind("IntArrayRef size", body, "size"), 'l');
  EXPECT_EQ(ArgumentKind("", body, "self.sizes()"), 'l');
  EXPECT_EQ(ArgumentKind("", body, "weights"), '?');
  // Normalization.cpp:722 `std::vector<SymInt> shape = input.sym_sizes().vec();`
  EXPECT_EQ(ArgumentKind("", "  std::vector<SymInt> shape = input.sym_sizes().vec();\n", "shape"), 'l');
  // WeightNorm.cpp:38 `v.contiguous().view({v.size(0), -1})`.
  EXPECT_EQ(ArgumentKind("", body, "{v.size(0), -1}"), 'l');
  EXPECT_EQ(ArgumentKind("int64_t B, int64_t T", body, "{3 * B, T, -1}"), 'l');  // cuda/attention.cu:475
  // transformers/transformer.cpp:34 `mat1.view({mat1.sizes()[0] * mat1.sizes()[1], mat1.sizes()[2]})`.
  EXPECT_EQ(ArgumentKind("", body, "{mat1.sizes()[0] * mat1.sizes()[1], mat1.sizes()[2]}"), 'l');
  // Normalization.cpp:741 `running_var_.view_symint({ std::move(b), std::move(c) })`.
  EXPECT_EQ(ArgumentKind("SymInt b, SymInt c", body, "{ std::move(b), std::move(c) }"), 'l');
  // cuda/layer_norm_kernel.cu:1370 `const auto input_shape = input.sizes();`; `.vec()` copies the list.
  EXPECT_EQ(ArgumentKind("", "  const auto input_shape = input.sizes();\n", "input_shape"), 'l');
  EXPECT_EQ(ArgumentKind("", "  auto sizes = self.sym_sizes().vec();\n", "sizes"), 'l');
  EXPECT_EQ(ArgumentKind("", "  auto n = self.numel();\n", "n"), 'n');
  // transformers/cuda/attention.cu:380 `auto B = qkv.is_nested() ? ...->get_nested_sizes().size(0) : qkv.size(0);`
  const std::string conditional =
      "  auto B = qkv.is_nested()\n      ? impl(qkv)->get_nested_sizes().size(0)\n      : qkv.size(0);\n";
  EXPECT_EQ(ArgumentKind("", conditional, "B"), 'n');
  EXPECT_EQ(ArgumentKind("int64_t B", body, "{3 * B, -1}"), 'l');
  EXPECT_EQ(ArgumentKind("", "  auto t = c ? a : b;\n", "t"), '?');
  EXPECT_EQ(ArgumentKind("", body, "{a, b}"), 'B') << "some list, not one of sizes";
  // SpectralOps.cpp:905 `input.view(IntArrayRef(input.sizes()).slice(extra_dims))`: a list's slice.
  EXPECT_EQ(ArgumentKind("", body, "IntArrayRef(input.sizes()).slice(extra_dims)"), 'l');
  EXPECT_EQ(ArgumentKind("", body, "self.sizes().slice(1)"), 'l');
  EXPECT_EQ(ArgumentKind("", body, "stat_shape.vec()"), 'l');
  EXPECT_EQ(ArgumentKind("const Tensor& t", body, "t.slice(0, 1)"), '?') << "a Tensor's slice is a Tensor";
  EXPECT_EQ(ArgumentKind("", body, "{}"), '?');
  FunctionSchema view, view_dtype;
  std::string error;
  ASSERT_TRUE(ParseFunctionSchema("view(Tensor(a) self, SymInt[] size) -> Tensor(a)", &view, &error));
  ASSERT_TRUE(ParseFunctionSchema("view.dtype(Tensor(a) self, ScalarType dtype) -> Tensor(a)", &view_dtype, &error));
  const std::vector<char> kinds = {'l'};
  EXPECT_TRUE(AdmitsArguments(view, true, kinds));
  EXPECT_FALSE(AdmitsArguments(view_dtype, true, kinds));
  EXPECT_TRUE(AdmitsArguments(view_dtype, true, {'?'}));
}

TEST(OperandTypes, BindingsComparisonsAndBlockComments) {
  // LinearAlgebra.cpp:535 `auto [U, S, V] = input.svd();`, :537 `Tensor tol = ...`,
  // :538 `at::where(S > tol, ...)`: `S >` before tol is a comparison, no
  // declaration of tol with type "S >"; the binding unpacks svd's Tensors.
  std::string body =
      "{\n  auto [U, S, V] = input.svd();\n  Tensor x = at::narrow(S, /*dim=*/-1, 0, 1);\n  Tensor tol = at::max(a, "
      "b);\n"
      "  Tensor r = at::where(S > tol, S.reciprocal(), V);\n}";
  EXPECT_EQ(DeclaredType("", body, "tol"), "Tensor");
  EXPECT_EQ(BindingInitializer(body, "S"), "input.svd()");
  EXPECT_EQ(BindingInitializer(body, "tol"), "");
  auto tensors = [](std::string_view n) { return n == "tol" || n == "S"; };       // S: the binding's
  EXPECT_EQ(OperatorOps(body, true, tensors), (std::vector<std::string>{"gt"}));  // no div/mul in /*dim=*/
}

TEST(OperatorUses, AMethodOfWhatIsNoTensorComparesNoTensor) {
  // LossNLL.cpp:712 (2.6.0): sym_sizes() is no Tensor, so neither is its slice(1).
  auto is_tensor = [](std::string_view name) { return name == "target_" || name == "input_" || name == ".slice"; };
  auto uses = OperatorUses("if (target_.sym_sizes().slice(1) != input_.sym_sizes().slice(2)) {", false, is_tensor, {});
  EXPECT_TRUE(uses.empty()) << uses.size() << " " << (uses.empty() ? "" : uses[0].op);
  auto tensors = OperatorUses("auto d = target_.slice(1) != input_;", false, is_tensor, {});
  ASSERT_EQ(tensors.size(), 1u);
  EXPECT_EQ(tensors[0].op, "ne");
}

TEST(OperatorUses, AMethodOfAnUnknownsMethodComparesNoTensor) {
  // Whatever `t` is, t.sym_sizes() is no Tensor, so neither is its slice(1).
  auto is_tensor = [](std::string_view name) { return name == "input_" || name == ".slice"; };
  EXPECT_TRUE(
      OperatorUses("if (t.sym_sizes().slice(1) != input_.sym_sizes().slice(2)) {", false, is_tensor, {}).empty());
  EXPECT_EQ(OperatorUses("auto d = input_.slice(1) != t;", false, is_tensor, {}).size(), 1u);
}

TEST(OperandTypes, ANameAmongACallsArgumentsIsNoDeclaratorList) {
  // LossNLL.cpp:701 `Tensor target_ = target;`, :737-738 `auto out =\n at::nll_loss2d_symint(input_,
  // target_, ...)` (2.6.0): target_ there is the call's second argument, not an `auto` declarator.
  const std::string body =
      "Tensor input_ = self;\n  Tensor target_ = target;\n"
      "  auto out =\n      at::nll_loss2d_symint(input_, target_, weight);\n"
      "  Tensor a, b;\n";
  EXPECT_EQ(DeclaredType("", body, "target_"), "Tensor");
  EXPECT_EQ(DeclaredType("", body, "b"), "Tensor");
}

TEST(OperandTypes, ATensorOnlyDeclaredIsUndefined) {
  // LinearAlgebra.cpp:2182 (2.6.0) `at::Tensor result, unused;`, then `_matmul_impl(unused, ...)`.
  const std::string body = "auto names = f(a, b);\n  at::Tensor result, unused;\n  Tensor given = a;\n";
  EXPECT_TRUE(OnlyDeclaredTensor(body, "unused"));
  EXPECT_TRUE(OnlyDeclaredTensor(body, "result"));
  EXPECT_FALSE(OnlyDeclaredTensor(body, "given")) << "initialised";
  EXPECT_FALSE(OnlyDeclaredTensor(body + "  g(unused);\n", "unused")) << "mentioned again: it may be written";
  EXPECT_FALSE(OnlyDeclaredTensor("Tensor& r;\n", "r")) << "a reference";
  EXPECT_FALSE(OnlyDeclaredTensor("int64_t n;\n", "n")) << "no Tensor";
  EXPECT_FALSE(OnlyDeclaredTensor("f(a, unused);\n", "unused")) << "no declaration";
}

TEST(OperatorUses, AGroupAfterReturnIsNoCall) {
  // TensorCompare.cpp:416 (2.6.0) `return (self == self) * (self.abs() != ...)`: `return (` opens a
  // group holding a tensor comparison, so the product is aten::mul.
  auto is_tensor = [](std::string_view name) { return name == "self" || name == ".abs"; };
  std::vector<std::string> ops;
  for (auto& u : OperatorUses("return (self == self) * (self.abs() != 1);", true, is_tensor, {})) ops.push_back(u.op);
  EXPECT_EQ(ops, (std::vector<std::string>{"eq", "mul", "ne"}));
}

TEST(OperatorUses, AHelpersResultIsAnOperandAsItsReturnTypeSays) {
  // FunctionsManual.cpp:722-723 (2.6.0) `return sum_backward(grad, ...) *
  // self.isnan().logical_not();`: the helper returns a Tensor, so `*` is
  // mul; a helper returning a number (`count_of(self) * self.dim()`) makes
  // none. The tensor test is asked "f()" for f(...)'s result.
  auto is_tensor = [](std::string_view name) { return name == "self" || name == "sum_backward()"; };
  std::vector<std::string> ops;
  for (auto& u : OperatorUses("return sum_backward(grad, self.sym_sizes(), dims, keepdim) *\n"
                              "    self.isnan().logical_not();",
                              false, is_tensor, {}))
    ops.push_back(u.op + "@" + std::to_string(u.offset));
  EXPECT_EQ(ops, (std::vector<std::string>{"mul@59"}));
  EXPECT_TRUE(OperatorUses("return count_of(self) * self.dim();", false, is_tensor, {}).empty());
}

TEST(OperatorUses, AScopesMemberIsNoLocalOfItsName) {
  // transformers/cuda/attention.cu:1150, 1294 (2.6.0): `at::Tensor output_t = ...;` and
  // later `(typename Kernel::output_t*)res.data_ptr()`: Kernel's output_t is a type, so
  // the `*` is a pointer declarator, no mul.
  auto is_tensor = [](std::string_view name) { return name == "output_t" || name == "res"; };
  EXPECT_TRUE(OperatorUses("p.output_ptr = (typename Kernel::output_t*)res.data_ptr();", true, is_tensor, {}).empty());
  EXPECT_EQ(OperatorUses("auto y = output_t * 2;", true, is_tensor, {}).size(), 1u);
}

}  // namespace
}  // namespace optrace
