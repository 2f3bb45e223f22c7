// Hermetic tracer tests: the tracer on a small MemoryDisk tree written here
// (two structured and plain ops in native_functions.yaml, their derivatives,
// a dispatch stub declared in a header, defined and called by a
// TORCH_IMPL_FUNC, registered for CPU and CUDA, a __global__ kernel and its
// <<<>>> launch, a functional in torch/nn/functional.py). They need no
// downloaded tree and run in milliseconds, so a tracer change gets a fast
// answer here first; trace_test.cc holds the facts of the real trees. Every
// line number below is the line in the text of this file's tree (each raw
// string starts at line 1 of its file).
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <memory>
#include <string>

#include "testing/memory_index.h"
#include "trace/trace.h"
#include "trace/trace_test_util.h"

namespace optrace {
namespace {

// version.txt
constexpr char kVersion[] = R"x(2.6.0a0
)x";

// aten/src/ATen/native/native_functions.yaml
constexpr char kNativeFunctions[] = R"x(- func: frob.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)
  structured: True
  structured_inherits: TensorIteratorBase
  dispatch:
    CPU, CUDA: frob_out

- func: frob(Tensor self) -> Tensor
  structured_delegate: frob.out
  variants: function, method

- func: frob_backward(Tensor grad, Tensor self) -> Tensor
  dispatch:
    CompositeImplicitAutograd: frob_backward

- func: twiddle(Tensor self, int n=1) -> Tensor
  dispatch:
    CPU: twiddle_cpu
    CUDA: twiddle_cuda

- func: scatter_sum(Tensor self) -> Tensor
  dispatch:
    CUDA: scatter_sum_cuda

- func: select.int(Tensor(a) self, int dim, SymInt index) -> Tensor(a)
  variants: function, method
  dispatch:
    CompositeExplicitAutograd: select

- func: glint.out(Tensor self, Scalar level, *, Tensor(a!) out) -> Tensor(a!)
  structured: True
  structured_inherits: TensorIteratorBase
  dispatch:
    CUDA: glint_out

- func: glint(Tensor self, Scalar level) -> Tensor
  structured_delegate: glint.out

- func: glow(Tensor self) -> Tensor
  dispatch:
    CUDA: glow_cuda
)x";

// aten/src/ATen/native/Glint.h, Glint.cpp, cuda/Glint.cu: a stub whose
// kernel branches on the Scalar the stub call passes.
constexpr char kGlintH[] = R"x(#pragma once
namespace at::native {
using glint_fn = void (*)(TensorIteratorBase&, const Scalar&);
DECLARE_DISPATCH(glint_fn, glint_stub);
} // namespace at::native
)x";
constexpr char kGlintCpp[] = R"x(#include <ATen/native/Glint.h>
namespace at::native {
DEFINE_DISPATCH(glint_stub);

TORCH_IMPL_FUNC(glint_out) (const Tensor& self, const Scalar& level, const Tensor& result) {
  glint_stub(device_type(), *this, level);
}

Tensor glow_cuda(const Tensor& self) {
  return at::glint(self, 2);
}
} // namespace at::native
)x";
constexpr char kGlintCu[] = R"x(#include <ATen/native/Glint.h>
namespace at::native {
void halve_kernel_cuda(TensorIteratorBase& iter) {
  gpu_kernel(iter, []GPU_LAMBDA(float a) -> float { return a / 2; });
}
void double_kernel_cuda(TensorIteratorBase& iter) {
  gpu_kernel(iter, []GPU_LAMBDA(float a) -> float { return a * 2; });
}
void glint_kernel_cuda(TensorIteratorBase& iter, const Scalar& level) {
  if (level.equal(0.5)) {
    return halve_kernel_cuda(iter);
  }
  double_kernel_cuda(iter);
}
REGISTER_DISPATCH(glint_stub, &glint_kernel_cuda);
} // namespace at::native
)x";

// tools/autograd/derivatives.yaml
constexpr char kDerivatives[] = R"x(- name: frob(Tensor self) -> Tensor
  self: frob_backward(grad, self)
  result: auto_element_wise

- name: twiddle(Tensor self, int n=1) -> Tensor
  self: grad * n
)x";

// aten/src/ATen/native/Frob.h
constexpr char kFrobH[] = R"x(#pragma once
#include <ATen/native/DispatchStub.h>

namespace at::native {
using frob_fn = void (*)(TensorIteratorBase&);
DECLARE_DISPATCH(frob_fn, frob_stub);
} // namespace at::native
)x";

// aten/src/ATen/native/Frob.cpp
constexpr char kFrobCpp[] = R"x(#include <ATen/native/Frob.h>

namespace at::meta {
TORCH_META_FUNC(frob) (const Tensor& self) {
  build_borrowing_unary_op(maybe_get_output(), self);
}
} // namespace at::meta

namespace at::native {

DEFINE_DISPATCH(frob_stub);

TORCH_IMPL_FUNC(frob_out) (const Tensor& self, const Tensor& result) {
  frob_stub(device_type(), *this);
}

Tensor frob_backward(const Tensor& grad, const Tensor& self) {
  return grad * 2;
}

Tensor twiddle_cpu(const Tensor& self, int64_t n) {
  return self.clone();
}

} // namespace at::native
)x";

// aten/src/ATen/native/cpu/FrobKernel.cpp
constexpr char kFrobKernelCpp[] = R"x(#include <ATen/native/Frob.h>

namespace at::native {
namespace {

void frob_kernel(TensorIteratorBase& iter) {
  cpu_kernel(iter, [](float a) -> float { return a * 2; });
}

} // namespace

REGISTER_DISPATCH(frob_stub, &frob_kernel);
} // namespace at::native
)x";

// aten/src/ATen/native/cuda/Frob.cu
constexpr char kFrobCu[] = R"x(#include <ATen/native/Frob.h>

namespace at::native {

__global__ void twiddle_kernel(float* out, const float* in, int64_t n) {
  int64_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i];
}

Tensor twiddle_cuda(const Tensor& self, int64_t n) {
  Tensor out = at::empty_like(self);
  twiddle_kernel<<<1, 128, 0, at::cuda::getCurrentCUDAStream()>>>(out.data_ptr<float>(), self.data_ptr<float>(), self.numel());
  return out;
}

void frob_kernel_cuda(TensorIteratorBase& iter) {
  gpu_kernel(iter, []GPU_LAMBDA(float a) -> float { return a * 2; });
}

REGISTER_DISPATCH(frob_stub, &frob_kernel_cuda);

__device__ void bump(float* at, float v) {
  gpuAtomicAddNoReturn(at, v);
}

__global__ void scatter_kernel(float* out, const float* in, int64_t n) {
  bump(out, in[threadIdx.x]);
}

Tensor scatter_sum_cuda(const Tensor& self) {
  globalContext().alertNotDeterministic("scatter_sum_cuda");
  Tensor out = at::zeros_like(self);
  scatter_kernel<<<1, 128, 0, at::cuda::getCurrentCUDAStream()>>>(out.data_ptr<float>(), self.data_ptr<float>(), self.numel());
  return out;
}

} // namespace at::native
)x";

// torch/nn/functional.py
constexpr char kFunctionalPy[] = R"x(import torch


def frob(input):
    r"""Frobnicates."""
    return torch.frob(input)


def twiddle(input, n=1):
    return torch.twiddle(input, n)


def first_row(input: Tensor, names: List[str]):
    label = names[0]
    rows = input[1:]
    return input[-1]
)x";

// torch/nn/__init__.py
constexpr char kNnInitPy[] = R"x(from . import functional
)x";

// torch/__init__.py
constexpr char kTorchInitPy[] = R"x(import torch.nn
)x";

constexpr char kFrobCppPath[] = "aten/src/ATen/native/Frob.cpp";
constexpr char kFrobCuPath[] = "aten/src/ATen/native/cuda/Frob.cu";

std::shared_ptr<MemoryDisk> MiniTree() {
  return MemoryTree({{"version.txt", kVersion},
                     {"aten/src/ATen/native/native_functions.yaml", kNativeFunctions},
                     {"tools/autograd/derivatives.yaml", kDerivatives},
                     {"aten/src/ATen/native/Frob.h", kFrobH},
                     {kFrobCppPath, kFrobCpp},
                     {"aten/src/ATen/native/cpu/FrobKernel.cpp", kFrobKernelCpp},
                     {kFrobCuPath, kFrobCu},
                     {"aten/src/ATen/native/Glint.h", kGlintH},
                     {"aten/src/ATen/native/Glint.cpp", kGlintCpp},
                     {"aten/src/ATen/native/cuda/Glint.cu", kGlintCu},
                     {"torch/nn/functional.py", kFunctionalPy},
                     {"torch/nn/__init__.py", kNnInitPy},
                     {"torch/__init__.py", kTorchInitPy}});
}

class HermeticTrace : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_NO_FATAL_FAILURE(BuildMemoryIndex(MiniTree(), &index_)); }

  Trace TraceOf(const std::string& query, const TraceOptions& options = {}) {
    return TraceIndex(index_, query, options);
  }

  Index index_;
};

const ImplStep* FindImpl(const OpStep& op, const std::string& key) {
  for (const auto& i : op.impls) {
    if (i.key == key) return &i;
  }
  return nullptr;
}

const StubRegistrationStep* FindRegistration(const StubStep& stub, const std::string& device) {
  for (const auto& r : stub.registrations) {
    if (r.device == device) return &r;
  }
  return nullptr;
}

TEST_F(HermeticTrace, AnIntegerSubscriptOfATensorIsSelect) {
  // functional.py:16 `input[-1]` on a Tensor: select.int; :14 `names[0]` is a
  // list's, :15 `input[1:]` a slice (not followed).
  Trace t = TraceOf("F.first_row");
  ASSERT_NE(FindOp(t, "select.int"), nullptr);
  std::vector<int> lines;
  for (const auto& f : t.python)
    for (const auto& c : f.calls)
      if (c.resolved == "aten::select.int") lines.push_back(c.line);
  EXPECT_EQ(lines, (std::vector<int>{16}));
}

TEST_F(HermeticTrace, FunctionalReachesTheAtenOpThroughTorchCall) {
  Trace t = TraceOf("F.frob");
  EXPECT_EQ(t.target_kind, TargetKind::kFunctional);
  EXPECT_EQ(t.target_name, "torch.nn.functional.frob");
  ASSERT_EQ(t.python.size(), 1u);
  EXPECT_EQ(t.python[0].where.file, "torch/nn/functional.py");
  EXPECT_EQ(t.python[0].where.line, 4);  // def frob(input):
  ASSERT_EQ(t.python[0].calls.size(), 1u);
  EXPECT_EQ(t.python[0].calls[0].callee, "torch.frob");
  EXPECT_EQ(t.python[0].calls[0].line, 6);
  EXPECT_EQ(t.python[0].calls[0].resolved, "aten::frob");
  const OpStep* frob = FindOp(t, "frob");
  ASSERT_NE(frob, nullptr);
  ASSERT_NE(frob->yaml, nullptr);
  EXPECT_TRUE(frob->impls.empty());  // structured_delegate: its kernels are frob.out's
}

TEST_F(HermeticTrace, StructuredDelegateImplPerDispatchKey) {
  Trace t = TraceOf("F.frob");
  const OpStep* out = FindOp(t, "frob.out");
  ASSERT_NE(out, nullptr);
  EXPECT_EQ(out->reached_from, "frob");
  for (const char* key : {"CPU", "CUDA"}) {
    const ImplStep* impl = FindImpl(*out, key);
    ASSERT_NE(impl, nullptr) << key;
    EXPECT_EQ(impl->function, "frob_out");
    EXPECT_EQ(Name(impl->form), "TORCH_IMPL_FUNC");
    EXPECT_EQ(impl->where.file, kFrobCppPath);
    EXPECT_EQ(impl->where.line, 13);  // TORCH_IMPL_FUNC(frob_out) (...)
  }
  const ImplStep* meta = FindImpl(*out, "Meta");
  ASSERT_NE(meta, nullptr);
  EXPECT_EQ(Name(meta->form), "TORCH_META_FUNC");
  EXPECT_EQ(meta->where.line, 4);
}

TEST_F(HermeticTrace, StubDeclaredDefinedCalledAndRegisteredPerDevice) {
  Trace t = TraceOf("F.frob");
  const OpStep* out = FindOp(t, "frob.out");
  ASSERT_NE(out, nullptr);
  ASSERT_EQ(out->stubs.size(), 1u);
  const StubStep& stub = out->stubs[0];
  EXPECT_EQ(stub.name, "frob_stub");
  EXPECT_EQ(stub.declared.file, "aten/src/ATen/native/Frob.h");
  EXPECT_EQ(stub.declared.line, 6);  // DECLARE_DISPATCH(frob_fn, frob_stub);
  EXPECT_EQ(stub.defined.file, kFrobCppPath);
  EXPECT_EQ(stub.defined.line, 11);  // DEFINE_DISPATCH(frob_stub);
  EXPECT_EQ(stub.called_from, "frob_out");
  EXPECT_EQ(stub.call_site.line, 14);  // frob_stub(device_type(), *this);

  const StubRegistrationStep* cpu = FindRegistration(stub, "CPU");
  ASSERT_NE(cpu, nullptr);
  EXPECT_EQ(cpu->macro, "REGISTER_DISPATCH");
  EXPECT_EQ(cpu->target, "frob_kernel");
  EXPECT_EQ(cpu->where.file, "aten/src/ATen/native/cpu/FrobKernel.cpp");
  EXPECT_EQ(cpu->where.line, 12);
  EXPECT_EQ(cpu->target_definition.line, 6);  // void frob_kernel(TensorIteratorBase& iter)

  const StubRegistrationStep* cuda = FindRegistration(stub, "CUDA");
  ASSERT_NE(cuda, nullptr);
  EXPECT_EQ(cuda->target, "frob_kernel_cuda");
  EXPECT_EQ(cuda->where.file, kFrobCuPath);
  EXPECT_EQ(cuda->where.line, 20);
  EXPECT_EQ(cuda->target_definition.line, 16);
}

TEST_F(HermeticTrace, GpuKernelLambdaBehindTheStub) {
  Trace t = TraceOf("F.frob");
  const OpStep* out = FindOp(t, "frob.out");
  ASSERT_NE(out, nullptr);
  const KernelStep* k = FindKernel(*out, "frob_kernel_cuda");
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(Name(k->device), "CUDA");
  EXPECT_EQ(Name(k->launch), "gpu_kernel");
  EXPECT_EQ(k->where.file, kFrobCuPath);
  EXPECT_EQ(k->where.line, 17);  // gpu_kernel(iter, []GPU_LAMBDA ...)
  EXPECT_EQ(k->path, (std::vector<std::string>{"frob_out", "frob_stub", "frob_kernel_cuda"}));
}

TEST_F(HermeticTrace, GlobalKernelWithItsLaunchSite) {
  Trace t = TraceOf("aten::twiddle");
  const OpStep* op = FindOp(t, "twiddle");
  ASSERT_NE(op, nullptr);
  const ImplStep* cpu = FindImpl(*op, "CPU");
  ASSERT_NE(cpu, nullptr);
  EXPECT_EQ(cpu->function, "twiddle_cpu");
  EXPECT_EQ(cpu->where.file, kFrobCppPath);
  EXPECT_EQ(cpu->where.line, 21);
  const ImplStep* cuda = FindImpl(*op, "CUDA");
  ASSERT_NE(cuda, nullptr);
  EXPECT_EQ(cuda->function, "twiddle_cuda");
  EXPECT_EQ(cuda->where.file, kFrobCuPath);
  EXPECT_EQ(cuda->where.line, 10);
  const KernelStep* k = FindKernel(*op, "twiddle_kernel");
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(Name(k->device), "CUDA");
  EXPECT_EQ(Name(k->launch), "<<<>>>");
  EXPECT_EQ(k->where.file, kFrobCuPath);
  EXPECT_EQ(k->where.line, 5);         // __global__ void twiddle_kernel(...)
  EXPECT_EQ(k->launch_site.line, 12);  // twiddle_kernel<<<1, 128, 0, ...>>>(...)
}

TEST_F(HermeticTrace, AStubsKernelReadsWhatTheStubCallPasses) {
  // Glint.cpp:6 passes the TORCH_IMPL_FUNC's `level` to the stub; glow (:9)
  // calls glint(self, 2); the kernel (cuda/Glint.cu:9-14) halves for 0.5 only.
  auto launch = [](const Trace& t, const std::string& name) -> const KernelStep* {
    for (const auto& op : t.ops)
      if (op.name == "glint.out")
        for (const auto& k : op.kernels)
          if (k.name == name) return &k;
    return nullptr;
  };
  Trace glow = TraceOf("aten::glow");
  const KernelStep* halve = launch(glow, "halve_kernel_cuda");
  const KernelStep* twice = launch(glow, "double_kernel_cuda");
  ASSERT_TRUE(halve && twice);
  EXPECT_FALSE(halve->typical || halve->undecided) << "level is 2";
  EXPECT_TRUE(twice->typical && !twice->undecided);
  Trace glint = TraceOf("aten::glint");
  const KernelStep* open = launch(glint, "halve_kernel_cuda");
  ASSERT_NE(open, nullptr);
  EXPECT_TRUE(open->undecided) << "any level";
}

TEST_F(HermeticTrace, AtomicsAndNondeterminismAreNoted) {
  // Frob.cu:22-24 `bump` calls gpuAtomicAddNoReturn; scatter_kernel (:26) calls bump;
  // scatter_sum_cuda (:31) calls alertNotDeterministic.
  Trace t = TraceOf("aten::scatter_sum", {});
  const OpStep* op = FindOp(t, "scatter_sum");
  ASSERT_NE(op, nullptr);
  const KernelStep* k = FindKernel(*op, "scatter_kernel");
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->atomics, std::vector<std::string>{"gpuAtomicAddNoReturn"});
  ASSERT_EQ(op->nondeterministic.size(), 1u);
  EXPECT_EQ(op->nondeterministic[0].where.file, kFrobCuPath);
  EXPECT_EQ(op->nondeterministic[0].where.line, 31);
  Trace twiddle = TraceOf("aten::twiddle", {});
  const OpStep* plain = FindOp(twiddle, "twiddle");
  ASSERT_NE(plain, nullptr);
  const KernelStep* tk = FindKernel(*plain, "twiddle_kernel");
  ASSERT_NE(tk, nullptr);
  EXPECT_TRUE(tk->atomics.empty());
  EXPECT_TRUE(plain->nondeterministic.empty());
}

TEST_F(HermeticTrace, CpuOnlyLeavesTheCudaKernelOut) {
  TraceOptions cpu;
  cpu.device = TraceOptions::Device::kCpu;
  Trace t = TraceOf("aten::twiddle", cpu);
  const OpStep* op = FindOp(t, "twiddle");
  ASSERT_NE(op, nullptr);
  EXPECT_NE(FindImpl(*op, "CPU"), nullptr);
  EXPECT_EQ(FindImpl(*op, "CUDA"), nullptr);
  EXPECT_EQ(FindKernel(*op, "twiddle_kernel"), nullptr);
}

TEST_F(HermeticTrace, BackwardFromDerivativesYaml) {
  Trace t = TraceOf("F.frob");
  ASSERT_EQ(t.backward.size(), 1u);
  const BackwardStep& b = t.backward[0];
  EXPECT_EQ(b.op, "frob");
  ASSERT_NE(b.derivatives, nullptr);
  EXPECT_EQ(b.ops, std::vector<std::string>{"frob_backward"});
  const OpStep* bw = FindOp(t, "frob_backward", OpRole::kBackward);
  ASSERT_NE(bw, nullptr);
  EXPECT_EQ(bw->reached_from, "frob");
  const ImplStep* impl = FindImpl(*bw, "CompositeImplicitAutograd");
  ASSERT_NE(impl, nullptr);
  EXPECT_EQ(impl->where.file, kFrobCppPath);
  EXPECT_EQ(impl->where.line, 17);  // Tensor frob_backward(const Tensor& grad, ...)

  TraceOptions no_backward;
  no_backward.backward = false;
  Trace forward_only = TraceOf("F.frob", no_backward);
  EXPECT_TRUE(forward_only.backward.empty());
  EXPECT_EQ(FindOp(forward_only, "frob_backward", OpRole::kBackward), nullptr);
}

TEST_F(HermeticTrace, KernelNameTracesBottomUp) {
  Trace t = TraceOf("twiddle_kernel");
  EXPECT_EQ(t.target_kind, TargetKind::kKernel);
  EXPECT_NE(FindOp(t, "twiddle"), nullptr);
}

TEST_F(HermeticTrace, UnknownNameIsNotFoundWithASuggestion) {
  Trace t;
  Status s = TraceQuery(index_, "frobb", {}, &t);
  EXPECT_EQ(s.code(), ExitCode::kNotFound);
  EXPECT_TRUE(t.ops.empty());
  // Suggestions name their namespace; frob is also F.frob, the spelling users write.
  EXPECT_NE(std::find(t.suggestions.begin(), t.suggestions.end(), "F.frob"), t.suggestions.end())
      << ::testing::PrintToString(t.suggestions);
}

// The tree is the test's: an edit shows in the next index's trace, at the same root
// (each index reads its own file texts).
TEST(HermeticTraceEdit, RemovedRegistrationLeavesOnlyTheOtherDevice) {
  auto disk = MiniTree();
  std::string cu = kFrobCu;
  size_t at = cu.find("REGISTER_DISPATCH(frob_stub, &frob_kernel_cuda);");
  ASSERT_NE(at, std::string::npos);
  cu.replace(at, std::string("REGISTER_DISPATCH(frob_stub, &frob_kernel_cuda);").size(), "");
  disk->Add(kFrobCuPath, cu, 2);
  Index index;
  ASSERT_NO_FATAL_FAILURE(BuildMemoryIndex(disk, &index));
  Trace t;
  ASSERT_TRUE(TraceQuery(index, "F.frob", {}, &t).ok());
  const OpStep* out = FindOp(t, "frob.out");
  ASSERT_NE(out, nullptr);
  ASSERT_EQ(out->stubs.size(), 1u);
  EXPECT_NE(FindRegistration(out->stubs[0], "CPU"), nullptr);
  EXPECT_EQ(FindRegistration(out->stubs[0], "CUDA"), nullptr);
  EXPECT_EQ(FindKernel(*out, "frob_kernel_cuda"), nullptr);
}

}  // namespace
}  // namespace optrace
