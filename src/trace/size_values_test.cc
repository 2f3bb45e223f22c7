// Which values hold a size of a typical tensor (trace/size_values.h), on a
// small MemoryDisk tree written here: a pair of sizes a helper returns,
// c10::multiply_integers over a tensor's sizes, the helper the caller's
// #include reaches among namesakes, and parameters every caller passes a size.
#include "trace/size_values.h"

#include <gtest/gtest.h>

#include <string>

#include "testing/memory_index.h"

namespace optrace {
namespace {

// aten/src/ATen/native/norm.h
constexpr char kNormH[] = R"x(namespace at::native {

C10_ALWAYS_INLINE std::pair<int64_t, int64_t> check_inputs(const Tensor& input, int64_t axis) {
  const auto input_shape = input.sizes();
  const int64_t M = c10::multiply_integers(input_shape.cbegin(), input_shape.cbegin() + axis);
  const int64_t N = c10::multiply_integers(input_shape.cbegin() + axis, input_shape.cend());
  return std::make_pair(M, N);
}

}  // namespace at::native
)x";

// aten/src/ATen/native/vulkan/Norm.cpp: a namesake the CUDA file does not include.
constexpr char kVulkanCpp[] = R"x(namespace at::native::vulkan {

std::pair<int64_t, int64_t> check_inputs(const Tensor& input, int64_t axis) {
  return std::make_pair(axis - 1, axis);
}

}  // namespace at::native::vulkan
)x";

// aten/src/ATen/native/cuda/Norm.cu
constexpr char kNormCu[] = R"x(#include <ATen/native/norm.h>
namespace at::native {

void launch_rows(int64_t rows, int64_t cols) {
  if (rows == 0 || cols == 0) return;
}

Tensor norm_cuda(const Tensor& input, int64_t axis) {
  auto M_N = check_inputs(input, axis);
  auto M = M_N.first;
  auto K = std::get<1>(M_N);
  int64_t D = axis - 1;
  launch_rows(M, input.numel());
  launch_rows(M * K, axis);
  return input;
}

}  // namespace at::native
)x";

class SizeValuesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_NO_FATAL_FAILURE(BuildMemoryIndex(
        MemoryTree({{"aten/src/ATen/native/native_functions.yaml", "- func: norm(Tensor self) -> Tensor\n"},
                    {"aten/src/ATen/native/norm.h", kNormH},
                    {"aten/src/ATen/native/vulkan/Norm.cpp", kVulkanCpp},
                    {"aten/src/ATen/native/cuda/Norm.cu", kNormCu}}),
        &ix_));
  }
  int32_t Function(const char* name) {
    auto ids = ix_.cpp.FunctionsNamed(name);
    return ids.size() == 1 ? static_cast<int32_t>(ids.front()) : -1;
  }
  bool Local(const char* fn, const char* name) { return LocalHoldsSize(ix_, Function(fn), name, 0, all_); }

  Index ix_;
  BuiltLine all_ = [](const CppGuardReader&, int) { return true; };
};

TEST_F(SizeValuesTest, AnElementOfAPairOfSizesAHelperReturnsIsOne) {
  ASSERT_GE(Function("norm_cuda"), 0);
  EXPECT_TRUE(Local("norm_cuda", "M")) << "M_N.first: check_inputs' M, a product over input.sizes()";
  EXPECT_TRUE(Local("norm_cuda", "K")) << "std::get<1>(M_N): its N";
  EXPECT_FALSE(Local("norm_cuda", "D")) << "axis - 1 may be 0";
  EXPECT_FALSE(Local("norm_cuda", "axis")) << "a parameter no call passes a size";
}

TEST_F(SizeValuesTest, AParameterEveryCallerPassesASizeIsOne) {
  EXPECT_TRUE(Local("launch_rows", "rows")) << "M and M * K";
  EXPECT_FALSE(Local("launch_rows", "cols")) << "one call passes axis";
}

TEST_F(SizeValuesTest, TheHelperIsTheOneTheCallersFileIncludes) {
  // vulkan/Norm.cpp's check_inputs returns `axis - 1` first: were it read, M would be no size.
  EXPECT_EQ(ix_.cpp.FunctionsNamed("check_inputs").size(), 2u);
  EXPECT_TRUE(HoldsSize(ix_, Function("norm_cuda"), "M_N.first", all_));
}

}  // namespace
}  // namespace optrace
