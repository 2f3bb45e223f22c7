// Ops on a tensor that needs no grad record no backward: dropout's noise,
// made by empty_like (an op torchgen generates no derivative for:
// tools/autograd/gen_variable_type.py's DONT_REQUIRE_DERIVATIVE) or by a
// helper returning new_empty's result, then filled in place by ops taking
// no other Tensor. The tree below is that shape: `jitter` draws a mask and
// multiplies the input by it.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "testing/memory_index.h"
#include "trace/fresh_tensors.h"
#include "trace/trace.h"
#include "trace/trace_test_util.h"

namespace optrace {
namespace {

// aten/src/ATen/native/native_functions.yaml
constexpr char kNativeFunctions[] = R"x(- func: jitter(Tensor input, float p, bool feature) -> Tensor

- func: empty_like(Tensor self) -> Tensor
  dispatch:
    CompositeExplicitAutograd: empty_like

- func: new_empty(Tensor self, SymInt[] size) -> Tensor
  variants: method
  dispatch:
    CompositeExplicitAutograd: new_empty

- func: bernoulli_.float(Tensor(a!) self, float p=0.5) -> Tensor(a!)
  variants: method
  dispatch:
    CUDA: bernoulli_cuda_

- func: bernoulli_.Tensor(Tensor(a!) self, Tensor p) -> Tensor(a!)
  variants: method
  dispatch:
    CUDA: bernoulli_tensor_cuda_

- func: scale_.Scalar(Tensor(a!) self, Scalar other) -> Tensor(a!)
  variants: method
  dispatch:
    CUDA: scale_cuda_

- func: scale_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)
  variants: method
  dispatch:
    CUDA: scale_tensor_cuda_

- func: times(Tensor self, Tensor other) -> Tensor
  variants: method
  dispatch:
    CUDA: times_cuda
)x";

// tools/autograd/derivatives.yaml
constexpr char kDerivatives[] = R"x(- name: bernoulli_.float(Tensor(a!) self, float p=0.5) -> Tensor(a!)
  self: zeros_like(grad)

- name: scale_.Scalar(Tensor(a!) self, Scalar other) -> Tensor(a!)
  self: grad * other

- name: scale_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)
  self: grad * other
  other: grad * self

- name: times(Tensor self, Tensor other) -> Tensor
  self: grad * other
  other: grad * self
)x";

// tools/autograd/gen_variable_type.py
constexpr char kGenVariableType[] = R"x(DONT_REQUIRE_DERIVATIVE = {
    # These only depend on the input Tensor's shape and device, not the data
    "empty_like",
    "new_empty",
}
)x";

// aten/src/ATen/native/Jitter.cpp
constexpr char kJitterCpp[] = R"x(namespace at::native {

Tensor make_mask(const Tensor& input) {
  return input.new_empty({input.size(0), 1});
}

Tensor jitter(const Tensor& input, double p, bool feature) {
  auto noise = feature ? make_mask(input) : at::empty_like(input);
  noise.bernoulli_(1 - p);
  noise.scale_(2.0);
  Tensor out = input.times(noise);
  out.scale_(noise);
  return out;
}

} // namespace at::native
)x";

class FreshTensors : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_NO_FATAL_FAILURE(
        BuildMemoryIndex(MemoryTree({{"version.txt", "2.6.0a0\n"},
                                     {"aten/src/ATen/native/native_functions.yaml", kNativeFunctions},
                                     {"tools/autograd/derivatives.yaml", kDerivatives},
                                     {"tools/autograd/gen_variable_type.py", kGenVariableType},
                                     {"aten/src/ATen/native/Jitter.cpp", kJitterCpp}}),
                         &index_));
  }
  Index index_;
};

TEST_F(FreshTensors, WhatMakesATensorThatNeedsNoGrad) {
  EXPECT_EQ(OpsWithoutDerivative(index_), (std::set<std::string>{"empty_like", "new_empty"}));
  EXPECT_TRUE(MakesNoGradTensor(index_, "at::empty_like(input)"));
  EXPECT_TRUE(MakesNoGradTensor(index_, "make_mask(input)"));  // Jitter.cpp:4: new_empty's result
  EXPECT_TRUE(MakesNoGradTensor(index_, "feature ? make_mask(input) : at::empty_like(input)"));
  EXPECT_TRUE(MakesNoGradTensor(index_, "input.new_empty({2})"));  // whatever its receiver
  // An op one of whose overloads takes another Tensor (scale_.Tensor): not read here.
  EXPECT_FALSE(MakesNoGradTensor(index_, "at::empty_like(input).scale_(2)"));
  EXPECT_FALSE(MakesNoGradTensor(index_, "input.times(noise)"));
  EXPECT_FALSE(MakesNoGradTensor(index_, "feature ? input : at::empty_like(input)"));
}

TEST_F(FreshTensors, OpsOnANoGradLocalRecordNoBackward) {
  // Jitter.cpp:9-10: bernoulli_ and scale_(2.0) on the noise; :11 times on the
  // input; :12 scale_(noise) on `out`, which needs grad.
  Trace t = TraceIndex(index_, "aten::jitter", TraceOptions::Device::kCuda);
  const BackwardStep* bernoulli = FindBackward(t, "bernoulli_.float");
  ASSERT_NE(bernoulli, nullptr);
  EXPECT_TRUE(bernoulli->below_autograd);
  const BackwardStep* scale = FindBackward(t, "scale_.Scalar");
  ASSERT_NE(scale, nullptr);
  EXPECT_TRUE(scale->below_autograd);
  const BackwardStep* times = FindBackward(t, "times");
  ASSERT_NE(times, nullptr);
  EXPECT_FALSE(times->below_autograd);
  const BackwardStep* scale_tensor = FindBackward(t, "scale_.Tensor");
  ASSERT_NE(scale_tensor, nullptr);
  EXPECT_FALSE(scale_tensor->below_autograd) << "out.scale_(noise) is made on out, which needs grad";
}

}  // namespace
}  // namespace optrace
