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
  EXPECT_EQ(EvaluateCondition("self.is_sparse() || self.is_nested()", false, cuda), Tri::kFalse);
  EXPECT_EQ(EvaluateCondition("!(input.is_quantized()) && input.layout() == kStrided", false, cuda), Tri::kTrue);
  EXPECT_EQ(EvaluateCondition("self.scalar_type() == kHalf", false, cuda), Tri::kFalse);
  EXPECT_EQ(EvaluateCondition("AT_CUDNN_ENABLED()", false, cuda), Tri::kTrue);
  EXPECT_EQ(EvaluateCondition("defined(USE_ROCM)", false, cuda), Tri::kFalse);
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
  // cuda/SummaryOps.cu:327 `if (min == max && self.numel() > 0)`: both
  // parameters at histc's defaults (min=0, max=0); a local variable is not known.
  with_defaults.defaults = {{"min", "0"}, {"max", "0"}, {"approximate", "None"}};
  EXPECT_EQ(EvaluateCondition("min == max && self.numel() > 0", false, with_defaults), Tri::kTrue);
  EXPECT_EQ(EvaluateCondition("min != max", false, with_defaults), Tri::kFalse);
  EXPECT_EQ(EvaluateCondition("min == minvalue", false, with_defaults), Tri::kUnknown);
  EXPECT_EQ(EvaluateCondition("approximate == kTanh", false, with_defaults), Tri::kFalse);
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

}  // namespace
}  // namespace optrace
