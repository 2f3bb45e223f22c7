// Internals shared by the renderers: text (render.cc), the layer walk,
// summary table and notes (render_layers.cc), markdown and DOT
// (render_md.cc) and the main path (render_main.cc). Not part of the
// public API: render.h is.
#pragma once

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "trace/trace.h"

namespace optrace::render_detail {

// "add.Tensor" -> "add".
bool SameOp(std::string_view a, std::string_view b);
// Paths in the diagram drop the long ATen prefix; the walk and the table
// print them whole.
std::string ShortPath(const std::string& file);
std::string LocText(const Location& l, bool shorten = false);
Location YamlLocation(const NativeFunction* f);
Location DerivativeLocation(const DerivativeEntry* d);
std::string Join(const std::vector<std::string>& parts, std::string_view sep);
// Terminal columns of UTF-8 text.
size_t Columns(std::string_view s);
// Cut to `width` columns with an ellipsis.
std::string Fit(std::string_view s, size_t width);
// Word-wrapped to `width` columns; a word longer than a line is split, never cut.
std::vector<std::string> Wrap(std::string_view text, size_t width);
// Cut from the left ("…/native/cuda/x.cu:12").
std::string FitLeft(std::string_view s, size_t width);
std::string CleanLine(std::string_view line);
std::vector<std::string> SnippetLines(const std::string& snippet, size_t max_lines);
std::string OneLine(std::string_view s);
std::string SnippetLanguage(const std::string& file);
std::string ShortKey(const std::string& key);
bool MainDispatchKey(std::string_view key);
std::string DispatchSummary(const NativeFunction* f);

enum class Style { kPlain, kBold, kDim, kPath, kOp, kKernel, kLib, kWarn };

const char* StyleCode(Style s);

// Ops walked in tree order: entry ops first, each followed by the ops it
// reaches. An op is shown in full while few have been, and near the entry.
struct OpOrder {
  struct Item {
    size_t op;
    int level;  // tree level below its root
    bool full;
  };
  std::vector<Item> forward, backward;
  std::vector<std::vector<size_t>> children;  // by op index
  std::vector<int> level;                     // by op index; -1 = not placed
  std::vector<bool> full;
};

inline constexpr int kMaxFullOps = 8;
inline constexpr int kMaxFullBackwardOps = 4;
inline constexpr size_t kBigTraceOps = 40;
inline constexpr size_t kMaxSnippetLines = 5;
inline constexpr size_t kMaxWalkCalls = 12;     // calls of one Python frame in the walk
inline constexpr size_t kMaxCondensedOps = 40;  // condensed ops listed in the walk
inline constexpr size_t kMaxNotes = 30;
inline constexpr size_t kMaxFullDerivatives = 4;  // derivatives entries with formulas, beyond those of full ops
inline constexpr size_t kMaxIndent = 24;          // diagram columns of tree indentation
inline constexpr size_t kMaxFlowCalls = 8;        // calls of one Python frame drawn in the diagram
inline constexpr size_t kMaxFlowKernels = 6;      // kernels of one op drawn in the diagram
// Diagram lines for forward and backward ops; past them ops are only named.
inline constexpr size_t kFlowForwardLines = 150;
inline constexpr size_t kFlowBackwardLines = 60;
inline constexpr size_t kMaxFlowDecompositions = 12;
inline constexpr int kMaxFullLevel = 2;

OpOrder OrderOps(const Trace& t);

// A line of the diagram or the walk: pieces with styles, and an optional
// location placed in a column on the right.
struct Piece {
  std::string text;
  Style style = Style::kPlain;
};

class Painter {
 public:
  Painter(bool color, size_t width) : color_(color), width_(width) {}
  size_t width() const { return width_; }
  std::string Paint(const std::string& s, Style style) const {
    const char* code = StyleCode(style);
    if (!color_ || !code || s.empty()) return s;
    return std::string("\x1b[") + code + "m" + s + "\x1b[0m";
  }
  // prefix (plain) + pieces + loc, fitted to the width: pieces are cut
  // before the location is.
  std::string Line(const std::string& prefix, const std::vector<Piece>& pieces, const std::string& loc = "") const {
    size_t fixed = Columns(prefix);
    size_t loc_cols = loc.empty() ? 0 : Columns(loc) + 2;
    size_t room = width_ > fixed + loc_cols + 12 ? width_ - fixed - loc_cols : (width_ > fixed ? width_ - fixed : 0);
    std::string plain, painted;
    for (const auto& p : pieces) {
      if (Columns(plain) >= room) break;
      std::string text = Fit(p.text, room - Columns(plain));
      plain += text;
      painted += Paint(text, p.style);
    }
    std::string out = prefix + painted;
    if (!loc.empty()) {
      size_t used = fixed + Columns(plain);
      size_t column = std::max(used + 2, width_ > Columns(loc) + 40 ? std::min<size_t>(60, width_ - Columns(loc)) : 0);
      if (column + Columns(loc) <= width_) {
        out += std::string(column - used, ' ') + Paint(loc, Style::kPath);
      } else {
        out += "  " + Paint(Fit(loc, width_ > used + 2 ? width_ - used - 2 : 0), Style::kPath);
      }
    }
    return Fit(out, width_);
  }

 private:
  bool color_;
  size_t width_;
};

// The layer-by-layer walk and the summary table, as plain records that
// text and markdown both format.

struct Layer {
  std::string kind;  // "Python", "YAML", "C++ CUDA", "stub", "kernel", "library", "derivatives", ...
  std::string name;  // what is there
  Location where;
  std::vector<std::string> details;  // one short line each
  bool snippet = true;               // print where.snippet
};

struct Row {
  std::string layer, location, function;
};

// The table's layer column is 16 wide: composite keys get shorter names still.
std::string ImplKind(const ImplStep& im);
void OpLayers(const OpStep& op, std::vector<Layer>* layers);
// Layers of the walk: Python frames, full ops in tree order, derivatives,
// decompositions. Condensed ops go to *condensed.
std::vector<Layer> Layers(const Trace& t, const OpOrder& order, std::vector<const OpStep*>* condensed);
std::vector<Row> Rows(const Trace& t, const OpOrder& order);
// Notes: the tracer's, each op's, the Python frames' and the backward ones,
// plus what the trace itself shows about backends (libraries, dtypes).
std::vector<std::string> AllNotes(const Trace& t, const OpOrder& order);
std::string TargetLine(const Trace& t);
// Under the target of a profiler kernel name: (label, text) pairs (render_kernel.cc).
std::vector<std::pair<std::string, std::string>> KernelSourceLines(const Trace& t);
std::string CheckoutLine(const Trace& t);

inline constexpr size_t kMaxTableRows = 60;

// The flow diagram (render.cc): a tree from the Python entry through every
// op, each branch labelled with its condition.
std::vector<std::string> FlowLines(const Trace& t, const OpOrder& order, const Painter& p);

// The answer first (render_main.cc): the typical path on the traced device,
// as a tree of ops in walk order, each with what runs for that device.
struct MainPathOp {
  size_t op = 0;  // index into Trace::ops
  int level = 0;
  int overloads = 0;           // further overloads of the same base name, folded in
  std::vector<size_t> folded;  // ... those overloads' ops (autograd may record any of them)
  const ImplStep* impl = nullptr;
  const StubStep* stub = nullptr;
  const StubRegistrationStep* registration = nullptr;
  std::vector<const KernelStep*> kernels;
  std::vector<const LibraryStep*> libraries;
  const OpStep* stub_owner = nullptr;  // the op whose stub and helpers these are
  // Targets of stubs the assumptions rule out (scatter_reduce_cuda_kernel
  // under scatter_.src): never named on a launch's way.
  std::vector<std::string> ruled_out_targets;
  const Condition* when = nullptr;  // the deciding condition of its edge
  std::string when_text;            // as the line says it: every open condition of an open branch
  bool undecided = false;           // below a condition the assumptions cannot decide
};
struct MainPath {
  std::string device;   // "cuda" | "cpu"
  bool marked = false;  // the typical path was marked (the trace has assumptions)
  std::vector<MainPathOp> forward, backward;
  std::vector<const BackwardStep*> derivatives;
  std::vector<const OpStep*> undecided;  // branches the assumptions leave open
  // Ops off the path that a selection's alternative runs, keyed by the
  // alternative's condition and location ("unless C@file:line").
  std::map<std::string, std::vector<MainPathOp>> alternative_ops;
  // Ops an argument chooses that the defaults do not -- entry ops a Python
  // argument picks, ops an op on the path calls on a branch of its own
  // non-Tensor argument (log_target) -- (their `when` is the deciding
  // condition), with what they run.
  std::vector<MainPathOp> argument_ops;
};
MainPath ComputeMainPath(const Trace& t);
// The section's lines, `width` columns, identifiers wrapped, never cut.
std::vector<std::string> MainPathLines(const Trace& t, const MainPath& m, size_t width, bool alternatives);

}  // namespace optrace::render_detail
