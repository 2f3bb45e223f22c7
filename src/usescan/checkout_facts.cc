// CheckoutFacts: what the checkout says about the names a user's file uses
// -- which classes are nn.Modules, which names are Tensor methods and which
// of those only read metadata, the aten op a Python function reaches first,
// the scalar attributes of a layer class -- each answer remembered, since a
// file asks the same names many times.
#include "usescan/checkout_facts.h"

#include <algorithm>
#include <regex>
#include <set>
#include <unordered_set>

#include "base/bounded_regex.h"
#include "base/text.h"

namespace optrace {
namespace {

// How many base classes up the checkout's hierarchy CheckoutInherits reads
// (torch.nn.Module's subclasses derive a few levels deep); the bound stops a
// cycle of bases.
constexpr int kMaxCheckoutBaseDepth = 24;

std::vector<std::string_view> SplitLines(const std::string& text) {
  std::vector<std::string_view> lines;
  for (size_t pos = 0; pos <= text.size();) {
    size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    lines.emplace_back(text.data() + pos, end - pos);
    pos = end + 1;
  }
  return lines;
}

}  // namespace

// Tensor attributes that hold no tensor (a shape, a dtype, a flag).
bool CheckoutFacts::ScalarAttribute(std::string_view attr) {
  static const std::unordered_set<std::string_view> kAttrs = {
      "shape",        "ndim",    "dtype",         "device",  "layout", "is_cuda",  "is_sparse",
      "is_quantized", "is_meta", "requires_grad", "is_leaf", "names",  "itemsize", "nbytes"};
  return kAttrs.count(attr) > 0;
}

std::string CheckoutFacts::NnQuery(const std::string& full, const std::string& as_written) {
  if (StartsWith(full, "torch.nn.modules.")) return "nn." + full.substr(full.rfind('.') + 1);
  return as_written;
}

// Does checkout class `sym` derive from the class named `target`?
bool CheckoutFacts::CheckoutInherits(const PySymbol& sym, std::string_view target, int depth) const {
  if (sym.kind != PySymbol::kClass || depth > kMaxCheckoutBaseDepth) return false;
  if (ix_.py.NameOf(sym) == target) return true;
  const PyClass& c = ix_.py.modules()[sym.module].classes[sym.index];
  for (const std::string& b : c.resolved_bases)
    if (!b.empty() && CheckoutInherits(ix_.py.Resolve(b), target, depth + 1)) return true;
  return false;
}

// A checkout nn.Module class named by `dotted`, or kNone.
PySymbol CheckoutFacts::NnClass(const std::string& dotted) const {
  if (!StartsWith(dotted, "torch.")) return {};
  PySymbol s = ix_.py.Resolve(dotted);
  return CheckoutInherits(s, "torch.nn.modules.module.Module") ? s : PySymbol{};
}

// Is `name` a method of Tensor in the checkout (YAML method variant or a
// def in torch/_tensor.py)?
bool CheckoutFacts::IsTensorMethod(const std::string& name) {
  if (name.empty() || StartsWith(name, "__")) return false;
  auto it = tensor_method_.find(name);
  if (it != tensor_method_.end()) return it->second;
  bool yes = false;
  for (const NativeFunction* f : ix_.yaml.Overloads(name)) yes |= f->HasVariant("method");
  if (!yes) {
    PySymbol s = ix_.py.Resolve("torch._tensor.Tensor." + name);
    yes = s.kind == PySymbol::kFunction || s.kind == PySymbol::kAlias;
  }
  tensor_method_[name] = yes;
  return yes;
}

// The aten op a checkout Python function reaches first: its own name when
// the YAML has it, else the first call of its body that names a YAML op
// through torch._C._nn / torch / _VF / torch._C._VariableFunctions.
std::string CheckoutFacts::AtenBehind(const PySymbol& sym, const std::string& name) const {
  if (!name.empty() && !ix_.yaml.Overloads(name).empty()) return name;
  if (sym.kind != PySymbol::kFunction) return {};
  const PyFunction& fn = ix_.py.modules()[sym.module].functions[sym.index];
  for (const PyCall& c : fn.calls) {
    if (c.in_preamble || c.kind != PyCallKind::kCall) continue;
    for (const char* bridge : {"torch._C._nn.", "torch._C._VariableFunctions.", "_VF.", "torch."}) {
      if (!StartsWith(c.callee, bridge)) continue;
      std::string op = c.callee.substr(std::string_view(bridge).size());
      if (IsIdentifier(op) && !ix_.yaml.Overloads(op).empty()) return op;
    }
  }
  return {};
}

// Tensor methods that only read metadata: every YAML overload returns
// ints (size, stride). No kernel runs; never an op of the scan.
bool CheckoutFacts::IsMetadata(const std::string& name) {
  auto it = metadata_.find(name);
  if (it != metadata_.end()) return it->second;
  auto overloads = ix_.yaml.Overloads(name);
  bool yes = !overloads.empty();
  for (const NativeFunction* fn : overloads) {
    yes = yes && !fn->schema.returns.empty();
    for (const auto& r : fn->schema.returns)
      yes = yes && (r.type == "int" || r.type == "SymInt" || r.type == "int[]" || r.type == "SymInt[]");
  }
  return metadata_[name] = yes;
}

// Whether `name` called on a tensor returns no tensor: every YAML overload
// returns none (size, item, is_floating_point), or it is one of the
// metadata accessors bound by hand in python_variable_methods.cpp.
bool CheckoutFacts::ReturnsNoTensor(std::string_view name) const {
  static const std::unordered_set<std::string_view> kHandBound = {
      "dim",           "ndimension", "numel",          "nelement", "element_size", "get_device",
      "is_contiguous", "data_ptr",   "storage_offset", "tolist",   "has_names",    "item"};
  if (kHandBound.count(name)) return true;
  auto overloads = ix_.yaml.Overloads(name);
  if (overloads.empty()) return false;
  for (const NativeFunction* fn : overloads)
    for (const auto& r : fn->schema.returns)
      if (r.type.find("Tensor") != std::string::npos) return false;
  return true;
}

// nn.Module's own API (self.register_buffer, self.parameters): no op.
bool CheckoutFacts::ModuleApi(const std::string& name) const {
  PySymbol m = ix_.py.Resolve("torch.nn.modules.module.Module");
  if (m.kind != PySymbol::kClass) return false;
  return ix_.py.FindMethod(m.module, m.index, name).has_value();
}

// The scalar attributes of a checkout layer class (torch.nn.modules.linear.Linear:
// in_features, out_features), read from its source and its bases': class-level
// annotations (`in_features: int`) and `self.X = p` in __init__ where p is a
// parameter annotated int/float/bool/str or with a literal default.
const std::vector<std::string>& CheckoutFacts::LayerScalarAttrs(const std::string& dotted) {
  if (auto it = layer_attrs_.find(dotted); it != layer_attrs_.end()) return it->second;
  std::vector<std::string> attrs;
  std::vector<std::string> todo = {dotted};
  std::set<std::string> seen;
  while (!todo.empty() && seen.size() < 8) {
    std::string name = todo.back();
    todo.pop_back();
    if (name.empty() || !seen.insert(name).second) continue;
    PySymbol sym = ix_.py.Resolve(name);
    if (sym.kind != PySymbol::kClass) continue;
    const PyModule& m = ix_.py.modules()[sym.module];
    const PyClass& c = m.classes[sym.index];
    for (const std::string& b : c.resolved_bases) todo.push_back(b);
    std::string text;
    if (!ix_.disk || !ix_.disk->ReadFile(m.path, &text).ok()) continue;
    ClassScalarAttrs(m, c, SplitLines(text), &attrs);  // views into text, used before it goes
  }
  return layer_attrs_.emplace(dotted, std::move(attrs)).first->second;
}

void CheckoutFacts::ClassScalarAttrs(const PyModule& m, const PyClass& c, const std::vector<std::string_view>& lines,
                                     std::vector<std::string>* attrs) const {
  static const std::regex annotated(R"(^\s+([A-Za-z_]\w*)\s*:\s*(int|float|bool|str)\s*(=.*)?$)");
  uint32_t body_end = static_cast<uint32_t>(lines.size());
  for (uint32_t mi : c.methods) body_end = std::min(body_end, m.functions[mi].line);
  for (uint32_t n = c.line + 1; n < body_end && n <= lines.size(); ++n) {
    std::string line(lines[n - 1]);
    std::smatch match;
    if (BoundedRegexMatch(line, &match, annotated)) attrs->push_back(match[1].str());
  }
  for (uint32_t mi : c.methods) {
    const PyFunction& init = m.functions[mi];
    if (init.name != "__init__") continue;
    std::string header;
    for (uint32_t n = init.line; n <= init.end_line && n <= lines.size() && n < init.line + 32; ++n) {
      header += std::string(lines[n - 1]) + " ";
      std::string_view l = lines[n - 1];
      while (!l.empty() && (l.back() == ' ' || l.back() == '\t' || l.back() == '\r')) l.remove_suffix(1);
      if (!l.empty() && l.back() == ':') break;
    }
    ValueScope scope(&facts_);
    for (const std::string& p : ScalarParams(header)) scope.SetLocal(p, ValueKind::kScalar);
    for (uint32_t n = init.line + 1; n <= init.end_line && n <= lines.size(); ++n) {
      Assignment a;
      if (!ParseAssignment(lines[n - 1], &a) || a.targets.size() != 1 || !StartsWith(a.targets[0], "self.")) continue;
      std::string attr = a.targets[0].substr(5);
      if (IsIdentifier(attr) && scope.KindOf(a.value) == ValueKind::kScalar) attrs->push_back(attr);
    }
  }
}

}  // namespace optrace
