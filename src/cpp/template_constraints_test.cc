// Template headers and call template arguments read from tokens; the traits
// decided for one element type.
#include "cpp/template_constraints.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace optrace {
namespace {

// cpu/layer_norm_kernel.cpp (2.6.0): two overloads told apart by enable_if.
constexpr char kTwoOverloads[] =
    "template <typename T,\n"
    "          typename std::enable_if_t<!is_reduced_floating_point_v<T>, int> = 0>\n"
    "void LayerNormKernelImplInternal(const Tensor& X) {\n"
    "}\n"
    "template <typename T, typename param_t,\n"
    "          typename std::enable_if_t<is_reduced_floating_point_v<T>, int> = 0>\n"
    "void layer_norm_kernel_mixed_type(const Tensor& X) {\n"
    "}\n"
    "void plain(const Tensor& X) {\n"
    "  AT_DISPATCH_FLOATING_TYPES(X.scalar_type(), \"plain\", [&]() {\n"
    "    LayerNormKernelImplInternal<scalar_t>(X); layer_norm_kernel_mixed_type<scalar_t, float>(X);\n"
    "  });\n"
    "}\n";

TEST(TemplateConstraints, TheHeaderNamesItsParametersAndEnableIfConditions) {
  LexedFile lexed;
  LexCpp(kTwoOverloads, &lexed);
  auto first = TemplateConstraintsOf(lexed.tokens, 3);
  ASSERT_TRUE(first.has_value());
  EXPECT_EQ(first->parameters, std::vector<std::string>{"T"});
  EXPECT_EQ(first->conditions, std::vector<std::string>{"!is_reduced_floating_point_v<T>"});
  auto mixed = TemplateConstraintsOf(lexed.tokens, 7);
  ASSERT_TRUE(mixed.has_value());
  EXPECT_EQ(mixed->parameters, (std::vector<std::string>{"T", "param_t"}));
  EXPECT_EQ(mixed->conditions, std::vector<std::string>{"is_reduced_floating_point_v<T>"});
  EXPECT_FALSE(TemplateConstraintsOf(lexed.tokens, 9).has_value()) << "no template";
}

TEST(TemplateConstraints, ACallsExplicitTemplateArguments) {
  LexedFile lexed;
  LexCpp(kTwoOverloads, &lexed);
  EXPECT_EQ(TemplateArgumentsAt(lexed.tokens, 11, "LayerNormKernelImplInternal"), std::vector<std::string>{"scalar_t"});
  EXPECT_EQ(TemplateArgumentsAt(lexed.tokens, 11, "layer_norm_kernel_mixed_type"),
            (std::vector<std::string>{"scalar_t", "float"}));
  EXPECT_TRUE(TemplateArgumentsAt(lexed.tokens, 10, "LayerNormKernelImplInternal").empty()) << "not on that line";
}

TEST(TemplateConstraints, TraitsOfOneElementType) {
  EXPECT_EQ(ConstraintHolds("!is_reduced_floating_point_v<T>", "T", "float"), true);
  EXPECT_EQ(ConstraintHolds("is_reduced_floating_point_v<T>", "T", "float"), false);
  EXPECT_EQ(ConstraintHolds("at::is_reduced_floating_point<T>::value", "T", "at::BFloat16"), true);
  EXPECT_EQ(ConstraintHolds("std::is_same_v<T, at::Half>", "T", "c10::Half"), true);
  EXPECT_EQ(ConstraintHolds("std::is_same<T, double>::value", "T", "float"), false);
  EXPECT_EQ(ConstraintHolds("!std::is_same_v<c10::BFloat16, scalar_t>", "scalar_t", "float"), true)
      << "the parameter second (cuda/KernelUtils.cuh:155)";
  EXPECT_EQ(ConstraintHolds("c10::is_complex<T>::value", "T", "c10::complex<float>"), true);
  EXPECT_EQ(ConstraintHolds("std::is_integral_v<T>", "T", "int64_t"), true);
  EXPECT_FALSE(ConstraintHolds("is_reduced_floating_point_v<U>", "T", "float").has_value()) << "another parameter";
  EXPECT_FALSE(ConstraintHolds("sizeof(T) == 4", "T", "float").has_value()) << "no trait read";
  EXPECT_FALSE(ConstraintHolds("is_vectorizable<T>::value", "T", "float").has_value()) << "an unknown trait";
}

}  // namespace
}  // namespace optrace
