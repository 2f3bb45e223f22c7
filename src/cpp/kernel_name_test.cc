// Kernel names as torch.profiler printed them on an H200 (torch 2.11), read
// without an index: the launch template, the candidates for its payload and
// the lambda chain, cut names, mangled names, library conventions.
#include "cpp/kernel_name.h"

#include <gtest/gtest.h>

namespace optrace {
namespace {

const char kSigmoid[] =
    "void at::native::vectorized_elementwise_kernel<4, at::native::sigmoid_kernel_cuda(at::TensorIteratorBase&)::"
    "{lambda()#2}::operator()() const::{lambda()#2}::operator()() const::{lambda(float)#1}, std::array<char*, 2ul> "
    ">(int, at::native::sigmoid_kernel_cuda(at::TensorIteratorBase&)::{lambda()#2}::operator()() const::"
    "{lambda()#2}::operator()() const::{lambda(float)#1}, std::array<char*, 2ul>)";

TEST(KernelName, LaunchTemplateWithALambdaChain) {
  KernelName k = ParseKernelName(kSigmoid);
  EXPECT_EQ(k.kernel, "vectorized_elementwise_kernel");
  EXPECT_EQ(k.scope, "at::native::");
  EXPECT_FALSE(k.truncated);
  ASSERT_EQ(k.payloads.size(), 1u);  // std::array is no candidate
  const PayloadCandidate& p = k.payloads[0];
  EXPECT_EQ(p.name, "sigmoid_kernel_cuda");
  EXPECT_TRUE(p.lambda);
  EXPECT_EQ(p.params, "at::TensorIteratorBase&");
  ASSERT_EQ(p.chain.size(), 3u);
  EXPECT_EQ(p.chain[0], (LambdaStep{"", 0, 2}));
  EXPECT_EQ(p.chain[1], (LambdaStep{"", 0, 2}));
  EXPECT_EQ(p.chain[2], (LambdaStep{"float", 1, 1}));
}

TEST(KernelName, WrappersListWhatTheyWrapFirst) {
  // AUnaryFunctor<..., MulFunctor<float>>: MulFunctor before the wrapper.
  KernelName k = ParseKernelName(
      "void at::native::vectorized_elementwise_kernel<4, at::native::AUnaryFunctor<float, float, float, "
      "at::native::binary_internal::MulFunctor<float> >, std::array<char*, 2ul> >(int, at::native::AUnaryFunctor<"
      "float, float, float, at::native::binary_internal::MulFunctor<float> >, std::array<char*, 2ul>)");
  ASSERT_GE(k.payloads.size(), 2u);
  EXPECT_EQ(k.payloads[0].name, "MulFunctor");
  EXPECT_EQ(k.payloads[0].scope, "at::native::binary_internal::");
  EXPECT_FALSE(k.payloads[0].lambda);
  EXPECT_EQ(k.payloads[1].name, "AUnaryFunctor");
  // A reduction: ReduceOp<float, MeanOps<...>, ...> offers MeanOps first.
  KernelName r = ParseKernelName(
      "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::MeanOps<float, float, float, "
      "float>, unsigned int, float, 4, 4> >(at::native::ReduceOp<float, at::native::MeanOps<float, float, float, "
      "float>, unsigned int, float, 4, 4>)");
  EXPECT_EQ(r.kernel, "reduce_kernel");
  ASSERT_FALSE(r.payloads.empty());
  EXPECT_EQ(r.payloads[0].name, "MeanOps");
}

TEST(KernelName, ACallOperatorsLambdaNamesItsClass) {
  KernelName k = ParseKernelName(
      "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::func_wrapper_t<float, "
      "at::native::sum_functor<float, float, float>::operator()(at::TensorIterator&)::{lambda(float, float)#1}>, "
      "unsigned int, float, 4, 4> >(at::native::ReduceOp<float, at::native::func_wrapper_t<float, at::native::sum_f");
  EXPECT_TRUE(k.truncated);
  ASSERT_FALSE(k.payloads.empty());
  EXPECT_EQ(k.payloads[0].name, "sum_functor");
  EXPECT_TRUE(k.payloads[0].call_operator);
  ASSERT_EQ(k.payloads[0].chain.size(), 1u);
  EXPECT_EQ(k.payloads[0].chain[0].arity, 2);
}

TEST(KernelName, ACutNameStillOffersTheWrappedLambda) {
  // Cut at 400 characters inside gpu_kernel_impl_nocast's own lambda: neg_kernel_cuda is still read.
  KernelName k = ParseKernelName(
      "void at::native::elementwise_kernel<128, 2, at::native::gpu_kernel_impl_nocast<at::native::neg_kernel_cuda("
      "at::TensorIteratorBase&)::{lambda()#2}::operator()() const::{lambda()#7}::operator()() const::{lambda(float)"
      "#1}>(at::TensorIteratorBase&, at::native::neg_kernel_cuda(at::TensorIteratorBase&)::{lambda()#2}::operator()"
      "() const::{lambda()#7}::operator()() const::{lambda(float)#1} const&)::{lambd");
  EXPECT_TRUE(k.truncated);
  ASSERT_FALSE(k.payloads.empty());
  EXPECT_EQ(k.payloads[0].name, "neg_kernel_cuda");
  EXPECT_EQ(k.payloads[0].chain.back(), (LambdaStep{"float", 1, 1}));
}

TEST(KernelName, MangledNamesAreDemangledFirst) {
  KernelName k = ParseKernelName(
      "_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_11FillFunctorIfEESt5arrayIPcLm1EEEEviT0_T1_");
  EXPECT_TRUE(k.was_mangled);
  EXPECT_EQ(k.demangled,
            "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, std::array<char*, 1ul> "
            ">(int, at::native::FillFunctor<float>, std::array<char*, 1ul>)");
  EXPECT_EQ(k.kernel, "vectorized_elementwise_kernel");
  ASSERT_FALSE(k.payloads.empty());
  EXPECT_EQ(k.payloads[0].name, "FillFunctor");
  bool mangled = true;
  EXPECT_EQ(DemangleKernelName("_Znot a name", &mangled), "_Znot a name");  // read as written
  EXPECT_FALSE(mangled);
}

TEST(KernelName, JiteratorKernelsNameTheirString) {
  KernelName k = ParseKernelName("abs_kernel_vectorized4_kernel");
  EXPECT_EQ(k.jiterator_vectorized, "abs_kernel");
  EXPECT_EQ(k.jiterator_plain, "abs_kernel_vectorized4");
  EXPECT_TRUE(ParseKernelName("void at::native::reduce_kernel<1>(int)").jiterator_vectorized.empty());
}

std::string Library(const char* name) {
  std::string why;
  return KernelLibrary(ParseKernelName(name), &why);
}

TEST(KernelName, VendorLibrariesByTheirNamingConventions) {
  EXPECT_EQ(Library("nvjet_sm90_tst_64x48_64x15_2x4_h_bz_NNT"), "cuBLAS");
  EXPECT_EQ(Library("sm80_xmma_gemm_f32f32_f32f32_f32_nn_n_tilesize32x32x8_stage3_warpsize1x2x1_ffma_aligna4_alignc4_"
                    "execute_kernel__5x_cublas"),
            "cuBLAS");
  EXPECT_EQ(
      Library("void cutlass::Kernel2<cutlass_80_simt_sgemm_128x32_8x5_nn_align1>(cutlass_80_simt_sgemm_128x32_8x5_"
              "nn_align1::Params)"),
      "cuBLAS");
  EXPECT_EQ(
      Library("void gemmSN_NN_kernel<float, 128, 2, 4, 8, 2, 4, false, cublasGemvTensorStridedBatched<float const>"
              " >(cublasGemmSmallNParams<float>)"),
      "cuBLAS");
  EXPECT_EQ(Library("void cublasLt::splitKreduce_kernel<32, 16, int, float>(cublasLt::cublasSplitKParams<float>)"),
            "cuBLASLt");
  EXPECT_EQ(Library("sm90_xmma_wgrad_indexed_implicit_gemm_f32f32_tf32f32_f32_nhwckrsc_nhwc_tilesize64x64x32_"
                    "warpgroupsize1x1x1_g1_execute_segment_k_off_kernel__5x_cudnn"),
            "cuDNN");
  EXPECT_EQ(
      Library("void cudnn::bn_fw_tr_1C11_singleread<float, 512, true, 1, 2, 0>(cudnn::bn_fw_tr_1C11_args<float>)"),
      "cuDNN");
  EXPECT_EQ(Library("void wgrad_alg0_engine<float, 128, 5, 5, 3, 3, 3, false, 512>(int, int, int, float const*)"),
            "cuDNN");
  EXPECT_EQ(Library("void vector_fft_r2c<10u, EPT<10u>, 32u, 32u, (padding_t)14>(kernel_arguments_t)"), "cuFFT");
  EXPECT_EQ(Library("void at_cuda_detail::cub::detail::scan::DeviceScanInitKernel<at_cuda_detail::cub::ScanTileState<"
                    "float, true> >(at_cuda_detail::cub::ScanTileState<float, true>, int)"),
            "CUB");
  EXPECT_EQ(Library("void getrf_pivot<getrf_params_<float, 32, 1, 32, 32, 1> >(int, int, int, void*)"), "cuSOLVER");
  // Nothing in the name says which library: no answer rather than a guess.
  EXPECT_EQ(Library("xx_set_info_ker(int, int*, int)"), "");
  EXPECT_EQ(Library("void scale_max<float, 32, 128, 0>(long, long, float*, float*, float*, int*)"), "");
}

TEST(KernelName, ProfilerNamesAreToldFromSourceNames) {
  EXPECT_TRUE(LooksLikeProfilerKernelName(kSigmoid));
  EXPECT_TRUE(LooksLikeProfilerKernelName("_ZN2at6native6kernelEv"));
  EXPECT_FALSE(LooksLikeProfilerKernelName("softmax_warp_forward"));
  EXPECT_FALSE(LooksLikeProfilerKernelName("aten::add.Tensor"));
}

}  // namespace
}  // namespace optrace
