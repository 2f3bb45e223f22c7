// The text channel of the MCP `trace` tool, rendered from the structuredContent
// of the same call (issue 27: hosts that show the model the text and hosts
// that show it the structured part must give it the same facts -- for SDPA
// the text once had five backend alternatives the JSON had cut, and the JSON
// a backward the text had not). So the text is made from the optrace.trace/1
// object being answered (brief, a page, or selected parts), never from the
// Trace: nothing more and nothing less. Every op is written `op` `name`,
// every kernel `kernel` `name`, every library `library` `name`, so a test
// (and a reader) can find each one.
#pragma once

#include <string>

#include "mcp/mcp_server.h"

namespace optrace {

// Markdown of an optrace.trace/1 object (or a brief or a page of one).
// `links`: `url` fields are shown as links where present.
std::string TraceJsonMarkdown(const McpJson& trace);

}  // namespace optrace
