// Markdown (the text face in headings, tables and fenced code; never cut)
// and Graphviz DOT (ops -> implementations -> kernels/libraries, backward
// edges dashed).
#include <map>
#include <set>
#include <sstream>

#include "base/text.h"
#include "render/render.h"
#include "render/render_internal.h"
#include "yaml/yaml_json.h"

namespace optrace {

using namespace render_detail;

// ---------------------------------------------------------------------------
// Markdown.

namespace {

std::string MdCell(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '|') out += "\\|";
    else if (c == '\n') out += ' ';
    else out += c;
  }
  return out;
}

// Prose with markdown's special characters escaped.
std::string MdText(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (std::string_view("\\`*_[]<>|#").find(c) != std::string_view::npos) out += '\\';
    out += c == '\n' ? ' ' : c;
  }
  return out;
}

std::string MdCode(const std::string& s);

// A walk detail: "label: value" shows the value (code, a formula, a
// dispatch table) as inline code; anything else is escaped prose.
std::string MdDetail(const std::string& d) {
  size_t colon = d.find(": ");
  if (colon != std::string::npos && colon <= 30 && colon + 2 < d.size())
    return MdText(d.substr(0, colon)) + ": " + MdCode(d.substr(colon + 2));
  return MdText(d);
}

// Inline code that survives backticks in the text.
std::string MdCode(const std::string& s) {
  if (s.empty()) return "";
  std::string fence = s.find('`') == std::string::npos ? "`" : "``";
  std::string pad = fence.size() > 1 ? " " : "";
  return fence + pad + s + pad + fence;
}

}  // namespace

std::string RenderMarkdown(const Trace& t, bool brief) {
  OpOrder order = OrderOps(t);
  std::ostringstream out;
  out << "# optrace: " << MdCode(t.query) << "\n\n";
  out << "- **Target:** " << MdCell(TargetLine(t)) << "\n";
  for (const auto& [label, text] : KernelSourceLines(t)) {
    out << "  - " << (label.empty() ? "" : "**" + label + ":** ") << MdCell(text) << "\n";
  }
  out << "- **Checkout:** " << MdCode(t.source_root)
      << (t.source_version.empty() ? "" : " (version " + t.source_version + ")") << "\n";
  if (t.installed_torch) out << "- **Installed torch:** " << MdCode(*t.installed_torch) << "\n";
  if (!t.source_warning.empty()) out << "- **Warning:** " << MdCell(t.source_warning) << "\n";
  if (!t.assumptions.empty()) out << "- **Assuming:** " << MdCell(Join(t.assumptions, ", ")) << " (`--assume`)\n";

  if (!t.ops.empty()) {
    MainPath m = ComputeMainPath(t);
    out << "\n## Main path (" << m.device << ")\n\n```text\n";
    for (const auto& line : MainPathLines(t, m, 100, true)) out << line << "\n";
    out << "```\n";
  }
  if (brief) {
    std::vector<std::string> notes = AllNotes(t, order);
    if (!notes.empty()) {
      out << "\n## Notes\n\n";
      for (size_t i = 0; i < notes.size() && i < 6; ++i) out << "- " << MdText(notes[i]) << "\n";
    }
    out << "\n_Brief: `--detail full` adds the flow tree, the layers with code and the summary table._\n";
    return out.str();
  }

  if (!t.python.empty() || !t.ops.empty()) {
    Painter plain(false, 100);
    out << "\n## Flow\n\n```text\n";
    for (const auto& line : FlowLines(t, order, plain)) out << line << "\n";
    out << "```\n";
  }

  std::vector<const OpStep*> condensed;
  std::vector<Layer> layers = Layers(t, order, &condensed);
  if (!layers.empty()) {
    out << "\n## Layers\n";
    for (size_t i = 0; i < layers.size(); ++i) {
      const Layer& l = layers[i];
      out << "\n### " << i + 1 << ". " << l.kind << ": " << MdCode(l.name);
      if (l.where.valid()) out << " — " << MdCode(LocText(l.where));
      out << "\n";
      if (l.snippet && !l.where.snippet.empty()) {
        out << "\n```" << SnippetLanguage(l.where.file) << "\n";
        for (const auto& code : SnippetLines(l.where.snippet, kMaxSnippetLines)) {
          // A snippet line of backticks would close the fence early.
          out << (StartsWith(TrimView(code), "```") ? " " + code : code) << "\n";
        }
        out << "```\n";
      }
      if (!l.details.empty()) out << "\n";
      for (const auto& d : l.details) out << "- " << MdDetail(d) << "\n";
    }
    if (!condensed.empty()) {
      out << "\n### Deeper ops (condensed)\n\n";
      for (size_t ci = 0; ci < condensed.size(); ++ci) {
        const OpStep* op = condensed[ci];
        if (ci == kMaxCondensedOps && condensed.size() > kMaxCondensedOps + 1) {
          out << "- … " << condensed.size() - ci << " more (`--json` lists them)\n";
          break;
        }
        std::vector<std::string> impls;
        for (const auto& im : op->impls)
          impls.push_back(im.key + " " + MdCode(im.function) +
                          (im.where.valid() ? " " + MdCode(LocText(im.where)) : ""));
        out << "- " << MdCode(op->name);
        if (op->yaml && op->yaml->line > 0) out << " (" << MdCode(LocText(YamlLocation(op->yaml))) << ")";
        if (!impls.empty()) out << ": " << MdCell(Join(impls, "; "));
        out << "\n";
      }
    }
  }

  std::vector<Row> rows = Rows(t, order);
  if (!rows.empty()) {
    out << "\n## Summary\n\n| Layer | File:line | Function |\n|---|---|---|\n";
    for (const auto& r : rows)
      out << "| " << MdCell(r.layer) << " | " << MdCode(MdCell(r.location)) << " | " << MdCode(MdCell(r.function))
          << " |\n";
  }

  std::vector<std::string> notes = AllNotes(t, order);
  if (!notes.empty()) {
    out << "\n## Notes\n\n";
    for (const auto& n : notes) out << "- " << MdCell(n) << "\n";
  }
  if (!t.not_found.empty() || !t.suggestions.empty()) {
    out << "\n## Not found\n\n";
    for (const auto& n : t.not_found) out << "- **" << MdCell(n.what) << "**: " << MdCell(n.detail) << "\n";
    if (!t.suggestions.empty()) {
      std::vector<std::string> s;
      for (const auto& x : t.suggestions) s.push_back(MdCode(x));
      out << "- did you mean: " << Join(s, ", ") << "\n";
    }
  }
  return out.str();
}

// ---------------------------------------------------------------------------
// DOT.

namespace {

std::string DotQuote(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    unsigned char u = c;
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else if (u >= 0x20 && u != 0x7f) {
      out += c;
    }
  }
  return out + "\"";
}

std::string DotLabel(const std::string& title, const Location& where) {
  return where.valid() ? title + "\n" + LocText(where, true) : title;
}

}  // namespace

std::string RenderDot(const Trace& t) {
  std::ostringstream out;
  out << "digraph optrace {\n  rankdir=TB;\n  node [shape=box, fontname=\"monospace\", fontsize=10];\n"
      << "  label=" << DotQuote("optrace trace " + t.query) << "; labelloc=t;\n";
  std::string previous;
  for (size_t i = 0; i < t.python.size(); ++i) {
    std::string id = "py" + std::to_string(i);
    out << "  " << id << " [label=" << DotQuote(DotLabel(t.python[i].symbol, t.python[i].where))
        << ", style=rounded];\n";
    if (!previous.empty()) out << "  " << previous << " -> " << id << ";\n";
    previous = id;
  }
  std::map<std::pair<OpRole, std::string>, std::string> op_ids;
  for (size_t i = 0; i < t.ops.size(); ++i)
    op_ids.emplace(std::make_pair(t.ops[i].role, t.ops[i].name), "op" + std::to_string(i));
  for (size_t i = 0; i < t.ops.size(); ++i) {
    const OpStep& op = t.ops[i];
    std::string id = "op" + std::to_string(i);
    bool backward = op.role == OpRole::kBackward;
    out << "  " << id << " [label=" << DotQuote(DotLabel("aten::" + op.name, YamlLocation(op.yaml)))
        << ", style=filled, fillcolor=" << (backward ? "\"#f4e1ff\"" : "\"#dff5dd\"") << "];\n";
    auto from = op_ids.find({op.role, op.reached_from});
    if (from == op_ids.end()) from = op_ids.find({OpRole::kForward, op.reached_from});
    if (!op.reached_from.empty() && from != op_ids.end() && from->second != id) {
      out << "  " << from->second << " -> " << id << (backward ? " [style=dashed]" : "") << ";\n";
    } else if (op.reached_from.empty() && !backward && !previous.empty()) {
      out << "  " << previous << " -> " << id << ";\n";
    }
    std::map<std::string, std::string> impl_ids;  // function -> node
    for (size_t k = 0; k < op.impls.size(); ++k) {
      const ImplStep& im = op.impls[k];
      std::string iid = id + "_i" + std::to_string(k);
      impl_ids.emplace(im.function, iid);
      out << "  " << iid << " [label=" << DotQuote(DotLabel(im.key + ": " + im.function, im.where)) << "];\n"
          << "  " << id << " -> " << iid << ";\n";
    }
    // A kernel or library hangs off the implementation its path starts at.
    auto parent = [&](const std::vector<std::string>& path) {
      if (!path.empty()) {
        auto it = impl_ids.find(path.front());
        if (it != impl_ids.end()) return it->second;
      }
      return id;
    };
    for (size_t k = 0; k < op.stubs.size(); ++k) {
      const StubStep& s = op.stubs[k];
      std::string sid = id + "_s" + std::to_string(k);
      out << "  " << sid << " [label=" << DotQuote(DotLabel("stub " + s.name, s.declared)) << ", shape=diamond];\n";
      auto it = impl_ids.find(s.called_from);
      out << "  " << (it != impl_ids.end() ? it->second : id) << " -> " << sid << ";\n";
      for (size_t r = 0; r < s.registrations.size(); ++r) {
        const auto& reg = s.registrations[r];
        std::string rid = sid + "_r" + std::to_string(r);
        out << "  " << rid << " [label="
            << DotQuote(DotLabel(reg.device + ": " + reg.target,
                                 reg.target_definition.valid() ? reg.target_definition : reg.where))
            << "];\n  " << sid << " -> " << rid << ";\n";
      }
    }
    for (size_t k = 0; k < op.kernels.size(); ++k) {
      const KernelStep& kn = op.kernels[k];
      std::string kid = id + "_k" + std::to_string(k);
      out << "  " << kid
          << " [label=" << DotQuote(DotLabel(std::string(Name(kn.device)) + " kernel " + kn.name, kn.where))
          << ", style=filled, fillcolor=\"#fff2c6\"];\n  " << parent(kn.path) << " -> " << kid << ";\n";
    }
    for (size_t k = 0; k < op.libraries.size(); ++k) {
      const LibraryStep& l = op.libraries[k];
      std::string lid = id + "_l" + std::to_string(k);
      out << "  " << lid
          << " [label=" << DotQuote(DotLabel(l.name + (l.calls.empty() ? "" : ": " + Join(l.calls, ", ")), l.where))
          << ", shape=component];\n  " << parent(l.path) << " -> " << lid << ";\n";
    }
  }
  // Backward: the forward op -> the backward ops its derivatives formula names.
  for (const auto& b : t.backward) {
    auto from = op_ids.find({OpRole::kForward, b.op});
    if (from == op_ids.end()) continue;
    for (const auto& name : b.ops) {
      for (size_t i = 0; i < t.ops.size(); ++i) {
        if (t.ops[i].role == OpRole::kBackward && SameOp(t.ops[i].name, name) && t.ops[i].reached_from != b.op) {
          out << "  " << from->second << " -> op" << i << " [style=dashed, label=\"grad\"];\n";
          break;
        }
      }
    }
  }
  out << "}\n";
  return out.str();
}

}  // namespace optrace
