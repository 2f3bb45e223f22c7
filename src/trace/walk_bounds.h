// The bounds of the tracer's walks, in one place with their reasons.
//
// Every walk of the tracer follows references through code that refers
// back to itself (recursion, helpers calling helpers, macros using macros,
// variables assigned from variables), so each one is bounded. A bound is
// also a statement about where facts stop being the traced op's own: beyond
// it, the walk would be reading shared machinery every op passes through,
// or guessing among more candidates than the code tells apart -- and a
// wrong fact is worse than "not found". The values are the ones the
// benchmarks were measured with (doc/benchmarks.md): a change to one changes
// traces, so measure before and after (score.py, audit.py).
#pragma once

namespace optrace {

// --- the C++ walk (trace_walk.cc) -------------------------------------------

// How many `auto` locals deep a Tensor operand is followed, each initialised
// from the one before (Loss.cpp's cosine_embedding_loss: `pos = 1 - cos`,
// `cos = prod_sum / denom`, `prod_sum = (input1 * input2).sum(targ_dim)`).
inline constexpr int kAutoTensorDepth = 4;

// How many helper calls below an implementation the aten ops its code calls
// (and its C++ operators on tensors) are listed and followed. Nearer calls
// are the op's own; deeper helpers are more and more shared code
// (TensorIterator set-up, checks), whose op calls would be listed for every
// op reaching them. The walk itself goes deeper, for kernels
// (TraceOptions::kernel_depth).
inline constexpr int kOpCallHops = 3;

// The most entry points listed per vendor library an op calls (cuBLAS's
// cublasSgemm, cublasGemmEx ...): the kinds of calls made, not every site.
inline constexpr size_t kLibraryCallsListed = 12;

// --- what the walk reads of a function (trace_walk_facts.cc, trace_calls.cc) -

// The most macro uses read per function, its own and those nested in the
// macros it uses (HANDLE_SWITCH_CASE -> HANDLE_CASE): deep enough for
// ATen's dispatch macros, a stop for macros that expand into themselves.
inline constexpr size_t kMacroUsesExpanded = 64;

// The longest body (in lines) whose text is read for C++ operators on
// tensors and for the ops a FunctionsManual helper calls: the reading is
// textual, and the code it is meant for (an op's host code, a formula's
// helper) is far shorter.
inline constexpr int kMaxBodyLinesRead = 400;

// A call to a name defined in several places is resolved to all of them
// only when they are few enough to be one helper's overloads or
// specializations: at most this many in the caller's folder ...
inline constexpr size_t kMaxSameFolderDefinitions = 6;
// ... or, elsewhere, this many all in one file (else it is unresolved).
inline constexpr size_t kMaxOneFileDefinitions = 16;
// A member call resolves to the methods of its receiver's class (or of
// the caller's file) only when there are at most this many of them.
inline constexpr size_t kMaxMemberDefinitions = 8;

// The longest body (in lines) taken for a placeholder that only raises (an
// `#if !AT_CUDNN_ENABLED()` stand-in is a line or two of TORCH_CHECK).
inline constexpr int kMaxPlaceholderLines = 12;

// --- the Python walk (trace_python.cc) --------------------------------------

// How many Python frames deep the walk follows torch's own functions (and
// aliases of aliases): nn.Module.forward -> functional -> helper -> ...; the
// bridge into C++ is reached within a few frames, deeper calls are
// torch's utilities.
inline constexpr int kPythonDepth = 4;

// How many lines after its first an assignment's value is read on while a
// bracket stays open (a call's arguments, one or a few to a line): past
// that, a docstring's stray bracket rather than a statement.
inline constexpr int kStatementLines = 16;

// --- paths and conditions (trace_paths.cc and its parts, frame_bindings.cc, dtype_gates.cc, trace_typical.cc)

// How many frames (Python) or helpers (C++) back a condition on the way to a
// call is looked for.
inline constexpr int kConditionDepth = 6;
// How many assignments or calls back a variable's value (the decider of a
// condition) is followed, and how many helpers deep a dtype gate is read.
inline constexpr int kValueDepth = 4;
// The passes marking the typical path: each pass lets a decision flow one
// more level down the ops; the paths are a few levels deep.
inline constexpr int kTypicalPathPasses = 4;
// Frame bindings: how many assignments back a local's value is followed,
// how many frames an argument's value is carried down, and how many base
// classes' __init__ are read for self attributes.
inline constexpr int kLocalValueDepth = 3;
inline constexpr int kBindingFrameDepth = 6;
inline constexpr int kInitBaseDepth = 8;
// The most call sites of one function a condition reader holds while it
// merges the two sides of each if/else it splits (EitherBranch): an
// if / else-if chain merges a few times; beyond this the merging is
// combinatorial and says nothing more.
inline constexpr size_t kMaxMergedSites = 64;
// How deeply nested (parentheses, &&/||, ?:) a condition's text is read
// before it is left undecided: conditions as written are a few levels deep;
// a bound makes a pathological macro expansion cheap.
inline constexpr int kMaxConditionNesting = 32;
// The longest body (in lines) of a C++ predicate read inline: a chain of
// guards and a return (cudnn_is_acceptable's 15 lines, a library check's
// 30), not a function to evaluate.
inline constexpr int kMaxInlinePredicateLines = 40;
// The most calls of a function whose arguments are read to tell that a
// parameter is a size at every one: a launcher's few callers, not a
// utility's hundreds.
inline constexpr size_t kSizeCallersRead = 8;
// How many steps back (locals, a helper's returns, callers' arguments) a
// value is followed to find it a size of a tensor (trace/size_values.h):
// layer_norm_cuda's M is four.
inline constexpr int kSizeValueDepth = 6;

// How many #defines up a launch's #define is followed to the ones using it
// (CUDA_tensor_apply2: HANDLE_CASE <- HANDLE_B_CASE <- HANDLE_A_CASE): the
// few levels a dispatch-on-dims macro nest has.
inline constexpr size_t kMacroUserDepth = 3;

// How many other functions' launches of one kernel are kept to choose the
// launch the assumptions take (a functor's real and complex launchers).
inline constexpr size_t kOtherLaunchesRead = 4;

// --- kernel names (kernel_query.cc) -----------------------------------------

// The functions named as the starts of a kernel's paths, and the library
// call sites listed for a vendor kernel: examples enough to find the code.
inline constexpr size_t kKernelStartsListed = 8;
inline constexpr size_t kLibrarySitesListed = 12;

}  // namespace optrace
