// A derivatives.yaml formula's call binds to the overloads its arguments
// as written admit, the way C++ resolves it: `at::choose(self == other,
// grad / 2, grad)` passes three Tensors (a comparison and arithmetic on a
// Tensor are Tensors, TensorOperators.h), so it is choose.self -- never
// choose.ScalarSelf, whose code calls an op of its own -- and
// `at::choose(self < other, grad, 0)` passes a number last: choose.ScalarOther.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "testing/memory_index.h"
#include "trace/trace.h"
#include "trace/trace_test_util.h"

namespace optrace {
namespace {

// aten/src/ATen/native/native_functions.yaml
constexpr char kNativeFunctions[] = R"x(- func: clip_to(Tensor self, Tensor other) -> Tensor
  dispatch:
    CUDA: clip_to_cuda

- func: choose.self(Tensor condition, Tensor self, Tensor other) -> Tensor
  dispatch:
    CUDA: choose_cuda

- func: choose.ScalarSelf(Tensor condition, Scalar self, Tensor other) -> Tensor
  dispatch:
    CompositeExplicitAutograd: choose_scalar_self

- func: choose.ScalarOther(Tensor condition, Tensor self, Scalar other) -> Tensor
  dispatch:
    CompositeExplicitAutograd: choose_scalar_other

- func: choose.Scalar(Tensor condition, Scalar self, Scalar other) -> Tensor
  dispatch:
    CompositeExplicitAutograd: choose_scalar

- func: widen(Tensor self) -> Tensor
  dispatch:
    CUDA: widen_cuda
)x";

// tools/autograd/derivatives.yaml
constexpr char kDerivatives[] = R"x(- name: clip_to(Tensor self, Tensor other) -> Tensor
  self: at::choose(self == other, grad / 2, grad)
  other: at::choose(self < other, grad, 0)
)x";

// aten/src/ATen/native/Choose.cpp
constexpr char kChooseCpp[] = R"x(namespace at::native {

Tensor clip_to_cuda(const Tensor& self, const Tensor& other) { return self; }
Tensor choose_cuda(const Tensor& condition, const Tensor& self, const Tensor& other) { return self; }

Tensor choose_scalar_self(const Tensor& condition, const Scalar& self, const Tensor& other) {
  return at::widen(other);
}

Tensor choose_scalar_other(const Tensor& condition, const Tensor& self, const Scalar& other) {
  return self;
}

Tensor choose_scalar(const Tensor& condition, const Scalar& self, const Scalar& other) { return condition; }

Tensor widen_cuda(const Tensor& self) { return self; }

} // namespace at::native
)x";

class FormulaOverloads : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_NO_FATAL_FAILURE(
        BuildMemoryIndex(MemoryTree({{"version.txt", "2.6.0a0\n"},
                                     {"aten/src/ATen/native/native_functions.yaml", kNativeFunctions},
                                     {"tools/autograd/derivatives.yaml", kDerivatives},
                                     {"aten/src/ATen/native/Choose.cpp", kChooseCpp}}),
                         &index_));
    t_ = TraceIndex(index_, "aten::clip_to", TraceOptions::Device::kCuda);
  }
  Index index_;
  Trace t_;
};

TEST_F(FormulaOverloads, TensorOperatorsMakeTensorArguments) {
  EXPECT_NE(FindOp(t_, "choose.self", OpRole::kBackward), nullptr);
  EXPECT_EQ(FindOp(t_, "choose.ScalarSelf", OpRole::kBackward), nullptr);
  // Choose.cpp:7: only choose.ScalarSelf calls widen.
  EXPECT_EQ(FindOp(t_, "widen", OpRole::kBackward), nullptr);
}

TEST_F(FormulaOverloads, ANumberArgumentTakesTheScalarOverload) {
  EXPECT_NE(FindOp(t_, "choose.ScalarOther", OpRole::kBackward), nullptr);
  // `grad` passed second is a Tensor: never the two-Scalar overload.
  EXPECT_EQ(FindOp(t_, "choose.Scalar", OpRole::kBackward), nullptr);
}

}  // namespace
}  // namespace optrace
