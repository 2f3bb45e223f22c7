// What a selection's alternatives list ("select_backend decides in attend:
// when backend == Backend::fast: ..."), on a small MemoryDisk tree written
// here: only calls some choice of the decider runs for this device, and no
// "selection" where a condition compares two values. Line numbers are lines
// of the raw strings below (each starts at line 1 of its file).
#include <gtest/gtest.h>

#include <map>
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

- func: blend(Tensor self) -> Tensor
  dispatch:
    CUDA: blend_cuda

- func: cell(Tensor self) -> Tensor

- func: spread(Tensor self) -> Tensor
  dispatch:
    CUDA: spread_cuda

- func: spread_sum(Tensor self) -> Tensor
  dispatch:
    CUDA: spread_sum_cuda

- func: shaped(Tensor self) -> Tensor

- func: applied(Tensor self) -> Tensor

- func: plain_linear(Tensor self) -> Tensor

- func: packed_linear(Tensor self) -> Tensor

- func: dispatch_kind(Tensor self) -> Tensor

- func: gpu_only(Tensor self) -> Tensor
  dispatch:
    CUDA: gpu_only_cuda
)x";

// aten/src/ATen/native/Cell.cpp: one virtual function, two classes'
// overrides (RNN.cpp's CellParams and QuantizedCellParams::linear_ih),
// then two overloads of one free function.
constexpr char kCellCpp[] = R"x(namespace at::native {

struct ParamsBase {
  virtual Tensor linear_ih(const Tensor& x) const = 0;
};
struct Params : ParamsBase {
  Tensor linear_ih(const Tensor& x) const override { return at::plain_linear(x); }
};
struct PackedParams : ParamsBase {
  Tensor linear_ih(const Tensor& input) const override { return at::packed_linear(input); }
};

template <typename cell_params>
Tensor run_cell(const Tensor& self, const cell_params& params) {
  return params.linear_ih(self);
}
Tensor cell(const Tensor& self) { return run_cell(self, pick_params(self)); }

Tensor reshape_to(const Tensor& self) { return at::plain_linear(self); }
Tensor reshape_to(const Tensor& self, int64_t n) { return at::plain_linear(self); }

Tensor shaped(const Tensor& self) { return reshape_to(self); }

template <bool inplace>
Tensor& apply_to(Tensor& self) { return at::packed_linear(self); }
template <bool inplace>
Tensor apply_to(const Tensor& self) { return at::plain_linear(self); }
template <bool inplace, typename T>
Tensor run_apply(T& self) { return apply_to<inplace>(self); }
Tensor applied(const Tensor& self) { return run_apply<false>(self); }

} // namespace at::native
)x";

// aten/src/ATen/native/Blend.h
constexpr char kBlendH[] = R"x(#pragma once
namespace at::native {
using blend_fn = void (*)(const Tensor&);
DECLARE_DISPATCH(blend_fn, blend_half_stub);
} // namespace at::native
)x";

// aten/src/ATen/native/cuda/Blend.cu
constexpr char kBlendCu[] = R"x(#include <ATen/native/Blend.h>
namespace at::native {

DEFINE_DISPATCH(blend_half_stub);

bool use_half_path(const Tensor& self) {
  return self.scalar_type() == at::kHalf;
}

__global__ void blend_generic_kernel(float* out) {}

void blend_half_cuda(const Tensor& self) {
  cublasHgemm(handle, self.data_ptr());
}

Tensor blend_cuda(const Tensor& self) {
  if (use_half_path(self)) {
    blend_half_stub(self.device().type(), self);
    return self;
  }
  blend_generic_kernel<<<1, 1>>>(nullptr);
  if (self.is_complex()) {
    cufftExecC2C(plan, nullptr, nullptr, 0);
  }
  if (self.is_sparse()) {
    cusparseSpMM(handle);
  }
  cusparseCreate(&handle);
  return self;
}

REGISTER_CUDA_DISPATCH(blend_half_stub, &blend_half_cuda);

} // namespace at::native
)x";

// aten/src/ATen/native/xnnpack/Conv.cpp: XNNPACK, a CPU library.
constexpr char kXnnConvCpp[] = R"x(namespace at::native::xnnpack {
Tensor xnn_conv(const Tensor& self) { return self; }
} // namespace at::native::xnnpack
)x";

// aten/src/ATen/native/Attend.cpp
constexpr char kAttendCpp[] = R"x(namespace at::native {

Backend select_backend(const Tensor& self) {
  if (self.dim() > 2) {
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

Backend select_kind(const Tensor& self) {
  if (self.dim() > 3) {
    return Backend::fast;
  }
  if (self.dim() > 2) {
    return Backend::middle;
  }
  if (self.dim() > 1) {
    return Backend::tiny;
  }
  return Backend::slow;
}

Tensor gpu_only_cuda(const Tensor& self) { return self; }

Tensor dispatch_kind(const Tensor& self) {
  auto kind = select_kind(self);
  if (kind == Backend::fast) {
    return at::gpu_only(self);
  }
  if (kind == Backend::middle) {
    blend_half_stub(self.device().type(), self);
    return self;
  }
  if (kind == Backend::tiny) {
    return xnnpack::xnn_conv(self);
  }
  return slow_path(self);
}

} // namespace at::native
)x";

// aten/src/ATen/native/Spread.h
constexpr char kSpreadH[] = R"x(#pragma once
namespace at::native {
using spread_fn = void (*)(const Tensor&);
DECLARE_DISPATCH(spread_fn, spread_reduce_stub);
DECLARE_DISPATCH(spread_fn, spread_fill_stub);
} // namespace at::native
)x";

// aten/src/ATen/native/cuda/Spread.cu: two stubs passed by name to a
// helper that calls one of them, as the call's `reduce` decides.
constexpr char kSpreadCu[] = R"x(#include <ATen/native/Spread.h>
namespace at::native {

DEFINE_DISPATCH(spread_reduce_stub);
DEFINE_DISPATCH(spread_fill_stub);

__global__ void spread_reduce_kernel(float* out) {}
__global__ void spread_fill_kernel(float* out) {}

void spread_reduce_cuda(const Tensor& self) { spread_reduce_kernel<<<1, 1>>>(nullptr); }
void spread_fill_cuda(const Tensor& self) { spread_fill_kernel<<<1, 1>>>(nullptr); }

template <typename ReduceStub, typename FillStub>
void spread_impl(const Tensor& self, ReduceStub& reduce_stub, FillStub& fill_stub,
                 const std::optional<std::string_view> reduce = std::nullopt) {
  if (reduce.has_value()) {
    reduce_stub(self.device().type(), self);
  } else {
    fill_stub(self.device().type(), self);
  }
}

Tensor spread_cuda(const Tensor& self) {
  spread_impl(self,
              spread_reduce_stub,
              spread_fill_stub);
  return self;
}

Tensor spread_sum_cuda(const Tensor& self) {
  spread_impl(self, spread_reduce_stub, spread_fill_stub, "sum");
  return self;
}

REGISTER_CUDA_DISPATCH(spread_reduce_stub, &spread_reduce_cuda);
REGISTER_CUDA_DISPATCH(spread_fill_stub, &spread_fill_cuda);

} // namespace at::native
)x";

std::shared_ptr<MemoryDisk> SelectionTree() {
  return MemoryTree({{"version.txt", "2.6.0a0\n"},
                     {"aten/src/ATen/native/native_functions.yaml", kNativeFunctions},
                     {"aten/src/ATen/native/Attend.cpp", kAttendCpp},
                     {"aten/src/ATen/native/xnnpack/Conv.cpp", kXnnConvCpp},
                     {"aten/src/ATen/native/Blend.h", kBlendH},
                     {"aten/src/ATen/native/cuda/Blend.cu", kBlendCu},
                     {"aten/src/ATen/native/Cell.cpp", kCellCpp},
                     {"aten/src/ATen/native/Spread.h", kSpreadH},
                     {"aten/src/ATen/native/cuda/Spread.cu", kSpreadCu}});
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
  // Attend.cpp:21 fast_cpu_path runs for Backend::fast only off CUDA (:18-20 return first).
  Trace t = TraceIndex(index_, "aten::attend", TraceOptions::Device::kCuda, {});
  EXPECT_EQ(Alternatives(t, "select_backend"), (std::vector<std::string>{"fast_cuda_path", "slow_path"}));
  Trace cpu = TraceIndex(index_, "aten::attend", TraceOptions::Device::kCpu, {"device=cpu"});
  EXPECT_EQ(Alternatives(cpu, "select_backend"), (std::vector<std::string>{"fast_cpu_path", "slow_path"}));
}

TEST_F(Selections, ABranchCallingAnOpWithNoKernelForTheDeviceIsNoAlternative) {
  // Attend.cpp dispatch_kind: Backend::fast calls at::gpu_only, which only CUDA implements,
  // Backend::middle blend_half_stub, which only CUDA registers (Blend.cu); a CPU tensor
  // never takes those branches (they would fail). Backend::tiny calls XNNPACK
  // (xnnpack/Conv.cpp), a CPU library: no CUDA tensor's.
  Trace cuda = TraceIndex(index_, "aten::dispatch_kind", TraceOptions::Device::kCuda, {});
  EXPECT_EQ(Alternatives(cuda, "select_kind"), (std::vector<std::string>{"gpu_only", "blend_half_stub", "slow_path"}));
  Trace cpu = TraceIndex(index_, "aten::dispatch_kind", TraceOptions::Device::kCpu, {"device=cpu"});
  EXPECT_EQ(Alternatives(cpu, "select_kind"), (std::vector<std::string>{"xnn_conv", "slow_path"}));
}

TEST_F(Selections, AComparisonOfTwoValuesSelectsNothing) {
  // Attend.cpp:34 `if (dim0 == dim1)`: both sides come from wrap(); neither is a choice among constants.
  Trace t = TraceIndex(index_, "aten::swap_dims", TraceOptions::Device::kCuda, {});
  ASSERT_FALSE(t.ops.empty());
  EXPECT_TRUE(Alternatives(t, "wrap").empty());
  EXPECT_TRUE(t.selections.empty());
}

TEST_F(Selections, AStubAndItsLibraryRunWhereTheirCallIsTaken) {
  // Blend.cu:17-18: blend_half_stub is called when use_half_path(self) (:6-8, a kHalf test);
  // cufftExecC2C (:23) when self.is_complex() (:22), never for a real dtype; cuSPARSE (:26, :28).
  for (const auto& [dtype, taken] : {std::pair<std::string, bool>{"float32", false}, {"float16", true}}) {
    Trace t = TraceIndex(index_, "aten::blend", TraceOptions::Device::kCuda, {"dtype=" + dtype});
    const OpStep* op = FindOp(t, "blend");
    ASSERT_NE(op, nullptr);
    ASSERT_EQ(op->stubs.size(), 1u);
    EXPECT_EQ(op->stubs[0].typical, taken) << dtype;
    EXPECT_FALSE(op->stubs[0].undecided) << dtype;
    ASSERT_EQ(op->stubs[0].when.size(), 1u);
    EXPECT_EQ(op->stubs[0].when[0].where.line, 17);
    ASSERT_EQ(op->libraries.size(), 3u) << "cuBLAS through the stub, cuFFT and cuSPARSE called in blend_cuda";
    for (const auto& l : op->libraries) {
      // cuFFT: one entry point, `if (self.is_complex())`; cuSPARSE: two, the first behind
      // is_sparse(), the second not -- it runs where either does: past the half path's
      // early return (:19), so not at float16.
      const bool runs = (l.name == "cuSPARSE" && !taken) || (l.name == "cuBLAS" && taken);
      EXPECT_EQ(l.typical, runs) << l.name << " " << dtype;
    }
  }
}

// Cell.cpp:15 `params.linear_ih(self)` on a template parameter's value:
// Params' override (:7) calls plain_linear, PackedParams' (:10) packed_linear;
// which runs is the receiver's class, so neither is the typical path.
// reshape_to's two overloads (:19-20) share one scope: no such condition.
TEST_F(Selections, AVirtualCallSeveralClassesAnswerIsOpen) {
  Trace t = TraceIndex(index_, "aten::cell", TraceOptions::Device::kCuda, {});
  std::string listed;
  for (const auto& o : t.ops) listed += o.name + " ";
  for (const char* name : {"plain_linear", "packed_linear"}) {
    const OpStep* op = nullptr;
    for (const auto& o : t.ops)
      if (o.name == name) op = &o;
    ASSERT_NE(op, nullptr) << name << " in " << listed;
    EXPECT_FALSE(op->typical && !op->undecided) << name;
    bool said = false;
    for (const auto& c : op->when) said = said || c.text.find("one of 2 classes' linear_ih runs") != std::string::npos;
    EXPECT_TRUE(said) << name;
  }
  Trace shaped = TraceIndex(index_, "aten::shaped", TraceOptions::Device::kCuda, {});
  bool reached = false;
  for (const auto& o : shaped.ops) {
    if (o.name != "plain_linear") continue;
    reached = true;
    EXPECT_TRUE(o.typical && !o.undecided);
    for (const auto& c : o.when) EXPECT_EQ(c.text.find("classes'"), std::string::npos) << c.text;
  }
  EXPECT_TRUE(reached);
}

// Cell.cpp:24-30: apply_to's two overloads differ in const alone, so the
// template argument of run_apply (`T& self`) picks; neither is the typical path.
TEST_F(Selections, OverloadsATemplateArgumentPicksAreOpen) {
  Trace t = TraceIndex(index_, "aten::applied", TraceOptions::Device::kCuda, {});
  for (const char* name : {"plain_linear", "packed_linear"}) {
    const OpStep* op = nullptr;
    for (const auto& o : t.ops)
      if (o.name == name) op = &o;
    ASSERT_NE(op, nullptr) << name;
    EXPECT_FALSE(op->typical && !op->undecided) << name;
    bool said = false;
    for (const auto& c : op->when)
      said =
          said || c.text.find("one of 2 overloads of apply_to runs (a template argument picks)") != std::string::npos;
    EXPECT_TRUE(said) << name;
  }
}

// "taken", "open" or "ruled out": a stub's or kernel's mark.
template <typename Step>
std::string MarkOf(const Step& s) {
  return s.undecided ? "open" : s.typical ? "taken" : "ruled out";
}

TEST_F(Selections, AStubPassedToAHelperRunsWhereTheHelperCallsItsParameter) {
  // Spread.cu:16-19: spread_impl calls reduce_stub when reduce.has_value(), else fill_stub;
  // spread_cuda (:24-26) passes the stubs over three lines and leaves reduce at std::nullopt,
  // spread_sum_cuda (:31) passes "sum".
  for (const auto& [query, reduce] :
       {std::pair<std::string, bool>{"aten::spread", false}, {"aten::spread_sum", true}}) {
    Trace t = TraceIndex(index_, query, TraceOptions::Device::kCuda, {});
    ASSERT_FALSE(t.ops.empty()) << query;
    std::map<std::string, std::string> marks;
    for (const auto& s : t.ops.front().stubs) marks[s.name] = MarkOf(s);
    for (const auto& k : t.ops.front().kernels) marks[k.name] = MarkOf(k);
    const std::string taken = reduce ? "spread_reduce" : "spread_fill",
                      other = reduce ? "spread_fill" : "spread_reduce";
    EXPECT_EQ(marks[taken + "_stub"], "taken") << query;
    EXPECT_EQ(marks[other + "_stub"], "ruled out") << query;
    EXPECT_EQ(marks[taken + "_kernel"], "taken") << query;
    EXPECT_EQ(marks[other + "_kernel"], "ruled out") << query;
  }
}

}  // namespace
}  // namespace optrace
