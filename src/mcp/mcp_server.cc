// MCP over newline-delimited JSON-RPC 2.0: message validation, the two
// protocol eras, tools/list and tools/call, and the stdio serving loop. The
// rules (codes, result shapes, what each era requires) follow the published
// MCP specification texts named in doc/mcp.md.
#include "mcp/mcp_server.h"

#include <errno.h>
#include <unistd.h>

#include <cmath>
#include <condition_variable>
#include <deque>
#include <thread>

#include "base/json.h"

namespace optrace {

using json = nlohmann::ordered_json;

namespace {

// How long a client may cache tools/list and server/discover (2026-07-28
// CacheableResult): the tool set is fixed for the life of the process.
constexpr int64_t kCacheTtlMs = 3600 * 1000;

// The member `key` of `object`, or nullptr (never inserts, never asserts).
const json* Member(const json& object, const char* key) {
  if (!object.is_object()) return nullptr;
  auto it = object.find(key);
  return it == object.end() ? nullptr : &*it;
}

std::string Pointer(const std::string& path) { return path.empty() ? "(root)" : path; }

std::string TypeText(const json& type) {
  if (type.is_string()) return type.get<std::string>();
  std::string out;
  for (const auto& t : type) out += (out.empty() ? "" : " or ") + (t.is_string() ? t.get<std::string>() : "?");
  return out;
}

bool TypeMatches(const json& type, const json& value) {
  if (type.is_array()) {
    for (const auto& t : type)
      if (TypeMatches(t, value)) return true;
    return false;
  }
  if (!type.is_string()) return true;
  const std::string& t = type.get_ref<const std::string&>();
  if (t == "object") return value.is_object();
  if (t == "array") return value.is_array();
  if (t == "string") return value.is_string();
  if (t == "boolean") return value.is_boolean();
  if (t == "null") return value.is_null();
  if (t == "number") return value.is_number();
  if (t == "integer") {
    if (value.is_number_integer()) return true;
    if (!value.is_number_float()) return false;
    double d = value.get<double>();
    return std::isfinite(d) && std::floor(d) == d;  // 2.0 is an integer in JSON Schema
  }
  return true;  // a type this subset does not know constrains nothing
}

// A schema's count keyword (minLength, maxLength, minItems): a non-negative
// integer, however the schema's JSON spelled it (300 is a signed integer to
// the JSON library, not an unsigned one).
bool Count(const json& schema, const char* key, size_t* out) {
  const json* v = Member(schema, key);
  if (!v || !v->is_number_integer() || v->get<int64_t>() < 0) return false;
  *out = v->get<size_t>();
  return true;
}

size_t CodePoints(const std::string& s) {
  size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

bool Validate(const json& schema, const json& value, const std::string& path, std::string* error) {
  if (!schema.is_object()) return true;  // `true` and absent schemas accept anything
  // anyOf: the first branch that accepts the value; else the first branch's error.
  if (const json* branches = Member(schema, "anyOf"); branches && branches->is_array() && !branches->empty()) {
    std::string first;
    bool any = false;
    for (const auto& branch : *branches) {
      std::string e;
      if (Validate(branch, value, path, &e)) {
        any = true;
        break;
      }
      if (first.empty()) first = e;
    }
    if (!any) {
      *error = first;
      return false;
    }
  }
  if (const json* type = Member(schema, "type"); type && !TypeMatches(*type, value)) {
    *error = Pointer(path) + ": expected " + TypeText(*type) + ", got " + value.type_name();
    return false;
  }
  if (const json* options = Member(schema, "enum"); options && options->is_array()) {
    bool found = false;
    for (const auto& o : *options) found = found || o == value;
    if (!found) {
      *error = Pointer(path) + ": must be one of " + DumpJson(*options);
      return false;
    }
  }
  if (const json* c = Member(schema, "const"); c && *c != value) {
    *error = Pointer(path) + ": must be " + DumpJson(*c);
    return false;
  }
  if (value.is_number()) {
    double d = value.get<double>();
    if (const json* lo = Member(schema, "minimum"); lo && lo->is_number() && d < lo->get<double>()) {
      *error = Pointer(path) + ": must be >= " + DumpJson(*lo);
      return false;
    }
    if (const json* hi = Member(schema, "maximum"); hi && hi->is_number() && d > hi->get<double>()) {
      *error = Pointer(path) + ": must be <= " + DumpJson(*hi);
      return false;
    }
  }
  if (value.is_string()) {
    size_t n = CodePoints(value.get_ref<const std::string&>()), bound = 0;
    if (Count(schema, "minLength", &bound) && n < bound) {
      *error = Pointer(path) + ": must be at least " + std::to_string(bound) + " characters";
      return false;
    }
    if (Count(schema, "maxLength", &bound) && n > bound) {
      *error =
          Pointer(path) + ": must be at most " + std::to_string(bound) + " characters (got " + std::to_string(n) + ")";
      return false;
    }
  }
  if (value.is_object()) {
    if (const json* required = Member(schema, "required"); required && required->is_array()) {
      for (const auto& key : *required) {
        if (key.is_string() && !value.contains(key.get<std::string>())) {
          *error = Pointer(path) + ": missing required property '" + key.get<std::string>() + "'";
          return false;
        }
      }
    }
    const json* properties = Member(schema, "properties");
    const json* additional = Member(schema, "additionalProperties");
    for (const auto& [key, item] : value.items()) {
      const json* sub = properties ? Member(*properties, key.c_str()) : nullptr;
      if (!sub && additional) {
        if (additional->is_boolean() && !additional->get<bool>()) {
          *error = Pointer(path) + ": unknown property '" + key + "'";
          return false;
        }
        sub = additional;
      }
      if (sub && !Validate(*sub, item, path + "/" + key, error)) return false;
    }
  }
  if (value.is_array()) {
    if (size_t bound = 0; Count(schema, "minItems", &bound) && value.size() < bound) {
      *error = Pointer(path) + ": must have at least " + std::to_string(bound) + " items";
      return false;
    }
    if (size_t bound = 0; Count(schema, "maxItems", &bound) && value.size() > bound) {
      *error = Pointer(path) + ": must have at most " + std::to_string(bound) + " items";
      return false;
    }
    if (const json* items = Member(schema, "items")) {
      for (size_t i = 0; i < value.size(); ++i)
        if (!Validate(*items, value[i], path + "/" + std::to_string(i), error)) return false;
    }
  }
  return true;
}

bool IsKnownMethod(const std::string& method) {
  return method == "initialize" || method == "ping" || method == "server/discover" || method == "tools/list" ||
         method == "tools/call";
}

bool IsSessionVersion(const std::string& version) {
  for (const auto& v : McpSessionVersions())
    if (v == version) return true;
  return false;
}

// Every version the server speaks in some way: what UnsupportedProtocolVersionError lists.
json AllVersions() {
  json all = json::array({kMcpModernVersion});
  for (const auto& v : McpSessionVersions()) all.push_back(v);
  return all;
}

void WriteAll(int fd, const std::string& bytes) {
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // the client went away; keep reading until EOF
    done += static_cast<size_t>(n);
  }
}

}  // namespace

bool ValidateJsonSchema(const json& schema, const json& value, std::string* error) {
  return Validate(schema, value, "", error);
}

std::string McpErrorLine(const json& id, int code, std::string_view message, const json& data) {
  json error = {{"code", code}, {"message", std::string(message)}};
  if (!data.is_null()) error["data"] = data;
  return DumpJson(json{{"jsonrpc", "2.0"}, {"id", id}, {"error", std::move(error)}});
}

McpServer::McpServer(McpToolProvider* tools, McpServerInfo info) : tools_(tools), info_(std::move(info)) {}

std::string McpServer::session_version() const {
  std::lock_guard<std::mutex> lock(mu_);
  return session_version_;
}

std::string McpServer::Result(const json& id, json result, const std::string& era_version) const {
  if (era_version == kMcpModernVersion) {
    result["resultType"] = "complete";
    result["_meta"][kMcpMetaServerInfo] = {{"name", info_.name}, {"version", info_.version}};
  }
  return DumpJson(json{{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}});
}

const McpTool* McpServer::FindTool(const std::string& name) const {
  for (const auto& tool : tools_->Tools())
    if (tool.name == name) return &tool;
  return nullptr;
}

json McpServer::Initialize(const json& params, std::string* error) {
  const json* requested = Member(params, "protocolVersion");
  if (!requested || !requested->is_string()) {
    *error = "initialize needs params.protocolVersion (a string)";
    return nullptr;
  }
  // Echo a version we speak; otherwise offer our newest handshake version,
  // never the client's unknown one (and never 2026-07-28, which has no handshake).
  const std::string& asked = requested->get_ref<const std::string&>();
  std::string negotiated = IsSessionVersion(asked) ? asked : McpSessionVersions().front();
  {
    std::lock_guard<std::mutex> lock(mu_);
    session_version_ = negotiated;
  }
  return {{"protocolVersion", negotiated},
          {"capabilities", {{"tools", {{"listChanged", false}}}}},
          {"serverInfo", {{"name", info_.name}, {"title", info_.title}, {"version", info_.version}}},
          {"instructions", info_.instructions}};
}

json McpServer::Discover() const {
  return {{"supportedVersions", json::array({kMcpModernVersion})},
          {"capabilities", {{"tools", {{"listChanged", false}}}}},
          {"instructions", info_.instructions},
          {"ttlMs", kCacheTtlMs},
          {"cacheScope", "public"}};
}

json McpServer::ToolsList(bool modern) const {
  json tools = json::array();
  for (const auto& tool : tools_->Tools()) {
    json t = {{"name", tool.name},
              {"title", tool.title},
              {"description", tool.description},
              {"inputSchema", tool.input_schema},
              {"annotations",
               {{"readOnlyHint", tool.hints.read_only},
                {"destructiveHint", tool.hints.destructive},
                {"idempotentHint", tool.hints.idempotent},
                {"openWorldHint", tool.hints.open_world}}}};
    if (!tool.output_schema.is_null()) t["outputSchema"] = tool.output_schema;
    tools.push_back(std::move(t));
  }
  json result = {{"tools", std::move(tools)}};
  if (modern) {
    result["ttlMs"] = kCacheTtlMs;
    result["cacheScope"] = "public";
  }
  return result;
}

namespace {

// `line` (an answer, {"jsonrpc":"2.0","id":ID,...}) with ID as the request
// wrote it, when the parsed value would dump differently (1e400 as null, a
// big integer as a float, a lone surrogate as U+FFFD): the client matches
// answers by the id it sent.
std::string EchoRawId(std::string line, const std::string& raw) {
  static const std::string kHead = "{\"jsonrpc\":\"2.0\",\"id\":";
  if (raw.empty() || line.compare(0, kHead.size(), kHead) != 0) return line;
  size_t b = kHead.size(), e = b;
  if (e < line.size() && line[e] == '"') {
    for (++e; e < line.size() && line[e] != '"'; ++e)
      if (line[e] == '\\') ++e;
    ++e;
  } else {
    while (e < line.size() && line[e] != ',' && line[e] != '}') ++e;
  }
  if (e <= line.size()) line.replace(b, e - b, raw);
  return line;
}

}  // namespace

McpServer::Work McpServer::Dispatch(std::string_view line, const McpLinePeek& peek) {
  Work work = DispatchLine(line, peek);
  work.raw_id = peek.raw_id();
  if (work.answer) *work.answer = EchoRawId(std::move(*work.answer), work.raw_id);
  return work;
}

McpServer::Work McpServer::DispatchLine(std::string_view line, const McpLinePeek& peek) {
  Work work;
  // Decided from the peek, before the parser's recursion ever sees the line.
  if (peek.max_depth() > kMaxDepth) {
    work.answer = McpErrorLine(peek.id(), kMcpInvalidRequest,
                               "Invalid Request: nested deeper than " + std::to_string(kMaxDepth) + " levels");
    return work;
  }
  // A lone surrogate escape is invalid UTF-16 the parser refuses; parse the
  // line with U+FFFD in its place so the request gets its id and a -32602
  // (or a tool error) that says what is wrong.
  bool bad_unicode = peek.lone_surrogate();
  std::string repaired;
  if (bad_unicode) {
    repaired = ReplaceLoneSurrogates(line);
    line = repaired;
  }
  json message = json::parse(line.begin(), line.end(), nullptr, /*allow_exceptions=*/false);
  if (message.is_discarded()) {
    work.answer = McpErrorLine(peek.id(), kMcpParseError, "Parse error: the line is not valid JSON");
    return work;
  }
  if (message.is_array()) {
    work.answer = McpErrorLine(nullptr, kMcpInvalidRequest,
                               "Invalid Request: batches are not supported; send one message per line");
    return work;
  }
  if (!message.is_object()) {
    work.answer = McpErrorLine(nullptr, kMcpInvalidRequest, "Invalid Request: a message must be a JSON object");
    return work;
  }
  const json* id = Member(message, "id");
  const json* method = Member(message, "method");
  json* params = message.is_object() && message.contains("params") ? &message["params"] : nullptr;
  const json* version = Member(message, "jsonrpc");
  // MCP ids are strings or numbers, never null.
  bool id_valid = id && (id->is_string() || id->is_number());
  json reply_id = id_valid ? *id : json(nullptr);
  if (!method && (Member(message, "result") || Member(message, "error")))
    return work;  // a response: we sent no requests
  std::string invalid;
  if (!version || *version != "2.0") invalid = "jsonrpc must be \"2.0\"";
  else if (!method || !method->is_string()) invalid = "method must be a string";
  else if (id && !id_valid) invalid = "id must be a string or a number";
  else if (params && !params->is_object() && !params->is_array()) invalid = "params must be an object";
  if (!invalid.empty()) {
    work.answer = McpErrorLine(reply_id, kMcpInvalidRequest, "Invalid Request: " + invalid);
    return work;
  }
  if (!id) return work;  // a notification (notifications/initialized, notifications/cancelled...): never answered
  if (params && !params->is_object()) {
    work.answer = McpErrorLine(reply_id, kMcpInvalidParams, "Invalid params: params must be an object");
    return work;
  }
  json no_params = json::object();
  return DispatchRequest(reply_id, method->get<std::string>(), params ? *params : no_params, bad_unicode);
}

std::string McpServer::ArgumentError(const json& id, const std::string& era, const std::string& message) const {
  // SEP-1303 made schema failures tool errors in 2025-11-25; the revisions
  // before it know only -32602 (ISO dates compare as strings).
  if (era < std::string("2025-11-25")) return McpErrorLine(id, kMcpInvalidParams, message);
  json result = {{"content", json::array({{{"type", "text"}, {"text", message}}})}, {"isError", true}};
  return Result(id, std::move(result), era);
}

McpServer::Work McpServer::DispatchRequest(const json& id, const std::string& method, json& params, bool bad_unicode) {
  Work work;
  auto fail = [&](int code, const std::string& message, const json& data = nullptr) {
    work.answer = McpErrorLine(id, code, message, data);
    return work;
  };
  if (!IsKnownMethod(method)) return fail(kMcpMethodNotFound, "Method not found: " + method);
  const char* kBadUnicode = "the message holds invalid UTF-16 (a \\uD800-\\uDFFF escape without its partner)";
  if (bad_unicode && method != "tools/call")
    return fail(kMcpInvalidParams, std::string("Invalid params: ") + kBadUnicode);
  if (method == "initialize") {
    std::string error;
    json result = Initialize(params, &error);
    if (!error.empty()) return fail(kMcpInvalidParams, "Invalid params: " + error);
    work.answer = Result(id, std::move(result), "");
    return work;
  }

  // The era: a request naming its version in _meta is served statelessly
  // (2026-07-28); any other is served under the version `initialize` set.
  const json* meta = Member(params, "_meta");
  const json* requested = meta ? Member(*meta, kMcpMetaProtocolVersion) : nullptr;
  std::string era;
  if (requested) {
    if (!requested->is_string())
      return fail(kMcpInvalidParams,
                  std::string("Invalid params: _meta.") + kMcpMetaProtocolVersion + " must be a string");
    if (*requested != kMcpModernVersion)
      return fail(kMcpUnsupportedProtocolVersion, "Unsupported protocol version",
                  {{"supported", AllVersions()}, {"requested", *requested}});
    const json* caps = Member(*meta, kMcpMetaClientCapabilities);
    if (!caps || !caps->is_object())
      return fail(kMcpInvalidParams,
                  std::string("Invalid params: _meta.") + kMcpMetaClientCapabilities + " (an object) is required");
    if (method == "ping") return fail(kMcpMethodNotFound, "Method not found: ping (removed in 2026-07-28)");
    era = kMcpModernVersion;
  } else if (method == "server/discover") {
    return fail(kMcpInvalidParams, std::string("Invalid params: server/discover needs _meta.") +
                                       kMcpMetaProtocolVersion + " and _meta." + kMcpMetaClientCapabilities);
  } else {
    era = session_version();
    if (method == "ping") {
      work.answer = Result(id, json::object(), era);
      return work;
    }
    if (era.empty())
      return fail(kMcpInvalidParams, std::string("Invalid params: no protocol version; send _meta.") +
                                         kMcpMetaProtocolVersion + " = \"" + kMcpModernVersion + "\" with _meta." +
                                         kMcpMetaClientCapabilities + " on every request, or call initialize first");
  }
  bool modern = era == kMcpModernVersion;

  if (method == "server/discover") {
    work.answer = Result(id, Discover(), era);
    return work;
  }
  if (method == "tools/list") {
    if (const json* cursor = Member(params, "cursor"); cursor && !cursor->is_null())
      return fail(kMcpInvalidParams, "Invalid params: unknown cursor (every tool is on the first page)");
    work.answer = Result(id, ToolsList(modern), era);
    return work;
  }
  // tools/call
  const json* name = Member(params, "name");
  if (!name || !name->is_string())
    return fail(kMcpInvalidParams, "Invalid params: tools/call needs params.name (a string)");
  const McpTool* tool = FindTool(name->get<std::string>());
  if (!tool) return fail(kMcpInvalidParams, "Unknown tool: " + name->get<std::string>());
  // Moved out, never copied: the arguments are the client's bytes.
  json args = params.contains("arguments") ? std::move(params["arguments"]) : json(nullptr);
  if (args.is_null()) args = json::object();
  if (!args.is_object()) return fail(kMcpInvalidParams, "Invalid params: arguments must be an object");
  std::string error;
  if (bad_unicode) error = kBadUnicode;
  else ValidateJsonSchema(tool->input_schema, args, &error);
  if (!error.empty()) {
    work.answer = ArgumentError(id, era, "Invalid arguments for tool " + tool->name + ": " + error);
    return work;
  }
  work.has_call = true;
  work.id = id;
  work.era_version = era;
  work.tool = tool->name;
  work.arguments = std::move(args);
  return work;
}

std::string McpServer::RunCall(const Work& work) { return EchoRawId(RunCallAnswer(work), work.raw_id); }

std::string McpServer::RunCallAnswer(const Work& work) {
  McpToolResult out;
  try {
    out = tools_->Call(work.tool, work.arguments);
  } catch (const std::exception& e) {
    return McpErrorLine(work.id, kMcpInternalError, "Internal error in tool " + work.tool + ": " + e.what());
  } catch (...) {
    return McpErrorLine(work.id, kMcpInternalError, "Internal error in tool " + work.tool);
  }
  json result = {{"content", json::array({{{"type", "text"}, {"text", std::move(out.text)}}})},
                 {"isError", out.is_error}};
  if (!out.structured.is_null()) result["structuredContent"] = std::move(out.structured);
  return Result(work.id, std::move(result), work.era_version);
}

std::optional<std::string> McpServer::HandleLine(std::string_view line) {
  McpLinePeek peek;
  peek.Feed(line);
  Work work = Dispatch(line, peek);
  if (work.has_call) return RunCall(work);
  return work.answer;
}

void McpServer::Serve(int in_fd, int out_fd, unsigned workers) {
  std::mutex out_mu;
  auto send = [&](const std::string& line) {
    std::lock_guard<std::mutex> lock(out_mu);
    WriteAll(out_fd, line + "\n");
  };

  std::mutex queue_mu;
  std::condition_variable queue_cv;
  std::deque<Work> queue;
  bool closing = false;
  std::vector<std::thread> pool;
  for (unsigned i = 0; i < std::max(1u, workers); ++i) {
    pool.emplace_back([&] {
      for (;;) {
        Work work;
        {
          std::unique_lock<std::mutex> lock(queue_mu);
          queue_cv.wait(lock, [&] { return closing || !queue.empty(); });
          if (queue.empty()) return;
          work = std::move(queue.front());
          queue.pop_front();
        }
        send(RunCall(work));
      }
    });
  }

  auto handle = [&](std::string_view line, const McpLinePeek& peek) {
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t')) line.remove_suffix(1);
    if (line.find_first_not_of(" \t") == std::string_view::npos) return;
    Work work;
    try {
      work = Dispatch(line, peek);
    } catch (const std::exception& e) {  // a defect of ours must not end the session
      send(McpErrorLine(peek.id(), kMcpInternalError, std::string("Internal error: ") + e.what()));
      return;
    }
    if (work.answer) send(*work.answer);
    if (!work.has_call) return;
    std::lock_guard<std::mutex> lock(queue_mu);
    queue.push_back(std::move(work));
    queue_cv.notify_one();
  };

  // One buffer for every line, never shrunk: its room is reserved up front
  // (address space; only the pages a line fills are resident). Growing and
  // freeing it per line fragmented the heap: thirty 50 MB lines left the
  // server 150 MB bigger than one did.
  std::string line;
  line.reserve(kMaxLineBytes);
  McpLinePeek peek;        // the current line, read as it arrives (its id even when it is not kept)
  bool oversized = false;  // the current line passed kMaxLineBytes: skip to its end
  auto end_line = [&] {
    if (oversized)
      send(McpErrorLine(peek.id(), kMcpInvalidRequest,
                        "Invalid Request: message longer than " + std::to_string(kMaxLineBytes) + " bytes; skipped"));
    else handle(line, peek);
    line.clear();
    peek = McpLinePeek();
    oversized = false;
  };
  std::vector<char> buffer(1 << 16);
  for (;;) {
    ssize_t n = ::read(in_fd, buffer.data(), buffer.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;  // EOF (or a read error, which ends input the same way)
    std::string_view chunk(buffer.data(), static_cast<size_t>(n));
    while (!chunk.empty()) {
      size_t newline = chunk.find('\n');
      std::string_view piece = chunk.substr(0, newline);
      peek.Feed(piece);
      if (!oversized) {
        if (line.size() + piece.size() > kMaxLineBytes) {
          oversized = true;
          line.clear();
        } else {
          line.append(piece);
        }
      }
      if (newline == std::string_view::npos) break;
      end_line();
      chunk.remove_prefix(newline + 1);
    }
  }
  if (oversized || !line.empty()) end_line();  // a last message without its newline
  if (info_.on_input_end) info_.on_input_end();

  {
    std::lock_guard<std::mutex> lock(queue_mu);
    closing = true;
  }
  queue_cv.notify_all();
  for (auto& t : pool) t.join();
}

}  // namespace optrace
