// Benchmarks for the C++/CUDA index: building the whole index of
// aten/src/ATen (PyTorch 2.6.0) on 1 and 2 threads, and lexing/scanning one
// large file. Peak RSS (getrusage) is reported as a counter; the goal is
// < 0.5 s wall on 2 cores and < 200 MB.
#include <sys/resource.h>

#include <cstdlib>
#include <string>

#include <benchmark/benchmark.h>

#include "testing/corpus_path.h"

#include "cpp/cpp_index.h"
#include "cpp/cpp_lexer.h"

namespace optrace {
namespace {

double PeakRssMb() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;  // KiB on Linux
}

void BM_BuildCppIndex260(benchmark::State& state) {
  RealDisk disk(CorpusTree("2.6.0"));
  if (!disk.Exists("version.txt")) {
    state.SkipWithError("missing corpus tree 2.6.0: run scripts/corpus.sh");
    return;
  }
  size_t functions = 0;
  for (auto _ : state) {
    CppIndex index = CppIndex::Build(disk, static_cast<unsigned>(state.range(0)));
    functions = index.functions().size();
    benchmark::DoNotOptimize(functions);
  }
  state.counters["functions"] = static_cast<double>(functions);
  state.counters["peak_rss_mb"] = PeakRssMb();
}
BENCHMARK(BM_BuildCppIndex260)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();

std::string ReadCorpusFile(const std::string& path) {
  RealDisk disk(CorpusTree("2.6.0"));
  std::string text;
  if (!disk.ReadFile(path, &text).ok()) text.clear();
  return text;
}

// The largest CUDA source in the tree's native/cuda: lexing alone, then the full scan.
const char kBigFile[] = "aten/src/ATen/native/cuda/SoftMax.cu";

void BM_LexBigFile(benchmark::State& state) {
  std::string text = ReadCorpusFile(kBigFile);
  if (text.empty()) {
    state.SkipWithError("missing corpus file");
    return;
  }
  LexedFile lexed;
  for (auto _ : state) {
    LexCpp(text, &lexed);
    benchmark::DoNotOptimize(lexed.tokens.data());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * text.size()));
}
BENCHMARK(BM_LexBigFile);

void BM_ScanBigFile(benchmark::State& state) {
  std::string text = ReadCorpusFile(kBigFile);
  if (text.empty()) {
    state.SkipWithError("missing corpus file");
    return;
  }
  for (auto _ : state) {
    CppFileRecords records = ScanCppFile(kBigFile, text);
    benchmark::DoNotOptimize(records.calls.data());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * text.size()));
}
BENCHMARK(BM_ScanBigFile);

}  // namespace
}  // namespace optrace
