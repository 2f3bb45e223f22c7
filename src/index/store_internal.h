// The index store's parts, shared by its files and by nothing else (only
// src/index/store*.cc include this). store.h is the interface; this header
// is how the store is cut up: store_image.cc is the file format (the image
// and layer files: hashing, mapping, verifying, writing), store_scan.cc finds
// what changed in the tree and builds a new image from the old one and the
// changed files, store_layer.cc builds and applies the small layers over an
// image, and store.cc puts them together into a load (locks, cache folder
// checks, messages). doc/index-format.md describes the file.
#pragma once

#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "index/index.h"
#include "index/store.h"
#include "index/store_arena.h"

namespace optrace {
namespace store_internal {

using Clock = std::chrono::steady_clock;
inline double MsSince(Clock::time_point t) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

// File contents and small things (headers, roots): four multiply-rotate lanes.
uint64_t Hash64(const void* data, size_t n, uint64_t seed = 0);

// ---------------------------------------------------------------------------
// What the image holds. Everything in it is allocated in the arena.

inline constexpr uint64_t kMissing = ~0ull;  // size of an optional file that is absent

// A file's state as the freshness check compares it, as git's index does:
// size, mtime and ctime to the nanosecond and the inode. An edit that keeps
// size and mtime (cp -p, rsync -t, tar) still changes the ctime, and a file
// replaced by another keeps neither its inode nor its ctime.
struct TrackedFile {
  std::string path;
  uint64_t size = kMissing;
  int64_t mtime_ns = 0;
  uint64_t hash = 0;  // content hash; directories: 0
  int64_t ctime_ns = 0;
  uint64_t ino = 0;
};

// One C++ file's scan. Only the skip reason is kept in the image: an indexed
// file's records, as scanned, come back from CppIndex::RecordsOf.
struct CppSource {
  std::string skip_reason;  // non-empty: not indexed (binary, unreadable, too large)
  CppFileRecords records;
};

struct ImageRoot {
  std::string root;
  YamlModel yaml;
  CppIndex cpp;
  PyIndex py;
  std::vector<TrackedFile> yaml_files;        // kYamlFiles
  std::vector<TrackedFile> cpp_files;         // sorted, parallel to cpp_skip_reasons
  std::vector<std::string> cpp_skip_reasons;  // why a file is not indexed; "" when it is
  std::vector<SkippedPath> cpp_listing_skipped;
  std::vector<TrackedFile> py_files;  // sorted, parallel to py.modules()
  std::vector<SkippedPath> py_listing_skipped;
  bool watch_dirs = false;        // false: list the tree on every load (MemoryDisk)
  std::vector<TrackedFile> dirs;  // directories whose mtime tells of added/removed files
};

// A layer over an image (file <image>.layer): after an edit to a few files,
// instead of a new image, the edited files' records as now scanned (C++:
// CppIndex layers, cpp_index.h; Python: whole modules, PyIndex::ReplaceModule)
// and the stamps the image's freshness check should now expect. Loading puts
// it over the image it was built for.
struct LayerRoot {
  std::vector<std::pair<uint32_t, TrackedFile>> cpp_stamps;  // index into ImageRoot::cpp_files -> stamp now
  std::vector<std::pair<uint32_t, TrackedFile>> py_stamps;   // index into ImageRoot::py_files -> stamp now
  std::vector<TrackedFile> dirs;                             // every watched directory's stamp now
  CppIndex cpp;                                              // the replaced C++ files' records, over the image's
  // Modules as now scanned, by index into the image's modules (= py_files).
  // Loading moves them into the image's PyIndex.
  std::vector<std::pair<uint32_t, PyModule>> py_modules;
};

// The file header, in the first page; the image follows at offset kArenaPage.
struct Header {
  char magic[8];
  uint32_t format_version;
  uint32_t header_size;
  uint64_t base;
  uint64_t image_bytes;
  uint64_t root_offset;
  uint64_t identity_hash;
  uint64_t root_hash;
  uint64_t sample_hash;       // unused since format 4 (was: a few pages spread over the image); 0
  uint64_t full_hash;         // the whole image (ImageChecksum): checked on every load
  uint64_t base_header_hash;  // a layer: the header_hash of the image it goes over; an image: 0
  char identity[512];
  char root[2048];
  uint64_t header_hash;  // of every byte above
};
static_assert(sizeof(Header) <= kArenaPage);

// The checksum of an image's bytes, verified on every load: hardware CRC32C
// on three interleaved streams per 16 MiB segment where the CPU has it
// (~10 GB/s), else Hash64; segments on parallel threads.
uint64_t ImageChecksum(const unsigned char* image, size_t bytes);

// ---------------------------------------------------------------------------
// The tree's scope, as CppIndex::Build and PyIndex::Build list it.

inline constexpr const char* kCppDirs[] = {"aten/src/ATen", "torch/csrc/autograd"};
inline constexpr const char* kPyDir = "torch";
// YamlModel::Load reads version.txt too: the release picks torchgen rules.
inline constexpr const char* kYamlFiles[] = {kNativeFunctionsPath, kTagsPath, kDerivativesPath, "version.txt"};

// Files larger than this are not indexed (listed as skipped, "too large"):
// base/disk.h's kMaxSourceFileBytes, the cap every reader of source shares.
inline constexpr uint64_t kMaxIndexedFileBytes = kMaxSourceFileBytes;

// A C++ file with the same contents as one earlier in the listing is not
// indexed again but skipped, "duplicate of PATH": its definitions would only
// repeat the first file's, and a tree holding hundreds of copies of a file
// made every trace through them hundreds of times slower.
inline constexpr const char* kDuplicateOf = "duplicate of ";
bool IsDuplicate(const std::string& skip_reason);

struct Listing {
  std::vector<std::string> cpp, py;
  std::vector<SkippedPath> cpp_skipped, py_skipped;
};
Listing ListScope(const Disk& disk);

// A file's state now; false when it is gone or not a regular file/directory.
bool StatFile(const StoreTree& tree, const RealDisk* real, const std::string& path, TrackedFile* st);
bool StampOf(const struct stat& s, TrackedFile* st);
// Every directory under the scope's roots, with its stamp.
void WalkDirs(const RealDisk& real, std::vector<TrackedFile>* dirs);

unsigned Threads(unsigned requested);
void WarmHeap();

// Runs fn(i) for i in [0, n) on `threads` threads (the caller is one).
template <typename Fn>
void ParallelFor(size_t n, unsigned threads, Fn fn) {
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i; (i = next.fetch_add(1)) < n;) fn(i);
  };
  threads = static_cast<unsigned>(std::min<size_t>(threads, std::max<size_t>(1, n)));
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t) pool.emplace_back(work);
  work();
  for (auto& t : pool) t.join();
}

// ---------------------------------------------------------------------------
// Image and layer files (store_image.cc).

// Which file a path named when it was opened: writers only ever rename new
// files into place, so the same identity means the same contents.
struct FileIdentity {
  bool exists = false;
  dev_t dev = 0;
  ino_t ino = 0;
  off_t size = 0;
  int64_t mtime_ns = 0;
  int64_t ctime_ns = 0;
  bool operator==(const FileIdentity&) const = default;
};
FileIdentity IdentityOf(const struct stat& st);
FileIdentity IdentifyPath(const std::string& path);

struct Mapped {
  FileIdentity file;           // what the path named when opened (also when it was not usable)
  ImageRoot* image = nullptr;  // an image's root
  LayerRoot* layer = nullptr;  // a layer's root
  void* addr = nullptr;
  size_t length = 0;
  Header header{};
};
void Unmap(Mapped* m);

enum class OpenResult { kOk, kMissing, kBroken, kForeign, kBusy, kNotOwned };

// What OpenImage expects to find: an image, or a layer over the image whose
// header hash is `base_header_hash`. `copy`: read the file into private
// memory instead of mapping it (a long-lived process: nothing done to the
// file later can reach it).
struct ImageKind {
  bool layer = false;
  uint64_t base_header_hash = 0;
  bool copy = false;
};

// Opens `path`, checks its header and the checksum of every byte, and maps
// (or copies) it at its base. kBroken/kForeign/kNotOwned carry a reason.
OpenResult OpenImage(const std::string& path, const std::string& root, ImageKind kind, Mapped* out, std::string* why);

// A temporary file for a new image, next to where it will be renamed to.
struct ImageFile {
  std::string tmp;
  int fd = -1;
  ~ImageFile();
  bool Open(const std::string& path);
  void Discard();
};

// Saves an image (or a layer) built in `arena` into `file`, then renames it
// to `path`. `map_back`: the arena's pages are mapped from the file as they
// are written (saves a copy of memory; not for long-lived processes).
Status WriteImage(const std::string& path, const std::string& root, Arena& arena, const void* root_object,
                  ImageKind kind, bool map_back, ImageFile& file, uint64_t* bytes);

// OwnedBySelf (whether a file or folder of the cache may be trusted) is
// base/disk.h's, shared with the installed-torch cache.

// ---------------------------------------------------------------------------
// Freshness and building (store_scan.cc).

struct Changes {
  bool yaml_changed = false;
  bool listing_changed = false;   // a watched directory changed, or no directories are watched
  std::vector<uint32_t> cpp, py;  // indices into image->cpp_files / py_files whose stat differs
  bool any() const { return yaml_changed || listing_changed || !cpp.empty() || !py.empty(); }
  size_t count() const { return cpp.size() + py.size(); }
};

bool ListingMatches(const Listing& now, const ImageRoot& img);
Changes FindChanges(const ImageRoot& img, const StoreTree& tree, unsigned threads);

struct Scanned {
  TrackedFile file;
  bool reuse = false;  // content hash equals the image's: keep its records
  CppSource cpp;
  PyModule py;
};
// Stats, reads, hashes and scans one file.
void ScanOne(const StoreTree& tree, const RealDisk* real, const std::string& path, bool is_py, const TrackedFile* old,
             std::string* text, Scanned* out);

struct BuildResult {
  ImageRoot* image = nullptr;
  Arena* arena = nullptr;  // null: built on the ordinary heap (not writable as an image)
};
// Builds a new image from `old` (may be null: a full build) and the tree.
Status BuildImage(const StoreTree& tree, const ImageRoot* old, const Changes* changes, const StoreOptions& options,
                  StoreReport* report, BuildResult* result);

// ---------------------------------------------------------------------------
// Layers (store_layer.cc).

// At most this many files in a layer; beyond, an update writes a new image
// (folding the layer in), so that lookups stay close to one table probe.
inline constexpr size_t kMaxLayerFiles = 32;

inline std::string LayerPath(const std::string& image_path) { return image_path + ".layer"; }

bool ApplyLayer(ImageRoot* img, LayerRoot* layer);
size_t ReplacedFiles(const LayerRoot& layer);

struct LayerResult {
  LayerRoot* layer = nullptr;
  Arena* arena = nullptr;
};
bool BuildLayer(const StoreTree& tree, ImageRoot* img, const LayerRoot* old_layer, const Changes& changes,
                const StoreOptions& options, StoreReport* report, LayerResult* result);

}  // namespace store_internal
}  // namespace optrace
