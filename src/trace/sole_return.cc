// Reads the frame's returns from py/ (PyFunctionReturns, PyLineConditions)
// and decides their conditions with the frame's bindings, as the calls'
// own conditions are decided (trace_paths.cc).
#include "trace/sole_return.h"

#include <algorithm>

#include "py/py_guards.h"
#include "trace/guard_files.h"
#include "trace/path_rules.h"

namespace optrace {

namespace {

// Whether `line` is within one of `statements` (first and last line).
bool WithinOne(const std::vector<std::pair<int, int>>& statements, int line, std::pair<int, int>* which) {
  for (const auto& s : statements)
    if (line >= s.first && line <= s.second) {
      *which = s;
      return true;
    }
  return false;
}

// Whether the `return` statement starting at `line` of frame `f` is ruled
// out: one of its conditions decided against it.
bool RuledOut(FrameBindings& bindings, const PyFrame& f, const PyFileLines& lines, int line) {
  for (const PyCondition& p : PyLineConditions(lines, line)) {
    const Condition c = PythonCondition(p, f.where.file);
    const Tri v = bindings.Evaluate(f, c);
    if (v == (c.negated ? Tri::kTrue : Tri::kFalse)) return true;
  }
  return false;
}

}  // namespace

bool SoleReturn(const Index& ix, FrameBindings& bindings, const PyFrame& f, const PyCallStep& c) {
  if (!f.where.valid() || c.line <= 0) return false;
  if (std::any_of(c.when.begin(), c.when.end(), [](const Condition& w) { return w.kind == ConditionKind::kTernary; }))
    return false;
  auto text = ix.FileText(f.where.file);
  if (!text) return false;
  const PyFileLines& lines = PyLinesOf(ix, f.where.file);
  const PyReturns returns = PyFunctionReturns(lines, f.where.line);
  std::pair<int, int> own;
  if (!returns.complete || !WithinOne(returns.statements, c.line, &own)) return false;
  for (const auto& other : returns.statements)
    if (other != own && !RuledOut(bindings, f, lines, other.first)) return false;
  return true;
}

}  // namespace optrace
