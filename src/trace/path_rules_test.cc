// ParentOf on traces built by hand: an op's parent is the op of its name
// and role that reached it -- never one it reached itself.
#include "trace/path_rules.h"

#include <gtest/gtest.h>

namespace optrace {
namespace {

OpStep Op(const std::string& name, OpRole role, const std::string& from) {
  OpStep op;
  op.name = name;
  op.role = role;
  op.reached_from = from;
  return op;
}

TEST(ParentOf, ASameRoleOpReachedFromTheOpIsItsCalleeNotItsParent) {
  // where.self's formula names where.ScalarOther, whose code calls where.self:
  // the backward where.self is the callee of where.ScalarOther; the
  // parent of where.ScalarOther is the forward where.self.
  Trace t;
  t.ops = {Op("where.self", OpRole::kForward, ""), Op("where.ScalarOther", OpRole::kBackward, "where.self"),
           Op("where.self", OpRole::kBackward, "where.ScalarOther")};
  EXPECT_EQ(ParentOf(t, t.ops[1]), &t.ops[0]);
  EXPECT_EQ(ParentOf(t, t.ops[2]), &t.ops[1]);
  EXPECT_EQ(ParentOf(t, t.ops[0]), nullptr);
}

TEST(ParentOf, TheSameRoleIsPreferred) {
  Trace t;
  t.ops = {Op("mul.Tensor", OpRole::kForward, ""), Op("mul.Tensor", OpRole::kBackward, "x"),
           Op("mul.out", OpRole::kBackward, "mul.Tensor")};
  EXPECT_EQ(ParentOf(t, t.ops[2]), &t.ops[1]);
}

}  // namespace
}  // namespace optrace
