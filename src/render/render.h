// Renderers: Trace -> text (ASCII flow diagram, layer-by-layer walk, summary
// table, notes), markdown, JSON (optrace.trace/1, see doc/trace-schema.md) and
// Graphviz DOT. No lookups: everything shown is in the Trace.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "base/json.h"
#include "trace/trace.h"

namespace optrace {

struct RenderOptions {
  bool color = false;  // ANSI colour (only on a TTY and never with NO_COLOR; the CLI decides)
  int width = 100;     // terminal columns
};

// The optrace.trace/1 object. ordered_json keeps the contract's field order
// and the YAML order of dispatch tables. For callers that need a value (the
// MCP server's structuredContent, `optrace scan`).
nlohmann::ordered_json TraceToJson(const Trace& trace);
// One derivatives.yaml entry as optrace.trace/1 writes it (backward[].derivatives):
// {file, line, name: the schema as written, formulas: {inputs: formula}},
// output_differentiability and dispatch {section: formulas} when present. The
// MCP `op` tool answers with the same object.
nlohmann::ordered_json DerivativesJson(const DerivativeEntry& d);
// The same object as text, exactly DumpJson(TraceToJson(trace), indent),
// written directly without building the value (render_json.cc): the CLI's
// `trace --json`.
std::string RenderJson(const Trace& trace, int indent = -1);
std::string RenderText(const Trace& trace, const RenderOptions& options);
std::string RenderMarkdown(const Trace& trace);
std::string RenderDot(const Trace& trace);

}  // namespace optrace
