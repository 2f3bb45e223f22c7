// The MCP `profile` tool answers as `optrace profile --format md` / --json do.
#include "tools/profile_tool.h"

#include <gtest/gtest.h>

#include "testing/test_tree_index.h"
#include "testing/test_util.h"

namespace optrace {
namespace {

std::string Data(const std::string& name) {
  std::string here = __FILE__;
  return here.substr(0, here.rfind("/src/")) + "/tests/data/profiles/" + name;
}

TEST(ProfileTool, AnswersWithMarkdownAndTheSchema) {
  REQUIRE_CORPUS("2.6.0");
  ASSERT_EQ(ProfileTools().size(), 1u);
  EXPECT_EQ(ProfileTools()[0].name, "profile");
  McpToolResult r;
  ASSERT_TRUE(
      CallProfileTool(TreeIndex("2.6.0"), "profile", {{"path", Data("cuda-transformer.json.gz")}, {"top", 5}}, &r));
  EXPECT_FALSE(r.is_error) << r.text;
  EXPECT_EQ(r.structured["schema"], "optrace.profile/1");
  EXPECT_EQ(r.structured["rows"].size(), 5u);
  EXPECT_NE(r.text.find("| # | share |"), std::string::npos);
  McpToolResult missing;
  ASSERT_TRUE(CallProfileTool(TreeIndex("2.6.0"), "profile", {{"path", Data("none.json")}}, &missing));
  EXPECT_TRUE(missing.is_error);
  McpToolResult other;
  EXPECT_FALSE(CallProfileTool(TreeIndex("2.6.0"), "trace", {}, &other));
}

}  // namespace
}  // namespace optrace
