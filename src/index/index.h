// Index: the YAML model, the C++/CUDA index and the Python index of one
// checkout, loaded together. Load() builds them (or reads the persisted store,
// see store.h) -- the tracer never cares which.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <typeindex>
#include <utility>

#include "base/checkout.h"
#include "cpp/cpp_index.h"
#include "py/py_index.h"
#include "yaml/yaml_model.h"

namespace optrace {

struct Index {
  std::string root;     // checkout root
  std::string version;  // version.txt
  std::shared_ptr<const Disk> disk;
  YamlModel yaml;
  CppIndex cpp;
  PyIndex py;

  // Reads `lines` lines of a checkout file starting at `line` (1-based), for snippets.
  std::string Snippet(const std::string& file, int line, int lines = 3) const;
  // The whole text of a checkout file, from the same cache (null without a
  // disk; empty when unreadable or binary): guard conditions read it.
  std::shared_ptr<const std::string> FileText(const std::string& file) const;
  // Where line `line` (1-based) of FileText(file) starts: its byte offset,
  // the text's size past the last line (0 without a text). A reader that
  // starts at a function's line skips the lines above it without scanning them.
  size_t LineOffset(const std::string& file, int line) const;

  // What the tracer derives from this index once and reuses for every trace
  // (Python bindings table, decomposition sites): built on first use, under a
  // lock, and owned here so it lives and dies with the index it came from.
  // A slot is keyed by its type and name, so the same name asked as another
  // type is another slot, never a cast of the wrong object.
  template <class T, class Make>
  const T& Derived(const std::string& key, Make make) const {
    std::lock_guard<std::mutex> lock(derived_->mu);
    std::shared_ptr<void>& slot = derived_->items[{std::type_index(typeid(T)), key}];
    if (!slot) slot = std::make_shared<T>(make());
    return *static_cast<const T*>(slot.get());
  }

 private:
  // The texts of the files read so far and their line offsets, read once
  // per index: a checkout's files at the time it was indexed (a reloaded
  // index starts afresh), and never another index's files of the same path.
  struct FileTexts;
  struct TextLines;
  static std::shared_ptr<FileTexts> NewFileTexts();
  std::shared_ptr<const TextLines> Cached(const std::string& file) const;
  std::shared_ptr<FileTexts> texts_ = NewFileTexts();

  struct DerivedItems {
    std::mutex mu;
    std::map<std::pair<std::type_index, std::string>, std::shared_ptr<void>> items;
  };
  std::shared_ptr<DerivedItems> derived_ = std::make_shared<DerivedItems>();
};

struct LoadOptions {
  bool use_store = true;  // read/write the persistent index (store.h)
  bool progress = false;  // progress bar on stderr (TTY only)
  unsigned threads = 0;   // 0 = all cores
  // A long-lived process: the index must not depend on the image file after
  // the load (StoreOptions::copy).
  bool resident = false;
  // The folder of the store's images; "" = the cache folder (store.h). A
  // test binary keeps its own: an image serves only the binary that wrote it.
  std::string store_dir;
};

// Builds or loads the index for a checkout.
Status LoadIndex(const Checkout& checkout, const LoadOptions& options, Index* out);

}  // namespace optrace
