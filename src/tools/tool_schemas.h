// Output schemas of the MCP tools whose answers are documents of their own:
// `scan` (optrace.scan/1, doc/scan-schema.md), `verify` (optrace.verify/1)
// and `tests` (optrace.tests/1, doc/verify-schema.md). A client validates
// structuredContent against them (the TypeScript SDK does on every call), and
// an agent plans from them before it calls, so each names every field the
// writer always emits with its type -- not just `schema` (issue 27 found
// 45-80-byte stubs). Open objects (no additionalProperties: false): a
// document may gain fields within /1. Nullable fields are anyOf branches of
// one type each, as MCP Inspector's --strict check asks.
#pragma once

#include "mcp/mcp_server.h"

namespace optrace {

McpJson ScanOutputSchema();
McpJson VerifyOutputSchema();
McpJson TestsOutputSchema();
McpJson ProfileOutputSchema();  // optrace.profile/1 (profile/profile.h, ProfileJson)

// {"root", "version", "installed_torch"?, "warning"?}: the checkout an answer was read from.
McpJson SourceFactsSchema();

}  // namespace optrace
