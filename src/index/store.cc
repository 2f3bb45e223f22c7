// The index store. A load goes: check that the cache folder is this user's
// own, open the image (header checks, checksum of every byte), stat-walk the
// in-scope files and directories on a few threads, and when nothing changed
// move the three indexes out of the image -- no decoding at all. Otherwise
// take the store's flock, scan only what changed (in parallel), and save
// either a small layer over the image or a new image, built in a fresh arena
// and renamed into place. Every failure to read or write an image ends in a
// correct index built in memory, with a message; never in a crash or a stale
// answer. A cache folder another user could write to is refused (exit 3):
// the image holds raw pointers, so whoever can write it controls optrace.
#include "index/store.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <set>

#include "base/installed_torch.h"
#include "index/store_internal.h"

namespace optrace {

using namespace store_internal;

namespace {

// An exclusive flock on <image>.lock, held while an image is built and written.
class StoreLock {
 public:
  ~StoreLock() {
    if (fd_ >= 0) ::close(fd_);  // releases the flock
  }
  // Returns false (with *why) when the lock file cannot be created (no
  // writable cache), or when another process held it for wait_s seconds
  // (*timed_out).
  bool Acquire(const std::string& image_path, double wait_s, std::string* why, bool* timed_out) {
    std::string lock = image_path + ".lock";
    fd_ = ::open(lock.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (fd_ < 0) {
      *why = std::string(std::strerror(errno));
      return false;
    }
    if (::flock(fd_, LOCK_EX | LOCK_NB) == 0) return true;
    std::cerr << "optrace: waiting for another optrace process to finish writing the index...\n";
    // Polled, not a blocking flock: a blocking wait has no deadline.
    const auto deadline = Clock::now() + std::chrono::duration<double>(wait_s);
    while (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
      if (errno != EWOULDBLOCK && errno != EINTR) {
        *why = std::string("flock: ") + std::strerror(errno);
        return false;
      }
      if (Clock::now() >= deadline) {
        *timed_out = true;
        return false;
      }
      ::usleep(20000);
    }
    return true;
  }

 private:
  int fd_ = -1;
};

bool MakeDirs(const std::string& dir, std::string* why) {
  for (size_t i = 1; i <= dir.size(); ++i) {
    if (i < dir.size() && dir[i] != '/') continue;
    std::string part = dir.substr(0, i);
    if (::mkdir(part.c_str(), 0755) != 0 && errno != EEXIST) {
      *why = "cannot create " + part + ": " + std::strerror(errno);
      return false;
    }
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

// A cache that cannot be written costs a full build (~2 s for 2.6.0) on every
// run: said once per process, with what to do.
void SayNotWritable(const std::string& dir, const std::string& why) {
  static bool said = false;
  if (said) return;
  said = true;
  std::cerr << "optrace: cannot save the index in " << dir << " (" << why
            << "): it is built in memory on every run, which is slow; make that folder writable or set "
               "XDG_CACHE_HOME to one that is\n";
}

// One LoadWithStore: the image and layer as found, what changed, and the
// ways to a fresh index (serve as is, a new layer, a new image).
class StoreLoad {
 public:
  StoreLoad(const StoreTree& tree, const StoreOptions& options, Index* out, StoreReport* report)
      : tree_(tree), options_(options), out_(out), report_(report) {}
  ~StoreLoad() {
    Unmap(&layer_);
    Unmap(&mapped_);
  }

  Status Run() {
    t0_ = Clock::now();
    *report_ = StoreReport{};
    dir_ = options_.dir.empty() ? DefaultStoreDir() : options_.dir;
    report_->path = StorePath(dir_, tree_.root);
    layer_path_ = LayerPath(report_->path);
    if (Status trusted = CheckCacheDir(dir_); !trusted.ok()) return trusted;
    bool opened = TryOpen(true);
    if (opened && !changes_.any()) return Serve(StoreReport::Action::kLoaded);
    if (!opened && !refusal_.empty()) return Status::SourceError(refusal_);

    // Something to build: take the lock, then look again (another process may
    // have just written a fresh image) -- unless the files are the ones already checked.
    StoreLock lock;
    std::string why;
    bool timed_out = false;
    bool can_write = options_.write && MakeDirs(dir_, &why) && CheckCacheDir(dir_).ok() &&
                     lock.Acquire(report_->path, LockWait(), &why, &timed_out);
    if (timed_out) {
      std::cerr << "optrace: another optrace process has held " << report_->path << ".lock for " << LockWait()
                << " s (stopped or hung?); building the index in memory, unsaved, this time\n";
    } else if (options_.write && !can_write) {
      SayNotWritable(dir_, why);
    }
    if (can_write && !options_.rebuild &&
        (IdentifyPath(report_->path) != image_seen_ || (opened && IdentifyPath(layer_path_) != layer_seen_))) {
      opened = TryOpen(false);
      if (opened && !changes_.any()) return Serve(StoreReport::Action::kLoaded);
    }
    if (opened) report_->reason = Describe(changes_);
    if (opened && can_write && SaveLayer()) return Serve(StoreReport::Action::kUpdated);
    return SaveImage(opened, can_write);
  }

 private:
  double LockWait() const {
    const char* env = std::getenv("OPTRACE_LOCK_WAIT");
    char* end = nullptr;
    double v = env ? std::strtod(env, &end) : 0;
    return env && end != env && *end == '\0' && v >= 0 && v <= 86400 ? v : options_.lock_wait_s;
  }

  // Maps the image and its layer and finds what changed; false when there
  // is no usable image.
  bool TryOpen(bool announce) {
    Unmap(&layer_);
    Unmap(&mapped_);
    std::string why;
    const ImageKind kind{false, 0, options_.copy};
    OpenResult r = options_.rebuild ? OpenResult::kMissing : OpenImage(report_->path, tree_.root, kind, &mapped_, &why);
    image_seen_ = mapped_.file;
    layer_seen_ = FileIdentity{};
    if (options_.rebuild) why = "--rebuild";
    if (r != OpenResult::kOk) {
      report_->reason = why;
      if (r == OpenResult::kNotOwned) {
        refusal_ = "refusing to use the index: " + why + "; remove it, or set XDG_CACHE_HOME to a folder of your own";
      }
      if (announce && (r == OpenResult::kBroken || r == OpenResult::kForeign))
        std::cerr << "optrace: the index " << report_->path << " is unusable (" << why << "); rebuilding\n";
      return false;
    }
    // A layer made for another image (an older one) is ignored; the image's
    // own stamps then tell what changed since.
    r = OpenImage(layer_path_, tree_.root, ImageKind{true, mapped_.header.header_hash, options_.copy}, &layer_, &why);
    layer_seen_ = layer_.file;
    if (r == OpenResult::kOk && !ApplyLayer(mapped_.image, layer_.layer)) {
      r = OpenResult::kBroken;
      why = "does not fit its image";
    }
    if (r != OpenResult::kOk) {
      if (announce && (r == OpenResult::kBroken || r == OpenResult::kNotOwned))
        std::cerr << "optrace: the index layer " << layer_path_ << " is unusable (" << why << "); ignoring it\n";
      Unmap(&layer_);
    }
    auto tc = Clock::now();
    changes_ = FindChanges(*mapped_.image, tree_, options_.threads);
    report_->check_ms = MsSince(tc);
    return true;
  }

  // A fresh image: its objects move into *out and the mappings stay, as
  // *out's memory lives in them.
  Status Serve(StoreReport::Action action) {
    RememberArenaMapping(mapped_.addr, mapped_.length);
    if (layer_.addr) RememberArenaMapping(layer_.addr, layer_.length);
    report_->action = action;
    if (action == StoreReport::Action::kLoaded) report_->reason.clear();
    report_->cpp_files = mapped_.image->cpp_files.size();
    report_->py_files = mapped_.image->py_files.size();
    report_->image_bytes = kArenaPage + mapped_.header.image_bytes;
    if (layer_.addr) report_->layer_bytes = kArenaPage + layer_.header.image_bytes;
    if (layer_.layer) report_->layer_files = ReplacedFiles(*layer_.layer);
    MoveOut(tree_, mapped_.image, out_);
    mapped_ = Mapped{};  // kept mapped: *out_ lives there
    layer_ = Mapped{};
    report_->total_ms = MsSince(t0_);
    return Status::Ok();
  }

  // A few files edited: a layer over the image, not a new image. True when
  // it was saved and put over the image in place of the old one.
  bool SaveLayer() {
    LayerResult layered;
    ImageFile layer_file;
    if (!BuildLayer(tree_, mapped_.image, layer_.layer, changes_, options_, report_, &layered) ||
        !layer_file.Open(layer_path_))
      return false;
    auto tw = Clock::now();
    uint64_t bytes = 0;
    Status w =
        WriteImage(layer_path_, tree_.root, *layered.arena, layered.layer,
                   ImageKind{true, mapped_.header.header_hash, options_.copy}, !options_.copy, layer_file, &bytes);
    report_->write_ms = MsSince(tw);
    // The new layer over the image in place of the old one, which nothing
    // refers to any more (the new one's arena stays mapped).
    if (w.ok() && ApplyLayer(mapped_.image, layered.layer)) {
      report_->layer_files = ReplacedFiles(*layered.layer);
      Unmap(&layer_);
      report_->layer_bytes = bytes;
      return true;
    }
    // Not saved, or (built over this very image, it always should) not
    // fitting: a new image instead; the old layer, if any, is still on.
    if (w.ok()) ::unlink(layer_path_.c_str());
    return false;
  }

  // A new image from the old one (when usable) and the tree; saved when it can be.
  Status SaveImage(bool opened, bool can_write) {
    const ImageRoot* old = opened && !changes_.yaml_changed ? mapped_.image : nullptr;
    if (!old) {  // frees their address ranges for the new image
      Unmap(&layer_);
      Unmap(&mapped_);
    }
    ImageFile file;
    if (can_write && !file.Open(report_->path)) {
      std::cerr << "optrace: cannot write " << file.tmp << ": " << std::strerror(errno)
                << " (the index is kept in memory only)\n";
      can_write = false;
    }
    BuildResult built;
    Status s = BuildImage(tree_, old, old ? &changes_ : nullptr, options_, report_, &built);
    Unmap(&layer_);  // everything needed was copied
    Unmap(&mapped_);
    if (!s.ok()) {
      file.Discard();
      return s;
    }
    report_->action = old ? StoreReport::Action::kUpdated : StoreReport::Action::kBuilt;
    if (can_write && built.arena) {
      auto tw = Clock::now();
      Status w = WriteImage(report_->path, tree_.root, *built.arena, built.image, ImageKind{}, !options_.copy, file,
                            &report_->image_bytes);
      report_->write_ms = MsSince(tw);
      if (!w.ok()) {
        std::cerr << "optrace: " << w.message() << " (the index is kept in memory only)\n";
        report_->action = StoreReport::Action::kInMemory;
      } else {
        ::unlink(layer_path_.c_str());  // made for the image just replaced
      }
    } else {
      file.Discard();
      report_->action = StoreReport::Action::kInMemory;
    }
    MoveOut(tree_, built.image, out_);
    report_->total_ms = MsSince(t0_);
    return Status::Ok();
  }

  const StoreTree& tree_;
  const StoreOptions& options_;
  Index* out_;
  StoreReport* report_;
  Clock::time_point t0_;
  std::string dir_, layer_path_, refusal_;
  Mapped mapped_, layer_;
  FileIdentity image_seen_, layer_seen_;  // the files the last TryOpen found
  Changes changes_;
};

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
    case StoreReport::Action::kLoaded:
      return "loaded";
    case StoreReport::Action::kUpdated:
      return "updated";
    case StoreReport::Action::kBuilt:
      return "built";
    case StoreReport::Action::kInMemory:
      return "built in memory (not saved)";
  }
  return "?";
}

std::string DefaultStoreDir() { return OptraceCacheDir(); }

std::string StorePath(const std::string& store_dir, const std::string& root) {
  char hex[17];
  std::snprintf(hex, sizeof(hex), "%016llx", static_cast<unsigned long long>(Hash64(root.data(), root.size())));
  return store_dir + "/index-" + hex + ".img";
}

Status CheckCacheDir(const std::string& dir) {
  auto refuse = [&](const std::string& why) {
    return Status::SourceError("refusing to use the cache folder " + dir + ": " + why +
                               "; fix its owner or mode (chmod go-w), remove it, or set XDG_CACHE_HOME to a "
                               "folder of your own");
  };
  std::string why;
  // The folder above: another user who can write it can swap the cache
  // folder itself (unless the sticky bit forbids it, as on /tmp).
  std::string parent = dir.substr(0, dir.find_last_of('/'));
  struct stat st;
  if (!parent.empty() && ::stat(parent.c_str(), &st) == 0 && st.st_uid != ::geteuid() && st.st_uid != 0)
    return refuse(parent + " is owned by uid " + std::to_string(st.st_uid));
  if (!parent.empty() && ::stat(parent.c_str(), &st) == 0 && (st.st_mode & (S_IWGRP | S_IWOTH)) &&
      !(st.st_mode & S_ISVTX))
    return refuse(parent + " is writable by other users");
  if (::lstat(dir.c_str(), &st) != 0) return Status::Ok();  // created later, by this user
  if (S_ISLNK(st.st_mode) && ::stat(dir.c_str(), &st) != 0) return Status::Ok();
  if (!S_ISDIR(st.st_mode)) return refuse("not a folder");
  if (!OwnedBySelf(st, dir, &why)) return refuse(why);
  DIR* d = ::opendir(dir.c_str());
  if (!d) return Status::Ok();  // unreadable: nothing will be read from it
  Status result = Status::Ok();
  while (struct dirent* e = ::readdir(d)) {
    if (e->d_name[0] == '.' && (!e->d_name[1] || (e->d_name[1] == '.' && !e->d_name[2]))) continue;
    const std::string path = dir + "/" + e->d_name;
    if (::fstatat(::dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) continue;  // gone meanwhile
    if (S_ISLNK(st.st_mode)) why = path + " is a symbolic link";
    if (S_ISLNK(st.st_mode) || !OwnedBySelf(st, path, &why)) {
      result = refuse(why);
      break;
    }
  }
  ::closedir(d);
  return result;
}

Status LoadWithStore(const StoreTree& tree, const StoreOptions& options, Index* out, StoreReport* report) {
  return StoreLoad(tree, options, out, report).Run();
}

Status CheckStore(const StoreTree& tree, const StoreOptions& options, StoreReport* report) {
  auto t0 = Clock::now();
  *report = StoreReport{};
  const std::string dir = options.dir.empty() ? DefaultStoreDir() : options.dir;
  report->path = StorePath(dir, tree.root);
  const std::string layer_path = LayerPath(report->path);
  if (Status trusted = CheckCacheDir(dir); !trusted.ok()) return trusted;
  Mapped mapped, layer;
  struct Unmapper {
    Mapped* m;
    ~Unmapper() { Unmap(m); }
  } unmap_image{&mapped}, unmap_layer{&layer};
  const std::string rebuild = "; run `optrace index --rebuild` to build it again";
  std::string why;
  OpenResult r = OpenImage(report->path, tree.root, ImageKind{}, &mapped, &why);
  if (r == OpenResult::kMissing) return Status::SourceError(report->path + ": " + why + "; run `optrace index`");
  if (r != OpenResult::kOk) return Status::SourceError(report->path + ": " + why + rebuild);
  r = OpenImage(layer_path, tree.root, ImageKind{true, mapped.header.header_hash}, &layer, &why);
  if (r == OpenResult::kBroken || r == OpenResult::kNotOwned)
    return Status::SourceError(layer_path + ": " + why + rebuild);
  if (r == OpenResult::kOk) {
    report->layer_files = ReplacedFiles(*layer.layer);
    if (!ApplyLayer(mapped.image, layer.layer))
      return Status::SourceError(layer_path + ": does not fit its image" + rebuild);
    report->layer_bytes = kArenaPage + layer.header.image_bytes;
  }
  Changes changes = FindChanges(*mapped.image, tree, options.threads);
  report->cpp_files = mapped.image->cpp_files.size();
  report->py_files = mapped.image->py_files.size();
  report->image_bytes = kArenaPage + mapped.header.image_bytes;
  report->total_ms = MsSince(t0);
  if (changes.any()) {
    report->reason = changes.yaml_changed || changes.count() ? Describe(changes) : "files were added or removed";
    return Status::SourceError(report->path + " is stale: " + report->reason + "; run `optrace index` to update it");
  }
  return Status::Ok();
}

}  // namespace optrace
