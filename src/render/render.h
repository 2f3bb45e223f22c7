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
  // brief: header, main path, alternatives, a few notes (the CLI's default);
  // full: those plus the flow tree, the layer walk, the summary table.
  enum class Detail { kBrief, kFull } detail = Detail::kFull;
};

// One derivatives.yaml entry as optrace.trace/1 writes it (backward[].derivatives):
// {file, line, name: the schema as written, formulas: {inputs: formula}},
// output_differentiability and dispatch {section: formulas} when present. The
// MCP `op` tool answers with the same object.
nlohmann::ordered_json DerivativesJson(const DerivativeEntry& d);
// The optrace.trace/1 object as text, written directly without building a
// value (render_json.cc, the one encoder of the contract): the CLI's
// `trace --json`.
std::string RenderJson(const Trace& trace, int indent = -1);
// The same object as a value, RenderJson's text parsed back (ordered_json
// keeps the field order and the YAML order of dispatch tables), for callers
// that need one (the MCP server's structuredContent, `optrace scan`).
nlohmann::ordered_json TraceToJson(const Trace& trace);
std::string RenderText(const Trace& trace, const RenderOptions& options);
// brief: the main path and alternatives only (never cut).
std::string RenderMarkdown(const Trace& trace, bool brief = false);
std::string RenderDot(const Trace& trace);

}  // namespace optrace
