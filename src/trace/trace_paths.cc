// Conditions come from where the tracer found each call: an op's `calls[]`
// entry names the C++ function making the call and its line, so the guard of
// that line is read in that function; the function itself is reached from
// the op's implementation through helpers and dispatch stubs, and each hop
// adds the guard of its own call (found by name in the caller's body) -- a
// stub hop also adds the device its registration serves. Python calls get
// the guard of their line in their frame; an entry op gets the guard of the
// Python call that resolved to it and of the calls leading to that frame.
//
// Selections: a guard names the function deciding it (`use_miopen(x)`), or a
// local whose value a function computed (`switch (backend)` after `backend =
// _select_conv_backend(...)`); locals are followed through assignments,
// casts, dispatch stubs (to the registration of the traced device) and the
// returns of the function they lead to, a few steps deep. A selection
// whose member the selection function cannot return for the assumed dtype
// (trace/dtype_gates.h) is decided false; one whose function tries its
// candidates in a priority order is decided true for the first candidate
// the dtype does not rule out and false for the others.
//
// Values: a Python condition is evaluated with its frame's bindings
// (trace/frame_bindings.h: defaults, what callers and the user's call
// pass, __init__'s attributes, flag locals); an entry op's C++ with its
// schema defaults overridden by what the Python call passes; a condition
// written in a helper with the declared defaults of the trailing arguments
// its caller omits and the literals the caller passes (cpp/cpp_params.h).
// A callee written on both sides of one condition runs either way.
// Launches and edges read from code alone: shared per index (trace/shared_annotations.h).
#include "trace/trace_paths.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <unordered_map>

#include "base/text.h"
#include "cpp/cpp_guards.h"
#include "cpp/cpp_params.h"
#include "py/py_guards.h"
#include "trace/condition_text.h"
#include "trace/dtype_gates.h"
#include "trace/either_branch.h"
#include "trace/formula_arguments.h"
#include "trace/frame_bindings.h"
#include "trace/guard_files.h"
#include "trace/impl_parameters.h"
#include "trace/inline_predicates.h"
#include "trace/launch_conditions.h"
#include "trace/local_values.h"
#include "trace/path_rules.h"
#include "trace/shared_annotations.h"
#include "trace/sole_return.h"
#include "trace/tensor_methods.h"
#include "trace/trace_typical.h"
#include "trace/walk_bounds.h"

namespace optrace {

bool ValidateAssume(const std::vector<std::string>& items, std::string* error) {
  Assumptions a;
  return a.Apply(items, error);
}

namespace {

// One call of an op by one of its callers: the caller, the conditions of its
// call sites, and whether it lists the call (EdgeConditions' *found).
struct CallerEdge {
  const OpStep* parent = nullptr;
  std::vector<Condition> when;
  bool found = false;
  Location site;  // the call the edge takes
};

// The device the assumptions trace (Assumptions::device: "cpu" | "cuda").
CodeDevice AssumedDevice(const Assumptions& a) { return a.device == "cuda" ? CodeDevice::kCuda : CodeDevice::kCpu; }

// *v and t both hold: false wins, then unknown.
void Meet(Tri* v, Tri t) {
  if (t == Tri::kFalse) *v = Tri::kFalse;
  else if (t == Tri::kUnknown && *v == Tri::kTrue) *v = Tri::kUnknown;
}

// How well the assumptions decide a way: 2 taken, 1 undecided, 0 not taken.
int Rank(Tri v) { return v == Tri::kTrue ? 2 : v == Tri::kUnknown ? 1 : 0; }

std::string DecidedKey(const OpStep& parent, const Condition& c) {
  return c.text + "@" + c.where.file + "@" + parent.name;
}

class PathAnnotator : public CodeWays {
 public:
  PathAnnotator(const Index& ix, const TraceOptions& opt, Trace& t) : ix_(ix), t_(t) {
    a_.device = opt.device == TraceOptions::Device::kCpu ? "cpu" : "cuda";
    std::string ignored;
    a_.Apply(opt.assume, &ignored);
    t_.assumptions = a_.Describe();
  }

  void Run() {
    PythonConditions();
    for (size_t i = 0; i < t_.ops.size(); ++i) {
      OpStep& op = t_.ops[i];
      if (!op.reached_from.empty() || op.role != OpRole::kForward) continue;
      op.when = EntryConditions(op, &entry_python_[i], &optional_step_[i]);
      // Where the query fixes the overload the arg parser picks for tensor
      // operands (`x / y` is div.Tensor, never div.Tensor_mode's
      // rounding_mode nor div.Scalar_mode's number), its other
      // overloads take what a typical call does not pass.
      const std::string& picked = t_.selected_overload;
      const bool other_form = !picked.empty() && op.name != picked && OpBaseName(op.name) == OpBaseName(picked);
      if (other_form || !EntryArguments(op) || NeedsNames(op)) entry_python_[i] = Tri::kFalse;
      if (FeedsOnlyLaterOutputs(op)) later_outputs_only_.insert(op.name);
    }
    for (const OpStep& op : t_.ops)
      if (op.role == OpRole::kBackward && !op.reached_from.empty())
        if (const OpStep* forward = Parent(op); forward && forward->role == OpRole::kForward) {
          // What its formula passes (formula_arguments.h), where every call agrees.
          std::optional<std::map<std::string, std::optional<std::string>>> agreed;
          for (auto& site : FormulaCallBindings(t_.backward, *forward, op, RememberedAssumptionsFor(*forward).defaults))
            KeepAgreed(&agreed, std::move(site));
          if (!agreed || agreed->empty()) continue;
          entry_arguments_[&op] = std::move(*agreed);
          assumptions_.erase(&op);
        }
    SharedEdges edges(ix_);
    for (size_t i = 0; i < t_.ops.size(); ++i) {
      OpStep& op = t_.ops[i];
      if (op.reached_from.empty()) continue;
      const OpStep* parent = Parent(op);
      if (!parent || parent->role != op.role) continue;
      bool found = false;
      op.when = SharedEdge(edges, *parent, op, &found, &op.called_at);
      if (found) edge_found_.insert(i);
      for (const std::string& name : op.also_reached_from) {
        const OpStep* other = OpNamed(name, op.role);
        if (!other) continue;
        CallerEdge edge{other, {}, false, {}};
        edge.when = SharedEdge(edges, *other, op, &edge.found, &edge.site);
        other_callers_[i].push_back(std::move(edge));
      }
    }
    DecideSelections();
    MarkTypical();
    MarkOpenConditions();
    FindSelections();
    SharedLaunches shared(ix_);  // shared_annotations.h
    for (OpStep& op : t_.ops) {
      const bool own =
          !op.expansion || entry_arguments_.count(&op) || DecidedFor(op.name, selected_) || DecidedFor(op.name, bound_);
      if (!own && shared.Replay(op)) continue;
      AnnotateLaunches(*this, op);
      if (!own) shared.Keep(op);
    }
    FoldStructuredDelegates();
  }

  // A structured delegate reached only as such (add_.Tensor -> add.out) is
  // no dispatched op: its meta and impl run inside the generated kernel of
  // the op that delegates (whose main-path entry folds them in). What it
  // calls keeps its own mark; it is not marked typical itself. Every op
  // that reaches it must delegate to it: exp.out reached from exp_ and
  // from exp (the functional form, off the path) is still only a delegate.
  void FoldStructuredDelegates() {
    for (OpStep& op : t_.ops) {
      if (!op.typical || op.reached_from.empty()) continue;
      bool only_delegated = DelegatesTo(Parent(op), op);
      for (const std::string& caller : op.also_reached_from)
        only_delegated = only_delegated && DelegatesTo(OpNamed(caller, op.role), op);
      if (only_delegated) op.typical = false;
    }
  }

 private:
  const std::string& Text(const std::string& file) {
    auto& slot = texts_[file];
    if (!slot) {
      slot = ix_.FileText(file);
      if (!slot) slot = std::make_shared<const std::string>();
    }
    return *slot;
  }

  // A file's guard reader (its lexed text) is built once per index and
  // shared by every later trace: lexing per trace made warm traces slow.
  // Kept here too: the index's table is locked and keyed by long paths,
  // and a trace asks for a few files hundreds of times.
  const CppGuardReader& Reader(const std::string& file) override {
    auto [slot, fresh] = readers_.try_emplace(file, nullptr);
    if (fresh) slot->second = &GuardReaderOf(ix_, file);
    return *slot->second;
  }

  // Whether a backward op is named where a first-order backward takes the
  // formula (kTrue), where an open condition decides (kUnknown), or only
  // in branches it never takes (kFalse), in the entries of the forward ops
  // on the path (or open). The backward of a forward op an open condition
  // reaches is open too: it runs only where that op does.
  Tri InTakenFormula(const OpStep& op) const {
    std::string base(OpBaseName(op.name));
    auto has = [&](const std::vector<std::string>& v) { return std::find(v.begin(), v.end(), base) != v.end(); };
    Tri best = Tri::kFalse;
    for (const auto& b : t_.backward) {
      if (!has(b.ops) || has(b.untaken)) continue;
      if (later_outputs_only_.count(b.op) || b.below_autograd) continue;
      Tri forward = Tri::kFalse;
      for (const auto& f : t_.ops) {
        if (f.role != OpRole::kForward || f.name != b.op) continue;
        if (f.typical) forward = Tri::kTrue;
        else if (f.undecided && forward == Tri::kFalse) forward = Tri::kUnknown;
      }
      if (forward == Tri::kFalse) continue;
      if (forward == Tri::kTrue && !has(b.open)) return Tri::kTrue;
      best = Tri::kUnknown;
    }
    return best;
  }

  const OpStep* OpNamed(const std::string& name, OpRole role) const {
    for (const auto& p : t_.ops)
      if (p.name == name && p.role == role) return &p;
    return nullptr;
  }

  const OpStep* Parent(const OpStep& op) const {
    const OpStep* found = nullptr;
    for (const auto& p : t_.ops) {
      if (&p == &op || p.name != op.reached_from) continue;
      if (p.role == op.role) return &p;
      if (!found) found = &p;
    }
    return found;
  }

  // --- Python ---------------------------------------------------------------

  void PythonConditions() {
    for (auto& f : t_.python) {
      if (!f.where.valid()) continue;
      const std::string& text = Text(f.where.file);
      for (auto& c : f.calls) {
        if (c.line <= 0) continue;
        for (const auto& p : PyLineConditions(text, c.line))
          c.when.push_back({p.text, p.negated, ConditionKindOf(p.kind), {f.where.file, p.line, ""}});
        for (const auto& p : PyExpressionConditions(text, c.line, c.callee))
          c.when.push_back({p.text, p.negated, ConditionKindOf(p.kind), {f.where.file, p.line, ""}});
      }
    }
  }

  // The conditions on the way to frame `symbol` from the entry, outermost
  // first: among the calls leading there (each with the way to its own
  // frame), the one the assumptions decide best -- taken, then undecided,
  // then not taken -- as a helper called under `if not center:` and again
  // unconditionally runs whenever its caller does.
  void FrameConditions(const std::string& symbol, int depth, std::vector<Condition>* out, Tri* value) {
    if (depth > kConditionDepth) return;
    BestWay best;
    for (const auto& f : t_.python) {
      if (f.symbol == symbol) continue;
      for (const auto& c : CallsTo(f, {symbol}))
        if (best.Offer(Way(f, c, depth + 1))) break;
      if (best.rank == 2) break;
    }
    best.AppendTo(out, value);
  }

  // A way to a frame or an op: the conditions along it and their value.
  struct BestWay {
    std::vector<Condition> when;
    Tri value = Tri::kTrue;
    int rank = -1;  // 2 taken, 1 undecided, 0 not taken; -1 none offered
    // Keeps `way` when it is better; true once a taken way is known.
    bool Offer(std::pair<std::vector<Condition>, Tri> way) {
      int r = Rank(way.second);
      if (r > rank) {
        rank = r;
        when = std::move(way.first);
        value = way.second;
      }
      return rank == 2;
    }
    void AppendTo(std::vector<Condition>* out, Tri* v) const {
      if (rank < 0) return;
      out->insert(out->end(), when.begin(), when.end());
      Meet(v, value);
    }
  };

  // The way through call `c` of frame `f`: how `f` is reached, then `c`'s own conditions.
  std::pair<std::vector<Condition>, Tri> Way(const PyFrame& f, const PyCallStep& c, int depth) {
    std::vector<Condition> when;
    Tri v = Tri::kTrue;
    FrameConditions(f.symbol, depth, &when, &v);
    Tri own = Tri::kTrue;
    Accumulate(f, c.when, &when, &own);
    // A call the frame cannot return without runs whenever the frame
    // does (sole_return.h): its open conditions hold for any input it accepts.
    if (own == Tri::kUnknown && SoleReturn(ix_, bindings_, f, c)) own = Tri::kTrue;
    Meet(&v, own);
    return {std::move(when), v};
  }

  void Accumulate(const PyFrame& f, const std::vector<Condition>& when, std::vector<Condition>* out, Tri* value) {
    for (const auto& c : when) {
      out->push_back(c);
      Tri t = bindings_.Evaluate(f, c);
      if (c.negated) t = t == Tri::kTrue ? Tri::kFalse : t == Tri::kFalse ? Tri::kTrue : Tri::kUnknown;
      Meet(value, t);
    }
  }

  // What the Python calls reaching entry op `op` pass to its schema
  // arguments (agreeing sites only), kept for evaluating its edges. False
  // when no call can be this overload (`torch.nanmedian(x, dim)` passes
  // more than `nanmedian(Tensor self)` takes; a keyword it lacks, a literal
  // of another kind): the Python argument parser takes another.
  bool EntryArguments(const OpStep& op) {
    if (!op.yaml) return true;
    std::string full = "aten::" + op.name, base = "aten::" + std::string(OpBaseName(op.name));
    std::optional<std::map<std::string, std::optional<std::string>>> agreed;
    bool any_call = false, any_fits = false;
    for (const auto& f : t_.python) {
      for (const auto& c : f.calls) {
        if (c.resolved != full && c.resolved != base) continue;
        bool fits = true;
        auto site = bindings_.ToSchema(f, c, *op.yaml, &fits);
        any_call = true;
        if (!fits) continue;
        any_fits = true;
        KeepAgreed(&agreed, std::move(site));
      }
    }
    if (agreed) {
      entry_arguments_[&op] = std::move(*agreed);
      assumptions_.erase(&op);
    }
    return !any_call || any_fits;
  }

  // Whether every Python call of entry op `op` assigns a value that only a
  // later element of its frame's returned tuple carries.
  bool FeedsOnlyLaterOutputs(const OpStep& op) {
    std::string full = "aten::" + op.name, base = "aten::" + std::string(OpBaseName(op.name));
    bool any = false;
    for (const auto& f : t_.python)
      for (const auto& c : f.calls) {
        if (c.resolved != full && c.resolved != base) continue;
        if (!bindings_.FeedsOnlyLaterOutputs(f, c)) return false;
        any = true;
      }
    return any;
  }

  // *optional_step: every open way passes an optional step the
  // assumptions leave open, a lone `if` whose suite falls through
  // (FrameBindings::IsOpenOptionalStep: `if not is_batched: input =
  // input.unsqueeze(1)`). The code goes on either way, so what the step
  // calls is no form of the call the path picks among: open, never typical.
  std::vector<Condition> EntryConditions(const OpStep& op, Tri* value, bool* optional_step) {
    *value = Tri::kTrue;
    *optional_step = true;
    std::vector<Condition> out;
    std::string full = "aten::" + op.name, base = "aten::" + std::string(OpBaseName(op.name));
    auto passes_open_step = [&](const std::vector<Condition>& when) {
      return std::any_of(when.begin(), when.end(), [&](const Condition& c) { return bindings_.IsOpenOptionalStep(c); });
    };
    BestWay best;
    for (const auto& f : t_.python) {
      for (const auto& c : CallsTo(f, {full, base})) {
        auto way = Way(f, c, 0);
        if (c.kind == PyCallTarget::kMethod) UnlessSelfReturn(ix_, a_, op, &way);
        if (way.second == Tri::kUnknown && !passes_open_step(way.first)) *optional_step = false;
        if (best.Offer(std::move(way))) break;
      }
      if (best.rank == 2) break;
    }
    best.AppendTo(&out, value);
    return out;
  }

  // --- C++ edges -----------------------------------------------------------

  // Where function `name` is defined among those the op lists.
  Location Definition(const OpStep& op, const std::string& name) const override {
    for (const auto& im : op.impls)
      if (LastName(im.function) == name && im.where.valid()) return im.where;
    for (const auto& h : op.helpers)
      if (LastName(h.function) == name && h.where.valid()) return h.where;
    for (const auto& s : op.stubs)
      for (const auto& r : s.registrations)
        if (LastName(r.target) == name && r.target_definition.valid()) return r.target_definition;
    return {};
  }

  // Whether `name` is an implementation the dispatcher runs for `device`
  // ("" = any). Where the op has its own kernel for the device, another
  // key's implementation is only a helper there: _chunk_cat_cuda calls
  // CompositeExplicitAutograd's _chunk_cat in its `else`, and the way to
  // what _chunk_cat calls goes through that condition.
  bool IsImpl(const OpStep& op, const std::string& name, CodeDevice device = CodeDevice::kAny) const {
    bool own = false;
    for (const auto& im : op.impls) own = own || (device != CodeDevice::kAny && im.key == Name(device));
    for (const auto& im : op.impls)
      if (LastName(im.function) == name && (!own || im.key == Name(device))) return true;
    return false;
  }

  // The conditions of the call of `fn` in the function defined at `where`:
  // its first call, or when the assumptions do not take that one, the best
  // of all its calls there (taken, else undecided). Calls in both branches
  // of an open if/else (`if (canUse32BitIndexMath(w)) f<int>(...); else
  // f<int64_t>(...)`) are taken whichever way it goes: their conditions
  // without the one they disagree on.
  bool BestCallSite(const OpStep& op, const Location& where, const std::string& fn,
                    std::vector<Condition>* out) override {
    const CppGuardReader& r = Reader(where.file);
    std::vector<CodeCondition> first;
    if (!r.CallConditions(where.line, 0, fn, &first)) return false;
    *out = ConditionsIn(first, where.file);
    Tri best = Evaluate(op, *out);
    if (best == Tri::kTrue) return true;
    std::vector<std::vector<Condition>> sites;
    for (const auto& call : r.CallsIn(where.line))
      if (LastName(call.callee) == fn) sites.push_back(ConditionsIn(call.conditions, where.file));
    const size_t written = AddEitherBranch(&sites);
    for (size_t i = 0; i < sites.size(); ++i) {
      std::vector<Condition>& conv = sites[i];
      Tri v = Evaluate(op, conv);
      const bool wider = i >= written && v == best;  // both branches of an open if: fewer conditions
      if (!wider && (v == Tri::kFalse || (best == Tri::kUnknown && v != Tri::kTrue))) continue;
      best = v;
      *out = std::move(conv);
      if (v == Tri::kTrue) break;
    }
    return true;
  }

  // How many scopes (classes, namespaces) define a helper of `op` named
  // `fn` that serves `device`: overrides of one virtual function, or
  // namesakes a call by name cannot tell apart. Overloads in one scope are
  // told apart by the call's arguments and count once.
  int ScopesDefining(const OpStep& op, const std::string& fn, CodeDevice device) const {
    std::set<std::pair<std::string, int>> at;
    for (const auto& h : op.helpers)
      if (LastName(h.function) == fn && Serves(h.key, device) && h.where.valid())
        at.insert({h.where.file, h.where.line});
    if (at.size() < 2) return static_cast<int>(at.size());
    std::set<std::string> scopes;
    for (uint32_t id : ix_.cpp.FunctionsNamed(fn)) {
      const CppFunction& f = ix_.cpp.functions()[id];
      if (!at.count({ix_.cpp.file(f.file), static_cast<int>(f.line)})) continue;
      scopes.insert(f.qualified.substr(0, f.qualified.size() - std::min(f.qualified.size(), fn.size())));
    }
    return static_cast<int>(scopes.size());
  }

  bool WayTo(const OpStep& op, const std::string& fn, CodeDevice device, std::vector<Condition>* out) override {
    std::set<std::string> seen;
    return RouteTo(op, fn, 0, &seen, out, device);
  }

  // Conditions on the way from the op's implementation to function `fn`,
  // through code that runs for `device` (kAny: for any).
  bool RouteTo(const OpStep& op, const std::string& fn, int depth, std::set<std::string>* seen,
               std::vector<Condition>* out, CodeDevice device = CodeDevice::kAny) {
    if (IsImpl(op, fn, device)) return true;
    if (depth > kConditionDepth || !seen->insert(fn).second) return false;
    for (const auto& s : op.stubs) {
      for (const auto& r : s.registrations) {
        if (LastName(r.target) != fn || !s.call_site.valid() || !Serves(r.device, device)) continue;
        std::vector<Condition> route;
        if (!s.called_from.empty() && !RouteTo(op, LastName(s.called_from), depth + 1, seen, &route, device))
          route.clear();
        std::vector<CodeCondition> at;
        Reader(s.call_site.file).CallConditions(1, s.call_site.line, s.name, &at);
        auto conv = ConditionsIn(at, s.call_site.file);
        route.insert(route.end(), conv.begin(), conv.end());
        route.push_back({"dispatch device == " + r.device, false, ConditionKind::kDevice, r.where});
        out->insert(out->end(), route.begin(), route.end());
        return true;
      }
    }
    // A helper: the first listed function whose body calls it. The places
    // are the op's own (not copied: every launch's way asks again).
    std::vector<std::pair<std::string, const Location*>> callers;
    for (const auto& im : op.impls)
      if (Serves(im.key, device)) callers.push_back({LastName(im.function), &im.where});
    for (const auto& h : op.helpers)
      if (Serves(h.key, device)) callers.push_back({LastName(h.function), &h.where});
    for (const auto& s : op.stubs)
      for (const auto& r : s.registrations)
        if (Serves(r.device, device)) callers.push_back({LastName(r.target), &r.target_definition});
    for (const auto& [name, where] : callers) {
      if (name == fn || !where->valid()) continue;
      std::vector<Condition> conv;
      if (!BestCallSite(op, *where, fn, &conv)) continue;
      std::vector<Condition> route;
      if (!RouteTo(op, name, depth + 1, seen, &route, device)) continue;
      route.insert(route.end(), conv.begin(), conv.end());
      // A call by name that several classes answer (CellParams' and
      // QuantizedCellParams' overrides of linear_ih): which one runs is the
      // receiver's class, which the trace does not know.
      if (const int n = ScopesDefining(op, fn, device); n > 1)
        route.push_back({"one of " + std::to_string(n) + " classes' " + fn + " runs (the receiver's class picks)",
                         false, ConditionKind::kRoute, where});
      out->insert(out->end(), route.begin(), route.end());
      return true;
    }
    // No call written by its name (a class named in a template argument runs
    // its operator()): the way to whatever reached it, then an open step.
    for (const auto& h : op.helpers) {
      if (LastName(h.function) != fn || h.reached_from.empty() || !Serves(h.key, device)) continue;
      std::vector<Condition> route;
      if (!RouteTo(op, LastName(h.reached_from), depth + 1, seen, &route, device)) return false;
      if (h.reached_at.valid()) {
        std::vector<CodeCondition> at;
        Reader(h.reached_at.file).CallConditions(1, h.reached_at.line, h.reached_by, &at);
        auto conv = ConditionsIn(at, h.reached_at.file);
        route.insert(route.end(), conv.begin(), conv.end());
      }
      route.push_back({fn + " is reached (the call leading there is not read)", false, ConditionKind::kRoute, h.where});
      out->insert(out->end(), route.begin(), route.end());
      return true;
    }
    return false;
  }

  // *found: the parent lists the call (an op reached otherwise -- a C++
  // operator on values of unknown type, a direct call of another op's
  // kernel -- has no call site whose conditions could be read), or the
  // child is the parent's structured delegate or what torchgen's generated
  // kernel for the parent calls.
  // The conditions of the edge parent -> child. A child called at several
  // sites of the parent (both branches of an if/else) is taken when any of
  // them is: among the sites for the device, the one the assumptions decide
  // best (taken, then undecided, then not taken) gives the edge's conditions.
  // `*site`: the call chosen (left as it is when none is).
  std::vector<Condition> EdgeConditions(const OpStep& parent, const OpStep& child, bool* found, Location* site) {
    std::string base(OpBaseName(child.name));
    if (parent.yaml &&
        (parent.yaml->structured_delegate == child.name || GeneratedKernelCalls(ix_.yaml, parent, child))) {
      *found = true;
      return {};
    }
    std::vector<const OpCallStep*> sites;
    const OpCallStep* fallback = nullptr;  // a site for another device, when none is for this one
    for (const auto& c : parent.calls) {
      if (c.op != base || !c.where.valid()) continue;
      bool device_ok = c.device == CodeDevice::kAny || c.device == AssumedDevice(a_);
      if (device_ok) sites.push_back(&c);
      else if (!fallback) fallback = &c;
    }
    // Made only by another device's implementation: taken there alone.
    for (const auto& c : parent.other_device_calls)
      if (c.op == base && c.where.valid() && !fallback) fallback = &c;
    if (sites.empty() && fallback) sites.push_back(fallback);
    if (sites.empty()) return {};
    KeepSitesOfItsForm(child, base, &sites);
    *found = true;
    std::vector<std::vector<Condition>> each;
    std::vector<Location> called_at;
    for (const OpCallStep* call : sites) {
      std::vector<Condition> conditions = SiteConditions(parent, *call, base);
      // A hand-written Tensor method that returns the tensor itself
      // (`x.contiguous()` of a contiguous x) calls the op only otherwise.
      if (IsMethodCall(*call, base))
        if (auto guard = EarlySelfReturn(ix_, base))
          conditions.push_back({guard->condition, true, ConditionKind::kReturn, {guard->file, guard->line, ""}});
      each.push_back(std::move(conditions));
      called_at.push_back(call->where);
      if (Evaluate(parent, each.back()) == Tri::kTrue) break;
    }
    // Calls on both sides of an open condition (`if (indices.dim() == 1)
    // return weight.index_select(...);` then `return
    // weight.index_select(...).view(size);`): one of them runs. A pair
    // whose one side is ruled out keeps the open side's conditions.
    const size_t written = AddEitherBranch(&each);
    std::vector<Condition> best;
    int best_rank = -1;
    for (size_t i = 0; i < each.size(); ++i) {
      int rank = Rank(Evaluate(parent, each[i]));
      if (rank > best_rank) {
        best_rank = rank;
        best = std::move(each[i]);
        *site = i < written ? called_at[i] : called_at.front();  // a merged pair: its first call
      }
      if (rank == 2) break;
    }
    return best;
  }

  // EdgeConditions, read once per parent expansion and child for every
  // trace that knows nothing more of the parent (shared_annotations.h):
  // the helper bindings it decided are replayed into this trace's.
  std::vector<Condition> SharedEdge(SharedEdges& edges, const OpStep& parent, const OpStep& child, bool* found,
                                    Location* site) {
    const bool own = !parent.expansion || entry_arguments_.count(&parent) || DecidedFor(parent.name, bound_) ||
                     DecidedFor(parent.name, selected_);
    if (const EdgeAnnotation* known = own ? nullptr : edges.Find(parent, child)) {
      for (const auto& [key, t] : known->bound) Bind(&bound_, key, t);
      *found = known->found;
      if (known->site) *site = *known->site;
      return known->when;
    }
    EdgeAnnotation made;
    Location picked;  // EdgeConditions sets only a listed call's place
    binding_log_ = own ? nullptr : &made.bound;
    made.when = EdgeConditions(parent, child, &made.found, &picked);
    binding_log_ = nullptr;
    *found = made.found;
    if (picked.valid()) *site = made.site.emplace(picked);
    if (!own) edges.Keep(parent, child, made);
    return made.when;
  }

  // An out= overload is called as `at::x_out(`/`at::x_outf(`, the others
  // never (`if (out.defined()) at::_fft_r2c_out(...); else at::_fft_r2c(...)`):
  // each overload keeps the sites written in its form, when there are any.
  void KeepSitesOfItsForm(const OpStep& child, const std::string& base, std::vector<const OpCallStep*>* sites) {
    if (!child.yaml || sites->size() < 2) return;
    const bool out = std::any_of(child.yaml->schema.arguments.begin(), child.yaml->schema.arguments.end(),
                                 [](const SchemaArgument& a) { return a.is_out; });
    std::vector<const OpCallStep*> kept;
    for (const OpCallStep* c : *sites) {
      std::vector<CodeCondition> unused;
      const CppGuardReader& r = Reader(c->where.file);
      const bool written_out = r.CallConditions(1, c->where.line, base + "_out", &unused) ||
                               r.CallConditions(1, c->where.line, base + "_outf", &unused);
      if (written_out == out) kept.push_back(c);
    }
    if (!kept.empty()) *sites = std::move(kept);
  }

  std::vector<Condition> SiteConditions(const OpStep& parent, const OpCallStep& call, const std::string& base) {
    std::vector<Condition> out;
    std::set<std::string> seen;
    // A helper the walk reached without a call written by its name (a class
    // named in a template argument runs its operator()): the conditions on
    // the way are unknown, never "always".
    if (!call.from.empty() && !RouteTo(parent, LastName(call.from), 0, &seen, &out, call.device))
      out.push_back({LastName(call.from) + " is reached (the call leading there is not read)", false,
                     ConditionKind::kRoute, call.where});
    std::vector<CodeCondition> at;
    const CppGuardReader& r = Reader(call.where.file);
    if (StartsWith(call.how, "operator")) {  // a C++ operator on tensors: its symbol is the call
      r.CallConditions(1, call.where.line, call.how.substr(8), &at);
    } else {
      for (const std::string& token : {base, base + "_out", base + "_symint", base + "_outf"}) {
        if (r.CallConditions(1, call.where.line, token, &at)) break;
      }
    }
    auto conv = ConditionsIn(at, call.where.file);
    if (!call.from.empty() && !IsImpl(parent, LastName(call.from), call.device))
      BindHelperConditions(parent, LastName(call.from), conv);
    out.insert(out.end(), conv.begin(), conv.end());
    if (call.device != CodeDevice::kAny)
      out.push_back(
          {"dispatch device == " + std::string(Name(call.device)), false, ConditionKind::kDevice, call.where});
    return EachConditionOnce(std::move(out));
  }

  // What helper `fn` of `parent` holds in the parameters its caller fixes:
  // the declared default of a trailing argument every call there omits
  // (mm_out_cuda's `addmm_out_cuda_impl(result, result, self, mat2, 0, 1)`
  // binds `activation = Activation::None`), or a literal every call passes
  // alike (cpp/cpp_params.h), or a parameter of a calling helper passed on
  // unchanged (`fftn_c2c("fftn", {}, ...)` -> `fft_c2c_maybe_out(fname, out,
  // ...)`: `out` is `{}` there too). Empty when the calls are not read.
  Bindings HelperBindings(const OpStep& parent, const std::string& fn, int depth = 0) {
    if (depth > kValueDepth) return {};
    for (const auto& h : parent.helpers) {
      if (LastName(h.function) != fn || h.reached_from.empty() || !h.where.valid()) continue;
      const CppFunction* def = nullptr;
      for (uint32_t id : ix_.cpp.FunctionsNamed(fn)) {
        const CppFunction& f = ix_.cpp.functions()[id];
        if (ix_.cpp.file(f.file) == h.where.file && static_cast<int>(f.line) == h.where.line) def = &f;
      }
      Location caller = Definition(parent, LastName(h.reached_from));
      if (!def || !caller.valid()) return {};
      std::vector<CppParameter> params = ParseCppParameters(def->params);
      const CppGuardReader& r = Reader(caller.file);
      std::optional<Bindings> agreed;
      std::optional<Bindings> passed_on;  // the calling helper's own, read when first needed
      for (const auto& call : r.CallsIn(caller.line)) {
        if (LastName(call.callee) != fn) continue;
        auto args = CppCallArguments(r.text(), call.line, fn);
        if (!args || args->size() > params.size()) return {};
        Bindings site;
        for (size_t i = 0; i < params.size(); ++i) {
          const std::string& value = i < args->size() ? (*args)[i] : params[i].default_value;
          if (params[i].name.empty()) continue;
          if (IsCppLiteral(value)) {
            site[params[i].name] = value;
            continue;
          }
          // A parameter of a calling helper that its body never assigns;
          // of the implementation, what its schema argument holds.
          if (value.empty() || !std::all_of(value.begin(), value.end(), IsIdentChar) ||
              !r.AssignedExpression(caller.line, call.line, value).empty())
            continue;
          if (IsImpl(parent, LastName(h.reached_from))) {
            const auto& held = RememberedAssumptionsFor(parent).defaults;
            if (auto v = ImplParameterValue(parent, LastName(h.reached_from), value, held)) site[params[i].name] = *v;
            continue;
          }
          if (!passed_on) passed_on = HelperBindings(parent, LastName(h.reached_from), depth + 1);
          if (auto it = passed_on->find(value); it != passed_on->end()) site[params[i].name] = it->second;
        }
        KeepAgreed(&agreed, std::move(site));
      }
      return agreed.value_or(Bindings{});
    }
    return {};
  }

  // Decides the conditions written in helper `fn` that its bindings decide
  // (`activation == Activation::GELU` is false where the default binds);
  // kept like a selection's, by condition, file and parent op. Two ways
  // that disagree leave it open.
  void BindHelperConditions(const OpStep& parent, const std::string& fn, const std::vector<Condition>& conditions) {
    Bindings bound;
    bool read = false;
    const Assumptions& a = RememberedAssumptionsFor(parent);
    for (const auto& c : conditions) {
      if (c.kind == ConditionKind::kDevice || c.kind == ConditionKind::kPreprocessor ||
          EvaluateOnce(c.text, a) != Tri::kUnknown)
        continue;
      if (!read) {  // once per helper and op: every call site of the edge asks again
        auto [slot, fresh] = helper_bindings_.try_emplace({&parent, fn});
        if (fresh) slot->second = HelperBindings(parent, fn);
        bound = slot->second;
        read = true;
      }
      if (bound.empty()) return;
      Assumptions with = a;
      for (const auto& [name, value] : bound) with.defaults[name] = value;
      Tri t = EvaluateCondition(c.text, false, with);
      std::string key = DecidedKey(parent, c);
      if (binding_log_) binding_log_->push_back({key, t});
      Bind(&bound_, key, t);
    }
  }

  // --- typical path ----------------------------------------------------------

  // Conditions of an edge out of `parent`'s implementation, evaluated with
  // the defaults of the parent op's schema arguments.
  Tri Evaluate(const OpStep& parent, const std::vector<Condition>& when, bool schema_defaults = true) const override {
    const Assumptions& a = schema_defaults ? RememberedAssumptionsFor(parent) : a_;
    // C and !C read at one place (after an if/else whose every branch returns): never taken.
    for (const auto& c : when)
      for (const auto& d : when)
        if (c.negated != d.negated && c.text == d.text && c.where.line == d.where.line && c.where.file == d.where.file)
          return Tri::kFalse;
    Tri v = Tri::kTrue;
    for (const auto& c : when) {
      // What a predicate's body decides comes first: the vocabulary alone
      // decides a library check by its name.
      Tri t = Tri::kUnknown;
      if (by_body_.count(c.text))
        if (auto d = selected_.find(DecidedKey(parent, c)); d != selected_.end()) t = d->second;
      if (t == Tri::kUnknown) t = EvaluateOnce(c.text, a);
      if (t == Tri::kUnknown)
        if (auto d = selected_.find(DecidedKey(parent, c)); d != selected_.end()) t = d->second;
      if (t == Tri::kUnknown)
        if (auto d = bound_.find(DecidedKey(parent, c)); d != bound_.end()) t = d->second;
      if (t == Tri::kUnknown) t = WithLocals(c, a);
      if (c.negated) t = t == Tri::kTrue ? Tri::kFalse : t == Tri::kFalse ? Tri::kTrue : Tri::kUnknown;
      if (t == Tri::kFalse) return Tri::kFalse;
      if (t == Tri::kUnknown) v = Tri::kUnknown;
    }
    return v;
  }

  // A C++ condition on the locals it reads (trace/local_values.h), once
  // per place and set of assumptions: the launches of one op share their
  // holders' guard chains.
  Tri WithLocals(const Condition& c, const Assumptions& a) const {
    if (c.kind == ConditionKind::kDevice || c.kind == ConditionKind::kPreprocessor || !c.where.valid())
      return Tri::kUnknown;
    std::string key = c.where.file + ":" + std::to_string(c.where.line) + ":" + c.text;
    auto [slot, fresh] = with_locals_[&a].try_emplace(std::move(key), Tri::kUnknown);
    if (fresh) slot->second = EvaluateWithLocals(c.text, locals_.Of(c.text, c.where, a_), a);
    return slot->second;
  }

  // AssumptionsFor, made once per parent (EntryArguments forgets it when
  // it learns what the Python call passes): every condition of every edge
  // out of a parent is evaluated with them.
  // EvaluateCondition, once per condition text and set of assumptions (a_,
  // or one op's remembered ones): a trace evaluates the same long guard
  // chains (copy_'s twenty) for every launch and edge below them.
  Tri EvaluateOnce(const std::string& text, const Assumptions& a) const {
    auto [slot, fresh] = evaluated_[&a].try_emplace(text, Tri::kUnknown);
    if (fresh) slot->second = EvaluateCondition(text, false, a);
    return slot->second;
  }

  const Assumptions& RememberedAssumptionsFor(const OpStep& parent) const {
    auto it = assumptions_.find(&parent);
    if (it == assumptions_.end()) it = assumptions_.emplace(&parent, AssumptionsFor(parent)).first;
    return it->second;
  }

  // The assumptions with the defaults of the parent op's schema arguments,
  // overridden by what the Python call passes, also under the names its
  // implementation gives them (trace/impl_parameters.h).
  Assumptions AssumptionsFor(const OpStep& parent) const {
    Assumptions a = a_;
    if (parent.yaml)
      for (const auto& arg : parent.yaml->schema.arguments)
        if (arg.default_value) a.defaults[arg.name] = *arg.default_value;
    if (auto passed = entry_arguments_.find(&parent); passed != entry_arguments_.end())
      for (const auto& [name, value] : passed->second) {
        if (value) a.defaults[name] = *value;
        else a.defaults.erase(name);
      }
    for (const auto& [cpp, schema] : ImplParameterNames(parent))
      if (auto it = a.defaults.find(schema); it != a.defaults.end()) a.defaults[cpp] = AsCppArgument(it->second);
    return a;
  }

  // Which conditions of each C++ edge the assumptions leave open: an open
  // branch is shown with the condition that decides it, not a decided one
  // written inside it (nll_loss_nd: `self.sym_sizes() == target.sym_sizes()`,
  // not `label_smoothing > 0.0`).
  void MarkOpenConditions() {
    for (auto& op : t_.ops) {
      const OpStep* parent = op.reached_from.empty() ? nullptr : Parent(op);
      if (!parent || parent->role != op.role) continue;
      for (auto& c : op.when) {
        const Tri value = Evaluate(*parent, {c});
        c.open = c.kind != ConditionKind::kDevice && value == Tri::kUnknown;
        c.holds = value == Tri::kTrue;
      }
    }
  }

  // The value of the edge parent -> op under the assumptions: nothing when
  // the parent is off the path, open below an open parent -- an entry op an
  // undecided Python condition keeps on the path included (`if M == 1:
  // return torch.ones(...)`: what ones calls runs only when M is 1).
  Tri EdgeValue(const OpStep* p, const OpStep& op, const std::vector<Condition>& when, bool found) const {
    if (!p || (!p->typical && !p->undecided)) return Tri::kFalse;
    if (p->role != op.role) return p->undecided ? Tri::kUnknown : Tri::kTrue;  // the backward of an open op
    Tri v = found ? Evaluate(*p, when) : Tri::kUnknown;
    return (!p->typical || p->undecided) && v == Tri::kTrue ? Tri::kUnknown : v;
  }

  // An op called by several ops is on the path when any of the calls is:
  // the caller whose call the assumptions decide best (runs, else open)
  // becomes reached_from, and the edge's conditions its call's.
  Tri TakeBestCaller(size_t i, OpStep& op, const OpStep* parent, Tri v, std::vector<CallerEdge>& others) {
    for (CallerEdge& other : others) {
      Tri w = EdgeValue(other.parent, op, other.when, other.found);
      if (Rank(w) <= Rank(v)) continue;
      CallerEdge was{parent, std::move(op.when), edge_found_.count(i) > 0, op.called_at};
      std::replace(op.also_reached_from.begin(), op.also_reached_from.end(), other.parent->name, op.reached_from);
      op.reached_from = other.parent->name;
      op.when = std::move(other.when);
      op.called_at = other.site;
      if (other.found) edge_found_.insert(i);
      else edge_found_.erase(i);
      parent = other.parent;
      other = std::move(was);
      v = w;
    }
    return v;
  }

  void MarkTypical() {
    for (int pass = 0; pass < kTypicalPathPasses; ++pass) {
      bool changed = false;
      for (size_t i = 0; i < t_.ops.size(); ++i) {
        OpStep& op = t_.ops[i];
        Tri v;
        if (op.reached_from.empty()) {
          v = op.role == OpRole::kForward ? entry_python_[i] : Tri::kTrue;
          if (op.role == OpRole::kForward && t_.python.empty()) v = Tri::kTrue;
        } else {
          // Below an undecided op, what its edge does not rule out is
          // undecided too (both sides of an open condition stay visible).
          const OpStep* p = Parent(op);
          v = EdgeValue(p, op, op.when, edge_found_.count(i) > 0);
          if (auto others = other_callers_.find(i); others != other_callers_.end())
            v = TakeBestCaller(i, op, p, v, others->second);
          if (op.role == OpRole::kBackward && p && p->role == OpRole::kForward && v != Tri::kFalse) {
            Tri named = InTakenFormula(op);
            if (named != Tri::kTrue) v = named;
          }
        }
        // An undecided Python condition keeps both sides on the path (it
        // picks among argument forms: the entry ops all stay candidates),
        // but for an optional step the code goes on without; an
        // undecided C++ condition picks among backends and leaves its branch
        // off the path. Both are marked undecided.
        bool python_entry = op.reached_from.empty() && op.role == OpRole::kForward;
        bool typical = v == Tri::kTrue || (v == Tri::kUnknown && python_entry && !optional_step_[i]);
        bool undecided = v == Tri::kUnknown;
        changed = changed || typical != op.typical || undecided != op.undecided;
        op.typical = typical;
        op.undecided = undecided;
      }
      if (!changed) break;
    }
  }

  // --- selection functions ---------------------------------------------------

  // `backend == SDPBackend::flash_attention` where the function computing
  // `backend` cannot return that member for the assumed dtype (its every
  // return is guarded by a predicate whose dtype lists exclude it), or
  // tries a candidate the dtype does not rule out before it: false (`!=`:
  // true); true where it is the first candidate of its priority order the
  // dtype does not rule out (trace/dtype_gates.h). Kept by condition, file
  // and parent op for Evaluate.
  //
  // A condition calling a predicate (`is_fused_kernel_acceptable(input,
  // p)`, `cudnn_is_acceptable(input)`) is its body's expression inlined
  // (trace/inline_predicates.h), evaluated like the edge's own; where that
  // decides, it wins over the predicate's name (and only over that: the
  // vocabulary reads a body's words out of their context).
  void DecideSelections() {
    for (size_t i = 0; i < t_.ops.size(); ++i) {
      const OpStep& op = t_.ops[i];
      const OpStep* parent = op.reached_from.empty() ? nullptr : Parent(op);
      if (!parent || parent->role != op.role || op.role != OpRole::kForward) continue;
      DecideSelectionsOf(*parent, op.when);
      if (auto others = other_callers_.find(i); others != other_callers_.end())
        for (const CallerEdge& other : others->second) DecideSelectionsOf(*other.parent, other.when);
    }
  }

  void DecideSelectionsOf(const OpStep& caller, const std::vector<Condition>& when) override {
    const Assumptions& a = RememberedAssumptionsFor(caller);
    for (const auto& c : when) {
      std::string key = DecidedKey(caller, c);
      if (c.kind == ConditionKind::kDevice || c.kind == ConditionKind::kPreprocessor || selected_.count(key)) continue;
      const bool decided = EvaluateOnce(c.text, a) != Tri::kUnknown;
      if (decided && !DecidedByLibraryName(c.text, a)) continue;
      if (std::string inlined = InlinePredicates(ix_, c.text, c.where.file, a); !inlined.empty()) {
        Tri t = EvaluateCondition(inlined, false, a);
        if (t != Tri::kUnknown) {
          selected_[key] = t;
          if (decided) by_body_.insert(c.text);
          continue;
        }
      }
      if (decided) continue;
      bool equal = c.text.find("==") != std::string::npos, differ = c.text.find("!=") != std::string::npos;
      if (equal == differ) continue;
      std::string member = EnumMember(c.text);
      if (member.empty()) continue;
      Location where;
      std::string fn = Decider(caller, c, &where);
      Tri picks = fn.empty() ? Tri::kUnknown : SelectionPicks(ix_, fn, where, member, a_.dtype);
      if (picks == Tri::kUnknown) continue;
      selected_[key] = equal ? picks : (picks == Tri::kTrue ? Tri::kFalse : Tri::kTrue);
    }
  }

  // The function whose value a condition tests, followed from a local
  // through assignments, casts, stubs and returns.
  std::string Decider(const OpStep& parent, const Condition& c, Location* where) {
    for (const std::string& f : CalledFunctions(c.text)) {
      // A predicate the assumptions decide (GradMode::is_enabled) is no selection.
      // Library predicates (use_cudnn, use_miopen ...) are selections even
      // though the assumptions decide them.
      bool library = f.find("cudnn") != std::string::npos || f.find("miopen") != std::string::npos ||
                     f.find("mkldnn") != std::string::npos || f.find("onednn") != std::string::npos;
      if (!library && EvaluateCondition(f + "()", false, a_) != Tri::kUnknown) continue;
      std::string found = FollowFunction(parent, LastName(f), 0, where, c.where.file);
      if (!found.empty()) return found;
    }
    std::string var = LoneVariable(c.text);
    if (var.empty() || !c.where.valid()) return "";
    return FollowVariable(parent, c.where.file, 1, c.where.line, var, 0, where);
  }

  std::string FollowVariable(const OpStep& parent, const std::string& file, int from, int before,
                             const std::string& var, int depth, Location* where) {
    if (depth > kValueDepth) return "";
    std::string expr = Reader(file).AssignedExpression(from, before, var);
    if (expr.empty()) return "";
    // `static_cast<T>(x)` follows x; `f(x)` reads the same, so when x leads
    // nowhere, f itself is the candidate (select_sdp_backend(kernel_params)).
    std::string inner = CastOperand(expr);
    if (!inner.empty() && inner != var) {
      std::string found = FollowVariable(parent, file, from, before, inner, depth + 1, where);
      if (!found.empty()) return found;
    }
    for (const std::string& f : CalledFunctions(expr)) {
      std::string found = FollowFunction(parent, LastName(f), depth + 1, where, file);
      if (!found.empty()) return found;
    }
    return "";
  }

  // A stub leads to its registration for the traced device, whose returns
  // are followed; any other function is the decider when it is defined.
  std::string FollowFunction(const OpStep& parent, const std::string& fn, int depth, Location* where,
                             const std::string& context_file = "") {
    if (depth > kValueDepth) return "";
    for (const auto& s : parent.stubs) {
      if (s.name != fn) continue;
      for (const auto& r : s.registrations) {
        bool mine = CodeDeviceOf(r.device) == AssumedDevice(a_);
        if (!mine || !r.target_definition.valid()) continue;
        const Location& def = r.target_definition;
        for (const std::string& ret : Reader(def.file).ReturnedExpressions(def.line)) {
          std::string v = CastOperand(ret);
          if (v.empty()) v = LoneVariable(ret);
          std::string found = v.empty() ? "" : FollowVariable(parent, def.file, def.line, 0, v, depth + 1, where);
          if (found.empty())
            for (const std::string& f : CalledFunctions(ret)) {
              found = FollowFunction(parent, LastName(f), depth + 1, where, def.file);
              if (!found.empty()) break;
            }
          if (!found.empty()) return found;
        }
      }
      return "";
    }
    if (LastName(fn).ends_with("_stub")) return "";
    // Its definition: the one in the file asking, else the only one; among
    // several elsewhere, the name without a location (never a guess).
    std::vector<const CppFunction*> defs;
    for (uint32_t id : ix_.cpp.FunctionsNamed(fn)) defs.push_back(&ix_.cpp.functions()[id]);
    if (defs.empty()) return "";
    const CppFunction* pick = defs.size() == 1 ? defs[0] : nullptr;
    for (const CppFunction* f : defs)
      if (ix_.cpp.file(f->file) == context_file) pick = f;
    *where = pick ? Location{ix_.cpp.file(pick->file), static_cast<int>(pick->line), ""} : Location{};
    return fn;
  }

  // Selections: in the implementation of each op on the main path, every
  // call whose condition names a deciding function and whose other
  // conditions do not rule it out; grouped by that function, one
  // alternative per call, typical when all of the call's conditions hold
  // under the assumptions.
  void FindSelections() {
    std::map<std::pair<std::string, std::string>, size_t> by_key;  // (function, op) -> index
    for (const auto& op : t_.ops) {
      if (op.role != OpRole::kForward || !op.typical) continue;
      std::set<std::string> walked;
      for (const auto& im : op.impls) {
        bool mine = StartsWith(im.key, "Composite") || CodeDeviceOf(im.key) == AssumedDevice(a_);
        if (!mine || !im.where.valid() || !walked.insert(im.where.file + ":" + std::to_string(im.where.line)).second)
          continue;
        for (const auto& call : Reader(im.where.file).CallsIn(im.where.line)) {
          if (!WorthNaming(ix_, call.callee)) continue;
          std::vector<Condition> conds = ConditionsIn(call.conditions, im.where.file);
          for (auto it = conds.rbegin(); it != conds.rend(); ++it) {
            if (it->kind == ConditionKind::kPreprocessor || it->kind == ConditionKind::kDevice) continue;
            // The build or the tensor decides it (`unless defined(C10_MOBILE)
            // && xnnpack::use_linear(...)`): no choice; a library's name alone
            // (use_cudnn) leaves one.
            if (EvaluateOnce(it->text, a_) != Tri::kUnknown && !DecidedByLibraryName(it->text, a_)) continue;
            Location where;
            std::string fn = Decider(op, *it, &where);
            if (fn.empty() || fn == call.callee) continue;
            // What the call's other conditions rule out for this tensor runs
            // on no choice of this decider (the CPU branch inside the flash
            // attention case of a CUDA trace); an outer one may still choose it.
            std::vector<Condition> others = conds;
            others.erase(others.begin() + (std::prev(it.base()) - conds.begin()));
            if (Evaluate(op, others) == Tri::kFalse) continue;
            auto key = std::make_pair(fn, op.name);
            auto found = by_key.find(key);
            if (found == by_key.end()) {
              found = by_key.emplace(key, t_.selections.size()).first;
              t_.selections.push_back({fn, where, op.name, {}});
            }
            SelectionStep& s = t_.selections[found->second];
            std::string cond = it->Describe();
            bool listed = false;
            for (const auto& alt : s.alternatives) listed = listed || (alt.op == call.callee && alt.condition == cond);
            if (!listed) s.alternatives.push_back({call.callee, cond, Evaluate(op, conds) == Tri::kTrue, it->where});
            break;
          }
        }
      }
    }
  }

  const Index& ix_;
  Trace& t_;
  Assumptions a_;
  std::map<std::string, std::shared_ptr<const std::string>> texts_;
  std::unordered_map<std::string, const CppGuardReader*> readers_;  // Reader
  std::map<size_t, Tri> entry_python_;
  std::map<size_t, bool> optional_step_;                     // entry ops behind an open optional step (EntryConditions)
  std::set<size_t> edge_found_;                              // ops whose edge from the parent is a listed call
  std::map<size_t, std::vector<CallerEdge>> other_callers_;  // each op's other callers (also_reached_from)
  FrameBindings bindings_{ix_, t_, a_};
  // "condition@file@parent" -> what a selection function or an inlined predicate decides
  std::map<std::string, Tri> selected_;
  // Conditions the vocabulary decides by a library's name whose predicate
  // body decided otherwise (their selected_ entry wins).
  std::set<std::string> by_body_;
  std::map<std::string, Tri> bound_;  // conditions in helpers, decided by their callers' arguments
  std::map<std::pair<const OpStep*, std::string>, Bindings> helper_bindings_;  // BindHelperConditions
  std::vector<std::pair<std::string, Tri>>* binding_log_ = nullptr;  // SharedEdge: what BindHelperConditions decides
  // Forward entry ops whose value only a later returned output carries: no first-order backward.
  std::set<std::string> later_outputs_only_;
  // Entry op -> what the Python call passes its schema arguments (nullopt: unknown).
  std::map<const OpStep*, std::map<std::string, std::optional<std::string>>> entry_arguments_;
  mutable std::map<const OpStep*, Assumptions> assumptions_;                                // RememberedAssumptionsFor
  mutable std::map<const Assumptions*, std::unordered_map<std::string, Tri>> evaluated_;    // EvaluateOnce
  mutable std::map<const Assumptions*, std::unordered_map<std::string, Tri>> with_locals_;  // WithLocals
  mutable LocalValues locals_{ix_};
};

}  // namespace

void AnnotatePaths(const Index& index, const TraceOptions& options, Trace* trace) {
  PathAnnotator(index, options, *trace).Run();
}

}  // namespace optrace
