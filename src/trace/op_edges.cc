// A child called at several sites of the parent (both branches of an
// if/else) is taken when any of them is: among the sites for the device,
// the one the assumptions decide best (taken, then undecided, then not
// taken) gives the edge's conditions. An op reached otherwise -- a C++
// operator on values of unknown type, a direct call of another op's kernel
// -- has no call site whose conditions could be read: not found. The
// helper bindings decided while reading an edge flow back through a log
// (BindingLog) that the shared edge keeps for the later traces.
#include "trace/op_edges.h"

#include <algorithm>
#include <optional>
#include <set>

#include "base/text.h"
#include "cpp/cpp_params.h"
#include "trace/caller_arguments.h"
#include "trace/condition_text.h"
#include "trace/cpp_operands.h"
#include "trace/decider_returns.h"
#include "trace/either_branch.h"
#include "trace/impl_parameters.h"
#include "trace/local_values.h"
#include "trace/path_rules.h"
#include "trace/tensor_methods.h"
#include "trace/walk_bounds.h"

namespace optrace {

namespace {

// The parameters of the function helper `h` is called from, defined at `caller`.
std::vector<CppParameter> CallerParameters(const Index& ix, const ImplStep& h, const Location& caller) {
  const CppFunction* def = FunctionDefinedAt(ix, LastName(h.reached_from), caller);
  return def ? ParseCppParameters(def->params) : std::vector<CppParameter>{};
}

// Whether `name`, passed at line `line` by the function helper `h` is
// called from (defined at `caller`), is a local Tensor it declares without
// an initializer and does not mention again before the call
// (LinearAlgebra.cpp's matmul: `at::Tensor result, unused;` then
// `_matmul_impl(unused, ...)`): an undefined Tensor.
bool UnwrittenUndefinedTensor(const Index& ix, const ImplStep& h, const Location& caller, int line,
                              const std::string& name) {
  const CppFunction* def = FunctionDefinedAt(ix, LastName(h.reached_from), caller);
  if (!def || !def->HasBody() || line < static_cast<int>(def->body_begin)) return false;
  const std::string before =
      ix.Snippet(caller.file, static_cast<int>(def->body_begin), line - static_cast<int>(def->body_begin));
  return OnlyDeclaredTensor(before, name);
}

// Whether `op` is an out= overload (an argument written to as `out`).
bool IsOutOverload(const OpStep& op) { return op.yaml && op.yaml->schema.is_out(); }

// Whether `parent` calls stub `stub` and a registration of it runs `fn`.
bool StubDispatchesTo(const OpStep& parent, const std::string& stub, const std::string& fn) {
  for (const StubStep& s : parent.stubs) {
    if (LastNameView(s.name) != stub) continue;
    for (const StubRegistrationStep& r : s.registrations)
      if (LastNameView(r.target) == fn) return true;
  }
  return false;
}

}  // namespace

std::vector<Condition> EdgeReader::Read(SharedEdges& edges, const OpStep& parent, const OpStep& child, bool* found,
                                        Location* site) {
  const std::string known = values_.KnowledgeOf(parent);
  if (const EdgeAnnotation* before = edges.Find(parent, child, known)) {
    for (const auto& [key, t] : before->bound) values_.BindInHelper(key, t);
    *found = before->found;
    if (before->site) *site = *before->site;
    return before->when;
  }
  EdgeAnnotation made;
  Location picked;  // EdgeConditions sets only a listed call's place
  // The ways read on the way bind helpers' parameters too (a stub passed
  // to a helper: CodeRoutes::StubCallConditions): kept with the edge.
  routes_.LogBindingsTo(&made.bound);
  made.when = EdgeConditions(parent, child, &made.found, &picked, &made.bound);
  routes_.LogBindingsTo(nullptr);
  *found = made.found;
  if (picked.valid()) *site = made.site.emplace(picked);
  edges.Keep(parent, child, known, made);
  return made.when;
}

// *found: the parent lists the call, or the child is the parent's
// structured delegate or what torchgen's generated kernel for the parent
// calls. `log`: where the helper bindings decided go too (null: nowhere).
std::vector<Condition> EdgeReader::EdgeConditions(const OpStep& parent, const OpStep& child, bool* found,
                                                  Location* site, BindingLog* log) {
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
    bool device_ok = c.device == CodeDevice::kAny || c.device == values_.assumptions().device;
    if (device_ok) sites.push_back(&c);
    else if (!fallback) fallback = &c;
  }
  // Made only by another device's implementation: taken there alone.
  for (const auto& c : parent.other_device_calls)
    if (c.op == base && c.where.valid() && !fallback) fallback = &c;
  if (sites.empty() && fallback) sites.push_back(fallback);
  if (sites.empty()) return {};
  KeepSitesAdmitting(child, &sites);
  KeepSitesOfItsForm(child, base, &sites);
  *found = true;
  std::vector<std::vector<Condition>> each;
  std::vector<Location> called_at;
  for (const OpCallStep* call : sites) {
    std::vector<Condition> conditions = SiteConditions(parent, *call, base, IsOutOverload(child), log);
    // A hand-written Tensor method that returns the tensor itself
    // (`x.contiguous()` of a contiguous x) calls the op only otherwise.
    if (IsMethodCall(*call, base))
      if (auto guard = EarlySelfReturn(ix_, base))
        conditions.push_back({guard->condition, true, ConditionKind::kReturn, {guard->file, guard->line, ""}});
    each.push_back(std::move(conditions));
    called_at.push_back(call->where);
    if (values_.Evaluate(parent, each.back()) == Tri::kTrue) break;
  }
  // Calls on both sides of an open condition (`if (indices.dim() == 1)
  // return weight.index_select(...);` then `return
  // weight.index_select(...).view(size);`): one of them runs. A pair
  // whose one side is ruled out keeps the open side's conditions.
  const size_t written = AddEitherBranch(&each);
  std::vector<Condition> best;
  int best_rank = -1;
  for (size_t i = 0; i < each.size(); ++i) {
    int rank = Rank(values_.Evaluate(parent, each[i]));
    if (rank > best_rank) {
      best_rank = rank;
      best = std::move(each[i]);
      *site = i < written ? called_at[i] : called_at.front();  // a merged pair: its first call
    }
    if (rank == 2) break;
  }
  return best;
}

// A call whose arguments C++ resolves to other overloads is no site of
// this one (WeightNorm.cpp:38 `.view({v.size(0), -1})` calls view, never
// view.dtype); a call whose arguments are not read may be any. Where no
// site is left, all stay: the op came from a call not listed here.
void EdgeReader::KeepSitesAdmitting(const OpStep& child, std::vector<const OpCallStep*>* sites) {
  std::vector<const OpCallStep*> kept;
  for (const OpCallStep* c : *sites)
    if (c->overloads.empty() || std::find(c->overloads.begin(), c->overloads.end(), child.name) != c->overloads.end())
      kept.push_back(c);
  if (!kept.empty()) *sites = std::move(kept);
}

// An out= overload is called as `at::x_out(`/`at::x_outf(`, the others
// never (`if (out.defined()) at::_fft_r2c_out(...); else at::_fft_r2c(...)`):
// each overload keeps the sites written in its form, when there are any.
void EdgeReader::KeepSitesOfItsForm(const OpStep& child, const std::string& base,
                                    std::vector<const OpCallStep*>* sites) {
  if (!child.yaml || sites->size() < 2) return;
  const bool out = IsOutOverload(child);
  std::vector<const OpCallStep*> kept;
  for (const OpCallStep* c : *sites) {
    std::vector<CodeCondition> unused;
    const CppGuardReader& r = readers_.Of(c->where.file);
    const bool written_out = r.CallConditions(1, c->where.line, base + "_out", &unused) ||
                             r.CallConditions(1, c->where.line, base + "_outf", &unused);
    if (written_out == out) kept.push_back(c);
  }
  if (!kept.empty()) *sites = std::move(kept);
}

std::vector<Condition> EdgeReader::SiteConditions(const OpStep& parent, const OpCallStep& call, const std::string& base,
                                                  bool out_form, BindingLog* log) {
  std::vector<Condition> out;
  // A helper the walk reached without a call written by its name (a class
  // named in a template argument runs its operator()): the conditions on
  // the way are unknown, never "always".
  if (!call.from.empty() && !routes_.WayTo(parent, LastName(call.from), call.device, &out))
    out.push_back({LastName(call.from) + " is reached (the call leading there is not read)", false,
                   ConditionKind::kRoute, call.where});
  std::vector<CodeCondition> at;
  const CppGuardReader& r = readers_.Of(call.where.file);
  if (StartsWith(call.how, "operator")) {  // a C++ operator on tensors: its symbol is the call
    r.CallConditions(1, call.where.line, call.how.substr(8), &at);
  } else {
    // An out= overload's call is written `x_out(`/`x_outf(`: on a line that
    // calls both forms (`has_out ? at::dot_out(out, a, b) : a.dot(b)`), the
    // other arm's `dot(` is not its call.
    const std::vector<std::string> forms =
        out_form ? std::vector<std::string>{base + "_out", base + "_outf", base, base + "_symint"}
                 : std::vector<std::string>{base, base + "_out", base + "_symint", base + "_outf"};
    for (const std::string& token : forms) {
      if (r.CallConditions(1, call.where.line, token, &at)) break;
    }
  }
  auto conv = ConditionsIn(at, call.where.file);
  if (!call.from.empty() && !IsImpl(parent, LastName(call.from), call.device))
    BindHelperConditions(parent, LastName(call.from), conv, log);
  out.insert(out.end(), conv.begin(), conv.end());
  // A backend's entry point (masked_select's `at::cuda::index_out`) runs
  // the op's kernel with no dispatch, so no aten:: op the profiler names: as
  // a direct kernel call, it stays open.
  if (call.undispatched)
    out.push_back(
        {call.how + " calls " + base + "'s kernel with no dispatch", false, ConditionKind::kRoute, call.where});
  if (call.device != CodeDevice::kAny)
    out.push_back({"dispatch device == " + std::string(Name(call.device)), false, ConditionKind::kDevice, call.where});
  return EachConditionOnce(std::move(out));
}

// What helper `fn` of `parent` holds in the parameters its caller fixes:
// the declared default of a trailing argument every call there omits
// (mm_out_cuda's `addmm_out_cuda_impl(result, result, self, mat2, 0, 1)`
// binds `activation = Activation::None`), or a literal every call passes
// alike (cpp/cpp_params.h), or a parameter of a calling helper passed on
// unchanged (`fftn_c2c("fftn", {}, ...)` -> `fft_c2c_maybe_out(fname, out,
// ...)`: `out` is `{}` there too). Empty when the calls are not read.
Bindings EdgeReader::HelperBindings(const OpStep& parent, const std::string& fn, int depth) {
  if (depth > kValueDepth) return {};
  for (const auto& h : parent.helpers) {
    if (LastName(h.function) != fn || h.reached_from.empty() || !h.where.valid()) continue;
    const CppFunction* def = FunctionDefinedAt(ix_, fn, h.where);
    Location caller = Definition(parent, LastName(h.reached_from));
    if (!def || !caller.valid()) return {};
    std::vector<CppParameter> params = ParseCppParameters(def->params);
    const CppGuardReader& r = readers_.Of(caller.file);
    std::optional<Bindings> agreed;
    std::optional<Bindings> passed_on;  // the calling helper's own, read when first needed
    for (const auto& call : r.CallsIn(caller.line)) {
      // A stub's call runs its registered kernel with the arguments after
      // the device (`lstm_cudnn_stub(_input.device().type(), ..., dropout_p,
      // train, ...)` -> lstm_cudnn).
      const std::string callee = LastName(call.callee);
      const bool via_stub = callee != fn && StubDispatchesTo(parent, callee, fn);
      if (callee != fn && !via_stub) continue;
      auto args = r.CallArguments(call.line, callee);
      if (args && via_stub) {
        if (args->empty()) return {};
        args->erase(args->begin());
      }
      if (!args || args->size() > params.size()) return {};
      const bool from_impl = IsImpl(parent, LastName(h.reached_from));
      auto calling_helpers = [&]() -> const Bindings& {
        if (!passed_on) passed_on = HelperBindings(parent, LastName(h.reached_from), depth + 1);
        return *passed_on;
      };
      Bindings site;
      for (size_t i = 0; i < params.size(); ++i) {
        // A value-preserving cast passes what it converts (`static_cast<int64_t>(mode_enum)`).
        const std::string value(StaticCastOperand(i < args->size() ? (*args)[i] : params[i].default_value));
        if (params[i].name.empty()) continue;
        if (IsCppLiteral(value)) {
          site[params[i].name] = value;
          continue;
        }
        if (value.empty() || !std::all_of(value.begin(), value.end(), IsIdentChar)) continue;
        std::string passed = value;
        bool view = false;
        if (!r.AssignedExpression(caller.line, call.line, value).empty()) {
          // A local a lambda called at once initialises: the return its guards take.
          if (auto v = InvokedLambdaValue(parent, r, caller.line, call.line, value,
                                          from_impl ? Bindings{} : calling_helpers())) {
            site[params[i].name] = *v;
            continue;
          }
          // A local viewing a parameter of the caller (LossNLL.cpp's
          // `const Tensor& weight_ = *weight_maybe_owned;` of
          // `at::borrow_from_optional_tensor(weight)`): what it views.
          passed = ViewedParameter(r, caller.line, call.line, value, CallerParameters(ix_, h, caller));
          if (passed.empty()) continue;
          view = true;
        } else if (UnwrittenUndefinedTensor(ix_, h, caller, call.line, value)) {
          site[params[i].name] = "Tensor()";
          continue;
        }
        // A parameter of a calling helper that its body never assigns;
        // of the implementation, what its schema argument holds.
        std::optional<std::string> held;
        if (from_impl) {
          held = ImplParameterValue(parent, LastName(h.reached_from), passed, values_.AssumptionsOf(parent).defaults);
        } else if (auto it = calling_helpers().find(passed); it != calling_helpers().end()) {
          held = it->second;
        }
        // The view of an empty optional is an undefined Tensor.
        if (held) site[params[i].name] = view && IsEmptyOptional(*held) ? "Tensor()" : *held;
      }
      KeepAgreed(&agreed, std::move(site));
    }
    return agreed.value_or(Bindings{});
  }
  return {};
}

// What local `name` of the function defined at `from_line` holds at line
// `before` when a lambda called at once initialises it (PadNd.cpp's
// `const auto mode_enum = [&] { if (mode == "reflect") return
// at::padding_mode::reflect; ... }();`): the constant of the return whose
// guards the function's parameters take -- the op's arguments, or what
// `passed` binds in a helper. Nothing when a guard reads a name the body
// assigns before (its value there is not the parameter's).
std::optional<std::string> EdgeReader::InvokedLambdaValue(const OpStep& parent, const CppGuardReader& r, int from_line,
                                                          int before, const std::string& name, const Bindings& passed) {
  auto returns = r.InvokedLambdaReturns(from_line, before, name);
  if (!returns) return std::nullopt;
  Assumptions held = values_.AssumptionsOf(parent);
  for (const auto& [param, value] : passed) held.defaults[param] = value;
  bool reassigned = false;
  const GuardedReturn* taken = TakenReturn(*returns, [&](const std::string& guard) {
    for (const std::string& read : LocalValues::BareNames(guard))
      reassigned = reassigned || !r.AssignedExpression(from_line, before, read).empty();
    return EvaluateCondition(guard, false, held);
  });
  if (!taken || reassigned || !(IsCppLiteral(taken->value) || IsQualifiedConstant(taken->value))) return std::nullopt;
  return taken->value;
}

// Decides the conditions written in helper `fn` that its bindings decide
// (`activation == Activation::GELU` is false where the default binds);
// kept like a selection's, by condition, file and parent op. Two ways
// that disagree leave it open.
void EdgeReader::BindHelperConditions(const OpStep& parent, const std::string& fn,
                                      const std::vector<Condition>& conditions, BindingLog* log) {
  Bindings bound;
  bool read = false;
  const Assumptions& a = values_.AssumptionsOf(parent);
  for (const auto& c : conditions) {
    if (c.kind == ConditionKind::kDevice || c.kind == ConditionKind::kPreprocessor ||
        values_.EvaluateOnce(c.text, a) != Tri::kUnknown)
      continue;
    if (!read) {  // once per helper and op: every call site of the edge asks again
      // What the helper's callers pass rests on the parent's arguments:
      // read again once its callers' arguments are bound (an edge read
      // before, in a cycle of ops, kept the schema defaults).
      auto [slot, fresh] = helper_bindings_.try_emplace({&parent, fn, values_.HasEntryArguments(parent)});
      if (fresh) slot->second = HelperBindings(parent, fn);
      bound = slot->second;
      read = true;
    }
    if (bound.empty()) return;
    Assumptions with = a;
    for (const auto& [name, value] : bound) with.defaults[name] = value;
    Tri t = EvaluateCondition(c.text, false, with);
    // A local of the helper holding a bound parameter (`auto mode =
    // static_cast<at::padding_mode>(mode_int);`).
    if (t == Tri::kUnknown) t = values_.WithLocalsUnder(c, with);
    std::string key = DecidedKey(parent, c);
    if (log) log->push_back({key, t});
    values_.BindInHelper(key, t);
  }
}

}  // namespace optrace
