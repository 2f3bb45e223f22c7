// Index: the YAML model, the C++/CUDA index and the Python index of one
// checkout, loaded together. Load() builds them (or reads the persisted store,
// see store.h) -- the tracer never cares which.
#pragma once

#include <memory>
#include <string>

#include "checkout.h"
#include "cpp_index.h"
#include "py_index.h"
#include "yaml_model.h"

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
};

struct LoadOptions {
  bool use_store = true;   // read/write the persistent index (store.h)
  bool progress = false;   // progress bar on stderr (TTY only)
  unsigned threads = 0;    // 0 = all cores
};

// Builds or loads the index for a checkout.
Status LoadIndex(const Checkout& checkout, const LoadOptions& options, Index* out);

}  // namespace optrace
