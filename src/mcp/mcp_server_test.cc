// McpServer driven with fake tools: every protocol path of both eras, the
// schema checks, and the stdio loop (pipelining, huge lines, EOF) over pipes.
#include "mcp/mcp_server.h"

#include <malloc.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <map>
#include <thread>

#include <gtest/gtest.h>

namespace optrace {
namespace {

using json = nlohmann::ordered_json;

class FakeTools : public McpToolProvider {
 public:
  FakeTools() {
    tools_.push_back({"echo", "Echo", "Repeats text.", json::parse(R"({"type":"object","properties":{
                          "text":{"type":"string","minLength":1},
                          "count":{"type":"integer","minimum":1,"maximum":3},
                          "mode":{"type":"string","enum":["plain","loud"]}},
                        "required":["text"],"additionalProperties":false})"),
                      json::parse(R"({"type":"object","properties":{"echo":{"type":"string"}},"required":["echo"]})")});
    tools_.push_back({"fail", "Fail", "Always a tool error.", json::parse(R"({"type":"object"})"), nullptr});
    tools_.push_back({"throw", "Throw", "Throws.", json::parse(R"({"type":"object"})"), nullptr});
    tools_.push_back({"slow", "Slow", "Sleeps, then answers.",
                      json::parse(R"({"type":"object","properties":{"ms":{"type":"integer"}},"required":["ms"]})"),
                      nullptr});
  }
  const std::vector<McpTool>& Tools() const override { return tools_; }
  McpToolResult Call(const std::string& name, const json& arguments) override {
    ++calls;
    if (name == "echo") {
      std::string text = arguments.at("text");
      std::string out;
      for (int i = 0; i < arguments.value("count", 1); ++i) out += text;
      return {false, "echoed " + out, {{"echo", out}}};
    }
    if (name == "fail") return {true, "not found: nothing", nullptr};
    if (name == "slow") {
      std::this_thread::sleep_for(std::chrono::milliseconds(arguments.at("ms").get<int>()));
      return {false, "slept", nullptr};
    }
    throw std::runtime_error("boom");
  }
  std::atomic<int> calls{0};

 private:
  std::vector<McpTool> tools_;
};

json Modern(json params = json::object()) {
  params["_meta"][kMcpMetaProtocolVersion] = kMcpModernVersion;
  params["_meta"][kMcpMetaClientCapabilities] = json::object();
  return params;
}

std::string Request(const json& id, const std::string& method, const json& params = nullptr) {
  json r = {{"jsonrpc", "2.0"}, {"id", id}, {"method", method}};
  if (!params.is_null()) r["params"] = params;
  return r.dump();
}

class McpServerTest : public ::testing::Test {
 protected:
  McpServerTest() : server_(&tools_, McpServerInfo{"optrace", "optrace", "9.9", "use the tools"}) {}
  json Send(const std::string& line) {
    auto answer = server_.HandleLine(line);
    EXPECT_TRUE(answer.has_value()) << line;
    return answer ? json::parse(*answer) : json();
  }
  void Initialize(const std::string& version = "2025-06-18") {
    Send(Request(0, "initialize",
                 {{"protocolVersion", version},
                  {"capabilities", json::object()},
                  {"clientInfo", {{"name", "t"}, {"version", "1"}}}}));
  }
  int ErrorCode(const json& answer) { return answer.contains("error") ? answer["error"].value("code", 0) : 0; }
  FakeTools tools_;
  McpServer server_;
};

// Every handshake revision is echoed: the SDK client of each (1.x keeps a
// list) refuses an answer naming a version it does not know (issue 27).
TEST_F(McpServerTest, InitializeEchoesASupportedVersion) {
  for (const std::string v : {"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"}) {
    json a = Send(Request(1, "initialize", {{"protocolVersion", v}, {"capabilities", json::object()}}));
    EXPECT_EQ(a["jsonrpc"], "2.0");
    EXPECT_EQ(a["id"], 1);
    EXPECT_EQ(a["result"]["protocolVersion"], v);
    EXPECT_TRUE(a["result"]["capabilities"].contains("tools"));
    EXPECT_EQ(a["result"]["serverInfo"]["name"], "optrace");
    EXPECT_EQ(a["result"]["serverInfo"]["version"], "9.9");
    EXPECT_EQ(a["result"]["instructions"], "use the tools");
    EXPECT_FALSE(a["result"].contains("resultType"));
    EXPECT_EQ(server_.session_version(), v);
  }
}

TEST_F(McpServerTest, InitializeNeverEchoesAnUnknownVersion) {
  for (const std::string v : {"2024-10-07", "1900-01-01", "2026-07-28", "banana"}) {
    json a = Send(Request("x", "initialize", {{"protocolVersion", v}}));
    EXPECT_EQ(a["id"], "x");
    EXPECT_EQ(a["result"]["protocolVersion"], "2025-11-25") << v;
  }
}

TEST_F(McpServerTest, InitializeWithoutVersionIsInvalidParams) {
  EXPECT_EQ(ErrorCode(Send(Request(1, "initialize", json::object()))), kMcpInvalidParams);
  EXPECT_EQ(ErrorCode(Send(Request(2, "initialize", {{"protocolVersion", 20250618}}))), kMcpInvalidParams);
  EXPECT_EQ(ErrorCode(Send(Request(3, "initialize"))), kMcpInvalidParams);
  EXPECT_EQ(server_.session_version(), "");
}

TEST_F(McpServerTest, NotificationsGetNoAnswer) {
  Initialize();
  EXPECT_FALSE(server_.HandleLine(R"({"jsonrpc":"2.0","method":"notifications/initialized"})"));
  EXPECT_FALSE(server_.HandleLine(R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}})"));
  EXPECT_FALSE(server_.HandleLine(R"({"jsonrpc":"2.0","method":"no/such/notification"})"));
  // A tool named in a notification is not run.
  EXPECT_FALSE(server_.HandleLine(
      R"({"jsonrpc":"2.0","method":"tools/call","params":{"name":"echo","arguments":{"text":"a"}}})"));
  EXPECT_EQ(tools_.calls, 0);
}

TEST_F(McpServerTest, ResponsesFromTheClientAreIgnored) {
  EXPECT_FALSE(server_.HandleLine(R"({"jsonrpc":"2.0","id":5,"result":{}})"));
  EXPECT_FALSE(server_.HandleLine(R"({"jsonrpc":"2.0","id":5,"error":{"code":1,"message":"x"}})"));
}

TEST_F(McpServerTest, PingInTheSessionEra) {
  json a = Send(Request(7, "ping"));
  EXPECT_EQ(a["id"], 7);
  EXPECT_EQ(a["result"], json::object());
  Initialize();
  EXPECT_EQ(Send(Request(8, "ping"))["result"], json::object());
}

TEST_F(McpServerTest, SessionEraToolsList) {
  Initialize();
  json a = Send(Request(2, "tools/list"));
  ASSERT_TRUE(a.contains("result")) << a;
  const json& tools = a["result"]["tools"];
  ASSERT_EQ(tools.size(), 4u);
  EXPECT_EQ(tools[0]["name"], "echo");
  EXPECT_EQ(tools[0]["title"], "Echo");
  EXPECT_EQ(tools[0]["inputSchema"]["required"], json::array({"text"}));
  EXPECT_EQ(tools[0]["outputSchema"]["required"], json::array({"echo"}));
  EXPECT_FALSE(tools[1].contains("outputSchema"));
  EXPECT_EQ(tools[0]["annotations"]["readOnlyHint"], true);
  EXPECT_FALSE(a["result"].contains("resultType"));
  EXPECT_FALSE(a["result"].contains("ttlMs"));
}

TEST_F(McpServerTest, SessionEraToolsCall) {
  Initialize("2025-11-25");
  json a = Send(Request(3, "tools/call", {{"name", "echo"}, {"arguments", {{"text", "ab"}, {"count", 2}}}}));
  ASSERT_TRUE(a.contains("result")) << a;
  EXPECT_EQ(a["id"], 3);
  EXPECT_EQ(a["result"]["isError"], false);
  EXPECT_EQ(a["result"]["content"][0]["type"], "text");
  EXPECT_EQ(a["result"]["content"][0]["text"], "echoed abab");
  EXPECT_EQ(a["result"]["structuredContent"]["echo"], "abab");
  std::string error;
  EXPECT_TRUE(ValidateJsonSchema(tools_.Tools()[0].output_schema, a["result"]["structuredContent"], &error)) << error;
}

TEST_F(McpServerTest, ToolFailureIsAnIsErrorResult) {
  Initialize();
  json a = Send(Request(4, "tools/call", {{"name", "fail"}}));
  EXPECT_EQ(a["result"]["isError"], true);
  EXPECT_EQ(a["result"]["content"][0]["text"], "not found: nothing");
  EXPECT_FALSE(a["result"].contains("structuredContent"));
}

TEST_F(McpServerTest, ToolExceptionIsInternalError) {
  Initialize();
  json a = Send(Request(5, "tools/call", {{"name", "throw"}, {"arguments", json::object()}}));
  EXPECT_EQ(ErrorCode(a), kMcpInternalError);
  EXPECT_EQ(a["id"], 5);
  EXPECT_NE(a["error"]["message"].get<std::string>().find("boom"), std::string::npos);
  // ...and the server goes on.
  EXPECT_EQ(Send(Request(6, "ping"))["result"], json::object());
}

TEST_F(McpServerTest, UnknownToolAndBadParamsAreInvalidParams) {
  Initialize();
  json a = Send(Request(1, "tools/call", {{"name", "nope"}}));
  EXPECT_EQ(ErrorCode(a), kMcpInvalidParams);
  EXPECT_EQ(a["error"]["message"], "Unknown tool: nope");
  EXPECT_EQ(ErrorCode(Send(Request(2, "tools/call", json::object()))), kMcpInvalidParams);
  EXPECT_EQ(ErrorCode(Send(Request(3, "tools/call", {{"name", 3}}))), kMcpInvalidParams);
  EXPECT_EQ(ErrorCode(Send(Request(4, "tools/call", {{"name", "echo"}, {"arguments", json::array()}}))),
            kMcpInvalidParams);
  EXPECT_EQ(ErrorCode(Send(Request(5, "tools/call", json::array({"echo"})))), kMcpInvalidParams);
  EXPECT_EQ(ErrorCode(Send(Request(6, "tools/list", {{"cursor", "abc"}}))), kMcpInvalidParams);
  EXPECT_EQ(tools_.calls, 0);
}

TEST_F(McpServerTest, ArgumentsAreCheckedAgainstTheInputSchema) {
  Initialize();
  struct Case {
    json arguments;
    std::string message_part;
  } cases[] = {
      {json::object(), "missing required property 'text'"},
      {{{"text", 5}}, "/text: expected string, got number"},
      {{{"text", ""}}, "/text: must be at least 1 characters"},
      {{{"text", "a"}, {"count", 0}}, "/count: must be >= 1"},
      {{{"text", "a"}, {"count", 4}}, "/count: must be <= 3"},
      {{{"text", "a"}, {"count", 1.5}}, "/count: expected integer, got number"},
      {{{"text", "a"}, {"count", true}}, "/count: expected integer, got boolean"},
      {{{"text", "a"}, {"mode", "quiet"}}, "/mode: must be one of [\"plain\",\"loud\"]"},
      {{{"text", "a"}, {"colour", "red"}}, "unknown property 'colour'"},
  };
  int id = 10;
  for (const auto& c : cases) {
    json a = Send(Request(id++, "tools/call", {{"name", "echo"}, {"arguments", c.arguments}}));
    EXPECT_EQ(ErrorCode(a), kMcpInvalidParams) << c.arguments;
    EXPECT_NE(a["error"]["message"].get<std::string>().find(c.message_part), std::string::npos) << a;
  }
  EXPECT_EQ(tools_.calls, 0);
  // 2.0 is an integer in JSON Schema.
  json ok = Send(Request(99, "tools/call", {{"name", "echo"}, {"arguments", {{"text", "a"}, {"count", 2.0}}}}));
  EXPECT_EQ(ok["result"]["structuredContent"]["echo"], "aa");
}

// SEP-1303: from 2025-11-25 on, arguments that break the input schema are a
// tool result with isError (the model reads it and retries), not a protocol
// error; unknown tools and a malformed call stay -32602.
TEST_F(McpServerTest, ArgumentErrorsAreToolErrorsFrom20251125) {
  for (const std::string version : {"2025-11-25", kMcpModernVersion}) {
    bool modern = version == kMcpModernVersion;
    if (!modern) Initialize(version);
    auto params = [&](json p) { return modern ? Modern(std::move(p)) : p; };
    json a = Send(Request(7, "tools/call", params({{"name", "echo"}, {"arguments", {{"text", "a"}, {"count", 9}}}})));
    ASSERT_TRUE(a.contains("result")) << a;
    EXPECT_EQ(a["id"], 7);
    EXPECT_TRUE(a["result"]["isError"].get<bool>());
    EXPECT_EQ(a["result"]["content"][0]["text"], "Invalid arguments for tool echo: /count: must be <= 3");
    EXPECT_FALSE(a["result"].contains("structuredContent"));
    EXPECT_EQ(ErrorCode(Send(Request(8, "tools/call", params({{"name", "nope"}})))), kMcpInvalidParams);
    EXPECT_EQ(ErrorCode(Send(Request(9, "tools/call", params({{"name", "echo"}, {"arguments", 3}})))),
              kMcpInvalidParams);
  }
  EXPECT_EQ(tools_.calls, 0);
}

// Before 2025-11-25 no revision files schema failures under tool errors:
// 2024-11-05, 2025-03-26 and 2025-06-18 clients get -32602. A valid call is
// answered alike in every handshake revision, and a request naming
// 2026-07-28 in _meta is served statelessly whatever the handshake said.
TEST_F(McpServerTest, OlderRevisionsGetArgumentErrorsAsInvalidParams) {
  for (const std::string version : {"2024-11-05", "2025-03-26", "2025-06-18"}) {
    Initialize(version);
    json a = Send(Request(7, "tools/call", {{"name", "echo"}, {"arguments", {{"text", "a"}, {"count", 9}}}}));
    EXPECT_EQ(ErrorCode(a), kMcpInvalidParams) << version;
    EXPECT_EQ(a["error"]["message"], "Invalid arguments for tool echo: /count: must be <= 3");
    json ok = Send(Request(8, "tools/call", {{"name", "echo"}, {"arguments", {{"text", "ab"}, {"count", 2}}}}));
    EXPECT_EQ(ok["result"]["structuredContent"]["echo"], "abab") << version;
    EXPECT_FALSE(ok["result"].contains("resultType")) << version;
    json modern = Send(Request(9, "tools/list", Modern()));
    EXPECT_EQ(modern["result"]["resultType"], "complete") << version;
    EXPECT_EQ(server_.session_version(), version);
  }
  EXPECT_EQ(tools_.calls, 3);
}

// Schemas built in C++ hold 300 as a signed integer; the JSON library calls
// only parsed non-negative numbers unsigned. Both must bound the length.
TEST(ValidateJsonSchema, CountsWrittenAsSignedIntegersBind) {
  json schema = {
      {"type", "object"},
      {"properties",
       {{"q", {{"type", "string"}, {"minLength", 1}, {"maxLength", 3}}}, {"l", {{"type", "array"}, {"minItems", 2}}}}}};
  std::string error;
  EXPECT_TRUE(ValidateJsonSchema(schema, {{"q", "abc"}, {"l", {1, 2}}}, &error)) << error;
  EXPECT_FALSE(ValidateJsonSchema(schema, {{"q", "abcd"}}, &error));
  EXPECT_EQ(error, "/q: must be at most 3 characters (got 4)");
  EXPECT_FALSE(ValidateJsonSchema(schema, {{"q", ""}}, &error));
  EXPECT_EQ(error, "/q: must be at least 1 characters");
  EXPECT_FALSE(ValidateJsonSchema(schema, {{"l", {1}}}, &error));
  EXPECT_EQ(error, "/l: must have at least 2 items");
  // Characters, not bytes: three two-byte characters fit.
  EXPECT_TRUE(ValidateJsonSchema(schema, {{"q", "\xc3\xa9\xc3\xa9\xc3\xa9"}}, &error)) << error;
}

// issue 18 #2: a 200,000-deep array in params overflowed the stack. Refused
// before parsing, with the id, and the server goes on.
TEST_F(McpServerTest, DeepNestingIsRefusedWithItsId) {
  Initialize();
  const size_t deep = 200000;
  std::string line = R"({"jsonrpc":"2.0","id":2,"method":"ping","params":{"x":)" + std::string(deep, '[') +
                     std::string(deep, ']') + "}}";
  json a = Send(line);
  EXPECT_EQ(ErrorCode(a), kMcpInvalidRequest);
  EXPECT_EQ(a["id"], 2);
  EXPECT_NE(a["error"]["message"].get<std::string>().find("256"), std::string::npos);
  // The id after the deep part is read too; depth 256 itself is fine.
  json b = Send(R"({"jsonrpc":"2.0","method":"ping","params":{"x":)" + std::string(deep, '[') + std::string(deep, ']') +
                R"(}, "id": "late"})");
  EXPECT_EQ(ErrorCode(b), kMcpInvalidRequest);
  EXPECT_EQ(b["id"], "late");
  json ok = Send(R"({"jsonrpc":"2.0","id":3,"method":"ping","params":{"x":)" + std::string(254, '[') +
                 std::string(254, ']') + "}}");
  EXPECT_EQ(ok["result"], json::object()) << ok;
}

// issue 16 #2: a lone surrogate made the parser fail and the answer carry id
// null, so the client waited for its timeout.
TEST_F(McpServerTest, LoneSurrogateIsAnsweredWithItsId) {
  Initialize("2025-06-18");
  json a = Send(
      R"({"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"echo","arguments":{"text":"a\uD800b"}}})");
  EXPECT_EQ(ErrorCode(a), kMcpInvalidParams);
  EXPECT_EQ(a["id"], 5);
  EXPECT_NE(a["error"]["message"].get<std::string>().find("UTF-16"), std::string::npos);
  Initialize("2025-11-25");
  json b = Send(
      R"({"jsonrpc":"2.0","method":"tools/call","params":{"name":"echo","arguments":{"text":"\uDC00"}},"id":"s"})");
  EXPECT_EQ(b["id"], "s");
  EXPECT_TRUE(b["result"]["isError"].get<bool>()) << b;
  json c = Send(R"({"jsonrpc":"2.0","id":6,"method":"ping","params":{"x":"\uDBFF\u0041"}})");
  EXPECT_EQ(ErrorCode(c), kMcpInvalidParams);
  EXPECT_EQ(c["id"], 6);
  // A proper pair is fine.
  json d = Send(
      R"({"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"text":"\uD83D\uDE00"}}})");
  EXPECT_EQ(d["result"]["structuredContent"]["echo"], "\xF0\x9F\x98\x80") << d;
  EXPECT_EQ(tools_.calls, 1);
}

// Issue 29 item 15: an id is echoed as written. Parsed and dumped, 1e400
// became null, a big integer a float, and a lone surrogate U+FFFD: answers
// no client could match.
TEST_F(McpServerTest, IdsAreEchoedAsWritten) {
  Initialize("2025-06-18");
  for (const std::string id : {"1e400", "123456789012345678901234567890", R"("\ud800")", R"("a\u00e9\"b")", "7"}) {
    auto ping = server_.HandleLine(R"({"jsonrpc":"2.0","id":)" + id + R"(,"method":"ping"})");
    ASSERT_TRUE(ping.has_value());
    EXPECT_EQ(ping->rfind(R"({"jsonrpc":"2.0","id":)" + id + ",", 0), 0u) << *ping;
    if (id == "1e400") continue;  // nlohmann's parser refuses the line (overflow): a parse error, with the id
    auto call = server_.HandleLine(R"({"jsonrpc":"2.0","id":)" + id +
                                   R"(,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x"}}})");
    ASSERT_TRUE(call.has_value());
    EXPECT_EQ(call->rfind(R"({"jsonrpc":"2.0","id":)" + id + ",", 0), 0u) << *call;
  }
}

TEST_F(McpServerTest, ParseErrorCarriesTheIdWhenItCanBeRead) {
  json a = Send(R"({"jsonrpc":"2.0","id":11,"method":"ping","params":{"x":tru}})");
  EXPECT_EQ(ErrorCode(a), kMcpParseError);
  EXPECT_EQ(a["id"], 11);
}

TEST(McpLinePeek, ReadsDepthIdAndSurrogates) {
  struct Case {
    std::string line;
    size_t depth;
    json id;
    bool lone;
  } cases[] = {
      {R"({"jsonrpc":"2.0","id":1,"method":"ping"})", 1, 1, false},
      {R"({"id" : "a\"b" ,"x":[[{}]]})", 4, "a\"b", false},
      {R"({"x":{"id":3},"id":-2.5e1})", 2, -25.0, false},
      {R"({"x":"{[\"id\":4"})", 1, nullptr, false},
      {R"({"id":null})", 1, nullptr, false},
      {R"({"id":{"a":1}})", 2, nullptr, false},
      {R"({"id":7,"id":8})", 1, 8, false},
      {R"(["id",1])", 1, nullptr, false},
      {R"({"s":"\uD800","id":1})", 1, 1, true},
      {R"({"s":"\uD800\uDC00\\uD800"})", 1, nullptr, false},
      {R"({"s":"\uDC00"})", 1, nullptr, true},
      {R"({"s":"\uD800\n"})", 1, nullptr, true},
      {R"({"id":12)", 1, 12, false},
  };
  for (const auto& c : cases) {
    McpLinePeek whole, bytewise;
    whole.Feed(c.line);
    for (char ch : c.line) bytewise.Feed(std::string_view(&ch, 1));
    for (const McpLinePeek* p : {&whole, &bytewise}) {
      EXPECT_EQ(p->max_depth(), c.depth) << c.line;
      EXPECT_EQ(p->id(), c.id) << c.line;
      EXPECT_EQ(p->lone_surrogate(), c.lone) << c.line;
    }
  }
}

TEST(McpLinePeek, ReplaceLoneSurrogatesKeepsPairsAndOtherEscapes) {
  EXPECT_EQ(ReplaceLoneSurrogates(R"({"a":"x\uD800y","b":"\uD83D\uDE00","c":"\\uD800","d":"\uDC00\u0041"})"),
            R"({"a":"x\uFFFDy","b":"\uD83D\uDE00","c":"\\uD800","d":"\uFFFD\u0041"})");
}

TEST_F(McpServerTest, RequestsBeforeAnyVersionAreRejected) {
  json a = Send(Request(1, "tools/list"));
  EXPECT_EQ(ErrorCode(a), kMcpInvalidParams);
  EXPECT_NE(a["error"]["message"].get<std::string>().find("initialize"), std::string::npos);
}

TEST_F(McpServerTest, ParseErrorHasNullId) {
  for (const std::string bad : {"{", "{\"jsonrpc\":\"2.0\",", "not json", "\xff\xfe", "{\"a\":1}}"}) {
    json a = Send(bad);
    EXPECT_EQ(ErrorCode(a), kMcpParseError) << bad;
    EXPECT_TRUE(a["id"].is_null());
  }
}

TEST_F(McpServerTest, InvalidRequests) {
  struct Case {
    std::string line;
    json id;
  } cases[] = {
      {"[]", nullptr},
      {R"([{"jsonrpc":"2.0","id":1,"method":"ping"}])", nullptr},
      {"42", nullptr},
      {R"("ping")", nullptr},
      {R"({"id":1,"method":"ping"})", 1},
      {R"({"jsonrpc":"1.0","id":1,"method":"ping"})", 1},
      {R"({"jsonrpc":"2.0","id":2,"method":7})", 2},
      {R"({"jsonrpc":"2.0","id":3})", 3},
      {R"({"jsonrpc":"2.0","id":null,"method":"ping"})", nullptr},
      {R"({"jsonrpc":"2.0","id":{"a":1},"method":"ping"})", nullptr},
      {R"({"jsonrpc":"2.0","id":true,"method":"ping"})", nullptr},
      {R"({"jsonrpc":"2.0","id":4,"method":"ping","params":"x"})", 4},
      {R"({"jsonrpc":"2.0","method":1})", nullptr},
  };
  for (const auto& c : cases) {
    json a = Send(c.line);
    EXPECT_EQ(ErrorCode(a), kMcpInvalidRequest) << c.line;
    EXPECT_EQ(a["id"], c.id) << c.line;
  }
}

TEST_F(McpServerTest, UnknownMethodInBothEras) {
  json a = Send(Request(1, "resources/list"));
  EXPECT_EQ(ErrorCode(a), kMcpMethodNotFound);
  EXPECT_EQ(a["id"], 1);
  EXPECT_EQ(ErrorCode(Send(Request(2, "prompts/list", Modern()))), kMcpMethodNotFound);
  Initialize();
  EXPECT_EQ(ErrorCode(Send(Request(3, "tools/delete"))), kMcpMethodNotFound);
  EXPECT_EQ(ErrorCode(Send(Request(4, "logging/setLevel", {{"level", "info"}}))), kMcpMethodNotFound);
}

// --- stateless era (2026-07-28) ---

TEST_F(McpServerTest, DiscoverAdvertisesTheModernVersion) {
  json a = Send(Request("d1", "server/discover", Modern()));
  ASSERT_TRUE(a.contains("result")) << a;
  const json& r = a["result"];
  EXPECT_EQ(r["resultType"], "complete");
  EXPECT_EQ(r["supportedVersions"], json::array({"2026-07-28"}));
  EXPECT_TRUE(r["capabilities"].contains("tools"));
  EXPECT_EQ(r["instructions"], "use the tools");
  EXPECT_GT(r["ttlMs"].get<int64_t>(), 0);
  EXPECT_EQ(r["cacheScope"], "public");
  EXPECT_EQ(r["_meta"][kMcpMetaServerInfo]["name"], "optrace");
  EXPECT_EQ(r["_meta"][kMcpMetaServerInfo]["version"], "9.9");
  // Stateless: no session was opened.
  EXPECT_EQ(server_.session_version(), "");
}

TEST_F(McpServerTest, ModernRequestsNeedNoHandshake) {
  json list = Send(Request(1, "tools/list", Modern()));
  EXPECT_EQ(list["result"]["resultType"], "complete");
  EXPECT_EQ(list["result"]["tools"].size(), 4u);
  EXPECT_EQ(list["result"]["cacheScope"], "public");
  EXPECT_GT(list["result"]["ttlMs"].get<int64_t>(), 0);
  json call = Send(Request(2, "tools/call", Modern({{"name", "echo"}, {"arguments", {{"text", "z"}}}})));
  EXPECT_EQ(call["result"]["resultType"], "complete");
  EXPECT_EQ(call["result"]["structuredContent"]["echo"], "z");
  EXPECT_EQ(call["result"]["_meta"][kMcpMetaServerInfo]["name"], "optrace");
  json fail = Send(Request(3, "tools/call", Modern({{"name", "fail"}})));
  EXPECT_EQ(fail["result"]["resultType"], "complete");
  EXPECT_EQ(fail["result"]["isError"], true);
}

TEST_F(McpServerTest, UnsupportedModernVersion) {
  json params = Modern();
  params["_meta"][kMcpMetaProtocolVersion] = "2099-01-01";
  json a = Send(Request(9, "tools/list", params));
  EXPECT_EQ(ErrorCode(a), kMcpUnsupportedProtocolVersion);
  EXPECT_EQ(ErrorCode(a), -32022);
  EXPECT_EQ(a["id"], 9);
  EXPECT_EQ(a["error"]["data"]["requested"], "2099-01-01");
  EXPECT_EQ(a["error"]["data"]["supported"],
            json::array({"2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}));
  // A handshake version named per request is not served statelessly either.
  params["_meta"][kMcpMetaProtocolVersion] = "2025-06-18";
  EXPECT_EQ(ErrorCode(Send(Request(10, "server/discover", params))), kMcpUnsupportedProtocolVersion);
}

TEST_F(McpServerTest, ModernRequestMissingRequiredMetaIsInvalidParams) {
  json no_caps = {{"_meta", {{kMcpMetaProtocolVersion, kMcpModernVersion}}}};
  EXPECT_EQ(ErrorCode(Send(Request(1, "tools/list", no_caps))), kMcpInvalidParams);
  json bad_caps = Modern();
  bad_caps["_meta"][kMcpMetaClientCapabilities] = "all";
  EXPECT_EQ(ErrorCode(Send(Request(2, "tools/list", bad_caps))), kMcpInvalidParams);
  json bad_version = Modern();
  bad_version["_meta"][kMcpMetaProtocolVersion] = 2026;
  EXPECT_EQ(ErrorCode(Send(Request(3, "tools/list", bad_version))), kMcpInvalidParams);
  // server/discover is modern-only: without _meta it is malformed, even in a session.
  Initialize();
  EXPECT_EQ(ErrorCode(Send(Request(4, "server/discover"))), kMcpInvalidParams);
}

TEST_F(McpServerTest, PingWasRemovedInTheStatelessEra) {
  EXPECT_EQ(ErrorCode(Send(Request(1, "ping", Modern()))), kMcpMethodNotFound);
}

TEST_F(McpServerTest, BothErasOnOneProcess) {
  Initialize("2025-06-18");
  json legacy = Send(Request(1, "tools/call", {{"name", "echo"}, {"arguments", {{"text", "l"}}}}));
  EXPECT_FALSE(legacy["result"].contains("resultType"));
  json modern = Send(Request(2, "tools/call", Modern({{"name", "echo"}, {"arguments", {{"text", "m"}}}})));
  EXPECT_EQ(modern["result"]["resultType"], "complete");
  // The modern request did not change the session.
  EXPECT_EQ(server_.session_version(), "2025-06-18");
}

TEST(ValidateJsonSchema, AcceptsWhatTheSchemaAllows) {
  json schema = json::parse(R"({"type":"object","properties":{
      "a":{"type":["string","null"]},"b":{"type":"array","items":{"type":"integer"},"minItems":1},
      "c":{"const":"x"},"d":{"type":"string","maxLength":2}},"additionalProperties":{"type":"number"}})");
  std::string error;
  EXPECT_TRUE(ValidateJsonSchema(schema, json::parse(R"({"a":null,"b":[1,2],"c":"x","d":"é€","z":1.5})"), &error))
      << error;
  EXPECT_FALSE(ValidateJsonSchema(schema, json::parse(R"({"b":[]})"), &error));
  EXPECT_EQ(error, "/b: must have at least 1 items");
  EXPECT_FALSE(ValidateJsonSchema(schema, json::parse(R"({"b":[1,"2"]})"), &error));
  EXPECT_EQ(error, "/b/1: expected integer, got string");
  EXPECT_FALSE(ValidateJsonSchema(schema, json::parse(R"({"c":"y"})"), &error));
  EXPECT_EQ(error, "/c: must be \"x\"");
  EXPECT_FALSE(ValidateJsonSchema(schema, json::parse(R"({"d":"abc"})"), &error));
  EXPECT_FALSE(ValidateJsonSchema(schema, json::parse(R"({"z":"s"})"), &error));
  EXPECT_EQ(error, "/z: expected number, got string");
  EXPECT_FALSE(ValidateJsonSchema(schema, json::array(), &error));
  EXPECT_EQ(error, "(root): expected object, got array");
}

// anyOf, the spelling of a nullable field the output schemas use (a type
// array draws MCP Inspector --strict warnings): a value any branch accepts
// passes; otherwise the first branch's error is reported.
TEST(ValidateJsonSchema, AnyOfAcceptsAValueOneBranchAccepts) {
  json schema = json::parse(R"({"type":"object","properties":{
      "t":{"anyOf":[{"type":"string"},{"type":"null"}]},
      "d":{"anyOf":[{"type":"object","required":["line"],"properties":{"line":{"type":"integer"}}},{"type":"null"}]}}})");
  std::string error;
  EXPECT_TRUE(ValidateJsonSchema(schema, json::parse(R"({"t":"2.6.0","d":{"line":3}})"), &error)) << error;
  EXPECT_TRUE(ValidateJsonSchema(schema, json::parse(R"({"t":null,"d":null})"), &error)) << error;
  EXPECT_FALSE(ValidateJsonSchema(schema, json::parse(R"({"t":1})"), &error));
  EXPECT_EQ(error, "/t: expected string, got number");
  EXPECT_FALSE(ValidateJsonSchema(schema, json::parse(R"({"d":{"line":"3"}})"), &error));
  EXPECT_EQ(error, "/d/line: expected integer, got string");
  EXPECT_FALSE(ValidateJsonSchema(schema, json::parse(R"({"d":{}})"), &error));
  EXPECT_EQ(error, "/d: missing required property 'line'");
}

// --- the stdio loop, over pipes ---

class ServeTest : public McpServerTest {
 protected:
  // Runs Serve on `input` (written then closed) with `workers` threads; returns the answer lines.
  // Serve runs on this thread, as in `optrace mcp`.
  std::vector<json> Serve(const std::string& input, unsigned workers) {
    int in[2], out[2];
    EXPECT_EQ(pipe(in), 0);
    EXPECT_EQ(pipe(out), 0);
    std::thread writer([&] {
      size_t done = 0;
      while (done < input.size()) {
        ssize_t n = write(in[1], input.data() + done, input.size() - done);
        if (n <= 0) break;
        done += n;
      }
      close(in[1]);
    });
    std::string output;
    std::thread reader([&] {
      char buf[4096];
      for (ssize_t n; (n = read(out[0], buf, sizeof buf)) > 0;) output.append(buf, n);
    });
    server_.Serve(in[0], out[1], workers);
    close(out[1]);
    writer.join();
    reader.join();
    close(in[0]);
    close(out[0]);
    std::vector<json> answers;
    size_t start = 0;
    for (size_t nl; (nl = output.find('\n', start)) != std::string::npos; start = nl + 1)
      answers.push_back(json::parse(output.substr(start, nl - start)));
    EXPECT_EQ(start, output.size()) << "every answer ends with a newline";
    return answers;
  }
};

TEST_F(ServeTest, PipelinedRequestsEachGetOneAnswer) {
  std::string input = Request(0, "initialize", {{"protocolVersion", "2025-06-18"}}) + "\n" +
                      R"({"jsonrpc":"2.0","method":"notifications/initialized"})" + "\n";
  // A slow call first: later, faster requests may be answered before it.
  input += Request("slow", "tools/call", {{"name", "slow"}, {"arguments", {{"ms", 200}}}}) + "\n";
  for (int i = 1; i <= 20; ++i)
    input += Request(i, "tools/call", {{"name", "echo"}, {"arguments", {{"text", std::to_string(i)}}}}) + "\n";
  input += Request("list", "tools/list") + "\n";
  std::vector<json> answers = Serve(input, 4);
  ASSERT_EQ(answers.size(), 23u);
  std::map<std::string, json> by_id;
  for (const auto& a : answers) {
    std::string key = a["id"].dump();
    EXPECT_FALSE(by_id.count(key)) << "two answers for id " << key;
    by_id[key] = a;
  }
  for (int i = 1; i <= 20; ++i)
    EXPECT_EQ(by_id[std::to_string(i)]["result"]["structuredContent"]["echo"], std::to_string(i));
  EXPECT_EQ(by_id["\"slow\""]["result"]["content"][0]["text"], "slept");
  EXPECT_EQ(by_id["\"list\""]["result"]["tools"].size(), 4u);
  EXPECT_EQ(answers[0]["id"], 0);  // initialize is answered before anything after it is read
}

TEST_F(ServeTest, InOrderWithOneWorker) {
  std::string input = Request(0, "initialize", {{"protocolVersion", "2025-11-25"}}) + "\n";
  for (int i = 1; i <= 5; ++i)
    input += Request(i, "tools/call", {{"name", "echo"}, {"arguments", {{"text", "x"}}}}) + "\n";
  std::vector<json> answers = Serve(input, 1);
  ASSERT_EQ(answers.size(), 6u);
  for (int i = 0; i <= 5; ++i) EXPECT_EQ(answers[i]["id"], i);
}

TEST_F(ServeTest, HugeLineIsRejectedWithItsIdAndServingGoesOn) {
  // The id after the text, as the TypeScript SDK writes it: read as the line streams by.
  std::string huge = R"({"jsonrpc":"2.0","method":"tools/call","params":{"name":"echo","arguments":{"text":")" +
                     std::string(McpServer::kMaxLineBytes, 'a') + "\"}},\"id\":1}";
  std::string input =
      Request(0, "initialize", {{"protocolVersion", "2025-06-18"}}) + "\n" + huge + "\n" + Request(2, "ping") + "\n";
  std::vector<json> answers = Serve(input, 2);
  ASSERT_EQ(answers.size(), 3u);
  EXPECT_EQ(ErrorCode(answers[1]), kMcpInvalidRequest);
  EXPECT_EQ(answers[1]["id"], 1);
  EXPECT_EQ(answers[2]["id"], 2);
  EXPECT_EQ(answers[2]["result"], json::object());
  EXPECT_EQ(tools_.calls, 0);
}

// What malloc holds from the system: heap arenas (free chunks in them too) and mappings.
size_t MallocHeld() {
  struct mallinfo2 m = ::mallinfo2();
  return m.arena + m.hblkhd;
}

// Line after line over the limit leaves the server no bigger than one does:
// the line buffer was grown and freed per line, and the heap kept the holes
// (thirty 50 MB lines left `optrace mcp` 150 MB bigger).
TEST_F(ServeTest, HugeLinesOneAfterAnotherHoldNoMoreMemoryThanOne) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "ASan's allocator is not malloc's";
#endif
  std::string huge = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{\"x\":\"" +
                     std::string(McpServer::kMaxLineBytes, 'a') + "\"}}\n";
  std::string one = Request(0, "initialize", {{"protocolVersion", "2025-06-18"}}) + "\n" + huge;
  std::string many = one;
  for (int i = 0; i < 5; ++i) many += huge + Request(2, "ping") + "\n";
  ASSERT_EQ(Serve(one, 1).size(), 2u);
  const size_t after_one = MallocHeld();
  ASSERT_EQ(Serve(many, 1).size(), 12u);
  EXPECT_LT(MallocHeld(), after_one + (8u << 20)) << after_one << " bytes held after one line";
}

// The longest text the scan schema allows, every character escaped the
// longest way, fits in one line (issue 16 #2: raise the limit to maxLength).
TEST_F(ServeTest, TheLongestAllowedArgumentFitsInALine) {
  std::string text;
  for (int i = 0; i < 1000000; ++i) text += "\\uD83D\\uDE00";
  std::string line =
      R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":")" + text + "\"}}}";
  ASSERT_LT(line.size(), McpServer::kMaxLineBytes);
  std::string input = Request(0, "initialize", {{"protocolVersion", "2025-06-18"}}) + "\n" + line + "\n";
  std::vector<json> answers = Serve(input, 1);
  ASSERT_EQ(answers.size(), 2u);
  EXPECT_EQ(answers[1]["id"], 1);
  EXPECT_EQ(answers[1]["result"]["structuredContent"]["echo"].get<std::string>().size(), 4000000u);
}

TEST_F(ServeTest, GarbageBlankLinesAndCrLf) {
  std::string input = "\n   \n" + Request(0, "initialize", {{"protocolVersion", "2025-06-18"}}) + "\r\n" +
                      std::string("\x00\x01\x02garbage", 10) + "\n" +
                      "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}";
  std::vector<json> answers = Serve(input, 1);
  ASSERT_EQ(answers.size(), 3u);
  EXPECT_EQ(answers[0]["result"]["protocolVersion"], "2025-06-18");
  EXPECT_EQ(ErrorCode(answers[1]), kMcpParseError);
  EXPECT_EQ(answers[2]["id"], 1);  // the last line had no newline
}

TEST_F(ServeTest, EofMidCallStillAnswersIt) {
  std::string input = Request(0, "initialize", {{"protocolVersion", "2025-06-18"}}) + "\n" +
                      Request(1, "tools/call", {{"name", "slow"}, {"arguments", {{"ms", 100}}}}) + "\n";
  std::vector<json> answers = Serve(input, 2);
  ASSERT_EQ(answers.size(), 2u);
  EXPECT_EQ(answers[1]["id"], 1);
  EXPECT_EQ(answers[1]["result"]["content"][0]["text"], "slept");
}

}  // namespace
}  // namespace optrace
