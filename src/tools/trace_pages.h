// The `full` trace as an agent can take it: pages counted in bytes, and the
// parts a call names. A whole trace of a module is a megabyte of JSON (nn.LSTM
// 900 KB, nn.MultiheadAttention 1.3 MB) and one op of it can be 77 KB
// (_efficient_attention_backward), while agents' hosts cap one tool result
// near 25k tokens (issue 27). So a page is cut by size, not by a count of
// ops, and an object too big for one page is itself cut: its scalar fields
// (name, role, yaml...) travel with every piece, its arrays are dealt out
// over the pieces, and each piece says which part it is. Every page is still
// an optrace.trace/1 object (the header fields, and every required array,
// empty where this page holds none of it), so the tool's outputSchema holds
// for each.
#pragma once

#include <string>
#include <vector>

#include "mcp/mcp_server.h"

namespace optrace {

// What issue 27 allows one `full` page of structuredContent.
inline constexpr size_t kFullPageMaxBytes = 20 * 1024;

// The top-level sections of optrace.trace/1 a call may ask for by name.
const std::vector<std::string>& TraceSectionNames();

// Keeps, of a whole optrace.trace/1 object, the sections named (empty: all)
// and, in the sections that list ops (ops, backward, decompositions,
// selections, summary paths), the items of the ops named (empty: all). An op
// name matches itself or, without an overload, every overload of that base
// name ("native_layer_norm_backward", "add" for "add.Tensor"). False with
// *error naming what is wrong (an unknown section, an op the trace does not
// reach -- with the ops it does reach, so the model can retry).
bool SelectTraceParts(McpJson* trace, const std::vector<std::string>& ops, const std::vector<std::string>& sections,
                      std::string* error);

// Cuts `value` into objects of at most `max_bytes` of compact JSON each:
// scalar and small fields in every piece, arrays and big nested objects dealt
// out in order; pieces of one object carry "part": {"index", "of"}. One
// piece (the value itself) when it fits. Only a single string or array
// element larger than the whole budget can leave a piece over it.
std::vector<McpJson> SplitJsonObject(const McpJson& value, size_t max_bytes);

// The pages of a whole (or selected) trace, each at most max_bytes: the
// header fields in each; "page": {"index", "of"} and "next_cursor" (the next
// page's index) when there is more than one.
std::vector<McpJson> TracePages(const McpJson& trace, size_t max_bytes = kFullPageMaxBytes);

}  // namespace optrace
