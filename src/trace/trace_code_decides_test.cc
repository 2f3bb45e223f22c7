// What the code itself decides on the typical path, on a small MemoryDisk
// tree written here: a local holding a size of the tensor is at least 1
// (the empty-input early return is not taken), a flag local holds what the
// assumptions decide of its expression, a helper's caller passing `{}` and
// `/*forward=*/true` binds its parameters (and the helpers it passes them
// on to), a Python if-chain whose branches all return guards what follows
// by every branch, a Python call with more arguments than an overload
// takes is not that overload, and a structured delegate is folded into the
// op that delegates. Line numbers are lines of the raw strings below (each
// starts at line 1 of its file).
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "testing/memory_index.h"
#include "trace/trace.h"

namespace optrace {
namespace {

// aten/src/ATen/native/native_functions.yaml
constexpr char kNativeFunctions[] = R"x(- func: pick_a(Tensor self) -> Tensor
  dispatch:
    CUDA: pick_a_cuda

- func: pick_b(Tensor self) -> Tensor
  dispatch:
    CUDA: pick_b_cuda

- func: pick_c(Tensor self) -> Tensor
  dispatch:
    CUDA: pick_c_cuda

- func: shrink(Tensor self) -> Tensor
  dispatch:
    CUDA: shrink_cuda

- func: spectral(Tensor self) -> Tensor

- func: embed(Tensor weight) -> Tensor

- func: middle(Tensor self) -> Tensor
  dispatch:
    CUDA: middle_cuda

- func: middle.dim(Tensor self, int dim, bool keepdim=False) -> Tensor
  dispatch:
    CUDA: middle_dim_cuda

- func: grow.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)
  structured: True
  dispatch:
    CUDA: grow_out

- func: grow_(Tensor(a!) self) -> Tensor(a!)
  structured_delegate: grow.out

- func: grow(Tensor self) -> Tensor
  structured_delegate: grow.out

- func: regrow(Tensor self) -> Tensor
  dispatch:
    CUDA: regrow_cuda

- func: settle(Tensor self) -> Tensor
  dispatch:
    CUDA: settle_cuda
)x";

// aten/src/ATen/native/Shrink.cpp
constexpr char kShrinkCpp[] = R"x(namespace at::native {
Tensor pick_a_cuda(const Tensor& self) { return self; }
Tensor pick_b_cuda(const Tensor& self) { return self; }
Tensor pick_c_cuda(const Tensor& self) { return self; }

Tensor shrink_cuda(const Tensor& self) {
  const auto n = self.numel();
  if (n == 0) {
    return at::pick_b(self);
  }
  const int64_t rows = self.size(0) - 1;
  if (rows == 0) {
    return at::pick_c(self);
  }
  return at::pick_a(self);
}

Tensor spectral_inner(const Tensor& out, const Tensor& input) {
  if (out.defined()) {
    return at::pick_a(input);
  }
  return at::pick_b(input);
}

Tensor spectral_helper(c10::string_view name, Tensor out, Tensor input, bool forward) {
  if (!forward) {
    return at::pick_c(input);
  }
  return spectral_inner(out, input);
}

Tensor spectral(const Tensor& self) {
  return spectral_helper("s", {}, self, /*forward=*/true);
}

Tensor embed(const Tensor& weight) {
  bool needs_grad = weight.requires_grad() || weight.is_sparse();
  if (!needs_grad) {
    return at::pick_a(weight);
  }
  return at::pick_b(weight);
}

Tensor middle_cuda(const Tensor& self) { return self; }
Tensor middle_dim_cuda(const Tensor& self, int64_t dim, bool keepdim) { return self; }
TORCH_IMPL_FUNC(grow_out) (const Tensor& self, const Tensor& result) {}

Tensor regrow_cuda(const Tensor& self) {
  Tensor result = self;
  if (self.is_sparse()) {
    return at::grow(self);
  }
  return at::grow_(result);
}

Tensor settle_cuda(const Tensor& self) {
  if (self.size(0) > 4) {
    return at::pick_a(self);
  } else {
    return at::pick_b(self);
  }
  return at::pick_c(self);
}
} // namespace at::native
)x";

// torch/nn/functional.py
constexpr char kFunctionalPy[] = R"x(import torch
def reduce(input, reduction="mean"):
    if reduction == "none":
        return torch.pick_b(input)
    elif reduction == "sum":
        return torch.pick_c(input)
    return torch.pick_a(input)
def middle_of(input, dim):
    return torch.middle(input, dim)
)x";

constexpr char kNnInitPy[] = "from . import functional\n";
constexpr char kTorchInitPy[] = "import torch.nn\n";

std::shared_ptr<MemoryDisk> Tree() {
  auto disk = std::make_shared<MemoryDisk>();
  disk->Add("version.txt", "2.6.0a0\n");
  disk->Add("aten/src/ATen/native/native_functions.yaml", kNativeFunctions);
  disk->Add("aten/src/ATen/native/Shrink.cpp", kShrinkCpp);
  disk->Add("torch/nn/functional.py", kFunctionalPy);
  disk->Add("torch/nn/__init__.py", kNnInitPy);
  disk->Add("torch/__init__.py", kTorchInitPy);
  return disk;
}

class CodeDecides : public ::testing::Test {
 protected:
  // A root of its own: file texts are kept per process by checkout and path.
  void SetUp() override { ASSERT_NO_FATAL_FAILURE(BuildMemoryIndex(Tree(), &index_, "/memory/pytorch-code-decides")); }
  Trace TraceOf(const std::string& query, std::vector<std::string> assume = {}) {
    TraceOptions options;
    options.device = TraceOptions::Device::kCuda;
    options.snippets = false;
    options.assume = std::move(assume);
    Trace t;
    Status s = TraceQuery(index_, query, options, &t);
    EXPECT_TRUE(s.ok()) << query << ": " << s.message();
    return t;
  }
  // "typical", "open" or "not taken" for the forward op `name`; "" if not listed.
  static std::string PathOf(const Trace& t, const std::string& name) {
    for (const auto& op : t.ops)
      if (op.role == OpRole::kForward && op.name == name)
        return op.typical && !op.undecided ? "typical" : op.undecided ? "open" : "not taken";
    return "";
  }
  Index index_;
};

TEST_F(CodeDecides, ASizeLocalIsNeverZero) {
  // Shrink.cpp:7-8 `const auto n = self.numel(); if (n == 0)`: a typical
  // tensor is not empty. :11-12's `self.size(0) - 1` may be 0: open.
  Trace t = TraceOf("aten::shrink");
  EXPECT_EQ(PathOf(t, "pick_b"), "not taken");
  EXPECT_EQ(PathOf(t, "pick_c"), "open");
  EXPECT_EQ(PathOf(t, "pick_a"), "open");
}

TEST_F(CodeDecides, AnIfChainOfReturnsGuardsWhatFollows) {
  // functional.py:3-7: pick_a runs unless reduction is 'none' or 'sum';
  // at the default 'mean' neither holds.
  Trace t = TraceOf("F.reduce");
  EXPECT_EQ(PathOf(t, "pick_a"), "typical");
  EXPECT_EQ(PathOf(t, "pick_b"), "not taken");
  EXPECT_EQ(PathOf(t, "pick_c"), "not taken");
  Trace sum = TraceOf("F.reduce(x, reduction='sum')");
  EXPECT_EQ(PathOf(sum, "pick_a"), "not taken");
  EXPECT_EQ(PathOf(sum, "pick_c"), "typical");
}

TEST_F(CodeDecides, ACallersEmptyValueAndCommentedLiteralBindTheHelper) {
  // Shrink.cpp:33 `spectral_helper("s", {}, self, /*forward=*/true)`:
  // `forward` is true (:26 not taken); `out` is undefined, and passed on to
  // spectral_inner unchanged (:29), so :19 is not taken there either.
  Trace t = TraceOf("aten::spectral");
  EXPECT_EQ(PathOf(t, "pick_a"), "not taken");
  EXPECT_EQ(PathOf(t, "pick_c"), "not taken");
  EXPECT_EQ(PathOf(t, "pick_b"), "typical");
}

TEST_F(CodeDecides, AFlagLocalHoldsWhatTheAssumptionsDecide) {
  // Shrink.cpp:37 `bool needs_grad = weight.requires_grad() || ...`.
  Trace t = TraceOf("aten::embed");
  EXPECT_EQ(PathOf(t, "pick_a"), "not taken");
  EXPECT_EQ(PathOf(t, "pick_b"), "typical");
  Trace no_grad = TraceOf("aten::embed", {"no-grad"});
  EXPECT_EQ(PathOf(no_grad, "pick_a"), "typical");
  EXPECT_EQ(PathOf(no_grad, "pick_b"), "not taken");
}

TEST_F(CodeDecides, APythonCallIsOnlyTheOverloadsItsArgumentsFit) {
  // functional.py:9 `torch.middle(input, dim)`: two arguments, so never
  // `middle(Tensor self)`.
  Trace t = TraceOf("F.middle_of");
  EXPECT_EQ(PathOf(t, "middle.dim"), "typical");
  EXPECT_EQ(PathOf(t, "middle"), "not taken");
}

TEST_F(CodeDecides, AStructuredDelegateIsFoldedIntoItsOp) {
  // grow_ delegates to grow.out: the profiler sees aten::grow_ only, the
  // delegate's impl runs inside grow_'s generated kernel.
  Trace t = TraceOf("aten::grow_");
  EXPECT_EQ(PathOf(t, "grow_"), "typical");
  EXPECT_EQ(PathOf(t, "grow.out"), "not taken");
}

TEST_F(CodeDecides, WhatFollowsAnIfElseReturningOnBothBranchesNeverRuns) {
  // Shrink.cpp:56-63: pick_a and pick_b are the open branches; :62's pick_c is dead code.
  Trace t = TraceOf("aten::settle");
  EXPECT_EQ(PathOf(t, "pick_a"), "open");
  EXPECT_EQ(PathOf(t, "pick_b"), "open");
  EXPECT_EQ(PathOf(t, "pick_c"), "not taken");
}

TEST_F(CodeDecides, ADelegateReachedOnlyByOpsDelegatingToItIsFolded) {
  // Shrink.cpp:48-54: regrow calls grow only for a sparse tensor and
  // grow_ otherwise; both delegate to grow.out, which is no op of its own
  // on the path whichever of them reached it.
  Trace t = TraceOf("aten::regrow");
  EXPECT_EQ(PathOf(t, "grow_"), "typical");
  EXPECT_EQ(PathOf(t, "grow"), "not taken");
  EXPECT_EQ(PathOf(t, "grow.out"), "not taken");
}

}  // namespace
}  // namespace optrace
