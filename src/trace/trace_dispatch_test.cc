// The main path says only what runs, on a MemoryDisk tree written here: one
// op with a CompositeExplicitAutograd fallback beside its CUDA kernel, whose
// CUDA code holds the traps a text reader falls into -- IntArrayRef::slice,
// std::bitset::flip, a `Tensor*` declarator, arithmetic inside a GPU
// lambda, a call through a parameter named like a global stub -- and a
// derivatives.yaml formula whose double-backward branch a first-order
// backward never takes. Every line number is the line in this file's tree.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>

#include "testing/memory_index.h"
#include "trace/trace.h"
#include "trace/trace_test_util.h"

namespace optrace {
namespace {

constexpr char kNativeFunctions[] = R"x(- func: norm_it(Tensor self) -> Tensor
  dispatch:
    CompositeExplicitAutograd: norm_it_fallback
    CUDA: norm_it_cuda

- func: fast_or_slow(Tensor self) -> Tensor
  dispatch:
    CompositeExplicitAutograd: fast_or_slow_slow
    CUDA: fast_or_slow_cuda

- func: dense_only(Tensor self) -> Tensor
  dispatch:
    CompositeImplicitAutograd: dense_only

- func: sparse_only.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)
  dispatch:
    CUDA: sparse_only_out_cuda

- func: sparse_only(Tensor self) -> Tensor

- func: fallback_helper(Tensor self) -> Tensor
  dispatch:
    CompositeExplicitAutograd: fallback_helper

- func: finish_it(Tensor self) -> Tensor
  dispatch:
    CompositeExplicitAutograd: finish_it

- func: mul.Tensor(Tensor self, Tensor other) -> Tensor
  variants: function, method
  dispatch:
    CompositeExplicitAutograd: mul

- func: slice.Tensor(Tensor(a) self, int dim=0, SymInt? start=None, SymInt? end=None, SymInt step=1) -> Tensor(a)
  variants: function, method
  dispatch:
    CompositeExplicitAutograd: slice

- func: flip(Tensor self, int[] dims) -> Tensor
  variants: function, method
  dispatch:
    CompositeExplicitAutograd: flip

- func: single_back(Tensor grad) -> Tensor
  dispatch:
    CompositeExplicitAutograd: single_back

- func: double_back(Tensor grad) -> Tensor
  dispatch:
    CompositeExplicitAutograd: double_back

- func: scan_it(Tensor self) -> Tensor
  dispatch:
    CUDA: scan_it_cuda

- func: sparse_kind_only(Tensor self) -> Tensor

- func: long_only(Tensor self) -> Tensor

- func: coalesced_first(Tensor(a) self) -> Tensor(a)

- func: viewed_first(Tensor(a) self) -> Tensor(a)

- func: is_coalesced_it(Tensor self) -> bool
  variants: method
  dispatch:
    SparseCPU, SparseCUDA, SparseMeta: is_coalesced_sparse

- func: choose_it(Tensor self) -> Tensor

- func: pick_it(Tensor self) -> Tensor
  dispatch:
    CPU, CUDA: pick_it

- func: route_it(Tensor self) -> Tensor
  dispatch:
    CUDA: route_it_cuda

- func: weigh_it(Tensor self, Tensor? weights=None) -> Tensor
  dispatch:
    CompositeExplicitAutograd: weigh_it

- func: reshape_it(Tensor self) -> Tensor
  dispatch:
    CompositeExplicitAutograd: reshape_it

- func: view_it(Tensor(a) self, SymInt[] size) -> Tensor(a)
  variants: method
  dispatch:
    CompositeExplicitAutograd: view_it

- func: view_it.dtype(Tensor(a) self, ScalarType dtype) -> Tensor(a)
  variants: method
  dispatch:
    CompositeExplicitAutograd: view_it_dtype
)x";

// aten/src/ATen/native/cuda/ScanIt.cu: a stub whose CUDA kernel calls CUB
// only for a one-dimensional scan (ScanUtils.cuh's scan_dim).
constexpr char kScanItCu[] = R"x(namespace at::native {
DECLARE_DISPATCH(scan_fn, scan_stub);
DEFINE_DISPATCH(scan_stub);
Tensor scan_it_cuda(const Tensor& self) {
  scan_stub(kCUDA, self);
  return self;
}
void scan_kernel_cuda(const Tensor& self, int64_t dim) {
  if (self.numel() == self.size(dim)) {
    cub::DeviceScan::InclusiveSum(nullptr, bytes, in, out, n);
  }
}
REGISTER_DISPATCH(scan_stub, &scan_kernel_cuda);
} // namespace at::native
)x";

// aten/src/ATen/native/Checked.cpp: implementations that open with a check:
// of the tensor's kind (SparseTensor.cpp's coalesce), and of its dtype,
// which an intermediate need not share with the input the assumptions speak of;
// with a call of a method only sparse tensors have kernels for (1.13.1's
// coalesce), and of one a composite kernel serves.
constexpr char kCheckedCpp[] = R"x(namespace at::native {
Tensor sparse_kind_only(const Tensor& self) {
  // a comment first
  TORCH_CHECK(self.layout() == kSparse, "expected a sparse tensor, got ", self.layout());
  return at::finish_it(self);
}
Tensor long_only(const Tensor& self) {
  TORCH_CHECK(self.scalar_type() == kLong, "expected int64 indices");
  return at::finish_it(self);
}
Tensor coalesced_first(const Tensor& input) {
  if (input.is_coalesced_it()) {
    return input;
  }
  return at::finish_it(input);
}
Tensor viewed_first(const Tensor& self) {
  if (self.view_it().dim() == 0) {
    return self;
  }
  return at::finish_it(self);
}
} // namespace at::native
)x";

// aten/src/ATen/native/ChooseIt.cpp: a stub called where the tensor's
// device has a registration of it (attention.cpp's _fused_sdp_choice_stub).
constexpr char kChooseItCpp[] = R"x(namespace at::native {
Tensor choose_it(const Tensor& self) {
  if (scan_stub.is_device_supported(self.device().type())) {
    scan_stub(self.device().type(), self, 0);
  }
  return self;
}
} // namespace at::native
)x";

// aten/src/ATen/native/PickIt.cpp: a predicate whose returns a CUDA tensor
// decides before its #if group's and its loop's are read
// (TensorAdvancedIndexing.cpp's can_use_expanded_index_path).
constexpr char kPickItCpp[] = R"x(namespace at::native {
static bool can_use_fast_path(const Tensor& self, int64_t dim) {
#ifdef USE_FANCY
  if (!fancy_available()) {
    return false;
  }
#else
  return false;
#endif
  if (!self.device().is_cpu()) {
    return false;
  }
  for (const auto d : c10::irange(1, self.dim())) {
    if (self.size(d) != 1) {
      return false;
    }
  }
  return dim == 0 && self.is_contiguous();
}
Tensor pick_it(const Tensor& self) {
  if (can_use_fast_path(self, 0)) {
    return at::finish_it(self);
  }
  return at::fallback_helper(self);
}
} // namespace at::native
)x";

// aten/src/ATen/native/cuda/RouteIt.cu: two stubs whose kernels share the
// launching helper; the walk reaches it first through the stub a dense
// tensor never calls (ScatterGatherKernel.cu's reduce and plain scatter).
constexpr char kRouteItCu[] = R"x(namespace at::native {
DECLARE_DISPATCH(route_fn, sparse_route_stub);
DECLARE_DISPATCH(route_fn, dense_route_stub);
DEFINE_DISPATCH(sparse_route_stub);
DEFINE_DISPATCH(dense_route_stub);
__global__ void route_kernel(float* out) {}
void shared_launch(const Tensor& self) {
  route_kernel<<<1, 1>>>(nullptr);
}
void sparse_route_kernel(const Tensor& self) {
  shared_launch(self);
}
void dense_route_kernel(const Tensor& self) {
  shared_launch(self);
}
Tensor route_it_cuda(const Tensor& self) {
  if (self.is_sparse()) {
    sparse_route_stub(kCUDA, self);
  } else {
    dense_route_stub(kCUDA, self);
  }
  return self;
}
REGISTER_DISPATCH(sparse_route_stub, &sparse_route_kernel);
REGISTER_DISPATCH(dense_route_stub, &dense_route_kernel);
} // namespace at::native
)x";

// aten/src/ATen/native/ReshapeIt.cpp: one op's two overloads, each called
// where C++ overload resolution picks it.
constexpr char kReshapeItCpp[] = R"x(namespace at::native {
Tensor reshape_it(const Tensor& self) {
  std::vector<int64_t> shape(2, 1);
  if (self.is_complex()) {
    return self.view_it(at::kFloat);
  }
  return self.view_it(shape);
}
Tensor view_it(const Tensor& self, IntArrayRef size) { return at::finish_it(self); }
Tensor view_it_dtype(const Tensor& self, ScalarType dtype) { return at::finish_it(self); }
} // namespace at::native
)x";

constexpr char kDerivatives[] = R"x(- name: norm_it(Tensor self) -> Tensor
  self: "GradMode::is_enabled() ? double_back(grad) : single_back(grad)"

- name: weigh_it(Tensor self, Tensor? weights=None) -> Tensor
  self: single_back(grad)
  weights: double_back(grad)
)x";

constexpr char kNormItCpp[] = R"x(namespace at::native {
Tensor norm_it_fallback(const Tensor& self) {
  return at::fallback_helper(self);
}
} // namespace at::native
)x";

// aten/src/ATen/native/cuda/NormIt.cu
constexpr char kNormItCu[] = R"x(namespace at::native {
Tensor norm_it_cuda(const Tensor& self, FillStub& fill_stub) {
  const auto sizes = self.sizes();
  auto tail = sizes.slice(1);
  std::bitset<64> mask;
  mask.flip();
  fill_stub(kCUDA, self);
  gpu_kernel(iter, [] GPU_LAMBDA (float a, float b) -> float {
    return a * b;
  });
  auto squared = self * self;
  return at::finish_it(squared);
}
void launch_rows(const Tensor& x,
    Tensor* out) {
  auto y = x.flip({0});
}
} // namespace at::native
)x";

// aten/src/ATen/native/FastOrSlow.cpp
constexpr char kFastOrSlowCpp[] = R"x(namespace at::native {
Tensor fast_or_slow_slow(const Tensor& self) {
  return at::fallback_helper(self);
}
} // namespace at::native
)x";

// aten/src/ATen/native/cuda/FastOrSlow.cu: the CUDA kernel calls the
// composite fallback itself when its fast route does not apply.
constexpr char kFastOrSlowCu[] = R"x(namespace at::native {
Tensor fast_or_slow_cuda(const Tensor& self) {
  if (!can_use_fast_route(self)) {
    return fast_or_slow_slow(self);
  }
  return at::finish_it(self);
}
} // namespace at::native
)x";

// aten/src/ATen/native/SparseOnly.cpp: a composite whose one call reaches
// a CUDA kernel that only raises (SparseMM.cu's _sspaddmm_out_only_sparse_cuda).
constexpr char kSparseOnlyCpp[] = R"x(namespace at::native {
Tensor dense_only(const Tensor& self) {
  auto result = at::finish_it(self);
  at::sparse_only_out(result, self);
  return result;
}
Tensor& sparse_only_out_cuda(const Tensor& self, Tensor& out) {
  TORCH_CHECK(false, "sparse_only can only be called on sparse tensors");
}
Tensor sparse_only(const Tensor& self) {
  auto result = at::finish_it(self);
  at::sparse_only_out(result, self);
  return result;
}
} // namespace at::native
)x";

constexpr char kFillH[] = R"x(namespace at::native {
DECLARE_DISPATCH(fill_fn, fill_stub);
} // namespace at::native
)x";

constexpr char kFillCu[] = R"x(namespace at::native {
void fill_kernel_cuda(TensorIterator& iter) {}
REGISTER_DISPATCH(fill_stub, &fill_kernel_cuda);
} // namespace at::native
)x";

std::shared_ptr<MemoryDisk> Tree() {
  return MemoryTree({{"version.txt", "2.6.0a0\n"},
                     {"aten/src/ATen/native/native_functions.yaml", kNativeFunctions},
                     {"tools/autograd/derivatives.yaml", kDerivatives},
                     {"aten/src/ATen/native/NormIt.cpp", kNormItCpp},
                     {"aten/src/ATen/native/cuda/NormIt.cu", kNormItCu},
                     {"aten/src/ATen/native/FastOrSlow.cpp", kFastOrSlowCpp},
                     {"aten/src/ATen/native/cuda/FastOrSlow.cu", kFastOrSlowCu},
                     {"aten/src/ATen/native/SparseOnly.cpp", kSparseOnlyCpp},
                     {"aten/src/ATen/native/ReshapeIt.cpp", kReshapeItCpp},
                     {"aten/src/ATen/native/Checked.cpp", kCheckedCpp},
                     {"aten/src/ATen/native/ChooseIt.cpp", kChooseItCpp},
                     {"aten/src/ATen/native/PickIt.cpp", kPickItCpp},
                     {"aten/src/ATen/native/cuda/RouteIt.cu", kRouteItCu},
                     {"aten/src/ATen/native/cuda/ScanIt.cu", kScanItCu},
                     {"aten/src/ATen/native/Fill.h", kFillH},
                     {"aten/src/ATen/native/cuda/Fill.cu", kFillCu}});
}

class DispatchTrace : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_NO_FATAL_FAILURE(BuildMemoryIndex(Tree(), &index_)); }

  Trace Run(TraceOptions::Device device) { return TraceIndex(index_, "aten::norm_it", device); }

  static std::vector<std::string> Calls(const std::vector<OpCallStep>& calls) {
    std::vector<std::string> out;
    for (const auto& c : calls) out.push_back(c.op + "@" + std::to_string(c.where.line));
    return out;
  }

  Index index_;
};

TEST_F(DispatchTrace, TheCudaKernelRunsNotTheCompositeFallback) {
  Trace t = Run(TraceOptions::Device::kCuda);
  const OpStep* op = FindOp(t, "norm_it");
  ASSERT_NE(op, nullptr);
  // Both implementations are listed, with their keys and lines.
  std::vector<std::string> impls;
  for (const auto& i : op->impls) impls.push_back(i.key + " " + i.function + ":" + std::to_string(i.where.line));
  EXPECT_EQ(impls, (std::vector<std::string>{"CompositeExplicitAutograd norm_it_fallback:2", "CUDA norm_it_cuda:2"}));
  // Only the CUDA kernel's calls: the real `self * self` (line 11) and finish_it (line 12).
  EXPECT_EQ(Calls(op->calls), (std::vector<std::string>{"mul@11", "finish_it@12"}));
  EXPECT_EQ(FindOp(t, "fallback_helper"), nullptr);
  EXPECT_NE(FindOp(t, "finish_it"), nullptr);
}

TEST_F(DispatchTrace, NonTensorExpressionsAreNoOps) {
  Trace t = Run(TraceOptions::Device::kCuda);
  // sizes.slice(1) (IntArrayRef), mask.flip() (std::bitset), `Tensor* out`
  // and the lambda's `a * b` (device code) call no aten op.
  EXPECT_EQ(FindOp(t, "slice.Tensor"), nullptr);
  EXPECT_EQ(FindOp(t, "flip"), nullptr);
  // fill_stub(...) calls the parameter of that name, not the global stub.
  const OpStep* op = FindOp(t, "norm_it");
  ASSERT_NE(op, nullptr);
  EXPECT_TRUE(op->stubs.empty());
  const OpStep* mul = FindOp(t, "mul.Tensor");
  ASSERT_NE(mul, nullptr);
  for (const auto& op : t.ops)
    for (const auto& c : op.calls) EXPECT_NE(c.where.line, 9) << c.op << " called from device code";
}

TEST_F(DispatchTrace, ADefaultTraceListsTheCpuPathApart) {
  // No CPU kernel: CPU runs the composite fallback, whose call is the CPU
  // path's, never the CUDA path's.
  Trace t = Run(TraceOptions::Device::kDefault);
  const OpStep* op = FindOp(t, "norm_it");
  ASSERT_NE(op, nullptr);
  EXPECT_EQ(Calls(op->other_device_calls), (std::vector<std::string>{"fallback_helper@3"}));
  for (const auto& c : op->calls) EXPECT_NE(c.op, "fallback_helper");
  const OpStep* helper = FindOp(t, "fallback_helper");
  ASSERT_NE(helper, nullptr);
  EXPECT_FALSE(helper->typical);
  // With --device cpu the fallback is the path.
  Trace cpu = Run(TraceOptions::Device::kCpu);
  const OpStep* on_cpu = FindOp(cpu, "norm_it");
  ASSERT_NE(on_cpu, nullptr);
  EXPECT_EQ(Calls(on_cpu->calls), (std::vector<std::string>{"fallback_helper@3"}));
}

TEST_F(DispatchTrace, AFallbackTheCudaKernelCallsIsListedButItsCallsAreTheOtherKeys) {
  Trace t = TraceIndex(index_, "aten::fast_or_slow", TraceOptions::Device::kCuda);
  const OpStep* op = FindOp(t, "fast_or_slow");
  ASSERT_NE(op, nullptr);
  // The CUDA kernel's own call (line 6) is the path; the fallback it calls
  // at line 4 is listed as a helper reached from there, its call of
  // fallback_helper (FastOrSlow.cpp:3) on no CUDA path.
  EXPECT_EQ(Calls(op->calls), (std::vector<std::string>{"finish_it@6"}));
  bool listed = false;
  for (const auto& h : op->helpers)
    listed = listed || (h.function == "fast_or_slow_slow" && h.reached_at.line == 4 &&
                        h.where.file == "aten/src/ATen/native/FastOrSlow.cpp");
  EXPECT_TRUE(listed);
  EXPECT_EQ(FindOp(t, "fallback_helper"), nullptr);
  ASSERT_EQ(op->notes.size(), 1u);
  EXPECT_NE(op->notes.front().find("CUDA: fast_or_slow_cuda calls CompositeExplicitAutograd's fast_or_slow_slow "
                                   "directly (aten/src/ATen/native/cuda/FastOrSlow.cu:4)"),
            std::string::npos)
      << op->notes.front();
  // For CPU tensors the fallback is the kernel, and its call is the path.
  Trace cpu = TraceIndex(index_, "aten::fast_or_slow", TraceOptions::Device::kCpu);
  const OpStep* on_cpu = FindOp(cpu, "fast_or_slow");
  ASSERT_NE(on_cpu, nullptr);
  EXPECT_EQ(Calls(on_cpu->calls), (std::vector<std::string>{"fallback_helper@3"}));
}

TEST_F(DispatchTrace, AnImplementationOpeningWithAFailedKindCheckRaises) {
  // Checked.cpp:4 `TORCH_CHECK(self.layout() == kSparse, ...)` fails for a
  // strided tensor; :8's dtype check is not read (an intermediate may be int64).
  Trace t = TraceIndex(index_, "aten::sparse_kind_only", TraceOptions::Device::kCuda);
  const OpStep* op = FindOp(t, "sparse_kind_only");
  ASSERT_NE(op, nullptr);
  EXPECT_FALSE(op->typical);
  EXPECT_TRUE(HasNoteContaining(*op,
                                "implementation sparse_kind_only (aten/src/ATen/native/Checked.cpp:2) first "
                                "checks `self.layout() == kSparse`"));
  Trace dtype = TraceIndex(index_, "aten::long_only", TraceOptions::Device::kCuda);
  const OpStep* long_only = FindOp(dtype, "long_only");
  ASSERT_NE(long_only, nullptr);
  EXPECT_TRUE(long_only->typical);
}

TEST_F(DispatchTrace, AnImplementationOpeningWithAMethodOnlyOtherKindsOfTensorHaveRaises) {
  // Checked.cpp:12 `if (input.is_coalesced_it())`: is_coalesced_it has kernels for
  // sparse tensors alone, so the dispatcher raises for a strided one (the
  // implementation names its argument `input`, the schema `self`).
  Trace t = TraceIndex(index_, "aten::coalesced_first", TraceOptions::Device::kCuda);
  const OpStep* op = FindOp(t, "coalesced_first");
  ASSERT_NE(op, nullptr);
  EXPECT_FALSE(op->typical);
  EXPECT_TRUE(HasNoteContaining(*op,
                                "implementation coalesced_first (aten/src/ATen/native/Checked.cpp:11) first "
                                "calls `input.is_coalesced_it()`, which has kernels only for SparseCPU, SparseCUDA, "
                                "SparseMeta"));
  // :18 `self.view_it()` has a CompositeExplicitAutograd kernel: it runs.
  Trace viewed = TraceIndex(index_, "aten::viewed_first", TraceOptions::Device::kCuda);
  const OpStep* view_first = FindOp(viewed, "viewed_first");
  ASSERT_NE(view_first, nullptr);
  EXPECT_TRUE(view_first->typical);
}

TEST_F(DispatchTrace, AStubSupportsTheDevicesItIsRegisteredFor) {
  // ChooseIt.cpp:3 `if (scan_stub.is_device_supported(self.device().type()))`:
  // ScanIt.cu registers scan_stub for CUDA, so the stub's call runs there.
  Trace t = TraceIndex(index_, "aten::choose_it", TraceOptions::Device::kCuda);
  const OpStep* op = FindOp(t, "choose_it");
  ASSERT_NE(op, nullptr);
  ASSERT_EQ(op->stubs.size(), 1u);
  EXPECT_TRUE(op->stubs.front().typical && !op->stubs.front().undecided);
}

TEST_F(DispatchTrace, APredicateIsWhatItsReachableReturnsSay) {
  // PickIt.cpp:10-12 `if (!self.device().is_cpu()) return false;` comes
  // before the loop's and the last return: on CUDA the predicate is false
  // whatever USE_FANCY (:2-8), so pick_it takes fallback_helper (:24), never
  // finish_it (:22). On the CPU its loop (:13-17) and last return leave it open.
  Trace cuda = TraceIndex(index_, "aten::pick_it", TraceOptions::Device::kCuda);
  const OpStep* fast = FindOp(cuda, "finish_it");
  const OpStep* slow = FindOp(cuda, "fallback_helper");
  ASSERT_NE(fast, nullptr);
  ASSERT_NE(slow, nullptr);
  EXPECT_TRUE(!fast->typical && !fast->undecided);
  EXPECT_TRUE(slow->typical && !slow->undecided);
  Trace cpu = TraceIndex(index_, "aten::pick_it", TraceOptions::Device::kCpu);
  const OpStep* cpu_fast = FindOp(cpu, "finish_it");
  ASSERT_NE(cpu_fast, nullptr);
  EXPECT_TRUE(!cpu_fast->typical && cpu_fast->undecided);
}

TEST_F(DispatchTrace, ALibraryBelowAStubRunsWhereItsOwnCallDoes) {
  // ScanIt.cu:4 calls scan_stub, which runs scan_kernel_cuda; that calls CUB
  // only `if (self.numel() == self.size(dim))` (:9-10): open, though the stub runs.
  Trace t = TraceIndex(index_, "aten::scan_it", TraceOptions::Device::kCuda);
  const OpStep* op = FindOp(t, "scan_it");
  ASSERT_NE(op, nullptr);
  ASSERT_EQ(op->stubs.size(), 1u);
  EXPECT_TRUE(op->stubs.front().typical && !op->stubs.front().undecided);
  ASSERT_EQ(op->libraries.size(), 1u);
  EXPECT_EQ(op->libraries.front().name, "CUB");
  EXPECT_TRUE(op->libraries.front().typical && op->libraries.front().undecided);
}

TEST_F(DispatchTrace, AnOverloadIsCalledOnlyWhereItsArgumentsFit) {
  // ReshapeIt.cpp:7 `self.view_it(shape)` with a std::vector<int64_t> is
  // view_it; :5 `self.view_it(at::kFloat)`, under is_complex(), is
  // view_it.dtype: each overload keeps its own call site, so the dtype one
  // is off a float32 path.
  Trace t = TraceIndex(index_, "aten::reshape_it", TraceOptions::Device::kCuda);
  const OpStep* sizes = FindOp(t, "view_it");
  const OpStep* dtype = FindOp(t, "view_it.dtype");
  ASSERT_NE(sizes, nullptr);
  ASSERT_NE(dtype, nullptr);
  EXPECT_EQ(sizes->called_at.line, 7);
  EXPECT_TRUE(sizes->typical && !sizes->undecided);
  EXPECT_EQ(dtype->called_at.line, 5);
  EXPECT_FALSE(dtype->typical);
}

TEST_F(DispatchTrace, AnOpWhoseTakenPathReachesAKernelThatOnlyRaisesRaises) {
  // SparseOnly.cpp:4 calls sparse_only.out, whose CUDA kernel (:7-9) only
  // raises: dense_only never completes for a dense tensor, so neither it nor
  // what it calls (finish_it, :3) is on the typical path, and a note says why.
  Trace t = TraceIndex(index_, "aten::dense_only", TraceOptions::Device::kCuda);
  const OpStep* op = FindOp(t, "dense_only");
  ASSERT_NE(op, nullptr);
  EXPECT_FALSE(op->typical);
  bool noted = false;
  for (const std::string& n : op->notes)
    noted = noted || n == "raises for a typical tensor: sparse_only.out's CUDA kernel sparse_only_out_cuda "
                          "(aten/src/ATen/native/SparseOnly.cpp:7) only raises";
  EXPECT_TRUE(noted);
  const OpStep* finish = FindOp(t, "finish_it");
  ASSERT_NE(finish, nullptr);
  EXPECT_FALSE(finish->typical);
  // aten::sparse_only lists both overloads as entries: the functional one
  // calls the out= one (SparseOnly.cpp:12) and raises with it.
  Trace both = TraceIndex(index_, "aten::sparse_only", TraceOptions::Device::kCuda);
  const OpStep* functional = FindOp(both, "sparse_only");
  ASSERT_NE(functional, nullptr);
  EXPECT_TRUE(functional->reached_from.empty());
  EXPECT_FALSE(functional->typical);
  // A kernel that does more than raise is no such kernel: norm_it runs.
  const Trace norm_trace = Run(TraceOptions::Device::kCuda);
  const OpStep* norm = FindOp(norm_trace, "norm_it");
  ASSERT_NE(norm, nullptr);
  EXPECT_TRUE(norm->typical);
}

TEST_F(DispatchTrace, FirstOrderBackwardTakesTheSingleBranch) {
  Trace t = Run(TraceOptions::Device::kCuda);
  ASSERT_EQ(t.backward.size(), 1u);
  EXPECT_EQ(t.backward[0].untaken, (std::vector<std::string>{"double_back"}));
  const OpStep* single = FindOp(t, "single_back", OpRole::kBackward);
  const OpStep* twice = FindOp(t, "double_back", OpRole::kBackward);
  ASSERT_NE(single, nullptr);
  ASSERT_NE(twice, nullptr);  // listed: a double backward runs it
  EXPECT_TRUE(single->typical);
  EXPECT_FALSE(twice->typical);
  EXPECT_FALSE(twice->undecided);
}

TEST_F(DispatchTrace, AKernelsWayIsTheOneTheAssumptionsTake) {
  // RouteIt.cu:19-23: a dense tensor calls dense_route_stub, whose kernel
  // (:15) reaches shared_launch's route_kernel; the walk met it first below
  // sparse_route_stub (:12), which `self.is_sparse()` rules out.
  Trace t = TraceIndex(index_, "aten::route_it", TraceOptions::Device::kCuda);
  const OpStep* op = FindOp(t, "route_it");
  ASSERT_NE(op, nullptr);
  ASSERT_EQ(op->kernels.size(), 1u);
  EXPECT_EQ(op->kernels[0].path,
            (std::vector<std::string>{"route_it_cuda", "dense_route_stub", "dense_route_kernel", "shared_launch"}));
}

TEST_F(DispatchTrace, AnOptionalTensorsFormulaMayRun) {
  // Autograd computes `weights:` only where the call passes weights and they
  // require grad (_embedding_bag's per_sample_weights, derivatives.yaml:2031):
  // open; `self:` runs.
  Trace t = TraceIndex(index_, "aten::weigh_it", TraceOptions::Device::kCuda);
  ASSERT_EQ(t.backward.size(), 1u);
  EXPECT_EQ(t.backward[0].open, (std::vector<std::string>{"double_back"}));
  EXPECT_TRUE(t.backward[0].untaken.empty());
}

// A second tree for the backward: an op with named outputs whose `values:`
// formula is forward-mode AD, a three-argument `where` beside the
// one-argument overload, a forward op behind a shape test whose own
// backward runs only where it does (both called by a
// CompositeImplicitAutograd op, above autograd), an op with a
// derivative called only inside a CUDA kernel, below autograd, and ops
// called on a tensor a factory just made: alone (`at::blank({}).seed_(7)`,
// no input requires grad) and given another tensor (`mix_(self)`).
constexpr char kPickFunctions[] = R"x(- func: pick_wrap(Tensor self) -> Tensor
  dispatch:
    CompositeImplicitAutograd: pick_wrap

- func: blank(SymInt[] size) -> Tensor
  dispatch:
    CompositeExplicitAutograd: blank

- func: blank.out(SymInt[] size, *, Tensor(a!) out) -> Tensor(a!)
  dispatch:
    CompositeExplicitAutograd: blank_out

- func: seed_(Tensor(a!) self, int n) -> Tensor(a!)
  variants: method
  dispatch:
    CUDA: seed_cuda_

- func: mix_(Tensor(a!) self, Tensor other) -> Tensor(a!)
  variants: method
  dispatch:
    CUDA: mix_cuda_

- func: seed_back(Tensor grad) -> Tensor
  dispatch:
    CompositeExplicitAutograd: seed_back

- func: mix_back(Tensor grad) -> Tensor
  dispatch:
    CompositeExplicitAutograd: mix_back

- func: pick(Tensor self, int dim=-1) -> (Tensor values, Tensor indices)
  dispatch:
    CUDA: pick_cuda

- func: inner_op(Tensor self) -> Tensor
  dispatch:
    CompositeExplicitAutograd: inner_op

- func: quiet_op(Tensor self) -> Tensor
  dispatch:
    CompositeExplicitAutograd: quiet_op

- func: inner_back(Tensor grad) -> Tensor
  dispatch:
    CompositeExplicitAutograd: inner_back

- func: side_op(Tensor self) -> Tensor
  dispatch:
    CUDA: side_op_cuda

- func: side_back(Tensor grad) -> Tensor
  dispatch:
    CompositeExplicitAutograd: side_back

- func: gather_it(Tensor self, int dim, Tensor index) -> Tensor
  dispatch:
    CompositeExplicitAutograd: gather_it

- func: where.self(Tensor condition, Tensor self, Tensor other) -> Tensor
  variants: function, method
  dispatch:
    CUDA: where_cuda

- func: where(Tensor condition) -> Tensor[]
  dispatch:
    CompositeImplicitAutograd: where_one

- func: where.dimname(Tensor condition, Tensor self, Dimname other) -> Tensor
  dispatch:
    CompositeImplicitAutograd: where_dimname

- func: nonzero_numpy(Tensor self) -> Tensor[]
  dispatch:
    CompositeImplicitAutograd: nonzero_numpy
)x";

constexpr char kPickDerivatives[] = R"x(- name: pick(Tensor self, int dim=-1) -> (Tensor values, Tensor indices)
  self: where(self, grad, self)
  values: gather_it(self_t, dim, indices)
  output_differentiability: [True, False]

- name: side_op(Tensor self) -> Tensor
  self: side_back(grad)

- name: inner_op(Tensor self) -> Tensor
  self: inner_back(grad)

- name: quiet_op(Tensor self) -> Tensor
  self: inner_back(grad)

- name: seed_(Tensor(a!) self, int n) -> Tensor(a!)
  self: seed_back(grad)

- name: mix_(Tensor(a!) self, Tensor other) -> Tensor(a!)
  self: mix_back(grad)
  other: mix_back(grad)
)x";

// aten/src/ATen/native/cuda/Pick.cu
constexpr char kPickCu[] = R"x(namespace at::native {
std::tuple<Tensor, Tensor> pick_cuda(const Tensor& self, int64_t dim) {
  auto inner = at::inner_op(self);
  return {inner, self};
}
Tensor side_op_cuda(const Tensor& self) {
  return self;
}
Tensor where_cuda(const Tensor& condition, const Tensor& self, const Tensor& other) {
  return self;
}
Tensor& seed_cuda_(Tensor& self, int64_t n) {
  return self;
}
Tensor& mix_cuda_(Tensor& self, const Tensor& other) {
  return self;
}
} // namespace at::native
)x";

// aten/src/ATen/native/PickWrap.cpp (not Pick.cpp: trace_decided_test.cc writes one)
constexpr char kPickCpp[] = R"x(namespace at::native {
Tensor pick_wrap(const Tensor& self) {
  if (self.dim() > 3) {
    at::side_op(self);
  }
  {
    at::NoGradGuard no_grad;
    at::quiet_op(self);
  }
  int64_t seed = at::blank({}).seed_(7).item<int64_t>();
  auto mixed = at::blank({}).mix_(self);
  return std::get<0>(at::pick(self));
}
Tensor inner_op(const Tensor& self) {
  return self;
}
Tensor inner_back(const Tensor& grad) {
  return grad;
}
std::vector<Tensor> where_one(const Tensor& condition) {
  return at::nonzero_numpy(condition);
}
Tensor where_dimname(const Tensor& condition, const Tensor& self, Dimname other) {
  return self;
}
Tensor side_back(const Tensor& grad) {
  return grad;
}
Tensor blank(IntArrayRef size) {
  return Tensor();
}
Tensor seed_back(const Tensor& grad) {
  return grad;
}
Tensor mix_back(const Tensor& grad) {
  return grad;
}
} // namespace at::native
)x";

class BackwardTrace : public ::testing::Test {
 protected:
  void SetUp() override {
    auto disk = std::make_shared<MemoryDisk>();
    disk->Add("version.txt", "2.6.0a0\n");
    disk->Add("aten/src/ATen/native/native_functions.yaml", kPickFunctions);
    disk->Add("tools/autograd/derivatives.yaml", kPickDerivatives);
    disk->Add("aten/src/ATen/native/cuda/Pick.cu", kPickCu);
    disk->Add("aten/src/ATen/native/PickWrap.cpp", kPickCpp);
    ASSERT_NO_FATAL_FAILURE(BuildMemoryIndex(disk, &index_));
    TraceOptions options;
    options.device = TraceOptions::Device::kCuda;
    options.snippets = false;
    Status s = TraceQuery(index_, "aten::pick_wrap", options, &t_);
    ASSERT_TRUE(s.ok()) << s.message();
  }

  const BackwardStep* Step(const std::string& op) const { return FindBackward(t_, op); }

  Index index_;
  Trace t_;
};

TEST_F(BackwardTrace, ANamedOutputsFormulaIsForwardModeAndNeverRunsInBackward) {
  const BackwardStep* b = Step("pick");
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->ops, (std::vector<std::string>{"where"}));
  EXPECT_EQ(FindOp(t_, "gather_it", OpRole::kBackward), nullptr);
}

TEST_F(BackwardTrace, AFormulaCallTakesTheOverloadsOfItsArgumentCount) {
  // where(self, grad, self) is where.self; the one-argument where (and the
  // nonzero_numpy it calls) never runs.
  EXPECT_NE(FindOp(t_, "where.self", OpRole::kBackward), nullptr);
  EXPECT_EQ(FindOp(t_, "where", OpRole::kBackward), nullptr);
  EXPECT_EQ(FindOp(t_, "nonzero_numpy", OpRole::kBackward), nullptr);
  // pick's schema has no Dimname to pass: never the named-tensor overload.
  EXPECT_EQ(FindOp(t_, "where.dimname", OpRole::kBackward), nullptr);
}

TEST_F(BackwardTrace, AnOpCalledInsideAKernelRecordsNoBackward) {
  // at::inner_op in pick_cuda runs below pick's autograd kernel: autograd
  // records pick, never inner_op, so inner_op's formula is listed, never run.
  const OpStep* inner = FindOp(t_, "inner_op");
  ASSERT_NE(inner, nullptr);
  EXPECT_TRUE(inner->typical);
  const BackwardStep* b = Step("inner_op");
  ASSERT_NE(b, nullptr);
  EXPECT_TRUE(b->below_autograd);
  EXPECT_NE(b->note.find("below autograd"), std::string::npos);
  // Its formula's ops are named, never traced: they never run.
  EXPECT_EQ(b->ops, (std::vector<std::string>{"inner_back"}));
  EXPECT_EQ(FindOp(t_, "inner_back", OpRole::kBackward), nullptr);
  // pick and side_op, called by pick_wrap's CompositeImplicitAutograd code, are recorded.
  ASSERT_NE(Step("pick"), nullptr);
  EXPECT_FALSE(Step("pick")->below_autograd);
  ASSERT_NE(Step("side_op"), nullptr);
  EXPECT_FALSE(Step("side_op")->below_autograd);
  // at::quiet_op under pick_wrap's NoGradGuard: grad mode off, not recorded either.
  ASSERT_NE(Step("quiet_op"), nullptr);
  EXPECT_TRUE(Step("quiet_op")->below_autograd);
}

TEST_F(BackwardTrace, AnOpOnAFreshTensorAloneRecordsNoBackward) {
  // at::blank({}).seed_(7): nothing seed_ is given requires grad.
  ASSERT_NE(FindOp(t_, "seed_"), nullptr);
  ASSERT_NE(Step("seed_"), nullptr);
  EXPECT_TRUE(Step("seed_")->below_autograd);
  EXPECT_EQ(FindOp(t_, "seed_back", OpRole::kBackward), nullptr);
  // at::blank({}).mix_(self): `self` may require grad, so autograd records mix_.
  ASSERT_NE(Step("mix_"), nullptr);
  EXPECT_FALSE(Step("mix_")->below_autograd);
  EXPECT_NE(FindOp(t_, "mix_back", OpRole::kBackward), nullptr);
}

TEST_F(BackwardTrace, TheBackwardOfAnOpenForwardOpIsOpen) {
  const OpStep* side = FindOp(t_, "side_op");
  ASSERT_NE(side, nullptr);
  EXPECT_FALSE(side->typical);
  EXPECT_TRUE(side->undecided);
  const OpStep* back = FindOp(t_, "side_back", OpRole::kBackward);
  ASSERT_NE(back, nullptr);
  EXPECT_FALSE(back->typical);
  EXPECT_TRUE(back->undecided);
  const OpStep* where = FindOp(t_, "where.self", OpRole::kBackward);
  ASSERT_NE(where, nullptr);
  EXPECT_TRUE(where->typical);
}

// A third tree for what C++ types decide: a helper's Tensor result passed to
// an out= call (`at::scale_out(out, self, wrapped(s))` is scale.out, not
// the Scalar one), a group of tensor arithmetic as an operand, an
// unqualified x_symint(...) naming op x, and a
// formula's arithmetic on numbers (`2.0 / sqrt(M_PI)`, `-0.5`) beside a
// number on the left of a tensor (`1 - self`: empty_like, fill_, sub_).
constexpr char kTypedFunctions[] = R"x(- func: to_rad(Tensor self) -> Tensor
  dispatch:
    CUDA: to_rad_cuda

- func: pool_it(Tensor self) -> Tensor
  dispatch:
    CUDA: pool_it_cuda

- func: keep_it(Tensor self, float p) -> Tensor
  dispatch:
    CUDA: keep_it_cuda

- func: eq.Tensor(Tensor self, Tensor other) -> Tensor
  variants: function, method
  dispatch:
    CompositeExplicitAutograd: eq

- func: ge.Tensor(Tensor self, Tensor other) -> Tensor
  variants: function, method
  dispatch:
    CompositeExplicitAutograd: ge

- func: scale.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)
  dispatch:
    CUDA: scale_out_cuda

- func: scale.Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out) -> Tensor(a!)
  dispatch:
    CUDA: scale_scalar_out_cuda

- func: add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor
  variants: function, method
  dispatch:
    CompositeExplicitAutograd: add

- func: sub.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor
  variants: function, method
  dispatch:
    CompositeExplicitAutograd: sub

- func: sub_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)
  variants: method
  dispatch:
    CompositeExplicitAutograd: sub_

- func: div.Tensor(Tensor self, Tensor other) -> Tensor
  variants: function, method
  dispatch:
    CompositeExplicitAutograd: div

- func: mul.Tensor(Tensor self, Tensor other) -> Tensor
  variants: function, method
  dispatch:
    CompositeExplicitAutograd: mul

- func: neg(Tensor self) -> Tensor
  variants: function, method
  dispatch:
    CompositeExplicitAutograd: neg

- func: sqrt(Tensor self) -> Tensor
  variants: function, method
  dispatch:
    CompositeExplicitAutograd: sqrt

- func: exp(Tensor self) -> Tensor
  variants: function, method
  dispatch:
    CompositeExplicitAutograd: exp

- func: empty_like(Tensor self) -> Tensor
  dispatch:
    CompositeExplicitAutograd: empty_like

- func: fill_.Scalar(Tensor(a!) self, Scalar value) -> Tensor(a!)
  variants: function, method
  dispatch:
    CompositeExplicitAutograd: fill_
)x";

constexpr char kTypedDerivatives[] = R"x(- name: to_rad(Tensor self) -> Tensor
  self: "2.0 / sqrt(M_PI) * exp(-self) * grad + -0.5 * grad * (1 - self)"

- name: keep_it(Tensor self, float p) -> Tensor
  self: "grad * (p == 1 ? 0.0 : 1.0 / (1.0 - p)) * (self >= p)"
)x";

// aten/src/ATen/native/cuda/ToRad.cu
constexpr char kToRadCu[] = R"x(namespace at::native {
Tensor wrapped(const Scalar& s) {
  return s;
}
Tensor to_rad_cuda(const Tensor& self, const Tensor& other, double margin) {
  auto result = at::empty_like(self);
  at::scale_out(result, self, wrapped(3.14));
  auto shifted = (self - other) + margin;
  auto pooled = pool_it_symint(self);
  auto flipped = margin - self;
  return result;
}
Tensor pool_it_cuda(const Tensor& self) {
  return self;
}
} // namespace at::native
)x";

class TypedTrace : public ::testing::Test {
 protected:
  void SetUp() override {
    auto disk = std::make_shared<MemoryDisk>();
    disk->Add("version.txt", "2.6.0a0\n");
    disk->Add("aten/src/ATen/native/native_functions.yaml", kTypedFunctions);
    disk->Add("tools/autograd/derivatives.yaml", kTypedDerivatives);
    disk->Add("aten/src/ATen/native/cuda/ToRad.cu", kToRadCu);
    ASSERT_NO_FATAL_FAILURE(BuildMemoryIndex(disk, &index_));
    TraceOptions options;
    options.device = TraceOptions::Device::kCuda;
    options.snippets = false;
    Status s = TraceQuery(index_, "aten::to_rad", options, &t_);
    ASSERT_TRUE(s.ok()) << s.message();
  }

  Index index_;
  Trace t_;
};

TEST_F(TypedTrace, AHelpersTensorResultPicksTheTensorOutOverload) {
  EXPECT_NE(FindOp(t_, "scale.out"), nullptr);
  EXPECT_EQ(FindOp(t_, "scale.Scalar_out"), nullptr);
}

TEST_F(TypedTrace, AGroupOfTensorArithmeticIsATensorOperand) {
  // (self - other) + margin: sub on the tensors, then add on their result.
  const OpStep* op = FindOp(t_, "to_rad");
  ASSERT_NE(op, nullptr);
  std::vector<std::string> calls;
  for (const auto& c : op->calls) calls.push_back(c.op + "@" + std::to_string(c.where.line));
  EXPECT_NE(std::find(calls.begin(), calls.end(), "sub@8"), calls.end());
  EXPECT_NE(std::find(calls.begin(), calls.end(), "add@8"), calls.end());
}

TEST_F(TypedTrace, ANumberLeftOfATensorIsFilledThenSubtracted) {
  // margin - self with a double margin: empty_like(self).fill_(margin).sub_(self).
  const OpStep* op = FindOp(t_, "to_rad");
  ASSERT_NE(op, nullptr);
  std::vector<std::string> calls;
  for (const auto& c : op->calls)
    if (c.where.line == 10) calls.push_back(c.op);
  EXPECT_EQ(calls, (std::vector<std::string>{"sub_", "empty_like", "fill_"}));
}

TEST_F(TypedTrace, AnUnqualifiedSymIntOpCallIsTheOp) {
  // pool_it_symint(self) in at::native, which defines no such function: at::pool_it_symint.
  const OpStep* op = FindOp(t_, "to_rad");
  ASSERT_NE(op, nullptr);
  bool called = false;
  for (const auto& c : op->calls) called = called || (c.op == "pool_it" && c.where.line == 9);
  EXPECT_TRUE(called);
  EXPECT_NE(FindOp(t_, "pool_it"), nullptr);
}

TEST_F(TypedTrace, AFormulasArithmeticOnNumbersIsNoOp) {
  ASSERT_EQ(t_.backward.size(), 1u);
  std::vector<std::string> ops = t_.backward[0].ops;
  std::sort(ops.begin(), ops.end());
  // sqrt(M_PI) is C's sqrt, 2.0 / it a double, -0.5 a literal; exp(-self)
  // negates a tensor; 1 - self is TensorOperators.h's empty_like(self).fill_(1).sub_(self).
  EXPECT_EQ(ops, (std::vector<std::string>{"add", "empty_like", "exp", "fill_", "mul", "neg", "sub_"}));
}

TEST_F(TypedTrace, AFormulasComparisonOfNumbersIsNoOp) {
  // derivatives.yaml's native_dropout: `p == 1` of its `float p` is C++'s
  // comparison; `self >= p` compares a tensor.
  TraceOptions options;
  options.device = TraceOptions::Device::kCuda;
  options.snippets = false;
  Trace t;
  ASSERT_TRUE(TraceQuery(index_, "aten::keep_it", options, &t).ok());
  ASSERT_EQ(t.backward.size(), 1u);
  std::vector<std::string> ops = t.backward[0].ops;
  std::sort(ops.begin(), ops.end());
  EXPECT_EQ(ops, (std::vector<std::string>{"ge", "mul"}));
}

// A fourth tree for what a comparison is made on: a method of what is no
// Tensor (std::variant::index, IntArrayRef::slice of sizes()) returns no
// Tensor though an op shares its name, and an `auto` holding a list
// element's dtype() is no Tensor though the list holds Tensors.
constexpr char kCompareFunctions[] =
    R"x(- func: check_it(Tensor self, Tensor[] tensors, Scalar ord, Tensor? weight) -> Tensor
  dispatch:
    CUDA: check_it_cuda

- func: eq.Tensor(Tensor self, Tensor other) -> Tensor
  variants: function, method
  dispatch:
    CompositeExplicitAutograd: eq

- func: ne.Tensor(Tensor self, Tensor other) -> Tensor
  variants: function, method
  dispatch:
    CompositeExplicitAutograd: ne

- func: mul.Tensor(Tensor self, Tensor other) -> Tensor
  variants: function, method
  dispatch:
    CompositeExplicitAutograd: mul

- func: index.Tensor(Tensor self, Tensor?[] indices) -> Tensor
  variants: function, method
  dispatch:
    CompositeExplicitAutograd: index

- func: sum(Tensor self) -> Tensor
  variants: function, method
  dispatch:
    CompositeExplicitAutograd: sum

- func: slice.Tensor(Tensor(a) self, int dim=0, SymInt? start=None, SymInt? end=None, SymInt step=1) -> Tensor(a)
  variants: function, method
  dispatch:
    CompositeExplicitAutograd: slice
)x";

// aten/src/ATen/native/cuda/CheckIt.cu
constexpr char kCheckItCu[] = R"x(namespace at::native {
Tensor check_it_cuda(const Tensor& self, const std::vector<Tensor>& tensors, std::variant<Scalar, std::string_view> ord,
                     const std::optional<Tensor>& weight) {
  const auto dtype = tensors[0].dtype();
  bool same = tensors[1].dtype() == dtype;
  bool first = ord.index() == 0;
  if (self.sizes().slice(1) != self.sizes().slice(2)) {
    return self;
  }
  const auto& held = weight.value();
  bool all_one = held.sum() == 1;
  return self * self;
}
} // namespace at::native
)x";

TEST(CompareTrace, AComparisonOfWhatIsNoTensorIsNoOp) {
  auto disk = std::make_shared<MemoryDisk>();
  disk->Add("version.txt", "2.6.0a0\n");
  disk->Add("aten/src/ATen/native/native_functions.yaml", kCompareFunctions);
  disk->Add("aten/src/ATen/native/cuda/CheckIt.cu", kCheckItCu);
  Index index;
  ASSERT_NO_FATAL_FAILURE(BuildMemoryIndex(disk, &index));
  TraceOptions options;
  options.device = TraceOptions::Device::kCuda;
  options.snippets = false;
  Trace t;
  Status s = TraceQuery(index, "aten::check_it", options, &t);
  ASSERT_TRUE(s.ok()) << s.message();
  const OpStep* op = FindOp(t, "check_it");
  ASSERT_NE(op, nullptr);
  std::vector<std::string> calls;
  for (const auto& c : op->calls) calls.push_back(c.op + "@" + std::to_string(c.where.line));
  // Line 11's sum() == on the Tensor an optional holds, and line 12's self * self: not
  // line 5's dtype ==, line 6's index() ==, line 7's slice !=.
  std::sort(calls.begin(), calls.end());
  EXPECT_EQ(calls, (std::vector<std::string>{"eq@11", "mul@12", "sum@11"}));
}

}  // namespace
}  // namespace optrace
