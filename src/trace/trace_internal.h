// The tracer's parts and what they share (not part of the public API).
// A trace is one Tracer (below) whose parts each do one job -- resolve the
// query, walk Python, expand an op into the C++ that runs, read what a C++
// function or call is, read generated code, trace the backward -- and hand
// each other values and queued ops through small interfaces, so that data
// can be followed through signatures rather than through shared members.
#pragma once

#include <array>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "py/py_values.h"
#include "trace/cpp_operands.h"
#include "trace/py_bindings.h"
#include "trace/trace.h"
#include "trace/trace_typical.h"

namespace optrace {

class FrameBindings;

// Whether `file` is code the walk enters: ATen's native kernels and their
// CUDA/cuDNN helpers, not the dispatcher, core or registration machinery.
bool InNativeCode(std::string_view file);
// A function as the trace names it ("sum_functor" for its operator()).
std::string DisplayName(const CppFunction& f);

// How an aten op entered the trace, before it is expanded.
struct PendingOp {
  const NativeFunction* fn = nullptr;
  OpRole role = OpRole::kForward;
  std::string reached_from;  // "" for entry ops
  int depth = 0;
};

// A C++ operator on tensors in a function's code: the aten op it calls
// ("mul", "add_"), the operator as written, its offset in the code scanned
// and the line it is on (set by whoever knows where that code starts).
struct OperatorUse {
  std::string op;
  std::string symbol;
  size_t offset = 0;
  int line = 0;
};

// Tables of torch's Python bindings, read by the walk (trace_python.cc) and
// by query resolution (trace.cc).
// Python operator spellings and the Tensor dunder each one calls.
extern const std::array<std::pair<const char*, const char*>, 25> kOperatorDunders;
// The dunder table of the C++ Tensor binding, read from the checkout
// (tools/autograd/templates/python_variable_methods.cpp): "__add__" is bound
// to THPVariable_add, i.e. the aten op add, at that line.
using DunderTable = std::map<std::string, std::pair<std::string, int>>;
DunderTable ReadDunderBindings(const Index& ix);
// The Tensor methods and properties bound by hand in C++ (py_bindings.h), per index.
const HandBindings& HandBindingsFor(const Index& ix);

// What the tracer tells apart among dispatch keys and ops (trace_reader.cc,
// trace_ops.cc).
bool IsCompositeKey(std::string_view key);
// The device a dispatch key's kernel runs on: "CUDA", "CPU", or "any".
std::string DeviceOfKey(std::string_view key);
// Whether an op returns an alias of an input (a view).
bool IsView(const NativeFunction& fn);
// Calls not worth following for kernels that still stay in the trace,
// marked: views, ops returning nothing, and set-up ops that copy or convert data.
bool KeptInTrace(const NativeFunction& fn);
// Whether an op's kernels are worth following: it returns a tensor computed
// from tensor inputs, and is no view, factory or plumbing.
bool WorthFollowing(const NativeFunction& fn);

// --- The parts of a trace ---------------------------------------------------
//
// Tracer::Run (trace.cc) drives one trace through its parts, each with one job:
//
//   QueryResolver   what the query names: an op, operator, method, Python
//                   symbol, torch function or kernel (trace.cc, kernel_query.cc)
//   PythonWalker    torch's Python code from a symbol to the bridge into C++
//                   (trace_python.cc)
//   OpQueue         the aten ops reached and not yet expanded (trace_ops.cc)
//   OpExpander      from a YAML op to the C++ that runs: dispatch keys,
//                   definitions, the C++ walk (trace_ops.cc, trace_walk.cc);
//                   each expansion replayed by later traces (op_expansions.cc)
//   WalkFacts       what the walk reads of one C++ function, and the
//                   definitions behind a dispatch entry, kept with the index
//                   (trace_walk_facts.cc)
//   CallFactsReader what one C++ call is: library, stub, op, helper, its
//                   receiver and operands (trace_calls.cc, cpp_operands.cc)
//   GeneratedCode   code the build writes: macro-written impls, ufunc
//                   kernels, launchers' kernels (trace_kernels.cc)
//   BackwardTracer  derivatives.yaml and the decompositions (trace_backward.cc)
//
// Each part reads the index and the options (TraceReader); those that build
// the trace also hold the Trace; those that share work hold the parts they
// hand it to. The parts whose answers depend only on the index and the
// traced devices (CallFactsReader, WalkFacts, GeneratedCode) hold no Trace
// (GeneratedCode::AddUfuncKernels fills only the op it is handed), so their
// answers can be remembered with the index.

// What every part reads: the index, the options and the devices they trace.
class TraceReader {
 public:
  TraceReader(const Index& index, const TraceOptions& options) : ix_(index), opt_(options) {}

  Location Loc(const std::string& file, int line, int snippet_lines = 3) const;
  Location CppLoc(uint32_t file, uint32_t line, int snippet_lines = 3) const;
  const NativeFunction* FindOp(std::string_view full_name) const { return ix_.yaml.Find(full_name); }
  bool KeyWanted(std::string_view key) const;
  // The device whose path the trace answers for ("CUDA", or "CPU" for
  // --device cpu), and whether a walk for `walk_device` ("CPU", "CUDA",
  // "any") is on it: only that path's calls are ops that run (--device all:
  // every walk).
  std::string PrimaryDevice() const;
  bool OnPrimaryPath(std::string_view walk_device) const;
  // How the implementation behind dispatch `key` is walked: for the traced
  // devices whose dispatch resolves to it ("CPU", "CUDA", "any" for both),
  // "" when another key's kernel runs instead on each (never walked).
  std::string WalkDeviceOfKey(const NativeFunction& fn, const std::string& key) const;

  const Index& ix_;
  const TraceOptions& opt_;
};

// Whether an op has an implementation for the devices traced (directly or
// through its structured delegate); an op only MPS or XPU implements is
// listed at its call site but not traced.
bool HasWantedKernel(const TraceReader& t, const NativeFunction& fn);

// The aten ops reached and not yet expanded, each once per role.
class OpQueue : public TraceReader {
 public:
  using TraceReader::TraceReader;

  void AddOp(const NativeFunction* fn, OpRole role, const std::string& from, int depth);
  // Adds every overload `base` can reach through a call by name (not out=
  // variants, not in-place ones unless the name itself is in-place); with
  // `written`, those its arguments as written admit (AdmitsArguments, the
  // fewest conversions); without `dimnames`, none taking a Dimname
  // (named-tensor overloads). Returns how many it added.
  size_t AddOpsByBaseName(const std::string& base, OpRole role, const std::string& from, int depth,
                          const WrittenArguments* written = nullptr, bool dimnames = true);

  // The callers of each op met after its first (the op is traced once):
  // OpStep::also_reached_from.
  const std::vector<std::string>& MoreCallers(const std::string& name, OpRole role) const;

  std::deque<PendingOp> queue_;
  std::set<std::pair<std::string, OpRole>> seen_ops_;  // (name, role)
  // While set, every AddOp is also appended here (op_expansions.cc records an expansion).
  std::vector<PendingOp>* recording_ = nullptr;
  // While set (with recording_), AddOp only records: the op is not queued.
  bool recording_only_ = false;

 private:
  std::map<std::pair<std::string, OpRole>, std::vector<std::string>> more_callers_;
};

// What one C++ call is, as far as that depends only on the call, the file
// of the function it is walked from, and the traced devices -- not on where
// the walk stands.
struct CallFacts {
  std::string library;       // vendor library called ("" for none, or an aten-qualified call)
  bool blas_helper = false;  // at::cuda::blas:: -- followed after being listed as a library call
  bool launcher = false;     // gpu_kernel, cpu_kernel_vec ...
  bool stub = false;         // a dispatch stub call
  std::string stub_key;      // ... the stub's name as its registrations write it ("cpublas::copy_stub")
  bool at_call = false, method_call = false;
  // at::cuda::x, at::cpu::x ...: the per-backend entry point torchgen writes,
  // which calls that backend's kernel of op x directly -- no dispatch.
  bool backend_entry = false;
  std::string base;                              // the op base name an at::/method call names
  std::vector<const NativeFunction*> overloads;  // ... and its overloads (out= ones for at::x_out)
  // ... of those, the ones its arguments as written admit (AdmitsArguments);
  // empty when they were not read or admit none (then all are followed).
  std::vector<const NativeFunction*> admitted;
  bool is_op = false, returns_tensor = false, out_call = false, worth = false;
  bool kept = false;         // not worth following, but traced and marked (KeptInTrace: views, void ops, copies)
  bool elsewhere = false;    // qualified into a namespace the walk does not enter
  bool function_op = false;  // a plain call whose name is a function op (by name lookup)
  const std::vector<const NativeFunction*>* kernel_ops = nullptr;  // OpsWithKernel(callee)
  // The helper definitions it reaches (ResolveCall), all and those each
  // kind of walk can run (RunsOnDevice); empty when the walk never resolves it.
  std::vector<uint32_t> targets, cpu_targets, cuda_targets, any_targets;
};

// What the C++ walk reads of one walked function: its name as shown, whether
// it is in native code, its launches and its calls (its own, its stub
// references, and those of the macros it uses) in the walk's order, each
// with its facts; calls the walk can do nothing with are left out.
struct FunctionWalk {
  std::string holder;
  uint32_t file = UINT32_MAX;  // of the function's definition
  bool native = false;
  std::vector<uint32_t> launches;
  std::vector<CppCall> stub_refs;  // stand-in calls for the stubs it names
  // Stand-in calls for the functions its macros' uses pass as the callee
  // (#define RUN_K(T, LAUNCH) LAUNCH<T>(...) used as RUN_K(int, mbtopk::launch)).
  std::vector<CppCall> macro_argument_calls;
  std::vector<const CppCall*>
      calls;                     // into the index's calls(), stub_refs and macro_argument_calls; only those that Matter
  std::vector<CallFacts> facts;  // one per call
  std::vector<OperatorUse> operator_ops;  // its C++ operators on tensors
  // __global__ kernels it passes by name to code that launches them
  // (cb(AttentionKernel<...>(), fmha_cutlassF_f32_aligned_64x64_rf_sm80)): kernel, line.
  std::vector<std::pair<uint32_t, uint32_t>> kernel_refs;
};

// Whether a member call's receiver is a Tensor (CallFactsReader::ReceiverOf).
enum class Receiver { kTensor, kOther, kUnknown };

// What one C++ call is and reaches (CallFacts), read from the index: its
// library, stub, op overloads and the helpers it resolves to, its receiver
// and its operands. Depends only on the index and the traced devices.
class CallFactsReader : public TraceReader {
 public:
  using TraceReader::TraceReader;

  CallFacts ComputeCallFacts(const CppCall& c, const CppFunction& caller, std::string_view body) const;
  // The member functions `member` of class `cls` (KronImpl(self, other).kron():
  // KronImpl::kron), in native code the caller's build has; none when `cls`
  // is no class defining it.
  std::vector<uint32_t> MembersOfClass(std::string_view member, std::string_view cls, const CppFunction& caller) const;
  // Whether FollowCpp can do anything with a call, wherever its walk stands.
  static bool Matters(const CallFacts& facts, const CppCall& c);
  // Whether a qualified call names a function of a namespace nested in
  // at::native (internal::f, cuda_utils::f), which the walk enters.
  bool NamesNativeCode(const CppCall& c) const;
  // The overloads an op call's arguments admit (CallFacts::admitted).
  std::vector<const NativeFunction*> Admitted(const CppCall& c, const CppFunction& caller, std::string_view body,
                                              const CallFacts& facts) const;
  // What a call written as an argument (`wrapped_scalar_tensor(other)`,
  // `at::scalar_tensor(...)`) yields: 't' a Tensor by its return type, else '?'.
  char CallResultKind(std::string_view arg) const;
  // An argument's kind (ArgumentKind's letters) in code whose parameters
  // and body are these: as written, else a call's by its result
  // (CallResultKind), else an `auto` local's by its value (IsTensorOperand).
  char WrittenKind(std::string_view params, std::string_view body, std::string_view arg) const;
  // Whether a member call's receiver is a Tensor, from its declaration in
  // `caller` (parameters, `body`'s text) or the method whose result it is.
  Receiver ReceiverOf(const CppCall& c, const CppFunction& caller, std::string_view body) const;
  // The member functions a call on a non-Tensor object reaches (by the
  // receiver's declared class, else the classes of the caller's file).
  std::vector<uint32_t> ResolveMember(const CppCall& c, const CppFunction& caller, std::string_view body) const;
  // Whether an operator's operand is a Tensor: a variable declared as one in
  // `params` or `body` (auto ones by their initializer), or a call's result
  // (".abs" for x.abs(), "at::log" for at::log(...)) of an op returning one.
  bool IsTensorOperand(std::string_view params, std::string_view body, std::string_view name, int depth = 0) const;
  bool ValueIsTensor(std::string_view params, std::string_view body, std::string_view init, std::string_view name,
                     int depth) const;
  bool HelperReturnsTensor(std::string_view name) const;
  // The key of a called stub's registrations, found from the caller's scope.
  std::string StubRegistrationKey(const CppCall& c, const CppFunction& caller) const;
  // Definitions a call may reach from `from_file` (from `caller`'s scope by
  // C++ lookup, when known), never guessing among unrelated ones.
  std::vector<uint32_t> ResolveCall(const CppCall& c, uint32_t from_file, const CppFunction* caller) const;
  // The #defines of `macro` a use at `use_line` of `use_file` expands (its translation unit's).
  std::vector<uint32_t> VisibleMacros(const std::string& macro, uint32_t use_file, uint32_t use_line) const;
  // Ops whose CPU or CUDA dispatch entry names this C++ function.
  const std::vector<const NativeFunction*>& OpsWithKernel(const std::string& kernel) const;
  // Dispatch stubs named on the lines of a function's body without being called
  // there (one per stub, at its first line), from the index's stub references.
  std::vector<CppCall> StubReferences(const CppFunction& f) const;

  // cpp_operands.h DeclaredType, remembered while a BodyScope holds `body`:
  // the facts of one function's calls ask about the same few names again
  // and again, each a scan of its whole body.
  std::string DeclaredTypeIn(std::string_view params, std::string_view body, std::string_view name) const;
  // While it lives, DeclaredTypeIn remembers its answers for `body` (a text
  // that lives at least as long); the scope before it comes back after.
  class BodyScope {
   public:
    BodyScope(const CallFactsReader& reader, std::string_view body);
    ~BodyScope();
    BodyScope(const BodyScope&) = delete;
    BodyScope& operator=(const BodyScope&) = delete;

   private:
    const CallFactsReader& reader_;
    std::string_view outer_body_;
    std::unordered_map<std::string, std::string> outer_types_;
  };

 private:
  mutable std::string_view scoped_body_;                        // BodyScope's
  mutable std::unordered_map<std::string, std::string> types_;  // "params\x1cname" -> DeclaredType
};

// The C++ walk's memory, kept with the index (Index::Derived) for every later
// trace: what it reads of each function (FunctionWalk) and the definitions
// behind each dispatch entry. Each answer depends only on the index and the
// traced devices.
class WalkFacts : public TraceReader {
 public:
  WalkFacts(const Index& index, const TraceOptions& options, const CallFactsReader& calls)
      : TraceReader(index, options), calls_(calls) {}

  // Computed once per function (per index and traced devices, see WalkCache).
  const FunctionWalk& WalkOf(uint32_t fn, const CppFunction& f);
  FunctionWalk MakeWalk(uint32_t fn, const CppFunction& f) const;
  // The calls a macro use makes through its arguments: a call in the
  // macro's body whose callee is one of its parameters calls what the use
  // passes there (an identifier, qualified or not), at the use's line.
  std::vector<CppCall> MacroArgumentCalls(const CppMacroUse& use, uint32_t definition, uint32_t fn) const;
  // The text of f's declaration before its name (its markers: __device__, template <...>).
  std::string DeclarationHead(const CppFunction& f) const;
  // The C++ definitions behind a dispatch entry (FindDefinitions, remembered in WalkCache).
  std::vector<uint32_t> DefinitionsFor(const std::string& name, const NativeFunction& fn, const std::string& key,
                                       DefForm form) const;
  std::vector<uint32_t> FindDefinitions(const std::string& name, const NativeFunction& fn, const std::string& key,
                                        DefForm form) const;

  // Entries are added, never changed or removed, so references to them stay
  // valid; parallel traces (trace --all) read under a shared lock.
  struct WalkCache {
    std::shared_mutex mu;
    std::unordered_map<uint32_t, FunctionWalk> walks;                    // by function index
    std::unordered_map<std::string, std::vector<uint32_t>> definitions;  // DefinitionsFor
  };
  WalkCache& Cache() const;

  const CallFactsReader& calls_;
  mutable WalkCache* cache_ = nullptr;
};

// Code the build writes rather than the tree: the kernels and registrations
// of torchgen's ufunc codegen, and the __global__ kernels a TensorIterator
// launcher launches.
class GeneratedCode : public TraceReader {
 public:
  GeneratedCode(const Index& index, const TraceOptions& options, const CallFactsReader& calls)
      : TraceReader(index, options), calls_(calls) {}

  void AddUfuncKernels(OpStep& op, const NativeFunction& out_fn) const;
  // A dispatch stub torchgen's ufunc codegen registers (no registration in
  // the tree: `add_stub` for the ops with ufunc_inner_loop `add`, which
  // sub.out also calls): the op carrying the loop, else null.
  const NativeFunction* UfuncOpOfStub(const std::string& stub) const;
  // The __global__ kernels a launcher (gpu_kernel, gpu_reduce_kernel ...)
  // launches, read from its definition and the helpers it calls in its own
  // folder (CUDALoops.cuh's launch_vectorized_kernel ...); built once per index.
  const std::vector<KernelStep::Global>& LauncherGlobals(const std::string& launcher) const;
  // Where torchgen writes that registration: the REGISTER_DISPATCH line of
  // `generator` (compute_ufunc_cuda / compute_ufunc_cpu_kernel) in
  // torchgen/dest/ufunc.py; invalid when the tree has no such line.
  Location UfuncRegistrationSite(const std::string& generator) const;
  Location FindUfuncRegistrationSite(const std::string& generator) const;  // uncached

  const CallFactsReader& calls_;
};

// From a YAML op to the code that runs: its dispatch keys, the definition
// behind each, the structured meta and ufunc kernels, and the C++ walk from
// each implementation (trace_walk.cc's CppWalk) -- queueing the aten ops the
// code calls.
class OpExpander : public TraceReader {
 public:
  OpExpander(const Index& index, const TraceOptions& options, Trace& trace, OpQueue& ops, WalkFacts& facts,
             const GeneratedCode& generated)
      : TraceReader(index, options), t_(trace), ops_(ops), facts_(facts), calls_(facts.calls_), gen_(generated) {}

  void ExpandQueuedOps();
  void ExpandOp(OpStep& op, int depth);
  // ExpandOp, or the replay of its first run for this op, role and depth
  // bound under these options on this index (op_expansions.cc).
  void ExpandRemembered(OpStep& op, int depth);
  // Whether an expanded op is a composite that only hands its work to one
  // other op (no kernels, stubs or libraries of its own).
  bool Forwards(const OpStep& op) const;
  void AddImplementations(OpStep& op, const NativeFunction& fn, const std::string& dispatch_key,
                          const std::string& kernel_name, int depth, const std::string& walk_device);
  // An op whose kernel torchgen generates (autogen): the op that kernel calls, followed.
  void FollowGeneratedKernel(OpStep& op, const NativeFunction& fn, const std::string& key, int depth);
  // Whether a definition's body only raises (an `#if !AT_CUDNN_ENABLED()` stand-in).
  bool IsPlaceholder(const CppFunction& f) const;
  // `defs` less the placeholders when a real definition is among them (noted in `op`).
  std::vector<uint32_t> SetAsidePlaceholders(OpStep& op, const std::string& key,
                                             const std::vector<uint32_t>& defs) const;
  // Walks from an implementation through helpers to launches, libraries, stubs and aten op calls.
  void FollowCpp(OpStep& op, uint32_t start, const std::string& device, int depth);
  // The ops a walked function reaches through C++ operators on tensors (noted in `op`).
  void AddOperatorOps(OpStep& op, const FunctionWalk& walk, const std::string& device, int depth,
                      SharedVector<OpCallStep>* list);

  Trace& t_;
  OpQueue& ops_;
  WalkFacts& facts_;
  const CallFactsReader& calls_;
  const GeneratedCode& gen_;
  // Places (PlaceKey) of the helpers and op calls the op being expanded
  // lists: a place not in them is not listed, so most lookups skip the lists.
  std::unordered_set<uint64_t> helper_keys_, call_keys_;
};

// torch's Python code, from the symbol traced to the calls that cross into
// C++ (queued as aten ops): frames, aliases, self.x and receiver.method(),
// Tensor operators and hand-written bindings.
class PythonWalker : public TraceReader {
 public:
  PythonWalker(const Index& index, const TraceOptions& options, Trace& trace, OpQueue& ops)
      : TraceReader(index, options), t_(trace), ops_(ops) {}

  void WalkPythonFunction(uint32_t module, uint32_t function, int depth);
  void WalkAlias(uint32_t module, const PyAlias& alias, int depth, PyFrame* frame);
  // A class attribute of torch.Tensor that aliases a C++ method (`__neg__ =
  // _C.TensorBase.neg`) or wraps one: walked as a frame of its own.
  void WalkTensorAlias(const PySymbol& alias, int depth);
  // Resolves one callee expression seen in `module` (inside class `cls`, or -1).
  // Appends a PyCallStep to `frame` and follows it when it matters.
  void FollowPyCall(uint32_t module, int32_t cls, const std::string& callee, int line, int depth, PyFrame* frame);
  void PrunePythonFrames();
  // self.<attr>(...) that is no method: what the class's __init__ binds to
  // the attribute (a layer built there, or a parameter's default), followed.
  bool FollowSelfAttribute(uint32_t module, int32_t cls, const std::string& attr, int line, int depth, PyFrame* frame);
  // name(...) where `name` is a parameter of `function` defaulting to None
  // that the body rebinds to one function (`if distance_function is None:
  // distance_function = torch.pairwise_distance`): that function, followed.
  // False when the name is no such parameter.
  bool FollowRebindParameter(uint32_t module, uint32_t function, const std::string& name, int line, int depth,
                             PyFrame* frame);
  // Whether `callee`, called bare in `f`, names a value the frame holds
  // (neither the module's, an import, nor a builtin): listed as not followed.
  bool HoldsValue(const PyModule& m, const PyFunction& f, const std::string& callee) const;
  // A Tensor method or property bound by hand in C++ (py_bindings.h): adds
  // the aten ops its body reaches to `frame`. False when `name` has no such
  // binding.
  bool FollowHandBound(const std::string& name, const std::string& callee, int line, PyFrame* frame);
  // FollowPyCall's parts: a call across the bridge into C++ (false when
  // `dotted` names no op returning a tensor), a call of a torch Python
  // function or alias, self.x / super().x, and receiver.method(...).
  bool AddBridgeCall(const std::string& dotted, const std::string& callee, PyCallTarget kind, int line, PyFrame* frame);
  bool FollowSymbol(const std::string& dotted, const std::string& callee, PyCallTarget kind, int line, int depth,
                    PyFrame* frame);
  void FollowSelfCall(uint32_t module, int32_t cls, const std::string& callee, int line, int depth, PyFrame* frame);
  void FollowMethodCall(const std::string& callee, int line, int depth, PyFrame* frame);
  // An operator of torch's own Python code whose operand is known to be a
  // tensor (py_values.h): the Tensor dunder it calls, followed.
  void FollowOperator(uint32_t module, uint32_t function, const PyCall& call, int depth, PyFrame* frame);
  // x[0] on a tensor: aten::select.int (other subscripts are not followed).
  void FollowSubscript(const ValueScope& scope, const PyCall& call, PyFrame* frame);
  // Tensor.<dunder> as Python finds it: a def or alias of torch/_tensor.py,
  // else the C++ binding (python_variable_methods.cpp, or a YAML op of that
  // name). Appends the call to `frame` and follows it; false when unbound.
  bool FollowDunder(const std::string& dunder, const std::string& callee, int line, int depth, PyFrame* frame,
                    std::optional<std::string> operand = std::nullopt);
  // What the names of a torch Python function hold (py_values.h), per trace.
  const ValueScope& ScopeOf(uint32_t module, uint32_t function);
  // The text of a def's header, from `def` to the line closing its parameters.
  std::string DefHeader(const PyModule& m, const PyFunction& f) const;
  // The calls of `f` whose callee is a torch function annotated `-> Tensor`.
  void LearnCallResults(uint32_t module, uint32_t function, ValueScope* scope) const;
  bool BridgeToYaml(const std::string& dotted, std::string* bridge, std::vector<const NativeFunction*>* ops);
  // Adds the overloads of `name` Python can call (method variants when `method`).
  void AddBoundOverloads(const std::string& name, bool method);

  Trace& t_;
  OpQueue& ops_;
  std::set<std::pair<uint32_t, uint32_t>> seen_py_;  // (module, function) walked
  // The alias WalkAlias is following: `istft = _add_docstr(torch.istft, ...)`
  // names itself (torch re-exports it), and means the C++ binding instead.
  const PyAlias* walking_alias_ = nullptr;
  std::map<std::pair<uint32_t, uint32_t>, std::unique_ptr<ValueScope>> scopes_;  // ScopeOf
  std::unique_ptr<TensorFacts> tensor_facts_;
};

// What the query names, tried in order (trace.cc's note): each Try* starts
// the trace where it matched -- ops queued, Python frames walked.
class QueryResolver : public TraceReader {
 public:
  QueryResolver(const Index& index, const TraceOptions& options, Trace& trace, OpQueue& ops, PythonWalker& py)
      : TraceReader(index, options), t_(trace), ops_(ops), py_(py) {}

  bool TryAten(std::string_view q);
  bool TryOperator(std::string_view q);
  bool TryMethod(std::string_view q);
  bool TryPythonSymbol(std::string_view q);
  bool TryTorchNamespace(std::string_view q);
  bool TryHandBound(const std::string& name);
  bool TryKernel(std::string_view q);
  bool TryProfilerKernel(std::string_view q);  // kernel_query.cc
  void Suggest(std::string_view q);

  Trace& t_;
  OpQueue& ops_;
  PythonWalker& py_;
};

// The backward of the forward ops traced (derivatives.yaml, role
// "backward"), and the decompositions registered for the ops of the trace.
class BackwardTracer : public TraceReader {
 public:
  // Both defined where FrameBindings is complete.
  BackwardTracer(const Index& index, const TraceOptions& options, Trace& trace, OpQueue& ops, OpExpander& expander,
                 const CallFactsReader& calls);
  ~BackwardTracer();

  // The assumptions a derivatives.yaml formula is read under (first-order backward).
  Assumptions BackwardAssumptions() const;
  // Traces the ops a derivatives.yaml entry names (role "backward", reached
  // from its forward op): the overloads their calls' arguments as written
  // admit (`written`: per op, each call's, nullopt where not read).
  void FollowBackwardOps(const BackwardStep& b, const std::set<std::string>& from_operators,
                         const std::map<std::string, std::vector<std::optional<WrittenArguments>>>& written, int depth);
  void AddBackward();
  // The backward of one forward op: its derivatives.yaml entry read, the
  // backward ops queued. AddBackwardRemembered replays its first run under
  // these options on this index (op_expansions.cc); with `queue_ops`
  // false (an op only other kernels call, which autograd never records)
  // the entry is listed but the ops its formula names are not traced.
  void AddBackwardOf(const std::string& forward_op);
  void AddBackwardRemembered(const std::string& forward_op, bool queue_ops);
  // The forward ops (not out= ones), each with whether it runs only below
  // autograd (RecordedByAutograd: no caller's code records it).
  std::vector<std::pair<const NativeFunction*, bool>> ForwardOpsByAutograd();
  // Whether no call of `callee` in `caller`'s code is recorded by
  // autograd: each sits where grad mode is off (an at::NoGradGuard in its
  // block or one enclosing it), or is made on a tensor a factory op just
  // made with no other tensor passed (`at::empty({}).random_(gen)`: no
  // input requires grad) or on a local that needs no grad
  // (trace/fresh_tensors.h); and whether the code at file:line is grad-free.
  bool CalledOnlyWithoutGrad(const OpStep& caller, const OpStep& callee) const;
  // Whether every Python call of entry op `op` is made on a module buffer
  // with nothing but literals passed (trace/frame_bindings.h OnABufferAlone).
  bool CalledOnBuffersAlone(const OpStep& op);
  bool InNoGradScope(const std::string& file, int line) const;
  void AddDecompositions();

  Trace& t_;
  OpQueue& ops_;
  OpExpander& expander_;
  const CallFactsReader& calls_;
  // The Python frames' bindings (CalledOnBuffersAlone), made on first use.
  std::unique_ptr<Assumptions> frame_assumptions_;
  std::unique_ptr<FrameBindings> frames_;
};

// One trace: the parts, wired together, run in order.
class Tracer {
 public:
  Tracer(const Index& index, const TraceOptions& options, Trace* trace)
      : ix_(index),
        opt_(options),
        t_(*trace),
        ops_(index, options),
        calls_(index, options),
        facts_(index, options, calls_),
        gen_(index, options, calls_),
        expander_(index, options, *trace, ops_, facts_, gen_),
        py_(index, options, *trace, ops_),
        resolver_(index, options, *trace, ops_, py_),
        backward_(index, options, *trace, ops_, expander_, calls_) {}

  Status Run(std::string_view query);

  const Index& ix_;
  const TraceOptions& opt_;
  Trace& t_;
  OpQueue ops_;
  CallFactsReader calls_;
  WalkFacts facts_;
  GeneratedCode gen_;
  OpExpander expander_;
  PythonWalker py_;
  QueryResolver resolver_;
  BackwardTracer backward_;
};

// The entry for `key`, made by `make()` (outside the lock) when missing.
template <class Map, class Key, class Make>
inline const typename Map::mapped_type& Remember(std::shared_mutex& mu, Map& map, const Key& key, Make make) {
  {
    std::shared_lock<std::shared_mutex> lock(mu);
    auto it = map.find(key);
    if (it != map.end()) return it->second;
  }
  typename Map::mapped_type value = make();
  std::unique_lock<std::shared_mutex> lock(mu);
  return map.try_emplace(key, std::move(value)).first->second;
}

// The dispatch key the dispatcher runs for a dense tensor on `device`: the
// device's own kernel, else the explicit composite (the non-functional one
// first), else the implicit one; "" when the op has none of them.
std::string ResolvedKey(const NativeFunction& fn, std::string_view device);

// Library a C++ call belongs to ("" when none), from its qualifier and name.
std::string LibraryOfCall(std::string_view qualifier, std::string_view callee);
// A vendor API call that sets the library up -- a handle's stream or
// workspace, a descriptor, an error string, cudnn_frontend's graph and plan
// builders (`written`: the call as written, qualifier and all) -- rather than
// runs work (cudnnBackendExecute, cublasSgemm, cufftXtExec).
bool IsLibrarySetupCall(std::string_view callee, std::string_view written);

// aten ops named by C++ operators on tensors in `code`: * mul, / div, unary
// - neg, == eq, >= ge, <= le; with arithmetic_all also + add and binary - sub.
// With `is_tensor`, only operators with an operand it calls a Tensor count.
std::vector<std::string> OperatorOps(std::string_view code, bool arithmetic_all,
                                     const std::function<bool(std::string_view)>& is_tensor = {});
// The same, each with the operator as written ("<=", "*", "+=") and its offset in `code`.
// With `is_number` (a name declared arithmetic), a number left of a tensor
// (`margin - self`, `1 / x`) is TensorOperators.h's empty_like, fill_ and sub_ (div_).
std::vector<OperatorUse> OperatorUses(std::string_view code, bool arithmetic_all,
                                      const std::function<bool(std::string_view)>& is_tensor = {},
                                      const std::function<bool(std::string_view)>& is_number = {});

// Kind of a schema type or C++ parameter, for telling overloads apart.
char SchemaTypeKind(std::string_view schema_type);
// Whether an overload takes a Dimname or Dimname[] (the named-tensor API).
bool TakesDimname(const FunctionSchema& schema);
char CppParamKind(std::string_view cpp_param);

// Shared by several of the tracer's files.
// A registration's device, folded to the two the tracer follows.
std::string RegistrationDevice(const std::string& device);
// "at::native::foo<T>" -> "foo".
std::string StripTemplateAndNamespace(std::string s);

}  // namespace optrace
