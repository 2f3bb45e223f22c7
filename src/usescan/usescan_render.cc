// The faces of a scan report: optrace.scan/1 JSON (doc/scan-schema.md), text
// and markdown. Each is one document: the report, then the trace of every op
// that needs one (rendered by render.h, so a scan's trace reads exactly like
// `optrace trace`'s).
#include <algorithm>
#include <map>
#include <sstream>

#include <fmt/format.h>

#include "render/render.h"
#include "usescan/usescan.h"

namespace optrace {

const char* ScanOpKindName(ScanOpKind kind) {
  switch (kind) {
    case ScanOpKind::kModule:
      return "module";
    case ScanOpKind::kFunctional:
      return "functional";
    case ScanOpKind::kTorch:
      return "torch";
    case ScanOpKind::kMethod:
      return "method";
    case ScanOpKind::kOperator:
      return "operator";
    case ScanOpKind::kAten:
      return "aten";
  }
  return "?";
}
namespace {

std::string Basename(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string UseList(const ScanReport& r, const ScanOp& op, size_t max) {
  std::string out;
  std::string file = Basename(r.file);
  for (size_t i = 0; i < op.uses.size() && i < max; ++i)
    out += fmt::format("{}{}:{} {}", i ? ", " : "", file, op.uses[i].line, op.uses[i].how);
  if (op.uses.size() > max) out += fmt::format(", ... ({} more)", op.uses.size() - max);
  return out;
}

std::string Lines(const std::vector<uint32_t>& lines) {
  std::string out;
  for (size_t i = 0; i < lines.size(); ++i) out += (i ? ", " : "") + std::to_string(lines[i]);
  return out;
}

// "a, b, c (+N more)" of the first `max` items.
std::string FirstOf(const std::vector<std::string>& items, size_t max) {
  std::string out;
  for (size_t i = 0; i < items.size() && i < max; ++i) out += (i ? ", " : "") + items[i];
  if (items.size() > max) out += fmt::format(" (+{} more)", items.size() - max);
  return out;
}

void AddOnce(std::vector<std::string>* items, const std::string& item) {
  if (std::find(items->begin(), items->end(), item) == items->end()) items->push_back(item);
}

// Per device ("CPU", "CUDA", "any" for composite keys): the first
// implementation seen, and the kernels and libraries of the forward ops.
struct DeviceBrief {
  std::string impl;
  std::vector<std::string> kernels;
};

std::string DeviceOfKey(const std::string& key) {
  if (key.find("CUDA") != std::string::npos) return "CUDA";
  if (key.find("CPU") != std::string::npos) return "CPU";
  if (key.rfind("Composite", 0) == 0) return "composite";
  return "";
}

}  // namespace

std::vector<std::string> TraceBriefLines(const Trace& t) {
  std::vector<std::string> out;
  std::vector<std::string> python;
  for (const PyFrame& f : t.python) python.push_back(f.symbol);
  if (!python.empty()) out.push_back("python: " + FirstOf(python, 4));
  std::vector<std::string> entry, reached;
  std::map<std::string, DeviceBrief> devices;
  for (const OpStep& op : t.ops) {
    if (op.role != OpRole::kForward) continue;
    AddOnce(op.reached_from.empty() ? &entry : &reached, op.name);
    for (const ImplStep& impl : op.impls) {
      std::string device = DeviceOfKey(impl.key);
      if (device.empty()) continue;
      DeviceBrief& d = devices[device];
      if (d.impl.empty())
        d.impl = fmt::format("{} {} ({}:{})", op.name, impl.function, impl.where.file, impl.where.line);
    }
    for (const KernelStep& k : op.kernels) AddOnce(&devices[std::string(Name(k.device))].kernels, k.name);
    for (const LibraryStep& l : op.libraries) AddOnce(&devices["CUDA"].kernels, "library " + l.name);
  }
  if (!entry.empty())
    out.push_back("aten: " + FirstOf(entry, 4) + (reached.empty() ? "" : "; then " + FirstOf(reached, 6)));
  for (const auto& [device, d] : devices) {
    std::string line = device + ": " + (d.impl.empty() ? "(no implementation found)" : d.impl);
    if (!d.kernels.empty()) line += "; kernels: " + FirstOf(d.kernels, 4);
    out.push_back(line);
  }
  std::vector<std::string> backward;
  for (const BackwardStep& b : t.backward)
    for (const std::string& op : b.ops) AddOnce(&backward, op);
  if (!backward.empty()) out.push_back("backward: " + FirstOf(backward, 6));
  if (!t.not_found.empty()) out.push_back(fmt::format("not found: {} (see optrace trace)", t.not_found.size()));
  return out;
}

nlohmann::ordered_json ScanToJson(const ScanReport& r, const std::vector<Trace>& traces) {
  using J = nlohmann::ordered_json;
  J j;
  j["schema"] = "optrace.scan/1";
  j["file"] = r.file;
  j["source"] = {{"root", r.source_root}, {"version", r.source_version}};
  j["source"]["installed_torch"] = r.installed_torch ? J(*r.installed_torch) : J(nullptr);
  if (!r.source_warning.empty()) j["source"]["warning"] = r.source_warning;
  j["modules"] = r.modules;
  J layers = J::array();
  for (const ScanLayer& l : r.layers)
    layers.push_back({{"owner", l.owner},
                      {"attr", l.attr},
                      {"container", l.container},
                      {"query", l.query},
                      {"resolved", l.resolved},
                      {"line", l.line}});
  j["layers"] = layers;
  J autograd = J::array();
  for (const ScanAutograd& a : r.autograd) {
    J applied = J::array();
    for (const ScanUse& u : a.applied) applied.push_back({{"line", u.line}, {"function", u.function}});
    autograd.push_back({{"name", a.name}, {"line", a.line}, {"applied", applied}});
  }
  j["autograd_functions"] = autograd;
  J ops = J::array();
  for (const ScanOp& op : r.ops) {
    J uses = J::array();
    for (const ScanUse& u : op.uses) uses.push_back({{"line", u.line}, {"function", u.function}, {"how", u.how}});
    ops.push_back({{"query", op.query},
                   {"kind", ScanOpKindName(op.kind)},
                   {"resolved", op.resolved},
                   {"aten", op.aten},
                   {"category", op.category},
                   {"basis", op.basis},
                   {"inferred", op.inferred},
                   {"needs_trace", op.needs_trace},
                   {"summary", op.summary},
                   {"receivers", op.receivers},
                   {"uses", uses}});
  }
  j["ops"] = ops;
  J functions = J::array();
  for (const ScanFunction& f : r.functions)
    functions.push_back({{"qualname", f.qualname},
                         {"role", f.role},
                         {"owner", f.owner},
                         {"line", f.line},
                         {"ops", f.ops},
                         {"calls", f.calls},
                         {"save_for_backward", f.save_for_backward},
                         {"saved_tensors", f.saved_tensors}});
  j["functions"] = functions;
  J unresolved = J::array();
  for (const ScanUnresolved& u : r.unresolved)
    unresolved.push_back({{"line", u.line}, {"function", u.function}, {"text", u.text}, {"reason", u.reason}});
  j["unresolved"] = unresolved;
  J tr = J::array();
  for (const Trace& t : traces) tr.push_back(TraceToJson(t));
  j["traces"] = tr;
  return j;
}

std::string RenderScanText(const ScanReport& r, const std::vector<Trace>& traces, int width, bool full) {
  std::ostringstream o;
  std::string file = Basename(r.file);
  o << fmt::format("optrace scan {}   (checkout {} at {})\n", r.file, r.source_version, r.source_root);
  if (!r.source_warning.empty()) o << r.source_warning << "\n";
  if (!r.modules.empty()) {
    o << "\nnn.Module classes:";
    for (const auto& m : r.modules) o << " " << m;
    o << "\n";
    for (const ScanLayer& l : r.layers)
      o << fmt::format("  {}.{} = {}   ({}:{})\n", l.owner, l.attr.empty() ? l.container + "[...]" : l.attr, l.query,
                       file, l.line);
  }
  if (!r.autograd.empty()) {
    o << "\nautograd.Function classes:\n";
    for (const ScanAutograd& a : r.autograd) {
      o << fmt::format("  {}   ({}:{})", a.name, file, a.line);
      for (size_t i = 0; i < a.applied.size(); ++i)
        o << (i ? ", " : "; applied at ") << fmt::format("{}:{}", file, a.applied[i].line);
      o << "\n";
    }
  }
  o << "\nfunctions:\n";
  for (const ScanFunction& f : r.functions) {
    o << fmt::format("  {}   ({}:{}, {})\n", f.qualname, file, f.line, f.role);
    if (!f.ops.empty()) {
      o << "      ops:";
      for (size_t i = 0; i < f.ops.size(); ++i) o << (i ? ", " : " ") << f.ops[i];
      o << "\n";
    }
    if (!f.calls.empty()) {
      o << "      follows:";
      for (size_t i = 0; i < f.calls.size(); ++i) o << (i ? ", " : " ") << f.calls[i];
      o << "\n";
    }
    if (!f.save_for_backward.empty()) o << "      ctx.save_for_backward at line " << Lines(f.save_for_backward) << "\n";
    if (!f.saved_tensors.empty()) o << "      ctx.saved_tensors at line " << Lines(f.saved_tensors) << "\n";
  }
  o << fmt::format("\nops ({}):\n", r.ops.size());
  for (const ScanOp& op : r.ops) {
    o << fmt::format("  {:<34} {:<13} {}{}\n", op.query, op.category, op.inferred ? "[inferred] " : "",
                     op.needs_trace ? "[trace]" : "");
    o << "      used: " << UseList(r, op, 8) << "\n";
    if (!op.receivers.empty()) {
      o << "      receivers:";
      for (size_t i = 0; i < op.receivers.size(); ++i) o << (i ? ", " : " ") << op.receivers[i];
      o << "\n";
    }
    if (!op.basis.empty()) o << "      why: " << op.basis << "\n";
  }
  if (!r.unresolved.empty()) {
    o << fmt::format("\nunresolved ({}): not resolvable statically, not guessed\n", r.unresolved.size());
    for (const ScanUnresolved& u : r.unresolved)
      o << fmt::format("  {}:{} in {}: {}  -- {}\n", file, u.line, u.function, u.text, u.reason);
  }
  if (!traces.empty()) {
    RenderOptions ro;
    ro.width = width;
    o << fmt::format("\ntraces ({} ops that are not a well-known kind{}):\n", traces.size(),
                     full ? "" : "; the whole trace: optrace trace QUERY, or scan --trace --full");
    for (const Trace& t : traces) {
      if (full) {
        o << "\n" << std::string(std::min(width, 100), '=') << "\n";
        o << RenderText(t, ro);
        continue;
      }
      o << "\n  " << t.query << "\n";
      for (const std::string& line : TraceBriefLines(t)) o << "      " << line << "\n";
    }
  }
  return o.str();
}

std::string RenderScanMarkdown(const ScanReport& r, const std::vector<Trace>& traces, bool full) {
  std::ostringstream o;
  std::string file = Basename(r.file);
  o << fmt::format("# optrace scan `{}`\n\nCheckout {} at `{}`.\n\n", r.file, r.source_version, r.source_root);
  if (!r.source_warning.empty()) o << "**" << r.source_warning << "**\n\n";
  if (!r.modules.empty()) {
    o << "## nn.Module classes\n\n";
    for (const ScanLayer& l : r.layers)
      o << fmt::format("- `{}.{}` = `{}` ({}:{})\n", l.owner, l.attr.empty() ? l.container + "[...]" : l.attr, l.query,
                       file, l.line);
    o << "\n";
  }
  if (!r.autograd.empty()) {
    o << "## autograd.Function classes\n\n";
    for (const ScanAutograd& a : r.autograd) {
      o << fmt::format("- `{}` ({}:{})", a.name, file, a.line);
      for (size_t i = 0; i < a.applied.size(); ++i)
        o << (i ? ", " : "; applied at ") << fmt::format("{}:{}", file, a.applied[i].line);
      o << "\n";
    }
    o << "\n";
  }
  o << "## Functions\n\n| function | role | line | ops |\n|---|---|---|---|\n";
  for (const ScanFunction& f : r.functions) {
    std::string ops;
    for (size_t i = 0; i < f.ops.size(); ++i) ops += (i ? ", " : "") + ("`" + f.ops[i] + "`");
    o << fmt::format("| `{}` | {} | {} | {} |\n", f.qualname, f.role, f.line, ops);
  }
  o << "\n## Ops\n\n| op | category | used at | why |\n|---|---|---|---|\n";
  for (const ScanOp& op : r.ops)
    o << fmt::format("| `{}`{} | {}{} | {} | {} |\n", op.query, op.inferred ? " (inferred)" : "", op.category,
                     op.needs_trace ? " (traced)" : "", UseList(r, op, 8), op.basis);
  if (!r.unresolved.empty()) {
    o << "\n## Unresolved\n\n";
    for (const ScanUnresolved& u : r.unresolved)
      o << fmt::format("- {}:{} in `{}`: `{}` -- {}\n", file, u.line, u.function, u.text, u.reason);
  }
  if (!traces.empty() && !full) o << "\n## Traces\n";
  for (const Trace& t : traces) {
    if (full) {
      o << "\n---\n\n" << RenderMarkdown(t);
      continue;
    }
    o << "\n### `" << t.query << "`\n\n";
    for (const std::string& line : TraceBriefLines(t)) o << "- " << line << "\n";
  }
  return o.str();
}

}  // namespace optrace
