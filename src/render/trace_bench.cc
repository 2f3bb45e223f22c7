// Per-query cost of the tracer itself, with the index already in memory (as
// the daemon and the MCP server hold it): TraceQuery alone, and TraceQuery
// plus the text rendering a warm `optrace trace` prints. Queries: the public
// accuracy cases (OPTRACE_ORACLE, default bench/oracle-2.6.0-public.json);
// tree: ${OPTRACE_CORPUS}/pytorch-2.6.0. Counters are per query in ms:
// median, p90 and max of the best pass and (cold_) of the first, plus the
// slowest query's position in the oracle; OPTRACE_BENCH_VERBOSE=1 lists them.
// Target for a whole warm process (~3 ms start + this): max <= 60 ms.
// BM_TraceEveryOp: `trace --all`'s traces on one thread, a first and a warm pass;
// BM_TraceAndRenderJsonEveryOp the same with each trace rendered as --all --json prints it.
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>

#include <benchmark/benchmark.h>

#include <nlohmann/json.hpp>
#include "testing/corpus_path.h"

#include "base/checkout.h"
#include "render/render.h"
#include "trace/trace.h"

namespace optrace {
namespace {

std::string Env(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return v && *v ? v : fallback;
}

struct Loaded {
  Index index;
  std::vector<std::string> queries;
  std::string error;
};

Loaded& Corpus() {
  static Loaded* loaded = [] {
    auto* l = new Loaded;  // never destroyed: a mapped store index is freed page by page
    std::ifstream in(Env("OPTRACE_ORACLE", "bench/oracle-2.6.0-public.json"));
    nlohmann::json oracle = nlohmann::json::parse(in, nullptr, false);
    if (oracle.is_discarded() || !oracle.contains("cases")) {
      l->error = "no oracle file: set OPTRACE_ORACLE to oracle-2.6.0-public.json";
      return l;
    }
    for (const auto& [_, c] : oracle["cases"].items()) l->queries.push_back(c["query"]);
    Checkout checkout;
    Status s = FindCheckout(CorpusTree("2.6.0"), &checkout);
    if (s.ok()) s = LoadIndex(checkout, LoadOptions{}, &l->index);
    if (!s.ok()) l->error = s.message();
    return l;
  }();
  return *loaded;
}

// Runs every query once per iteration; `render` adds the text rendering.
void RunQueries(benchmark::State& state, bool render) {
  Loaded& l = Corpus();
  if (!l.error.empty()) {
    state.SkipWithError(l.error.c_str());
    return;
  }
  TraceOptions options;  // the CLI's text defaults: snippets on
  RenderOptions text;
  // Per query, the first pass (`cold`: in the first benchmark of a process,
  // the tracer's walk cache kept with the index is still empty, as in a
  // fresh daemon) and the best of the iterations (the tracer's own cost once
  // the cache holds what the query walks, without the noise of other
  // processes on a shared machine).
  std::vector<double> best(l.queries.size(), 1e300), cold;
  for (auto _ : state) {
    for (size_t i = 0; i < l.queries.size(); ++i) {
      auto start = std::chrono::steady_clock::now();
      Trace trace;
      Status s = TraceQuery(l.index, l.queries[i], options, &trace);
      std::string out = render ? RenderText(trace, text) : std::string();
      double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
      best[i] = std::min(best[i], ms);
      if (cold.size() < l.queries.size()) cold.push_back(ms);
      benchmark::DoNotOptimize(s);
      benchmark::DoNotOptimize(out);
    }
  }
  auto report = [&](const std::vector<double>& ms, const std::string& prefix) {
    std::vector<double> sorted = ms;
    std::sort(sorted.begin(), sorted.end());
    auto at = [&](double q) { return sorted[std::min(sorted.size() - 1, static_cast<size_t>(q * sorted.size()))]; };
    state.counters[prefix + "median_ms"] = at(0.5);
    state.counters[prefix + "p90_ms"] = at(0.9);
    state.counters[prefix + "max_ms"] = sorted.back();
  };
  report(best, "");
  report(cold, "cold_");
  state.counters["queries"] = static_cast<double>(best.size());
  state.counters["slowest"] = static_cast<double>(std::max_element(best.begin(), best.end()) - best.begin());
  if (Env("OPTRACE_BENCH_VERBOSE", "").size()) {
    for (size_t i = 0; i < best.size(); ++i) {
      std::fprintf(stderr, "%8.2f ms best %8.2f ms first  %s\n", best[i], cold[i], l.queries[i].c_str());
    }
  }
}

void BM_TraceQuery(benchmark::State& state) { RunQueries(state, false); }
void BM_TraceAndRenderText(benchmark::State& state) { RunQueries(state, true); }

// `trace --all`'s tracing, on one thread: every op of native_functions.yaml
// traced (JSON options: no snippets) on one index, twice. The first pass
// fills what the traces share (remembered expansions, launch and edge
// annotations: trace/shared_annotations.h; the guard readers' walks); the
// second is what a warm daemon pays per op. With `render_json`, each trace
// is rendered as `trace --all --json` prints it (about 15% of its CPU).
// Counters: total seconds of each pass, ms per op, and the JSON's bytes.
void TraceEveryOp(benchmark::State& state, bool render_json) {
  Loaded& l = Corpus();
  if (!l.error.empty()) {
    state.SkipWithError(l.error.c_str());
    return;
  }
  TraceOptions options;
  options.snippets = false;
  const std::vector<std::string> ops = AllOpQueries(l.index);
  std::vector<double> pass_s;
  size_t json_bytes = 0;
  for (auto _ : state) {
    auto start = std::chrono::steady_clock::now();
    json_bytes = 0;
    for (const std::string& op : ops) {
      Trace trace;
      benchmark::DoNotOptimize(TraceQuery(l.index, op, options, &trace));
      if (render_json) json_bytes += RenderJson(trace, -1).size();
    }
    pass_s.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  state.counters["ops"] = static_cast<double>(ops.size());
  state.counters["first_pass_s"] = pass_s.front();
  state.counters["last_pass_s"] = pass_s.back();
  state.counters["last_ms_per_op"] = pass_s.back() * 1000 / static_cast<double>(ops.size());
  if (render_json) state.counters["json_mb"] = static_cast<double>(json_bytes) / 1e6;
}

void BM_TraceEveryOp(benchmark::State& state) { TraceEveryOp(state, false); }
void BM_TraceAndRenderJsonEveryOp(benchmark::State& state) { TraceEveryOp(state, true); }

BENCHMARK(BM_TraceQuery)->Unit(benchmark::kMillisecond)->Iterations(5);
BENCHMARK(BM_TraceAndRenderText)->Unit(benchmark::kMillisecond)->Iterations(5);
BENCHMARK(BM_TraceEveryOp)->Unit(benchmark::kMillisecond)->Iterations(2);
BENCHMARK(BM_TraceAndRenderJsonEveryOp)->Unit(benchmark::kMillisecond)->Iterations(2);

}  // namespace
}  // namespace optrace
