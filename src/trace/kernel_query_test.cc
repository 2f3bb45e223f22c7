// Kernel names as a profiler printed them (torch 2.11 on an H200), traced on
// the real 2.6.0 tree: each fact below was read in the tree by hand.
#include <algorithm>

#include "trace/trace_test_util.h"

namespace optrace {
namespace {

bool HasOp(const Trace& t, const std::string& name) {
  return std::any_of(t.ops.begin(), t.ops.end(), [&](const OpStep& o) { return o.name == name; });
}

bool HasLine(const std::vector<Location>& v, const std::string& file, int line) {
  return std::any_of(v.begin(), v.end(), [&](const Location& l) { return l.file == file && l.line == line; });
}

using KernelQuery = Tree260;

TEST_F(KernelQuery, TheFloatLambdaOfSigmoid) {
  Trace t = TraceTree("2.6.0",
                      "void at::native::vectorized_elementwise_kernel<4, at::native::sigmoid_kernel_cuda(at::"
                      "TensorIteratorBase&)::{lambda()#2}::operator()() const::{lambda()#2}::operator()() const::"
                      "{lambda(float)#1}, std::array<char*, 2ul> >(int, at::native::sigmoid_kernel_cuda(at::"
                      "TensorIteratorBase&)::{lambda()#2}::operator()() const::{lambda()#2}::operator()() const::"
                      "{lambda(float)#1}, std::array<char*, 2ul>)");
  EXPECT_EQ(t.target_kind, TargetKind::kKernel);
  EXPECT_EQ(t.target_name, "sigmoid_kernel_cuda");
  const KernelSource& k = t.kernel_source;
  EXPECT_EQ(k.kernel, "vectorized_elementwise_kernel");
  EXPECT_EQ(k.definition.file, "aten/src/ATen/native/cuda/CUDALoops.cuh");
  EXPECT_EQ(k.definition.line, 92);
  EXPECT_EQ(k.payload_kind, PayloadKind::kLambda);
  EXPECT_EQ(k.payload_definition.line, 124);
  // The second dispatch (floating types; the first is the complex one) and its gpu_kernel lambda,
  // not the #else copy in the complex branch (line 144) that a CUDA build with the jiterator skips.
  ASSERT_EQ(k.arithmetic.size(), 1u);
  EXPECT_EQ(k.arithmetic[0].file, "aten/src/ATen/native/cuda/UnarySpecialOpsKernel.cu");
  EXPECT_EQ(k.arithmetic[0].line, 153);
  EXPECT_EQ(k.dtype, "float");
  // sigmoid_stub is named in CREATE_UNARY_TORCH_IMPL_FUNC(sigmoid_out, sigmoid_stub) (UnaryOps.cpp:347).
  EXPECT_TRUE(HasOp(t, "sigmoid.out"));
}

TEST_F(KernelQuery, AnIfZeroBranchIsNotCounted) {
  // acos_kernel_cuda: the jiterated dispatch sits under `#if 0 && AT_USE_JITERATOR()`, so the floating
  // dispatch is the second compiled one; its lambda is at line 49.
  Trace t = TraceTree("2.6.0",
                      "void at::native::vectorized_elementwise_kernel<4, at::native::acos_kernel_cuda(at::"
                      "TensorIteratorBase&)::{lambda()#2}::operator()() const::{lambda()#2}::operator()() const::"
                      "{lambda(float)#1}, std::array<char*, 2ul> >(int)");
  EXPECT_EQ(t.target_name, "acos_kernel_cuda");
  EXPECT_TRUE(HasLine(t.kernel_source.arithmetic, "aten/src/ATen/native/cuda/UnaryGeometricAcosKernel.cu", 49));
}

TEST_F(KernelQuery, AFunctorWrappedByAnotherIsTheAnswer) {
  Trace t = TraceTree("2.6.0",
                      "void at::native::vectorized_elementwise_kernel<4, at::native::AUnaryFunctor<float, float, float,"
                      " at::native::binary_internal::MulFunctor<float> >, std::array<char*, 2ul> >(int)");
  EXPECT_EQ(t.target_name, "MulFunctor");
  EXPECT_EQ(t.kernel_source.payload_kind, PayloadKind::kFunctor);
  // BinaryInternal.h:29 is MulFunctor's operator(), :38 its bool specialization's.
  EXPECT_TRUE(HasLine(t.kernel_source.arithmetic, "aten/src/ATen/native/cuda/BinaryInternal.h", 29));
  EXPECT_TRUE(HasLine(t.kernel_source.arithmetic, "aten/src/ATen/native/cuda/BinaryInternal.h", 38));
  EXPECT_TRUE(HasOp(t, "div.out"));  // div_true_kernel_cuda multiplies by the reciprocal
}

TEST_F(KernelQuery, AJiteratorKernelIsItsString) {
  Trace t = TraceTree("2.6.0", "abs_kernel_vectorized4_kernel");
  EXPECT_EQ(t.target_name, "abs_kernel");
  EXPECT_EQ(t.kernel_source.payload_kind, PayloadKind::kJiterator);
  // AbsKernel.cu:18 `constexpr char abs_name[] = "abs_kernel"`, jitted at :26.
  EXPECT_TRUE(HasLine(t.kernel_source.arithmetic, "aten/src/ATen/native/cuda/AbsKernel.cu", 26));
}

TEST_F(KernelQuery, ALibraryKernelIsNotInTheTree) {
  Trace t = TraceTree("2.6.0", "nvjet_sm90_tst_64x48_64x15_2x4_h_bz_NNT");
  EXPECT_EQ(t.target_kind, TargetKind::kLibrary);
  EXPECT_EQ(t.target_name, "cuBLAS");
  bool blas = false;
  for (const Location& l : t.kernel_source.library_calls) blas = blas || l.file == "aten/src/ATen/cuda/CUDABlas.cpp";
  EXPECT_TRUE(blas);
}

TEST_F(KernelQuery, AScopedNameIsNotAnyFunctionOfThatName) {
  // cuBLAS's internal::gemvx::kernel is not the test kernel `kernel` of aten/src/ATen/test/cuda_half_test.cu.
  Trace t = TraceTree("2.6.0",
                      "std::enable_if<true, void>::type internal::gemvx::kernel<int, int, float, float, float, float, "
                      "true, false, true, false, 6, false, cublasGemvParamsEx<int> >(cublasGemvParamsEx<int>)");
  EXPECT_EQ(t.target_kind, TargetKind::kLibrary);
  EXPECT_EQ(t.target_name, "cuBLAS");
}

TEST_F(KernelQuery, ANameThatSaysNothingIsNotFound) {
  Trace t;
  TraceOptions o;
  o.snippets = false;
  Status s = TraceQuery(TreeIndex("2.6.0"), "xx_set_info_ker(int, int*, int)", o, &t);
  EXPECT_EQ(s.exit_code(), 1);
  EXPECT_TRUE(t.ops.empty());
  EXPECT_FALSE(ResolveKernelName(TreeIndex("2.6.0"), "xx_set_info_ker(int, int*, int)").valid());
}

TEST_F(KernelQuery, ATypoIsNoVendorKernel) {
  // "gemm" would make a bare unknown name a cuBLAS kernel, but gemm_and_bia is one edit from
  // at::cuda::blas::gemm_and_bias: did you mean, not a library.
  Trace t;
  TraceOptions o;
  o.snippets = false;
  Status s = TraceQuery(TreeIndex("2.6.0"), "gemm_and_bia", o, &t);
  EXPECT_EQ(s.exit_code(), 1);
  ASSERT_FALSE(t.suggestions.empty());
  EXPECT_EQ(t.suggestions[0], "gemm_and_bias");
  // A closed kernel far from every name of the tree keeps its library.
  EXPECT_EQ(ResolveKernelName(TreeIndex("2.6.0"), "sgemm_largek_lds64").library, "cuBLAS");
}

TEST_F(KernelQuery, ResolvingWithoutTracing) {
  KernelSource k = ResolveKernelName(
      TreeIndex("2.6.0"),
      "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::MeanOps<float, float, float, "
      "float>, unsigned int, float, 4, 4> >(at::native::ReduceOp<float, at::native::MeanOps<float, float, float, "
      "float>, unsigned int, float, 4, 4>)");
  EXPECT_EQ(k.payload, "MeanOps");
  EXPECT_EQ(k.definition.file, "aten/src/ATen/native/cuda/Reduce.cuh");
  EXPECT_EQ(k.definition.line, 221);
}

}  // namespace
}  // namespace optrace
