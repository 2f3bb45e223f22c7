// One op's expansion, made once per index and options and replayed by every
// later trace that reaches the op (OpExpander::ExpandRemembered); the same
// for the backward of a forward op (BackwardTracer::AddBackwardRemembered).
//
// What OpExpander::ExpandOp computes for an op -- its implementations,
// helpers, stubs, kernels, libraries, the ops its code calls, its notes --
// depends on the op, its role, whether the ops it calls are within --depth,
// and the options; never on the query or on what the trace met before: the
// expansion reads the index and the options and writes only the OpStep, the
// queue (OpQueue::AddOp) and Trace::not_found. So the first expansion is
// recorded (the OpStep as made, the ops queued with their depth relative to
// the op's, the not_found entries added) and a later one replays it: the
// same OpStep, the same AddOp calls in the same order against this trace's
// queue (which decides, as before, which of them are new), the same
// not_found entries. `trace --all` meets most ops in many traces (1,555
// distinct ops in 3,144 traces of 2.6.0, each ~45 ops), and the daemon keeps
// the expansions for every later query. A forward op's backward (its
// derivatives.yaml formulas read under the options' assumptions, the
// FunctionsManual helpers they call) depends on the op and the options
// alone too: its notes, BackwardStep and queued ops are replayed the same way.
// The replayed OpStep shares the recorded one's steps (SharedVector: copy
// on write), so a replay copies names and conditions, not the implementations,
// helpers, kernels and calls below them.
// Each op names the expansion it replays (OpStep::expansion), so what is
// derived from that code alone -- its launches' annotations, trace_paths.cc's
// SharedLaunches -- is shared by the later traces as well.
#include <map>
#include <optional>
#include <shared_mutex>
#include <tuple>

#include "trace/trace_internal.h"

namespace optrace {

namespace {

// What one ExpandOp did, to be done again.
struct OpExpansion {
  OpStep op;                      // as ExpandOp left it
  std::vector<PendingOp> queued;  // every AddOp it made, depth relative to the op's
  std::vector<NotFoundStep> not_found;
};

// The expansions of one index under one set of options, by (op, role,
// whether the ops it calls are within --depth). Entries are added, never
// changed or removed; parallel traces (trace --all) read under a shared lock.
struct OpExpansions {
  using Key = std::tuple<const NativeFunction*, OpRole, bool>;
  std::shared_mutex mu;
  std::map<Key, OpExpansion> done;
};

// What one AddBackwardOf did, to be done again.
struct BackwardOfOp {
  std::vector<std::string> notes;
  std::optional<BackwardStep> step;
  std::vector<PendingOp> queued;  // depths as queued (backward ops start at a fixed depth)
};

// The backwards of one index under one set of options, by forward op name.
struct BackwardsOfOps {
  std::shared_mutex mu;
  std::map<std::string, BackwardOfOp> done;
};

// Everything of the options an expansion or a backward may read: each memo
// type has a slot per options (Index::Derived keys by type and name).
std::string OptionsKey(const TraceOptions& o) {
  std::string key = "options";
  for (int v : {static_cast<int>(o.device), o.depth, o.kernel_depth, static_cast<int>(o.snippets),
                static_cast<int>(o.backward)})
    key += " " + std::to_string(v);
  for (const std::string& a : o.assume) key += " " + a;
  return key;
}

template <class Memo>
Memo& MemoFor(const Index& ix, const TraceOptions& options) {
  return *ix.Derived<std::unique_ptr<Memo>>(OptionsKey(options), [] { return std::make_unique<Memo>(); });
}

template <class Map, class Key>
const typename Map::mapped_type* Found(std::shared_mutex& mu, const Map& map, const Key& key) {
  std::shared_lock<std::shared_mutex> lock(mu);
  auto it = map.find(key);
  return it == map.end() ? nullptr : &it->second;
}

// `op` as `done` made it, under this trace's name for how it was reached.
void TakeRecorded(const OpExpansion& done, OpStep& op) {
  OpStep replayed = done.op;
  replayed.reached_from = std::move(op.reached_from);
  replayed.depth = op.depth;
  replayed.expansion = &done;
  op = std::move(replayed);
}

}  // namespace

void OpExpander::ExpandRemembered(OpStep& op, int depth) {
  OpExpansions& cache = MemoFor<OpExpansions>(ix_, opt_);
  const OpExpansions::Key key{op.yaml, op.role, depth + 1 <= opt_.depth};
  if (const OpExpansion* done = Found(cache.mu, cache.done, key)) {
    TakeRecorded(*done, op);
    for (const PendingOp& q : done->queued) ops_.AddOp(q.fn, q.role, q.reached_from, depth + q.depth);
    t_.not_found.insert(t_.not_found.end(), done->not_found.begin(), done->not_found.end());
    return;
  }
  OpExpansion made;
  const size_t not_found_before = t_.not_found.size();
  ops_.recording_ = &made.queued;
  ExpandOp(op, depth);
  ops_.recording_ = nullptr;
  for (PendingOp& q : made.queued) q.depth -= depth;
  made.op = op;
  made.not_found.assign(t_.not_found.begin() + static_cast<std::ptrdiff_t>(not_found_before), t_.not_found.end());
  std::unique_lock<std::shared_mutex> lock(cache.mu);
  auto [recorded, first] = cache.done.try_emplace(key, std::move(made));
  op.expansion = &recorded->second;
  // Another thread recorded the same expansion first: take its steps, so
  // that every array of steps a trace starts from is the memo's, alive as
  // long as the index (what a trace's per-trace memos point into stays put
  // when the trace later replaces or edits the op's own).
  if (!first) TakeRecorded(recorded->second, op);
}

void BackwardTracer::AddBackwardRemembered(const std::string& forward_op, bool queue_ops) {
  BackwardsOfOps& cache = MemoFor<BackwardsOfOps>(ix_, opt_);
  if (const BackwardOfOp* done = Found(cache.mu, cache.done, forward_op)) {
    t_.notes.insert(t_.notes.end(), done->notes.begin(), done->notes.end());
    if (done->step) t_.backward.push_back(*done->step);
    if (queue_ops)
      for (const PendingOp& q : done->queued) ops_.AddOp(q.fn, q.role, q.reached_from, q.depth);
    return;
  }
  BackwardOfOp made;
  const size_t notes_before = t_.notes.size(), steps_before = t_.backward.size();
  ops_.recording_ = &made.queued;
  ops_.recording_only_ = !queue_ops;
  AddBackwardOf(forward_op);
  ops_.recording_ = nullptr;
  ops_.recording_only_ = false;
  made.notes.assign(t_.notes.begin() + static_cast<std::ptrdiff_t>(notes_before), t_.notes.end());
  if (t_.backward.size() > steps_before) made.step = t_.backward.back();
  std::unique_lock<std::shared_mutex> lock(cache.mu);
  cache.done.try_emplace(forward_op, std::move(made));
}

}  // namespace optrace
