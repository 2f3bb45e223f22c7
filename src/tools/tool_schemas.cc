// The scan, verify and tests output schemas (why: tool_schemas.h), written
// from the writers (usescan/usescan_render.cc, verify/verify_json.cc,
// verify/test_finder_text.cc) and tested against their real answers in
// tool_schemas_test.cc and the SDK test.
#include "tools/tool_schemas.h"

#include <initializer_list>
#include <utility>

namespace optrace {

using json = nlohmann::ordered_json;

namespace {

json Type(const char* type) { return {{"type", type}}; }
json Nullable(const char* type) { return {{"anyOf", {Type(type), Type("null")}}}; }
json ArrayOf(json items) { return {{"type", "array"}, {"items", std::move(items)}}; }
json Strings() { return ArrayOf(Type("string")); }

// An object with `required` fields and the types of its properties.
json Object(std::initializer_list<const char*> required,
            std::initializer_list<std::pair<const char*, json>> properties) {
  json props = json::object();
  for (const auto& [name, schema] : properties) props[name] = schema;
  json out = {{"type", "object"}, {"properties", std::move(props)}};
  if (required.size()) {
    json r = json::array();
    for (const char* name : required) r.push_back(name);
    out["required"] = std::move(r);
  }
  return out;
}

json Location() { return Object({"file", "line"}, {{"file", Type("string")}, {"line", Type("integer")}}); }

json Counts() {
  return Object({"total", "explained", "unexplained", "not_in_tree", "explained_share"},
                {{"total", Type("integer")},
                 {"explained", Type("integer")},
                 {"unexplained", Type("integer")},
                 {"explained_inside_call", Type("integer")},
                 {"outside", Type("integer")},
                 {"not_in_tree", Type("integer")},
                 {"explained_by_library", Type("integer")},
                 {"explained_share", Type("number")}});
}

json RuntimeItems() {
  return ArrayOf(Object({"name", "phase", "stack", "count"}, {{"name", Type("string")},
                                                              {"phase", Type("string")},
                                                              {"op", Type("string")},
                                                              {"nearest_traced", Nullable("string")},
                                                              {"autograd_node", Type("string")},
                                                              {"stack", Strings()},
                                                              {"count", Type("integer")}}));
}

json Uses() {
  return ArrayOf(
      Object({"file", "line", "uses", "tests"},
             {{"file", Type("string")}, {"line", Type("integer")}, {"uses", Type("integer")}, {"tests", Strings()}}));
}

}  // namespace

json SourceFactsSchema() {
  return Object({"root", "version"}, {{"root", Type("string")},
                                      {"version", Type("string")},
                                      {"installed_torch", Nullable("string")},
                                      {"warning", Type("string")},
                                      {"permalink", Type("string")}});
}

json ScanOutputSchema() {
  json op = Object(
      {"query", "kind", "resolved", "aten", "category", "needs_trace", "uses"},
      {{"query", Type("string")},
       {"kind", Type("string")},
       {"resolved", Type("string")},
       {"aten", Type("string")},
       {"category", Type("string")},
       {"basis", Type("string")},
       {"inferred", Type("boolean")},
       {"needs_trace", Type("boolean")},
       {"summary", Type("string")},
       {"receivers", Strings()},
       {"uses", ArrayOf(Object({"line", "how"},
                               {{"line", Type("integer")}, {"function", Type("string")}, {"how", Type("string")}}))}});
  json layer = Object({"owner", "attr", "query", "line"}, {{"owner", Type("string")},
                                                           {"attr", Type("string")},
                                                           {"container", Type("string")},
                                                           {"query", Type("string")},
                                                           {"resolved", Type("string")},
                                                           {"line", Type("integer")}});
  json autograd =
      Object({"name", "line"},
             {{"name", Type("string")},
              {"line", Type("integer")},
              {"applied", ArrayOf(Object({"line"}, {{"line", Type("integer")}, {"function", Type("string")}}))}});
  json function = Object({"qualname", "role", "line", "ops"}, {{"qualname", Type("string")},
                                                               {"role", Type("string")},
                                                               {"owner", Type("string")},
                                                               {"line", Type("integer")},
                                                               {"ops", Strings()},
                                                               {"calls", Type("array")},
                                                               {"save_for_backward", Type("array")},
                                                               {"saved_tensors", Type("array")}});
  json unresolved = Object(
      {"line", "text", "reason"},
      {{"line", Type("integer")}, {"function", Type("string")}, {"text", Type("string")}, {"reason", Type("string")}});
  return Object({"schema", "file", "source", "modules", "layers", "ops", "functions", "unresolved"},
                {{"schema", {{"type", "string"}, {"const", "optrace.scan/1"}}},
                 {"file", Type("string")},
                 {"source", SourceFactsSchema()},
                 {"modules", Strings()},
                 {"layers", ArrayOf(layer)},
                 {"autograd_functions", ArrayOf(autograd)},
                 {"ops", ArrayOf(op)},
                 {"functions", ArrayOf(function)},
                 {"unresolved", ArrayOf(unresolved)},
                 {"traces", ArrayOf(Type("object"))}});
}

json VerifyOutputSchema() {
  json mark = Object({"kind", "name", "observed"}, {{"kind", Type("string")},
                                                    {"name", Type("string")},
                                                    {"op", Type("string")},
                                                    {"detail", Type("string")},
                                                    {"where", {{"anyOf", {Location(), Type("null")}}}},
                                                    {"observed", Type("boolean")},
                                                    {"evidence", Type("string")},
                                                    {"note", Type("string")},
                                                    {"count", Type("integer")},
                                                    {"runtime_names", Strings()},
                                                    {"overload_told", Type("boolean")},
                                                    {"on_path", Type("boolean")}});
  json query = Object({"query", "target", "trace_error", "runs", "run_errors", "ops", "kernels"},
                      {{"query", Type("string")},
                       {"target", Type("string")},
                       {"trace_error", Nullable("string")},
                       {"runs", Strings()},
                       {"run_errors", Strings()},
                       {"ops", Counts()},
                       {"kernels", Counts()},
                       {"static", ArrayOf(mark)},
                       {"explained_ops", RuntimeItems()},
                       {"unexplained_ops", RuntimeItems()},
                       {"outside_ops", RuntimeItems()},
                       {"not_in_tree_ops", RuntimeItems()},
                       {"explained_kernels", RuntimeItems()},
                       {"unexplained_kernels", RuntimeItems()},
                       {"not_in_tree_kernels", RuntimeItems()}});
  json installed = Object({"torch_version", "python", "device"}, {{"torch_version", Type("string")},
                                                                  {"python", Type("string")},
                                                                  {"device", Type("string")},
                                                                  {"dtype", Type("string")},
                                                                  {"seconds", Type("number")}});
  return Object({"schema", "source", "installed", "summary", "queries"},
                {{"schema", {{"type", "string"}, {"const", "optrace.verify/1"}}},
                 {"source", Object({"root", "version"}, {{"root", Type("string")}, {"version", Type("string")}})},
                 {"installed", installed},
                 {"warning", Nullable("string")},
                 {"summary", Object({"queries", "ops", "kernels"},
                                    {{"queries", Type("integer")}, {"ops", Counts()}, {"kernels", Counts()}})},
                 {"queries", ArrayOf(query)}});
}

json TestsOutputSchema() {
  json function = Object({"role", "name"}, {{"role", Type("string")},
                                            {"name", Type("string")},
                                            {"file", Nullable("string")},
                                            {"line", Nullable("integer")}});
  json decoration = Object({"kind", "line"}, {{"kind", Type("string")},
                                              {"test_class", Type("string")},
                                              {"test_name", Type("string")},
                                              {"device_type", Type("string")},
                                              {"dtypes", Type("string")},
                                              {"line", Type("integer")},
                                              {"decorator", Type("string")},
                                              {"text", Type("string")},
                                              {"active_if", Type("string")},
                                              {"file", Type("string")},
                                              {"via", Type("string")}});
  json arg =
      Object({"value", "line"}, {{"name", Nullable("string")}, {"value", Type("string")}, {"line", Type("integer")}});
  json entry =
      Object({"kind", "name", "file", "line", "functions", "decorations"}, {{"kind", Type("string")},
                                                                            {"name", Type("string")},
                                                                            {"variant", Type("string")},
                                                                            {"matched_by", Type("string")},
                                                                            {"file", Type("string")},
                                                                            {"line", Type("integer")},
                                                                            {"functions", ArrayOf(function)},
                                                                            {"dtypes", Type("array")},
                                                                            {"decorations", ArrayOf(decoration)},
                                                                            {"args", ArrayOf(arg)}});
  return Object({"schema", "query", "entries", "database_tests", "direct_uses"},
                {{"schema", {{"type", "string"}, {"const", "optrace.tests/1"}}},
                 {"query", Type("string")},
                 {"names_tried", Strings()},
                 {"entries", ArrayOf(entry)},
                 {"database_tests", Uses()},
                 {"direct_uses", Uses()},
                 {"suggestions", Strings()},
                 {"source", SourceFactsSchema()}});
}

json ProfileOutputSchema() {
  json row =
      Object({"name", "kind", "calls", "total_us", "mean_us", "share"},
             {{"name", Type("string")},
              {"kind", Type("string")},
              {"calls", Type("integer")},
              {"total_us", Type("number")},
              {"mean_us", Type("number")},
              {"share", Type("number")},
              {"launched_by",
               Object({"op"}, {{"op", Type("string")}, {"outer_op", Type("string")}, {"calls", Type("integer")}})},
              {"python", Type("string")},
              {"input_shapes", Type("array")},
              {"input_types", Strings()},
              {"source", Object({"resolved"}, {{"resolved", Type("boolean")},
                                               {"kernel", Type("string")},
                                               {"definition", Location()},
                                               {"library", Type("string")},
                                               {"why", Type("string")}})},
              {"estimate", Type("object")}});
  json peak = Object({"name"}, {{"name", Type("string")}, {"hbm_tbs", Type("number")}, {"source", Type("string")}});
  return Object({"schema", "file", "device", "peak", "gpu", "total_us", "distinct", "rows", "notes"},
                {{"schema", {{"type", "string"}, {"const", "optrace.profile/1"}}},
                 {"file", Type("string")},
                 {"device", Type("string")},
                 {"peak", {{"anyOf", {peak, Type("null")}}}},
                 {"gpu", Type("boolean")},
                 {"total_us", Type("number")},
                 {"distinct", Type("integer")},
                 {"rows", ArrayOf(row)},
                 {"notes", Strings()}});
}

}  // namespace optrace
