// How a body uses one local object: member assignments (at the top level
// or in a branch), method calls, the calls it is passed to, anything else.
#include "cpp/object_uses.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cpp/cpp_guards.h"

namespace optrace {
namespace {

constexpr char kBody[] =
    "Tensor run(const Tensor& x, int64_t groups_) {\n"  // 1
    "  ConvParams<int64_t> params;\n"                   // 2
    "  params.groups = groups_;\n"                      // 3
    "  if (x.dim() == 3) {\n"                           // 4
    "    params.stride = {1};\n"                        // 5
    "    params.widen();\n"                             // 6
    "  }\n"                                             // 7
    "  check(x, params);\n"                             // 8
    "  if (params.groups > 1) return x;\n"              // 9
    "  auto* p = &params;\n"                            // 10
    "  return decide(x, params);\n"                     // 11
    "}\n";

TEST(ObjectUses, EachUseBeforeTheLineInOrder) {
  auto uses = CppGuardReader(kBody).UsesOf(1, 11, "params");
  ASSERT_TRUE(uses.has_value());
  ASSERT_EQ(uses->size(), 5u) << "the declaration (:2) and the member read (:9) are no uses";
  EXPECT_EQ((*uses)[0].kind, ObjectUse::Kind::kAssign);
  EXPECT_EQ((*uses)[0].name, "groups");
  EXPECT_EQ((*uses)[0].value, "groups_");
  EXPECT_TRUE((*uses)[0].top_level);
  EXPECT_EQ((*uses)[1].kind, ObjectUse::Kind::kAssign);
  EXPECT_FALSE((*uses)[1].top_level) << "params.stride is assigned only when x.dim() == 3";
  EXPECT_EQ((*uses)[2].kind, ObjectUse::Kind::kMethodCall);
  EXPECT_EQ((*uses)[2].name, "widen");
  EXPECT_EQ((*uses)[3].kind, ObjectUse::Kind::kPassed);
  EXPECT_EQ((*uses)[3].name, "check");
  EXPECT_EQ((*uses)[3].position, 1);
  EXPECT_EQ((*uses)[4].kind, ObjectUse::Kind::kOther) << "&params (:10)";
  EXPECT_EQ(CppGuardReader(kBody).UsesOf(1, 6, "params")->size(), 2u) << "only the lines before :6";
}

}  // namespace
}  // namespace optrace
