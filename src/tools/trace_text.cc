// Markdown from an optrace.trace/1 object (why: trace_text.h). Each section
// of the object has one writer below and every field a writer knows is
// shown; the labels `op`, `kernel` and `library` before a backticked name
// are the marks the parity test reads. Locations are `file:line` relative to
// the checkout, or a markdown link when the object carries its permalink
// (`url`).
#include "tools/trace_text.h"

#include <sstream>

namespace optrace {

using json = nlohmann::ordered_json;

namespace {

std::string Str(const json& obj, const char* key) {
  if (!obj.is_object() || !obj.contains(key)) return "";
  const json& v = obj[key];
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number_integer()) return std::to_string(v.get<int64_t>());
  if (v.is_boolean()) return v.get<bool>() ? "true" : "false";
  return "";
}

bool Has(const json& obj, const char* key) {
  return obj.is_object() && obj.contains(key) && !obj[key].is_null() && !obj[key].empty();
}

// file:line (or the link to it).
std::string Loc(const json& obj) {
  std::string file = Str(obj, "file");
  if (file.empty()) return "";
  std::string where = file + (Has(obj, "line") ? ":" + Str(obj, "line") : "");
  std::string url = Str(obj, "url");
  return url.empty() ? "`" + where + "`" : "[`" + where + "`](" + url + ")";
}

std::string InParens(const std::string& text) { return text.empty() ? "" : " (" + text + ")"; }

std::string Mark(const char* label, const std::string& name) { return std::string(label) + " `" + name + "`"; }

// Conditions of an edge: [{"condition","negated","kind","file","line"}], or the summary's one string.
std::string When(const json& when) {
  if (when.is_string()) return when.get<std::string>();
  std::string out;
  for (const auto& c : when) {
    if (!out.empty()) out += " and ";
    out += (c.value("negated", false) ? "not `" : "`") + Str(c, "condition") + "`";
    std::string where = Loc(c);
    out += InParens(Str(c, "kind") + (where.empty() ? "" : " " + where));
  }
  return out;
}

std::string List(const json& items, const std::string& sep = ", ") {
  std::string out;
  for (const auto& i : items) out += (out.empty() ? "" : sep) + (i.is_string() ? i.get<std::string>() : i.dump());
  return out;
}

// A step of the summary's path: the op, its implementation, stub, kernels and libraries.
void WriteStep(std::ostringstream& out, const json& step) {
  out << "- " << Mark("op", Str(step, "op"));
  if (Has(step, "level")) out << " (level " << Str(step, "level") << ")";
  if (step.value("undecided", false)) out << " — open branch";
  if (Has(step, "when")) out << " — " << When(step["when"]);
  if (Has(step, "implementation"))
    out << "; impl `" << Str(step["implementation"], "name") << "` " << Loc(step["implementation"]);
  if (Has(step, "stub")) out << "; stub `" << Str(step["stub"], "name") << "` " << Loc(step["stub"]);
  if (Has(step, "kernels")) {
    out << ";";
    for (const auto& k : step["kernels"]) out << " " << Mark("kernel", Str(k, "name")) << InParens(Loc(k));
  }
  if (Has(step, "libraries"))
    for (const auto& l : step["libraries"])
      out << "; " << Mark("library", l.is_string() ? l.get<std::string>() : Str(l, "name"));
  out << "\n";
}

void WriteSummary(std::ostringstream& out, const json& s) {
  out << "\n**Main path**" << InParens(Str(s, "device"));
  if (Has(s, "entry")) out << " from `" << Str(s, "entry") << "`";
  if (Has(s, "assumptions")) out << "; assuming " << List(s["assumptions"]);
  if (Has(s, "part")) out << " — part " << Str(s["part"], "index") << " of " << Str(s["part"], "of");
  out << "\n";
  if (Has(s, "path"))
    for (const auto& step : s["path"]) WriteStep(out, step);
  if (Has(s, "selections")) {
    out << "\n**Selections** (which function picks the backend)\n";
    for (const auto& sel : s["selections"])
      out << "- `" << Str(sel, "function") << "` " << Loc(sel) << ": "
          << List(sel.value("alternatives", json::array()), "; ") << "\n";
  }
  if (Has(s, "backward")) {
    const json& b = s["backward"];
    out << "\n**Backward**";
    if (Has(b, "derivatives")) {
      out << ": derivatives of";
      for (const auto& d : b["derivatives"]) out << " " << Mark("op", d.get<std::string>());
    }
    out << "\n";
    if (Has(b, "path"))
      for (const auto& step : b["path"]) WriteStep(out, step);
  }
}

void WritePython(std::ostringstream& out, const json& frames) {
  out << "\n**Python frames**\n";
  for (const auto& f : frames) {
    out << "- `" << Str(f, "symbol") << "` " << Loc(f);
    if (Has(f, "part")) out << " (part " << Str(f["part"], "index") << " of " << Str(f["part"], "of") << ")";
    if (Has(f, "bridge")) out << " — bridge: " << Str(f, "bridge");
    if (Has(f, "note")) out << " — " << Str(f, "note");
    out << "\n";
    if (!Has(f, "calls")) continue;
    out << "  - calls:";
    std::string sep = " ";
    for (const auto& c : f["calls"]) {
      out << sep << "`" << Str(c, "callee") << "` :" << Str(c, "line");
      if (Has(c, "resolved")) out << " → " << Str(c, "resolved");
      out << InParens(Str(c, "kind"));
      if (Has(c, "when")) out << " when " << When(c["when"]);
      sep = "; ";
    }
    out << "\n";
  }
}

void WriteStub(std::ostringstream& out, const json& stub) {
  out << "  - stub `" << Str(stub, "name") << "`";
  if (Has(stub, "declared")) out << " declared " << Loc(stub["declared"]);
  if (Has(stub, "defined")) out << ", defined " << Loc(stub["defined"]);
  if (Has(stub, "called_from")) out << ", called from `" << Str(stub, "called_from") << "`";
  if (Has(stub, "call_site")) out << " " << Loc(stub["call_site"]);
  if (Has(stub, "registrations")) {
    out << "; registered:";
    std::string sep = " ";
    for (const auto& r : stub["registrations"]) {
      out << sep << Str(r, "device") << (Has(r, "arch") ? "/" + Str(r, "arch") : "") << " → `" << Str(r, "target")
          << "` " << Loc(r);
      sep = ", ";
    }
  }
  out << "\n";
}

void WriteKernel(std::ostringstream& out, const json& k) {
  out << "  - " << Mark("kernel", Str(k, "name")) << " (" << Str(k, "device");
  if (std::string where = Loc(k); !where.empty()) out << " " << where;
  out << ")";
  if (Has(k, "launch")) out << " launched by " << Str(k, "launch");
  if (Has(k, "launcher") && Str(k, "launcher") != Str(k, "launch")) out << " `" << Str(k, "launcher") << "`";
  if (Has(k, "launch_site")) out << " at " << Loc(k["launch_site"]);
  if (Has(k, "path")) out << " via " << List(k["path"], " → ");
  if (Has(k, "runs_in")) {
    out << "; runs in";
    for (const auto& r : k["runs_in"]) out << " `" << (r.is_string() ? r.get<std::string>() : Str(r, "name")) << "`";
  }
  out << "\n";
}

void WriteOp(std::ostringstream& out, const json& op) {
  out << "- " << Mark("op", Str(op, "name")) << " — " << Str(op, "role");
  if (Has(op, "part")) out << ", part " << Str(op["part"], "index") << " of " << Str(op["part"], "of");
  if (Has(op, "depth")) out << ", depth " << Str(op, "depth");
  if (Has(op, "reached_from")) out << ", from " << Mark("op", Str(op, "reached_from"));
  if (op.value("typical", false)) out << ", typical";
  if (op.value("undecided", false)) out << ", undecided";
  if (Has(op, "yaml")) {
    const json& y = op["yaml"];
    out << "; " << Loc(y);
    if (Has(y, "func")) out << " `" << Str(y, "func") << "`";
    if (Has(y, "dispatch")) {
      out << "\n  - dispatch:";
      std::string sep = " ";
      for (const auto& [key, f] : y["dispatch"].items()) {
        out << sep << key << " → `" << (f.is_string() ? f.get<std::string>() : f.dump()) << "`";
        sep = ", ";
      }
    }
    if (Has(y, "structured_delegate")) out << "\n  - structured delegate " << Mark("op", Str(y, "structured_delegate"));
  }
  out << "\n";
  if (Has(op, "when")) out << "  - when " << When(op["when"]) << "\n";
  for (const char* key : {"impls", "helpers"})
    if (Has(op, key))
      for (const auto& i : op[key])
        out << "  - " << (key[0] == 'i' ? "impl " : "helper ") << Str(i, "key") << " `" << Str(i, "function") << "` "
            << Loc(i) << InParens(Str(i, "form")) << "\n";
  if (Has(op, "stubs"))
    for (const auto& s : op["stubs"]) WriteStub(out, s);
  if (Has(op, "kernels"))
    for (const auto& k : op["kernels"]) WriteKernel(out, k);
  if (Has(op, "libraries"))
    for (const auto& l : op["libraries"])
      out << "  - " << Mark("library", Str(l, "name")) << " " << Loc(l)
          << (Has(l, "calls") ? ": " + List(l["calls"]) : "")
          << (Has(l, "path") ? " via " + List(l["path"], " → ") : "") << "\n";
  // calls: on the traced device's path; other_device_calls: made by another
  // device's implementation (listed, off the path).
  for (const char* key : {"calls", "other_device_calls"}) {
    if (!Has(op, key)) continue;
    out << (key[0] == 'c' ? "  - calls:" : "  - calls off the device's path:");
    std::string sep = " ";
    for (const auto& c : op[key]) {
      out << sep << Mark("op", Str(c, "op")) << " (" << Str(c, "device") << " " << Loc(c)
          << (Has(c, "from") ? " in `" + Str(c, "from") + "`" : "") << ")";
      sep = "; ";
    }
    out << "\n";
  }
  for (const char* key : {"note", "notes"}) {
    if (!Has(op, key)) continue;
    if (op[key].is_string()) out << "  - note: " << op[key].get<std::string>() << "\n";
    else
      for (const auto& n : op[key]) out << "  - note: " << (n.is_string() ? n.get<std::string>() : n.dump()) << "\n";
  }
}

void WriteBackward(std::ostringstream& out, const json& entries) {
  out << "\n**Backward entries** (derivatives.yaml)\n";
  for (const auto& b : entries) {
    out << "- " << Mark("op", Str(b, "op"));
    if (Has(b, "derivatives")) {
      const json& d = b["derivatives"];
      out << ": " << Loc(d);
      if (Has(d, "formulas"))
        for (const auto& [inputs, formula] : d["formulas"].items())
          out << "; " << inputs << ": `" << formula.get<std::string>() << "`";
    }
    // ops: what the formulas run; open: what a condition decides; untaken: never on a first-order backward.
    for (const auto& [key, label] : {std::pair<const char*, const char*>{"ops", "; runs"},
                                     {"open", "; runs if a condition holds"},
                                     {"untaken", "; never runs"}}) {
      if (!Has(b, key)) continue;
      out << label;
      for (const auto& o : b[key]) out << " " << Mark("op", o.is_string() ? o.get<std::string>() : Str(o, "op"));
    }
    if (Has(b, "calls")) out << "; calls " << List(b["calls"]);
    if (Has(b, "note")) out << "; " << Str(b, "note");
    out << "\n";
  }
}

void WriteTail(std::ostringstream& out, const json& t) {
  if (Has(t, "selections")) {
    out << "\n**Selections**\n";
    for (const auto& s : t["selections"]) {
      out << "- `" << Str(s, "function") << "` " << Loc(s) << (Has(s, "op") ? " in " + Mark("op", Str(s, "op")) : "")
          << ":";
      std::string sep = " ";
      for (const auto& a : s.value("alternatives", json::array())) {
        out << sep << Mark("op", Str(a, "op")) << " " << Str(a, "condition") << InParens(Loc(a))
            << (a.value("typical", false) ? " typical" : "");
        sep = "; ";
      }
      out << "\n";
    }
  }
  if (Has(t, "decompositions")) {
    out << "\n**Decompositions**\n";
    for (const auto& d : t["decompositions"])
      out << "- " << Mark("op", Str(d, "op")) << " → `" << Str(d, "function") << "` " << Loc(d)
          << InParens(Str(d, "registry")) << (Has(d, "target") ? " to " + Str(d, "target") : "") << "\n";
  }
  if (Has(t, "not_found")) {
    out << "\n**Not found**\n";
    for (const auto& n : t["not_found"]) out << "- " << Str(n, "what") << ": " << Str(n, "detail") << "\n";
  }
  if (Has(t, "notes")) {
    out << "\n**Notes**\n";
    for (const auto& n : t["notes"]) out << "- " << (n.is_string() ? n.get<std::string>() : n.dump()) << "\n";
  }
}

}  // namespace

std::string TraceJsonMarkdown(const json& t) {
  std::ostringstream out;
  const json& target = t.value("target", json::object());
  out << "### trace `" << Str(t, "query") << "`";
  if (Has(target, "name")) out << " — " << Str(target, "kind") << " `" << Str(target, "name") << "`";
  out << "\n";
  if (Has(t, "source")) {
    const json& s = t["source"];
    out << "checkout `" << Str(s, "root") << "` (version " << (Has(s, "version") ? Str(s, "version") : "unknown")
        << ")";
    if (Has(s, "permalink")) out << ", links at " << Str(s, "permalink");
    out << "\n";
    if (Has(s, "warning")) out << "**" << Str(s, "warning") << "**\n";
  }
  if (Has(t, "parts")) {
    out << "_parts:";
    if (Has(t["parts"], "ops")) out << " ops " << List(t["parts"]["ops"]) << ";";
    if (Has(t["parts"], "sections")) out << " sections " << List(t["parts"]["sections"]);
    out << "_\n";
  }
  if (Has(t, "page"))
    out << "_page " << Str(t["page"], "index") << " of " << Str(t["page"], "of")
        << (Has(t, "next_cursor") ? "; call again with cursor \"" + Str(t, "next_cursor") + "\" for the next" : "")
        << "_\n";
  if (Has(t, "suggestions")) out << "Did you mean: " << List(t["suggestions"]) << "\n";
  if (Has(t, "summary")) WriteSummary(out, t["summary"]);
  if (Has(t, "python")) WritePython(out, t["python"]);
  if (Has(t, "ops")) {
    out << "\n**Ops**\n";
    for (const auto& op : t["ops"]) WriteOp(out, op);
  }
  if (Has(t, "backward")) WriteBackward(out, t["backward"]);
  WriteTail(out, t);
  if (Has(t, "brief")) {
    const json& b = t["brief"];
    out << "\n_Brief: left out " << Str(b, "ops_omitted") << " ops, " << Str(b, "decompositions_omitted")
        << " decompositions, " << Str(b, "not_found_omitted") << " not-found entries; detail \"full\" (or `ops`/"
        << "`sections`) gives them._\n";
  }
  return out.str();
}

}  // namespace optrace
