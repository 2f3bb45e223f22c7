// The real `optrace mcp` process (OPTRACE_BINARY) on the 2.6.0 tree, driven
// over pipes the way a client drives it (the protocol alone is tested
// hermetically, without the tracer, in mcp/mcp_server_test.cc): whole sessions in both protocol eras,
// every tool with facts checked by hand against the tree, pipelined requests,
// malformed input, a 10 MB line, EOF mid-session, and a missing checkout.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include <gtest/gtest.h>

#include "mcp/mcp_server.h"
#include "testing/test_util.h"

namespace optrace {
namespace {

using json = nlohmann::ordered_json;

// The first tool call may wait for the index to be built.
constexpr int kFirstCallTimeoutMs = 900 * 1000;
constexpr int kTimeoutMs = 60 * 1000;

class McpProcess {
 public:
  explicit McpProcess(const std::string& source) {
    int in[2], out[2];
    if (pipe(in) != 0 || pipe(out) != 0) return;
    pid_ = fork();
    if (pid_ == 0) {
      dup2(in[0], STDIN_FILENO);
      dup2(out[1], STDOUT_FILENO);
      int null = open("/dev/null", O_WRONLY);
      if (null >= 0) dup2(null, STDERR_FILENO);
      close(in[1]);
      close(out[0]);
      setenv("OPTRACE_NO_VERSION_CHECK", "1", 1);
      execl(OPTRACE_BINARY, OPTRACE_BINARY, "mcp", "--source", source.c_str(), static_cast<char*>(nullptr));
      _exit(127);
    }
    close(in[0]);
    close(out[1]);
    to_ = in[1];
    from_ = out[0];
    signal(SIGPIPE, SIG_IGN);
  }
  ~McpProcess() {
    CloseInput();
    if (from_ >= 0) close(from_);
    if (pid_ > 0 && !waited_) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
  }
  bool started() const { return pid_ > 0 && to_ >= 0; }

  void SendRaw(const std::string& bytes) {
    size_t done = 0;
    while (done < bytes.size()) {
      ssize_t n = write(to_, bytes.data() + done, bytes.size() - done);
      if (n <= 0) return;
      done += n;
    }
  }
  void Send(const json& message) { SendRaw(message.dump() + "\n"); }
  void CloseInput() {
    if (to_ >= 0) close(to_);
    to_ = -1;
  }

  // The next answer line, or a discarded value on timeout / EOF.
  json Receive(int timeout_ms = kTimeoutMs) {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
    for (;;) {
      size_t nl = buffer_.find('\n');
      if (nl != std::string::npos) {
        std::string line = buffer_.substr(0, nl);
        buffer_.erase(0, nl + 1);
        return json::parse(line, nullptr, false);
      }
      int left = static_cast<int>(
          std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count());
      if (left <= 0) return json::value_t::discarded;
      pollfd p = {from_, POLLIN, 0};
      if (poll(&p, 1, left) <= 0) continue;
      char chunk[65536];
      ssize_t n = read(from_, chunk, sizeof chunk);
      if (n <= 0) return json::value_t::discarded;
      buffer_.append(chunk, n);
    }
  }
  // Sends a request and returns its answer.
  json Call(const json& id, const std::string& method, const json& params = nullptr, int timeout_ms = kTimeoutMs) {
    json r = {{"jsonrpc", "2.0"}, {"id", id}, {"method", method}};
    if (!params.is_null()) r["params"] = params;
    Send(r);
    return Receive(timeout_ms);
  }
  // Waits for the process to end; its exit status (-1 when it did not end normally).
  int Wait() {
    int status = 0;
    waitpid(pid_, &status, 0);
    waited_ = true;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
  // True when nothing more is written before EOF (the stream is clean).
  bool AtEof() {
    json extra = Receive(kTimeoutMs);
    return extra.is_discarded() && buffer_.empty();
  }

 private:
  pid_t pid_ = -1;
  int to_ = -1, from_ = -1;
  bool waited_ = false;
  std::string buffer_;
};

json Modern(json params = json::object()) {
  params["_meta"][kMcpMetaProtocolVersion] = kMcpModernVersion;
  params["_meta"][kMcpMetaClientCapabilities] = json::object();
  params["_meta"]["io.modelcontextprotocol/clientInfo"] = {{"name", "mcp_test"}, {"version", "1"}};
  return params;
}

json ToolCall(const std::string& name, json arguments) { return {{"name", name}, {"arguments", std::move(arguments)}}; }

std::set<std::string> OpNames(const json& trace) {
  std::set<std::string> names;
  for (const auto& op : trace["ops"]) names.insert(op["name"].get<std::string>());
  return names;
}

std::string Text(const json& answer) { return answer["result"]["content"][0]["text"].get<std::string>(); }

class McpProcessTest : public ::testing::Test {
 protected:
  void SetUp() override {
    REQUIRE_CORPUS("2.6.0");
    root_ = CorpusTree("2.6.0");
  }
  // tools/list's output schemas, by tool name.
  std::map<std::string, json> OutputSchemas(const json& list) {
    std::map<std::string, json> schemas;
    for (const auto& tool : list["result"]["tools"]) schemas[tool["name"]] = tool["outputSchema"];
    return schemas;
  }
  // Checks a tools/call answer against its tool's outputSchema.
  void ExpectConforms(const json& answer, const json& schema) {
    ASSERT_TRUE(answer.contains("result")) << answer.dump().substr(0, 500);
    std::string error;
    EXPECT_TRUE(ValidateJsonSchema(schema, answer["result"]["structuredContent"], &error)) << error;
  }
  std::string root_;
};

TEST_F(McpProcessTest, SessionEraFullSession) {
  McpProcess p(root_);
  ASSERT_TRUE(p.started());
  json init = p.Call(0, "initialize",
                     {{"protocolVersion", "2025-06-18"},
                      {"capabilities", json::object()},
                      {"clientInfo", {{"name", "mcp_test"}, {"version", "1"}}}});
  ASSERT_TRUE(init.contains("result")) << init;
  EXPECT_EQ(init["result"]["protocolVersion"], "2025-06-18");
  EXPECT_EQ(init["result"]["serverInfo"]["name"], "optrace");
  EXPECT_TRUE(init["result"]["capabilities"].contains("tools"));
  EXPECT_NE(init["result"]["instructions"].get<std::string>().find("trace"), std::string::npos);
  p.Send({{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}});

  json list = p.Call(1, "tools/list");
  ASSERT_EQ(list["id"], 1) << "notifications/initialized must get no answer";
  std::vector<std::string> names;
  for (const auto& tool : list["result"]["tools"]) {
    names.push_back(tool["name"]);
    EXPECT_EQ(tool["inputSchema"]["type"], "object");
    EXPECT_EQ(tool["outputSchema"]["type"], "object");
  }
  EXPECT_EQ(names, (std::vector<std::string>{"trace", "find", "op", "source", "scan", "verify", "tests", "profile"}));
  auto schemas = OutputSchemas(list);

  // nn.LSTM reaches cuDNN's _cudnn_rnn (native_functions.yaml:250, dispatch CUDA: _cudnn_rnn),
  // and its backward comes from _cudnn_rnn's derivatives.yaml entry (line 2763).
  json lstm = p.Call(2, "tools/call", ToolCall("trace", {{"query", "nn.LSTM"}}), kFirstCallTimeoutMs);
  ExpectConforms(lstm, schemas["trace"]);
  EXPECT_EQ(lstm["result"]["isError"], false);
  const json& trace = lstm["result"]["structuredContent"];
  EXPECT_EQ(trace["schema"], "optrace.trace/1");
  EXPECT_EQ(trace["query"], "nn.LSTM");
  EXPECT_TRUE(OpNames(trace).count("_cudnn_rnn")) << trace["ops"].dump().substr(0, 2000);
  EXPECT_TRUE(OpNames(trace).count("lstm.input"));
  bool backward_from_cudnn = false;
  for (const auto& b : trace["backward"]) backward_from_cudnn = backward_from_cudnn || b["op"] == "_cudnn_rnn";
  EXPECT_TRUE(backward_from_cudnn) << trace["backward"].dump().substr(0, 2000);
  EXPECT_EQ(trace.dump().find("\"snippet\""), std::string::npos) << "no code snippets in structured output";
  EXPECT_NE(Text(lstm).find("_cudnn_rnn"), std::string::npos);

  json op = p.Call(3, "tools/call", ToolCall("op", {{"name", "aten::add.Tensor"}}));
  ExpectConforms(op, schemas["op"]);
  ASSERT_EQ(op["result"]["structuredContent"]["entries"].size(), 1u);
  const json& add = op["result"]["structuredContent"]["entries"][0];
  EXPECT_EQ(add["name"], "add.Tensor");
  EXPECT_EQ(add["file"], "aten/src/ATen/native/native_functions.yaml");
  EXPECT_EQ(add["line"], 552);
  EXPECT_EQ(add["structured_delegate"], "add.out");
  // The YAML writes [core, pointwise]; torchgen adds pt2_compliant_tag to aten ops, and the model follows torchgen.
  for (const char* tag : {"core", "pointwise"})
    EXPECT_NE(std::find(add["tags"].begin(), add["tags"].end(), tag), add["tags"].end()) << tag;
  EXPECT_EQ(add["variants"], json::array({"function", "method"}));
  EXPECT_EQ(add["dispatch"]["MkldnnCPU"], "mkldnn_add");
  EXPECT_EQ(add["dispatch"]["SparseCUDA"], "add_sparse");
  EXPECT_EQ(add["derivatives"]["file"], "tools/autograd/derivatives.yaml");
  EXPECT_EQ(add["derivatives"]["line"], 229);
  EXPECT_EQ(add["derivatives"]["formulas"]["self"], "handle_r_to_c(self.scalar_type(), grad)");
  EXPECT_NE(Text(op).find("native_functions.yaml:552"), std::string::npos);

  // lstm_cudnn: defined at cudnn/RNN.cpp:2689, registered for CUDA on lstm_cudnn_stub at :2745.
  json find = p.Call(4, "tools/call", ToolCall("find", {{"symbol", "lstm_cudnn"}}));
  ExpectConforms(find, schemas["find"]);
  const json& found = find["result"]["structuredContent"];
  bool defined = false, registered = false;
  for (const auto& d : found["definitions"])
    defined = defined || (d["file"] == "aten/src/ATen/native/cudnn/RNN.cpp" && d["line"] == 2689);
  for (const auto& r : found["registrations"])
    registered = registered || (r["stub"] == "lstm_cudnn_stub" && r["device"] == "CUDA" &&
                                r["file"] == "aten/src/ATen/native/cudnn/RNN.cpp" && r["line"] == 2745);
  EXPECT_TRUE(defined) << found.dump();
  EXPECT_TRUE(registered) << found.dump();

  json source = p.Call(5, "tools/call", ToolCall("source", json::object()));
  ExpectConforms(source, schemas["source"]);
  EXPECT_EQ(source["result"]["structuredContent"]["state"], "ready");
  EXPECT_EQ(source["result"]["structuredContent"]["version"], "2.6.0a0");
  EXPECT_GT(source["result"]["structuredContent"]["counts"]["native_functions"].get<int>(), 2000);

  // scan takes a model file's text: line 5 calls F.softmax, line 6 uses @.
  const std::string model =
      "import torch\nimport torch.nn.functional as F\n\ndef attend(q, k):\n"
      "    w = F.softmax(q, dim=-1)\n    return w @ k\n";
  json scan = p.Call(7, "tools/call", ToolCall("scan", {{"text", model}, {"name", "model.py"}}));
  ExpectConforms(scan, schemas["scan"]);
  ASSERT_FALSE(scan["result"].value("isError", false)) << scan.dump();
  EXPECT_EQ(scan["result"]["structuredContent"]["schema"], "optrace.scan/1");
  std::string ops = scan["result"]["structuredContent"]["ops"].dump();
  EXPECT_NE(ops.find("F.softmax"), std::string::npos) << ops;
  json no_torch = p.Call(8, "tools/call", ToolCall("scan", {{"text", "x = 1\n"}}));
  EXPECT_TRUE(no_torch["result"].value("isError", false));

  EXPECT_EQ(p.Call(6, "ping")["result"], json::object());
  p.CloseInput();
  EXPECT_TRUE(p.AtEof());
  EXPECT_EQ(p.Wait(), 0);
}

TEST_F(McpProcessTest, StatelessEraFullSession) {
  McpProcess p(root_);
  ASSERT_TRUE(p.started());
  json discover = p.Call("d", "server/discover", Modern());
  ASSERT_TRUE(discover.contains("result")) << discover;
  EXPECT_EQ(discover["result"]["resultType"], "complete");
  EXPECT_EQ(discover["result"]["supportedVersions"], json::array({"2026-07-28"}));
  EXPECT_EQ(discover["result"]["_meta"][kMcpMetaServerInfo]["name"], "optrace");

  json list = p.Call("l", "tools/list", Modern());
  EXPECT_EQ(list["result"]["resultType"], "complete");
  EXPECT_EQ(list["result"]["tools"].size(), 8u);  // trace, find, op, source, scan, verify, tests, profile
  auto schemas = OutputSchemas(list);

  // _cudnn_rnn: native_functions.yaml:250, dispatch CUDA: _cudnn_rnn, autogen _cudnn_rnn.out; derivatives.yaml:2763.
  json op = p.Call(1, "tools/call", Modern(ToolCall("op", {{"name", "_cudnn_rnn"}})), kFirstCallTimeoutMs);
  ExpectConforms(op, schemas["op"]);
  EXPECT_EQ(op["result"]["resultType"], "complete");
  const json& entry = op["result"]["structuredContent"]["entries"][0];
  EXPECT_EQ(entry["line"], 250);
  EXPECT_EQ(entry["dispatch"], json({{"CUDA", "_cudnn_rnn"}}));
  EXPECT_EQ(entry["autogen"], json::array({"_cudnn_rnn.out"}));
  EXPECT_EQ(entry["derivatives"]["line"], 2763);

  json trace = p.Call(2, "tools/call", Modern(ToolCall("trace", {{"query", "Tensor.softmax"}, {"backward", false}})));
  ExpectConforms(trace, schemas["trace"]);
  EXPECT_EQ(trace["result"]["resultType"], "complete");
  EXPECT_TRUE(OpNames(trace["result"]["structuredContent"]).count("_softmax")) << Text(trace).substr(0, 2000);

  // lstm_cudnn_stub: DECLARE_DISPATCH at RNN.h:13, DEFINE_DISPATCH at RNN.cpp:1419, called at RNN.cpp:1436;
  // each with its permalink at the tree's tag (version.txt 2.6.0a0).
  const std::string kBlob = "https://github.com/pytorch/pytorch/blob/v2.6.0/";
  json find = p.Call(3, "tools/call", Modern(ToolCall("find", {{"symbol", "lstm_cudnn_stub"}, {"limit", 50}})));
  ExpectConforms(find, schemas["find"]);
  const json& found = find["result"]["structuredContent"];
  ASSERT_EQ(found["stubs"].size(), 1u) << found.dump();
  EXPECT_EQ(
      found["stubs"][0]["declared"],
      json({{"file", "aten/src/ATen/native/RNN.h"}, {"line", 13}, {"url", kBlob + "aten/src/ATen/native/RNN.h#L13"}}));
  EXPECT_EQ(found["stubs"][0]["defined"], json({{"file", "aten/src/ATen/native/RNN.cpp"},
                                                {"line", 1419},
                                                {"url", kBlob + "aten/src/ATen/native/RNN.cpp#L1419"}}));
  bool called = false;
  for (const auto& c : found["callers"])
    called = called || (c["file"] == "aten/src/ATen/native/RNN.cpp" && c["line"] == 1436);
  EXPECT_TRUE(called) << found["callers"].dump();

  json source = p.Call(4, "tools/call", Modern(ToolCall("source", json::object())));
  ExpectConforms(source, schemas["source"]);
  EXPECT_EQ(source["result"]["resultType"], "complete");

  json old = Modern();
  old["_meta"][kMcpMetaProtocolVersion] = "2024-01-01";
  json unsupported = p.Call(5, "tools/list", old);
  EXPECT_EQ(unsupported["error"]["code"], -32022);
  EXPECT_EQ(unsupported["error"]["data"]["requested"], "2024-01-01");
  EXPECT_EQ(p.Call(6, "ping", Modern())["error"]["code"], kMcpMethodNotFound);
  p.CloseInput();
  EXPECT_TRUE(p.AtEof());
  EXPECT_EQ(p.Wait(), 0);
}

TEST_F(McpProcessTest, BadInputNeverEndsTheServer) {
  McpProcess p(root_);
  ASSERT_TRUE(p.started());
  p.Call(0, "initialize", {{"protocolVersion", "2025-11-25"}, {"capabilities", json::object()}});
  p.SendRaw("{\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": \n");
  json parse = p.Receive();
  EXPECT_EQ(parse["error"]["code"], kMcpParseError);
  EXPECT_EQ(parse["id"], 1);  // read before the line broke off: the client can match the answer
  EXPECT_EQ(p.Call(2, "resources/read", {{"uri", "x"}})["error"]["code"], kMcpMethodNotFound);
  // 2025-11-25: arguments that break the schema are tool errors (SEP-1303), answered before any work.
  json no_query = p.Call(3, "tools/call", ToolCall("trace", {{"depth", 3}}));
  EXPECT_EQ(no_query["result"]["isError"], true) << no_query;
  EXPECT_NE(Text(no_query).find("missing required property 'query'"), std::string::npos);
  json bad_device = p.Call(4, "tools/call", ToolCall("trace", {{"query", "nn.LSTM"}, {"device", "tpu"}}));
  EXPECT_EQ(bad_device["result"]["isError"], true) << bad_device;
  // issue 16 #2 / 18 #13: maxLength holds for schemas built in C++ too; a
  // 100 KB query is refused at once instead of being looked up for seconds.
  for (const char* tool : {"trace", "find", "op"}) {
    const char* key = std::string(tool) == "trace" ? "query" : std::string(tool) == "find" ? "symbol" : "name";
    json long_query = p.Call(40, "tools/call", ToolCall(tool, {{key, std::string(100000, 'x')}}));
    EXPECT_EQ(long_query["result"]["isError"], true) << tool;
    EXPECT_NE(Text(long_query).find("must be at most 8192 characters"), std::string::npos) << Text(long_query);
  }
  // issue 18 #2: a 200,000-deep array crashed the server (SIGSEGV).
  const size_t deep = 200000;
  p.SendRaw(R"({"jsonrpc":"2.0","id":41,"method":"ping","params":{"x":)" + std::string(deep, '[') +
            std::string(deep, ']') + "}}\n");
  json too_deep = p.Receive();
  EXPECT_EQ(too_deep["error"]["code"], kMcpInvalidRequest);
  EXPECT_EQ(too_deep["id"], 41);
  // issue 16 #2: a lone surrogate was answered with id null, and the client hung.
  p.SendRaw(
      R"({"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"name":"trace","arguments":{"query":"\uD800"}}})"
      "\n");
  json surrogate = p.Receive();
  EXPECT_EQ(surrogate["id"], 42);
  EXPECT_EQ(surrogate["result"]["isError"], true) << surrogate;
  json unknown = p.Call(5, "tools/call", ToolCall("grep", {{"pattern", "lstm"}}));
  EXPECT_EQ(unknown["error"]["code"], kMcpInvalidParams);
  EXPECT_EQ(unknown["error"]["message"], "Unknown tool: grep");
  std::string huge =
      R"({"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"trace","arguments":{"query":")" +
      std::string(McpServer::kMaxLineBytes, 'x') + "\"}}}\n";
  p.SendRaw(huge);
  json too_big = p.Receive();
  EXPECT_EQ(too_big["error"]["code"], kMcpInvalidRequest);
  EXPECT_EQ(too_big["id"], 6);  // the line is not kept, but its id is read as it streams by
  p.SendRaw(std::string("\x00\xff garbage\n", 11));
  EXPECT_EQ(p.Receive()["error"]["code"], kMcpParseError);

  // A query naming nothing is a tool error the model can act on, with suggestions.
  json missing = p.Call(7, "tools/call", ToolCall("trace", {{"query", "nn.LSTMM"}}), kFirstCallTimeoutMs);
  ASSERT_TRUE(missing.contains("result")) << missing;
  EXPECT_EQ(missing["result"]["isError"], true);
  EXPECT_NE(Text(missing).find("nn.LSTM"), std::string::npos) << Text(missing);
  json no_op = p.Call(8, "tools/call", ToolCall("op", {{"name", "aten::add.Tensr"}}));
  EXPECT_EQ(no_op["result"]["isError"], true);
  EXPECT_NE(Text(no_op).find("add.Tensor"), std::string::npos) << Text(no_op);
  json no_symbol = p.Call(80, "tools/call", ToolCall("find", {{"symbol", "softmax_warp_forwrd"}}));
  EXPECT_EQ(no_symbol["result"]["isError"], true);
  EXPECT_NE(Text(no_symbol).find("softmax_warp_forward"), std::string::npos) << Text(no_symbol);
  EXPECT_EQ(no_symbol["result"]["structuredContent"]["suggestions"][0], "softmax_warp_forward");

  // Still serving.
  json ok = p.Call(9, "tools/call", ToolCall("op", {{"name", "mm"}}));
  EXPECT_EQ(ok["result"]["isError"], false);
  p.CloseInput();
  EXPECT_TRUE(p.AtEof());
  EXPECT_EQ(p.Wait(), 0);
}

TEST_F(McpProcessTest, PipelinedRequestsEachGetExactlyOneAnswer) {
  McpProcess p(root_);
  ASSERT_TRUE(p.started());
  std::string batch =
      json({{"jsonrpc", "2.0"}, {"id", 0}, {"method", "initialize"}, {"params", {{"protocolVersion", "2025-06-18"}}}})
          .dump() +
      "\n";
  const std::vector<std::string> queries = {"nn.LSTM",   "nn.LayerNorm",   "F.scaled_dot_product_attention",
                                            "torch.mm",  "Tensor.softmax", "aten::add.Tensor",
                                            "nn.Conv2d", "torch.cumsum"};
  for (size_t i = 0; i < queries.size(); ++i) {
    batch += json({{"jsonrpc", "2.0"},
                   {"id", "q" + std::to_string(i)},
                   {"method", "tools/call"},
                   {"params", ToolCall("trace", {{"query", queries[i]}})}})
                 .dump() +
             "\n";
    batch += json({{"jsonrpc", "2.0"}, {"id", static_cast<int>(100 + i)}, {"method", "ping"}}).dump() + "\n";
  }
  p.SendRaw(batch);
  p.CloseInput();  // EOF right behind the requests: all must still be answered
  std::map<std::string, json> answers;
  for (size_t i = 0; i < 1 + 2 * queries.size(); ++i) {
    json a = p.Receive(kFirstCallTimeoutMs);
    ASSERT_FALSE(a.is_discarded()) << "only " << i << " answers";
    std::string id = a["id"].dump();
    EXPECT_FALSE(answers.count(id)) << "two answers for " << id;
    answers[id] = a;
  }
  for (size_t i = 0; i < queries.size(); ++i) {
    const json& a = answers["\"q" + std::to_string(i) + "\""];
    ASSERT_TRUE(a.contains("result")) << queries[i] << ": " << a.dump().substr(0, 300);
    EXPECT_EQ(a["result"]["structuredContent"]["query"], queries[i]);
    EXPECT_EQ(answers[std::to_string(100 + i)]["result"], json::object());
  }
  EXPECT_TRUE(p.AtEof());
  EXPECT_EQ(p.Wait(), 0);
}

TEST_F(McpProcessTest, EofMidSessionExitsCleanly) {
  McpProcess p(root_);
  ASSERT_TRUE(p.started());
  p.Call(0, "initialize", {{"protocolVersion", "2025-06-18"}});
  // Half a message, then EOF: it is answered as what it is (not JSON), then the process ends.
  p.SendRaw(R"({"jsonrpc":"2.0","id":1,"method":"tools/ca)");
  p.CloseInput();
  EXPECT_EQ(p.Receive()["error"]["code"], kMcpParseError);
  EXPECT_TRUE(p.AtEof());
  EXPECT_EQ(p.Wait(), 0);
}

TEST(McpProcessNoCheckout, ServesAndSaysWhy) {
  McpProcess p("/nonexistent/pytorch");
  ASSERT_TRUE(p.started());
  json init = p.Call(0, "initialize", {{"protocolVersion", "2025-11-25"}});
  EXPECT_EQ(init["result"]["protocolVersion"], "2025-11-25");
  json trace = p.Call(1, "tools/call", ToolCall("trace", {{"query", "nn.LSTM"}}));
  EXPECT_EQ(trace["result"]["isError"], true);
  EXPECT_NE(Text(trace).find("checkout"), std::string::npos) << Text(trace);
  json source = p.Call(2, "tools/call", ToolCall("source", json::object()));
  EXPECT_EQ(source["result"]["structuredContent"]["state"], "failed");
  p.CloseInput();
  EXPECT_TRUE(p.AtEof());
  EXPECT_EQ(p.Wait(), 0);
}

}  // namespace
}  // namespace optrace

namespace optrace {
namespace {

// The server watches the checkout: an edit made between two calls shows up
// in the second (host_softmax: SoftMax.cu:820 in 2.6.0, 823 once three lines
// are put above it), and `source` says the index was reloaded once.
TEST(McpFreshness, AnEditShowsUpInTheNextCall) {
  REQUIRE_CORPUS("2.6.0");
  namespace fs = std::filesystem;
  const fs::path base = fs::temp_directory_path() / ("optrace-mcp-fresh-" + std::to_string(::getpid()));
  fs::remove_all(base);
  CopySoftmaxSlice(CorpusTree("2.6.0"), (base / "tree").string());
  fs::create_directories(base / "cache");
  const char* old_cache = std::getenv("XDG_CACHE_HOME");
  const std::string saved = old_cache ? old_cache : "";
  setenv("XDG_CACHE_HOME", (base / "cache").c_str(), 1);
  {
    McpProcess p((base / "tree").string());
    ASSERT_TRUE(p.started());
    auto host_softmax_line = [&](int id) -> int {
      json find = p.Call(id, "tools/call", Modern(ToolCall("find", {{"symbol", "host_softmax"}})), kFirstCallTimeoutMs);
      for (const auto& d : find["result"]["structuredContent"]["definitions"])
        if (d["file"] == "aten/src/ATen/native/cuda/SoftMax.cu") return d["line"].get<int>();
      ADD_FAILURE() << find.dump().substr(0, 1000);
      return -1;
    };
    EXPECT_EQ(host_softmax_line(1), 820);
    const fs::path cu = base / "tree/aten/src/ATen/native/cuda/SoftMax.cu";
    const std::string text = ReadText(cu.string());
    std::ofstream(cu, std::ios::binary) << "// one\n// two\n// three\n" << text;
    EXPECT_EQ(host_softmax_line(2), 823);
    json source = p.Call(3, "tools/call", Modern(ToolCall("source", json::object())));
    const json& s = source["result"]["structuredContent"];
    EXPECT_EQ(s["watching"], true) << s.dump();
    EXPECT_EQ(s["reloads"], 1) << s.dump();
    EXPECT_EQ(host_softmax_line(4), 823);  // no edit since: no reload
  }
  if (old_cache) setenv("XDG_CACHE_HOME", saved.c_str(), 1);
  else unsetenv("XDG_CACHE_HOME");
  fs::remove_all(base);
}

}  // namespace
}  // namespace optrace
