// LiveIndex: see live_index.h for why. A reload always finds the checkout
// again (its version.txt may have changed with the tree) and, after a failure
// or when it had none, watches it anew: the old watches may name directories
// that were moved away.
#include "index/live_index.h"

#include <chrono>
#include <iostream>

#include "index/store_arena.h"

namespace optrace {

namespace {

double SecondsSince(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

}  // namespace

LiveIndex::LiveIndex(std::string source_flag, std::string who, std::string store_dir)
    : source_flag_(std::move(source_flag)), who_(std::move(who)), store_dir_(std::move(store_dir)) {}

Status LiveIndex::Start(const std::function<void(const Checkout&)>& on_checkout) {
  std::lock_guard<std::mutex> refreshing(refresh_mu_);
  auto start = std::chrono::steady_clock::now();
  Checkout checkout;
  Status found = FindCheckout(source_flag_, &checkout);
  if (!found.ok()) {
    Finish(State::kFailed, found.message(), SecondsSince(start));
    return found;
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    info_.checkout = checkout;
    info_.have_checkout = true;
  }
  if (on_checkout) on_checkout(checkout);
  return Load(/*first=*/true);
}

bool LiveIndex::WaitStarted(std::string* error) {
  std::unique_lock<std::mutex> lock(mu_);
  started_cv_.wait(lock, [&] { return info_.state != State::kLoading; });
  *error = info_.error;
  return info_.state == State::kReady;
}

bool LiveIndex::TreeChanged() {
  std::lock_guard<std::mutex> refreshing(refresh_mu_);
  return watch_ && watch_->Drain();
}

int LiveIndex::watch_fd() const { return watch_ ? watch_->fd() : -1; }

Status LiveIndex::Refresh() {
  std::lock_guard<std::mutex> refreshing(refresh_mu_);
  bool failed;
  {
    std::lock_guard<std::mutex> lock(mu_);
    failed = info_.state == State::kFailed;
  }
  // After a failure: again when the tree is not watched (the checkout was
  // gone) or an edit came since; a tree that fails to load as it is (a
  // broken YAML file) is not loaded again until it changes.
  const bool changed = watch_ && watch_->Drain();
  const std::string last_error = Describe().error;
  if (!changed && !(failed && !watch_)) return failed ? Status::SourceError(last_error) : Status::Ok();
  Status s = Load(/*first=*/false);
  Info info = Describe();
  std::cerr << who_ << ": " << (changed ? "the tree changed" : "retrying after: " + last_error) << "; index "
            << (s.ok() ? "reloaded" : "not loaded (" + s.message() + ")") << " in " << info.load_seconds << " s\n";
  return s;
}

LiveIndex::Info LiveIndex::Describe() const {
  std::lock_guard<std::mutex> lock(mu_);
  return info_;
}

// Caller holds refresh_mu_.
Status LiveIndex::Load(bool first) {
  auto start = std::chrono::steady_clock::now();
  Checkout checkout;
  Status s = FindCheckout(source_flag_, &checkout);
  bool failed_before = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (s.ok()) {
      info_.checkout = checkout;
      info_.have_checkout = true;
    }
    failed_before = info_.state == State::kFailed;
    if (!first) ++info_.reloads;
  }
  if (!s.ok()) {
    watch_.reset();  // retried on the next Refresh
    Finish(State::kFailed, s.message(), SecondsSince(start));
    return s;
  }
  // Watches first, then the index's own freshness check (store_watch.h).
  if (first || failed_before || !watch_) {
    watch_ = std::make_unique<TreeWatch>();
    std::string why;
    bool watching = watch_->Start(checkout.root, &why);
    if (!watching) {
      std::cerr << who_ << ": cannot watch " << checkout.root << " (" << why
                << "): edits to it show up only after a restart\n";
      watch_.reset();
    }
    std::lock_guard<std::mutex> lock(mu_);
    info_.watching = watching;
    info_.watch_error = watching ? "" : why;
  }
  {
    std::unique_lock<std::shared_mutex> exclusive(index_mu_);
    // The old index goes first: its images must be unmapped before the new
    // one maps them again at their fixed addresses.
    index_ = Index{};
    ReleaseArenaMemory();  // the new index reads its file texts afresh
    LoadOptions options;
    options.resident = true;
    options.store_dir = store_dir_;
    s = LoadIndex(checkout, options, &index_);
  }
  Finish(s.ok() ? State::kReady : State::kFailed, s.ok() ? "" : s.message(), SecondsSince(start));
  return s;
}

void LiveIndex::Finish(State state, std::string error, double seconds) {
  std::lock_guard<std::mutex> lock(mu_);
  info_.state = state;
  info_.error = std::move(error);
  info_.load_seconds = seconds;
  started_cv_.notify_all();
}

}  // namespace optrace
