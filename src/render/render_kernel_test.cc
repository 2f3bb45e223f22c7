// A trace of a profiler kernel name shows where the arithmetic is, under its
// target, in text and markdown; a library kernel shows its library.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "render/render.h"

namespace optrace {
namespace {

using ::testing::HasSubstr;

Trace KernelTrace() {
  Trace t;
  t.query = "void at::native::vectorized_elementwise_kernel<4, ...>(int)";
  t.target_kind = TargetKind::kKernel;
  t.target_name = "sigmoid_kernel_cuda";
  KernelSource& k = t.kernel_source;
  k.kernel = "vectorized_elementwise_kernel";
  k.definition = {"aten/src/ATen/native/cuda/CUDALoops.cuh", 92, ""};
  k.payload = "sigmoid_kernel_cuda";
  k.payload_kind = PayloadKind::kLambda;
  k.dtype = "float";
  k.arithmetic.push_back({"aten/src/ATen/native/cuda/UnarySpecialOpsKernel.cu", 153,
                          "      gpu_kernel(iter, []GPU_LAMBDA(scalar_t a) -> scalar_t {\n"});
  return t;
}

TEST(RenderKernel, TheLambdaLineUnderTheTarget) {
  Trace t = KernelTrace();
  RenderOptions o;
  o.color = false;
  std::string text = RenderText(t, o);
  EXPECT_THAT(text, HasSubstr("  kernel    vectorized_elementwise_kernel  cuda/CUDALoops.cuh:92\n"));
  EXPECT_THAT(text, HasSubstr("  runs      the lambda of sigmoid_kernel_cuda (float)\n"));
  EXPECT_THAT(text, HasSubstr("cuda/UnarySpecialOpsKernel.cu:153  gpu_kernel(iter,"));
  EXPECT_THAT(RenderMarkdown(t), HasSubstr("**runs:** the lambda of sigmoid_kernel_cuda (float)"));
}

TEST(RenderKernel, ALibraryKernel) {
  Trace t;
  t.query = "nvjet_sm90_tst_64x48_64x15_2x4_h_bz_NNT";
  t.target_kind = TargetKind::kLibrary;
  t.target_name = "cuBLAS";
  t.kernel_source.kernel = t.query;
  t.kernel_source.library = "cuBLAS";
  t.kernel_source.library_reason = "nvJet GEMM kernel";
  t.kernel_source.library_calls.push_back({"aten/src/ATen/cuda/CUDABlas.cpp", 281, ""});
  RenderOptions o;
  o.color = false;
  std::string text = RenderText(t, o);
  EXPECT_THAT(text, HasSubstr("library   not in this tree: cuBLAS (nvJet GEMM kernel)"));
  EXPECT_THAT(text, HasSubstr("CUDABlas.cpp:281"));
}

}  // namespace
}  // namespace optrace
