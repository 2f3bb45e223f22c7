// What a C++ caller passes the op it calls (trace/caller_arguments.h) and
// what a selection function returns for those values
// (trace/decider_returns.h), on a small MemoryDisk tree written here: a
// `conv` passing `false` and its default `groups=1` down to `_conv`, whose
// `select_backend` reads them from a local object's members and one of
// its bool methods. Line numbers are lines of the raw strings below.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "testing/memory_index.h"
#include "trace/caller_arguments.h"
#include "trace/path_values.h"
#include "trace/trace.h"
#include "trace/trace_test_util.h"

namespace optrace {
namespace {

// aten/src/ATen/native/native_functions.yaml
constexpr char kNativeFunctions[] = R"x(- func: conv(Tensor input, Tensor weight, int groups=1) -> Tensor

- func: convolution(Tensor input, Tensor weight, bool transposed, int groups) -> Tensor

- func: _conv(Tensor input, Tensor weight, bool transposed, int groups) -> Tensor

- func: conv_regrouped(Tensor input, Tensor weight, int groups=1) -> Tensor

- func: _conv_regrouped(Tensor input, Tensor weight, bool transposed, int groups) -> Tensor

- func: fast_conv(Tensor input) -> Tensor
  dispatch:
    CUDA: fast_conv_cuda

- func: grouped_conv(Tensor input) -> Tensor
  dispatch:
    CUDA: grouped_conv_cuda

- func: transposed_conv(Tensor input) -> Tensor
  dispatch:
    CUDA: transposed_conv_cuda
)x";

// aten/src/ATen/native/Conv.cpp
constexpr char kConvCpp[] = R"x(namespace at::native {

struct Params {
  bool transposed;
  int64_t groups;
  int64_t dilation;
  bool is_grouped(const Tensor& input) const {
    return input.is_cuda() && groups > 1;
  }
  void widen() {
    dilation = 2;
  }
  void regroup() {
    groups = groups * 2;
  }
};

Backend select_backend(const Tensor& input, const Params& params) {
  if (input.numel() == 0) {
    return Backend::Empty;
  }
  if (params.is_grouped(input)) {
    return Backend::Grouped;
  } else if (params.transposed) {
    return Backend::Transposed;
  }
  return Backend::Fast;
}

Tensor conv(const Tensor& input, const Tensor& weight, int64_t groups) {
  return at::convolution(input, weight, false, groups);
}

Tensor convolution(const Tensor& input, const Tensor& weight, bool transposed, int64_t groups) {
  if (transposed) {
    return at::transposed_conv(input);
  }
  if (groups == 7) {
    return at::grouped_conv(input);
  }
  return at::_conv(input, weight, transposed, groups);
}

Tensor _conv(const Tensor& input, const Tensor& weight, bool transposed_, int64_t groups_) {
  Params params;
  params.transposed = transposed_;
  params.groups = groups_;
  params.widen();
  auto backend = select_backend(input, params);
  switch (backend) {
    case Backend::Grouped:
      return at::grouped_conv(input);
    case Backend::Transposed:
      return at::transposed_conv(input);
    case Backend::Fast:
      return at::fast_conv(input);
    case Backend::Empty:
      return input;
  }
}

Tensor conv_regrouped(const Tensor& input, const Tensor& weight, int64_t groups) {
  return at::_conv_regrouped(input, weight, false, groups);
}

Tensor _conv_regrouped(const Tensor& input, const Tensor& weight, bool transposed_, int64_t groups_) {
  Params params;
  params.transposed = transposed_;
  params.groups = groups_;
  params.regroup();
  auto backend = select_backend(input, params);
  switch (backend) {
    case Backend::Grouped:
      return at::grouped_conv(input);
    case Backend::Fast:
      return at::fast_conv(input);
  }
}

} // namespace at::native
)x";

// aten/src/ATen/native/cuda/Kernels.cu
constexpr char kKernelsCu[] = R"x(namespace at::native {
Tensor fast_conv_cuda(const Tensor& input) { return input; }
Tensor grouped_conv_cuda(const Tensor& input) { return input; }
Tensor transposed_conv_cuda(const Tensor& input) { return input; }
} // namespace at::native
)x";

// The forward op `name` of `t`: "typical", "open" (`?`) or "ruled out"; "" when absent.
std::string Mark(const Trace& t, const std::string& name) {
  for (const OpStep& op : t.ops)
    if (op.name == name && op.role == OpRole::kForward)
      return op.typical ? "typical" : op.undecided ? "open" : "ruled out";
  return "";
}

class CallerArguments : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_NO_FATAL_FAILURE(
        BuildMemoryIndex(MemoryTree({{"version.txt", "2.6.0a0\n"},
                                     {"aten/src/ATen/native/native_functions.yaml", kNativeFunctions},
                                     {"aten/src/ATen/native/Conv.cpp", kConvCpp},
                                     {"aten/src/ATen/native/cuda/Kernels.cu", kKernelsCu}}),
                         &index_));
    t_ = TraceIndex(index_, "aten::conv", TraceOptions::Device::kCuda, {});
  }

  Index index_;
  Trace t_;
};

TEST_F(CallerArguments, ALiteralTheCallerPassesDecidesTheCalleesCondition) {
  // Conv.cpp:31 passes `false` for convolution's transposed: :35-37 never run
  // (nor does _conv's own call, below).
  EXPECT_EQ(Mark(t_, "transposed_conv"), "ruled out");
  // :38 `groups == 7`: conv's default groups=1, passed on at :31.
  EXPECT_EQ(Mark(t_, "_conv"), "typical");
}

TEST_F(CallerArguments, TheSelectionFunctionReturnsWhatTheMembersDecide) {
  // _conv (:44-60): params.groups = 1 and params.transposed = false (:46-47;
  // widen() at :48 names neither), so select_backend (:18-28) passes
  // is_grouped (:7-9: groups > 1) and `params.transposed`, and returns Fast.
  EXPECT_EQ(Mark(t_, "fast_conv"), "typical");
  EXPECT_EQ(Mark(t_, "grouped_conv"), "ruled out");
}

// Where one caller's call is not read, what the read ones pass teaches no
// value, but a schema default one of them overrides (passes another
// value, or one the trace cannot know) is no longer the op's: conv's
// `groups` (default 1) is forgotten where a read site passes 7 or an
// expression, and kept where every read site passes 1 or nothing.
TEST_F(CallerArguments, ADefaultAReadCallerOverridesIsForgottenWhereAnotherCallIsNotRead) {
  OpStep conv{.name = "conv", .yaml = index_.yaml.Find("conv")};
  ASSERT_NE(conv.yaml, nullptr);
  const PassedArguments seven = {{"groups", "7"}}, unknown = {{"groups", std::nullopt}}, one = {{"groups", "1"}};
  EXPECT_EQ(ContradictedDefaults(conv, {one, seven}), (PassedArguments{{"groups", std::nullopt}}));
  EXPECT_EQ(ContradictedDefaults(conv, {unknown}), (PassedArguments{{"groups", std::nullopt}}));
  EXPECT_EQ(ContradictedDefaults(conv, {one, {}}), std::nullopt);
  EXPECT_EQ(ContradictedDefaults(conv, {}), std::nullopt);
}

TEST_F(CallerArguments, AMethodThatNamesAMemberLeavesItsValueOpen) {
  // conv_regrouped (:62-64) passes the same values, but _conv_regrouped
  // calls params.regroup() (:70; :13-15 writes groups): the choice stays open.
  Trace t = TraceIndex(index_, "aten::conv_regrouped", TraceOptions::Device::kCuda, {});
  EXPECT_EQ(Mark(t, "fast_conv"), "open");
  EXPECT_EQ(Mark(t, "grouped_conv"), "open");
}

// aten/src/ATen/native/Fold.cpp: a callee that asks whether its tensor is
// contiguous, called on the caller's own tensor and on a permuted view of
// it (cuda/SpectralOps.cpp:187-193's `input = self.permute(...);
// input.reshape(...)`, reshape's `self.is_contiguous()`).
constexpr char kFoldYaml[] = R"x(- func: fold(Tensor self) -> Tensor
  dispatch:
    CompositeExplicitAutograd: fold

- func: fold_plain(Tensor self) -> Tensor
  dispatch:
    CompositeExplicitAutograd: fold_plain

- func: fold_call(Tensor self) -> Tensor
  dispatch:
    CompositeExplicitAutograd: fold_call

- func: flatten_it(Tensor self) -> Tensor
  variants: function, method
  dispatch:
    CompositeExplicitAutograd: flatten_it

- func: view_it(Tensor self) -> Tensor
  dispatch:
    CompositeExplicitAutograd: view_it

- func: permute(Tensor(a) self, int[] dims) -> Tensor(a)
  variants: function, method
  dispatch:
    CompositeExplicitAutograd: permute

- func: copy_it(Tensor self) -> Tensor
  dispatch:
    CompositeExplicitAutograd: copy_it
)x";

constexpr char kFoldCpp[] = R"x(namespace at::native {
Tensor fold(const Tensor& self) {
  auto turned = self.permute({1, 0});
  return turned.flatten_it();
}
Tensor fold_plain(const Tensor& self) {
  return self.flatten_it();
}
Tensor flatten_it(const Tensor& self) {
  if (self.is_contiguous()) {
    return at::view_it(self);
  }
  return at::copy_it(self);
}
Tensor view_it(const Tensor& self) { return self; }
Tensor copy_it(const Tensor& self) { return self; }
Tensor permute(const Tensor& self, IntArrayRef dims) { return self; }
Tensor fold_call(const Tensor& self) {
  return at::flatten_it(self.permute({1, 0}));
}
} // namespace at::native
)x";

TEST(StridedViews, AViewTheCallerMakesIsNoTypicallyContiguousTensor) {
  // Fold.cpp:3-4: `turned` is a permutation of self, so flatten_it's
  // `self.is_contiguous()` (:10) is open; fold_plain (:7) passes its own
  // contiguous tensor, and the view is taken.
  Index index;
  ASSERT_NO_FATAL_FAILURE(BuildMemoryIndex(MemoryTree({{"version.txt", "2.6.0a0\n"},
                                                       {"aten/src/ATen/native/native_functions.yaml", kFoldYaml},
                                                       {"aten/src/ATen/native/Fold.cpp", kFoldCpp}}),
                                           &index));
  Trace permuted = TraceIndex(index, "aten::fold", TraceOptions::Device::kCuda, {});
  EXPECT_EQ(Mark(permuted, "view_it"), "open");
  EXPECT_EQ(Mark(permuted, "copy_it"), "open");
  // Fold.cpp:19 hands the view to at::flatten_it as written.
  Trace called = TraceIndex(index, "aten::fold_call", TraceOptions::Device::kCuda, {});
  EXPECT_EQ(Mark(called, "view_it"), "open");
  Trace plain = TraceIndex(index, "aten::fold_plain", TraceOptions::Device::kCuda, {});
  EXPECT_EQ(Mark(plain, "view_it"), "typical");
  EXPECT_EQ(Mark(plain, "copy_it"), "ruled out");
}

class CallerArguments260 : public Tree260 {
 protected:
  static const StubStep* Stub(const OpStep& op, const std::string& name) {
    for (const StubStep& s : op.stubs)
      if (s.name == name) return &s;
    return nullptr;
  }
};

TEST_F(CallerArguments260, Conv2dFloat32RunsCudnnForwardAndBackward) {
  // conv2d passes convolution `false` (Convolution.cpp:960) and its default
  // groups=1, on to _convolution (:1184), whose params.transposed and
  // params.groups (:1491, :1493) make _select_conv_backend (:1202) skip the
  // depthwise branch (is_depthwise :605: groups > 1) and return
  // ConvBackend::Cudnn under params.use_cudnn (:1231-1236).
  for (const char* query : {"F.conv2d", "nn.Conv2d"}) {
    Trace t = TraceTree("2.6.0", query, TraceOptions::Device::kCuda);
    EXPECT_EQ(Mark(t, "cudnn_convolution"), "typical") << query;
    const OpStep* cudnn = FindOp(t, "cudnn_convolution");
    ASSERT_NE(cudnn, nullptr);
    EXPECT_EQ(cudnn->called_at.file, "aten/src/ATen/native/Convolution.cpp");
    EXPECT_EQ(cudnn->called_at.line, 1532);
    for (const char* other :
         {"_conv_depthwise2d", "conv_depthwise3d", "cudnn_convolution_transpose", "slow_conv_dilated2d", "thnn_conv2d"})
      EXPECT_EQ(Mark(t, other), "ruled out") << query << " " << other;
    // The backward's select_conv_backend (:1354) forwards to _select_conv_backend with the
    // members convolution_backward (:1981) assigns from what the formula passes.
    const OpStep* backward = FindOp(t, "convolution_backward", OpRole::kBackward);
    ASSERT_NE(backward, nullptr);
    const StubStep* stub = Stub(*backward, "cudnn_convolution_backward_stub");
    ASSERT_NE(stub, nullptr);
    EXPECT_TRUE(stub->typical && !stub->undecided) << query;
    const StubStep* depthwise = Stub(*backward, "conv_depthwise2d_backward_stub");
    ASSERT_NE(depthwise, nullptr);
    EXPECT_FALSE(depthwise->typical) << query;
    ASSERT_FALSE(backward->kernels.empty()) << "the depthwise and im2col launches are listed, ruled out";
    for (const KernelStep& k : backward->kernels) EXPECT_FALSE(k.typical) << query << " " << k.name;
  }
}

TEST_F(CallerArguments260, ConvTranspose2dRunsCudnnTranspose) {
  // conv_transpose2d passes convolution `true` for transposed: CudnnTranspose (:1233).
  Trace t = TraceTree("2.6.0", "nn.ConvTranspose2d", TraceOptions::Device::kCuda);
  EXPECT_EQ(Mark(t, "cudnn_convolution_transpose"), "typical");
  EXPECT_EQ(Mark(t, "cudnn_convolution"), "ruled out");
  EXPECT_EQ(Mark(t, "slow_conv_transpose2d"), "ruled out");
}

}  // namespace
}  // namespace optrace
