// One op's expansion, made once per index and options and replayed by every
// later trace that reaches the op (OpExpander::ExpandRemembered).
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
// the expansions for every later query.
#include <map>
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

// Everything of the options an expansion may read.
std::string OptionsKey(const TraceOptions& o) {
  std::string key = "op-expansions";
  for (int v : {static_cast<int>(o.device), o.depth, o.kernel_depth, static_cast<int>(o.snippets),
                static_cast<int>(o.backward)})
    key += " " + std::to_string(v);
  for (const std::string& a : o.assume) key += " " + a;
  return key;
}

OpExpansions& ExpansionsFor(const Index& ix, const TraceOptions& options) {
  return *ix.Derived<std::unique_ptr<OpExpansions>>(OptionsKey(options),
                                                    [] { return std::make_unique<OpExpansions>(); });
}

}  // namespace

void OpExpander::ExpandRemembered(OpStep& op, int depth) {
  OpExpansions& cache = ExpansionsFor(ix_, opt_);
  const OpExpansions::Key key{op.yaml, op.role, depth + 1 <= opt_.depth};
  const OpExpansion* done = nullptr;
  {
    std::shared_lock<std::shared_mutex> lock(cache.mu);
    auto it = cache.done.find(key);
    if (it != cache.done.end()) done = &it->second;
  }
  if (done) {
    // The OpStep as made, under this trace's name for how it was reached.
    OpStep replayed = done->op;
    replayed.reached_from = std::move(op.reached_from);
    replayed.depth = op.depth;
    op = std::move(replayed);
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
  cache.done.try_emplace(key, std::move(made));
}

}  // namespace optrace
