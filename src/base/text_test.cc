// The one "did you mean" ranking (DidYouMean) on small hand-made lists.
#include "base/text.h"

#include <gtest/gtest.h>

namespace optrace {
namespace {

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

}  // namespace
}  // namespace optrace
