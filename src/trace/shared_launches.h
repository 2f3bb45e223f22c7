// Ops' launches as the path annotator (trace_paths.cc) annotated them --
// each launch's conditions, typical or open -- shared by every trace of one
// index that reaches an op through the same remembered expansion
// (OpStep::expansion, op_expansions.cc: the same code under the same
// options). Those conditions and values depend on that code and the op's
// own assumptions -- the options and its schema's defaults -- and on
// whether the op is an entry op (one reached from code keeps a launch only
// its defaults rule out open); a trace that knows more about the op (what
// its Python call passes, a condition decided for it) annotates it afresh
// (DecidedFor). `trace --all` annotated copy_'s thirty launches again in
// every trace reaching it, and the daemon did so for every query.
#pragma once

#include <map>
#include <memory>
#include <shared_mutex>
#include <string>
#include <utility>
#include <vector>

#include "index/index.h"
#include "trace/trace.h"
#include "trace/trace_typical.h"

namespace optrace {

// Whether the trace decided a condition of `op`'s own code for it (a
// selection, a helper's binding: keys "condition@file@op").
bool DecidedFor(const std::string& op, const std::map<std::string, Tri>& decided);

class SharedLaunches {
 public:
  explicit SharedLaunches(const Index& ix);

  // Gives `op` the launches annotated before; false when there are none.
  bool Replay(OpStep& op) const;
  // Keeps `op`'s launches as annotated, for the later traces.
  void Keep(const OpStep& op);

 private:
  using Key = std::pair<const void*, bool>;  // (expansion, entry op)
  static Key KeyOf(const OpStep& op) { return {op.expansion, op.reached_from.empty()}; }
  struct Memo {
    std::shared_mutex mu;
    std::map<Key, std::vector<KernelStep>> done;
  };
  Memo& memo_;
};

}  // namespace optrace
