// The MCP `verify` tool's trust (issue 29 item 1): it runs Python, so it is
// never annotated read-only, and arbitrary `code` is accepted only from a
// server started with --allow-code. Without the flag, a call carrying code
// runs nothing -- checked by the file the code would have written.
#include <unistd.h>

#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "testing/test_util.h"
#include "tools/mcp_tools.h"
#include "tools/verify_tool.h"

namespace optrace {
namespace {

const McpTool* Named(const std::vector<McpTool>& tools, const std::string& name) {
  for (const auto& t : tools)
    if (t.name == name) return &t;
  return nullptr;
}

TEST(VerifyTool, AnnotationsSayItRunsCode) {
  for (bool allow : {false, true}) {
    std::vector<McpTool> tools = VerifyTools(allow);
    const McpTool* verify = Named(tools, "verify");
    ASSERT_NE(verify, nullptr);
    EXPECT_FALSE(verify->hints.read_only) << allow;
    EXPECT_EQ(verify->hints.destructive, allow);
    EXPECT_EQ(verify->hints.open_world, allow);
    EXPECT_EQ(verify->input_schema["properties"].contains("code"), allow);
    // tests only reads the checkout.
    EXPECT_TRUE(Named(tools, "tests")->hints.read_only);
  }
}

TEST(VerifyTool, CodeIsRefusedWithoutAllowCode) {
  REQUIRE_CORPUS("2.6.0");
  std::string marker = testing::TempDir() + "/optrace-pwned-" + std::to_string(::getpid());
  std::filesystem::remove(marker);
  OptraceTools tools(CorpusTree("2.6.0"));  // as `optrace mcp` without --allow-code
  tools.StartLoading();
  McpJson args = {{"query", "F.softmax"}, {"code", "open('" + marker + "', 'w').write('x')"}};
  McpToolResult r = tools.Call("verify", args);
  EXPECT_TRUE(r.is_error);
  EXPECT_NE(r.text.find("--allow-code"), std::string::npos) << r.text;
  EXPECT_FALSE(std::filesystem::exists(marker));
  const McpTool* verify = Named(tools.Tools(), "verify");
  ASSERT_NE(verify, nullptr);
  EXPECT_FALSE(verify->hints.read_only);
}

}  // namespace
}  // namespace optrace
