// Index store benchmarks on the real 2.6.0 tree (~/.cache/optrace-corpus):
// a cold full build that writes the image, and a warm load of a fresh image
// (map, stat walk of ~4000 files and ~600 directories, moving the indexes
// out). Images go to a temporary directory, never the real cache.
#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include <benchmark/benchmark.h>

#include "testing/corpus_path.h"

#include "base/checkout.h"
#include "index/index.h"
#include "index/store.h"
#include "index/store_arena.h"

namespace optrace {
namespace {

std::string CorpusRoot() { return CorpusTree("2.6.0"); }

std::string BenchStoreDir() {
  static const std::string dir = [] {
    std::string d = std::filesystem::temp_directory_path() / ("optrace-store-bench-" + std::to_string(::getpid()));
    std::filesystem::create_directories(d);
    return d;
  }();
  return dir;
}

bool OpenTree(benchmark::State& state, StoreTree* tree) {
  Checkout checkout;
  Status s = FindCheckout(CorpusRoot(), &checkout);
  if (!s.ok()) {
    state.SkipWithError(s.message().c_str());
    return false;
  }
  *tree = {checkout.root, checkout.version, checkout.disk};
  return true;
}

// Loads and drops the result without destroying it (an image-backed index is
// released whole, as a process exit does), then frees the arenas.
void LoadOnce(const StoreTree& tree, const StoreOptions& options, StoreReport* report) {
  Index* index = new Index;
  Status s = LoadWithStore(tree, options, index, report);
  benchmark::DoNotOptimize(index->cpp.functions().size());
  ReleaseArenaMemory();
  if (!s.ok()) std::abort();
}

void BM_ColdFullIndex(benchmark::State& state) {
  StoreTree tree;
  if (!OpenTree(state, &tree)) return;
  StoreOptions options;
  options.dir = BenchStoreDir();
  options.rebuild = true;
  StoreReport report;
  for (auto _ : state) LoadOnce(tree, options, &report);
  state.counters["image_MiB"] = report.image_bytes / 1048576.0;
  state.counters["scan_ms"] = report.scan_ms;
  state.counters["merge_ms"] = report.merge_ms;
  state.counters["write_ms"] = report.write_ms;
}
BENCHMARK(BM_ColdFullIndex)->Unit(benchmark::kMillisecond)->Iterations(1)->UseRealTime();

void BM_WarmLoad(benchmark::State& state) {
  StoreTree tree;
  if (!OpenTree(state, &tree)) return;
  StoreOptions options;
  options.dir = BenchStoreDir();
  StoreReport report;
  LoadOnce(tree, options, &report);  // make sure a fresh image exists
  for (auto _ : state) {
    LoadOnce(tree, options, &report);
    if (report.action != StoreReport::Action::kLoaded) state.SkipWithError("the image was not fresh");
  }
  state.counters["check_ms"] = report.check_ms;
}
BENCHMARK(BM_WarmLoad)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace optrace
