// Conditions come from where the tracer found each call: an op's `calls[]`
// entry names the C++ function making the call and its line, so the guard of
// that line is read in that function; the function itself is reached from
// the op's implementation through helpers and dispatch stubs. The pass runs
// in phases, each a part with one job, data flowing through their calls:
//
//   trace/entry_conditions.h  Python calls' guards; each entry op's way from
//                             the Python side and what its call passes
//   trace/op_edges.h          each C++ edge's conditions (and its other
//                             callers'), through trace/code_routes.h
//   trace/path_selections.h   selections and predicates decided, then the
//                             selections on the path found
//   trace/typical_marks.h     typical/undecided marks, open conditions,
//                             structured delegates folded
//   trace/launch_conditions.h each launch's conditions, through CodeWays
//
// trace/path_values.h evaluates conditions under each op's assumptions
// with what the phases decided on the way. Launches and edges read from
// code alone are shared per index (trace/shared_annotations.h).
#include "trace/trace_paths.h"

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/text.h"
#include "trace/code_routes.h"
#include "trace/entry_conditions.h"
#include "trace/formula_arguments.h"
#include "trace/launch_conditions.h"
#include "trace/op_edges.h"
#include "trace/path_rules.h"
#include "trace/path_selections.h"
#include "trace/path_values.h"
#include "trace/shared_annotations.h"
#include "trace/typical_marks.h"

namespace optrace {

bool ValidateAssume(const std::vector<std::string>& items, std::string* error) {
  Assumptions a;
  return a.Apply(items, error);
}

namespace {

// What the launch reading (trace/launch_conditions.h) asks, answered by the parts.
class PartsWays final : public CodeWays {
 public:
  PartsWays(GuardReaders& readers, CodeRoutes& routes, PathValues& values, Selections& selections)
      : readers_(readers), routes_(routes), values_(values), selections_(selections) {}

  bool WayTo(const OpStep& op, const std::string& fn, CodeDevice device, std::vector<Condition>* out) override {
    return routes_.WayTo(op, fn, device, out);
  }
  bool BestCallSite(const OpStep& op, const Location& where, const std::string& fn,
                    std::vector<Condition>* out) override {
    return routes_.BestCallSite(op, where, fn, out);
  }
  Location Definition(const OpStep& op, const std::string& name) const override {
    return optrace::Definition(op, name);
  }
  const CppGuardReader& Reader(const std::string& file) override { return readers_.Of(file); }
  Tri Evaluate(const OpStep& op, const std::vector<Condition>& when, bool schema_defaults) const override {
    return values_.Evaluate(op, when, schema_defaults);
  }
  void DecideSelectionsOf(const OpStep& op, const std::vector<Condition>& when) override {
    selections_.DecideSelectionsOf(op, when);
  }

 private:
  GuardReaders& readers_;
  CodeRoutes& routes_;
  PathValues& values_;
  Selections& selections_;
};

Assumptions TraceAssumptions(const TraceOptions& opt) {
  Assumptions a;
  a.device = opt.device == TraceOptions::Device::kCpu ? CodeDevice::kCpu : CodeDevice::kCuda;
  std::string ignored;
  a.Apply(opt.assume, &ignored);
  return a;
}

// Each entry op's way from the Python side (op.when). An entry the
// Python argument parser never picks for the call is not taken: where the
// query fixes the overload the arg parser picks for tensor operands (`x /
// y` is div.Tensor, never div.Tensor_mode's rounding_mode nor
// div.Scalar_mode's number), its other overloads take what a typical call
// does not pass.
void ReadEntries(Trace& t, PythonEntries& python, PathValues& values, PathEdges* edges) {
  python.PythonConditions();
  for (size_t i = 0; i < t.ops.size(); ++i) {
    OpStep& op = t.ops[i];
    if (!op.reached_from.empty() || op.role != OpRole::kForward) continue;
    op.when = python.EntryConditions(op, &edges->entry_python[i], &edges->optional_step[i]);
    const std::string& picked = t.selected_overload;
    const bool other_form = !picked.empty() && op.name != picked && OpBaseName(op.name) == OpBaseName(picked);
    auto fits = [&] {
      EntryCalls calls = python.EntryArguments(op);
      if (calls.agreed) values.SetEntryArguments(op, std::move(*calls.agreed));
      return calls.fits;
    };
    if (other_form || !fits() || NeedsNames(op)) edges->entry_python[i] = Tri::kFalse;
    if (python.FeedsOnlyLaterOutputs(op)) edges->later_outputs_only.insert(op.name);
  }
}

// What the formula of a forward op's backward passes it
// (trace/formula_arguments.h), where every call agrees.
void ReadFormulaArguments(const Trace& t, PathValues& values) {
  for (const OpStep& op : t.ops)
    if (op.role == OpRole::kBackward && !op.reached_from.empty())
      if (const OpStep* forward = ParentOf(t, op); forward && forward->role == OpRole::kForward) {
        std::optional<PassedArguments> agreed;
        for (auto& site : FormulaCallBindings(t.backward, *forward, op, values.AssumptionsOf(*forward).defaults))
          KeepAgreed(&agreed, std::move(site));
        if (!agreed || agreed->empty()) continue;
        values.SetEntryArguments(op, std::move(*agreed));
      }
}

// Each C++ edge's conditions (op.when, op.called_at) and those of the
// op's other callers.
void ReadEdges(const Index& ix, Trace& t, EdgeReader& reader, PathEdges* edges) {
  SharedEdges shared(ix);
  for (size_t i = 0; i < t.ops.size(); ++i) {
    OpStep& op = t.ops[i];
    // An entry op has no edge of its own, but the code of an op the trace
    // reaches may call it too (MarkTypical).
    if (!op.reached_from.empty()) {
      const OpStep* parent = ParentOf(t, op);
      if (!parent || parent->role != op.role) continue;
      bool found = false;
      op.when = reader.Read(shared, *parent, op, &found, &op.called_at);
      if (found) edges->edge_found.insert(i);
    }
    for (const std::string& name : op.also_reached_from) {
      const OpStep* other = OpNamed(t, name, op.role);
      if (!other) continue;
      CallerEdge edge{other, {}, false, {}};
      edge.when = reader.Read(shared, *other, op, &edge.found, &edge.site);
      edges->other_callers[i].push_back(std::move(edge));
    }
  }
}

// Each op's launches, replayed where another trace read them from the
// same code (trace/shared_annotations.h).
void ReadLaunches(const Index& ix, Trace& t, const PathValues& values, CodeWays& ways) {
  SharedLaunches shared(ix);
  for (OpStep& op : t.ops) {
    const bool own = values.KnowsMoreThanCode(op);
    if (!own && shared.Replay(op)) continue;
    AnnotateLaunches(ways, op);
    if (!own) shared.Keep(op);
  }
}

}  // namespace

void AnnotatePaths(const Index& index, const TraceOptions& options, Trace* trace) {
  Trace& t = *trace;
  const Assumptions a = TraceAssumptions(options);
  t.assumptions = a.Describe();
  PathValues values(index, a);
  GuardReaders readers(index);
  CodeRoutes routes(index, readers, values);
  EdgeReader edge_reader(index, readers, routes, values);
  Selections selections(index, readers, values);
  PythonEntries python(index, t, a);
  PartsWays ways(readers, routes, values, selections);

  PathEdges edges;
  ReadEntries(t, python, values, &edges);
  ReadFormulaArguments(t, values);
  ReadEdges(index, t, edge_reader, &edges);
  selections.DecideAlongEdges(t, edges.other_callers);
  MarkTypical(t, values, &edges);
  MarkOpenConditions(t, values);
  for (SelectionStep& s : selections.Find(t)) t.selections.push_back(std::move(s));
  ReadLaunches(index, t, values, ways);
  FoldStructuredDelegates(t);
}

}  // namespace optrace
