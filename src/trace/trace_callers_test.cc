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
  // Where the call the path takes is written: dense's (Outer.cpp:16), not side's (:12).
  EXPECT_EQ(shared->called_at.file, "aten/src/ATen/native/Outer.cpp");
  EXPECT_EQ(shared->called_at.line, 16);
}

TEST(SeveralCallers, AnOpsCallSiteIsTheCallNotItsCondition) {
  Index index;
  ASSERT_NO_FATAL_FAILURE(BuildMemoryIndex(CallersTree(), &index));
  Trace t = TraceIndex(index, "aten::outer", TraceOptions::Device::kCuda);
  const OpStep* side = FindOp(t, "side");
  ASSERT_TRUE(side);
  auto sparse = std::find_if(side->when.begin(), side->when.end(),
                             [](const Condition& c) { return c.text == "self.is_sparse()"; });
  ASSERT_NE(sparse, side->when.end());
  EXPECT_EQ(sparse->where.line, 4);
  EXPECT_EQ(side->called_at.line, 5) << "return at::side(self);";
  EXPECT_FALSE(FindOp(t, "outer")->called_at.valid()) << "the entry op has no caller";
}

// A helper the CPU and the CUDA implementations both call is on each
// device's path, with that device's call conditions (ResizeCommon.h's
// fill_resize_deterministic_ under resize_'s CPU and CUDA kernels).
constexpr char kSharedHelperYaml[] = R"x(- func: grow_(Tensor(a!) self) -> Tensor(a!)
  dispatch:
    CPU: grow_cpu_
    CUDA: grow_cuda_

- func: fill_(Tensor(a!) self, Scalar value) -> Tensor(a!)
  variants: function, method
  dispatch:
    CPU, CUDA: fill_
)x";

constexpr char kSharedHelperCpp[] = R"x(namespace at::native {

inline const Tensor& fill_new_memory(const Tensor& self) {
  self.fill_(0);
  return self;
}

const Tensor& grow_cpu_(const Tensor& self) {
  fill_new_memory(self);
  return self;
}

const Tensor& grow_cuda_(const Tensor& self) {
  if (at::globalContext().deterministicAlgorithms()) {
    fill_new_memory(self);
  }
  return self;
}

} // namespace at::native
)x";

TEST(SeveralCallers, AHelperBothDevicesCallTakesEachDevicesCondition) {
  Index index;
  ASSERT_NO_FATAL_FAILURE(
      BuildMemoryIndex(MemoryTree({{"version.txt", "2.6.0a0\n"},
                                   {"aten/src/ATen/native/native_functions.yaml", kSharedHelperYaml},
                                   {"aten/src/ATen/native/Grow.cpp", kSharedHelperCpp}}),
                       &index));
  TraceOptions options;  // the default trace: walks CPU's code too, answers for CUDA
  options.snippets = false;
  Trace t = TraceIndex(index, "aten::grow_", options);
  const OpStep* fill = FindOp(t, "fill_");
  ASSERT_TRUE(fill);
  EXPECT_FALSE(fill->typical || fill->undecided) << "deterministic algorithms are off by default";
  bool cuda_helper = false;
  for (const auto& h : FindOp(t, "grow_")->helpers)
    cuda_helper = cuda_helper || (h.function == "fill_new_memory" && h.key == "CUDA");
  EXPECT_TRUE(cuda_helper);
}

}  // namespace
}  // namespace optrace
