// Ways are compared by how well the assumptions decide them: taken, then
// undecided, then not taken (BestWay) -- a helper called under `if not
// center:` and again unconditionally runs whenever its caller does. A way
// to a frame goes back through the calls leading there, kConditionDepth
// frames deep (trace/walk_bounds.h). An entry op's ways are those of the
// calls whose arguments fit its schema (an operator passes one).
#include "trace/entry_conditions.h"

#include <algorithm>
#include <set>

#include "base/text.h"
#include "py/py_guards.h"
#include "trace/either_branch.h"
#include "trace/guard_files.h"
#include "trace/path_rules.h"
#include "trace/sole_return.h"
#include "trace/walk_bounds.h"

namespace optrace {
namespace {

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

// Python reaches an op's Tensor method -- a hand-written one returns the
// tensor itself before dispatching (trace/tensor_methods.h) -- by `x.m()`,
// and through torchgen's binding of any op with a method variant, which
// calls `self.m(...)` (cpp_dispatch_target: torch.conj(x) is x.conj()).
// torch.ops.aten.m goes to the dispatcher.
bool ThroughTensorMethod(const PyCallStep& c, const OpStep& op) {
  if (c.kind == PyCallTarget::kMethod) return true;
  if (c.kind != PyCallTarget::kBridge && c.kind != PyCallTarget::kTorch) return false;
  if (StartsWith(c.callee, "torch.ops.") || !op.yaml) return false;
  const auto& variants = op.yaml->variants;
  return std::find(variants.begin(), variants.end(), "method") != variants.end();
}

}  // namespace

const std::string& PythonEntries::Text(const std::string& file) {
  auto& slot = texts_[file];
  if (!slot) {
    slot = ix_.FileText(file);
    if (!slot) slot = std::make_shared<const std::string>();
  }
  return *slot;
}

void PythonEntries::PythonConditions() {
  for (auto& f : t_.python) {
    if (!f.where.valid()) continue;
    const std::string& text = Text(f.where.file);
    for (auto& c : f.calls) {
      if (c.line <= 0) continue;
      for (const auto& p : PyLineConditions(PyLinesOf(ix_, f.where.file), c.line))
        c.when.push_back(PythonCondition(p, f.where.file));
      for (const auto& p : PyExpressionConditions(text, c.line, c.callee))
        c.when.push_back(PythonCondition(p, f.where.file));
    }
  }
}

// The conditions on the way to frame `symbol` from the entry, outermost
// first: among the calls leading there (each with the way to its own
// frame), the one the assumptions decide best.
void PythonEntries::FrameConditions(const std::string& symbol, int depth, std::vector<Condition>* out, Tri* value) {
  if (depth > kConditionDepth) return;
  BestWay best;
  for (const auto& f : t_.python) {
    if (f.symbol == symbol) continue;
    for (const auto& c : CallsTo(f, {symbol}))
      if (best.Offer(WayThrough(f, c, depth + 1))) break;
    if (best.rank == 2) break;
  }
  best.AppendTo(out, value);
}

// The way through call `c` of frame `f`: how `f` is reached, then `c`'s own conditions.
PythonEntries::Way PythonEntries::WayThrough(const PyFrame& f, const PyCallStep& c, int depth) {
  std::vector<Condition> when;
  Tri v = Tri::kTrue;
  FrameConditions(f.symbol, depth, &when, &v);
  Tri own = Tri::kTrue;
  Accumulate(f, c.when, &when, &own);
  // A call the frame cannot return without runs whenever the frame
  // does (sole_return.h): its open conditions hold for any input it accepts.
  // Asked once per call: every way through the frame asks again.
  if (own == Tri::kUnknown) {
    auto [sole, added] = sole_returns_.try_emplace(&c, false);
    if (added) sole->second = SoleReturn(ix_, bindings_, f, c);
    if (sole->second) own = Tri::kTrue;
  }
  Meet(&v, own);
  return {std::move(when), v};
}

void PythonEntries::Accumulate(const PyFrame& f, const std::vector<Condition>& when, std::vector<Condition>* out,
                               Tri* value) {
  for (const auto& c : when) {
    Tri t = bindings_.Evaluate(f, c);
    if (c.negated) t = Not(t);
    out->push_back(c);
    out->back().holds = t == Tri::kTrue;  // never why the entry op is off the path
    out->back().open = t == Tri::kUnknown;
    Meet(value, t);
  }
}

// Whether the frame's known values rule call `c` of frame `f` out: one of
// its conditions is decided false.
bool PythonEntries::RuledOut(const PyFrame& f, const PyCallStep& c) {
  for (const auto& condition : c.when) {
    const Tri t = bindings_.Evaluate(f, condition);
    if ((condition.negated ? Not(t) : t) == Tri::kFalse) return true;
  }
  return false;
}

// The Python argument parser picks, for each call, an overload its
// arguments fit: `q / s` never reaches div.Tensor_mode (rounding_mode= is
// not passed), whatever way `x.div(n, rounding_mode='trunc')` takes to it.
bool PythonEntries::Binds(const PyFrame& f, const PyCallStep& c, const OpStep& op) {
  if (!op.yaml) return true;
  bool fits = true;
  bindings_.ToSchema(f, c, *op.yaml, &fits);
  return fits;
}

EntryCalls PythonEntries::EntryArguments(const OpStep& op) {
  EntryCalls out;
  if (!op.yaml) return out;
  std::string full = "aten::" + op.name, base = "aten::" + std::string(OpBaseName(op.name));
  bool any_call = false, any_fits = false;
  for (const auto& f : t_.python) {
    for (const auto& c : f.calls) {
      if (c.resolved != full && c.resolved != base) continue;
      bool fits = true;
      auto site = bindings_.ToSchema(f, c, *op.yaml, &fits);
      any_call = true;
      if (!fits) continue;
      any_fits = true;
      // A call the frame's known values rule out passes nothing (nn.LSTM's
      // `_VF.lstm(input, batch_sizes, ...)` under `batch_sizes is not None`).
      if (RuledOut(f, c)) continue;
      KeepAgreed(&out.agreed, std::move(site));
    }
  }
  out.fits = !any_call || any_fits;
  return out;
}

bool PythonEntries::LeavesOverloadOpen(const OpStep& op) {
  std::string full = "aten::" + op.name, base = "aten::" + std::string(OpBaseName(op.name));
  bool any = false;
  for (const auto& f : t_.python)
    for (const auto& c : f.calls) {
      if (c.resolved != full && c.resolved != base) continue;
      // aten::where names the one-argument overload and the others alike.
      if ((c.resolved == full && full != base) || !bindings_.ArgumentsUnread(f, c)) return false;
      any = true;
    }
  return any;
}

bool PythonEntries::FeedsOnlyLaterOutputs(const OpStep& op) {
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

// An optional step is a lone `if` whose suite falls through (`if not
// is_batched: input = input.unsqueeze(1)`). The code goes on either way,
// so what the step calls is no form of the call the path picks among:
// open, never typical.
std::vector<Condition> PythonEntries::EntryConditions(const OpStep& op, Tri* value, bool* optional_step) {
  *value = Tri::kTrue;
  *optional_step = true;
  std::vector<Condition> out;
  std::string full = "aten::" + op.name, base = "aten::" + std::string(OpBaseName(op.name));
  auto passes_open_step = [&](const std::vector<Condition>& when) {
    return std::any_of(when.begin(), when.end(), [&](const Condition& c) { return bindings_.IsOpenOptionalStep(c); });
  };
  // The calls whose arguments fit the op; where none does (the op is then
  // no typical call's, ReadEntries), the way of any call names it.
  BestWay best;
  for (bool fitting_only : {true, false}) {
    for (const auto& f : t_.python) {
      for (const auto& c : CallsTo(f, {full, base})) {
        if (fitting_only && !Binds(f, c, op)) continue;
        auto way = WayThrough(f, c, 0);
        if (ThroughTensorMethod(c, op)) UnlessSelfReturn(ix_, a_, op, &way);
        if (way.second == Tri::kUnknown && !passes_open_step(way.first)) *optional_step = false;
        if (best.Offer(std::move(way))) break;
      }
      if (best.rank == 2) break;
    }
    if (best.rank >= 0) break;
  }
  best.AppendTo(&out, value);
  return out;
}

}  // namespace optrace
