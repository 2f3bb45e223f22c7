// Internals shared by the tracer's files: trace.cc (query resolution and the
// Python layer), trace_ops.cc (YAML ops, C++ implementations, stubs, kernels,
// composite following) and trace_backward.cc (derivatives and decompositions).
// Not part of the public API.
#pragma once

#include <deque>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "trace.h"

namespace optrace {

// How an aten op entered the trace, before it is expanded.
struct PendingOp {
  const NativeFunction* fn = nullptr;
  std::string role;          // "forward" | "backward"
  std::string reached_from;  // "" for entry ops
  int depth = 0;
};

class Tracer {
 public:
  Tracer(const Index& index, const TraceOptions& options, Trace* trace)
      : ix_(index), opt_(options), t_(*trace) {}

  Status Run(std::string_view query);

  // --- query resolution (trace.cc) ---
  bool TryAten(std::string_view q);
  bool TryOperator(std::string_view q);
  bool TryMethod(std::string_view q);
  bool TryPythonSymbol(std::string_view q);
  bool TryTorchNamespace(std::string_view q);
  bool TryKernel(std::string_view q);
  void Suggest(std::string_view q);

  // --- Python layer (trace.cc) ---
  void WalkPythonFunction(uint32_t module, uint32_t function, int depth);
  void WalkAlias(uint32_t module, const PyAlias& alias, int depth, PyFrame* frame);
  // Resolves one callee expression seen in `module` (inside class `cls`, or -1).
  // Appends a PyCallStep to `frame` and follows it when it matters.
  void FollowPyCall(uint32_t module, int32_t cls, const std::string& callee, int line, int depth, PyFrame* frame);
  void PrunePythonFrames();
  bool BridgeToYaml(const std::string& dotted, std::string* bridge, std::vector<const NativeFunction*>* ops);
  // Adds the overloads of `name` Python can call (method variants when `method`).
  void AddBoundOverloads(const std::string& name, bool method);

  // --- ops (trace_ops.cc) ---
  // Adds every overload `base` can reach through a call by name (not out=
  // variants, not in-place ones unless the name itself is in-place).
  void AddOpsByBaseName(const std::string& base, const std::string& role, const std::string& from, int depth,
                        size_t arity = SIZE_MAX);
  void AddOp(const NativeFunction* fn, const std::string& role, const std::string& from, int depth);
  void ExpandQueuedOps();
  void ExpandOp(OpStep& op, int depth);
  bool KeyWanted(std::string_view key) const;
  void AddImplementations(OpStep& op, const NativeFunction& fn, const std::string& dispatch_key,
                          const std::string& kernel_name, int depth);
  std::vector<uint32_t> DefinitionsFor(const std::string& name, const NativeFunction& fn, const std::string& key,
                                       DefForm form) const;
  // Walks from an implementation through helpers to launches, libraries, stubs and aten op calls.
  void FollowCpp(OpStep& op, uint32_t start, const std::string& device, int depth,
                 const CppFunction* synthetic = nullptr);
  // The file-scope macro use that writes TORCH_IMPL_FUNC(kernel), or nullptr.
  const CppMacroUse* MacroGeneratedImpl(const std::string& kernel) const;
  void AddUfuncKernels(OpStep& op, const NativeFunction& out_fn);
  void AddOperatorOps(OpStep& op, const CppFunction& f, int depth);
  // Ops whose CPU or CUDA dispatch entry names this C++ function.
  const std::vector<const NativeFunction*>& OpsWithKernel(const std::string& kernel);
  // Dispatch stubs named on the lines of a function's body without being called
  // there (one per stub, at its first line), from the index's stub references.
  std::vector<CppCall> StubReferences(const CppFunction& f) const;

  // --- backward and decompositions (trace_backward.cc) ---
  void AddBackward();
  void AddDecompositions();

  // helpers
  Location Loc(const std::string& file, int line, int snippet_lines = 3) const;
  Location CppLoc(uint32_t file, uint32_t line, int snippet_lines = 3) const;
  const NativeFunction* FindOp(std::string_view full_name) const { return ix_.yaml.Find(full_name); }

  const Index& ix_;
  const TraceOptions& opt_;
  Trace& t_;

  std::deque<PendingOp> queue_;
  std::set<std::pair<std::string, std::string>> seen_ops_;  // (name, role)
  std::set<std::pair<uint32_t, uint32_t>> seen_py_;          // (module, function) walked
  std::unordered_map<std::string, std::vector<const NativeFunction*>> ops_by_kernel_;                         // ops the Python layer reached directly
};

// Library a C++ call belongs to ("" when none), from its qualifier and name.
std::string LibraryOfCall(std::string_view qualifier, std::string_view callee);

// aten ops named by C++ operators on tensors in `code`: * mul, / div, unary
// - neg, == eq, >= ge, <= le; with arithmetic_all also + add and binary - sub.
std::vector<std::string> OperatorOps(std::string_view code, bool arithmetic_all);

// Kind of a schema type or C++ parameter, for telling overloads apart.
char SchemaTypeKind(std::string_view schema_type);
char CppParamKind(std::string_view cpp_param);

}  // namespace optrace
