// Kernels launched through a function the caller hands over: a macro whose
// body calls one of its parameters (#define RUN(LAUNCH) LAUNCH<T>(...), used
// as RUN(multi::launch)), each use calling what it passes; and kernels of
// one name in two namespaces, each launch running the one C++ lookup finds
// from it; and a launcher object handed to a template function that calls
// its member (run_launcher<T>(..., KthValueLauncher(k)) calling
// l.template launch<...>(...)): that class's member runs; and a kernel
// assigned to the function pointer the body launches; and a member called
// on an object made in the same expression (KronImpl(self, other).kron());
// and a library entry point a variadic macro is handed (CUB_WRAPPER(func, ...)).
// Hermetic: a tiny
// tree written here; trace_recall_test.cc pins the same mechanisms on the
// real tree (TensorTopK.cu's RUN_K, Sorting.cu's launchers).
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>

#include "testing/memory_index.h"
#include "trace/trace.h"

namespace optrace {
namespace {

// aten/src/ATen/native/native_functions.yaml
constexpr char kNativeFunctions[] = R"x(- func: pick(Tensor self) -> Tensor
  dispatch:
    CUDA: pick_cuda

- func: choose(Tensor self) -> Tensor
  dispatch:
    CUDA: choose_cuda

- func: other(Tensor self) -> Tensor
  dispatch:
    CUDA: other_cuda

- func: dist(Tensor self, int? mode=None) -> Tensor
  dispatch:
    CompositeExplicitAutograd: dist

- func: _dist(Tensor self, int? mode=None) -> Tensor
  dispatch:
    CUDA: _dist_cuda

- func: wrap(Tensor self) -> Tensor
  dispatch:
    CompositeImplicitAutograd: wrap

- func: segments(Tensor self) -> Tensor
  dispatch:
    CUDA: segments_cuda

- func: nan_sum(Tensor self) -> Tensor
  dispatch:
    CUDA: nan_sum_cuda

- func: apply2(Tensor self) -> Tensor
  dispatch:
    CUDA: apply2_cuda
)x";

// aten/src/ATen/native/cuda/NanSum.cu: one functor launched by two
// functors of their own, the complex one met first (ReduceSumProdKernel.cu's
// NanSumOps, by nansum_functor_complex and nansum_functor).
constexpr char kNanSumCu[] = R"x(namespace at::native {
template <typename scalar_t>
struct complex_functor {
  void operator()(TensorIterator& iter) {
    gpu_reduce_kernel<scalar_t, scalar_t>(iter, SumOps<scalar_t, scalar_t>{});
  }
};
template <typename scalar_t>
struct real_functor {
  void operator()(TensorIterator& iter) {
    gpu_reduce_kernel<scalar_t, scalar_t>(iter, SumOps<scalar_t, scalar_t>{});
  }
};
Tensor nan_sum_cuda(const Tensor& self) {
  if (self.is_complex()) {
    complex_functor<float>{}(iter);
  } else {
    real_functor<float>{}(iter);
  }
  return self;
}
} // namespace at::native
)x";

// aten/src/ATen/native/cuda/Apply.cu: a launching #define used directly in
// one branch and through another #define in the other (CUDAApplyUtils.cuh's
// HANDLE_CASE and HANDLE_A_CASE).
constexpr char kApplyCu[] = R"x(#define HANDLE_CASE(A) \
  apply_kernel<A><<<1, 1>>>(a);
#define HANDLE_A_CASE(A) { \
  HANDLE_CASE(A);          \
}
namespace at::native {
template <int A>
__global__ void apply_kernel(int a) {}
Tensor apply2_cuda(const Tensor& self) {
  if (!self.is_complex()) {
    HANDLE_A_CASE(1);
  } else {
    HANDLE_CASE(2);
  }
  return self;
}
} // namespace at::native
)x";

// aten/src/ATen/native/cuda/Segments.cu: a library entry point handed to a
// variadic macro (SegmentReduce.cu's CUB_WRAPPER), its use over ten lines.
constexpr char kSegmentsCu[] = R"x(#define LIB_WRAPPER(func, ...) \
  do {                          \
    func(nullptr, __VA_ARGS__); \
  } while (false)
namespace at::native {
Tensor segments_cuda(const Tensor& self) {
  LIB_WRAPPER(
      cub::DeviceSegmentedReduce::Reduce,
      in,
      out,
      count,
      begin,
      end,
      op,
      init);
  return self;
}
} // namespace at::native
)x";

// aten/src/ATen/native/Wrap.cpp
constexpr char kWrapCpp[] = R"x(namespace at::native {
namespace {
struct WrapImpl final {
  explicit WrapImpl(const Tensor& self) : self_(self) {}
  Tensor wrap() const {
    return at::pick(self_);
  }
 private:
  Tensor self_;
};
} // namespace

Tensor wrap(const Tensor& self) {
  return WrapImpl(self).wrap();
}
} // namespace at::native
)x";

// aten/src/ATen/native/Dist.cpp
constexpr char kDistCpp[] = R"x(namespace at::native {
Tensor dist(const Tensor& self, std::optional<int64_t> mode_kernel) {
  return at::_dist(self, mode_kernel);
}
} // namespace at::native
)x";

// aten/src/ATen/native/cuda/Dist.cu
constexpr char kDistCu[] = R"x(namespace at::native {
template <typename T, int p>
__global__ void dist_kernel(T* out) {}
__global__ void mode_kernel(float* out) {}

Tensor _dist_cuda(const Tensor& self, std::optional<int64_t> mode) {
  auto impl_fptr = dist_kernel<float, 0>;
  if (mode) {
    impl_fptr = dist_kernel<float, 1>;
  }
  impl_fptr<<<1, 1>>>(nullptr);
  return self;
}
} // namespace at::native
)x";

// aten/src/ATen/native/cuda/RunLauncher.cuh
constexpr char kRunLauncherCuh[] = R"x(namespace at::native {
template <typename T, typename Launcher>
void run_launcher(float* x, Launcher l) {
  l.template launch<T>(x);
}
} // namespace at::native
)x";

// aten/src/ATen/native/cuda/Choose.cu
constexpr char kChooseCu[] = R"x(#include <ATen/native/cuda/RunLauncher.cuh>
namespace at::native {
__global__ void choose_kernel(float* x) {}
__global__ void other_kernel(float* x) {}

struct ChooseLauncher {
  template <typename T>
  void launch(float* x) {
    choose_kernel<<<1, 1>>>(x);
  }
};

struct OtherLauncher {
  template <typename T>
  void launch(float* x) {
    other_kernel<<<1, 1>>>(x);
  }
};

Tensor choose_cuda(const Tensor& self) {
  run_launcher<float>(nullptr, ChooseLauncher());
  return self;
}

Tensor other_cuda(const Tensor& self) {
  run_launcher<float>(nullptr, OtherLauncher());
  return self;
}

} // namespace at::native
)x";

// aten/src/ATen/native/cuda/HandedLaunch.cu
constexpr char kHandedLaunchCu[] = R"x(namespace at::native {
namespace single {
__global__ void step_kernel(float* x) {}
template <typename T>
void launch(float* x) {
  step_kernel<<<1, 1>>>(x);
}
} // namespace single
namespace multi {
__global__ void step_kernel(float* x) {}
template <typename T>
void launch(float* x) {
  step_kernel<<<1, 1>>>(x);
}
} // namespace multi

Tensor pick_cuda(const Tensor& self) {
  float* x = nullptr;
#define RUN(LAUNCH_FUNCTION) LAUNCH_FUNCTION<float>(x)
#define RUN_BY_SIZE(N)       \
  if (N > 1) {               \
    RUN(multi::launch);      \
  } else {                   \
    RUN(single::launch);     \
  }
  RUN_BY_SIZE(self.numel());
#undef RUN_BY_SIZE
#undef RUN
  return self;
}

} // namespace at::native
)x";

std::shared_ptr<MemoryDisk> LaunchersTree() {
  auto disk = std::make_shared<MemoryDisk>();
  disk->Add("version.txt", "2.6.0a0\n");
  disk->Add("aten/src/ATen/native/native_functions.yaml", kNativeFunctions);
  disk->Add("aten/src/ATen/native/cuda/HandedLaunch.cu", kHandedLaunchCu);
  disk->Add("aten/src/ATen/native/cuda/RunLauncher.cuh", kRunLauncherCuh);
  disk->Add("aten/src/ATen/native/cuda/Choose.cu", kChooseCu);
  disk->Add("aten/src/ATen/native/Dist.cpp", kDistCpp);
  disk->Add("aten/src/ATen/native/cuda/Dist.cu", kDistCu);
  disk->Add("aten/src/ATen/native/Wrap.cpp", kWrapCpp);
  disk->Add("aten/src/ATen/native/cuda/Segments.cu", kSegmentsCu);
  disk->Add("aten/src/ATen/native/cuda/NanSum.cu", kNanSumCu);
  disk->Add("aten/src/ATen/native/cuda/Apply.cu", kApplyCu);
  return disk;
}

Trace TraceOf(const std::string& query) {
  Index index;
  BuildMemoryIndex(LaunchersTree(), &index);
  TraceOptions options;
  options.device = TraceOptions::Device::kCuda;
  options.snippets = false;
  Trace t;
  EXPECT_TRUE(TraceQuery(index, query, options, &t).ok());
  return t;
}

const KernelStep* Kernel(const Trace& t, const std::string& name, int line) {
  for (const auto& op : t.ops)
    for (const auto& k : op.kernels)
      if (k.name == name && k.where.line == line) return &k;
  return nullptr;
}

TEST(HandedLaunchers, AMacroCallsTheFunctionEachUsePasses) {
  Trace t = TraceOf("aten::pick");
  const KernelStep* multi = Kernel(t, "step_kernel", 10);
  const KernelStep* single = Kernel(t, "step_kernel", 3);
  ASSERT_NE(multi, nullptr) << "RUN(multi::launch) calls multi::launch";
  ASSERT_NE(single, nullptr) << "RUN(single::launch) calls single::launch";
  EXPECT_EQ(single->path, (std::vector<std::string>{"pick_cuda", "launch"}));
}

TEST(HandedLaunchers, KernelsOfOneNameAreTheOnesLookupFindsFromTheirLaunch) {
  // Two __global__ step_kernel in one file: multi::launch's launch (:13)
  // runs multi::step_kernel (:10), single::launch's (:6) single's (:3).
  Trace t = TraceOf("aten::pick");
  const KernelStep* multi = Kernel(t, "step_kernel", 10);
  const KernelStep* single = Kernel(t, "step_kernel", 3);
  ASSERT_TRUE(multi && single);
  EXPECT_EQ(multi->launch_site.line, 13);
  EXPECT_EQ(single->launch_site.line, 6);
}

TEST(HandedLaunchers, ALauncherObjectPassedToATemplateRunsItsMember) {
  // choose_cuda hands run_launcher a ChooseLauncher (:22); run_launcher
  // calls l.template launch<T>: ChooseLauncher::launch launches
  // choose_kernel (:3) at :9. OtherLauncher is handed only by other_cuda.
  Trace t = TraceOf("aten::choose");
  const KernelStep* k = Kernel(t, "choose_kernel", 3);
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->launch_site.line, 9);
  EXPECT_EQ(k->path, (std::vector<std::string>{"choose_cuda", "launch"}));
  EXPECT_EQ(Kernel(t, "other_kernel", 4), nullptr) << "another call site's launcher";
  EXPECT_NE(Kernel(TraceOf("aten::other"), "other_kernel", 4), nullptr);
}

TEST(HandedLaunchers, AKernelAssignedToTheLaunchedPointerRuns) {
  // Dist.cu:7 `auto impl_fptr = dist_kernel<float, 0>;` then
  // `impl_fptr<<<1, 1>>>` (:11): dist_kernel (:3) runs, named where it is
  // assigned. Dist.cpp's `mode_kernel` is its own parameter: a C++ file
  // names no __global__ kernel, mode_kernel (:4) is not on the trace.
  Trace t = TraceOf("aten::dist");
  const KernelStep* k = Kernel(t, "dist_kernel", 3);
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->launch_site.line, 7);
  EXPECT_EQ(Kernel(t, "mode_kernel", 4), nullptr);
}

TEST(HandedLaunchers, AMemberOfAnObjectMadeInTheCallRuns) {
  // Wrap.cpp:14 `WrapImpl(self).wrap()`: WrapImpl::wrap (:5) runs, and
  // calls at::pick (:6), whose CUDA code launches step_kernel.
  Trace t = TraceOf("aten::wrap");
  bool pick = false;
  for (const auto& op : t.ops) pick = pick || (op.name == "pick" && op.reached_from == "wrap");
  EXPECT_TRUE(pick);
  EXPECT_NE(Kernel(t, "step_kernel", 3), nullptr);
}

TEST(HandedLaunchers, AVariadicMacroCallsTheFunctionItIsHanded) {
  // Segments.cu:7-15 `LIB_WRAPPER(cub::DeviceSegmentedReduce::Reduce, ...)`:
  // the macro's body calls `func` (:3), so the use calls CUB.
  Trace t = TraceOf("aten::segments");
  bool cub = false;
  for (const auto& op : t.ops)
    for (const auto& lib : op.libraries)
      cub = cub ||
            (lib.name == "CUB" && lib.where.line == 7 &&
             std::find(lib.calls.begin(), lib.calls.end(), "cub::DeviceSegmentedReduce::Reduce") != lib.calls.end());
  EXPECT_TRUE(cub);
}

TEST(HandedLaunchers, AKernelTwoFunctionsLaunchRunsWhereTheAssumptionsTakeOne) {
  // SumOps is launched by complex_functor (:5), met first, and by
  // real_functor (:11): for a float32 tensor the real one's launch runs.
  Trace t = TraceOf("aten::nan_sum");
  const KernelStep* k = nullptr;
  for (const auto& op : t.ops)
    for (const auto& kernel : op.kernels)
      if (kernel.name == "SumOps") k = &kernel;
  ASSERT_NE(k, nullptr);
  EXPECT_TRUE(k->typical);
  EXPECT_FALSE(k->undecided);
  EXPECT_EQ(k->launch_site.line, 11);
  ASSERT_FALSE(k->path.empty());
  EXPECT_NE(k->path.back().find("real_functor"), std::string::npos) << k->path.back();
}

TEST(HandedLaunchers, ALaunchingDefineUsedThroughAnotherRunsWhereThatOneIs) {
  // Apply.cu:11 `HANDLE_A_CASE(1)` expands HANDLE_CASE, which launches
  // apply_kernel (:8): a float32 tensor takes that branch, not :13's.
  Trace t = TraceOf("aten::apply2");
  const KernelStep* k = Kernel(t, "apply_kernel", 8);
  ASSERT_NE(k, nullptr);
  EXPECT_TRUE(k->typical);
  EXPECT_FALSE(k->undecided);
}

}  // namespace
}  // namespace optrace
