// Loading the three indexes of a checkout (LoadIndex, declared in index.h):
// through the persistent store (store.h), or, without it, built from the
// tree: the YAML model, then the C++ and Python scans (each parallel inside).
// Kept apart from index.cc so that the Index does not depend on the store
// that saves it (store.h -> index.h, never back).
#include <cstdlib>

#include "index/index.h"
#include "index/store.h"

namespace optrace {

namespace {

Status BuildIndex(const Checkout& checkout, unsigned threads, Index* out) {
  out->root = checkout.root;
  out->version = checkout.version;
  out->disk = checkout.disk;
  Status s = YamlModel::Load(*checkout.disk, &out->yaml);
  if (!s.ok()) return s;
  out->cpp = CppIndex::Build(*checkout.disk, threads);
  out->py = PyIndex::Build(*checkout.disk, threads);
  return Status::Ok();
}

}  // namespace

Status LoadIndex(const Checkout& checkout, const LoadOptions& options, Index* out) {
  // OPTRACE_NO_STORE=1: build from the tree every time (benchmarks, debugging).
  const char* no_store = std::getenv("OPTRACE_NO_STORE");
  if (!options.use_store || (no_store && *no_store && *no_store != '0'))
    return BuildIndex(checkout, options.threads, out);
  StoreOptions store;
  store.dir = options.store_dir;
  store.progress = options.progress;
  store.threads = options.threads;
  store.copy = options.resident;
  StoreReport report;
  return LoadWithStore({checkout.root, checkout.version, checkout.disk}, store, out, &report);
}

}  // namespace optrace
