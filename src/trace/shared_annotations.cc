// The memo lives in the index (Index::Derived), so it dies with the index
// whose expansions its keys point at; parallel traces read it under a
// shared lock. Entries are added, never changed: two traces annotating one
// op at once make the same launches, and the first kept wins.
#include "trace/shared_annotations.h"

#include <algorithm>

namespace optrace {

bool DecidedFor(const std::string& op, const std::map<std::string, Tri>& decided) {
  const std::string tail = "@" + op;
  return std::any_of(decided.begin(), decided.end(), [&](const auto& d) { return d.first.ends_with(tail); });
}

SharedLaunches::SharedLaunches(const Index& ix)
    : memo_(*ix.Derived<std::unique_ptr<Memo>>("trace_paths:launches", [] { return std::make_unique<Memo>(); })) {}

bool SharedLaunches::Replay(OpStep& op) const {
  std::shared_lock<std::shared_mutex> lock(memo_.mu);
  auto it = memo_.done.find(KeyOf(op));
  if (it == memo_.done.end()) return false;
  std::tie(op.kernels, op.stubs, op.libraries) = it->second;
  return true;
}

void SharedLaunches::Keep(const OpStep& op) {
  std::unique_lock<std::shared_mutex> lock(memo_.mu);
  memo_.done.try_emplace(KeyOf(op), op.kernels, op.stubs, op.libraries);
}

void Bind(std::map<std::string, Tri>* bound, const std::string& key, Tri t) {
  auto [it, inserted] = bound->emplace(key, t);
  if (!inserted && it->second != t) it->second = Tri::kUnknown;
}

SharedEdges::SharedEdges(const Index& ix)
    : memo_(*ix.Derived<std::unique_ptr<Memo>>("trace_paths:edges", [] { return std::make_unique<Memo>(); })) {}

const EdgeAnnotation* SharedEdges::Find(const OpStep& parent, const OpStep& child) const {
  std::shared_lock<std::shared_mutex> lock(memo_.mu);
  auto it = memo_.done.find(KeyOf(parent, child));
  return it == memo_.done.end() ? nullptr : &it->second;
}

void SharedEdges::Keep(const OpStep& parent, const OpStep& child, EdgeAnnotation edge) {
  std::unique_lock<std::shared_mutex> lock(memo_.mu);
  memo_.done.try_emplace(KeyOf(parent, child), std::move(edge));
}

}  // namespace optrace
