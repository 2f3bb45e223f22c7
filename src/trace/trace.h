// The tracer's output value and its entry point. A Trace is plain data: the
// Python frames, every aten op reached (forward and backward) with its YAML
// entry, C++ implementations, dispatch stubs, CUDA kernels, vendor libraries
// and the aten ops it calls, the derivatives.yaml entries and decompositions.
// Renderers (render.h) turn it into text, markdown, JSON or DOT without any
// lookups of their own.
//
// A field whose values form a closed set the tracer decides is an enum, its
// spelling in JSON and text from one name table (Name, in trace_names.cc):
// an op's role, what the query was understood as, a kernel's payload kind,
// a condition's kind, what a Python call resolved as, an implementation's
// form, a kernel's device and launch, the device making an op call. Open
// sets stay strings: dispatch keys and registration devices as the tree
// writes them, library and launcher names, macro names.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/shared_vector.h"
#include "base/status.h"
#include "index/index.h"

namespace optrace {

// Whether an op runs in the forward pass or in autograd's backward.
enum class OpRole { kForward, kBackward };
// What the query was understood as (kNone until it is).
enum class TargetKind { kNone, kModule, kFunctional, kTorch, kMethod, kOperator, kAten, kPython, kKernel, kLibrary };
// What a launch template runs, for a profiler kernel name (kNone: none found).
enum class PayloadKind { kNone, kFunctor, kLambda, kJiterator };
// How a condition of the trace is written: `if`, `else`, `case`, `?:`, an
// early return, `#if`, the dispatch device an edge is taken on, or a helper
// reached by a call the walk does not read (its conditions unknown).
enum class ConditionKind { kIf, kElse, kCase, kTernary, kReturn, kPreprocessor, kDevice, kRoute };
// What a Python call resolved as: a torch.nn.functional function, a call
// across the bridge into C++ (_VF, torch._C._nn ...), a torch.x binding, a
// Tensor method, another torch Python function, a Tensor operator.
enum class PyCallTarget { kFunctional, kBridge, kTorch, kMethod, kPython, kOperator };
// How an implementation (or helper) is written: DefForm's forms (cpp_index.h),
// a ufunc kernel, generated code, a placeholder that only raises, a helper
// between an implementation and its kernels (kNone: not said).
enum class ImplForm {
  kNone,
  kFunction,
  kImplFunc,
  kMetaFunc,
  kPrecomputeMetaFunc,
  kGlobalKernel,
  kUfunc,
  kGenerated,
  kPlaceholder,
  kHelper
};
// Which device's code runs a kernel or makes an op call (kAny: every device's).
enum class CodeDevice { kAny, kCpu, kCuda };
// How a kernel is launched: LaunchKind's kinds (cpp_index.h), a launch
// written in a #define, a kernel passed to a launcher as an argument.
enum class KernelLaunch { kTripleChevron, kTensorIterator, kReduce, kJiterator, kLaunchHelper, kMacro, kPassed };
// Each value's one spelling, in JSON and text: "forward" | "backward";
// "" | "module" | "functional" | "torch" | "method" | "operator" | "aten" |
// "python" | "kernel" | "library"; "" | "functor" | "lambda" | "jiterator";
// "if" | "else" | "case" | "?:" | "return" | "#if" | "device" | "route";
// "functional" | "bridge" | "torch" | "method" | "python" | "operator";
// "" | "function" | "TORCH_IMPL_FUNC" | "TORCH_META_FUNC" |
// "TORCH_PRECOMPUTE_META_FUNC" | "__global__" | "ufunc" | "generated" |
// "placeholder" | "helper"; "any" | "CPU" | "CUDA"; "<<<>>>" | "gpu_kernel"
// | "gpu_reduce_kernel" | "jiterator" | "launch" | "macro" | "passed".
std::string_view Name(OpRole role);
std::string_view Name(TargetKind kind);
std::string_view Name(PayloadKind kind);
std::string_view Name(ConditionKind kind);
std::string_view Name(PyCallTarget kind);
std::string_view Name(ImplForm form);
std::string_view Name(CodeDevice device);
std::string_view Name(KernelLaunch launch);
// The guard readers' words for a condition's kind (cpp_guards.h,
// py_guards.h: "if", "else", "case", "?:", "return", "#if"), read back
// through the same table; kIf for a word it does not hold.
ConditionKind ConditionKindOf(std::string_view word);
// The scan's forms and launch kinds as the trace's.
ImplForm FormOf(DefForm form);
KernelLaunch LaunchOf(LaunchKind kind);
// The device of a dispatch key or walk ("CPU", "CUDA", "any"), through the
// same table; nullopt for any other key.
std::optional<CodeDevice> CodeDeviceOf(std::string_view name);

struct Location {
  std::string file;  // relative to the checkout root
  int line = 0;
  std::string snippet;  // a few lines of the real code there ("" when not wanted)
  bool valid() const { return !file.empty() && line > 0; }
};

// A condition under which an edge of the trace is taken, read from the code
// (cpp/cpp_guards.h, py/py_guards.h): `if`/`else`/`case`/`?:`/early return/
// `#if` in C++, `if`/`elif`/`else`/early return in Python.
struct Condition {
  std::string text;      // as written: "at::cudnn_is_acceptable(_input)"
  bool negated = false;  // taken when it is false
  ConditionKind kind = ConditionKind::kIf;
  Location where;                // where the condition is written
  bool open = false;             // a C++ edge's condition the typical-path assumptions leave undecided
  bool holds = false;            // one they decide true: never why an op is off the path
  std::string Describe() const;  // "when C" | "unless C" | "#if C" | "#if !(C)"
};

// A call of `globalContext().alertNotDeterministic(...)` on an op's path,
// with the conditions around it in its function (`if`s, `switch` cases,
// `#if` groups: the cumsum scan alerts only in the `#else` of a CUDA
// version test), outermost first. They are read as under
// torch.use_deterministic_algorithms(True), the question the call answers
// (trace/nondeterminism.h): each is marked open where that and the
// assumptions leave it open.
struct NondeterminismStep {
  Location where;
  std::vector<Condition> when;
};

struct PyCallStep {
  std::string callee;  // as written: "F.layer_norm", "torch._C._nn.linear", "input.softmax"
  int line = 0;
  PyCallTarget kind = PyCallTarget::kPython;
  std::string resolved;         // what it resolved to: "torch.nn.functional.layer_norm", "aten::softmax", ""
  std::vector<Condition> when;  // conditions of the call's line in its function (empty: always)
  // An operator's argument beside the tensor it is called on: "math.sqrt(E)"
  // of `q / math.sqrt(E)`, "1" of `1 - x`; "" for a unary operator; unset
  // for any other call, whose arguments are read at its line.
  std::optional<std::string> operand = std::nullopt;
};

struct PyFrame {
  std::string symbol;  // "torch.nn.modules.normalization.LayerNorm.forward"
  Location where;
  std::vector<PyCallStep> calls;
  std::string bridge;  // how this frame reaches C++: "_VF", "torch._C._nn", "torch.x", "tensor method",
                       // "torch.ops", "_add_docstr alias", "pure Python composition", ""
  std::string note;    // e.g. "forward inherited from torch.nn.modules.activation.Hardtanh"
};

struct ImplStep {
  std::string key;       // dispatch key: "CPU", "CUDA", "CompositeImplicitAutograd", ...
  std::string function;  // dispatch name / C++ function
  ImplForm form = ImplForm::kNone;
  Location where;
  std::string params;               // C++ parameter list (tells overloads apart)
  std::vector<std::string> dtypes;  // from AT_DISPATCH_* in the body, when found
  // A helper: the function the walk reached it from, and the call there that
  // did (its callee, or a call naming its class in template arguments:
  // _lstm_impl<FullLayer, ...>(...)). Empty for an implementation.
  std::string reached_from;
  Location reached_at;
  std::string reached_by;
  int64_t definition = -1;  // a helper's id in the C++ index (CppIndex::functions()); -1 for an implementation
  // A helper the assumed dtype rules out, and why: an overload of a function
  // template whose std::enable_if rejects the element type every call
  // instantiates it with, or one called only from such overloads
  // (trace/template_overloads.h). "" when the assumptions do not.
  std::string ruled_out;
};

struct StubRegistrationStep {
  std::string device, macro, target;
  Location where;
  Location target_definition;  // the registered function's definition
};

struct StubStep {
  std::string name;
  Location declared;        // DECLARE_DISPATCH
  Location defined;         // DEFINE_DISPATCH
  std::string called_from;  // function calling the stub
  Location call_site;
  std::vector<StubRegistrationStep> registrations;
  // The conditions on the way to the stub's call, read and evaluated as a
  // kernel launch's are (`if (at::cudnn_is_acceptable(x)) lstm_cudnn_stub(...)`).
  std::vector<Condition> when;
  bool typical = true, undecided = false;
};

struct KernelStep {
  std::string name;  // __global__ name, functor name ("MulFunctor"), jiterator kernel string, or the
                     // function holding the gpu_kernel lambda
  CodeDevice device = CodeDevice::kCuda;
  Location where;  // of the kernel definition (or of the launch when the kernel is a lambda)
  KernelLaunch launch = KernelLaunch::kTripleChevron;
  Location launch_site;
  std::string launcher;           // "gpu_kernel", "opmath_symmetric_gpu_kernel_with_scalars", macro name ...
  std::vector<std::string> path;  // functions from the implementation to the launch
  // For a TensorIterator / reduction launcher: the __global__ kernels its
  // code can launch with the functor as template argument, in file order
  // (gpu_kernel: vectorized_elementwise_kernel -- contiguous tensors --,
  // unrolled_elementwise_kernel, elementwise_kernel in CUDALoops.cuh).
  struct Global {
    std::string name;
    Location where;
  };
  std::vector<Global> runs_in;
  // The function whose body holds the launch, and the #define holding it
  // when the launch is written in a macro the holder uses ("" otherwise).
  std::string holder, macro;
  // More launches of the same kernel by the holder, each by its line and
  // what the line calls (div_true_kernel_cuda's DivFunctor: through
  // opmath_gpu_kernel_with_scalars for complex half, through
  // gpu_kernel_with_scalars for the other dtypes).
  struct Launch {
    int line;
    std::string call;
  };
  std::vector<Launch> more_launches;
  // The same kernel launched by other functions (NanSumOps, by
  // nansum_functor for real dtypes and by nansum_functor_complex): the
  // annotation takes the launch the assumptions take first, and the fields
  // above then name that one (trace/launch_conditions.cc).
  struct OtherLaunch {
    std::string holder, launcher;
    Location launch_site;
    std::vector<std::string> path;
  };
  std::vector<OtherLaunch> other_launches;
  // The conditions under which the op's implementation reaches the launch:
  // the way through helpers and stubs to `holder`, then those enclosing the
  // launch in it, outermost first; empty: whenever the op runs. Evaluated
  // as an op's edge is: `typical` false when the assumptions rule the launch
  // out, `undecided` when they leave it open (group norm's `HxW == 1`).
  std::vector<Condition> when;
  bool typical = true, undecided = false;
  // Of a launch left open: how many functions of `path`, from the
  // implementation, run whenever the op does -- the way to each (as to a
  // launch's holder) is taken under the assumptions; the open conditions lie
  // below them (cumsum's launch_cumsum_cuda_kernel and scan_dim run, the
  // choice of scan_innermost_dim or scan_outer_dim is open). 0 otherwise.
  size_t path_runs = 0;
  // The atomic operations a __global__ kernel's code performs, in it or in
  // a __device__ function it calls ("gpuAtomicAddNoReturn"): the order of
  // its floating-point updates, so its result, may vary run to run.
  std::vector<std::string> atomics;
  // The atomic operations of the objects the way to a kernel that calls a
  // parameter (`op(...)`, `f(idx)`) hands it: each by name, typed by its
  // declaration, and its class's operator() (Indexing.cu's
  // `indexFuncSmallIndex<<<...>>>(..., reduce_add, alpha)` with `static
  // ReduceAdd reduce_add;`, whose operator() calls fastAtomicAdd).
  // Read only where the object is handed on whenever the passing function
  // runs (a call under no condition of its own, or the launch itself).
  struct PassedAtomics {
    std::string functor;  // the class: "ReduceAdd"
    Location where;       // its operator()
    Location passed;      // the call or launch that hands the object on
    std::string stub;     // the dispatch stub on the way to that call ("" when none): the way holds where it runs
    std::vector<std::string> atomics;
  };
  std::vector<PassedAtomics> passed_atomics;
};

struct LibraryStep {
  std::string name;  // "cuDNN" | "cuBLAS" | "cuBLASLt" | "cuFFT" | "cuSOLVER" | "cuSPARSE" | "CUB" | "Thrust" |
                     // "MAGMA" | "cutlass" | "flash-attention" | "mem-eff-attention"
  Location where;    // first call site
  std::vector<std::string> calls;  // library entry points called: "cudnnRNNForward", "at::cuda::blas::gemm"
  std::vector<std::string> path;   // functions from the implementation to the call
  // As the first stub on `path` is taken (a call of no stub: whenever the op runs).
  bool typical = true, undecided = false;
  // Where a call that only sets the library up was found before `where`'s
  // (getCudnnHandle's cudnnSetStream before run_conv_plan's
  // cudnnBackendExecute): the library is in use wherever either runs.
  struct Setup {
    Location where;
    std::vector<std::string> path;
  };
  std::optional<Setup> setup;
};

struct OpCallStep {
  std::string op;                        // the aten op called ("_softmax", "nll_loss_nd")
  CodeDevice device = CodeDevice::kAny;  // which implementation makes the call
  std::string from;                      // the C++ function making the call
  Location where;
  std::string how;  // "at::x", "at::_ops::x::call", "self.x()", "at::native::x", "stub"
  // Through a backend's entry point (`at::cuda::index_out`): that backend's
  // kernel of the op, called with no dispatch -- no aten:: op runs.
  bool undispatched = false;
  // The overloads ("view", not "view.dtype") the call's arguments admit, as
  // C++ overload resolution reads them; empty where they are not read.
  // Calls of one op on one line share an entry, the union of theirs.
  std::vector<std::string> overloads;
};

struct OpStep {
  std::string name;  // "add.Tensor", "mm"
  OpRole role = OpRole::kForward;
  const NativeFunction* yaml = nullptr;
  std::string reached_from;  // "" for entry ops, else the op (or derivative) that leads here
  // Other ops of the same role that call this one too (linear's addmm is
  // also the fast path's). The path annotator makes the one whose call runs
  // reached_from: an op is on the path when any of its callers' calls is.
  std::vector<std::string> also_reached_from;
  // Where reached_from's code makes the call the path takes (invalid for an
  // entry op, a structured delegate, or a call whose site is not listed).
  Location called_at;
  int depth = 0;
  // The remembered expansion this op replays (op_expansions.cc; null when
  // expanded otherwise): ops with one expansion have the same code below
  // them, so what is derived from that code alone is shared too.
  const void* expansion = nullptr;
  // What the op's code holds, shared with the expansion it replays until the
  // trace changes it (the path annotations of kernels, stubs, libraries).
  SharedVector<ImplStep> impls;
  // C++ functions between an implementation and its kernels, libraries and
  // stubs (form "helper", key = the device path they are on), each located.
  SharedVector<ImplStep> helpers;
  SharedVector<StubStep> stubs;
  SharedVector<KernelStep> kernels;
  SharedVector<LibraryStep> libraries;
  SharedVector<OpCallStep> calls;
  // The aten ops another traced device's implementation calls (CPU's, in a
  // trace answering for CUDA): what runs there instead, never on the
  // traced device's path.
  SharedVector<OpCallStep> other_device_calls;
  std::vector<std::string> notes;
  // Where a function on the op's path calls
  // `globalContext().alertNotDeterministic(...)`: PyTorch itself calls the
  // op nondeterministic there (torch.use_deterministic_algorithms raises).
  std::vector<NondeterminismStep> nondeterministic;
  // The conditions under which the op is reached from its caller (the
  // Python call or the parent op's implementation, through helpers and
  // stubs), outermost first; empty: whenever its caller runs.
  std::vector<Condition> when;
  // Evaluated under the typical-path assumptions (TraceOptions::assume):
  // whether a dense float tensor on the traced device reaches this op. A
  // condition the assumptions cannot decide sets `undecided`: an entry op
  // behind an undecided Python condition stays on the path (both sides are
  // kept), an op behind an undecided C++ condition is left off it, and so
  // is what it calls (undecided too, unless its own edge is ruled out).
  bool typical = false, undecided = false;
};

struct BackwardStep {
  std::string op;  // forward op the entry belongs to
  const DerivativeEntry* derivatives = nullptr;
  std::vector<std::string> ops;      // backward aten ops named in the formulas
  std::vector<std::string> helpers;  // FunctionsManual helpers named in the formulas
  std::string note;                  // e.g. "CompositeImplicitAutograd: no entry of its own; see the ops it calls"
  // Of `ops`, those named only in a branch a first-order backward does not
  // take (`GradMode::is_enabled() ? double_backward(...) : ...`, a second
  // output's `grads[1].defined()`, a helper's call under `is_complex()`):
  // listed, never on the typical path.
  std::vector<std::string> untaken;
  // Of `ops`, those named only where a condition the assumptions leave open
  // decides (norm_backward's `p == 2.0`): undecided on the typical path.
  std::vector<std::string> open;
  // The forward op runs only inside other ops' kernels (CUDA, CPU,
  // CompositeExplicitAutograd code), below their autograd kernels:
  // autograd never records it, so its entry is listed (with a note), never
  // on the path.
  bool below_autograd = false;
};

// A function whose result decides which op or backend runs
// (select_sdp_backend, _select_conv_backend, cudnn_is_acceptable,
// use_miopen ...): found in the conditions of the trace's edges, followed
// through locals, dispatch stubs and returns to the function that decides.
struct SelectionStep {
  std::string function;
  Location where;  // its definition
  std::string op;  // the op whose implementation asks it
  struct Alternative {
    std::string op;         // the op reached on that branch
    std::string condition;  // Describe() of the deciding condition(s)
    bool typical = false;
    Location where;  // of the condition
  };
  std::vector<Alternative> alternatives;
};

struct DecompositionStep {
  std::string op;
  Location where;
  std::string function;
  std::string registry;  // "torch._decomp" | "torch._refs" | "torch._inductor" | "torch._meta_registrations"
  std::string target;    // decorator argument as written: "aten.silu_backward"
};

struct NotFoundStep {
  std::string what, detail;
};

// A kernel name as a profiler prints it, resolved to the source
// (trace/kernel_query.cc): the kernel's definition; for a launch template
// (vectorized_elementwise_kernel, reduce_kernel, ...) the functor or the
// function whose lambda holds the arithmetic, and that lambda's line; for a
// kernel of a vendor library, the library and where the tree calls it.
struct KernelSource {
  std::string name;        // the name as read (demangled)
  bool truncated = false;  // the profiler cut it: brackets left open
  std::string kernel;      // the __global__ function (or vendor kernel) it names
  Location definition;     // of that kernel in the tree
  std::string payload;     // the functor / the function holding the lambda / the jiterator string
  PayloadKind payload_kind = PayloadKind::kNone;
  Location payload_definition;
  std::vector<Location> arithmetic;  // the lambda or operator() lines (one per specialization)
  std::string dtype;                 // the innermost lambda's parameter types as printed ("float")
  std::string library;               // "cuBLAS", "cuDNN", ... when the kernel is not in the tree
  std::string library_reason;
  std::vector<Location> library_calls;  // where the tree calls that library
  std::vector<std::string> notes;
  bool valid() const { return !kernel.empty(); }
};

struct Trace {
  std::string query;
  std::string source_root, source_version;
  // The torch of the user's Python (nullopt: none, or not asked) and the
  // warning when it is another release than the checkout; set by the caller
  // (CLI, MCP), rendered in every format's header.
  std::optional<std::string> installed_torch;
  std::string source_warning;
  TargetKind target_kind = TargetKind::kNone;
  std::string target_name;
  std::string selected_overload;  // the overload the Python call selects, when it can be told
  // A call query (`F.interpolate(x, mode='bicubic')`): its argument text,
  // bound to the traced function's parameters (a module's: its __init__'s).
  bool call_query = false;
  std::string call_arguments;
  std::vector<PyFrame> python;
  std::vector<OpStep> ops;
  std::vector<BackwardStep> backward;
  std::vector<DecompositionStep> decompositions;
  std::vector<SelectionStep> selections;
  std::vector<std::string> assumptions;  // the typical-path assumptions used ("device=cuda", "dtype=float32", ...)
  std::vector<NotFoundStep> not_found;
  std::vector<std::string> notes;
  std::vector<std::string> suggestions;  // "did you mean" when nothing was traced
  KernelSource kernel_source;            // set when the query was a kernel name as a profiler prints it
};

struct TraceOptions {
  enum class Device { kDefault, kCuda, kCpu, kAll } device = Device::kDefault;  // default: CPU + CUDA + composite
  bool backward = true;
  int depth = 4;         // how deep aten ops called from implementations are followed
  int kernel_depth = 6;  // how deep helper functions are followed towards kernels
  bool snippets = true;  // fill Location::snippet
  // Typical-path assumptions beyond the defaults (dense strided float32
  // tensor that requires grad, cuDNN present, default flags), as
  // `--assume` takes them: "dtype=bf16", "deterministic", "device=cpu",
  // "rocm", "no-cudnn", "eval", "no-grad" (doc/trace-schema.md).
  std::vector<std::string> assume;
};

// The device option as `trace --device` and the MCP `trace` tool spell it:
// "default", "cuda", "cpu", "all". False (and *device untouched) for anything else.
bool ParseDevice(std::string_view name, TraceOptions::Device* device);

// Traces one query against a loaded index. Returns kNotFound (with
// suggestions in *out) when the query names nothing known; never traces a
// different op than the one asked for.
Status TraceQuery(const Index& index, std::string_view query, const TraceOptions& options, Trace* out);

// A kernel name as a profiler prints it, resolved to the source without
// tracing the ops that launch it (`optrace profile`, `find`): invalid
// (kernel empty) when the name names nothing of the tree and no library.
KernelSource ResolveKernelName(const Index& index, std::string_view name);

// Every op in native_functions.yaml, for `trace --all`.
std::vector<std::string> AllOpQueries(const Index& index);

}  // namespace optrace
