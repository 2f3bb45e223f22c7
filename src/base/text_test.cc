// Tests of the shared string helpers: each is the only copy in the tree, so
// every stage's "did you mean", joins and trims rest on these cases.
#include "base/text.h"

#include <algorithm>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

namespace optrace {
namespace {

TEST(EditDistance, CountsInsertionsDeletionsAndSubstitutions) {
  EXPECT_EQ(EditDistance("", ""), 0u);
  EXPECT_EQ(EditDistance("softmax", "softmax"), 0u);
  EXPECT_EQ(EditDistance("softmax", "sofmax"), 1u);    // deletion
  EXPECT_EQ(EditDistance("softmax", "softmaxx"), 1u);  // insertion
  EXPECT_EQ(EditDistance("softmax", "softmin"), 2u);   // two substitutions
  EXPECT_EQ(EditDistance("kitten", "sitting"), 3u);
  EXPECT_EQ(EditDistance("", "abc"), 3u);
}

TEST(EditDistance, CapStopsEarlyAndSaysOnlyThatItIsFarther) {
  EXPECT_EQ(EditDistance("kitten", "sitting", 3), 3u);  // at the cap: exact
  EXPECT_EQ(EditDistance("kitten", "sitting", 2), 3u);  // beyond: cap + 1
  EXPECT_EQ(EditDistance("a", "abcdefgh", 2), 3u);      // lengths alone decide
  EXPECT_EQ(EditDistance("abcdef", "uvwxyz", 1), 2u);
  EXPECT_EQ(EditDistance("abc", "abd", 0), 1u);
}

TEST(DidYouMean, ClosestFirstThenSubstrings) {
  std::vector<std::string> names = {"softmax", "log_softmax", "softmin", "add", "_softmax_backward_data"};
  auto near = DidYouMean("sofmax", names);
  ASSERT_FALSE(near.empty());
  EXPECT_EQ(near[0], "softmax");
  EXPECT_EQ(DidYouMean("qqqqqq", names), std::vector<std::string>{});
  auto sub = DidYouMean("softmax_backward", names);
  EXPECT_NE(std::find(sub.begin(), sub.end(), "_softmax_backward_data"), sub.end());
  EXPECT_EQ(DidYouMean("softmax", names, 1).size(), 1u);
}

TEST(Join, PutsTheSeparatorBetweenPiecesOnly) {
  EXPECT_EQ(Join(std::vector<std::string>{}, ", "), "");
  EXPECT_EQ(Join(std::vector<std::string>{"a"}, ", "), "a");
  EXPECT_EQ(Join(std::vector<std::string>{"a", "b", "c"}, " → "), "a → b → c");
  EXPECT_EQ(Join(std::vector<std::string_view>{"x", "y"}, ","), "x,y");
  EXPECT_EQ(Join(std::set<std::string>{"b", "a"}, " "), "a b");
}

TEST(ClosingBracket, SkipsNestedAndQuotedBrackets) {
  EXPECT_EQ(ClosingBracket("f(a, g(b)[0], \")\")", 1), 17u);
  EXPECT_EQ(ClosingBracket("C10_LIKELY(x) && y", 10), 12u);
  EXPECT_EQ(ClosingBracket("f(a, (b)", 1), std::string_view::npos) << "never closed";
  EXPECT_EQ(ClosingBracket("f()", 7), std::string_view::npos) << "past the end";
}

TEST(TrimView, DropsSpacesTabsAndLineEndsAtBothEnds) {
  EXPECT_EQ(TrimView("  a b\t\r\n"), "a b");
  EXPECT_EQ(TrimView("\n\t "), "");
  EXPECT_EQ(TrimView(""), "");
  EXPECT_EQ(TrimView("x"), "x");
}

TEST(DidYouMean, IgnoresCaseAndRanksEqualFirst) {
  std::vector<NearName> names = {{"aten::lstm_cell", "lstm_cell"}, {"nn.LSTM", "LSTM"}, {"nn.LSTMCell", "LSTMCell"}};
  std::vector<std::string> near = DidYouMean("lstm", names, 5);
  ASSERT_FALSE(near.empty());
  EXPECT_EQ(near[0], "nn.LSTM");
}

TEST(DidYouMean, PrefixesShortestFirstThenInitialsThenEdits) {
  std::vector<NearName> names = {{"F.convolution_like", "convolution_like"},
                                 {"nn.Conv2d", "Conv2d"},
                                 {"F.conv2d", "conv2d"},
                                 {"F.scaled_dot_product_attention", "scaled_dot_product_attention"},
                                 {"F.relu", "relu"}};
  EXPECT_EQ(DidYouMean("conv", names, 5), (std::vector<std::string>{"nn.Conv2d", "F.conv2d", "F.convolution_like"}));
  EXPECT_EQ(DidYouMean("sdpa", names, 5), (std::vector<std::string>{"F.scaled_dot_product_attention"}));
  EXPECT_EQ(DidYouMean("rleu", names, 5), (std::vector<std::string>{"F.relu"}));
  EXPECT_TRUE(DidYouMean("zzzz", names, 5).empty());
}

TEST(DidYouMean, PlainListsAndLimit) {
  std::vector<std::string> names = {"trace", "find", "fetch", "op", "ops"};
  EXPECT_EQ(DidYouMean("trcae", names)[0], "trace");
  EXPECT_EQ(DidYouMean("fi", names, 1), (std::vector<std::string>{"find"}));
  EXPECT_EQ(DidYouMean("op", names, 5)[0], "op");
}

TEST(CollapseSpace, OneSpacePerRunAndNoneAtTheEnds) {
  EXPECT_EQ(CollapseSpace("  a &&\n\t  b  "), "a && b");
  EXPECT_EQ(CollapseSpace(""), "");
  EXPECT_EQ(CollapseSpace(" \n "), "");
}

TEST(ScanCode, DepthAfterEachCharacterAndQuotedStringsWithEscapes) {
  // f(a, "x)\"(", [b])
  const std::string_view code = R"(f(a, "x)\"(", [b]))";
  std::string depths, quoted;
  ScanCode(code, "([{", ")]}", [&](size_t, int depth, bool q) {
    depths += static_cast<char>('0' + depth);
    quoted += q ? 'q' : '.';
  });
  // f ( a ,   " x ) \ " ( " ,   [ b ] )
  EXPECT_EQ(depths, "011111111111112210");
  EXPECT_EQ(quoted, ".....qqqqqqq......");
}

TEST(ScanCode, StrayCloserLeavesDepthAtZero) {
  std::string depths;
  ScanCode(")(a)", "(", ")", [&](size_t, int depth, bool) { depths += static_cast<char>('0' + depth); });
  EXPECT_EQ(depths, "0110");
}

TEST(SplitTopLevel, SplitsOutsideBracketsAndQuotesOnly) {
  EXPECT_EQ(SplitTopLevel("a, f(b, c), 'd,e', \"f\\\",g\", h<i, j>", ','),
            (std::vector<std::string>{"a", "f(b, c)", "'d,e'", "\"f\\\",g\"", "h<i, j>"}));
  EXPECT_EQ(SplitTopLevel("h<i, j>", ',', "(", ")"), (std::vector<std::string>{"h<i", "j>"}));
  EXPECT_EQ(SplitTopLevel("", ','), (std::vector<std::string>{""}));
}

TEST(OpName, BaseAndOverloadSplitAtTheFirstDot) {
  EXPECT_EQ(OpBaseName("add.Tensor"), "add");
  EXPECT_EQ(OpOverloadName("add.Tensor"), "Tensor");
  EXPECT_EQ(OpOverloadName("aten::softmax.int"), "int");
  EXPECT_EQ(OpBaseName("add"), "add");
  EXPECT_EQ(OpOverloadName("add"), "");  // the default overload
}

}  // namespace
}  // namespace optrace
