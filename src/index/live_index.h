// LiveIndex: the index of one checkout as a long-lived process holds it --
// the resident daemon (cli/cmd_daemon.cc) and the MCP server
// (tools/mcp_tools.cc) -- loaded, watched and kept fresh by one piece of
// code instead of two.
//
// - Loaded once the tree is watched (store_watch.h): an edit racing the load
//   is either seen by the store's freshness check or queued as an event.
// - Loaded as a private copy (LoadOptions::resident): nothing done to the
//   image file later -- truncated, overwritten in place by `cp` -- can reach
//   the loaded index (with a mapping, those crashed the process).
// - Refresh() before an answer: an edit queued since the last one reloads
//   the index (tens of milliseconds when the store can put a layer over its
//   image). A failed load -- the checkout moved away for a moment, as
//   `optrace fetch`'s rename does -- is retried on the next Refresh, finding
//   the checkout and watching it anew, so the process recovers by itself
//   when the checkout comes back.
//
// Thread safety: Start runs once (on any thread; WaitStarted waits for it);
// Refresh, ReadLock and Describe may be called from any threads. Readers of
// index() hold a ReadLock; a reload takes the lock exclusively.
#pragma once

#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>

#include "base/checkout.h"
#include "index/index.h"
#include "index/store_watch.h"

namespace optrace {

class LiveIndex {
 public:
  enum class State { kLoading, kReady, kFailed };

  // What the process reports about its index (the MCP `source` tool).
  struct Info {
    State state = State::kLoading;
    std::string error;           // why kFailed
    bool have_checkout = false;  // checkout is set
    Checkout checkout;
    double load_seconds = 0;  // the last load or reload
    bool watching = false;
    std::string watch_error;  // why the tree is not watched
    int reloads = 0;          // after an edit or a failure
  };

  // `source_flag` as given to --source ("" = $PYTORCH_SOURCE, then the cache
  // folder); `who` prefixes messages on stderr ("optrace mcp"); `store_dir`
  // holds the index images ("" = the cache folder; LoadOptions::store_dir).
  LiveIndex(std::string source_flag, std::string who, std::string store_dir = "");
  LiveIndex(const LiveIndex&) = delete;
  LiveIndex& operator=(const LiveIndex&) = delete;

  // Finds the checkout (then calls on_checkout, if given), watches it and
  // loads the index. A tree that cannot be watched is still served, but
  // edits then show up only after a restart (said on stderr).
  Status Start(const std::function<void(const Checkout&)>& on_checkout = {});
  // Blocks until Start has ended; false with *error when it failed.
  bool WaitStarted(std::string* error);

  // Drains the watch: true when an edit may have changed the index since
  // the last call. For a process that ends on an edit (the daemon).
  bool TreeChanged();
  // The inotify descriptor to poll (readable when events are queued), or -1.
  int watch_fd() const;

  // Reloads when an edit is queued or the last load failed. Ok when the
  // index is ready afterwards.
  Status Refresh();

  std::shared_lock<std::shared_mutex> ReadLock() { return std::shared_lock<std::shared_mutex>(index_mu_); }
  // Without waiting: owns_lock() is false while a load holds the index.
  std::shared_lock<std::shared_mutex> TryReadLock() {
    return std::shared_lock<std::shared_mutex>(index_mu_, std::try_to_lock);
  }
  // Valid while a ReadLock is held and the state is kReady. The same object
  // for the LiveIndex's lifetime (a reload replaces its contents).
  const Index& index() const { return index_; }
  Info Describe() const;

 private:
  Status Load(bool first);
  void Finish(State state, std::string error, double seconds);

  const std::string source_flag_;
  const std::string who_;
  const std::string store_dir_;

  mutable std::mutex mu_;  // guards info_
  std::condition_variable started_cv_;
  Info info_;

  std::shared_mutex index_mu_;
  Index index_;
  std::mutex refresh_mu_;  // one thread drains the watch and reloads
  std::unique_ptr<TreeWatch> watch_;
};

}  // namespace optrace
