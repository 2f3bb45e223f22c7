// The Index's own services: snippets from the index's own cache of file
// texts. Loading it (LoadIndex) is load_index.cc's, on top of the store.
#include "index/index.h"

#include <cstdlib>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

namespace optrace {

// Snippets and function bodies are read many times per trace (the tracer
// looks for stub names in every function it walks): each file's text and
// the offsets of its lines are kept with the index.
struct Index::TextLines {
  std::string text;
  std::vector<size_t> line_starts;  // offset of line N at [N - 1]
};

struct Index::FileTexts {
  std::mutex mu;
  std::unordered_map<std::string, std::shared_ptr<const TextLines>> files;
};

std::shared_ptr<Index::FileTexts> Index::NewFileTexts() { return std::make_shared<FileTexts>(); }

// The cached text of a checkout file ("" when unreadable or binary).
std::shared_ptr<const Index::TextLines> Index::Cached(const std::string& file) const {
  if (!disk) return nullptr;
  std::lock_guard<std::mutex> lock(texts_->mu);
  auto& slot = texts_->files[file];
  if (!slot) {
    auto f = std::make_shared<TextLines>();
    if (!disk->ReadFile(file, &f->text).ok() || LooksBinary(f->text)) f->text.clear();
    f->line_starts.push_back(0);
    for (size_t i = 0; i < f->text.size(); ++i) {
      if (f->text[i] == '\n') f->line_starts.push_back(i + 1);
    }
    slot = std::move(f);
  }
  return slot;
}

std::shared_ptr<const std::string> Index::FileText(const std::string& file) const {
  std::shared_ptr<const Index::TextLines> cached = Cached(file);
  if (!cached) return nullptr;
  return std::shared_ptr<const std::string>(cached, &cached->text);
}

size_t Index::LineOffset(const std::string& file, int line) const {
  std::shared_ptr<const Index::TextLines> cached = Cached(file);
  if (!cached || line < 1) return 0;
  const auto& starts = cached->line_starts;
  return static_cast<size_t>(line) <= starts.size() ? starts[line - 1] : cached->text.size();
}

std::string Index::Snippet(const std::string& file, int line, int lines) const {
  if (!disk || line <= 0 || lines <= 0) return "";
  std::shared_ptr<const Index::TextLines> cached = Cached(file);
  const auto& starts = cached->line_starts;
  if (static_cast<size_t>(line) > starts.size() || starts[line - 1] >= cached->text.size()) return "";
  size_t begin = starts[line - 1];
  size_t last = static_cast<size_t>(line - 1 + lines);  // index of the first line not wanted
  size_t end = last < starts.size() ? starts[last] - 1 : cached->text.size();
  return cached->text.substr(begin, end > begin ? end - begin : 0);
}

}  // namespace optrace
