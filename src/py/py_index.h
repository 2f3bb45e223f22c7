// The Python index: modules, imports, classes (with resolved bases), functions
// (with decorators), module-level aliases and the calls inside each function,
// each with file and line, built by py_scan (tokenizer + structural pass) over
// torch/ of a checkout and over user files. The tracer asks questions through
// PyIndex's lookups only.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "base/disk.h"

namespace optrace {

struct PyImport {
  std::string local;   // name bound in the module: "F", "_VF", "Module", "torch"
  std::string target;  // dotted target: "torch.nn.functional", "torch._VF", "torch.nn.modules.module.Module"
  uint32_t line = 0;
};

struct PyDecorator {
  std::string text;  // as written without '@', whitespace-collapsed, may span lines
  std::string name;  // callee part: "register_decomposition", "torch.jit.script", "out_wrapper"
  std::vector<std::string>
      args;  // top-level argument texts: {"aten.silu_backward"} or {"[aten.x.default, aten.x.out]"}
  uint32_t line = 0;
};

enum class PyCallKind : uint8_t {
  kCall,      // callee(...)
  kOperator,  // a @ b, a + b, x[i] ...: callee holds the operator ("@", "+", "[]", "**"...)
};

struct PyCall {
  std::string callee;  // as written, whitespace-free: "F.layer_norm", "torch._C._nn.linear", "_VF.lstm",
                       // "torch.ops.aten.x.default", "input.softmax", "self._conv_forward", "super().forward";
                       // inner argument lists and subscripts are elided: x.view(a).transpose(0, 1) gives
                       // "x.view" and "x.view(...).transpose"; receivers: "<str>.join", "(...).sum", "x[...].add_"
  PyCallKind kind = PyCallKind::kCall;
  uint32_t line = 0;
  bool in_preamble = false;  // inside the has_torch_function/handle_torch_function preamble
  std::string args;          // kCall: argument text, whitespace-collapsed, truncated to 200 chars;
                             // kOperator: the operands, "left\tright" (a tab never occurs in collapsed
                             // text): "C\tself.n_heads" for C // self.n_heads, "x.shape\t-1" for
                             // x.shape[-1], "y\tx * 2" for y += x * 2 (each cut to 200 chars)
};

struct PyFunction {
  std::string name;      // "forward"
  std::string qualname;  // "LSTM.forward", "softmax", "outer.<locals>.inner" style: "outer.inner"
  uint32_t line = 0;     // line of "def"
  uint32_t end_line = 0;
  std::vector<std::string> params;  // parameter names in order
  std::vector<PyDecorator> decorators;
  std::vector<PyCall> calls;      // in source order (of the call's '(' / the operator)
  std::vector<PyImport> imports;  // imports inside the body (lazy imports), same form as PyModule::imports
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
  std::string name;  // module-level name bound
  PyAliasKind kind = PyAliasKind::kAssign;
  std::string target;             // aliased expression: "torch.conv2d", "y"; for kCall the callee
  std::string if_true, if_false;  // boolean_dispatch branches
  uint32_t line = 0;
  std::string args;          // kAddDocstr/kBooleanDispatch/kCall: argument text, collapsed, <= 200 chars
  int32_t class_index = -1;  // >= 0: a class attribute (`forward = _forward_unimplemented`) of that class
};

struct PyModule {
  std::string name;         // dotted: "torch.nn.functional"; user files: the file stem
  std::string path;         // relative to the checkout root (or as given for user files)
  bool is_package = false;  // __init__.py
  std::vector<PyImport> imports;
  std::vector<PyClass> classes;
  std::vector<PyFunction> functions;  // module-level functions and methods (methods have class_index)
  std::vector<PyAlias> aliases;
  std::vector<std::string> all;  // __all__ when given literally
  bool all_dynamic = false;      // __all__ is also built by code the scanner cannot read (loops, +x)
  std::string error;             // non-empty when the file failed to scan (reason)
  uint32_t error_line = 0;       // where (0 when not tied to a line)
};

struct PyScanOptions {
  // Also record the calls and operators of module-level code (statements
  // outside any def or class body) as a function "<module>" (qualname
  // "<module>", first in `functions`): a user's script runs them. The
  // checkout's index leaves them out (imports and registrations).
  bool module_code = false;
};

// Scans one Python source text into a module record. Never throws or crashes.
PyModule ScanPyFile(std::string_view module_name, std::string_view path, std::string_view text,
                    const PyScanOptions& options = {});
// The name of the function holding module-level code (PyScanOptions::module_code).
inline constexpr char kModuleCodeName[] = "<module>";
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
  // Move-only: the lookup tables view strings inside modules_.
  PyIndex() = default;
  PyIndex(PyIndex&&) = default;
  PyIndex& operator=(PyIndex&&) = default;
  PyIndex(const PyIndex&) = delete;
  PyIndex& operator=(const PyIndex&) = delete;

  // Scans all .py under torch/ of `disk` (parallel; 0 = all cores). Module
  // order is the sorted path order whatever the thread count.
  static PyIndex Build(const Disk& disk, unsigned threads = 0);
  void AddModule(PyModule module);
  void Finish();  // builds lookup tables; call after the last AddModule
  // After Finish: module `m` as scanned again (same name, path and kind; the
  // store's layers, after an edit). Lookups then answer as an index built
  // with it would: nothing Finish computes depends on two modules' contents.
  // False, changing nothing, for another module (see CanReplace).
  bool ReplaceModule(uint32_t m, PyModule module);
  // Whether `module` may replace module m: the same name, path and kind (a
  // package's __init__.py that cannot be read is scanned as no package).
  bool CanReplace(uint32_t m, const PyModule& module) const;

  const std::vector<PyModule>& modules() const { return modules_; }
  const PyModule* FindModule(std::string_view dotted) const;
  // Resolves a dotted name ("torch.nn.LSTM", "torch.nn.functional.softmax",
  // "torch.nn.modules.rnn.LSTM.forward") following package re-exports
  // (from .modules import *, from .rnn import LSTM) and aliases. Attribute
  // lookup goes component by component as Python does: a module's own
  // bindings, then its star imports, then its submodules. The last component
  // is not followed when it is an alias (kAlias comes back, e.g. F.conv2d);
  // an import the index cannot follow (torch._C...) comes back as kImport.
  PySymbol Resolve(std::string_view dotted) const;
  // The method `method` a class really uses, walking resolved bases
  // depth-first, left to right, each class once. Within a class the latest
  // binding wins (the real def after @overload stubs; a class attribute such
  // as `forward = _forward_unimplemented` gives kAlias). Returns kFunction or
  // kAlias.
  std::optional<PySymbol> FindMethod(uint32_t module, uint32_t class_index, std::string_view method) const;
  // Every function decorated with a decorator whose name ends with `decorator_name`
  // ("register_decomposition", "register_lowering", "register_meta"...): pairs (module, function).
  std::vector<std::pair<uint32_t, uint32_t>> DecoratedWith(std::string_view decorator_name) const;

  // Resolves an expression as code inside `module` sees it ("F.softmax",
  // "RNNBase", "torch.nn.functional.relu"): first through the imports of
  // `function` (and of the functions it is nested in) when >= 0, then the
  // module's own names and star imports, then as an absolute dotted name.
  PySymbol ResolveIn(uint32_t module, std::string_view expr, int32_t function = -1) const;
  // The dotted name of a symbol: "torch.nn.modules.rnn.LSTM", "torch.nn.modules.rnn.LSTM.forward".
  std::string NameOf(const PySymbol& symbol) const;
  // Names bound at the top level of a module (own definitions, imports and
  // what its star imports export), sorted: for "did you mean".
  std::vector<std::string> NamesIn(uint32_t module) const;
  // Files the listing could not follow (symlink escapes, loops).
  const std::vector<SkippedPath>& skipped() const { return skipped_; }

 private:
  friend struct StoreAccess;  // the index store (store.cc) restores skipped_ of a saved index
  PySymbol Member(const PySymbol& owner, std::string_view name, int depth) const;
  PySymbol ModuleMember(uint32_t module, std::string_view name, int depth) const;
  PySymbol Follow(const PySymbol& symbol, int depth) const;  // imports and plain aliases to what they name
  PySymbol ResolveAbsolute(std::string_view dotted, int depth) const;
  // `seen` holds the classes already walked, so diamonds are walked once.
  std::optional<PySymbol> FindMethodDepth(uint32_t module, uint32_t class_index, std::string_view method, int depth,
                                          std::vector<std::pair<uint32_t, uint32_t>>* seen) const;
  bool Exports(uint32_t module, std::string_view name) const;
  // Finish's tables for module m: names_[m], star_imports_[m], its decorated functions.
  void IndexModule(uint32_t m);

  std::vector<PyModule> modules_;
  std::unordered_map<std::string, uint32_t> by_name_;
  std::unordered_multimap<std::string, std::pair<uint32_t, uint32_t>> decorated_;
  // Per module: top-level name -> symbol (latest binding wins), and the
  // modules its star imports name, in source order.
  std::vector<std::unordered_map<std::string_view, PySymbol>> names_;
  std::vector<std::vector<std::string_view>> star_imports_;
  std::vector<SkippedPath> skipped_;
};

// One line per count (modules, classes, functions, aliases, calls, decorated,
// errors) for `optrace info --index`.
void PrintPyIndexCounts(const PyIndex& index, std::ostream& out);

}  // namespace optrace
