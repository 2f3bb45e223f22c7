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

#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/text.h"
#include "trace/caller_arguments.h"
#include "trace/code_routes.h"
#include "trace/entry_conditions.h"
#include "trace/formula_arguments.h"
#include "trace/launch_conditions.h"
#include "trace/nondeterminism.h"
#include "trace/op_edges.h"
#include "trace/parser_order.h"
#include "trace/path_rules.h"
#include "trace/path_selections.h"
#include "trace/path_values.h"
#include "trace/shared_annotations.h"
#include "trace/template_overloads.h"
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

  bool WayTo(const OpStep& op, const std::string& fn, CodeDevice device, std::vector<Condition>* out,
             std::vector<std::string>* route) override {
    return routes_.WayTo(op, fn, device, out, route);
  }
  bool BestCallSite(const OpStep& op, const Location& where, const std::string& fn,
                    std::vector<Condition>* out) override {
    return routes_.BestCallSite(op, where, fn, out);
  }
  bool StubCallConditions(const OpStep& op, const StubStep& s, std::vector<Condition>* out) override {
    return routes_.StubCallConditions(op, s, out);
  }
  std::vector<std::string> MacrosUsing(const std::string& macro, const std::string& file) override {
    return routes_.MacrosUsing(macro, file);
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

// Whether the two overloads take the parameters where they differ with
// defaults that are not both None: a call that omits them gets conv2d's
// padding=0 or conv2d.padding's "valid", and the parser picks which. Where
// both are None (clamp's min and max, Scalar or Tensor), a call passes one,
// and what it passes picks.
bool DefaultsDiffer(const OpStep& a, const OpStep& b) {
  const auto& x = a.yaml->schema.arguments;
  const auto& y = b.yaml->schema.arguments;
  for (size_t i = 0; i < x.size() && i < y.size(); ++i)
    if (x[i].type != y[i].type && x[i].default_value && y[i].default_value &&
        (*x[i].default_value != "None" || *y[i].default_value != "None"))
      return true;
  return false;
}

// A call whose arguments the trace cannot read, with default arguments,
// fits every overload that needs the same arguments; the Python argument
// parser takes the first it tries (trace/parser_order.h): F.conv2d(x, w)
// is conv2d, never conv2d.padding.
void RuleOutLaterOverloads(const Trace& t, PythonEntries& python, PathEdges* edges) {
  auto unread = [&](size_t i) {
    const OpStep& op = t.ops[i];
    return op.role == OpRole::kForward && op.reached_from.empty() && op.yaml && edges->entry_python[i] != Tri::kFalse &&
           python.LeavesOverloadOpen(op);
  };
  std::vector<size_t> later;
  for (size_t i = 0; i < t.ops.size(); ++i) {
    if (!unread(i)) continue;
    for (size_t j = 0; j < t.ops.size(); ++j) {
      const OpStep &op = t.ops[i], &other = t.ops[j];
      if (j == i || !unread(j) || OpBaseName(other.name) != OpBaseName(op.name)) continue;
      if (!SameRequiredArguments(op, other) || !DefaultsDiffer(op, other)) continue;
      if (ParserTriesFirst(other.yaml->schema, op.yaml->schema) == true) later.push_back(i);
    }
  }
  for (size_t i : later) edges->entry_python[i] = Tri::kFalse;
}

// Entry overloads a Python call may take where the trace cannot read what
// it passes (`torch.where` as a query: where.self, where.ScalarOther, the
// one-argument where): one of them runs, but which the arguments decide --
// where they need other arguments (SameRequiredArguments) and a call with
// default arguments can take each (NeedsKeyword). What every one of them
// reaches runs either way (typical_marks.cc, OnlySomeOverloadsReach).
void MarkOpenOverloads(const Trace& t, PythonEntries& python, PathEdges* edges) {
  auto candidate = [&](size_t i) {
    const OpStep& op = t.ops[i];
    return op.role == OpRole::kForward && op.reached_from.empty() && edges->entry_python[i] != Tri::kFalse;
  };
  for (size_t i = 0; i < t.ops.size(); ++i) {
    if (!candidate(i)) continue;
    const OpStep& op = t.ops[i];
    bool others = false;
    for (size_t j = 0; j < t.ops.size() && !others; ++j)
      others = j != i && candidate(j) && OpBaseName(t.ops[j].name) == OpBaseName(op.name) &&
               !SameRequiredArguments(op, t.ops[j]) && !NeedsKeyword(t.ops[j]);
    if (others && python.LeavesOverloadOpen(op)) edges->open_overloads.insert(op.name);
  }
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
  RuleOutLaterOverloads(t, python, edges);
  MarkOpenOverloads(t, python, edges);
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

// What a structured op passes the out= overload it delegates to (clamp_min
// -> clamp_min.out, whose TORCH_IMPL_FUNC runs for both): its own
// arguments, by name; the out argument is the delegate's alone.
PassedArguments DelegatedArguments(const OpStep& caller, const OpStep& delegate, const PathValues& values) {
  PassedArguments passed;
  if (!delegate.yaml) return passed;
  const auto& held = values.AssumptionsOf(caller).defaults;
  for (const auto& arg : delegate.yaml->schema.arguments) {
    // The functional op's out= tensor is one it allocates; the in-place
    // op's is its self.
    if (arg.is_out && !caller.yaml->schema.is_out()) {
      std::string fresh(kFreshTensor);
      for (const auto& input : delegate.yaml->schema.arguments)
        if (!input.is_out && input.type.starts_with("Tensor")) fresh += " " + input.name;
      passed[arg.name] = caller.yaml->schema.is_inplace() ? std::string("self") : fresh;
      continue;
    }
    const bool shared = std::any_of(caller.yaml->schema.arguments.begin(), caller.yaml->schema.arguments.end(),
                                    [&](const auto& a) { return a.name == arg.name; });
    if (!shared) continue;
    auto it = held.find(arg.name);
    passed[arg.name] = it == held.end() ? std::nullopt : std::optional<std::string>(it->second);
  }
  return passed;
}

// Whether the assumptions rule out every way to `op` read so far: an
// entry op its Python way never takes, or an op whose every caller's call
// (its edges, read before its callees') they decide false. One level: a
// caller ruled out further up is not looked for.
bool NeverRuns(const Trace& t, const OpStep& op, const PathEdges& edges, const PathValues& values) {
  const size_t i = static_cast<size_t>(&op - t.ops.data());
  if (op.reached_from.empty()) {
    auto python = edges.entry_python.find(i);
    if (op.role != OpRole::kForward || python == edges.entry_python.end() || python->second != Tri::kFalse)
      return false;
  } else {
    const OpStep* parent = ParentOf(t, op);
    if (!parent || values.Evaluate(*parent, op.when) != Tri::kFalse) return false;
  }
  auto others = edges.other_callers.find(i);
  if (others == edges.other_callers.end()) return true;
  return std::all_of(others->second.begin(), others->second.end(),
                     [&](const CallerEdge& e) { return values.Evaluate(*e.parent, e.when) == Tri::kFalse; });
}

// What all of op's callers pass it (trace/caller_arguments.h), bound
// before its own edges are read: its callees' conditions read its values.
// A caller whose call is not read (a direct call of the op's kernel
// function, _embedding_bag_forward_only_cuda's `_embedding_bag_cuda(...)`)
// leaves the arguments to the code: its defaults, but none that a read
// caller overrides (embedding_bag.padding_idx passes on a `mode` it
// has no default for).
void BindCallerArguments(const Index& ix, const OpStep& op, const OpStep& parent, const std::vector<CallerEdge>& others,
                         GuardReaders& readers, PathValues& values,
                         const std::function<bool(const OpStep&)>& never_runs) {
  if (values.HasEntryArguments(op) || others.size() != op.also_reached_from.size()) return;
  // Every caller with its call site; one the assumptions never run, or
  // whose call they decide is not made, calls nothing on this path (an
  // entry overload the Python way rules out; _embedding_bag_forward_only,
  // only `!needs_grad_path`, in a training step).
  std::vector<std::pair<const OpStep*, Location>> callers = {{&parent, op.called_at}};
  for (const CallerEdge& other : others) callers.push_back({other.parent, other.site});
  if (!others.empty()) {  // one caller: it is the one that runs
    std::vector<std::pair<const OpStep*, Location>> running;
    if (!never_runs(parent) && values.Evaluate(parent, op.when) != Tri::kFalse) running.push_back(callers[0]);
    for (size_t i = 0; i < others.size(); ++i)
      if (!never_runs(*others[i].parent) && values.Evaluate(*others[i].parent, others[i].when) != Tri::kFalse)
        running.push_back(callers[i + 1]);
    if (!running.empty()) callers = std::move(running);
  }
  std::vector<PassedArguments> sites;
  auto read = [&](const OpStep& caller, const Location& site) {
    if (caller.yaml && caller.yaml->structured_delegate == op.name) {
      sites.push_back(DelegatedArguments(caller, op, values));
      return true;
    }
    if (!site.valid()) return false;
    auto passed = CppCallerArguments(ix, caller, op, site, readers.Of(site.file), values.AssumptionsOf(caller));
    if (passed) sites.push_back(std::move(*passed));
    return passed.has_value();
  };
  bool every = true;
  for (const auto& [caller, site] : callers) every = read(*caller, site) && every;
  auto bound = every ? AgreedArguments(op, sites) : ContradictedDefaults(op, sites);
  if (bound) values.SetEntryArguments(op, std::move(*bound));
}

// The ops in an order that reads every op's callers before it (callers
// first; the ops of a call cycle in trace order): what an op passes on
// is known when its callees' arguments are bound.
std::vector<size_t> CallersFirst(const Trace& t) {
  const size_t n = t.ops.size();
  std::vector<std::vector<size_t>> callees(n);
  std::vector<size_t> waiting(n, 0);
  auto index_of = [&](const OpStep* op) { return static_cast<size_t>(op - t.ops.data()); };
  for (size_t i = 0; i < n; ++i) {
    const OpStep& op = t.ops[i];
    if (op.reached_from.empty()) continue;
    std::vector<const OpStep*> callers = {ParentOf(t, op)};
    for (const std::string& name : op.also_reached_from) callers.push_back(OpNamed(t, name, op.role));
    for (const OpStep* caller : callers)
      if (caller && caller != &op) {
        callees[index_of(caller)].push_back(i);
        ++waiting[i];
      }
  }
  std::vector<size_t> order;
  std::vector<bool> placed(n, false);
  auto place = [&](size_t i, auto& self) -> void {
    placed[i] = true;
    order.push_back(i);
    for (size_t c : callees[i])
      if (--waiting[c] == 0 && !placed[c]) self(c, self);
  };
  for (size_t i = 0; i < n; ++i)
    if (waiting[i] == 0 && !placed[i]) place(i, place);
  for (size_t i = 0; i < n; ++i)  // what a cycle left waiting
    if (!placed[i]) place(i, place);
  return order;
}

// Each C++ edge's conditions (op.when, op.called_at) and those of the
// op's other callers, for the forward ops (`forward`) or the others.
void ReadEdges(const Index& ix, Trace& t, bool forward, EdgeReader& reader, GuardReaders& readers, PathValues& values,
               PathEdges* edges) {
  SharedEdges shared(ix);
  for (size_t i : CallersFirst(t)) {
    OpStep& op = t.ops[i];
    if ((op.role == OpRole::kForward) != forward) continue;
    // An entry op has no edge of its own, but the code of an op the trace
    // reaches may call it too (MarkTypical).
    const OpStep* parent = op.reached_from.empty() ? nullptr : ParentOf(t, op);
    if (!op.reached_from.empty()) {
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
    if (!parent) continue;  // an entry: what Python passes it is bound (ReadEntries)
    auto others = edges->other_callers.find(i);
    BindCallerArguments(ix, op, *parent,
                        others == edges->other_callers.end() ? std::vector<CallerEdge>{} : others->second, readers,
                        values, [&](const OpStep& caller) { return NeverRuns(t, caller, *edges, values); });
  }
}

// Each op's launches, replayed where another trace read them from the
// same code (trace/shared_annotations.h).
void ReadLaunches(const Index& ix, Trace& t, const PathValues& values, CodeWays& ways) {
  SharedLaunches shared(ix);
  for (OpStep& op : t.ops) {
    const std::string known = values.KnowledgeOf(op);
    if (shared.Replay(op, known)) continue;
    AnnotateLaunches(ways, op);
    shared.Keep(op, known);
  }
}

}  // namespace

void AnnotatePaths(const Index& index, const TraceOptions& options, Trace* trace) {
  Trace& t = *trace;
  const Assumptions a = TraceAssumptions(index, options);
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
  // What a backward formula passes reads the forward op's values, which
  // its C++ callers' arguments give (ReadEdges binds them).
  ReadEdges(index, t, /*forward=*/true, edge_reader, readers, values, &edges);
  ReadFormulaArguments(t, values);
  ReadEdges(index, t, /*forward=*/false, edge_reader, readers, values, &edges);
  selections.DecideAlongEdges(t, edges.other_callers);
  MarkTypical(t, values, &edges);
  MarkOpenConditions(t, values);
  MarkRaisingOps(t, index, a.device, values, edges);
  MarkTemplateOverloads(t, index, a);
  ReadNondeterminism(index, a, readers, &t);
  for (SelectionStep& s : selections.Find(t)) t.selections.push_back(std::move(s));
  ReadLaunches(index, t, values, ways);
  FoldStructuredDelegates(t);
}

}  // namespace optrace
