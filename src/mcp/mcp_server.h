// The MCP protocol face of optrace, independent of what the tools do: one
// newline-delimited JSON-RPC 2.0 message per line in, one answer per request
// out. It speaks both protocol eras:
//   - session era (2024-11-05, 2025-03-26, 2025-06-18, 2025-11-25):
//     `initialize` negotiates a version for the whole process, then plain
//     requests follow; a client gets the version it asks for when it is one
//     of these, because an older client refuses any other answer;
//   - stateless era (2026-07-28): every request names its version and the
//     client's capabilities in params._meta; `server/discover` advertises
//     what the server speaks; every result carries `resultType`.
// Tools come from an McpToolProvider, so the protocol is tested with fake
// tools and served with the real tracer (mcp_tools.h). doc/mcp.md lists what
// each message gets and which published text each rule comes from.
#pragma once

#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/json.h"
#include "mcp/mcp_peek.h"

namespace optrace {

// Ordered: answers keep the order they are written in (jsonrpc, id, result; the
// optrace.trace/1 field order), which is what a person reading a log expects.
using McpJson = nlohmann::ordered_json;

// JSON-RPC and MCP error codes the server emits.
enum McpErrorCode : int {
  kMcpParseError = -32700,
  kMcpInvalidRequest = -32600,
  kMcpMethodNotFound = -32601,
  kMcpInvalidParams = -32602,
  kMcpInternalError = -32603,
  kMcpUnsupportedProtocolVersion = -32022,  // 2026-07-28 (SEP-2575)
};

inline constexpr char kMcpModernVersion[] = "2026-07-28";
// Handshake versions `initialize` accepts, newest first. The older two differ
// from 2025-06-18 only in what a client may ignore (tool titles, output
// schemas and structuredContent came in 2025-06-18; the text content carries
// the same facts), so one answer serves them all.
inline const std::vector<std::string>& McpSessionVersions() {
  static const std::vector<std::string> versions = {"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"};
  return versions;
}
inline constexpr char kMcpMetaProtocolVersion[] = "io.modelcontextprotocol/protocolVersion";
inline constexpr char kMcpMetaClientCapabilities[] = "io.modelcontextprotocol/clientCapabilities";
inline constexpr char kMcpMetaServerInfo[] = "io.modelcontextprotocol/serverInfo";

// The MCP tool annotations, said truthfully per tool: a client may approve a
// read-only tool without asking, so a tool that runs code must not claim it.
struct McpToolHints {
  bool read_only = true;     // readOnlyHint: changes nothing outside the server
  bool destructive = false;  // destructiveHint (only meaningful when not read-only)
  bool idempotent = true;    // idempotentHint
  bool open_world = false;   // openWorldHint: may reach beyond the checkout (runs arbitrary code)
};

struct McpTool {
  std::string name;
  std::string title;
  std::string description;
  McpJson input_schema;   // JSON Schema of `arguments` (checked before Call)
  McpJson output_schema;  // JSON Schema of structuredContent; null when the tool has none
  McpToolHints hints = {};
};

struct McpToolResult {
  bool is_error = false;  // a tool failure the model can act on (not found, no checkout)
  std::string text;       // the text content: markdown for a model to read
  McpJson structured;     // structuredContent; null when none
};

class McpToolProvider {
 public:
  virtual ~McpToolProvider() = default;
  // The tools, in the order tools/list gives them (fixed for the process).
  virtual const std::vector<McpTool>& Tools() const = 0;
  // Runs one tool. `arguments` already passed the tool's input_schema. Called
  // from several threads at once; an exception becomes a -32603 answer.
  virtual McpToolResult Call(const std::string& name, const McpJson& arguments) = 0;
};

struct McpServerInfo {
  std::string name = "optrace";
  std::string title = "optrace";
  std::string version = "0.1";
  std::string instructions;  // for the model: when and how to use the tools
  // Called once when input ends (the client is gone), before Serve waits for
  // the calls in flight: a tool that runs a child process can end it here.
  void (*on_input_end)() = nullptr;
};

// Checks `value` against the subset of JSON Schema 2020-12 our schemas use:
// type (one or a list), properties, required, additionalProperties (false or
// a schema), items, enum, const, minimum, maximum, minLength, maxLength,
// minItems. On failure returns false with *error naming the JSON pointer.
bool ValidateJsonSchema(const McpJson& schema, const McpJson& value, std::string* error);

class McpServer {
 public:
  // A line longer than this is answered with -32600 (with its id) and skipped
  // unparsed. The longest string argument (scan's 1,000,000 characters) takes
  // at most 12 bytes a character in JSON (an astral character escaped as a
  // \uXXXX\uXXXX pair), so every call the schemas allow fits.
  static constexpr size_t kMaxLineBytes = 16 << 20;
  // Arrays and objects nested deeper than this are refused before parsing
  // (-32600 with the id): no tool takes more than a few levels, and deeper
  // input would make the parser's and copies' recursion a stack overflow.
  static constexpr size_t kMaxDepth = kMaxJsonDepth;  // base/json.h

  McpServer(McpToolProvider* tools, McpServerInfo info);

  // Handles one message (one line, without its newline). Returns the answer
  // line, or nullopt for notifications and for responses sent to us.
  std::optional<std::string> HandleLine(std::string_view line);

  // Reads messages from in_fd until EOF and writes answers to out_fd, each
  // followed by '\n'. Tool calls run on `workers` threads (answers may leave
  // out of order, each with its id); other requests are answered at once, in
  // order. Returns after EOF once every request read has been answered.
  void Serve(int in_fd, int out_fd, unsigned workers);

  // The version the last `initialize` negotiated ("" before any).
  std::string session_version() const;

 private:
  // What one message needs: an answer now, nothing, or a tool call to run.
  struct Work {
    std::optional<std::string> answer;
    bool has_call = false;
    McpJson id;
    std::string raw_id;       // the id as the request wrote it (McpLinePeek::raw_id)
    std::string era_version;  // version the answer is shaped for
    std::string tool;
    McpJson arguments;
  };
  Work Dispatch(std::string_view line, const McpLinePeek& peek);  // DispatchLine, the id echoed as written
  Work DispatchLine(std::string_view line, const McpLinePeek& peek);
  Work DispatchRequest(const McpJson& id, const std::string& method, McpJson& params, bool bad_unicode);
  // tools/call arguments that break the tool's input schema: under 2025-06-18
  // a -32602 error; from 2025-11-25 on a tool result with isError (SEP-1303),
  // so the model sees what to fix.
  std::string ArgumentError(const McpJson& id, const std::string& era, const std::string& message) const;
  std::string RunCall(const Work& work);  // RunCallAnswer, the id echoed as written
  std::string RunCallAnswer(const Work& work);

  McpJson Initialize(const McpJson& params, std::string* error);
  McpJson Discover() const;
  McpJson ToolsList(bool modern) const;
  const McpTool* FindTool(const std::string& name) const;
  std::string Result(const McpJson& id, McpJson result, const std::string& era_version) const;

  McpToolProvider* tools_;
  McpServerInfo info_;
  mutable std::mutex mu_;
  std::string session_version_;  // guarded by mu_
};

// A JSON-RPC error answer line. `id` null when the request's id is unknown.
std::string McpErrorLine(const McpJson& id, int code, std::string_view message, const McpJson& data = nullptr);

}  // namespace optrace
