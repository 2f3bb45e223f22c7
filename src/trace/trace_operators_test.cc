// C++ comparison operators on tensors, on a MemoryDisk tree written here:
// a local is a Tensor when `auto` holds what a helper returns and every
// definition of that helper returns a Tensor; and a number on the left of
// a tensor turns the comparison round, the way TensorOperators.h defines
// `operator<(const Scalar&, const Tensor&)` as `y > x`; and a parameter a
// lambda's parameter of another kind shadows (`Vec gamma` beside `const
// Tensor& gamma`) is not taken for a Tensor. Line numbers are
// lines of kBoundsCpp; the real-tree test's were read with sed.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "testing/memory_index.h"
#include "trace/trace.h"
#include "trace/trace_test_util.h"

namespace optrace {
namespace {

constexpr char kNativeFunctions[] = R"x(- func: bounds(Tensor self, float low) -> Tensor
  dispatch:
    CUDA: bounds_cuda

- func: gt.Scalar(Tensor self, Scalar other) -> Tensor
  dispatch:
    CUDA: gt_cuda

- func: lt.Scalar(Tensor self, Scalar other) -> Tensor
  dispatch:
    CUDA: lt_cuda

- func: ge.Scalar(Tensor self, Scalar other) -> Tensor
  dispatch:
    CUDA: ge_cuda

- func: le.Scalar(Tensor self, Scalar other) -> Tensor
  dispatch:
    CUDA: le_cuda

- func: scale_rows(Tensor self, Tensor gamma) -> Tensor
  dispatch:
    CUDA: scale_rows_cuda

- func: mul.Tensor(Tensor self, Tensor other) -> Tensor
  dispatch:
    CUDA: mul_cuda
)x";

constexpr char kBoundsCpp[] = R"x(namespace at::native {
Tensor norm_of(const Tensor& a) {
  return a;
}
int64_t count_of(const Tensor& a) {
  return a.numel();
}
Tensor bounds_cuda(const Tensor& self, double low) {
  const auto norm = norm_of(self);
  auto below = low < norm;
  auto within = norm <= low;
  auto n = count_of(self);
  auto many = n >= low;
  return below;
}
Tensor scale_rows_cuda(const Tensor& self, const Tensor& gamma) {
  vec::map([](Vec x, Vec gamma) { return x * gamma; }, self);
  return self;
}
} // namespace at::native
)x";

std::vector<std::string> CallsAt(const Trace& t, int line, const std::string& of = "bounds") {
  std::vector<std::string> out;
  for (const auto& op : t.ops)
    if (op.name == of)
      for (const auto& c : op.calls)
        if (c.where.line == line) out.push_back(c.op);
  return out;
}

std::shared_ptr<MemoryDisk> BoundsTree() {
  return MemoryTree({{"version.txt", "2.6.0a0\n"},
                     {"aten/src/ATen/native/native_functions.yaml", kNativeFunctions},
                     {"aten/src/ATen/native/cuda/Bounds.cu", kBoundsCpp}});
}

Trace TraceBounds(const std::string& query) {
  Index index;
  BuildMemoryIndex(BoundsTree(), &index);
  return TraceIndex(index, query, TraceOptions::Device::kCuda);
}

TEST(ComparisonOperators, AHelpersTensorResultIsComparedAndANumberOnTheLeftTurnsItRound) {
  Trace t = TraceBounds("aten::bounds");

  EXPECT_EQ(CallsAt(t, 10), std::vector<std::string>{"gt"}) << "low < norm is norm > low";
  EXPECT_EQ(CallsAt(t, 11), std::vector<std::string>{"le"}) << "a Tensor on the left keeps its operator";
  EXPECT_TRUE(CallsAt(t, 13).empty()) << "count_of returns a number: n >= low compares numbers";
}

TEST(ComparisonOperators, ALambdaParameterShadowingATensorParameterIsNoTensor) {
  Trace t = TraceBounds("aten::scale_rows");
  EXPECT_TRUE(CallsAt(t, 17, "scale_rows").empty()) << "x * gamma multiplies the lambda's Vec gamma";
  for (const auto& op : t.ops) EXPECT_NE(op.name, "mul.Tensor");
}

class Operators260 : public Tree260 {};

TEST_F(Operators260, LayerNormsCpuLambdaMultipliesNoTensors) {
  // cpu/layer_norm_kernel.cpp:30-31 `const Tensor& gamma, const Tensor& beta`; :66-67
  // `[scale, bias](Vec x, Vec gamma, Vec beta) { return (x + Vec(bias)) * Vec(scale) * gamma + beta; }`.
  Trace t = TraceTree("2.6.0", "aten::native_layer_norm", TraceOptions::Device::kCuda);
  for (const auto& op : t.ops) {
    EXPECT_NE(op.name, "mul.Tensor");
    for (const auto& c : op.other_device_calls)
      EXPECT_FALSE(c.where.file == "aten/src/ATen/native/cpu/layer_norm_kernel.cpp" && c.where.line == 67) << c.op;
  }
}

TEST_F(Operators260, MatrixExpComparesTheNormAHelperReturns) {
  // LinearAlgebra.cpp:2638 `const auto norm = operator_1_norm(a);` (Tensor operator_1_norm, :2219),
  // :2655 norm_cpu a ternary of norm.to(at::kCPU) and norm; :2671
  // `(norm_lower_bound < norm_cpu) * (norm_cpu <= norm_upper_bound)`, :2684 `norm_cpu >= thetas[...]`.
  Trace t = TraceTree("2.6.0", "aten::linalg_matrix_exp", TraceOptions::Device::kCuda);
  std::vector<std::string> at_2671, at_2684;
  for (const auto& op : t.ops)
    for (const auto& c : op.calls) {
      if (c.where.file != "aten/src/ATen/native/LinearAlgebra.cpp") continue;
      if (c.where.line == 2671) at_2671.push_back(c.op);
      if (c.where.line == 2684) at_2684.push_back(c.op);
    }
  std::sort(at_2671.begin(), at_2671.end());
  at_2671.erase(std::unique(at_2671.begin(), at_2671.end()), at_2671.end());
  EXPECT_EQ(at_2671, (std::vector<std::string>{"gt", "le", "mul"}));
  EXPECT_NE(std::find(at_2684.begin(), at_2684.end(), "ge"), at_2684.end());
}

TEST_F(Operators260, NllLossComparesSizesNotTensors) {
  // LossNLL.cpp:712 `if (target_.sym_sizes().slice(1) != input_.sym_sizes().slice(2))` compares
  // SymIntArrayRefs; target_ is `Tensor target_ = target;` (:701) though :736-737
  // `auto out =\n at::nll_loss2d_symint(input_, target_, ...)` names it after a comma.
  Trace t = TraceTree("2.6.0", "F.nll_loss", TraceOptions::Device::kCuda);
  bool nll = false;
  for (const auto& op : t.ops) {
    EXPECT_FALSE(op.name.starts_with("ne.")) << op.name;
    nll = nll || op.name == "nll_loss_forward";
    for (const auto& c : op.calls) EXPECT_FALSE(c.where.file.ends_with("LossNLL.cpp") && c.where.line == 712) << c.op;
  }
  EXPECT_TRUE(nll);
}

}  // namespace
}  // namespace optrace
