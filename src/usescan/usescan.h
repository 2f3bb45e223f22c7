// `optrace scan`: which PyTorch ops a user's Python file runs. The file is
// scanned with the same structural pass as the checkout (ScanPyFile), and its
// names are resolved against the checkout's Python index and YAML model: the
// file's imports say what `F`, `nn` or `torch` are, nn.Module subclasses say
// which layers __init__ builds and forward calls, torch.autograd.Function
// subclasses say what their forward and backward run. Each op found carries
// every file:line that uses it and a classification taken from the checkout
// (tags, schemas, the nn module a layer lives in). Nothing is guessed: what
// cannot be resolved statically is listed as unresolved.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/status.h"
#include "index/index.h"
#include "trace/trace.h"

namespace optrace {

// One place the user's file uses an op.
struct ScanUse {
  uint32_t line = 0;
  std::string function;   // qualname of the enclosing function: "Attention.forward"
  std::string how;        // "call", "layer self.qkv", "built", "method on q", "operator @"
  std::string arguments;  // a call's argument text as written (whitespace collapsed; "" when cut short)
};

// How a user's file reaches an op. Its JSON/text spelling: ScanOpKindName.
enum class ScanOpKind : uint8_t { kModule, kFunctional, kTorch, kMethod, kOperator, kAten };
// "module" | "functional" | "torch" | "method" | "operator" | "aten"
const char* ScanOpKindName(ScanOpKind kind);

struct ScanOp {
  std::string query;  // what `optrace trace` takes: "nn.Linear", "F.gelu", "torch.rsqrt",
                      // "Tensor.softmax", "Tensor.__matmul__", "aten::add.Tensor"
  ScanOpKind kind = ScanOpKind::kTorch;
  std::string resolved;                // "torch.nn.modules.linear.Linear", "aten::rsqrt", ...
  std::string aten;                    // the aten base name the classification looked at ("" when none)
  std::string category;                // pointwise | reduction | view/shape | factory | in-place | indexing |
                                       // matmul/BLAS | normalization | convolution | attention | RNN | loss | other
  std::string basis;                   // why: "tag pointwise (aten/src/ATen/native/native_functions.yaml:5156)"
  bool inferred = false;               // an operator (a @ b): operand types are not known statically
  bool needs_trace = false;            // not a well-known kind: the full trace is what tells what runs
  std::string summary;                 // one line for well-known kinds
  std::vector<std::string> receivers;  // tensor methods: receiver texts as written ("x", "q")
  std::vector<ScanUse> uses;           // sorted by line, one per (line, how)
};

// What `scan --trace` traces for `op`: its query, as the call the file
// writes (`F.interpolate(x, mode='bicubic')`, `nn.Linear(d, 4 * d, bias=False)`)
// when every call or construction of it passes the same arguments and one
// of them is a literal that can decide the path; else the plain query.
std::string TraceQueryOf(const ScanOp& op);

// A function of the user's file that runs ops.
struct ScanFunction {
  std::string qualname;  // "Attention.forward", "ScaledTanh.backward", "gelu_mlp"
  std::string role;      // "module forward" | "autograd forward" | "autograd backward" | "helper" | "function"
  std::string owner;     // class for methods ("Attention"), "" otherwise
  uint32_t line = 0;
  std::vector<std::string> ops;             // queries, first use first
  std::vector<std::string> calls;           // the file's own functions it follows ("Attention._split")
  std::vector<uint32_t> save_for_backward;  // lines of ctx.save_for_backward(...)
  std::vector<uint32_t> saved_tensors;      // lines reading ctx.saved_tensors
};

// A layer built in a module's __init__.
struct ScanLayer {
  std::string owner;     // "Attention"
  std::string attr;      // "qkv" ("" when not bound to self.X, e.g. inside nn.Sequential)
  std::string query;     // "nn.Linear" or the file's own class "RMSNorm"
  std::string resolved;  // "torch.nn.modules.linear.Linear"; "" for the file's own classes
  uint32_t line = 0;
  std::string container;  // attribute of the nn.Sequential/ModuleList holding it, else ""
};

// An autograd.Function subclass and where .apply is called.
struct ScanAutograd {
  std::string name;
  uint32_t line = 0;
  std::vector<ScanUse> applied;  // lines calling Name.apply(...)
};

struct ScanUnresolved {
  uint32_t line = 0;
  std::string function;
  std::string text;    // the callee as written
  std::string reason;  // "getattr with a string", "**kwargs passed through", "call on an unknown object"
};

struct ScanReport {
  std::string file;  // as given
  std::string source_root, source_version;
  // The user's torch and the version-mismatch warning (set by the caller, as for Trace).
  std::optional<std::string> installed_torch;
  std::string source_warning;
  std::vector<std::string> modules;  // nn.Module subclasses, file order
  std::vector<ScanLayer> layers;
  std::vector<ScanAutograd> autograd;
  std::vector<ScanFunction> functions;  // those that run ops, file order
  std::vector<ScanOp> ops;              // by first use
  std::vector<ScanUnresolved> unresolved;
  // Records the scan visited (calls, uses, lookups): what it cost, so a test
  // can hold the scan to linear time without timing it. Not in the JSON.
  uint64_t work = 0;
};

// Scans the text of a user's file against the checkout's index. kSource when
// the file does not parse; kNotFound when it uses no torch op (the report is
// still filled with what was seen).
Status ScanUserFile(const Index& index, std::string_view path, std::string_view text, ScanReport* out);

// Keeps only class `name`'s functions and what they follow (helpers, other
// classes' forwards), the ops they use and the layers `name` builds.
void FilterScanToClass(ScanReport* report, const std::string& name);

// The optrace.scan/1 document (doc/scan-schema.md); `traces` may be empty.
nlohmann::ordered_json ScanToJson(const ScanReport& report, const std::vector<Trace>& traces);
// Text and markdown faces. The traces (of ops needing one) are appended: a
// brief block each (entry, Python path, first implementation and kernels per
// device, backward), or, with `full`, each whole trace as `optrace trace`
// renders it.
std::string RenderScanText(const ScanReport& report, const std::vector<Trace>& traces, int width, bool full = false);
std::string RenderScanMarkdown(const ScanReport& report, const std::vector<Trace>& traces, bool full = false);
// The brief block of one trace: a few lines, each "label: facts".
std::vector<std::string> TraceBriefLines(const Trace& trace);

}  // namespace optrace
