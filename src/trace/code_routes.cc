// A way is read hop by hop back from the function it leads to: a stub's
// registration for the device goes through the stub's call site, a helper
// through the first listed function whose body calls it, and a helper no
// call names (a class named in a template argument runs its operator())
// through whatever reached it, then an open step. Depth is bounded by
// kConditionDepth (trace/walk_bounds.h) and each function is passed once.
#include "trace/code_routes.h"

#include <algorithm>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <tuple>
#include <utility>

#include "base/text.h"
#include "cpp/cpp_params.h"
#include "trace/condition_text.h"
#include "trace/either_branch.h"
#include "trace/guard_files.h"
#include "trace/impl_parameters.h"
#include "trace/path_rules.h"
#include "trace/walk_bounds.h"

namespace optrace {

// A file's guard reader (its lexed text) is built once per index and
// shared by every later trace: lexing per trace made warm traces slow.
const CppGuardReader& GuardReaders::Of(const std::string& file) {
  auto [slot, fresh] = readers_.try_emplace(file, nullptr);
  if (fresh) slot->second = &GuardReaderOf(ix_, file);
  return *slot->second;
}

Location Definition(const OpStep& op, const std::string& name) {
  for (const auto& im : op.impls)
    if (LastNameView(im.function) == name && im.where.valid()) return im.where;
  for (const auto& h : op.helpers)
    if (LastNameView(h.function) == name && h.where.valid()) return h.where;
  for (const auto& s : op.stubs)
    for (const auto& r : s.registrations)
      if (LastNameView(r.target) == name && r.target_definition.valid()) return r.target_definition;
  return {};
}

const CppFunction* FunctionDefinedAt(const Index& ix, std::string_view name, const Location& where) {
  for (uint32_t id : ix.cpp.FunctionsNamed(name)) {
    const CppFunction& f = ix.cpp.functions()[id];
    if (ix.cpp.file(f.file) == where.file && static_cast<int>(f.line) == where.line) return &f;
  }
  return nullptr;
}

// Where the op has its own kernel for the device, another key's
// implementation is only a helper there: _chunk_cat_cuda calls
// CompositeExplicitAutograd's _chunk_cat in its `else`, and the way to
// what _chunk_cat calls goes through that condition.
bool IsImpl(const OpStep& op, const std::string& name, CodeDevice device) {
  bool own = false;
  for (const auto& im : op.impls) own = own || (device != CodeDevice::kAny && im.key == Name(device));
  for (const auto& im : op.impls)
    if (LastNameView(im.function) == name && (!own || im.key == Name(device))) return true;
  return false;
}

// Its first call, or when the assumptions do not take that one, the best
// of all its calls there (taken, else undecided). Calls in both branches
// of an open if/else (`if (canUse32BitIndexMath(w)) f<int>(...); else
// f<int64_t>(...)`) are taken whichever way it goes: their conditions
// without the one they disagree on.
bool CodeRoutes::BestCallSite(const OpStep& op, const Location& where, const std::string& fn,
                              std::vector<Condition>* out) {
  const std::vector<Condition>* first = FirstCall(where, fn);
  if (!first) return false;
  *out = *first;
  Tri best = values_.Evaluate(op, *out);
  if (best == Tri::kTrue) return true;
  std::vector<std::vector<Condition>> sites;
  for (const auto& call : readers_.Of(where.file).CallsIn(where.line))
    if (LastName(call.callee) == fn) sites.push_back(ConditionsIn(call.conditions, where.file));
  const size_t written = AddEitherBranch(&sites);
  for (size_t i = 0; i < sites.size(); ++i) {
    std::vector<Condition>& conv = sites[i];
    Tri v = values_.Evaluate(op, conv);
    const bool wider = i >= written && v == best;  // both branches of an open if: fewer conditions
    if (!wider && (v == Tri::kFalse || (best == Tri::kUnknown && v != Tri::kTrue))) continue;
    best = v;
    *out = std::move(conv);
    if (v == Tri::kTrue) break;
  }
  return true;
}

size_t CodeRoutes::PlaceCallHash::operator()(const PlaceCall& k) const {
  const size_t a = std::hash<std::string_view>{}(k.file), b = std::hash<std::string_view>{}(k.fn);
  return a ^ (b + 0x9e3779b97f4a7c15ULL + (a << 6) + (a >> 2)) ^ static_cast<size_t>(k.line) * 0x100000001b3ULL;
}

// The index's answers, shared by the traces of a process (trace --all's
// threads, a daemon's queries): a reader finds under the shared lock, a
// writer adds under the unique one; entries are never changed, and an
// unordered_map's elements stay put as it grows.
struct CodeRoutes::CodeMemo {
  std::shared_mutex mu;
  std::unordered_map<std::string, FirstCallConditions> first_calls;  // by "file:line:fn"
  std::unordered_map<std::string, std::set<std::pair<std::string_view, int>>> functions_calling;
  // By "file:macro": the macros of that file whose definitions use it.
  std::unordered_map<std::string, std::vector<std::string>> macro_users;
  std::once_flag macro_users_read;  // the table is read whole, once, then only read

  template <class Map, class Make>
  const typename Map::mapped_type& Get(Map& map, const std::string& key, Make make) {
    {
      std::shared_lock<std::shared_mutex> lock(mu);
      if (auto it = map.find(key); it != map.end()) return it->second;
    }
    typename Map::mapped_type made = make();
    std::unique_lock<std::shared_mutex> lock(mu);
    return map.try_emplace(key, std::move(made)).first->second;
  }
};

std::vector<std::string> CodeRoutes::MacrosUsing(const std::string& macro, const std::string& file) {
  std::call_once(memo_.macro_users_read, [&] {
    const CppIndex& cpp = ix_.cpp;
    for (const CppMacroUse& use : cpp.macro_uses()) {
      if (use.within_macro.empty()) continue;
      std::vector<std::string>& users = memo_.macro_users[cpp.file(use.file) + ":" + use.macro];
      if (std::find(users.begin(), users.end(), use.within_macro) == users.end()) users.push_back(use.within_macro);
    }
  });
  std::vector<std::string> out = {macro};
  for (size_t i = 0, level_end = 1, level = 0; i < out.size() && level < kMacroUserDepth; ++i) {
    if (auto it = memo_.macro_users.find(file + ":" + out[i]); it != memo_.macro_users.end())
      for (const std::string& user : it->second)
        if (std::find(out.begin(), out.end(), user) == out.end()) out.push_back(user);
    if (i + 1 == level_end) level_end = out.size(), ++level;
  }
  return out;
}

CodeRoutes::CodeRoutes(const Index& ix, GuardReaders& readers, PathValues& values)
    : ix_(ix),
      memo_(*ix.Derived<std::unique_ptr<CodeMemo>>("code_routes", [] { return std::make_unique<CodeMemo>(); })),
      readers_(readers),
      values_(values) {}

// What the guard reader says depends on the code alone: RouteTo asks every
// listed function in turn, for every launch's way, whether it calls `fn`,
// and most do not; every trace reaching the op asks again.
const std::vector<Condition>* CodeRoutes::FirstCall(const Location& where, const std::string& fn) {
  auto it = first_calls_.find(PlaceCall{where.file, where.line, fn});
  if (it == first_calls_.end()) {
    const std::string key = where.file + ":" + std::to_string(where.line) + ":" + fn;
    const FirstCallConditions& read = memo_.Get(memo_.first_calls, key, [&] {
      FirstCallConditions conditions;
      std::vector<CodeCondition> first;
      if (readers_.Of(where.file).CallConditions(where.line, 0, fn, &first))
        conditions = ConditionsIn(first, where.file);
      return conditions;
    });
    it = first_calls_.emplace(PlaceCallKey{where.file, where.line, fn}, &read).first;
  }
  return *it->second ? &**it->second : nullptr;
}

namespace {

// A parameter list's types with const and references dropped: two
// overloads alike in it differ only where a template picks (Dropout.cpp's
// `multiply(Tensor& input, ...)` and `multiply(const Tensor& input, ...)`,
// chosen by `T& input` of `_dropout_impl<..., T>`), never by the
// arguments as the tracer reads them.
std::string ArgumentShape(const std::vector<CppParameter>& params) {
  std::string shape;
  for (const CppParameter& p : params) {
    std::string type;
    for (const std::string& word : SplitTopLevel(p.type, ' '))
      if (word != "const") type += word;
    while (!type.empty() && type.back() == '&') type.pop_back();
    shape += type + ",";
  }
  return shape;
}

// How many scopes (classes, namespaces) define a helper of `op` named
// `fn` that serves `device`: overrides of one virtual function, or
// namesakes a call by name cannot tell apart. Overloads in one scope are
// told apart by the call's arguments and count once -- unless, in one
// file, their parameters differ in const and references alone
// (ArgumentShape): then a template argument picks, and each such overload
// that does not call its namesake (CUDA_tensor_apply2's default-step form
// does) counts among `overloads`.
HelperNamesakes ScopesDefining(const Index& ix, const OpStep& op, const std::string& fn, CodeDevice device) {
  std::set<std::pair<std::string, int>> at;
  for (const auto& h : op.helpers)
    if (LastNameView(h.function) == fn && Serves(h.key, device) && h.where.valid())
      at.insert({h.where.file, h.where.line});
  if (at.size() < 2) return {static_cast<int>(at.size()), 0};
  std::set<std::string> scopes;
  // (file, scope, shape) -> the parameter types declared (one list twice is
  // an #if group's two arms, which the preprocessor picks, not an overload)
  std::map<std::tuple<uint32_t, std::string, std::string>, std::set<std::string>> shapes;
  for (uint32_t id : ix.cpp.FunctionsNamed(fn)) {
    const CppFunction& f = ix.cpp.functions()[id];
    if (!at.count({ix.cpp.file(f.file), static_cast<int>(f.line)})) continue;
    std::string scope = f.qualified.substr(0, f.qualified.size() - std::min(f.qualified.size(), fn.size()));
    bool forwards = false;
    for (uint32_t c : ix.cpp.CallsIn(id)) forwards = forwards || ix.cpp.calls()[c].callee == fn;
    if (!forwards) {
      const std::vector<CppParameter>& params = ParseCppParameters(f.params);
      std::string written;  // the types as declared: `Tensor &x` and `Tensor& y` are one list
      for (const CppParameter& p : params) written += p.type + ",";
      written.erase(std::remove(written.begin(), written.end(), ' '), written.end());
      shapes[{f.file, scope, ArgumentShape(params)}].insert(std::move(written));
    }
    scopes.insert(std::move(scope));
  }
  int overloads = 0;
  for (const auto& [shape, lists] : shapes) overloads = std::max(overloads, static_cast<int>(lists.size()));
  return {static_cast<int>(scopes.size()), overloads};
}

}  // namespace

HelperNamesakes CodeRoutes::ClassesDefining(const OpStep& op, const std::string& fn, CodeDevice device) {
  auto [it, added] = classes_.try_emplace({&op, fn, device}, HelperNamesakes{});
  if (added) it->second = ScopesDefining(ix_, op, fn, device);
  return it->second;
}

bool CodeRoutes::StubCallConditions(const OpStep& op, const StubStep& s, std::vector<Condition>* out) {
  auto [slot, fresh] = stub_calls_.try_emplace({&op, s.name, s.call_site.file, s.call_site.line, s.called_from});
  if (fresh) {
    std::vector<Condition> read;
    if (ReadStubCall(op, s, &read)) slot->second = std::move(read);
  }
  if (!slot->second) return false;
  out->insert(out->end(), slot->second->begin(), slot->second->end());
  return true;
}

bool CodeRoutes::ReadStubCall(const OpStep& op, const StubStep& s, std::vector<Condition>* out) {
  std::vector<CodeCondition> at;
  if (readers_.Of(s.call_site.file).CallConditions(1, s.call_site.line, s.name, &at)) {
    for (Condition& c : ConditionsIn(at, s.call_site.file)) out->push_back(std::move(c));
    return true;
  }
  const Location caller = s.called_from.empty() ? Location{} : Definition(op, LastName(s.called_from));
  return caller.valid() && caller.file == s.call_site.file &&
         PassedOnConditions(op, caller, s.call_site, LastName(s.name), out);
}

bool CodeRoutes::PassedOnConditions(const OpStep& op, const Location& caller, const Location& site,
                                    const std::string& passed, std::vector<Condition>* out) {
  // The last call starting at or above the site whose arguments name it:
  // a call's arguments may run over several lines.
  const CppGuardReader::GuardedCall* call = nullptr;
  for (const auto& c : readers_.Of(caller.file).CallsIn(caller.line)) {
    if (c.line > site.line) break;
    if (auto args = ArgumentsOf(caller, c);
        args && std::any_of(args->begin(), args->end(), [&](const std::string& a) { return LastName(a) == passed; }))
      call = &c;
  }
  std::vector<Condition> use;
  if (!call || !ReceiverUse(op, caller, *call, passed, 0, &use)) return false;
  for (Condition& c : ConditionsIn(call->conditions, caller.file)) out->push_back(std::move(c));
  out->insert(out->end(), use.begin(), use.end());
  return true;
}

std::optional<std::vector<std::string>> CodeRoutes::ArgumentsOf(const Location& caller,
                                                                const CppGuardReader::GuardedCall& call) {
  return readers_.Of(caller.file).CallArguments(call.line, LastName(call.callee));
}

bool CodeRoutes::ReceiverUse(const OpStep& op, const Location& caller, const CppGuardReader::GuardedCall& call,
                             const std::string& passed, int depth, std::vector<Condition>* out) {
  const std::optional<std::vector<std::string>> args = ArgumentsOf(caller, call);
  if (!args) return false;
  const size_t position =
      std::find_if(args->begin(), args->end(), [&](const std::string& a) { return LastName(a) == passed; }) -
      args->begin();
  const std::string helper = LastName(call.callee);
  const Location where = Definition(op, helper);
  const CppFunction* def = where.valid() ? FunctionDefinedAt(ix_, helper, where) : nullptr;
  if (position == args->size() || !def) return false;
  const std::vector<CppParameter>& params = ParseCppParameters(def->params);
  if (position >= params.size() || params[position].name.empty() || args->size() > params.size()) return false;
  const std::string& param = params[position].name;
  // Where it calls the parameter, and where it passes it on to a helper
  // of its own (unary_op_impl_with_complex_to_float_out calls `stub` for
  // a complex input, else hands it to unary_op_impl_out).
  std::vector<std::vector<Condition>> sites;
  std::vector<Condition> all;
  for (const auto& c : readers_.Of(where.file).CallsIn(where.line)) {
    std::vector<Condition> site = ConditionsIn(c.conditions, where.file);
    all.insert(all.end(), site.begin(), site.end());
    if (LastName(c.callee) != param) {
      std::vector<Condition> inner;
      if (depth >= kValueDepth || !ReceiverUse(op, where, c, param, depth + 1, &inner)) continue;
      site.insert(site.end(), inner.begin(), inner.end());
    }
    sites.push_back(std::move(site));
  }
  BindParameters(op, params, *args, all);
  Tri best = Tri::kFalse;
  const std::vector<Condition>* chosen = nullptr;
  for (const auto& site : sites) {
    const Tri v = values_.Evaluate(op, site);
    if (chosen && Rank(v) <= Rank(best)) continue;
    best = v;
    chosen = &site;
  }
  if (!chosen) return false;
  out->insert(out->end(), chosen->begin(), chosen->end());
  return true;
}

// A literal the call passes, or the default of a parameter it passes
// nothing: what the helper's conditions on that parameter read.
void CodeRoutes::BindParameters(const OpStep& op, const std::vector<CppParameter>& params,
                                const std::vector<std::string>& args, const std::vector<Condition>& conditions) {
  // In the helper's body only its parameters are the call's: the op's
  // arguments say nothing of a local or parameter of the same name.
  Assumptions with = values_.assumptions();
  bool bound = false;
  for (size_t i = 0; i < params.size(); ++i) {
    const std::string& value = i < args.size() ? args[i] : params[i].default_value;
    if (params[i].name.empty() || !IsCppLiteral(value)) continue;
    with.defaults[params[i].name] = value;
    bound = true;
  }
  if (!bound) return;
  for (const Condition& c : conditions) {
    if (c.kind == ConditionKind::kDevice || c.kind == ConditionKind::kPreprocessor || c.kind == ConditionKind::kRoute)
      continue;
    // Decided by the trace's assumptions alone: nothing to bind. (The op's
    // arguments say nothing of a helper's parameter of the same name.)
    if (values_.EvaluateOnce(c.text, values_.assumptions()) != Tri::kUnknown) continue;
    if (const Tri t = EvaluateCondition(c.text, false, with); t != Tri::kUnknown) {
      values_.BindInHelper(DecidedKey(op, c), t);
      if (binding_log_) binding_log_->push_back({DecidedKey(op, c), t});
    }
  }
}

// The kernel a stub dispatches to is called with the stub call's
// arguments after the device (`pow_tensor_scalar_stub(device_type(),
// *this, exp)` -> `pow_tensor_scalar_kernel(iter, exp_scalar)`): its
// conditions on them read the literals passed and what the implementation's
// parameters passed hold. Once per stub registration and trace.
void CodeRoutes::BindStubKernel(const OpStep& op, const StubStep& s, const StubRegistrationStep& r) {
  if (!stub_kernels_bound_.insert({&op, s.name, r.device, r.target}).second || !r.target_definition.valid() ||
      !s.call_site.valid())
    return;
  const CppFunction* def = FunctionDefinedAt(ix_, LastName(r.target), r.target_definition);
  if (!def) return;
  auto args = readers_.Of(s.call_site.file).CallArguments(s.call_site.line, LastName(s.name));
  const std::vector<CppParameter>& params = ParseCppParameters(def->params);
  if (!args || args->empty() || args->size() - 1 > params.size()) return;
  args->erase(args->begin());  // the device type
  const std::string caller = LastName(s.called_from);
  const auto& held = values_.AssumptionsOf(op).defaults;
  for (std::string& a : *args) {
    a = std::string(StaticCastOperand(a));
    if (IsCppLiteral(a) || !IsImpl(op, caller)) continue;
    if (auto v = ImplParameterValue(op, caller, a, held)) a = *v;
  }
  std::vector<Condition> all;
  for (const auto& c : readers_.Of(r.target_definition.file).CallsIn(static_cast<int>(def->line))) {
    std::vector<Condition> site = ConditionsIn(c.conditions, r.target_definition.file);
    all.insert(all.end(), site.begin(), site.end());
  }
  BindParameters(op, params, *args, all);
}

bool CodeRoutes::ForEachListed(const OpStep& op, CodeDevice device,
                               const std::function<bool(std::string_view, const Location&)>& visit) {
  for (const auto& im : op.impls)
    if (Serves(im.key, device) && visit(LastNameView(im.function), im.where)) return true;
  for (const auto& h : op.helpers)
    if (Serves(h.key, device) && visit(LastNameView(h.function), h.where)) return true;
  for (const auto& s : op.stubs)
    for (const auto& r : s.registrations)
      if (Serves(r.device, device) && visit(LastNameView(r.target), r.target_definition)) return true;
  return false;
}

const std::vector<std::pair<std::string_view, const Location*>>& CodeRoutes::RecordedCallers(const OpStep& op,
                                                                                             const std::string& fn,
                                                                                             CodeDevice device) {
  auto [slot, fresh] = callers_.try_emplace({&op, fn, device});
  if (!fresh) return slot->second;
  const std::set<std::pair<std::string_view, int>>& calling = FunctionsCalling(fn);
  // The names and places are the op's own (not copied).
  ForEachListed(op, device, [&](std::string_view name, const Location& where) {
    if (name != fn && where.valid() && calling.count({where.file, where.line}) && FirstCall(where, fn))
      slot->second.push_back({name, &where});
    return false;
  });
  return slot->second;
}

const std::set<std::pair<std::string_view, int>>& CodeRoutes::FunctionsCalling(const std::string& fn) {
  auto [slot, fresh] = functions_calling_.try_emplace(fn, nullptr);
  if (!fresh) return *slot->second;
  slot->second = &memo_.Get(memo_.functions_calling, fn, [&] {
    std::set<std::pair<std::string_view, int>> calling;
    const CppIndex& cpp = ix_.cpp;
    for (uint32_t id : cpp.CallersOf(fn)) {
      const CppCall& call = cpp.calls()[id];
      const int32_t f = cpp.FunctionAt(call.file, call.line);
      if (f < 0) continue;
      const CppFunction& def = cpp.functions()[f];
      calling.insert({cpp.file(def.file), static_cast<int>(def.line)});
    }
    return calling;
  });
  return *slot->second;
}

bool CodeRoutes::WayTo(const OpStep& op, const std::string& fn, CodeDevice device, std::vector<Condition>* out,
                       std::vector<std::string>* route) {
  std::set<std::string> seen;
  std::vector<std::string> names;
  if (!RouteTo(op, fn, 0, &seen, out, device, &names)) return false;
  if (route) route->insert(route->end(), names.begin(), names.end());
  return true;
}

bool CodeRoutes::RouteTo(const OpStep& op, const std::string& fn, int depth, std::set<std::string>* seen,
                         std::vector<Condition>* out, CodeDevice device, std::vector<std::string>* names) {
  if (IsImpl(op, fn, device)) {
    names->push_back(fn);
    return true;
  }
  if (depth > kConditionDepth || !seen->insert(fn).second) return false;
  for (const auto& s : op.stubs) {
    for (const auto& r : s.registrations) {
      if (LastNameView(r.target) != fn || !s.call_site.valid() || !Serves(r.device, device)) continue;
      std::vector<Condition> route;
      std::vector<std::string> way;
      if (!s.called_from.empty() && !RouteTo(op, LastName(s.called_from), depth + 1, seen, &route, device, &way)) {
        route.clear();
        way.clear();
      }
      StubCallConditions(op, s, &route);
      BindStubKernel(op, s, r);
      route.push_back({"dispatch device == " + r.device, false, ConditionKind::kDevice, r.where});
      out->insert(out->end(), route.begin(), route.end());
      names->insert(names->end(), way.begin(), way.end());
      names->push_back(s.name);
      names->push_back(fn);
      return true;
    }
  }
  // A helper: the first listed function whose body calls it.
  // A caller whose way the assumptions rule out gives way to the next that
  // calls it too (cuda_scatter_gather_base_kernel, called from scatter's
  // reduce kernel, which `reduce.has_value()` rules out, and from its fill
  // kernel): the function runs where any caller's way does.
  // Each way after a ruled-out one is read from the functions passed on
  // the way here: the one ruled out passed functions the next may share.
  std::optional<std::vector<Condition>> ruled_out;
  std::vector<std::string> ruled_out_way;
  const std::set<std::string> passed = *seen;
  // A way through caller `name` (defined at `where`) that the assumptions
  // do not rule out: appended to *out.
  auto through = [&](std::string_view name, const Location& where) {
    std::vector<Condition> conv;
    if (!BestCallSite(op, where, fn, &conv)) return false;
    std::vector<Condition> route;
    std::vector<std::string> way;
    if (ruled_out) *seen = passed;
    if (!RouteTo(op, std::string(name), depth + 1, seen, &route, device, &way)) return false;
    way.push_back(fn);
    route.insert(route.end(), conv.begin(), conv.end());
    // A call by name that several classes answer (CellParams' and
    // QuantizedCellParams' overrides of linear_ih): which one runs is the
    // receiver's class, which the trace does not know.
    const HelperNamesakes namesakes = ClassesDefining(op, fn, device);
    if (namesakes.classes > 1)
      route.push_back(
          {"one of " + std::to_string(namesakes.classes) + " classes' " + fn + " runs (the receiver's class picks)",
           false, ConditionKind::kRoute, where});
    else if (namesakes.overloads > 1)
      route.push_back({"one of " + std::to_string(namesakes.overloads) + " overloads of " + fn +
                           " runs (a template argument picks)",
                       false, ConditionKind::kRoute, where});
    if (values_.Evaluate(op, route) == Tri::kFalse) {
      if (!ruled_out) {
        ruled_out = std::move(route);
        ruled_out_way = std::move(way);
      }
      return false;
    }
    out->insert(out->end(), route.begin(), route.end());
    names->insert(names->end(), way.begin(), way.end());
    return true;
  };
  // The functions the index records a call of `fn` in first; the others
  // (a function a macro defines) only where none of those has a way, read
  // until one has.
  for (const auto& [name, where] : RecordedCallers(op, fn, device))
    if (through(name, *where)) return true;
  const std::set<std::pair<std::string_view, int>>& recorded = FunctionsCalling(fn);
  if (ForEachListed(op, device, [&](std::string_view name, const Location& where) {
        return name != fn && where.valid() && !recorded.count({where.file, where.line}) && FirstCall(where, fn) &&
               through(name, where);
      }))
    return true;
  if (ruled_out) {
    out->insert(out->end(), ruled_out->begin(), ruled_out->end());
    names->insert(names->end(), ruled_out_way.begin(), ruled_out_way.end());
    return true;
  }
  // No call written by its name (a class named in a template argument runs
  // its operator()): the way to whatever reached it, then an open step.
  for (const auto& h : op.helpers) {
    if (LastNameView(h.function) != fn || h.reached_from.empty() || !Serves(h.key, device)) continue;
    std::vector<Condition> route;
    if (!RouteTo(op, LastName(h.reached_from), depth + 1, seen, &route, device, names)) return false;
    names->push_back(fn);
    if (h.reached_at.valid()) {
      std::vector<CodeCondition> at;
      readers_.Of(h.reached_at.file).CallConditions(1, h.reached_at.line, h.reached_by, &at);
      auto conv = ConditionsIn(at, h.reached_at.file);
      route.insert(route.end(), conv.begin(), conv.end());
    }
    route.push_back({fn + " is reached (the call leading there is not read)", false, ConditionKind::kRoute, h.where});
    out->insert(out->end(), route.begin(), route.end());
    return true;
  }
  return false;
}

}  // namespace optrace
