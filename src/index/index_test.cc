// Index::Derived: what the tracer derives once per index, in typed slots.
#include "index/index.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace optrace {
namespace {

TEST(IndexDerived, BuiltOnceAndTypedByItsSlot) {
  Index index;
  int builds = 0;
  auto make = [&] {
    ++builds;
    return std::string("table");
  };
  const std::string& first = index.Derived<std::string>("tables", make);
  const std::string& again = index.Derived<std::string>("tables", make);
  EXPECT_EQ(&first, &again);
  EXPECT_EQ(builds, 1);
  // The same name asked as another type is its own slot, not the string read as a vector.
  const std::vector<int>& other = index.Derived<std::vector<int>>("tables", [] { return std::vector<int>{1, 2}; });
  EXPECT_EQ(other, (std::vector<int>{1, 2}));
  EXPECT_EQ(index.Derived<std::string>("tables", make), "table");
  EXPECT_EQ(builds, 1);
}

}  // namespace
}  // namespace optrace
