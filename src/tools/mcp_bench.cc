// Latency of a `trace` tools/call inside a running MCP server: the line in,
// validated, traced, rendered (markdown + optrace.trace/1) and serialised,
// with the index already loaded, as an agent sees it after the first call.
// Queries: the public accuracy cases (OPTRACE_ORACLE, default
// bench/oracle-2.6.0-public.json); tree: ${OPTRACE_CORPUS}/pytorch-2.6.0.
// Target: median <= 5 ms.
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>

#include <benchmark/benchmark.h>

#include "testing/corpus_path.h"

#include "mcp/mcp_server.h"
#include "tools/mcp_tools.h"

namespace optrace {
namespace {

using json = nlohmann::ordered_json;

std::string Env(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return v && *v ? v : fallback;
}

struct Served {
  std::unique_ptr<OptraceTools> tools;
  std::unique_ptr<McpServer> server;
  std::vector<std::string> requests;  // one tools/call line per public query
  std::string error;
};

Served& Server() {
  static Served* served = [] {
    auto* s = new Served;
    std::ifstream in(Env("OPTRACE_ORACLE", "bench/oracle-2.6.0-public.json"));
    json oracle = json::parse(in, nullptr, false);
    if (oracle.is_discarded() || !oracle.contains("cases")) {
      s->error = "no oracle file: set OPTRACE_ORACLE to oracle-2.6.0-public.json";
      return s;
    }
    int id = 0;
    for (const auto& [_, c] : oracle["cases"].items()) {
      json request = {{"jsonrpc", "2.0"}, {"id", ++id}, {"method", "tools/call"}};
      request["params"]["name"] = "trace";
      request["params"]["arguments"]["query"] = c["query"];
      request["params"]["_meta"][kMcpMetaProtocolVersion] = kMcpModernVersion;
      request["params"]["_meta"][kMcpMetaClientCapabilities] = json::object();
      s->requests.push_back(request.dump());
    }
    s->tools = std::make_unique<OptraceTools>(CorpusTree("2.6.0"));
    s->tools->StartLoading();
    if (!s->tools->WaitLoaded(&s->error)) return s;
    s->server = std::make_unique<McpServer>(s->tools.get(), McpServerInfo{});
    return s;
  }();
  return *served;
}

void BM_McpTraceCall(benchmark::State& state) {
  Served& s = Server();
  if (!s.server) {
    state.SkipWithError(s.error.c_str());
    return;
  }
  std::vector<double> ms;
  size_t errors = 0;
  for (auto _ : state) {
    for (const auto& line : s.requests) {
      auto start = std::chrono::steady_clock::now();
      std::optional<std::string> answer = s.server->HandleLine(line);
      ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
      errors += !answer || answer->find("\"isError\":false") == std::string::npos;
      benchmark::DoNotOptimize(answer);
    }
  }
  std::sort(ms.begin(), ms.end());
  state.counters["queries"] = static_cast<double>(s.requests.size());
  state.counters["median_ms"] = ms[ms.size() / 2];
  state.counters["p90_ms"] = ms[ms.size() * 9 / 10];
  state.counters["max_ms"] = ms.back();
  state.counters["tool_errors"] = static_cast<double>(errors / state.iterations());
}
BENCHMARK(BM_McpTraceCall)->Unit(benchmark::kMillisecond)->Iterations(5);

}  // namespace
}  // namespace optrace
