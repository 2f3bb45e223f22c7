// An undecided Python condition keeps both sides on the path (it picks
// among argument forms: the entry ops all stay candidates), but for an
// optional step the code goes on without; an undecided C++ condition picks
// among backends and leaves its branch off the path. Both are marked
// undecided. Marks spread down the graph over kTypicalPathPasses passes
// (trace/walk_bounds.h), until none changes. An entry op the Python way
// rules out runs where an op on the path calls it in a way taken, and is
// then reached from that op.
#include "trace/typical_marks.h"

#include <algorithm>
#include <utility>

#include "base/text.h"
#include "trace/path_rules.h"
#include "trace/walk_bounds.h"

namespace optrace {
namespace {

// Whether a backward op is named where a first-order backward takes the
// formula (kTrue), where an open condition decides (kUnknown), or only
// in branches it never takes (kFalse), in the entries of the forward ops
// on the path (or open). The backward of a forward op an open condition
// reaches is open too: it runs only where that op does.
Tri InTakenFormula(const Trace& t, const std::set<std::string>& later_outputs_only, const OpStep& op) {
  std::string base(OpBaseName(op.name));
  auto has = [&](const std::vector<std::string>& v) { return std::find(v.begin(), v.end(), base) != v.end(); };
  Tri best = Tri::kFalse;
  for (const auto& b : t.backward) {
    if (!has(b.ops) || has(b.untaken)) continue;
    if (later_outputs_only.count(b.op) || b.below_autograd) continue;
    Tri forward = Tri::kFalse;
    for (const auto& f : t.ops) {
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

}  // namespace

void MarkTypical(Trace& t, const PathValues& values, PathEdges* edges) {
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
        if (op.role == OpRole::kBackward && p && p->role == OpRole::kForward && v != Tri::kFalse) {
          Tri named = InTakenFormula(t, edges->later_outputs_only, op);
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
// a delegate.
void FoldStructuredDelegates(Trace& t) {
  for (OpStep& op : t.ops) {
    if (!op.typical || op.reached_from.empty()) continue;
    bool only_delegated = DelegatesTo(ParentOf(t, op), op);
    for (const std::string& caller : op.also_reached_from)
      only_delegated = only_delegated && DelegatesTo(OpNamed(t, caller, op.role), op);
    if (only_delegated) op.typical = false;
  }
}

}  // namespace optrace
