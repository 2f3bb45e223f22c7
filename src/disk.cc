// RealDisk and MemoryDisk. RealDisk canonicalises the root once and refuses
// any path whose real location is outside it, so a symlink in a checkout can
// never make optrace read elsewhere; directory walks remember the (device,
// inode) of every directory entered, so a symlink loop ends the walk there.
#include "disk.h"

#include <sys/stat.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <system_error>

namespace optrace {

namespace fs = std::filesystem;

bool LooksBinary(std::string_view text) {
  return text.substr(0, 8192).find('\0') != std::string_view::npos;
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
  return s == root_ || (s.size() > root_.size() && s.compare(0, root_.size(), root_) == 0 &&
                        s[root_.size()] == '/');
}

Status RealDisk::ReadFile(const std::string& path, std::string* contents) const {
  if (!Inside(path)) return Status::SourceError(path + ": missing, or outside the checkout");
  std::ifstream in(fs::path(root_) / path, std::ios::binary);
  if (!in) return Status::SourceError(path + ": cannot be read");
  in.seekg(0, std::ios::end);
  std::streamoff size = in.tellg();
  if (size < 0) return Status::SourceError(path + ": cannot be read");
  contents->resize(static_cast<size_t>(size));
  in.seekg(0);
  in.read(contents->data(), size);
  if (!in) return Status::SourceError(path + ": read failed");
  return Status::Ok();
}

bool RealDisk::Exists(const std::string& path) const { return Inside(path); }

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
