// Index::Derived: what the tracer derives once per index, in typed slots;
// Index::LineOffset: where a line of a cached file text starts.
#include "index/index.h"

#include <gtest/gtest.h>

#include <memory>

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

TEST(IndexLineOffset, StartOfEachLineAndTheEndPastTheLast) {
  auto disk = std::make_shared<MemoryDisk>();
  disk->Add("torch/m.py", "def f():\n    x = 1\n\n    return x\n");
  Index index;
  index.disk = disk;
  const std::string text = *index.FileText("torch/m.py");
  EXPECT_EQ(index.LineOffset("torch/m.py", 1), 0u);
  EXPECT_EQ(text.substr(index.LineOffset("torch/m.py", 2), 9), "    x = 1");
  EXPECT_EQ(index.LineOffset("torch/m.py", 3), text.find("\n\n") + 1);  // an empty line
  EXPECT_EQ(text.substr(index.LineOffset("torch/m.py", 4)), "    return x\n");
  // Line 5 is the empty one after the last newline; past it, the text's end.
  EXPECT_EQ(index.LineOffset("torch/m.py", 5), text.size());
  EXPECT_EQ(index.LineOffset("torch/m.py", 40), text.size());
  EXPECT_EQ(index.LineOffset("torch/m.py", 0), 0u);
  EXPECT_EQ(index.LineOffset("torch/missing.py", 3), 0u);  // no text: nothing to skip
}

}  // namespace
}  // namespace optrace
