// The text and markdown faces of a verification: per query, what of the
// static trace ran (observed first, with the evidence), what did not, and
// what ran that the trace does not explain with the op running around it.
// Long lists are cut (the JSON has everything).
#include <cstdio>
#include <sstream>

#include "base/text.h"
#include "verify/verify.h"

namespace optrace {

namespace {

constexpr size_t kListLimit = 40;

std::string Percent(const ShareCounts& c) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f%%", c.Share());
  return buf;
}

std::string At(const Location& where) { return where.valid() ? where.file + ":" + std::to_string(where.line) : ""; }

struct Writer {
  std::ostringstream out;
  bool md;
  void Heading(const std::string& text, int level) {
    if (md) out << std::string(level, '#') << " " << text << "\n\n";
    else out << (level <= 2 ? "== " : "-- ") << text << "\n";
  }
  void Item(const std::string& text) { out << (md ? "- " : "  ") << text << "\n"; }
  void End() { out << "\n"; }
  std::string Code(const std::string& s) const { return md ? "`" + s + "`" : s; }
};

// observed: 1 observed, 0 not observed, 2 on the path but invisible.
void Marks(Writer& w, const QueryVerification& q, int observed) {
  size_t shown = 0, total = 0;
  for (const auto& m : q.marks) {
    if ((m.observed ? 1 : m.on_path ? 2 : 0) != observed) continue;
    if (++total > kListLimit) continue;
    ++shown;
    std::string line = m.kind + " " + w.Code(m.name);
    if (m.kind != "op") line += " (" + m.op + (m.detail.empty() ? "" : ", " + m.detail) + ")";
    else if (!m.detail.empty()) line += " (" + m.detail + ")";
    if (!At(m.where).empty()) line += " " + At(m.where);
    if (m.observed && m.count) line.append(" x").append(std::to_string(m.count));
    if (!m.evidence.empty()) line.append(" -- ").append(m.evidence);
    w.Item(line);
  }
  if (total > shown) w.Item("... " + std::to_string(total - shown) + " more (--json has all)");
  if (total == 0) w.Item("(none)");
}

void Runtime(Writer& w, const std::vector<RuntimeItem>& items, bool kernels) {
  size_t n = 0;
  for (const auto& item : items) {
    if (++n > kListLimit) {
      w.Item("... " + std::to_string(items.size() - kListLimit) + " more (--json has all)");
      break;
    }
    std::string line =
        w.Code((kernels ? "" : "aten::") + item.name) + " (" + item.phase + ", x" + std::to_string(item.count) + ")";
    if (kernels) line += " launched by aten::" + item.op;
    line += item.nearest.empty() ? "; no traced op around it" : "; inside traced " + item.nearest;
    if (!item.autograd_node.empty()) line += "; autograd node " + item.autograd_node;
    w.Item(line);
  }
  if (items.empty()) w.Item("(none)");
}

void Query(Writer& w, const QueryVerification& q, bool device_cuda) {
  w.Heading("verify " + q.query + (q.target.size() > 1 ? " -- " + q.target : ""), 2);
  if (!q.trace_error.empty()) w.Item("static trace: " + q.trace_error);
  for (const auto& r : q.runs) w.Item("ran: " + r);
  for (const auto& r : q.run_errors) w.Item("failed: " + r);
  w.Item("runtime ops explained by the trace: " + std::to_string(q.ops.explained) + " of " +
         std::to_string(q.ops.explained + q.ops.unexplained) + " (" + Percent(q.ops) + "); outside any traced op: " +
         std::to_string(q.ops.outside) + "; not in the tree: " + std::to_string(q.ops.not_in_tree));
  if (device_cuda) {
    w.Item("CUDA kernels explained: " + std::to_string(q.kernels.explained) + " of " +
           std::to_string(q.kernels.explained + q.kernels.unexplained) + " (" + Percent(q.kernels) + ", " +
           std::to_string(q.kernels.explained_by_library) +
           " by a vendor library); not in the tree: " + std::to_string(q.kernels.not_in_tree));
  }
  w.End();
  w.Heading("observed (static facts that ran)", 3);
  Marks(w, q, 1);
  w.End();
  w.Heading("on the path of an op that ran, not visible to the profiler (stubs, CPU kernels)", 3);
  Marks(w, q, 2);
  w.End();
  w.Heading("not observed for these inputs", 3);
  Marks(w, q, 0);
  w.End();
  w.Heading("unexplained runtime ops (ran, but the trace does not name them)", 3);
  Runtime(w, q.unexplained_ops, false);
  w.End();
  if (!q.outside_ops.empty()) {
    w.Heading("ran outside every traced op (setup code, autograd engine)", 3);
    Runtime(w, q.outside_ops, false);
    w.End();
  }
  if (device_cuda) {
    w.Heading("unexplained CUDA kernels", 3);
    Runtime(w, q.unexplained_kernels, true);
    w.End();
  }
}

}  // namespace

std::string VerifyText(const VerifyReport& r, bool markdown) {
  Writer w{{}, markdown};
  const Observed& o = r.observed;
  w.Heading("optrace verify: torch " + o.torch_version + " (" + o.python + ") on " + o.device +
                (o.device_name.empty() ? "" : " (" + o.device_name + ")") + " against " + r.source_root + " (" +
                r.source_version + ")",
            1);
  if (!r.warning.empty()) w.Item("warning: " + r.warning);
  if (r.queries.size() > 1) {
    w.Item(std::to_string(r.queries.size()) + " queries; runtime ops explained " + std::to_string(r.ops.explained) +
           " of " + std::to_string(r.ops.explained + r.ops.unexplained) + " (" + Percent(r.ops) + ")" +
           (o.device == "cuda"
                ? "; CUDA kernels explained " + std::to_string(r.kernels.explained) + " of " +
                      std::to_string(r.kernels.explained + r.kernels.unexplained) + " (" + Percent(r.kernels) + ")"
                : ""));
  }
  w.End();
  if (r.queries.size() > kListLimit) {  // a gap report: one line per query (--json has the details)
    for (const auto& q : r.queries) {
      w.Item(q.query + ": ops " + std::to_string(q.ops.explained) + "/" +
             std::to_string(q.ops.explained + q.ops.unexplained) +
             (q.trace_error.empty() ? "" : " (not traced: " + q.trace_error + ")"));
    }
    return TerminalText(w.out.str());
  }
  for (const auto& q : r.queries) Query(w, q, o.device == "cuda");
  return TerminalText(w.out.str());  // labels and versions from an --observed file reach a terminal
}

}  // namespace optrace
