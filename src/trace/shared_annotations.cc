// The memo lives in the index (Index::Derived), so it dies with the index
// whose expansions its keys point at; parallel traces read it under a
// shared lock. Entries are added, never changed: two traces annotating one
// op at once make the same launches, and the first kept wins.
#include "trace/shared_annotations.h"

namespace optrace {

SharedLaunches::SharedLaunches(const Index& ix)
    : memo_(*ix.Derived<std::unique_ptr<Memo>>("trace_paths:launches", [] { return std::make_unique<Memo>(); })) {}

bool SharedLaunches::Replay(OpStep& op, const std::string& known) const {
  if (!op.expansion) return false;
  std::shared_lock<std::shared_mutex> lock(memo_.mu);
  auto it = memo_.done.find(KeyOf(op, known));
  if (it == memo_.done.end()) return false;
  std::tie(op.kernels, op.stubs, op.libraries) = it->second;
  return true;
}

void SharedLaunches::Keep(const OpStep& op, const std::string& known) {
  if (!op.expansion) return;
  std::unique_lock<std::shared_mutex> lock(memo_.mu);
  memo_.done.try_emplace(KeyOf(op, known), op.kernels, op.stubs, op.libraries);
}

void Bind(std::map<std::string, Tri>* bound, const std::string& key, Tri t) {
  auto [it, inserted] = bound->emplace(key, t);
  if (!inserted && it->second != t) it->second = Tri::kUnknown;
}

SharedEdges::SharedEdges(const Index& ix)
    : memo_(*ix.Derived<std::unique_ptr<Memo>>("trace_paths:edges", [] { return std::make_unique<Memo>(); })) {}

const EdgeAnnotation* SharedEdges::Find(const OpStep& parent, const OpStep& child, const std::string& known) const {
  if (!parent.expansion) return nullptr;
  std::shared_lock<std::shared_mutex> lock(memo_.mu);
  auto it = memo_.done.find(KeyOf(parent, child, known));
  return it == memo_.done.end() ? nullptr : &it->second;
}

void SharedEdges::Keep(const OpStep& parent, const OpStep& child, const std::string& known, EdgeAnnotation edge) {
  if (!parent.expansion) return;
  std::unique_lock<std::shared_mutex> lock(memo_.mu);
  memo_.done.try_emplace(KeyOf(parent, child, known), std::move(edge));
}

}  // namespace optrace
