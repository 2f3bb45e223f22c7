// The call of the decider is found among the calls of the implementation
// holding the asking condition (exactly one line may call it); its
// arguments bind to the decider's parameters by position.
#include "trace/decider_returns.h"

#include <map>
#include <memory>
#include <set>
#include <shared_mutex>
#include <unordered_map>
#include <vector>

#include "base/text.h"
#include "cpp/cpp_params.h"
#include "trace/caller_arguments.h"
#include "trace/condition_text.h"
#include "trace/dtype_gates.h"
#include "trace/inline_predicates.h"
#include "trace/local_values.h"
#include "trace/path_values.h"

namespace optrace {

namespace {

// Whether every definition of `callee` in the index takes its argument
// `position` by value or by const reference: it cannot change what it is given.
bool TakesUnchanged(const Index& ix, const std::string& callee, int position) {
  std::vector<uint32_t> defs = ix.cpp.FunctionsNamed(callee);
  if (defs.empty()) return false;
  for (uint32_t id : defs) {
    std::vector<std::string> params = SplitTopLevel(ix.cpp.functions()[id].params, ',');
    if (position >= static_cast<int>(params.size())) return false;
    const std::string& p = params[position];
    const bool reference = p.find('&') != std::string::npos || p.find('*') != std::string::npos;
    if (reference && p.find("const") == std::string::npos) return false;
  }
  return true;
}

// A value the caller's code fixes: a literal, or a parameter of its
// implementation `im` not assigned before `site`.
std::optional<std::string> FixedValue(const std::string& expr, const ImplStep& im, const Location& site,
                                      const CppGuardReader& reader, const Assumptions& a) {
  if (auto literal = LiteralValue(expr, false)) return literal;
  return ParameterAt(im, expr, site, reader, a);
}

// The truth a local flag of the caller holds at `site`, where the
// assumptions decide what it is assigned (`bool need_backward =
// GradMode::is_enabled() && (input.requires_grad() || ...)`,
// trace/local_values.h): "true" or "false"; nullopt for anything else.
std::optional<std::string> FlagValue(const Index& ix, const std::string& expr, const Location& site,
                                     const Assumptions& a) {
  if (LocalValues::BareNames(expr) != std::vector<std::string>{expr}) return std::nullopt;
  LocalValues locals(ix);
  const LocalsRead& read = locals.Of(expr, site, a);
  if (!read.assigned.count(expr) || read.sizes.count(expr)) return std::nullopt;
  const Tri t = EvaluateWithLocals(expr, read, a);
  if (t == Tri::kUnknown) return std::nullopt;
  return t == Tri::kTrue ? "true" : "false";
}

// What the members of local `object` hold at the call on `site`, as the
// caller's implementation `im` assigns them; members something may have
// changed since are left out.
std::map<std::string, std::string> MemberValues(const Index& ix, const ImplStep& im, const std::string& object,
                                                const std::string& decider, const Location& site,
                                                const CppGuardReader& reader, const Assumptions& a) {
  std::map<std::string, std::string> values;
  auto uses = reader.UsesOf(im.where.line, site.line, object);
  if (!uses) return values;
  std::set<std::string> changed;
  for (const ObjectUse& use : *uses) {
    switch (use.kind) {
      case ObjectUse::Kind::kAssign:
        // Made in an `#if` group, it may be one of several spellings.
        if (auto v = use.top_level && reader.PreprocessorConditions(use.line).empty()
                         ? FixedValue(use.value, im, site, reader, a)
                         : std::nullopt) {
          values[use.name] = *v;
          changed.erase(use.name);
        } else {
          changed.insert(use.name);
        }
        break;
      case ObjectUse::Kind::kMethodCall: {
        bool read = false;
        for (uint32_t id : ix.cpp.FunctionsNamed(use.name)) {
          const CppFunction& f = ix.cpp.functions()[id];
          if (ix.cpp.file(f.file) != site.file || !f.HasBody()) continue;
          read = true;
          for (const auto& [member, unused] : values)
            if (reader.Names(static_cast<int>(f.line), member)) changed.insert(member);
        }
        if (!read) return {};
        break;
      }
      case ObjectUse::Kind::kPassed:
        if (use.name != decider && !TakesUnchanged(ix, use.name, use.position)) return {};
        break;
      case ObjectUse::Kind::kOther:
        return {};
    }
  }
  for (const std::string& member : changed) values.erase(member);
  return values;
}

// A local object's parameter name -> the members whose values are bound
// (as `name.member` in the assumptions' defaults).
using Objects = std::map<std::string, std::vector<std::string>>;

// Whether a return's value names enum member `member` (by its last two
// names: `ConvBackend::Miopen` for `at::native::ConvBackend::Miopen`),
// alone or as an arm of a conditional (`x.is_mkldnn() ? ConvBackend::MkldnnEmpty
// : ConvBackend::Empty`).
bool ReturnsMember(std::string_view value, std::string_view member) {
  member = EnumTail(member);
  for (size_t at = value.find(member); at != std::string_view::npos; at = value.find(member, at + 1)) {
    const size_t end = at + member.size();
    const bool starts = at == 0 || !(IsIdentChar(value[at - 1]));
    const bool ends = end == value.size() || !IsIdentChar(value[end]);
    if (starts && ends) return true;
  }
  return false;
}

struct ReachableReturn {
  std::string value;
  bool reachable = false;
};

class ReturnReader {
 public:
  ReturnReader(const Index& ix, GuardReaders& readers) : ix_(ix), readers_(readers) {}

  // What `def` (in `file`) returns under `bound`: the first return whose
  // guards hold after every earlier one's are ruled out; a return of
  // another function of the file called with what is bound is followed.
  std::optional<std::string> Returned(const CppFunction& def, const std::string& file, const Assumptions& bound,
                                      const Objects& objects, int depth) {
    auto returns = readers_.Of(file).ReturnsOf(static_cast<int>(def.line));
    if (!returns) return std::nullopt;
    const GuardedReturn* r =
        TakenReturn(*returns, [&](const std::string& guard) { return GuardValue(guard, file, bound, objects); });
    if (!r) return std::nullopt;
    if (IsQualifiedConstant(r->value)) return r->value;  // what a selection returns
    return depth < kForwardDepth ? Forwarded(*r, file, bound, objects, depth) : std::nullopt;
  }

  // Each of `def`'s returns under `bound`, in order, with whether it can
  // be taken: its guards not ruled out, no earlier return certainly
  // taken; nullopt when the body is not read.
  std::optional<std::vector<ReachableReturn>> Reachable(const CppFunction& def, const std::string& file,
                                                        const Assumptions& bound, const Objects& objects) {
    auto returns = readers_.Of(file).ReturnsOf(static_cast<int>(def.line), /*reachable=*/true);
    if (!returns) return std::nullopt;
    std::vector<ReachableReturn> out;
    bool certain_before = false;
    for (const GuardedReturn& r : *returns) {
      Tri taken = certain_before ? Tri::kFalse : Tri::kTrue;
      for (const auto& g : r.guards) {
        if (taken == Tri::kFalse) break;
        Tri t = g.loop ? Tri::kUnknown : GuardValue(g.text, file, bound, objects);
        Meet(&taken, g.negated ? Not(t) : t);
      }
      out.push_back({r.value, taken != Tri::kFalse});
      certain_before = certain_before || taken == Tri::kTrue;
    }
    return out;
  }

 private:
  static constexpr int kForwardDepth = 2;  // select_conv_backend -> _select_conv_backend

  Tri GuardValue(const std::string& guard, const std::string& file, const Assumptions& bound, const Objects& objects) {
    std::string text = guard;
    for (const auto& [object, members] : objects)
      if (std::string inlined = InlineMemberPredicates(ix_, text, file, object); !inlined.empty()) text = inlined;
    if (std::string inlined = InlinePredicates(ix_, text, file, bound); !inlined.empty()) text = inlined;
    return EvaluateCondition(text, false, bound);
  }

  // `return g(args);`: what g returns with its parameters bound to what
  // the args hold here (an object's members go along).
  std::optional<std::string> Forwarded(const GuardedReturn& r, const std::string& file, const Assumptions& bound,
                                       const Objects& objects, int depth) {
    std::vector<std::string> called = CalledFunctions(r.value);
    if (called.empty() || !r.value.starts_with(called.front() + "(")) return std::nullopt;
    const std::string callee = LastName(called.front());
    auto call = readers_.Of(file).CallWritten(r.line, callee);
    if (!call) return std::nullopt;
    const CppFunction* def = DefinitionTaking(ix_, callee, file, call->arguments.size(), Location{});
    if (!def) return std::nullopt;
    Assumptions inner = bound;
    Objects inner_objects;
    const std::vector<CppParameter>& params = ParseCppParameters(def->params);
    for (size_t i = 0; i < params.size(); ++i) {
      const std::string& name = params[i].name;
      const std::string& arg = call->arguments[i];
      inner.defaults.erase(name);
      if (name.empty()) continue;
      if (auto literal = LiteralValue(arg, true)) inner.defaults[name] = *literal;
      else if (auto it = bound.defaults.find(arg); it != bound.defaults.end()) inner.defaults[name] = it->second;
      if (auto o = objects.find(arg); o != objects.end()) {
        for (const std::string& member : o->second)
          inner.defaults[name + "." + member] = bound.defaults.at(arg + "." + member);
        inner_objects[name] = o->second;
      }
    }
    return Returned(*def, file, inner, inner_objects, depth + 1);
  }

  const Index& ix_;
  GuardReaders& readers_;
};

}  // namespace

const CppFunction* DefinitionTaking(const Index& ix, const std::string& name, const std::string& file, size_t arity,
                                    const Location& preferred) {
  const CppFunction* found = nullptr;
  for (uint32_t id : ix.cpp.FunctionsNamed(name)) {
    const CppFunction& f = ix.cpp.functions()[id];
    if (ix.cpp.file(f.file) != file || !f.HasBody() || ParseCppParameters(f.params).size() != arity) continue;
    if (static_cast<int>(f.line) == preferred.line) return &f;
    if (found) return nullptr;
    found = &f;
  }
  return found;
}

const GuardedReturn* TakenReturn(const std::vector<GuardedReturn>& returns,
                                 const std::function<Tri(const std::string&)>& truth) {
  for (const GuardedReturn& r : returns) {
    Tri taken = Tri::kTrue;
    for (const auto& g : r.guards) {
      if (taken == Tri::kFalse) break;
      const Tri t = truth(g.text);
      Meet(&taken, g.negated ? Not(t) : t);
    }
    if (taken == Tri::kFalse) continue;
    return taken == Tri::kTrue ? &r : nullptr;
  }
  return nullptr;
}

namespace {

// A decider's definition with its parameters bound to what `op`'s
// implementation hands them at its one call.
struct BoundCall {
  const CppFunction* def = nullptr;
  Assumptions bound;
  Objects objects;
};

std::optional<BoundCall> BindCall(const Index& ix, GuardReaders& readers, const OpStep& op, const Assumptions& a,
                                  const Location& asked, const std::string& decider, const Location& where) {
  const ImplStep* im = ImplementationHolding(ix, op, asked);
  if (!im) return std::nullopt;
  const CppGuardReader& caller = readers.Of(im->where.file);
  std::set<int> lines;
  for (const auto& call : caller.CallsIn(im->where.line))
    if (call.callee == decider) lines.insert(call.line);
  if (lines.size() != 1) return std::nullopt;
  const Location site{im->where.file, *lines.begin(), ""};
  auto call = caller.CallWritten(site.line, decider);
  const CppFunction* def = call ? DefinitionTaking(ix, decider, where.file, call->arguments.size(), where) : nullptr;
  if (!def) return std::nullopt;

  // The decider's parameters, bound to what the call hands them.
  BoundCall b{def, a, {}};
  const std::vector<CppParameter>& params = ParseCppParameters(def->params);
  for (size_t i = 0; i < params.size(); ++i) {
    const std::string& name = params[i].name;
    const std::string& arg = call->arguments[i];
    b.bound.defaults.erase(name);
    if (name.empty()) continue;
    if (auto v = FixedValue(arg, *im, site, caller, a)) b.bound.defaults[name] = *v;
    else if (params[i].type.find("bool") != std::string::npos)
      if (auto flag = FlagValue(ix, arg, site, a)) b.bound.defaults[name] = *flag;
    for (auto& [member, value] : MemberValues(ix, *im, arg, decider, site, caller, a)) {
      b.bound.defaults[name + "." + member] = value;
      b.objects[name].push_back(member);
    }
  }
  return b;
}

}  // namespace

std::optional<std::string> DeciderReturn(const Index& ix, GuardReaders& readers, const OpStep& op, const Assumptions& a,
                                         const Location& asked, const std::string& decider, const Location& where) {
  const auto b = BindCall(ix, readers, op, a, asked, decider, where);
  if (!b) return std::nullopt;
  return ReturnReader(ix, readers).Returned(*b->def, where.file, b->bound, b->objects, 0);
}

namespace {

// Each named parameter of `f` as an object (members already bound stay):
// its bool methods the file defines are inlined.
void ParametersAsObjects(const CppFunction& f, Objects* objects) {
  for (const CppParameter& p : ParseCppParameters(f.params))
    if (!p.name.empty()) objects->try_emplace(p.name);
}

// `decider`'s definition at `where`, with its parameters as objects whose
// members nothing binds (`params.use_miopen(...)` reads `params.transposed`):
// their bool methods the file defines are still inlined, so a body's build
// check decides them.
const CppFunction* DeciderAt(const Index& ix, const std::string& decider, const Location& where, Objects* objects) {
  for (uint32_t id : ix.cpp.FunctionsNamed(decider)) {
    const CppFunction& f = ix.cpp.functions()[id];
    if (ix.cpp.file(f.file) != where.file || static_cast<int>(f.line) != where.line || !f.HasBody()) continue;
    ParametersAsObjects(f, objects);
    return &f;
  }
  return nullptr;
}

// The reachable returns of a decider under one set of assumptions, per
// index: they read the index alone, every member asked of one decider
// shares them, and every trace of `trace --all` (or the daemon's) asks the
// same deciders.
struct ReachableMemo {
  std::shared_mutex mu;
  std::unordered_map<std::string, std::optional<std::vector<ReachableReturn>>> returns;
};

// Tri answers by key (BuildCanReturn's).
struct AnswerMemo {
  std::shared_mutex mu;
  std::unordered_map<std::string, Tri> answers;
};

std::optional<std::vector<ReachableReturn>> ReadReachable(const Index& ix, GuardReaders& readers,
                                                          const std::string& decider, const Location& where,
                                                          const Assumptions& a) {
  Objects objects;
  const CppFunction* def = DeciderAt(ix, decider, where, &objects);
  if (!def) return std::nullopt;
  Assumptions by_body = a;
  by_body.library_names = false;  // use_cudnn_depthwise's name says nothing of its body
  return ReturnReader(ix, readers).Reachable(*def, where.file, by_body, objects);
}

}  // namespace

namespace {

// The returns of `decider` (defined at `where`) and whether each is
// reachable under `a`, read once per index, definition and assumptions;
// nullopt when its body is not read.
const std::optional<std::vector<ReachableReturn>>& ReachableReturns(const Index& ix, GuardReaders& readers,
                                                                    const std::string& decider, const Location& where,
                                                                    const Assumptions& a) {
  auto& memo = *ix.Derived<std::unique_ptr<ReachableMemo>>("decider returns reachable",
                                                           [] { return std::make_unique<ReachableMemo>(); });
  const std::string key = decider + '\x1e' + where.file + ':' + std::to_string(where.line) + '\x1e' + a.Key();
  {
    std::shared_lock<std::shared_mutex> lock(memo.mu);
    if (auto it = memo.returns.find(key); it != memo.returns.end()) return it->second;
  }
  auto read = ReadReachable(ix, readers, decider, where, a);
  std::unique_lock<std::shared_mutex> lock(memo.mu);
  return memo.returns.emplace(key, std::move(read)).first->second;  // entries stay put
}

}  // namespace

namespace {

// kFalse when every one of `returns` naming `value` is unreachable (and
// one does), kUnknown otherwise.
Tri CanReturn(const std::vector<ReachableReturn>& returns, const std::string& value) {
  bool written = false;  // some return names `value`
  for (const ReachableReturn& r : returns) {
    if (!ReturnsMember(r.value, value)) continue;
    if (r.reachable) return Tri::kUnknown;
    written = true;
  }
  return written ? Tri::kFalse : Tri::kUnknown;
}

}  // namespace

Tri DeciderCanReturn(const Index& ix, GuardReaders& readers, const std::string& decider, const Location& where,
                     const std::string& value, const Assumptions& a) {
  const auto& returns = ReachableReturns(ix, readers, decider, where, a);
  return returns ? CanReturn(*returns, value) : Tri::kUnknown;
}

Tri DeciderCanReturnFor(const Index& ix, GuardReaders& readers, const OpStep& op, const Assumptions& a,
                        const Location& asked, const std::string& decider, const Location& where,
                        const std::string& value) {
  // Every member a switch asks reads the same bound call: once per index,
  // implementation holding the call, decider and assumptions.
  const ImplStep* im = ImplementationHolding(ix, op, asked);
  if (!im) return Tri::kUnknown;
  auto& memo = *ix.Derived<std::unique_ptr<ReachableMemo>>("decider bound returns reachable",
                                                           [] { return std::make_unique<ReachableMemo>(); });
  const std::string key = im->where.file + ':' + std::to_string(im->where.line) + '\x1e' + decider + '\x1e' +
                          where.file + ':' + std::to_string(where.line) + '\x1e' + a.Key();
  const std::optional<std::vector<ReachableReturn>>* returns = nullptr;
  {
    std::shared_lock<std::shared_mutex> lock(memo.mu);
    if (auto it = memo.returns.find(key); it != memo.returns.end()) returns = &it->second;
  }
  if (!returns) {
    std::optional<std::vector<ReachableReturn>> read;
    if (auto b = BindCall(ix, readers, op, a, asked, decider, where)) {
      ParametersAsObjects(*b->def, &b->objects);
      b->bound.library_names = false;
      read = ReturnReader(ix, readers).Reachable(*b->def, where.file, b->bound, b->objects);
    }
    std::unique_lock<std::shared_mutex> lock(memo.mu);
    returns = &memo.returns.emplace(key, std::move(read)).first->second;  // entries stay put
  }
  return *returns ? CanReturn(**returns, value) : Tri::kUnknown;
}

Tri PredicateHolds(const Index& ix, GuardReaders& readers, const std::string& predicate, const Location& where,
                   const Assumptions& a) {
  const auto& returns = ReachableReturns(ix, readers, predicate, where, a);
  if (!returns || returns->empty()) return Tri::kUnknown;
  bool can_be_false = false, can_be_true = false;
  for (const ReachableReturn& r : *returns) {
    if (!r.reachable) continue;
    const std::string_view v = TrimView(r.value);
    if (v == "false") can_be_false = true;
    else if (v == "true") can_be_true = true;
    else can_be_false = can_be_true = true;  // an expression: either
  }
  if (can_be_false == can_be_true) return Tri::kUnknown;
  return can_be_true ? Tri::kTrue : Tri::kFalse;
}

bool BuildCanReturn(const Index& ix, GuardReaders& readers, const std::string& decider, const Location& where,
                    const std::string& value, const Assumptions& a) {
  // The build and device alone: the trace's other assumptions (its Python
  // defaults, its dtype) say nothing of another tensor.
  Assumptions build;
  build.enums = a.enums;
  build.device = a.device;
  build.rocm = a.rocm;
  build.cudnn = a.cudnn;
  build.typical_sizes = false;  // an empty batch is a tensor too (ConvBackend::Empty)
  auto& memo =
      *ix.Derived<std::unique_ptr<AnswerMemo>>("build can return", [] { return std::make_unique<AnswerMemo>(); });
  const std::string key =
      decider + '\x1e' + where.file + ':' + std::to_string(where.line) + '\x1e' + value + '\x1e' + build.Key();
  {
    std::shared_lock<std::shared_mutex> lock(memo.mu);
    if (auto it = memo.answers.find(key); it != memo.answers.end()) return it->second != Tri::kFalse;
  }
  // Each dtype, in a typical training step and in inference under
  // deterministic algorithms (the modes flipped together: a decider's
  // parameters -- need_backward, training -- are not bound here anyway).
  Tri can = Tri::kFalse;
  for (const char* dtype : {"float32", "float16", "bfloat16", "float64", "complex64", "int64"})
    for (bool inference : {false, true}) {
      if (can != Tri::kFalse) break;
      Assumptions variant = build;
      variant.dtype = dtype;
      variant.grad = variant.training = !inference;
      variant.deterministic = inference;
      if (DeciderCanReturn(ix, readers, decider, where, value, variant) != Tri::kFalse) can = Tri::kUnknown;
    }
  std::unique_lock<std::shared_mutex> lock(memo.mu);
  memo.answers.emplace(key, can);
  return can != Tri::kFalse;
}

}  // namespace optrace
