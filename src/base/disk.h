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
  virtual void ListFiles(const std::string& dir,
                         const std::function<bool(std::string_view)>& keep,
                         std::vector<std::string>* files,
                         std::vector<SkippedPath>* skipped) const = 0;
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
                 std::vector<std::string>* files,
                 std::vector<SkippedPath>* skipped) const override;

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
                 std::vector<std::string>* files,
                 std::vector<SkippedPath>* skipped) const override;

 private:
  struct Entry {
    std::string contents;
    int64_t mtime_ns;
  };
  std::map<std::string, Entry> files_;
};

// True when the text looks binary (a NUL byte in its first 8 KiB): scanners
// skip such files with that reason instead of lexing garbage.
bool LooksBinary(std::string_view text);

}  // namespace optrace
