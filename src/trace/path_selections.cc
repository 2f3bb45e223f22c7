// `backend == SDPBackend::flash_attention` where the function computing
// `backend` cannot return that member for the assumed dtype (its every
// return is guarded by a predicate whose dtype lists exclude it), or
// tries a candidate the dtype does not rule out before it: false (`!=`:
// true); true where it is the first candidate of its priority order the
// dtype does not rule out. Kept by condition, file and parent op
// (DecidedKey) for PathValues::Evaluate.
//
// A condition calling a predicate (`is_fused_kernel_acceptable(input,
// p)`, `cudnn_is_acceptable(input)`) is its body's expression inlined,
// evaluated like the edge's own; where that decides, it wins over the
// predicate's name (and only over that: the vocabulary reads a body's
// words out of their context).
#include "trace/path_selections.h"

#include <algorithm>
#include <iterator>
#include <optional>
#include <set>
#include <utility>

#include "base/text.h"
#include "trace/caller_arguments.h"
#include "trace/code_scope.h"
#include "trace/condition_text.h"
#include "trace/decider_returns.h"
#include "trace/dtype_gates.h"
#include "trace/path_rules.h"
#include "trace/trace_internal.h"
#include "trace/walk_bounds.h"

namespace optrace {

void Selections::DecideAlongEdges(const Trace& t, const std::map<size_t, std::vector<CallerEdge>>& other_callers) {
  for (size_t i = 0; i < t.ops.size(); ++i) {
    const OpStep& op = t.ops[i];
    const OpStep* parent = op.reached_from.empty() ? nullptr : ParentOf(t, op);
    if (!parent || parent->role != op.role) continue;
    DecideSelectionsOf(*parent, op.when);
    if (auto others = other_callers.find(i); others != other_callers.end())
      for (const CallerEdge& other : others->second) DecideSelectionsOf(*other.parent, other.when);
  }
}

void Selections::DecideSelectionsOf(const OpStep& caller, const std::vector<Condition>& when) {
  const Assumptions& a = values_.AssumptionsOf(caller);
  for (const auto& c : when) {
    if (c.kind == ConditionKind::kDevice || c.kind == ConditionKind::kPreprocessor) continue;
    std::string key = DecidedKey(caller, c);
    if (values_.IsSelected(key)) continue;
    const bool decided = values_.EvaluateOnce(c.text, a) != Tri::kUnknown;
    if (decided && !DecidedByLibraryName(c.text, a)) continue;
    if (Tri t = values_.InlinedOnce(c, a); t != Tri::kUnknown) {
      values_.Select(key, t);
      if (decided) values_.DecidedByBody(c.text);
      continue;
    }
    if (decided) continue;
    if (Tri t = ByDeciderReturn(caller, c, a); t != Tri::kUnknown) {
      values_.Select(key, t);
      continue;
    }
    if (Tri t = ByPredicateReturns(caller, c); t != Tri::kUnknown) {
      values_.Select(key, t);
      continue;
    }
    bool equal = c.text.find("==") != std::string::npos, differ = c.text.find("!=") != std::string::npos;
    if (equal == differ) continue;
    std::string member = EnumMember(c.text);
    if (member.empty()) continue;
    Location where;
    std::string fn = Decider(caller, c, &where);
    Tri picks = fn.empty() ? Tri::kUnknown : SelectionPicks(ix_, fn, where, member, values_.assumptions());
    // Its returns read with their nested if/else guards (a MIOpen backend
    // under `else` of `params.transposed`).
    if (picks == Tri::kUnknown && !fn.empty() && where.valid()) {
      auto [slot, fresh] =
          can_return_.try_emplace(fn + "@" + where.file + ":" + std::to_string(where.line) + "@" + member);
      if (fresh) slot->second = DeciderCanReturn(ix_, readers_, fn, where, member, values_.assumptions());
      picks = slot->second;
    }
    // Read again with what this caller's call hands the decider.
    if (picks == Tri::kUnknown && !fn.empty() && where.valid())
      if (const ImplStep* holder = ImplementationHolding(ix_, caller, c.where)) {
        auto [slot, fresh] =
            can_return_.try_emplace(caller.name + "@" + holder->where.file + ":" + std::to_string(holder->where.line) +
                                    "@" + fn + "@" + where.file + ":" + std::to_string(where.line) + "@" + member);
        if (fresh) slot->second = DeciderCanReturnFor(ix_, readers_, caller, a, c.where, fn, where, member);
        picks = slot->second;
      }
    if (picks == Tri::kUnknown) continue;
    values_.Select(key, equal ? picks : (picks == Tri::kTrue ? Tri::kFalse : Tri::kTrue));
  }
}

// A condition on a local the decider's return assigns (`backend ==
// ConvBackend::Cudnn || ...`), with the local holding what the decider
// returns for this call (trace/decider_returns.h).
Tri Selections::ByDeciderReturn(const OpStep& caller, const Condition& c, const Assumptions& a) {
  std::string var = LoneVariable(c.text);
  if (var.empty() || !c.where.valid()) return Tri::kUnknown;
  Location where;
  std::string fn = Decider(caller, c, &where);
  if (fn.empty() || !where.valid()) return Tri::kUnknown;
  // Each case of one switch asks the same call: read once per implementation asking.
  const ImplStep* holder = ImplementationHolding(ix_, caller, c.where);
  if (!holder) return Tri::kUnknown;
  std::string key = caller.name + "@" + holder->where.file + ":" + std::to_string(holder->where.line) + "@" + fn + "@" +
                    where.file + ":" + std::to_string(where.line);
  auto [slot, fresh] = returns_.try_emplace(std::move(key));
  if (fresh) slot->second = DeciderReturn(ix_, readers_, caller, a, c.where, fn, where);
  const std::optional<std::string>& value = slot->second;
  if (!value) return Tri::kUnknown;
  Assumptions with = a;
  with.defaults[var] = *value;
  return EvaluateCondition(c.text, false, with);
}

// A condition that is one call of a predicate, or its negation
// (`can_use_expanded_index_path(mut_out, dim, index, src, true)`): what
// every return the assumptions leave reachable in its body says
// (PredicateHolds), read once per definition.
Tri Selections::ByPredicateReturns(const OpStep& caller, const Condition& c) {
  std::string_view text = TrimView(c.text);
  const bool negated = StartsWith(text, "!");
  if (negated) text = TrimView(text.substr(1));
  const size_t open = text.find('(');
  if (open == std::string_view::npos || text.back() != ')') return Tri::kUnknown;
  int depth = 0;
  for (size_t i = open; i + 1 < text.size(); ++i) {  // the first '(' closes at the end: one call, whole
    depth += text[i] == '(' ? 1 : text[i] == ')' ? -1 : 0;
    if (depth == 0) return Tri::kUnknown;
  }
  const std::string_view name = TrimView(text.substr(0, open));
  if (name.empty() || !std::all_of(name.begin(), name.end(), [](char ch) { return IsIdentChar(ch) || ch == ':'; }))
    return Tri::kUnknown;
  Location where;
  const std::string fn = FollowFunction(caller, LastName(std::string(name)), 0, &where, c.where.file);
  if (fn.empty() || !where.valid()) return Tri::kUnknown;
  auto [slot, fresh] = predicate_holds_.try_emplace(fn + "@" + where.file + ":" + std::to_string(where.line));
  if (fresh) slot->second = PredicateHolds(ix_, readers_, fn, where, values_.assumptions());
  return negated ? Not(slot->second) : slot->second;
}

// The function whose value a condition tests, followed from a local
// through assignments, casts, stubs and returns.
std::string Selections::Decider(const OpStep& parent, const Condition& c, Location* where) {
  for (const std::string& f : CalledFunctions(c.text)) {
    // A predicate the assumptions decide (GradMode::is_enabled) is no selection.
    // Library predicates (use_cudnn, use_miopen ...) are selections even
    // though the assumptions decide them.
    bool library = f.find("cudnn") != std::string::npos || f.find("miopen") != std::string::npos ||
                   f.find("mkldnn") != std::string::npos || f.find("onednn") != std::string::npos;
    if (!library && EvaluateCondition(f + "()", false, values_.assumptions()) != Tri::kUnknown) continue;
    std::string found = FollowFunction(parent, LastName(f), 0, where, c.where.file);
    if (!found.empty()) return found;
  }
  std::string var = LoneVariable(c.text);
  if (var.empty() || !c.where.valid()) return "";
  return FollowVariable(parent, c.where.file, 1, c.where.line, var, 0, where);
}

std::string Selections::FollowVariable(const OpStep& parent, const std::string& file, int from, int before,
                                       const std::string& var, int depth, Location* where) {
  if (depth > kValueDepth) return "";
  std::string expr = readers_.Of(file).AssignedExpression(from, before, var);
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
std::string Selections::FollowFunction(const OpStep& parent, const std::string& fn, int depth, Location* where,
                                       const std::string& context_file) {
  if (depth > kValueDepth) return "";
  for (const auto& s : parent.stubs) {
    if (s.name != fn) continue;
    for (const auto& r : s.registrations) {
      bool mine = CodeDeviceOf(r.device) == values_.assumptions().device;
      if (!mine || !r.target_definition.valid()) continue;
      const Location& def = r.target_definition;
      for (const std::string& ret : readers_.Of(def.file).ReturnedExpressions(def.line)) {
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

namespace {

// Whether a C++ function defined in `file` can run for a tensor on
// `device`: not in another backend's or library's folder (Vulkan's, MPS's
// ...; XNNPACK's, QNNPACK's and KleidiAI's run on CPU only). A name's
// definitions elsewhere say nothing: the call may be a library's
// (`ideep::eltwise_forward::compute`) that only shares their name.
bool DefinedFor(std::string_view file, CodeDevice device) {
  const std::string_view folder = BackendFolder(file);
  const bool cpu_library = folder == "/xnnpack/" || folder == "/qnnpack/" || folder == "/kleidiai/";
  return folder.empty() || (device == CodeDevice::kCpu && cpu_library);
}

// Whether what a branch calls by `name` can run for a tensor on `device`:
// an aten op (any overload) with a kernel for it -- its key, a composite
// one, or its structured delegate's; a dispatch stub with a registration
// for it, or of unknown build (one with none written, as torchgen's ufunc
// stubs: yes); any other C++ function with a definition DefinedFor it
// (none in the index: yes).
bool RunsOn(const Index& ix, const std::string& name, CodeDevice device) {
  if (name.ends_with("_stub")) {
    const std::vector<uint32_t> registrations = ix.cpp.RegistrationsOf(name);
    return registrations.empty() || std::any_of(registrations.begin(), registrations.end(), [&](uint32_t r) {
             const std::string& on = ix.cpp.registrations()[r].device;
             return on == Name(device) || on == "unknown";
           });
  }
  auto has_kernel = [&](const NativeFunction& fn) {
    if (fn.implicit_composite) return true;
    for (const auto& [key, kernel] : fn.dispatch)
      if (IsCompositeKey(key) || CodeDeviceOf(key) == device) return true;
    return false;
  };
  const std::string_view op = WithoutSymInt(name);  // at::x_symint: op x's SymInt form
  const std::vector<const NativeFunction*> overloads = ix.yaml.Overloads(op);
  if (overloads.empty()) {
    const std::vector<uint32_t> defs = ix.cpp.FunctionsNamed(name);
    return defs.empty() || std::any_of(defs.begin(), defs.end(), [&](uint32_t id) {
             return DefinedFor(ix.cpp.file(ix.cpp.functions()[id].file), device);
           });
  }
  for (const NativeFunction* fn : overloads) {
    if (fn->schema.is_out() || fn->autogen_from) continue;  // autogen's out= kernels are composite
    if (has_kernel(*fn)) return true;
    if (fn->structured_delegate)
      if (const NativeFunction* out = ix.yaml.Find(*fn->structured_delegate); out && has_kernel(*out)) return true;
  }
  return false;
}

}  // namespace

bool Selections::RuledOutByBuild(const Condition& c, const std::string& decider, const Location& where) const {
  if (c.negated || c.text.find("==") == std::string::npos || c.text.find("||") != std::string::npos ||
      c.text.find("&&") != std::string::npos || !where.valid())
    return false;
  const std::string member = EnumMember(c.text);
  if (member.empty()) return false;
  return !BuildCanReturn(ix_, readers_, decider, where, member, values_.assumptions());  // remembered per index
}

std::vector<SelectionStep> Selections::Find(const Trace& t) {
  std::vector<SelectionStep> found_all;
  const Assumptions& a = values_.assumptions();
  std::map<std::pair<std::string, std::string>, size_t> by_key;  // (function, op) -> index
  for (const auto& op : t.ops) {
    if (op.role != OpRole::kForward || !op.typical) continue;
    std::set<std::string> walked;
    for (const auto& im : op.impls) {
      bool mine = StartsWith(im.key, "Composite") || CodeDeviceOf(im.key) == a.device;
      if (!mine || !im.where.valid() || !walked.insert(im.where.file + ":" + std::to_string(im.where.line)).second)
        continue;
      for (const auto& call : readers_.Of(im.where.file).CallsIn(im.where.line)) {
        if (!WorthNaming(ix_, call.callee)) continue;
        std::vector<Condition> conds = ConditionsIn(call.conditions, im.where.file);
        for (auto it = conds.rbegin(); it != conds.rend(); ++it) {
          if (it->kind == ConditionKind::kPreprocessor || it->kind == ConditionKind::kDevice) continue;
          // The build or the tensor decides it (`unless defined(C10_MOBILE)
          // && xnnpack::use_linear(...)`), also through a local (efficient
          // attention's `in_capture_stream`: no CUDA graph is captured): no
          // choice; a library's name alone (use_cudnn) leaves one.
          if (values_.ByCode(*it, a) != Tri::kUnknown && !DecidedByLibraryName(it->text, a)) continue;
          Location where;
          std::string fn = Decider(op, *it, &where);
          if (fn.empty() || fn == call.callee) continue;
          // What the call's other conditions rule out for this tensor runs
          // on no choice of this decider (the CPU branch inside the flash
          // attention case of a CUDA trace); an outer one may still choose it.
          std::vector<Condition> others = conds;
          others.erase(others.begin() + (std::prev(it.base()) - conds.begin()));
          if (values_.Evaluate(op, others) == Tri::kFalse) continue;
          // A member no tensor gets on this build and device (MIOpen's on a
          // CUDA build, XNNPACK's for a CUDA tensor) is no alternative.
          if (RuledOutByBuild(*it, fn, where)) continue;
          auto key = std::make_pair(fn, op.name);
          auto found = by_key.find(key);
          if (found == by_key.end()) {
            found = by_key.emplace(key, found_all.size()).first;
            found_all.push_back({fn, where, op.name, {}});
          }
          SelectionStep& s = found_all[found->second];
          std::string cond = it->Describe();
          bool listed = false;
          for (const auto& alt : s.alternatives) listed = listed || (alt.op == call.callee && alt.condition == cond);
          if (!listed)
            s.alternatives.push_back({call.callee, cond, values_.Evaluate(op, conds) == Tri::kTrue, it->where});
          break;
        }
      }
    }
  }
  // A branch calling an op with no kernel for the traced device (cuDNN's
  // convolution in a CPU trace) is no choice a tensor there takes.
  for (SelectionStep& s : found_all) {
    std::set<std::string> elsewhere;
    for (const auto& alt : s.alternatives)
      if (!RunsOn(ix_, alt.op, a.device)) elsewhere.insert(alt.condition);
    std::erase_if(s.alternatives,
                  [&](const SelectionStep::Alternative& alt) { return elsewhere.count(alt.condition); });
  }
  std::erase_if(found_all, [](const SelectionStep& s) { return s.alternatives.empty(); });
  return found_all;
}

}  // namespace optrace
