// The MCP `profile` tool: the same code as `optrace profile FILE`
// (profile/profile.h), kept out of mcp_tools.cc so that file only registers it.
#pragma once

#include <string>
#include <vector>

#include "index/index.h"
#include "mcp/mcp_server.h"

namespace optrace {

std::vector<McpTool> ProfileTools();
// Answers a call of one of ProfileTools(); false when `name` is not one of them.
bool CallProfileTool(const Index& index, const std::string& name, const McpJson& arguments, McpToolResult* result);

}  // namespace optrace
