// The text face on the real 2.6.0 tree: where the answer sits in the
// default output. render_test.cc pins the same layout on traces built in
// memory; here, that it holds for a trace the tracer really makes.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "render/render.h"
#include "trace/trace_test_util.h"

namespace optrace {
namespace {

class RenderTree260 : public Tree260 {};

TEST_F(RenderTree260, WhatElseRunsComesBeforeTheFramesAndTheTree) {
  // torch/nn/functional.py:4693 `return torch._C._nn.upsample_bilinear2d(...)`
  // under `if input.dim() == 4 and mode == "bilinear":` (:4675), not the
  // default mode="nearest": its kernel
  // upsample_bilinear2d_out_frame is named among the alternatives, right
  // after the names of what runs, before the frames that locate them.
  Trace t = TraceTree("2.6.0", "F.interpolate", TraceOptions::Device::kCuda);
  std::string text = RenderText(t, RenderOptions{});
  size_t runs = text.find("runs on cuda");
  size_t bilinear = text.find("upsample_bilinear2d_out_frame");
  size_t frame = text.find("torch.nn.functional.interpolate ");
  ASSERT_NE(runs, std::string::npos) << text;
  ASSERT_NE(bilinear, std::string::npos) << text;
  ASSERT_NE(frame, std::string::npos) << text;
  EXPECT_LT(runs, bilinear) << text;
  EXPECT_LT(bilinear, frame) << text;
}

TEST_F(RenderTree260, ABranchOnTheCallsOwnArgumentIsAnAlternative) {
  // Loss.cpp:245 kl_div `if (log_target)` calls at::exp; F.kl_div passes
  // its default log_target=False: exp is off the path, and what it runs is
  // named as what log_target=True runs.
  Trace t = TraceTree("2.6.0", "F.kl_div", TraceOptions::Device::kCuda);
  std::string text = RenderText(t, RenderOptions{});
  size_t branch = text.find("when log_target: aten::exp → exp_kernel_cuda");
  ASSERT_NE(branch, std::string::npos) << text;
  EXPECT_LT(branch, text.find("F.kl_div(...)")) << text;
}

TEST_F(RenderTree260, AnOverloadBesideTheTakenOneIsNoArgumentBranch) {
  // torch/nn/modules/rnn.py:1156-1157 `if not is_batched: output = output.squeeze(batch_dim)`:
  // squeeze.dim is on the path; squeeze.dimname, needing a named tensor, is ruled out, and
  // `not is_batched` does not choose it.
  Trace t = TraceTree("2.6.0", "nn.LSTM", TraceOptions::Device::kCuda);
  std::string text = RenderText(t, RenderOptions{});
  size_t from = text.find("alternatives (what else runs, and when)");
  ASSERT_NE(from, std::string::npos) << text;
  std::string alternatives = text.substr(from, text.find("\n\n", from) - from);
  EXPECT_EQ(alternatives.find("aten::squeeze.dimname"), std::string::npos) << alternatives;
  EXPECT_NE(alternatives.find("when batch_sizes is not None: aten::select.int"), std::string::npos) << alternatives;
}

TEST_F(RenderTree260, AnOpThatRunsNamesItsKernelsBeforeTheTree) {
  // cuda/Normalization.cuh:212 batch_norm_transform_input_kernel, launched
  // at :730 by batch_norm_elemt_cuda_template, runs for native_batch_norm:
  // the names of what runs give it, before the tree.
  Trace t = TraceTree("2.6.0", "torch.native_batch_norm", TraceOptions::Device::kCuda);
  std::string text = RenderText(t, RenderOptions{});
  size_t named = text.find("batch_norm_transform_input_kernel");
  ASSERT_NE(named, std::string::npos) << text;
  EXPECT_LT(named, text.find("▶ aten::native_batch_norm")) << text;
}

TEST_F(RenderTree260, AnOptionalStepALocalDecidesIsNamedOnThePath) {
  // torch/masked/_ops.py:1641-1642 `if correction != 0: ... count =
  // torch.maximum(count, count.new_zeros([]))`: correction is 1.0 (:1595)
  // -- its other writes (:1597, :1599) are under `unbiased is not None` and
  // `correction_opt is not None`, both left None by torch.masked.var -- so
  // maximum runs; its kernel is named with what runs.
  Trace t = TraceTree("2.6.0", "torch.masked.var", TraceOptions::Device::kCuda);
  std::string text = RenderText(t, RenderOptions{});
  size_t named = text.find("\n  maximum: ?maximum_kernel_cuda");
  ASSERT_NE(named, std::string::npos) << text;
  EXPECT_LT(named, text.find("alternatives (what else runs, and when)")) << text;
}

TEST_F(RenderTree260, AnAlternativeIsShownWithTheConditionThatRulesItOut) {
  // torch/nn/functional.py:6375 `if dropout_p > 0.0: ... dropout(...)`, with
  // dropout_p 0.0 by nn.MultiheadAttention's default; F.dropout's own
  // `... if inplace else _VF.dropout(...)` (:1425) holds at inplace=False
  // and is not why aten::dropout is off the path.
  Trace t = TraceTree("2.6.0", "nn.MultiheadAttention", TraceOptions::Device::kCuda);
  std::string text = RenderText(t, RenderOptions{});
  EXPECT_THAT(text, ::testing::HasSubstr("when dropout_p > 0.0: aten::dropout ")) << text;
  EXPECT_THAT(text, ::testing::Not(::testing::HasSubstr("unless inplace: aten::dropout "))) << text;
}

TEST_F(RenderTree260, ABackwardOpsCalleeOfTheForwardsNameIsNoParentOfIt) {
  // derivatives.yaml:573 diagonal's `diagonal_backward_symint(...)`, whose
  // code calls `grad_input.diagonal(...)` (TensorShape.cpp:3862) and
  // `diag.copy_(grad)` (:3863): the backward diagonal is diagonal_backward's
  // callee, not its caller, so the backward tree holds diagonal_backward once
  // (no overload folded into it) with copy_ right below it.
  Trace t = TraceTree("2.6.0", "torch.diagonal", TraceOptions::Device::kCuda);
  std::string text = RenderText(t, RenderOptions{});
  size_t backward = text.find("backward (autograd)");
  ASSERT_NE(backward, std::string::npos) << text;
  EXPECT_NE(text.find("  ▶ aten::diagonal_backward  ", backward), std::string::npos) << text;
  EXPECT_EQ(text.find("aten::diagonal_backward (+1 overload)", backward), std::string::npos) << text;
  EXPECT_NE(text.find("\n    └▶ aten::copy_  ", backward), std::string::npos) << text;
}

}  // namespace
}  // namespace optrace
