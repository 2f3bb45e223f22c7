// The Index's own services: snippets from a per-process cache of file
// texts. Loading it (LoadIndex) is load_index.cc's, on top of the store.
#include "index/index.h"

#include <cstdlib>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>


namespace optrace {

namespace {

// Snippets and function bodies are read many times per trace (the tracer
// looks for stub names in every function it walks): keep each file's text
// and the offsets of its lines for this process.
struct CachedFile {
  std::string text;
  std::vector<size_t> line_starts;  // offset of line N at [N - 1]
};

struct SnippetCache {
  std::mutex mu;
  std::unordered_map<std::string, std::shared_ptr<const CachedFile>> files;
};

SnippetCache& Cache() {
  static SnippetCache cache;
  return cache;
}

// The cached text of a checkout file ("" when unreadable or binary).
std::shared_ptr<const CachedFile> Cached(const Index& index, const std::string& file) {
  if (!index.disk) return nullptr;
  SnippetCache& cache = Cache();
  std::lock_guard<std::mutex> lock(cache.mu);
  auto& slot = cache.files[index.root + "\n" + file];
  if (!slot) {
    auto f = std::make_shared<CachedFile>();
    if (!index.disk->ReadFile(file, &f->text).ok() || LooksBinary(f->text)) f->text.clear();
    f->line_starts.push_back(0);
    for (size_t i = 0; i < f->text.size(); ++i) {
      if (f->text[i] == '\n') f->line_starts.push_back(i + 1);
    }
    slot = std::move(f);
  }
  return slot;
}

}  // namespace

std::shared_ptr<const std::string> Index::FileText(const std::string& file) const {
  std::shared_ptr<const CachedFile> cached = Cached(*this, file);
  if (!cached) return nullptr;
  return std::shared_ptr<const std::string>(cached, &cached->text);
}

std::string Index::Snippet(const std::string& file, int line, int lines) const {
  if (!disk || line <= 0 || lines <= 0) return "";
  std::shared_ptr<const CachedFile> cached = Cached(*this, file);
  const auto& starts = cached->line_starts;
  if (static_cast<size_t>(line) > starts.size() || starts[line - 1] >= cached->text.size()) return "";
  size_t begin = starts[line - 1];
  size_t last = static_cast<size_t>(line - 1 + lines);  // index of the first line not wanted
  size_t end = last < starts.size() ? starts[last] - 1 : cached->text.size();
  return cached->text.substr(begin, end > begin ? end - begin : 0);
}

void ForgetFileTexts() {
  SnippetCache& cache = Cache();
  std::lock_guard<std::mutex> lock(cache.mu);
  cache.files.clear();
}

}  // namespace optrace
