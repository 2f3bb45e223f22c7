// An op the Python code calls only on a way the assumptions rule out, that
// the code of an op on the path calls where they take the call, runs: it is
// reached from that op, with that call's conditions (F.l1_loss calls
// torch.abs only `if weight is not None`; the aten::l1_loss it calls
// otherwise runs `(input - target).abs()`). A call the assumptions leave
// open keeps it off the path. The tree below is that shape in a few lines;
// line numbers are lines of its raw strings, the real tree's read with sed.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "testing/memory_index.h"
#include "trace/trace.h"
#include "trace/trace_test_util.h"

namespace optrace {
namespace {

// aten/src/ATen/native/native_functions.yaml
constexpr char kNativeFunctions[] = R"x(- func: loss(Tensor self, Tensor target) -> Tensor

- func: open_loss(Tensor self, Tensor target) -> Tensor

- func: magnitude(Tensor self) -> Tensor
  dispatch:
    CUDA: magnitude_cuda

- func: shrink(Tensor self) -> Tensor
  dispatch:
    CUDA: shrink_cuda
)x";

// aten/src/ATen/native/Loss.cpp
constexpr char kLossCpp[] = R"x(namespace at::native {

Tensor magnitude_cuda(const Tensor& self) { return self; }
Tensor shrink_cuda(const Tensor& self) { return self; }
Tensor loss(const Tensor& self, const Tensor& target) {
  return at::magnitude(self);
}
Tensor open_loss(const Tensor& self, const Tensor& target) {
  if (self.size(0) > 8) {
    return at::shrink(self);
  }
  return self;
}

} // namespace at::native
)x";

// torch/nn/functional.py
constexpr char kFunctionalPy[] = R"x(from typing import Optional
import torch
from torch import Tensor

def weighted(input: Tensor, target: Tensor, weight: Optional[Tensor] = None) -> Tensor:
    if weight is not None:
        return torch.magnitude(input) * weight
    return torch.loss(input, target)

def scaled(input: Tensor, target: Tensor, weight: Optional[Tensor] = None) -> Tensor:
    if weight is not None:
        return torch.shrink(input) * weight
    return torch.open_loss(input, target)
)x";

std::shared_ptr<MemoryDisk> EntryCallersTree() {
  return MemoryTree({{"version.txt", "2.6.0a0\n"},
                     {"aten/src/ATen/native/native_functions.yaml", kNativeFunctions},
                     {"aten/src/ATen/native/Loss.cpp", kLossCpp},
                     {"torch/nn/functional.py", kFunctionalPy},
                     {"torch/nn/__init__.py", "from . import functional\n"},
                     {"torch/__init__.py", "from torch import nn\n"}});
}

class EntryCallers : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_NO_FATAL_FAILURE(BuildMemoryIndex(EntryCallersTree(), &index_)); }
  Index index_;
};

TEST_F(EntryCallers, AnEntryOffThePythonWayRunsWhereAnOpOnThePathCallsIt) {
  // functional.py:7 `torch.magnitude(input)` only when a weight is passed;
  // :8's loss runs and Loss.cpp:6 calls at::magnitude unconditionally.
  Trace t = TraceIndex(index_, "F.weighted", TraceOptions::Device::kCuda);
  const OpStep* magnitude = FindOp(t, "magnitude");
  ASSERT_NE(magnitude, nullptr);
  EXPECT_TRUE(magnitude->typical && !magnitude->undecided);
  EXPECT_EQ(magnitude->reached_from, "loss");
  EXPECT_EQ(magnitude->called_at.line, 6);
}

TEST_F(EntryCallers, AnOpenCallLeavesTheEntryOffThePath) {
  // Loss.cpp:10 `if (self.size(0) > 8)`: open, so :11's shrink is no typical call's.
  Trace t = TraceIndex(index_, "F.scaled", TraceOptions::Device::kCuda);
  const OpStep* shrink = FindOp(t, "shrink");
  ASSERT_NE(shrink, nullptr);
  EXPECT_FALSE(shrink->typical);
}

TEST_F(Tree260, L1LossRunsAbsThroughTheAtenOp) {
  // torch/nn/functional.py:3816 `torch.abs(...)` under :3812 `if weight is not None:`;
  // :3830 `torch._C._nn.l1_loss(...)` otherwise, whose Loss.cpp:517 runs `(input - target).abs()`.
  Trace t = TraceTree("2.6.0", "F.l1_loss", TraceOptions::Device::kCuda);
  const OpStep* abs = FindOp(t, "abs");
  ASSERT_NE(abs, nullptr);
  EXPECT_TRUE(abs->typical);
  EXPECT_EQ(abs->reached_from, "l1_loss");
  EXPECT_EQ(abs->called_at.line, 517);
}

}  // namespace
}  // namespace optrace
