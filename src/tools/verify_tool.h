// The MCP `verify` and `tests` tools: the same code as `optrace verify` and
// `optrace tests` (verify/verify.h, verify/test_finder.h), kept out of
// mcp_tools.cc so that file only registers them.
#pragma once

#include <vector>

#include "index/index.h"
#include "mcp/mcp_server.h"

namespace optrace {

// The tools' names, descriptions and schemas.
std::vector<McpTool> VerifyTools();
// Answers a call of one of VerifyTools(); false when `name` is not one of them.
bool CallVerifyTool(const Index& index, const std::string& name, const McpJson& arguments, McpToolResult* result);

}  // namespace optrace
