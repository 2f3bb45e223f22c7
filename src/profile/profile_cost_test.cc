// The bytes / FLOPs model, one worked example per op family (shapes as
// torch.profiler records them), and the device table.
#include "profile/profile_cost.h"

#include <gtest/gtest.h>

namespace optrace {
namespace {

const std::string kBf16 = "c10::BFloat16";

TEST(ProfileCost, Matmul) {
  // mm([1024,256] @ [256,1024]) in bf16: 2*M*N*K; A, B, C once.
  OpCost c = EstimateOpCost("aten::mm", {{1024, 256}, {256, 1024}}, {kBf16, kBf16}, {});
  EXPECT_EQ(c.family, "matmul");
  EXPECT_DOUBLE_EQ(c.flops, 2.0 * 1024 * 1024 * 256);
  EXPECT_DOUBLE_EQ(c.bytes, (1024.0 * 256 + 256.0 * 1024 + 1024.0 * 1024) * 2);
  EXPECT_EQ(c.dtype, "bfloat16");
  // addmm(bias[256], a[1024,256], b[256,256]): the bias is read too.
  OpCost a = EstimateOpCost("aten::addmm", {{256}, {1024, 256}, {256, 256}}, {kBf16, kBf16, kBf16}, {"", "", ""});
  EXPECT_DOUBLE_EQ(a.flops, 2.0 * 1024 * 256 * 256);
  EXPECT_DOUBLE_EQ(a.bytes, (1024.0 * 256 + 256.0 * 256 + 1024.0 * 256 + 256) * 2);
  // bmm([4,8,16] @ [4,16,32]) in float32.
  OpCost b = EstimateOpCost("aten::bmm", {{4, 8, 16}, {4, 16, 32}}, {"float", "float"}, {});
  EXPECT_DOUBLE_EQ(b.flops, 2.0 * 4 * 8 * 32 * 16);
  EXPECT_DOUBLE_EQ(b.bytes, 4.0 * (8 * 16 + 16 * 32 + 8 * 32) * 4);
  // linear(x[8,128,256], w[1024,256], bias): M is every leading dimension.
  OpCost l = EstimateOpCost("aten::linear", {{8, 128, 256}, {1024, 256}, {1024}}, {"float", "float", "float"}, {});
  EXPECT_DOUBLE_EQ(l.flops, 2.0 * 1024 * 1024 * 256);
}

TEST(ProfileCost, Convolution) {
  // convolution(x[32,3,32,32], w[32,3,3,3], bias, stride [1,1], padding [1,1], dilation [1,1]): Hout = Wout = 32.
  OpCost c = EstimateOpCost("aten::convolution", {{32, 3, 32, 32}, {32, 3, 3, 3}, {32}, {}, {}, {}},
                            {"float", "float", "float", "", "", ""}, {"", "", "", "[1, 1]", "[1, 1]", "[1, 1]"});
  EXPECT_EQ(c.family, "conv");
  EXPECT_DOUBLE_EQ(c.flops, 2.0 * 32 * (32 * 3 * 3 * 3) * 32 * 32);
  EXPECT_DOUBLE_EQ(c.bytes, (32.0 * 3 * 32 * 32 + 32 * 3 * 3 * 3 + 32.0 * 32 * 32 * 32) * 4);
  // Stride 2, no padding: Hout = (32 - 3) / 2 + 1 = 15.
  OpCost s = EstimateOpCost("aten::convolution", {{1, 3, 32, 32}, {8, 3, 3, 3}, {8}}, {"float", "float", "float"},
                            {"", "", "", "[2, 2]", "[0, 0]", "[1, 1]"});
  EXPECT_DOUBLE_EQ(s.flops, 2.0 * 8 * 27 * 15 * 15);
  // Without the stride/padding recorded there is no estimate, not a guessed one.
  EXPECT_FALSE(EstimateOpCost("aten::convolution", {{1, 3, 32, 32}, {8, 3, 3, 3}}, {"float", "float"}, {}).valid());
  // convolution_backward(grad_out[32,32,32,32], x[32,3,32,32], w[32,3,3,3]): grad input and grad weight.
  OpCost g = EstimateOpCost("aten::convolution_backward", {{32, 32, 32, 32}, {32, 3, 32, 32}, {32, 3, 3, 3}},
                            {"float", "float", "float"}, {});
  EXPECT_DOUBLE_EQ(g.flops, 2 * (2.0 * 32 * (32 * 3 * 3 * 3) * 32 * 32));
}

TEST(ProfileCost, Attention) {
  // q, k, v [8,4,128,64] bf16: 4*B*H*L*S*D forward, 10*B*H*L*S*D backward.
  std::vector<std::vector<int64_t>> qkv = {{8, 4, 128, 64}, {8, 4, 128, 64}, {8, 4, 128, 64}};
  OpCost f = EstimateOpCost("aten::_scaled_dot_product_flash_attention", qkv, {kBf16, kBf16, kBf16}, {});
  EXPECT_EQ(f.family, "attention");
  EXPECT_DOUBLE_EQ(f.flops, 4.0 * 32 * 128 * 128 * 64);
  EXPECT_DOUBLE_EQ(f.bytes, (3.0 * 8 * 4 * 128 * 64 + 32.0 * 128 * 64) * 2);
  std::vector<std::vector<int64_t>> bwd = {{8, 4, 128, 64}, {8, 4, 128, 64}, {8, 4, 128, 64}, {8, 4, 128, 64}};
  OpCost b = EstimateOpCost("aten::_cudnn_attention_backward", bwd, {kBf16, kBf16, kBf16, kBf16}, {});
  EXPECT_DOUBLE_EQ(b.flops, 10.0 * 32 * 128 * 128 * 64);
}

TEST(ProfileCost, MemoryBoundFamilies) {
  // layer_norm(x[8,128,256] f32, w[256], b[256]): inputs read, the output written.
  OpCost n =
      EstimateOpCost("aten::native_layer_norm", {{8, 128, 256}, {}, {256}, {256}}, {"float", "", "float", "float"}, {});
  EXPECT_EQ(n.family, "norm");
  EXPECT_DOUBLE_EQ(n.bytes, (8.0 * 128 * 256 * 2 + 512) * 4);
  OpCost s = EstimateOpCost("aten::_softmax", {{64, 1000}, {}, {}}, {"float", "", ""}, {});
  EXPECT_EQ(s.family, "softmax");
  EXPECT_DOUBLE_EQ(s.bytes, 64.0 * 1000 * 4 * 2);
  OpCost r = EstimateOpCost("aten::sum", {{1024, 256}, {}, {}}, {kBf16, "", ""}, {});
  EXPECT_EQ(r.family, "reduction");
  EXPECT_DOUBLE_EQ(r.bytes, 1024.0 * 256 * 2);
  OpCost e = EstimateOpCost("aten::add", {{8, 128, 256}, {8, 128, 256}, {}}, {"float", kBf16, "Scalar"}, {});
  EXPECT_EQ(e.family, "elementwise");
  EXPECT_DOUBLE_EQ(e.bytes, 8.0 * 128 * 256 * (4 + 2 + 4));  // two inputs read, one float32 output
  OpCost i = EstimateOpCost("aten::mul_", {{1000}, {1000}}, {"float", "float"}, {});
  EXPECT_DOUBLE_EQ(i.bytes, 1000.0 * 8);  // in place: nothing more written
  EXPECT_FALSE(EstimateOpCost("aten::nonzero", {{1000}}, {"float"}, {}).valid());
}

TEST(ProfileCost, DeviceTable) {
  const DevicePeak* h200 = FindDevicePeak("NVIDIA H200");
  ASSERT_NE(h200, nullptr);
  EXPECT_DOUBLE_EQ(h200->hbm_tbs, 4.8);
  EXPECT_DOUBLE_EQ(h200->bf16_tflops, 989);  // dense, not the 1,979 with sparsity
  EXPECT_DOUBLE_EQ(ComputePeakTflops(*h200, "matmul", "bfloat16"), 989);
  EXPECT_DOUBLE_EQ(ComputePeakTflops(*h200, "conv", "float32"), 494);  // cuDNN's TF32 default
  EXPECT_DOUBLE_EQ(ComputePeakTflops(*h200, "matmul", "float32"), 67);
  EXPECT_DOUBLE_EQ(ComputePeakTflops(*h200, "elementwise", "bfloat16"), 0);
  for (const char* d : {"NVIDIA H100 80GB HBM3", "NVIDIA A100-SXM4-80GB", "NVIDIA B200", "NVIDIA L40S"}) {
    EXPECT_NE(FindDevicePeak(d), nullptr) << d;
  }
  EXPECT_EQ(FindDevicePeak("NVIDIA GeForce RTX 4090"), nullptr);
}

}  // namespace
}  // namespace optrace
