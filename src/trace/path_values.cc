// Evaluation order (PathValues::Evaluate): a condition read at one place
// both ways is never taken; then per condition, what a predicate's body
// decided, the vocabulary with the op's assumptions, a selection, a
// helper's binding, and last the locals the condition reads
// (trace/local_values.h).
#include "trace/path_values.h"

#include <algorithm>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string_view>

#include "base/text.h"
#include "trace/impl_parameters.h"
#include "trace/inline_predicates.h"
#include "trace/shared_annotations.h"

namespace optrace {

// What EvaluateCondition and EvaluateWithLocals answer under one pair of
// assumptions (the trace's, the op's): both read only the condition's
// text, the index and those assumptions, so the answers hold for every
// trace. The threads of `trace --all` share them under a lock.
struct PathValues::SharedAnswers {
  std::shared_mutex mu;
  std::unordered_map<std::string, Tri> evaluated;    // condition text -> EvaluateCondition
  std::unordered_map<std::string, Tri> with_locals;  // "file:line:text" -> EvaluateWithLocals
  std::unordered_map<std::string, Tri> inlined;      // "file\x1ctext" -> InlinedOnce
};

// Per index: the answers by the two assumptions' Key()s.
struct PathValues::SharedTables {
  std::mutex mu;
  std::unordered_map<std::string, std::unique_ptr<SharedAnswers>> by_assumptions;
};

namespace {

// `map[key]`, computed (outside the lock) and kept when new.
template <class Compute>
Tri Remembered(std::shared_mutex& mu, std::unordered_map<std::string, Tri>& map, const std::string& key,
               Compute compute) {
  {
    std::shared_lock<std::shared_mutex> lock(mu);
    if (auto it = map.find(key); it != map.end()) return it->second;
  }
  const Tri v = compute();
  std::lock_guard<std::shared_mutex> lock(mu);
  return map.try_emplace(key, v).first->second;
}

}  // namespace

PathValues::PathValues(const Index& ix, const Assumptions& a)
    : ix_(ix), a_(a), locals_(ix), shared_(*ix.Derived<std::unique_ptr<SharedTables>>("path_values", [] {
        return std::make_unique<SharedTables>();
      })) {}

PathValues::SharedAnswers& PathValues::SharedFor(const Assumptions& a) const {
  auto [slot, fresh] = answers_.try_emplace(&a, nullptr);
  if (fresh) {
    std::lock_guard<std::mutex> lock(shared_.mu);
    std::unique_ptr<SharedAnswers>& answers = shared_.by_assumptions[a_.Key() + '\x1c' + a.Key()];
    if (!answers) answers = std::make_unique<SharedAnswers>();
    slot->second = answers.get();
  }
  return *slot->second;
}

void Meet(Tri* v, Tri t) {
  if (t == Tri::kFalse) *v = Tri::kFalse;
  else if (t == Tri::kUnknown && *v == Tri::kTrue) *v = Tri::kUnknown;
}

int Rank(Tri v) { return v == Tri::kTrue ? 2 : v == Tri::kUnknown ? 1 : 0; }

std::string DecidedKey(const OpStep& parent, const Condition& c) {
  return c.text + "@" + c.where.file + "@" + parent.name;
}

namespace {

// `x_stub.is_device_supported(t.device().type())` (DispatchStub.h): true on
// a device the op's stub of that name lists a registration for
// (scaled_dot_product_attention's `_fused_sdp_choice_stub`, registered for
// CUDA at transformers/cuda/attention.cu:1412); open otherwise -- the walk
// lists only the registrations it wants.
Tri StubSupportsDevice(const OpStep& op, std::string_view text, CodeDevice device) {
  text = TrimView(text);
  constexpr std::string_view kAsk = ".is_device_supported(";
  const size_t at = text.find(kAsk);
  if (at == std::string_view::npos || at == 0 || !text.ends_with(")")) return Tri::kUnknown;
  const std::string_view stub = text.substr(0, at);
  const std::string_view asked = text.substr(at + kAsk.size(), text.size() - at - kAsk.size() - 1);
  if (!IsIdentifier(stub) || !asked.ends_with(".device().type()")) return Tri::kUnknown;  // a tensor's device
  for (const StubStep& s : op.stubs)
    if (s.name == stub)
      for (const StubRegistrationStep& r : s.registrations)
        if (r.device == Name(device)) return Tri::kTrue;
  return Tri::kUnknown;
}

}  // namespace

Tri PathValues::Evaluate(const OpStep& parent, const std::vector<Condition>& when, bool schema_defaults) const {
  const Assumptions& a = schema_defaults ? AssumptionsOf(parent) : a_;
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
    std::string key;  // DecidedKey(parent, c), made once where a table is asked
    auto decided = [&](const std::map<std::string, Tri>& table) {
      if (table.empty()) return Tri::kUnknown;
      if (key.empty()) key = DecidedKey(parent, c);
      auto d = table.find(key);
      return d == table.end() ? Tri::kUnknown : d->second;
    };
    if (by_body_.count(c.text)) t = decided(selected_);
    if (t == Tri::kUnknown) t = EvaluateOnce(c.text, a);
    if (t == Tri::kUnknown) t = StubSupportsDevice(parent, c.text, a.device);
    if (t == Tri::kUnknown) t = decided(selected_);
    if (t == Tri::kUnknown) t = decided(bound_);
    if (t == Tri::kUnknown) t = WithLocals(c, a);
    if (c.negated) t = Not(t);
    if (t == Tri::kFalse) return Tri::kFalse;
    if (t == Tri::kUnknown) v = Tri::kUnknown;
  }
  return v;
}

// A C++ condition on the locals it reads (trace/local_values.h), once
// per place and set of assumptions: the launches of one op share their
// holders' guard chains.
Tri PathValues::WithLocals(const Condition& c, const Assumptions& a) const {
  if (c.kind == ConditionKind::kDevice || c.kind == ConditionKind::kPreprocessor || !c.where.valid())
    return Tri::kUnknown;
  std::string key = c.where.file + ":" + std::to_string(c.where.line) + ":" + c.text;
  auto [slot, fresh] = with_locals_[&a].try_emplace(std::move(key), Tri::kUnknown);
  if (fresh) {
    SharedAnswers& shared = SharedFor(a);
    slot->second = Remembered(shared.mu, shared.with_locals, slot->first,
                              [&] { return EvaluateWithLocals(c.text, locals_.Of(c.text, c.where, a_), a); });
  }
  return slot->second;
}

Tri PathValues::WithLocalsUnder(const Condition& c, const Assumptions& with) const {
  if (c.kind == ConditionKind::kDevice || c.kind == ConditionKind::kPreprocessor || !c.where.valid())
    return Tri::kUnknown;
  const LocalsRead& locals = locals_.Of(c.text, c.where, a_);
  // A local the helper writes is its own, whatever the op's argument of
  // that name holds (PadNd.cpp's `mode`: the op's string, the helper's enum).
  auto held = [&](const auto& assigned) { return with.defaults.count(assigned.first) > 0; };
  if (std::none_of(locals.assigned.begin(), locals.assigned.end(), held))
    return EvaluateWithLocals(c.text, locals, with);
  Assumptions own = with;
  for (const auto& [name, expr] : locals.assigned) own.defaults.erase(name);
  return EvaluateWithLocals(c.text, locals, own);
}

Tri PathValues::EvaluateOnce(const std::string& text, const Assumptions& a) const {
  auto [slot, fresh] = evaluated_[&a].try_emplace(text, Tri::kUnknown);
  if (fresh) {
    SharedAnswers& shared = SharedFor(a);
    slot->second = Remembered(shared.mu, shared.evaluated, text, [&] { return EvaluateCondition(text, false, a); });
  }
  return slot->second;
}

Tri PathValues::InlinedOnce(const Condition& c, const Assumptions& a) const {
  SharedAnswers& shared = SharedFor(a);
  return Remembered(shared.mu, shared.inlined, c.where.file + '\x1c' + c.text, [&] {
    const std::string inlined = InlinePredicates(ix_, c.text, c.where.file, a);
    return inlined.empty() ? Tri::kUnknown : EvaluateCondition(inlined, false, a);
  });
}

const Assumptions& PathValues::AssumptionsOf(const OpStep& parent) const {
  auto it = assumptions_.find(&parent);
  if (it == assumptions_.end()) it = assumptions_.emplace(&parent, AssumptionsFor(parent)).first;
  return it->second;
}

// The assumptions with the defaults of the parent op's schema arguments,
// overridden by what the Python call passes, also under the names its
// implementation gives them (trace/impl_parameters.h).
Assumptions PathValues::AssumptionsFor(const OpStep& parent) const {
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
  for (const auto& [cpp, schema] : OutParameterNames(parent))
    if (auto it = a.defaults.find(schema); it != a.defaults.end()) a.defaults[cpp] = it->second;
  return a;
}

void PathValues::SetEntryArguments(const OpStep& op, PassedArguments passed) {
  entry_arguments_[&op] = std::move(passed);
  // What was evaluated under the op's old assumptions goes with them: the
  // new ones may be made at the same address.
  if (auto old = assumptions_.find(&op); old != assumptions_.end()) {
    evaluated_.erase(&old->second);
    with_locals_.erase(&old->second);
    answers_.erase(&old->second);
    assumptions_.erase(old);
  }
}

std::string PathValues::KnowledgeOf(const OpStep& op) const {
  std::string known;
  if (auto passed = entry_arguments_.find(&op); passed != entry_arguments_.end())
    for (const auto& [name, value] : passed->second) known += "passed " + name + "=" + value.value_or("?") + "\n";
  const std::string tail = "@" + op.name;
  for (const auto* decided : {&selected_, &bound_})
    for (const auto& [key, t] : *decided)
      if (key.ends_with(tail)) known += "decided " + key + "=" + std::to_string(static_cast<int>(t)) + "\n";
  for (const std::string& text : by_body_) known += "by body " + text + "\n";
  return known;
}

void PathValues::BindInHelper(const std::string& key, Tri t) { Bind(&bound_, key, t); }

}  // namespace optrace
