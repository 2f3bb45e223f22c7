// The main path says only what runs, on the real 2.6.0 tree: one test per
// mechanism of trace_dispatch_test.cc's hermetic tree, each on code where it
// once named the wrong thing. Every file and line was checked with sed in
// the tree.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "cpp/cpp_guards.h"
#include "trace/trace_test_util.h"
#include "trace/trace_typical.h"

namespace optrace {
namespace {

class MainPath260 : public Tree260 {};

// Forward op `name`, called at `line`, is decided off the path: neither
// typical nor behind an open condition.
::testing::AssertionResult DecidedOff(const Trace& t, const std::string& name, int line) {
  const OpStep* op = FindOp(t, name);
  if (!op) return ::testing::AssertionFailure() << name << " is not traced";
  if (op->called_at.line != line)
    return ::testing::AssertionFailure() << name << " is called at " << op->called_at.line;
  if (op->typical || op->undecided) return ::testing::AssertionFailure() << name << " may run";
  return ::testing::AssertionSuccess();
}

TEST_F(MainPath260, TheCompositeFallbackBesideACudaKernelIsListedNotWalked) {
  // native_functions.yaml:2985-2986: CPU, CUDA: native_group_norm (group_norm.cpp:61);
  // CompositeExplicitAutograd: math_group_norm (group_norm.cpp:213).
  Trace t = TraceTree("2.6.0", "aten::native_group_norm", TraceOptions::Device::kCuda);
  const OpStep* op = FindOp(t, "native_group_norm");
  ASSERT_NE(op, nullptr);
  bool listed = false;
  for (const auto& i : op->impls)
    listed = listed || (i.key == "CompositeExplicitAutograd" && i.function == "math_group_norm" &&
                        i.where.file == "aten/src/ATen/native/group_norm.cpp" && i.where.line == 213);
  EXPECT_TRUE(listed);
  for (const auto& c : op->calls) EXPECT_NE(c.from, "math_group_norm") << c.op << " at " << c.where.line;
  // math_group_norm calls at::native_batch_norm (group_norm.cpp:226): no op of the CUDA path.
  EXPECT_EQ(FindOp(t, "native_batch_norm"), nullptr);
}

TEST_F(MainPath260, AFallbackTheCudaKernelCallsItselfIsListedNotWalked) {
  // native_functions.yaml:10410-10411: CompositeExplicitAutograd:
  // foreach_tensor_add_scalar_kernel_slow, CUDA: foreach_tensor_add_scalar_kernel_cuda, which
  // calls the slow one when the fast route does not apply (cuda/ForeachBinaryOpScalar.cu:157);
  // the slow one's `t.add(scalar)` (ForeachOpsKernels.cpp:159) is on the CompositeExplicit path.
  Trace t = TraceTree("2.6.0", "aten::_foreach_add.Scalar", TraceOptions::Device::kCuda);
  const OpStep* op = FindOp(t, "_foreach_add.Scalar");
  ASSERT_NE(op, nullptr);
  ASSERT_FALSE(op->kernels.empty());
  EXPECT_EQ(op->kernels.front().name, "multi_tensor_apply_kernel");
  for (const auto& c : op->calls)
    EXPECT_NE(c.from, "foreach_tensor_add_scalar_kernel_slow") << c.op << " at " << c.where.line;
  Trace cpu = TraceTree("2.6.0", "aten::_foreach_add.Scalar", TraceOptions::Device::kCpu);
  const OpStep* on_cpu = FindOp(cpu, "_foreach_add.Scalar");
  ASSERT_NE(on_cpu, nullptr);
  bool adds = false;
  for (const auto& c : on_cpu->calls)
    adds =
        adds || (c.op == "add" && c.where.file == "aten/src/ATen/native/ForeachOpsKernels.cpp" && c.where.line == 159);
  EXPECT_TRUE(adds);
}

TEST_F(MainPath260, NonTensorValuesCallNoOps) {
  // layer_norm.h:77 `input_shape.slice(...)` on `const auto input_shape = input.sizes()` (an
  // IntArrayRef); cuda/layer_norm_kernel.cu:766 `Tensor* rstd) {` ends a parameter list.
  Trace t = TraceTree("2.6.0", "aten::native_layer_norm", TraceOptions::Device::kCuda);
  const OpStep* op = FindOp(t, "native_layer_norm");
  ASSERT_NE(op, nullptr);
  ASSERT_FALSE(op->calls.empty());
  for (const auto& c : op->calls) {
    EXPECT_FALSE(c.op == "slice" && c.where.file == "aten/src/ATen/native/layer_norm.h") << c.where.line;
    EXPECT_FALSE(c.op == "mul" && c.where.line == 766) << c.where.file;
  }
}

TEST_F(MainPath260, AScopesTypeIsNoTensorLocal) {
  // transformers/cuda/attention.cu:1294 `(typename Kernel::output_t*)res.data_ptr()` is a cast
  // to a pointer to Kernel's output_t, though :1150 declares a Tensor local `output_t`.
  Trace t = TraceTree("2.6.0", "aten::_efficient_attention_forward", TraceOptions::Device::kCuda);
  const OpStep* op = FindOp(t, "_efficient_attention_forward");
  ASSERT_NE(op, nullptr);
  ASSERT_FALSE(op->calls.empty());
  bool zero = false;
  for (const auto& c : op->calls) {
    EXPECT_FALSE(c.op == "mul" && c.where.line == 1294) << c.where.file;
    zero = zero || (c.op == "zero_" && c.where.line == 1379);  // res.zero_() is a Tensor's
  }
  EXPECT_TRUE(zero);
}

TEST_F(MainPath260, WhatElseRunsListsNoBackendTheBuildRulesOut) {
  // Convolution.cpp:1202 _select_conv_backend: its MIOpen returns need
  // ConvParams::use_miopen, whose body asks compiledWithMIOpen() (a ROCm
  // build's); Overrideable is past `input.device().is_cpu() || input.is_cuda()`.
  // The depthwise and empty-batch backends stay: other tensors take them.
  Trace t = TraceTree("2.6.0", "nn.Conv2d", TraceOptions::Device::kCuda);
  std::set<std::string> conditions;
  for (const SelectionStep& s : t.selections)
    if (s.function == "_select_conv_backend")
      for (const auto& a : s.alternatives) conditions.insert(a.condition);
  ASSERT_FALSE(conditions.empty());
  for (const std::string& c : conditions) {
    EXPECT_EQ(c.find("Miopen"), std::string::npos) << c;
    EXPECT_EQ(c.find("Overrideable"), std::string::npos) << c;
    // convolution_depthwise3x3_winograd_stub has a CPU registration only (cpu/DepthwiseConvKernel.cpp),
    // and xnnpack::convolution2d is XNNPACK's (xnnpack/Convolution.cpp), a CPU library.
    EXPECT_EQ(c.find("Winograd3x3Depthwise"), std::string::npos) << c;
    EXPECT_EQ(c.find("Xnnpack2d"), std::string::npos) << c;
  }
  for (const char* kept : {"when backend == ConvBackend::Cudnn", "when backend == ConvBackend::CudaDepthwise2d",
                           "when backend == ConvBackend::Empty"})
    EXPECT_TRUE(conditions.count(kept)) << kept;
  // For a CPU tensor the cuDNN branches call ops only CUDA implements (cudnn_convolution,
  // cudnn_convolution_transpose): no alternative; oneDNN's stay.
  Trace cpu = TraceTree("2.6.0", "nn.Conv2d", TraceOptions::Device::kCpu);
  std::set<std::string> on_cpu;
  for (const SelectionStep& s : cpu.selections)
    if (s.function == "_select_conv_backend")
      for (const auto& a : s.alternatives) on_cpu.insert(a.condition);
  for (const std::string& c : on_cpu) EXPECT_EQ(c.find("Cudnn"), std::string::npos) << c;
  EXPECT_TRUE(on_cpu.count("when backend == ConvBackend::Mkldnn"));
  EXPECT_TRUE(on_cpu.count("when backend == ConvBackend::Winograd3x3Depthwise"));
  EXPECT_TRUE(on_cpu.count("when backend == ConvBackend::Xnnpack2d"));
  // lstm_cudnn_stub and lstm_miopen_stub are registered for CUDA only (cudnn/RNN.cpp:2745,
  // miopen/RNN_miopen.cpp:908).
  Trace lstm = TraceTree("2.6.0", "nn.LSTM", TraceOptions::Device::kCpu);
  for (const SelectionStep& s : lstm.selections)
    for (const auto& a : s.alternatives) EXPECT_EQ(a.op.find("lstm_cudnn"), std::string::npos) << a.condition;
}

TEST_F(MainPath260, DeviceCodeCallsNoOps) {
  // cuda/ActivationGeluKernel.cu:72-80: `dy * cdf` and friends inside `[] GPU_LAMBDA(...)`.
  Trace t = TraceTree("2.6.0", "aten::gelu_backward", TraceOptions::Device::kCuda);
  bool lambdas_traced = false;  // an empty trace would pass the loop below: the lambdas' kernel is there
  for (const auto& op : t.ops) {
    for (const auto& c : op.calls)
      EXPECT_NE(c.where.file, "aten/src/ATen/native/cuda/ActivationGeluKernel.cu") << op.name << " " << c.op;
    for (const auto& k : op.kernels)
      lambdas_traced = lambdas_traced || (k.name == "GeluBackwardCUDAKernelImpl" &&
                                          k.where.file == "aten/src/ATen/native/cuda/ActivationGeluKernel.cu");
  }
  EXPECT_TRUE(lambdas_traced);
}

TEST_F(MainPath260, AMacroIsItsLastDefinitionBeforeTheUse) {
  // cuda/Indexing.cu defines SMALL_INDEX three times (1027, 1202, 1500), each #undef'd; index_select's
  // use expands the third (indexSelectSmallIndex), never index_add's indexFuncSmallIndex (856).
  Trace t = TraceTree("2.6.0", "aten::index_select", TraceOptions::Device::kCuda);
  const OpStep* op = FindOp(t, "index_select");
  ASSERT_NE(op, nullptr);
  std::vector<std::string> names;
  for (const auto& k : op->kernels) names.push_back(k.name);
  EXPECT_NE(std::find(names.begin(), names.end(), "indexSelectSmallIndex"), names.end());
  EXPECT_EQ(std::find(names.begin(), names.end(), "indexFuncSmallIndex"), names.end());
}

TEST_F(MainPath260, ATestFilesKernelIsNoOpsKernel) {
  // aten/src/ATen/test/cuda_half_test.cu:90 `__global__ void kernel()`: launched as `kernel<<<...>>>`
  // by name elsewhere, never the op's.
  Trace t = TraceTree("2.6.0", "aten::embedding_renorm_", TraceOptions::Device::kCuda);
  for (const auto& op : t.ops)
    for (const auto& k : op.kernels) EXPECT_EQ(k.where.file.find("/test/"), std::string::npos) << k.name;
}

TEST_F(MainPath260, AFirstOrderBackwardSkipsTheDoubleBackwardBranch) {
  // derivatives.yaml:1266: `GradMode::is_enabled() || grads[1].defined() || grads[2].defined() ?
  // infinitely_differentiable_native_group_norm_backward(...) : (grads[0].defined() ?
  // native_group_norm_backward_symint(...) : ...)`.
  Trace t = TraceTree("2.6.0", "F.group_norm", TraceOptions::Device::kCuda);
  const BackwardStep* b = FindBackward(t, "native_group_norm");
  ASSERT_NE(b, nullptr);
  ASSERT_TRUE(b->derivatives);
  EXPECT_EQ(b->derivatives->line, 1265);
  auto untaken = [&](const std::string& op) { return std::count(b->untaken.begin(), b->untaken.end(), op) > 0; };
  EXPECT_FALSE(untaken("native_group_norm_backward"));
  EXPECT_TRUE(untaken("reciprocal_"));  // the infinitely differentiable helper's
  const OpStep* backward = FindOp(t, "native_group_norm_backward", OpRole::kBackward);
  ASSERT_NE(backward, nullptr);
  EXPECT_TRUE(backward->typical);
  const OpStep* helper_op = FindOp(t, "reciprocal_", OpRole::kBackward);
  ASSERT_NE(helper_op, nullptr);
  EXPECT_FALSE(helper_op->typical);
}

TEST_F(MainPath260, AHandWrittenMethodReturningItselfDispatchesNothing) {
  // TensorBody.h:127-130: `Tensor conj() const { if (!this->is_complex()) { return *this; } ...`:
  // baddbmm's backward `batch2.transpose(1, 2).conj()` runs no conj on a float32 tensor.
  Trace t = TraceTree("2.6.0", "torch.baddbmm", TraceOptions::Device::kCuda);
  const BackwardStep* b = FindBackward(t, "baddbmm");
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->untaken, (std::vector<std::string>{"conj"}));
  const OpStep* bmm = FindOp(t, "bmm", OpRole::kBackward);
  ASSERT_NE(bmm, nullptr);
  EXPECT_TRUE(bmm->typical);
}

TEST_F(MainPath260, APythonMethodCallReturningItselfDispatchesNothing) {
  // torch/masked/_ops.py:1627 `x * x.conj()` calls TensorBody.h:127-130's hand-written conj(),
  // the tensor itself for a float32 x: no conj on the typical path; :1625's torch.subtract runs.
  Trace t = TraceTree("2.6.0", "torch.masked.var", TraceOptions::Device::kCuda);
  const OpStep* conj = FindOp(t, "conj");
  ASSERT_NE(conj, nullptr);
  EXPECT_FALSE(conj->typical && !conj->undecided);
  const OpStep* subtract = FindOp(t, "subtract.Tensor");
  ASSERT_NE(subtract, nullptr);
  EXPECT_TRUE(subtract->typical);
}

TEST_F(MainPath260, TheBindingOfAMethodVariantOpCallsTheHandWrittenMethod) {
  // torchgen binds torch.conj and Tensor.contiguous to `self.conj()` / `self.contiguous()`:
  // TensorBody.h:128-129 and TensorBase.h:127-128 return the tensor itself for a real,
  // contiguous one, so neither op dispatches for a typical float32 tensor.
  for (auto [query, line] : {std::pair{"torch.conj", 128}, std::pair{"Tensor.contiguous", 127}}) {
    Trace t = TraceTree("2.6.0", query, TraceOptions::Device::kCuda);
    ASSERT_FALSE(t.ops.empty()) << query;
    const OpStep& root = t.ops.front();
    EXPECT_FALSE(root.typical) << query;
    ASSERT_FALSE(root.when.empty()) << query;
    EXPECT_EQ(root.when.back().kind, ConditionKind::kReturn) << query;
    EXPECT_EQ(root.when.back().where.line, line) << query;
  }
}

TEST_F(MainPath260, AKernelTwoFunctionsLaunchRunsWhereTheAssumptionsTakeOne) {
  // cuda/ReduceSumProdKernel.cu: NanSumOps is launched by nansum_functor (:55) and by
  // nansum_functor_complex's non-jiterator operator(); a float32 tensor runs the first.
  Trace t = TraceTree("2.6.0", "torch.nansum", TraceOptions::Device::kCuda);
  const OpStep* op = FindOp(t, "nansum");
  ASSERT_NE(op, nullptr);
  const KernelStep* k = FindKernel(*op, "NanSumOps");
  ASSERT_NE(k, nullptr);
  EXPECT_TRUE(k->typical && !k->undecided);
  EXPECT_EQ(k->launch_site.file, "aten/src/ATen/native/cuda/ReduceSumProdKernel.cu");
  EXPECT_EQ(k->launch_site.line, 55);
}

TEST_F(MainPath260, ALaunchingDefineUsedThroughAnotherRunsWhereThatOneIs) {
  // ATen/cuda/CUDAApplyUtils.cuh: HANDLE_CASE launches kernelPointwiseApply2; the 32-bit branch
  // (:477) writes HANDLE_A_CASE -> HANDLE_B_CASE -> HANDLE_CASE, the 64-bit one HANDLE_CASE
  // itself. bernoulli_'s launch is read in the 32-bit branch, not ruled out with the other.
  Trace t = TraceTree("2.6.0", "aten::bernoulli_.float", TraceOptions::Device::kCuda);
  const OpStep* op = FindOp(t, "bernoulli_.float");
  ASSERT_NE(op, nullptr);
  const KernelStep* k = FindKernel(*op, "kernelPointwiseApply2");
  ASSERT_NE(k, nullptr);
  EXPECT_TRUE(k->typical);
  bool thirty_two = false;
  for (const Condition& c : k->when)
    thirty_two =
        thirty_two || (c.where.file == "aten/src/ATen/cuda/CUDAApplyUtils.cuh" && c.where.line == 477 && !c.negated);
  EXPECT_TRUE(thirty_two);
}

TEST_F(MainPath260, AViewTheCallerMakesIsNoTypicallyContiguousTensor) {
  // cuda/SpectralOps.cpp:187 `auto input = self.permute(dim_permute);`, :193
  // `input = input.reshape(batched_sizes)`: reshape's `self.is_contiguous()`
  // (TensorShape.cpp:1642) asks of a permutation, so its view is open, not
  // taken.
  Trace fft = TraceTree("2.6.0", "torch.fft.fft", TraceOptions::Device::kCuda);
  const OpStep* view = FindOp(fft, "view");
  ASSERT_NE(view, nullptr);
  EXPECT_EQ(view->reached_from, "reshape");
  EXPECT_TRUE(view->undecided);
  EXPECT_FALSE(view->typical && !view->undecided);
}

TEST_F(MainPath260, TheTensorAnOpComputesOnIsNoZeroDimScalar) {
  // TensorCompare.cpp:636 `if (self.numel() == 1 && self.dim() == 0) { values.fill_(self); ...}
  // else { stub(...) }`: max.dim of a typical tensor launches MaxOps
  // (cuda/ReduceMaxValuesKernel.cu:45), decided, and fills nothing.
  Trace t = TraceTree("2.6.0", "torch.max(x, 1)", TraceOptions::Device::kCuda);
  const KernelStep* max = nullptr;
  for (const OpStep& op : t.ops)
    for (const KernelStep& k : op.kernels)
      if (k.name == "MaxOps" && k.where.line == 45) max = &k;
  ASSERT_NE(max, nullptr);
  EXPECT_TRUE(max->typical && !max->undecided);
  const OpStep* fill = FindOp(t, "fill_.Tensor");
  ASSERT_NE(fill, nullptr);
  EXPECT_FALSE(fill->typical);
  // TensorTransformations.cpp:171 atleast_1d: `switch (self.dim()) { case 0: return
  // self.reshape({1}); default: return self; }`.
  Trace at = TraceTree("2.6.0", "torch.atleast_1d", TraceOptions::Device::kCuda);
  const OpStep* reshape = FindOp(at, "reshape");
  ASSERT_NE(reshape, nullptr);
  EXPECT_FALSE(reshape->typical);
}

TEST_F(MainPath260, AListOfSizesTakesTheOverloadWithAnIntList) {
  // cuda/layer_norm_kernel.cu:1373 `std::vector<int64_t> stat_shape;`, :1381
  // `mean = mean.view(stat_shape)`: view(SymInt[] size), never view.dtype.
  Trace ln = TraceTree("2.6.0", "F.layer_norm", TraceOptions::Device::kCuda);
  const OpStep* view = FindOp(ln, "view");
  ASSERT_NE(view, nullptr);
  EXPECT_EQ(view->called_at.line, 1381);
  EXPECT_EQ(FindOp(ln, "view.dtype"), nullptr);
  // ReduceOps.cpp:1470 `at::squeeze(maxes, dims)` with `IntArrayRef dims`: squeeze.dims only.
  Trace lse = TraceTree("2.6.0", "torch.logsumexp", TraceOptions::Device::kCuda);
  EXPECT_NE(FindOp(lse, "squeeze.dims"), nullptr);
  EXPECT_EQ(FindOp(lse, "squeeze.dim"), nullptr);
  EXPECT_EQ(FindOp(lse, "squeeze.dimname"), nullptr);
  // transformers/cuda/attention.cu:475 `q_k_v.view({3 * B, num_head, T, dim_per_head})`, `T`
  // rewritten at :396: a braced list of four initialises a list, never a ScalarType.
  Trace qkv = TraceTree("2.6.0", "aten::_transform_bias_rescale_qkv", TraceOptions::Device::kCuda);
  const OpStep* qkv_view = FindOp(qkv, "view");
  ASSERT_NE(qkv_view, nullptr);
  EXPECT_EQ(qkv_view->called_at.line, 475);
  EXPECT_EQ(FindOp(qkv, "view.dtype"), nullptr);
}

TEST_F(MainPath260, ACallIsReadWhereItIsWrittenInItsForm) {
  // cuda/SummaryOps.cu:276 `std::max(self.max().item<input_t>() + (int64_t)1, minlength)`:
  // the Tensor method takes no argument, so aten::max (the full reduction, ReduceAllOps.cpp:47),
  // never max.dim, whose two arguments are std::max's.
  Trace t = TraceTree("2.6.0", "torch.bincount", TraceOptions::Device::kCuda);
  const OpStep* max = FindOp(t, "max");
  ASSERT_NE(max, nullptr);
  EXPECT_EQ(max->called_at.line, 276);
  EXPECT_EQ(FindOp(t, "max.dim"), nullptr);
  EXPECT_EQ(FindOp(t, "max.names_dim"), nullptr);
}

TEST_F(MainPath260, APredicateIsWhatItsReachableReturnsSay) {
  // TensorAdvancedIndexing.cpp:1908 `if (can_use_expanded_index_path(mut_out, ...))`: its
  // `if (!self.device().is_cpu()) return false;` (:1581-1583) decides it false on CUDA, past
  // its #ifdef USE_FBGEMM group and before its loop: scatter_add runs scatter_add_stub (:1911).
  Trace t = TraceTree("2.6.0", "torch.scatter_add", TraceOptions::Device::kCuda);
  const OpStep* out = FindOp(t, "scatter_add.out");
  ASSERT_NE(out, nullptr);
  int decided = 0;
  for (const StubStep& s : out->stubs) {
    if (s.name == "scatter_add_stub") decided += s.typical && !s.undecided;
    if (s.name == "scatter_add_expanded_index_stub") decided += !s.typical && !s.undecided;
  }
  EXPECT_EQ(decided, 2);
}

TEST_F(MainPath260, AKernelRunsTheAtomicsOfTheObjectsItIsHanded) {
  // cuda/Indexing.cu:1028-1032 `indexFuncSmallIndex<...><<<...>>>(..., reduce_add, alpha_value)`
  // with `static ReduceAdd reduce_add;`, whose operator() (:365) calls fastAtomicAdd; and
  // cuda/ScatterGatherKernel.cu:495-497 hands scatter_add's kernel its own file's ReduceAdd (:34).
  Trace index_add = TraceTree("2.6.0", "torch.index_add", TraceOptions::Device::kCuda);
  const OpStep* out = FindOp(index_add, "index_add.out");
  ASSERT_NE(out, nullptr);
  const KernelStep* small = nullptr;
  for (const KernelStep& k : out->kernels)
    if (k.name == "indexFuncSmallIndex") small = &k;
  ASSERT_NE(small, nullptr);
  ASSERT_EQ(small->passed_atomics.size(), 1u);
  EXPECT_EQ(small->passed_atomics[0].functor, "ReduceAdd");
  EXPECT_EQ(small->passed_atomics[0].where.file, "aten/src/ATen/native/cuda/Indexing.cu");
  EXPECT_EQ(small->passed_atomics[0].where.line, 365);
  EXPECT_EQ(small->passed_atomics[0].passed.line, 1028);
  EXPECT_EQ(small->passed_atomics[0].atomics, std::vector<std::string>{"fastAtomicAdd"});
  Trace scatter_add = TraceTree("2.6.0", "torch.scatter_add", TraceOptions::Device::kCuda);
  const OpStep* scatter = FindOp(scatter_add, "scatter_add.out");
  ASSERT_NE(scatter, nullptr);
  bool handed = false;
  for (const KernelStep& k : scatter->kernels)
    for (const KernelStep::PassedAtomics& p : k.passed_atomics)
      handed = handed || (p.where.file == "aten/src/ATen/native/cuda/ScatterGatherKernel.cu" && p.where.line == 34 &&
                          p.passed.line == 495);
  EXPECT_TRUE(handed);
}

TEST_F(MainPath260, AnOptionalTensorsFormulaMayRun) {
  // derivatives.yaml:2031 `per_sample_weights: _embedding_bag_per_sample_weights_backward(...)`:
  // F.embedding_bag's per_sample_weights defaults to None, so that formula runs only where a
  // call passes them; weight's (:2030) runs.
  Trace t = TraceTree("2.6.0", "F.embedding_bag", TraceOptions::Device::kCuda);
  const BackwardStep* bag = nullptr;
  for (const BackwardStep& b : t.backward)
    if (b.op == "_embedding_bag") bag = &b;
  ASSERT_NE(bag, nullptr);
  EXPECT_NE(std::find(bag->open.begin(), bag->open.end(), "_embedding_bag_per_sample_weights_backward"),
            bag->open.end());
  EXPECT_EQ(std::find(bag->open.begin(), bag->open.end(), "_embedding_bag_backward"), bag->open.end());
}

TEST_F(MainPath260, ANumberAgainstAnEnumMemberIsDecidedByTheMembersValue) {
  // native_functions.yaml:2349 `_embedding_bag(..., int mode=0, ...)`: the schema's 0 reaches
  // _embedding_bag_cuda (cuda/EmbeddingBag.cu:333), whose `mode == EmbeddingBagMode::MAX`
  // (:401) launches EmbeddingBag_updateOutputKernel_max (:402) and else the sum/mean kernel
  // (:411). EmbeddingBag.h:14 gives MAX the value 2 (`MAX = 2,`): with mode 0 the max kernel
  // never runs and the sum/mean kernel does.
  Trace t = TraceTree("2.6.0", "aten::_embedding_bag", TraceOptions::Device::kCuda);
  const OpStep* bag = FindOp(t, "_embedding_bag");
  ASSERT_NE(bag, nullptr);
  const KernelStep* max = FindKernel(*bag, "EmbeddingBag_updateOutputKernel_max");
  const KernelStep* sum = FindKernel(*bag, "EmbeddingBag_updateOutputKernel_sum_mean");
  ASSERT_NE(max, nullptr);
  ASSERT_NE(sum, nullptr);
  EXPECT_EQ(max->where.file, "aten/src/ATen/native/cuda/EmbeddingBag.cu");
  EXPECT_EQ(max->where.line, 62);
  EXPECT_EQ(sum->where.line, 112);
  EXPECT_FALSE(max->typical || max->undecided);
  EXPECT_TRUE(sum->typical);
  EXPECT_FALSE(sum->undecided);
}

TEST_F(MainPath260, AModeACallerPassesOnIsNoDefaultOfTheCallee) {
  // native_functions.yaml:2347: embedding_bag.padding_idx has no default for `mode`, and
  // EmbeddingBag.cpp:1255 passes it on to _embedding_bag; _embedding_bag is reached too by
  // _embedding_bag_forward_only_cuda's direct `_embedding_bag_cuda(` (cuda/EmbeddingBag.cu:318),
  // a call the trace does not read. _embedding_bag's own `mode=0` (:2349) is then no value of
  // this call: its max and sum/mean kernels both stay open.
  Trace t = TraceTree("2.6.0", "aten::embedding_bag.padding_idx", TraceOptions::Device::kCuda);
  const OpStep* bag = FindOp(t, "_embedding_bag");
  ASSERT_NE(bag, nullptr);
  for (const char* name : {"EmbeddingBag_updateOutputKernel_max", "EmbeddingBag_updateOutputKernel_sum_mean"}) {
    const KernelStep* k = FindKernel(*bag, name);
    ASSERT_NE(k, nullptr) << name;
    EXPECT_TRUE(k->undecided) << name;
  }
}

TEST_F(MainPath260, AnArgumentCppWritesWithoutADefaultMustBePassed) {
  // BatchLinearAlgebra.cpp:1571 `infos.any()`: native_functions.yaml:749-753 gives any.dims
  // `cpp_no_default_args: ['dim']`, so C++ has no any.dims without a dim: the call is aten::any
  // (:10158), and any_dims_default (ReduceOps.cpp, CompositeExplicit) with its ne_outf is not reached.
  Trace t = TraceTree("2.6.0", "aten::_linalg_check_errors", TraceOptions::Device::kCuda);
  const OpStep* any = FindOp(t, "any");
  ASSERT_NE(any, nullptr);
  EXPECT_EQ(any->called_at.line, 1571);
  EXPECT_TRUE(any->typical);
  EXPECT_EQ(FindOp(t, "any.dims"), nullptr);
  EXPECT_EQ(FindOp(t, "ne.Scalar_out"), nullptr);
}

TEST_F(MainPath260, AReductionNumberIsComparedWithTheMembersValue) {
  // core/Reduction.h:8-13 `enum Reduction { None, Mean, Sum, END };`: Mean is 1, Sum 2. Loss.cpp:65
  // `if (reduction == at::Reduction::Mean)` with the 1 that `_Reduction.get_enum('mean')`
  // gives (torch/nn/_reduction.py:11-12) is true, with 2 ('sum') false; the schema's
  // `reduction=Mean` is a name, compared by name as before.
  Assumptions a;
  a.enums = &EnumValuesOf(TreeIndex("2.6.0"));
  a.defaults = {{"reduction", "1"}};
  EXPECT_EQ(EvaluateCondition("reduction == at::Reduction::Mean", false, a), Tri::kTrue);
  EXPECT_EQ(EvaluateCondition("reduction == Reduction::Mean || reduction == Reduction::Sum", false, a), Tri::kTrue);
  a.defaults = {{"reduction", "2"}};
  EXPECT_EQ(EvaluateCondition("reduction == at::Reduction::Mean", false, a), Tri::kFalse);
  EXPECT_EQ(EvaluateCondition("reduction != Reduction::None", false, a), Tri::kTrue);
  a.defaults = {{"reduction", "Mean"}};
  EXPECT_EQ(EvaluateCondition("reduction == at::Reduction::Mean", false, a), Tri::kTrue);
}

TEST_F(MainPath260, AKernelsWayIsTheOneTheAssumptionsTake) {
  // TensorAdvancedIndexing.cpp:1841-1849: scatter_src_out calls scatter_impl without a reduce,
  // whose `if (reduce.has_value())` (:1814) rules out scatter_reduce_stub: the kernel the walk first
  // reached through that stub is reached through scatter_stub, and nothing the reduce way hands
  // it (ReduceAdd) is said of it.
  Trace t = TraceTree("2.6.0", "aten::scatter.src", TraceOptions::Device::kCuda);
  const OpStep* out = FindOp(t, "scatter.src_out");
  ASSERT_NE(out, nullptr);
  const KernelStep* kernel = nullptr;
  for (const KernelStep& k : out->kernels)
    if (k.name == "_scatter_gather_elementwise_kernel") kernel = &k;
  ASSERT_NE(kernel, nullptr);
  auto on_path = [&](const char* name) {
    return std::find(kernel->path.begin(), kernel->path.end(), name) != kernel->path.end();
  };
  EXPECT_TRUE(on_path("scatter_stub"));
  EXPECT_TRUE(on_path("scatter_cuda_kernel"));
  EXPECT_FALSE(on_path("scatter_reduce_stub"));
  EXPECT_TRUE(kernel->passed_atomics.empty());
}

TEST_F(MainPath260, ACallsLiteralListDecidesBySize) {
  // PadNd.cpp:221-237: `F.pad(x, (1, 1), mode='reflect')` passes a pad of two: the 1-d reflection
  // pad (:223) stays open on the input's rank, the 2-d and 3-d ones (:230, :237) never run.
  Trace t = TraceTree("2.6.0", "F.pad(x, (1,1), mode='reflect')", TraceOptions::Device::kCuda);
  const OpStep* one = FindOp(t, "reflection_pad1d");
  const OpStep* two = FindOp(t, "reflection_pad2d");
  const OpStep* three = FindOp(t, "reflection_pad3d");
  ASSERT_NE(one, nullptr);
  ASSERT_NE(two, nullptr);
  ASSERT_NE(three, nullptr);
  EXPECT_TRUE(one->undecided);
  EXPECT_TRUE(!two->typical && !two->undecided);
  EXPECT_TRUE(!three->typical && !three->undecided);
}

TEST_F(MainPath260, AFunctionalOpsOutTensorIsNoneOfItsInputs) {
  // cuda/Indexing.cu:985-986 `if (!result.is_same(self)) result.copy_(self);` in the structured
  // kernel index_add and index_add_ share (TORCH_IMPL_FUNC(index_add_cuda_out), :1310): the
  // functional op's result is a tensor it allocates, so it copies; the in-place op's is self.
  Trace functional = TraceTree("2.6.0", "torch.index_add", TraceOptions::Device::kCuda);
  const OpStep* copy = nullptr;
  for (const OpStep& op : functional.ops)
    if (op.role == OpRole::kForward && op.name.starts_with("copy_") && op.called_at.line == 986) copy = &op;
  ASSERT_NE(copy, nullptr);
  EXPECT_TRUE(copy->typical && !copy->undecided);
  Trace inplace = TraceTree("2.6.0", "Tensor.index_add_", TraceOptions::Device::kCuda);
  const OpStep* none = nullptr;
  for (const OpStep& op : inplace.ops)
    if (op.role == OpRole::kForward && op.name.starts_with("copy_") && op.called_at.line == 986) none = &op;
  ASSERT_NE(none, nullptr);
  EXPECT_TRUE(!none->typical && !none->undecided);
}

TEST_F(MainPath260, AStubSupportsTheDevicesItIsRegisteredFor) {
  // transformers/attention.cpp:708 `if (_fused_sdp_choice_stub.is_device_supported(
  // query_.device().type()))`: registered for CUDA (transformers/cuda/attention.cu:1412).
  Trace t = TraceTree("2.6.0", "F.scaled_dot_product_attention", TraceOptions::Device::kCuda);
  const OpStep* sdpa = FindOp(t, "scaled_dot_product_attention");
  ASSERT_NE(sdpa, nullptr);
  bool choice = false;
  for (const StubStep& s : sdpa->stubs)
    if (s.name == "_fused_sdp_choice_stub") {
      choice = true;
      EXPECT_TRUE(s.typical && !s.undecided);
    }
  EXPECT_TRUE(choice);
}

TEST_F(MainPath260, ALibraryBelowAStubRunsWhereItsOwnCallDoes) {
  // cuda/ScanUtils.cuh:444-453 scan_dim, below cumsum_stub, calls CUB only `if
  // (self.numel() == self.size(dim))` (a one-dimensional scan): open.
  Trace cumsum = TraceTree("2.6.0", "torch.cumsum", TraceOptions::Device::kCuda);
  bool cub = false;
  for (const OpStep& op : cumsum.ops)
    for (const LibraryStep& l : op.libraries)
      if (l.name == "CUB" && l.where.file == "aten/src/ATen/native/cuda/ScanUtils.cuh") {
        cub = true;
        EXPECT_TRUE(l.typical && l.undecided) << l.where.line;
      }
  EXPECT_TRUE(cub);
  // cuda/linalg/BatchLinearAlgebra.cpp:2218-2232 svd_kernel, below svd_stub:
  // a cuSOLVER build calls MAGMA only when it is the preferred backend.
  Trace svd = TraceTree("2.6.0", "torch.linalg.svd", TraceOptions::Device::kCuda);
  bool magma = false;
  for (const OpStep& op : svd.ops)
    for (const LibraryStep& l : op.libraries)
      if (l.name == "MAGMA" && l.where.line == 2125) {
        magma = true;
        EXPECT_FALSE(l.typical);
      }
  EXPECT_TRUE(magma);
}

TEST_F(MainPath260, ALibraryStepIsWhereItsWorkRuns) {
  // cudnn/Conv_v8.cpp:400 run_conv_plan's cudnnBackendExecute runs the
  // convolution; getCudnnHandle's cudnnSetStream (cudnn/Handle.cpp:53), found
  // first, only sets the handle up -- and says cuDNN is in use.
  Trace t = TraceTree("2.6.0", "nn.Conv2d", TraceOptions::Device::kCuda);
  const OpStep* conv = FindOp(t, "cudnn_convolution");
  ASSERT_NE(conv, nullptr);
  ASSERT_EQ(conv->libraries.size(), 1u);
  const LibraryStep& cudnn = conv->libraries.front();
  EXPECT_EQ(cudnn.where.file, "aten/src/ATen/native/cudnn/Conv_v8.cpp");
  EXPECT_EQ(cudnn.where.line, 400);
  ASSERT_FALSE(cudnn.calls.empty());
  EXPECT_EQ(cudnn.calls.front(), "cudnnBackendExecute");
  EXPECT_TRUE(cudnn.typical && !cudnn.undecided);
}

TEST_F(MainPath260, AnOverloadIsCalledOnlyWhereItsArgumentsFit) {
  // BinaryOps.cpp:1545-1552 _pow2: float32 takes `at::pow(2.0, other)` (:1549,
  // pow.Scalar); `at::full(...).pow(other)` (:1552, pow.Tensor_Tensor) is for
  // double and reduced floating types only.
  Trace t = TraceTree("2.6.0", "torch.ldexp", TraceOptions::Device::kCuda);
  const OpStep* scalar = FindOp(t, "pow.Scalar");
  const OpStep* tensor = FindOp(t, "pow.Tensor_Tensor");
  ASSERT_NE(scalar, nullptr);
  ASSERT_NE(tensor, nullptr);
  EXPECT_EQ(scalar->called_at.line, 1549);
  EXPECT_TRUE(scalar->typical);
  EXPECT_EQ(tensor->called_at.line, 1552);
  EXPECT_FALSE(tensor->typical);
}

TEST_F(MainPath260, AnOverloadWhoseEnableIfRejectsTheDtypeIsRuledOut) {
  // cpu/layer_norm_kernel.cpp (2.6.0): LayerNormKernelImplInternal at :28 takes
  // `!is_reduced_floating_point_v<T>`, the one at :146 `is_reduced_floating_point_v<T>`
  // and alone calls layer_norm_kernel_mixed_type (:87); :179 calls
  // `LayerNormKernelImplInternal<scalar_t>` in an AT_DISPATCH: float for float32.
  auto helper = [](const Trace& t, int line) -> const ImplStep* {
    const OpStep* op = FindOp(t, "native_layer_norm");
    if (!op) return nullptr;
    for (const ImplStep& h : op->helpers)
      if (h.where.line == line && h.where.file == "aten/src/ATen/native/cpu/layer_norm_kernel.cpp") return &h;
    return nullptr;
  };
  Trace t = TraceTree("2.6.0", "F.layer_norm", TraceOptions::Device::kCpu);
  for (int line : {28, 87, 146}) ASSERT_NE(helper(t, line), nullptr) << line;
  EXPECT_EQ(helper(t, 28)->ruled_out, "");
  EXPECT_NE(helper(t, 146)->ruled_out.find("fails for T = float (the dispatched scalar_t) at "
                                           "aten/src/ATen/native/cpu/layer_norm_kernel.cpp:179"),
            std::string::npos)
      << helper(t, 146)->ruled_out;
  EXPECT_EQ(helper(t, 87)->ruled_out, "called only from overloads the dtype rules out");
  TraceOptions bfloat16;
  bfloat16.device = TraceOptions::Device::kCpu;
  bfloat16.assume = {"dtype=bfloat16"};
  Trace bf16 = TraceTree("2.6.0", "F.layer_norm", bfloat16);
  for (int line : {28, 87, 146}) ASSERT_NE(helper(bf16, line), nullptr) << line;
  EXPECT_NE(helper(bf16, 28)->ruled_out, "");
  EXPECT_EQ(helper(bf16, 87)->ruled_out, "");
  EXPECT_EQ(helper(bf16, 146)->ruled_out, "");
}

TEST_F(MainPath260, ACallerTheAssumptionsNeverRunBindsNothing) {
  // EmbeddingBag.cpp:1255 embedding_bag calls at::_embedding_bag when needs_grad_path
  // (a training step); _embedding_bag_forward_only, its other caller, runs only under
  // `!needs_grad_path` and the entry overload F.embedding_bag does not take passes
  // nothing: `sparse=False` from torch/nn/functional.py reaches _embedding_bag, and
  // EmbeddingBag.cpp:1443's dense backward is the path.
  Trace t = TraceTree("2.6.0", "F.embedding_bag", TraceOptions::Device::kCuda);
  const OpStep* dense = FindOp(t, "_embedding_bag_dense_backward", OpRole::kBackward);
  ASSERT_NE(dense, nullptr);
  EXPECT_TRUE(dense->typical);
  EXPECT_FALSE(dense->undecided);
  const OpStep* sparse = FindOp(t, "_embedding_bag_sparse_backward", OpRole::kBackward);
  ASSERT_NE(sparse, nullptr);
  EXPECT_FALSE(sparse->typical);
}

TEST_F(MainPath260, AStubCallHandsItsKernelAndHelpersTheArgumentsAfterTheDevice) {
  // linalg_lu_factor_ex's `lu_factor_stub(A.device().type(), LU, pivots, info, pivot)`
  // hands `pivot` (True by default) to cuda/linalg/BatchLinearAlgebra.cpp's lu_factor
  // and on to BatchLinearAlgebraLib.cpp:1451 lu_factor_looped_cusolver's `get_pivots`:
  // its `if (!get_pivots)` (:1484) nan_to_num_ (:1490) never runs.
  Trace t = TraceTree("2.6.0", "aten::linalg_lu_factor", TraceOptions::Device::kCuda);
  const OpStep* nan_to_num = FindOp(t, "nan_to_num_");
  ASSERT_NE(nan_to_num, nullptr);
  EXPECT_FALSE(nan_to_num->typical);
  EXPECT_FALSE(nan_to_num->undecided);
}

TEST_F(MainPath260, APythonCallTheFrameRulesOutPassesNothing) {
  // torch/nn/modules/rnn.py: LSTM.forward's packed `_VF.lstm(input, batch_sizes, ...)`
  // runs only when batch_sizes is not None; the dense call passes self.dropout, 0.0
  // (`float(dropout)`), which reaches cudnn/RNN.cpp:2360 `train && dropout_p > 0` in
  // get_dropout_state: the dropout state's random_ never runs.
  Trace t = TraceTree("2.6.0", "nn.LSTM", TraceOptions::Device::kCuda);
  const OpStep* random = FindOp(t, "random_");
  ASSERT_NE(random, nullptr);
  EXPECT_FALSE(random->typical);
  EXPECT_FALSE(random->undecided);
}

TEST_F(MainPath260, AMacroPastingItsArgumentIntoANameCallsNoOpOfThatName) {
  // mkldnn/Utils.cpp:84 `return ideep::attr_t::fuse_##NAME();` in ATTR_FUNC, used at
  // :146-150 (`ATTR_FUNC(relu)`, `ATTR_FUNC(sigmoid)`, ...): ideep's fuse_sigmoid, no
  // aten op; the CPU convolution reaches fusion_unary_attr_map, never aten::sigmoid.
  Trace t = TraceTree("2.6.0", "F.conv2d", TraceOptions::Device::kCpu);
  ASSERT_NE(FindOp(t, "mkldnn_convolution"), nullptr);
  for (const char* pasted : {"sigmoid", "tanh", "hardswish", "relu"}) EXPECT_EQ(FindOp(t, pasted), nullptr) << pasted;
}

TEST_F(MainPath260, AnOpWhoseTakenPathReachesAKernelThatOnlyRaisesRaises) {
  // sparse/SparseTensorMath.cpp:1611 smm calls at::sspaddmm_out, whose CUDA kernel
  // _sspaddmm_out_only_sparse_cuda (cuda/SparseMM.cu:13) only raises for a dense tensor.
  Trace t = TraceTree("2.6.0", "torch.smm", TraceOptions::Device::kCuda);
  const OpStep* smm = FindOp(t, "smm");
  ASSERT_NE(smm, nullptr);
  EXPECT_FALSE(smm->typical);
  EXPECT_TRUE(HasNoteContaining(*smm, "_sspaddmm_out_only_sparse_cuda (aten/src/ATen/native/cuda/SparseMM.cu:13)"));
  // aten::sspaddmm lists sspaddmm and sspaddmm.out as entries; sspaddmm
  // (SparseTensorMath.cpp:1619) calls at::sspaddmm_out: it raises too.
  // sparse/SparseTensor.cpp:615-616 coalesce opens with
  // `TORCH_CHECK(self.layout() == kSparse, ...)`: a strided tensor fails it.
  Trace coalesce = TraceTree("2.6.0", "aten::coalesce", TraceOptions::Device::kCuda);
  const OpStep* checked = FindOp(coalesce, "coalesce");
  ASSERT_NE(checked, nullptr);
  EXPECT_FALSE(checked->typical);
  EXPECT_TRUE(HasNoteContaining(*checked, "(aten/src/ATen/native/sparse/SparseTensor.cpp:615) first checks"));
  Trace entries = TraceTree("2.6.0", "aten::sspaddmm", TraceOptions::Device::kCuda);
  const OpStep* functional = FindOp(entries, "sspaddmm");
  ASSERT_NE(functional, nullptr);
  EXPECT_TRUE(functional->reached_from.empty());
  EXPECT_FALSE(functional->typical);
}

TEST_F(MainPath260, ADtypeArgumentTakesTheDtypeOverload) {
  // ReduceOps.cpp:487 `self.to(result.scalar_type())` in impl_func_cum_ops, which cumsum.out runs:
  // to.dtype, never to.other (a Tensor) nor to.dtype_layout (TensorOptions).
  Trace t = TraceTree("2.6.0", "aten::cumsum.out", TraceOptions::Device::kCuda);
  std::set<std::string> from_cumsum;
  for (const auto& op : t.ops)
    if (op.called_at.file == "aten/src/ATen/native/ReduceOps.cpp" && op.called_at.line == 487)
      from_cumsum.insert(op.name);
  EXPECT_EQ(from_cumsum, (std::set<std::string>{"to.dtype"}));
}

TEST_F(MainPath260, ANumberArgumentTakesTheScalarOverload) {
  // Pooling.cpp:51 `output.squeeze(-2)`: squeeze.dim (int), never squeeze.dims (int[]), which C++
  // reaches only by a one-element list conversion the exact match beats.
  Trace t = TraceTree("2.6.0", "F.adaptive_avg_pool1d", TraceOptions::Device::kCuda);
  int dim = 0, dims = 0;
  for (const auto& op : t.ops) {
    if (!op.called_at.valid() || op.called_at.file != "aten/src/ATen/native/Pooling.cpp" || op.called_at.line != 51)
      continue;
    dim += op.name == "squeeze.dim";
    dims += op.name == "squeeze.dims";
  }
  EXPECT_EQ(dim, 1);
  EXPECT_EQ(dims, 0);
}

TEST_F(MainPath260, AConditionalExpressionDecidesThePythonCall) {
  // torch/nn/functional.py:1425 `_VF.dropout_(input, p, training) if inplace else _VF.dropout(...)`,
  // inplace=False by default.
  Trace t = TraceTree("2.6.0", "F.dropout", TraceOptions::Device::kCuda);
  const OpStep* inplace = FindOp(t, "dropout_");
  const OpStep* functional = FindOp(t, "dropout");
  ASSERT_NE(inplace, nullptr);
  ASSERT_NE(functional, nullptr);
  EXPECT_FALSE(inplace->typical);
  EXPECT_TRUE(functional->typical);
}

TEST_F(MainPath260, ADefaultTraceKeepsTheCpuPathApart) {
  // roll: CPU, MPS: roll (TensorTransformations.cpp:102, calls at::cat at :120); CUDA: roll_cuda.
  Trace t = TraceTree("2.6.0", "torch.roll");
  const OpStep* op = FindOp(t, "roll");
  ASSERT_NE(op, nullptr);
  bool cpu_cat = false;
  for (const auto& c : op->other_device_calls) cpu_cat = cpu_cat || (c.op == "cat" && c.where.line == 120);
  EXPECT_TRUE(cpu_cat);
  for (const auto& c : op->calls) EXPECT_NE(c.from, "roll") << c.op;
  const OpStep* cat = FindOp(t, "cat");
  ASSERT_NE(cat, nullptr);
  EXPECT_FALSE(cat->typical);
}

TEST_F(MainPath260, ANamedOutputsFormulaIsForwardMode) {
  // derivatives.yaml:1582-1585: sort's `self:` formula is its backward;
  // `values: gather_with_keepdimed_indices(self_t, dim, indices, true)` is
  // forward-mode AD (values is sort's first output), whose at::gather
  // (FunctionsManual.cpp:6363) a backward never runs.
  Trace t = TraceTree("2.6.0", "torch.sort", TraceOptions::Device::kCuda);
  const BackwardStep* b = FindBackward(t, "sort");
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->ops, (std::vector<std::string>{"value_selecting_reduction_backward"}));
  EXPECT_EQ(FindOp(t, "gather", OpRole::kBackward), nullptr);
}

TEST_F(MainPath260, AFormulaCallTakesTheOverloadsOfItsArgumentCount) {
  // derivatives.yaml:442 `where(self <= max, grad, at::scalar_tensor(0., grad.options()))`:
  // where.self (native_functions.yaml:6513), never the one-argument where
  // (:6536), whose CompositeImplicit kernel calls nonzero_numpy.
  Trace t = TraceTree("2.6.0", "torch.clamp_max", TraceOptions::Device::kCuda);
  const OpStep* where = FindOp(t, "where.self", OpRole::kBackward);
  ASSERT_NE(where, nullptr);
  EXPECT_TRUE(where->typical);
  EXPECT_EQ(FindOp(t, "where", OpRole::kBackward), nullptr);
  EXPECT_EQ(FindOp(t, "nonzero_numpy", OpRole::kBackward), nullptr);
}

TEST_F(MainPath260, AModuleBufferRegisteredFromADefaultNoneIsNone) {
  // torch/nn/modules/loss.py:816 `self.register_buffer("pos_weight", pos_weight)`
  // with `pos_weight=None`: Loss.cpp:372's `(pos_weight - 1).mul(target).add_(1)`
  // under `if (pos_weight.defined())` never runs; :376's sub_ does.
  Trace t = TraceTree("2.6.0", "nn.BCEWithLogitsLoss", TraceOptions::Device::kCuda);
  const OpStep* sub = FindOp(t, "sub.Tensor");
  ASSERT_NE(sub, nullptr);
  EXPECT_FALSE(sub->typical);
  EXPECT_FALSE(sub->undecided);
  const OpStep* sub_ = FindOp(t, "sub_.Tensor");
  ASSERT_NE(sub_, nullptr);
  EXPECT_TRUE(sub_->typical);
}

TEST_F(MainPath260, ACmathMacroIsANumberArgument) {
  // LinearAlgebra.cpp:440 `at::where(sign == -1., NAN, logabsdet)`: NAN is a
  // number, so the call is where.ScalarSelf, whose code (TensorCompare.cpp:558)
  // calls where.self -- never where.self directly.
  Trace t = TraceTree("2.6.0", "torch.logdet", TraceOptions::Device::kCuda);
  const OpStep* scalar_self = FindOp(t, "where.ScalarSelf");
  ASSERT_NE(scalar_self, nullptr);
  EXPECT_TRUE(scalar_self->typical);
  const OpStep* self = FindOp(t, "where.self");
  ASSERT_NE(self, nullptr);
  EXPECT_EQ(self->reached_from, "where.ScalarSelf");
}

TEST_F(MainPath260, AFormulasTensorOperatorsAreTensorArguments) {
  // derivatives.yaml:1124 maximum's `at::where(self == other, grad / 2, grad)`
  // passes three Tensors: where.self (native_functions.yaml:6513), never
  // where.ScalarSelf (:6527), .ScalarOther (:6530) or .Scalar (:6533), whose
  // code converts a Scalar (TensorCompare.cpp:556-565: scalar_tensor, to).
  Trace t = TraceTree("2.6.0", "torch.maximum", TraceOptions::Device::kCuda);
  const OpStep* where = FindOp(t, "where.self", OpRole::kBackward);
  ASSERT_NE(where, nullptr);
  EXPECT_TRUE(where->typical);
  for (const char* scalar : {"where.ScalarSelf", "where.ScalarOther", "where.Scalar"})
    EXPECT_EQ(FindOp(t, scalar, OpRole::kBackward), nullptr) << scalar;
  EXPECT_EQ(FindOp(t, "scalar_tensor", OpRole::kBackward), nullptr);
}

TEST_F(MainPath260, AFormulasNumberArgumentTakesTheScalarOverload) {
  // derivatives.yaml:1929 where.self's `where(condition, grad, 0)`: a number
  // last is where.ScalarOther (native_functions.yaml:6530), whose
  // CompositeImplicit code (TensorCompare.cpp:565) runs where.self. logdet's
  // `at::where(sign == -1., NAN, logabsdet)` (LinearAlgebra.cpp:440) reaches
  // where.self through where.ScalarSelf's CompositeImplicit code
  // (TensorCompare.cpp:558): autograd records where.self.
  Trace t = TraceTree("2.6.0", "torch.logdet", TraceOptions::Device::kCuda);
  const OpStep* scalar_other = FindOp(t, "where.ScalarOther", OpRole::kBackward);
  ASSERT_NE(scalar_other, nullptr);
  EXPECT_TRUE(scalar_other->typical);
  const OpStep* self = FindOp(t, "where.self", OpRole::kBackward);
  ASSERT_NE(self, nullptr);
  EXPECT_EQ(self->reached_from, "where.ScalarOther");
  EXPECT_TRUE(self->typical);
}

TEST_F(MainPath260, AFormulaPassesADimnameOnlyWhereItsSchemaHasOne) {
  // derivatives.yaml:569 diag_embed's `self: grad.diagonal(offset, dim1, dim2)` passes
  // ints: diagonal (native_functions.yaml), never diagonal.Dimname and the
  // refine_names its kernel calls (TensorShape.cpp:1125-1131).
  Trace t = TraceTree("2.6.0", "torch.diag_embed", TraceOptions::Device::kCuda);
  EXPECT_NE(FindOp(t, "diagonal", OpRole::kBackward), nullptr);
  EXPECT_EQ(FindOp(t, "diagonal.Dimname", OpRole::kBackward), nullptr);
  EXPECT_EQ(FindOp(t, "refine_names", OpRole::kBackward), nullptr);
}

TEST_F(MainPath260, AnArgumentPassedOnThroughHelpersDecidesTheView) {
  // cuda/ReduceOps.cpp's max_all_kernel_impl calls make_reduction(..., false, ...),
  // which hands keepdim on to review_reduce_result (ReduceOpsUtils.h:171
  // `if (keepdim) return result;`): the as_strided after it runs. `torch.max(x)`
  // is the one-tensor overload (torch.max alone may be max.dim or max.other).
  Trace t = TraceTree("2.6.0", "torch.max(x)", TraceOptions::Device::kCuda);
  const OpStep* as_strided = FindOp(t, "as_strided");
  ASSERT_NE(as_strided, nullptr);
  EXPECT_TRUE(as_strided->typical);
}

TEST_F(MainPath260, AModuleBufferIsATensorAndRecordsNoBackward) {
  // torch/nn/modules/batchnorm.py: _NormBase.__init__ registers num_batches_tracked as a
  // buffer (a call over several lines) when track_running_stats (default True); forward's
  // `self.num_batches_tracked.add_(1)` runs in training, and autograd records nothing of it.
  Trace t = TraceTree("2.6.0", "nn.BatchNorm2d", TraceOptions::Device::kCuda);
  const OpStep* add = FindOp(t, "add_.Tensor");
  ASSERT_NE(add, nullptr);
  EXPECT_TRUE(add->typical);
  EXPECT_FALSE(add->undecided);
  const BackwardStep* b = FindBackward(t, "add_.Tensor");
  ASSERT_NE(b, nullptr);
  EXPECT_TRUE(b->below_autograd);
  for (const OpStep& op : t.ops)  // add_'s formula's mul never runs
    if (op.role == OpRole::kBackward) EXPECT_NE(op.reached_from, "add_.Tensor") << op.name;
  ASSERT_NE(FindBackward(t, "native_batch_norm"), nullptr);
  EXPECT_FALSE(FindBackward(t, "native_batch_norm")->below_autograd);
}

TEST_F(MainPath260, AModuleParameterIsADefinedTensorInCpp) {
  // torch/nn/modules/conv.py: _ConvNd.__init__ makes self.bias a Parameter (bias=True);
  // F.conv2d is `_add_docstr(torch.conv2d, ...)`, handed what _conv_forward passes; conv2d's
  // `bias` views bias_opt (Convolution.cpp `*at::borrow_from_optional_tensor(bias_opt)`) and
  // passes it on to convolution, then _convolution, whose cuDNN branch adds the bias
  // (`if (bias.defined()) output.add_(...)`, Convolution.cpp:1535-1536).
  Trace t = TraceTree("2.6.0", "nn.Conv2d", TraceOptions::Device::kCuda);
  const OpStep* add = FindOp(t, "add_.Tensor");
  ASSERT_NE(add, nullptr);
  EXPECT_EQ(add->called_at.line, 1536);
  EXPECT_TRUE(add->typical);
  EXPECT_FALSE(add->undecided);
  Trace unbiased = TraceTree("2.6.0", "nn.Conv2d(3, 8, 3, bias=False)", TraceOptions::Device::kCuda);
  const OpStep* none = FindOp(unbiased, "add_.Tensor");
  if (none) EXPECT_FALSE(none->typical) << "bias=False: self.bias is None";
  // F.conv2d's bias defaults to None: conv2d's local `bias` views an empty
  // optional, an undefined Tensor, so the cuDNN branch adds nothing.
  Trace functional = TraceTree("2.6.0", "F.conv2d", TraceOptions::Device::kCuda);
  EXPECT_TRUE(DecidedOff(functional, "add_.Tensor", 1536));
}

TEST_F(MainPath260, AnOpCalledInsideAKernelHasNoBackward) {
  // torch.max's as_strided is called by max's own CUDA code (ReduceOpsUtils.h:171,
  // reached from cuda/ReduceOps.cpp:96), below max's autograd kernel: autograd
  // records max, so as_strided's derivatives.yaml entry (as_strided_backward's
  // new_zeros) is listed, never traced: no backward op comes of it.
  Trace t = TraceTree("2.6.0", "torch.max", TraceOptions::Device::kCuda);
  const OpStep* as_strided = FindOp(t, "as_strided");
  ASSERT_NE(as_strided, nullptr);
  EXPECT_EQ(as_strided->reached_from, "max");
  const BackwardStep* b = FindBackward(t, "as_strided");
  ASSERT_NE(b, nullptr);
  EXPECT_TRUE(b->below_autograd);
  EXPECT_NE(std::find(b->ops.begin(), b->ops.end(), "new_zeros"), b->ops.end());
  // (max's own formula names new_zeros too: traced from there.)
  const OpStep* new_zeros = FindOp(t, "new_zeros", OpRole::kBackward);
  ASSERT_NE(new_zeros, nullptr);
  EXPECT_EQ(new_zeros->reached_from, "max");
  ASSERT_NE(FindBackward(t, "max"), nullptr);
  EXPECT_FALSE(FindBackward(t, "max")->below_autograd);
  // Every backward op comes of a formula autograd records.
  std::set<std::string> below;
  for (const BackwardStep& s : t.backward)
    if (s.below_autograd) below.insert(s.op);
  for (const OpStep& op : t.ops)
    if (op.role == OpRole::kBackward) EXPECT_EQ(below.count(op.reached_from), 0u) << op.name;
}

TEST_F(MainPath260, AnOpOnAFreshTensorAloneHasNoBackward) {
  // cudnn/RNN.cpp:2367 `at::empty({}, options.dtype(at::kLong)).random_(gen)`
  // (nn.LSTM's dropout seed): nothing random_ is given requires grad, so
  // autograd records no random_, and its formula (zeros_like) never runs.
  Trace t = TraceTree("2.6.0", "nn.LSTM", TraceOptions::Device::kCuda);
  const OpStep* random = FindOp(t, "random_");
  ASSERT_NE(random, nullptr);
  ASSERT_EQ(random->called_at.file, "aten/src/ATen/native/cudnn/RNN.cpp");
  EXPECT_EQ(random->called_at.line, 2367);
  for (const char* name : {"random_", "random_.to"}) {
    const BackwardStep* b = FindBackward(t, name);
    ASSERT_NE(b, nullptr) << name;
    EXPECT_TRUE(b->below_autograd) << name;
  }
  const OpStep* zeros_like = FindOp(t, "zeros_like", OpRole::kBackward);
  if (zeros_like) EXPECT_EQ(zeros_like->reached_from.rfind("random_", 0), std::string::npos);
  // The cuDNN RNN's own backward stays.
  ASSERT_NE(FindBackward(t, "_cudnn_rnn"), nullptr);
  EXPECT_FALSE(FindBackward(t, "_cudnn_rnn")->below_autograd);
}

TEST_F(MainPath260, AHelpersTensorResultPicksTheOverload) {
  // UnaryOps.cpp:513 `at::mul_out(result, self, wrapped_scalar_tensor(Scalar(M_PI_180)))`:
  // wrapped_scalar_tensor returns a Tensor (ScalarOps.h:45), so mul.out, not mul.Scalar_out.
  Trace t = TraceTree("2.6.0", "torch.deg2rad", TraceOptions::Device::kCuda);
  EXPECT_NE(FindOp(t, "mul.out"), nullptr);
  EXPECT_EQ(FindOp(t, "mul.Scalar_out"), nullptr);
  EXPECT_EQ(FindOp(t, "mul_.Scalar"), nullptr);
  // BinaryOps.cpp:1153 `at::sub(other, self, alpha)` on two Tensors is sub.Tensor: at::sub
  // is no out= call although sub.out comes first in native_functions.yaml.
  Trace rsub = TraceTree("2.6.0", "torch.rsub", TraceOptions::Device::kCuda);
  const OpStep* sub = FindOp(rsub, "sub.Tensor");
  ASSERT_NE(sub, nullptr);
  EXPECT_TRUE(sub->typical);
  EXPECT_EQ(FindOp(rsub, "sub.Scalar"), nullptr);
  EXPECT_EQ(FindOp(rsub, "sub_.Scalar"), nullptr);
}

TEST_F(MainPath260, AFormulasArithmeticOnNumbersIsNoOp) {
  // derivatives.yaml:637 `2.0 / sqrt(M_PI) * exp(-(self.pow(2))) * grad`: C's sqrt, a double.
  Trace erf = TraceTree("2.6.0", "torch.erf", TraceOptions::Device::kCuda);
  const BackwardStep* b = FindBackward(erf, "erf");
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(std::count(b->ops.begin(), b->ops.end(), "sqrt"), 0);
  EXPECT_EQ(std::count(b->ops.begin(), b->ops.end(), "div"), 0);
  EXPECT_EQ(std::count(b->ops.begin(), b->ops.end(), "neg"), 1);  // -(self.pow(2)) is a tensor
  // derivatives.yaml:333 `grad * 1 / (1 - self.pow(2)).conj()`: `1 - t` is TensorOperators.h:19's
  // empty_like(t).fill_(1).sub_(t).
  Trace atanh = TraceTree("2.6.0", "torch.atanh", TraceOptions::Device::kCuda);
  const BackwardStep* a = FindBackward(atanh, "atanh");
  ASSERT_NE(a, nullptr);
  for (const char* op : {"sub_", "fill_", "empty_like", "div", "mul"})
    EXPECT_EQ(std::count(a->ops.begin(), a->ops.end(), op), 1) << op;
  EXPECT_EQ(std::count(a->ops.begin(), a->ops.end(), "sub"), 0);
}

TEST_F(MainPath260, AGroupOfTensorArithmeticIsATensorOperand) {
  // Loss.cpp:226 `(-target * (input1 - input2) + margin)`: the + adds a double to a tensor.
  Trace t = TraceTree("2.6.0", "F.margin_ranking_loss", TraceOptions::Device::kCuda);
  const OpStep* op = FindOp(t, "margin_ranking_loss");
  ASSERT_NE(op, nullptr);
  bool add = false;
  for (const auto& c : op->calls) add = add || (c.op == "add" && c.where.line == 226);
  EXPECT_TRUE(add);
}

TEST_F(MainPath260, ANumberLeftOfATensorIsFilledThenSubtracted) {
  // Loss.cpp:184 `auto margin_diff = (margin - self);` with a double margin:
  // TensorOperators.h:19 empty_like(self).fill_(margin).sub_(self), no sub.
  Trace t = TraceTree("2.6.0", "F.hinge_embedding_loss", TraceOptions::Device::kCuda);
  const OpStep* op = FindOp(t, "hinge_embedding_loss");
  ASSERT_NE(op, nullptr);
  std::vector<std::string> at_184;
  for (const auto& c : op->calls)
    if (c.where.line == 184) at_184.push_back(c.op);
  EXPECT_EQ(at_184, (std::vector<std::string>{"sub_", "empty_like", "fill_"}));
}

TEST_F(MainPath260, AHelpersMethodOnANonTensorIsNoOp) {
  // derivatives.yaml:2370 max_unpool2d: max_pool_double_backward(grad, indices, 2);
  // FunctionsManual.cpp:2174 `indices.sym_sizes().slice(...)` slices a SymIntArrayRef.
  Trace t = TraceTree("2.6.0", "F.max_unpool2d", TraceOptions::Device::kCuda);
  const BackwardStep* b = FindBackward(t, "max_unpool2d");
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(std::count(b->ops.begin(), b->ops.end(), "slice"), 0);
  EXPECT_EQ(std::count(b->ops.begin(), b->ops.end(), "gather"), 1);
}

TEST_F(MainPath260, AnUnqualifiedSymIntOpCallIsTheOp) {
  // AdaptiveAveragePooling.cpp:138 `return _adaptive_avg_pool2d_symint(input, output_size);`
  // in at::native, which defines no such function: at::_adaptive_avg_pool2d_symint, the op.
  Trace t = TraceTree("2.6.0", "F.adaptive_avg_pool2d", TraceOptions::Device::kCuda);
  const OpStep* op = FindOp(t, "adaptive_avg_pool2d");
  ASSERT_NE(op, nullptr);
  bool called = false;
  for (const auto& c : op->calls) called = called || (c.op == "_adaptive_avg_pool2d" && c.where.line == 138);
  EXPECT_TRUE(called);
  EXPECT_NE(FindOp(t, "_adaptive_avg_pool2d"), nullptr);
}

}  // namespace
}  // namespace optrace

namespace optrace {
namespace {

// Whether forward op `name` is on the path: decided (typical) or open (undecided).
bool OnPath(const Trace& t, const std::string& name) {
  for (const auto& op : t.ops)
    if (op.role == OpRole::kForward && op.name == name && (op.typical || op.undecided)) return true;
  return false;
}

TEST_F(MainPath260, TheDtypeDecidesWhichAttentionBackendsSdpaCanSelect) {
  // cuda/sdp_utils.cpp:750 returns flash under can_use_flash_attention, whose
  // constraints include check_dtypes_low_precision (:511: kHalf, kBFloat16);
  // can_use_mem_efficient_attention's list (:653) holds kFloat.
  TraceOptions f32;
  f32.device = TraceOptions::Device::kCuda;
  Trace t = TraceTree("2.6.0", "F.scaled_dot_product_attention", f32);
  EXPECT_FALSE(OnPath(t, "_flash_attention_forward"));
  EXPECT_FALSE(OnPath(t, "_scaled_dot_product_cudnn_attention"));
  // select_sdp_backend (:726) tries priority_order's list (:737), Context.h:391's
  // sdp_priority_order {flash, efficient, math, cudnn}: efficient is the first
  // float32 does not rule out, so it is decided and math is an alternative.
  const OpStep* efficient = nullptr;
  for (const auto& op : t.ops)
    if (op.role == OpRole::kForward && op.name == "_efficient_attention_forward") efficient = &op;
  ASSERT_NE(efficient, nullptr);
  EXPECT_TRUE(efficient->typical && !efficient->undecided);
  bool f32_kernel = false;  // the text lists them first (render_main.cc: the assumed dtype's kernels first)
  for (const auto& k : efficient->kernels) f32_kernel = f32_kernel || k.name.starts_with("fmha_cutlassF_f32_");
  EXPECT_TRUE(f32_kernel);
  EXPECT_FALSE(OnPath(t, "_scaled_dot_product_attention_math"));
  EXPECT_FALSE(OnPath(t, "vdot")) << "the math fallback's matmul is off the path";
  TraceOptions bf16 = f32;
  bf16.assume = {"dtype=bfloat16"};
  Trace b = TraceTree("2.6.0", "F.scaled_dot_product_attention", bf16);
  EXPECT_TRUE(OnPath(b, "_flash_attention_forward"));
  EXPECT_FALSE(OnPath(b, "_efficient_attention_forward")) << "behind flash in the order";
}

TEST_F(MainPath260, TheModeAStringPicksReachesTheHelperAsAnEnum) {
  // PadNd.cpp:247-261: pad_symint turns its `mode` (schema default "constant")
  // into `mode_enum` by a lambda called at once, then passes
  // `static_cast<int64_t>(mode_enum)` to _pad_enum_symint, whose
  // `mode = static_cast<at::padding_mode>(mode_int)` (:212) picks
  // constant_pad_nd (:214-215) before the reflection and replication pads.
  Trace t = TraceTree("2.6.0", "F.pad", TraceOptions::Device::kCuda);
  const OpStep* constant = FindOp(t, "constant_pad_nd");
  ASSERT_NE(constant, nullptr);
  EXPECT_EQ(constant->called_at.line, 215);
  EXPECT_TRUE(constant->typical && !constant->undecided);
  for (const char* pad : {"reflection_pad1d", "replication_pad2d", "reflection_pad3d"}) {
    const OpStep* off = FindOp(t, pad);
    ASSERT_NE(off, nullptr) << pad;
    EXPECT_FALSE(off->typical || off->undecided) << pad << " is an alternative, not open";
  }
  Trace reflect = TraceTree("2.6.0", "F.pad(x, (1, 1), mode='reflect')", TraceOptions::Device::kCuda);
  const OpStep* off = FindOp(reflect, "constant_pad_nd");
  EXPECT_TRUE(off && !off->typical && !off->undecided) << "mode='reflect'";
  const OpStep* reflection = FindOp(reflect, "reflection_pad1d");
  EXPECT_TRUE(reflection && (reflection->typical || reflection->undecided)) << "the input's rank decides which";
  // SDPA's flash branch pads the head dim (attention.cpp:602, pad_last_dim) in constant mode.
  TraceOptions bf16;
  bf16.device = TraceOptions::Device::kCuda;
  bf16.assume = {"dtype=bfloat16"};
  Trace sdpa = TraceTree("2.6.0", "F.scaled_dot_product_attention", bf16);
  for (const char* pad : {"reflection_pad1d", "replication_pad3d"}) EXPECT_FALSE(OnPath(sdpa, pad)) << pad;
}

TEST_F(MainPath260, AStructuredDelegateRunsWithTheArgumentsOfItsOp) {
  // Activation.cpp:513 relu is `at::clamp_min(self, 0)`; clamp_min.out's
  // TORCH_IMPL_FUNC (TensorCompare.cpp:741-747) fills only for a NaN min.
  Trace relu = TraceTree("2.6.0", "nn.ReLU", TraceOptions::Device::kCuda);
  EXPECT_TRUE(DecidedOff(relu, "fill_.Scalar", 744));
  // ReduceOps.cpp:1761 argmax_out passes its `dim` (None) to argmax_argmin_impl,
  // whose `if (dim.has_value())` (:1737) holds the size-1 fill.
  Trace argmax = TraceTree("2.6.0", "torch.argmax", TraceOptions::Device::kCuda);
  EXPECT_TRUE(DecidedOff(argmax, "fill_.Scalar", 1742));
}

TEST_F(MainPath260, AnOptionalTruthTheCallerPassesIsItsValue) {
  // F.dropout trains by default; Dropout.cpp's dropout passes `train` on to
  // native_dropout, whose CUDA code clones the input only for
  // `train.has_value() && !train.value()` (cuda/Dropout.cu:365-366).
  Trace t = TraceTree("2.6.0", "F.dropout", TraceOptions::Device::kCuda);
  EXPECT_TRUE(DecidedOff(t, "clone", 366));
}

TEST_F(MainPath260, AScalarExponentTheCallerPassesDecidesPowsShortCuts) {
  // nn.RMSNorm squares its input (`input.pow(2)`); pow.Tensor_Scalar_out fills
  // for exponent 0 and copies for 1 (Pow.cpp:52-55): neither runs.
  Trace t = TraceTree("2.6.0", "nn.RMSNorm", TraceOptions::Device::kCuda);
  for (const char* name : {"fill_.Scalar", "copy_"}) {
    const OpStep* op = nullptr;
    for (const auto& o : t.ops)
      if (o.role == OpRole::kForward && o.name == name && o.reached_from == "pow.Tensor_Scalar_out") op = &o;
    ASSERT_NE(op, nullptr) << name;
    EXPECT_FALSE(op->typical || op->undecided) << name;
  }
  // The stub hands its kernel the exponent (Pow.cpp:57 -> cuda/PowKernel.cu:170):
  // not .5, -.5 or -1, so neither sqrt, rsqrt nor reciprocal runs (:172-178).
  const OpStep* pow = FindOp(t, "pow.Tensor_Scalar_out");
  ASSERT_NE(pow, nullptr);
  bool sqrt_listed = false;
  for (const auto& k : pow->kernels) {
    if (k.name != "sqrt_kernel_cuda" && k.name != "rsqrt_kernel_cuda" && k.name != "reciprocal_kernel_cuda") continue;
    sqrt_listed = sqrt_listed || k.name == "sqrt_kernel_cuda";
    EXPECT_FALSE(k.typical || k.undecided) << k.name;
  }
  EXPECT_TRUE(sqrt_listed);
}

TEST_F(MainPath260, ATypicalTensorSuggestsTheContiguousFormat) {
  // cuda/DilatedMaxPool2d.cu:327 `const auto memory_format = input_.suggest_memory_format();`, then
  // its cases (:356, :399): the NCHW kernel (:402) runs, the channels-last one (:387) does not.
  Trace t = TraceTree("2.6.0", "aten::max_pool2d_with_indices", TraceOptions::Device::kCuda);
  const OpStep* op = FindOp(t, "max_pool2d_with_indices.out");  // the structured delegate's kernels
  ASSERT_NE(op, nullptr);
  int read = 0;
  for (const auto& k : op->kernels) {
    if (k.name == "max_pool_forward_nchw") {
      ++read;
      EXPECT_TRUE(k.typical && !k.undecided);
    } else if (k.name == "max_pool_forward_nhwc") {
      ++read;
      EXPECT_FALSE(k.typical || k.undecided);
    }
  }
  EXPECT_EQ(read, 2);
}

TEST_F(MainPath260, ACopyOnOneDeviceNeedsNoTemporaries) {
  // cuda/Copy.cu:275-283 copy_requires_temporaries returns false first when
  // source and destination share a device; the staging branch (:315-329,
  // `expand_as(dst).contiguous()`) is off copy_'s path.
  Trace t = TraceTree("2.6.0", "aten::copy_", TraceOptions::Device::kCuda);
  EXPECT_TRUE(DecidedOff(t, "expand_as", 329));
}

TEST_F(MainPath260, AnOpCalledOnBothArmsOfAChoiceRunsEitherWay) {
  // LinearAlgebra.cpp:2842 `keepdim ? at::abs_outf(self_, ...) : at::abs_outf(self_.squeeze(reduce_dim), ...)`:
  // abs.out runs whatever keepdim is; squeeze.dims only on the second arm.
  Trace t = TraceTree("2.6.0", "aten::linalg_vector_norm", TraceOptions::Device::kCuda);
  const OpStep* abs = FindOp(t, "abs.out");
  ASSERT_NE(abs, nullptr);
  EXPECT_EQ(abs->called_at.line, 2842);
  for (const auto& c : abs->when) EXPECT_NE(c.text, "keepdim");
  const OpStep* squeeze = FindOp(t, "squeeze.dims");
  ASSERT_NE(squeeze, nullptr);
  bool keepdim = false;
  for (const auto& c : squeeze->when) keepdim = keepdim || (c.text == "keepdim" && c.negated);
  EXPECT_TRUE(keepdim);
}

TEST_F(MainPath260, LinearsMaybeOwnedBiasOfNoneIsUndefined) {
  // Linear.cpp:83-85 views bias_opt as a MaybeOwned<Tensor>; F.linear's bias
  // defaults to None, so `bias->defined()` is false: matmul (:111) runs, not
  // addmm (:94-96) nor the bias add (:112-118).
  Trace t = TraceTree("2.6.0", "F.linear", TraceOptions::Device::kCuda);
  const OpStep* matmul = FindOp(t, "matmul");
  ASSERT_NE(matmul, nullptr);
  EXPECT_EQ(matmul->called_at.line, 111);
  EXPECT_TRUE(matmul->typical && !matmul->undecided);
  EXPECT_TRUE(DecidedOff(t, "addmm", 96));
}

TEST_F(MainPath260, AHelperPassedTheViewOfAnEmptyOptionalGetsAnUndefinedTensor) {
  // LossNLL.cpp:639-641 hands cross_entropy_loss_prob_target `weight_`, the
  // view of the optional weight (None by default): its `if (weight.defined())`
  // (:516) is false, so the unweighted mean's mul (:546) is the call, not the
  // weighted one (:531), and `weight.view(...)` (:523) runs not.
  Trace t = TraceTree("2.6.0", "aten::cross_entropy_loss", TraceOptions::Device::kCuda);
  const OpStep* mul = FindOp(t, "mul.Tensor");
  ASSERT_NE(mul, nullptr);
  EXPECT_EQ(mul->called_at.line, 546);
  const OpStep* view = FindOp(t, "view");
  ASSERT_NE(view, nullptr);
  EXPECT_NE(view->called_at.line, 523);
}

TEST_F(MainPath260, ANumberIsNoTensorWhereThePythonParserTakesNone) {
  // functional.py:5486 `input.norm(...).clamp_min(eps)`, eps=1e-12; python_arg_parser.cpp:88-101
  // lets no number be clamp_min's Tensor: clamp_min.Tensor (native_functions.yaml:1590) and its
  // formula's `self < min` (derivatives.yaml:438) are off the path.
  Trace t = TraceTree("2.6.0", "F.normalize", TraceOptions::Device::kCuda);
  const OpStep* scalar = FindOp(t, "clamp_min");
  ASSERT_NE(scalar, nullptr);
  EXPECT_TRUE(scalar->typical && !scalar->undecided);
  const OpStep* tensor = FindOp(t, "clamp_min.Tensor");
  ASSERT_NE(tensor, nullptr);
  EXPECT_FALSE(tensor->typical || tensor->undecided);
  for (const auto& op : t.ops)
    EXPECT_FALSE(op.role == OpRole::kBackward && op.name == "lt.Tensor" && op.typical) << "clamp_min.Tensor's min grad";
}

TEST_F(MainPath260, ALocalTensorDeclaredWithoutAValueIsUndefined) {
  // LinearAlgebra.cpp:2182-2183 `at::Tensor result, unused;` `_matmul_impl(unused, ...)`:
  // `has_out = out.defined()` (:2016) is false for matmul's calls (`tensor1.mm(tensor2)`, :2035),
  // and true only for matmul.out's `at::dot_out(out, ...)` (:2028), never for matmul's `.dot(`.
  Trace t = TraceTree("2.6.0", "aten::matmul", TraceOptions::Device::kCuda);
  const OpStep* mm = FindOp(t, "mm");
  ASSERT_NE(mm, nullptr);
  ASSERT_EQ(mm->reached_from, "matmul");
  bool read = false;
  for (const auto& c : mm->when)
    if (c.text == "has_out") {
      read = true;
      EXPECT_TRUE(c.negated && !c.open && c.holds) << "`unless has_out` is decided: it holds";
    }
  EXPECT_TRUE(read);
  const OpStep* dot_out = FindOp(t, "dot.out");
  ASSERT_NE(dot_out, nullptr);
  EXPECT_EQ(dot_out->reached_from, "matmul.out");
  for (const auto& c : dot_out->when) EXPECT_FALSE(c.text == "has_out" && c.negated) << "the other arm's condition";
}

TEST_F(MainPath260, TunableOpIsOffInATypicalRun) {
  // cuda/Blas.cpp:375-384: addmm's cuBLASLt call runs in the `else` of
  // `if (tuning_ctx->IsTunableOpEnabled())`, off unless asked for.
  auto text = TreeIndex("2.6.0").FileText("aten/src/ATen/native/cuda/Blas.cpp");
  ASSERT_NE(text, nullptr);
  CppGuardReader reader(*text);
  std::vector<CodeCondition> at;
  ASSERT_TRUE(reader.CallConditions(1, 384, "gemm_and_bias", &at));
  const auto tunable = std::find_if(at.begin(), at.end(), [](const CodeCondition& c) {
    return c.text.find("IsTunableOpEnabled()") != std::string::npos;
  });
  ASSERT_NE(tunable, at.end());
  EXPECT_TRUE(tunable->negated);
  EXPECT_EQ(tunable->line, 376);
  Assumptions typical, tuned;
  std::string error;
  ASSERT_TRUE(tuned.Apply({"tunableop"}, &error)) << error;
  EXPECT_EQ(EvaluateCondition(tunable->text, false, typical), Tri::kFalse);
  EXPECT_EQ(EvaluateCondition(tunable->text, false, tuned), Tri::kTrue);
}

TEST_F(MainPath260, ACallOfANestedDefWalksItWithWhatTheCallPasses) {
  // torch/masked/_ops.py:1037 `helper(input, mask)` calls the def nested at :1002, whose
  // `_where(...)` (:1008) reaches torch.where (:857) only for a mask; Combine.backward's
  // `(mask,) = ctx.saved_tensors` (:1027) is no write of _combine_input_and_mask's mask.
  TraceOptions options;
  options.device = TraceOptions::Device::kCuda;
  const Trace given = TraceTree("2.6.0", "torch.masked.sum(x, mask=m)", options);
  const OpStep* where = FindOp(given, "where.self");
  ASSERT_NE(where, nullptr);
  EXPECT_TRUE(where->typical || where->undecided);
  bool nested = false;
  for (const auto& f : given.python) nested = nested || f.symbol == "torch.masked._ops._combine_input_and_mask.helper";
  EXPECT_TRUE(nested);
  const Trace bare = TraceTree("2.6.0", "torch.masked.sum", options);
  where = FindOp(bare, "where.self");
  ASSERT_NE(where, nullptr);
  EXPECT_FALSE(where->typical || where->undecided) << "mask defaults to None";
}

TEST_F(MainPath260, WhatOneOverloadReachesOnlyMaybeIsOpen) {
  // Tensor.where's overloads: where.ScalarOther converts its operand (TensorCompare.cpp:564), where.self
  // only under `self.scalar_type() != result_type` (:513): to runs for some calls, so it is open.
  const Trace t = TraceTree("2.6.0", "Tensor.where", TraceOptions::Device::kCuda);
  const OpStep* to = FindOp(t, "to.dtype_layout");
  ASSERT_NE(to, nullptr);
  EXPECT_TRUE(to->undecided && !to->typical);
  const OpStep* where = FindOp(t, "where.self");
  ASSERT_NE(where, nullptr);
  EXPECT_TRUE(where->typical);
}

TEST_F(MainPath260, AFormulasComparisonOfNumbersIsNoOp) {
  // derivatives.yaml:620 native_dropout's `p == 1` compares its `float p`: no aten::eq in the backward.
  const Trace t = TraceTree("2.6.0", "aten::native_dropout", TraceOptions::Device::kCuda);
  bool read = false;
  for (const auto& b : t.backward)
    if (b.op == "native_dropout") {
      read = true;
      EXPECT_EQ(std::count(b.ops.begin(), b.ops.end(), "eq"), 0);
      EXPECT_NE(std::count(b.ops.begin(), b.ops.end(), "native_dropout_backward"), 0);
    }
  EXPECT_TRUE(read);
}

TEST_F(MainPath260, ATensorParsesAsNoNumber) {
  // torch/_tensor.py:1102 `return torch.pow(other, self)`: self, a tensor that requires grad, is no
  // Scalar exponent, so pow.Tensor_Scalar and its meta's `base.to(common_dtype)` (Pow.cpp:30) are off.
  const Trace t = TraceTree("2.6.0", "Tensor.__rpow__", TraceOptions::Device::kCuda);
  const OpStep* scalar = FindOp(t, "pow.Tensor_Scalar");
  ASSERT_NE(scalar, nullptr);
  EXPECT_FALSE(scalar->typical || scalar->undecided);
  const OpStep* to = FindOp(t, "to.dtype_layout");
  EXPECT_TRUE(to == nullptr || !(to->typical || to->undecided));
  EXPECT_NE(FindOp(t, "pow.Tensor_Tensor"), nullptr);
}

TEST_F(MainPath260, ABackendsEntryPointCallsTheKernelWithNoDispatch) {
  // cuda/IndexKernel.cpp:43 `at::cuda::index_out(...)`: index's CUDA kernel runs for masked_select,
  // but no aten::index is dispatched: the op is open, its kernels listed.
  const Trace t = TraceTree("2.6.0", "aten::masked_select", TraceOptions::Device::kCuda);
  const OpStep* index = FindOp(t, "index.Tensor_out");
  ASSERT_NE(index, nullptr);
  EXPECT_TRUE(index->undecided && !index->typical);
  EXPECT_FALSE(index->kernels.empty());
}

TEST_F(MainPath260, AnAutoOfArithmeticOnSizesIsANumber) {
  // TensorShape.cpp:960-972 chunk: `auto split_size = (dim_size + chunks - 1) / chunks;` then
  // `self.split_symint(std::move(split_size), dim)`: a number, so split.Tensor, never split.sizes.
  const Trace t = TraceTree("2.6.0", "torch.chunk", TraceOptions::Device::kCuda);
  const OpStep* split = FindOp(t, "split.Tensor");
  ASSERT_NE(split, nullptr);
  EXPECT_TRUE(split->typical && !split->undecided);
  const OpStep* sizes = FindOp(t, "split.sizes");
  EXPECT_TRUE(sizes == nullptr || !(sizes->typical || sizes->undecided));
  const OpStep* with_sizes = FindOp(t, "split_with_sizes");
  EXPECT_TRUE(with_sizes == nullptr || !with_sizes->typical);
}

TEST_F(MainPath260, AnAutoChainOfTensorsIsATensorArgument) {
  // Loss.cpp:167-176 cosine_embedding_loss: `at::where(target == 1, pos, zeros)` with `auto pos = 1 - cos`,
  // `auto cos = prod_sum / denom`, `auto prod_sum = (input1 * input2).sum(targ_dim)`: pos is a Tensor, so the
  // call is where.self, never where.ScalarSelf (whose `to`, TensorCompare.cpp:557, left the answer).
  const Trace t = TraceTree("2.6.0", "aten::cosine_embedding_loss", TraceOptions::Device::kCuda);
  const OpStep* where = FindOp(t, "where.self");
  ASSERT_NE(where, nullptr);
  EXPECT_TRUE(where->typical && !where->undecided);
  const OpStep* scalar = FindOp(t, "where.ScalarSelf");
  EXPECT_TRUE(scalar == nullptr || !(scalar->typical || scalar->undecided));
}

TEST_F(MainPath260, AContiguousOutHandedBackBorrowedIsNotCopiedBack) {
  // cuda/ScanKernels.cpp:21-26 contiguous_out_arg borrows a contiguous out;
  // cummax_helper_cuda's `if (!values.is_same(*values_)) values.copy_(...)` (:37-38) is false.
  Trace t = TraceTree("2.6.0", "aten::_cummax_helper", TraceOptions::Device::kCuda);
  EXPECT_TRUE(DecidedOff(t, "copy_", 38));
}

TEST_F(MainPath260, TheCodesLikelyHintIsTheTypicalCase) {
  // BatchLinearAlgebra.cpp:1571 `if (C10_LIKELY(!infos.any().item<bool>())) return;`:
  // a typical factorization succeeds, so the error report below (infos.to(at::kCPU), :1582) runs not.
  Trace t = TraceTree("2.6.0", "torch.linalg.cholesky", TraceOptions::Device::kCuda);
  bool any = false;
  for (const auto& op : t.ops) {
    if (op.role != OpRole::kForward || op.reached_from != "_linalg_check_errors") continue;
    if (op.called_at.line == 1571) {
      any = any || op.typical;
      continue;
    }
    EXPECT_FALSE(op.typical || op.undecided) << op.name << " at " << op.called_at.line;
  }
  EXPECT_TRUE(any) << "the check itself runs infos.any()";
}

TEST_F(MainPath260, ACppDefaultArgumentDecidesTheHelpersBranch) {
  // cuda/Blas.cpp:601 mm_out_cuda calls addmm_out_cuda_impl with six
  // arguments: `Activation activation=Activation::None` (:249) binds, so
  // `case Activation::GELU` (:481) and `case Activation::RELU` (:477) are off the path.
  Trace t = TraceTree("2.6.0", "torch.mm", TraceOptions::Device::kCuda);
  bool listed = false;
  for (const auto& op : t.ops) {
    if (op.role != OpRole::kForward || (op.name != "gelu_" && op.name != "relu_")) continue;
    listed = true;
    EXPECT_FALSE(op.typical || op.undecided) << op.name;
  }
  EXPECT_TRUE(listed) << "the activations are still traced, as alternatives";
  // aten::_addmm_activation passes `use_gelu ? Activation::GELU : Activation::RELU` (:596): open.
  Trace act = TraceTree("2.6.0", "aten::_addmm_activation", TraceOptions::Device::kCuda);
  EXPECT_TRUE(OnPath(act, "gelu_"));
}

TEST_F(MainPath260, AFlagOnlyNarrowedAfterItsFalseInitializerStaysFalse) {
  // TensorAdvancedIndexing.cpp:1812 `bool deterministic = globalContext().deterministicAlgorithms()
  // && (...)`, :1821 `deterministic = deterministic && (op == SUM || ...)` under `if
  // (reduce.has_value())`: false either way by default, so `if (deterministic && ...)` (:1825)
  // and _scatter_via_index_put's index_put_ (:1782) are off the path.
  Trace t = TraceTree("2.6.0", "aten::scatter_.src", TraceOptions::Device::kCuda);
  bool listed = false;
  for (const auto& op : t.ops) {
    if (op.role != OpRole::kForward || op.name != "index_put_") continue;
    listed = true;
    EXPECT_FALSE(op.typical || op.undecided);
  }
  EXPECT_TRUE(listed) << "still traced, as an alternative";
  TraceOptions deterministic;
  deterministic.device = TraceOptions::Device::kCuda;
  deterministic.assume = {"deterministic"};
  EXPECT_TRUE(OnPath(TraceTree("2.6.0", "aten::scatter_.src", deterministic), "index_put_"));
}

TEST_F(MainPath260, AStubPassedToAHelperRunsWhereTheHelperCallsIt) {
  // TensorAdvancedIndexing.cpp:1847-1849 scatter_src_out passes scatter_reduce_stub and
  // scatter_stub to scatter_impl, leaving `reduce` at its std::nullopt (:1799); scatter_impl
  // calls reduce_stub under reduce.has_value() (:1834-1835), else fill_stub (:1837).
  Trace t = TraceTree("2.6.0", "aten::scatter_.src", TraceOptions::Device::kCuda);
  const OpStep* op = FindOp(t, "scatter.src_out");
  ASSERT_NE(op, nullptr);
  int read = 0;
  for (const auto& s : op->stubs) {
    if (s.name != "scatter_stub" && s.name != "scatter_reduce_stub") continue;
    ++read;
    EXPECT_EQ(s.typical && !s.undecided, s.name == "scatter_stub") << s.name;
    EXPECT_FALSE(s.undecided) << s.name;
  }
  EXPECT_EQ(read, 2);
  // cuda/ScatterGatherKernel.cu:111 launches it for both stubs' kernels: the fill kernel's way
  // runs, past `if (!iter.can_use_32bit_indexing())` (:126) and `if (N == 0) return;` (:104),
  // whose N both calls (:155, :377) pass iter.numel().
  bool launched = false;
  for (const auto& k : op->kernels)
    launched = launched || (k.name == "_scatter_gather_elementwise_kernel" && k.typical && !k.undecided);
  EXPECT_TRUE(launched);
  // UnaryOps.cpp:544 abs_out hands abs_stub to unary_op_impl_with_complex_to_float_out, which
  // calls it for a complex input (:443) and else hands it on to unary_op_impl_out (:455, :407).
  Trace abs = TraceTree("2.6.0", "torch.abs", TraceOptions::Device::kCuda);
  const OpStep* out = FindOp(abs, "abs.out");
  ASSERT_NE(out, nullptr);
  ASSERT_EQ(out->stubs.size(), 1u);
  EXPECT_TRUE(out->stubs[0].typical && !out->stubs[0].undecided);
}

TEST_F(MainPath260, ASizeAHelperReturnsInAPairDecidesTheEmptyInputBranch) {
  // cuda/layer_norm_kernel.cu:1404-1405 `auto M_N = _check_layer_norm_inputs(...); auto M = M_N.first;`,
  // layer_norm.h:90 M = c10::multiply_integers over input.sizes(), :95 `return std::make_pair(M, N)`
  // (vulkan/ and functorch/ define namesakes the .cu file does not include): `M > 0` (:1424) holds,
  // so the zeros_like of its else-branch (:1431) does not run.
  Trace t = TraceTree("2.6.0", "aten::native_layer_norm_backward", TraceOptions::Device::kCuda);
  bool listed = false;
  for (const auto& op : t.ops) {
    if (op.role != OpRole::kForward || op.name != "zero_" || op.reached_from != "native_layer_norm_backward") continue;
    listed = true;
    EXPECT_FALSE(op.typical || op.undecided);
  }
  EXPECT_TRUE(listed) << "still traced, as an alternative";
}

TEST_F(MainPath260, TheIncomingGradientAFormulaPassesIsDefinedForTheFirstOutputOnly) {
  // derivatives.yaml:2766 passes `grads[0], grads[1], grads[2]` to _cudnn_rnn_backward, whose
  // cudnn/RNN.cpp:2117 `const Tensor& grad_output_r = grad_output_r_opt.value_or(Tensor());` makes
  // `if (!grad_output_r.defined() && !grad_hy_r.defined() && !grad_cy_r.defined()) return` (:2122)
  // not taken: the cuDNN backward (_cudnn_rnn_backward_input) runs.
  Trace t = TraceTree("2.6.0", "nn.LSTM", TraceOptions::Device::kCuda);
  const OpStep* backward = FindOp(t, "_cudnn_rnn_backward", OpRole::kBackward);
  ASSERT_NE(backward, nullptr);
  bool cudnn = false;
  for (const auto& l : backward->libraries) cudnn = cudnn || (l.name == "cuDNN" && l.typical && !l.undecided);
  EXPECT_TRUE(cudnn);
}

TEST_F(MainPath260, ATraceIsTheSameWhateverWasTracedBeforeInTheProcess) {
  // ReduceOps.cpp:1650 allany_dims_default's `if (!dim)` reads what all.dims's callers pass it:
  // an edge of all.dims read before those callers' arguments were bound (any.dims and all.dims
  // call each other) had kept its helper bindings with the schema default, so the math SDPA's
  // ne.Scalar_out was ruled out in a fresh process and open after aten::nuclear_norm (the daemon
  // and trace --all answer many queries in one process).
  auto mark = [](const Trace& t) {
    for (const auto& op : t.ops)
      if (op.role == OpRole::kForward && op.name == "ne.Scalar_out") return op.typical * 2 + op.undecided;
    return -1;
  };
  const int fresh = mark(TraceTree("2.6.0", "aten::_scaled_dot_product_attention_math", TraceOptions::Device::kCuda));
  TraceTree("2.6.0", "aten::nuclear_norm", TraceOptions::Device::kCuda);
  const int after = mark(TraceTree("2.6.0", "aten::_scaled_dot_product_attention_math", TraceOptions::Device::kCuda));
  ASSERT_NE(fresh, -1);
  EXPECT_EQ(fresh, after);
}

TEST_F(MainPath260, TrainingRulesOutTheMultiheadAttentionFastPath) {
  // modules/activation.py:1257-1258 `elif self.training: why_not_fast_path = "training is enabled"`
  // sets the flag `if not why_not_fast_path:` (:1279) tests before the fast path (:1313).
  Trace t = TraceTree("2.6.0", "nn.MultiheadAttention", TraceOptions::Device::kCuda);
  EXPECT_FALSE(OnPath(t, "_native_multi_head_attention"));
  EXPECT_TRUE(OnPath(t, "bmm")) << "need_weights=True by default: the bmm/softmax path";
  TraceOptions eval;
  eval.device = TraceOptions::Device::kCuda;
  eval.assume = {"eval", "no-grad"};  // inference: :1300 rules the fast path out while grad is enabled
  // In inference the default module still sets the flag: `elif not self.batch_first:` (:1261),
  // batch_first=False in __init__ (:1073 `self.batch_first = batch_first`).
  Trace e = TraceTree("2.6.0", "nn.MultiheadAttention", eval);
  EXPECT_FALSE(OnPath(e, "_native_multi_head_attention"));
  Trace batch_first = TraceTree("2.6.0", "nn.MultiheadAttention(512, 8, batch_first=True)", eval);
  EXPECT_TRUE(OnPath(batch_first, "_native_multi_head_attention")) << "the user's module can take the fast path";
}

TEST_F(MainPath260, ACallQueryDecidesInterpolatesModeAndKeepsTheBackward) {
  // functional.py:4701-4707: `if input.dim() == 4 and mode == "bicubic": ... upsample_bicubic2d(...)`.
  Trace t = TraceTree("2.6.0", "F.interpolate(x, mode='bicubic', align_corners=True)", TraceOptions::Device::kCuda);
  EXPECT_EQ(t.target_name, "torch.nn.functional.interpolate");
  EXPECT_TRUE(OnPath(t, "upsample_bicubic2d.vec"));
  // Every other return of F.interpolate is ruled out by mode='bicubic' and
  // antialias=False, and it ends in a raise (:4724): decided whatever the rank.
  for (const auto& op : t.ops)
    if (op.role == OpRole::kForward && op.name == "upsample_bicubic2d.vec") EXPECT_FALSE(op.undecided);
  EXPECT_FALSE(OnPath(t, "upsample_nearest2d.vec")) << "mode='nearest' is the default the call overrides";
  EXPECT_FALSE(OnPath(t, "upsample_bilinear2d.vec"));
  bool backward_kernel = false, atomics = false, nondeterministic = false;
  for (const auto& op : t.ops) {
    if (op.role != OpRole::kBackward || !op.name.starts_with("upsample_bicubic2d_backward")) continue;
    for (const auto& k : op.kernels) {
      if (k.name != "upsample_bicubic2d_backward_out_frame") continue;
      backward_kernel = true;
      // cuda/UpSampleBicubic2d.cu:99's kernel calls upsample_increment_value_bounded
      // (UpSample.cuh:199), which calls gpuAtomicAddNoReturn.
      for (const auto& a : k.atomics) atomics = atomics || a == "gpuAtomicAddNoReturn";
    }
    // cuda/UpSampleBicubic2d.cu:294 `globalContext().alertNotDeterministic("upsample_bicubic2d_backward_out_cuda")`.
    for (const auto& at : op.nondeterministic)
      nondeterministic =
          nondeterministic || (at.where.file.ends_with("cuda/UpSampleBicubic2d.cu") && at.where.line == 294);
  }
  EXPECT_TRUE(backward_kernel);
  EXPECT_TRUE(atomics);
  EXPECT_TRUE(nondeterministic);
  size_t forward_kernels = 0;
  for (const auto& op : t.ops)
    if (op.name == "upsample_bicubic2d.out")
      for (const auto& k : op.kernels) {
        ++forward_kernels;
        EXPECT_TRUE(k.atomics.empty()) << "the forward writes each output once";
      }
  EXPECT_GT(forward_kernels, 0u);
  Trace plain = TraceTree("2.6.0", "F.interpolate", TraceOptions::Device::kCuda);
  EXPECT_TRUE(OnPath(plain, "upsample_nearest2d.vec"));
}

class Decided1131 : public Tree1131 {};

TEST_F(Decided1131, AnImplementationOpeningWithASparseOnlyMethodRaises) {
  // sparse/SparseTensor.cpp:587-589 (1.13.1) coalesce opens with `if
  // (self.is_coalesced())`; is_coalesced (native_functions.yaml:6290) has
  // kernels for SparseCPU, SparseCUDA and SparseMeta only: a strided tensor
  // raises there, and _coalesce (:592) is no typical call.
  Trace t = TraceTree("1.13.1", "aten::coalesce", TraceOptions::Device::kCuda);
  const OpStep* coalesce = FindOp(t, "coalesce");
  ASSERT_NE(coalesce, nullptr);
  EXPECT_FALSE(coalesce->typical);
  EXPECT_TRUE(HasNoteContaining(*coalesce,
                                "(aten/src/ATen/native/sparse/SparseTensor.cpp:587) first calls `self.is_coalesced()`, "
                                "which has kernels only for SparseCPU, SparseCUDA, SparseMeta"));
}

TEST_F(Decided1131, AnAttributeInitSetsAfterAMultiLineSignatureDecides) {
  // modules/sparse.py:122-124 `def __init__(self, num_embeddings: int, ...` (max_norm on :123)
  // over three lines; :137 `self.max_norm = max_norm`; forward passes self.max_norm to F.embedding,
  // whose `if max_norm is not None:` (functional.py:2198) guards the renorm.
  Trace t = TraceTree("1.13.1", "nn.Embedding", TraceOptions::Device::kCpu);
  EXPECT_FALSE(OnPath(t, "embedding_renorm_"));
  EXPECT_TRUE(OnPath(t, "embedding"));
}

TEST_F(Decided1131, AnOpCalledOnBothSidesOfAnOpenEarlyReturnRuns) {
  // Embedding.cpp:23-24 `if (indices.dim() == 1) { return weight.index_select(0, indices); }` and
  // :32 `return weight.index_select(0, indices.reshape(-1)).view_symint(size);`: index_select runs
  // whatever the indices' rank, reshape only past the return.
  Trace t = TraceTree("1.13.1", "nn.Embedding", TraceOptions::Device::kCpu);
  const OpStep* index_select = FindOp(t, "index_select");
  const OpStep* reshape = FindOp(t, "reshape");
  ASSERT_NE(index_select, nullptr);
  ASSERT_NE(reshape, nullptr);
  EXPECT_TRUE(index_select->typical && !index_select->undecided);
  EXPECT_TRUE(reshape->undecided);
}

TEST_F(Decided1131, AHelperCallTakesTheExactlyMatchingOverload) {
  // TensorShape.cpp:2257 unsafe_split's `at::native::split(self, split_size, dim)` with `int64_t
  // split_size` is :2240's split(const Tensor&, int64_t, int64_t) -- narrow -- not :2252's IntArrayRef
  // overload calling split_with_sizes. nn.LSTM's CPU cell reaches it through unsafe_chunk.
  Trace t = TraceTree("1.13.1", "nn.LSTM", TraceOptions::Device::kCpu);
  EXPECT_TRUE(OnPath(t, "unsafe_split.Tensor"));
  EXPECT_TRUE(OnPath(t, "narrow"));
  EXPECT_FALSE(OnPath(t, "split_with_sizes"));
}

TEST_F(Decided1131, ACallWithoutAnArgumentAnOverloadRequiresIsNotIt) {
  // rnn.py:747-749 `torch.zeros(..., dtype=input.dtype, device=input.device)` passes no `names`:
  // zeros (native_functions.yaml:5609), never zeros.names (:5596, `Dimname[]? names` without default).
  Trace t = TraceTree("1.13.1", "nn.LSTM", TraceOptions::Device::kCpu);
  EXPECT_TRUE(OnPath(t, "zeros"));
  EXPECT_FALSE(OnPath(t, "zeros.names"));
}

TEST_F(Decided1131, TheDivisionOperatorTakesTheTensorOverload) {
  // python_variable_methods.cpp:1241 binds __truediv__ to THPVariable_div: `x / y` passes one operand
  // and no rounding_mode, div.Tensor (native_functions.yaml:1856); div.Scalar_mode's backward
  // (derivatives.yaml:564 `at::lift_fresh(...)`) is no part of it.
  Trace t = TraceTree("1.13.1", "Tensor.__truediv__", TraceOptions::Device::kCpu);
  const OpStep* tensor = FindOp(t, "div.Tensor");
  ASSERT_NE(tensor, nullptr);
  EXPECT_TRUE(tensor->typical && !tensor->undecided);
  EXPECT_FALSE(OnPath(t, "div.Tensor_mode"));
  EXPECT_FALSE(OnPath(t, "div.Scalar_mode"));
  const OpStep* lift = FindOp(t, "lift_fresh", OpRole::kBackward);
  EXPECT_TRUE(!lift || (!lift->typical && !lift->undecided));
}

TEST_F(Decided1131, AnAttributeTheBaseInitSetsThroughSuperOfTheClassDecides) {
  // modules/conv.py:441 `padding_mode: str = 'zeros'`, passed by :450-452
  // `super(Conv2d, self).__init__(..., padding_mode, **factory_kwargs)` to _ConvNd.__init__, whose
  // :115 `self.padding_mode = padding_mode`; :455 `if self.padding_mode != 'zeros':` guards F.pad.
  Trace t = TraceTree("1.13.1", "nn.Conv2d", TraceOptions::Device::kCpu);
  EXPECT_FALSE(OnPath(t, "pad"));
  EXPECT_TRUE(OnPath(t, "conv2d"));
}

TEST_F(MainPath260, APermutationOnlyAPackedInputPassesIsNone) {
  // rnn.py:1072 `hx = self.permute_hidden(hx, sorted_indices)` under :1050 `if
  // isinstance(orig_input, PackedSequence):` (false) and :1121 under :1085 `if hx is None:` ... `else:`
  // (hx=None by default) do not run; :1159 passes unsorted_indices, None since :1084. permute_hidden's
  // :1020 `if permutation is None: return hx` keeps _apply_permutation's index_select (:37) off.
  Trace t = TraceTree("2.6.0", "nn.LSTM", TraceOptions::Device::kCuda);
  EXPECT_FALSE(OnPath(t, "index_select"));
  EXPECT_TRUE(OnPath(t, "lstm.input"));
}

TEST_F(MainPath260, AnOptionalStepForAnUnbatchedInputIsOpen) {
  // rnn.py:1080-1081 `if not is_batched: input = input.unsqueeze(batch_dim)` and :1156-1157 `if not
  // is_batched: output = output.squeeze(batch_dim)`: lone ifs falling through to _VF.lstm (:1124) and
  // the return. Listed, open, not typical.
  Trace t = TraceTree("2.6.0", "nn.LSTM", TraceOptions::Device::kCuda);
  for (const char* name : {"unsqueeze", "squeeze"}) {
    const OpStep* op = FindOp(t, name);
    ASSERT_NE(op, nullptr) << name;
    EXPECT_TRUE(op->undecided) << name;
    EXPECT_FALSE(op->typical) << name;
  }
  const OpStep* lstm = FindOp(t, "lstm.input");
  ASSERT_NE(lstm, nullptr);
  EXPECT_TRUE(lstm->typical && !lstm->undecided);
}

TEST_F(MainPath260, AnAttributeSetInTheBranchInitTakesDecides) {
  // modules/activation.py:1106 `if add_bias_kv:` (False by default) ... :1110 `self.bias_k =
  // self.bias_v = None`; forward passes self.bias_k on to multi_head_attention_forward, whose
  // functional.py:6280 `if bias_k is not None and bias_v is not None:` guards :6283's cat and repeat.
  Trace t = TraceTree("2.6.0", "nn.MultiheadAttention", TraceOptions::Device::kCuda);
  EXPECT_FALSE(OnPath(t, "repeat"));
  EXPECT_FALSE(OnPath(t, "cat"));
  EXPECT_TRUE(OnPath(t, "bmm"));
}

TEST_F(MainPath260, ACallQuerysKeywordsPickTheOverload) {
  Trace t = TraceTree("2.6.0", "torch.sum(x, dim=1, dtype=torch.float16)", TraceOptions::Device::kCuda);
  EXPECT_TRUE(OnPath(t, "sum.dim_IntList"));
  EXPECT_FALSE(OnPath(t, "sum")) << "sum(Tensor self, *, ScalarType? dtype) has no dim";
  EXPECT_FALSE(OnPath(t, "sum.dim_DimnameList")) << "1 is no Dimname";
}

}  // namespace
}  // namespace optrace

namespace optrace {
namespace {

TEST(Inline260, CtcLossesCudnnCheckIsReadFromItsBody) {
  REQUIRE_CORPUS("2.6.0");
  // LossCTC.cpp:501-510 `bool use_cudnn = ... && at::_use_cudnn_ctc_loss(...)`: cudnn/LossCTC.cpp:32's
  // stub (`#if (!AT_CUDNN_ENABLED())`) returns false, :89's body wants int32 targets (:99), not
  // the float32 of a typical tensor: the native `_ctc_loss` (:514) runs, as on the GPU.
  Trace t = TraceTree("2.6.0", "F.ctc_loss", TraceOptions::Device::kCuda);
  EXPECT_EQ(PathOf(t, "_ctc_loss"), "typical");
  EXPECT_EQ(PathOf(t, "_cudnn_ctc_loss"), "not taken");
}

TEST(Inline260, LstmsCudnnCheckTakesFloatAndTurnsBfloat16Away) {
  REQUIRE_CORPUS("2.6.0");
  // RNN.cpp asks `at::cudnn_is_acceptable(_input)`; TensorProperties.cpp:81-96 accepts double,
  // float and half only (:85).
  TraceOptions opt;
  opt.device = TraceOptions::Device::kCuda;
  EXPECT_EQ(PathOf(TraceTree("2.6.0", "nn.LSTM", opt), "_cudnn_rnn"), "typical");
  auto cudnn_stub = [](const Trace& t) -> const StubStep* {
    const OpStep* lstm = FindOp(t, "lstm.input");
    if (!lstm) return nullptr;
    for (const auto& s : lstm->stubs)  // RNN.cpp:1436, under `if (at::cudnn_is_acceptable(_input))` (:1434)
      if (s.name == "lstm_cudnn_stub" && s.call_site.line == 1436) return &s;
    return nullptr;
  };
  Trace f32 = TraceTree("2.6.0", "nn.LSTM", opt);
  ASSERT_NE(cudnn_stub(f32), nullptr);
  EXPECT_TRUE(cudnn_stub(f32)->typical && !cudnn_stub(f32)->undecided);
  opt.assume = {"dtype=bfloat16"};
  Trace bf16 = TraceTree("2.6.0", "nn.LSTM", opt);
  EXPECT_EQ(PathOf(bf16, "_cudnn_rnn"), "not taken");
  ASSERT_NE(cudnn_stub(bf16), nullptr);
  EXPECT_FALSE(cudnn_stub(bf16)->typical) << "the stub's call is as taken as _cudnn_rnn's";
  for (const auto& l : FindOp(bf16, "lstm.input")->libraries)
    EXPECT_FALSE(l.name == "cuDNN" && l.typical) << "cuDNN is reached through lstm_cudnn_stub";
}

TEST(Inline260, DropoutsFusedKernelCheckIsInlined) {
  REQUIRE_CORPUS("2.6.0");
  // Dropout.cpp:43-44 `bool is_fused_kernel_acceptable(const Tensor& input, double p) { return
  // (input.is_cuda() || ...) && p > 0 && p < 1 && input.sym_numel() > 0; }`, asked at :138 with
  // the p=0.5 and training=True F.dropout passes (functional.py:1401).
  Trace t = TraceTree("2.6.0", "F.dropout", TraceOptions::Device::kCuda);
  bool fused = false;
  for (const auto& op : t.ops)
    fused = fused || (op.role == OpRole::kForward && op.name == "native_dropout" && op.typical && !op.undecided);
  EXPECT_TRUE(fused);
}

}  // namespace
}  // namespace optrace

namespace optrace {
namespace {

TEST(Open260, AnOpenBranchNamesTheConditionThatDecidesIt) {
  REQUIRE_CORPUS("2.6.0");
  // LossNLL.cpp:632 `if (self.sym_sizes() == target.sym_sizes())` (open: shapes) ... :642
  // `} else if (label_smoothing > 0.0)` (decided: 0.0 by default) ... else nll_loss_nd (:651).
  Trace t = TraceTree("2.6.0", "F.cross_entropy", TraceOptions::Device::kCuda);
  const OpStep* nll = nullptr;
  for (const auto& op : t.ops)
    if (op.role == OpRole::kForward && op.name == "nll_loss_nd") nll = &op;
  ASSERT_NE(nll, nullptr);
  EXPECT_TRUE(nll->undecided);
  int open = 0, decided = 0;
  for (const auto& c : nll->when) {
    if (c.text == "self.sym_sizes() == target.sym_sizes()") open += c.open;
    if (c.text == "label_smoothing > 0.0") decided += !c.open;
  }
  EXPECT_EQ(open, 1);
  EXPECT_EQ(decided, 1);
}

TEST_F(MainPath260, AnOpTwoOpsCallRunsWhenTheCallerOnThePathCallsIt) {
  // Activation.cpp:457-458: relu6_'s hardtanh_ calls at::hardtanh_out, met first; :433-435: relu6's
  // hardtanh, which F.relu6 (inplace=False) runs, calls it too. It runs: through hardtanh.
  Trace t = TraceTree("2.6.0", "F.relu6", TraceOptions::Device::kCuda);
  const OpStep* out = FindOp(t, "hardtanh.out");
  ASSERT_NE(out, nullptr);
  EXPECT_TRUE(out->typical && !out->undecided);
  EXPECT_EQ(out->reached_from, "hardtanh");
  EXPECT_EQ(out->also_reached_from, std::vector<std::string>{"hardtanh_"});
  const OpStep* clamp = FindOp(t, "clamp.out");  // Activation.cpp:454, hardtanh_out's own call
  ASSERT_NE(clamp, nullptr);
  EXPECT_TRUE(clamp->typical);
}
TEST_F(MainPath260, AnOpsCallSiteIsWhereItsCallerCallsIt) {
  // SoftMax.cpp:446 `if (input_.is_cuda() && ... == ScalarType::Float){` calls at::_softmax at :447;
  // its else (:448) at :450, the call a float32 tensor takes.
  Trace t = TraceTree("2.6.0", "F.softmax", TraceOptions::Device::kCuda);
  const OpStep* softmax = nullptr;
  for (const auto& op : t.ops)
    if (op.role == OpRole::kForward && op.name == "_softmax") softmax = &op;
  ASSERT_NE(softmax, nullptr);
  EXPECT_EQ(softmax->called_at.file, "aten/src/ATen/native/SoftMax.cpp");
  EXPECT_EQ(softmax->called_at.line, 450);
}

TEST_F(MainPath260, AHelperBothDevicesShareKeepsEachDevicesCondition) {
  // cuda/Resize.cpp:69-70 calls fill_resize_deterministic_ (ResizeCommon.h:58, whose
  // fill_empty_deterministic_ fills at TensorFactories.h:108) only under
  // `deterministicAlgorithms() && deterministicFillUninitializedMemory()`; the CPU
  // resize_ (Resize.cpp:255) calls it too, and a default trace walks CPU's code first.
  Trace t = TraceTree("2.6.0", "torch.bmm");
  for (const auto& op : t.ops)
    if (op.role == OpRole::kForward && op.name.starts_with("fill_") && op.reached_from == "resize_")
      EXPECT_FALSE(op.typical || op.undecided) << "deterministic algorithms are off by default";
  const OpStep* resize = nullptr;
  for (const auto& op : t.ops)
    if (op.role == OpRole::kForward && op.name == "resize_") resize = &op;
  ASSERT_NE(resize, nullptr);
  bool cuda_helper = false;
  for (const auto& h : resize->helpers)
    cuda_helper = cuda_helper || (h.function == "fill_resize_deterministic_" && h.key == "CUDA");
  EXPECT_TRUE(cuda_helper);
}

TEST_F(MainPath260, AFormulaPassesTheForwardsArgumentsToTheBackward) {
  // derivatives.yaml:2017-2020 embedding's `embedding_backward_symint(grad, indices,
  // weight.sym_size(0), padding_idx, scale_grad_by_freq, sparse)`; modules/sparse.py keeps
  // `sparse=False`, so Embedding.cpp:59's `if (sparse)` leaves embedding_dense_backward (:70).
  Trace t = TraceTree("2.6.0", "nn.Embedding", TraceOptions::Device::kCuda);
  bool dense = false, sparse = false;
  for (const auto& op : t.ops) {
    if (op.role != OpRole::kBackward) continue;
    dense = dense || (op.name == "embedding_dense_backward" && op.typical && !op.undecided);
    sparse = sparse || (op.name == "embedding_sparse_backward" && (op.typical || op.undecided));
  }
  EXPECT_TRUE(dense);
  EXPECT_FALSE(sparse);
}

TEST_F(MainPath260, ADelegateOnlyItsDelegatingOpsReachIsNoOpOfThePath) {
  // ReduceOps.cpp:1472: logsumexp runs `(self - maxes).exp_()`; :1475's at::exp is for an
  // empty tensor only. Both delegate to exp.out (native_functions.yaml:2564, :2570), whose impl
  // runs inside exp_'s generated kernel: the profiler records aten::exp_ alone.
  Trace t = TraceTree("2.6.0", "torch.logsumexp", TraceOptions::Device::kCuda);
  const OpStep* exp_ = FindOp(t, "exp_");
  const OpStep* out = FindOp(t, "exp.out");
  ASSERT_NE(exp_, nullptr);
  ASSERT_NE(out, nullptr);
  EXPECT_TRUE(exp_->typical);
  EXPECT_EQ(out->reached_from, "exp_");
  EXPECT_FALSE(out->typical);
}

TEST_F(MainPath260, AFeatureDropoutsNoiseRecordsNoBackward) {
  // Dropout.cpp:73-74 `auto noise = feature_dropout ? make_feature_noise(input) :
  // at::empty_like(input); noise.bernoulli_(1 - p);`, make_feature_noise returning
  // `input.new_empty_symint(sizes)` (:40): the noise needs no grad, so bernoulli_'s
  // backward never runs, and the main path's backward names no zeros_like.
  Trace t = TraceTree("2.6.0", "F.dropout2d", TraceOptions::Device::kCuda);
  const BackwardStep* b = FindBackward(t, "bernoulli_.float");
  ASSERT_NE(b, nullptr);
  EXPECT_TRUE(b->below_autograd);
  EXPECT_EQ(FindOp(t, "zeros_like", OpRole::kBackward), nullptr);
}

TEST_F(MainPath260, AnOpByNameOnATensorInACpuKernelIsTheOp) {
  // cpu/HistogramKernel.cpp:290 `auto [min, max] = aminmax(input, 0);` on
  // the Tensor parameter: at::aminmax, in a CPU kernel file too.
  TraceOptions options;
  options.device = TraceOptions::Device::kCpu;
  EXPECT_NE(FindOp(TraceTree("2.6.0", "torch.histogram", options), "aminmax"), nullptr);
}

TEST_F(MainPath260, AFormulasHelperCallTakesTheDefinitionItsArgumentsFit) {
  // derivatives.yaml:1389 `prod_backward(grad, self.to(grad.scalar_type()), result)`:
  // three arguments, FunctionsManual.cpp:794's prod_backward, never :817's
  // five-parameter one for a dim, whose code sums.
  Trace t = TraceTree("2.6.0", "torch.prod", TraceOptions::Device::kCuda);
  const BackwardStep* b = FindBackward(t, "prod");
  ASSERT_NE(b, nullptr);
  EXPECT_TRUE(std::find(b->ops.begin(), b->ops.end(), "nonzero") != b->ops.end());
  EXPECT_TRUE(std::find(b->ops.begin(), b->ops.end(), "sum") == b->ops.end());
}

TEST_F(MainPath260, ACallInAnElifTestRunsOnlyWhenTheTestsAboveFail) {
  // torch/nn/modules/transformer.py:456 `elif src_key_padding_mask is None:`
  // (its default), then :461's `src_key_padding_mask.logical_not()` in the
  // next elif's test: never evaluated for a typical call.
  Trace t = TraceTree("2.6.0", "nn.Transformer", TraceOptions::Device::kCuda);
  const OpStep* op = FindOp(t, "logical_not");
  ASSERT_NE(op, nullptr);
  EXPECT_FALSE(op->typical);
}

TEST_F(MainPath260, ACallerOffThePathLeavesADelegateFolded) {
  // torch/nn/modules/batchnorm.py:173 `self.num_batches_tracked.add_(1)`: add.out
  // (native_functions.yaml) runs inside add_'s kernel; native_batch_norm.out,
  // not on the typical path (cuDNN or it, the backend left open here), also
  // reaches it: at most open, never typical.
  Trace t = TraceTree("2.6.0", "nn.BatchNorm1d", TraceOptions::Device::kCuda);
  const OpStep* add_ = FindOp(t, "add_.Tensor");
  const OpStep* out = FindOp(t, "add.out");
  ASSERT_NE(add_, nullptr);
  ASSERT_NE(out, nullptr);
  EXPECT_TRUE(add_->typical);
  EXPECT_EQ(out->reached_from, "add_.Tensor");
  EXPECT_FALSE(out->typical);
}

TEST_F(MainPath260, AGroupAfterReturnIsATensorOperand) {
  // TensorCompare.cpp:416 `return (self == self) * (self.abs() != ...infinity());`: `return (`
  // opens a group, no call of `return`, so the product of the two comparisons is aten::mul.
  Trace t = TraceTree("2.6.0", "torch.isfinite", TraceOptions::Device::kCuda);
  const OpStep* mul = FindOp(t, "mul.Tensor");
  ASSERT_NE(mul, nullptr);
  EXPECT_EQ(mul->reached_from, "isfinite");
  EXPECT_TRUE(mul->typical);
}

TEST_F(MainPath260, WhatFollowsAnIfElseReturningOnBothBranchesNeverRuns) {
  // cuda/linalg/BatchLinearAlgebra.cpp:1851-1856: geqrf_cusolver_backend returns from both
  // branches of its if/else, so :1856's geqrf_batched_cublas (-> BatchLinearAlgebraLibBlas.cpp:88
  // `tau.unsqueeze(-1)`) is dead code; the batched call at :1852 is open (input sizes).
  Trace t = TraceTree("2.6.0", "torch.linalg.qr", TraceOptions::Device::kCuda);
  const OpStep* unsqueeze = FindOp(t, "unsqueeze");
  ASSERT_NE(unsqueeze, nullptr);
  EXPECT_FALSE(unsqueeze->typical);
}

TEST_F(MainPath260, ALambdasCallsRunWhereItIsCalledAndIfdefBranchesKeepTheirGroup) {
  // cuda/linalg/BatchLinearAlgebra.cpp:2434-2471 `auto lu_solve_triangular = [n](...) {` calls
  // linalg_solve_triangular_out (:2460) and is called only under the size heuristics of
  // :2541-2573 (or without cuSOLVER, :2577): open, not run where the lambda is written.
  Trace solve = TraceTree("2.6.0", "torch.linalg.solve", TraceOptions::Device::kCuda);
  const OpStep* triangular = FindOp(solve, "linalg_solve_triangular.out");
  ASSERT_NE(triangular, nullptr);
  EXPECT_TRUE(triangular->undecided);
  // :2218-2232 svd_kernel: `#ifdef USE_LINALG_SOLVER` cuSOLVER unless the MAGMA backend is
  // preferred (:2220, not by default), `#else` svd_magma (:2232): svd_magma's `A.mT().to(...)`
  // (:2179-2180) is off the path, svd_cusolver's `Vh.mT()` (:2226) on it.
  Trace svd = TraceTree("2.6.0", "torch.linalg.svd", TraceOptions::Device::kCuda);
  int magma = 0, cusolver = 0;
  for (const auto& op : svd.ops) {
    if (op.role != OpRole::kForward || !op.called_at.valid() ||
        op.called_at.file != "aten/src/ATen/native/cuda/linalg/BatchLinearAlgebra.cpp")
      continue;
    const bool typical = op.typical && !op.undecided;
    if (op.called_at.line >= 2170 && op.called_at.line <= 2207) magma += typical;
    if (op.called_at.line == 2226) cusolver += typical;
  }
  EXPECT_EQ(magma, 0);
  EXPECT_GE(cusolver, 1);
}

TEST_F(MainPath260, ANamedLambdasCallsRunWhereTheLambdaIsCalled) {
  // cuda/linalg/BatchLinearAlgebra.cpp:2434 `auto lu_solve_triangular = [n](...) {`, whose
  // at::linalg_solve_triangular_out calls (:2460-2468) run only where a heuristic calls it
  // (:2546 under `if (n == k)` at :2541, and :2562-2578): open, never on the typical path.
  Trace t = TraceTree("2.6.0", "aten::linalg_lu_solve", TraceOptions::Device::kCuda);
  const OpStep* op = FindOp(t, "linalg_solve_triangular.out");
  ASSERT_NE(op, nullptr);
  EXPECT_TRUE(op->undecided);
  bool by_heuristic = false;
  for (const auto& w : op->when) by_heuristic = by_heuristic || w.text.find("(n == k)") != std::string::npos;
  EXPECT_TRUE(by_heuristic);
}

TEST_F(MainPath260, WhatOnlySomeOverloadsOfAnUnreadCallReachIsOpen) {
  // `torch.where` gives no arguments: native_functions.yaml:6513 where.self, :6530
  // where.ScalarOther, :6536 the one-argument where. TensorCompare.cpp:564 converts
  // ScalarOther's tensor (`self.to(result_type)`); :576 `condition.nonzero_numpy()`
  // runs for the one-argument form only.
  Trace t = TraceTree("2.6.0", "torch.where", TraceOptions::Device::kCuda);
  const OpStep* self = FindOp(t, "where.self");
  ASSERT_NE(self, nullptr);
  EXPECT_TRUE(self->typical && !self->undecided);
  const OpStep* nonzero_numpy = FindOp(t, "nonzero_numpy");
  ASSERT_NE(nonzero_numpy, nullptr);
  EXPECT_TRUE(nonzero_numpy->undecided);
  EXPECT_FALSE(nonzero_numpy->typical);
  for (const char* to : {"to.dtype", "to.dtype_layout", "to.other"})
    if (const OpStep* op = FindOp(t, to)) EXPECT_FALSE(op->typical && !op->undecided) << to;
}

TEST_F(MainPath260, WhatEveryOverloadReachesRunsWhicheverTheCallTakes) {
  // Sorting.cpp:689 quantile(Tensor q) and :704 quantile(double q) both reach
  // quantile_impl's sort (:268): it runs whichever the call takes.
  Trace q = TraceTree("2.6.0", "torch.quantile", TraceOptions::Device::kCuda);
  const OpStep* sort = FindOp(q, "sort");
  ASSERT_NE(sort, nullptr);
  EXPECT_TRUE(sort->typical && !sort->undecided);
  // TensorAdvancedIndexing.cpp:2035 and :2048: each masked_fill calls the
  // masked_fill_ of its value's kind; masked_fill_ runs either way.
  Trace m = TraceTree("2.6.0", "Tensor.masked_fill", TraceOptions::Device::kCuda);
  for (const char* name : {"masked_fill_.Scalar", "masked_fill_.Tensor"}) {
    const OpStep* op = FindOp(m, name);
    ASSERT_NE(op, nullptr) << name;
    EXPECT_TRUE(op->typical && !op->undecided) << name;
  }
}

TEST_F(MainPath260, AnOverloadsCallTheDefaultsRuleOutDoesNotMakeAnOpRunEitherWay) {
  // LinearAlgebra.cpp:3011-3016: linalg_norm's matrix norm only `if (opt_ord.has_value() && ...)`,
  // which ord=None rules out; :3045 linalg_norm.ord_str (`str ord`, no default) always calls it.
  // torch.linalg.norm may be either: linalg_matrix_norm is open, not on the path.
  Trace t = TraceTree("2.6.0", "torch.linalg.norm", TraceOptions::Device::kCuda);
  const OpStep* matrix = FindOp(t, "linalg_matrix_norm");
  ASSERT_NE(matrix, nullptr);
  EXPECT_FALSE(matrix->typical);
  EXPECT_TRUE(matrix->undecided);
}

TEST_F(MainPath260, ACallWithDefaultArgumentsTakesTheOverloadTheParserTriesFirst) {
  // native_functions.yaml:1724 conv2d (`SymInt[2] padding=0`) and :1737 conv2d.padding
  // (`str padding="valid"`) need input and weight alike; functional.py:92 binds
  // torch.conv2d, whose parser tries `SymIntArrayRef[2] padding` first. nn.Conv2d's
  // call reaches it through that alias too: conv2d.padding, and its _convolution_mode
  // (Convolution.cpp:1056), are off the path.
  for (const char* query : {"F.conv2d", "nn.Conv2d"}) {
    Trace t = TraceTree("2.6.0", query, TraceOptions::Device::kCuda);
    const OpStep* conv = FindOp(t, "conv2d");
    const OpStep* by_mode = FindOp(t, "conv2d.padding");
    ASSERT_NE(conv, nullptr) << query;
    ASSERT_NE(by_mode, nullptr) << query;
    EXPECT_TRUE(conv->typical && !conv->undecided) << query;
    EXPECT_FALSE(by_mode->typical || by_mode->undecided) << query;
    if (const OpStep* mode = FindOp(t, "_convolution_mode")) EXPECT_FALSE(mode->typical) << query;
  }
}

TEST_F(MainPath260, AnOverloadThatNeedsNamesIsNotTheTypicalCall) {
  // native_functions.yaml:2093 diagonal.Dimname(Tensor(a) self, *, Dimname outdim, Dimname dim1,
  // Dimname dim2, int offset=0); its TensorShape.cpp:1136 `result.refine_names(new_names)` never
  // runs for a tensor without names.
  Trace t = TraceTree("2.6.0", "torch.diagonal", TraceOptions::Device::kCuda);
  const OpStep* plain = FindOp(t, "diagonal");
  const OpStep* named = FindOp(t, "diagonal.Dimname");
  ASSERT_NE(plain, nullptr);
  ASSERT_NE(named, nullptr);
  EXPECT_TRUE(plain->typical);
  EXPECT_FALSE(named->typical);
  const OpStep* refine = FindOp(t, "refine_names");
  ASSERT_NE(refine, nullptr);
  EXPECT_FALSE(refine->typical);
}

TEST_F(MainPath260, ADebugOnlyAssertionCallsNothingInARelease) {
  // BatchLinearAlgebra.cpp:2287-2288 `TORCH_INTERNAL_ASSERT_DEBUG_ONLY(result.mT().is_contiguous())`:
  // `while (false)` under NDEBUG (c10/util/Exception.h:599-603), so triangular_solve runs no mT.
  Trace t = TraceTree("2.6.0", "torch.triangular_solve", TraceOptions::Device::kCuda);
  const OpStep* mt = FindOp(t, "mT");
  ASSERT_NE(mt, nullptr);
  EXPECT_FALSE(mt->typical);  // its other call, :2276, is under `if (result.numel() == 0)`
}

TEST_F(MainPath260, TheRightOperandOfOrRunsOnlyUnlessTheLeftHolds) {
  // Correlation.cpp:100-101 `TORCH_CHECK(!w.defined() || at::is_scalar_tensor_true(w_sum.ne(0)), ...)`:
  // ne runs only with weights, which torch.cov's defaults do not pass.
  Trace t = TraceTree("2.6.0", "torch.cov", TraceOptions::Device::kCuda);
  const OpStep* ne = FindOp(t, "ne.Scalar");
  ASSERT_NE(ne, nullptr);
  EXPECT_FALSE(ne->typical && !ne->undecided);
  bool unless_undefined = false;
  for (const auto& w : ne->when) unless_undefined = unless_undefined || (w.text == "!w.defined()" && w.negated);
  EXPECT_TRUE(unless_undefined);
}

TEST_F(MainPath260, APythonMethodThatReturnsARealTensorItselfDispatchesNothing) {
  // torch/masked/_ops.py:1627 `x * x.conj()`: TensorBody.h's conj() returns *this unless complex.
  Trace t = TraceTree("2.6.0", "torch.masked.var", TraceOptions::Device::kCuda);
  const OpStep* conj = FindOp(t, "conj");
  ASSERT_NE(conj, nullptr);
  EXPECT_FALSE(conj->typical);
  bool guarded = false;
  for (const auto& w : conj->when) guarded = guarded || (w.text == "!is_complex()" && w.negated);
  EXPECT_TRUE(guarded);
}

TEST_F(MainPath260, AnElementOfATensorIsATensorArgument) {
  // cuda/Sorting.cpp:149 `at::where(sorted[-1].isnan(), sorted[-1], sorted[k])` on `Tensor sorted`
  // (:143): where.self, never the Scalar overloads (whose .to calls, TensorCompare.cpp:557, never run).
  // `torch.median(x)`: median(Tensor self), whose median_impl this is (not median.dim).
  Trace t = TraceTree("2.6.0", "torch.median(x)", TraceOptions::Device::kCuda);
  const OpStep* self = FindOp(t, "where.self");
  ASSERT_NE(self, nullptr);
  EXPECT_TRUE(self->typical);
  for (const char* scalar : {"where.ScalarSelf", "where.ScalarOther", "where.Scalar"}) {
    const OpStep* op = FindOp(t, scalar);
    EXPECT_TRUE(op == nullptr || !op->typical) << scalar;
  }
}

TEST_F(MainPath260, AnAutoLocalHoldingATensorIsATensorArgument) {
  // Normalization.cpp:969-979 `auto factor = (...) ? norm : at::empty(...)`, then
  // `at::mul_outf(self, factor, out)`: mul.out, never mul.Scalar_out (and the mul_ its kernel calls).
  Trace t = TraceTree("2.6.0", "torch.renorm", TraceOptions::Device::kCuda);
  const OpStep* out = FindOp(t, "mul.out");
  ASSERT_NE(out, nullptr);
  EXPECT_TRUE(out->typical);
  const OpStep* scalar = FindOp(t, "mul.Scalar_out");
  EXPECT_TRUE(scalar == nullptr || !scalar->typical);
}

TEST_F(MainPath260, AVirtualCallSeveralClassesAnswerIsNoTypicalPath) {
  // RNN.cpp:275-277 QuantizedCellParams::linear_ih calls
  // fbgemm_linear_int8_weight_fp32_activation; CellParams' (:202) calls linear.
  // The cell's `params.linear_ih(input)` runs the override of the params'
  // class, which a float LSTM makes CellParams -- the trace cannot tell, so
  // neither is stated as running.
  Trace t = TraceTree("2.6.0", "nn.LSTM", TraceOptions::Device::kCpu);
  bool listed = false;
  for (const auto& op : t.ops)
    if (op.role == OpRole::kForward && op.name == "fbgemm_linear_int8_weight_fp32_activation") {
      listed = true;
      EXPECT_FALSE(op.typical && !op.undecided);
      EXPECT_EQ(op.called_at.line, 276);
    }
  EXPECT_TRUE(listed);
}

TEST_F(MainPath260, ASelectionListsWhatEachChoiceRunsOnTheDevice) {
  // transformers/attention.cpp:723-737: case flash_attention returns inside `if (query_device_type ==
  // DeviceType::CUDA)` (:724); _scaled_dot_product_flash_attention_for_cpu (:736) runs off CUDA only.
  Trace t = TraceTree("2.6.0", "aten::scaled_dot_product_attention", TraceOptions::Device::kCuda);
  bool flash = false;
  for (const auto& s : t.selections) {
    if (s.function != "select_sdp_backend") continue;
    for (const auto& a : s.alternatives) {
      EXPECT_NE(a.op, "_scaled_dot_product_flash_attention_for_cpu") << a.condition;
      EXPECT_NE(a.op, "_scaled_dot_product_attention_math_for_mps") << a.condition;  // :762, in #ifdef USE_MPS (:754)
      flash = flash || (a.op == "_scaled_dot_product_flash_attention" &&
                        a.condition == "when backend == SDPBackend::flash_attention");
    }
  }
  EXPECT_TRUE(flash);
  // TensorShape.cpp:3178 `if (dim0 == dim1)` compares two wrapped dims: no selection by maybe_wrap_dim.
  for (const auto& s : t.selections) EXPECT_NE(s.function, "maybe_wrap_dim") << s.op;
}

TEST_F(MainPath260, AnOptionalsFallbackPicksTheSvdDriver) {
  // cuda/linalg/BatchLinearAlgebraLib.cpp:660 `driver.value_or("gesvdj")` (:658's ROCm one is left out
  // of a CUDA build): linalg.svdvals passes its driver=None on, so :665's gesvdj branch runs,
  // and cloneBatchedColumnMajor's transpose_ (LinearAlgebraUtils.h:71) with it.
  Trace t = TraceTree("2.6.0", "torch.linalg.svdvals", TraceOptions::Device::kCuda);
  const OpStep* transpose = FindOp(t, "transpose_");
  ASSERT_NE(transpose, nullptr);
  EXPECT_TRUE(transpose->typical && !transpose->undecided);
  bool by_driver = false;
  for (const auto& w : transpose->when)
    by_driver = by_driver || (w.text == "driver_v == \"gesvdj\"" && !w.negated && w.where.line == 665);
  EXPECT_TRUE(by_driver);
}

TEST_F(MainPath260, ASizeFromAShapeIsNoTensorOutsideJitTracing) {
  // functional.py:6163 `tgt_len, bsz, embed_dim = query.shape`: :6205 `isinstance(embed_dim,
  // torch.Tensor)` holds only while JIT tracing, so :6207's embed_dim.div never runs.
  Trace t = TraceTree("2.6.0", "F.multi_head_attention_forward", TraceOptions::Device::kCuda);
  const OpStep* div = FindOp(t, "div.Tensor_mode");
  ASSERT_NE(div, nullptr);
  EXPECT_FALSE(div->typical);
  bool by_kind = false;
  for (const auto& w : div->when)
    by_kind = by_kind || (w.text == "isinstance(embed_dim, torch.Tensor)" && w.where.line == 6205);
  EXPECT_TRUE(by_kind);
}

TEST_F(MainPath260, ATypicalTensorsKeySetHasNoMetaBitNorPythonKey) {
  // Onehot.cpp:21-22 `self.key_set().has_all(DispatchKeySet(BackendComponent::MetaBit)) ||
  // ...(DispatchKey::Python))` is false for a dense CUDA tensor: :65's scatter_ runs, and :51's
  // max under `num_classes == -1`, the schema's default (native_functions.yaml:6143).
  Trace t = TraceTree("2.6.0", "F.one_hot", TraceOptions::Device::kCuda);
  for (const char* name : {"scatter_.value", "max"}) {
    const OpStep* op = FindOp(t, name);
    ASSERT_NE(op, nullptr) << name;
    EXPECT_TRUE(op->typical && !op->undecided) << name;
  }
  const OpStep* eq = FindOp(t, "eq.Tensor");  // :28, the meta/fake branch's
  ASSERT_NE(eq, nullptr);
  EXPECT_FALSE(eq->typical);
}

// A library step of several entry points runs where any of them does.
// Embedding.cu:262 `if (num_indices <= 3072 && !scale_grad_by_freq) { ...
// return grad_weight; }` comes before every CUB call of
// embedding_dense_backward_cuda (:301 on; :300 get_num_bits is no CUB
// launch): open, as the size decides.
// cudnn/RNN.cpp:1838-1868 `#ifndef USE_CUDNN_RNN_V8_API` cudnnRNNBackwardData,
// `#else` cudnnRNNBackwardData_v8: one of them is compiled, so cuDNN is not
// ruled out. cudnn/MHA.cpp:5-6 stubs run_cudnn_SDP_fprop for cuDNN before
// 8.9, which no assumption rules in or out: its cuDNN calls stay open.
TEST(Library260, AStepOfSeveralEntryPointsRunsWhereAnyOfThemDoes) {
  REQUIRE_CORPUS("2.6.0");
  auto library = [](const Trace& t, const std::string& op_name, const std::string& name,
                    OpRole role = OpRole::kBackward) -> const LibraryStep* {
    const OpStep* op = FindOp(t, op_name, role);
    if (!op) return nullptr;
    for (const LibraryStep& l : op->libraries)
      if (l.name == name) return &l;
    return nullptr;
  };
  Trace embedding = TraceTree("2.6.0", "nn.Embedding", TraceOptions::Device::kCuda);
  const LibraryStep* cub = library(embedding, "embedding_dense_backward", "CUB");
  ASSERT_NE(cub, nullptr);
  EXPECT_EQ(cub->where.line, 301);
  EXPECT_TRUE(cub->typical && cub->undecided);
  Trace lstm = TraceTree("2.6.0", "nn.LSTM", TraceOptions::Device::kCuda);
  const LibraryStep* forward = library(lstm, "_cudnn_rnn", "cuDNN", OpRole::kForward);
  ASSERT_NE(forward, nullptr);
  EXPECT_TRUE(forward->typical && !forward->undecided);
  const LibraryStep* backward = library(lstm, "_cudnn_rnn_backward", "cuDNN");
  ASSERT_NE(backward, nullptr);
  EXPECT_TRUE(backward->typical);
  Trace sdpa = TraceTree("2.6.0", "aten::_scaled_dot_product_cudnn_attention", TraceOptions::Device::kCuda);
  const LibraryStep* cudnn = library(sdpa, "_scaled_dot_product_cudnn_attention", "cuDNN", OpRole::kForward);
  ASSERT_NE(cudnn, nullptr);
  EXPECT_TRUE(cudnn->typical);
}

// torch/nn/modules/rnn.py:1123-1146: `if batch_sizes is None:
// _VF.lstm(input, hx, self._flat_weights, self.bias, ...)` else
// `_VF.lstm(input, batch_sizes, hx, self._flat_weights, self.bias, ...)`.
// batch_sizes is None (:1047) unless the input is a PackedSequence (:1050-1051,
// a tuple write); the first call passes self.bias (True, after a comment on
// :1127) where lstm.data has `Tensor[] params`: it is lstm.input's call only.
TEST(Entry260, AnLstmOfATensorCallsTheTensorOverload) {
  REQUIRE_CORPUS("2.6.0");
  Trace t = TraceTree("2.6.0", "nn.LSTM", TraceOptions::Device::kCuda);
  EXPECT_EQ(PathOf(t, "lstm.input"), "typical");
  EXPECT_EQ(PathOf(t, "lstm.data"), "not taken");
  const OpStep* input = FindOp(t, "lstm.input");
  ASSERT_NE(input, nullptr);
  ASSERT_FALSE(input->when.empty());
  EXPECT_EQ(input->when.back().text, "batch_sizes is None");
  EXPECT_FALSE(input->when.back().negated);
}

// mkldnn/Utils.cpp:144 fusion_unary_attr_map (CPU code _convolution's CPU
// walk reaches) names relu and hardswish, the ops' own kernels: a direct
// call made by another device's code. Traced for every device (the
// default), that call is listed as the CPU's, and relu, hardswish and the
// clamp_min relu calls are not on the CUDA path.
TEST(Entry260, AnOpsKernelCalledByAnotherDevicesCodeIsNotOnThePath) {
  REQUIRE_CORPUS("2.6.0");
  Trace t = TraceTree("2.6.0", "nn.Conv2d", TraceOptions{});
  for (const char* name : {"relu", "hardswish", "clamp_min"}) {
    const OpStep* op = FindOp(t, name);
    if (op) EXPECT_FALSE(op->typical) << name << " " << PathOf(t, name);
  }
  EXPECT_EQ(PathOf(t, "cudnn_convolution"), "typical");
}

// transformers/cuda/attention.cu:1096-1097 `const bool in_capture_stream =
// at::cuda::currentStreamCaptureStatus() != at::cuda::CaptureStatus::None;`,
// tested at :1109: an eager run captures no CUDA graph, so the local is
// false and nothing is chosen there; select_sdp_backend still chooses.
TEST(Selection260, AConditionALocalsInitializerDecidesIsNoSelection) {
  REQUIRE_CORPUS("2.6.0");
  Trace t = TraceTree("2.6.0", "F.scaled_dot_product_attention", TraceOptions::Device::kCuda);
  bool sdp = false;
  for (const SelectionStep& s : t.selections) {
    EXPECT_NE(s.function, "currentStreamCaptureStatus");
    sdp = sdp || s.function == "select_sdp_backend";
  }
  EXPECT_TRUE(sdp);
}

}  // namespace
}  // namespace optrace
