// The four MCP tools over one loaded Index. `trace` is TraceQuery plus the
// renderers; `find` and `op` are direct index lookups, answered with
// file:line for every fact and nothing inferred; `source` says what is read.
#include "tools/mcp_tools.h"

#include "usescan/usescan.h"

#include <algorithm>
#include <chrono>
#include <iostream>
#include <set>
#include <sstream>

#include "render/render.h"
#include "base/text.h"
#include "index/store_arena.h"
#include "lookup/find.h"
#include "lookup/op.h"
#include "lookup/py.h"
#include "lookup/query.h"
#include "trace/trace.h"
#include "tools/verify_tool.h"

namespace optrace {

using json = nlohmann::ordered_json;

namespace {

json Loc(const std::string& file, uint32_t line) { return {{"file", file}, {"line", line}}; }

json OpEntryJson(const YamlModel& yaml, const NativeFunction& f) {
  json dispatch = json::object();
  for (const auto& [key, function] : f.dispatch) dispatch[key] = function;
  json entry = {{"name", f.name},
                {"file", kNativeFunctionsPath},
                {"line", f.line},
                {"func", OpSchemaText(f)},
                {"variants", f.variants},
                {"dispatch", std::move(dispatch)},
                {"implicit_composite", f.implicit_composite},
                {"structured", f.structured},
                {"structured_delegate", f.structured_delegate ? json(*f.structured_delegate) : json(nullptr)},
                {"autogen", f.autogen},
                {"tags", f.tags},
                {"python_module", f.python_module ? json(*f.python_module) : json(nullptr)}};
  if (f.structured_inherits) entry["structured_inherits"] = *f.structured_inherits;
  if (f.autogen_from) entry["autogen_from"] = *f.autogen_from;
  const DerivativeEntry* d = yaml.FindDerivative(f.name);
  json derivatives = d ? DerivativesJson(*d) : json(nullptr);  // as optrace.trace/1 writes it
  if (d && !d->dispatch_sections.empty()) {  // the section names alone, as the first MCP answers gave them
    json sections = json::array();
    for (const auto& [key, _] : d->dispatch_sections) sections.push_back(key);
    derivatives["dispatch_sections"] = std::move(sections);
  }
  entry["derivatives"] = std::move(derivatives);
  return entry;
}

// The enclosing function (qualified) or macro of a call or launch.
std::string Holder(const CppIndex& cpp, int32_t function, const std::string& macro) {
  if (function >= 0 && static_cast<size_t>(function) < cpp.functions().id_end()) return cpp.functions()[function].qualified;
  return macro.empty() ? "" : "#define " + macro;
}

// Appends `item` to `list` while it is shorter than `limit`; counts it in totals[key] either way.
void Add(json& list, json& totals, const char* key, size_t limit, json item) {
  totals[key] = totals.value(key, 0) + 1;
  if (list.size() < limit) list.push_back(std::move(item));
}

std::string Where(const json& item) {
  return item.value("file", std::string()) + ":" + std::to_string(item.value("line", 0));
}

// Caps of the brief trace: an agent reads the main path, not every op a
// helper frame or a deep implementation touches (detail "full" has them all).
constexpr int kBriefMaxDepth = 1;
constexpr size_t kBriefMaxOps = 60, kBriefMaxCalls = 12, kBriefMaxKernels = 8, kBriefMaxLibraryCalls = 6,
                 kBriefMaxNotFound = 10;

// Keeps the first `limit` items of the array at obj[key]; returns how many were dropped.
size_t Cap(json& obj, const char* key, size_t limit) {
  if (!obj.contains(key) || !obj[key].is_array() || obj[key].size() <= limit) return 0;
  size_t dropped = obj[key].size() - limit;
  obj[key].erase(obj[key].begin() + static_cast<std::ptrdiff_t>(limit), obj[key].end());
  return dropped;
}

// Keeps only `keys` of obj.
void Keep(json& obj, std::initializer_list<const char*> keys) {
  json kept = json::object();
  for (const char* k : keys)
    if (obj.contains(k)) kept[k] = std::move(obj[k]);
  obj = std::move(kept);
}

// One op of the brief: where its YAML entry is and its dispatch table, its
// implementations, stub registrations, kernels and libraries with their lines,
// and each aten op it calls once (none for ops at the brief's last depth: they
// would point past what is listed).
json BriefOp(json op, bool last_depth, size_t* calls_omitted) {
  if (op.contains("yaml") && op["yaml"].is_object())
    Keep(op["yaml"], {"name", "file", "line", "dispatch", "implicit_composite", "structured_delegate"});
  for (auto& impl : op["impls"]) Keep(impl, {"key", "function", "file", "line", "form"});
  for (auto& stub : op["stubs"]) {
    Keep(stub, {"name", "registrations"});
    for (auto& r : stub["registrations"]) Keep(r, {"device", "target", "file", "line"});
  }
  for (auto& kernel : op["kernels"]) Keep(kernel, {"name", "device", "file", "line", "launch"});
  for (auto& library : op["libraries"]) {
    Keep(library, {"name", "file", "line", "calls"});
    Cap(library, "calls", kBriefMaxLibraryCalls);
  }
  Cap(op, "kernels", kBriefMaxKernels);
  json calls = json::array();
  std::set<std::string> seen;
  for (auto& call : op["calls"]) {
    if (!seen.insert(call.value("op", std::string())).second) continue;
    Keep(call, {"op", "device", "file", "line"});
    calls.push_back(std::move(call));
  }
  op["calls"] = std::move(calls);
  *calls_omitted += Cap(op, "calls", last_depth ? 0 : kBriefMaxCalls);
  return op;
}

}  // namespace

json BriefTrace(const json& full) {
  json brief = full;
  std::set<std::string> kept;
  for (const auto& op : full["ops"])
    if (op.value("role", "") == "forward" && op.value("depth", 0) <= kBriefMaxDepth) kept.insert(op["name"]);
  // The ops to list, shallowest first: forward ops of depth d, then the
  // backward ops their derivatives name (depth d + 1), then depth d + 1.
  std::vector<std::pair<int, const json*>> chosen;
  for (const auto& op : full["ops"]) {
    int depth = op.value("depth", 0);
    if (op.value("role", "") == "forward") {
      if (depth <= kBriefMaxDepth) chosen.push_back({2 * depth, &op});
    } else if (depth <= kBriefMaxDepth + 1 && kept.count(op.value("reached_from", std::string()))) {
      chosen.push_back({2 * depth - 1, &op});
    }
  }
  std::stable_sort(chosen.begin(), chosen.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  // Each op once (its first appearance), at most kBriefMaxOps.
  json ops = json::array();
  std::set<std::string> listed;
  size_t calls_omitted = 0;
  for (const auto& [rank, op] : chosen) {
    if (ops.size() == kBriefMaxOps || !listed.insert((*op)["name"].get<std::string>()).second) continue;
    ops.push_back(BriefOp(*op, op->value("depth", 0) >= kBriefMaxDepth, &calls_omitted));
  }
  size_t ops_omitted = full["ops"].size() - ops.size();
  brief["ops"] = std::move(ops);
  for (const char* key : {"backward", "decompositions"}) {
    json list = json::array();
    for (const auto& item : full[key])
      if (kept.count(item.value("op", std::string()))) list.push_back(item);
    brief[key] = std::move(list);
  }
  size_t not_found_omitted = Cap(brief, "not_found", kBriefMaxNotFound);
  brief["brief"] = {{"ops_omitted", ops_omitted},
                    {"calls_omitted", calls_omitted},
                    {"not_found_omitted", not_found_omitted},
                    {"max_depth", kBriefMaxDepth}};
  return brief;
}

namespace {

// "aten/src/ATen/native/RNN.cpp:1429"
std::string At(const json& item) {
  return item.contains("file") ? "`" + Where(item) + "`" : "";
}

std::string Str(const json& item, const char* key) {
  auto it = item.find(key);
  return it != item.end() && it->is_string() ? it->get<std::string>() : "";
}

}  // namespace

std::string TraceBriefMarkdown(const json& t) {
  std::ostringstream out;
  out << "# optrace `" << Str(t, "query") << "` — " << Str(t["target"], "kind") << " `" << Str(t["target"], "name")
      << "`\nCheckout `" << Str(t["source"], "root") << "` (" << Str(t["source"], "version")
      << "); paths below are relative to it.\n";
  if (t["source"].contains("warning")) out << "\n**" << Str(t["source"], "warning") << "**\n";
  if (!t["python"].empty()) {
    out << "\n## Python\n";
    for (const auto& frame : t["python"]) {
      out << "- `" << Str(frame, "symbol") << "` " << At(frame);
      std::vector<std::string> bridges;
      for (const auto& call : frame["calls"]) {
        std::string resolved = Str(call, "resolved");
        if (StartsWith(resolved, "aten::"))
          bridges.push_back(Str(call, "callee") + " :" + std::to_string(call.value("line", 0)) + " → " + resolved);
      }
      for (size_t i = 0; i < bridges.size(); ++i) out << (i ? "; " : " — ") << bridges[i];
      out << "\n";
    }
  }
  auto ops_of = [&](const char* role, const char* title) {
    bool any = false;
    for (const auto& op : t["ops"]) {
      if (Str(op, "role") != role) continue;
      if (!any) out << "\n## " << title << "\n";
      any = true;
      const json& yaml = op.contains("yaml") ? op["yaml"] : json::object();
      out << "- **aten::" << Str(op, "name") << "**";
      if (op.value("depth", 0) > 0 || op.contains("reached_from"))
        out << " (from " << Str(op, "reached_from") << ")";
      if (yaml.is_object() && yaml.contains("line"))
        out << " — `native_functions.yaml:" << yaml["line"].get<int>() << "`";
      if (yaml.is_object() && yaml.contains("structured_delegate") && yaml["structured_delegate"].is_string())
        out << " · structured_delegate " << yaml["structured_delegate"].get<std::string>();
      out << "\n";
      for (const auto& impl : op["impls"])
        out << "  - " << Str(impl, "key") << ": `" << Str(impl, "function") << "` " << At(impl) << "\n";
      for (const auto& stub : op["stubs"]) {
        out << "  - stub `" << Str(stub, "name") << "`";
        for (const auto& r : stub["registrations"])
          out << "; " << Str(r, "device") << " → `" << Str(r, "target") << "` " << At(r);
        out << "\n";
      }
      for (const auto& k : op["kernels"])
        out << "  - kernel `" << Str(k, "name") << "` (" << Str(k, "device") << ", " << Str(k, "launch") << ") " << At(k) << "\n";
      for (const auto& l : op["libraries"]) {
        out << "  - " << Str(l, "name") << " " << At(l) << ":";
        for (const auto& c : l["calls"]) out << " " << c.get<std::string>();
        out << "\n";
      }
      if (!op["calls"].empty()) {
        out << "  - calls:";
        for (const auto& c : op["calls"]) out << " " << Str(c, "op") << " (" << Str(c, "device") << ")";
        out << "\n";
      }
    }
  };
  ops_of("forward", "Forward ops");
  ops_of("backward", "Backward ops");
  if (!t["backward"].empty()) {
    out << "\n## Derivatives\n";
    for (const auto& b : t["backward"]) {
      out << "- " << Str(b, "op");
      if (b.contains("derivatives") && b["derivatives"].is_object())
        out << " — `derivatives.yaml:" << b["derivatives"].value("line", 0) << "`";
      if (b.contains("ops") && !b["ops"].empty()) {
        out << " →";
        for (const auto& o : b["ops"]) out << " " << o.get<std::string>();
      }
      if (b.contains("note")) out << " (" << Str(b, "note") << ")";
      out << "\n";
    }
  }
  if (!t["notes"].empty()) {
    out << "\n## Notes\n";
    for (const auto& n : t["notes"]) out << "- " << n.get<std::string>() << "\n";
  }
  if (!t["not_found"].empty()) {
    out << "\n## Not found\n";
    for (const auto& n : t["not_found"]) out << "- " << Str(n, "what") << ": " << Str(n, "detail") << "\n";
  }
  if (t.contains("brief")) {
    const json& b = t["brief"];
    out << "\n_Brief: aten ops deeper than depth " << b["max_depth"].get<int>() << " (" << b["ops_omitted"].get<size_t>()
        << "), repeated or extra calls (" << b["calls_omitted"].get<size_t>() << ") and "
        << b["not_found_omitted"].get<size_t>() << " not-found items are left out; call `trace` with "
           "detail \"full\" or `find`/`op` for them._\n";
  }
  return out.str();
}

json FindSymbol(const Index& index, std::string_view symbol, size_t limit) {
  const CppIndex& cpp = index.cpp;
  FindAnswer found = FindName(index, symbol);
  json definitions = json::array(), stubs = json::array(), registrations = json::array(), dispatch = json::array(),
       ops = json::array(), launches = json::array(), callers = json::array(), totals = json::object();
  for (const NativeFunction* f : found.ops)
    Add(ops, totals, "ops", limit, {{"name", f->name}, {"func", OpSchemaText(*f)}, {"file", kNativeFunctionsPath}, {"line", f->line}});
  for (uint32_t i : found.definitions) {
    const CppFunction& f = cpp.functions()[i];
    json item = {{"kind", f.form == DefForm::kGlobalKernel ? "__global__" : DefFormName(f.form)},
                 {"name", f.qualified.empty() ? f.name : f.qualified}};
    if (!f.overload.empty()) item["overload"] = f.overload;
    item.update(Loc(cpp.file(f.file), f.line));
    if (!f.params.empty()) item["params"] = f.params;
    Add(definitions, totals, "definitions", limit, std::move(item));
  }
  for (uint32_t i : found.macros) {
    const CppMacro& m = cpp.macros()[i];
    json item = {{"kind", "macro"}, {"name", m.name}};
    item.update(Loc(cpp.file(m.file), m.line));
    Add(definitions, totals, "definitions", limit, std::move(item));
  }
  for (const PySymbol& p : found.python) {
    PyLocation l = LocatePython(index.py, p);
    json item = {{"kind", std::string("python ") + PythonKindName(p.kind)}, {"name", index.py.NameOf(p)}};
    item.update(Loc(l.path, l.line ? l.line : 1));
    Add(definitions, totals, "definitions", limit, std::move(item));
  }
  // `name` as a dispatch stub: its declaration and every registration.
  if (!found.stub_decls.empty()) {
    json stub = {{"name", found.name}};
    for (uint32_t i : found.stub_decls) {
      const StubDecl& d = cpp.stub_decls()[i];
      stub[d.kind == StubDeclKind::kDeclare ? "declared" : "defined"] = Loc(cpp.file(d.file), d.line);
    }
    json regs = json::array();
    for (uint32_t i : found.stub_registrations) {
      const StubRegistration& r = cpp.registrations()[i];
      json item = {{"device", r.device}, {"macro", r.macro}, {"target", r.target}};
      if (!r.arch.empty()) item["arch"] = r.arch;
      item.update(Loc(cpp.file(r.file), r.line));
      regs.push_back(std::move(item));
    }
    stub["registrations"] = std::move(regs);
    Add(stubs, totals, "stubs", limit, std::move(stub));
  }
  // `name` as what gets registered: a stub target or a TORCH_LIBRARY_IMPL function.
  for (uint32_t i : found.registered_as_target) {
    const StubRegistration& r = cpp.registrations()[i];
    json item = {{"kind", "stub"}, {"stub", r.stub}, {"device", r.device}, {"macro", r.macro}};
    item.update(Loc(cpp.file(r.file), r.line));
    Add(registrations, totals, "registrations", limit, std::move(item));
  }
  for (uint32_t i : found.library_registrations) {
    const LibraryRegistration& r = cpp.library_registrations()[i];
    json item = {{"kind", r.block}, {"key", r.key}, {"op", r.op}, {"function", r.function}};
    item.update(Loc(cpp.file(r.file), r.line));
    Add(registrations, totals, "registrations", limit, std::move(item));
  }
  for (const auto& [f, key] : found.dispatch)
    Add(dispatch, totals, "dispatch", limit, {{"op", f->name}, {"key", key}, {"file", kNativeFunctionsPath}, {"line", f->line}});
  for (uint32_t i : found.launches_of) {
    const CppLaunch& l = cpp.launches()[i];
    json item = {{"kind", LaunchKindName(l.kind)}, {"launcher", l.launcher}, {"from", Holder(cpp, l.function, l.macro)}};
    item.update(Loc(cpp.file(l.file), l.line));
    Add(launches, totals, "launches", limit, std::move(item));
  }
  for (uint32_t i : found.callers) {
    const CppCall& c = cpp.calls()[i];
    json item = {{"from", Holder(cpp, c.function, c.macro)}, {"call", c.qualifier + c.callee}};
    item.update(Loc(cpp.file(c.file), c.line));
    Add(callers, totals, "callers", limit, std::move(item));
  }
  json out = {{"symbol", found.query}, {"definitions", definitions}, {"stubs", stubs},   {"registrations", registrations},
              {"dispatch", dispatch},  {"ops", ops},                 {"launches", launches}, {"callers", callers},
              {"totals", totals}};
  if (!found.found()) out["suggestions"] = found.suggestions;
  return out;
}

bool DescribeOp(const Index& index, std::string_view name, json* out) {
  OpAnswer answer = LookupOp(index.yaml, name);
  json list = json::array();
  for (const NativeFunction* f : answer.entries) list.push_back(OpEntryJson(index.yaml, *f));
  *out = {{"query", answer.query}, {"entries", std::move(list)}};
  if (!answer.entries.empty()) return true;
  (*out)["suggestions"] = answer.suggestions;
  return false;
}

std::string OpMarkdown(const json& op) {
  std::ostringstream out;
  for (const auto& e : op["entries"]) {
    out << "### aten::" << e["name"].get<std::string>() << " — `" << Where(e) << "`\n"
        << "`" << e["func"].get<std::string>() << "`\n";
    std::vector<std::string> facts;
    facts.push_back("variants: " + e["variants"].dump());
    if (e["structured"].get<bool>()) facts.push_back("structured");
    if (!e["structured_delegate"].is_null()) facts.push_back("structured_delegate: " + e["structured_delegate"].get<std::string>());
    if (!e["tags"].empty()) facts.push_back("tags: " + e["tags"].dump());
    if (!e["python_module"].is_null()) facts.push_back("python_module: " + e["python_module"].get<std::string>());
    if (e.contains("autogen_from")) facts.push_back("autogen from " + e["autogen_from"].get<std::string>());
    out << "- ";
    for (size_t i = 0; i < facts.size(); ++i) out << (i ? " · " : "") << facts[i];
    out << "\n- dispatch:";
    if (e["dispatch"].empty()) out << " (none)";
    for (const auto& [key, function] : e["dispatch"].items()) out << " " << key << " → `" << function.get<std::string>() << "`;";
    out << (e["implicit_composite"].get<bool>() ? " (implied: no dispatch or structured_delegate in the YAML)" : "") << "\n";
    const json& d = e["derivatives"];
    if (d.is_null()) {
      out << "- derivatives.yaml: no entry named " << e["name"].get<std::string>() << "\n";
    } else {
      out << "- derivatives.yaml `" << Where(d) << "`:";
      for (const auto& [inputs, formula] : d["formulas"].items()) out << "\n  - " << inputs << ": `" << formula.get<std::string>() << "`";
      out << "\n";
    }
  }
  return out.str();
}

std::string FindMarkdown(const json& found) {
  std::ostringstream out;
  out << "### find `" << found["symbol"].get<std::string>() << "`\n";
  const json& totals = found["totals"];
  auto section = [&](const char* key, const char* title, auto&& line) {
    const json& items = found[key];
    if (items.empty()) return;
    out << "\n**" << title << "**";
    size_t total = totals.value(key, items.size());
    if (total > items.size()) out << " (" << items.size() << " of " << total << ")";
    out << "\n";
    for (const auto& item : items) out << "- " << line(item) << "\n";
  };
  auto str = [](const json& item, const char* key) { return item.value(key, std::string()); };
  section("definitions", "Definitions", [&](const json& d) {
    return str(d, "kind") + " `" + str(d, "name") + "` — `" + Where(d) + "`" +
           (d.contains("params") ? " (" + str(d, "params") + ")" : "");
  });
  section("ops", "aten ops", [&](const json& o) { return "`" + str(o, "func") + "` — `" + Where(o) + "`"; });
  section("dispatch", "Dispatched to by native_functions.yaml", [&](const json& d) {
    return str(d, "op") + " [" + str(d, "key") + "] — `" + Where(d) + "`";
  });
  section("stubs", "Dispatch stub", [&](const json& s) {
    std::string text = "`" + str(s, "name") + "`";
    if (s.contains("declared")) text += " declared `" + Where(s["declared"]) + "`";
    if (s.contains("defined")) text += ", defined `" + Where(s["defined"]) + "`";
    for (const auto& r : s["registrations"])
      text += "\n  - " + str(r, "device") + (r.contains("arch") ? "/" + str(r, "arch") : "") + ": `" + str(r, "target") +
              "` (" + str(r, "macro") + ") — `" + Where(r) + "`";
    return text;
  });
  section("registrations", "Registered as", [&](const json& r) {
    if (str(r, "kind") == "stub")
      return str(r, "macro") + "(" + str(r, "stub") + ") [" + str(r, "device") + "] — `" + Where(r) + "`";
    return str(r, "kind") + " [" + str(r, "key") + "] " + str(r, "op") + " → `" + str(r, "function") + "` — `" + Where(r) + "`";
  });
  section("launches", "Launches", [&](const json& l) {
    return str(l, "kind") + (str(l, "launcher").empty() ? "" : " via " + str(l, "launcher")) + " in `" + str(l, "from") +
           "` — `" + Where(l) + "`";
  });
  section("callers", "Callers", [&](const json& c) { return "`" + str(c, "from") + "` calls `" + str(c, "call") + "` — `" + Where(c) + "`"; });
  return out.str();
}

namespace {

json LocSchema() {
  return {{"type", "object"},
          {"required", {"file", "line"}},
          {"properties", {{"file", {{"type", "string"}}}, {"line", {{"type", "integer"}, {"minimum", 1}}}}}};
}

json ArrayOf(json item) { return {{"type", "array"}, {"items", std::move(item)}}; }

json LocatedItem(std::initializer_list<const char*> string_fields) {
  json schema = LocSchema();
  for (const char* f : string_fields) schema["properties"][f] = {{"type", "string"}};
  return schema;
}

std::vector<McpTool> MakeTools() {
  json nullable_string = {{"type", {"string", "null"}}};
  json strings = ArrayOf({{"type", "string"}});
  json any_array = {{"type", "array"}};

  McpTool trace{
      "trace", "Trace a PyTorch operation",
      "Traces a PyTorch operation from the Python API to the code that really runs, read from the PyTorch "
      "checkout that matches the installed torch: Python frames and the bridge into C++, native_functions.yaml "
      "entries, C++ implementations per dispatch key, dispatch stubs, CUDA kernels and vendor libraries "
      "(cuDNN, cuBLAS...), aten ops called, derivatives.yaml and backward ops, decompositions. Every fact has "
      "file:line relative to the checkout root. Use it instead of grepping the checkout. Query forms: nn.LSTM, "
      "F.scaled_dot_product_attention, torch.cumsum, Tensor.softmax (for x.softmax(-1)), aten::add.Tensor, "
      "an operator such as '@', or a CUDA kernel name. The answer is brief by default (the main path); "
      "detail \"full\" gives every op reached.",
      {{"type", "object"},
       {"properties",
        {{"query", {{"type", "string"}, {"minLength", 1}, {"maxLength", kMaxQueryLength},
                    {"description", "nn.LSTM, F.softmax, torch.mm, Tensor.view, aten::_softmax, '@', a kernel name"}}},
         {"device", {{"type", "string"}, {"enum", {"cuda", "cpu", "all"}},
                     {"description", "implementations to follow; omit for CPU, CUDA and composite"}}},
         {"backward", {{"type", "boolean"}, {"default", true}, {"description", "also trace derivatives.yaml and backward ops"}}},
         {"depth", {{"type", "integer"}, {"minimum", 0}, {"maximum", 32}, {"default", TraceOptions().depth},
                    {"description", "how deep aten ops called from implementations are followed"}}},
         {"detail", {{"type", "string"}, {"enum", {"brief", "full"}}, {"default", "brief"},
                     {"description", "brief: the main path (aten ops to depth 1, each call once), for an agent's "
                                     "context; full: every op and call site"}}}}},
       {"required", {"query"}},
       {"additionalProperties", false}},
      // optrace.trace/1 (doc/trace-schema.md): the required fields and their shapes.
      {{"type", "object"},
       {"required", {"schema", "query", "source", "target", "python", "ops", "backward", "decompositions", "not_found", "notes"}},
       {"properties",
        {{"schema", {{"type", "string"}, {"const", "optrace.trace/1"}}},
         {"query", {{"type", "string"}}},
         {"source", {{"type", "object"}, {"required", {"root", "version"}},
                     {"properties", {{"root", {{"type", "string"}}}, {"version", {{"type", "string"}}},
                                     {"installed_torch", {{"type", {"string", "null"}}}},
                                     {"warning", {{"type", "string"}}}}}}},
         {"target", {{"type", "object"}, {"required", {"kind", "name"}},
                     {"properties", {{"kind", {{"type", "string"}}}, {"name", {{"type", "string"}}}}}}},
         {"python", ArrayOf({{"type", "object"}, {"required", {"symbol"}}, {"properties", {{"symbol", {{"type", "string"}}}, {"calls", any_array}}}})},
         {"ops", ArrayOf({{"type", "object"},
                          {"required", {"name", "role"}},
                          {"properties",
                           {{"name", {{"type", "string"}}},
                            {"role", {{"type", "string"}, {"enum", {"forward", "backward"}}}},
                            {"impls", any_array}, {"stubs", any_array}, {"kernels", any_array},
                            {"libraries", any_array}, {"calls", any_array}}}})},
         {"backward", ArrayOf({{"type", "object"}, {"required", {"op"}}, {"properties", {{"op", {{"type", "string"}}}, {"ops", strings}}}})},
         {"decompositions", any_array},
         {"not_found", ArrayOf({{"type", "object"}, {"required", {"what", "detail"}}})},
         {"notes", strings}}}}};

  json limit = {{"type", "integer"}, {"minimum", 1}, {"maximum", 100}, {"default", 10},
                {"description", "at most this many items per list (totals gives the full counts)"}};
  McpTool find{
      "find", "Find a symbol in the checkout",
      "Where a C++ function, dispatch stub, macro, __global__ kernel, functor, Python name or aten op is defined, "
      "registered (REGISTER_DISPATCH, TORCH_LIBRARY_IMPL, native_functions.yaml dispatch) and called, with "
      "file:line. Examples: softmax_warp_forward, lstm_cudnn, at::native::layer_norm_cuda, add_stub, "
      "aten::add.Tensor, torch.nn.functional.gelu, MulFunctor.",
      {{"type", "object"},
       {"properties", {{"symbol", {{"type", "string"}, {"minLength", 1}, {"maxLength", kMaxQueryLength}}}, {"limit", limit}}},
       {"required", {"symbol"}},
       {"additionalProperties", false}},
      {{"type", "object"},
       {"required", {"symbol", "definitions", "stubs", "registrations", "dispatch", "ops", "launches", "callers", "totals"}},
       {"properties",
        {{"symbol", {{"type", "string"}}},
         {"definitions", ArrayOf(LocatedItem({"kind", "name"}))},
         {"stubs", ArrayOf({{"type", "object"}, {"required", {"name", "registrations"}},
                            {"properties", {{"name", {{"type", "string"}}}, {"declared", LocSchema()}, {"defined", LocSchema()},
                                            {"registrations", ArrayOf(LocatedItem({"device", "macro", "target"}))}}}})},
         {"registrations", ArrayOf(LocatedItem({"kind"}))},
         {"dispatch", ArrayOf(LocatedItem({"op", "key"}))},
         {"ops", ArrayOf(LocatedItem({"name", "func"}))},
         {"launches", ArrayOf(LocatedItem({"kind", "launcher", "from"}))},
         {"callers", ArrayOf(LocatedItem({"from", "call"}))},
         {"totals", {{"type", "object"}, {"additionalProperties", {{"type", "integer"}}}}},
         {"suggestions", strings}}}}};

  json entry = LocatedItem({"name", "func"});
  entry["required"] = {"name", "file", "line", "func", "dispatch", "derivatives"};
  entry["properties"]["variants"] = strings;
  entry["properties"]["dispatch"] = {{"type", "object"}, {"additionalProperties", {{"type", "string"}}}};
  entry["properties"]["structured"] = {{"type", "boolean"}};
  entry["properties"]["structured_delegate"] = nullable_string;
  entry["properties"]["tags"] = strings;
  entry["properties"]["derivatives"] = {
      {"type", {"object", "null"}},
      {"required", {"name", "file", "line", "formulas"}},
      {"properties", {{"formulas", {{"type", "object"}, {"additionalProperties", {{"type", "string"}}}}}}}};
  McpTool op{
      "op", "An aten op's YAML and derivatives",
      "The native_functions.yaml entry of an aten op (schema, variants, the effective dispatch table as torchgen "
      "resolves it, structured delegation, tags) and its derivatives.yaml formulas, with lines. A name with an "
      "overload (add.Tensor, aten::add.Tensor) gives that entry; a base name (add) gives every overload.",
      {{"type", "object"},
       {"properties", {{"name", {{"type", "string"}, {"minLength", 1}, {"maxLength", kMaxQueryLength}}}}},
       {"required", {"name"}},
       {"additionalProperties", false}},
      {{"type", "object"},
       {"required", {"query", "entries"}},
       {"properties", {{"query", {{"type", "string"}}}, {"entries", ArrayOf(entry)}, {"suggestions", strings}}}}};

  McpTool source{
      "source", "Which PyTorch checkout is read",
      "The PyTorch checkout optrace reads (path, how it was found, its version), the installed torch version "
      "(with a warning when they differ), and the state of the index (loading, ready with counts, or failed and why; "
      "whether edits to the checkout are watched, and how often the index was reloaded after one).",
      {{"type", "object"}, {"additionalProperties", false}},
      {{"type", "object"},
       {"required", {"state"}},
       {"properties",
        {{"state", {{"type", "string"}, {"enum", {"loading", "ready", "failed"}}}},
         {"root", {{"type", "string"}}},
         {"found_by", {{"type", "string"}}},
         {"version", {{"type", "string"}}},
         {"git_describe", {{"type", "string"}}},
         {"installed_torch", nullable_string},
         {"warning", {{"type", "string"}}},
         {"error", {{"type", "string"}}},
         {"load_seconds", {{"type", "number"}}},
         {"watching", {{"type", "boolean"}}},
         {"reloads", {{"type", "integer"}}},
         {"counts", {{"type", "object"}, {"additionalProperties", {{"type", "integer"}}}}}}}}};

  McpTool scan{
      "scan", "Find the PyTorch ops a model file runs",
      "Scans Python source (a model file's text): nn.Module layers and what forward does with them, torch.* and "
      "F.* calls under any import alias, tensor methods, operators (inferred), custom torch.autograd.Function "
      "forward/backward; each op with its uses (line) and a classification from the checkout. Ops that are not a "
      "well-known kind are marked for tracing: call `trace` on them. Unresolvable dynamic calls are listed, not "
      "guessed.",
      {{"type", "object"},
       {"properties",
        {{"text", {{"type", "string"}, {"minLength", 1}, {"maxLength", 1000000}}},
         {"name", {{"type", "string"}, {"maxLength", kMaxQueryLength}}},
         {"class", {{"type", "string"}, {"maxLength", kMaxQueryLength}}}}},
       {"required", {"text"}},
       {"additionalProperties", false}},
      {{"type", "object"}, {"required", {"schema", "ops"}}}};

  std::vector<McpTool> tools = {std::move(trace), std::move(find), std::move(op), std::move(source), std::move(scan)};
  for (auto& tool : VerifyTools()) tools.push_back(std::move(tool));
  return tools;
}

McpToolResult ToolError(std::string text) { return {true, std::move(text), nullptr}; }

}  // namespace

OptraceTools::OptraceTools(std::string source_flag)
    : source_flag_(std::move(source_flag)), tools_(MakeTools()), live_(source_flag_, "optrace mcp"),
      index_(live_.index()) {}

OptraceTools::~OptraceTools() {
  if (loader_.joinable()) loader_.join();
}

void OptraceTools::StartLoading() { loader_ = std::thread([this] { Load(); }); }

void OptraceTools::Load() {
  Status s = live_.Start([this](const Checkout& checkout) {
    InstalledTorch installed = CachedInstalledTorch(OptraceCacheDir());
    std::string warning = VersionMismatchWarning(checkout, installed);
    if (!warning.empty()) std::cerr << "optrace mcp: " << warning << "\n";
    std::lock_guard<std::mutex> lock(mu_);
    installed_torch_ = installed.version;
    version_warning_ = std::move(warning);
    have_torch_ = true;
  });
  if (s.ok()) std::cerr << "optrace mcp: index of " << live_.Describe().checkout.root << " ready\n";
}

bool OptraceTools::WaitLoaded(std::string* error) { return live_.WaitStarted(error); }

McpToolResult OptraceTools::Call(const std::string& name, const McpJson& arguments) {
  if (name == "source") return Source();
  std::string error;
  live_.WaitStarted(&error);
  // Reloads after an edit, or retries a failed load (the checkout may be back).
  if (Status s = live_.Refresh(); !s.ok()) return ToolError("optrace cannot read a PyTorch checkout: " + s.message());
  auto reading = live_.ReadLock();
  if (name == "trace") return Trace(arguments);
  if (name == "find") return Find(arguments);
  if (name == "op") return Op(arguments);
  if (name == "scan") return Scan(arguments);
  if (McpToolResult r; CallVerifyTool(index_, name, arguments, &r)) return r;
  return ToolError("no tool named " + name);
}

McpToolResult OptraceTools::Scan(const McpJson& arguments) {
  std::string text = arguments.at("text");
  std::string name = arguments.value("name", std::string("model.py"));
  ScanReport report;
  Status s = ScanUserFile(index_, name, text, &report);
  if (!s.ok()) return ToolError("optrace scan: " + s.message());
  {
    std::lock_guard<std::mutex> lock(mu_);
    report.installed_torch = installed_torch_;
    report.source_warning = version_warning_;
  }
  std::string cls = arguments.value("class", std::string());
  if (!cls.empty()) FilterScanToClass(&report, cls);
  return {false, RenderScanMarkdown(report, {}), ScanToJson(report, {})};
}

McpToolResult OptraceTools::Trace(const McpJson& arguments) {
  std::string query = arguments.at("query");
  TraceOptions options;
  // The schema's enum already held it to a name ParseDevice knows.
  ParseDevice(arguments.value("device", std::string("default")), &options.device);
  options.backward = arguments.value("backward", true);
  options.depth = arguments.value("depth", options.depth);
  options.snippets = false;
  optrace::Trace trace;
  Status s = TraceQuery(index_, query, options, &trace);
  if (trace.query.empty()) trace.query = query;
  if (trace.source_root.empty()) trace.source_root = index_.root;
  if (trace.source_version.empty()) trace.source_version = index_.version;
  {
    std::lock_guard<std::mutex> lock(mu_);
    trace.installed_torch = installed_torch_;
    trace.source_warning = version_warning_;
  }
  if (s.ok()) {
    if (arguments.value("detail", std::string("brief")) == "full") return {false, RenderMarkdown(trace), TraceToJson(trace)};
    json brief = BriefTrace(TraceToJson(trace));
    return {false, TraceBriefMarkdown(brief), std::move(brief)};
  }
  if (s.code() != ExitCode::kNotFound) return ToolError("optrace: " + s.message());
  std::string text = "Not found: " + s.message() + "\nNothing was traced.";
  if (!trace.suggestions.empty()) {
    text += "\nDid you mean:";
    for (size_t i = 0; i < trace.suggestions.size(); ++i) text += (i ? ", " : " ") + trace.suggestions[i];
  }
  if (trace.not_found.empty()) trace.not_found.push_back({"query", s.message()});
  return {true, text, TraceToJson(trace)};
}

McpToolResult OptraceTools::Find(const McpJson& arguments) {
  std::string symbol = arguments.at("symbol");
  json found = FindSymbol(index_, symbol, arguments.value("limit", size_t{10}));
  bool any = false;
  for (const char* key : {"definitions", "stubs", "registrations", "dispatch", "ops", "launches", "callers"})
    any = any || !found[key].empty();
  if (!any) {
    std::string text = "Not found: the checkout defines, registers and calls nothing named `" + symbol + "`.";
    if (found.contains("suggestions") && !found["suggestions"].empty()) {
      text += "\nDid you mean:";
      for (size_t i = 0; i < found["suggestions"].size(); ++i)
        text += (i ? ", " : " ") + found["suggestions"][i].get<std::string>();
    }
    return {true, text, found};
  }
  return {false, FindMarkdown(found), found};
}

McpToolResult OptraceTools::Op(const McpJson& arguments) {
  std::string name = arguments.at("name");
  json out;
  if (DescribeOp(index_, name, &out)) return {false, OpMarkdown(out), out};
  std::string text = "Not found: native_functions.yaml has no op named `" + name + "`.";
  if (!out["suggestions"].empty()) {
    text += "\nDid you mean:";
    for (size_t i = 0; i < out["suggestions"].size(); ++i) text += (i ? ", " : " ") + out["suggestions"][i].get<std::string>();
  }
  return {true, text, out};
}

McpToolResult OptraceTools::Source() {
  json out;
  auto reading = live_.TryReadLock();  // not while a load holds the index: then no counts
  const LiveIndex::Info info = live_.Describe();
  std::lock_guard<std::mutex> lock(mu_);
  const bool ready = info.state == LiveIndex::State::kReady, failed = info.state == LiveIndex::State::kFailed;
  out["state"] = ready ? "ready" : failed ? "failed" : "loading";
  if (info.have_checkout) {
    out["root"] = info.checkout.root;
    out["found_by"] = info.checkout.found_by;
    out["version"] = info.checkout.version;
    if (std::string git = GitDescribe(info.checkout); !git.empty()) out["git_describe"] = git;
    if (have_torch_) out["installed_torch"] = installed_torch_ ? json(*installed_torch_) : json(nullptr);
    if (!version_warning_.empty()) out["warning"] = version_warning_;
  }
  if (!info.error.empty()) out["error"] = info.error;
  if (ready || failed) {
    out["load_seconds"] = info.load_seconds;
    out["watching"] = info.watching;
    out["reloads"] = info.reloads;
  }
  if (ready && reading.owns_lock()) {
    out["counts"] = {{"native_functions", index_.yaml.functions().size()},
                     {"derivatives", index_.yaml.derivatives().size()},
                     {"cpp_files", index_.cpp.files().size()},
                     {"cpp_functions", index_.cpp.functions().size()},
                     {"py_modules", index_.py.modules().size()}};
  }
  std::ostringstream text;
  text << "- state: " << out["state"].get<std::string>() << "\n";
  if (info.have_checkout) {
    text << "- checkout: `" << info.checkout.root << "` (found by " << info.checkout.found_by << "), version "
         << (info.checkout.version.empty() ? "unknown" : info.checkout.version) << "\n";
    if (have_torch_) text << "- installed torch: " << (installed_torch_ ? *installed_torch_ : "not installed") << "\n";
    if (!version_warning_.empty()) text << "- warning: " << version_warning_ << "\n";
  }
  if (!info.error.empty()) text << "- error: " << info.error << "\n";
  if (out.contains("counts")) text << "- index: " << out["counts"].dump() << "\n";
  if (ready || failed) {
    if (info.watching) text << "- edits to the checkout: picked up by the next call (" << info.reloads << " reloads so far)\n";
    else text << "- edits to the checkout: not watched (" << info.watch_error << "); restart the server after one\n";
  }
  if (failed) text << "- the next call loads the index again once the checkout is back or edited\n";
  return {failed, text.str(), out};
}

}  // namespace optrace
