// Of a launch the assumptions leave open, the functions on its path that
// run whenever the op does (KernelStep::path_runs, trace/launch_conditions.cc):
// those the way to is taken, up to the first whose way is open.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "testing/memory_index.h"
#include "trace/trace.h"
#include "trace/trace_test_util.h"

namespace optrace {
namespace {

constexpr char kNativeFunctions[] = R"x(- func: scan(Tensor self, int dim) -> Tensor
  dispatch:
    CUDA: scan_cuda
)x";

// scan_cuda always calls launch_scan; launch_scan picks big_scan or
// small_scan by size (open); each launches its kernel, big_scan's only
// along the last dim (open too).
constexpr char kScanCu[] = R"x(namespace at::native {

__global__ void big_kernel(float* out) { out[0] = 0; }
__global__ void small_kernel(float* out) { out[0] = 1; }

void big_scan(const Tensor& out, int64_t dim) {
  if (dim == out.dim() - 1) {
    big_kernel<<<1, 1, 0, at::cuda::getCurrentCUDAStream()>>>(out.data_ptr<float>());
  }
}

void small_scan(const Tensor& out) {
  small_kernel<<<1, 1, 0, at::cuda::getCurrentCUDAStream()>>>(out.data_ptr<float>());
}

void launch_scan(const Tensor& out, int64_t dim) {
  if (out.numel() > 4096) {
    big_scan(out, dim);
  } else {
    small_scan(out);
  }
}

Tensor scan_cuda(const Tensor& self, int64_t dim) {
  Tensor out = at::empty_like(self);
  launch_scan(out, dim);
  return out;
}

} // namespace at::native
)x";

std::shared_ptr<MemoryDisk> Tree() {
  return MemoryTree({{"version.txt", "2.6.0a0\n"},
                     {"aten/src/ATen/native/native_functions.yaml", kNativeFunctions},
                     {"aten/src/ATen/native/cuda/Scan.cu", kScanCu},
                     {"torch/__init__.py", ""}});
}

TEST(PathRuns, TheFunctionsAboveAnOpenChoiceRunWheneverTheOpDoes) {
  Index index;
  ASSERT_NO_FATAL_FAILURE(BuildMemoryIndex(Tree(), &index));
  const Trace t = TraceIndex(index, "aten::scan", TraceOptions::Device::kCuda);
  const OpStep* scan = FindOp(t, "scan");
  ASSERT_NE(scan, nullptr);
  for (const char* name : {"big_kernel", "small_kernel"}) {
    const KernelStep* k = FindKernel(*scan, name);
    ASSERT_NE(k, nullptr) << name;
    EXPECT_TRUE(k->undecided) << name;
    ASSERT_GE(k->path.size(), 3u) << name;
    // scan_cuda and launch_scan run; big_scan or small_scan is the open choice.
    EXPECT_EQ(k->path_runs, 2u) << name;
    EXPECT_EQ(k->path[1], "launch_scan") << name;
  }
}

}  // namespace
}  // namespace optrace
