// Benchmarks for the Python index: building it over all of torch/ in the
// 2.6.0 tree (goal: under 0.5 s wall on 2 cores, under 200 MB), tokenizing
// alone, and resolving names. Peak RSS comes from getrusage and is reported
// as a counter (it is the process peak, so run this filter on its own).
#include <sys/resource.h>

#include <cstdlib>
#include <string>

#include <benchmark/benchmark.h>

#include "testing/corpus_path.h"

#include "py/py_index.h"
#include "py/py_tokenizer.h"

namespace optrace {
namespace {

std::string Tree260() { return CorpusTree("2.6.0"); }

double PeakRssMb() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return static_cast<double>(ru.ru_maxrss) / 1024.0;  // Linux reports KiB
}

void BM_PyIndexBuild(benchmark::State& state) {
  RealDisk disk(Tree260());
  size_t modules = 0;
  for (auto _ : state) {
    PyIndex index = PyIndex::Build(disk, static_cast<unsigned>(state.range(0)));
    modules = index.modules().size();
    benchmark::DoNotOptimize(modules);
  }
  state.counters["modules"] = static_cast<double>(modules);
  state.counters["peak_rss_mb"] = PeakRssMb();
}
BENCHMARK(BM_PyIndexBuild)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();

// Tokenizing only, over the text of torch/ already in memory.
void BM_PyTokenize(benchmark::State& state) {
  RealDisk disk(Tree260());
  std::vector<std::string> files, texts;
  std::vector<SkippedPath> skipped;
  disk.ListFiles(
      "torch", [](std::string_view p) { return p.size() > 3 && p.substr(p.size() - 3) == ".py"; }, &files, &skipped);
  size_t bytes = 0;
  for (const auto& f : files) {
    std::string text;
    if (disk.ReadFile(f, &text).ok()) {
      bytes += text.size();
      texts.push_back(std::move(text));
    }
  }
  std::vector<PyToken> tokens;
  for (auto _ : state) {
    size_t n = 0;
    for (const auto& t : texts) {
      TokenizePy(t, &tokens);
      n += tokens.size();
    }
    benchmark::DoNotOptimize(n);
  }
  state.SetBytesProcessed(static_cast<int64_t>(bytes) * state.iterations());
}
BENCHMARK(BM_PyTokenize)->Unit(benchmark::kMillisecond);

void BM_PyResolve(benchmark::State& state) {
  RealDisk disk(Tree260());
  PyIndex index = PyIndex::Build(disk, 2);
  const char* names[] = {"torch.nn.LSTM", "torch.nn.functional.softmax", "torch.Tensor.split", "torch.einsum",
                         "torch.nn.ReLU6.forward"};
  for (auto _ : state)
    for (const char* n : names) benchmark::DoNotOptimize(index.Resolve(n));
}
BENCHMARK(BM_PyResolve)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace optrace
