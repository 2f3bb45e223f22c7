// Fuzz target for MCP message dispatch: the input is a session, one JSON-RPC
// message per line, handed to McpServer::HandleLine in order (so an
// `initialize` early in the input shapes what follows). Whatever a client
// sends, every answer must be one line of valid JSON-RPC 2.0 -- a result or
// an error, never a crash, a hang or a malformed line. The tools are fakes
// with the kinds of schema optrace's tools declare, so argument validation
// runs on hostile values too.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "mcp/mcp_peek.h"
#include "mcp/mcp_server.h"

namespace {

using optrace::McpJson;

class FuzzTools : public optrace::McpToolProvider {
 public:
  FuzzTools() {
    tools_.push_back({"trace", "Trace", "A tool with a bounded string, an enum and a range.",
                      McpJson::parse(R"({"type":"object","properties":{
                          "query":{"type":"string","minLength":1,"maxLength":300},
                          "device":{"type":"string","enum":["cpu","cuda","all"]},
                          "depth":{"type":"integer","minimum":0,"maximum":8}},
                        "required":["query"],"additionalProperties":false})"),
                      McpJson::parse(R"({"type":"object","properties":{"echo":{"type":"string"}}})")});
    tools_.push_back({"fail", "Fail", "Always a tool error.", McpJson::parse(R"({"type":"object"})"), nullptr});
  }
  const std::vector<optrace::McpTool>& Tools() const override { return tools_; }
  optrace::McpToolResult Call(const std::string& name, const McpJson& arguments) override {
    if (name == "fail") return {true, "not found", nullptr};
    return {false, "ok", {{"echo", arguments.dump()}}};
  }

 private:
  std::vector<optrace::McpTool> tools_;
};

// An answer is one line of valid JSON-RPC. Its id is the request's bytes
// as written (McpLinePeek::raw_id): a number JSON allows but nlohmann cannot
// hold (1e9990), or a string whose bytes it refuses, is the client's own, so
// it is set aside before parsing the rest.
void CheckAnswer(std::string_view request, std::string line) {
  if (line.find('\n') != std::string::npos) std::abort();
  optrace::McpLinePeek peek;
  peek.Feed(request);
  std::string raw = peek.raw_id();
  if (!raw.empty()) {
    std::string written = "\"id\":" + raw;
    if (size_t at = line.find(written); at != std::string::npos) line.replace(at, written.size(), "\"id\":0");
  }
  McpJson answer = McpJson::parse(line, nullptr, /*allow_exceptions=*/false);
  if (answer.is_discarded() || !answer.is_object() || answer.value("jsonrpc", "") != "2.0") std::abort();
  if (answer.contains("result") == answer.contains("error")) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static FuzzTools tools;
  optrace::McpServer server(&tools, optrace::McpServerInfo{});
  std::string_view input(reinterpret_cast<const char*>(data), size);
  while (!input.empty()) {
    size_t nl = input.find('\n');
    std::string_view line = input.substr(0, nl);
    input = nl == std::string_view::npos ? std::string_view() : input.substr(nl + 1);
    if (std::optional<std::string> answer = server.HandleLine(line)) CheckAnswer(line, *answer);
  }
  return 0;
}
