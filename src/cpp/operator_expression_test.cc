#include "cpp/operator_expression.h"

#include <gtest/gtest.h>

namespace optrace {
namespace {

using Operands = std::vector<std::string>;

TEST(TopLevelOperators, SplitsAtOperatorsOutsideBrackets) {
  auto eq = TopLevelOperatorsOf("self == other");
  ASSERT_TRUE(eq.has_value());
  EXPECT_EQ(eq->operands, (Operands{"self", "other"}));
  EXPECT_TRUE(eq->tensor_operators_only);

  auto div = TopLevelOperatorsOf("grad / (2 * n)");
  ASSERT_TRUE(div.has_value());
  EXPECT_EQ(div->operands, (Operands{"grad", "(2 * n)"}));

  auto sum = TopLevelOperatorsOf("a.sum(0) + f(b, c) * d[1]");
  ASSERT_TRUE(sum.has_value());
  EXPECT_EQ(sum->operands, (Operands{"a.sum(0)", "f(b, c)", "d[1]"}));
}

TEST(TopLevelOperators, UnaryMinusAndShiftsAreTensorOperators) {
  auto neg = TopLevelOperatorsOf("-x");
  ASSERT_TRUE(neg.has_value());
  EXPECT_EQ(neg->operands, (Operands{"x"}));
  EXPECT_TRUE(neg->tensor_operators_only);

  auto shift = TopLevelOperatorsOf("x >> 2");
  ASSERT_TRUE(shift.has_value());
  EXPECT_EQ(shift->operands, (Operands{"x", "2"}));
  EXPECT_TRUE(shift->tensor_operators_only);
}

TEST(TopLevelOperators, OperatorsNoTensorOverloadAreMarked) {
  for (std::string_view e : {"a && b", "!defined", "*ptr", "&x", "c ? a : b", "n = 2", "i++ + 1"}) {
    auto top = TopLevelOperatorsOf(e);
    ASSERT_TRUE(top.has_value()) << e;
    EXPECT_FALSE(top->tensor_operators_only) << e;
  }
}

TEST(TopLevelOperators, NoneWhereNothingIsWrittenOutsideBrackets) {
  for (std::string_view e : {"self", "at::where(a == b, x, y)", "(a - b)", "x.size(0)", "{1, -1}",
                             "static_cast<int64_t>(n)", "std::numeric_limits<float>::max()", "a->b"})
    EXPECT_FALSE(TopLevelOperatorsOf(e).has_value()) << e;
  EXPECT_FALSE(TopLevelOperatorsOf("f(a + b").has_value());  // unbalanced
}

TEST(TopLevelOperators, ComparisonIsNoTemplate) {
  // `n < m` then `>`: no `(`, `::` or `{` after the `>`, so both compare.
  auto cmp = TopLevelOperatorsOf("n < m && k > 0");
  ASSERT_TRUE(cmp.has_value());
  EXPECT_EQ(cmp->operands, (Operands{"n", "m", "k", "0"}));
  EXPECT_FALSE(cmp->tensor_operators_only);
  auto cast = TopLevelOperatorsOf("static_cast<double>(n) * x");
  ASSERT_TRUE(cast.has_value());
  EXPECT_EQ(cast->operands, (Operands{"static_cast<double>(n)", "x"}));
}

}  // namespace
}  // namespace optrace
