// The typical-path evaluation: structure (||, &&, !, not, parentheses),
// each vocabulary family, unknown atoms staying unknown, and --assume.
#include "trace/trace_typical.h"

#include <gtest/gtest.h>

namespace optrace {
namespace {

TEST(EvaluateCondition, DecidesWhatTheAssumptionsSpeakAbout) {
  Assumptions cuda;
  EXPECT_EQ(EvaluateCondition("at::cudnn_is_acceptable(_input)", false, cuda), Tri::kTrue);
  EXPECT_EQ(EvaluateCondition("use_miopen(_input, dropout_p)", false, cuda), Tri::kFalse);
  EXPECT_EQ(EvaluateCondition("use_mkldnn(_input, _params, hx)", false, cuda), Tri::kFalse);
  EXPECT_EQ(EvaluateCondition("self.device().is_cpu()", false, cuda), Tri::kFalse);
  // Whether an operand is a wrapped number (CompareKernels.cu:60) is no
  // question about the device.
  EXPECT_EQ(EvaluateCondition("iter.is_cpu_scalar(1)", false, cuda), Tri::kUnknown);
  EXPECT_EQ(EvaluateCondition("self.is_sparse() || self.is_nested()", false, cuda), Tri::kFalse);
  // The key set spelled out (Onehot.cpp:21-22): a typical tensor is neither meta nor Python-keyed.
  EXPECT_EQ(EvaluateCondition("self.key_set().has_all(DispatchKeySet(BackendComponent::MetaBit)) || "
                              "self.key_set().has_all(DispatchKeySet(DispatchKey::Python))",
                              false, cuda),
            Tri::kFalse);
  EXPECT_EQ(EvaluateCondition("ks.has(DispatchKey::PythonTLSSnapshot)", false, cuda), Tri::kUnknown);
  // No forward-mode AD (Linear.cpp:114): the bias is added in place.
  EXPECT_EQ(EvaluateCondition("isTensorSubclassLike(*bias) || bias->_fw_grad(/*level*/ 0).defined()", false, cuda),
            Tri::kFalse);
  EXPECT_EQ(EvaluateCondition("!(input.is_quantized()) && input.layout() == kStrided", false, cuda), Tri::kTrue);
  EXPECT_EQ(EvaluateCondition("self.scalar_type() == kHalf", false, cuda), Tri::kFalse);
  EXPECT_EQ(EvaluateCondition("AT_CUDNN_ENABLED()", false, cuda), Tri::kTrue);
  // A cuDNN build has some cuDNN release, which one is not assumed
  // (cudnn/MHA.cpp:5-6 picks a stub for releases before 8.9).
  EXPECT_EQ(EvaluateCondition("defined(CUDNN_VERSION)", false, cuda), Tri::kTrue);
  EXPECT_EQ(EvaluateCondition("defined(CUDNN_VERSION) && CUDNN_VERSION < 8900", false, cuda), Tri::kUnknown);
  EXPECT_EQ(EvaluateCondition("CUDNN_VERSION > 90000", false, cuda), Tri::kUnknown);
  EXPECT_EQ(EvaluateCondition("detail::getCUDAHooks().versionCuDNN() >= 5110L", false, cuda), Tri::kUnknown);
  EXPECT_EQ(EvaluateCondition("defined(USE_ROCM)", false, cuda), Tri::kFalse);
  // An eager run captures no CUDA graph (transformers/cuda/attention.cu:1096-1097).
  EXPECT_EQ(EvaluateCondition("at::cuda::currentStreamCaptureStatus() != at::cuda::CaptureStatus::None", false, cuda),
            Tri::kFalse);
  EXPECT_EQ(EvaluateCondition("at::cuda::currentStreamCaptureStatus() == at::cuda::CaptureStatus::None", false, cuda),
            Tri::kTrue);
  EXPECT_EQ(EvaluateCondition("torch.cuda.is_current_stream_capturing()", true, cuda), Tri::kFalse);
  EXPECT_EQ(EvaluateCondition("defined(USE_LINALG_SOLVER)", false, cuda), Tri::kTrue);
  // No preferred linear-algebra library chosen: Context's default.
  EXPECT_EQ(EvaluateCondition("at::globalContext().linalgPreferredBackend() == at::LinalgBackend::Magma", false, cuda),
            Tri::kFalse);
  EXPECT_EQ(
      EvaluateCondition("at::globalContext().linalgPreferredBackend() == at::LinalgBackend::Default", false, cuda),
      Tri::kTrue);
  // cuda/linalg/BatchLinearAlgebraLib.h:11-12 defines USE_LINALG_SOLVER from the toolkit's macros;
  // a release build defines NDEBUG. Which version a toolkit macro holds is not known.
  EXPECT_EQ(EvaluateCondition("defined(USE_LINALG_SOLVER)", false, cuda), Tri::kTrue);
  EXPECT_EQ(EvaluateCondition("defined(CUDART_VERSION) && defined(CUSOLVER_VERSION)", false, cuda), Tri::kTrue);
  EXPECT_EQ(EvaluateCondition("CUSOLVER_VERSION >= 11102", false, cuda), Tri::kUnknown);
  EXPECT_EQ(EvaluateCondition("defined(NDEBUG)", false, cuda), Tri::kTrue);
  EXPECT_EQ(EvaluateCondition("input.dim() == 4", false, cuda), Tri::kUnknown);
  EXPECT_EQ(EvaluateCondition("input.dim() == 4 && input.is_sparse()", false, cuda), Tri::kFalse);
  EXPECT_EQ(EvaluateCondition("input.dim() == 4 || input.is_cuda()", false, cuda), Tri::kTrue);
  EXPECT_EQ(EvaluateCondition("not torch.jit.is_scripting()", true, cuda), Tri::kTrue);
  EXPECT_EQ(EvaluateCondition("isinstance(orig_input, PackedSequence)", true, cuda), Tri::kFalse);
  Assumptions with_defaults = cuda;
  with_defaults.defaults = {{"inplace", "False"}, {"attn_mask", "None"}};
  EXPECT_EQ(EvaluateCondition("inplace", true, with_defaults), Tri::kFalse);
  EXPECT_EQ(EvaluateCondition("attn_mask is not None", true, with_defaults), Tri::kFalse);
  EXPECT_EQ(EvaluateCondition("mode == 'bilinear'", true, with_defaults), Tri::kUnknown);
  // A string default decides string comparisons; against an enum member (Sorting.cpp:329's
  // converted `interpolation`) it says nothing, and an identifier default decides enum ones.
  with_defaults.defaults = {{"interpolation", "'linear'"}, {"reduction", "Mean"}};
  EXPECT_EQ(EvaluateCondition("interpolation == 'linear'", true, with_defaults), Tri::kTrue);
  EXPECT_EQ(EvaluateCondition("interpolation == \"lower\"", false, with_defaults), Tri::kFalse);
  EXPECT_EQ(EvaluateCondition("interpolation == QUANTILE_INTERPOLATION_MODE::LINEAR", false, with_defaults),
            Tri::kUnknown);
  EXPECT_EQ(EvaluateCondition("reduction == at::Reduction::Mean", false, with_defaults), Tri::kTrue);
  // A number a caller passes against an enum member: Reduction::Mean is 1,
  // EmbeddingBagMode::MAX is 2 -- names the text does not evaluate.
  with_defaults.defaults = {{"reduction", "1"}, {"mode", "2"}};
  EXPECT_EQ(EvaluateCondition("reduction == at::Reduction::Mean", false, with_defaults), Tri::kUnknown);
  EXPECT_EQ(EvaluateCondition("mode == EmbeddingBagMode::MAX", false, with_defaults), Tri::kUnknown);
  EXPECT_EQ(EvaluateCondition("mode != EmbeddingBagMode::MAX", false, with_defaults), Tri::kUnknown);
  with_defaults.defaults = {{"mask_type", "None"}};  // an empty optional equals no number
  EXPECT_EQ(EvaluateCondition("mask_type == 0", false, with_defaults), Tri::kFalse);
  // cuda/SummaryOps.cu:327 `if (min == max && self.numel() > 0)`: both
  // parameters at histc's defaults (min=0, max=0); a local variable is not known.
  with_defaults.defaults = {{"min", "0"}, {"max", "0"}, {"approximate", "None"}};
  EXPECT_EQ(EvaluateCondition("min == max && self.numel() > 0", false, with_defaults), Tri::kTrue);
  EXPECT_EQ(EvaluateCondition("min != max", false, with_defaults), Tri::kFalse);
  EXPECT_EQ(EvaluateCondition("min == minvalue", false, with_defaults), Tri::kUnknown);
  EXPECT_EQ(EvaluateCondition("approximate == kTanh", false, with_defaults), Tri::kFalse);
}

TEST(EvaluateCondition, ContiguityIsTheTypicalTensorsNotAViewsTheCodeMakes) {
  // BatchLinearAlgebra.cpp:1909 `result.mT().is_contiguous()` and :2304
  // `!result.transpose(-2, -1).is_contiguous()`: the transpose of a contiguous
  // matrix is contiguous only where a size is 1; channels-last contiguity
  // (ChanelShuffle.cpp:51) depends on the sizes too.
  Assumptions cuda;
  EXPECT_EQ(EvaluateCondition("self.is_contiguous() && !self.is_mkldnn()", false, cuda), Tri::kTrue);
  EXPECT_EQ(EvaluateCondition("is_contiguous(memory_format)", false, cuda), Tri::kTrue);
  EXPECT_EQ(EvaluateCondition("result.mT().is_contiguous()", false, cuda), Tri::kUnknown);
  EXPECT_EQ(EvaluateCondition("!result.transpose(-2, -1).is_contiguous()", false, cuda), Tri::kUnknown);
  EXPECT_EQ(EvaluateCondition("grads[0].is_contiguous()", false, cuda), Tri::kUnknown);
  EXPECT_EQ(EvaluateCondition("self.is_contiguous(MemoryFormat::ChannelsLast)", false, cuda), Tri::kUnknown);
}

TEST(EvaluateCondition, ALiteralListsLengthIsKnown) {
  // PadNd.cpp:221/228 `pad.size() == 2 && ...`, `pad.size() == 4 && ...` with F.pad's `(1, 1)`.
  Assumptions a;
  a.defaults["pad"] = "(1, 1)";
  a.defaults["dims"] = "[]";
  EXPECT_EQ(EvaluateCondition("pad.size() == 2", false, a), Tri::kTrue);
  EXPECT_EQ(EvaluateCondition("pad.size() == 4 && (input_dim == 3 || input_dim == 4)", false, a), Tri::kFalse);
  EXPECT_EQ(EvaluateCondition("len(pad) > 2", false, a), Tri::kFalse);
  // A schema's empty default (roll's `int[1] dims=[]`) says "not given": roll_common then
  // calls roll again with a list of its own, so its length decides nothing.
  EXPECT_EQ(EvaluateCondition("dims.size() == 0", false, a), Tri::kUnknown);
  EXPECT_EQ(EvaluateCondition("shape.size() == 2", false, a), Tri::kUnknown);
}

TEST(EvaluateCondition, AFunctionalOpsOutTensorIsNoneOfItsInputs) {
  // cuda/Indexing.cu:985 `if (!result.is_same(self))` in index_add_cuda_impl: torch.index_add's
  // structured kernel writes a tensor the call allocates; index_add_'s writes self.
  Assumptions functional;
  functional.defaults["result"] = std::string(kFreshTensor) + " self index source";
  EXPECT_EQ(EvaluateCondition("!result.is_same(self)", false, functional), Tri::kTrue);
  EXPECT_EQ(EvaluateCondition("self.is_same(result)", false, functional), Tri::kFalse);
  // ScanKernels.cpp:80 `!result.is_same(*result_)`, `result_` made by contiguous_out_arg(result): it may be it.
  EXPECT_EQ(EvaluateCondition("result.is_same(*result_)", false, functional), Tri::kUnknown);
  Assumptions inplace;
  inplace.defaults["result"] = "self";
  EXPECT_EQ(EvaluateCondition("!result.is_same(self)", false, inplace), Tri::kFalse);
  EXPECT_EQ(EvaluateCondition("result.is_same(other)", false, inplace), Tri::kUnknown);
}

TEST(EvaluateCondition, ATensorsDeviceInAListOfDevices) {
  // functional.py:1786 `input.device.type in ("cpu", "cuda", ...)`;
  // container.py:712's list holds a call: only a literal match decides it.
  Assumptions cuda;
  EXPECT_EQ(EvaluateCondition("x.device.type in (\"cuda\", \"xpu\")", true, cuda), Tri::kTrue);
  EXPECT_EQ(EvaluateCondition("x.device.type not in ['cuda', 'xpu']", true, cuda), Tri::kFalse);
  EXPECT_EQ(EvaluateCondition("x.device.type in ['xla', 'maia']", true, cuda), Tri::kFalse);
  EXPECT_EQ(EvaluateCondition("p.device.type in ['cpu', torch._C._get_privateuse1_backend_name()]", true, cuda),
            Tri::kUnknown);
  EXPECT_EQ(EvaluateCondition("p.device.type in ['cuda', torch._C._get_privateuse1_backend_name()]", true, cuda),
            Tri::kTrue);
  // A parameter named device is the caller's choice, not the tensor's.
  EXPECT_EQ(EvaluateCondition("device in ('cuda', 'xpu')", true, cuda), Tri::kUnknown);
  EXPECT_EQ(EvaluateCondition("src.device.type not in _supported_device_type", true, cuda), Tri::kUnknown);
  Assumptions cpu;
  cpu.device = CodeDevice::kCpu;
  EXPECT_EQ(EvaluateCondition("x.device.type in (\"cuda\", \"xpu\")", true, cpu), Tri::kFalse);
}

TEST(EvaluateCondition, SpacingAroundAComparisonDoesNotMatter) {
  // LossNLL.cpp:528 writes `if (input.sym_numel()==0){`: a typical tensor is not empty either way.
  Assumptions a;
  for (const char* empty : {"input.sym_numel()==0", "input.numel() == 0", "input.numel()  ==0", "self.size(1)==0"})
    EXPECT_EQ(EvaluateCondition(empty, false, a), Tri::kFalse) << empty;
  for (const char* full : {"self.numel()>0", "self.numel()!=0", "self.numel() > 0"})
    EXPECT_EQ(EvaluateCondition(full, false, a), Tri::kTrue) << full;
  // A template's angle brackets and a shift are no comparison.
  EXPECT_EQ(EvaluateCondition("x.size(static_cast<int>(d))==0", false, a), Tri::kFalse);
  EXPECT_EQ(EvaluateCondition("(n<<2) > limit", false, a), Tri::kUnknown);
}

// TensorCompare.cpp:636 `if (self.numel() == 1 && self.dim() == 0)` (max.dim's
// 0-dim input): the tensor an op computes on has a dimension; a value handed
// beside it (Fill.cpp's `value.dim() == 0`) may be a 0-dim scalar.
TEST(EvaluateCondition, TheTensorAnOpComputesOnIsNoZeroDimScalar) {
  Assumptions a;
  for (const char* scalar :
       {"self.dim() == 0", "input.dim()==0", "self.ndimension() == 0", "self.numel() == 1 && self.dim() == 0"})
    EXPECT_EQ(EvaluateCondition(scalar, false, a), Tri::kFalse) << scalar;
  for (const char* ranked : {"self.dim() > 0", "input.ndimension() > 0", "self.dim() != 0"})
    EXPECT_EQ(EvaluateCondition(ranked, false, a), Tri::kTrue) << ranked;
  for (const char* other : {"value.dim() == 0", "grad.dim() == 0", "result.dim() == 0", "self.dim() == 1",
                            "self_dim() == 0", "self.numel() == 1"})
    EXPECT_EQ(EvaluateCondition(other, false, a), Tri::kUnknown) << other;
  a.typical_sizes = false;
  EXPECT_EQ(EvaluateCondition("self.dim() == 0", false, a), Tri::kUnknown);
}

TEST(EvaluateCondition, TwoDecidedCallsCompareByTheirValues) {
  // cuda/Copy.cu:199 `bool same_conj = iter.tensor(0).is_conj() == iter.tensor(1).is_conj();`
  Assumptions a;
  EXPECT_EQ(EvaluateCondition("iter.tensor(0).is_conj() == iter.tensor(1).is_conj()", false, a), Tri::kTrue);
  EXPECT_EQ(EvaluateCondition("iter.tensor(0).is_neg() != iter.tensor(1).is_neg()", false, a), Tri::kFalse);
  EXPECT_EQ(EvaluateCondition("x.is_cuda() == y.is_cpu()", false, a), Tri::kFalse) << "cuda: true vs false";
  // One side open, or a literal side: not read this way.
  EXPECT_EQ(EvaluateCondition("x.is_conj() == y.is_foo()", false, a), Tri::kUnknown);
  EXPECT_EQ(EvaluateCondition("x.dim() == y.dim()", false, a), Tri::kUnknown);
}

TEST(EvaluateCondition, ATypicalTensorIsNotEmptyButWhatItsSizesComputeMayBeZero) {
  Assumptions a;
  EXPECT_EQ(EvaluateCondition("at::symint::size<T>(input, 0) == 0", false, a), Tri::kFalse);
  EXPECT_EQ(EvaluateCondition("self.numel() > 0", false, a), Tri::kTrue);
  EXPECT_EQ(EvaluateCondition("input.size(1) * input.size(2) != 0", false, a), Tri::kTrue);
  // Convolution.cpp (2.6.0) ConvParams::is_depthwise: a remainder of two sizes may be 0.
  EXPECT_EQ(EvaluateCondition("at::symint::size<T>(weight, 0) % at::symint::size<T>(input, 1) == 0", false, a),
            Tri::kUnknown);
  EXPECT_EQ(EvaluateCondition("self.size(0) - 1 == 0", false, a), Tri::kUnknown);
  // Any tensor, not a typical one: an empty batch is one.
  a.typical_sizes = false;
  EXPECT_EQ(EvaluateCondition("at::symint::size<T>(input, 0) == 0", false, a), Tri::kUnknown);
  EXPECT_EQ(EvaluateCondition("iter.can_use_32bit_indexing()", false, a), Tri::kUnknown);
}

TEST(EvaluateCondition, ASizeLocalIsAtLeastOne) {
  EXPECT_TRUE(IsSizeExpression("self.numel()"));
  EXPECT_TRUE(IsSizeExpression("static_cast<int64_t>(input.size(0)) * input.size(-1)"));
  EXPECT_TRUE(IsSizeExpression("self.sym_sizes()[dim]"));
  EXPECT_TRUE(IsSizeExpression("iter.numel()"));
  EXPECT_FALSE(IsSizeExpression("self.size(0) - 1"));
  EXPECT_FALSE(IsSizeExpression("ceil_log2(self.numel())"));
  EXPECT_FALSE(IsSizeExpression("self.sizes()"));
  EXPECT_FALSE(IsSizeExpression(""));
  Assumptions a;
  a.sizes = {"n"};
  EXPECT_EQ(EvaluateCondition("n == 0", false, a), Tri::kFalse);
  EXPECT_EQ(EvaluateCondition("!n", false, a), Tri::kFalse);
  EXPECT_EQ(EvaluateCondition("n > 0 && self.is_cuda()", false, a), Tri::kTrue);
  EXPECT_EQ(EvaluateCondition("n <= 0", false, a), Tri::kFalse);
  EXPECT_EQ(EvaluateCondition("n == 1", false, a), Tri::kUnknown);
  EXPECT_EQ(EvaluateCondition("n > 1024", false, a), Tri::kUnknown);
  EXPECT_EQ(EvaluateCondition("m == 0", false, a), Tri::kUnknown);
}

TEST(Assumptions, ApplyChangesTheAnswerAndRejectsUnknownItems) {
  Assumptions a;
  std::string error;
  ASSERT_TRUE(a.Apply({"dtype=bf16", "device=cpu", "no-cudnn"}, &error)) << error;
  EXPECT_EQ(EvaluateCondition("self.scalar_type() == at::kBFloat16", false, a), Tri::kTrue);
  EXPECT_EQ(EvaluateCondition("self.is_cuda()", false, a), Tri::kFalse);
  EXPECT_EQ(EvaluateCondition("AT_CUDNN_ENABLED()", false, a), Tri::kFalse);
  EXPECT_FALSE(a.Apply({"dtype=float7"}, &error));
  EXPECT_NE(error.find("float7"), std::string::npos);
  EXPECT_FALSE(a.Apply({"fast"}, &error));
}

TEST(PruneTernaries, AFirstOrderBackwardTakesItsBranches) {
  Assumptions backward;
  backward.backward_pass = true;
  // derivatives.yaml:1266 (native_group_norm), shortened.
  std::string formula =
      "GradMode::is_enabled() || grads[1].defined() || grads[2].defined() ? "
      "infinitely_differentiable_native_group_norm_backward(grads[0], grads[1], input, group) : "
      "(grads[0].defined() ? native_group_norm_backward_symint(grads[0].device().is_xpu() ? grads[0] : "
      "grads[0].contiguous(), input, group) : std::tuple<Tensor, Tensor, Tensor>())";
  std::string pruned = PruneTernaries(formula, backward);
  EXPECT_EQ(pruned.find("infinitely_differentiable"), std::string::npos) << pruned;
  EXPECT_NE(pruned.find("native_group_norm_backward_symint("), std::string::npos) << pruned;
  EXPECT_NE(pruned.find("grads[0].contiguous()"), std::string::npos) << pruned;  // is_xpu() is false on CUDA
  // An open condition keeps both sides.
  EXPECT_EQ(PruneTernaries("dim > 1 ? a(x) : b(x)", backward), "dim > 1 ? a(x) : b(x)");
  // derivatives.yaml:2766 (_cudnn_rnn): a backward without retain_graph releases its variables.
  EXPECT_EQ(PruneTernaries("retain_variables ? result3.clone() : result3", backward).find("clone"), std::string::npos);
  // Outside a backward, grad mode is what --assume says.
  Assumptions forward;
  EXPECT_NE(PruneTernaries("GradMode::is_enabled() ? a(x) : b(x)", forward).find("a(x)"), std::string::npos);
  EXPECT_EQ(PruneTernaries("GradMode::is_enabled() ? a(x) : b(x)", forward).find("b(x)"), std::string::npos);
}

}  // namespace
}  // namespace optrace

namespace optrace {
namespace {

TEST(EvaluateCondition, AnOptionalHoldingATruthHasItAsItsValue) {
  // Dropout.cu:365 `if (train.has_value() && !train.value())`: dropout passes its `train`.
  Assumptions a;
  a.defaults["train"] = "True";
  EXPECT_EQ(EvaluateCondition("train.has_value() && !train.value()", false, a), Tri::kFalse);
  EXPECT_EQ(EvaluateCondition("train.value()", false, a), Tri::kTrue);
  a.defaults["train"] = "std::nullopt";
  EXPECT_EQ(EvaluateCondition("train.has_value()", false, a), Tri::kFalse);
  EXPECT_EQ(EvaluateCondition("train.value()", false, a), Tri::kUnknown) << "an empty optional has no value";
}

TEST(EvaluateCondition, AScalarHoldingANumberEqualsOnlyThatNumber) {
  // Pow.cpp:52-54, `x.pow(2)`: neither the fill (exponent 0) nor the copy (exponent 1).
  Assumptions a;
  a.defaults["exp"] = "2";
  EXPECT_EQ(EvaluateCondition("exp.equal(0.0) || exp.equal(false)", false, a), Tri::kFalse);
  EXPECT_EQ(EvaluateCondition("exp.equal(1.0) || exp.equal(true)", false, a), Tri::kFalse);
  EXPECT_EQ(EvaluateCondition("exp.equal(2.0)", false, a), Tri::kTrue);
  // cuda/PowKernel.cu:171, :193: a real number, integral as written.
  EXPECT_EQ(EvaluateCondition("!exp.isComplex()", false, a), Tri::kTrue);
  EXPECT_EQ(EvaluateCondition("exp.isIntegral(false)", false, a), Tri::kTrue);
  a.defaults["exp"] = "0.5";
  EXPECT_EQ(EvaluateCondition("exp.isIntegral(false)", false, a), Tri::kFalse);
  a.defaults["exp"] = "e";
  EXPECT_EQ(EvaluateCondition("exp.equal(0.0)", false, a), Tri::kUnknown) << "no number held";
  EXPECT_EQ(EvaluateCondition("exp.isComplex()", false, a), Tri::kUnknown);
}

TEST(EvaluateCondition, TheTypicalCallsTensorsShareTheTracedDevice) {
  Assumptions cuda;
  EXPECT_EQ(EvaluateCondition("(iter.device(0)) == (iter.device(1))", false, cuda), Tri::kTrue);
  EXPECT_EQ(EvaluateCondition("iter.device(0) != iter.device(2)", false, cuda), Tri::kFalse);
  EXPECT_EQ(EvaluateCondition("self.device() != value.device()", false, cuda), Tri::kUnknown)
      << "fill_.Tensor's value may be a CPU scalar";
  EXPECT_EQ(EvaluateCondition("iter.device(i) == device", false, cuda), Tri::kUnknown) << "another device";
}

TEST(EvaluateCondition, ATypicalTensorSuggestsTheContiguousFormat) {
  // cuda/AdaptiveAveragePooling.cu:461-462's `switch (input.suggest_memory_format())` cases.
  Assumptions a;
  EXPECT_EQ(EvaluateCondition("input.suggest_memory_format() == at::MemoryFormat::ChannelsLast", false, a),
            Tri::kFalse);
  EXPECT_EQ(EvaluateCondition("input.suggest_memory_format() == at::MemoryFormat::Contiguous", false, a), Tri::kTrue);
  EXPECT_EQ(EvaluateCondition("self.suggest_memory_format() != MemoryFormat::ChannelsLast3d", false, a), Tri::kTrue);
  EXPECT_EQ(EvaluateCondition("z.suggest_memory_format() != memory_format", false, a), Tri::kUnknown);
  a.typical_sizes = false;  // any tensor: a (N, 1, H, W) one may suggest either
  EXPECT_EQ(EvaluateCondition("input.suggest_memory_format() == at::MemoryFormat::ChannelsLast", false, a),
            Tri::kUnknown);
}

TEST(EvaluateCondition, TunableOpIsOffUnlessAssumed) {
  // cuda/Blas.cpp:376 (2.6.0); cuda/tunable/Tunable.cpp:380 starts with `enable_{false}`.
  Assumptions typical;
  EXPECT_EQ(EvaluateCondition("tuning_ctx->IsTunableOpEnabled()", false, typical), Tri::kFalse);
  Assumptions tuned;
  std::string error;
  ASSERT_TRUE(tuned.Apply({"tunableop"}, &error)) << error;
  EXPECT_EQ(EvaluateCondition("tuning_ctx->IsTunableOpEnabled()", false, tuned), Tri::kTrue);
  EXPECT_NE(tuned.Key(), typical.Key());
  EXPECT_EQ(EvaluateCondition("tuning_ctx->IsTunableOpEnabledNow()", false, typical), Tri::kUnknown) << "another name";
}

TEST(EvaluateCondition, TheCodesLikelyHintIsTheTypicalCase) {
  // BatchLinearAlgebra.cpp:1571: a typical linear-algebra call succeeds.
  Assumptions cuda;
  EXPECT_EQ(EvaluateCondition("C10_LIKELY(!infos.any().item<bool>())", false, cuda), Tri::kTrue);
  EXPECT_EQ(EvaluateCondition("C10_UNLIKELY(!pctx)", false, cuda), Tri::kFalse);
  // What the vocabulary decides stays decided: a typical run is no CPU run.
  EXPECT_EQ(EvaluateCondition("C10_LIKELY(self.is_cpu())", false, cuda), Tri::kFalse);
  EXPECT_EQ(EvaluateCondition("C10_LIKELY(a) && b", false, cuda), Tri::kUnknown);
}

TEST(EvaluateCondition, ANumberIsNoNaNWhenComparedWithItself) {
  // TensorCompare.cpp:743 `if (min.toDouble() != min.toDouble())`: relu passes 0.
  Assumptions a;
  a.defaults["min"] = "0";
  EXPECT_EQ(EvaluateCondition("min.toDouble() != min.toDouble()", false, a), Tri::kFalse);
  EXPECT_EQ(EvaluateCondition("min.toDouble() == min.toDouble()", false, a), Tri::kTrue);
  a.defaults["min"] = "x";
  EXPECT_EQ(EvaluateCondition("min.toDouble() != min.toDouble()", false, a), Tri::kUnknown) << "no number held";
  EXPECT_EQ(EvaluateCondition("max.toDouble() != max.toDouble()", false, a), Tri::kUnknown) << "nothing held";
}

}  // namespace
}  // namespace optrace
