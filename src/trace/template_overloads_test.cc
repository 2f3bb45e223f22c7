// A CPU kernel that picks between two overloads of one function template by
// std::enable_if on the element type (cpu/layer_norm_kernel.cpp's shape):
// the overload the assumed dtype rejects, and the helper only it calls, are
// ruled out; the other dtype flips them.
#include "trace/template_overloads.h"

#include <gtest/gtest.h>

#include <string>

#include "testing/memory_index.h"
#include "trace/trace.h"
#include "trace/trace_test_util.h"

namespace optrace {
namespace {

constexpr char kNativeFunctions[] = R"x(- func: norm_it(Tensor self) -> Tensor
  dispatch:
    CPU: norm_it_cpu
)x";

// aten/src/ATen/native/NormIt.cpp
constexpr char kNormIt[] = R"x(namespace at::native {
DECLARE_DISPATCH(norm_fn, norm_stub);
DEFINE_DISPATCH(norm_stub);
Tensor norm_it_cpu(const Tensor& self) {
  norm_stub(kCPU, self);
  return self;
}
} // namespace at::native
)x";

// aten/src/ATen/native/cpu/NormItKernel.cpp
constexpr char kNormItKernel[] = R"x(namespace at::native {
namespace {
template <typename T, typename P>
void mixed_helper(const Tensor& X) {
}
void wide_helper(const Tensor& X) {
}
template <typename T,
          typename std::enable_if_t<!is_reduced_floating_point_v<T>, int> = 0>
void NormInternal(const Tensor& X) {
  wide_helper(X);
}
template <typename T,
          typename std::enable_if_t<is_reduced_floating_point_v<T>, int> = 0>
void NormInternal(const Tensor& X) {
  mixed_helper<T, float>(X);
}
void NormKernelImpl(const Tensor& X) {
  AT_DISPATCH_FLOATING_TYPES_AND2(kBFloat16, kHalf, X.scalar_type(), "norm", [&]() {
    NormInternal<scalar_t>(X);
  });
}
} // namespace
REGISTER_DISPATCH(norm_stub, &NormKernelImpl);
} // namespace at::native
)x";

class TemplateOverloads : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_NO_FATAL_FAILURE(
        BuildMemoryIndex(MemoryTree({{"version.txt", "2.6.0a0\n"},
                                     {"aten/src/ATen/native/native_functions.yaml", kNativeFunctions},
                                     {"aten/src/ATen/native/NormIt.cpp", kNormIt},
                                     {"aten/src/ATen/native/cpu/NormItKernel.cpp", kNormItKernel}}),
                         &index_));
  }
  // The helper of norm_it defined on `line` of NormItKernel.cpp; null when not listed.
  static const ImplStep* Helper(const Trace& t, int line) {
    const OpStep* op = FindOp(t, "norm_it");
    if (!op) return nullptr;
    for (const ImplStep& h : op->helpers)
      if (h.where.line == line && h.where.file == "aten/src/ATen/native/cpu/NormItKernel.cpp") return &h;
    return nullptr;
  }
  Index index_;
};

TEST_F(TemplateOverloads, TheOverloadTheDtypeRejectsAndWhatOnlyItCallsAreRuledOut) {
  // NormItKernel.cpp:20 `NormInternal<scalar_t>(X)` in an AT_DISPATCH: scalar_t is
  // float for a float32 tensor; :15's `is_reduced_floating_point_v<T>` fails.
  Trace t = TraceIndex(index_, "aten::norm_it", TraceOptions::Device::kCpu);
  const ImplStep* reduced = Helper(t, 15);
  const ImplStep* wide = Helper(t, 10);
  const ImplStep* mixed = Helper(t, 4);
  ASSERT_NE(reduced, nullptr);
  ASSERT_NE(wide, nullptr);
  ASSERT_NE(mixed, nullptr);
  EXPECT_EQ(reduced->ruled_out,
            "`enable_if<is_reduced_floating_point_v<T>>` fails for T = float (the dispatched scalar_t) at "
            "aten/src/ATen/native/cpu/NormItKernel.cpp:20");
  EXPECT_EQ(wide->ruled_out, "");
  EXPECT_EQ(mixed->ruled_out, "called only from overloads the dtype rules out") << ":16, in the overload at :15";
  ASSERT_NE(Helper(t, 6), nullptr);
  EXPECT_EQ(Helper(t, 6)->ruled_out, "") << "wide_helper, called from :10's overload";
  // A bfloat16 tensor takes the other overload.
  Trace bf16 = TraceIndex(index_, "aten::norm_it", TraceOptions::Device::kCpu, {"dtype=bfloat16"});
  ASSERT_NE(Helper(bf16, 10), nullptr);
  ASSERT_NE(Helper(bf16, 15), nullptr);
  EXPECT_NE(Helper(bf16, 10)->ruled_out, "");
  EXPECT_EQ(Helper(bf16, 15)->ruled_out, "");
}

}  // namespace
}  // namespace optrace
