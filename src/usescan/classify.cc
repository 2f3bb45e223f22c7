// The category of each op a user's file runs, and the basis for it, read
// from the checkout: YAML tags (pointwise), schemas (an aliasing return is a
// view, a mutated self is in-place, no tensor input is a factory, an index
// tensor argument is indexing, keepdim is a reduction), the nn module file a
// layer class lives in, and, last, a documented name rule (conv, attention,
// _norm, lstm/gru/rnn, loss, mm/matmul/linear).
#include "usescan/classify.h"

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "base/pytorch_paths.h"
#include "base/text.h"

namespace optrace {
namespace {

// Ops whose schema returns an alias of the input (Tensor(a)) only when
// nothing changes, and a copy otherwise: not views.
bool CopiesUnlessUnchanged(std::string_view base) {
  return base == "to" || base == "contiguous" || base == "type_as" || IsConversion(base);
}

const std::set<std::string_view> kWellKnown = {"pointwise", "view/shape", "factory", "in-place",
                                               "indexing",  "reduction",  "copy"};

std::string YamlWhere(const NativeFunction* f) { return fmt::format("{}:{}", kNativeFunctionsPath, f->line); }

// What the checkout says about aten op `base` (all its overloads).
Classification ClassifyAten(const YamlModel& yaml, std::string_view base) {
  if (IsConversion(base)) base = "to";
  auto overloads = yaml.Overloads(base);
  if (overloads.empty()) return {"other", ""};
  if (CopiesUnlessUnchanged(base))
    return {"copy", fmt::format("aten::{} copies unless the tensor is already as asked (returns Tensor(a): "
                                "itself then; {})",
                                base, YamlWhere(overloads.front()))};
  const NativeFunction* first = overloads.front();
  for (const NativeFunction* f : overloads)
    if (f->schema.is_inplace() && !f->schema.arguments.empty() && f->schema.arguments[0].annotation == "a!")
      return {"in-place", fmt::format("schema {} mutates self ({})", f->name, YamlWhere(f))};
  for (const NativeFunction* f : overloads)
    if (std::find(f->tags.begin(), f->tags.end(), "pointwise") != f->tags.end())
      return {"pointwise", fmt::format("tag pointwise on {} ({})", f->name, YamlWhere(f))};
  for (const NativeFunction* f : overloads) {
    if (f->schema.is_out() || f->schema.returns.empty()) continue;
    const auto& r = f->schema.returns[0];
    if (!r.annotation.empty() && r.annotation[0] == 'a' && r.annotation.find('!') == std::string::npos)
      return {"view/shape",
              fmt::format("{} returns an alias of its input: {} ({})", f->name, f->schema.text, YamlWhere(f))};
  }
  for (const NativeFunction* f : overloads) {
    if (f->schema.is_out()) continue;
    for (const auto& a : f->schema.arguments)
      if (a.name == "keepdim") return {"reduction", fmt::format("{} takes keepdim ({})", f->name, YamlWhere(f))};
  }
  for (const NativeFunction* f : overloads) {
    if (f->schema.is_out()) continue;
    for (const auto& a : f->schema.arguments)
      if (StartsWith(a.type, "Tensor?[]") ||
          (StartsWith(a.type, "Tensor") && (a.name == "index" || a.name == "indices")))
        return {"indexing", fmt::format("{} takes index tensor '{}' ({})", f->name, a.name, YamlWhere(f))};
  }
  {
    const NativeFunction* f = first;
    bool tensor_in = false;
    for (const auto& a : f->schema.arguments) tensor_in |= StartsWith(a.type, "Tensor");
    if (!tensor_in && !f->schema.returns.empty() && f->schema.returns[0].type == "Tensor")
      return {"factory", fmt::format("{} takes no tensor and returns one ({})", f->name, YamlWhere(f))};
    if (EndsWith(base, "_like")) return {"factory", fmt::format("{} is a *_like factory ({})", f->name, YamlWhere(f))};
  }
  // The name rule, last: kinds the YAML has no tag for.
  std::string b(base);
  auto rule = [&](const char* category, const char* what) {
    return Classification{category, fmt::format("name rule '{}' on aten::{} ({})", what, b, YamlWhere(first))};
  };
  if (Contains(b, "attention")) return rule("attention", "attention");
  if (Contains(b, "conv")) return rule("convolution", "conv");
  if (Contains(b, "lstm") || Contains(b, "gru") || StartsWith(b, "rnn_")) return rule("RNN", "lstm/gru/rnn_");
  if (Contains(b, "loss")) return rule("loss", "loss");
  if (EndsWith(b, "_norm") && !StartsWith(b, "linalg") && !Contains(b, "vector") && !Contains(b, "matrix"))
    return rule("normalization", "_norm");
  if (b == "mm" || b == "bmm" || b == "addmm" || b == "baddbmm" || b == "addbmm" || b == "mv" || b == "addmv" ||
      b == "matmul" || b == "linear" || b == "dot" || b == "einsum" || b == "_scaled_mm")
    return rule("matmul/BLAS", "mm/matmul/linear");
  return {"other", fmt::format("aten::{} ({}): no tag or schema rule applies", b, YamlWhere(first))};
}

Classification ClassifyModule(const CheckoutFacts& checkout, const ScanOp& op) {
  PySymbol s = checkout.index().py.Resolve(op.resolved);
  if (s.kind != PySymbol::kClass) return {"other", ""};
  const PyModule& m = checkout.index().py.modules()[s.module];
  const PyClass& c = m.classes[s.index];
  std::string where = fmt::format("class in {} ({}:{})", m.name, m.path, c.line);
  std::string file = m.name.substr(m.name.rfind('.') + 1);
  if (file == "conv") return {"convolution", where};
  if (file == "rnn") return {"RNN", where};
  if (file == "normalization" || file == "batchnorm" || file == "instancenorm") return {"normalization", where};
  if (file == "loss") return {"loss", where};
  if (c.name == "MultiheadAttention") return {"attention", where};
  if (file == "linear" && c.name != "Identity") return {"matmul/BLAS", where};
  // Else what its forward's first functional call is (ReLU -> F.relu).
  auto fwd = checkout.index().py.FindMethod(s.module, s.index, "forward");
  if (fwd && fwd->kind == PySymbol::kFunction) {
    const PyModule& fm = checkout.index().py.modules()[fwd->module];
    const PyFunction& fn = fm.functions[fwd->index];
    for (const PyCall& call : fn.calls) {
      if (call.kind != PyCallKind::kCall || call.in_preamble) continue;
      PySymbol target = checkout.index().py.ResolveIn(fwd->module, call.callee, static_cast<int32_t>(fwd->index));
      std::string name = call.callee.substr(call.callee.rfind('.') + 1);
      std::string aten = checkout.AtenBehind(target, IsIdentifier(name) ? name : "");
      if (aten.empty()) continue;
      Classification k = ClassifyAten(checkout.index().yaml, aten);
      k.basis = fmt::format("forward calls {} ({}:{}); {}", call.callee, fm.path, call.line, k.basis);
      return k;
    }
  }
  return {"other", where};
}

}  // namespace

bool IsConversion(std::string_view method) {
  static const std::set<std::string_view> kConversions = {
      "float", "half", "double", "bfloat16", "int", "long", "short", "char", "byte", "bool", "cpu", "cuda", "type"};
  return kConversions.count(method) > 0;
}

bool IsWellKnownCategory(std::string_view category) { return kWellKnown.count(category) > 0; }

Classification ClassifyOp(const CheckoutFacts& checkout, const ScanOp& op) {
  if (op.kind == ScanOpKind::kModule) return ClassifyModule(checkout, op);
  if (op.query == "Tensor.__getitem__")
    return {"indexing", "subscript x[...] calls Tensor.__getitem__ (index, select, slice by argument)"};
  if (!op.aten.empty()) return ClassifyAten(checkout.index().yaml, op.aten);
  return {"other", "no aten op behind it found statically"};
}

}  // namespace optrace
