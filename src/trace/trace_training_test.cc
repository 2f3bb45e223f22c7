// A C++ parameter named `train` holds what its caller passes, not the
// module mode the assumptions name: F.noisy's default `training=False`
// reaches it as false (F.alpha_dropout's shape), a module passing
// `self.training` passes the assumed mode (nn.Dropout's), and a local the
// caller assigns on several lines holds what the branches the caller's
// values take assign (else it is open: never the callee's default) -- the
// literal itself, and a tuple target writes it too. Line numbers are lines
// of the raw strings below.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "testing/memory_index.h"
#include "trace/trace.h"
#include "trace/trace_test_util.h"

namespace optrace {
namespace {

// aten/src/ATen/native/native_functions.yaml
constexpr char kNativeFunctions[] = R"x(- func: noisy(Tensor self, float p, bool train) -> Tensor

- func: bern(Tensor self) -> Tensor
  dispatch:
    CUDA: bern_cuda

- func: scaled(Tensor self, int mode=0) -> Tensor

- func: pick_a(Tensor self) -> Tensor
  dispatch:
    CUDA: pick_a_cuda

- func: gated(Tensor self, float p) -> Tensor

- func: pick_b(Tensor self) -> Tensor
  dispatch:
    CUDA: pick_b_cuda
)x";

// aten/src/ATen/native/Noisy.cpp
constexpr char kNoisyCpp[] = R"x(namespace at::native {
Tensor noisy(const Tensor& self, double p, bool train) {
  if (!train) {
    return self;
  }
  return at::bern(self);
}
Tensor scaled(const Tensor& self, int64_t mode) {
  if (mode == 1) {
    return at::pick_a(self);
  }
  return at::pick_b(self);
}
Tensor bern_cuda(const Tensor& self) { return self; }
Tensor pick_a_cuda(const Tensor& self) { return self; }
Tensor pick_b_cuda(const Tensor& self) { return self; }
Tensor gated(const Tensor& self, double p) {
  if (p > 0) {
    return at::pick_a(self);
  }
  return at::pick_b(self);
}
}
)x";

// torch/nn/functional.py
constexpr char kFunctionalPy[] = R"x(import torch
def noisy(input, p=0.5, training=False):
    return torch.noisy(input, p, training)
def noisy_train(input, p=0.5, training=True):
    return torch.noisy(input, p, training)
def scaled(input, legacy=None):
    if legacy is not None:
        mode = 1
    else:
        mode = 2
    return torch.scaled(input, mode)
def scaled_by(input, flag):
    if flag:
        mode = 1
    else:
        mode = 2
    return torch.scaled(input, mode)
def packed(input):
    batch_sizes = None
    if isinstance(input, PackedSequence):
        input, batch_sizes = input
    if batch_sizes is None:
        return torch.pick_a(input)
    return torch.pick_b(input)
def unpacked_by(input, seqs):
    batch_sizes = None
    if seqs:
        input, batch_sizes = seqs
    if batch_sizes is None:
        return torch.pick_a(input)
    return torch.pick_b(input)
def _canonical(mask, name):
    if mask is not None:
        mask = mask.float()
    return mask
def masked(input, mask=None, other=None):
    other = _canonical(input, "other")
    mask = _canonical(mask=mask, name="mask")
    if mask is not None:
        return torch.pick_a(input)
    return torch.pick_b(input)
)x";

// torch/nn/__init__.py
constexpr char kNnInitPy[] = R"x(from . import functional
import torch


class Module:
    def __init__(self):
        pass


class Noisy(Module):
    def __init__(self, p=0.5):
        super().__init__()
        self.p = p

    def forward(self, input):
        return functional.noisy(input, self.p, self.training)


class Gated(Module):
    def __init__(self, p=0):
        super().__init__()
        self.p = float(p)

    def forward(self, input):
        return torch.gated(input, self.p)
)x";

class TrainingTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_NO_FATAL_FAILURE(
        BuildMemoryIndex(MemoryTree({{"version.txt", "2.6.0a0\n"},
                                     {"aten/src/ATen/native/native_functions.yaml", kNativeFunctions},
                                     {"aten/src/ATen/native/Noisy.cpp", kNoisyCpp},
                                     {"torch/nn/functional.py", kFunctionalPy},
                                     {"torch/nn/__init__.py", kNnInitPy},
                                     {"torch/__init__.py", "import torch.nn\n"}}),
                         &index_));
  }
  // The forward op `name`'s place on the typical path of `query` (PathOf).
  std::string PathIn(const std::string& query, const std::string& name, std::vector<std::string> assume = {}) {
    return PathOf(TraceIndex(index_, query, TraceOptions::Device::kCuda, std::move(assume)), name);
  }
  Index index_;
};

TEST_F(TrainingTest, AFunctionalsTrainingDefaultReachesTheCppParameter) {
  // Noisy.cpp:3 `if (!train) return self;` with training=False (functional.py:2): no bern.
  EXPECT_EQ(PathIn("F.noisy", "bern"), "not taken");
  EXPECT_EQ(PathIn("F.noisy_train", "bern"), "typical");
}

TEST_F(TrainingTest, AModulePassesItsMode) {
  // __init__.py:16 passes self.training: the assumed mode, training unless told eval.
  EXPECT_EQ(PathIn("nn.Noisy", "bern"), "typical");
  EXPECT_EQ(PathIn("nn.Noisy", "bern", {"eval"}), "not taken");
}

TEST_F(TrainingTest, ALocalAssignedOnSeveralLinesHoldsWhatItsBranchesDecide) {
  // functional.py:7/9 assign mode 1 under `legacy is not None`, else 2: legacy left None takes 2.
  EXPECT_EQ(PathIn("F.scaled", "pick_b"), "typical");
  EXPECT_EQ(PathIn("F.scaled", "pick_a"), "not taken");
  // :12/14 under `flag`, which has no default: mode is open, and scaled's schema default 0 does not stand.
  EXPECT_EQ(PathIn("F.scaled_by", "pick_b"), "open");
  EXPECT_EQ(PathIn("F.scaled_by", "pick_a"), "open");
}

TEST_F(TrainingTest, ALocalHoldsTheLiteralItsWriteGivesNotItsTruth) {
  // functional.py:17 `batch_sizes = None`; the tuple write at :19 is under
  // `isinstance(input, PackedSequence)`, false of a dense tensor: batch_sizes
  // is None (not merely false), so `batch_sizes is None` (:20) holds.
  EXPECT_EQ(PathIn("F.packed", "pick_a"), "typical");
  EXPECT_EQ(PathIn("F.packed", "pick_b"), "not taken");
}

TEST_F(TrainingTest, ATupleTargetIsAWriteOfTheLocal) {
  // :26 `input, batch_sizes = seqs` under `if seqs:` (open): batch_sizes may
  // hold an element of seqs, so `batch_sizes is None` (:27) is open.
  EXPECT_EQ(PathIn("F.unpacked_by", "pick_a"), "open");
  EXPECT_EQ(PathIn("F.unpacked_by", "pick_b"), "open");
}

TEST_F(TrainingTest, AnAttributeConvertedByABuiltinHoldsTheConvertedLiteral) {
  // __init__.py:22 `self.p = float(p)` with p=0: 0.0, so Noisy.cpp:18 `p > 0` fails.
  EXPECT_EQ(PathIn("nn.Gated", "pick_b"), "typical");
  EXPECT_EQ(PathIn("nn.Gated", "pick_a"), "not taken");
}

TEST_F(TrainingTest, ACallsValueIsWhatItsFunctionReturnsForWhatItPasses) {
  // functional.py:36 `mask = _canonical(mask=mask, ...)`: _canonical (:30-33)
  // returns the mask it is passed, rebound only `if mask is not None`; mask
  // defaults to None, so `if mask is not None` (:37) does not hold -- whatever
  // the other call (:35, a tensor) passes it.
  EXPECT_EQ(PathIn("F.masked", "pick_b"), "typical");
  EXPECT_EQ(PathIn("F.masked", "pick_a"), "not taken");
}

}  // namespace
}  // namespace optrace
