// In a CPU kernel file (aten/src/ATen/native/cpu/) values are Vectorized or
// scalars: a plain call by an op's name there is the op only when an
// argument is known to be a Tensor, and an operator on a method's result
// is no op. The tree below is one CPU kernel doing both.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "testing/memory_index.h"
#include "trace/trace.h"
#include "trace/trace_test_util.h"

namespace optrace {
namespace {

// aten/src/ATen/native/native_functions.yaml
constexpr char kNativeFunctions[] = R"x(- func: vmax(Tensor self) -> Tensor
  dispatch:
    CPU: vmax_cpu

- func: maximum(Tensor self, Tensor other) -> Tensor
  variants: function, method
  dispatch:
    CPU: maximum_cpu

- func: aminmax(Tensor self, int dim) -> (Tensor min, Tensor max)
  variants: function, method
  dispatch:
    CPU: aminmax_cpu

- func: mul.Tensor(Tensor self, Tensor other) -> Tensor
  variants: function, method
  dispatch:
    CPU: mul_cpu

- func: log(Tensor self) -> Tensor
  variants: function, method
  dispatch:
    CPU: log_cpu
)x";

// aten/src/ATen/native/cpu/VmaxKernel.cpp
constexpr char kVmaxKernel[] = R"x(namespace at::native {

Tensor vmax_cpu(const Tensor& input) {
  auto [lo, hi] = aminmax(input, 0);
  cpu_kernel_vec(iter,
    [](scalar_t a, scalar_t b) -> scalar_t { return a; },
    [](Vectorized<scalar_t> a, Vectorized<scalar_t> b) {
      Vectorized<scalar_t> m = maximum(a, b);
      return m * (a - b).log();
    });
  return input;
}

} // namespace at::native
)x";

// aten/src/ATen/native/Others.cpp: the ops' own kernels.
constexpr char kOthers[] = R"x(namespace at::native {
Tensor maximum_cpu(const Tensor& self, const Tensor& other) { return self; }
std::tuple<Tensor, Tensor> aminmax_cpu(const Tensor& self, int64_t dim) { return {self, self}; }
Tensor mul_cpu(const Tensor& self, const Tensor& other) { return self; }
Tensor log_cpu(const Tensor& self) { return self; }
} // namespace at::native
)x";

TEST(CpuKernelValues, AnOpByNameNeedsATensorArgumentAndVectorizedMathIsNoOp) {
  Index index;
  ASSERT_NO_FATAL_FAILURE(BuildMemoryIndex(MemoryTree({{"version.txt", "2.6.0a0\n"},
                                                       {"aten/src/ATen/native/native_functions.yaml", kNativeFunctions},
                                                       {"aten/src/ATen/native/cpu/VmaxKernel.cpp", kVmaxKernel},
                                                       {"aten/src/ATen/native/Others.cpp", kOthers}}),
                                           &index));
  Trace t = TraceIndex(index, "aten::vmax", TraceOptions::Device::kCpu);
  // VmaxKernel.cpp:4 `aminmax(input, 0)` on the Tensor parameter: the op.
  EXPECT_NE(FindOp(t, "aminmax"), nullptr);
  // :8 `maximum(a, b)` of two Vectorized values: at::vec::maximum.
  EXPECT_EQ(FindOp(t, "maximum"), nullptr);
  // :9 `m * (a - b).log()`: Vectorized arithmetic, no mul.
  EXPECT_EQ(FindOp(t, "mul.Tensor"), nullptr);
}

}  // namespace
}  // namespace optrace
