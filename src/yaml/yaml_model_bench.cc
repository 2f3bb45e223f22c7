// Benchmarks of the YAML model on the real 2.6.0 tree: the libyaml tree
// alone, and the whole model (native_functions.yaml + tags.yaml +
// derivatives.yaml, with torchgen's generated variants). Goal: well under
// 100 ms for the whole model.
#include <benchmark/benchmark.h>

#include "base/disk.h"
#include "testing/corpus_path.h"
#include "yaml/yaml_model.h"
#include "yaml/yaml_tree.h"

namespace optrace {
namespace {

struct Texts {
  std::string native, tags, derivatives;
  bool ok = false;
};

const Texts& Corpus260() {
  static Texts t = [] {
    Texts t;
    RealDisk disk(CorpusTree("2.6.0"));
    t.ok = disk.ReadFile(kNativeFunctionsPath, &t.native).ok() && disk.ReadFile(kTagsPath, &t.tags).ok() &&
           disk.ReadFile(kDerivativesPath, &t.derivatives).ok();
    return t;
  }();
  return t;
}

void BM_YamlTreeNativeFunctions(benchmark::State& state) {
  const Texts& t = Corpus260();
  if (!t.ok) return state.SkipWithError("missing corpus tree 2.6.0 (scripts/corpus.sh)");
  for (auto _ : state) {
    YamlNode root;
    Status s = ParseYaml(t.native, kNativeFunctionsPath, &root);
    benchmark::DoNotOptimize(root.items.size());
    if (!s.ok()) state.SkipWithError(s.message().c_str());
  }
  state.SetBytesProcessed(state.iterations() * t.native.size());
}
BENCHMARK(BM_YamlTreeNativeFunctions)->Unit(benchmark::kMillisecond);

void BM_YamlModelLoad260(benchmark::State& state) {
  const Texts& t = Corpus260();
  if (!t.ok) return state.SkipWithError("missing corpus tree 2.6.0 (scripts/corpus.sh)");
  for (auto _ : state) {
    YamlModel m;
    Status s = YamlModel::LoadFromText(t.native, t.tags, t.derivatives, &m, "2.6.0");
    benchmark::DoNotOptimize(m.functions().size());
    if (!s.ok()) state.SkipWithError(s.message().c_str());
  }
}
BENCHMARK(BM_YamlModelLoad260)->Unit(benchmark::kMillisecond);

void BM_YamlModelLoadFromDisk260(benchmark::State& state) {
  RealDisk disk(CorpusTree("2.6.0"));
  for (auto _ : state) {
    YamlModel m;
    Status s = YamlModel::Load(disk, &m);
    benchmark::DoNotOptimize(m.functions().size());
    if (!s.ok()) state.SkipWithError(s.message().c_str());
  }
}
BENCHMARK(BM_YamlModelLoadFromDisk260)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace optrace
