// A Python function taking a callable that defaults to None and binding
// the one it uses when none is passed (functional.py's
// triplet_margin_with_distance_loss: `if distance_function is None:
// distance_function = torch.pairwise_distance`, then
// `distance_function(anchor, positive)`): the call runs the bound function
// on the typical path. The tree below is that shape in a few lines.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "testing/memory_index.h"
#include "trace/trace.h"
#include "trace/trace_test_util.h"

namespace optrace {
namespace {

// aten/src/ATen/native/native_functions.yaml
constexpr char kNativeFunctions[] = R"x(- func: gap(Tensor x1, Tensor x2) -> Tensor
  dispatch:
    CUDA: gap_cuda

- func: clamp_low(Tensor self) -> Tensor
  dispatch:
    CUDA: clamp_low_cuda
)x";

// aten/src/ATen/native/Gap.cpp
constexpr char kGapCpp[] = R"x(namespace at::native {

Tensor gap_cuda(const Tensor& x1, const Tensor& x2) { return x1; }
Tensor clamp_low_cuda(const Tensor& self) { return self; }

} // namespace at::native
)x";

// torch/nn/functional.py
constexpr char kFunctionalPy[] = R"x(import torch

def margin(anchor, positive, *, distance_function=None):
    if distance_function is None:
        distance_function = torch.gap
    dist = distance_function(anchor, positive)
    return torch.clamp_low(dist)

def chooser(anchor, positive, pick=None, other=None):
    if pick is None:
        pick = torch.gap
    else:
        pick = torch.clamp_low
    return pick(anchor, positive)

def stack(x, layers):
    for layer in layers:
        x = layer(x)
    if len(layers) == 0:
        raise ValueError("no layers")
    return torch.clamp_low(x)

def lazy(x):
    from torch.nn.modules import helper
    return helper(x)
)x";

std::shared_ptr<MemoryDisk> RebindTree() {
  return MemoryTree({{"version.txt", "2.6.0a0\n"},
                     {"aten/src/ATen/native/native_functions.yaml", kNativeFunctions},
                     {"aten/src/ATen/native/Gap.cpp", kGapCpp},
                     {"torch/nn/functional.py", kFunctionalPy},
                     {"torch/nn/__init__.py", "from . import functional\n"},
                     {"torch/__init__.py", "from torch import nn\n"}});
}

class PyRebind : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_NO_FATAL_FAILURE(BuildMemoryIndex(RebindTree(), &index_)); }
  Index index_;
};

TEST_F(PyRebind, ACallableParameterDefaultingToNoneRunsWhatTheBodyBindsToIt) {
  // functional.py:6 `distance_function(anchor, positive)`; :5 binds torch.gap.
  Trace t = TraceIndex(index_, "F.margin", TraceOptions::Device::kCuda);
  const OpStep* gap = FindOp(t, "gap");
  ASSERT_NE(gap, nullptr);
  EXPECT_TRUE(gap->typical);
  ASSERT_NE(FindOp(t, "clamp_low"), nullptr);
}

// The not-found entries naming a call of a value the frame holds.
std::vector<std::string> UnfollowedValues(const Trace& t) {
  std::vector<std::string> out;
  for (const auto& n : t.not_found)
    if (n.detail.find("a value the frame holds") != std::string::npos)
      out.push_back(n.detail.substr(0, n.detail.find("): ") + 1));
  return out;
}

TEST_F(PyRebind, TwoFunctionsBoundToTheNameDecideNothing) {
  // functional.py:11-14 binds torch.gap or torch.clamp_low: not guessed, and said.
  Trace t = TraceIndex(index_, "F.chooser", TraceOptions::Device::kCuda);
  EXPECT_EQ(FindOp(t, "gap"), nullptr);
  EXPECT_EQ(FindOp(t, "clamp_low"), nullptr);
  EXPECT_EQ(UnfollowedValues(t), (std::vector<std::string>{"pick (torch/nn/functional.py:14)"}));
  // The one the body binds is followed: nothing to say.
  EXPECT_TRUE(UnfollowedValues(TraceIndex(index_, "F.margin", TraceOptions::Device::kCuda)).empty());
}

TEST_F(PyRebind, ALoopVariablesCallIsListedNotFollowedAndABuiltinIsNeither) {
  // functional.py:18 `x = layer(x)` over a parameter's items: the callee is known only when
  // it runs; :19's len and :20's ValueError are Python's own.
  Trace t = TraceIndex(index_, "F.stack", TraceOptions::Device::kCuda);
  EXPECT_EQ(UnfollowedValues(t), (std::vector<std::string>{"layer (torch/nn/functional.py:18)"}));
  ASSERT_NE(FindOp(t, "clamp_low"), nullptr);
  // :25 `helper(x)` after the body's own import (:24): an import, no value the frame holds.
  EXPECT_TRUE(UnfollowedValues(TraceIndex(index_, "F.lazy", TraceOptions::Device::kCuda)).empty());
}

TEST_F(Tree260, TripletMarginWithDistanceLossRunsPairwiseDistanceByDefault) {
  // torch/nn/functional.py:5432-5435 `if distance_function is None: distance_function =
  // torch.pairwise_distance` ... `dist_pos = distance_function(anchor, positive)`.
  Trace t = TraceTree("2.6.0", "F.triplet_margin_with_distance_loss", TraceOptions::Device::kCuda);
  const OpStep* pd = FindOp(t, "pairwise_distance");
  ASSERT_NE(pd, nullptr);
  EXPECT_TRUE(pd->typical);
}

}  // namespace
}  // namespace optrace
