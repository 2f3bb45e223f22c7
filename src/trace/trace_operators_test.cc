// C++ comparison operators on tensors, on a MemoryDisk tree written here:
// a local is a Tensor when `auto` holds what a helper returns and every
// definition of that helper returns a Tensor; and a number on the left of
// a tensor turns the comparison round, the way TensorOperators.h defines
// `operator<(const Scalar&, const Tensor&)` as `y > x`. Line numbers are
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
} // namespace at::native
)x";

std::vector<std::string> CallsAt(const Trace& t, int line) {
  std::vector<std::string> out;
  for (const auto& op : t.ops)
    if (op.name == "bounds")
      for (const auto& c : op.calls)
        if (c.where.line == line) out.push_back(c.op);
  return out;
}

TEST(ComparisonOperators, AHelpersTensorResultIsComparedAndANumberOnTheLeftTurnsItRound) {
  auto disk = std::make_shared<MemoryDisk>();
  disk->Add("version.txt", "2.6.0a0\n");
  disk->Add("aten/src/ATen/native/native_functions.yaml", kNativeFunctions);
  disk->Add("aten/src/ATen/native/cuda/Bounds.cu", kBoundsCpp);
  Index index;
  ASSERT_NO_FATAL_FAILURE(BuildMemoryIndex(disk, &index));
  TraceOptions options;
  options.device = TraceOptions::Device::kCuda;
  options.snippets = false;
  Trace t;
  ASSERT_TRUE(TraceQuery(index, "aten::bounds", options, &t).ok());

  EXPECT_EQ(CallsAt(t, 10), std::vector<std::string>{"gt"}) << "low < norm is norm > low";
  EXPECT_EQ(CallsAt(t, 11), std::vector<std::string>{"le"}) << "a Tensor on the left keeps its operator";
  EXPECT_TRUE(CallsAt(t, 13).empty()) << "count_of returns a number: n >= low compares numbers";
}

class Operators260 : public Tree260 {};

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

}  // namespace
}  // namespace optrace
