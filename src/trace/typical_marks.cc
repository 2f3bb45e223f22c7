// An undecided Python condition keeps both sides on the path (it picks
// among argument forms: the entry ops all stay candidates), but for an
// optional step the code goes on without; an undecided C++ condition picks
// among backends and leaves its branch off the path. Both are marked
// undecided. Marks spread down the graph over kTypicalPathPasses passes
// (trace/walk_bounds.h), until none changes. Where a Python call may take
// one of several entry overloads (PathEdges::open_overloads), the marking
// runs twice: what the first put on the path shows what each overload
// reaches, and the second leaves open what only some of them do. An entry
// op the Python way rules out runs where an op on the path calls it in a
// way taken, and is then reached from that op.
#include "trace/typical_marks.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>

#include "base/text.h"
#include "cpp/written_call.h"
#include "trace/guard_files.h"
#include "trace/impl_parameters.h"
#include "trace/path_rules.h"
#include "trace/trace_internal.h"
#include "trace/walk_bounds.h"

namespace optrace {
namespace {

// Whether forward op `f` is one of several overloads that may run
// (PathEdges::open_overloads): an entry overload a Python call may take, or
// an op every such entry reaches by name through different overloads.
// What it alone runs, and its own backward, are open.
bool OneOfOverloads(const PathEdges& edges, const OpStep& f) {
  return f.role == OpRole::kForward && edges.open_overloads.count(f.name) > 0;
}

// Whether `v` holds `name`.
bool Holds(const std::vector<std::string>& v, const std::string& name) {
  return std::find(v.begin(), v.end(), name) != v.end();
}

// Whether the formula of every open overload of `f`'s name -- entries if
// `f` is one, else the ops every entry reaches by that name -- names
// backward op `base` where a first-order backward takes it
// (masked_fill.Scalar's and masked_fill.Tensor's `grad.masked_fill(mask,
// 0)`): it runs whichever overload the call takes.
bool EveryOverloadNames(const Trace& t, const PathEdges& edges, const OpStep& f, const std::string& base) {
  bool any = false;
  for (const std::string& overload : edges.open_overloads) {
    const OpStep* o = OpNamed(t, overload, OpRole::kForward);
    if (!o || OpBaseName(overload) != OpBaseName(f.name) || o->reached_from.empty() != f.reached_from.empty()) continue;
    bool named = false;
    for (const auto& b : t.backward)
      named = named || (b.op == overload && !b.below_autograd && Holds(b.ops, base) && !Holds(b.untaken, base) &&
                        !Holds(b.open, base));
    if (!named) return false;
    any = true;
  }
  return any;
}

// Whether a backward op is named where a first-order backward takes the
// formula (kTrue), where an open condition decides (kUnknown), or only
// in branches it never takes (kFalse), in the entries of the forward ops
// on the path (or open). The backward of a forward op an open condition
// reaches is open too: it runs only where that op does.
Tri InTakenFormula(const Trace& t, const PathEdges& edges, const OpStep& op) {
  std::string base(OpBaseName(op.name));
  auto has = [&](const std::vector<std::string>& v) { return std::find(v.begin(), v.end(), base) != v.end(); };
  Tri best = Tri::kFalse;
  for (const auto& b : t.backward) {
    if (!has(b.ops) || has(b.untaken)) continue;
    if (edges.later_outputs_only.count(b.op) || b.below_autograd) continue;
    Tri forward = Tri::kFalse;
    for (const auto& f : t.ops) {
      if (f.role != OpRole::kForward || f.name != b.op) continue;
      if (f.typical && (!OneOfOverloads(edges, f) || EveryOverloadNames(t, edges, f, base))) forward = Tri::kTrue;
      else if ((f.undecided || f.typical) && forward == Tri::kFalse) forward = Tri::kUnknown;
    }
    if (forward == Tri::kFalse) continue;
    if (forward == Tri::kTrue && !has(b.open)) return Tri::kTrue;
    best = Tri::kUnknown;
  }
  return best;
}

// The value of the edge parent -> op under the assumptions: nothing when
// the parent is off the path, open below an open parent -- an entry op an
// undecided Python condition keeps on the path included (`if M == 1:
// return torch.ones(...)`: what ones calls runs only when M is 1).
Tri EdgeValue(const PathValues& values, const OpStep* p, const OpStep& op, const std::vector<Condition>& when,
              bool found) {
  if (!p || (!p->typical && !p->undecided)) return Tri::kFalse;
  if (p->role != op.role) return p->undecided ? Tri::kUnknown : Tri::kTrue;  // the backward of an open op
  Tri v = found ? values.Evaluate(*p, when) : Tri::kUnknown;
  return (!p->typical || p->undecided) && v == Tri::kTrue ? Tri::kUnknown : v;
}

// An op called by several ops is on the path when any of the calls is:
// the caller whose call the assumptions decide best (runs, else open)
// becomes reached_from, and the edge's conditions its call's.
Tri TakeBestCaller(const PathValues& values, std::set<size_t>* edge_found, size_t i, OpStep& op, const OpStep* parent,
                   Tri v, std::vector<CallerEdge>& others) {
  for (CallerEdge& other : others) {
    Tri w = EdgeValue(values, other.parent, op, other.when, other.found);
    if (Rank(w) <= Rank(v)) continue;
    CallerEdge was{parent, std::move(op.when), edge_found->count(i) > 0, op.called_at};
    std::replace(op.also_reached_from.begin(), op.also_reached_from.end(), other.parent->name, op.reached_from);
    op.reached_from = other.parent->name;
    op.when = std::move(other.when);
    op.called_at = other.site;
    if (other.found) edge_found->insert(i);
    else edge_found->erase(i);
    parent = other.parent;
    other = std::move(was);
    v = w;
  }
  return v;
}

// Whether two edges' conditions are the same conditions, written at the
// same places (the one call two callers' edges both take, read without its site).
bool SameConditions(const std::vector<Condition>& a, const std::vector<Condition>& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](const Condition& x, const Condition& y) {
    return x.text == y.text && x.negated == y.negated && x.where.file == y.where.file && x.where.line == y.where.line;
  });
}

// The forward ops on the path (by index) each forward op calls: an op's
// caller through the edge that put it on the path, and its other callers
// whose edge the assumptions do not rule out (a call under `if
// (self.is_sparse())` reaches nothing). An entry's callers are other
// entries, calling it as their code does (where.ScalarOther's
// `at::where(...)`). With `surely`, another caller's edge only where the
// assumptions take it, or where it is the very call (file and line) the
// edge that put the op on the path takes, open only because less is
// known of that caller (quantile.scalar reaches quantile's helper code,
// its sort, as quantile does): where.self's `self.to(result_type)` under
// `self.scalar_type() != result_type` (TensorCompare.cpp:513) may reach
// to, not surely as where.ScalarOther's call (:564) does.
std::vector<std::vector<size_t>> CalleesOnPath(const Trace& t, const PathValues& values, const PathEdges& edges,
                                               bool surely) {
  std::vector<std::vector<size_t>> callees(t.ops.size());
  auto add = [&](const OpStep* caller, size_t i) {
    if (caller && caller->role == OpRole::kForward) callees[caller - t.ops.data()].push_back(i);
  };
  for (size_t i = 0; i < t.ops.size(); ++i) {
    const OpStep& op = t.ops[i];
    if (op.role != OpRole::kForward || !op.typical || op.undecided) continue;
    if (op.reached_from.empty()) {
      for (const std::string& name : op.also_reached_from) add(OpNamed(t, name, OpRole::kForward), i);
      continue;
    }
    add(ParentOf(t, op), i);
    if (auto others = edges.other_callers.find(i); others != edges.other_callers.end())
      for (const CallerEdge& other : others->second) {
        const Tri v = EdgeValue(values, other.parent, op, other.when, other.found);
        const bool same_call = other.site.valid()
                                   ? other.site.file == op.called_at.file && other.site.line == op.called_at.line
                                   : SameConditions(other.when, op.when);
        if (surely ? v == Tri::kTrue || (v == Tri::kUnknown && same_call) : v != Tri::kFalse) add(other.parent, i);
      }
  }
  return callees;
}

// An entry op the Python way does not take that the code of an op on the
// path calls where the assumptions take the call: F.l1_loss calls
// torch.abs only `if weight is not None`, but the aten::l1_loss it calls
// otherwise runs `(input - target).abs()`. The op is then reached from
// that caller, with its call's conditions; an open call leaves it an entry.
bool TakeCallOnThePath(const PathValues& values, PathEdges* edges, size_t i, OpStep& op) {
  auto others = edges->other_callers.find(i);
  if (others == edges->other_callers.end()) return false;
  for (auto e = others->second.begin(); e != others->second.end(); ++e) {
    if (EdgeValue(values, e->parent, op, e->when, e->found) != Tri::kTrue) continue;
    op.reached_from = e->parent->name;
    std::erase(op.also_reached_from, op.reached_from);
    op.when = std::move(e->when);
    op.called_at = e->site;
    if (e->found) edges->edge_found.insert(i);
    others->second.erase(e);
    return true;
  }
  return false;
}

// The ops `from` reaches through `callees`, itself included.
std::vector<bool> Reached(const std::vector<std::vector<size_t>>& callees, size_t from) {
  std::vector<bool> seen(callees.size());
  std::vector<size_t> todo{from};
  seen[from] = true;
  while (!todo.empty()) {
    size_t at = todo.back();
    todo.pop_back();
    for (size_t c : callees[at]) {
      if (seen[c]) continue;
      seen[c] = true;
      todo.push_back(c);
    }
  }
  return seen;
}

// What every open overload of one name reaches: the entries themselves,
// and the other ops by name, as the Main path names them (masked_fill.Scalar
// and masked_fill.Tensor reach masked_fill_.Scalar and masked_fill_.Tensor:
// masked_fill_ runs either way).
struct EveryOverloadReaches {
  std::optional<std::vector<bool>> entries;
  std::optional<std::set<std::string>> names;
  void Meet(const Trace& t, const std::vector<bool>& reached) {
    std::set<std::string> reached_names;
    for (size_t j = 0; j < reached.size(); ++j)
      if (reached[j]) reached_names.insert(std::string(OpBaseName(t.ops[j].name)));
    if (!entries) {
      entries = reached;
      names = std::move(reached_names);
      return;
    }
    for (size_t j = 0; j < reached.size(); ++j) (*entries)[j] = (*entries)[j] && reached[j];
    std::set<std::string> both;
    for (const std::string& name : *names)
      if (reached_names.count(name)) both.insert(name);
    names = std::move(both);
  }
  // Whether every overload reaches op `j` itself.
  bool Reaches(size_t j) const { return entries && (*entries)[j]; }
  // Whether every overload reaches an op named as op `j` (never enough for an entry).
  bool ReachesName(const Trace& t, size_t j) const {
    return entries && !t.ops[j].reached_from.empty() && names->count(std::string(OpBaseName(t.ops[j].name))) > 0;
  }
};

// Forward ops (by index) that only some of the entry overloads one Python
// call may take reach (PathEdges::open_overloads), through the ops' callers:
// they run for some calls of the query, which the arguments decide. Read
// over the ops the first marking put on the path: a call no typical
// caller makes reaches nothing. An op every overload of such a group
// surely reaches (quantile and quantile.scalar share their helpers' sort;
// linalg_pinv reaches linalg_pinv.atol_rtol_tensor through its float
// form), or an entry not among them, runs either way: such an entry
// leaves edges->open_overloads.
std::vector<bool> OnlySomeOverloadsReach(const Trace& t, const PathValues& values, PathEdges* edges) {
  const size_t n = t.ops.size();
  const std::vector<std::vector<size_t>> callees = CalleesOnPath(t, values, *edges, false);
  const std::vector<std::vector<size_t>> surely = CalleesOnPath(t, values, *edges, true);
  std::vector<bool> some(n), certain(n);
  std::map<std::string, EveryOverloadReaches> groups;  // by the overloads' name
  for (size_t i = 0; i < n; ++i) {
    const OpStep& op = t.ops[i];
    if (op.role != OpRole::kForward || !op.reached_from.empty() || !op.typical) continue;
    const std::vector<bool> reached = Reached(callees, i);
    std::vector<bool>& into = OneOfOverloads(*edges, op) ? some : certain;
    for (size_t j = 0; j < n; ++j) into[j] = into[j] || reached[j];
    if (OneOfOverloads(*edges, op)) groups[std::string(OpBaseName(op.name))].Meet(t, Reached(surely, i));
  }
  for (size_t j = 0; j < n; ++j) {
    bool by_name = false;
    for (const auto& [name, every] : groups) {
      if (!some[j] || certain[j]) break;
      certain[j] = every.Reaches(j);
      by_name = by_name || every.ReachesName(t, j);
    }
    if (certain[j] && t.ops[j].reached_from.empty()) edges->open_overloads.erase(t.ops[j].name);
    // Runs, but which overload of it, and so its backward, is open.
    if (!certain[j] && by_name) edges->open_overloads.insert(t.ops[j].name);
    certain[j] = certain[j] || by_name;
    some[j] = some[j] && !certain[j] && !t.ops[j].reached_from.empty();
  }
  return some;
}

// The marking passes; an op of `some_overloads` is open at best.
void MarkPasses(Trace& t, const PathValues& values, PathEdges* edges, const std::vector<bool>& some_overloads) {
  for (int pass = 0; pass < kTypicalPathPasses; ++pass) {
    bool changed = false;
    for (size_t i = 0; i < t.ops.size(); ++i) {
      OpStep& op = t.ops[i];
      Tri v;
      if (op.reached_from.empty()) {
        v = op.role == OpRole::kForward ? edges->entry_python[i] : Tri::kTrue;
        if (op.role == OpRole::kForward && t.python.empty()) v = Tri::kTrue;
        if (op.role == OpRole::kForward && v != Tri::kTrue && TakeCallOnThePath(values, edges, i, op)) v = Tri::kTrue;
      } else {
        // Below an undecided op, what its edge does not rule out is
        // undecided too (both sides of an open condition stay visible).
        const OpStep* p = ParentOf(t, op);
        v = EdgeValue(values, p, op, op.when, edges->edge_found.count(i) > 0);
        if (auto others = edges->other_callers.find(i); others != edges->other_callers.end())
          v = TakeBestCaller(values, &edges->edge_found, i, op, p, v, others->second);
        if (some_overloads[i] && v == Tri::kTrue) v = Tri::kUnknown;
        if (op.role == OpRole::kBackward && p && p->role == OpRole::kForward && v != Tri::kFalse) {
          Tri named = InTakenFormula(t, *edges, op);
          if (named != Tri::kTrue) v = named;
        }
      }
      bool python_entry = op.reached_from.empty() && op.role == OpRole::kForward;
      bool typical = v == Tri::kTrue || (v == Tri::kUnknown && python_entry && !edges->optional_step[i]);
      bool undecided = v == Tri::kUnknown;
      changed = changed || typical != op.typical || undecided != op.undecided;
      op.typical = typical;
      op.undecided = undecided;
    }
    if (!changed) break;
  }
}

// The condition of the `TORCH_CHECK(C, ...)` an implementation opens with
// (`call`, OpeningCallOf), "" when its first statement is none.
std::string OpeningCheck(const std::optional<OpeningCall>& call) {
  if (!call || call->callee != "TORCH_CHECK" || call->arguments.empty()) return "";
  const std::string& condition = call->arguments.front();
  return condition.starts_with('"') ? "" : condition;  // a message first: not read
}

// Whether a dispatch key is one only another kind of tensor reaches -- a
// sparse, quantized, nested or oneDNN tensor's -- or Meta's.
bool OtherTensorKindKey(std::string_view key) {
  for (std::string_view kind : {"Sparse", "Quantized", "Nested", "Mkldnn"})
    if (key.starts_with(kind)) return true;
  return key == "Meta";
}

// The dispatch keys of a method only other kinds of tensor have kernels
// for (is_coalesced: SparseCPU, SparseCUDA, SparseMeta), comma-joined: the
// dispatcher raises for a typical dense tensor. "" where some overload has
// a kernel or a composite one reaches, or is no method.
std::string OtherTensorKindsOnly(const YamlModel& yaml, std::string_view method) {
  std::string keys;
  bool backend = false;
  for (const NativeFunction* fn : yaml.Overloads(method)) {
    if (!fn->HasVariant("method") || fn->dispatch.empty()) return "";
    for (const auto& [key, kernel] : fn->dispatch) {
      if (!OtherTensorKindKey(key)) return "";
      backend = backend || key != "Meta";
      if (keys.find(key) == std::string::npos) keys += (keys.empty() ? "" : ", ") + key;
    }
  }
  return backend ? keys : "";
}

// The call the opening statement (`call`) of `op`'s implementation makes,
// for sure, of such a method on one of the op's tensor arguments
// (coalesce's `if (self.is_coalesced())`), with that method's keys: "" when
// it makes none.
std::string OpeningCallOfOtherKindsMethod(const YamlModel& yaml, const OpStep& op,
                                          const std::optional<OpeningCall>& call, std::string* keys) {
  if (!call || !op.yaml) return "";
  const std::map<std::string, std::string> renamed = ImplParameterNames(op);
  for (const auto& [object, method] : call->method_calls) {
    auto named = renamed.find(object);
    const std::string& argument = named == renamed.end() ? object : named->second;
    bool tensor = false;
    for (const SchemaArgument& a : op.yaml->schema.arguments)
      tensor = tensor || (a.name == argument && a.type == "Tensor");
    if (!tensor) continue;
    *keys = OtherTensorKindsOnly(yaml, method);
    if (!keys->empty()) return object + "." + method + "()";
  }
  return "";
}

// Whether `condition` speaks only of what kind of tensor it is handed --
// its layout, sparse, quantized, nested, oneDNN -- which the assumptions
// state of every tensor, intermediates included (an op's result keeps its
// input's layout), unlike a dtype or a device.
bool AsksTensorKind(std::string_view condition) {
  for (std::string_view kind : {"layout", "is_sparse", "kSparse", "is_quantized", "is_nested", "is_mkldnn"})
    if (condition.find(kind) != std::string_view::npos) return true;
  return false;
}

}  // namespace

void MarkTypical(Trace& t, const PathValues& values, PathEdges* edges) {
  MarkPasses(t, values, edges, std::vector<bool>(t.ops.size()));
  if (edges->open_overloads.empty()) return;
  // Again, with what only some overloads reach open and the overloads
  // every one reaches no longer open.
  MarkPasses(t, values, edges, OnlySomeOverloadsReach(t, values, edges));
}

// An open branch is shown with the condition that decides it, not a
// decided one written inside it (nll_loss_nd: `self.sym_sizes() ==
// target.sym_sizes()`, not `label_smoothing > 0.0`).
void MarkOpenConditions(Trace& t, const PathValues& values) {
  for (auto& op : t.ops) {
    const OpStep* parent = op.reached_from.empty() ? nullptr : ParentOf(t, op);
    if (!parent || parent->role != op.role) continue;
    for (auto& c : op.when) {
      const Tri value = values.Evaluate(*parent, {c});
      c.open = c.kind != ConditionKind::kDevice && value == Tri::kUnknown;
      c.holds = value == Tri::kTrue;
    }
  }
}

// Its meta and impl run inside the generated kernel of the op that
// delegates (whose main-path entry folds them in). What it calls keeps its
// own mark. Every op that reaches it must delegate to it: exp.out reached
// from exp_ and from exp (the functional form, off the path) is still only
// a delegate. A caller off the typical path decides nothing: add.out under
// batch_norm's `num_batches_tracked.add_(1)` is add_'s delegate though
// native_batch_norm.out calls at::add_out -- open where that caller is.
void FoldStructuredDelegates(Trace& t) {
  for (OpStep& op : t.ops) {
    if (!op.typical || op.reached_from.empty()) continue;
    bool only_delegated = DelegatesTo(ParentOf(t, op), op), open_caller = false;
    for (const std::string& name : op.also_reached_from) {
      const OpStep* caller = OpNamed(t, name, op.role);
      if (caller && !caller->typical) {
        open_caller = open_caller || (caller->undecided && !DelegatesTo(caller, op));
        continue;
      }
      only_delegated = only_delegated && DelegatesTo(caller, op);
    }
    if (!only_delegated) continue;
    op.typical = false;
    op.undecided = op.undecided || open_caller;
  }
}

void MarkRaisingOps(Trace& t, const Index& ix, CodeDevice device, const PathValues& values, const PathEdges& edges) {
  const YamlModel& yaml = ix.yaml;
  const std::string_view key = Name(device);
  // The placeholder kernel each raising op runs, and whose kernel it is
  // (null: it does not raise).
  struct Raise {
    const ImplStep* kernel = nullptr;
    std::string op;
    std::string why;  // after "... implementation F (file:line) ", "" for a placeholder
    explicit operator bool() const { return kernel != nullptr; }
  };
  std::vector<Raise> raises(t.ops.size());
  for (size_t i = 0; i < t.ops.size(); ++i) {
    const OpStep& op = t.ops[i];
    if (op.role != OpRole::kForward) continue;
    const ImplStep* placeholder = nullptr;
    bool other = false;
    for (const ImplStep& im : op.impls) {
      if (im.key != key || !im.reached_from.empty()) continue;
      if (im.form == ImplForm::kPlaceholder) placeholder = placeholder ? placeholder : &im;
      else other = true;
    }
    if (!other && placeholder) raises[i] = {placeholder, op.name, ""};
    // The implementation that runs for the device opens with a check of
    // the tensor's kind the assumptions fail (coalesce's `self.layout() ==
    // kSparse`, SparseTensor.cpp:616), or with a call of a method only
    // other kinds of tensor have kernels for (1.13.1's `if
    // (self.is_coalesced())`, SparseTensor.cpp:589).
    if (raises[i] || !op.yaml) continue;
    const std::string resolved = ResolvedKey(*op.yaml, key);
    const ImplStep* runs = nullptr;
    for (const ImplStep& im : op.impls)
      if (!runs && im.key == resolved && im.reached_from.empty() && im.where.valid()) runs = &im;
    if (!runs) continue;
    const auto opening = OpeningCallOf(GuardReaderOf(ix, runs->where.file).lexed().tokens, runs->where.line);
    const std::string check = OpeningCheck(opening);
    std::string keys;
    if (!check.empty() && AsksTensorKind(check) && EvaluateCondition(check, false, values.assumptions()) == Tri::kFalse)
      raises[i] = {runs, op.name, "first checks `" + check + "`"};
    else if (const std::string call = OpeningCallOfOtherKindsMethod(yaml, op, opening, &keys); !call.empty())
      raises[i] = {runs, op.name, "first calls `" + call + "`, which has kernels only for " + keys};
  }
  // Up the taken edges: a caller reaching a raising op for sure raises
  // too, as do an op delegating to it and torchgen's kernel calling it.
  // An entry op's call by another entry op, taken for sure.
  auto entry_calls = [&](const OpStep& caller, const OpStep& op) {
    if (!op.reached_from.empty() || !caller.reached_from.empty() || !caller.typical || caller.undecided) return false;
    auto others = edges.other_callers.find(static_cast<size_t>(&op - t.ops.data()));
    if (others == edges.other_callers.end()) return false;
    for (const CallerEdge& e : others->second)
      if (e.parent == &caller && e.found && values.Evaluate(caller, e.when) == Tri::kTrue) return true;
    return false;
  };
  auto calls_for_sure = [&](const OpStep& caller, const OpStep& op) {
    if (caller.role != op.role) return false;
    if (DelegatesTo(&caller, op) || GeneratedKernelCalls(yaml, caller, op)) return true;
    return (caller.name == op.reached_from && op.typical && !op.undecided) || entry_calls(caller, op);
  };
  for (bool grew = true; grew;) {
    grew = false;
    for (size_t i = 0; i < t.ops.size(); ++i) {
      if (!raises[i]) continue;
      for (size_t p = 0; p < t.ops.size(); ++p)
        if (!raises[p] && calls_for_sure(t.ops[p], t.ops[i])) {
          raises[p] = raises[i];
          grew = true;
        }
    }
  }
  auto raising = [&](size_t i) { return raises[i] && t.ops[i].role == OpRole::kForward; };
  for (size_t i = 0; i < t.ops.size(); ++i) {
    if (!raising(i)) continue;
    OpStep& op = t.ops[i];
    const ImplStep& kernel = *raises[i].kernel;
    const std::string at = " (" + kernel.where.file + ":" + std::to_string(kernel.where.line) + ")";
    op.notes.push_back(raises[i].why.empty() ? "raises for a typical tensor: " + raises[i].op + "'s " +
                                                   std::string(key) + " kernel " + kernel.function + at + " only raises"
                                             : "raises for a typical tensor: " + raises[i].op + "'s " + kernel.key +
                                                   " implementation " + kernel.function + at + " " + raises[i].why);
    op.typical = false;
    op.undecided = false;
  }
  // What a raising op calls is no path of a typical run either.
  for (bool grew = true; grew;) {
    grew = false;
    for (OpStep& op : t.ops) {
      if (!op.typical || op.reached_from.empty() || op.role != OpRole::kForward) continue;
      for (size_t p = 0; p < t.ops.size(); ++p)
        if (raising(p) && t.ops[p].name == op.reached_from) {
          op.typical = false;
          op.undecided = false;
          grew = true;
          break;
        }
    }
  }
}

}  // namespace optrace
