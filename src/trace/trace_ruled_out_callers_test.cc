// An op called by two ops with different arguments takes what the caller
// that runs passes: a caller the assumptions never run (behind `!needs`
// where `needs` holds in a training step), or a call they decide is not
// made, binds nothing
// (trace_paths.cc NeverRuns; F.embedding_bag's _embedding_bag_forward_only).
// Line numbers are lines of the raw strings below.
#include <gtest/gtest.h>

#include <string>

#include "testing/memory_index.h"
#include "trace/trace.h"
#include "trace/trace_test_util.h"

namespace optrace {
namespace {

constexpr char kNativeFunctions[] = R"x(- func: outer(Tensor self) -> Tensor

- func: other_caller(Tensor self) -> Tensor

- func: inner(Tensor self, bool flag) -> Tensor
  dispatch:
    CUDA: inner_cuda

- func: pick_a(Tensor self) -> Tensor
  dispatch:
    CUDA: pick_a_cuda
)x";

// aten/src/ATen/native/Outer.cpp
constexpr char kOuterCpp[] = R"x(namespace at::native {
Tensor outer(const Tensor& self) {
  bool needs = GradMode::is_enabled();
  if (needs) {
    return at::inner(self, false);
  }
  return at::other_caller(self);
}
Tensor other_caller(const Tensor& self) {
  return at::inner(self, true);
}
Tensor inner_cuda(const Tensor& self, bool flag) {
  if (flag) {
    return at::pick_a(self);
  }
  return self;
}
Tensor pick_a_cuda(const Tensor& self) { return self; }
} // namespace at::native
)x";

TEST(RuledOutCallers, ACallerTheAssumptionsNeverRunBindsNoArgument) {
  Index index;
  ASSERT_NO_FATAL_FAILURE(BuildMemoryIndex(MemoryTree({{"version.txt", "2.6.0a0\n"},
                                                       {"aten/src/ATen/native/native_functions.yaml", kNativeFunctions},
                                                       {"aten/src/ATen/native/Outer.cpp", kOuterCpp}}),
                                           &index));
  // Outer.cpp:5 passes `false` under `needs` (true: grad mode); :10's `true`
  // is other_caller's, reached only under `!needs` (:7): inner's `if (flag)`
  // (:13) is decided false, and pick_a never runs.
  Trace t = TraceIndex(index, "aten::outer", TraceOptions::Device::kCuda);
  const OpStep* inner = FindOp(t, "inner");
  ASSERT_NE(inner, nullptr);
  EXPECT_TRUE(inner->typical);
  const OpStep* pick = FindOp(t, "pick_a");
  ASSERT_NE(pick, nullptr);
  EXPECT_FALSE(pick->typical);
  EXPECT_FALSE(pick->undecided);
  // Under no-grad `needs` is false: :5's call is not made, other_caller's is,
  // and pick_a runs.
  Trace inference = TraceIndex(index, "aten::outer", TraceOptions::Device::kCuda, {"no-grad"});
  const OpStep* picked = FindOp(inference, "pick_a");
  ASSERT_NE(picked, nullptr);
  EXPECT_TRUE(picked->typical && !picked->undecided);
}

}  // namespace
}  // namespace optrace
