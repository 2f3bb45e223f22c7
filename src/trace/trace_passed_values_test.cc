// What a value passed down decides: a Python call the frame's values rule
// out passes the op nothing (nn.LSTM's packed `_VF.lstm(...)` under
// `batch_sizes is not None`), so the dense call's value reaches a stub's
// kernel and the helpers it hands it on to. (The stub hop of
// EdgeReader::HelperBindings is decided here by other bindings as well; the
// real-tree test MainPath260.AStubCallHandsItsKernelAndHelpersTheArguments-
// AfterTheDevice is the one that fails without it.) Line numbers are lines of
// the raw strings below.
#include <gtest/gtest.h>

#include <string>

#include "testing/memory_index.h"
#include "trace/trace.h"
#include "trace/trace_test_util.h"

namespace optrace {
namespace {

constexpr char kNativeFunctions[] = R"x(- func: stacked(Tensor self, float p, bool train) -> Tensor

- func: pick_a(Tensor self) -> Tensor
  dispatch:
    CUDA: pick_a_cuda

- func: pick_b(Tensor self) -> Tensor
  dispatch:
    CUDA: pick_b_cuda
)x";

// aten/src/ATen/native/Stacked.cpp
constexpr char kStackedCpp[] = R"x(namespace at::native {
DECLARE_DISPATCH(stacked_fn, stacked_stub);
DEFINE_DISPATCH(stacked_stub);
Tensor stacked(const Tensor& self, double dropout_p, bool train) {
  stacked_stub(self.device().type(), self, dropout_p, train);
  return self;
}
Tensor pick_a_cuda(const Tensor& self) { return self; }
Tensor pick_b_cuda(const Tensor& self) { return self; }
} // namespace at::native
)x";

// aten/src/ATen/native/cudnn/Stacked.cpp: the registered kernel, handing on
// to a named lambda, which calls the library helper.
constexpr char kStackedCudnnCpp[] = R"x(namespace at::native {
void stacked_cudnn(const Tensor& self, double rate, bool training) {
  const auto run = [](const Tensor& self, double rate, bool training) {
    stacked_looped(self, rate, training);
  };
  run(self, rate, training);
}
REGISTER_CUDA_DISPATCH(stacked_stub, &stacked_cudnn);
} // namespace at::native
)x";

// aten/src/ATen/native/cudnn/StackedLib.cpp
constexpr char kStackedLibCpp[] = R"x(namespace at::native {
void stacked_looped(const Tensor& self, double p, bool train_mode) {
  if (train_mode && p > 0) {
    at::pick_a(self);
  }
  at::pick_b(self);
}
} // namespace at::native
)x";

// torch/nn/functional.py: the packed call (:5) never runs for a dense input.
constexpr char kFunctionalPy[] = R"x(import torch
def stacked(input, batch_sizes=None, p=0.0, training=True):
    if batch_sizes is None:
        return torch.stacked(input, p, training)
    return torch.stacked(input, 0.5, training)
)x";

class PassedValues : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_NO_FATAL_FAILURE(
        BuildMemoryIndex(MemoryTree({{"version.txt", "2.6.0a0\n"},
                                     {"aten/src/ATen/native/native_functions.yaml", kNativeFunctions},
                                     {"aten/src/ATen/native/Stacked.cpp", kStackedCpp},
                                     {"aten/src/ATen/native/cudnn/Stacked.cpp", kStackedCudnnCpp},
                                     {"aten/src/ATen/native/cudnn/StackedLib.cpp", kStackedLibCpp},
                                     {"torch/nn/functional.py", kFunctionalPy},
                                     {"torch/nn/__init__.py", "from . import functional\nimport torch\n"},
                                     {"torch/__init__.py", "import torch.nn\n"}}),
                         &index_));
  }
  Index index_;
};

TEST_F(PassedValues, AStubsKernelAndItsHelperHoldWhatTheStubCallPasses) {
  // Stacked.cpp:5 passes dropout_p and train after the device; cudnn/Stacked.cpp:6
  // hands them to the lambda `run`, :4 on to cudnn/StackedLib.cpp's stacked_looped,
  // each under names of its own, whose `train_mode && p > 0` (:3) fails with
  // p=0.0 from functional.py:4 (its :5 call, under `batch_sizes is not None`,
  // passes 0.5 but never runs): pick_a is no part of the path, pick_b is.
  Trace t = TraceIndex(index_, "F.stacked", TraceOptions::Device::kCuda);
  EXPECT_EQ(PathOf(t, "pick_a"), "not taken");
  EXPECT_EQ(PathOf(t, "pick_b"), "typical");
}

}  // namespace
}  // namespace optrace
