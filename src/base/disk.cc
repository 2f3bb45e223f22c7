// RealDisk and MemoryDisk. RealDisk canonicalises the root once and refuses
// any path whose real location is outside it, so a symlink in a checkout can
// never make optrace read elsewhere; directory walks remember the (device,
// inode) of every directory entered, so a symlink loop ends the walk there.
#include "base/disk.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <set>
#include <system_error>

namespace optrace {

namespace fs = std::filesystem;

bool LooksBinary(std::string_view text) { return text.substr(0, 8192).find('\0') != std::string_view::npos; }

bool OwnedBySelf(const struct stat& st, const std::string& path, std::string* why) {
  if (st.st_uid != ::geteuid()) {
    *why = path + " is owned by uid " + std::to_string(st.st_uid) + ", not by this user (uid " +
           std::to_string(::geteuid()) + ")";
    return false;
  }
  if (st.st_mode & (S_IWGRP | S_IWOTH)) {
    char mode[8];
    std::snprintf(mode, sizeof(mode), "%04o", static_cast<unsigned>(st.st_mode & 07777));
    *why = path + " is writable by other users (mode " + mode + ")";
    return false;
  }
  return true;
}

Status ReadInputFile(const std::string& path, std::string* text, uint64_t max_bytes) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) return Status::Usage("cannot read " + path + ": " + std::strerror(errno));
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat st;
  if (::fstat(fd, &st) != 0) return Status::Usage("cannot read " + path + ": " + std::strerror(errno));
  if (S_ISDIR(st.st_mode)) return Status::Usage(path + " is a directory, not a file");
  if (!S_ISREG(st.st_mode))
    return Status::Usage(path + " is not a regular file (a FIFO, socket or device is not read)");
  auto too_large = [&] {
    char mib[64];
    std::snprintf(mib, sizeof mib, "%llu MiB", static_cast<unsigned long long>(max_bytes >> 20));
    return Status::Usage(path + " is too large: files over " + mib + " are not read");
  };
  if (static_cast<uint64_t>(st.st_size) > max_bytes) return too_large();
  text->clear();
  text->reserve(static_cast<size_t>(st.st_size));
  char buf[1 << 16];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Status::Usage("cannot read " + path + ": " + std::strerror(errno));
    if (n == 0) break;
    if (text->size() + static_cast<size_t>(n) > max_bytes) return too_large();  // grew while read
    text->append(buf, static_cast<size_t>(n));
  }
  return Status::Ok();
}

RealDisk::RealDisk(std::string root) {
  std::error_code ec;
  fs::path canonical = fs::canonical(root, ec);
  root_ = ec ? root : canonical.string();
}

bool RealDisk::Inside(const std::string& path) const {
  std::error_code ec;
  fs::path real = fs::canonical(fs::path(root_) / path, ec);
  if (ec) return false;
  const std::string& s = real.native();
  return s == root_ || (s.size() > root_.size() && s.compare(0, root_.size(), root_) == 0 && s[root_.size()] == '/');
}

bool RealDisk::InsideFd(int fd, const std::string& path) const {
  // The kernel's name for what the descriptor opened: one readlink instead
  // of one per path component (fs::canonical). Without /proc, the walk.
  char link[64], real[4096];
  std::snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
  ssize_t n = ::readlink(link, real, sizeof(real));
  if (n <= 0 || n == static_cast<ssize_t>(sizeof(real)) || real[0] != '/') return Inside(path);
  std::string_view s(real, static_cast<size_t>(n));
  return s == root_ || (s.size() > root_.size() && s.substr(0, root_.size()) == root_ && s[root_.size()] == '/');
}

Status RealDisk::ReadFile(const std::string& path, std::string* contents) const {
  // O_NONBLOCK: a FIFO in the tree must not hang the read (it is refused
  // below, as anything but a regular file is).
  int fd = ::open((root_ + "/" + path).c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) {
    if (errno == ENOENT || errno == ENOTDIR || errno == ELOOP)
      return Status::SourceError(path + ": missing, or outside the checkout");
    return Status::SourceError(path + ": cannot be read");
  }
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  if (!InsideFd(fd, path)) return Status::SourceError(path + ": missing, or outside the checkout");
  struct stat st;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) return Status::SourceError(path + ": cannot be read");
  contents->resize(static_cast<size_t>(st.st_size));
  size_t done = 0;
  while (done < contents->size()) {
    ssize_t r = ::read(fd, contents->data() + done, contents->size() - done);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return Status::SourceError(path + ": read failed");
    if (r == 0) break;  // shrank meanwhile
    done += static_cast<size_t>(r);
  }
  contents->resize(done);
  return Status::Ok();
}

bool RealDisk::Exists(const std::string& path) const { return Inside(path); }

bool RealDisk::Present(const std::string& path) const {
  struct stat st;
  return ::lstat((root_ + "/" + path).c_str(), &st) == 0;
}

Status RealDisk::Stat(const std::string& path, FileStat* stat) const {
  if (!Inside(path)) return Status::SourceError(path + ": missing, or outside the checkout");
  struct stat st;
  if (::stat((root_ + "/" + path).c_str(), &st) != 0) return Status::SourceError(path + ": cannot stat");
  stat->size = static_cast<uint64_t>(st.st_size);
  stat->mtime_ns = static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
  return Status::Ok();
}

void RealDisk::ListFiles(const std::string& dir, const std::function<bool(std::string_view)>& keep,
                         std::vector<std::string>* files, std::vector<SkippedPath>* skipped) const {
  std::set<std::pair<dev_t, ino_t>> entered;
  // Iterative walk; each stack entry is a path relative to root.
  std::vector<std::string> stack{dir};
  while (!stack.empty()) {
    std::string rel = std::move(stack.back());
    stack.pop_back();
    std::string abs = rel.empty() ? root_ : root_ + "/" + rel;
    struct stat st;
    if (::stat(abs.c_str(), &st) != 0) continue;
    if (!entered.insert({st.st_dev, st.st_ino}).second) {
      if (skipped) skipped->push_back({rel, "directory loop (symlink to an ancestor)"});
      continue;
    }
    std::error_code ec;
    for (fs::directory_iterator it(abs, ec), end; !ec && it != end; it.increment(ec)) {
      std::string name = it->path().filename().string();
      std::string child = rel.empty() ? name : rel + "/" + name;
      std::error_code sec;
      bool is_link = it->is_symlink(sec);
      if (is_link && !Inside(child)) {
        if (skipped) skipped->push_back({child, "symlink leads outside the checkout (or is dangling)"});
        continue;
      }
      if (it->is_directory(sec)) {
        stack.push_back(child);
      } else if (it->is_regular_file(sec)) {
        if (keep(child)) files->push_back(child);
      }
    }
    if (ec && skipped) skipped->push_back({rel, "cannot list: " + ec.message()});
  }
  std::sort(files->begin(), files->end());
}

void MemoryDisk::Add(const std::string& path, std::string contents, int64_t mtime_ns) {
  files_[path] = Entry{std::move(contents), mtime_ns};
}

Status MemoryDisk::ReadFile(const std::string& path, std::string* contents) const {
  auto it = files_.find(path);
  if (it == files_.end()) return Status::SourceError(path + ": missing");
  *contents = it->second.contents;
  return Status::Ok();
}

bool MemoryDisk::Exists(const std::string& path) const { return files_.count(path) > 0; }

Status MemoryDisk::Stat(const std::string& path, FileStat* stat) const {
  auto it = files_.find(path);
  if (it == files_.end()) return Status::SourceError(path + ": missing");
  stat->size = it->second.contents.size();
  stat->mtime_ns = it->second.mtime_ns;
  return Status::Ok();
}

void MemoryDisk::ListFiles(const std::string& dir, const std::function<bool(std::string_view)>& keep,
                           std::vector<std::string>* files, std::vector<SkippedPath>*) const {
  std::string prefix = dir.empty() ? "" : dir + "/";
  for (const auto& [path, entry] : files_) {
    if (path.compare(0, prefix.size(), prefix) == 0 && keep(path)) files->push_back(path);
  }
}

}  // namespace optrace
