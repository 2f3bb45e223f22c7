// The Python walk (PythonWalker): torch's own Python code, from the symbol
// traced to the calls that cross into C++. From a frame, calls are followed
// in source order: to other Python functions of torch (recursively,
// bounded; every module but the machinery that never reaches a kernel),
// through aliases (_add_docstr, boolean_dispatch), self.x and super().x,
// receiver.method(...), operators on values known to be tensors, and across
// the bridge into C++ (_VF.x, torch._C._nn.x, torch.x, tensor methods,
// torch.ops.aten.x), where the YAML op takes over: the ops are queued
// (OpQueue), never expanded here. Apart from query resolution (trace.cc)
// because a query is resolved once, while the walk recurses from every
// frame it finds.
#include <algorithm>
#include <cctype>
#include <memory>
#include <mutex>
#include <regex>
#include <set>

#include <fmt/format.h>

#include "base/bounded_regex.h"
#include "base/text.h"
#include "py/py_arguments.h"
#include "py/py_builtins.h"
#include "trace/py_bindings.h"
#include "trace/trace_internal.h"
#include "trace/walk_bounds.h"

namespace optrace {

namespace {

bool DerivesFromTensorBase(const PyClass& c) {
  for (const std::string& base : c.resolved_bases) {
    if (base == "torch._C.TensorBase" || base == "torch._C._TensorBase") return true;
  }
  return false;
}

// Python modules whose functions the walk follows into: every torch module
// (torch._lowrank, torch.masked, torch.optim, torch._linalg_utils compose
// ops too) except those that never lead to a kernel -- scripting, tracing,
// compilation and export machinery, the __torch_function__ overrides,
// utilities, and the pure argument checks of torch._prims_common. Frames
// that reach no op are pruned afterwards (PrunePythonFrames).
bool FollowableModule(std::string_view module) {
  if (module == "torch") return true;
  if (!StartsWith(module, "torch.")) return false;
  static const char* kNoKernels[] = {"torch.jit",
                                     "torch._jit_internal",
                                     "torch.overrides",
                                     "torch.utils",
                                     "torch._dynamo",
                                     "torch.fx",
                                     "torch.testing",
                                     "torch._C",
                                     "torch.onnx",
                                     "torch.distributed",
                                     "torch.cuda",
                                     "torch.backends",
                                     "torch.autograd.profiler",
                                     "torch._logging",
                                     "torch._guards",
                                     "torch.export",
                                     "torch._export",
                                     "torch._inductor",
                                     "torch.compiler",
                                     "torch._prims_common",
                                     "torch.package",
                                     "torch.hub",
                                     "torch.serialization",
                                     "torch._utils",
                                     "torch.library",
                                     "torch._library",
                                     "torch._ops",
                                     "torch._higher_order_ops",
                                     "torch._subclasses",
                                     "torch._functorch",
                                     "torch.profiler",
                                     "torch._tensor_str",
                                     "torch.types",
                                     "torch._vmap_internals",
                                     "torch._namedtensor_internals",
                                     "torch.mps",
                                     "torch.xpu",
                                     "torch.amp",
                                     "torch.ao",
                                     "torch.quantization",
                                     "torch._lazy",
                                     "torch.monitor",
                                     "torch.multiprocessing"};
  for (const char* p : kNoKernels) {
    size_t n = std::string_view(p).size();
    if (StartsWith(module, p) && (module.size() == n || module[n] == '.')) return false;
  }
  return true;
}

// torch._C submodules that bind generated C++ functions, and the YAML
// python_module each one serves ("" = the torch namespace itself).
struct BridgeModule {
  const char* prefix;
  const char* python_module;
  const char* label;
};
const BridgeModule kBridges[] = {
    {"torch._C._nn.", "nn", "torch._C._nn"},
    {"torch._C._linalg.", "linalg", "torch._C._linalg"},
    {"torch._C._fft.", "fft", "torch._C._fft"},
    {"torch._C._special.", "special", "torch._C._special"},
    {"torch._C._nested.", "nested", "torch._C._nested"},
    {"torch._C._sparse.", "sparse", "torch._C._sparse"},
    {"torch._C._VariableFunctions.", "", "torch._C._VariableFunctions"},
    {"torch._VF.", "", "_VF"},
    {"torch._C.TensorBase.", "", "tensor method"},
    {"torch._C._TensorBase.", "", "tensor method"},  // 1.13's name of the C++ base
};

// Which ops have a Python binding, as tools/autograd/gen_python_functions.py
// decides (its _SKIP_PYTHON_BINDINGS name patterns and
// SKIP_PYTHON_BINDINGS_SIGNATURES), read from the checkout: torch.mul(x, 2)
// can never reach mul.Scalar, because that overload has no binding.
class PythonBindings {
 public:
  explicit PythonBindings(const Index& ix) {
    std::string text;
    if (!ix.disk || !ix.disk->ReadFile("tools/autograd/gen_python_functions.py", &text).ok()) return;
    ReadList(text, "_SKIP_PYTHON_BINDINGS = [", &name_patterns_);
    ReadList(text, "SKIP_PYTHON_BINDINGS_SIGNATURES = [", &signatures_);
    for (const auto& p : name_patterns_) {
      try {
        regexes_.emplace_back(p);
      } catch (const std::regex_error&) {
      }
    }
  }
  bool Bound(const NativeFunction& fn) const {
    for (const auto& sig : signatures_) {
      if (sig == fn.schema.text) return false;
    }
    std::string name = fn.schema.name + (fn.schema.is_out() ? "_out" : "");
    for (const auto& re : regexes_) {
      if (BoundedRegexMatch(name, re)) return false;
    }
    return true;
  }

 private:
  static void ReadList(const std::string& text, const std::string& opener, std::vector<std::string>* out) {
    size_t pos = text.find(opener);
    if (pos == std::string::npos) return;
    size_t end = text.find("\n]", pos);
    std::string body = text.substr(pos + opener.size(), end == std::string::npos ? std::string::npos : end - pos);
    // Each "quoted" item on one line (by hand: bounded_regex.h says why not std::regex).
    for (size_t open = body.find('"'); open != std::string::npos; open = body.find('"', open + 1)) {
      size_t close = body.find_first_of("\"\n", open + 1);
      if (close == std::string::npos) break;
      if (body[close] != '"') continue;
      out->push_back(body.substr(open + 1, close - open - 1));
      open = close;
    }
  }
  std::vector<std::string> name_patterns_, signatures_;
  std::vector<std::regex> regexes_;
};

const PythonBindings& BindingsFor(const Index& ix) {
  return ix.Derived<PythonBindings>("python-bindings", [&] { return PythonBindings(ix); });
}

}  // namespace

// Python operator spellings and the Tensor dunder each one calls.
const std::array<std::pair<const char*, const char*>, 25> kOperatorDunders = {{
    {"@", "__matmul__"},    {"+", "__add__"},   {"-", "__sub__"},   {"*", "__mul__"},      {"/", "__truediv__"},
    {"//", "__floordiv__"}, {"%", "__mod__"},   {"**", "__pow__"},  {"[]", "__getitem__"}, {"==", "__eq__"},
    {"!=", "__ne__"},       {"<", "__lt__"},    {"<=", "__le__"},   {">", "__gt__"},       {">=", "__ge__"},
    {"&", "__and__"},       {"|", "__or__"},    {"^", "__xor__"},   {"~", "__invert__"},   {"<<", "__lshift__"},
    {">>", "__rshift__"},   {"+=", "__iadd__"}, {"-=", "__isub__"}, {"*=", "__imul__"},    {"/=", "__idiv__"},
}};

// Reads the dunder table of the C++ Tensor binding from the checkout
// (tools/autograd/templates/python_variable_methods.cpp): "__add__" is bound
// to THPVariable_add, i.e. the aten op add. Read, not hard-coded, so a tree
// that binds differently is traced as it is.
DunderTable ReadDunderBindings(const Index& ix) {
  std::map<std::string, std::pair<std::string, int>> out;
  const std::string path = "tools/autograd/templates/python_variable_methods.cpp";
  std::string text;
  if (!ix.disk || !ix.disk->ReadFile(path, &text).ok()) return out;
  static const std::regex re(R"re(\{"(__\w+__)",[^\n]*?THPVariable_(\w+?)_?>)re");
  int line = 1;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    std::string_view l(text.data() + pos, end - pos);
    if (l.find("{\"__") != std::string_view::npos) {
      std::string ls(l);
      std::smatch m;
      if (BoundedRegexSearch(ls, &m, re)) {
        std::string op = m[2];
        // THPVariable_add_ binds add_: keep the in-place name.
        if (ls.find("THPVariable_" + op + "_>") != std::string::npos) op += "_";
        if (op.rfind("__", 0) == 0) op = op.substr(2, op.size() - 4);  // THPVariable___eq__ -> eq
        out[m[1]] = {op, line};
      }
    }
    pos = end + 1;
    ++line;
  }
  return out;
}

void PythonWalker::AddBoundOverloads(const std::string& name, bool method) {
  const PythonBindings& bindings = BindingsFor(ix_);
  std::vector<const NativeFunction*> picked, manual;
  for (const NativeFunction* fn : ix_.yaml.Overloads(name)) {
    if (fn->schema.is_out() || (method && !fn->HasVariant("method"))) continue;
    (bindings.Bound(*fn) ? picked : manual).push_back(fn);
  }
  // Nothing generated: the method is bound by hand (copy_, __getitem__'s
  // index), and that binding calls these overloads.
  for (const NativeFunction* fn : picked.empty() ? manual : picked) ops_.AddOp(fn, OpRole::kForward, "", 0);
}

// --- Python layer ----------------------------------------------------------

bool PythonWalker::BridgeToYaml(const std::string& dotted, std::string* bridge,
                                std::vector<const NativeFunction*>* ops) {
  std::string name;
  std::string python_module = "<none>";
  if (StartsWith(dotted, "torch.ops.aten.")) {
    std::string rest = dotted.substr(15);
    std::string base = rest, overload;
    if (size_t dot = rest.find('.'); dot != std::string::npos) {
      base = rest.substr(0, dot);
      overload = rest.substr(dot + 1);
    }
    *bridge = "torch.ops";
    if (!overload.empty()) {
      const NativeFunction* fn = FindOp(overload == "default" ? base : base + "." + overload);
      if (fn) ops->push_back(fn);
      return true;
    }
    for (const NativeFunction* fn : ix_.yaml.Overloads(base)) {
      if (!fn->schema.is_out()) ops->push_back(fn);
    }
    return true;
  }
  for (const BridgeModule& b : kBridges) {
    if (StartsWith(dotted, b.prefix)) {
      name = dotted.substr(std::string_view(b.prefix).size());
      python_module = b.python_module;
      *bridge = b.label;
      break;
    }
  }
  if (name.empty() && StartsWith(dotted, "torch.") && dotted.find('.', 6) == std::string::npos) {
    name = dotted.substr(6);
    python_module = "";
    *bridge = "torch." + name;
  }
  if (name.empty() || name.find('.') != std::string::npos) return false;
  bool tensor_method = *bridge == "tensor method";
  const PythonBindings& bindings = BindingsFor(ix_);
  for (const NativeFunction* fn : ix_.yaml.Overloads(name)) {
    if (fn->schema.is_out() || !bindings.Bound(*fn)) continue;
    if (tensor_method) {
      if (!fn->HasVariant("method")) continue;
    } else {
      // A binding module only exposes ops whose python_module names it
      // (torch._C._nn.linear is linear with python_module: nn).
      std::string pm = fn->python_module.value_or("");
      if (pm != python_module) continue;
      if (python_module.empty() && !fn->HasVariant("function")) continue;
    }
    ops->push_back(fn);
  }
  if (ops->empty() && !tensor_method) {
    // Skipped by codegen because it is bound by hand (nonzero, ...): the
    // manual binding still calls the op.
    for (const NativeFunction* fn : ix_.yaml.Overloads(name)) {
      if (!fn->schema.is_out() && fn->python_module.value_or("") == python_module) ops->push_back(fn);
    }
  }
  return true;
}

// Drops helper frames that lead to no op (argument checks, shape
// bookkeeping): the entry frame stays, and so does every frame on a path to C++.
void PythonWalker::PrunePythonFrames() {
  if (t_.python.size() <= 1) return;
  bool changed = true;
  std::set<std::string> dropped;
  while (changed) {
    changed = false;
    for (size_t i = 1; i < t_.python.size(); ++i) {
      const PyFrame& f = t_.python[i];
      if (dropped.count(f.symbol)) continue;
      bool useful = false;
      for (const auto& c : f.calls) {
        if (c.kind != PyCallTarget::kPython && c.kind != PyCallTarget::kFunctional && c.kind != PyCallTarget::kMethod)
          useful = true;
        else if (c.resolved.rfind("aten::", 0) == 0) useful = true;
        else if (!dropped.count(c.resolved)) {
          // A call to a frame that is still there keeps this one.
          for (const auto& g : t_.python) useful = useful || (g.symbol == c.resolved && g.symbol != f.symbol);
        }
      }
      if (!useful) {
        dropped.insert(f.symbol);
        changed = true;
      }
    }
  }
  std::vector<PyFrame> kept;
  for (size_t i = 0; i < t_.python.size(); ++i) {
    if (i > 0 && dropped.count(t_.python[i].symbol)) continue;
    PyFrame f = t_.python[i];
    std::vector<PyCallStep> calls;
    for (auto& c : f.calls) {
      if (!dropped.count(c.resolved)) calls.push_back(c);
    }
    f.calls = std::move(calls);
    kept.push_back(std::move(f));
  }
  t_.python = std::move(kept);
}

void PythonWalker::WalkAlias(uint32_t module, const PyAlias& alias, int depth, PyFrame* frame) {
  const PyModule& m = ix_.py.modules()[module];
  if (alias.kind == PyAliasKind::kBooleanDispatch) {
    frame->bridge = "boolean_dispatch";
    frame->note = "boolean_dispatch: if_true=" + alias.if_true + ", if_false=" + alias.if_false;
    size_t at = t_.python.size();
    t_.python.push_back(*frame);
    for (const std::string& branch : {alias.if_true, alias.if_false}) {
      if (branch.empty()) continue;
      t_.python[at].calls.push_back(
          {branch, static_cast<int>(alias.line), PyCallTarget::kPython, m.name + "." + branch, {}});
      PySymbol s = ix_.py.Resolve(m.name + "." + branch);
      if (s.kind == PySymbol::kFunction) {
        WalkPythonFunction(s.module, s.index, depth + 1);
      } else if (s.kind == PySymbol::kAlias && depth < kPythonDepth &&
                 seen_py_.insert({s.module, 1000000 + s.index}).second) {
        // boolean_dispatch of boolean_dispatch (torch.unique in 1.13).
        const PyModule& bm = ix_.py.modules()[s.module];
        const PyAlias& nested = bm.aliases[s.index];
        PyFrame nested_frame;
        nested_frame.symbol = bm.name + "." + nested.name;
        nested_frame.where = Loc(bm.path, static_cast<int>(nested.line), 2);
        WalkAlias(s.module, nested, depth + 1, &nested_frame);
      }
    }
    return;
  }
  if (alias.kind == PyAliasKind::kAddDocstr) frame->bridge = "_add_docstr alias";
  size_t at = t_.python.size();
  t_.python.push_back(*frame);
  PyFrame tmp = t_.python[at];
  const PyAlias* outer = walking_alias_;
  walking_alias_ = &alias;
  FollowPyCall(module, -1, alias.target, static_cast<int>(alias.line), depth, &tmp);
  // x = wrapper(f, ...): what runs is f, wrapped (a decorator applied by
  // hand: __pow__ = _wrap_type_error_to_not_implemented(_C.TensorBase.pow)).
  if (alias.kind == PyAliasKind::kCall) {
    std::string first = alias.args.substr(0, alias.args.find(','));
    first = std::string(TrimView(first));
    bool dotted =
        !first.empty() && std::all_of(first.begin(), first.end(), [](char c) { return IsIdentChar(c) || c == '.'; });
    if (dotted && !std::isdigit(static_cast<unsigned char>(first[0])))
      FollowPyCall(module, -1, first, static_cast<int>(alias.line), depth, &tmp);
  }
  walking_alias_ = outer;
  // FollowPyCall may have appended frames: write the calls back into ours.
  t_.python[at].calls = tmp.calls;
  if (t_.python[at].bridge.empty()) t_.python[at].bridge = tmp.bridge;
  else if (!tmp.bridge.empty() && tmp.bridge != t_.python[at].bridge) t_.python[at].bridge += " -> " + tmp.bridge;
}

void PythonWalker::WalkTensorAlias(const PySymbol& s, int depth) {
  const PyModule& m = ix_.py.modules()[s.module];
  const PyAlias& a = m.aliases[s.index];
  PyFrame frame;
  frame.symbol = m.name + "." + (a.class_index >= 0 ? m.classes[a.class_index].name + "." : "") + a.name;
  frame.where = Loc(m.path, static_cast<int>(a.line), 2);
  if (seen_py_.insert({s.module, 1000000 + s.index}).second) WalkAlias(s.module, a, depth, &frame);
}

namespace {

// The def a bare name calls from inside `f` when f, or a function enclosing
// it, defines one of that name: Python looks a name up in the enclosing
// functions' scopes before the module's (`_combine_input_and_mask`'s
// `helper(input, mask)`). A class body is no enclosing scope of its methods.
std::optional<uint32_t> NestedDef(const PyModule& m, const PyFunction& f, std::string_view name) {
  if (name.empty() || name.find('.') != std::string_view::npos) return std::nullopt;
  for (std::string_view scope = f.qualname; !scope.empty();) {
    if (std::any_of(m.classes.begin(), m.classes.end(), [&](const PyClass& c) { return c.qualname == scope; }))
      return std::nullopt;
    const std::string want = std::string(scope) + "." + std::string(name);
    for (uint32_t i = 0; i < m.functions.size(); ++i)
      if (m.functions[i].qualname == want) return i;
    const size_t dot = scope.rfind('.');
    if (dot == std::string_view::npos) break;
    scope = scope.substr(0, dot);
  }
  return std::nullopt;
}

}  // namespace

void PythonWalker::WalkPythonFunction(uint32_t module, uint32_t function, int depth) {
  if (!seen_py_.insert({module, function}).second || depth > kPythonDepth) return;
  const PyModule& m = ix_.py.modules()[module];
  const PyFunction& f = m.functions[function];
  size_t at = t_.python.size();
  PyFrame frame;
  frame.symbol = m.name + "." + f.qualname;
  frame.where = Loc(m.path, static_cast<int>(f.line), 3);
  t_.python.push_back(frame);
  PyFrame work = frame;
  for (const PyCall& call : f.calls) {
    if (call.in_preamble) continue;
    if (call.kind == PyCallKind::kOperator) {
      // '@' exists for tensors alone; other operators where an operand is
      // known to be a tensor.
      if (call.callee == "@") {
        work.calls.push_back({"@", static_cast<int>(call.line), PyCallTarget::kOperator, "aten::matmul", {}});
        ops_.AddOpsByBaseName("matmul", OpRole::kForward, "", 0);
      } else {
        FollowOperator(module, function, call, depth, &work);
      }
      continue;
    }
    if (FollowRebindParameter(module, function, call.callee, static_cast<int>(call.line), depth, &work)) continue;
    if (const std::optional<uint32_t> nested = NestedDef(m, f, call.callee)) {
      work.calls.push_back({call.callee,
                            static_cast<int>(call.line),
                            PyCallTarget::kPython,
                            m.name + "." + m.functions[*nested].qualname,
                            {}});
      WalkPythonFunction(module, *nested, depth + 1);
      continue;
    }
    const size_t before = work.calls.size();
    FollowPyCall(module, f.class_index, call.callee, static_cast<int>(call.line), depth, &work);
    if (work.calls.size() == before && HoldsValue(m, f, call.callee))
      t_.not_found.push_back({"python call", fmt::format("{} ({}:{}): a value the frame holds (a parameter, a local, a "
                                                         "loop variable); what it calls is known only when it runs",
                                                         call.callee, m.path, call.line)});
  }
  t_.python[at].calls = std::move(work.calls);
  t_.python[at].bridge = work.bridge;
  if (t_.python[at].bridge.empty()) {
    bool composes = false;
    for (const auto& c : t_.python[at].calls) composes = composes || c.kind != PyCallTarget::kPython;
    if (composes) t_.python[at].bridge = "pure Python composition";
  }
}

bool PythonWalker::AddBridgeCall(const std::string& dotted, const std::string& callee, PyCallTarget kind, int line,
                                 PyFrame* frame) {
  std::string bridge;
  std::vector<const NativeFunction*> ops;
  if (!BridgeToYaml(dotted, &bridge, &ops)) return false;
  // Ops returning no tensor (size, dim, is_floating_point...) are metadata
  // queries answered without a kernel: not part of what runs.
  std::vector<const NativeFunction*> tensor_ops;
  for (const NativeFunction* fn : ops) {
    bool returns_tensor = false;
    for (const auto& r : fn->schema.returns)
      returns_tensor = returns_tensor || r.type.find("Tensor") != std::string::npos;
    if (returns_tensor) tensor_ops.push_back(fn);
  }
  if (tensor_ops.empty()) return false;
  frame->calls.push_back({callee, line, kind, "aten::" + tensor_ops.front()->schema.name, {}});
  if (frame->bridge.empty()) frame->bridge = bridge;
  else if (frame->bridge.find(bridge) == std::string::npos) frame->bridge += ", " + bridge;
  for (const NativeFunction* fn : tensor_ops) ops_.AddOp(fn, OpRole::kForward, "", 0);
  return true;
}

bool PythonWalker::FollowSymbol(const std::string& dotted, const std::string& callee, PyCallTarget kind, int line,
                                int depth, PyFrame* frame) {
  const auto& mods = ix_.py.modules();
  PySymbol s = ix_.py.Resolve(dotted);
  if (s.kind == PySymbol::kFunction) {
    const PyModule& target = mods[s.module];
    if (!FollowableModule(target.name)) return false;
    frame->calls.push_back({callee, line, kind, target.name + "." + target.functions[s.index].qualname, {}});
    WalkPythonFunction(s.module, s.index, depth + 1);
    return true;
  }
  if (s.kind == PySymbol::kAlias) {
    const PyModule& target = mods[s.module];
    if (!FollowableModule(target.name)) return false;
    const PyAlias& a = target.aliases[s.index];
    if (&a == walking_alias_) return false;  // names itself: the binding of that name
    frame->calls.push_back({callee, line, kind, target.name + "." + a.name, {}});
    PyFrame alias_frame;
    alias_frame.symbol = target.name + "." + a.name;
    alias_frame.where = Loc(target.path, static_cast<int>(a.line), 2);
    if (seen_py_.insert({s.module, 1000000 + s.index}).second) WalkAlias(s.module, a, depth + 1, &alias_frame);
    return true;
  }
  return false;
}

// self.method(...) and super().method(...); a super() method of a C++ base
// (torch._C.TensorBase) is a tensor method bound in C++.
void PythonWalker::FollowSelfCall(uint32_t module, int32_t cls, const std::string& callee, int line, int depth,
                                  PyFrame* frame) {
  const auto& mods = ix_.py.modules();
  const PyModule& m = mods[module];
  const size_t dot = callee.find('.');
  const std::string head = callee.substr(0, dot), rest = callee.substr(dot + 1);
  auto fn = head == "self" ? ix_.py.FindMethod(module, static_cast<uint32_t>(cls), rest) : std::nullopt;
  if (head == "super()") {
    const PyClass& c = m.classes[static_cast<size_t>(cls)];
    for (const std::string& base : c.resolved_bases) {
      if (base.empty()) continue;
      PySymbol b = ix_.py.Resolve(base);
      if (b.kind != PySymbol::kClass) {
        if (StartsWith(base, "torch._C.") &&
            AddBridgeCall(base + "." + rest, callee, PyCallTarget::kMethod, line, frame))
          return;
        continue;
      }
      fn = ix_.py.FindMethod(b.module, b.index, rest);
      if (fn) break;
    }
  }
  if (fn && fn->kind == PySymbol::kFunction) {
    const PyModule& target = mods[fn->module];
    frame->calls.push_back(
        {callee, line, PyCallTarget::kPython, target.name + "." + target.functions[fn->index].qualname, {}});
    WalkPythonFunction(fn->module, fn->index, depth + 1);
    return;
  }
  if (fn && fn->kind == PySymbol::kAlias) {
    const PyModule& target = mods[fn->module];
    const PyAlias& a = target.aliases[fn->index];
    frame->calls.push_back({callee, line, PyCallTarget::kPython, target.name + "." + a.name, {}});
    PyFrame alias_frame;
    alias_frame.symbol = target.name + "." + a.name;
    alias_frame.where = Loc(target.path, static_cast<int>(a.line), 2);
    if (seen_py_.insert({fn->module, 1000000 + fn->index}).second) WalkAlias(fn->module, a, depth + 1, &alias_frame);
    return;
  }
  if (head == "self" && !fn && FollowSelfAttribute(module, cls, rest, line, depth, frame)) return;
  // self.reciprocal() in torch._tensor.Tensor: a method bound in C++.
  if (head == "self" && !fn && DerivesFromTensorBase(m.classes[static_cast<size_t>(cls)]))
    FollowMethodCall(callee, line, depth, frame);
}

// receiver.method(...): a tensor method when the name is one, whatever the
// receiver (x.softmax, (-input).softmax, div.mul(...).add(...).pow,
// self.weight.add_); methods bound by hand in C++ (x.half(), x.to()) too.
void PythonWalker::FollowMethodCall(const std::string& callee, int line, int depth, PyFrame* frame) {
  const std::string method = callee.substr(callee.rfind('.') + 1);
  if (method.empty()) return;
  PySymbol py = ix_.py.Resolve("torch._tensor.Tensor." + method);
  if (py.kind == PySymbol::kFunction) {
    frame->calls.push_back({callee, line, PyCallTarget::kMethod, "torch._tensor.Tensor." + method, {}});
    WalkPythonFunction(py.module, py.index, depth + 1);
    return;
  }
  if (AddBridgeCall("torch._C.TensorBase." + method, callee, PyCallTarget::kMethod, line, frame)) return;
  // A YAML method that returns no tensor (size, dim) is metadata: no op.
  if (ix_.yaml.Overloads(method).empty()) FollowHandBound(method, callee, line, frame);
}

// A bare name the frame calls that is neither its module's (a def, a class,
// an alias, an import), its own lazy import, nor a Python builtin: a value
// the frame holds -- a parameter, a local, a loop variable (`for mod in
// self.layers: mod(output, ...)`) -- whose callee only the run knows.
// torch/__init__.py's bare names are its _VariableFunctions bindings.
bool PythonWalker::HoldsValue(const PyModule& m, const PyFunction& f, const std::string& callee) const {
  if (callee.empty() || callee.find('.') != std::string::npos || !IsIdentifier(callee) || m.name == "torch")
    return false;
  if (IsPythonBuiltin(callee) || ix_.py.Resolve(m.name + "." + callee).kind != PySymbol::kNone) return false;
  for (const auto* imports : {&m.imports, &f.imports})
    for (const PyImport& imp : *imports)
      if (imp.local == callee) return false;
  return true;
}

void PythonWalker::FollowPyCall(uint32_t module, int32_t cls, const std::string& callee, int line, int depth,
                                PyFrame* frame) {
  const PyModule& m = ix_.py.modules()[module];
  size_t dot = callee.find('.');
  std::string head = callee.substr(0, dot);
  std::string rest = dot == std::string::npos ? "" : callee.substr(dot + 1);

  if ((head == "self" || head == "super()") && cls >= 0 && !rest.empty() && rest.find('.') == std::string::npos) {
    FollowSelfCall(module, cls, callee, line, depth, frame);
    return;
  }
  // Names bound by imports: F.x, torch.x, _VF.x, nn.functional.x ...
  for (const PyImport& imp : m.imports) {
    if (imp.local != head) continue;
    std::string dotted = rest.empty() ? imp.target : imp.target + "." + rest;
    if (StartsWith(dotted, "torch._VF.") || StartsWith(dotted, "torch._C.") || StartsWith(dotted, "torch.ops.aten.")) {
      AddBridgeCall(dotted, callee, PyCallTarget::kBridge, line, frame);
      return;
    }
    if (FollowSymbol(dotted, callee,
                     StartsWith(dotted, "torch.nn.functional.") ? PyCallTarget::kFunctional : PyCallTarget::kPython,
                     line, depth, frame))
      return;
    if (StartsWith(dotted, "torch.") && dotted.find('.', 6) == std::string::npos) {
      AddBridgeCall(dotted, callee, PyCallTarget::kTorch, line, frame);
    } else if (StartsWith(dotted, "torch.linalg.") || StartsWith(dotted, "torch.fft.") ||
               StartsWith(dotted, "torch.special.")) {
      PySymbol s = ix_.py.Resolve(dotted);
      if (s.kind == PySymbol::kNone) {
        std::string sub = dotted.substr(6, dotted.find('.', 6) - 6);
        AddBridgeCall("torch._C._" + sub + "." + sub + "_" + dotted.substr(dotted.rfind('.') + 1), callee,
                      PyCallTarget::kBridge, line, frame);
      }
    }
    return;
  }
  // Module-level functions and aliases of the same module.
  if (rest.empty()) {
    if (FollowSymbol(m.name + "." + head, callee, PyCallTarget::kPython, line, depth, frame)) return;
    // torch/__init__.py binds every function of torch._C._VariableFunctions
    // into torch's namespace at import (`globals()[__name] = __obj`): a bare
    // name there that Python does not define is that binding
    // (`_segment_reduce = segment_reduce`).
    if (m.name != "torch") return;
    bool function_op = false;
    for (const NativeFunction* o : ix_.yaml.Overloads(head)) function_op = function_op || o->HasVariant("function");
    if (function_op && ix_.py.Resolve(m.name + "." + head).kind == PySymbol::kNone)
      AddBridgeCall("torch." + head, callee, PyCallTarget::kTorch, line, frame);
    return;
  }
  if (head == "cls" || (head == "self" && rest.find('.') == std::string::npos)) return;
  FollowMethodCall(callee, line, depth, frame);
}

// --- self attributes and hand-written bindings -----------------------------

namespace {

std::string TrimCopy(std::string_view s) { return std::string(TrimView(s)); }

// The default value text of parameter `name` in a def header, or "".
std::string ParamDefault(std::string_view header, std::string_view name) {
  size_t open = header.find('(');
  size_t close = open == std::string_view::npos ? open : ClosingBracket(header, open);
  if (close == std::string_view::npos) return {};
  std::string_view params = header.substr(open + 1, close - open - 1);
  size_t start = 0;
  for (size_t i = 0; i <= params.size(); ++i) {
    if (i < params.size() && (params[i] == '(' || params[i] == '[' || params[i] == '{')) {
      size_t c = ClosingBracket(params, i);
      if (c == std::string_view::npos) return {};
      i = c;
      continue;
    }
    if (i < params.size() && params[i] != ',') continue;
    std::string_view p = TrimView(params.substr(start, i - start));
    start = i + 1;
    size_t n = 0;
    while (n < p.size() && IsIdentChar(p[n])) ++n;
    if (p.substr(0, n) != name) continue;
    size_t eq = p.rfind('=');
    return eq == std::string_view::npos ? std::string() : TrimCopy(p.substr(eq + 1));
  }
  return {};
}

bool IsDottedName(std::string_view s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  return std::all_of(s.begin(), s.end(), [](char c) { return IsIdentChar(c) || c == '.'; });
}

}  // namespace

bool PythonWalker::FollowSelfAttribute(uint32_t module, int32_t cls, const std::string& attr, int line, int depth,
                                       PyFrame* frame) {
  auto init = ix_.py.FindMethod(module, static_cast<uint32_t>(cls), "__init__");
  if (!init || init->kind != PySymbol::kFunction) return false;
  const PyModule& im = ix_.py.modules()[init->module];
  const PyFunction& f = im.functions[init->index];
  std::string header;
  std::set<std::string> values;  // what __init__ binds to self.<attr>, each followed once
  for (uint32_t n = f.line; n <= f.end_line; ++n) {
    std::string text = ix_.Snippet(im.path, static_cast<int>(n), 1);
    if (n < f.line + 32 && header.find("):") == std::string::npos && header.find(") ->") == std::string::npos)
      header += text + " ";
    std::string_view t = TrimView(text);
    const std::string lhs = "self." + attr;
    if (!StartsWith(t, lhs)) continue;
    t.remove_prefix(lhs.size());
    t = TrimView(t);
    if (!t.empty() && t[0] == ':')
      t.remove_prefix(std::min(t.size(), t.find('=') == std::string_view::npos ? t.size() : t.find('=')));
    if (t.size() < 2 || t[0] != '=' || t[1] == '=') continue;
    std::string value = TrimCopy(t.substr(1));
    if (size_t open = value.find('('); open != std::string::npos) value = value.substr(0, open);  // built: its class
    else if (IsDottedName(value) && value.find('.') == std::string::npos &&
             std::find(f.params.begin(), f.params.end(), value) != f.params.end())
      value = ParamDefault(header, value);  // self.activation = activation -> its default
    if (IsDottedName(value)) values.insert(value);
  }
  bool any = false;
  for (const std::string& value : values) {
    PySymbol s = ix_.py.ResolveIn(init->module, value, static_cast<int32_t>(init->index));
    if (s.kind == PySymbol::kClass) {
      auto fwd = ix_.py.FindMethod(s.module, s.index, "forward");
      if (!fwd || fwd->kind != PySymbol::kFunction) continue;
      const PyModule& fm = ix_.py.modules()[fwd->module];
      if (!FollowableModule(fm.name)) continue;
      frame->calls.push_back(
          {"self." + attr, line, PyCallTarget::kPython, fm.name + "." + fm.functions[fwd->index].qualname, {}});
      WalkPythonFunction(fwd->module, fwd->index, depth + 1);
      any = true;
    } else if (s.kind == PySymbol::kFunction || s.kind == PySymbol::kAlias) {
      size_t before = frame->calls.size();
      FollowPyCall(init->module, -1, value, line, depth, frame);
      any = any || frame->calls.size() > before;
    }
  }
  if (!any)
    t_.not_found.push_back({"python call", fmt::format("self.{} ({}:{}): no method, and {}.__init__ binds no layer or "
                                                       "function to it that the walk can follow",
                                                       attr, ix_.py.modules()[module].path, line, f.qualname)});
  return any;
}

bool PythonWalker::FollowRebindParameter(uint32_t module, uint32_t function, const std::string& name, int line,
                                         int depth, PyFrame* frame) {
  const PyModule& m = ix_.py.modules()[module];
  const PyFunction& f = m.functions[function];
  if (std::find(f.params.begin(), f.params.end(), name) == f.params.end()) return false;
  if (ParamDefault(DefHeader(m, f), name) != "None") return false;
  // A call of None raises: where the caller passes nothing, the call runs
  // what the body binds to the name, when it binds one function only.
  auto text = ix_.FileText(m.path);
  if (!text) return false;
  std::set<std::string> values;
  for (const PyAssignment& a :
       AssignmentsOf(*text, static_cast<int>(f.line) + 1, static_cast<int>(f.end_line) + 1, name))
    if (IsDottedName(a.value) && a.value != name) values.insert(a.value);
  if (values.size() != 1) return false;
  size_t before = frame->calls.size();
  FollowPyCall(module, f.class_index, *values.begin(), line, depth, frame);
  return frame->calls.size() > before;
}

// --- operators of torch's Python code --------------------------------------

const ValueScope& PythonWalker::ScopeOf(uint32_t module, uint32_t function) {
  auto key = std::make_pair(module, function);
  if (auto it = scopes_.find(key); it != scopes_.end()) return *it->second;
  if (!tensor_facts_) {
    const YamlModel& yaml = ix_.yaml;
    // A method returning a tensor, or (tensor false) returning none: not
    // even a list of them (chunk's `Tensor(a)[]` is no scalar).
    auto returns = [&yaml](std::string_view m, bool tensor) {
      auto overloads = yaml.Overloads(m);
      bool any_tensor = false, any_tensors = false;
      for (const NativeFunction* fn : overloads) {
        if (!fn->HasVariant("method")) continue;
        for (const auto& r : fn->schema.returns) {
          any_tensor = any_tensor || r.type == "Tensor" || r.type == "Tensor(a)";
          any_tensors = any_tensors || r.type.starts_with("Tensor");
        }
      }
      return tensor ? any_tensor : (!overloads.empty() && !any_tensors);
    };
    // A method every overload of which returns one list of tensors
    // (`Tensor(a)[]` of chunk, split, unbind).
    auto returns_tensors = [&yaml](std::string_view m) {
      auto overloads = yaml.Overloads(m);
      bool all = false;
      for (const NativeFunction* fn : overloads) {
        if (!fn->HasVariant("method")) continue;
        const auto& rs = fn->schema.returns;
        if (rs.size() != 1 || !rs[0].type.starts_with("Tensor") || !rs[0].type.ends_with("[]")) return false;
        all = true;
      }
      return all;
    };
    tensor_facts_ = std::make_unique<TensorFacts>();
    tensor_facts_->method_returns_scalar = [returns](std::string_view m) { return returns(m, false); };
    tensor_facts_->method_returns_tensor = [returns](std::string_view m) { return returns(m, true); };
    tensor_facts_->method_returns_tensors = returns_tensors;
    tensor_facts_->attr_is_scalar = [](std::string_view a) {
      return a == "shape" || a == "ndim" || a == "dtype" || a == "device" || a == "layout" || a == "requires_grad";
    };
  }
  auto scope = std::make_unique<ValueScope>(tensor_facts_.get());
  const PyModule& m = ix_.py.modules()[module];
  const PyFunction& f = m.functions[function];
  const std::string header = DefHeader(m, f);
  std::vector<Assignment> assignments;
  for (uint32_t n = f.line + 1; n <= f.end_line; ++n) {
    Assignment a;
    std::string line = ix_.Snippet(m.path, static_cast<int>(n), 1);
    if (!ParseAssignment(line, &a)) continue;
    // An assignment whose value goes on over the next lines
    // (`q, k, v = _in_projection(`) is read whole: its first line alone
    // would bind the names to an unreadable value.
    for (int more = 0; OpenBrackets(line) > 0 && n < f.end_line && more < kStatementLines; ++more)
      line = std::string(WithoutComment(line)) + " " + ix_.Snippet(m.path, static_cast<int>(++n), 1);
    if (ParseAssignment(line, &a)) assignments.push_back(std::move(a));
  }
  std::vector<std::string> tensors = TensorParams(header), scalars = ScalarParams(header);
  for (const std::string& p : f.params) {
    ValueKind k = std::count(tensors.begin(), tensors.end(), p)   ? ValueKind::kTensor
                  : std::count(scalars.begin(), scalars.end(), p) ? ValueKind::kScalar
                                                                  : ValueKind::kUnknown;
    scope->SetLocal(p, k);
  }
  std::vector<std::string> callees;
  for (const PyCall& c : f.calls)
    if (c.kind == PyCallKind::kCall) callees.push_back(c.callee);
  LearnTensorReceivers(f.params, callees, scope.get());
  LearnCallResults(module, function, scope.get());
  // In a method of a Tensor class (torch._tensor.Tensor derives from the
  // C++ torch._C.TensorBase), self is a tensor.
  if (f.class_index >= 0 && !f.params.empty() && f.params.front() == "self" &&
      DerivesFromTensorBase(m.classes[static_cast<size_t>(f.class_index)]))
    scope->SetLocal("self", ValueKind::kTensor);
  for (const PyImport& im : m.imports)
    if (im.target == "math") scope->AddScalarModule(im.local);
  LearnAssignments(assignments, scope.get());
  return *scopes_.emplace(key, std::move(scope)).first->second;
}

std::string PythonWalker::DefHeader(const PyModule& m, const PyFunction& f) const {
  std::string header;
  for (uint32_t n = f.line; n <= f.end_line && n < f.line + 32; ++n) {
    if (header.find("):") != std::string::npos || header.find(") ->") != std::string::npos) break;
    header += ix_.Snippet(m.path, static_cast<int>(n), 1) + " ";
  }
  return header;
}

void PythonWalker::LearnCallResults(uint32_t module, uint32_t function, ValueScope* scope) const {
  const PyFunction& f = ix_.py.modules()[module].functions[function];
  for (const PyCall& c : f.calls) {
    if (c.kind != PyCallKind::kCall || scope->locals().count(c.callee)) continue;
    PySymbol s = ix_.py.ResolveIn(module, c.callee, static_cast<int32_t>(function));
    // `self._sa_block(...)` in a method: the class's own (or a base's) method.
    if (s.kind == PySymbol::kNone && f.class_index >= 0 && c.callee.starts_with("self.") &&
        c.callee.find('.', 5) == std::string::npos)
      s = ix_.py.FindMethod(module, static_cast<uint32_t>(f.class_index), c.callee.substr(5)).value_or(PySymbol{});
    if (s.kind != PySymbol::kFunction) continue;
    const PyModule& callee_module = ix_.py.modules()[s.module];
    const std::string header = DefHeader(callee_module, callee_module.functions[s.index]);
    if (ReturnsTensor(header)) scope->SetCallResult(c.callee, ValueKind::kTensor);
    else if (ReturnsTensors(header)) scope->SetCallResult(c.callee, ValueKind::kTensors);
  }
}

void PythonWalker::FollowOperator(uint32_t module, uint32_t function, const PyCall& call, int depth, PyFrame* frame) {
  size_t tab = call.args.find('\t');
  if (tab == std::string::npos) return;
  const ValueScope& scope = ScopeOf(module, function);
  if (call.callee == "[]") {
    FollowSubscript(scope, call, frame);
    return;
  }
  const std::string left = call.args.substr(0, tab), right = call.args.substr(tab + 1);
  const bool left_tensor = !left.empty() && scope.KindOf(left) == ValueKind::kTensor;
  const bool right_tensor = scope.KindOf(right) == ValueKind::kTensor;
  std::string dunder, operand;  // the argument the dunder takes beside the tensor
  if (call.callee == "u-" || call.callee == "u~") {
    if (right_tensor) dunder = call.callee == "u-" ? "__neg__" : "__invert__";
  } else {
    std::string plain;
    for (const auto& [sym, d] : kOperatorDunders)
      if (call.callee == sym) plain = d;
    const bool reflectable =
        plain.size() > 4 && call.callee.find_first_of("<>=!") == std::string::npos && call.callee.back() != '=';
    if (left_tensor) {
      dunder = plain;
      operand = right;
    } else if (right_tensor && reflectable) {
      dunder = "__r" + plain.substr(2);  // 1 - target: Tensor.__rsub__
      operand = left;
    }
  }
  if (dunder.empty()) return;
  std::string shown = call.callee[0] == 'u' ? call.callee.substr(1) + right : left + " " + call.callee + " " + right;
  FollowDunder(dunder, shown, static_cast<int>(call.line), depth, frame, operand);
}

void PythonWalker::FollowSubscript(const ValueScope& scope, const PyCall& call, PyFrame* frame) {
  // x[0] on a tensor: THPVariable_getitem hands an integer index to
  // at::indexing::get_item, whose applySelect calls self.select(dim, index)
  // (aten/src/ATen/TensorIndexing.h): aten::select.int. What another
  // subscript runs (a slice, a tensor, a tuple, a name) depends on the
  // index's value at run time: not followed.
  size_t tab = call.args.find('\t');
  const std::string left = call.args.substr(0, tab);
  std::string_view index = TrimView(std::string_view(call.args).substr(tab + 1));
  if (left.empty() || scope.KindOf(left) != ValueKind::kTensor) return;
  if (!index.empty() && index.front() == '-') index.remove_prefix(1);
  if (index.empty() ||
      !std::all_of(index.begin(), index.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }))
    return;
  const NativeFunction* select = ix_.yaml.Find("select.int");
  if (!select) return;
  frame->calls.push_back({left + "[" + call.args.substr(tab + 1) + "]",
                          static_cast<int>(call.line),
                          PyCallTarget::kOperator,
                          "aten::select.int",
                          {}});
  ops_.AddOp(select, OpRole::kForward, "", 0);
}

bool PythonWalker::FollowDunder(const std::string& dunder, const std::string& callee, int line, int depth,
                                PyFrame* frame, std::optional<std::string> operand) {
  PySymbol py = ix_.py.Resolve("torch._tensor.Tensor." + dunder);
  if (py.kind == PySymbol::kFunction) {
    frame->calls.push_back({callee, line, PyCallTarget::kOperator, "torch._tensor.Tensor." + dunder, {}});
    WalkPythonFunction(py.module, py.index, depth + 1);
    return true;
  }
  if (py.kind == PySymbol::kAlias) {
    const PyModule& m = ix_.py.modules()[py.module];
    const PyAlias& a = m.aliases[py.index];
    std::string symbol = m.name + "." + (a.class_index >= 0 ? m.classes[a.class_index].name + "." : "") + a.name;
    frame->calls.push_back({callee, line, PyCallTarget::kOperator, symbol, {}});
    WalkTensorAlias(py, depth + 1);
    return true;
  }
  const DunderTable& dunders = ix_.Derived<DunderTable>("dunder-bindings", [&] { return ReadDunderBindings(ix_); });
  std::string op;
  if (auto it = dunders.find(dunder); it != dunders.end()) op = it->second.first;
  else if (!ix_.yaml.Overloads(dunder).empty()) op = dunder;
  if (op.empty() || ix_.yaml.Overloads(op).empty()) return false;
  frame->calls.push_back({callee, line, PyCallTarget::kOperator, "aten::" + op, {}, std::move(operand)});
  AddBoundOverloads(op, /*method=*/true);
  return true;
}

const HandBindings& HandBindingsFor(const Index& ix) {
  return ix.Derived<HandBindings>("hand-bindings",
                                  [&] { return ix.disk ? ReadHandBindings(*ix.disk) : HandBindings(); });
}

bool PythonWalker::FollowHandBound(const std::string& name, const std::string& callee, int line, PyFrame* frame) {
  const HandBindings& all = HandBindingsFor(ix_);
  auto it = all.find(name);
  if (it == all.end()) return false;
  const HandBinding& b = it->second;
  std::set<std::string> added;
  for (const HandBoundCall& c : b.calls) {
    bool op = false;  // an op returning a tensor (self.sizes(), self.dim() read metadata)
    for (const NativeFunction* fn : ix_.yaml.Overloads(c.name)) {
      bool tensor = false;
      for (const auto& r : fn->schema.returns) tensor = tensor || r.type.find("Tensor") != std::string::npos;
      op = op || (tensor && fn->HasVariant(c.method ? "method" : "function"));
    }
    if (!op || !added.insert(c.name).second) continue;
    frame->calls.push_back(
        {callee.empty() ? c.name : callee, line > 0 ? line : c.line, PyCallTarget::kBridge, "aten::" + c.name, {}});
    ops_.AddOpsByBaseName(c.name, OpRole::kForward, "", 0);
  }
  std::string bridge = "hand-written binding " + b.function + " (" + b.file + ":" + std::to_string(b.line) + ")";
  if (added.empty()) {
    NotFoundStep step{"hand-written binding", "Tensor." + name + " is bound by hand to " + b.function + " (" + b.file +
                                                  ":" + std::to_string(b.line) +
                                                  "); its body calls no aten op the tracer can follow"};
    bool said = false;
    for (const NotFoundStep& n : t_.not_found) said = said || n.detail == step.detail;
    if (!said) t_.not_found.push_back(std::move(step));
    return true;
  }
  if (frame->bridge.empty()) frame->bridge = bridge;
  else if (frame->bridge.find(bridge) == std::string::npos) frame->bridge += ", " + bridge;
  return true;
}

}  // namespace optrace
