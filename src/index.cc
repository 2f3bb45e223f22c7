// Loading the three indexes of a checkout. Without a usable persisted store
// (store.h) they are built from the tree: the YAML model, then the C++ and
// Python scans (each parallel inside).
#include "index.h"

#include <cstdlib>
#include <mutex>
#include <unordered_map>

#include "store.h"

namespace optrace {

namespace {

// Snippet reads are few per trace but may hit one file many times: keep
// the file texts of this process.
struct SnippetCache {
  std::mutex mu;
  std::unordered_map<std::string, std::string> texts;
};

SnippetCache& Cache() {
  static SnippetCache cache;
  return cache;
}

}  // namespace

std::string Index::Snippet(const std::string& file, int line, int lines) const {
  if (!disk || line <= 0 || lines <= 0) return "";
  SnippetCache& cache = Cache();
  std::lock_guard<std::mutex> lock(cache.mu);
  auto key = root + "\n" + file;
  auto it = cache.texts.find(key);
  if (it == cache.texts.end()) {
    std::string text;
    if (!disk->ReadFile(file, &text).ok() || LooksBinary(text)) text.clear();
    it = cache.texts.emplace(key, std::move(text)).first;
  }
  const std::string& text = it->second;
  size_t pos = 0;
  for (int l = 1; l < line && pos != std::string::npos; ++l) {
    pos = text.find('\n', pos);
    if (pos != std::string::npos) ++pos;
  }
  if (pos == std::string::npos || pos >= text.size()) return "";
  size_t end = pos;
  for (int l = 0; l < lines && end != std::string::npos; ++l) {
    end = text.find('\n', end);
    if (end != std::string::npos && l + 1 < lines) ++end;
  }
  return text.substr(pos, end == std::string::npos ? std::string::npos : end - pos);
}

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

Status LoadIndex(const Checkout& checkout, const LoadOptions& options, Index* out) {
  // OPTRACE_NO_STORE=1: build from the tree every time (benchmarks, debugging).
  const char* no_store = std::getenv("OPTRACE_NO_STORE");
  if (!options.use_store || (no_store && *no_store && *no_store != '0'))
    return BuildIndex(checkout, options.threads, out);
  StoreOptions store;
  store.progress = options.progress;
  store.threads = options.threads;
  StoreReport report;
  return LoadWithStore({checkout.root, checkout.version, checkout.disk}, store, out, &report);
}

}  // namespace optrace
