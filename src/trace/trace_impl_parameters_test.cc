// A kernel that names a schema argument its own way reads the schema's
// value under that name (trace/impl_parameters.h), on a small MemoryDisk
// tree written here, and on the real 2.6.0 tree. Line numbers are lines of
// the raw strings below (each starts at line 1 of its file).
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "testing/memory_index.h"
#include "trace/trace.h"
#include "trace/trace_test_util.h"

namespace optrace {
namespace {

// aten/src/ATen/native/native_functions.yaml
constexpr char kNativeFunctions[] = R"x(- func: pick_a(Tensor self) -> Tensor
  dispatch:
    CUDA: pick_a_cuda

- func: pick_b(Tensor self) -> Tensor
  dispatch:
    CUDA: pick_b_cuda

- func: draw(Tensor self, int n, bool replacement=False) -> Tensor
  dispatch:
    CUDA: draw_cuda

- func: take_dim(Tensor self, int? dim=None) -> Tensor
  dispatch:
    CUDA: take_dim_cuda

- func: short_list(Tensor self, bool replacement=False) -> Tensor
  dispatch:
    CUDA: short_list_cuda
)x";

// aten/src/ATen/native/Draw.cpp
constexpr char kDrawCpp[] = R"x(namespace at::native {
Tensor draw_helper(const Tensor& self, int64_t n, bool with_replacement) {
  if (!with_replacement) {
    return at::pick_a(self);
  }
  return at::pick_b(self);
}

Tensor draw_cuda(const Tensor& self, int64_t n_sample, bool with_replacement) {
  return at::native::draw_helper(self, n_sample, with_replacement);
}

Tensor take_dim_cuda(const Tensor& self, std::optional<int64_t> opt_dim) {
  if (opt_dim.has_value()) {
    return at::pick_b(self);
  }
  return at::pick_a(self);
}

Tensor short_list_cuda(const Tensor& self) {
  bool with_replacement = self.dim() > 2;
  if (!with_replacement) {
    return at::pick_a(self);
  }
  return at::pick_b(self);
}
} // namespace at::native
)x";

class ImplParameters : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_NO_FATAL_FAILURE(
        BuildMemoryIndex(MemoryTree({{"version.txt", "2.6.0a0\n"},
                                     {"aten/src/ATen/native/native_functions.yaml", kNativeFunctions},
                                     {"aten/src/ATen/native/Draw.cpp", kDrawCpp}}),
                         &index_));
  }
  Trace TraceOf(const std::string& query) { return TraceIndex(index_, query, TraceOptions::Device::kCuda); }
  Index index_;
};

TEST_F(ImplParameters, AHelperGetsTheSchemaDefaultThroughTheKernelsOwnName) {
  // Draw.cpp:10 hands draw_cuda's `with_replacement` (the schema's
  // `replacement=False`, by position) on to draw_helper, whose :3 is taken.
  Trace t = TraceOf("aten::draw");
  EXPECT_EQ(PathOf(t, "pick_a"), "typical");
  EXPECT_EQ(PathOf(t, "pick_b"), "not taken");
}

TEST_F(ImplParameters, AnOptionalLeftAtNoneHasNoValue) {
  // Draw.cpp:14 `opt_dim.has_value()`: the schema's `int? dim=None`.
  Trace t = TraceOf("aten::take_dim");
  EXPECT_EQ(PathOf(t, "pick_a"), "typical");
  EXPECT_EQ(PathOf(t, "pick_b"), "not taken");
}

TEST_F(ImplParameters, AKernelWithOtherParametersBindsNothing) {
  // short_list_cuda takes one parameter for the schema's two: its
  // `with_replacement` is a local (:21), whatever the schema says.
  Trace t = TraceOf("aten::short_list");
  EXPECT_EQ(PathOf(t, "pick_a"), "open");
  EXPECT_EQ(PathOf(t, "pick_b"), "open");
}

class ImplParameters260 : public Tree260 {};

TEST_F(ImplParameters260, MultinomialWithoutReplacementTakesTheFastPath) {
  // Distributions.cpp:587 `if (!with_replacement || n_sample == 1)` in
  // multinomial_out, which multinomial (:633) calls with its own
  // `with_replacement`: the schema's `replacement=False`.
  const Trace t = TraceTree("2.6.0", "torch.multinomial", TraceOptions::Device::kCuda);
  for (const char* name : {"exponential_", "max", "min"}) {
    const OpStep* op = FindOp(t, name, OpRole::kForward);
    ASSERT_NE(op, nullptr) << name;
    EXPECT_TRUE(op->typical && !op->undecided) << name;
  }
}

TEST_F(ImplParameters260, TakeAlongDimWithoutDimGathersTheFlatTensor) {
  // TensorAdvancedIndexing.cpp:2205 `if (opt_dim.has_value())`: dim=None.
  const Trace t = TraceTree("2.6.0", "torch.take_along_dim", TraceOptions::Device::kCuda);
  const OpStep* gather = FindOp(t, "gather", OpRole::kForward);
  ASSERT_NE(gather, nullptr);
  EXPECT_TRUE(gather->typical && !gather->undecided);
  const OpStep* broadcast = FindOp(t, "broadcast_to", OpRole::kForward);
  ASSERT_NE(broadcast, nullptr);
  EXPECT_FALSE(broadcast->typical);
}

}  // namespace
}  // namespace optrace
