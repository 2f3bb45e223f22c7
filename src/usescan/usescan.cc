// ScanUserFile: resolves what a user's file calls against the checkout.
//
// Functions are walked from roots -- each nn.Module forward and each
// autograd.Function forward/backward -- following calls to the file's own
// functions and methods ("reachable" code). Everywhere, calls to torch.*,
// F.*, torch.ops.aten.* and nn layers count, as do tensor methods (a method
// name the checkout binds on Tensor). Only in reachable code do operators
// count (a @ b is a tensor op in a forward, rarely elsewhere), and only there
// are calls that cannot be resolved listed as unresolved: a training loop's
// optimizer calls are not model code.
//
// Classification reads the checkout: YAML tags (pointwise), schemas (an
// aliasing return is a view, a mutated self is in-place, no tensor input is a
// factory, an index tensor argument is indexing, keepdim is a reduction), the
// nn module file a layer class lives in, and, last, a documented name rule
// (conv, attention, _norm, lstm/gru/rnn, loss, mm/matmul/linear). Every
// answer carries its basis.
#include "usescan/usescan.h"

#include <algorithm>
#include <map>
#include <memory>
#include <utility>
#include <regex>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include <fmt/format.h>

#include "base/bounded_regex.h"
#include "base/text.h"
#include "render/render.h"
#include "py/py_values.h"

namespace optrace {
namespace {

bool Contains(std::string_view s, std::string_view p) { return s.find(p) != std::string_view::npos; }

// A call's argument text, "" when the scanner cut it short ("..." at the
// end): a cut list would bind its last argument wrongly.
std::string ArgumentsOf(const PyCall& call) {
  if (call.kind != PyCallKind::kCall || EndsWith(call.args, "...")) return "";
  return call.args;
}

// Python builtins a model's code calls that are never torch ops.
const std::unordered_set<std::string_view>& Builtins() {
  static const std::unordered_set<std::string_view> names = {
      "abs", "all", "any", "bool", "callable", "dict", "enumerate", "filter", "float", "format", "getattr",
      "hasattr", "hash", "id", "int", "isinstance", "issubclass", "iter", "len", "list", "map", "max", "min",
      "next", "object", "print", "range", "repr", "reversed", "round", "set", "setattr", "slice", "sorted",
      "str", "sum", "super", "tuple", "type", "vars", "zip", "ValueError", "TypeError", "RuntimeError",
      "NotImplementedError", "AssertionError", "KeyError", "IndexError", "Exception"};
  return names;
}

// Operators: the Tensor dunder each calls (what `optrace trace` takes), the
// aten op the classification looks at, and the dunder Python calls instead
// when the left operand is no tensor (`1.0 / x` is x.__rtruediv__(1.0),
// `theta ** t` t.__rpow__(theta); a comparison swaps: `0 < x` is x.__gt__(0)).
// Unary operators are "u-" and "u~" (py_scan.h).
struct OperatorInfo {
  const char* op;
  const char* dunder;
  const char* aten;
  const char* reflected = nullptr;
  bool comparison = false;  // counted only when an operand is known to be a tensor (`if n == 0` is not)
};
constexpr OperatorInfo kOperators[] = {
    {"@", "__matmul__", "matmul", "__rmatmul__"},
    {"+", "__add__", "add", "__radd__"},
    {"-", "__sub__", "sub", "__rsub__"},
    {"*", "__mul__", "mul", "__rmul__"},
    {"/", "__truediv__", "div", "__rtruediv__"},
    {"//", "__floordiv__", "floor_divide", "__rfloordiv__"},
    {"%", "__mod__", "remainder", "__rmod__"},
    {"**", "__pow__", "pow", "__rpow__"},
    {"&", "__and__", "bitwise_and", "__rand__"},
    {"|", "__or__", "bitwise_or", "__ror__"},
    {"^", "__xor__", "bitwise_xor", "__rxor__"},
    {"<<", "__lshift__", "bitwise_left_shift", "__rlshift__"},
    {">>", "__rshift__", "bitwise_right_shift", "__rrshift__"},
    {"[]", "__getitem__", "index"},
    {"u-", "__neg__", "neg"},
    {"u~", "__invert__", "bitwise_not"},
    {"==", "__eq__", "eq", "__eq__", true},
    {"!=", "__ne__", "ne", "__ne__", true},
    {"<", "__lt__", "lt", "__gt__", true},
    {"<=", "__le__", "le", "__ge__", true},
    {">", "__gt__", "gt", "__lt__", true},
    {">=", "__ge__", "ge", "__le__", true},
    {"+=", "__iadd__", "add_"},
    {"-=", "__isub__", "sub_"},
    {"*=", "__imul__", "mul_"},
    {"/=", "__idiv__", "div_"},
    {"@=", "__imatmul__", "matmul"},
    {"//=", "__ifloordiv__", "floor_divide_"},
    {"%=", "__imod__", "remainder_"},
    {"**=", "__ipow__", "pow_"},
    {"&=", "__iand__", "bitwise_and_"},
    {"|=", "__ior__", "bitwise_or_"},
    {"^=", "__ixor__", "bitwise_xor_"},
    {"<<=", "__ilshift__", "bitwise_left_shift_"},
    {">>=", "__irshift__", "bitwise_right_shift_"},
};

// Conversions bound by hand in python_variable_methods.cpp (Tensor.float is
// no YAML method): each is aten::to, a copy unless the tensor already has
// that dtype or device.
bool IsConversion(std::string_view method) {
  static const std::set<std::string_view> kConversions = {"float", "half", "double", "bfloat16", "int", "long",
                                                          "short", "char", "byte", "bool", "cpu", "cuda", "type"};
  return kConversions.count(method) > 0;
}

// Ops whose schema returns an alias of the input (Tensor(a)) only when
// nothing changes, and a copy otherwise: not views.
bool CopiesUnlessUnchanged(std::string_view base) {
  return base == "to" || base == "contiguous" || base == "type_as" || IsConversion(base);
}

const OperatorInfo* FindOperator(std::string_view op) {
  for (const auto& o : kOperators)
    if (op == o.op) return &o;
  return nullptr;
}

struct Classification {
  std::string category, basis;
};

const std::set<std::string_view> kWellKnown = {"pointwise", "view/shape", "factory", "in-place", "indexing",
                                              "reduction", "copy"};

std::string YamlWhere(const NativeFunction* f) {
  return fmt::format("{}:{}", kNativeFunctionsPath, f->line);
}

// What the checkout says about aten op `base` (all its overloads).
Classification ClassifyAten(const YamlModel& yaml, std::string_view base) {
  if (IsConversion(base)) base = "to";
  auto overloads = yaml.Overloads(base);
  if (overloads.empty()) return {"other", ""};
  if (CopiesUnlessUnchanged(base))
    return {"copy", fmt::format("aten::{} copies unless the tensor is already as asked (returns Tensor(a): "
                                "itself then; {})", base, YamlWhere(overloads.front()))};
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
      return {"view/shape", fmt::format("{} returns an alias of its input: {} ({})", f->name, f->schema.text,
                                        YamlWhere(f))};
  }
  for (const NativeFunction* f : overloads) {
    if (f->schema.is_out()) continue;
    for (const auto& a : f->schema.arguments)
      if (a.name == "keepdim")
        return {"reduction", fmt::format("{} takes keepdim ({})", f->name, YamlWhere(f))};
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
    if (EndsWith(base, "_like"))
      return {"factory", fmt::format("{} is a *_like factory ({})", f->name, YamlWhere(f))};
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

// How many base classes up a hierarchy a user's file is read: its own
// classes (LocalMethod, KindOf) derive a few levels deep, the checkout's
// (CheckoutInherits: torch.nn.Module's subclasses) a few more; the bounds
// stop a cycle of bases, which Python refuses but a scan may still read.
constexpr int kMaxLocalBaseDepth = 16;
constexpr int kMaxCheckoutBaseDepth = 24;

class Scanner {
 public:
  Scanner(const Index& ix, std::string_view path, std::string_view text, ScanReport* out)
      : ix_(ix), out_(*out) {
    PyScanOptions options;
    options.module_code = true;  // a script's top-level statements run too
    mod_ = ScanPyFile(ModuleNameForPath(path), path, text, options);
    for (size_t c = 0; c < mod_.classes.size(); ++c) class_by_name_.emplace(mod_.classes[c].name, c);
    for (size_t f = 0; f < mod_.functions.size(); ++f) {
      const PyFunction& fn = mod_.functions[f];
      function_by_qualname_[fn.qualname].push_back(f);
      if (!fn.is_method) plain_function_by_qualname_.emplace(fn.qualname, f);
    }
    size_t pos = 0;
    while (pos <= text.size()) {
      size_t end = text.find('\n', pos);
      if (end == std::string_view::npos) end = text.size();
      lines_.push_back(text.substr(pos, end - pos));
      pos = end + 1;
    }
  }

  Status Run() {
    if (!mod_.error.empty())
      return Status::SourceError(fmt::format("{}:{}: cannot scan: {}", out_.file, mod_.error_line, mod_.error));
    ClassifyClasses();
    for (size_t c = 0; c < mod_.classes.size(); ++c)
      if (class_kind_[c] == kModuleClass) CollectLayers(static_cast<uint32_t>(c));
    for (size_t l = 0; l < out_.layers.size(); ++l) layers_by_owner_[out_.layers[l].owner].push_back(l);
    for (size_t a = 0; a < out_.autograd.size(); ++a) autograd_by_name_.emplace(out_.autograd[a].name, a);
    FindReachable();
    for (size_t f = 0; f < mod_.functions.size(); ++f) ScanFunctionCalls(static_cast<uint32_t>(f));
    Finish();
    if (out_.ops.empty()) return Status::NotFound(fmt::format("no torch ops found in {}", out_.file));
    return Status::Ok();
  }

 private:
  enum ClassKind { kPlain, kModuleClass, kAutograd };

  std::string_view Line(uint32_t line) const { return line >= 1 && line <= lines_.size() ? lines_[line - 1] : ""; }

  // --- names -------------------------------------------------------------

  // The dotted name an expression's first component stands for through the
  // file's imports (and the function's own), or "" when it is no import.
  std::string ExpandImport(std::string_view expr, int32_t fn) const {
    size_t end = expr.find_first_of(".([");
    std::string_view head = expr.substr(0, end);
    std::string_view rest = end == std::string_view::npos ? "" : expr.substr(end);
    auto look = [&](const std::vector<PyImport>& imports) -> std::string {
      for (const PyImport& im : imports)
        if (im.local == head) return im.target + std::string(rest);
      return {};
    };
    if (fn >= 0) {
      std::string s = look(mod_.functions[fn].imports);
      if (!s.empty()) return s;
    }
    return look(mod_.imports);
  }

  // The file's first class named `name`, or -1.
  int32_t LocalClass(std::string_view name) const {
    ++out_.work;
    auto it = class_by_name_.find(std::string(name));
    return it == class_by_name_.end() ? -1 : static_cast<int32_t>(it->second);
  }
  // The file's first function (not a method) with qualname `name`, or -1.
  int32_t LocalFunction(std::string_view name) const {
    ++out_.work;
    auto it = plain_function_by_qualname_.find(std::string(name));
    return it == plain_function_by_qualname_.end() ? -1 : static_cast<int32_t>(it->second);
  }
  // A method of a local class or of the local classes it derives from.
  int32_t LocalMethod(uint32_t cls, std::string_view name, int depth = 0) const {
    if (depth > kMaxLocalBaseDepth) return -1;
    for (uint32_t m : mod_.classes[cls].methods) {
      ++out_.work;
      if (mod_.functions[m].name == name) return static_cast<int32_t>(m);
    }
    for (const std::string& b : mod_.classes[cls].bases) {
      int32_t base = LocalClass(b);
      if (base >= 0) {
        int32_t m = LocalMethod(static_cast<uint32_t>(base), name, depth + 1);
        if (m >= 0) return m;
      }
    }
    return -1;
  }

  // Does checkout class `sym` derive from the class named `target`?
  bool CheckoutInherits(const PySymbol& sym, std::string_view target, int depth = 0) const {
    if (sym.kind != PySymbol::kClass || depth > kMaxCheckoutBaseDepth) return false;
    if (ix_.py.NameOf(sym) == target) return true;
    const PyClass& c = ix_.py.modules()[sym.module].classes[sym.index];
    for (const std::string& b : c.resolved_bases)
      if (!b.empty() && CheckoutInherits(ix_.py.Resolve(b), target, depth + 1)) return true;
    return false;
  }

  ClassKind KindOf(uint32_t cls, int depth = 0) {
    if (depth > kMaxLocalBaseDepth) return kPlain;
    const PyClass& c = mod_.classes[cls];
    for (size_t i = 0; i < c.bases.size(); ++i) {
      int32_t local = LocalClass(c.bases[i]);
      if (local >= 0 && static_cast<uint32_t>(local) != cls) {
        ClassKind k = KindOf(static_cast<uint32_t>(local), depth + 1);
        if (k != kPlain) return k;
        continue;
      }
      std::string dotted = ExpandImport(c.bases[i], -1);
      if (dotted.empty() && i < c.resolved_bases.size()) dotted = c.resolved_bases[i];
      if (dotted.empty()) continue;
      PySymbol s = ix_.py.Resolve(dotted);
      if (CheckoutInherits(s, "torch.nn.modules.module.Module")) return kModuleClass;
      if (CheckoutInherits(s, "torch.autograd.function.Function")) return kAutograd;
    }
    return kPlain;
  }

  void ClassifyClasses() {
    class_kind_.resize(mod_.classes.size(), kPlain);
    for (size_t c = 0; c < mod_.classes.size(); ++c) {
      class_kind_[c] = KindOf(static_cast<uint32_t>(c));
      if (class_kind_[c] == kModuleClass) out_.modules.push_back(mod_.classes[c].name);
      if (class_kind_[c] == kAutograd) out_.autograd.push_back({mod_.classes[c].name, mod_.classes[c].line, {}});
    }
  }

  // A checkout nn.Module class named by `dotted`, or kNone.
  PySymbol NnClass(const std::string& dotted) const {
    if (!StartsWith(dotted, "torch.")) return {};
    PySymbol s = ix_.py.Resolve(dotted);
    return CheckoutInherits(s, "torch.nn.modules.module.Module") ? s : PySymbol{};
  }
  static std::string NnQuery(const std::string& full, const std::string& as_written) {
    if (StartsWith(full, "torch.nn.modules.")) return "nn." + full.substr(full.rfind('.') + 1);
    return as_written;
  }

  // --- layers ------------------------------------------------------------

  // The line span of the bracket group opening at the first '(' after
  // `callee` on `line`: where a container's children are written.
  uint32_t SpanEnd(uint32_t line, std::string_view callee) const {
    std::string_view l = Line(line);
    size_t at = l.find(callee);
    if (at == std::string_view::npos) return line;
    size_t open = l.find('(', at + callee.size());
    if (open == std::string_view::npos) return line;
    int depth = 0;
    for (uint32_t n = line; n <= lines_.size() && n < line + 2000; ++n) {
      std::string_view t = Line(n);
      size_t i = n == line ? open : 0;
      char quote = 0;
      for (; i < t.size(); ++i) {
        char ch = t[i];
        if (quote) {
          if (ch == quote) quote = 0;
          continue;
        }
        if (ch == '"' || ch == '\'') quote = ch;
        else if (ch == '#') break;
        else if (ch == '(' || ch == '[' || ch == '{') ++depth;
        else if (ch == ')' || ch == ']' || ch == '}') {
          if (--depth == 0) return n;
        }
      }
    }
    return line;
  }

  // "self.proj" bound on this line right before `callee`, else "".
  std::string BoundAttr(uint32_t line, std::string_view callee) const {
    std::string l(Line(line));
    size_t at = l.find(callee);
    if (at == std::string::npos) return {};
    static const std::regex re(R"(self\.(\w+)\s*(:[^=]*)?=\s*$)");
    std::smatch m;
    std::string before = l.substr(0, at);
    if (BoundedRegexSearch(before, &m, re)) return m[1];
    return {};
  }

  void CollectLayers(uint32_t cls) {
    int32_t init = -1;
    for (uint32_t m : mod_.classes[cls].methods)
      if (mod_.functions[m].name == "__init__") init = static_cast<int32_t>(m);
    if (init < 0) return;
    const PyFunction& f = mod_.functions[init];
    struct Container {
      std::string attr;
      uint32_t from, to;
    };
    std::vector<Container> containers;
    for (const PyCall& call : f.calls) {
      if (call.kind != PyCallKind::kCall) continue;
      std::string query;
      std::string dotted = ExpandImport(call.callee, init);
      PySymbol nn = NnClass(dotted);
      bool container = false;
      if (nn.kind == PySymbol::kClass) {
        std::string full = ix_.py.NameOf(nn);
        query = NnQuery(full, call.callee);
        container = StartsWith(full, "torch.nn.modules.container.");
      } else if (int32_t lc = LocalClass(call.callee); lc >= 0 && class_kind_[lc] == kModuleClass) {
        query = call.callee;
      } else {
        continue;
      }
      std::string attr = BoundAttr(call.line, call.callee);
      std::string inside;
      for (const Container& c : containers)
        if (call.line >= c.from && call.line <= c.to && (attr.empty() || attr == c.attr)) inside = c.attr;
      if (container) {
        containers.push_back({attr, call.line, SpanEnd(call.line, call.callee)});
        continue;  // the container itself runs no op; its children do
      }
      ScanLayer layer{mod_.classes[cls].name, inside.empty() ? attr : "", query,
                      nn.kind == PySymbol::kClass ? ix_.py.NameOf(nn) : "", call.line, inside};
      out_.layers.push_back(layer);
      if (nn.kind == PySymbol::kClass) {
        AddOp(query, "module", ix_.py.NameOf(nn), "", false,
              {call.line, f.qualname, layer.attr.empty() ? "built in self." + inside : "built as self." + attr,
               ArgumentsOf(call)},
              "");
      }
    }
  }

  // --- walking -----------------------------------------------------------

  void FindReachable() {
    reachable_.assign(mod_.functions.size(), false);
    role_.assign(mod_.functions.size(), "");
    std::vector<uint32_t> work;
    for (size_t c = 0; c < mod_.classes.size(); ++c) {
      for (uint32_t m : mod_.classes[c].methods) {
        const std::string& n = mod_.functions[m].name;
        if (class_kind_[c] == kModuleClass && n == "forward") role_[m] = "module forward";
        if (class_kind_[c] == kAutograd && (n == "forward" || n == "backward")) role_[m] = "autograd " + n;
        if (!role_[m].empty()) work.push_back(m);
      }
    }
    for (uint32_t m : work) reachable_[m] = true;
    for (size_t f = 0; f < mod_.functions.size(); ++f)
      if (mod_.functions[f].qualname == kModuleCodeName) role_[f] = "module level";
    while (!work.empty()) {
      uint32_t f = work.back();
      work.pop_back();
      for (const PyCall& call : mod_.functions[f].calls) {
        ++out_.work;
        int32_t g = OwnCallee(f, call);
        if (g >= 0 && !reachable_[g]) {
          reachable_[g] = true;
          if (role_[g].empty()) role_[g] = "helper";
          work.push_back(static_cast<uint32_t>(g));
        }
      }
    }
    // Nested functions and lambdas of reachable code run with it: a
    // function whose qualname extends a reachable one's ("outer.inner").
    for (size_t f = 0; f < mod_.functions.size(); ++f) {
      const std::string& q = mod_.functions[f].qualname;
      if (reachable_[f] || mod_.functions[f].is_method) continue;
      for (size_t dot = q.find('.'); dot != std::string::npos && !reachable_[f]; dot = q.find('.', dot + 1)) {
        ++out_.work;
        auto outer = function_by_qualname_.find(q.substr(0, dot));
        if (outer == function_by_qualname_.end()) continue;
        for (size_t g : outer->second) {
          if (reachable_[g]) {
            reachable_[f] = true;
            role_[f] = "helper";
          }
        }
      }
    }
  }

  int32_t OwnerClass(uint32_t f) const { return mod_.functions[f].class_index; }

  // The file's own function a call runs (self.method, a module-level
  // function, a local module layer's forward, Fn.apply), else -1.
  int32_t OwnCallee(uint32_t f, const PyCall& call) const {
    if (call.kind != PyCallKind::kCall) return -1;
    const std::string& c = call.callee;
    int32_t cls = OwnerClass(f);
    if (cls >= 0 && StartsWith(c, "self.")) {
      std::string name = c.substr(5);
      size_t cut = name.find('[');
      if (cut != std::string::npos) name = name.substr(0, cut);
      if (!IsIdentifier(name)) return -1;
      int32_t m = LocalMethod(static_cast<uint32_t>(cls), name);
      if (m >= 0) return m;
      for (const ScanLayer& l : LayersOf(mod_.classes[cls].name, name)) {
        int32_t lc = LocalClass(l.query);
        if (lc >= 0) return LocalMethod(static_cast<uint32_t>(lc), "forward");
      }
      return -1;
    }
    if (IsIdentifier(c)) return LocalFunction(c);
    if (EndsWith(c, ".apply")) {
      int32_t lc = LocalClass(c.substr(0, c.size() - 6));
      if (lc >= 0 && class_kind_[lc] == kAutograd) return LocalMethod(static_cast<uint32_t>(lc), "forward");
    }
    return -1;
  }

  // Layers bound to self.<attr> of class `owner`: the layer itself, or the
  // children of a container bound there.
  std::vector<ScanLayer> LayersOf(const std::string& owner, const std::string& attr) const {
    std::vector<ScanLayer> out;
    auto it = layers_by_owner_.find(owner);
    if (it == layers_by_owner_.end()) return out;
    for (size_t i : it->second) {
      ++out_.work;
      const ScanLayer& l = out_.layers[i];
      if (l.attr == attr || l.container == attr) out.push_back(l);
    }
    return out;
  }

  // Loop variables bound to a container: `for layer in self.layers:`.
  std::map<std::string, std::string> LoopBindings(uint32_t f) const {
    std::map<std::string, std::string> out;
    static const std::regex re(R"(for\s+(\w+)\s+in\s+self\.(\w+)\s*:)");
    const PyFunction& fn = mod_.functions[f];
    for (uint32_t n = fn.line; n <= fn.end_line && n <= lines_.size(); ++n) {
      std::string l(Line(n));
      std::smatch m;
      if (BoundedRegexSearch(l, &m, re)) out[m[1]] = m[2];
    }
    return out;
  }

  // Is `name` a method of Tensor in the checkout (YAML method variant or a
  // def in torch/_tensor.py)?
  bool IsTensorMethod(const std::string& name) {
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

  // Subscripts on a line whose receivers could be tensors (not .shape[...],
  // .size()[...], ctx.saved_tensors[...] or a layer container).
  bool TensorSubscriptOn(uint32_t line, int32_t cls) const {
    std::string_view l = Line(line);
    for (size_t i = 1; i < l.size(); ++i) {
      if (l[i] != '[') continue;
      char prev = l[i - 1];
      if (!(std::isalnum(static_cast<unsigned char>(prev)) || prev == '_' || prev == ')' || prev == ']')) continue;
      size_t j = i;
      int depth = 0;
      while (j > 0) {
        char ch = l[j - 1];
        if (ch == ')' || ch == ']') ++depth;
        else if ((ch == '(' || ch == '[') && depth > 0) --depth;
        else if (depth == 0 && !(std::isalnum(static_cast<unsigned char>(ch)) || ch == '_' || ch == '.')) break;
        --j;
      }
      std::string_view recv = l.substr(j, i - j);
      if (EndsWith(recv, ".shape") || EndsWith(recv, ".size()") || EndsWith(recv, "saved_tensors") ||
          recv == "kwargs" || recv == "args")
        continue;
      if (cls >= 0 && StartsWith(recv, "self.") &&
          !LayersOf(mod_.classes[cls].name, std::string(recv.substr(5))).empty())
        continue;
      return true;
    }
    return false;
  }

  void Unresolved(uint32_t f, const PyCall& call, std::string reason) {
    out_.unresolved.push_back({call.line, mod_.functions[f].qualname, call.callee, std::move(reason)});
  }

  // A dotted torch name as the checkout knows it: adds the op, or lists it
  // as unresolved. Classes other than nn layers (torch.no_grad) run no op.
  void TorchCall(uint32_t f, const PyCall& call, const std::string& dotted, const ScanUse& use) {
    static const std::string kAten = "torch.ops.aten.";
    if (StartsWith(dotted, kAten)) {
      std::string name = dotted.substr(kAten.size());
      if (EndsWith(name, ".default")) name.resize(name.size() - 8);
      std::string base(OpBaseName(name));
      if (ix_.yaml.Find(name) || (name == base && !ix_.yaml.Overloads(base).empty()))
        AddOp("aten::" + name, "aten", "aten::" + name, base, false, use, "");
      else
        Unresolved(f, call, "not in native_functions.yaml of the checkout");
      return;
    }
    PySymbol sym = ix_.py.Resolve(dotted);
    if (sym.kind == PySymbol::kClass) {
      if (CheckoutInherits(sym, "torch.nn.modules.module.Module")) {
        std::string full = ix_.py.NameOf(sym);
        AddOp(NnQuery(full, call.callee), "module", full, "", false, use, "");
      }
      return;
    }
    static const std::string kF = "torch.nn.functional.";
    if (StartsWith(dotted, kF) && IsIdentifier(dotted.substr(kF.size())) && sym.kind != PySymbol::kNone) {
      std::string name = dotted.substr(kF.size());
      AddOp("F." + name, "functional", dotted, AtenBehind(sym, name), false, use, "");
      return;
    }
    // torch.X, torch.linalg.X, torch.special.X, torch.fft.X: a YAML function.
    std::string rest = dotted.size() > 6 ? dotted.substr(6) : "";  // `torch(...)` itself: no op (found by the fuzzer)
    std::string yaml_name = rest;
    for (const char* ns : {"linalg.", "special.", "fft.", "nn.functional."})
      if (StartsWith(rest, ns)) yaml_name = std::string(ns).substr(0, std::string(ns).find('.')) + "_" +
                                            rest.substr(std::string(ns).size());
    if (IsIdentifier(yaml_name)) {
      if (IsMetadata(yaml_name)) return;  // torch.numel(x): no kernel runs
      for (const NativeFunction* fn : ix_.yaml.Overloads(yaml_name)) {
        if (fn->HasVariant("function")) {
          AddOp(dotted, "torch", "aten::" + yaml_name, yaml_name, false, use, "");
          return;
        }
      }
    }
    if (sym.kind == PySymbol::kFunction || sym.kind == PySymbol::kAlias) {
      AddOp(dotted, "torch", ix_.py.NameOf(sym), AtenBehind(sym, ""), false, use, "");
      return;
    }
    if (sym.kind == PySymbol::kModule) return;
    Unresolved(f, call, "not found in the checkout's Python or native_functions.yaml");
  }

  // The aten op a checkout Python function reaches first: its own name when
  // the YAML has it, else the first call of its body that names a YAML op
  // through torch._C._nn / torch / _VF / torch._C._VariableFunctions.
  std::string AtenBehind(const PySymbol& sym, const std::string& name) const {
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

  void ScanFunctionCalls(uint32_t f) {
    const PyFunction& fn = mod_.functions[f];
    const bool full = reachable_[f];
    const int32_t cls = OwnerClass(f);
    const bool init = cls >= 0 && fn.name == "__init__";
    const std::string owner = cls >= 0 ? mod_.classes[cls].name : "";
    const std::string ctx = role_[f].rfind("autograd", 0) == 0 && !fn.params.empty() ? fn.params[0] : "";
    auto loops = LoopBindings(f);
    for (const PyCall& call : fn.calls) {
      ScanUse use{call.line, fn.qualname, "call", ArgumentsOf(call)};
      ++out_.work;
      if (call.kind == PyCallKind::kOperator) {
        if (!full) continue;
        const OperatorInfo* op = FindOperator(call.callee);
        if (!op || NoTensorOperand(f, call)) continue;
        if (call.callee == "[]" && !TensorSubscriptOn(call.line, cls)) continue;
        const char* dunder = OperatorDunder(f, call, *op);
        if (!dunder) continue;
        use.how = "operator " + (call.callee[0] == 'u' ? call.callee.substr(1) + " (unary)" : call.callee);
        AddOp(std::string("Tensor.") + dunder, "operator", std::string("torch.Tensor.") + dunder, op->aten, true, use,
              "");
        continue;
      }
      const std::string& c = call.callee;
      if (full && Contains(call.args, "**")) Unresolved(f, call, "**kwargs passed through: keyword arguments unknown");
      if (c == "getattr" || StartsWith(c, "getattr(")) {
        Unresolved(f, call, "getattr: the attribute is chosen at run time");
        continue;
      }
      if (StartsWith(c, "super()")) continue;
      if (int32_t g = OwnCallee(f, call); g >= 0) {
        AddFollow(f, static_cast<uint32_t>(g));
        if (EndsWith(c, ".apply")) {
          if (auto a = autograd_by_name_.find(c.substr(0, c.size() - 6)); a != autograd_by_name_.end())
            out_.autograd[a->second].applied.push_back({call.line, fn.qualname, "apply"});
        }
        if (cls >= 0 && StartsWith(c, "self.")) LayerCall(f, cls, c.substr(5), use);
        continue;
      }
      if (!ctx.empty() && StartsWith(c, ctx + ".")) {
        if (c == ctx + ".save_for_backward") Function(f).save_for_backward.push_back(call.line);
        continue;
      }
      // self.<attr>(...): a layer, an inherited nn.Module method, or unknown.
      if (cls >= 0 && StartsWith(c, "self.")) {
        std::string rest = c.substr(5);
        std::string attr = rest.substr(0, rest.find_first_of(".(["));
        if (rest == attr || rest == attr + "[...]") {
          if (init) continue;
          if (!LayerCall(f, cls, attr, use) && full && !ModuleApi(attr))
            Unresolved(f, call, "self." + attr + " is not a layer or method the file defines");
          continue;
        }
      }
      size_t dot = c.rfind('.');
      std::string head = c.substr(0, c.find_first_of(".(["));
      std::string dotted = ExpandImport(c, static_cast<int32_t>(f));
      if (!dotted.empty() && c.find_first_of("([") == std::string::npos) {
        // In __init__ a layer's constructor is recorded by CollectLayers.
        if (init && NnClass(dotted).kind == PySymbol::kClass) continue;
        if (StartsWith(dotted, "torch.") || dotted == "torch") TorchCall(f, call, dotted, use);
        continue;  // other libraries (math, numpy) run no torch op
      }
      if (dot == std::string::npos) {
        if (Builtins().count(c) || LocalClass(c) >= 0 || init) continue;
        if (auto it = loops.find(c); it != loops.end() && cls >= 0) {
          if (LayerCall(f, cls, it->second, use)) continue;
        }
        if (full) {
          bool param = std::find(fn.params.begin(), fn.params.end(), c) != fn.params.end();
          Unresolved(f, call, param ? "call on parameter '" + c + "': its value is not known statically"
                                    : "call on an unknown object '" + c + "'");
        }
        continue;
      }
      std::string method = c.substr(dot + 1);
      std::string recv = c.substr(0, dot);
      // Metadata (x.size(1)) runs no kernel; a method of an int, a str, a
      // list or a set (seen.add(k)) is no tensor op.
      if (IsMetadata(method) || ScopeOf(f).NotTensor(recv)) continue;
      if (!IsTensorMethod(method) && ReturnsNoTensor(method)) continue;  // x.dim(), x.numel(): bound by hand
      if (IsConversion(method) && !init) {  // x.float(): aten::to, bound by hand
        use.how = "method on " + recv;
        AddOp("Tensor." + method, "method", "torch._tensor.Tensor." + method, "to", false, use, recv);
        continue;
      }
      if (IsTensorMethod(method) && !(head == "self" && recv.find_first_of("([") == std::string::npos &&
                                       recv != "self" && init)) {
        use.how = "method on " + recv;
        std::string base = ix_.yaml.Overloads(method).empty() ? "" : method;
        AddOp("Tensor." + method, "method",
              base.empty() ? "torch._tensor.Tensor." + method : "aten::" + method, base, false, use, recv);
        continue;
      }
      if (full && !init) Unresolved(f, call, "method '" + method + "' of an object whose type is not known");
    }
    if (!ctx.empty()) {
      const std::string needle = ctx + ".saved_tensors";
      for (uint32_t n = fn.line; n <= fn.end_line && n <= lines_.size(); ++n)
        if (Contains(Line(n), needle)) Function(f).saved_tensors.push_back(n);
    }
  }

  // --- values (py/py_values.h) ---------------------------------------------

  // An operator whose operands are known not to be tensors (C // self.n_heads,
  // x.shape[-1], lst * 2, -n), or a subscript of something that is no tensor.
  bool NoTensorOperand(uint32_t f, const PyCall& call) {
    size_t tab = call.args.find('\t');
    if (tab == std::string::npos) return false;
    std::string_view left(call.args.data(), tab), right(call.args.data() + tab + 1, call.args.size() - tab - 1);
    const ValueScope& scope = ScopeOf(f);
    if (call.callee == "[]") return scope.NotTensor(left);
    if (call.callee[0] == 'u') return scope.NotTensor(right);  // unary: "\toperand"
    return scope.NotTensor(left) && scope.NotTensor(right);
  }

  // The dunder an operator with a tensor operand calls: the reflected one
  // when the left operand is known to be no tensor; nullptr for a comparison
  // without an operand known to be a tensor.
  const char* OperatorDunder(uint32_t f, const PyCall& call, const OperatorInfo& op) {
    size_t tab = call.args.find('\t');
    if (tab == std::string::npos || call.callee[0] == 'u') return op.dunder;
    std::string_view left(call.args.data(), tab), right(call.args.data() + tab + 1, call.args.size() - tab - 1);
    const ValueScope& scope = ScopeOf(f);
    if (op.comparison && scope.KindOf(left) != ValueKind::kTensor && scope.KindOf(right) != ValueKind::kTensor)
      return nullptr;
    if (!op.reflected || !scope.NotTensor(left)) return op.dunder;
    // A number with a module attribute set only from constructor arguments
    // (`C // self.n_heads`): a config number; a tensor attribute is built (an
    // nn.Parameter, a buffer), never a bare argument.
    std::string_view r = right;
    if (mod_.functions[f].class_index >= 0 && r.substr(0, 5) == "self." && IsIdentifier(r.substr(5)) &&
        AttrFromArgumentsOnly(static_cast<uint32_t>(mod_.functions[f].class_index), std::string(r.substr(5))))
      return nullptr;
    return op.reflected;
  }

  // Whether every assignment to self.<attr> in class cls is a bare name.
  bool AttrFromArgumentsOnly(uint32_t cls, const std::string& attr) {
    bool any = false;
    for (uint32_t m : mod_.classes[cls].methods) {
      for (const Assignment& a : AssignmentsOf(m)) {
        if (a.targets.size() != 1 || a.targets[0] != "self." + attr) continue;
        if (!IsIdentifier(a.value)) return false;
        any = true;
      }
    }
    return any;
  }

  // What function f's names hold, learned once per function.
  const ValueScope& ScopeOf(uint32_t f) {
    auto it = scopes_.find(f);
    if (it != scopes_.end()) return *it->second;
    auto scope = std::make_unique<ValueScope>(&facts_);
    FillScope(f, /*with_attrs=*/true, scope.get());
    return *scopes_.emplace(f, std::move(scope)).first->second;
  }

  void FillScope(uint32_t f, bool with_attrs, ValueScope* scope) {
    const PyFunction& fn = mod_.functions[f];
    for (const std::vector<PyImport>* imports : {&std::as_const(mod_.imports), &fn.imports})
      for (const PyImport& im : *imports)
        if (im.target == "math") scope->AddScalarModule(im.local);
    std::vector<std::string> scalar = ScalarParams(Header(f));
    for (const std::string& p : fn.params)
      scope->SetLocal(p, std::count(scalar.begin(), scalar.end(), p) ? ValueKind::kScalar : ValueKind::kUnknown);
    if (with_attrs && fn.class_index >= 0) {
      for (const auto& [attr, kind] : AttrKinds(static_cast<uint32_t>(fn.class_index))) scope->SetAttr(attr, kind);
      for (const ScanLayer& l : out_.layers)  // self.proj.in_features: an int of nn.Linear
        if (l.owner == mod_.classes[fn.class_index].name && !l.attr.empty() && !l.resolved.empty())
          for (const std::string& a : LayerScalarAttrs(l.resolved)) scope->SetAttr(l.attr + "." + a, ValueKind::kScalar);
    }
    LearnAssignments(AssignmentsOf(f), scope);
  }

  // The text of function f's def header (up to the line ending in ':').
  std::string Header(uint32_t f) const {
    const PyFunction& fn = mod_.functions[f];
    if (fn.qualname == kModuleCodeName || fn.name == "<lambda>") return {};
    std::string out;
    for (uint32_t n = fn.line; n <= fn.end_line && n < fn.line + 32; ++n) {
      ++out_.work;
      std::string_view l = Line(n);
      out += std::string(l) + " ";
      size_t end = l.find_last_not_of(" \t\r");
      if (end != std::string_view::npos && l[end] == ':') break;
    }
    return out;
  }

  std::vector<Assignment> AssignmentsOf(uint32_t f) const {
    const PyFunction& fn = mod_.functions[f];
    std::vector<Assignment> out;
    uint32_t first = fn.qualname == kModuleCodeName ? 1 : fn.line + 1;
    for (uint32_t n = first; n <= fn.end_line && n <= lines_.size(); ++n) {
      ++out_.work;
      Assignment a;
      if (ParseAssignment(Line(n), &a)) out.push_back(std::move(a));
    }
    return out;
  }

  // The scalar attributes of a checkout layer class (torch.nn.modules.linear.Linear:
  // in_features, out_features), read from its source and its bases': class-level
  // annotations (`in_features: int`) and `self.X = p` in __init__ where p is a
  // parameter annotated int/float/bool/str or with a literal default.
  const std::vector<std::string>& LayerScalarAttrs(const std::string& dotted) {
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
      ClassScalarAttrs(m, c, SplitLinesOf(text), &attrs);  // views into text, used before it goes
    }
    return layer_attrs_.emplace(dotted, std::move(attrs)).first->second;
  }

  static std::vector<std::string_view> SplitLinesOf(const std::string& text) {
    std::vector<std::string_view> lines;
    for (size_t pos = 0; pos <= text.size();) {
      size_t end = text.find('\n', pos);
      if (end == std::string::npos) end = text.size();
      lines.emplace_back(text.data() + pos, end - pos);
      pos = end + 1;
    }
    return lines;
  }

  void ClassScalarAttrs(const PyModule& m, const PyClass& c, const std::vector<std::string_view>& lines,
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

  // self.<attr> kinds of class cls: from every assignment to it in the
  // class's methods (all must agree).
  const std::unordered_map<std::string, ValueKind>& AttrKinds(uint32_t cls) {
    auto it = attr_kinds_.find(cls);
    if (it != attr_kinds_.end()) return it->second;
    std::unordered_map<std::string, ValueKind> kinds;
    for (uint32_t m : mod_.classes[cls].methods) {
      ValueScope scope(&facts_);
      FillScope(m, /*with_attrs=*/false, &scope);
      for (const Assignment& a : AssignmentsOf(m)) {
        ValueKind k = scope.KindOf(a.value);
        for (const std::string& t : a.targets) {
          if (!StartsWith(t, "self.") || !IsIdentifier(t.substr(5))) continue;
          ValueKind tk = a.targets.size() == 1 || k == ValueKind::kScalar ? k : ValueKind::kUnknown;
          auto [slot, fresh] = kinds.emplace(t.substr(5), tk);
          if (!fresh && slot->second != tk) slot->second = ValueKind::kUnknown;
        }
      }
    }
    return attr_kinds_.emplace(cls, std::move(kinds)).first->second;
  }

  // Tensor methods that only read metadata: every YAML overload returns
  // ints (size, stride). No kernel runs; never an op of the scan.
  bool IsMetadata(const std::string& name) {
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
  bool ReturnsNoTensor(std::string_view name) const {
    static const std::unordered_set<std::string_view> kHandBound = {
        "dim", "ndimension", "numel", "nelement", "element_size", "get_device", "is_contiguous", "data_ptr",
        "storage_offset", "tolist", "has_names", "item"};
    if (kHandBound.count(name)) return true;
    auto overloads = ix_.yaml.Overloads(name);
    if (overloads.empty()) return false;
    for (const NativeFunction* fn : overloads)
      for (const auto& r : fn->schema.returns)
        if (r.type.find("Tensor") != std::string::npos) return false;
    return true;
  }
  // Tensor attributes that hold no tensor (a shape, a dtype, a flag).
  static bool ScalarAttribute(std::string_view attr) {
    static const std::unordered_set<std::string_view> kAttrs = {
        "shape", "ndim", "dtype", "device", "layout", "is_cuda", "is_sparse", "is_quantized", "is_meta",
        "requires_grad", "is_leaf", "names", "itemsize", "nbytes"};
    return kAttrs.count(attr) > 0;
  }

  // nn.Module's own API (self.register_buffer, self.parameters): no op.
  bool ModuleApi(const std::string& name) const {
    PySymbol m = ix_.py.Resolve("torch.nn.modules.module.Module");
    if (m.kind != PySymbol::kClass) return false;
    return ix_.py.FindMethod(m.module, m.index, name).has_value();
  }

  // self.<attr>(...) in a method: the op of each nn layer bound there.
  bool LayerCall(uint32_t f, int32_t cls, std::string attr, const ScanUse& base) {
    size_t cut = attr.find_first_of("[.(");
    if (cut != std::string::npos) attr.resize(cut);
    auto layers = LayersOf(mod_.classes[cls].name, attr);
    if (layers.empty()) return false;
    for (const ScanLayer& l : layers) {
      if (int32_t lc = LocalClass(l.query); lc >= 0) {
        if (int32_t fwd = LocalMethod(static_cast<uint32_t>(lc), "forward"); fwd >= 0)
          AddFollow(f, static_cast<uint32_t>(fwd));
        continue;
      }
      ScanUse use = base;
      use.how = "layer self." + attr;
      AddOp(l.query, "module", l.resolved, "", false, use, "");
    }
    return true;
  }

  ScanFunction& Function(uint32_t f) {
    auto it = function_slot_.find(f);
    if (it != function_slot_.end()) return functions_[it->second];
    const PyFunction& fn = mod_.functions[f];
    ScanFunction sf;
    sf.qualname = fn.qualname;
    sf.role = role_[f].empty() ? "function" : role_[f];
    sf.owner = fn.class_index >= 0 ? mod_.classes[fn.class_index].name : "";
    sf.line = fn.line;
    function_slot_[f] = functions_.size();
    functions_.push_back(sf);
    return functions_.back();
  }

  void AddFollow(uint32_t f, uint32_t g) {
    auto& calls = Function(f).calls;
    const std::string& q = mod_.functions[g].qualname;
    if (std::find(calls.begin(), calls.end(), q) == calls.end()) calls.push_back(q);
  }

  void AddOp(const std::string& query, const std::string& kind, const std::string& resolved, const std::string& aten,
             bool inferred, const ScanUse& use, const std::string& receiver) {
    auto it = op_slot_.find(query);
    if (it == op_slot_.end()) {
      ScanOp op;
      op.query = query;
      op.kind = kind;
      op.resolved = resolved;
      op.aten = aten;
      op.inferred = inferred;
      it = op_slot_.emplace(query, out_.ops.size()).first;
      out_.ops.push_back(std::move(op));
    }
    ++out_.work;
    const size_t slot = it->second;
    ScanOp& op = out_.ops[slot];
    if (seen_uses_.insert(fmt::format("{}\n{}\n{}", slot, use.line, use.how)).second) op.uses.push_back(use);
    if (!receiver.empty() && seen_receivers_.insert(fmt::format("{}\n{}", slot, receiver)).second)
      op.receivers.push_back(receiver);
    if (!StartsWith(use.how, "built")) {
      if (auto f = function_by_qualname_.find(use.function); f != function_by_qualname_.end()) {
        auto& ops = Function(static_cast<uint32_t>(f->second.front())).ops;
        if (std::find(ops.begin(), ops.end(), query) == ops.end()) ops.push_back(query);
      }
    }
  }

  Classification ClassifyModule(const ScanOp& op) const {
    PySymbol s = ix_.py.Resolve(op.resolved);
    if (s.kind != PySymbol::kClass) return {"other", ""};
    const PyModule& m = ix_.py.modules()[s.module];
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
    auto fwd = ix_.py.FindMethod(s.module, s.index, "forward");
    if (fwd && fwd->kind == PySymbol::kFunction) {
      const PyModule& fm = ix_.py.modules()[fwd->module];
      const PyFunction& fn = fm.functions[fwd->index];
      for (const PyCall& call : fn.calls) {
        if (call.kind != PyCallKind::kCall || call.in_preamble) continue;
        PySymbol target = ix_.py.ResolveIn(fwd->module, call.callee, static_cast<int32_t>(fwd->index));
        std::string name = call.callee.substr(call.callee.rfind('.') + 1);
        std::string aten = AtenBehind(target, IsIdentifier(name) ? name : "");
        if (aten.empty()) continue;
        Classification k = ClassifyAten(ix_.yaml, aten);
        k.basis = fmt::format("forward calls {} ({}:{}); {}", call.callee, fm.path, call.line, k.basis);
        return k;
      }
    }
    return {"other", where};
  }

  void Finish() {
    for (ScanOp& op : out_.ops) {
      Classification k;
      if (op.kind == "module") {
        k = ClassifyModule(op);
      } else if (op.query == "Tensor.__getitem__") {
        k = {"indexing", "subscript x[...] calls Tensor.__getitem__ (index, select, slice by argument)"};
      } else if (!op.aten.empty()) {
        k = ClassifyAten(ix_.yaml, op.aten);
      } else {
        k = {"other", "no aten op behind it found statically"};
      }
      op.category = k.category;
      op.basis = k.basis;
      // A layer runs a composition (nn.Embedding: embedding, then
      // index_select and its backward): its trace tells what, whatever the
      // category of the op its forward calls first.
      op.needs_trace = op.kind == "module" || !kWellKnown.count(op.category);
      if (!op.needs_trace) op.summary = fmt::format("{}: {}", op.category, op.basis);
      std::stable_sort(op.uses.begin(), op.uses.end(),
                       [](const ScanUse& a, const ScanUse& b) { return a.line < b.line; });
    }
    std::stable_sort(out_.ops.begin(), out_.ops.end(),
                     [](const ScanOp& a, const ScanOp& b) { return a.uses.front().line < b.uses.front().line; });
    std::sort(functions_.begin(), functions_.end(),
              [](const ScanFunction& a, const ScanFunction& b) { return a.line < b.line; });
    for (ScanFunction& f : functions_)
      if (!f.ops.empty() || !f.calls.empty() || !f.save_for_backward.empty() || f.role != "function")
        out_.functions.push_back(std::move(f));
    std::stable_sort(out_.unresolved.begin(), out_.unresolved.end(),
                     [](const ScanUnresolved& a, const ScanUnresolved& b) { return a.line < b.line; });
  }

  const Index& ix_;
  std::unordered_map<std::string, std::vector<std::string>> layer_attrs_;  // LayerScalarAttrs, per class
  ScanReport& out_;
  PyModule mod_;
  std::vector<std::string_view> lines_;
  std::vector<ClassKind> class_kind_;
  std::vector<bool> reachable_;
  std::vector<std::string> role_;
  std::unordered_map<std::string, bool> tensor_method_;
  std::unordered_map<std::string, size_t> op_slot_;
  std::unordered_map<uint32_t, size_t> function_slot_;
  std::vector<ScanFunction> functions_;
  // Lookups by name, so the scan stays linear in the file's size (the first
  // class / function of a name wins, as a walk from the top would find).
  std::unordered_map<std::string, size_t> class_by_name_, plain_function_by_qualname_;
  std::unordered_map<std::string, std::vector<size_t>> function_by_qualname_;  // in file order
  std::unordered_map<std::string, std::vector<size_t>> layers_by_owner_;  // into out_.layers
  std::unordered_map<std::string, size_t> autograd_by_name_;              // into out_.autograd
  std::unordered_set<std::string> seen_uses_, seen_receivers_;
  TensorFacts facts_{[this](std::string_view m) { return ReturnsNoTensor(m); }, &ScalarAttribute, {}};
  std::unordered_map<uint32_t, std::unique_ptr<ValueScope>> scopes_;
  std::unordered_map<uint32_t, std::unordered_map<std::string, ValueKind>> attr_kinds_;
  std::unordered_map<std::string, bool> metadata_;            // "slot\nline\nhow", "slot\nreceiver"
};

}  // namespace

void FilterScanToClass(ScanReport* r, const std::string& name) {
  std::set<std::string> keep;
  std::vector<std::string> work;
  for (const ScanFunction& f : r->functions)
    if (f.owner == name) work.push_back(f.qualname);
  while (!work.empty()) {
    std::string q = work.back();
    work.pop_back();
    if (!keep.insert(q).second) continue;
    for (const ScanFunction& f : r->functions)
      if (f.qualname == q) work.insert(work.end(), f.calls.begin(), f.calls.end());
  }
  auto kept = [&](const std::string& fn) { return keep.count(fn) > 0 || StartsWith(fn, name + "."); };
  std::erase_if(r->functions, [&](const ScanFunction& f) { return !kept(f.qualname); });
  std::erase_if(r->layers, [&](const ScanLayer& l) { return l.owner != name; });
  std::erase_if(r->unresolved, [&](const ScanUnresolved& u) { return !kept(u.function); });
  for (ScanOp& op : r->ops) std::erase_if(op.uses, [&](const ScanUse& u) { return !kept(u.function); });
  std::erase_if(r->ops, [](const ScanOp& op) { return op.uses.empty(); });
}

Status ScanUserFile(const Index& index, std::string_view path, std::string_view text, ScanReport* out) {
  *out = ScanReport();
  out->file = std::string(path);
  out->source_root = index.root;
  out->source_version = index.version;
  Scanner scanner(index, path, text, out);
  return scanner.Run();
}

}  // namespace optrace
