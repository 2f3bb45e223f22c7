// The MCP `verify` and `tests` tools: the same code as `optrace verify` and
// `optrace tests` (verify/verify.h, verify/test_finder.h), kept out of
// mcp_tools.cc so that file only registers them.
#pragma once

#include <vector>

#include "index/index.h"
#include "mcp/mcp_server.h"

namespace optrace {

// The tools' names, descriptions, schemas and hints. `verify` runs Python
// (the installed torch and its test suite), so it is never read-only; its
// `code` argument exists only with allow_code (`optrace mcp --allow-code`),
// and then the tool is also destructive and open-world: the code can do
// anything the user can (doc/trust.md).
std::vector<McpTool> VerifyTools(bool allow_code);
// Answers a call of one of VerifyTools(); false when `name` is not one of them.
bool CallVerifyTool(const Index& index, const std::string& name, const McpJson& arguments, bool allow_code,
                    McpToolResult* result);

}  // namespace optrace
