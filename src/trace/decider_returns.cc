// The call of the decider is found among the calls of the implementation
// holding the asking condition (exactly one line may call it); its
// arguments bind to the decider's parameters by position.
#include "trace/decider_returns.h"

#include <map>
#include <set>
#include <vector>

#include "base/text.h"
#include "cpp/cpp_params.h"
#include "trace/caller_arguments.h"
#include "trace/condition_text.h"
#include "trace/inline_predicates.h"
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

// The definition of `name` in `file` taking `arity` arguments, the one at
// `preferred` first; null when there is none or several.
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

// A local object's parameter name -> the members whose values are bound
// (as `name.member` in the assumptions' defaults).
using Objects = std::map<std::string, std::vector<std::string>>;

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
    for (const GuardedReturn& r : *returns) {
      Tri taken = Tri::kTrue;
      for (const auto& g : r.guards) {
        if (taken == Tri::kFalse) break;
        Tri t = GuardValue(g.text, file, bound, objects);
        Meet(&taken, g.negated ? Not(t) : t);
      }
      if (taken == Tri::kFalse) continue;
      if (taken == Tri::kUnknown) return std::nullopt;
      if (IsQualifiedConstant(r.value)) return r.value;  // what a selection returns
      return depth < kForwardDepth ? Forwarded(r, file, bound, objects, depth) : std::nullopt;
    }
    return std::nullopt;
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
    const std::vector<CppParameter> params = ParseCppParameters(def->params);
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

std::optional<std::string> DeciderReturn(const Index& ix, GuardReaders& readers, const OpStep& op, const Assumptions& a,
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
  Assumptions bound = a;
  Objects objects;
  const std::vector<CppParameter> params = ParseCppParameters(def->params);
  for (size_t i = 0; i < params.size(); ++i) {
    const std::string& name = params[i].name;
    const std::string& arg = call->arguments[i];
    bound.defaults.erase(name);
    if (name.empty()) continue;
    if (auto v = FixedValue(arg, *im, site, caller, a)) bound.defaults[name] = *v;
    for (auto& [member, value] : MemberValues(ix, *im, arg, decider, site, caller, a)) {
      bound.defaults[name + "." + member] = value;
      objects[name].push_back(member);
    }
  }
  return ReturnReader(ix, readers).Returned(*def, where.file, bound, objects, 0);
}

}  // namespace optrace
