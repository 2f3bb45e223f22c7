// Each rule reads only what it is handed (the op, the index, the
// assumptions); the path annotation's parts call them where they walk.
#include "trace/path_rules.h"

#include <algorithm>
#include <cctype>
#include <optional>
#include <set>

#include "base/text.h"
#include "trace/condition_text.h"
#include "trace/tensor_methods.h"

namespace optrace {

// Whether `caller` is an op of `op`'s role whose structured delegate `op` is.
bool DelegatesTo(const OpStep* caller, const OpStep& op) {
  return caller && caller->role == op.role && caller->yaml && caller->yaml->structured_delegate == op.name;
}

// Whether torchgen's generated kernel for `parent` calls `child`.
bool GeneratedKernelCalls(const YamlModel& yaml, const OpStep& parent, const OpStep& child) {
  if (!parent.yaml || !child.yaml) return false;
  const auto callees = yaml.GeneratedKernelCallees(*parent.yaml);
  return std::find(callees.begin(), callees.end(), child.yaml) != callees.end();
}

// Whether code under dispatch key (or stub registration device) `key`
// runs for `device` (kAny: for any): the device's own, or code every
// device shares. CPU and CUDA files often define functions of one name
// (GroupNormKernelImplInternal): a way to the CUDA one never passes
// through the CPU registration.
bool Serves(std::string_view key, CodeDevice device) {
  std::optional<CodeDevice> of = CodeDeviceOf(key);
  return device == CodeDevice::kAny || !of || *of == CodeDevice::kAny || *of == device;
}

// `x.base()` as written (OpCallStep::how: "self.contiguous()"), not at::base.
bool IsMethodCall(const OpCallStep& call, const std::string& base) {
  const std::string& how = call.how;
  if (!how.ends_with(base + "()") || how.size() < base.size() + 3) return false;
  char before = how[how.size() - base.size() - 3];
  return before == '.' || before == '>';
}

// The `A::b` side of `x == A::b` (either side), or "".
std::string EnumMember(const std::string& text) {
  size_t op = text.find("==");
  if (op == std::string::npos) op = text.find("!=");
  for (std::string side : {text.substr(op + 2), text.substr(0, op)}) {
    side = std::string(TrimView(side));
    if (side.find("::") == std::string::npos) continue;
    if (std::all_of(side.begin(), side.end(), [](char ch) { return IsIdentChar(ch) || ch == ':'; })) return side;
  }
  return "";
}

// Whether the entry overload needs a named tensor: a Dimname argument it
// cannot do without (`diagonal.Dimname`'s outdim, dim1, dim2). A typical
// tensor has no names, and such an overload fails on one (no dimension
// has the name), so it is never the typical call's.
bool NeedsNames(const OpStep& op) {
  if (!op.yaml) return false;
  for (const auto& a : op.yaml->schema.arguments)
    if (StartsWith(a.type, "Dimname") && a.type.find('?') == std::string::npos && !a.default_value) return true;
  return false;
}

bool SameRequiredArguments(const OpStep& a, const OpStep& b) {
  if (!a.yaml || !b.yaml) return false;
  auto required = [](const OpStep& op) {
    std::vector<std::string> types;
    for (const SchemaArgument& arg : op.yaml->schema.arguments)
      if (!arg.is_out && !arg.default_value) types.push_back(arg.type);
    return types;
  };
  return required(a) == required(b);
}

bool NeedsKeyword(const OpStep& op) {
  if (!op.yaml) return false;
  for (const SchemaArgument& arg : op.yaml->schema.arguments)
    if (arg.kwarg_only && !arg.is_out && !arg.default_value) return true;
  return false;
}

// Python's `x.conj()` calls the hand-written Tensor method, which returns x
// itself for a real x (trace/tensor_methods.h): the call reaches the op only
// otherwise, as a C++ method call does.
void UnlessSelfReturn(const Index& ix, const Assumptions& a, const OpStep& op,
                      std::pair<std::vector<Condition>, Tri>* way) {
  auto guard = EarlySelfReturn(ix, OpBaseName(op.name));
  if (!guard) return;
  way->first.push_back({guard->condition, true, ConditionKind::kReturn, {guard->file, guard->line, ""}});
  const Tri returns_self = EvaluateCondition(guard->condition, false, a);
  if (returns_self == Tri::kTrue) way->second = Tri::kFalse;
  if (returns_self == Tri::kUnknown && way->second == Tri::kTrue) way->second = Tri::kUnknown;
}

Condition PythonCondition(const PyCondition& p, const std::string& file) {
  return {p.text, p.negated, ConditionKindOf(p.kind), {file, p.line, ""}};
}

// A reader's conditions as the trace states them, placed in `file`.
std::vector<Condition> ConditionsIn(const std::vector<CodeCondition>& in, const std::string& file) {
  std::vector<Condition> out;
  for (const auto& c : in) out.push_back({c.text, c.negated, ConditionKindOf(c.kind), {file, c.line, ""}});
  return out;
}

// Whether a call written in an implementation is worth naming as an
// alternative: a dispatch stub, an aten op, or a function the tree defines
// (not a macro, not std:: plumbing).
bool WorthNaming(const Index& ix, const std::string& callee) {
  if (callee.empty() || std::isupper(static_cast<unsigned char>(callee[0]))) return false;
  static const std::set<std::string> kPlumbing = {"make_tuple", "move",        "get",    "forward", "tie",
                                                  "make_pair",  "static_cast", "sizeof", "defined", "return"};
  if (kPlumbing.count(callee)) return false;
  if (callee.ends_with("_stub")) return true;
  if (ix.yaml.Find(callee)) return true;
  return !ix.cpp.FunctionsNamed(callee).empty();
}

std::vector<Condition> EachConditionOnce(std::vector<Condition> in) {
  std::vector<Condition> out;
  for (auto& c : in) {
    bool seen = false;
    for (const auto& o : out)
      seen = seen || (o.text == c.text && o.negated == c.negated && o.kind == c.kind && o.where.file == c.where.file);
    if (!seen) out.push_back(std::move(c));
  }
  return out;
}

const OpStep* ParentOf(const Trace& t, const OpStep& op) {
  const OpStep* found = nullptr;
  for (const auto& p : t.ops) {
    if (&p == &op || p.name != op.reached_from) continue;
    if (p.role == op.role && p.reached_from != op.name) return &p;
    if (!found) found = &p;
  }
  return found;
}

const OpStep* OpNamed(const Trace& t, const std::string& name, OpRole role) {
  for (const auto& p : t.ops)
    if (p.name == name && p.role == role) return &p;
  return nullptr;
}

}  // namespace optrace
