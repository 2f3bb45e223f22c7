// Disk: the only way optrace reads a checkout. RealDisk confines every read to
// one root (a symlink that resolves outside it, or a loop, is refused and
// reported); MemoryDisk holds small trees for unit tests, as ninja's
// VirtualFileSystem does. Paths are relative to the root, '/'-separated.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

struct stat;

namespace optrace {

struct FileStat {
  uint64_t size = 0;
  int64_t mtime_ns = 0;
};

// A file a listing did not return, and why (symlink escape, loop, unreadable).
struct SkippedPath {
  std::string path;
  std::string reason;
};

class Disk {
 public:
  virtual ~Disk() = default;
  // Reads a whole file. Fails (kSource) when it is missing or unreadable.
  virtual Status ReadFile(const std::string& path, std::string* contents) const = 0;
  virtual bool Exists(const std::string& path) const = 0;
  // True when something is at `path` at all, even one that Exists refuses
  // (a symlink out of the checkout): a refused file is reported, never
  // mistaken for an absent one.
  virtual bool Present(const std::string& path) const { return Exists(path); }
  virtual Status Stat(const std::string& path, FileStat* stat) const = 0;
  // Lists regular files under `dir` (recursively, sorted) whose path passes
  // `keep`. Paths that cannot be followed safely go to `skipped`.
  virtual void ListFiles(const std::string& dir, const std::function<bool(std::string_view)>& keep,
                         std::vector<std::string>* files, std::vector<SkippedPath>* skipped) const = 0;
};

class RealDisk : public Disk {
 public:
  explicit RealDisk(std::string root);  // root must exist (Checkout checks)
  const std::string& root() const { return root_; }
  Status ReadFile(const std::string& path, std::string* contents) const override;
  bool Exists(const std::string& path) const override;
  bool Present(const std::string& path) const override;
  Status Stat(const std::string& path, FileStat* stat) const override;
  void ListFiles(const std::string& dir, const std::function<bool(std::string_view)>& keep,
                 std::vector<std::string>* files, std::vector<SkippedPath>* skipped) const override;

 private:
  // True when `path` (relative) resolves to a place inside root_.
  bool Inside(const std::string& path) const;
  // True when the open descriptor `fd` (of `path`) is a file inside root_.
  bool InsideFd(int fd, const std::string& path) const;
  std::string root_;  // canonical absolute path
};

class MemoryDisk : public Disk {
 public:
  void Add(const std::string& path, std::string contents, int64_t mtime_ns = 1);
  void Remove(const std::string& path) { files_.erase(path); }
  Status ReadFile(const std::string& path, std::string* contents) const override;
  bool Exists(const std::string& path) const override;
  Status Stat(const std::string& path, FileStat* stat) const override;
  void ListFiles(const std::string& dir, const std::function<bool(std::string_view)>& keep,
                 std::vector<std::string>* files, std::vector<SkippedPath>* skipped) const override;

 private:
  struct Entry {
    std::string contents;
    int64_t mtime_ns;
  };
  std::map<std::string, Entry> files_;
};

// The most bytes of one source file optrace reads: PyTorch's largest source
// in scope is ~1.3 MiB; a generated or planted file of hundreds of MiB would
// cost minutes of scanning and GiBs of memory. The index skips larger files
// ("too large"); ReadInputFile refuses them.
inline constexpr uint64_t kMaxSourceFileBytes = uint64_t{8} << 20;

// The one reader of a file a user names on the command line (scan FILE,
// verify --file and --observed, py --file): only a regular file (a
// directory, FIFO or device such as /dev/zero is refused, and a FIFO is
// opened without blocking), at most `max_bytes`. Failures are usage errors
// (exit 2) whose message names the file and says what is wrong.
Status ReadInputFile(const std::string& path, std::string* text, uint64_t max_bytes = kMaxSourceFileBytes);

// Whether a file or folder of a cache may be trusted: owned by this user
// and writable by nobody else. False with *why otherwise. The index store
// and the installed-torch cache both ask it.
bool OwnedBySelf(const struct stat& st, const std::string& path, std::string* why);

// True when the text looks binary (a NUL byte in its first 8 KiB): scanners
// skip such files with that reason instead of lexing garbage.
bool LooksBinary(std::string_view text);

}  // namespace optrace
