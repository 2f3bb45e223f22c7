// JSON text out of nlohmann values, one way for every stage: names come from
// arbitrary checkout files and user queries, so serialising never throws on
// invalid UTF-8 (it is replaced by U+FFFD).
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace optrace {

// indent < 0: one line.
std::string DumpJson(const nlohmann::ordered_json& j, int indent = -1);

// DumpJson(j).size(), counted by the same serialiser without building the
// text: the MCP pages weigh every piece they deal out (tools/trace_pages.cc),
// and growing and copying the strings was a third of that.
size_t DumpedJsonSize(const nlohmann::ordered_json& j);

// The deepest nesting any JSON optrace reads may have (the MCP server's
// messages, a verify --observed document): nlohmann's parser and the code
// walking its values recurse once per level, so 200,000 '[' would overflow
// the stack. Checked on the text, before any parse.
inline constexpr size_t kMaxJsonDepth = 256;

// The deepest '['/'{' nesting of `text`, brackets inside strings not
// counted; one pass, no recursion. Stops counting past `stop_at`.
size_t JsonNestingDepth(std::string_view text, size_t stop_at = kMaxJsonDepth + 1);

}  // namespace optrace
