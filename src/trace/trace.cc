// One trace (Tracer::Run): resolve the query (QueryResolver), then let the
// parts of trace_internal.h follow it -- the Python walk, the ops' expansion
// into C++, the backward and decompositions, the paths' annotations.
//
// A query is tried as, in order: an aten op name (aten::x.ov, torch.ops.aten.x,
// aten.x.default, x.ov, x), an operator (@, +, Tensor.__add__), a Tensor
// method, a Python symbol (nn.LSTM, F.softmax, torch.nn.modules.rnn.LSTM), a
// torch-namespace function (torch.matmul, torch.linalg.vector_norm), and last
// a C++ function or kernel name (bottom-up). Exact names win; when nothing
// matches, nothing is traced and "did you mean" candidates are returned.
// A call (`F.interpolate(x, mode='bicubic')`) is traced by its name; its
// argument text is kept for the typical path (trace/frame_bindings.h).
//
// The Python walk (trace_python.cc) starts from the frame a query names.
#include <algorithm>
#include <set>

#include "base/text.h"
#include "index/query_names.h"
#include "py/py_arguments.h"
#include "trace/py_bindings.h"
#include "trace/trace_internal.h"
#include "trace/trace_paths.h"

namespace optrace {

bool ParseDevice(std::string_view name, TraceOptions::Device* device) {
  static const std::pair<std::string_view, TraceOptions::Device> kNames[] = {
      {"default", TraceOptions::Device::kDefault},
      {"cuda", TraceOptions::Device::kCuda},
      {"cpu", TraceOptions::Device::kCpu},
      {"all", TraceOptions::Device::kAll}};
  for (const auto& [spelled, value] : kNames) {
    if (name != spelled) continue;
    *device = value;
    return true;
  }
  return false;
}

// --- query resolution ------------------------------------------------------

Status Tracer::Run(std::string_view raw) {
  std::string q(TrimView(raw));
  t_.query = std::string(raw);
  t_.source_root = ix_.root;
  t_.source_version = ix_.version;
  if (q.empty()) return Status::Usage("empty query");
  // The user's own call: the name is traced, its arguments decide the path.
  if (std::optional<SplitCall> call = SplitCallQuery(q)) {
    q = call->name;
    t_.call_query = true;
    t_.call_arguments = call->arguments;
  }
  if (std::vector<std::string> meanings = BareNameMeanings(ix_, q); !meanings.empty()) {
    // Picking one would answer a question the user may not have asked.
    t_.suggestions = meanings;
    std::string msg = "'" + q + "' names different code in this checkout; trace one of: ";
    for (size_t i = 0; i < meanings.size(); ++i) msg += (i ? ", " : "") + meanings[i];
    t_.not_found.push_back({"query", msg});
    return Status::NotFound(msg);
  }
  bool found = resolver_.TryAten(q) || resolver_.TryOperator(q) || resolver_.TryMethod(q) ||
               resolver_.TryPythonSymbol(q) || resolver_.TryTorchNamespace(q) || resolver_.TryKernel(q) ||
               resolver_.TryProfilerKernel(q);
  if (!found) {
    resolver_.Suggest(q);
    std::string msg = "'" + q + "' is not an op, Python symbol or C++ function of this checkout";
    if (!t_.suggestions.empty()) {
      msg += "; did you mean: ";
      for (size_t i = 0; i < t_.suggestions.size(); ++i) msg += (i ? ", " : "") + t_.suggestions[i];
    }
    t_.not_found.push_back({"query", msg});
    return Status::NotFound(msg);
  }
  py_.PrunePythonFrames();
  expander_.ExpandQueuedOps();
  if (opt_.backward) backward_.AddBackward();
  backward_.AddDecompositions();
  AnnotatePaths(ix_, opt_, &t_);  // conditions, typical path, selection functions (trace_paths.h)
  return Status::Ok();
}

bool QueryResolver::TryAten(std::string_view q) {
  std::string s(q);
  for (const char* prefix : {"torch.ops.aten.", "aten::", "aten."}) {
    if (StartsWith(s, prefix)) {
      s = s.substr(std::string_view(prefix).size());
      break;
    }
  }
  const std::string base(OpBaseName(s)), overload(OpOverloadName(s));
  if (base.empty() || base.find_first_of(" ()[]/") != std::string::npos) return false;
  if (!overload.empty()) {
    const NativeFunction* fn = nullptr;
    if (overload == "default") fn = FindOp(base);
    else fn = FindOp(base + "." + overload);
    if (!fn) return false;
    t_.target_kind = TargetKind::kAten;
    t_.target_name = "aten::" + fn->name;
    t_.selected_overload = fn->name;
    ops_.AddOp(fn, OpRole::kForward, "", 0);
    return true;
  }
  auto overloads = ix_.yaml.Overloads(base);
  if (overloads.empty()) return false;
  t_.target_kind = TargetKind::kAten;
  t_.target_name = "aten::" + base;
  // Every overload may be the one called, but `aten::x` names x's default
  // overload first (torch.ops.aten.x.default), then the functional ones:
  // the YAML often writes x.out before x (hardtanh), whose own call to
  // at::x_out would otherwise be found already traced and left without its edge.
  std::stable_partition(overloads.begin(), overloads.end(),
                        [](const NativeFunction* fn) { return fn->schema.overload.empty(); });
  std::stable_partition(overloads.begin(), overloads.end(),
                        [](const NativeFunction* fn) { return !fn->schema.is_out(); });
  for (const NativeFunction* fn : overloads) ops_.AddOp(fn, OpRole::kForward, "", 0);
  return true;
}

bool QueryResolver::TryOperator(std::string_view q) {
  std::string s(q);
  std::string dunder;
  for (const auto& [sym, d] : kOperatorDunders) {
    if (s == sym) dunder = d;
  }
  for (const char* prefix : {"torch.Tensor.", "Tensor.", "x."}) {
    if (dunder.empty() && StartsWith(s, prefix)) {
      std::string rest = s.substr(std::string_view(prefix).size());
      if (StartsWith(rest, "__") && EndsWith(rest, "__")) dunder = rest;
    }
  }
  if (dunder.empty()) return false;
  t_.target_kind = TargetKind::kOperator;
  t_.target_name = "torch.Tensor." + dunder;
  // A Python definition in torch/_tensor.py wins (e.g. __rsub__, __rpow__).
  PySymbol py = ix_.py.Resolve("torch._tensor.Tensor." + dunder);
  if (py.kind == PySymbol::kFunction) {
    py_.WalkPythonFunction(py.module, py.index, 0);
    return true;
  }
  if (py.kind == PySymbol::kAlias) {  // __neg__ = _C.TensorBase.neg
    py_.WalkTensorAlias(py, 0);
    return true;
  }
  const DunderTable& dunders = ix_.Derived<DunderTable>("dunder-bindings", [&] { return ReadDunderBindings(ix_); });
  std::string op;
  int line = 0;
  if (auto it = dunders.find(dunder); it != dunders.end()) {
    op = it->second.first;
    line = it->second.second;
  } else if (!ix_.yaml.Overloads(dunder).empty()) {
    op = dunder;  // generated from a YAML op of that name (__and__, __lshift__): a method like any other
  } else if (dunder == "__getitem__") {
    // Bound by hand in torch/csrc/autograd/python_variable_indexing.cpp: a
    // tensor index is aten::index (ints and slices become select/slice views).
    op = "index";
  }
  if (op.empty() || ix_.yaml.Overloads(op).empty()) {
    t_.not_found.push_back({"operator binding", dunder + " has no C++ binding in python_variable_methods.cpp"});
    return true;
  }
  PyFrame frame;
  frame.symbol = "torch._C.TensorBase." + dunder;
  frame.bridge = "tensor method";
  if (line > 0) frame.where = Loc("tools/autograd/templates/python_variable_methods.cpp", line, 1);
  frame.calls.push_back({op, line, PyCallTarget::kBridge, "aten::" + op, {}});
  if (dunder == "__getitem__") frame.note = "x[tensor] calls aten::index; ints and slices become select/slice views";
  t_.python.push_back(frame);
  // The overload Python's arg parser picks for tensor operands.
  for (const char* ov : {".Tensor", ""}) {
    if (const NativeFunction* fn = FindOp(op + ov)) {
      t_.selected_overload = fn->name;
      break;
    }
  }
  py_.AddBoundOverloads(op, /*method=*/dunder != "__getitem__");
  return true;
}

bool QueryResolver::TryMethod(std::string_view q) {
  std::string s(q), name;
  for (const char* prefix : {"torch.Tensor.", "Tensor.", "x.", "tensor."}) {
    if (StartsWith(s, prefix)) {
      name = s.substr(std::string_view(prefix).size());
      break;
    }
  }
  if (name.empty() || name.find('.') != std::string::npos) return false;
  PySymbol py = ix_.py.Resolve("torch._tensor.Tensor." + name);
  if (py.kind == PySymbol::kFunction) {
    t_.target_kind = TargetKind::kMethod;
    t_.target_name = "torch.Tensor." + name;
    py_.WalkPythonFunction(py.module, py.index, 0);
    return true;
  }
  if (py.kind == PySymbol::kAlias) {  // __neg__ = _C.TensorBase.neg, a wrapped C++ method
    t_.target_kind = TargetKind::kMethod;
    t_.target_name = "torch.Tensor." + name;
    py_.WalkTensorAlias(py, 0);
    return true;
  }
  bool any = false;
  for (const NativeFunction* fn : ix_.yaml.Overloads(name)) any = any || fn->HasVariant("method");
  if (!any) return TryHandBound(name);
  t_.target_kind = TargetKind::kMethod;
  t_.target_name = "torch.Tensor." + name;
  PyFrame frame;
  frame.symbol = "torch._C.TensorBase." + name;
  frame.bridge = "tensor method";
  frame.calls.push_back({name, 0, PyCallTarget::kBridge, "aten::" + name, {}});
  t_.python.push_back(frame);
  py_.AddBoundOverloads(name, /*method=*/true);
  return true;
}

namespace {

std::string ExpandShorthand(std::string_view q) {
  std::string s(q);
  if (StartsWith(s, "nn.functional.")) return "torch." + s;
  if (StartsWith(s, "nn.")) return "torch." + s;
  if (StartsWith(s, "F.")) return "torch.nn.functional." + s.substr(2);
  return s;
}

}  // namespace

bool QueryResolver::TryPythonSymbol(std::string_view q) {
  std::string dotted = ExpandShorthand(q);
  if (!StartsWith(dotted, "torch.")) return false;
  PySymbol s = ix_.py.Resolve(dotted);
  const auto& mods = ix_.py.modules();
  switch (s.kind) {
    case PySymbol::kClass: {
      const PyModule& m = mods[s.module];
      const PyClass& c = m.classes[s.index];
      auto fwd = ix_.py.FindMethod(s.module, s.index, "forward");
      t_.target_kind = TargetKind::kModule;
      t_.target_name = m.name + "." + c.name;
      if (!fwd) {
        t_.not_found.push_back({"forward", t_.target_name + " has no forward method in the class or its bases"});
        return true;
      }
      py_.WalkPythonFunction(fwd->module, fwd->index, 0);
      if (fwd->module != s.module ||
          mods[fwd->module].functions[fwd->index].class_index != static_cast<int32_t>(s.index)) {
        const PyFunction& f = mods[fwd->module].functions[fwd->index];
        if (!t_.python.empty()) {
          t_.python.front().note =
              t_.target_name + " inherits forward from " + mods[fwd->module].name + "." + f.qualname;
        }
      }
      return true;
    }
    case PySymbol::kFunction: {
      const PyModule& m = mods[s.module];
      t_.target_kind = StartsWith(m.name, "torch.nn.functional") ? TargetKind::kFunctional
                       : StartsWith(m.name, "torch._tensor")     ? TargetKind::kMethod
                       : m.functions[s.index].is_method          ? TargetKind::kPython
                                                                 : TargetKind::kTorch;
      if (StartsWith(m.name, "torch._decomp") || StartsWith(m.name, "torch._refs"))
        t_.target_kind = TargetKind::kPython;
      t_.target_name = m.name + "." + m.functions[s.index].qualname;
      py_.WalkPythonFunction(s.module, s.index, 0);
      return true;
    }
    case PySymbol::kAlias: {
      const PyModule& m = mods[s.module];
      const PyAlias& a = m.aliases[s.index];
      t_.target_kind = StartsWith(m.name, "torch.nn.functional") ? TargetKind::kFunctional : TargetKind::kTorch;
      t_.target_name = m.name + "." + a.name;
      PyFrame frame;
      frame.symbol = t_.target_name;
      frame.where = Loc(m.path, a.line, 2);
      py_.WalkAlias(s.module, a, 0, &frame);
      return true;
    }
    default:
      return false;
  }
}

bool QueryResolver::TryTorchNamespace(std::string_view q) {
  std::string s(q);
  if (!StartsWith(s, "torch.")) return false;
  std::string bridge;
  std::vector<const NativeFunction*> ops;
  // torch.linalg.x / torch.fft.x / torch.special.x / torch.nn.functional.x bind
  // torch._C._linalg.linalg_x etc.; torch.x binds _VariableFunctions.x.
  static const std::pair<const char*, const char*> kSubmodules[] = {{"torch.linalg.", "torch._C._linalg.linalg_"},
                                                                    {"torch.fft.", "torch._C._fft.fft_"},
                                                                    {"torch.special.", "torch._C._special.special_"},
                                                                    {"torch.nn.functional.", "torch._C._nn."}};
  std::string dotted;
  for (const auto& [from, to] : kSubmodules) {
    if (StartsWith(s, from)) dotted = to + s.substr(std::string_view(from).size());
  }
  if (dotted.empty()) {
    std::string rest = s.substr(6);
    if (rest.find('.') != std::string::npos) return false;
    dotted = "torch._C._VariableFunctions." + rest;
  }
  if (!py_.BridgeToYaml(dotted, &bridge, &ops) || ops.empty()) return false;
  t_.target_kind = TargetKind::kTorch;
  t_.target_name = s;
  PyFrame frame;
  frame.symbol = s;
  frame.bridge = bridge;
  frame.calls.push_back({dotted, 0, PyCallTarget::kBridge, "aten::" + ops.front()->schema.name, {}});
  t_.python.push_back(frame);
  for (const NativeFunction* fn : ops) ops_.AddOp(fn, OpRole::kForward, "", 0);
  return true;
}

void QueryResolver::Suggest(std::string_view q) {
  // A suggestion already made (a kernel name one edit from a function of the tree) comes first.
  std::vector<std::string> s = SuggestQueries(ix_, q);
  for (const std::string& mine : t_.suggestions) {
    if (std::find(s.begin(), s.end(), mine) == s.end()) s.insert(s.begin(), mine);
  }
  t_.suggestions = std::move(s);
}

bool QueryResolver::TryHandBound(const std::string& name) {
  const HandBindings& all = HandBindingsFor(ix_);
  auto it = all.find(name);
  if (it == all.end()) return false;
  t_.target_kind = TargetKind::kMethod;
  t_.target_name = "torch.Tensor." + name;
  PyFrame frame;
  frame.symbol = "torch._C.TensorBase." + name;
  frame.where = Loc(it->second.file, it->second.line, 1);
  py_.FollowHandBound(name, "", 0, &frame);
  t_.python.push_back(frame);
  return true;
}

// --- bottom-up: a C++ function or kernel name ------------------------------

bool QueryResolver::TryKernel(std::string_view q) {
  std::string name(q);
  if (StartsWith(name, "at::native::")) name = name.substr(12);
  const CppIndex& cpp = ix_.cpp;
  if (cpp.FunctionsNamed(name).empty() && cpp.LaunchesOfKernel(name).empty()) return false;
  t_.target_kind = TargetKind::kKernel;
  t_.target_name = name;
  // Reverse dispatch table: C++ name -> ops whose dispatch names it.
  std::unordered_multimap<std::string, const NativeFunction*> by_kernel;
  for (const auto& fn : ix_.yaml.functions()) {
    for (const auto& [key, kernel] : fn.dispatch) {
      if (KeyWanted(key)) by_kernel.emplace(kernel, &fn);
    }
  }
  struct Up {
    std::string name;
    std::string chain;
  };
  std::deque<Up> work{{name, name}};
  std::set<std::string> seen{name};
  size_t budget = 200;
  int found = 0;
  while (!work.empty() && budget-- > 0) {
    Up u = work.front();
    work.pop_front();
    auto [b, e] = by_kernel.equal_range(u.name);
    if (b != e) {
      for (auto it = b; it != e; ++it) {
        t_.notes.push_back("reached from " + it->second->name + ": " + u.chain);
        ops_.AddOp(it->second, OpRole::kForward, "", 0);
        ++found;
      }
      continue;
    }
    auto push = [&](const std::string& next, const std::string& via) {
      if (next.empty() || !seen.insert(next).second) return;
      work.push_back({next, u.chain + " <- " + via});
    };
    auto holder_of = [&](int32_t fn_index, const std::string& macro, uint32_t file, uint32_t line) {
      if (fn_index >= 0) {
        const CppFunction& f = cpp.functions()[static_cast<size_t>(fn_index)];
        push(f.name, DisplayName(f) + " (" + cpp.file(f.file) + ":" + std::to_string(f.line) + ")");
      } else if (!macro.empty()) {
        for (const auto& use : cpp.macro_uses()) {
          if (use.macro == macro && use.function >= 0) {
            const CppFunction& f = cpp.functions()[static_cast<size_t>(use.function)];
            push(f.name, macro + " (" + cpp.file(file) + ":" + std::to_string(line) + ") <- " + DisplayName(f) + " (" +
                             cpp.file(f.file) + ":" + std::to_string(f.line) + ")");
          }
        }
      }
    };
    for (uint32_t l : cpp.LaunchesOfKernel(u.name)) {
      const CppLaunch& launch = cpp.launches()[l];
      holder_of(launch.function, launch.macro, launch.file, launch.line);
    }
    for (const auto& reg : cpp.registrations()) {
      if (StripTemplateAndNamespace(reg.target) != u.name) continue;
      for (uint32_t c : cpp.CallersOf(reg.stub)) {
        const CppCall& call = cpp.calls()[c];
        holder_of(call.function, call.macro, call.file, call.line);
      }
      // A stub named, not called: passed to a helper (impl_func_cum_ops(..., cumsum_stub)) or to a
      // file-scope macro that defines the op's kernel (CREATE_UNARY_TORCH_IMPL_FUNC(sigmoid_out, sigmoid_stub)).
      for (const CppStubRef& ref : cpp.stub_refs()) {
        if (ref.stub != reg.stub) continue;
        if (int32_t fn = cpp.FunctionAt(ref.file, ref.line); fn >= 0) {
          holder_of(fn, "", ref.file, ref.line);
          continue;
        }
        for (const auto& use : cpp.macro_uses()) {
          if (use.file == ref.file && use.line == ref.line && use.function < 0 && !use.first_arg.empty()) {
            push(use.first_arg, use.macro + "(" + use.first_arg + ", " + reg.stub + ") (" + cpp.file(use.file) + ":" +
                                    std::to_string(use.line) + ")");
          }
        }
      }
    }
    for (uint32_t c : cpp.CallersOf(u.name)) {
      const CppCall& call = cpp.calls()[c];
      if (call.kind == CallKind::kMember) continue;
      holder_of(call.function, call.macro, call.file, call.line);
    }
  }
  if (found == 0) {
    t_.not_found.push_back({"op", "no native_functions.yaml op reaches " + name + " through its callers in the index"});
    for (uint32_t id : cpp.FunctionsNamed(name)) {
      const CppFunction& f = cpp.functions()[id];
      t_.notes.push_back(std::string(DefFormName(f.form)) + " " + f.qualified + " at " + cpp.file(f.file) + ":" +
                         std::to_string(f.line));
    }
  }
  return true;
}

std::vector<std::string> AllOpQueries(const Index& index) {
  std::vector<std::string> out;
  for (const auto& fn : index.yaml.functions()) out.push_back("aten::" + fn.name);
  return out;
}

Status TraceQuery(const Index& index, std::string_view query, const TraceOptions& options, Trace* out) {
  *out = Trace();
  Tracer tracer(index, options, out);
  return tracer.Run(query);
}

}  // namespace optrace
