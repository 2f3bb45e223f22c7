// The four MCP tools over one loaded Index. `trace` is TraceQuery plus the
// renderers; `find` and `op` are direct index lookups, answered with
// file:line for every fact and nothing inferred; `source` says what is read.
#include "tools/mcp_tools.h"

#include "usescan/usescan.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <set>
#include <sstream>

#include "base/permalink.h"
#include "base/text.h"
#include "index/store_arena.h"
#include "lookup/find.h"
#include "lookup/find_json.h"
#include "lookup/op.h"
#include "lookup/py.h"
#include "lookup/query.h"
#include "render/render.h"
#include "tools/profile_tool.h"
#include "tools/tool_schemas.h"
#include "tools/trace_pages.h"
#include "tools/trace_text.h"
#include "tools/verify_tool.h"
#include "trace/trace.h"
#include "trace/trace_paths.h"

namespace optrace {

using json = nlohmann::ordered_json;

namespace {

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
  const DerivativeEntry* d = yaml.DerivativeOf(f);
  json derivatives = d ? DerivativesJson(*d) : json(nullptr);  // as optrace.trace/1 writes it
  if (d && !d->dispatch_sections.empty()) {  // the section names alone, as the first MCP answers gave them
    json sections = json::array();
    for (const auto& [key, _] : d->dispatch_sections) sections.push_back(key);
    derivatives["dispatch_sections"] = std::move(sections);
  }
  entry["derivatives"] = std::move(derivatives);
  return entry;
}

std::string Where(const json& item) {
  return item.value("file", std::string()) + ":" + std::to_string(item.value("line", 0));
}

}  // namespace

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
    if (!e["structured_delegate"].is_null())
      facts.push_back("structured_delegate: " + e["structured_delegate"].get<std::string>());
    if (!e["tags"].empty()) facts.push_back("tags: " + e["tags"].dump());
    if (!e["python_module"].is_null()) facts.push_back("python_module: " + e["python_module"].get<std::string>());
    if (e.contains("autogen_from")) facts.push_back("autogen from " + e["autogen_from"].get<std::string>());
    out << "- ";
    for (size_t i = 0; i < facts.size(); ++i) out << (i ? " · " : "") << facts[i];
    out << "\n- dispatch:";
    if (e["dispatch"].empty()) out << " (none)";
    for (const auto& [key, function] : e["dispatch"].items())
      out << " " << key << " → `" << function.get<std::string>() << "`;";
    out << (e["implicit_composite"].get<bool>() ? " (implied: no dispatch or structured_delegate in the YAML)" : "")
        << "\n";
    const json& d = e["derivatives"];
    if (d.is_null()) {
      out << "- derivatives.yaml: no entry named " << e["name"].get<std::string>() << "\n";
    } else {
      out << "- derivatives.yaml `" << Where(d) << "`:";
      for (const auto& [inputs, formula] : d["formulas"].items())
        out << "\n  - " << inputs << ": `" << formula.get<std::string>() << "`";
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
  section("dispatch", "Dispatched to by native_functions.yaml",
          [&](const json& d) { return str(d, "op") + " [" + str(d, "key") + "] — `" + Where(d) + "`"; });
  section("stubs", "Dispatch stub", [&](const json& s) {
    std::string text = "`" + str(s, "name") + "`";
    if (s.contains("declared")) text += " declared `" + Where(s["declared"]) + "`";
    if (s.contains("defined")) text += ", defined `" + Where(s["defined"]) + "`";
    for (const auto& r : s["registrations"])
      text += "\n  - " + str(r, "device") + (r.contains("arch") ? "/" + str(r, "arch") : "") + ": `" +
              str(r, "target") + "` (" + str(r, "macro") + ") — `" + Where(r) + "`";
    return text;
  });
  section("registrations", "Registered as", [&](const json& r) {
    if (str(r, "kind") == "stub")
      return str(r, "macro") + "(" + str(r, "stub") + ") [" + str(r, "device") + "] — `" + Where(r) + "`";
    return str(r, "kind") + " [" + str(r, "key") + "] " + str(r, "op") + " → `" + str(r, "function") + "` — `" +
           Where(r) + "`";
  });
  section("launches", "Launches", [&](const json& l) {
    const std::string kernel = str(l, "kernel").empty() ? "" : " of `" + str(l, "kernel") + "`";
    return str(l, "kind") + kernel + (str(l, "launcher").empty() ? "" : " via " + str(l, "launcher")) + " in `" +
           str(l, "from") + "` — `" + Where(l) + "`";
  });
  section("macro_uses", "Macro used at", [&](const json& u) {
    if (u.contains("from")) return "in `" + str(u, "from") + "` — `" + Where(u) + "`";
    return "at file scope" + (str(u, "first_arg").empty() ? "" : " (makes `" + str(u, "first_arg") + "`)") + " — `" +
           Where(u) + "`";
  });
  section("callers", "Callers", [&](const json& c) {
    return "`" + str(c, "from") + "` calls `" + str(c, "call") + "` — `" + Where(c) + "`";
  });
  return out.str();
}

namespace {

json LocSchema() {
  return {{"type", "object"},
          {"required", {"file", "line"}},
          {"properties", {{"file", {{"type", "string"}}}, {"line", {{"type", "integer"}, {"minimum", 1}}}}}};
}

json ArrayOf(json item) { return {{"type", "array"}, {"items", std::move(item)}}; }

// The checkout and installed-torch facts every answer of trace, find, op,
// scan and tests carries (the `source` of optrace.trace/1).
json SourceSchema() {
  return {{"type", "object"},
          {"required", {"root", "version"}},
          {"properties",
           {{"root", {{"type", "string"}}},
            {"version", {{"type", "string"}}},
            {"installed_torch", {{"anyOf", {{{"type", "string"}}, {{"type", "null"}}}}}},
            {"warning", {{"type", "string"}}}}}};
}

json LocatedItem(std::initializer_list<const char*> string_fields) {
  json schema = LocSchema();
  for (const char* f : string_fields) schema["properties"][f] = {{"type", "string"}};
  return schema;
}

// The trace tool: its input schema and optrace.trace/1's required shape.
McpTool TraceTool() {
  json strings = ArrayOf({{"type", "string"}});
  json any_array = {{"type", "array"}};
  return McpTool{
      "trace",
      "Trace a PyTorch operation",
      "Traces a PyTorch operation from the Python API to the code that really runs, read from the PyTorch "
      "checkout that matches the installed torch: Python frames and the bridge into C++, native_functions.yaml "
      "entries, C++ implementations per dispatch key, dispatch stubs, CUDA kernels and vendor libraries "
      "(cuDNN, cuBLAS...), aten ops called, derivatives.yaml and backward ops, decompositions. Every fact has "
      "file:line relative to the checkout root. Use it instead of grepping the checkout. Query forms: nn.LSTM, "
      "F.scaled_dot_product_attention, torch.cumsum, Tensor.softmax (for x.softmax(-1)), aten::add.Tensor, "
      "an operator such as '@', a CUDA kernel name, or a call with its arguments (\"F.interpolate(x, "
      "mode='bicubic')\", \"nn.MultiheadAttention(512, 8, batch_first=True)\"): literal arguments decide the "
      "typical path, symbolic ones leave it open. The answer is brief by default (the main path, under "
      "16 KB); detail \"full\" gives every op reached, in pages of at most 20 KB (pass next_cursor back as "
      "cursor); `ops` and `sections` ask for named parts of the full trace (one op's kernels, the backward). "
      "The text is a rendering of the same structured content.",
      {{"type", "object"},
       {"properties",
        {{"query",
          {{"type", "string"},
           {"minLength", 1},
           {"maxLength", kMaxQueryLength},
           {"description",
            "nn.LSTM, F.softmax, torch.mm, Tensor.view, aten::_softmax, '@', a kernel name, "
            "or a call: F.interpolate(x, mode='bicubic')"}}},
         {"device",
          {{"type", "string"},
           {"enum", {"cuda", "cpu", "all"}},
           {"description", "implementations to follow; omit for CPU, CUDA and composite"}}},
         {"backward",
          {{"type", "boolean"}, {"default", true}, {"description", "also trace derivatives.yaml and backward ops"}}},
         {"depth",
          {{"type", "integer"},
           {"minimum", 0},
           {"maximum", 32},
           {"default", TraceOptions().depth},
           {"description", "how deep aten ops called from implementations are followed"}}},
         {"detail",
          {{"type", "string"},
           {"enum", {"brief", "full"}},
           {"default", "brief"},
           {"description",
            "brief: the summary (main path on the device, selection functions with each "
            "alternative and its condition, backward), the ops on that path and the open "
            "alternatives, under 16 KB; full: every op and call site, in pages of at most "
            "20 KB of structured content"}}},
         {"ops",
          {{"type", "array"},
           {"maxItems", 32},
           {"items", {{"type", "string"}, {"minLength", 1}, {"maxLength", kMaxQueryLength}}},
           {"description",
            "only these ops of the full trace (native_layer_norm_backward; a base name takes "
            "every overload): their entries in ops, backward, decompositions, selections and "
            "the summary paths"}}},
         {"sections",
          {{"type", "array"},
           {"maxItems", 8},
           {"items", {{"type", "string"}, {"enum", TraceSectionNames()}}},
           {"description", "only these sections of the full trace, e.g. [\"backward\", \"selections\"]"}}},
         {"assume",
          {{"type", "array"},
           {"maxItems", 8},
           {"items", {{"type", "string"}, {"maxLength", 40}}},
           {"description",
            "typical-path assumptions: dtype=float16|bfloat16|..., device=cpu, "
            "deterministic, tunableop, no-cudnn, rocm, eval, no-grad"}}},
         {"cursor",
          {{"type", "string"},
           {"maxLength", 12},
           {"description", "detail full, ops or sections: the next_cursor of the previous page"}}}}},
       {"required", {"query"}},
       {"additionalProperties", false}},
      // optrace.trace/1 (doc/trace-schema.md): the required fields and their shapes.
      {{"type", "object"},
       {"required",
        {"schema", "query", "source", "target", "python", "ops", "backward", "decompositions", "not_found", "notes"}},
       {"properties",
        {{"schema", {{"type", "string"}, {"const", "optrace.trace/1"}}},
         {"query", {{"type", "string"}}},
         {"source", SourceSchema()},
         {"target",
          {{"type", "object"},
           {"required", {"kind", "name"}},
           {"properties", {{"kind", {{"type", "string"}}}, {"name", {{"type", "string"}}}}}}},
         {"python", ArrayOf({{"type", "object"},
                             {"required", {"symbol"}},
                             {"properties", {{"symbol", {{"type", "string"}}}, {"calls", any_array}}}})},
         {"ops", ArrayOf({{"type", "object"},
                          {"required", {"name", "role"}},
                          {"properties",
                           {{"name", {{"type", "string"}}},
                            {"role", {{"type", "string"}, {"enum", {"forward", "backward"}}}},
                            {"impls", any_array},
                            {"stubs", any_array},
                            {"kernels", any_array},
                            {"libraries", any_array},
                            {"calls", any_array}}}})},
         {"backward", ArrayOf({{"type", "object"},
                               {"required", {"op"}},
                               {"properties", {{"op", {{"type", "string"}}}, {"ops", strings}}}})},
         {"decompositions", any_array},
         {"not_found", ArrayOf({{"type", "object"}, {"required", {"what", "detail"}}})},
         {"notes", strings}}}}};
}

std::vector<McpTool> MakeTools(bool allow_code) {
  // A nullable field as anyOf branches of one type each: MCP Inspector's
  // --strict check warns of a type array, which single-type schema dialects
  // (the OpenAPI subset of some model providers) reject.
  json nullable_string = {{"anyOf", {{{"type", "string"}}, {{"type", "null"}}}}};
  json strings = ArrayOf({{"type", "string"}});
  json any_array = {{"type", "array"}};
  McpTool trace = TraceTool();

  json limit = {{"type", "integer"},
                {"minimum", 1},
                {"maximum", 100},
                {"default", 10},
                {"description", "at most this many items per list (totals gives the full counts)"}};
  McpTool find{
      "find",
      "Find a symbol in the checkout",
      "Where a C++ function, dispatch stub, macro, __global__ kernel, functor, Python name or aten op is defined, "
      "registered (REGISTER_DISPATCH, TORCH_LIBRARY_IMPL, native_functions.yaml dispatch) and called, with "
      "file:line. Examples: softmax_warp_forward, lstm_cudnn, at::native::layer_norm_cuda, add_stub, "
      "aten::add.Tensor, torch.nn.functional.gelu, MulFunctor.",
      {{"type", "object"},
       {"properties",
        {{"symbol", {{"type", "string"}, {"minLength", 1}, {"maxLength", kMaxQueryLength}}}, {"limit", limit}}},
       {"required", {"symbol"}},
       {"additionalProperties", false}},
      {{"type", "object"},
       {"required",
        {"symbol", "definitions", "stubs", "registrations", "dispatch", "ops", "launches", "macro_uses", "callers",
         "totals"}},
       {"properties",
        {{"symbol", {{"type", "string"}}},
         {"definitions", ArrayOf(LocatedItem({"kind", "name"}))},
         {"stubs", ArrayOf({{"type", "object"},
                            {"required", {"name", "registrations"}},
                            {"properties",
                             {{"name", {{"type", "string"}}},
                              {"declared", LocSchema()},
                              {"defined", LocSchema()},
                              {"registrations", ArrayOf(LocatedItem({"device", "macro", "target"}))}}}})},
         {"registrations", ArrayOf(LocatedItem({"kind"}))},
         {"dispatch", ArrayOf(LocatedItem({"op", "key"}))},
         {"ops", ArrayOf(LocatedItem({"name", "func"}))},
         {"launches", ArrayOf(LocatedItem({"relation", "kind", "launcher", "from"}))},
         {"macro_uses", ArrayOf(LocatedItem({}))},
         {"callers", ArrayOf(LocatedItem({"from", "call"}))},
         {"totals", {{"type", "object"}, {"additionalProperties", {{"type", "integer"}}}}},
         {"suggestions", strings},
         {"source", SourceSchema()}}}}};

  json entry = LocatedItem({"name", "func"});
  entry["required"] = {"name", "file", "line", "func", "dispatch", "derivatives"};
  entry["properties"]["variants"] = strings;
  entry["properties"]["dispatch"] = {{"type", "object"}, {"additionalProperties", {{"type", "string"}}}};
  entry["properties"]["structured"] = {{"type", "boolean"}};
  entry["properties"]["structured_delegate"] = nullable_string;
  entry["properties"]["tags"] = strings;
  entry["properties"]["derivatives"] = {
      {"anyOf",
       {{{"type", "object"},
         {"required", {"name", "file", "line", "formulas"}},
         {"properties", {{"formulas", {{"type", "object"}, {"additionalProperties", {{"type", "string"}}}}}}}},
        {{"type", "null"}}}}};
  McpTool op{
      "op",
      "An aten op's YAML and derivatives",
      "The native_functions.yaml entry of an aten op (schema, variants, the effective dispatch table as torchgen "
      "resolves it, structured delegation, tags) and its derivatives.yaml formulas, with lines. A name with an "
      "overload (add.Tensor, aten::add.Tensor) gives that entry; a base name (add) gives every overload.",
      {{"type", "object"},
       {"properties", {{"name", {{"type", "string"}, {"minLength", 1}, {"maxLength", kMaxQueryLength}}}}},
       {"required", {"name"}},
       {"additionalProperties", false}},
      {{"type", "object"},
       {"required", {"query", "entries"}},
       {"properties",
        {{"query", {{"type", "string"}}},
         {"entries", ArrayOf(entry)},
         {"suggestions", strings},
         {"source", SourceSchema()}}}}};

  McpTool source{
      "source",
      "Which PyTorch checkout is read",
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
      "scan",
      "Find the PyTorch ops a model file runs",
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
      ScanOutputSchema()};

  std::vector<McpTool> tools = {std::move(trace), std::move(find), std::move(op), std::move(source), std::move(scan)};
  for (auto& tool : VerifyTools(allow_code)) tools.push_back(std::move(tool));
  for (auto& tool : ProfileTools()) tools.push_back(std::move(tool));
  return tools;
}

McpToolResult ToolError(std::string text) { return {true, std::move(text), nullptr}; }

}  // namespace

// Beside the tools, so a new tool and its line here are one change (a test
// holds every tool name to appear).
std::string McpInstructions() {
  return "optrace answers questions about PyTorch internals from the PyTorch source checkout that matches the "
         "installed torch, with file:line for every fact. Use it instead of grepping or reading the checkout. "
         "Tools: `trace` for the whole path of an operation (Python -> native_functions.yaml -> C++ -> CUDA "
         "kernels / cuDNN / cuBLAS -> backward), e.g. nn.LSTM, F.scaled_dot_product_attention, Tensor.softmax, "
         "aten::add.Tensor: brief by default (under 16 KB); detail \"full\" pages every op (20 KB a page, pass "
         "next_cursor back as cursor); `ops: [...]` / `sections: [...]` ask for named parts (one op's kernels, the "
         "backward, the selections). `op` for one aten op's native_functions.yaml entry and derivatives.yaml "
         "formulas. `find` for where a C++ function, dispatch stub, kernel, macro or Python name is defined, "
         "registered and called. `scan` first when porting a model file: pass its Python text, get every op it "
         "runs, then `trace` those marked needs_trace. `tests` for how PyTorch's own test suite covers an op or "
         "module (OpInfo/ModuleInfo entries, sample inputs, expected failures and skips per device/dtype, the "
         "test files). `verify` to run the installed torch and see which traced kernels really ran (slow: seconds "
         "to a minute). `profile` to read a torch.profiler export: per GPU kernel its time, the op and Python line "
         "that launched it, and where its code is in the checkout. `source` to check which checkout and version are "
         "read, and the index state. Paths are "
         "relative to the checkout root; `source.permalink` (when the version is known) turns them into GitHub "
         "links. 'Not found' means the checkout does not show it: do not fill the gap by guessing.";
}

OptraceTools::OptraceTools(std::string source_flag, bool allow_code, std::string store_dir)
    : source_flag_(std::move(source_flag)),
      allow_code_(allow_code),
      tools_(MakeTools(allow_code)),
      live_(source_flag_, "optrace mcp", std::move(store_dir)),
      index_(live_.index()) {}

OptraceTools::~OptraceTools() {
  if (loader_.joinable()) loader_.join();
}

void OptraceTools::StartLoading() {
  loader_ = std::thread([this] { Load(); });
}

void OptraceTools::Load() {
  // The installed torch is asked while the index loads: a Python behind a
  // pyenv shim takes a second or more to answer, as long as a cold index.
  std::thread asking;
  Status s = live_.Start([this, &asking](const Checkout& checkout) {
    asking = std::thread([this, checkout] {
      InstalledTorch installed = CachedInstalledTorch(OptraceCacheDir());
      std::string warning = VersionMismatchWarning(checkout, installed);
      if (!warning.empty()) std::cerr << "optrace mcp: " << warning << "\n";
      std::lock_guard<std::mutex> lock(mu_);
      installed_torch_ = installed.version;
      version_warning_ = std::move(warning);
      have_torch_ = true;
    });
  });
  if (asking.joinable()) asking.join();
  {
    std::lock_guard<std::mutex> lock(mu_);
    torch_settled_ = true;
  }
  torch_settled_cv_.notify_all();
  if (s.ok()) std::cerr << "optrace mcp: index of " << live_.Describe().checkout.root << " ready\n";
}

bool OptraceTools::WaitLoaded(std::string* error) {
  bool loaded = live_.WaitStarted(error);
  std::unique_lock<std::mutex> lock(mu_);
  torch_settled_cv_.wait(lock, [this] { return torch_settled_; });
  return loaded;
}

McpToolResult OptraceTools::Call(const std::string& name, const McpJson& arguments) {
  if (name == "source") return Source();
  std::string error;
  WaitLoaded(&error);
  // Reloads after an edit, or retries a failed load (the checkout may be back).
  if (Status s = live_.Refresh(); !s.ok()) return ToolError("optrace cannot read a PyTorch checkout: " + s.message());
  auto reading = live_.ReadLock();
  if (name == "trace") return Trace(arguments);
  if (name == "find") return WithSourceFacts(Find(arguments));
  if (name == "op") return WithSourceFacts(Op(arguments));
  if (name == "scan") return Scan(arguments);
  if (McpToolResult r; CallVerifyTool(index_, name, arguments, allow_code_, &r))
    return name == "tests" ? WithSourceFacts(std::move(r)) : r;  // verify names the torch it ran
  if (McpToolResult r; CallProfileTool(index_, name, arguments, &r)) return WithSourceFacts(std::move(r));
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
  json answer = ScanToJson(report, {});
  if (std::string base = PermalinkBase(index_.root, index_.version); !base.empty()) {
    answer["source"]["permalink"] = base;  // scan's lines are the user's file: no url of their own
  }
  return {false, RenderScanMarkdown(report, {}), std::move(answer)};
}

McpToolResult OptraceTools::Trace(const McpJson& arguments) {
  std::string query = arguments.at("query");
  // Named parts come from the full trace.
  const bool full = arguments.value("detail", std::string("brief")) == "full" || arguments.contains("ops") ||
                    arguments.contains("sections");
  TraceOptions options;
  // The schema's enum already held it to a name ParseDevice knows.
  ParseDevice(arguments.value("device", std::string("default")), &options.device);
  options.backward = arguments.value("backward", true);
  options.depth = arguments.value("depth", options.depth);
  // A deeper walk never makes the brief answer bigger: it shows the main path
  // the default depth finds.
  if (!full) options.depth = std::min(options.depth, TraceOptions().depth);
  options.snippets = false;
  if (arguments.contains("assume")) options.assume = arguments["assume"].get<std::vector<std::string>>();
  std::string assume_error;
  if (!ValidateAssume(options.assume, &assume_error)) return ToolError("optrace: " + assume_error);
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
    std::vector<std::string> ops = arguments.value("ops", std::vector<std::string>()),
                             sections = arguments.value("sections", std::vector<std::string>());
    if (full || !ops.empty() || !sections.empty())
      return FullTracePage(trace, arguments.value("cursor", std::string()), ops, sections);
    json brief = BriefTrace(TraceToJson(trace));
    // The brief keeps its 16 KB for facts: one base, not a url per location.
    if (std::string base = PermalinkBase(index_.root, index_.version); !base.empty())
      brief["source"]["permalink"] = base;
    std::string text = TraceJsonMarkdown(brief);
    return {false, std::move(text), std::move(brief)};
  }
  if (s.code() != ExitCode::kNotFound) return ToolError("optrace: " + s.message());
  std::string text = "Not found: " + s.message() + "\nNothing was traced.";
  // The message names the suggestions already when it has them: say them once.
  if (!trace.suggestions.empty() && s.message().find("did you mean") == std::string::npos) {
    text += "\nDid you mean:";
    for (size_t i = 0; i < trace.suggestions.size(); ++i) text += (i ? ", " : " ") + trace.suggestions[i];
  }
  if (trace.not_found.empty()) trace.not_found.push_back({"query", s.message()});
  return {true, text, TraceToJson(trace)};
}

// detail "full", or named parts: one page of at most kFullPageMaxBytes
// (trace_pages.h), its text rendered from it.
McpToolResult OptraceTools::FullTracePage(const optrace::Trace& trace, const std::string& cursor,
                                          const std::vector<std::string>& ops,
                                          const std::vector<std::string>& sections) {
  json full = TraceToJson(trace);
  std::string error;
  if (!SelectTraceParts(&full, ops, sections, &error)) return ToolError("optrace: " + error);
  if (std::string base = PermalinkBase(index_.root, index_.version); !base.empty()) {
    AddPermalinks(&full, base);  // before the cut: the pages' sizes count the links
    full["source"]["permalink"] = base;
  }
  std::vector<json> pages = TracePages(full);
  size_t index = 0;
  if (!cursor.empty()) {
    char* end = nullptr;
    index = std::strtoul(cursor.c_str(), &end, 10);
    if (!end || *end || index < 1 || index > pages.size())
      return ToolError("optrace: invalid cursor '" + cursor + "' (this answer has " + std::to_string(pages.size()) +
                       " pages)");
    --index;
  }
  json page = std::move(pages[index]);
  std::string text = TraceJsonMarkdown(page);
  return {false, std::move(text), std::move(page)};
}

McpToolResult OptraceTools::Find(const McpJson& arguments) {
  std::string symbol = arguments.at("symbol");
  json found = FindJson(index_, FindName(index_, symbol), arguments.value("limit", size_t{10}));
  bool any = false;
  for (const char* key :
       {"definitions", "stubs", "registrations", "dispatch", "ops", "launches", "macro_uses", "callers"})
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
    for (size_t i = 0; i < out["suggestions"].size(); ++i)
      text += (i ? ", " : " ") + out["suggestions"][i].get<std::string>();
  }
  return {true, text, out};
}

McpToolResult OptraceTools::WithSourceFacts(McpToolResult result) {
  if (!result.structured.is_object()) return result;
  json source = {{"root", index_.root}, {"version", index_.version}};
  if (std::string base = PermalinkBase(index_.root, index_.version); !base.empty()) {
    AddPermalinks(&result.structured, base);
    source["permalink"] = base;
  }
  std::lock_guard<std::mutex> lock(mu_);
  source["installed_torch"] = installed_torch_ ? json(*installed_torch_) : json(nullptr);
  if (!version_warning_.empty()) {
    source["warning"] = version_warning_;
    result.text = "**" + version_warning_ + "**\n\n" + result.text;
  }
  result.structured["source"] = std::move(source);
  return result;
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
    if (info.watching)
      text << "- edits to the checkout: picked up by the next call (" << info.reloads << " reloads so far)\n";
    else text << "- edits to the checkout: not watched (" << info.watch_error << "); restart the server after one\n";
  }
  if (failed) text << "- the next call loads the index again once the checkout is back or edited\n";
  return {failed, text.str(), out};
}

}  // namespace optrace
