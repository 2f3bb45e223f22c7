// The pass that turns the tracer's graph into paths: every edge gets the
// conditions under which it is taken (ops[].when, python[].calls[].when),
// the ops a typical tensor reaches are marked (ops[].typical), and the
// functions whose result decides between alternatives are named with each
// alternative (Trace::selections). It runs after the ops are expanded and
// reads only the Trace, the index (for function definitions) and the
// checkout's files (for the conditions themselves).
#pragma once

#include "index/index.h"
#include "trace/trace.h"

namespace optrace {

// Fills when/typical/undecided, python call conditions, selections and
// assumptions. Unknown --assume items are rejected earlier (ValidateAssume).
void AnnotatePaths(const Index& index, const TraceOptions& options, Trace* trace);

// Checks `--assume` items; a usage message in *error when one is unknown.
bool ValidateAssume(const std::vector<std::string>& items, std::string* error);

}  // namespace optrace
