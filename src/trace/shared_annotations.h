// What the path annotation (trace_paths.cc) derives from an op's code alone,
// shared by every trace of one index that reaches the op through the same
// remembered expansion (OpStep::expansion, op_expansions.cc: the same code
// under the same options): `trace --all` annotated copy_'s thirty launches
// and its callers' edges again in every trace reaching them, and the daemon
// did so for every query.
//
// Launches: each one's conditions, typical or open, depend on that code
// and the op's own assumptions -- the options and its schema's defaults --
// and on whether the op is an entry op (one reached from code keeps a
// launch only its defaults rule out open).
// Edges: a parent's call of a child -- the conditions, whether the parent
// lists the call, the call taken, and the helper bindings the reading
// decided (replayed into the trace's own) -- depend on the parent's code
// and assumptions and on the child op alone.
// What a trace knows of an op beyond its code -- what its call passes, a
// condition already decided for it (PathValues::KnowledgeOf) -- is part of
// the key: traces that know the same of an op share its annotation (the
// arguments `_to_copy` passes `copy_` are the same in every trace that
// reaches `copy_` through it), and one that knows otherwise makes its own.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <shared_mutex>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "index/index.h"
#include "trace/trace.h"
#include "trace/trace_typical.h"

namespace optrace {

class SharedLaunches {
 public:
  explicit SharedLaunches(const Index& ix);

  // Gives `op` the launches (kernels, stubs, library calls) annotated
  // before by a trace that knew `known` of it; false when there are none,
  // or when `op` has no remembered expansion (no code of its own to key by).
  bool Replay(OpStep& op, const std::string& known) const;
  // Keeps `op`'s launches as annotated, for the later traces (not those
  // of an op without a remembered expansion).
  void Keep(const OpStep& op, const std::string& known);

 private:
  using Key = std::tuple<const void*, bool, std::string>;  // (expansion, entry op, what was known)
  static Key KeyOf(const OpStep& op, const std::string& known) {
    return {op.expansion, op.reached_from.empty(), known};
  }
  struct Memo {
    std::shared_mutex mu;
    std::map<Key, std::tuple<SharedVector<KernelStep>, SharedVector<StubStep>, SharedVector<LibraryStep>>> done;
  };
  Memo& memo_;
};

// One edge parent -> child as EdgeConditions read it.
struct EdgeAnnotation {
  std::vector<Condition> when;
  bool found = false;
  std::optional<Location> site;  // the call taken, when one was
  // The helper bindings decided on the way ("condition@file@parent", value), in order.
  std::vector<std::pair<std::string, Tri>> bound;
};

// Records `t` for a condition bound in a helper: two ways that disagree leave it open.
void Bind(std::map<std::string, Tri>* bound, const std::string& key, Tri t);

class SharedEdges {
 public:
  explicit SharedEdges(const Index& ix);

  // The edge read before by a trace that knew `known` of the parent, or
  // null (always for a parent without a remembered expansion).
  const EdgeAnnotation* Find(const OpStep& parent, const OpStep& child, const std::string& known) const;
  // Keeps the edge, unless the parent has no remembered expansion.
  void Keep(const OpStep& parent, const OpStep& child, const std::string& known, EdgeAnnotation edge);

 private:
  // (parent's expansion, child, what was known of the parent)
  using Key = std::tuple<const void*, const NativeFunction*, std::string, std::string>;
  static Key KeyOf(const OpStep& parent, const OpStep& child, const std::string& known) {
    return {parent.expansion, child.yaml, child.name, known};
  }
  struct Memo {
    std::shared_mutex mu;
    std::map<Key, EdgeAnnotation> done;
  };
  Memo& memo_;
};

}  // namespace optrace
