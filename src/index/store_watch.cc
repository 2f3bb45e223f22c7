// TreeWatch over inotify: one watch per directory (inotify is not
// recursive), the directories found by the same walk the store stamps
// (ForEachScopeDirectory), so the two can never disagree on the scope.
#include "index/store_watch.h"

#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string_view>

#include "index/store.h"

namespace optrace {

namespace {

bool Relevant(const inotify_event& e) {
  if (e.mask & (IN_Q_OVERFLOW | IN_IGNORED | IN_DELETE_SELF | IN_MOVE_SELF | IN_ISDIR)) return true;
  if (!e.len) return false;
  std::string_view name(e.name);
  for (std::string_view suffix : {".py", ".cpp", ".cc", ".cu", ".cuh", ".h", ".hpp", ".yaml", "version.txt"})
    if (name.size() >= suffix.size() && name.substr(name.size() - suffix.size()) == suffix) return true;
  return false;
}

}  // namespace

TreeWatch::~TreeWatch() {
  if (fd_ >= 0) ::close(fd_);
}

bool TreeWatch::Start(const std::string& root, std::string* why) {
  fd_ = ::inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  if (fd_ < 0) {
    *why = std::string("inotify: ") + std::strerror(errno);
    return false;
  }
  for (const char* dir : {"", "tools/autograd", "tools/autograd/templates"})
    if (!Watch(root + (*dir ? "/" : "") + dir, why)) return false;
  return ForEachScopeDirectory(
      root, [&](const std::string& rel, const struct stat&) { return Watch(root + "/" + rel, why); });
}

bool TreeWatch::Drain() {
  alignas(inotify_event) char buf[64 * 1024];
  bool relevant = false;
  for (;;) {
    ssize_t n = ::read(fd_, buf, sizeof(buf));
    if (n <= 0) break;
    for (char* p = buf; p < buf + n;) {
      const auto* e = reinterpret_cast<const inotify_event*>(p);
      p += sizeof(inotify_event) + e->len;
      relevant = relevant || Relevant(*e);
    }
  }
  return relevant;
}

bool TreeWatch::Watch(const std::string& dir, std::string* why) {
  constexpr uint32_t kMask =
      IN_MODIFY | IN_CLOSE_WRITE | IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_DELETE_SELF | IN_MOVE_SELF;
  if (::inotify_add_watch(fd_, dir.c_str(), kMask) < 0) {
    if (errno == ENOENT) return true;  // an optional directory
    *why = "inotify_add_watch " + dir + ": " + std::strerror(errno);
    return false;
  }
  ++watched_;
  return true;
}

}  // namespace optrace
