// What a selection's alternatives list ("select_backend decides in attend:
// when backend == Backend::fast: ..."), on a small MemoryDisk tree written
// here: only calls some choice of the decider runs for this device, and no
// "selection" where a condition compares two values. Line numbers are lines
// of the raw strings below (each starts at line 1 of its file).
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "testing/memory_index.h"
#include "trace/trace.h"
#include "trace/trace_test_util.h"

namespace optrace {
namespace {

// aten/src/ATen/native/native_functions.yaml
constexpr char kNativeFunctions[] = R"x(- func: attend(Tensor self) -> Tensor

- func: swap_dims(Tensor self, int dim0, int dim1) -> Tensor
)x";

// aten/src/ATen/native/Attend.cpp
constexpr char kAttendCpp[] = R"x(namespace at::native {

Backend select_backend(const Tensor& self) {
  if (self.is_cuda()) {
    return Backend::fast;
  }
  return Backend::slow;
}

Tensor fast_cuda_path(const Tensor& self) { return self; }
Tensor fast_cpu_path(const Tensor& self) { return self; }
Tensor slow_path(const Tensor& self) { return self; }

Tensor attend(const Tensor& self) {
  auto backend = select_backend(self);
  switch (backend) {
    case Backend::fast: {
      if (self.is_cuda()) {
        return fast_cuda_path(self);
      }
      return fast_cpu_path(self);
    }
    case Backend::slow:
      return slow_path(self);
  }
}

int64_t wrap(int64_t dim) { return dim; }
Tensor reorder(const Tensor& self) { return self; }

Tensor swap_dims(const Tensor& self, int64_t dim0, int64_t dim1) {
  dim0 = wrap(dim0);
  dim1 = wrap(dim1);
  if (dim0 == dim1) {
    return self;
  }
  return reorder(self);
}

} // namespace at::native
)x";

std::shared_ptr<MemoryDisk> SelectionTree() {
  return MemoryTree({{"version.txt", "2.6.0a0\n"},
                     {"aten/src/ATen/native/native_functions.yaml", kNativeFunctions},
                     {"aten/src/ATen/native/Attend.cpp", kAttendCpp}});
}

class Selections : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_NO_FATAL_FAILURE(BuildMemoryIndex(SelectionTree(), &index_)); }

  // The callees listed as alternatives of `function`'s selection, "" when none.
  static std::vector<std::string> Alternatives(const Trace& t, const std::string& function) {
    std::vector<std::string> out;
    for (const auto& s : t.selections)
      if (s.function == function)
        for (const auto& a : s.alternatives) out.push_back(a.op);
    return out;
  }

  Index index_;
};

TEST_F(Selections, ACallTheTracedDeviceNeverReachesIsNoAlternative) {
  // Attend.cpp:20 fast_cpu_path runs for Backend::fast only off CUDA (:17-19 return first).
  Trace t = TraceIndex(index_, "aten::attend", TraceOptions::Device::kCuda, {});
  EXPECT_EQ(Alternatives(t, "select_backend"), (std::vector<std::string>{"fast_cuda_path", "slow_path"}));
  Trace cpu = TraceIndex(index_, "aten::attend", TraceOptions::Device::kCpu, {"device=cpu"});
  EXPECT_EQ(Alternatives(cpu, "select_backend"), (std::vector<std::string>{"fast_cpu_path", "slow_path"}));
}

TEST_F(Selections, AComparisonOfTwoValuesSelectsNothing) {
  // Attend.cpp:31 `if (dim0 == dim1)`: both sides come from wrap(); neither is a choice among constants.
  Trace t = TraceIndex(index_, "aten::swap_dims", TraceOptions::Device::kCuda, {});
  ASSERT_FALSE(t.ops.empty());
  EXPECT_TRUE(Alternatives(t, "wrap").empty());
  EXPECT_TRUE(t.selections.empty());
}

}  // namespace
}  // namespace optrace
