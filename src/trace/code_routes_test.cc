// CodeRoutes' per-trace memos answer by what they read, never by where a
// step lives: a trace's stubs move between arrays (a replay of their
// annotations, an edit of a shared copy: base/shared_vector.h), and a freed
// array's address may be a later one's.
#include "trace/code_routes.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "testing/memory_index.h"
#include "trace/path_values.h"

namespace optrace {
namespace {

constexpr char kOpsCpp[] = R"x(namespace at::native {

DEFINE_DISPATCH(a_stub);
DEFINE_DISPATCH(b_stub);

void both_impl(const Tensor& self, bool x, bool y) {
  if (x) {
    a_stub(kCPU, self);
  }
  if (y) {
    b_stub(kCPU, self);
  }
}

} // namespace at::native
)x";

std::shared_ptr<MemoryDisk> Tree() {
  return MemoryTree({{"version.txt", "2.6.0a0\n"},
                     {"aten/src/ATen/native/native_functions.yaml", "- func: both(Tensor self) -> Tensor\n"},
                     {"aten/src/ATen/native/Both.cpp", kOpsCpp},
                     {"torch/__init__.py", ""}});
}

std::vector<std::string> Texts(const std::vector<Condition>& conditions) {
  std::vector<std::string> out;
  for (const Condition& c : conditions) out.push_back(c.text);
  return out;
}

// One StubStep object asked about as one stub, then (same address) as the
// other: each answer is that stub's own call's condition.
TEST(CodeRoutes, AStubsCallConditionsAreItsOwnWhereverTheStepLives) {
  Index index;
  ASSERT_NO_FATAL_FAILURE(BuildMemoryIndex(Tree(), &index));
  Assumptions a;
  PathValues values(index, a);
  GuardReaders readers(index);
  CodeRoutes routes(index, readers, values);
  OpStep op;
  op.name = "both";
  StubStep s;
  s.called_from = "at::native::both_impl";
  s.name = "a_stub";
  s.call_site = {"aten/src/ATen/native/Both.cpp", 8, ""};
  std::vector<Condition> first;
  ASSERT_TRUE(routes.StubCallConditions(op, s, &first));
  EXPECT_EQ(Texts(first), std::vector<std::string>{"x"});

  s.name = "b_stub";
  s.call_site.line = 11;
  std::vector<Condition> second;
  ASSERT_TRUE(routes.StubCallConditions(op, s, &second));
  EXPECT_EQ(Texts(second), std::vector<std::string>{"y"});
}

}  // namespace
}  // namespace optrace
