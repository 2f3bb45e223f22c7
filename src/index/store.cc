// The index store. A load goes: map the image (header checks, sampled
// checksum), stat-walk the in-scope files and directories on a few threads,
// and when nothing changed move the three indexes out of the image -- no
// decoding at all. Otherwise take the store's flock, scan only what changed
// (in parallel), rebuild the indexes from the image's per-file records into a
// fresh arena (anonymous memory), write its bytes to a temporary file and
// move that into place. Every failure to read or write an image ends in a correct index
// built in memory, with a message; never in a crash or a stale answer.
#include "index/store.h"

#include <dirent.h>
#include <fcntl.h>
#include <malloc.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <iostream>
#include <map>
#include <set>
#include <thread>
#include <unordered_map>

#include "index/store_arena.h"

namespace optrace {

// Friend of PyIndex: a restored index keeps the listing's skipped paths.
struct StoreAccess {
  static void SetSkipped(PyIndex* py, std::vector<SkippedPath> skipped) { py->skipped_ = std::move(skipped); }
};

namespace {

using Clock = std::chrono::steady_clock;
double MsSince(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

// ---------------------------------------------------------------------------
// Hashing: four independent multiply-rotate lanes over 32-byte blocks, so the
// CPU overlaps them; used for file contents and the image checksums.

inline uint64_t Rotl(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }
constexpr uint64_t kMulA = 0x9E3779B97F4A7C15ull, kMulB = 0xC2B2AE3D27D4EB4Full;

uint64_t Hash64(const void* data, size_t n, uint64_t seed = 0) {
  const unsigned char* p = static_cast<const unsigned char*>(data);
  uint64_t lane[4] = {seed + 1, seed + 2, seed + 3, seed + 4};
  size_t i = 0;
  for (; i + 32 <= n; i += 32) {
    uint64_t w[4];
    std::memcpy(w, p + i, 32);
    for (int k = 0; k < 4; ++k) lane[k] = Rotl(lane[k] + w[k] * kMulA, 31) * kMulB;
  }
  uint64_t h = lane[0] ^ Rotl(lane[1], 7) ^ Rotl(lane[2], 13) ^ Rotl(lane[3], 29) ^ (n * kMulA);
  for (; i < n; ++i) h = Rotl(h ^ (p[i] * kMulB), 23) * kMulA;
  h ^= h >> 33;
  h *= kMulB;
  h ^= h >> 29;
  return h;
}

// ---------------------------------------------------------------------------
// What the image holds. Everything in it is allocated in the arena.

constexpr uint64_t kMissing = ~0ull;  // size of an optional file that is absent

struct TrackedFile {
  std::string path;
  uint64_t size = kMissing;
  int64_t mtime_ns = 0;
  uint64_t hash = 0;  // content hash; directories: 0
};

// One C++ file's scan. Only the skip reason is kept in the image: an indexed
// file's records, as scanned, come back from CppIndex::RecordsOf.
struct CppSource {
  std::string skip_reason;  // non-empty: not indexed (binary, unreadable)
  CppFileRecords records;
};

struct ImageRoot {
  std::string root;
  YamlModel yaml;
  CppIndex cpp;
  PyIndex py;
  std::vector<TrackedFile> yaml_files;      // kYamlFiles
  std::vector<TrackedFile> cpp_files;       // sorted, parallel to cpp_skip_reasons
  std::vector<std::string> cpp_skip_reasons;  // why a file is not indexed (binary, unreadable); "" when it is
  std::vector<SkippedPath> cpp_listing_skipped;
  std::vector<TrackedFile> py_files;        // sorted, parallel to py.modules()
  std::vector<SkippedPath> py_listing_skipped;
  bool watch_dirs = false;                  // false: list the tree on every load (MemoryDisk)
  std::vector<TrackedFile> dirs;            // directories whose mtime tells of added/removed files
};

// A layer over an image (file <image>.layer): after an edit to a few files,
// instead of a new image, the edited files' records as now scanned (C++:
// CppIndex layers, cpp_index.h; Python: whole modules, PyIndex::ReplaceModule)
// and the stamps the image's freshness check should now expect. Loading puts
// it over the image it was built for.
struct LayerRoot {
  std::vector<std::pair<uint32_t, TrackedFile>> cpp_stamps;  // index into ImageRoot::cpp_files -> stamp now
  std::vector<std::pair<uint32_t, TrackedFile>> py_stamps;   // index into ImageRoot::py_files -> stamp now
  std::vector<TrackedFile> dirs;                              // every watched directory's stamp now
  CppIndex cpp;                                               // the replaced C++ files' records, over the image's
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
  uint64_t sample_hash;  // a few pages spread over the image: checked on every load
  uint64_t full_hash;    // the whole image: checked by `optrace index --check`
  uint64_t base_header_hash;  // a layer: the header_hash of the image it goes over; an image: 0
  char identity[512];
  char root[2048];
  uint64_t header_hash;  // of every byte above
};
static_assert(sizeof(Header) <= kArenaPage);
constexpr char kMagic[8] = {'O', 'P', 'T', 'R', 'I', 'M', 'G', '\n'};
constexpr char kLayerMagic[8] = {'O', 'P', 'T', 'R', 'L', 'Y', 'R', '\n'};

uint64_t HeaderHash(const Header& h) { return Hash64(&h, offsetof(Header, header_hash), 7); }

// The whole image: 64 MiB segments hashed on parallel threads, then the
// segments' hashes hashed together (seeded with the length).
constexpr size_t kHashSegment = size_t{64} << 20;

uint64_t FullHash(const unsigned char* image, size_t bytes) {
  size_t segments = (bytes + kHashSegment - 1) / kHashSegment;
  std::vector<uint64_t> hashes(segments);
  std::vector<std::thread> pool;
  for (size_t k = 1; k < segments; ++k)
    pool.emplace_back([&, k] { hashes[k] = Hash64(image + k * kHashSegment, std::min(kHashSegment, bytes - k * kHashSegment)); });
  if (segments) hashes[0] = Hash64(image, std::min(kHashSegment, bytes));
  for (auto& t : pool) t.join();
  return Hash64(hashes.data(), hashes.size() * sizeof(uint64_t), bytes);
}

uint64_t SampleHash(const unsigned char* image, size_t bytes) {
  size_t pages = (bytes + kArenaPage - 1) / kArenaPage;
  constexpr size_t kSamples = 48;
  uint64_t h = bytes;
  size_t last = ~size_t{0};
  for (size_t k = 0; k <= kSamples && pages; ++k) {
    size_t page = k == kSamples ? pages - 1 : k * pages / kSamples;
    if (page == last) continue;
    last = page;
    size_t off = page * kArenaPage;
    h = Hash64(image + off, std::min(kArenaPage, bytes - off), h);
  }
  return h;
}

// ---------------------------------------------------------------------------
// The tree's scope, as CppIndex::Build and PyIndex::Build list it.

constexpr const char* kCppDirs[] = {"aten/src/ATen", "torch/csrc/autograd"};
constexpr const char* kPyDir = "torch";
// YamlModel::Load reads version.txt too: the release picks torchgen rules.
constexpr const char* kYamlFiles[] = {kNativeFunctionsPath, kTagsPath, kDerivativesPath, "version.txt"};

bool IsPyPath(std::string_view p) { return p.size() > 3 && p.substr(p.size() - 3) == ".py"; }

struct Listing {
  std::vector<std::string> cpp, py;
  std::vector<SkippedPath> cpp_skipped, py_skipped;
};

Listing ListScope(const Disk& disk) {
  Listing l;
  for (const char* dir : kCppDirs)
    disk.ListFiles(dir, [](std::string_view p) { return InCppScope(p); }, &l.cpp, &l.cpp_skipped);
  std::sort(l.cpp.begin(), l.cpp.end());
  l.cpp.erase(std::unique(l.cpp.begin(), l.cpp.end()), l.cpp.end());
  disk.ListFiles(kPyDir, IsPyPath, &l.py, &l.py_skipped);
  std::sort(l.py.begin(), l.py.end());
  return l;
}

// Stat through the fast path for a real tree: RealDisk::Stat canonicalises
// the path (a syscall per component); the store only needs to know whether a
// file it indexed through the Disk still has the same size and mtime. A file
// that now differs (a symlink swapped in included) is read again through the
// Disk, which applies its confinement rules.
// A stat(2) result as the store compares it; false for anything but a
// regular file or directory.
bool ToFileStat(const struct stat& s, FileStat* st) {
  if (!S_ISREG(s.st_mode) && !S_ISDIR(s.st_mode)) return false;
  st->size = static_cast<uint64_t>(s.st_size);
  st->mtime_ns = static_cast<int64_t>(s.st_mtim.tv_sec) * 1000000000 + s.st_mtim.tv_nsec;
  return true;
}

bool StatFile(const StoreTree& tree, const RealDisk* real, const std::string& path, FileStat* st) {
  if (!real) return tree.disk->Stat(path, st).ok();
  struct stat s;
  return ::stat((real->root() + "/" + path).c_str(), &s) == 0 && ToFileStat(s, st);
}

// Every directory under the scope's roots, with its mtime: creating,
// deleting or renaming a file changes its directory's mtime.
void WalkDirs(const RealDisk& real, std::vector<TrackedFile>* dirs) {
  ForEachScopeDirectory(real.root(), [&](const std::string& rel, const struct stat& st) {
    dirs->push_back({rel, 0, static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec, 0});
    return true;
  });
  std::sort(dirs->begin(), dirs->end(), [](const TrackedFile& a, const TrackedFile& b) { return a.path < b.path; });
}

unsigned Threads(unsigned requested) {
  return requested ? requested : std::max(1u, std::thread::hardware_concurrency());
}

// Gives the calling thread's malloc heap 30 MiB to grow into at once, in
// transparent huge pages: glibc grows a thread's heap a few pages at a time
// (one mprotect each: ~6000 in a full build) and it is faulted in 4 KiB at a
// time. A block just under the mmap threshold (M_MMAP_THRESHOLD, 32 MiB, set
// by BuildImage) comes from the heap; freed, it stays there as free space
// (M_TRIM_THRESHOLD), now advised for huge pages. Nothing is touched here, so
// memory is committed only as the heap is used. Measured (full build of
// 2.6.0): page faults ~19k -> ~9k, mprotect calls ~6000 -> ~460.
void WarmHeap() {
  constexpr size_t kWarm = size_t{30} << 20, kHuge = size_t{2} << 20;
  void* p = std::malloc(kWarm);
  if (!p) return;
  uintptr_t begin = (reinterpret_cast<uintptr_t>(p) + kHuge - 1) & ~(kHuge - 1);
  uintptr_t end = (reinterpret_cast<uintptr_t>(p) + kWarm) & ~(kHuge - 1);
  if (end > begin) ::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
  std::free(p);
}

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

// A progress line on stderr ("files done / total, elapsed"), redrawn every
// 100 ms while a scan runs; only when asked (the caller checks for a TTY).
class Progress {
 public:
  Progress(bool enabled, size_t total, const std::atomic<size_t>* done) : total_(total), done_(done) {
    if (!enabled || total == 0) return;
    thread_ = std::thread([this] {
      auto start = Clock::now();
      while (!stop_.load()) {
        Draw(start);
        for (int i = 0; i < 10 && !stop_.load(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
      }
      Draw(start);
      std::fputc('\n', stderr);
    });
  }
  ~Progress() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
  }

 private:
  void Draw(Clock::time_point start) {
    size_t done = done_->load();
    int width = 30, filled = static_cast<int>(width * done / total_);
    std::fprintf(stderr, "\roptrace: indexing [%s%s] %zu/%zu files, %.1f s", std::string(filled, '#').c_str(),
                 std::string(width - filled, ' ').c_str(), done, total_, MsSince(start) / 1000);
    std::fflush(stderr);
  }
  size_t total_;
  const std::atomic<size_t>* done_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

// ---------------------------------------------------------------------------
// Mapping an image.

// Which file a path named when it was opened: writers only ever rename new
// files into place, so the same identity means the same contents.
struct FileIdentity {
  bool exists = false;
  dev_t dev = 0;
  ino_t ino = 0;
  off_t size = 0;
  int64_t mtime_ns = 0;
  bool operator==(const FileIdentity&) const = default;
};

FileIdentity IdentityOf(const struct stat& st) {
  return {true, st.st_dev, st.st_ino, st.st_size, static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec};
}

FileIdentity IdentifyPath(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 ? IdentityOf(st) : FileIdentity{};
}

struct Mapped {
  FileIdentity file;           // what the path named when opened (also when it was not usable)
  ImageRoot* image = nullptr;  // an image's root
  LayerRoot* layer = nullptr;  // a layer's root
  void* addr = nullptr;
  size_t length = 0;
  Header header{};
};

void Unmap(Mapped* m) {
  if (m->addr) ::munmap(m->addr, m->length);
  *m = Mapped{};
}

enum class OpenResult { kOk, kMissing, kBroken, kForeign, kBusy };

// What OpenImage expects to find: an image, or a layer over the image whose
// header hash is `base_header_hash`.
struct ImageKind {
  bool layer = false;
  uint64_t base_header_hash = 0;
};

// Opens and maps `path`. kBroken/kForeign carry a reason for the message.
OpenResult OpenImage(const std::string& path, const std::string& root, ImageKind kind, Mapped* out, std::string* why) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    *why = errno == ENOENT ? "no index yet" : std::string("cannot open: ") + std::strerror(errno);
    return errno == ENOENT ? OpenResult::kMissing : OpenResult::kBroken;
  }
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  Header h;
  struct stat st;
  if (::fstat(fd, &st) == 0) out->file = IdentityOf(st);
  if (::fstat(fd, &st) != 0 || ::pread(fd, &h, sizeof(h), 0) != static_cast<ssize_t>(sizeof(h))) {
    *why = "truncated (no complete header)";
    return OpenResult::kBroken;
  }
  if (std::memcmp(h.magic, kind.layer ? kLayerMagic : kMagic, sizeof(kMagic)) != 0) {
    *why = kind.layer ? "not an optrace index layer (bad magic)" : "not an optrace index (bad magic)";
    return OpenResult::kBroken;
  }
  if (HeaderHash(h) != h.header_hash) {
    *why = "header checksum mismatch";
    return OpenResult::kBroken;
  }
  if (h.format_version != kStoreFormatVersion || h.header_size != sizeof(Header)) {
    *why = "format version " + std::to_string(h.format_version) + ", this optrace writes " +
           std::to_string(kStoreFormatVersion);
    return OpenResult::kForeign;
  }
  if (h.identity_hash != Hash64(BinaryIdentity().data(), BinaryIdentity().size())) {
    *why = "written by another optrace build";
    return OpenResult::kForeign;
  }
  if (h.root_hash != Hash64(root.data(), root.size())) {
    *why = "belongs to another checkout";
    return OpenResult::kForeign;
  }
  if (static_cast<uint64_t>(st.st_size) != kArenaPage + h.image_bytes) {
    *why = "truncated (" + std::to_string(st.st_size) + " bytes, header says " +
           std::to_string(kArenaPage + h.image_bytes) + ")";
    return OpenResult::kBroken;
  }
  if (kind.layer && h.base_header_hash != kind.base_header_hash) {
    *why = "made for another image";
    return OpenResult::kForeign;
  }
  const int first_slot = kind.layer ? 2 : 0;
  if ((h.base != kArenaBases[first_slot] && h.base != kArenaBases[first_slot + 1]) || h.image_bytes == 0 ||
      h.root_offset + (kind.layer ? sizeof(LayerRoot) : sizeof(ImageRoot)) > h.image_bytes) {
    *why = "header fields out of range";
    return OpenResult::kBroken;
  }
  size_t length = (h.image_bytes + kArenaPage - 1) / kArenaPage * kArenaPage;
  void* addr = ::mmap(reinterpret_cast<void*>(h.base), length, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_FIXED_NOREPLACE, fd, kArenaPage);
  if (addr == MAP_FAILED || reinterpret_cast<uintptr_t>(addr) != h.base) {
    if (addr != MAP_FAILED) ::munmap(addr, length);
    *why = "its address range is in use in this process";
    return OpenResult::kBusy;
  }
  if (SampleHash(static_cast<const unsigned char*>(addr), h.image_bytes) != h.sample_hash) {
    ::munmap(addr, length);
    *why = "checksum mismatch";
    return OpenResult::kBroken;
  }
  out->addr = addr;
  out->length = length;
  out->header = h;
  if (kind.layer) out->layer = reinterpret_cast<LayerRoot*>(h.base + h.root_offset);
  else out->image = reinterpret_cast<ImageRoot*>(h.base + h.root_offset);
  return OpenResult::kOk;
}

// ---------------------------------------------------------------------------
// Freshness.

struct Changes {
  bool yaml_changed = false;
  bool listing_changed = false;  // a watched directory changed, or no directories are watched
  std::vector<uint32_t> cpp, py;  // indices into image->cpp_files / py_files whose stat differs
  bool any() const { return yaml_changed || listing_changed || !cpp.empty() || !py.empty(); }
  size_t count() const { return cpp.size() + py.size(); }
};

bool SameStat(const TrackedFile& t, const FileStat& s) { return t.size == s.size && t.mtime_ns == s.mtime_ns; }

// Whether listing the tree now gives the files (and skipped paths) the image holds.
bool ListingMatches(const Listing& now, const ImageRoot& img) {
  auto same_paths = [](const std::vector<std::string>& paths, const std::vector<TrackedFile>& files) {
    return std::equal(paths.begin(), paths.end(), files.begin(), files.end(),
                      [](const std::string& p, const TrackedFile& f) { return p == f.path; });
  };
  auto same_skipped = [](const std::vector<SkippedPath>& a, const std::vector<SkippedPath>& b) {
    return std::equal(a.begin(), a.end(), b.begin(), b.end(),
                      [](const SkippedPath& x, const SkippedPath& y) { return x.path == y.path && x.reason == y.reason; });
  };
  return same_paths(now.cpp, img.cpp_files) && same_paths(now.py, img.py_files) &&
         same_skipped(now.cpp_skipped, img.cpp_listing_skipped) && same_skipped(now.py_skipped, img.py_listing_skipped);
}

Changes FindChanges(const ImageRoot& img, const StoreTree& tree, unsigned threads) {
  Changes c;
  const RealDisk* real = dynamic_cast<const RealDisk*>(tree.disk.get());
  for (const TrackedFile& y : img.yaml_files) {
    FileStat st;
    bool exists = StatFile(tree, real, y.path, &st);
    if (exists ? !SameStat(y, st) : y.size != kMissing) c.yaml_changed = true;
  }
  if (!img.watch_dirs || !real) {
    // No directories to watch (a MemoryDisk tree): compare the listings.
    c.listing_changed = !ListingMatches(ListScope(*tree.disk), img);
  }
  // One stat per tracked file and watched directory, ~5000 of them, split
  // over a few threads. 1: changed; 2: gone (the listing changed too).
  const size_t nc = img.cpp_files.size(), np = img.py_files.size(), nd = img.watch_dirs ? img.dirs.size() : 0;
  const size_t total = nc + np + nd;
  std::vector<uint8_t> differs(total, 0);
  auto tracked = [&](size_t i) -> const TrackedFile& {
    return i < nc ? img.cpp_files[i] : i < nc + np ? img.py_files[i - nc] : img.dirs[i - nc - np];
  };
  auto judge = [&](size_t i, bool ok, const FileStat& st) {
    differs[i] = !ok ? 2 : (i < nc + np ? !SameStat(tracked(i), st) : tracked(i).mtime_ns != st.mtime_ns);
  };
  unsigned workers = std::min(Threads(threads), 4u);
  if (!real) {
    ParallelFor(total, workers, [&](size_t i) {
      FileStat st;
      judge(i, StatFile(tree, real, tracked(i).path, &st), st);
    });
  } else {
    // A stat by full path walks every component from / (~9 per file); one
    // by name relative to an open directory walks one. So group the jobs by
    // directory, open each directory once, and stat its entries by name.
    struct Group {
      std::string_view dir;
      int32_t self = -1;             // the job for the directory itself, if watched
      std::vector<uint32_t> files;   // jobs naming a file in it
    };
    std::vector<Group> groups;
    std::unordered_map<std::string_view, uint32_t> group_of;
    auto group = [&](std::string_view dir) -> Group& {
      auto [it, fresh] = group_of.try_emplace(dir, static_cast<uint32_t>(groups.size()));
      if (fresh) groups.push_back({dir, -1, {}});
      return groups[it->second];
    };
    for (size_t i = 0; i < total; ++i) {
      std::string_view path = tracked(i).path;
      if (i >= nc + np) {
        group(path).self = static_cast<int32_t>(i);
      } else {
        size_t slash = path.rfind('/');
        group(slash == std::string_view::npos ? std::string_view(".") : path.substr(0, slash))
            .files.push_back(static_cast<uint32_t>(i));
      }
    }
    int root_fd = ::open(real->root().c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
    ParallelFor(groups.size(), workers, [&](size_t g) {
      const Group& grp = groups[g];
      int dfd = root_fd < 0 ? -1 : ::openat(root_fd, std::string(grp.dir).c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
      struct stat s;
      FileStat st;
      if (grp.self >= 0) judge(grp.self, dfd >= 0 && ::fstat(dfd, &s) == 0 && S_ISDIR(s.st_mode) && ToFileStat(s, &st), st);
      for (uint32_t i : grp.files) {
        std::string_view path = tracked(i).path;
        std::string name(grp.dir == "." ? path : path.substr(grp.dir.size() + 1));
        judge(i, dfd >= 0 && ::fstatat(dfd, name.c_str(), &s, 0) == 0 && ToFileStat(s, &st), st);
      }
      if (dfd >= 0) ::close(dfd);
    });
    if (root_fd >= 0) ::close(root_fd);
  }
  for (size_t i = 0; i < total; ++i) {
    if (!differs[i]) continue;
    if (differs[i] == 2) c.listing_changed = true;
    if (i < nc) c.cpp.push_back(static_cast<uint32_t>(i));
    else if (i < nc + np) c.py.push_back(static_cast<uint32_t>(i - nc));
    else c.listing_changed = true;
  }
  return c;
}

// ---------------------------------------------------------------------------
// Building an image.

struct Scanned {
  TrackedFile file;
  bool reuse = false;     // content hash equals the image's: keep its records
  CppSource cpp;
  PyModule py;
};

// Stats, reads, hashes and scans one file. Stat before reading: a file
// written meanwhile then looks changed on the next load, never the reverse.
void ScanOne(const StoreTree& tree, const RealDisk* real, const std::string& path, bool is_py,
             const TrackedFile* old, std::string* text, Scanned* out) {
  out->file.path = path;
  FileStat st;
  if (StatFile(tree, real, path, &st)) {
    out->file.size = st.size;
    out->file.mtime_ns = st.mtime_ns;
  }
  Status s = tree.disk->ReadFile(path, text);
  out->file.hash = s.ok() ? Hash64(text->data(), text->size()) : 0;
  if (s.ok() && old && old->hash == out->file.hash) {
    out->reuse = true;
    return;
  }
  if (is_py) {
    if (!s.ok()) {
      out->py.name = ModuleNameForPath(path);
      out->py.path = path;
      out->py.error = s.message();
    } else {
      out->py = ScanPyFile(ModuleNameForPath(path), path, *text);
    }
  } else if (!s.ok()) {
    out->cpp.skip_reason = "unreadable: " + s.message();
  } else if (LooksBinary(*text)) {
    out->cpp.skip_reason = "binary";
  } else {
    out->cpp.records = ScanCppFile(path, *text);
  }
}

// Where a path's previous state is: index into the image's sorted list, or -1.
int64_t FindTracked(const std::vector<TrackedFile>& files, const std::string& path) {
  auto it = std::lower_bound(files.begin(), files.end(), path,
                             [](const TrackedFile& t, const std::string& p) { return t.path < p; });
  return it != files.end() && it->path == path ? it - files.begin() : -1;
}

struct BuildResult {
  ImageRoot* image = nullptr;
  Arena* arena = nullptr;  // null: built on the ordinary heap (not writable as an image)
};

// Builds a new image from `old` (may be null: a full build) and the tree.
Status BuildImage(const StoreTree& tree, const ImageRoot* old, const Changes* changes, const StoreOptions& options,
                  StoreReport* report, BuildResult* result) {
  const RealDisk* real = dynamic_cast<const RealDisk*>(tree.disk.get());
  const unsigned threads = Threads(options.threads);
  auto t0 = Clock::now();

  // The scan allocates and frees blocks of up to several MiB per file on each
  // thread (token vectors, records). glibc's defaults give blocks that large
  // back to the kernel when freed (a mapping of their own, or trimming the
  // heap's top), and the next file faults them in again, 4 KiB at a time:
  // a full build took ~47k page faults, ~28k with the huge-page blocks of
  // store_arena.cc, ~19k with these settings. They stay for the process's
  // lifetime: it keeps up to its peak heap instead of returning memory.
  ::mallopt(M_MMAP_THRESHOLD, 32 << 20);
  ::mallopt(M_TRIM_THRESHOLD, 1 << 30);

  // A full build loads the YAML model on a thread of its own, from now on:
  // alongside the listing (one thread) and then the scan.
  YamlModel fresh_yaml;
  Status yaml_status;
  std::vector<TrackedFile> yaml_files;
  std::thread yaml_thread;
  if (!old || changes->yaml_changed) {
    yaml_thread = std::thread([&] {
      WarmHeap();
      for (const char* p : kYamlFiles) {
        TrackedFile t;
        t.path = p;
        FileStat st;
        if (StatFile(tree, real, p, &st)) {
          t.size = st.size;
          t.mtime_ns = st.mtime_ns;
        }
        yaml_files.push_back(std::move(t));
      }
      yaml_status = YamlModel::Load(*tree.disk, &fresh_yaml);
    });
  }

  // Directories: walked again whenever the listing is, and before it: a file
  // created or deleted from now on changes a recorded mtime, so the next load
  // lists again (walked after the listing, a file created in between would
  // be missed by both).
  std::vector<TrackedFile> dirs;
  bool watch_dirs = real != nullptr;
  if (watch_dirs) {
    if (!old || changes->listing_changed) WalkDirs(*real, &dirs);
    else dirs = old->dirs;
  }

  // The file lists: the image's own unless files may have come or gone.
  Listing listing;
  if (!old || changes->listing_changed) {
    listing = ListScope(*tree.disk);
  } else {
    for (const TrackedFile& f : old->cpp_files) listing.cpp.push_back(f.path);
    for (const TrackedFile& f : old->py_files) listing.py.push_back(f.path);
    listing.cpp_skipped = old->cpp_listing_skipped;
    listing.py_skipped = old->py_listing_skipped;
  }

  // What to scan: every file of a full build; else files whose stat differs
  // and files the image does not know.
  struct Job {
    const std::string* path;
    bool is_py;
    const TrackedFile* old;  // previous state when known
    int64_t old_index;
  };
  std::vector<Job> jobs;
  std::vector<int64_t> cpp_old(listing.cpp.size(), -1), py_old(listing.py.size(), -1);
  std::vector<int64_t> cpp_job(listing.cpp.size(), -1), py_job(listing.py.size(), -1);
  std::vector<uint8_t> cpp_stale, py_stale;
  if (old) {
    cpp_stale.assign(old->cpp_files.size(), 0);
    py_stale.assign(old->py_files.size(), 0);
    for (uint32_t i : changes->cpp) cpp_stale[i] = 1;
    for (uint32_t i : changes->py) py_stale[i] = 1;
  }
  for (int pass = 0; pass < 2; ++pass) {
    const bool is_py = pass == 1;
    const auto& paths = is_py ? listing.py : listing.cpp;
    auto& olds = is_py ? py_old : cpp_old;
    auto& job_of = is_py ? py_job : cpp_job;
    for (size_t i = 0; i < paths.size(); ++i) {
      int64_t o = old ? FindTracked(is_py ? old->py_files : old->cpp_files, paths[i]) : -1;
      olds[i] = o;
      bool stale = o < 0 || (is_py ? py_stale[o] : cpp_stale[o]);
      if (!stale) continue;
      const TrackedFile* prev = o < 0 ? nullptr : &(is_py ? old->py_files : old->cpp_files)[o];
      job_of[i] = static_cast<int64_t>(jobs.size());
      jobs.push_back({&paths[i], is_py, prev, o});
      if (o < 0 && old) ++report->added;
    }
  }
  if (old) {
    size_t kept = 0;
    for (int64_t o : cpp_old) kept += o >= 0;
    for (int64_t o : py_old) kept += o >= 0;
    report->removed = old->cpp_files.size() + old->py_files.size() - kept;
  }
  report->cpp_files = listing.cpp.size();
  report->py_files = listing.py.size();

  // Scan.
  std::vector<Scanned> scanned(jobs.size());
  {
    std::atomic<size_t> done{0};
    Progress progress(options.progress && jobs.size() > 50, jobs.size(), &done);
    ParallelFor(jobs.size(), threads, [&](size_t i) {
      thread_local bool warmed = false;
      if (!warmed) {
        WarmHeap();
        warmed = true;
      }
      thread_local std::string text;
      ScanOne(tree, real, *jobs[i].path, jobs[i].is_py, jobs[i].old, &text, &scanned[i]);
      done.fetch_add(1);
    });
  }
  if (yaml_thread.joinable()) yaml_thread.join();
  if (!yaml_status.ok()) return yaml_status;
  for (const Scanned& s : scanned) report->rescanned += !s.reuse;
  report->scan_ms = MsSince(t0);

  // Merge into an arena (or the heap when no arena slot is free).
  auto t1 = Clock::now();
  std::string arena_error;
  int slot = old ? 1 - ArenaSlotOf(old) : 0;
  Arena* arena = Arena::Create(slot, &arena_error);
  if (!arena) arena = Arena::Create(1 - slot, &arena_error);
  // The image's tables first (one thread), then the C++ and Python indexes
  // merged on two threads into the same (thread-safe) arena.
  ImageRoot* img;
  {
    ArenaScope scope(arena);  // a null arena: the heap
    img = new ImageRoot;
    img->root = tree.root;
    // The tables a warm load reads come first, so that its freshness check
    // touches a few contiguous pages, not one page per file all over the image.
    img->yaml_files = !old || changes->yaml_changed ? yaml_files : old->yaml_files;
    img->watch_dirs = watch_dirs;
    img->dirs = dirs;
    img->cpp_files.reserve(listing.cpp.size());
    for (size_t i = 0; i < listing.cpp.size(); ++i)
      img->cpp_files.push_back(cpp_job[i] >= 0 ? scanned[cpp_job[i]].file : old->cpp_files[cpp_old[i]]);
    img->py_files.reserve(listing.py.size());
    for (size_t i = 0; i < listing.py.size(); ++i)
      img->py_files.push_back(py_job[i] >= 0 ? scanned[py_job[i]].file : old->py_files[py_old[i]]);
    img->yaml = !old || changes->yaml_changed ? fresh_yaml : old->yaml;
    img->cpp_listing_skipped = listing.cpp_skipped;
    img->py_listing_skipped = listing.py_skipped;
  }
  std::exception_ptr py_failure;
  std::thread py_merge([&] {
    try {
      ArenaScope scope(arena);
      for (size_t i = 0; i < listing.py.size(); ++i) {
        const Scanned* s = py_job[i] >= 0 ? &scanned[py_job[i]] : nullptr;
        img->py.AddModule(s && !s->reuse ? s->py : old->py.modules()[py_old[i]]);
      }
      StoreAccess::SetSkipped(&img->py, listing.py_skipped);
      img->py.Finish();
    } catch (...) {
      py_failure = std::current_exception();
    }
  });
  {
    ArenaScope scope(arena);
    // The old index's file ids number its indexed (not skipped) files in listing order.
    std::vector<uint32_t> old_file_id(old ? old->cpp_files.size() : 0, UINT32_MAX);
    for (uint32_t k = 0, id = 0; k < old_file_id.size(); ++k)
      if (old->cpp_skip_reasons[k].empty()) old_file_id[k] = id++;
    img->cpp_skip_reasons.reserve(listing.cpp.size());
    // At most the old records plus the rescanned ones.
    CppRecordCounts total = old ? old->cpp.Counts() : CppRecordCounts{};
    for (size_t k = 0; k < jobs.size(); ++k)
      if (!jobs[k].is_py) total.Add(scanned[k].cpp.records);
    img->cpp.Reserve(total);
    for (const SkippedPath& s : listing.cpp_skipped) img->cpp.AddSkipped(s.path, s.reason);
    for (size_t i = 0; i < listing.cpp.size(); ++i) {
      const Scanned* s = cpp_job[i] >= 0 ? &scanned[cpp_job[i]] : nullptr;
      const bool fresh = s && !s->reuse;
      const std::string& skip_reason = fresh ? s->cpp.skip_reason : old->cpp_skip_reasons[cpp_old[i]];
      img->cpp_skip_reasons.push_back(skip_reason);
      if (!skip_reason.empty()) {
        img->cpp.AddSkipped(listing.cpp[i], skip_reason);
      } else if (fresh) {
        img->cpp.AddFile(listing.cpp[i], s->cpp.records);
      } else {
        // The old records as scanned, on the heap: only AddFile's copy belongs in the image.
        CppFileRecords kept = [&] {
          ArenaScope heap(nullptr);
          return old->cpp.RecordsOf(old_file_id[cpp_old[i]]);
        }();
        img->cpp.AddFile(listing.cpp[i], kept);
      }
    }
    img->cpp.Finish();
  }
  py_merge.join();
  if (py_failure) std::rethrow_exception(py_failure);
  result->image = img;
  result->arena = arena;
  report->merge_ms = MsSince(t1);
  return Status::Ok();
}

// ---------------------------------------------------------------------------
// Layers.

// At most this many files in a layer; beyond, an update writes a new image
// (folding the layer in), so that lookups stay close to one table probe.
constexpr size_t kMaxLayerFiles = 32;

std::string LayerPath(const std::string& image_path) { return image_path + ".layer"; }

// Puts `layer` over the image: its C++ records over the image's C++ index,
// its modules into the image's Python index (moved: the layer's mapping must
// stay), its stamps over the image's. False, changing nothing, when it does
// not fit.
bool ApplyLayer(ImageRoot* img, LayerRoot* layer) {
  auto fits = [](const std::vector<std::pair<uint32_t, TrackedFile>>& stamps, const std::vector<TrackedFile>& files) {
    for (const auto& [k, stamp] : stamps)
      if (k >= files.size() || files[k].path != stamp.path) return false;
    return true;
  };
  if (!fits(layer->cpp_stamps, img->cpp_files) || !fits(layer->py_stamps, img->py_files)) return false;
  for (const auto& [m, module] : layer->py_modules)
    if (!img->py.CanReplace(m, module)) return false;
  if (!img->cpp.SetLayer(&layer->cpp)) return false;
  for (auto& [m, module] : layer->py_modules) img->py.ReplaceModule(m, std::move(module));
  auto patch = [](const std::vector<std::pair<uint32_t, TrackedFile>>& stamps, std::vector<TrackedFile>* files) {
    for (const auto& [k, stamp] : stamps) {
      TrackedFile& t = (*files)[k];
      t.size = stamp.size;
      t.mtime_ns = stamp.mtime_ns;
      t.hash = stamp.hash;
    }
  };
  patch(layer->cpp_stamps, &img->cpp_files);
  patch(layer->py_stamps, &img->py_files);
  img->dirs = layer->dirs;
  return true;
}

// How many files a layer replaces.
size_t ReplacedFiles(const LayerRoot& layer) {
  size_t n = layer.py_modules.size();
  for (uint32_t id = 0; id < layer.cpp.files().size(); ++id) n += layer.cpp.Replaces(id);
  return n;
}

struct LayerResult {
  LayerRoot* layer = nullptr;
  Arena* arena = nullptr;
};

// Builds a layer over `img` (with its current layer, if any, applied) for the
// changes found, when they allow one: no YAML input changed, no file was
// added or removed or changed whether it is indexed, each C++ file keeps its
// cross-file facts (CppIndex::SameCrossFileFacts), and the layer stays small.
// The new layer holds the old layer's files as well. False: the changes need
// a new image.
bool BuildLayer(const StoreTree& tree, ImageRoot* img, const LayerRoot* old_layer, const Changes& changes,
                  const StoreOptions& options, StoreReport* report, LayerResult* result) {
  if (changes.yaml_changed) return false;
  const RealDisk* real = dynamic_cast<const RealDisk*>(tree.disk.get());
  auto t0 = Clock::now();
  // A directory changed (an editor's temporary file, say): fine if the
  // listing did not. The directories are walked again -- before the listing,
  // as in a full build, so that a file created in between is seen next time
  // -- on a second thread while the changed files are scanned.
  std::vector<TrackedFile> dirs;
  std::thread walker;
  if (changes.listing_changed) {
    // No directories to walk (a MemoryDisk tree): its listing changed.
    if (!real || !img->watch_dirs) return false;
    walker = std::thread([&] { WalkDirs(*real, &dirs); });
  }
  // C++ files first, then Python ones.
  const size_t ncpp = changes.cpp.size();
  std::vector<Scanned> scanned(ncpp + changes.py.size());
  ParallelFor(scanned.size(), Threads(options.threads), [&](size_t j) {
    thread_local std::string text;
    const bool is_py = j >= ncpp;
    const TrackedFile& old = is_py ? img->py_files[changes.py[j - ncpp]] : img->cpp_files[changes.cpp[j]];
    ScanOne(tree, real, old.path, is_py, &old, &text, &scanned[j]);
  });
  if (walker.joinable()) {
    walker.join();
    if (!ListingMatches(ListScope(*tree.disk), *img)) return false;
  } else {
    dirs = img->dirs;
  }
  size_t rescanned = 0;  // reported only if the layer is built
  // The image's file ids number its indexed files in listing order.
  std::vector<uint32_t> file_id(img->cpp_files.size(), UINT32_MAX);
  for (uint32_t k = 0, id = 0; k < file_id.size(); ++k)
    if (img->cpp_skip_reasons[k].empty()) file_id[k] = id++;
  std::vector<std::pair<uint32_t, const CppFileRecords*>> fresh;  // file id -> new records
  for (size_t j = 0; j < ncpp; ++j) {
    const Scanned& sc = scanned[j];
    if (sc.reuse) continue;
    const uint32_t k = changes.cpp[j];
    if (file_id[k] == UINT32_MAX || !sc.cpp.skip_reason.empty()) return false;
    if (!CppIndex::SameCrossFileFacts(img->cpp.RecordsOf(file_id[k]), sc.cpp.records)) return false;
    fresh.emplace_back(file_id[k], &sc.cpp.records);
    ++rescanned;
  }
  std::sort(fresh.begin(), fresh.end());
  std::vector<uint32_t> ids;  // every file of the new layer
  for (uint32_t id = 0; id < img->cpp.files().size(); ++id)
    if (img->cpp.Replaced(id)) ids.push_back(id);
  for (const auto& f : fresh) ids.push_back(f.first);
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  // Modules: the old layer's (as the image's index now holds them) and the rescanned ones.
  std::map<uint32_t, const PyModule*> modules;
  if (old_layer)
    for (const auto& [m, module] : old_layer->py_modules) modules[m] = &img->py.modules()[m];
  for (size_t j = ncpp; j < scanned.size(); ++j) {
    if (scanned[j].reuse) continue;
    // ReplaceModule takes only the same kind of module (an unreadable
    // __init__.py is scanned as no package): else a new image.
    if (!img->py.CanReplace(changes.py[j - ncpp], scanned[j].py)) return false;
    modules[changes.py[j - ncpp]] = &scanned[j].py;
    ++rescanned;
  }
  if (ids.size() + modules.size() > kMaxLayerFiles) return false;
  std::map<uint32_t, TrackedFile> stamps, py_stamps;
  if (old_layer) {
    for (const auto& [k, stamp] : old_layer->cpp_stamps) stamps[k] = stamp;
    for (const auto& [k, stamp] : old_layer->py_stamps) py_stamps[k] = stamp;
  }
  for (size_t j = 0; j < ncpp; ++j) stamps[changes.cpp[j]] = scanned[j].file;
  for (size_t j = ncpp; j < scanned.size(); ++j) py_stamps[changes.py[j - ncpp]] = scanned[j].file;
  report->cpp_files = img->cpp_files.size();
  report->py_files = img->py_files.size();
  report->scan_ms = MsSince(t0);

  auto t1 = Clock::now();
  std::string arena_error;
  const int slot = old_layer ? 5 - ArenaSlotOf(old_layer) : 2;
  Arena* arena = Arena::Create(slot, &arena_error);
  if (!arena) return false;  // no free slot: a new image instead
  ArenaScope scope(arena);
  LayerRoot* layer = new LayerRoot;
  layer->cpp_stamps.assign(stamps.begin(), stamps.end());
  layer->py_stamps.assign(py_stamps.begin(), py_stamps.end());
  layer->dirs = dirs;
  layer->py_modules.reserve(modules.size());
  for (const auto& [m, module] : modules) layer->py_modules.emplace_back(m, *module);
  layer->cpp.BeginLayer(img->cpp);
  size_t next_fresh = 0;
  for (uint32_t id : ids) {
    if (next_fresh < fresh.size() && fresh[next_fresh].first == id) {
      layer->cpp.AddLayerFile(id, img->cpp.file(id), *fresh[next_fresh++].second);
      continue;
    }
    // Kept from the old layer; the copy on the heap, AddLayerFile's in the layer.
    CppFileRecords kept = [&] {
      ArenaScope heap(nullptr);
      return img->cpp.RecordsOf(id);
    }();
    layer->cpp.AddLayerFile(id, img->cpp.file(id), kept);
  }
  layer->cpp.FinishLayer(img->cpp);
  report->merge_ms = MsSince(t1);
  report->rescanned = rescanned;
  result->layer = layer;
  result->arena = arena;
  return true;
}

// ---------------------------------------------------------------------------
// Writing.

std::string DirOf(const std::string& path) { return path.substr(0, path.rfind('/')); }

// Removes temporaries left by killed writers (only the flock holder writes).
void RemoveStaleTemporaries(const std::string& path) {
  std::string dir = DirOf(path), prefix = path.substr(dir.size() + 1) + ".tmp.";
  DIR* d = ::opendir(dir.c_str());
  if (!d) return;
  while (struct dirent* e = ::readdir(d))
    if (std::strncmp(e->d_name, prefix.c_str(), prefix.size()) == 0) ::unlink((dir + "/" + e->d_name).c_str());
  ::closedir(d);
}

// A temporary file for a new image, next to where it will be renamed to.
struct ImageFile {
  std::string tmp;
  int fd = -1;
  ~ImageFile() {
    if (fd >= 0) ::close(fd);
  }
  bool Open(const std::string& path) {
    RemoveStaleTemporaries(path);
    tmp = path + ".tmp." + std::to_string(::getpid());
    fd = ::open(tmp.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    return fd >= 0;
  }
  void Discard() {
    if (fd >= 0) ::unlink(tmp.c_str());
  }
};

// pwrite until all of [data, data + n) is at `offset` in the file.
bool WriteAll(int fd, const void* data, size_t n, off_t offset) {
  const char* p = static_cast<const char*>(data);
  while (n > 0) {
    ssize_t w = ::pwrite(fd, p, n, offset);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      if (w == 0) errno = ENOSPC;
      return false;
    }
    p += w;
    n -= static_cast<size_t>(w);
    offset += w;
  }
  return true;
}

// Saves an image (or a layer) built in `arena`: it is hashed, its bytes go to the
// temporary after the header page, then the header, then the temporary is
// renamed over the old image. (Renaming over a file makes ext4 start the new
// file's writeback first -- auto_da_alloc, the power-failure guarantee below
// -- which costs ~180 ms for pages written through a shared mapping, ~60 ms
// for pages written with pwrite.)
//
// The bytes are written 4 MiB at a time, and each piece, once in the page
// cache, replaces the arena's memory for it (Arena::MapFromFile): the
// memory given back is what the page cache takes for the next piece. Fresh
// memory is slow to touch the first time on this VM (~2 ms per MiB); the
// image then costs one copy of fresh memory in all instead of two.
Status WriteImage(const std::string& path, const std::string& root, Arena& arena, const void* root_object,
                  ImageKind kind, ImageFile& file, uint64_t* bytes) {
  Header h{};
  std::memcpy(h.magic, kind.layer ? kLayerMagic : kMagic, sizeof(kMagic));
  h.base_header_hash = kind.base_header_hash;
  h.format_version = kStoreFormatVersion;
  h.header_size = sizeof(Header);
  h.base = arena.base();
  h.image_bytes = arena.used();
  h.root_offset = reinterpret_cast<uintptr_t>(root_object) - arena.base();
  const std::string& id = BinaryIdentity();
  h.identity_hash = Hash64(id.data(), id.size());
  h.root_hash = Hash64(root.data(), root.size());
  const auto* image = reinterpret_cast<const unsigned char*>(arena.base());
  h.sample_hash = SampleHash(image, h.image_bytes);
  h.full_hash = FullHash(image, h.image_bytes);
  std::snprintf(h.identity, sizeof(h.identity), "%s", id.c_str());
  std::snprintf(h.root, sizeof(h.root), "%s", root.c_str());
  h.header_hash = HeaderHash(h);
  std::vector<char> page(kArenaPage, 0);
  std::memcpy(page.data(), &h, sizeof(h));
  constexpr size_t kPiece = size_t{4} << 20;
  bool ok = true, mapped = true;
  for (size_t off = 0; ok && off < h.image_bytes; off += kPiece) {
    size_t n = std::min<size_t>(kPiece, h.image_bytes - off);
    ok = WriteAll(file.fd, image + off, n, static_cast<off_t>(kArenaPage + off));
    // A failed mapping leaves the rest in anonymous memory (the bytes are the same).
    if (ok && mapped) mapped = arena.MapFromFile(file.fd, off, (n + kArenaPage - 1) / kArenaPage * kArenaPage);
  }
  ok = ok && WriteAll(file.fd, page.data(), page.size(), 0) && ::rename(file.tmp.c_str(), path.c_str()) == 0;
  if (!ok) {
    int err = errno;
    file.Discard();
    return Status::SourceError("cannot write " + path + ": " + std::strerror(err));
  }
  *bytes = kArenaPage + h.image_bytes;
  return Status::Ok();
}

// An exclusive flock on <image>.lock, held while an image is built and written.
class StoreLock {
 public:
  ~StoreLock() {
    if (fd_ >= 0) ::close(fd_);  // releases the flock
  }
  // Returns false when the lock file cannot be created (no writable cache).
  bool Acquire(const std::string& image_path) {
    std::string lock = image_path + ".lock";
    fd_ = ::open(lock.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd_ < 0) return false;
    if (::flock(fd_, LOCK_EX | LOCK_NB) == 0) return true;
    std::cerr << "optrace: waiting for another optrace process to finish writing the index...\n";
    while (::flock(fd_, LOCK_EX) != 0) {
      if (errno != EINTR) return false;
    }
    return true;
  }

 private:
  int fd_ = -1;
};

bool MakeDirs(const std::string& dir) {
  for (size_t i = 1; i <= dir.size(); ++i) {
    if (i < dir.size() && dir[i] != '/') continue;
    std::string part = dir.substr(0, i);
    if (::mkdir(part.c_str(), 0755) != 0 && errno != EEXIST) return false;
  }
  return true;
}

void MoveOut(const StoreTree& tree, ImageRoot* img, Index* out) {
  out->root = tree.root;
  out->version = tree.version;
  out->disk = tree.disk;
  out->yaml = std::move(img->yaml);
  out->cpp = std::move(img->cpp);
  out->py = std::move(img->py);
}

std::string Describe(const Changes& c) {
  if (c.yaml_changed) return "the YAML files changed";
  std::string s = std::to_string(c.count()) + (c.count() == 1 ? " file" : " files") + " changed";
  if (c.listing_changed) s += ", directories changed";
  return s;
}

}  // namespace

bool ForEachScopeDirectory(const std::string& root,
                           const std::function<bool(const std::string& rel, const struct stat& st)>& visit) {
  std::set<std::pair<dev_t, ino_t>> entered;
  std::vector<std::string> stack = {"aten/src/ATen", kPyDir};
  while (!stack.empty()) {
    std::string rel = std::move(stack.back());
    stack.pop_back();
    std::string abs = root + "/" + rel;
    struct stat st;
    if (::stat(abs.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) continue;
    if (!entered.insert({st.st_dev, st.st_ino}).second) continue;
    if (!visit(rel, st)) return false;
    DIR* d = ::opendir(abs.c_str());
    if (!d) continue;
    while (struct dirent* e = ::readdir(d)) {
      if (e->d_name[0] == '.' && (!e->d_name[1] || (e->d_name[1] == '.' && !e->d_name[2]))) continue;
      bool dir = e->d_type == DT_DIR;
      if (e->d_type == DT_LNK || e->d_type == DT_UNKNOWN) {
        struct stat ls;
        dir = ::stat((abs + "/" + e->d_name).c_str(), &ls) == 0 && S_ISDIR(ls.st_mode);
      }
      if (dir) stack.push_back(rel + "/" + e->d_name);
    }
    ::closedir(d);
  }
  return true;
}

const char* StoreActionName(StoreReport::Action action) {
  switch (action) {
    case StoreReport::Action::kLoaded: return "loaded";
    case StoreReport::Action::kUpdated: return "updated";
    case StoreReport::Action::kBuilt: return "built";
    case StoreReport::Action::kInMemory: return "built in memory (not saved)";
  }
  return "?";
}

std::string DefaultStoreDir() {
  const char* xdg = std::getenv("XDG_CACHE_HOME");
  if (xdg && *xdg == '/') return std::string(xdg) + "/optrace";
  const char* home = std::getenv("HOME");
  return std::string(home && *home ? home : "/tmp") + "/.cache/optrace";
}

std::string StorePath(const std::string& store_dir, const std::string& root) {
  char hex[17];
  std::snprintf(hex, sizeof(hex), "%016llx", static_cast<unsigned long long>(Hash64(root.data(), root.size())));
  return store_dir + "/index-" + hex + ".img";
}

Status LoadWithStore(const StoreTree& tree, const StoreOptions& options, Index* out, StoreReport* report) {
  auto t0 = Clock::now();
  *report = StoreReport{};
  const std::string dir = options.dir.empty() ? DefaultStoreDir() : options.dir;
  report->path = StorePath(dir, tree.root);
  const std::string layer_path = LayerPath(report->path);

  Mapped mapped, layer;
  FileIdentity image_seen, layer_seen;  // the files the last try_open found
  Changes changes;
  auto try_open = [&](bool announce) -> bool {
    Unmap(&layer);
    Unmap(&mapped);
    std::string why;
    OpenResult r =
        options.rebuild ? OpenResult::kMissing : OpenImage(report->path, tree.root, ImageKind{}, &mapped, &why);
    image_seen = mapped.file;
    layer_seen = FileIdentity{};
    if (options.rebuild) why = "--rebuild";
    if (r != OpenResult::kOk) {
      report->reason = why;
      if (announce && (r == OpenResult::kBroken || r == OpenResult::kForeign))
        std::cerr << "optrace: the index " << report->path << " is unusable (" << why << "); rebuilding\n";
      return false;
    }
    // A layer made for another image (an older one) is ignored; the image's
    // own stamps then tell what changed since.
    r = OpenImage(layer_path, tree.root, ImageKind{true, mapped.header.header_hash}, &layer, &why);
    layer_seen = layer.file;
    if (r == OpenResult::kOk && !ApplyLayer(mapped.image, layer.layer)) {
      r = OpenResult::kBroken;
      why = "does not fit its image";
    }
    if (r != OpenResult::kOk) {
      if (announce && r == OpenResult::kBroken)
        std::cerr << "optrace: the index layer " << layer_path << " is unusable (" << why << "); ignoring it\n";
      Unmap(&layer);
    }
    auto tc = Clock::now();
    changes = FindChanges(*mapped.image, tree, options.threads);
    report->check_ms = MsSince(tc);
    return true;
  };

  // A fresh image: its objects move into *out and the mappings stay, as
  // *out's memory lives in them.
  auto serve = [&](StoreReport::Action action) {
    RememberArenaMapping(mapped.addr, mapped.length);
    if (layer.addr) RememberArenaMapping(layer.addr, layer.length);
    report->action = action;
    if (action == StoreReport::Action::kLoaded) report->reason.clear();
    report->cpp_files = mapped.image->cpp_files.size();
    report->py_files = mapped.image->py_files.size();
    report->image_bytes = kArenaPage + mapped.header.image_bytes;
    if (layer.addr) report->layer_bytes = kArenaPage + layer.header.image_bytes;
    if (layer.layer) report->layer_files = ReplacedFiles(*layer.layer);
    MoveOut(tree, mapped.image, out);
    report->total_ms = MsSince(t0);
    return Status::Ok();
  };
  bool opened = try_open(true);
  if (opened && !changes.any()) return serve(StoreReport::Action::kLoaded);

  // Something to build: take the lock, then look again (another process may
  // have just written a fresh image).
  StoreLock lock;
  bool can_write = options.write && MakeDirs(dir) && lock.Acquire(report->path);
  // Unless the files are the ones already checked.
  if (can_write && !options.rebuild &&
      (IdentifyPath(report->path) != image_seen || (opened && IdentifyPath(layer_path) != layer_seen))) {
    opened = try_open(false);
    if (opened && !changes.any()) return serve(StoreReport::Action::kLoaded);
  }
  if (opened) report->reason = Describe(changes);

  // A few files edited: a layer over the image, not a new image.
  LayerResult layered;
  ImageFile layer_file;
  if (opened && can_write && BuildLayer(tree, mapped.image, layer.layer, changes, options, report, &layered) &&
      layer_file.Open(layer_path)) {
    auto tw = Clock::now();
    uint64_t bytes = 0;
    Status w = WriteImage(layer_path, tree.root, *layered.arena, layered.layer,
                          ImageKind{true, mapped.header.header_hash}, layer_file, &bytes);
    report->write_ms = MsSince(tw);
    // The new layer over the image in place of the old one, which nothing
    // refers to any more (the new one's arena stays mapped).
    if (w.ok() && ApplyLayer(mapped.image, layered.layer)) {
      report->layer_files = ReplacedFiles(*layered.layer);
      Unmap(&layer);
      report->layer_bytes = bytes;
      return serve(StoreReport::Action::kUpdated);
    }
    // Not saved, or (built over this very image, it always should) not
    // fitting: a new image instead; the old layer, if any, is still on.
    if (w.ok()) ::unlink(layer_path.c_str());
  }

  const ImageRoot* old = opened && !changes.yaml_changed ? mapped.image : nullptr;
  if (!old) {  // frees their address ranges for the new image
    Unmap(&layer);
    Unmap(&mapped);
  }
  ImageFile file;
  if (can_write && !file.Open(report->path)) {
    std::cerr << "optrace: cannot write " << file.tmp << ": " << std::strerror(errno)
              << " (the index is kept in memory only)\n";
    can_write = false;
  }
  BuildResult built;
  Status s = BuildImage(tree, old, old ? &changes : nullptr, options, report, &built);
  Unmap(&layer);  // everything needed was copied
  Unmap(&mapped);
  if (!s.ok()) {
    file.Discard();
    return s;
  }
  report->action = old ? StoreReport::Action::kUpdated : StoreReport::Action::kBuilt;
  if (can_write && built.arena) {
    auto tw = Clock::now();
    Status w =
        WriteImage(report->path, tree.root, *built.arena, built.image, ImageKind{}, file, &report->image_bytes);
    report->write_ms = MsSince(tw);
    if (!w.ok()) {
      std::cerr << "optrace: " << w.message() << " (the index is kept in memory only)\n";
      report->action = StoreReport::Action::kInMemory;
    } else {
      ::unlink(layer_path.c_str());  // made for the image just replaced
    }
  } else {
    file.Discard();
    report->action = StoreReport::Action::kInMemory;
  }
  MoveOut(tree, built.image, out);
  report->total_ms = MsSince(t0);
  return Status::Ok();
}

Status CheckStore(const StoreTree& tree, const StoreOptions& options, StoreReport* report) {
  auto t0 = Clock::now();
  *report = StoreReport{};
  const std::string dir = options.dir.empty() ? DefaultStoreDir() : options.dir;
  report->path = StorePath(dir, tree.root);
  const std::string layer_path = LayerPath(report->path);
  Mapped mapped, layer;
  struct Unmapper {
    Mapped* m;
    ~Unmapper() { Unmap(m); }
  } unmap_image{&mapped}, unmap_layer{&layer};
  std::string why;
  OpenResult r = OpenImage(report->path, tree.root, ImageKind{}, &mapped, &why);
  if (r != OpenResult::kOk) return Status::SourceError(report->path + ": " + why);
  auto intact = [](const Mapped& m) {
    return FullHash(reinterpret_cast<const unsigned char*>(m.header.base), m.header.image_bytes) == m.header.full_hash;
  };
  if (!intact(mapped)) return Status::SourceError(report->path + ": checksum mismatch (the file is damaged)");
  r = OpenImage(layer_path, tree.root, ImageKind{true, mapped.header.header_hash}, &layer, &why);
  if (r == OpenResult::kBroken) return Status::SourceError(layer_path + ": " + why);
  if (r == OpenResult::kOk) {
    if (!intact(layer)) return Status::SourceError(layer_path + ": checksum mismatch (the file is damaged)");
    report->layer_files = ReplacedFiles(*layer.layer);
    if (!ApplyLayer(mapped.image, layer.layer)) return Status::SourceError(layer_path + ": does not fit its image");
    report->layer_bytes = kArenaPage + layer.header.image_bytes;
  }
  Changes changes = FindChanges(*mapped.image, tree, options.threads);
  report->cpp_files = mapped.image->cpp_files.size();
  report->py_files = mapped.image->py_files.size();
  report->image_bytes = kArenaPage + mapped.header.image_bytes;
  report->total_ms = MsSince(t0);
  if (changes.any()) {
    report->reason = changes.yaml_changed || changes.count() ? Describe(changes) : "files were added or removed";
    return Status::SourceError(report->path + " is stale: " + report->reason);
  }
  return Status::Ok();
}

}  // namespace optrace
