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
// The parts: UserFile (user_file.h) is the scanned file and the lookups of
// its own names; CheckoutFacts (checkout_facts.h) the checkout's answers
// about the names it uses; ReportBuilder (report_builder.h) the report as it
// grows, classified at the end by classify.h (YAML tags, schemas, the nn
// module file a layer class lives in, a documented name rule; every answer
// carries its basis). This file's Scanner walks the file with them.
#include "usescan/usescan.h"

#include <algorithm>
#include <map>
#include <memory>
#include <set>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include <fmt/format.h>

#include "base/text.h"
#include "py/py_values.h"
#include "render/render.h"
#include "usescan/checkout_facts.h"
#include "usescan/classify.h"
#include "usescan/report_builder.h"
#include "usescan/user_file.h"

namespace optrace {
namespace {

// A call's argument text, "" when the scanner cut it short ("..." at the
// end): a cut list would bind its last argument wrongly.
std::string ArgumentsOf(const PyCall& call) {
  if (call.kind != PyCallKind::kCall || EndsWith(call.args, "...")) return "";
  return call.args;
}

// Python builtins a model's code calls that are never torch ops.
const std::unordered_set<std::string_view>& Builtins() {
  static const std::unordered_set<std::string_view> names = {"abs",
                                                             "all",
                                                             "any",
                                                             "bool",
                                                             "callable",
                                                             "dict",
                                                             "enumerate",
                                                             "filter",
                                                             "float",
                                                             "format",
                                                             "getattr",
                                                             "hasattr",
                                                             "hash",
                                                             "id",
                                                             "int",
                                                             "isinstance",
                                                             "issubclass",
                                                             "iter",
                                                             "len",
                                                             "list",
                                                             "map",
                                                             "max",
                                                             "min",
                                                             "next",
                                                             "object",
                                                             "print",
                                                             "range",
                                                             "repr",
                                                             "reversed",
                                                             "round",
                                                             "set",
                                                             "setattr",
                                                             "slice",
                                                             "sorted",
                                                             "str",
                                                             "sum",
                                                             "super",
                                                             "tuple",
                                                             "type",
                                                             "vars",
                                                             "zip",
                                                             "ValueError",
                                                             "TypeError",
                                                             "RuntimeError",
                                                             "NotImplementedError",
                                                             "AssertionError",
                                                             "KeyError",
                                                             "IndexError",
                                                             "Exception"};
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

const OperatorInfo* FindOperator(std::string_view op) {
  for (const auto& o : kOperators)
    if (op == o.op) return &o;
  return nullptr;
}

// The scan of one user's file: which classes are nn.Modules or autograd
// Functions, the layers their __init__ builds, which functions are
// reachable from a forward or backward, and what each function's calls and
// operators run. The file, the checkout's answers and the report being
// built are parts of their own (UserFile, CheckoutFacts, ReportBuilder).
class Scanner {
 public:
  Scanner(const Index& ix, std::string_view path, std::string_view text, ScanReport* out)
      : ix_(ix),
        out_(*out),
        file_(path, text, &out->work),
        mod_(file_.mod()),
        checkout_(ix),
        report_(file_, role_, out) {}

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
    report_.Finish(checkout_);
    if (out_.ops.empty()) return Status::NotFound(fmt::format("no torch ops found in {}", out_.file));
    return Status::Ok();
  }

 private:
  enum ClassKind { kPlain, kModuleClass, kAutograd };

  ClassKind KindOf(uint32_t cls, int depth = 0) {
    if (depth > kMaxLocalBaseDepth) return kPlain;
    const PyClass& c = mod_.classes[cls];
    for (size_t i = 0; i < c.bases.size(); ++i) {
      int32_t local = file_.LocalClass(c.bases[i]);
      if (local >= 0 && static_cast<uint32_t>(local) != cls) {
        ClassKind k = KindOf(static_cast<uint32_t>(local), depth + 1);
        if (k != kPlain) return k;
        continue;
      }
      std::string dotted = file_.ExpandImport(c.bases[i], -1);
      if (dotted.empty() && i < c.resolved_bases.size()) dotted = c.resolved_bases[i];
      if (dotted.empty()) continue;
      PySymbol s = ix_.py.Resolve(dotted);
      if (checkout_.CheckoutInherits(s, "torch.nn.modules.module.Module")) return kModuleClass;
      if (checkout_.CheckoutInherits(s, "torch.autograd.function.Function")) return kAutograd;
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
      std::string dotted = file_.ExpandImport(call.callee, init);
      PySymbol nn = checkout_.NnClass(dotted);
      bool container = false;
      if (nn.kind == PySymbol::kClass) {
        std::string full = ix_.py.NameOf(nn);
        query = checkout_.NnQuery(full, call.callee);
        container = StartsWith(full, "torch.nn.modules.container.");
      } else if (int32_t lc = file_.LocalClass(call.callee); lc >= 0 && class_kind_[lc] == kModuleClass) {
        query = call.callee;
      } else {
        continue;
      }
      std::string attr = file_.BoundAttr(call.line, call.callee);
      std::string inside;
      for (const Container& c : containers)
        if (call.line >= c.from && call.line <= c.to && (attr.empty() || attr == c.attr)) inside = c.attr;
      if (container) {
        containers.push_back({attr, call.line, file_.SpanEnd(call.line, call.callee)});
        continue;  // the container itself runs no op; its children do
      }
      ScanLayer layer{mod_.classes[cls].name,
                      inside.empty() ? attr : "",
                      query,
                      nn.kind == PySymbol::kClass ? ix_.py.NameOf(nn) : "",
                      call.line,
                      inside};
      out_.layers.push_back(layer);
      if (nn.kind == PySymbol::kClass) {
        report_.AddOp(query, ScanOpKind::kModule, ix_.py.NameOf(nn), "", false,
                      {call.line, f.qualname, layer.attr.empty() ? "built in self." + inside : "built as self." + attr,
                       ArgumentsOf(call)},
                      "");
      }
    }
  }

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
        for (size_t g : file_.FunctionsNamed(q.substr(0, dot))) {
          if (reachable_[g]) {
            reachable_[f] = true;
            role_[f] = "helper";
          }
        }
      }
    }
  }

  // The file's own function a call runs (self.method, a module-level
  // function, a local module layer's forward, Fn.apply), else -1.
  int32_t OwnCallee(uint32_t f, const PyCall& call) const {
    if (call.kind != PyCallKind::kCall) return -1;
    const std::string& c = call.callee;
    int32_t cls = file_.OwnerClass(f);
    if (cls >= 0 && StartsWith(c, "self.")) {
      std::string name = c.substr(5);
      size_t cut = name.find('[');
      if (cut != std::string::npos) name = name.substr(0, cut);
      if (!IsIdentifier(name)) return -1;
      int32_t m = file_.LocalMethod(static_cast<uint32_t>(cls), name);
      if (m >= 0) return m;
      for (const ScanLayer& l : LayersOf(mod_.classes[cls].name, name)) {
        int32_t lc = file_.LocalClass(l.query);
        if (lc >= 0) return file_.LocalMethod(static_cast<uint32_t>(lc), "forward");
      }
      return -1;
    }
    if (IsIdentifier(c)) return file_.LocalFunction(c);
    if (EndsWith(c, ".apply")) {
      int32_t lc = file_.LocalClass(c.substr(0, c.size() - 6));
      if (lc >= 0 && class_kind_[lc] == kAutograd) return file_.LocalMethod(static_cast<uint32_t>(lc), "forward");
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

  // Subscripts on a line whose receivers could be tensors (not .shape[...],
  // .size()[...], ctx.saved_tensors[...] or a layer container).
  bool TensorSubscriptOn(uint32_t line, int32_t cls) const {
    std::string_view l = file_.Line(line);
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

  // A dotted torch name as the checkout knows it: adds the op, or lists it
  // as unresolved. Classes other than nn layers (torch.no_grad) run no op.
  void TorchCall(uint32_t f, const PyCall& call, const std::string& dotted, const ScanUse& use) {
    static const std::string kAten = "torch.ops.aten.";
    if (StartsWith(dotted, kAten)) {
      std::string name = dotted.substr(kAten.size());
      if (EndsWith(name, ".default")) name.resize(name.size() - 8);
      std::string base(OpBaseName(name));
      if (ix_.yaml.Find(name) || (name == base && !ix_.yaml.Overloads(base).empty()))
        report_.AddOp("aten::" + name, ScanOpKind::kAten, "aten::" + name, base, false, use, "");
      else report_.Unresolved(f, call, "not in native_functions.yaml of the checkout");
      return;
    }
    PySymbol sym = ix_.py.Resolve(dotted);
    if (sym.kind == PySymbol::kClass) {
      if (checkout_.CheckoutInherits(sym, "torch.nn.modules.module.Module")) {
        std::string full = ix_.py.NameOf(sym);
        report_.AddOp(checkout_.NnQuery(full, call.callee), ScanOpKind::kModule, full, "", false, use, "");
      }
      return;
    }
    static const std::string kF = "torch.nn.functional.";
    if (StartsWith(dotted, kF) && IsIdentifier(dotted.substr(kF.size())) && sym.kind != PySymbol::kNone) {
      std::string name = dotted.substr(kF.size());
      report_.AddOp("F." + name, ScanOpKind::kFunctional, dotted, checkout_.AtenBehind(sym, name), false, use, "");
      return;
    }
    // torch.X, torch.linalg.X, torch.special.X, torch.fft.X: a YAML function.
    std::string rest = dotted.size() > 6 ? dotted.substr(6) : "";  // `torch(...)` itself: no op (found by the fuzzer)
    std::string yaml_name = rest;
    for (const char* ns : {"linalg.", "special.", "fft.", "nn.functional."})
      if (StartsWith(rest, ns))
        yaml_name = std::string(ns).substr(0, std::string(ns).find('.')) + "_" + rest.substr(std::string(ns).size());
    if (IsIdentifier(yaml_name)) {
      if (checkout_.IsMetadata(yaml_name)) return;  // torch.numel(x): no kernel runs
      for (const NativeFunction* fn : ix_.yaml.Overloads(yaml_name)) {
        if (fn->HasVariant("function")) {
          report_.AddOp(dotted, ScanOpKind::kTorch, "aten::" + yaml_name, yaml_name, false, use, "");
          return;
        }
      }
    }
    if (sym.kind == PySymbol::kFunction || sym.kind == PySymbol::kAlias) {
      report_.AddOp(dotted, ScanOpKind::kTorch, ix_.py.NameOf(sym), checkout_.AtenBehind(sym, ""), false, use, "");
      return;
    }
    if (sym.kind == PySymbol::kModule) return;
    report_.Unresolved(f, call, "not found in the checkout's Python or native_functions.yaml");
  }

  void ScanFunctionCalls(uint32_t f) {
    const PyFunction& fn = mod_.functions[f];
    const bool full = reachable_[f];
    const int32_t cls = file_.OwnerClass(f);
    const bool init = cls >= 0 && fn.name == "__init__";
    const std::string owner = cls >= 0 ? mod_.classes[cls].name : "";
    const std::string ctx = role_[f].rfind("autograd", 0) == 0 && !fn.params.empty() ? fn.params[0] : "";
    auto loops = file_.LoopBindings(f);
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
        report_.AddOp(std::string("Tensor.") + dunder, ScanOpKind::kOperator, std::string("torch.Tensor.") + dunder,
                      op->aten, true, use, "");
        continue;
      }
      const std::string& c = call.callee;
      if (full && Contains(call.args, "**"))
        report_.Unresolved(f, call, "**kwargs passed through: keyword arguments unknown");
      if (c == "getattr" || StartsWith(c, "getattr(")) {
        report_.Unresolved(f, call, "getattr: the attribute is chosen at run time");
        continue;
      }
      if (StartsWith(c, "super()")) continue;
      if (int32_t g = OwnCallee(f, call); g >= 0) {
        report_.AddFollow(f, static_cast<uint32_t>(g));
        if (EndsWith(c, ".apply")) {
          if (auto a = autograd_by_name_.find(c.substr(0, c.size() - 6)); a != autograd_by_name_.end())
            out_.autograd[a->second].applied.push_back({call.line, fn.qualname, "apply"});
        }
        if (cls >= 0 && StartsWith(c, "self.")) LayerCall(f, cls, c.substr(5), use);
        continue;
      }
      if (!ctx.empty() && StartsWith(c, ctx + ".")) {
        if (c == ctx + ".save_for_backward") report_.Function(f).save_for_backward.push_back(call.line);
        continue;
      }
      // self.<attr>(...): a layer, an inherited nn.Module method, or unknown.
      if (cls >= 0 && StartsWith(c, "self.")) {
        std::string rest = c.substr(5);
        std::string attr = rest.substr(0, rest.find_first_of(".(["));
        if (rest == attr || rest == attr + "[...]") {
          if (init) continue;
          if (!LayerCall(f, cls, attr, use) && full && !checkout_.ModuleApi(attr))
            report_.Unresolved(f, call, "self." + attr + " is not a layer or method the file defines");
          continue;
        }
      }
      size_t dot = c.rfind('.');
      std::string head = c.substr(0, c.find_first_of(".(["));
      std::string dotted = file_.ExpandImport(c, static_cast<int32_t>(f));
      if (!dotted.empty() && c.find_first_of("([") == std::string::npos) {
        // In __init__ a layer's constructor is recorded by CollectLayers.
        if (init && checkout_.NnClass(dotted).kind == PySymbol::kClass) continue;
        if (StartsWith(dotted, "torch.") || dotted == "torch") TorchCall(f, call, dotted, use);
        continue;  // other libraries (math, numpy) run no torch op
      }
      if (dot == std::string::npos) {
        if (Builtins().count(c) || file_.LocalClass(c) >= 0 || init) continue;
        if (auto it = loops.find(c); it != loops.end() && cls >= 0) {
          if (LayerCall(f, cls, it->second, use)) continue;
        }
        if (full) {
          bool param = std::find(fn.params.begin(), fn.params.end(), c) != fn.params.end();
          report_.Unresolved(f, call,
                             param ? "call on parameter '" + c + "': its value is not known statically"
                                   : "call on an unknown object '" + c + "'");
        }
        continue;
      }
      std::string method = c.substr(dot + 1);
      std::string recv = c.substr(0, dot);
      // Metadata (x.size(1)) runs no kernel; a method of an int, a str, a
      // list or a set (seen.add(k)) is no tensor op.
      if (checkout_.IsMetadata(method) || ScopeOf(f).NotTensor(recv)) continue;
      if (!checkout_.IsTensorMethod(method) && checkout_.ReturnsNoTensor(method))
        continue;                           // x.dim(), x.numel(): bound by hand
      if (IsConversion(method) && !init) {  // x.float(): aten::to, bound by hand
        use.how = "method on " + recv;
        report_.AddOp("Tensor." + method, ScanOpKind::kMethod, "torch._tensor.Tensor." + method, "to", false, use,
                      recv);
        continue;
      }
      if (checkout_.IsTensorMethod(method) &&
          !(head == "self" && recv.find_first_of("([") == std::string::npos && recv != "self" && init)) {
        use.how = "method on " + recv;
        std::string base = ix_.yaml.Overloads(method).empty() ? "" : method;
        report_.AddOp("Tensor." + method, ScanOpKind::kMethod,
                      base.empty() ? "torch._tensor.Tensor." + method : "aten::" + method, base, false, use, recv);
        continue;
      }
      if (full && !init) report_.Unresolved(f, call, "method '" + method + "' of an object whose type is not known");
    }
    if (!ctx.empty()) {
      const std::string needle = ctx + ".saved_tensors";
      for (uint32_t n = fn.line; n <= fn.end_line && n <= file_.line_count(); ++n)
        if (Contains(file_.Line(n), needle)) report_.Function(f).saved_tensors.push_back(n);
    }
  }

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
      for (const Assignment& a : file_.AssignmentsOf(m)) {
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
    auto scope = std::make_unique<ValueScope>(checkout_.tensor_facts());
    FillScope(f, /*with_attrs=*/true, scope.get());
    return *scopes_.emplace(f, std::move(scope)).first->second;
  }

  void FillScope(uint32_t f, bool with_attrs, ValueScope* scope) {
    const PyFunction& fn = mod_.functions[f];
    for (const std::vector<PyImport>* imports : {&std::as_const(mod_.imports), &fn.imports})
      for (const PyImport& im : *imports)
        if (im.target == "math") scope->AddScalarModule(im.local);
    std::vector<std::string> scalar = ScalarParams(file_.Header(f));
    for (const std::string& p : fn.params)
      scope->SetLocal(p, std::count(scalar.begin(), scalar.end(), p) ? ValueKind::kScalar : ValueKind::kUnknown);
    if (with_attrs && fn.class_index >= 0) {
      for (const auto& [attr, kind] : AttrKinds(static_cast<uint32_t>(fn.class_index))) scope->SetAttr(attr, kind);
      for (const ScanLayer& l : out_.layers)  // self.proj.in_features: an int of nn.Linear
        if (l.owner == mod_.classes[fn.class_index].name && !l.attr.empty() && !l.resolved.empty())
          for (const std::string& a : checkout_.LayerScalarAttrs(l.resolved))
            scope->SetAttr(l.attr + "." + a, ValueKind::kScalar);
    }
    LearnAssignments(file_.AssignmentsOf(f), scope);
  }

  // self.<attr> kinds of class cls: from every assignment to it in the
  // class's methods (all must agree).
  const std::unordered_map<std::string, ValueKind>& AttrKinds(uint32_t cls) {
    auto it = attr_kinds_.find(cls);
    if (it != attr_kinds_.end()) return it->second;
    std::unordered_map<std::string, ValueKind> kinds;
    for (uint32_t m : mod_.classes[cls].methods) {
      ValueScope scope(checkout_.tensor_facts());
      FillScope(m, /*with_attrs=*/false, &scope);
      for (const Assignment& a : file_.AssignmentsOf(m)) {
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

  // self.<attr>(...) in a method: the op of each nn layer bound there.
  bool LayerCall(uint32_t f, int32_t cls, std::string attr, const ScanUse& base) {
    size_t cut = attr.find_first_of("[.(");
    if (cut != std::string::npos) attr.resize(cut);
    auto layers = LayersOf(mod_.classes[cls].name, attr);
    if (layers.empty()) return false;
    for (const ScanLayer& l : layers) {
      if (int32_t lc = file_.LocalClass(l.query); lc >= 0) {
        if (int32_t fwd = file_.LocalMethod(static_cast<uint32_t>(lc), "forward"); fwd >= 0)
          report_.AddFollow(f, static_cast<uint32_t>(fwd));
        continue;
      }
      ScanUse use = base;
      use.how = "layer self." + attr;
      report_.AddOp(l.query, ScanOpKind::kModule, l.resolved, "", false, use, "");
    }
    return true;
  }

  const Index& ix_;
  ScanReport& out_;
  UserFile file_;
  const PyModule& mod_;  // file_'s
  CheckoutFacts checkout_;
  std::vector<std::string> role_;  // per function of the file (FindReachable)
  ReportBuilder report_;
  std::vector<ClassKind> class_kind_;
  std::vector<bool> reachable_;
  std::unordered_map<std::string, std::vector<size_t>> layers_by_owner_;  // into out_.layers
  std::unordered_map<std::string, size_t> autograd_by_name_;              // into out_.autograd
  std::unordered_map<uint32_t, std::unique_ptr<ValueScope>> scopes_;
  std::unordered_map<uint32_t, std::unordered_map<std::string, ValueKind>> attr_kinds_;
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
