// `optrace verify`: what the installed torch really ran, joined with the
// static trace of the checkout. Observing (the Python driver) and joining
// (here) are separate steps joined by one JSON document (optrace.observed/1),
// so the run can happen on a machine with a GPU and no checkout, and the join
// where the checkout is.
//
// The join, per query:
//   * every static op, implementation, helper, stub, kernel and library of
//     the trace (traced for the run's device) is marked observed or not
//     observed, with the evidence: the profiler saw the op; the dispatch
//     table sends that device there (an implementation, its stubs and CPU
//     kernels are not visible to the profiler, so they are observed only by
//     that rule, and say so); a CUDA kernel's name holds the static kernel's
//     name; a vendor library's kernel ran inside an op whose trace calls it;
//   * every runtime aten op (and CUDA kernel) the trace does not name is
//     unexplained, with the innermost traced op that was running around it
//     (or the autograd node). An op that ran outside every traced op (the
//     user's setup code, the autograd engine's bookkeeping) is listed apart
//     as "outside" and does not count against the trace;
//   * with the versions differing, runtime ops the tree's native_functions
//     does not define, and kernels none of whose identifiers the tree
//     defines, are "not in the tree" and leave the share too.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/status.h"
#include "index/index.h"
#include "trace/trace.h"

namespace optrace {

// ---- what ran (optrace.observed/1, written by verify_driver.py)

struct ObservedKernel {
  std::string name;  // the profiler's (demangled) kernel name
  int count = 0;
};

struct ObservedOp {
  std::string name;                // aten op without "aten::": "_softmax"
  std::vector<std::string> stack;  // enclosing aten ops, outermost first
  std::string phase;               // "forward" | "backward"
  std::string autograd_node;       // "SoftmaxBackward0" for backward ops, else ""
  int count = 0;
  std::vector<ObservedKernel> kernels;  // CUDA kernels this op launched itself
};

struct ObservedRun {
  std::string label;          // "softmax sample 0 (float32)"
  std::string query;          // what to trace for it
  std::string error;          // "" when it ran
  bool setup_in_run = false;  // the user's code: top-level ops may be setup
  std::vector<ObservedOp> ops;
  std::map<std::string, std::vector<std::string>> overloads;  // "_softmax" -> {"default"}
};

struct Observed {
  std::string torch_version, python, device = "cpu", device_name, cuda, dtype;
  double seconds = 0;
  int error_code = 0;  // the driver's: 10 torch missing, 11 device, 12 code raised, 13 no OpInfo, 14 config
  std::string error;
  std::vector<ObservedRun> runs;
};

// Parses the driver's stdout (or a saved file). Usage error when it is not
// an optrace.observed/1 document.
Status ParseObserved(const std::string& text, Observed* out);
nlohmann::ordered_json ObservedToJson(const Observed& observed);

// ---- running the installed torch

struct VerifyRequest {
  std::string mode = "opinfo";  // "code" | "file" | "opinfo" (OpInfo, else ModuleInfo) | "all-opinfo"
  std::string query;            // what to trace (and, for "opinfo", to look up)
  std::string code;             // "code" and "file": the Python source
  std::string filename = "<code>";
  std::string device = "cpu";  // "cpu" | "cuda"
  std::string dtype;           // "float32", ... ("" = the inputs' own / the first supported)
  int samples = 3;             // OpInfo samples / ModuleInfo inputs per entry
  int timeout_s = 900;
};

// verify's own exit code beside Status's: the installed torch could not run
// it (no Python or torch, no device, the code raised, timed out).
inline constexpr int kExitTorchFailed = 4;

struct ObserveStatus {
  int exit_code = 0;  // 0, 1 (no OpInfo/ModuleInfo matches), 2 (bad dtype), kExitTorchFailed
  std::string message;
  bool ok() const { return exit_code == 0; }
};

// Runs the embedded driver with the chosen interpreter (python_run.h).
ObserveStatus ObserveWithTorch(const VerifyRequest& request, Observed* out);

// ---- the join

struct StaticMark {
  std::string kind;    // "op" | "impl" | "helper" | "stub" | "kernel" | "library"
  std::string name;    // op "softmax.int", impl function, stub, kernel or library name
  std::string op;      // the op it belongs to
  std::string detail;  // dispatch key, kernel device, library calls ...
  Location where;
  bool observed = false;
  std::string evidence;  // why observed: "profiler", "dispatch table (cpu)", "kernel name", "library kernel"
  int count = 0;         // runtime calls (ops) or launches (kernels)
  std::vector<std::string> runtime_names;  // kernels: the runtime names it matched
  bool overload_told = true;  // ops: false when the base name ran but which of its traced overloads is not known
  bool on_path = false;       // stubs, CPU kernels: on the device path of an op that ran, but invisible to the profiler
};

struct RuntimeItem {
  std::string name;  // aten op or kernel name
  std::string phase;
  std::string op;       // kernels: the aten op that launched it
  std::string nearest;  // innermost traced op running around it ("" = none)
  std::string autograd_node;
  std::vector<std::string> stack;
  int count = 0;
};

struct ShareCounts {
  int total = 0, explained = 0, unexplained = 0, outside = 0, not_in_tree = 0;
  int explained_by_library = 0;   // kernels only
  int explained_inside_call = 0;  // ops only: ran inside a call the trace names but does not follow
  double Share() const { return explained + unexplained ? 100.0 * explained / (explained + unexplained) : 100.0; }
};

struct QueryVerification {
  std::string query;
  std::string trace_error;  // "" when traced
  std::string target;       // "functional torch.nn.functional.softmax"
  std::vector<std::string> runs, run_errors;
  std::vector<StaticMark> marks;
  std::vector<RuntimeItem> explained_ops, unexplained_ops, outside_ops, not_in_tree_ops;
  std::vector<RuntimeItem> explained_kernels, unexplained_kernels, not_in_tree_kernels;
  ShareCounts ops, kernels;
};

struct VerifyReport {
  Observed observed;  // runs' ops left in: JSON writes them only on request
  std::string source_root, source_version, warning;
  std::vector<QueryVerification> queries;
  ShareCounts ops, kernels;  // over every query
};

struct VerifyOptions {
  bool backward = true;
  int depth = TraceOptions().depth;
};

// Traces each query of the observed runs for their device and joins.
VerifyReport JoinObserved(const Index& index, const Observed& observed, const VerifyOptions& options);
// The join of one query's runs with its trace (exposed for tests).
QueryVerification JoinTrace(const Index* index, const Trace& trace, const std::vector<const ObservedRun*>& runs,
                            const std::string& device);

// "2.6.0a0" vs "2.11.0+cu130": a warning naming both, else "".
std::string VerifyVersionWarning(const std::string& tree_version, const std::string& torch_version);

// optrace.verify/1 (doc/verify-schema.md); `summary_only` leaves out the
// per-query details (the --all-opinfo gap report).
nlohmann::ordered_json VerifyToJson(const VerifyReport& report, bool summary_only);
std::string VerifyText(const VerifyReport& report, bool markdown);

}  // namespace optrace
