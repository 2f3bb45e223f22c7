// Bounded regex calls: what fits matches as std::regex does; what is longer
// than kMaxRegexInput does not match and does not recurse (std::regex_match
// on a 1 MiB identifier dies with SIGSEGV, a stack overflow).
#include "base/bounded_regex.h"

#include <gtest/gtest.h>

namespace optrace {
namespace {

TEST(BoundedRegex, MatchesWhatFitsAndRefusesTheRest) {
  static const std::regex re("^(\\w+)_vectorized[0-9]+_kernel$");
  std::smatch m;
  const std::string sigmoid = "sigmoid_vectorized4_kernel";
  ASSERT_TRUE(BoundedRegexMatch(sigmoid, &m, re));
  EXPECT_EQ(m.str(1), "sigmoid");
  std::string fits = std::string(kMaxRegexInput - 18, 'a') + "_vectorized4_kernel";
  EXPECT_EQ(fits.size(), kMaxRegexInput + 1);
  fits.erase(0, 1);
  EXPECT_TRUE(BoundedRegexMatch(fits, &m, re));
  std::string huge = std::string(1 << 20, 'a') + "_vectorized4_kernel";
  EXPECT_FALSE(BoundedRegexMatch(huge, &m, re));
  EXPECT_FALSE(BoundedRegexMatch(huge, re));
  EXPECT_FALSE(BoundedRegexSearch(huge, &m, re));
  const std::string line = "x = sigmoid_vectorized4_kernel";
  EXPECT_TRUE(BoundedRegexSearch(line, &m, std::regex("(\\w+)_kernel")));
}

}  // namespace
}  // namespace optrace
