// A plain call in at::native (`all(masked, dim, true)`, attention.cpp's
// _safe_softmax) is C++ name lookup's: the native helpers of that name
// visible from the caller, and the op's at:: function that argument-dependent
// lookup adds for a Tensor argument. A helper whose parameter the argument
// cannot become (an int64_t dim is never a Dimname: a named-tensor overload
// `Tensor all(const Tensor&, Dimname, bool)` in ReduceOps.cpp) is no
// candidate; with none left, the call is the op's.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "testing/memory_index.h"
#include "trace/trace.h"
#include "trace/trace_test_util.h"

namespace optrace {
namespace {

// aten/src/ATen/native/native_functions.yaml
constexpr char kNativeFunctions[] = R"x(- func: guarded(Tensor self, int dim) -> Tensor
  dispatch:
    CompositeImplicitAutograd: guarded

- func: every.dim(Tensor self, int dim, bool keepdim=False) -> Tensor
  dispatch:
    CUDA: every_cuda

- func: every.dimname(Tensor self, Dimname dim, bool keepdim=False) -> Tensor
  dispatch:
    CompositeExplicitAutograd: every
)x";

// aten/src/ATen/native/Guarded.cpp
constexpr char kGuardedCpp[] = R"x(namespace at::native {

Tensor guarded(const Tensor& self, int64_t dim) {
  const auto rows = every(self, dim, true);
  return rows;
}

} // namespace at::native
)x";

// aten/src/ATen/native/Every.cpp
constexpr char kEveryCpp[] = R"x(namespace at::native {

Tensor every(const Tensor& self, Dimname dim, bool keepdim) {
  reportNYIDimnameOverload("every");
}

} // namespace at::native
)x";

// aten/src/ATen/native/cuda/Every.cu
constexpr char kEveryCu[] = R"x(namespace at::native {

Tensor every_cuda(const Tensor& self, int64_t dim, bool keepdim) {
  return self;
}

} // namespace at::native
)x";

std::shared_ptr<MemoryDisk> NameLookupTree() {
  return MemoryTree({{"version.txt", "2.6.0a0\n"},
                     {"aten/src/ATen/native/native_functions.yaml", kNativeFunctions},
                     {"aten/src/ATen/native/Guarded.cpp", kGuardedCpp},
                     {"aten/src/ATen/native/Every.cpp", kEveryCpp},
                     {"aten/src/ATen/native/cuda/Every.cu", kEveryCu}});
}

TEST(NameLookup, AHelperTheArgumentsCannotBecomeIsNoCandidateTheOpIs) {
  Index index;
  ASSERT_NO_FATAL_FAILURE(BuildMemoryIndex(NameLookupTree(), &index));
  Trace t = TraceIndex(index, "aten::guarded", TraceOptions::Device::kCuda);
  const OpStep* every = FindOp(t, "every.dim");
  ASSERT_NE(every, nullptr) << "Guarded.cpp:4 every(self, dim, true) with int64_t dim is at::every, op every.dim";
  EXPECT_TRUE(every->typical);
  EXPECT_EQ(every->reached_from, "guarded");
}

TEST_F(Tree260, ASafeSoftmaxCallsTheAllOpNotTheDimnameHelper) {
  // transformers/attention.cpp:662 `all(masked, dim, true)` with `int64_t dim` (:658):
  // ReduceOps.cpp:2173's `all(const Tensor&, Dimname, bool)` cannot take it; at::all, op all.dim.
  Trace t = TraceTree("2.6.0", "aten::_safe_softmax", TraceOptions::Device::kCuda);
  const OpStep* all = FindOp(t, "all.dim");
  ASSERT_NE(all, nullptr);
  EXPECT_EQ(all->reached_from, "_safe_softmax");
  EXPECT_TRUE(all->typical);
}

}  // namespace
}  // namespace optrace
