// Renderers: one Trace, four faces. The JSON face is the contract
// (optrace.trace/1, doc/trace-schema.md) and carries no code snippets, so an
// agent's context stays small; the text face is for a 100-column terminal
// (flow diagram, layer-by-layer walk with snippets, summary table, notes);
// markdown is the text face in headings, tables and fenced code; DOT draws
// ops -> implementations -> kernels/libraries with backward edges dashed.
//
// Big traces (nn.MultiheadAttention reaches 30+ ops) stay readable because
// only the first few ops near the entry are shown in full; deeper ones get
// one line each in the diagram and the walk. Nothing here looks anything up:
// every fact printed is in the Trace, with the file:line the tracer gave it.
#include "render/render.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <sstream>

#include "base/text.h"
#include "render/render_internal.h"

namespace optrace {

using Json = nlohmann::ordered_json;
using namespace render_detail;

// One encoder: the streaming writer (render_json.cc) is the contract; a value
// is its text parsed back, so the two can never disagree.
Json TraceToJson(const Trace& t) { return Json::parse(RenderJson(t)); }

namespace {

// ----- The flow diagram.

class FlowWriter {
 public:
  FlowWriter(const Trace& t, const OpOrder& order, const Painter& p) : t_(t), order_(order), p_(p) {}

  std::vector<std::string> Lines() {
    // An aten query is its own entry op: no call line above it.
    bool call_line = !(t_.python.empty() && t_.target_kind == TargetKind::kAten);
    if (call_line) lines_.push_back(p_.Line("", {{UserCall(), Style::kBold}}));
    // A helper frame (no bridge, calls nothing that reaches aten or another
    // frame, e.g. _get_softmax_dim) hangs beside the chain instead of
    // sitting in it: the ops below do not come from it.
    std::vector<bool> helper(t_.python.size(), false);
    for (size_t i = 1; i < t_.python.size(); ++i) {
      const PyFrame& f = t_.python[i];
      bool leads_on = !f.bridge.empty();
      for (const auto& c : f.calls) {
        if (StartsWith(c.resolved, "aten::")) leads_on = true;
        for (const auto& g : t_.python)
          if (!c.resolved.empty() && g.symbol == c.resolved) leads_on = true;
      }
      helper[i] = !leads_on;
    }
    for (size_t i = 0; i < t_.python.size(); ++i) {
      const PyFrame& f = t_.python[i];
      if (helper[i]) {
        lines_.push_back(p_.Line("  │  ", {{"↳ helper " + f.symbol, Style::kDim}}, LocText(f.where, true)));
        continue;
      }
      Arrow("  ");
      lines_.push_back(p_.Line("",
                               {{f.symbol, Style::kBold}, {f.note.empty() ? "" : "  (" + f.note + ")", Style::kDim}},
                               LocText(f.where, true)));
      for (size_t ci = 0; ci < f.calls.size(); ++ci) {
        const PyCallStep& c = f.calls[ci];
        if (ci == kMaxFlowCalls && f.calls.size() > kMaxFlowCalls + 1) {
          lines_.push_back(p_.Line(
              "  │  ", {{"… " + std::to_string(f.calls.size() - ci) + " more calls (see Layers)", Style::kDim}}));
          break;
        }
        std::string what =
            c.callee + "  (" + std::string(Name(c.kind)) + (c.line > 0 ? ", :" + std::to_string(c.line) : "") + ")";
        if (!c.resolved.empty() && c.resolved != c.callee) what += " → " + c.resolved;
        lines_.push_back(p_.Line("  │  ", {{what, Style::kPlain}}));
      }
      if (!f.bridge.empty()) lines_.push_back(p_.Line("  │  ", {{"bridge: " + f.bridge, Style::kDim}}));
    }
    std::vector<size_t> roots;
    for (const auto& item : order_.forward)
      if (item.level == 0) roots.push_back(item.op);
    if (!roots.empty() && call_line) Arrow("  ");
    Budget(kFlowForwardLines);
    for (size_t r = 0; r < roots.size(); ++r) {
      if (r && lines_.size() < line_limit_) lines_.push_back("");  // several entry ops: one tree each
      Op(roots[r], "", "");
    }
    Deferred("");
    Undrawn("");
    BackwardLines();
    if (!t_.decompositions.empty()) {
      lines_.push_back("");
      lines_.push_back(p_.Line("", {{"decompositions (torch.compile / export)", Style::kBold}}));
      size_t shown =
          t_.decompositions.size() > kMaxFlowDecompositions + 1 ? kMaxFlowDecompositions : t_.decompositions.size();
      for (size_t i = 0; i < shown; ++i) {
        const auto& d = t_.decompositions[i];
        bool last = i + 1 == t_.decompositions.size();
        lines_.push_back(p_.Line(last ? "  └─ " : "  ├─ ",
                                 {{d.op, Style::kOp}, {"  " + d.registry + "  " + d.function, Style::kPlain}},
                                 LocText(d.where, true)));
      }
      if (shown < t_.decompositions.size())
        lines_.push_back(p_.Line(
            "  └─ ", {{"… " + std::to_string(t_.decompositions.size() - shown) + " more (Summary and --json have them)",
                       Style::kDim}}));
    }
    return std::move(lines_);
  }

 private:
  std::string UserCall() const {
    const TargetKind k = t_.target_kind;
    if (t_.call_query) return t_.query;  // the user's own call, as written
    if (k == TargetKind::kModule || k == TargetKind::kFunctional || k == TargetKind::kTorch || k == TargetKind::kPython)
      return t_.query + "(...)";
    if (k == TargetKind::kMethod) return "tensor." + t_.target_name.substr(t_.target_name.rfind('.') + 1) + "(...)";
    return t_.query;
  }

  void Arrow(const std::string& indent) {
    lines_.push_back(indent + "│");
    lines_.push_back(indent + "▼");
  }

  // Children of an op node, in order: implementations, stubs (with their
  // registrations below), kernels, libraries, aten calls that lead nowhere
  // else, then the ops it reaches. Past kMaxIndent columns the ops it reaches
  // are drawn later as new roots, so deep chains do not march off the page.
  void Op(size_t i, const std::string& prefix, const std::string& branch, const std::string& from = "") {
    const OpStep& op = t_.ops[i];
    if (drawn_.count(i)) return;
    if (lines_.size() >= line_limit_) {
      Skip(i);
      return;
    }
    drawn_.insert(i);
    std::vector<Piece> head = {{"aten::" + op.name, Style::kOp}};
    if (!from.empty()) head.push_back({"  (from " + from + ")", Style::kDim});
    // The branch label: the condition that takes this edge (innermost first).
    for (auto it = op.when.rbegin(); it != op.when.rend(); ++it) {
      if (it->kind == ConditionKind::kDevice || it->kind == ConditionKind::kPreprocessor) continue;
      head.push_back({"  [" + it->Describe() + "]", Style::kDim});
      break;
    }
    std::string summary = DispatchSummary(op.yaml);
    if (!order_.full[i]) {
      head.push_back({"  " + Condensed(op), Style::kPlain});
    } else if (!summary.empty()) {
      head.push_back({"  " + summary, Style::kDim});
    }
    lines_.push_back(p_.Line(prefix + branch, head, LocText(YamlLocation(op.yaml), true)));
    std::string inner = prefix + (branch.empty() ? "" : branch == "└─▶ " ? "    " : "│   ");
    struct Sub {
      std::vector<Piece> pieces;
      std::string loc;
    };
    struct Child {
      std::vector<Piece> pieces;
      std::string loc;
      std::vector<Sub> subs = {};
      long op = -1;
    };
    std::vector<Child> kids;
    if (order_.full[i]) {
      for (const auto& im : op.impls) {
        std::string form = im.form == ImplForm::kNone || im.form == ImplForm::kFunction
                               ? ""
                               : "  [" + std::string(Name(im.form)) + "]";
        kids.push_back({{{Pad(ShortKey(im.key), 5), Style::kBold}, {" " + im.function + form, Style::kPlain}},
                        LocText(im.where, true)});
      }
      for (const auto& s : op.stubs) {
        Child c{{{"stub  ", Style::kBold}, {s.name, Style::kPlain}}, LocText(s.declared, true)};
        for (const auto& r : s.registrations)
          c.subs.push_back({{{r.device + " → ", Style::kDim}, {r.target, Style::kPlain}},
                            LocText(r.target_definition.valid() ? r.target_definition : r.where, true)});
        kids.push_back(std::move(c));
      }
      for (size_t ki = 0; ki < op.kernels.size(); ++ki) {
        if (ki == kMaxFlowKernels && op.kernels.size() > kMaxFlowKernels + 1) {
          kids.push_back(
              {{{"… " + std::to_string(op.kernels.size() - ki) + " more kernels (see Layers)", Style::kDim}}, ""});
          break;
        }
        const KernelStep& k = op.kernels[ki];
        Child c{{{"kernel ", Style::kBold},
                 {k.name, Style::kKernel},
                 {"  " + std::string(Name(k.device)) + " " + std::string(Name(k.launch)), Style::kDim}},
                LocText(k.where, true)};
        if (k.path.size() > 1) c.subs.push_back({{{"via " + Join(k.path, " → "), Style::kDim}}, ""});
        kids.push_back(std::move(c));
      }
      for (const auto& l : op.libraries) {
        kids.push_back({{{"lib   ", Style::kBold}, {l.name, Style::kLib}, {"  " + Join(l.calls, ", "), Style::kPlain}},
                        LocText(l.where, true)});
      }
      // The aten ops called that are not drawn below, by name only: the
      // walk has every call site.
      std::vector<std::string> called;
      for (const auto& c : op.calls) {
        if (ReachedOp(i, c.op) >= 0) continue;
        if (std::find(called.begin(), called.end(), c.op) == called.end()) called.push_back(c.op);
      }
      if (!called.empty()) kids.push_back({{{"calls ", Style::kBold}, {Join(called, ", "), Style::kPlain}}, ""});
    }
    bool too_deep = Columns(inner) >= kMaxIndent;
    for (size_t c : order_.children[i]) {
      if (too_deep) deferred_.push_back({c, op.name});
      else kids.push_back({{}, "", {}, static_cast<long>(c)});
    }
    if (too_deep && !order_.children[i].empty())
      kids.push_back(
          {{{"▶ " + std::to_string(order_.children[i].size()) + " op(s) continued below", Style::kDim}}, ""});
    for (size_t k = 0; k < kids.size(); ++k) {
      bool last = k + 1 == kids.size();
      if (kids[k].op >= 0) {
        Op(kids[k].op, inner, last ? "└─▶ " : "├─▶ ");
        continue;
      }
      lines_.push_back(p_.Line(inner + (last ? "└─ " : "├─ "), kids[k].pieces, kids[k].loc));
      const auto& subs = kids[k].subs;
      for (size_t j = 0; j < subs.size(); ++j) {
        std::string sub_prefix = inner + (last ? "   " : "│  ") +
                                 (subs[j].loc.empty()    ? "   "
                                  : j + 1 == subs.size() ? "└─ "
                                                         : "├─ ");
        lines_.push_back(p_.Line(sub_prefix, subs[j].pieces, subs[j].loc));
      }
    }
  }

  // An op (and the ops below it) left out once the diagram is long enough.
  void Skip(size_t i) {
    if (drawn_.count(i)) return;
    drawn_.insert(i);
    undrawn_.push_back(t_.ops[i].name);
    for (size_t c : order_.children[i]) Skip(c);
  }

  // Starts a part of the diagram that may draw `lines` lines of ops.
  void Budget(size_t lines) {
    line_limit_ = lines_.size() + lines;
    undrawn_.clear();
  }

  // Names the ops the budget left out.
  void Undrawn(const std::string& indent) {
    if (undrawn_.empty()) return;
    lines_.push_back(p_.Line(
        indent, {{"… " + std::to_string(undrawn_.size()) + " more ops not drawn (Summary and --json have them):",
                  Style::kDim}}));
    for (const auto& line : Wrap(Join(undrawn_, ", "), p_.width() - indent.size() - 2))
      lines_.push_back(indent + "  " + line);
  }

  // Ops whose parents sat too deep, drawn as roots (and so on, until none is left).
  void Deferred(const std::string& indent) {
    while (!deferred_.empty()) {
      auto [op, from] = deferred_.front();
      deferred_.erase(deferred_.begin());
      if (drawn_.count(op)) continue;
      lines_.push_back(indent + "┆");
      Op(op, indent, "", from);
    }
  }

  // The op reached through a call from op i, if it is drawn as a child.
  long ReachedOp(size_t i, const std::string& name) const {
    for (size_t c : order_.children[i])
      if (SameOp(t_.ops[c].name, name)) return static_cast<long>(c);
    return -1;
  }

  static std::string Pad(const std::string& s, size_t n) {
    return Columns(s) >= n ? s : s + std::string(n - Columns(s), ' ');
  }

  // One line for an op not shown in full: its CPU/CUDA functions and what runs.
  static std::string Condensed(const OpStep& op) {
    std::vector<std::string> parts, ran;
    auto add = [](std::vector<std::string>& list, std::string item) {
      if (std::find(list.begin(), list.end(), item) == list.end()) list.push_back(std::move(item));
    };
    for (const auto& im : op.impls)
      if (im.key != "Meta") add(parts, ShortKey(im.key) + " " + im.function);
    std::string out = Join(parts, " · ");
    for (const auto& k : op.kernels) add(ran, k.name);
    for (const auto& l : op.libraries) add(ran, l.name);
    if (!ran.empty()) out += (out.empty() ? "" : "  ") + std::string("⇒ ") + Join(ran, ", ");
    return out;
  }

  void BackwardLines() {
    if (t_.backward.empty() && order_.backward.empty()) return;
    lines_.push_back("");
    lines_.push_back(p_.Line("", {{"backward (autograd)", Style::kBold}}));
    Budget(kFlowBackwardLines);
    std::set<size_t> placed;
    std::vector<std::string> skipped;  // derivatives entries past the budget
    for (const auto& b : t_.backward) {
      if (lines_.size() >= line_limit_) {
        skipped.push_back(b.op);
        continue;
      }
      std::string formulas;
      if (b.derivatives) {
        std::vector<std::string> inputs;
        for (const auto& f : b.derivatives->formulas) inputs.push_back(f.inputs);
        formulas = Join(inputs, "; ");
      }
      std::vector<Piece> head = {{"∂ " + b.op, Style::kOp}};
      if (!formulas.empty()) head.push_back({"  " + formulas, Style::kDim});
      if (!b.derivatives && !b.note.empty()) head.push_back({"  " + b.note, Style::kDim});
      lines_.push_back(p_.Line("  ", head, LocText(DerivativeLocation(b.derivatives), true)));
      std::vector<size_t> kids;
      for (const auto& item : order_.backward) {
        if (item.level != 0 || placed.count(item.op)) continue;
        const OpStep& op = t_.ops[item.op];
        bool named = std::any_of(b.ops.begin(), b.ops.end(), [&](const std::string& n) { return SameOp(op.name, n); });
        if (named || SameOp(op.reached_from, b.op)) kids.push_back(item.op);
      }
      std::vector<std::string> unnamed;  // backward ops the formulas name but the trace did not follow
      for (const auto& n : b.ops) {
        bool drawn = std::any_of(kids.begin(), kids.end(), [&](size_t k) { return SameOp(t_.ops[k].name, n); });
        if (!drawn) unnamed.push_back(n);
      }
      if (!unnamed.empty()) lines_.push_back(p_.Line("    ", {{"uses " + Join(unnamed, ", "), Style::kPlain}}));
      for (size_t k = 0; k < kids.size(); ++k) {
        placed.insert(kids[k]);
        Op(kids[k], "    ", k + 1 == kids.size() ? "└─▶ " : "├─▶ ");
      }
    }
    for (const auto& item : order_.backward)
      if (item.level == 0 && !placed.count(item.op)) Op(item.op, "  ", "└─▶ ");
    Deferred("  ");
    if (!skipped.empty()) {
      lines_.push_back(p_.Line("  ", {{"… " + std::to_string(skipped.size()) +
                                           " more derivatives.yaml entries (Summary and --json have them):",
                                       Style::kDim}}));
      for (const auto& line : Wrap(Join(skipped, ", "), p_.width() - 4)) lines_.push_back("    " + line);
    }
    Undrawn("  ");
  }

  const Trace& t_;
  const OpOrder& order_;
  const Painter& p_;
  std::set<size_t> drawn_;
  std::vector<std::pair<size_t, std::string>> deferred_;  // (op, the op it is reached from)
  size_t line_limit_ = SIZE_MAX;
  std::vector<std::string> undrawn_;
  std::vector<std::string> lines_;
};

// The flow tree, the layer walk and the summary table (--detail full).
void FullSections(std::ostringstream& out, const Trace& t, const OpOrder& order, const Painter& p,
                  const std::function<void(const std::string&)>& section) {
  size_t width = p.width();
  if (!t.python.empty() || !t.ops.empty()) {
    section("Flow");
    for (const auto& line : FlowWriter(t, order, p).Lines()) out << line << "\n";
  }

  std::vector<const OpStep*> condensed;
  std::vector<Layer> layers = Layers(t, order, &condensed);
  if (!layers.empty()) {
    section("Layers");
    for (size_t i = 0; i < layers.size(); ++i) {
      const Layer& l = layers[i];
      std::string num = std::to_string(i + 1);
      num = std::string(num.size() < 3 ? 3 - num.size() : 0, ' ') + num + "  ";
      out << p.Line(num, {{l.kind + "  ", Style::kBold}, {l.name, Style::kOp}}) << "\n";
      if (l.where.valid()) out << p.Line("     ", {{LocText(l.where), Style::kPath}}) << "\n";
      if (l.snippet && !l.where.snippet.empty()) {
        int n = l.where.line;
        for (const auto& code : SnippetLines(l.where.snippet, kMaxSnippetLines)) {
          std::string num_col = std::to_string(n++);
          num_col = std::string(num_col.size() < 6 ? 6 - num_col.size() : 0, ' ') + num_col;
          out << p.Line("     ", {{num_col + " │ ", Style::kDim}, {code, Style::kPlain}}) << "\n";
        }
      }
      for (const auto& d : l.details) {
        std::vector<std::string> wrapped = Wrap(d, width - 9);
        for (size_t k = 0; k < wrapped.size(); ++k) out << (k ? "         " : "       ") << wrapped[k] << "\n";
      }
    }
    if (!condensed.empty()) {
      out << p.Line("", {{"     deeper ops (shown condensed; --json has everything):", Style::kDim}}) << "\n";
      for (size_t ci = 0; ci < condensed.size(); ++ci) {
        const OpStep* op = condensed[ci];
        if (ci == kMaxCondensedOps && condensed.size() > kMaxCondensedOps + 1) {
          out << p.Line("       ", {{"… " + std::to_string(condensed.size() - ci) + " more (--json)", Style::kDim}})
              << "\n";
          break;
        }
        std::vector<std::string> impls;
        for (const auto& im : op->impls) impls.push_back(im.key + " " + im.function);
        out << p.Line("       · ", {{op->name, Style::kOp}, {"  " + Join(impls, ", "), Style::kPlain}},
                      LocText(YamlLocation(op->yaml)))
            << "\n";
      }
    }
  }

  std::vector<Row> rows = Rows(t, order);
  if (!rows.empty()) {
    section("Summary");
    // Columns: layer (at most 16), file:line and the function. A path too
    // long for its column loses its head ("…/native/cuda/x.cu:12": the walk
    // above has it whole); a function too long wraps onto continuation rows.
    size_t c1 = 5, c2 = 9, c3 = 8;
    for (const auto& r : rows) {
      c1 = std::max(c1, Columns(r.layer));
      c2 = std::max(c2, Columns(r.location));
      c3 = std::max(c3, Columns(r.function));
    }
    size_t room = width - 6;  // two " │ " separators
    c1 = std::min({c1, size_t{16}, room / 4});
    c2 = std::min(c2, room - c1 - std::min({c3, size_t{34}, room / 3}));
    c3 = room - c1 - c2;
    auto row = [&](const std::string& a, const std::string& b, const std::string& c, Style s) {
      std::vector<std::string> cells = Wrap(c, c3);
      for (size_t k = 0; k < cells.size(); ++k) {
        std::string a2 = k ? "" : Fit(a, c1), b2 = k ? "" : FitLeft(b, c2);
        out << p.Paint(a2, s) << std::string(c1 - Columns(a2), ' ') << " │ "
            << p.Paint(b2, s == Style::kBold ? s : Style::kPath) << std::string(c2 - Columns(b2), ' ') << " │ "
            << p.Paint(cells[k], s) << "\n";
      }
    };
    row("layer", "file:line", "function", Style::kBold);
    std::string rule;
    for (size_t i = 0; i < c1 + 1; ++i) rule += "─";
    rule += "┼";
    for (size_t i = 0; i < c2 + 2; ++i) rule += "─";
    rule += "┼";
    for (size_t i = 0; i < c3 + 1; ++i) rule += "─";
    out << rule << "\n";
    for (size_t i = 0; i < rows.size() && i < kMaxTableRows; ++i)
      row(rows[i].layer, rows[i].location, rows[i].function, Style::kPlain);
    if (rows.size() > kMaxTableRows)
      out << p.Paint(
                 "… " + std::to_string(rows.size() - kMaxTableRows) + " more rows (--json or --format md lists all)",
                 Style::kDim)
          << "\n";
  }
}

}  // namespace

std::vector<std::string> render_detail::FlowLines(const Trace& t, const OpOrder& order, const Painter& p) {
  return FlowWriter(t, order, p).Lines();
}

std::string RenderText(const Trace& t, const RenderOptions& options) {
  Painter p(options.color, static_cast<size_t>(std::max(40, options.width)));
  size_t width = p.width();
  OpOrder order = OrderOps(t);
  std::ostringstream out;
  auto section = [&](const std::string& title) {
    std::string bar = "── " + title + " ";
    bar += std::string();
    while (Columns(bar) < width) bar += "─";
    out << "\n" << p.Paint(bar, Style::kBold) << "\n";
  };
  out << p.Line("", {{"optrace trace ", Style::kBold}, {t.query, Style::kBold}}) << "\n";
  out << p.Line("  ", {{"target    ", Style::kDim}, {TargetLine(t), Style::kPlain}}) << "\n";
  for (const auto& [label, text] : KernelSourceLines(t)) {
    out << p.Line("  ", {{label + std::string(label.size() < 10 ? 10 - label.size() : 1, ' '), Style::kDim},
                         {text, Style::kPlain}})
        << "\n";
  }
  out << p.Line("  ", {{"checkout  ", Style::kDim}, {CheckoutLine(t), Style::kPlain}}) << "\n";
  if (t.installed_torch)
    out << p.Line("  ", {{"torch     ", Style::kDim}, {*t.installed_torch + " (installed)", Style::kPlain}}) << "\n";
  if (!t.source_warning.empty()) out << "  " << p.Paint(t.source_warning, Style::kBold) << "\n";  // whole, never cut

  const bool brief = options.detail == RenderOptions::Detail::kBrief;
  std::set<std::string> on_path;  // ops the main path draws: brief notes are theirs
  if (!t.ops.empty()) {
    std::vector<std::string> assumed;
    if (!t.assumptions.empty()) assumed = Wrap(Join(t.assumptions, ", ") + "  (--assume)", width - 12);
    for (size_t i = 0; i < assumed.size(); ++i) out << (i ? "            " : "  assuming  ") << assumed[i] << "\n";
    MainPath m = ComputeMainPath(t);
    for (const auto* entries : {&m.forward, &m.backward})
      for (const auto& e : *entries) on_path.insert(t.ops[e.op].name);
    section("Main path (" + m.device + ")");
    for (const auto& line : MainPathLines(t, m, width, true)) out << line << "\n";
  }
  if (!brief) FullSections(out, t, order, p, section);

  std::vector<std::string> notes = AllNotes(t, order);
  if (brief) {
    // The notes of ops on the main path, two at most; the rest are --detail full's.
    std::erase_if(notes, [&](const std::string& n) {
      size_t colon = n.find(": ");
      return colon == std::string::npos || !on_path.count(n.substr(0, colon));
    });
    constexpr size_t kBriefNotes = 2;
    if (notes.size() > kBriefNotes) notes.resize(kBriefNotes);
  }
  if (!notes.empty()) {
    section("Notes");
    for (const auto& n : notes) {
      std::vector<std::string> wrapped = Wrap(n, width - 4);
      for (size_t k = 0; k < wrapped.size(); ++k) out << (k ? "    " : "  • ") << wrapped[k] << "\n";
    }
  }

  if (!t.not_found.empty() || !t.suggestions.empty()) {
    section("Not found");
    constexpr size_t kBriefNotFound = 3;
    for (size_t i = 0; i < t.not_found.size(); ++i) {
      if (brief && i == kBriefNotFound) {
        out << p.Paint("  … " + std::to_string(t.not_found.size() - i) + " more (--detail full)", Style::kDim) << "\n";
        break;
      }
      out << p.Line("  ", {{t.not_found[i].what + ": ", Style::kWarn}, {t.not_found[i].detail, Style::kPlain}}) << "\n";
    }
    if (!t.suggestions.empty())
      out << p.Line("  ", {{"did you mean: ", Style::kBold}, {Join(t.suggestions, ", "), Style::kPlain}}) << "\n";
  }
  if (brief && !t.ops.empty())
    out << p.Paint("(--detail full: the flow tree, the layers with code, the summary table, every note)", Style::kDim)
        << "\n";
  return out.str();
}

}  // namespace optrace
