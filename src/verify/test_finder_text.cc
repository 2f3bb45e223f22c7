// optrace.tests/1 (doc/verify-schema.md) and the text/markdown faces of a
// TestsAnswer: each entry with its file:line, the functions it names, the
// dtypes per device as written, and its skips and tolerance overrides.
#include <sstream>

#include "base/text.h"
#include "verify/test_finder.h"

namespace optrace {

using json = nlohmann::ordered_json;

namespace {

json UsesJson(const std::vector<TestFileUse>& uses) {
  json out = json::array();
  for (const auto& u : uses)
    out.push_back({{"file", u.file}, {"line", u.first_line}, {"uses", u.uses}, {"tests", u.tests}});
  return out;
}

json EntryJson(const TestEntry& e) {
  json args = json::array(), functions = json::array(), decorations = json::array();
  for (const auto& a : e.args)
    args.push_back({{"name", a.name.empty() ? json(nullptr) : json(a.name)}, {"value", a.value}, {"line", a.line}});
  for (const auto& f : e.functions) {
    json item = {{"role", f.role}, {"name", f.name}};
    item["file"] = f.file.empty() ? json(nullptr) : json(f.file);
    item["line"] = f.line ? json(f.line) : json(nullptr);
    functions.push_back(std::move(item));
  }
  for (const auto& d : e.decorations) {
    json item = {{"kind", d.kind},           {"test_class", d.test_class},
                 {"test_name", d.test_name}, {"device_type", d.device_type},
                 {"dtypes", d.dtypes},       {"line", d.line},
                 {"decorator", d.decorator}, {"text", d.text}};
    if (!d.active_if.empty()) item["active_if"] = d.active_if;
    if (!d.via.empty()) item["via"] = d.via;
    if (!d.file.empty()) item["file"] = d.file;
    decorations.push_back(std::move(item));
  }
  return {{"kind", e.kind},
          {"name", e.name},
          {"variant", e.variant},
          {"matched_by", e.matched_by},
          {"file", e.file},
          {"line", e.line},
          {"functions", std::move(functions)},
          {"dtypes", e.dtypes},
          {"decorations", std::move(decorations)},
          {"args", std::move(args)}};
}

void Uses(std::ostringstream& out, bool md, const std::vector<TestFileUse>& uses) {
  for (const auto& u : uses) {
    out << (md ? "- `" : "  ") << u.file << ":" << u.first_line << (md ? "`" : "") << " (" << u.uses << ")";
    for (size_t i = 0; i < u.tests.size(); ++i) out << (i ? ", " : ": ") << u.tests[i];
    out << "\n";
  }
  if (uses.empty()) out << (md ? "- " : "  ") << "(none)\n";
}

void Entry(std::ostringstream& out, bool md, const TestEntry& e) {
  std::string at = e.file + ":" + std::to_string(e.line);
  out << (md ? "### " : "") << e.kind << "(" << (e.kind == "ModuleInfo" ? e.name : "'" + e.name + "'") << ", ...)"
      << (e.variant.empty() ? "" : " variant '" + e.variant + "'") << " -- " << (md ? "`" + at + "`" : at)
      << " (matched by " << e.matched_by << ")\n"
      << (md ? "\n" : "");
  const char* bullet = md ? "- " : "    ";
  for (const auto& f : e.functions) {
    out << bullet << f.role << ": " << f.name;
    if (!f.file.empty()) out << " " << f.file << ":" << f.line;
    out << "\n";
  }
  for (const auto& d : e.dtypes) out << bullet << "dtypes " << d << "\n";
  for (const auto& d : e.decorations) {
    std::string where =
        d.test_class.empty() ? "every test" : d.test_class + (d.test_name.empty() ? "" : "." + d.test_name);
    out << bullet << d.kind << " " << d.decorator << " -- " << where
        << (d.device_type.empty() ? "" : " on " + d.device_type) << (d.dtypes.empty() ? "" : ", dtypes " + d.dtypes)
        << (d.active_if.empty() ? "" : " if " + d.active_if)
        << (d.via.empty() ? " (line " + std::to_string(d.line) + ")"
                          : " (" + d.via + ", " + d.file + ":" + std::to_string(d.line) + ")")
        << "\n";
  }
  for (const auto& a : e.decoration_names) out << bullet << a.name << " = " << a.value << " (line " << a.line << ")\n";
  out << "\n";
}

}  // namespace

json TestsToJson(const TestsAnswer& a) {
  json entries = json::array();
  for (const auto& e : a.entries) entries.push_back(EntryJson(e));
  json out = {{"schema", "optrace.tests/1"},
              {"query", a.query},
              {"names_tried", a.names_tried},
              {"entries", std::move(entries)},
              {"database_tests", UsesJson(a.database_tests)},
              {"direct_uses", UsesJson(a.direct_uses)}};
  if (!a.suggestions.empty()) out["suggestions"] = a.suggestions;
  return out;
}

std::string TestsText(const TestsAnswer& a, bool md) {
  std::ostringstream out;
  out << (md ? "# " : "") << "How PyTorch tests " << a.query << ": " << a.entries.size() << " entr"
      << (a.entries.size() == 1 ? "y" : "ies") << "\n\n";
  for (const auto& e : a.entries) Entry(out, md, e);
  out << (md ? "## " : "") << "Test files running every entry of the database (and the decorated tests)\n"
      << (md ? "\n" : "");
  Uses(out, md, a.database_tests);
  out << "\n" << (md ? "## " : "") << "Test files calling it directly (uses; first tests)\n" << (md ? "\n" : "");
  Uses(out, md, a.direct_uses);
  return TerminalText(out.str());  // names from the checkout reach a terminal
}

}  // namespace optrace
