// The Python index: modules, imports, classes (with resolved bases), functions
// (with decorators), module-level aliases and the calls inside each function,
// each with file and line, built by py_scan (tokenizer + structural pass) over
// torch/ of a checkout and over user files. The tracer asks questions through
// PyIndex's lookups only.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "disk.h"

namespace optrace {

struct PyImport {
  std::string local;   // name bound in the module: "F", "_VF", "Module", "torch"
  std::string target;  // dotted target: "torch.nn.functional", "torch._VF", "torch.nn.modules.module.Module"
  uint32_t line = 0;
};

struct PyDecorator {
  std::string text;               // as written without '@', whitespace-collapsed, may span lines
  std::string name;               // callee part: "register_decomposition", "torch.jit.script", "out_wrapper"
  std::vector<std::string> args;  // top-level argument texts: {"aten.silu_backward"} or {"[aten.x.default, aten.x.out]"}
  uint32_t line = 0;
};

enum class PyCallKind : uint8_t {
  kCall,      // callee(...)
  kOperator,  // a @ b, a + b, x[i] ...: callee holds the operator ("@", "+", "[]", "**"...)
};

struct PyCall {
  std::string callee;  // as written, whitespace-free: "F.layer_norm", "torch._C._nn.linear", "_VF.lstm",
                       // "torch.ops.aten.x.default", "input.softmax", "self._conv_forward", "super().forward"
  PyCallKind kind = PyCallKind::kCall;
  uint32_t line = 0;
  bool in_preamble = false;  // inside the has_torch_function/handle_torch_function preamble
  std::string args;          // argument text, whitespace-collapsed, truncated to 200 chars
};

struct PyFunction {
  std::string name;      // "forward"
  std::string qualname;  // "LSTM.forward", "softmax", "outer.<locals>.inner" style: "outer.inner"
  uint32_t line = 0;     // line of "def"
  uint32_t end_line = 0;
  std::vector<std::string> params;  // parameter names in order
  std::vector<PyDecorator> decorators;
  std::vector<PyCall> calls;  // in source order
  bool is_method = false;
  int32_t class_index = -1;  // into PyModule::classes when a method
};

struct PyClass {
  std::string name;
  std::string qualname;
  uint32_t line = 0;
  std::vector<std::string> bases;           // as written: "RNNBase", "nn.Module", "torch.autograd.Function"
  std::vector<std::string> resolved_bases;  // dotted, through the module's imports (same length; "" when unknown)
  std::vector<uint32_t> methods;            // indices into PyModule::functions
  std::vector<PyDecorator> decorators;
};

enum class PyAliasKind : uint8_t {
  kAssign,           // x = y (a dotted name)
  kAddDocstr,        // x = _add_docstr(torch.conv2d, ...)
  kBooleanDispatch,  // x = boolean_dispatch(arg_name=..., if_true=a, if_false=b, ...)
  kCall,             // x = some_call(...)  (other wrappers: _reduction..., torch._C._add_docstr, ...)
};

struct PyAlias {
  std::string name;    // module-level name bound
  PyAliasKind kind = PyAliasKind::kAssign;
  std::string target;  // aliased expression: "torch.conv2d", "y"; for kCall the callee
  std::string if_true, if_false;  // boolean_dispatch branches
  uint32_t line = 0;
};

struct PyModule {
  std::string name;  // dotted: "torch.nn.functional"; user files: the file stem
  std::string path;  // relative to the checkout root (or as given for user files)
  bool is_package = false;  // __init__.py
  std::vector<PyImport> imports;
  std::vector<PyClass> classes;
  std::vector<PyFunction> functions;  // module-level functions and methods (methods have class_index)
  std::vector<PyAlias> aliases;
  std::vector<std::string> all;  // __all__ when given literally
  std::string error;             // non-empty when the file failed to scan (reason)
};

// Scans one Python source text into a module record. Never throws or crashes.
PyModule ScanPyFile(std::string_view module_name, std::string_view path, std::string_view text);
// "torch/nn/modules/rnn.py" -> "torch.nn.modules.rnn"; ".../__init__.py" -> package name.
std::string ModuleNameForPath(std::string_view path);

// What a dotted name resolves to.
struct PySymbol {
  enum Kind : uint8_t { kNone, kModule, kClass, kFunction, kAlias, kImport } kind = kNone;
  uint32_t module = 0;  // index into PyIndex::modules()
  uint32_t index = 0;   // into that module's classes / functions / aliases / imports
};

class PyIndex {
 public:
  // Scans all .py under torch/ of `disk` (parallel; 0 = all cores).
  static PyIndex Build(const Disk& disk, unsigned threads = 0);
  void AddModule(PyModule module);
  void Finish();  // builds lookup tables

  const std::vector<PyModule>& modules() const { return modules_; }
  const PyModule* FindModule(std::string_view dotted) const;
  // Resolves a dotted name ("torch.nn.LSTM", "torch.nn.functional.softmax",
  // "torch.nn.modules.rnn.LSTM.forward") following package re-exports
  // (from .modules import *, from .rnn import LSTM) and aliases.
  PySymbol Resolve(std::string_view dotted) const;
  // The method `method` a class really uses, walking resolved bases in MRO
  // order (depth-first, left to right). Returns the defining module/function.
  std::optional<PySymbol> FindMethod(uint32_t module, uint32_t class_index, std::string_view method) const;
  // Every function decorated with a decorator whose name ends with `decorator_name`
  // ("register_decomposition", "register_lowering", "register_meta"...): pairs (module, function).
  std::vector<std::pair<uint32_t, uint32_t>> DecoratedWith(std::string_view decorator_name) const;

 private:
  std::vector<PyModule> modules_;
  std::unordered_map<std::string, uint32_t> by_name_;
  std::unordered_multimap<std::string, std::pair<uint32_t, uint32_t>> decorated_;
};

}  // namespace optrace
