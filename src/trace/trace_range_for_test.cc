// A range-for's `auto` element of a list of tensors is a Tensor
// (trace/cpp_operands.cc): its member calls are ops. On a small MemoryDisk
// tree written here, and on the real 2.6.0 tree. Line numbers are lines of
// the raw strings below (each starts at line 1 of its file).
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "testing/memory_index.h"
#include "trace/trace.h"
#include "trace/trace_test_util.h"

namespace optrace {
namespace {

// aten/src/ATen/native/native_functions.yaml
constexpr char kNativeFunctions[] = R"x(- func: nonzero(Tensor self) -> Tensor
  variants: method, function
  dispatch:
    CUDA: nonzero_cuda

- func: spread(Tensor self, Tensor?[] indices) -> Tensor
  dispatch:
    CUDA: spread_cuda

- func: count(Tensor self, int[] sizes) -> Tensor
  dispatch:
    CUDA: count_cuda
)x";

// aten/src/ATen/native/Spread.cpp
constexpr char kSpreadCpp[] = R"x(namespace at::native {
Tensor spread_cuda(const Tensor& self, const c10::List<std::optional<Tensor>>& indices) {
  std::vector<Tensor> result;
  for (const auto& index_opt : indices) {
    const auto& index = *index_opt;
    auto nonzero = index.nonzero();
    result.emplace_back(nonzero);
  }
  return self;
}

Tensor count_cuda(const Tensor& self, IntArrayRef sizes) {
  for (const auto& size : sizes) {
    size.nonzero();
  }
  return self;
}
} // namespace at::native
)x";

TEST(RangeFor, AnElementOfAListOfTensorsIsATensor) {
  Index index;
  ASSERT_NO_FATAL_FAILURE(BuildMemoryIndex(MemoryTree({{"version.txt", "2.6.0a0\n"},
                                                       {"aten/src/ATen/native/native_functions.yaml", kNativeFunctions},
                                                       {"aten/src/ATen/native/Spread.cpp", kSpreadCpp}}),
                                           &index));
  // Spread.cpp:4-7: `index` is `*index_opt`, an element of a list of
  // optional tensors, so `index.nonzero()` is the op.
  EXPECT_NE(FindOp(TraceIndex(index, "aten::spread", TraceOptions::Device::kCuda), "nonzero"), nullptr);
  // :13-14: an element of an IntArrayRef is no Tensor.
  EXPECT_EQ(FindOp(TraceIndex(index, "aten::count", TraceOptions::Device::kCuda), "nonzero"), nullptr);
}

class RangeFor260 : public Tree260 {};

TEST_F(RangeFor260, AMaskIndexRunsNonzero) {
  // IndexingUtils.h:22-41 expandTensors: `for (const auto& index_opt :
  // indices)`, `const auto& index = *index_opt;`, :41 `index.nonzero()` for
  // a byte or bool mask -- masked_select's index_out (cuda/IndexKernel.cpp:43).
  const Trace t = TraceTree("2.6.0", "torch.masked_select", TraceOptions::Device::kCuda);
  const OpStep* nonzero = FindOp(t, "nonzero");
  ASSERT_NE(nonzero, nullptr);
  EXPECT_EQ(nonzero->reached_from, "index.Tensor_out");
  bool mask_condition = false;
  for (const auto& c : nonzero->when)
    mask_condition = mask_condition || c.text == "index.scalar_type() == kByte || index.scalar_type() == kBool";
  EXPECT_TRUE(mask_condition);
}

}  // namespace
}  // namespace optrace
