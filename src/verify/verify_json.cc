// optrace.observed/1 in and out, and optrace.verify/1 out
// (doc/verify-schema.md). Reading is lenient about fields it does not know
// (a newer driver may add some) and strict about the schema name and types.
#include <cmath>
#include <exception>

#include "base/json.h"
#include "verify/verify.h"

namespace optrace {

using json = nlohmann::ordered_json;

namespace {

std::string Str(const json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : "";
}

ObservedOp OpFromJson(const json& j) {
  ObservedOp op;
  op.name = Str(j, "name");
  op.phase = Str(j, "phase");
  op.autograd_node = Str(j, "autograd_node");
  op.count = j.value("count", 0);
  if (j.contains("stack")) op.stack = j["stack"].get<std::vector<std::string>>();
  for (const auto& k : j.value("kernels", json::array())) op.kernels.push_back({Str(k, "name"), k.value("count", 0)});
  return op;
}

ObservedRun RunFromJson(const json& j) {
  ObservedRun run;
  run.label = Str(j, "label");
  run.query = Str(j, "query");
  run.error = Str(j, "error");
  run.setup_in_run = j.value("setup_in_run", false);
  for (const auto& op : j.value("ops", json::array())) run.ops.push_back(OpFromJson(op));
  const json overloads = j.value("overloads", json::object());  // kept: items() is a view
  for (const auto& [name, list] : overloads.items()) {
    run.overloads[name] = list.get<std::vector<std::string>>();
  }
  return run;
}

json RunToJson(const ObservedRun& run) {
  json ops = json::array();
  for (const auto& op : run.ops) {
    json kernels = json::array();
    for (const auto& k : op.kernels) kernels.push_back({{"name", k.name}, {"count", k.count}});
    ops.push_back({{"name", op.name},
                   {"stack", op.stack},
                   {"phase", op.phase},
                   {"autograd_node", op.autograd_node.empty() ? json(nullptr) : json(op.autograd_node)},
                   {"count", op.count},
                   {"kernels", std::move(kernels)}});
  }
  json overloads = json::object();
  for (const auto& [name, list] : run.overloads) overloads[name] = list;
  return {{"label", run.label},
          {"query", run.query},
          {"setup_in_run", run.setup_in_run},
          {"error", run.error.empty() ? json(nullptr) : json(run.error)},
          {"ops", std::move(ops)},
          {"overloads", std::move(overloads)}};
}

json LocJson(const Location& where) {
  return where.valid() ? json{{"file", where.file}, {"line", where.line}} : json(nullptr);
}

json MarkJson(const StaticMark& m) {
  json out = {
      {"kind", m.kind},        {"name", m.name}, {"op", m.op}, {"detail", m.detail}, {"where", LocJson(m.where)},
      {"observed", m.observed}};
  if (m.observed) out["evidence"] = m.evidence;
  if (m.observed && !m.overload_told) out["overload_told"] = false;
  if (m.on_path) out["on_path"] = true;
  else if (!m.evidence.empty()) out["note"] = m.evidence;
  if (m.count) out["count"] = m.count;
  if (!m.runtime_names.empty()) out["runtime_names"] = m.runtime_names;
  return out;
}

json ItemJson(const RuntimeItem& item) {
  json out = {{"name", item.name}, {"phase", item.phase}};
  if (!item.op.empty()) out["op"] = item.op;
  out["nearest_traced"] = item.nearest.empty() ? json(nullptr) : json(item.nearest);
  if (!item.autograd_node.empty()) out["autograd_node"] = item.autograd_node;
  out["stack"] = item.stack;
  out["count"] = item.count;
  return out;
}

json ItemsJson(const std::vector<RuntimeItem>& items) {
  json out = json::array();
  for (const auto& item : items) out.push_back(ItemJson(item));
  return out;
}

json CountsJson(const ShareCounts& c, bool kernels) {
  json out = {{"total", c.total}, {"explained", c.explained}, {"unexplained", c.unexplained}};
  if (!kernels) out["explained_inside_call"] = c.explained_inside_call;
  if (!kernels) out["outside"] = c.outside;
  out["not_in_tree"] = c.not_in_tree;
  if (kernels) out["explained_by_library"] = c.explained_by_library;
  out["explained_share"] = std::round(c.Share() * 10) / 10;
  return out;
}

json QueryJson(const QueryVerification& q, bool summary_only) {
  json out = {{"query", q.query},
              {"target", q.target},
              {"trace_error", q.trace_error.empty() ? json(nullptr) : json(q.trace_error)},
              {"runs", q.runs},
              {"run_errors", q.run_errors},
              {"ops", CountsJson(q.ops, false)},
              {"kernels", CountsJson(q.kernels, true)}};
  if (summary_only) {
    json names = json::array();
    for (const auto& item : q.unexplained_ops)
      names.push_back(item.name + " (" + item.phase + ", in " +
                      (item.nearest.empty() ? (item.autograd_node.empty() ? "-" : item.autograd_node) : item.nearest) +
                      ")");
    out["unexplained"] = std::move(names);
    return out;
  }
  json marks = json::array();
  for (const auto& m : q.marks) marks.push_back(MarkJson(m));
  out["static"] = std::move(marks);
  out["explained_ops"] = ItemsJson(q.explained_ops);
  out["unexplained_ops"] = ItemsJson(q.unexplained_ops);
  out["outside_ops"] = ItemsJson(q.outside_ops);
  out["not_in_tree_ops"] = ItemsJson(q.not_in_tree_ops);
  out["explained_kernels"] = ItemsJson(q.explained_kernels);
  out["unexplained_kernels"] = ItemsJson(q.unexplained_kernels);
  out["not_in_tree_kernels"] = ItemsJson(q.not_in_tree_kernels);
  return out;
}

}  // namespace

Status ParseObserved(const std::string& text, Observed* out) {
  if (JsonNestingDepth(text) > kMaxJsonDepth) {
    return Status::Usage("not an optrace.observed/1 document: nested deeper than " + std::to_string(kMaxJsonDepth) +
                         " levels");
  }
  json j;
  try {
    j = json::parse(text);
  } catch (const std::exception& e) {
    return Status::Usage(std::string("not a JSON document: ") + e.what());
  }
  // Read without value(): a "schema" that is not a string threw (found by verify_input_fuzz).
  const bool observed_schema = j.is_object() && j.contains("schema") && j["schema"].is_string() &&
                               j["schema"].get<std::string>() == "optrace.observed/1";
  if (!observed_schema) {
    return Status::Usage("not an optrace.observed/1 document (no \"schema\": \"optrace.observed/1\")");
  }
  try {
    out->torch_version = Str(j, "torch_version");
    out->python = Str(j, "python");
    out->device = j.value("device", "cpu");
    out->device_name = Str(j, "device_name");
    out->cuda = Str(j, "cuda");
    out->dtype = Str(j, "dtype");
    out->seconds = j.value("seconds", 0.0);
    if (j.contains("error") && j["error"].is_object()) {
      out->error_code = j["error"].value("code", 0);
      out->error = Str(j["error"], "message");
    }
    for (const auto& run : j.value("runs", json::array())) out->runs.push_back(RunFromJson(run));
  } catch (const std::exception& e) {
    return Status::Usage(std::string("malformed optrace.observed/1 document: ") + e.what());
  }
  return Status::Ok();
}

json ObservedToJson(const Observed& o) {
  json runs = json::array();
  for (const auto& run : o.runs) runs.push_back(RunToJson(run));
  json out = {
      {"schema", "optrace.observed/1"}, {"torch_version", o.torch_version}, {"python", o.python}, {"device", o.device}};
  if (!o.device_name.empty()) out["device_name"] = o.device_name;
  if (!o.cuda.empty()) out["cuda"] = o.cuda;
  out["dtype"] = o.dtype;
  out["seconds"] = o.seconds;
  out["error"] = o.error.empty() ? json(nullptr) : json{{"code", o.error_code}, {"message", o.error}};
  out["runs"] = std::move(runs);
  return out;
}

json VerifyToJson(const VerifyReport& r, bool summary_only) {
  json queries = json::array();
  for (const auto& q : r.queries) queries.push_back(QueryJson(q, summary_only));
  json installed = {{"torch_version", r.observed.torch_version},
                    {"python", r.observed.python},
                    {"device", r.observed.device},
                    {"dtype", r.observed.dtype},
                    {"seconds", r.observed.seconds}};
  if (!r.observed.device_name.empty()) installed["device_name"] = r.observed.device_name;
  if (!r.observed.cuda.empty()) installed["cuda"] = r.observed.cuda;
  return {
      {"schema", "optrace.verify/1"},
      {"source", {{"root", r.source_root}, {"version", r.source_version}}},
      {"installed", std::move(installed)},
      {"warning", r.warning.empty() ? json(nullptr) : json(r.warning)},
      {"summary",
       {{"queries", r.queries.size()}, {"ops", CountsJson(r.ops, false)}, {"kernels", CountsJson(r.kernels, true)}}},
      {"queries", std::move(queries)}};
}

}  // namespace optrace
