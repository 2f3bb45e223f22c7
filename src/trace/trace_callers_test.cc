// An op that several ops call is traced once, under the caller the walk met
// first; it is on the typical path when any caller's call runs. The tree
// below makes the first caller an off-path branch (`side`, reached only for
// sparse tensors) and the second the op that runs (`dense`), both calling
// `shared`. trace_main_path_test.cc pins the rule on the real tree (F.relu6's
// hardtanh_out, called by hardtanh_ and hardtanh).
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>

#include "testing/memory_index.h"
#include "trace/trace.h"
#include "trace/trace_test_util.h"

namespace optrace {
namespace {

// aten/src/ATen/native/native_functions.yaml
constexpr char kNativeFunctions[] = R"x(- func: outer(Tensor self) -> Tensor

- func: side(Tensor self) -> Tensor

- func: dense(Tensor self) -> Tensor

- func: shared(Tensor self) -> Tensor
  dispatch:
    CUDA: shared_cuda

- func: lonely(Tensor self) -> Tensor
  dispatch:
    CUDA: lonely_cuda
)x";

// aten/src/ATen/native/Outer.cpp
constexpr char kOuterCpp[] = R"x(namespace at::native {

Tensor outer(const Tensor& self) {
  if (self.is_sparse()) {
    return at::side(self);
  }
  return at::dense(self);
}

Tensor side(const Tensor& self) {
  auto t = at::lonely(self);
  return at::shared(t);
}

Tensor dense(const Tensor& self) {
  return at::shared(self);
}

Tensor shared_cuda(const Tensor& self) { return self; }
Tensor lonely_cuda(const Tensor& self) { return self; }

} // namespace at::native
)x";

std::shared_ptr<MemoryDisk> CallersTree() {
  return MemoryTree({{"version.txt", "2.6.0a0\n"},
                     {"aten/src/ATen/native/native_functions.yaml", kNativeFunctions},
                     {"aten/src/ATen/native/Outer.cpp", kOuterCpp}});
}

TEST(SeveralCallers, AnOpIsOnThePathWhenAnyCallersCallRuns) {
  Index index;
  ASSERT_NO_FATAL_FAILURE(BuildMemoryIndex(CallersTree(), &index));
  Trace t = TraceIndex(index, "aten::outer", TraceOptions::Device::kCuda);
  ASSERT_FALSE(t.ops.empty());

  const OpStep* side = FindOp(t, "side");
  const OpStep* dense = FindOp(t, "dense");
  const OpStep* shared = FindOp(t, "shared");
  const OpStep* lonely = FindOp(t, "lonely");
  ASSERT_TRUE(side && dense && shared && lonely);
  EXPECT_FALSE(side->typical) << "reached only when self.is_sparse()";
  EXPECT_TRUE(dense->typical && !dense->undecided);
  EXPECT_FALSE(lonely->typical) << "only the off-path caller calls it";

  EXPECT_TRUE(shared->typical && !shared->undecided) << "dense's call of shared runs";
  EXPECT_EQ(shared->reached_from, "dense") << "the caller whose call runs leads to it";
  EXPECT_EQ(shared->also_reached_from, std::vector<std::string>{"side"}) << "the other caller is kept";
}

}  // namespace
}  // namespace optrace
