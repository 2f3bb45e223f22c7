// Unit tests for ScanCppFile on small in-memory sources: one test per shape
// the structural pass must recognise, and per shape it must not mistake for
// a definition, call or launch.
#include <algorithm>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "cpp/cpp_index.h"
#include "cpp/cpp_test_util.h"

namespace optrace {
namespace {

std::vector<std::string> FunctionNames(const CppFileRecords& r) {
  std::vector<std::string> out;
  for (const CppFunction& f : r.functions) out.push_back(f.name);
  return out;
}

const CppCall* Call(const CppFileRecords& r, std::string_view callee) {
  for (const CppCall& c : r.calls)
    if (c.callee == callee) return &c;
  return nullptr;
}

int32_t FnIndex(const CppFileRecords& r, std::string_view name) {
  for (size_t i = 0; i < r.functions.size(); ++i)
    if (r.functions[i].name == name) return static_cast<int32_t>(i);
  return -2;
}

TEST(CppScan, FreeMemberAndOutOfLineDefinitions) {
  auto r = ScanCppFile("aten/src/ATen/native/Foo.cpp",
                       "namespace at { namespace native {\n"
                       "static inline TORCH_API Tensor add(const Tensor& a,\n    const Tensor& b) {\n"
                       "  return at::mul(a, b);\n}\n"
                       "struct Foo : public Base<int> {\n"
                       "  Foo(int x) : x_(x), y_{x} { init(); }\n"
                       "  int get() const noexcept override { return x_; }\n"
                       "  void declared_only(int);\n"
                       "  Foo& operator=(const Foo&) = default;\n"
                       "  int x_, y_;\n"
                       "};\n"
                       "void Foo::declared_only(int v) { helper(v); }\n"
                       "Foo::Foo(const Foo& o) : Foo(o.x_) {}\n"
                       "}}  // namespace at::native\n");
  EXPECT_EQ(FunctionNames(r), (std::vector<std::string>{"add", "Foo", "get", "declared_only", "Foo"}));
  const CppFunction* add = Fn(r, "add");
  ASSERT_NE(add, nullptr);
  EXPECT_EQ(add->qualified, "at::native::add");
  EXPECT_EQ(add->params, "const Tensor& a, const Tensor& b");
  EXPECT_EQ(add->return_type, "Tensor");
  EXPECT_EQ(add->line, 2u);
  EXPECT_EQ(add->body_begin, 3u);
  EXPECT_EQ(add->body_end, 5u);
  EXPECT_EQ(r.functions[1].qualified, "at::native::Foo::Foo");
  EXPECT_EQ(r.functions[2].qualified, "at::native::Foo::get");
  EXPECT_EQ(r.functions[3].qualified, "at::native::Foo::declared_only");
  EXPECT_EQ(r.functions[4].qualified, "at::native::Foo::Foo");
  const CppCall* mul = Call(r, "mul");
  ASSERT_NE(mul, nullptr);
  EXPECT_EQ(mul->qualifier, "at::");
  EXPECT_EQ(mul->kind, CallKind::kQualified);
  EXPECT_EQ(mul->function, FnIndex(r, "add"));
  ASSERT_NE(Call(r, "init"), nullptr);
  EXPECT_EQ(Call(r, "init")->function, 1);
  EXPECT_EQ(Call(r, "helper")->function, 3);
}

TEST(CppScan, ThingsThatLookLikeDefinitionsButAreNot) {
  auto r = ScanCppFile("x.cpp",
                       "TEST(Suite, Name) { not_a_function(); }\n"
                       "C10_DEFINE_REGISTRY(Reg, Thing)\n"
                       "auto lambda = [](int x) { return x; };\n"
                       "int table[] = {1, 2, 3};\n"
                       "enum class E { A, B };\n"
                       "std::vector<int> v{1, 2};\n"
                       "void real(int x) {\n"
                       "  if (x) { a(); } for (;;) { break; } while (x) {} switch (x) { default: break; }\n"
                       "  try { b(); } catch (const std::exception& e) { c(); }\n"
                       "  auto l = [&](int y) { inside_lambda(y); };\n"
                       "}\n");
  EXPECT_EQ(FunctionNames(r), (std::vector<std::string>{"real"}));
  ASSERT_NE(Call(r, "inside_lambda"), nullptr);
  EXPECT_EQ(Call(r, "inside_lambda")->function, 0);  // lambdas belong to the enclosing function
  EXPECT_EQ(Call(r, "not_a_function"), nullptr);     // a TEST body is not a function we index
  for (const CppCall& c : r.calls) {
    EXPECT_NE(c.callee, "if");
    EXPECT_NE(c.callee, "for");
    EXPECT_NE(c.callee, "while");
    EXPECT_NE(c.callee, "switch");
    EXPECT_NE(c.callee, "catch");
  }
}

TEST(CppScan, TemplatesTrailingReturnsOperatorsAndAnonymousNamespaces) {
  auto r = ScanCppFile("x.h",
                       "namespace {\n"
                       "template <typename T, int N = (3 > 2)>\n"
                       "C10_HOST_DEVICE inline auto twice(T x) -> decltype(x + x) { return x + x; }\n"
                       "struct Op { __device__ float operator()(float a) const { return a; } };\n"
                       "bool operator==(const Op&, const Op&) { return true; }\n"
                       "}\n"
                       "template <> void spec<float>(float) {}\n"
                       "template <typename T> requires C<T> void constrained(T) {}\n");
  const CppFunction* twice = Fn(r, "twice");
  ASSERT_NE(twice, nullptr);
  EXPECT_TRUE(twice->is_template);
  EXPECT_EQ(twice->qualified, "(anonymous namespace)::twice");
  EXPECT_EQ(twice->return_type, "decltype(x + x)");
  EXPECT_EQ(twice->line, 3u);
  const CppFunction* call = Fn(r, "operator()");
  ASSERT_NE(call, nullptr);
  EXPECT_EQ(call->qualified, "(anonymous namespace)::Op::operator()");
  EXPECT_EQ(call->params, "float a");
  EXPECT_NE(Fn(r, "operator=="), nullptr);
  EXPECT_NE(Fn(r, "spec"), nullptr);
  EXPECT_NE(Fn(r, "constrained"), nullptr);
}

TEST(CppScan, OverloadsStayDistinct) {
  auto r = ScanCppFile("x.cpp", "int f(int a) { return a; }\ndouble f(double a) { return a; }\n");
  ASSERT_EQ(r.functions.size(), 2u);
  EXPECT_EQ(r.functions[0].params, "int a");
  EXPECT_EQ(r.functions[1].params, "double a");
}

TEST(CppScan, StructuredKernelMacros) {
  auto r = ScanCppFile("aten/src/ATen/native/cuda/X.cu",
                       "namespace at::native {\n"
                       "TORCH_META_FUNC2(add, Tensor) (const Tensor& self, const Tensor& other) { build(self); }\n"
                       "TORCH_PRECOMPUTE_META_FUNC(max_pool)(const Tensor& input) { return precompute(); }\n"
                       "TORCH_IMPL_FUNC(softmax_cuda_out) (\n  const Tensor& input, const Tensor& output) {\n"
                       "  host_softmax(input, output);\n}\n"
                       "}\n");
  ASSERT_EQ(r.functions.size(), 3u);
  EXPECT_EQ(r.functions[0].form, DefForm::kMetaFunc);
  EXPECT_EQ(r.functions[0].name, "add");
  EXPECT_EQ(r.functions[0].overload, "Tensor");
  EXPECT_EQ(r.functions[0].qualified, "at::native::structured_add_Tensor::meta");
  EXPECT_EQ(r.functions[1].form, DefForm::kPrecomputeMetaFunc);
  EXPECT_EQ(r.functions[1].name, "max_pool");
  const CppFunction& impl = r.functions[2];
  EXPECT_EQ(impl.form, DefForm::kImplFunc);
  EXPECT_EQ(impl.name, "softmax_cuda_out");
  EXPECT_EQ(impl.line, 4u);
  EXPECT_EQ(impl.params, "const Tensor& input, const Tensor& output");
  EXPECT_EQ(impl.body_end, 7u);
  ASSERT_NE(Call(r, "host_softmax"), nullptr);
  EXPECT_EQ(Call(r, "host_softmax")->function, 2);
}

TEST(CppScan, DispatchStubsAndRegistrations) {
  const char* text =
      "DECLARE_DISPATCH(void(*)(TensorIterator&, const Scalar&), fill_stub);\n"
      "DECLARE_DISPATCH(std::tuple<Tensor, Tensor>(*)(const Tensor&), pair_stub)\n"
      "DEFINE_DISPATCH(fill_stub);\n"
      "REGISTER_DISPATCH(fill_stub, &fill_kernel)\n"
      "REGISTER_CUDA_DISPATCH(lstm_cudnn_stub, &at::native::lstm_cudnn);\n"
      "REGISTER_ARCH_DISPATCH(choice_stub, DEFAULT, &choice_cpp)\n"
      "REGISTER_AVX2_DISPATCH(choice_stub, &choice_cpp)\n"
      "REGISTER_NO_CPU_DISPATCH(backward_stub)\n"
      "REGISTER_HIP_DISPATCH(h_stub, &h)\n"
      "#define REGISTER_CUDA_DISPATCH(name, fn) static Register name##__register(name, fn);\n";
  auto cu = ScanCppFile("aten/src/ATen/native/cuda/Fill.cu", text);
  ASSERT_EQ(cu.stub_decls.size(), 3u);
  EXPECT_EQ(cu.stub_decls[0].stub, "fill_stub");
  EXPECT_EQ(cu.stub_decls[0].type, "void(*)(TensorIterator&, const Scalar&)");
  EXPECT_EQ(cu.stub_decls[1].stub, "pair_stub");
  EXPECT_EQ(cu.stub_decls[1].type, "std::tuple<Tensor, Tensor>(*)(const Tensor&)");
  EXPECT_EQ(cu.stub_decls[2].kind, StubDeclKind::kDefine);
  ASSERT_EQ(cu.registrations.size(), 6u);         // not the #define
  EXPECT_EQ(cu.registrations[0].device, "CUDA");  // plain REGISTER_DISPATCH in a .cu file
  EXPECT_EQ(cu.registrations[0].target, "fill_kernel");
  EXPECT_EQ(cu.registrations[1].target, "lstm_cudnn");
  EXPECT_EQ(cu.registrations[1].target_written, "at::native::lstm_cudnn");
  EXPECT_EQ(cu.registrations[1].line, 5u);
  EXPECT_EQ(cu.registrations[2].device, "CPU");
  EXPECT_EQ(cu.registrations[2].arch, "DEFAULT");
  EXPECT_EQ(cu.registrations[2].target, "choice_cpp");
  EXPECT_EQ(cu.registrations[3].arch, "AVX2");
  EXPECT_EQ(cu.registrations[4].device, "none");
  EXPECT_EQ(cu.registrations[4].target, "");
  EXPECT_EQ(cu.registrations[5].device, "HIP");
  // Plain REGISTER_DISPATCH: CPU in native/cpu/*.cpp, unknown where no build compiles it.
  EXPECT_EQ(ScanCppFile("aten/src/ATen/native/cpu/FillKernel.cpp", text).registrations[0].device, "CPU");
  EXPECT_EQ(ScanCppFile("aten/src/ATen/native/quantized/cpu/kernels/Q.cpp", text).registrations[0].device, "CPU");
  EXPECT_EQ(ScanCppFile("aten/src/ATen/native/cuda/Sort.cpp", text).registrations[0].device, "unknown");
}

// Issue 29 item 12: a stub declared inside a namespace past at::native
// carries that scope, so two copy_stubs (CPUBlas.h in cpublas, Copy.h in
// at::native) are told apart; a qualified registration keeps its spelling.
TEST(CppScan, StubScopesAndQualifiedRegistrations) {
  auto h = ScanCppFile("aten/src/ATen/native/CPUBlas.h",
                       "namespace at::native::cpublas {\nDECLARE_DISPATCH(copy_fn, copy_stub)\n}\n"
                       "namespace at::native {\nDECLARE_DISPATCH(copy_fn, copy_stub)\n}\n");
  ASSERT_EQ(h.stub_decls.size(), 2u);
  EXPECT_EQ(h.stub_decls[0].scope, "cpublas::");
  EXPECT_EQ(h.stub_decls[1].scope, "");
  auto r =
      ScanCppFile("aten/src/ATen/native/cpu/BlasKernel.cpp",
                  "namespace at::native {\nREGISTER_DISPATCH(cpublas::gemm_stub, &cpublas::cpublas_gemm_impl)\n}\n");
  ASSERT_EQ(r.registrations.size(), 1u);
  EXPECT_EQ(r.registrations[0].stub, "cpublas::gemm_stub");
  EXPECT_EQ(r.registrations[0].target, "cpublas_gemm_impl");
}

TEST(CppScan, TripleChevronLaunchesInFunctionsAndMacros) {
  auto r = ScanCppFile("aten/src/ATen/native/cuda/K.cu",
                       "template <typename T, int N>\n"
                       "__global__ void __launch_bounds__(256) my_kernel(T* x) { x[0] = 1; }\n"
                       "C10_LAUNCH_BOUNDS_1(128)\n__global__ void other_kernel(int n) {}\n"
                       "#define LAUNCH_IT(N) \\\n  my_kernel<float, N>\\\n    <<<1, 32, 0, stream>>>(ptr);\n"
                       "void host(int s) {\n"
                       "  int y = s << 2;\n"
                       "  my_kernel<float, 4><<<grid, block, 0, at::cuda::getCurrentCUDAStream()>>>(p);\n"
                       "  other_kernel<<<1, 1>>>(3);\n"
                       "  LAUNCH_IT(8);\n"
                       "}\n");
  const CppFunction* k = Fn(r, "my_kernel");
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->form, DefForm::kGlobalKernel);
  EXPECT_TRUE(k->is_template);
  EXPECT_EQ(k->return_type, "void");
  ASSERT_NE(Fn(r, "other_kernel"), nullptr);
  EXPECT_EQ(Fn(r, "other_kernel")->form, DefForm::kGlobalKernel);
  EXPECT_EQ(Fn(r, "other_kernel")->line, 4u);
  ASSERT_EQ(r.launches.size(), 3u);
  EXPECT_EQ(r.launches[0].kernel, "my_kernel");
  EXPECT_EQ(r.launches[0].function, FnIndex(r, "host"));
  EXPECT_EQ(r.launches[0].line, 10u);
  EXPECT_EQ(r.launches[1].kernel, "other_kernel");
  EXPECT_EQ(r.launches[2].kernel, "my_kernel");
  EXPECT_EQ(r.launches[2].function, -1);
  EXPECT_EQ(r.launches[2].macro, "LAUNCH_IT");
  EXPECT_EQ(r.launches[2].line, 6u);
  ASSERT_EQ(r.macros.size(), 1u);
  EXPECT_EQ(r.macros[0].end_line, 7u);
  bool used = false;
  for (const CppMacroUse& u : r.macro_uses)
    used |= u.macro == "LAUNCH_IT" && u.function == FnIndex(r, "host") && u.line == 12;
  EXPECT_TRUE(used);
}

TEST(CppScan, TemplateAnglesVersusComparisons) {
  auto r = ScanCppFile("x.cpp",
                       "void f(int a, int b, int c) {\n"
                       "  bool r = a<b>c;\n"
                       "  bool s = a < b && c > (d);\n"
                       "  auto v = make<std::vector<std::vector<int>>>(3);\n"
                       "  std::vector<int> decl(5);\n"
                       "  if (n > limit(x)) {}\n"
                       "}\n");
  EXPECT_EQ(Call(r, "a"), nullptr);
  EXPECT_EQ(Call(r, "decl"), nullptr);  // a variable, not a call
  ASSERT_NE(Call(r, "make"), nullptr);
  EXPECT_EQ(Call(r, "make")->kind, CallKind::kPlain);
  EXPECT_NE(Call(r, "limit"), nullptr);
}

TEST(CppScan, CallShapes) {
  auto r = ScanCppFile("aten/src/ATen/native/cuda/C.cpp",
                       "Tensor f(const Tensor& self, TensorIterator& iter) {\n"
                       "  auto a = at::_ops::add_Tensor::call(self, self, 1);\n"
                       "  at::native::resize_output(out, sizes);\n"
                       "  at::cuda::blas::gemm<float>(h, 'n');\n"
                       "  self.sum(0); iter.device(0); ptr->reset();\n"
                       "  add_stub(kCUDA, iter, alpha);\n"
                       "  sum_functor<scalar_t, acc_t>{}(iter);\n"
                       "  cudnnConvolutionForward(handle, x);\n"
                       "  cub::DeviceRadixSort::SortPairs(a, b);\n"
                       "  TORCH_CHECK(ok, \"message\");\n"
                       "  return ::at::empty({0});\n"
                       "}\n");
  const CppCall* ops = Call(r, "add_Tensor");
  ASSERT_NE(ops, nullptr);
  EXPECT_TRUE(ops->is_ops_call);
  EXPECT_EQ(ops->qualifier, "at::_ops::");
  EXPECT_EQ(Call(r, "resize_output")->qualifier, "at::native::");
  EXPECT_EQ(Call(r, "gemm")->qualifier, "at::cuda::blas::");
  EXPECT_EQ(Call(r, "sum")->kind, CallKind::kMember);
  EXPECT_EQ(Call(r, "sum")->qualifier, "self.");
  EXPECT_EQ(Call(r, "reset")->qualifier, "ptr->");
  EXPECT_EQ(Call(r, "add_stub")->kind, CallKind::kPlain);
  EXPECT_EQ(Call(r, "sum_functor")->kind, CallKind::kFunctor);
  EXPECT_NE(Call(r, "cudnnConvolutionForward"), nullptr);
  EXPECT_EQ(Call(r, "SortPairs")->qualifier, "cub::DeviceRadixSort::");
  EXPECT_NE(Call(r, "TORCH_CHECK"), nullptr);
  EXPECT_EQ(Call(r, "empty")->qualifier, "::at::");
  EXPECT_EQ(Call(r, "empty")->line, 11u);
}

TEST(CppScan, ReceiverOfACallResultAndInlineNamespaces) {
  // iter.device().index(): the receiver is device()'s result, kept in the
  // qualifier so the tracer can tell it from a Tensor. An inline namespace
  // (CPU_CAPABILITY) adds nothing to qualified names, as for C++ lookup.
  auto r = ScanCppFile("aten/src/ATen/native/cpu/K.cpp",
                       "namespace at::native {\n"
                       "inline namespace CPU_CAPABILITY {\n"
                       "void k(TensorIteratorBase& iter) {\n"
                       "  int d = iter.device().index();\n"
                       "  auto n = iter.sizes().data();\n"
                       "  sorter.template sort<A>(key, n);\n"
                       "}\n"
                       "#define HANDLE(A) sorter.template sort<A>(k)\n"
                       "}}\n");
  EXPECT_EQ(Call(r, "index")->qualifier, "device().");
  EXPECT_EQ(Call(r, "data")->qualifier, "sizes().");
  EXPECT_EQ(Call(r, "device")->qualifier, "iter.");
  ASSERT_NE(Call(r, "sort"), nullptr);  // through `template`
  EXPECT_EQ(Call(r, "sort")->kind, CallKind::kMember);
  EXPECT_EQ(Call(r, "sort")->qualifier, "sorter.");
  int in_macro = 0;  // the same call in a #define body
  for (const auto& c : r.calls) in_macro += c.callee == "sort" && c.macro == "HANDLE" && c.kind == CallKind::kMember;
  EXPECT_EQ(in_macro, 1);
  ASSERT_NE(Fn(r, "k"), nullptr);
  EXPECT_EQ(Fn(r, "k")->qualified, "at::native::k");
}

TEST(CppScan, TensorIteratorAndJiteratorLaunchers) {
  auto r = ScanCppFile(
      "aten/src/ATen/native/cuda/M.cu",
      "CONSTEXPR_EXCEPT_WIN_CUDA char mul_name[] = \"mul_kernel\";\n"
      "void mul_kernel_cuda(TensorIteratorBase& iter) {\n"
      "  opmath_jitted_gpu_kernel_with_scalars</*name=*/mul_name, scalar_t, scalar_t>(iter, s);\n"
      "  opmath_symmetric_gpu_kernel_with_scalars<scalar_t>(iter, binary_internal::MulFunctor<opmath_t>());\n"
      "  gpu_reduce_kernel<scalar_t, out_t>(iter, MeanOps<scalar_t, acc_t> {factor});\n"
      "  gpu_reduce_kernel<scalar_t, out_t>(iter, func_wrapper<out_t>([] GPU_LAMBDA (a) { return a; }));\n"
      "  gpu_kernel(iter, [] GPU_LAMBDA (scalar_t a) -> scalar_t { return ::abs(a); });\n"
      "  launch_vectorized_kernel(numel, [=] (int i) { return i; }, data);\n"
      "}\n");
  ASSERT_EQ(r.launches.size(), 6u);
  EXPECT_EQ(r.launches[0].kind, LaunchKind::kJiterator);
  EXPECT_EQ(r.launches[0].kernel, "mul_kernel");
  EXPECT_EQ(r.launches[0].kernel_name_ref, "mul_name");
  EXPECT_EQ(r.launches[1].kind, LaunchKind::kTensorIterator);
  EXPECT_EQ(r.launches[1].launcher, "opmath_symmetric_gpu_kernel_with_scalars");
  EXPECT_EQ(r.launches[1].functors, (std::vector<std::string>{"MulFunctor"}));
  EXPECT_EQ(r.launches[2].kind, LaunchKind::kReduce);
  EXPECT_EQ(r.launches[2].functors, (std::vector<std::string>{"MeanOps"}));
  EXPECT_EQ(r.launches[3].functors, (std::vector<std::string>{"func_wrapper"}));
  EXPECT_EQ(r.launches[4].launcher, "gpu_kernel");
  EXPECT_TRUE(r.launches[4].functors.empty());  // a lambda: the tracer names the enclosing function
  EXPECT_EQ(r.launches[5].kind, LaunchKind::kLaunchHelper);
  for (const CppLaunch& l : r.launches) EXPECT_EQ(l.function, 0);
  ASSERT_EQ(r.string_constants.size(), 1u);
  EXPECT_EQ(r.string_constants[0].second, "mul_kernel");
}

TEST(CppScan, LibraryBlocks) {
  auto r = ScanCppFile("aten/src/ATen/x.cpp",
                       "TORCH_LIBRARY(myns, m) {\n"
                       "  m.def(\"myop(Tensor self) -> Tensor\");\n"
                       "}\n"
                       "TORCH_LIBRARY_IMPL(aten, CUDA, m) {\n"
                       "  m.impl(\"add.Tensor\", TORCH_FN(add_cuda));\n"
                       "  m.impl(\"aten::mul\", &at::native::mul_cuda);\n"
                       "  m.impl(TORCH_SELECTIVE_NAME(\"aten::sub\"), TORCH_FN((&sub_cuda)));\n"
                       "}\n"
                       "void after() {}\n");
  ASSERT_EQ(r.library_registrations.size(), 4u);
  EXPECT_TRUE(r.library_registrations[0].is_def);
  EXPECT_EQ(r.library_registrations[0].op, "myop");
  EXPECT_EQ(r.library_registrations[0].block, "TORCH_LIBRARY");
  EXPECT_EQ(r.library_registrations[1].key, "CUDA");
  EXPECT_EQ(r.library_registrations[1].op, "add.Tensor");
  EXPECT_EQ(r.library_registrations[1].function, "add_cuda");
  EXPECT_EQ(r.library_registrations[2].op, "mul");
  EXPECT_EQ(r.library_registrations[2].function, "mul_cuda");
  EXPECT_EQ(r.library_registrations[3].op, "sub");
  EXPECT_EQ(r.library_registrations[3].function, "sub_cuda");
  EXPECT_EQ(r.library_registrations[3].line, 7u);
  EXPECT_EQ(FunctionNames(r), (std::vector<std::string>{"after"}));
}

TEST(CppScan, DtypeDispatches) {
  auto r = ScanCppFile(
      "x.cu",
      "void k(TensorIterator& iter) {\n"
      "  AT_DISPATCH_FLOATING_TYPES_AND2(at::ScalarType::Half, kBFloat16, iter.dtype(), \"k_cuda\", [&] {});\n"
      "  AT_DISPATCH_ALL_TYPES_AND_COMPLEX_AND(kBool, iter.dtype(), \"k2\", [&] {});\n"
      "  AT_DISPATCH_INTEGRAL_TYPES(iter.dtype(), \"k3\", [&] {});\n"
      "  AT_DISPATCH_V2(iter.dtype(), \"k4\", AT_WRAP([&] {}), AT_EXPAND(AT_FLOATING_TYPES), kHalf);\n"
      "  AT_DISPATCH_SWITCH(iter.dtype(), \"k5\", AT_DISPATCH_CASE_FLOATING_TYPES(f) AT_DISPATCH_CASE(kInt, f));\n"
      "}\n");
  ASSERT_EQ(r.dtype_dispatches.size(), 5u);
  EXPECT_EQ(r.dtype_dispatches[0].dtypes, (std::vector<std::string>{"double", "float", "Half", "BFloat16"}));
  EXPECT_EQ(r.dtype_dispatches[0].name, "k_cuda");
  EXPECT_EQ(r.dtype_dispatches[0].function, 0);
  EXPECT_EQ(r.dtype_dispatches[1].dtypes.size(), 10u);
  EXPECT_EQ(r.dtype_dispatches[1].dtypes.back(), "bool");
  EXPECT_EQ(r.dtype_dispatches[2].dtypes, (std::vector<std::string>{"uint8_t", "int8_t", "int", "int64_t", "int16_t"}));
  EXPECT_EQ(r.dtype_dispatches[3].dtypes, (std::vector<std::string>{"double", "float", "Half"}));
  EXPECT_EQ(r.dtype_dispatches[3].name, "k4");
  EXPECT_EQ(r.dtype_dispatches[4].dtypes, (std::vector<std::string>{"double", "float", "int"}));
}

TEST(CppScan, BracesInsideStringsCommentsAndRawStringsDoNotEndBodies) {
  auto r = ScanCppFile("x.cpp",
                       "void a() {\n"
                       "  const char* s = \"}\"; // }\n"
                       "  /* } */ auto raw = R\"code(}})code\"; char c = '}';\n"
                       "  inside_a();\n"
                       "}\n"
                       "void b() { inside_b(); }\n");
  ASSERT_EQ(r.functions.size(), 2u);
  EXPECT_EQ(r.functions[0].body_end, 5u);
  EXPECT_EQ(Call(r, "inside_a")->function, 0);
  EXPECT_EQ(Call(r, "inside_b")->function, 1);
}

std::vector<std::string> StubRefs(const CppFileRecords& r) {
  std::vector<std::string> out;
  for (const CppStubRef& ref : r.stub_refs) out.push_back(ref.stub + ":" + std::to_string(ref.line));
  return out;
}

TEST(CppScan, StubReferencesAreUncalledStubNamesInCode) {
  auto r = ScanCppFile("aten/src/ATen/native/Pool.cpp",
                       "DECLARE_DISPATCH(pool_fn, max_pool2d_stub);\n"
                       "void f(const Tensor& x) {\n"
                       "  some_helper(kCUDA, max_pool2d_stub, x);\n"
                       "  auto p = &at::native::avg_stub;\n"
                       "  // comment_stub is named in a comment\n"
                       "  const char* s = \"string_stub\"; /* block_stub */\n"
                       "  called_stub(kCPU, x);\n"
                       "  spaced_stub\n"
                       "      (kCPU, x);\n"
                       "  not_a_stubby(x, _stub);\n"
                       "}\n"
                       "#define PASS(x) run(x, macro_stub)\n"
                       "#define ENDS_WITH_STUB last_stub\n"
                       "#define PARENS (1)\n"
                       "#define CALLS macro_called_stub(1)\n");
  // last_stub ends its #define: the '(' after it belongs to the next macro.
  EXPECT_EQ(StubRefs(r), (std::vector<std::string>{"max_pool2d_stub:1", "max_pool2d_stub:3", "avg_stub:4",
                                                   "macro_stub:12", "last_stub:13"}));
  // Calls stay calls, recorded once, and only as calls.
  int called = 0;
  for (const CppCall& c : r.calls) called += c.callee == "called_stub";
  EXPECT_EQ(called, 1);
  ASSERT_NE(Call(r, "spaced_stub"), nullptr);
  ASSERT_NE(Call(r, "macro_called_stub"), nullptr);
}

TEST(CppScan, FileScopeUsesOfSameFileMacros) {
  auto r = ScanCppFile("aten/src/ATen/native/UnaryOps.cpp",
                       "#define MAKE_IMPL(func_out, func_stub) \\\n"
                       "  TORCH_IMPL_FUNC(func_out) (const Tensor& self, const Tensor& result) { func_stub(); }\n"
                       "namespace at::native {\n"
                       "MAKE_IMPL(sigmoid_out, sigmoid_stub)\n"
                       "MAKE_IMPL( at::native::neg_out , neg_stub)\n"
                       "void f() { MAKE_IMPL(inner_out, x_stub); }\n"
                       "OTHER_FILE_MACRO(b)\n"
                       "MAKE_IMPL()\n"
                       "}\n");
  std::vector<std::string> file_scope, in_function, in_macro;
  for (const CppMacroUse& u : r.macro_uses) {
    std::string s = u.macro + "(" + u.first_arg + "):" + std::to_string(u.line);
    if (u.function >= 0) in_function.push_back(s);
    else if (!u.within_macro.empty()) in_macro.push_back(u.within_macro + ">" + s);
    else file_scope.push_back(s);
  }
  EXPECT_EQ(file_scope, (std::vector<std::string>{"MAKE_IMPL(sigmoid_out):4", "MAKE_IMPL(at::native::neg_out):5",
                                                  "MAKE_IMPL():8"}));
  // Uses in bodies keep their old shape: no first argument.
  EXPECT_EQ(in_function, (std::vector<std::string>{"MAKE_IMPL():6"}));
  EXPECT_EQ(in_macro, (std::vector<std::string>{"MAKE_IMPL>TORCH_IMPL_FUNC():2"}));
  EXPECT_EQ(StubRefs(r), (std::vector<std::string>{"sigmoid_stub:4", "neg_stub:5", "x_stub:6"}));
}

TEST(CppScan, NeverCrashesOnGarbage) {
  std::string junk;
  static constexpr std::string_view kPieces = "{(<[>)]}#\"'\\/*R\"x(";
  for (size_t i = 0; i < 4000; ++i) junk += kPieces[i % kPieces.size()];
  for (std::string_view text :
       {std::string_view(junk), std::string_view("TORCH_IMPL_FUNC("), std::string_view("REGISTER_DISPATCH("),
        std::string_view("template <"), std::string_view("void f() { k<<<"), std::string_view("}}}}}} namespace {"),
        std::string_view("AT_DISPATCH_V2("), std::string_view("TORCH_LIBRARY(a, m) { m.impl("),
        std::string_view("#define M(x) x\nM("), std::string_view("#define M(x) x_stub\n")}) {
    // What comes back lies inside the text: every record's line is one of its lines, a body ends
    // where or after it begins, and each scan of the same text is the same.
    const uint32_t lines = static_cast<uint32_t>(std::count(text.begin(), text.end(), '\n')) + 1;
    CppFileRecords r = ScanCppFile("aten/src/ATen/native/cuda/x.cu", text);
    for (const CppFunction& f : r.functions) {
      EXPECT_TRUE(f.line >= 1 && f.line <= lines) << text.substr(0, 40);
      EXPECT_LE(f.body_begin, f.body_end) << f.name;
      EXPECT_LE(f.body_end, lines) << f.name;
    }
    for (const CppCall& c : r.calls) EXPECT_TRUE(c.line >= 1 && c.line <= lines) << c.callee;
    for (const CppMacroUse& u : r.macro_uses) EXPECT_TRUE(u.line >= 1 && u.line <= lines) << u.macro;
    EXPECT_EQ(r, ScanCppFile("aten/src/ATen/native/cuda/x.cu", text));
  }
  // The junk holds no name at all; the short texts name what they open.
  EXPECT_TRUE(ScanCppFile("aten/src/ATen/native/cuda/x.cu", junk).functions.empty());
  EXPECT_EQ(ScanCppFile("aten/src/ATen/native/cuda/x.cu", "#define M(x) x_stub\n").macros.size(), 1u);
}

TEST(CppScan, FunctorsHeldInVariablesAndWrapped) {
  // A functor declared before the launch (CompareKernels.cu), one wrapped in
  // func_wrapper (ReduceMaxValuesKernel.cu), and one made by `auto x = T{}`.
  auto r =
      ScanCppFile("aten/src/ATen/native/cuda/C.cu",
                  "void compare_kernel_impl(TensorIteratorBase &iter, OpType op) {\n"
                  "  CompareFunctor<scalar_t> f(op);\n"
                  "  gpu_kernel(iter, f);\n"
                  "  gpu_reduce_kernel<scalar_t, scalar_t>(iter, func_wrapper<acc_t>(MaxNanFunctor<acc_t>()), 0);\n"
                  "  auto g = AddFunctor<float>{1};\n"
                  "  gpu_kernel(iter, g);\n"
                  "  auto loop = [=] GPU_LAMBDA (int i) { return i; };\n"
                  "  gpu_kernel(iter, loop);\n"
                  "  auto made = make_functor(op);\n"
                  "  gpu_kernel(iter, made);\n"
                  "}\n");
  ASSERT_EQ(r.launches.size(), 5u);
  EXPECT_EQ(r.launches[0].functors, (std::vector<std::string>{"CompareFunctor"}));
  EXPECT_EQ(r.launches[1].functors, (std::vector<std::string>{"func_wrapper", "MaxNanFunctor"}));
  EXPECT_EQ(r.launches[2].functors, (std::vector<std::string>{"AddFunctor"}));
  EXPECT_TRUE(r.launches[3].functors.empty());  // a lambda
  EXPECT_TRUE(r.launches[4].functors.empty());  // a function's result: its type is not written
}

TEST(CppScan, FunctorsDeclaredThroughATypeAlias) {
  // ReduceMomentKernel.cu:18-20 `using ops_t = WelfordOps<...>; ops_t ops(...); gpu_reduce_kernel(iter, ops, ...)`,
  // and the typedef spelling of the same.
  auto r = ScanCppFile("aten/src/ATen/native/cuda/M.cu",
                       "void std_var_kernel_impl(TensorIterator& iter, double correction, bool take_sqrt) {\n"
                       "  using ops_t = WelfordOps<scalar_t, accscalar_t, int32_t, thrust::pair<out_t, out_t>>;\n"
                       "  ops_t ops(static_cast<accscalar_t>(correction), take_sqrt);\n"
                       "  gpu_reduce_kernel<scalar_t, out_t, 2>(iter, ops, typename ops_t::acc_t{});\n"
                       "  typedef at::native::NormOps<float> norm_t;\n"
                       "  norm_t n{2};\n"
                       "  gpu_reduce_kernel<float, float>(iter, n);\n"
                       "}\n");
  ASSERT_EQ(r.launches.size(), 2u);
  ASSERT_FALSE(r.launches[0].functors.empty());
  EXPECT_EQ(r.launches[0].functors[0], "WelfordOps");
  EXPECT_EQ(r.launches[1].functors, (std::vector<std::string>{"NormOps"}));
}

TEST(CppScan, FunctorMadeThenCalledAndFunctionPassedByName) {
  // ScatterGatherKernel.cu: `cuda_scatter_gather_base_kernel<false>()(...)`
  // makes the functor and calls it; UnaryOps.cpp passes `at::abs_out` to a
  // helper that calls it. A plain variable argument is no call.
  auto r = ScanCppFile("aten/src/ATen/native/Foo.cpp",
                       "void gather_cuda_kernel(const Tensor& result, const Tensor& self) {\n"
                       "  cuda_scatter_gather_base_kernel</*is_scatter_like=*/false>()(result, self);\n"
                       "}\n"
                       "Tensor abs(const Tensor& self) {\n"
                       "  return unary_op_impl_with_complex_to_float(self, at::abs_out);\n"
                       "}\n"
                       "Tensor g(const Tensor& self) { return helper(self, at::native::g_out, other); }\n");
  const CppCall* functor = Call(r, "cuda_scatter_gather_base_kernel");
  ASSERT_NE(functor, nullptr);
  EXPECT_EQ(functor->kind, CallKind::kFunctor);
  EXPECT_EQ(functor->line, 2u);
  const CppCall* passed = Call(r, "abs_out");
  ASSERT_NE(passed, nullptr);
  EXPECT_EQ(passed->kind, CallKind::kQualified);
  EXPECT_EQ(passed->qualifier, "at::");
  EXPECT_EQ(passed->line, 5u);
  ASSERT_NE(Call(r, "g_out"), nullptr);
  EXPECT_EQ(Call(r, "g_out")->qualifier, "at::native::");
  EXPECT_EQ(Call(r, "other"), nullptr);
  EXPECT_EQ(Call(r, "self"), nullptr);
}

TEST(CppScan, AHostExecutionPolicyIsRecorded) {
  // SortImpl.cu: `thrust::stable_sort_by_key(thrust::host, strides.data(), ...)`
  // sorts a stride vector on the CPU; with a device policy (or none) the
  // algorithm runs on the GPU.
  auto r =
      ScanCppFile("aten/src/ATen/native/cuda/Foo.cu",
                  "void f(std::vector<int64_t>& s, int64_t* d) {\n"
                  "  thrust::stable_sort_by_key(thrust::host, s.data(), s.data() + 2, d, thrust::greater<int64_t>());\n"
                  "  thrust::sort(policy, d, d + 2);\n"
                  "  thrust::fill(::thrust::seq, d, d + 2, 0);\n"
                  "}\n");
  ASSERT_NE(Call(r, "stable_sort_by_key"), nullptr);
  EXPECT_TRUE(Call(r, "stable_sort_by_key")->host_policy);
  ASSERT_NE(Call(r, "greater"), nullptr);
  EXPECT_TRUE(Call(r, "greater")->host_policy) << "a functor made in the host call's arguments";
  ASSERT_NE(Call(r, "sort"), nullptr);
  EXPECT_FALSE(Call(r, "sort")->host_policy);
  ASSERT_NE(Call(r, "fill"), nullptr);
  EXPECT_TRUE(Call(r, "fill")->host_policy);
}

}  // namespace
}  // namespace optrace
