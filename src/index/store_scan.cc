// What changed in the tree since an image was written, and building a new
// image from the old one and the changed files. Freshness compares each
// tracked file's size, mtime, ctime and inode (as git does) and each watched
// directory's mtime, on a few threads; a changed file is read and hashed, and
// scanned again only when its contents differ. A build scans in parallel and
// merges the indexes into a fresh arena (store_arena.h), freeing each file's
// scan as the arena takes its copy and giving that memory back to the system,
// so the build never holds every scan and the whole image at once. Files larger than
// kMaxIndexedFileBytes are listed as skipped instead of scanned.
#include <dirent.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string_view>
#include <unordered_map>

#include "base/cores.h"
#include "base/heap.h"
#include "base/text.h"
#include "cpp/cpp_index_writer.h"
#include "index/store_internal.h"

namespace optrace {

// Friend of PyIndex: a restored index keeps the listing's skipped paths.
struct StoreAccess {
  static void SetSkipped(PyIndex* py, std::vector<SkippedPath> skipped) { py->skipped_ = std::move(skipped); }
};

namespace store_internal {

namespace {

bool IsPyPath(std::string_view p) { return p.size() > 3 && p.substr(p.size() - 3) == ".py"; }

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
}  // namespace

Listing ListScope(const Disk& disk) {
  Listing l;
  for (const char* dir : kCppDirs)
    disk.ListFiles(
        dir, [](std::string_view p) { return InCppScope(p); }, &l.cpp, &l.cpp_skipped);
  std::sort(l.cpp.begin(), l.cpp.end());
  l.cpp.erase(std::unique(l.cpp.begin(), l.cpp.end()), l.cpp.end());
  disk.ListFiles(kPyDir, IsPyPath, &l.py, &l.py_skipped);
  std::sort(l.py.begin(), l.py.end());
  return l;
}

// Stat through the fast path for a real tree: RealDisk::Stat canonicalises
// the path (a syscall per component); the store only needs to know whether a
// file it indexed through the Disk still has the same stamp. A file that now
// differs (a symlink swapped in included) is read again through the Disk,
// which applies its confinement rules.
bool StampOf(const struct stat& s, TrackedFile* st) {
  if (!S_ISREG(s.st_mode) && !S_ISDIR(s.st_mode)) return false;
  st->size = static_cast<uint64_t>(s.st_size);
  st->mtime_ns = static_cast<int64_t>(s.st_mtim.tv_sec) * 1000000000 + s.st_mtim.tv_nsec;
  st->ctime_ns = static_cast<int64_t>(s.st_ctim.tv_sec) * 1000000000 + s.st_ctim.tv_nsec;
  st->ino = static_cast<uint64_t>(s.st_ino);
  return true;
}

bool StatFile(const StoreTree& tree, const RealDisk* real, const std::string& path, TrackedFile* st) {
  if (!real) {
    // A MemoryDisk tree: size and mtime are all it has.
    FileStat fs;
    if (!tree.disk->Stat(path, &fs).ok()) return false;
    st->size = fs.size;
    st->mtime_ns = fs.mtime_ns;
    return true;
  }
  struct stat s;
  return ::stat((real->root() + "/" + path).c_str(), &s) == 0 && StampOf(s, st);
}

// Every directory under the scope's roots, with its mtime: creating,
// deleting or renaming a file changes its directory's mtime.
void WalkDirs(const RealDisk& real, std::vector<TrackedFile>* dirs) {
  ForEachScopeDirectory(real.root(), [&](const std::string& rel, const struct stat& st) {
    TrackedFile dir;
    dir.path = rel;
    StampOf(st, &dir);
    dir.size = 0;
    dirs->push_back(std::move(dir));
    return true;
  });
  std::sort(dirs->begin(), dirs->end(), [](const TrackedFile& a, const TrackedFile& b) { return a.path < b.path; });
}

unsigned Threads(unsigned requested) { return requested ? requested : UsableCores(); }

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

// ---------------------------------------------------------------------------
// Freshness.

// As git compares its index with the work tree: an edit that keeps size and
// mtime (cp -p, rsync -t, an edit within the timestamp's granularity) still
// changes the ctime; a file replaced by another has a new inode.
bool SameStat(const TrackedFile& t, const TrackedFile& s) {
  return t.size == s.size && t.mtime_ns == s.mtime_ns && t.ctime_ns == s.ctime_ns && t.ino == s.ino;
}

// Whether listing the tree now gives the files (and skipped paths) the image holds.
bool ListingMatches(const Listing& now, const ImageRoot& img) {
  auto same_paths = [](const std::vector<std::string>& paths, const std::vector<TrackedFile>& files) {
    return std::equal(paths.begin(), paths.end(), files.begin(), files.end(),
                      [](const std::string& p, const TrackedFile& f) { return p == f.path; });
  };
  auto same_skipped = [](const std::vector<SkippedPath>& a, const std::vector<SkippedPath>& b) {
    return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](const SkippedPath& x, const SkippedPath& y) {
      return x.path == y.path && x.reason == y.reason;
    });
  };
  return same_paths(now.cpp, img.cpp_files) && same_paths(now.py, img.py_files) &&
         same_skipped(now.cpp_skipped, img.cpp_listing_skipped) && same_skipped(now.py_skipped, img.py_listing_skipped);
}

Changes FindChanges(const ImageRoot& img, const StoreTree& tree, unsigned threads) {
  Changes c;
  const RealDisk* real = dynamic_cast<const RealDisk*>(tree.disk.get());
  for (const TrackedFile& y : img.yaml_files) {
    TrackedFile st;
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
  auto judge = [&](size_t i, bool ok, const TrackedFile& st) {
    differs[i] = !ok ? 2 : (i < nc + np ? !SameStat(tracked(i), st) : tracked(i).mtime_ns != st.mtime_ns);
  };
  unsigned workers = std::min(Threads(threads), 4u);
  if (!real) {
    ParallelFor(total, workers, [&](size_t i) {
      TrackedFile st;
      judge(i, StatFile(tree, real, tracked(i).path, &st), st);
    });
  } else {
    // A stat by full path walks every component from / (~9 per file); one
    // by name relative to an open directory walks one. So group the jobs by
    // directory, open each directory once, and stat its entries by name.
    struct Group {
      std::string_view dir;
      int32_t self = -1;            // the job for the directory itself, if watched
      std::vector<uint32_t> files;  // jobs naming a file in it
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
      TrackedFile st;
      if (grp.self >= 0)
        judge(grp.self, dfd >= 0 && ::fstat(dfd, &s) == 0 && S_ISDIR(s.st_mode) && StampOf(s, &st), st);
      for (uint32_t i : grp.files) {
        std::string_view path = tracked(i).path;
        std::string name(grp.dir == "." ? path : path.substr(grp.dir.size() + 1));
        judge(i, dfd >= 0 && ::fstatat(dfd, name.c_str(), &s, 0) == 0 && StampOf(s, &st), st);
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

bool IsDuplicate(const std::string& skip_reason) { return StartsWith(skip_reason, kDuplicateOf); }

// Stats, reads, hashes and scans one file. Stat before reading: a file
// written meanwhile then looks changed on the next load, never the reverse.
// A file over kMaxIndexedFileBytes is not read at all.
void ScanOne(const StoreTree& tree, const RealDisk* real, const std::string& path, bool is_py, const TrackedFile* old,
             std::string* text, Scanned* out) {
  out->file.path = path;
  const bool stated = StatFile(tree, real, path, &out->file);
  Status s = Status::Ok();
  if (stated && out->file.size != kMissing && out->file.size > kMaxIndexedFileBytes) {
    char why[96];
    std::snprintf(why, sizeof(why), "too large (%.1f MiB; files over %llu MiB are not indexed)",
                  out->file.size / 1048576.0, static_cast<unsigned long long>(kMaxIndexedFileBytes >> 20));
    s = Status::SourceError(why);
    text->clear();
    out->file.hash = 0;
  } else {
    s = tree.disk->ReadFile(path, text);
    out->file.hash = s.ok() ? Hash64(text->data(), text->size()) : 0;
  }
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
    out->cpp.skip_reason = StartsWith(s.message(), "too large") ? s.message() : "unreadable: " + s.message();
  } else if (LooksBinary(*text)) {
    out->cpp.skip_reason = "binary";
  } else {
    out->cpp.records = ScanCppFile(path, *text);
  }
}

namespace {

// Where a path's previous state is: index into the image's sorted list, or -1.
int64_t FindTracked(const std::vector<TrackedFile>& files, const std::string& path) {
  auto it = std::lower_bound(files.begin(), files.end(), path,
                             [](const TrackedFile& t, const std::string& p) { return t.path < p; });
  return it != files.end() && it->path == path ? it - files.begin() : -1;
}

// Every this many scans freed during a merge, their memory goes back to
// the system (a full build of 2.6.0 frees ~4000: 16 trims).
constexpr size_t kTrimEvery = 256;

// One build of an image: the old image (null: a full build), what changed,
// the listing, which files to scan and their scans, and the new image.
class ImageBuild {
 public:
  ImageBuild(const StoreTree& tree, const ImageRoot* old, const Changes* changes, const StoreOptions& options,
             StoreReport* report)
      : tree_(tree),
        real_(dynamic_cast<const RealDisk*>(tree.disk.get())),
        old_(old),
        changes_(changes),
        options_(options),
        report_(report) {}

  Status Run(BuildResult* result) {
    auto t0 = Clock::now();
    // The scan allocates and frees blocks of up to several MiB per file on each
    // thread (token vectors, records). glibc's defaults give blocks that large
    // back to the kernel when freed (a mapping of their own, or trimming the
    // heap's top), and the next file faults them in again, 4 KiB at a time:
    // a full build took ~47k page faults, ~28k with the huge-page blocks of
    // store_arena.cc, ~19k with the blocks kept. They stay for the process's
    // lifetime: it keeps up to its peak heap instead of returning memory.
    KeepFreedBlocks();
    // A full build loads the YAML model on a thread of its own, from now on:
    // alongside the listing (one thread) and then the scan.
    std::thread yaml_thread;
    if (NewYaml()) yaml_thread = std::thread([this] { LoadYaml(); });
    ListFiles();
    PlanJobs();
    Scan();
    if (yaml_thread.joinable()) yaml_thread.join();
    if (!yaml_status_.ok()) return yaml_status_;
    for (const Scanned& s : scanned_) report_->rescanned += !s.reuse;
    report_->scan_ms = MsSince(t0);
    auto t1 = Clock::now();
    Merge(result);
    report_->merge_ms = MsSince(t1);
    return Status::Ok();
  }

 private:
  struct Job {
    const std::string* path;
    bool is_py;
    const TrackedFile* old;  // previous state when known
  };

  bool NewYaml() const { return !old_ || changes_->yaml_changed; }
  bool NewListing() const { return !old_ || changes_->listing_changed; }

  void LoadYaml() {
    WarmHeap();
    for (const char* p : kYamlFiles) {
      TrackedFile t;
      t.path = p;
      StatFile(tree_, real_, p, &t);
      yaml_files_.push_back(std::move(t));
    }
    yaml_status_ = YamlModel::Load(*tree_.disk, &yaml_);
  }

  // Directories: walked again whenever the listing is, and before it: a file
  // created or deleted from now on changes a recorded mtime, so the next load
  // lists again (walked after the listing, a file created in between would
  // be missed by both). The file lists: the image's own unless files may have
  // come or gone.
  void ListFiles() {
    watch_dirs_ = real_ != nullptr;
    if (watch_dirs_) {
      if (NewListing()) WalkDirs(*real_, &dirs_);
      else dirs_ = old_->dirs;
    }
    if (NewListing()) {
      listing_ = ListScope(*tree_.disk);
      return;
    }
    for (const TrackedFile& f : old_->cpp_files) listing_.cpp.push_back(f.path);
    for (const TrackedFile& f : old_->py_files) listing_.py.push_back(f.path);
    listing_.cpp_skipped = old_->cpp_listing_skipped;
    listing_.py_skipped = old_->py_listing_skipped;
  }

  // What to scan: every file of a full build; else files whose stat differs
  // and files the image does not know.
  void PlanJobs() {
    cpp_old_.assign(listing_.cpp.size(), -1);
    py_old_.assign(listing_.py.size(), -1);
    cpp_job_.assign(listing_.cpp.size(), -1);
    py_job_.assign(listing_.py.size(), -1);
    std::vector<uint8_t> cpp_stale, py_stale;
    if (old_) {
      cpp_stale.assign(old_->cpp_files.size(), 0);
      py_stale.assign(old_->py_files.size(), 0);
      for (uint32_t i : changes_->cpp) cpp_stale[i] = 1;
      for (uint32_t i : changes_->py) py_stale[i] = 1;
    }
    for (int pass = 0; pass < 2; ++pass) {
      const bool is_py = pass == 1;
      const auto& paths = is_py ? listing_.py : listing_.cpp;
      auto& olds = is_py ? py_old_ : cpp_old_;
      auto& job_of = is_py ? py_job_ : cpp_job_;
      for (size_t i = 0; i < paths.size(); ++i) {
        int64_t o = old_ ? FindTracked(is_py ? old_->py_files : old_->cpp_files, paths[i]) : -1;
        olds[i] = o;
        // A file skipped as a duplicate has no records to reuse: scanned
        // again, in case the file it duplicated changed.
        const bool duplicate = o >= 0 && !is_py && IsDuplicate(old_->cpp_skip_reasons[o]);
        bool stale = o < 0 || duplicate || (is_py ? py_stale[o] : cpp_stale[o]);
        if (!stale) continue;
        const TrackedFile* prev = o < 0 || duplicate ? nullptr : &(is_py ? old_->py_files : old_->cpp_files)[o];
        job_of[i] = static_cast<int64_t>(jobs_.size());
        jobs_.push_back({&paths[i], is_py, prev});
        if (o < 0 && old_) ++report_->added;
      }
    }
    if (old_) {
      size_t kept = 0;
      for (int64_t o : cpp_old_) kept += o >= 0;
      for (int64_t o : py_old_) kept += o >= 0;
      report_->removed = old_->cpp_files.size() + old_->py_files.size() - kept;
    }
    report_->cpp_files = listing_.cpp.size();
    report_->py_files = listing_.py.size();
  }

  // Frees what the scan made for one file once the image holds a copy, and
  // every kTrimEvery files gives the freed memory back to the system: the
  // scans lie on the scan threads' heaps, which the merge (allocating in the
  // arena) never reuses, and Run's malloc settings keep freed memory in the
  // process -- without this the build's peak is every scan and the whole
  // image at once.
  template <class T>
  void FreeScanned(T* scanned) {
    {
      ArenaScope heap(nullptr);
      *scanned = T{};
    }
    if (freed_.fetch_add(1) % kTrimEvery == kTrimEvery - 1) ReturnFreedMemory();
  }

  void Scan();
  void Merge(BuildResult* result);
  void MergeTables(ImageRoot* img);
  void MergePy(ImageRoot* img);
  void MergeCpp(ImageRoot* img);

  const StoreTree& tree_;
  const RealDisk* real_;
  const ImageRoot* old_;
  const Changes* changes_;
  const StoreOptions& options_;
  StoreReport* report_;

  YamlModel yaml_;
  Status yaml_status_ = Status::Ok();
  std::vector<TrackedFile> yaml_files_;
  bool watch_dirs_ = false;
  std::vector<TrackedFile> dirs_;
  Listing listing_;
  std::vector<Job> jobs_;
  std::vector<int64_t> cpp_old_, py_old_;  // listing index -> the old image's index, or -1
  std::vector<int64_t> cpp_job_, py_job_;  // listing index -> jobs_ index, or -1
  std::vector<Scanned> scanned_;           // parallel to jobs_
  std::atomic<size_t> freed_{0};           // scans freed by the merge (FreeScanned)
};

void ImageBuild::Scan() {
  scanned_.resize(jobs_.size());
  std::atomic<size_t> done{0};
  Progress progress(options_.progress && jobs_.size() > 50, jobs_.size(), &done);
  ParallelFor(jobs_.size(), Threads(options_.threads), [&](size_t i) {
    thread_local bool warmed = false;
    if (!warmed) {
      WarmHeap();
      warmed = true;
    }
    thread_local std::string text;
    ScanOne(tree_, real_, *jobs_[i].path, jobs_[i].is_py, jobs_[i].old, &text, &scanned_[i]);
    done.fetch_add(1);
  });
}

// Merges into an arena (or the heap when no arena slot is free): the image's
// tables first (one thread), then the C++ and Python indexes on two threads
// into the same (thread-safe) arena.
void ImageBuild::Merge(BuildResult* result) {
  std::string arena_error;
  int slot = old_ ? 1 - ArenaSlotOf(old_) : 0;
  Arena* arena = Arena::Create(slot, &arena_error);
  if (!arena) arena = Arena::Create(1 - slot, &arena_error);
  ImageRoot* img;
  {
    ArenaScope scope(arena);  // a null arena: the heap
    img = new ImageRoot;
    MergeTables(img);
  }
  std::exception_ptr py_failure;
  std::thread py_merge([&] {
    try {
      ArenaScope scope(arena);
      MergePy(img);
    } catch (...) {
      py_failure = std::current_exception();
    }
  });
  {
    ArenaScope scope(arena);
    MergeCpp(img);
  }
  py_merge.join();
  if (py_failure) std::rethrow_exception(py_failure);
  result->image = img;
  result->arena = arena;
}

void ImageBuild::MergeTables(ImageRoot* img) {
  img->root = tree_.root;
  // The tables a warm load reads come first, so that its freshness check
  // touches a few contiguous pages, not one page per file all over the image.
  img->yaml_files = NewYaml() ? yaml_files_ : old_->yaml_files;
  img->watch_dirs = watch_dirs_;
  img->dirs = dirs_;
  img->cpp_files.reserve(listing_.cpp.size());
  for (size_t i = 0; i < listing_.cpp.size(); ++i)
    img->cpp_files.push_back(cpp_job_[i] >= 0 ? scanned_[cpp_job_[i]].file : old_->cpp_files[cpp_old_[i]]);
  img->py_files.reserve(listing_.py.size());
  for (size_t i = 0; i < listing_.py.size(); ++i)
    img->py_files.push_back(py_job_[i] >= 0 ? scanned_[py_job_[i]].file : old_->py_files[py_old_[i]]);
  img->yaml = NewYaml() ? yaml_ : old_->yaml;
  FreeScanned(&yaml_);  // copied into the image
  img->cpp_listing_skipped = listing_.cpp_skipped;
  img->py_listing_skipped = listing_.py_skipped;
}

void ImageBuild::MergePy(ImageRoot* img) {
  for (size_t i = 0; i < listing_.py.size(); ++i) {
    Scanned* s = py_job_[i] >= 0 ? &scanned_[py_job_[i]] : nullptr;
    img->py.AddModule(s && !s->reuse ? s->py : old_->py.modules()[py_old_[i]]);
    if (s) FreeScanned(&s->py);  // copied into the image
  }
  StoreAccess::SetSkipped(&img->py, listing_.py_skipped);
  img->py.Finish();
}

void ImageBuild::MergeCpp(ImageRoot* img) {
  // The old index's file ids number its indexed (not skipped) files in listing order.
  std::vector<uint32_t> old_file_id(old_ ? old_->cpp_files.size() : 0, UINT32_MAX);
  for (uint32_t k = 0, id = 0; k < old_file_id.size(); ++k)
    if (old_->cpp_skip_reasons[k].empty()) old_file_id[k] = id++;
  // Which files are skipped, duplicates included, before anything is reserved.
  img->cpp_skip_reasons.reserve(listing_.cpp.size());
  std::unordered_map<uint64_t, size_t> first_with_hash;  // contents -> the first indexed file with them
  for (size_t i = 0; i < listing_.cpp.size(); ++i) {
    const Scanned* s = cpp_job_[i] >= 0 ? &scanned_[cpp_job_[i]] : nullptr;
    std::string skip_reason = s && !s->reuse ? s->cpp.skip_reason : old_->cpp_skip_reasons[cpp_old_[i]];
    if (skip_reason.empty()) {
      auto [first, inserted] = first_with_hash.try_emplace(img->cpp_files[i].hash, i);
      if (!inserted) skip_reason = std::string(kDuplicateOf) + listing_.cpp[first->second] + " (the same contents)";
    }
    img->cpp_skip_reasons.push_back(std::move(skip_reason));
  }
  // At most the old records plus the rescanned files that are indexed. The
  // reserved room is part of the image: counting skipped copies too made 800
  // copies of one file double the image and every trace's memory.
  CppRecordCounts total = old_ ? old_->cpp.Counts() : CppRecordCounts{};
  for (size_t i = 0; i < listing_.cpp.size(); ++i)
    if (cpp_job_[i] >= 0 && !scanned_[cpp_job_[i]].reuse && img->cpp_skip_reasons[i].empty())
      total.Add(scanned_[cpp_job_[i]].cpp.records);
  CppIndexWriter writer(&img->cpp);
  writer.Reserve(total);
  for (const SkippedPath& s : listing_.cpp_skipped) writer.AddSkipped(s.path, s.reason);
  for (size_t i = 0; i < listing_.cpp.size(); ++i) {
    const Scanned* s = cpp_job_[i] >= 0 ? &scanned_[cpp_job_[i]] : nullptr;
    const bool fresh = s && !s->reuse;
    const std::string& skip_reason = img->cpp_skip_reasons[i];
    if (!skip_reason.empty()) {
      writer.AddSkipped(listing_.cpp[i], skip_reason);
    } else if (fresh) {
      writer.AddFile(listing_.cpp[i], s->cpp.records);
    } else {
      // The old records as scanned, on the heap: only AddFile's copy belongs in the image.
      CppFileRecords kept = [&] {
        ArenaScope heap(nullptr);
        return old_->cpp.RecordsOf(old_file_id[cpp_old_[i]]);
      }();
      writer.AddFile(listing_.cpp[i], kept);
    }
    if (fresh) FreeScanned(&scanned_[cpp_job_[i]].cpp);  // copied into the image, or skipped
  }
  writer.Finish();
}

}  // namespace

Status BuildImage(const StoreTree& tree, const ImageRoot* old, const Changes* changes, const StoreOptions& options,
                  StoreReport* report, BuildResult* result) {
  Status s = ImageBuild(tree, old, changes, options, report).Run(result);
  // What the last scans freed (FreeScanned trims only every kTrimEvery),
  // given back before the trace that follows a cold build. Measured (2.6.0,
  // index build + trace nn.LSTM from an empty cache, 2 loaded cores): peak
  // RSS 260-286 -> 188-192 MB with the scans freed as they are stored.
  ReturnFreedMemory();
  return s;
}

}  // namespace store_internal
}  // namespace optrace
