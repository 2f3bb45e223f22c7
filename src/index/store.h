// The persistent index store: one image file per checkout under
// ${XDG_CACHE_HOME:-~/.cache}/optrace/ holding the finished YAML model, C++
// index and Python index as they lie in memory (store_arena.h), plus what is
// needed to keep them correct: every in-scope file's size, mtime and content
// hash and the mtimes of the directories they live in (the C++ index gives
// back any file's records as scanned, for partial updates). A warm load maps
// the file and stat-walks the tree; only changed, added or removed files are
// scanned again (a YAML change, another optrace binary or a damaged file
// means a full rebuild). Edits to a few files are saved as a small layer
// over the image (<image>.layer) instead of a new image. A new image is built in a temporary file that is
// renamed over the old one under an flock, so a killed writer or two
// concurrent cold runs never leave a broken index.
// doc/index-format.md describes the file and why it is built this way.
#pragma once

#include <sys/stat.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "base/disk.h"
#include "base/status.h"

namespace optrace {

// 6: CppFileRecords::enum_members; 5: StubDecl::scope, registrations under the declared name.
inline constexpr uint32_t kStoreFormatVersion = 6;

struct Index;

// ${XDG_CACHE_HOME:-$HOME/.cache}/optrace
// Visits every directory under the index's scope roots (aten/src/ATen and
// torch, which holds torch/csrc/autograd), each once (symlink cycles are
// cut), with its stat: the store stamps them, the daemon watches them.
// `visit` returns false to stop; the walk then returns false.
bool ForEachScopeDirectory(const std::string& root,
                           const std::function<bool(const std::string& rel, const struct stat& st)>& visit);

std::string DefaultStoreDir();
// <dir>/index-<16 hex digits of a hash of the checkout root>.img
std::string StorePath(const std::string& store_dir, const std::string& root);

struct StoreOptions {
  std::string dir;        // where images live; "" = DefaultStoreDir()
  bool rebuild = false;   // ignore any existing image
  bool write = true;      // false: never write (a read-only cache, or --check)
  bool progress = false;  // progress bar on stderr while scanning
  unsigned threads = 0;   // 0 = all cores
  // A long-lived process (daemon, MCP server): read the image into private
  // memory instead of mapping the file, so that nothing done to the file
  // later (truncated, overwritten in place) can reach the loaded index.
  bool copy = false;
  // How long to wait for another process's lock on the image (a build in
  // progress) before building in memory, unsaved, with a note. A stopped
  // (SIGSTOP, Ctrl-Z) or hung holder must not stall every optrace process
  // and MCP call behind it. $OPTRACE_LOCK_WAIT (seconds) overrides it.
  double lock_wait_s = 120;
};

// What one load did, for `optrace index` and the tests.
struct StoreReport {
  enum class Action {
    kLoaded,    // the image was fresh
    kUpdated,   // some files were scanned again, the rest reused (a new image or a new layer)
    kBuilt,     // a full build (no image, or one that could not be used)
    kInMemory,  // built or updated, but no image could be written
  } action = Action::kBuilt;
  std::string reason;  // why not kLoaded: "no index yet", "3 files changed", "corrupt: ..."
  std::string path;    // the image file
  size_t cpp_files = 0, py_files = 0;
  size_t rescanned = 0, added = 0, removed = 0;
  uint64_t image_bytes = 0;
  size_t layer_files = 0;    // files (C++ and Python) whose records come from the image's layer
  uint64_t layer_bytes = 0;  // the layer file, when there is one
  double check_ms = 0, scan_ms = 0, merge_ms = 0, write_ms = 0, total_ms = 0;
};
const char* StoreActionName(StoreReport::Action action);

// The tree a store indexes: its canonical root (the image key), version and disk.
struct StoreTree {
  std::string root;
  std::string version;
  std::shared_ptr<const Disk> disk;
};

// Ok when the cache folder `dir` may be trusted: this user's, not writable
// by others (nor its parent, unless sticky), and every file in it this
// user's and not writable by others. The image holds raw pointers: whoever
// can write it decides what optrace does. Else a kSource status saying why
// and what to do. A folder that does not exist yet is fine.
Status CheckCacheDir(const std::string& dir);

// Fills *out from the image of `tree`, updating or building (and writing) it
// as needed. Never serves an image that fails its checks: those are rebuilt
// with a message on stderr.
Status LoadWithStore(const StoreTree& tree, const StoreOptions& options, Index* out, StoreReport* report);

// Checks the image of `tree` without writing anything: ok when it exists,
// is intact (full checksum) and matches every in-scope file; otherwise a
// kSource status saying what is stale or broken.
Status CheckStore(const StoreTree& tree, const StoreOptions& options, StoreReport* report);

}  // namespace optrace
