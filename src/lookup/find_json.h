// The `find` answer as JSON, built once for both front ends: `optrace find
// --json` and the MCP `find` tool print this same object (the CLI adds
// `found`, `checkout` and `source`; MCP adds its source facts). Every item
// carries file and line; each list holds at most `limit` items (0 = all)
// and `totals` counts them all, so an agent sees how much was left out.
//
// Lists: definitions (C++ functions, macros, Python names, each with its
// kind), stubs (a dispatch stub's declaration and registrations),
// registrations (what registers the name: a stub target, TORCH_LIBRARY),
// dispatch (native_functions.yaml entries naming it), ops, launches (of the
// name, in its body, or in the macro: `relation`), macro_uses, callers.
// The shape is documented in doc/cli.md and pinned by the MCP tool's
// output schema (tools/mcp_tools.cc).
#pragma once

#include <cstddef>

#include <nlohmann/json.hpp>

#include "index/index.h"
#include "lookup/find.h"

namespace optrace {

nlohmann::ordered_json FindJson(const Index& index, const FindAnswer& found, size_t limit);

}  // namespace optrace
