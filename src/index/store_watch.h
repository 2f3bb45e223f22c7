// TreeWatch: inotify watches on every directory the index's files come from
// (store.h's scope, plus tools/autograd and the root for the YAML inputs),
// so that a long-lived process holding an index -- the resident daemon, the
// MCP server -- learns of any edit before it answers from a stale index.
// Start it *before* loading the index: an edit racing the load is then
// either seen by the store's freshness check or queued as an event.
#pragma once

#include <cstddef>
#include <string>

namespace optrace {

class TreeWatch {
 public:
  TreeWatch() = default;
  TreeWatch(const TreeWatch&) = delete;
  TreeWatch& operator=(const TreeWatch&) = delete;
  ~TreeWatch();
  // False (with *why) when inotify is unavailable or a directory cannot be
  // watched: the caller then cannot promise freshness this way.
  bool Start(const std::string& root, std::string* why);
  int fd() const { return fd_; }
  size_t watched() const { return watched_; }
  // Reads every queued event; true when one may change what the index holds
  // (an indexed kind of file, a directory, or a lost event).
  bool Drain();

 private:
  bool Watch(const std::string& dir, std::string* why);
  int fd_ = -1;
  size_t watched_ = 0;
};

}  // namespace optrace
