// Device code as the tracer must see it: lambdas and functions marked for
// the GPU, never their host surroundings, never a marker in a comment.
#include "cpp/device_code.h"

#include <gtest/gtest.h>

#include <string>

namespace optrace {
namespace {

// The text of each device range.
std::vector<std::string> Ranges(std::string_view code) {
  std::vector<std::string> out;
  for (auto [b, e] : DeviceCodeRanges(code)) out.emplace_back(code.substr(b, e - b + 1));
  return out;
}

TEST(DeviceCode, GpuLambdaBodyIsDeviceCodeItsLauncherIsNot) {
  std::string_view code =
      "auto y = a * b;\n"
      "gpu_kernel(iter, [] GPU_LAMBDA (scalar_t dy, scalar_t x) -> scalar_t {\n"
      "  return dy * x;\n"
      "});\n"
      "auto z = y + a;\n";
  auto r = Ranges(code);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0], "{\n  return dy * x;\n}");
  EXPECT_FALSE(InRanges(DeviceCodeRanges(code), code.find("a * b")));
  EXPECT_TRUE(InRanges(DeviceCodeRanges(code), code.find("dy * x")));
  EXPECT_FALSE(InRanges(DeviceCodeRanges(code), code.find("y + a")));
}

TEST(DeviceCode, ACallOnTheLineThatOpensTheLambda) {
  std::string_view code = "x();\ngpu_kernel(iter, []GPU_LAMBDA(scalar_t a) -> bool { return signbit(a); });\n";
  auto ranges = DeviceCodeRanges(code);
  EXPECT_TRUE(MentionsOnlyIn(code, 1, "signbit", ranges));
  EXPECT_FALSE(MentionsOnlyIn(code, 1, "gpu_kernel", ranges));
  EXPECT_FALSE(MentionsOnlyIn(code, 0, "x", ranges));
  EXPECT_FALSE(MentionsOnlyIn(code, 1, "absent", ranges));
}

TEST(DeviceCode, DeviceLambdaWithCaptureAndNestedBraces) {
  std::string_view code = "f(iter, [=] __device__ (float v) { if (v > 0) { return v; } return -v; }); g(x);";
  auto r = Ranges(code);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0], "{ if (v > 0) { return v; } return -v; }");
}

TEST(DeviceCode, MarkersInCommentsStringsAndDeclarationsOpenNothing) {
  EXPECT_TRUE(Ranges("// GPU_LAMBDA { x * y }\nauto s = \"__device__ {\"; { a * b; }").empty());
  EXPECT_TRUE(Ranges("__device__ float helper(float a);\n{ t * u; }").empty());
}

TEST(DeviceCode, DeviceFunctionDeclarations) {
  EXPECT_TRUE(DeclaresDeviceCode("template <typename T>\n__device__ __forceinline__ T warp_sum"));
  EXPECT_TRUE(DeclaresDeviceCode("C10_HOST_DEVICE inline float gelu"));
  EXPECT_TRUE(DeclaresDeviceCode("__global__ void kernel"));
  // The previous definition's marker is not this one's.
  EXPECT_FALSE(DeclaresDeviceCode("__device__ int f() { return 1; }\nTensor softmax_cuda"));
  EXPECT_FALSE(DeclaresDeviceCode("Tensor& add_out"));
}

}  // namespace
}  // namespace optrace
