// Recall regressions on the real trees: one test per mechanism through which
// code that really runs used to be missed -- a functor object made and called
// at once, a functor held in a variable or wrapped in another, an aten
// function passed by name to a helper, classes named in a call's template
// arguments (and their calls on the class template's parameter), Python
// helpers in any torch module, an alias naming itself, decorators that
// register decompositions, < > on tensors in derivative formulas, ATen code
// named like a vendor API (cudnn_*_stub), derivatives written per dispatch
// key, forward-mode formulas' helpers, self in a Tensor method, kernels
// torchgen generates (autogen), an op's definition chosen by its schema
// before its sources' device, a structured impl a macro writes, and
// Python parameters used as tensors, and the best of a helper's call
// sites. Every
// file and line was checked with grep/sed in the tree.
#include <gtest/gtest.h>

#include <algorithm>

#include "testing/test_util.h"
#include "trace/trace_internal.h"
#include "trace/trace_test_util.h"

namespace optrace {
namespace {

const KernelStep* Kernel(const Trace& t, const std::string& name, const std::string& file, int line) {
  for (const auto& op : t.ops) {
    for (const auto& k : op.kernels) {
      if (k.name == name && k.where.file == file && k.where.line == line) return &k;
    }
  }
  return nullptr;
}

bool OnPath(const KernelStep& k, const std::string& name) {
  return std::find(k.path.begin(), k.path.end(), name) != k.path.end();
}

bool HasOp(const Trace& t, const std::string& name) {
  return std::any_of(t.ops.begin(), t.ops.end(), [&](const OpStep& o) { return o.name == name; });
}

bool HasCall(const Trace& t, const std::string& op, const std::string& from, const std::string& file, int line) {
  for (const auto& o : t.ops) {
    for (const auto& c : o.calls) {
      if (c.op == op && c.from == from && c.where.file == file && c.where.line == line) return true;
    }
  }
  return false;
}

bool HasHelper(const Trace& t, const std::string& function, const std::string& file, int line) {
  for (const auto& o : t.ops) {
    for (const auto& h : o.helpers) {
      if (h.function == function && h.where.file == file && h.where.line == line) return true;
    }
  }
  return false;
}

bool HasFrame(const Trace& t, const std::string& symbol, const std::string& file, int line) {
  for (const auto& f : t.python) {
    if (f.symbol == symbol && f.where.file == file && f.where.line == line) return true;
  }
  return false;
}

class Recall260 : public Tree260 {};

class Recall1131 : public Tree1131 {};

TEST_F(Recall260, ALibraryHandedToAVariadicMacro) {
  // cuda/SegmentReduce.cu:495 `CUB_WRAPPER(cub::DeviceSegmentedReduce::Reduce,
  // ...)` over ten lines; cub.cuh:38 `#define CUB_WRAPPER(func, ...)` calls func.
  const Trace t = TraceTree("2.6.0", "torch._segment_reduce", TraceOptions::Device::kCuda);
  const OpStep* op = FindOp(t, "segment_reduce");
  ASSERT_NE(op, nullptr);
  bool cub = false;
  for (const auto& lib : op->libraries)
    cub = cub || (lib.name == "CUB" && lib.where.file == "aten/src/ATen/native/cuda/SegmentReduce.cu" &&
                  lib.where.line == 495);
  EXPECT_TRUE(cub);
}

TEST_F(Recall260, FunctorMadeAndCalledAtOnce) {
  // ScatterGatherKernel.cu:472 `cuda_scatter_gather_base_kernel</*...*/false>()(`,
  // whose operator() calls `_cuda_scatter_gather_internal_kernel<...>()(` (:212),
  // whose lambda _launch_scatter_gather_kernel launches at :111 (kernel :88).
  Trace t = TraceTree("2.6.0", "aten::gather", TraceOptions::Device::kCuda);
  const KernelStep* k =
      Kernel(t, "_scatter_gather_elementwise_kernel", "aten/src/ATen/native/cuda/ScatterGatherKernel.cu", 88);
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->launch_site.line, 111);
  EXPECT_TRUE(OnPath(*k, "cuda_scatter_gather_base_kernel"));
  EXPECT_TRUE(OnPath(*k, "_cuda_scatter_gather_internal_kernel"));
}

TEST_F(Recall260, FunctorInAVariableOrWrapped) {
  // CompareKernels.cu:70-71 `CompareFunctor<scalar_t> f(op); gpu_kernel(iter, f);`
  Trace gt = TraceTree("2.6.0", "aten::gt", TraceOptions::Device::kCuda);
  EXPECT_NE(Kernel(gt, "CompareFunctor", "aten/src/ATen/native/cuda/CompareKernels.cu", 71), nullptr);
  // ReduceMaxValuesKernel.cu:29-31 `gpu_reduce_kernel<...>(iter, func_wrapper<acc_t>(MaxNanFunctor<acc_t>()), ...)`:
  // the kernel is the functor the function template func_wrapper (Reduce.cuh:276) wraps.
  Trace amax = TraceTree("2.6.0", "aten::amax", TraceOptions::Device::kCuda);
  const KernelStep* k = Kernel(amax, "MaxNanFunctor", "aten/src/ATen/native/cuda/ReduceMaxValuesKernel.cu", 29);
  ASSERT_NE(k, nullptr);
  EXPECT_TRUE(OnPath(*k, "func_wrapper"));
  EXPECT_EQ(k->path.back(), "max_values_kernel_cuda_impl");  // the launching function stays last
  // ReduceLogicKernel.cu:14 `func_wrapper<bool>([]GPU_LAMBDA(...){...})`: a wrapped lambda keeps the wrapper's name.
  Trace all = TraceTree("2.6.0", "aten::all", TraceOptions::Device::kCuda);
  EXPECT_NE(Kernel(all, "func_wrapper", "aten/src/ATen/native/cuda/ReduceLogicKernel.cu", 14), nullptr);
  // ReduceMomentKernel.cu:18-20 `using ops_t = WelfordOps<...>; ops_t ops(...); gpu_reduce_kernel(iter, ops, ...)`.
  Trace var = TraceTree("2.6.0", "aten::var.correction", TraceOptions::Device::kCuda);
  EXPECT_NE(Kernel(var, "WelfordOps", "aten/src/ATen/native/cuda/ReduceMomentKernel.cu", 20), nullptr);
}

TEST_F(Recall260, GeneratedKernelsCallTheOpTheyAreGeneratedFrom) {
  // native_functions.yaml:8747 `cauchy_` lists `autogen: cauchy, cauchy.out`: torchgen writes cauchy as
  // clone + cauchy_, cauchy.out as cauchy + copy; cauchy_ runs cauchy_stub -> cauchy_kernel.
  Trace t = TraceTree("2.6.0", "aten::cauchy", TraceOptions::Device::kCuda);
  const OpStep* inplace = nullptr;
  for (const auto& op : t.ops)
    if (op.name == "cauchy_") inplace = &op;
  ASSERT_NE(inplace, nullptr);
  EXPECT_EQ(inplace->reached_from, "cauchy");
  EXPECT_TRUE(inplace->typical);
  ASSERT_FALSE(inplace->stubs.empty());
  EXPECT_EQ(inplace->stubs[0].name, "cauchy_stub");
}

TEST_F(Recall260, AViewCopyRunsItsViewAndAClone) {
  // native_functions.yaml:14568-14573 diagonal_copy (CompositeExplicitAutogradNonFunctional, tag
  // view_copy): torchgen's GenCompositeViewCopyKernel calls :2083 diagonal and clones the result;
  // derivatives.yaml:572 diagonal's formula (diagonal_backward) differentiates it.
  Trace t = TraceTree("2.6.0", "torch.diagonal_copy", TraceOptions::Device::kCuda);
  for (const std::string name : {"diagonal", "clone"}) {
    const OpStep* op = nullptr;
    for (const auto& o : t.ops)
      if (o.name == name && o.role == OpRole::kForward) op = &o;
    ASSERT_NE(op, nullptr) << name;
    EXPECT_EQ(op->reached_from, "diagonal_copy");
    EXPECT_TRUE(op->typical);
  }
  EXPECT_TRUE(HasOp(t, "diagonal_backward"));
}

TEST_F(Recall260, DefinitionsMatchTheSchemaBeforeTheDevice) {
  // aten::max(Tensor self) on CUDA is at::native::max (ReduceAllOps.cpp:47), not the
  // device helper max(scalar_t a, scalar_t b) of cuda/UpSample.cuh:42.
  Trace t = TraceTree("2.6.0", "aten::max", TraceOptions::Device::kCuda);
  bool found = false;
  for (const auto& op : t.ops) {
    if (op.name != "max" || op.role != OpRole::kForward) continue;
    ASSERT_EQ(op.impls.size(), 1u);
    EXPECT_EQ(op.impls[0].where.file, "aten/src/ATen/native/ReduceAllOps.cpp");
    EXPECT_EQ(op.impls[0].where.line, 47);
    found = true;
  }
  EXPECT_TRUE(found);
}

TEST_F(Recall260, StructuredImplWrittenByAMacroBeforeAPlainNamesake) {
  // bitwise_and.Tensor_out is structured: CREATE_BINARY_TORCH_IMPL_FUNC(bitwise_and_out, bitwise_and_stub)
  // at BinaryOps.cpp:535 writes its impl; BinaryOps.cpp:1190's bitwise_and_out is the Scalar overload's.
  Trace t = TraceTree("2.6.0", "aten::bitwise_and.Tensor_out", TraceOptions::Device::kCuda);
  ASSERT_FALSE(t.ops.empty());
  const OpStep& op = t.ops[0];
  bool macro_impl = false;
  for (const auto& im : op.impls) {
    if (im.key != "CUDA") continue;
    EXPECT_EQ(im.where.line, 535);
    macro_impl = im.form == ImplForm::kImplFunc;
  }
  EXPECT_TRUE(macro_impl);
  EXPECT_NE(Kernel(t, "BitwiseAndFunctor", "aten/src/ATen/native/cuda/BinaryBitwiseOpsKernels.cu", 30), nullptr);
}

TEST_F(Recall260, AtenFunctionPassedByName) {
  // UnaryOps.cpp:547 `return unary_op_impl_with_complex_to_float(self, at::abs_out);`
  // -> abs.out -> abs_stub -> AbsKernel.cu:35 `gpu_kernel(iter, AbsFunctor<opmath_t>());`
  Trace t = TraceTree("2.6.0", "aten::abs", TraceOptions::Device::kCuda);
  EXPECT_TRUE(HasOp(t, "abs.out"));
  EXPECT_TRUE(HasCall(t, "abs", "abs", "aten/src/ATen/native/UnaryOps.cpp", 547));
  EXPECT_NE(Kernel(t, "AbsFunctor", "aten/src/ATen/native/cuda/AbsKernel.cu", 35), nullptr);
}

TEST_F(Recall1131, ClassesNamedInTemplateArgumentsRun) {
  // RNN.cpp:1416 `_lstm_impl<FullLayer, FullBidirectionalLayer>(`; :1101
  // `_rnn_impl<LSTMCell<cell_params>, LayerT, BidirLayerT>(`: LSTMCell's
  // operator() (:676) runs, and its `params.linear_ih(input)` (:697) on the
  // class template's parameter reaches CellParams::linear_ih (:118,
  // `return at::linear(input, w_ih, b_ih_);` at :119).
  Trace t = TraceTree("1.13.1", "aten::lstm", TraceOptions::Device::kCpu);
  EXPECT_TRUE(HasHelper(t, "FullLayer", "aten/src/ATen/native/RNN.cpp", 795));
  EXPECT_TRUE(HasHelper(t, "LSTMCell", "aten/src/ATen/native/RNN.cpp", 676));
  EXPECT_TRUE(HasCall(t, "sigmoid_", "LSTMCell", "aten/src/ATen/native/RNN.cpp", 699));
  EXPECT_TRUE(HasCall(t, "unsafe_chunk", "LSTMCell", "aten/src/ATen/native/RNN.cpp", 698));
  EXPECT_TRUE(HasHelper(t, "linear_ih", "aten/src/ATen/native/RNN.cpp", 118));
  EXPECT_TRUE(HasCall(t, "linear", "linear_ih", "aten/src/ATen/native/RNN.cpp", 119));
  EXPECT_TRUE(HasOp(t, "linear"));
}

TEST_F(Recall260, PythonHelpersInAnyTorchModule) {
  // torch/_lowrank.py:147 `return _svd_lowrank(A, q=q, niter=niter, M=M)`
  // (def at :150), which calls torch.linalg.svd (:174).
  Trace t = TraceTree("2.6.0", "torch.svd_lowrank", TraceOptions::Device::kDefault);
  EXPECT_TRUE(HasFrame(t, "torch._lowrank._svd_lowrank", "torch/_lowrank.py", 150));
  EXPECT_TRUE(HasOp(t, "linalg_svd"));
  // torch/masked/_ops.py:1685 `def std` -> `_std_var` (def at :1581).
  Trace m = TraceTree("2.6.0", "torch.masked.std", TraceOptions::Device::kDefault);
  EXPECT_TRUE(HasFrame(m, "torch.masked._ops._std_var", "torch/masked/_ops.py", 1581));
  EXPECT_FALSE(m.ops.empty());
}

TEST_F(Recall260, ACallOfATorchFunctionAnnotatedTensorIsATensor) {
  // torch/masked/_ops.py:1397 `total = sum(input, dim, ...)` calls the module's own
  // `def sum(...) -> Tensor:` (:1042-1049); :1402 `return total / count` is aten::div.
  Trace t = TraceTree("2.6.0", "torch.masked.mean", TraceOptions::Device::kCuda);
  bool div = false;
  for (const auto& op : t.ops) div = div || (op.name == "div.Tensor" && op.typical && op.reached_from.empty());
  EXPECT_TRUE(div);
}

TEST_F(Recall260, ParameterUsedAsATensorTakesTensorOperators) {
  // torch/nn/functional.py:2039 `return input / (input.abs() + 1)`: `input` is unannotated, but
  // `.abs()` is a Tensor method no Python builtin has, so `/` and `+` are Tensor.__truediv__/__add__.
  Trace t = TraceTree("2.6.0", "F.softsign", TraceOptions::Device::kCuda);
  EXPECT_TRUE(HasOp(t, "abs"));
  EXPECT_TRUE(HasOp(t, "div.Tensor"));
  EXPECT_TRUE(HasOp(t, "add.Tensor"));
}

TEST_F(Recall260, HelperCalledOnSeveralBranchesTakesTheBestOne) {
  // torch/_lowrank.py: pca_lowrank calls _svd_lowrank under `if not center:` (:270) and, with the
  // default center=True, at :294 for a dense A: the ops below it are on the typical path.
  Trace t = TraceTree("2.6.0", "torch.pca_lowrank", TraceOptions::Device::kCuda);
  bool svd = false;
  for (const auto& op : t.ops) {
    if (op.name != "linalg_svd" || op.role != OpRole::kForward) continue;
    svd = true;
    EXPECT_TRUE(op.typical);
    bool via_294 = false;
    for (const auto& w : op.when) via_294 = via_294 || (w.text == "not center" && w.negated);
    EXPECT_TRUE(via_294);
  }
  EXPECT_TRUE(svd);
}

TEST_F(Recall260, AliasNamingItselfMeansTheBinding) {
  // torch/functional.py:721 `istft = _add_docstr(torch.istft, ...)`: torch
  // re-exports this very alias, so torch.istft here is the C++ binding.
  Trace t = TraceTree("2.6.0", "torch.istft", TraceOptions::Device::kDefault);
  EXPECT_TRUE(HasFrame(t, "torch.functional.istft", "torch/functional.py", 721));
  EXPECT_TRUE(HasOp(t, "istft"));
}

TEST_F(Recall260, LessAndGreaterOnTensorsInFormulas) {
  // derivatives.yaml:1124-1125 maximum: `masked_fill_(self < other, 0)`,
  // `masked_fill_(self > other, 0)`.
  Trace t = TraceTree("2.6.0", "aten::maximum", TraceOptions::Device::kDefault);
  ASSERT_FALSE(t.backward.empty());
  const auto& ops = t.backward.front().ops;
  EXPECT_NE(std::find(ops.begin(), ops.end(), "lt"), ops.end());
  EXPECT_NE(std::find(ops.begin(), ops.end(), "gt"), ops.end());
}

TEST_F(Recall260, AtenCodeNamedLikeAVendorLibraryIsFollowed) {
  // Convolution.cpp:2060 `cudnn_convolution_backward_stub(` is a dispatch
  // stub (its CUDA registration at cudnn/ConvShared.cpp:817), not a cuDNN
  // call: the vendor APIs are camel case (cudnnConvolutionForward).
  Trace t = TraceTree("2.6.0", "aten::convolution_backward", TraceOptions::Device::kCuda);
  bool registered = false;
  for (const auto& op : t.ops) {
    for (const auto& s : op.stubs) {
      if (s.name != "cudnn_convolution_backward_stub") continue;
      for (const auto& r : s.registrations)
        registered = registered || (r.where.file == "aten/src/ATen/native/cudnn/ConvShared.cpp" && r.where.line == 817);
    }
  }
  EXPECT_TRUE(registered);
}

TEST_F(Recall260, DerivativesPerDispatchKeyAndForwardModeHelpers) {
  // derivatives.yaml:1907-1910 view: `dispatch: Default: self:
  // grad.reshape_symint(self.sym_sizes())`; :2198 _softmax's `result:`
  // (forward-mode) formula calls the FunctionsManual helper logsumexp_jvp.
  Trace v = TraceTree("2.6.0", "aten::view", TraceOptions::Device::kDefault);
  bool reshape = false;
  for (const auto& b : v.backward)
    reshape = reshape || (b.op == "view" && std::find(b.ops.begin(), b.ops.end(), "reshape") != b.ops.end());
  EXPECT_TRUE(reshape);
  Trace s = TraceTree("2.6.0", "aten::_softmax", TraceOptions::Device::kDefault);
  ASSERT_FALSE(s.backward.empty());
  const auto& helpers = s.backward.front().helpers;
  EXPECT_NE(std::find(helpers.begin(), helpers.end(), "logsumexp_jvp"), helpers.end());
}

TEST_F(Recall260, EveryOverloadOfABackwardHelperIsRead) {
  // derivatives.yaml:581 dist: `self: norm_backward(grad, self - other, p, result)`;
  // FunctionsManual.cpp:237 (four arguments) only calls :245 (six), whose
  // :273 `(self / norm).masked_fill_(norm == 0, 0)` runs for p == 2.
  Trace t = TraceTree("2.6.0", "aten::dist", TraceOptions::Device::kDefault);
  bool masked_fill = false;
  for (const auto& b : t.backward) {
    if (b.op == "dist") masked_fill = std::find(b.ops.begin(), b.ops.end(), "masked_fill_") != b.ops.end();
  }
  EXPECT_TRUE(masked_fill);
}

TEST_F(Recall260, InPlaceOpsAreDifferentiatedByTheirFunctionalEntry) {
  // derivatives.yaml:432 `- name: clamp_min(Tensor self, Scalar min)`,
  // :433 `self: where(self >= min, grad, at::scalar_tensor(0., grad.options()))`;
  // clamp_min_ has no entry of its own.
  Trace t = TraceTree("2.6.0", "aten::clamp_min_", TraceOptions::Device::kDefault);
  const BackwardStep* b = nullptr;
  for (const auto& s : t.backward) {
    if (s.op == "clamp_min_") b = &s;
  }
  ASSERT_NE(b, nullptr);
  ASSERT_NE(b->derivatives, nullptr);
  EXPECT_EQ(b->derivatives->line, 432);
  EXPECT_NE(std::find(b->ops.begin(), b->ops.end(), "ge"), b->ops.end());
}

TEST_F(Recall260, ANamespaceNestedInNativeIsWalked) {
  // cuda/Unique.cu:202 `internal::unique_cuda_template<scalar_t>(...)` from
  // at::native names at::native::internal::unique_cuda_template
  // (cuda/UniqueCub.cu:305), which launches adjacent_difference_kernel (:24)
  // and calls CUB.
  Trace t = TraceTree("2.6.0", "aten::_unique2", TraceOptions::Device::kCuda);
  ASSERT_FALSE(t.ops.empty());
  const OpStep& op = t.ops.front();
  bool kernel = false, cub = false;
  for (const auto& k : op.kernels)
    kernel = kernel || (k.name == "adjacent_difference_kernel" && k.where.line == 24 &&
                        k.where.file == "aten/src/ATen/native/cuda/UniqueCub.cu");
  for (const auto& l : op.libraries) cub = cub || l.name == "CUB";
  EXPECT_TRUE(kernel);
  EXPECT_TRUE(cub);
}

TEST_F(Recall260, ThrustOnTheHostIsNoDeviceLibrary) {
  // cuda/SortImpl.cu:18-21 `thrust::stable_sort_by_key(thrust::host, strides.data(), ...,
  // thrust::greater<int64_t>())` orders a stride vector on the CPU; the sort
  // itself calls CUB (cuda/SortStable.cu:123 at::cuda::cub::radix_sort_pairs).
  Trace t = TraceTree("2.6.0", "torch.sort", TraceOptions::Device::kCuda);
  bool cub = false;
  for (const auto& op : t.ops)
    for (const auto& l : op.libraries) {
      EXPECT_FALSE(l.name == "Thrust" && l.where.file == "aten/src/ATen/native/cuda/SortImpl.cu")
          << op.name << " at :" << l.where.line;
      cub = cub || (l.name == "CUB" && l.where.file == "aten/src/ATen/native/cuda/SortStable.cu");
    }
  EXPECT_TRUE(cub);
}

TEST_F(Recall260, AMacroCallsTheFunctionItsUsePasses) {
  // cuda/TensorTopK.cu:804 `#define RUN_K(INDEX_T, DIM, LAUNCH_FUNCTION_NAME)
  // LAUNCH_FUNCTION_NAME<scalar_t, INDEX_T, DIM>(...)`, used at :821 as
  // RUN_K(INDEX_T, DIM, mbtopk::launch) and at :823 with sbtopk::launch:
  // sbtopk::launch (:181) launches sbtopk::gatherTopK (:40) at :200, and
  // mbtopk::launch (:642) mbtopk::gatherTopK (:496) at :742: two kernels of
  // one name, each found by C++ lookup from its launch.
  Trace t = TraceTree("2.6.0", "torch.topk", TraceOptions::Device::kCuda);
  const KernelStep* k = Kernel(t, "gatherTopK", "aten/src/ATen/native/cuda/TensorTopK.cu", 40);
  ASSERT_NE(k, nullptr);
  // Launched at :200, and at :754 as sbtopk::gatherTopK from mbtopk::launch.
  EXPECT_TRUE(k->launch_site.line == 200 || k->launch_site.line == 754) << k->launch_site.line;
  EXPECT_TRUE(OnPath(*k, "launch_gather_topk_kernel"));
  const KernelStep* multi = Kernel(t, "gatherTopK", "aten/src/ATen/native/cuda/TensorTopK.cu", 496);
  ASSERT_NE(multi, nullptr);
  EXPECT_EQ(multi->launch_site.line, 742);
}

TEST_F(Recall260, ALauncherObjectHandedToATemplateRunsItsMember) {
  // cuda/Sorting.cu:254 `run_launcher<scalar_t, index_t>(values, indices,
  // self, dim, KthValueLauncher(k))`; SortingCommon.cuh:151 calls
  // `l.template launch<...>`; KthValueLauncher::launch launches
  // gatherKthValue (:24) at :193. MedianLauncher's gatherMedian (:92) is
  // handed by launch_median_kernel only.
  Trace t = TraceTree("2.6.0", "torch.kthvalue", TraceOptions::Device::kCuda);
  const KernelStep* k = Kernel(t, "gatherKthValue", "aten/src/ATen/native/cuda/Sorting.cu", 24);
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->launch_site.line, 193);
  EXPECT_TRUE(OnPath(*k, "launch_kthvalue_kernel"));
  EXPECT_EQ(Kernel(t, "gatherMedian", "aten/src/ATen/native/cuda/Sorting.cu", 92), nullptr);
}

TEST_F(Recall260, AKernelAssignedToALaunchedPointerRuns) {
  // cuda/DistanceKernel.cu:224 `auto impl_fptr = cdist_kernel_cuda_impl<scalar_t,
  // dists<scalar_t>::p>;`, launched as impl_fptr<<<...>>> at :234; the
  // kernel is defined at :188. Distance.cpp:185 passes its parameter
  // compute_mode: not cuda/TensorModeKernel.cuh:199's kernel of that name.
  Trace t = TraceTree("2.6.0", "torch.cdist", TraceOptions::Device::kCuda);
  const KernelStep* k = Kernel(t, "cdist_kernel_cuda_impl", "aten/src/ATen/native/cuda/DistanceKernel.cu", 188);
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->launch_site.line, 224);
  EXPECT_EQ(Kernel(t, "compute_mode", "aten/src/ATen/native/cuda/TensorModeKernel.cuh", 199), nullptr);
}

TEST_F(Recall260, AMemberOfAnObjectMadeInTheCallRuns) {
  // LinearAlgebra.cpp:3425 `return KronImpl(self, other).kron();`:
  // KronImpl::kron (:3404) calls at::mul (:3405), whose CUDA kernel is
  // MulFunctor (cuda/BinaryMulKernel.cu:33).
  Trace t = TraceTree("2.6.0", "torch.kron", TraceOptions::Device::kCuda);
  EXPECT_TRUE(HasCall(t, "mul", "kron", "aten/src/ATen/native/LinearAlgebra.cpp", 3405));
  EXPECT_NE(Kernel(t, "MulFunctor", "aten/src/ATen/native/cuda/BinaryMulKernel.cu", 33), nullptr);
}

TEST_F(Recall260, AKernelPassedByNameIsLaunched) {
  // mem_eff_attention/kernels/cutlassF.h:277 `cb(AttentionKernel<float, ...>(),
  // fmha_cutlassF_f32_aligned_64x64_rf_sm80);` hands the kernel defined at
  // cutlassF_f32_aligned.cu:71 to attention.cu's launchKernel.
  Trace t = TraceTree("2.6.0", "aten::_efficient_attention_forward", TraceOptions::Device::kCuda);
  ASSERT_FALSE(t.ops.empty());
  const KernelStep* k = nullptr;
  for (const auto& s : t.ops.front().kernels)
    if (s.name == "fmha_cutlassF_f32_aligned_64x64_rf_sm80") k = &s;
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(Name(k->launch), "passed");
  EXPECT_EQ(k->where.file, "aten/src/ATen/native/transformers/cuda/mem_eff_attention/kernels/cutlassF_f32_aligned.cu");
  EXPECT_EQ(k->where.line, 71);
  EXPECT_EQ(k->launch_site.file, "aten/src/ATen/native/transformers/cuda/mem_eff_attention/kernels/cutlassF.h");
  EXPECT_EQ(k->launch_site.line, 277);
  EXPECT_EQ(NamesPassedAsArguments("{\n  cb(K(), kern);\n  f(x + 1, g(y));\n}", 10),
            (std::vector<std::pair<std::string, uint32_t>>{{"kern", 11}, {"y", 12}}));
  EXPECT_EQ(NamesAssigned("{\n  auto f = k<T, 2>;\n  f = g;\n  a == b;\n  x = h(y);\n  n += m;\n}", 10),
            (std::vector<std::pair<std::string, uint32_t>>{{"k", 11}, {"g", 12}}));
}

TEST_F(Recall260, TorchBindsItsVariableFunctionsByName) {
  // torch/__init__.py:2061 `_segment_reduce = segment_reduce`: segment_reduce
  // is no Python def; :2069-2079 bind every torch._C._VariableFunctions
  // function into torch's namespace, so the name is aten::segment_reduce's binding.
  Trace t = TraceTree("2.6.0", "torch._segment_reduce", TraceOptions::Device::kCuda);
  EXPECT_TRUE(HasOp(t, "segment_reduce"));
}

TEST_F(Recall260, MacrosUsedInsideMacrosAreExpanded) {
  // cuda/SummaryOps.cu:232 `HANDLE_SWITCH_CASE(memType, getWeightsOp)` in
  // CUDA_tensor_histogram; :148 HANDLE_SWITCH_CASE uses :129 HANDLE_CASE,
  // whose body launches kernelHistogram1D (:65) with <<<>>>.
  Trace t = TraceTree("2.6.0", "aten::histc", TraceOptions::Device::kCuda);
  ASSERT_FALSE(t.ops.empty());
  bool kernel = false;
  for (const auto& k : t.ops.front().kernels)
    kernel = kernel || (k.name == "kernelHistogram1D" && k.where.line == 65 &&
                        k.where.file == "aten/src/ATen/native/cuda/SummaryOps.cu");
  EXPECT_TRUE(kernel);
}

TEST_F(Recall260, AnOpThatOnlyForwardsIsNoLevel) {
  // TensorAdvancedIndexing.cpp:786 _unsafe_index_put -> at::index_put;
  // :782 index_put -> clone().index_put_; :868 index_put_ -> at::_index_put_impl_,
  // whose CUDA code runs cuda/Indexing.cu:526 `linearIndex.divide_(sliceSize, "trunc")`.
  // Three composites that only hand on their work take no depth of their own.
  Trace t = TraceTree("2.6.0", "aten::_unsafe_index_put", TraceOptions::Device::kCuda);
  int impl_depth = -1, divide_depth = -1;
  for (const auto& op : t.ops) {
    if (op.role != OpRole::kForward) continue;
    if (op.name == "_index_put_impl_") impl_depth = op.depth;
    if (op.name == "divide_.Scalar_mode") divide_depth = op.depth;
  }
  EXPECT_EQ(impl_depth, 0);
  EXPECT_EQ(divide_depth, 1);
}

TEST_F(Recall260, AnOpThatOnlyForwardsIsNoLevelAtTheDepthLimit) {
  // torch.linalg.lstsq's backward runs linalg_pinv (LinearAlgebra.cpp),
  // whose `at::max(atol, rtol * max_val)` is max.other at the --depth limit;
  // max.other only hands its work to maximum (BinaryOps.cpp:1497), which
  // runs in its place: traced, with its kernels.
  Trace t = TraceTree("2.6.0", "torch.linalg.lstsq", TraceOptions::Device::kCuda);
  const OpStep* max_other = FindOp(t, "max.other", OpRole::kBackward);
  ASSERT_NE(max_other, nullptr);
  const OpStep* maximum = FindOp(t, "maximum", OpRole::kBackward);
  ASSERT_NE(maximum, nullptr);
  EXPECT_EQ(maximum->reached_from, "max.other");
  EXPECT_EQ(maximum->depth, max_other->depth);
}

TEST_F(Recall260, AHelpersTensorResultIsAnOperand) {
  // FunctionsManual.cpp:722-723 `return sum_backward(grad, ...) *
  // self.isnan().logical_not();`: sum_backward returns a Tensor, so `*` is mul.
  Trace t = TraceTree("2.6.0", "torch.nansum", TraceOptions::Device::kCuda);
  const BackwardStep* nansum = FindBackward(t, "nansum");
  ASSERT_NE(nansum, nullptr);
  EXPECT_NE(std::find(nansum->ops.begin(), nansum->ops.end(), "mul"), nansum->ops.end());
  const OpStep* mul = FindOp(t, "mul.Tensor", OpRole::kBackward);
  ASSERT_NE(mul, nullptr);
  EXPECT_EQ(mul->reached_from, "nansum");
}

TEST_F(Recall260, SelfInATensorMethodIsATensor) {
  // torch/_tensor.py:80 `class Tensor(torch._C.TensorBase)`; :1076-1077
  // `def __rdiv__(self, other): return self.reciprocal() * other`: reciprocal
  // is bound in C++, and `*` on its result is mul.
  Trace t = TraceTree("2.6.0", "Tensor.__rdiv__", TraceOptions::Device::kDefault);
  EXPECT_TRUE(HasOp(t, "reciprocal"));
  EXPECT_TRUE(HasOp(t, "mul.Tensor"));
}

TEST(RecallOperators, LessAndGreaterNeedSpacesAndATensorOperand) {
  auto tensor = [](std::string_view n) { return n == "x" || n == "grads"; };
  // Template brackets are written without spaces; a comparison of ints is no op.
  EXPECT_TRUE(OperatorOps("std::vector<Tensor> grads; for (int i = 0; i < n; ++i) {}", true, tensor).empty());
  // y < x with no Tensor y is TensorOperators.h's `operator<(const Scalar&, const Tensor&)`: x > y.
  EXPECT_EQ(OperatorOps("auto m = x > y; auto k = y < x;", true, tensor), (std::vector<std::string>{"gt", "gt"}));
  EXPECT_EQ(OperatorOps("auto k = y <= x; auto j = x <= y;", true, tensor), (std::vector<std::string>{"ge", "le"}));
}

}  // namespace
}  // namespace optrace
