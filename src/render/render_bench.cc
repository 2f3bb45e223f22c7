// Benchmarks for the renderers on real 2.6.0 traces (nn.LSTM, the biggest
// common one; nn.MultiheadAttention; torch.flip, a small one): the JSON face
// written directly (RenderJson, what `optrace trace --json` prints) against
// building the ordered_json value and dumping it (TraceToJson + DumpJson,
// what the MCP server and `scan` use), and the text face. The goal: JSON
// rendering well under 1 ms per trace, a small part of a 20 ms process.
#include <cstdlib>
#include <map>
#include <memory>
#include <string>

#include <benchmark/benchmark.h>

#include "testing/corpus_path.h"

#include "render/render.h"
#include "trace/trace.h"

namespace optrace {
namespace {

// Traces once per query; null when the tree is missing.
const Trace* TraceOf(const std::string& query) {
  static std::unique_ptr<Index> index;
  static std::map<std::string, Trace> traces;
  if (!index) {
    Checkout checkout;
    if (!FindCheckout(CorpusTree("2.6.0"), &checkout).ok()) return nullptr;
    index = std::make_unique<Index>();
    LoadOptions options;
    options.use_store = false;
    if (!LoadIndex(checkout, options, index.get()).ok()) return nullptr;
  }
  auto it = traces.find(query);
  if (it == traces.end()) {
    TraceOptions options;  // with snippets, as the text face has them (JSON never writes them)
    Trace t;
    TraceQuery(*index, query, options, &t);
    it = traces.emplace(query, std::move(t)).first;
  }
  return &it->second;
}

const char* kQueries[] = {"nn.LSTM", "nn.MultiheadAttention", "torch.flip"};

template <typename Render>
void RunRender(benchmark::State& state, Render render) {
  const Trace* t = TraceOf(kQueries[state.range(0)]);
  if (!t) {
    state.SkipWithError("missing corpus tree 2.6.0: run scripts/corpus.sh");
    return;
  }
  size_t bytes = 0;
  for (auto _ : state) {
    std::string out = render(*t);
    bytes = out.size();
    benchmark::DoNotOptimize(out);
  }
  state.SetLabel(kQueries[state.range(0)]);
  state.counters["bytes"] = static_cast<double>(bytes);
}

void BM_RenderJson(benchmark::State& state) {
  RunRender(state, [](const Trace& t) { return RenderJson(t); });
}
BENCHMARK(BM_RenderJson)->DenseRange(0, 2)->Unit(benchmark::kMicrosecond);

void BM_TraceToJsonDump(benchmark::State& state) {
  RunRender(state, [](const Trace& t) { return DumpJson(TraceToJson(t)); });
}
BENCHMARK(BM_TraceToJsonDump)->DenseRange(0, 2)->Unit(benchmark::kMicrosecond);

void BM_RenderText(benchmark::State& state) {
  RunRender(state, [](const Trace& t) { return RenderText(t, RenderOptions{}); });
}
BENCHMARK(BM_RenderText)->DenseRange(0, 2)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace optrace
