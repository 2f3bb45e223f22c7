// Objects in scope at a line: the line's block and those enclosing it,
// blocks closed before the line skipped.
#include "cpp/scoped_objects.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace optrace {
namespace {

std::vector<ScopedObject> At(const std::string& text, int line) {
  LexedFile lexed;  // tokens point into `text`, the results are copies
  LexCpp(text, &lexed);
  return ObjectsInScopeAt(lexed.tokens, line, 400);
}

std::vector<std::string> Types(const std::vector<ScopedObject>& objects) {
  std::vector<std::string> out;
  for (const auto& o : objects) out.push_back(o.type);
  return out;
}

TEST(ScopedObjects, TheLinesBlockAndEnclosingBlocksNearestFirst) {
  const std::string text =
      "Tensor f(const Tensor& x) {\n"    // 1
      "  at::NoGradGuard no_grad;\n"     // 2
      "  if (x.defined()) {\n"           // 3
      "    AutoGradMode mode(false);\n"  // 4
      "    return g(x);\n"               // 5
      "  }\n"                            // 6
      "}\n";
  const auto objects = At(text, 5);
  EXPECT_EQ(Types(objects), (std::vector<std::string>{"AutoGradMode", "NoGradGuard"}));
  ASSERT_EQ(objects.size(), 2u);
  EXPECT_EQ(objects[0].name, "mode");
  EXPECT_EQ(objects[0].arguments, (std::vector<std::string>{"false"}));
  EXPECT_EQ(objects[0].line, 4);
  EXPECT_TRUE(objects[1].arguments.empty());
}

TEST(ScopedObjects, ABlockClosedBeforeTheLineHoldsNothingInScope) {
  const std::string text =
      "Tensor f(const Tensor& x) {\n"            // 1
      "  {\n"                                    // 2
      "    c10::AutoDispatchBelowAutograd m;\n"  // 3
      "    h(x);\n"                              // 4
      "  }\n"                                    // 5
      "  return g(x);\n"                         // 6
      "}\n";
  EXPECT_TRUE(At(text, 6).empty());
  EXPECT_EQ(Types(At(text, 4)), (std::vector<std::string>{"AutoDispatchBelowAutograd"}));
}

TEST(ScopedObjects, StatementsThatNameTwoWordsAreNoDeclarations) {
  const std::string text =
      "Tensor f(const Tensor& x) {\n"      // 1
      "  if (x.defined()) return g(x);\n"  // 2
      "  else h(x);\n"                     // 3
      "  return k(x);\n"                   // 4
      "}\n";
  EXPECT_TRUE(At(text, 4).empty());
}

TEST(ScopedObjects, AnEarlierFunctionsObjectsAreOutOfScope) {
  const std::string text =
      "void a() {\n"                   // 1
      "  at::NoGradGuard guard;\n"     // 2
      "}\n"                            // 3
      "Tensor b(const Tensor& x) {\n"  // 4
      "  return g(x);\n"               // 5
      "}\n";
  EXPECT_TRUE(At(text, 5).empty());
}

}  // namespace
}  // namespace optrace
