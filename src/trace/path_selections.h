// Selections: a guard names the function deciding it (`use_miopen(x)`), or
// a local whose value a function computed (`switch (backend)` after
// `backend = _select_conv_backend(...)`); locals are followed through
// assignments, casts, dispatch stubs (to the registration of the traced
// device) and the returns of the function they lead to, a few steps deep.
// A selection whose member the selection function cannot return for the
// assumed dtype (trace/dtype_gates.h) is decided false; one whose function
// tries its candidates in a priority order is decided true for the first
// candidate the dtype does not rule out and false for the others. A
// condition calling a predicate is its body's expression inlined
// (trace/inline_predicates.h). What is decided goes to PathValues; the
// selections found on the path become Trace::selections.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "index/index.h"
#include "trace/code_routes.h"
#include "trace/op_edges.h"
#include "trace/path_values.h"
#include "trace/trace.h"

namespace optrace {

class Selections {
 public:
  Selections(const Index& ix, GuardReaders& readers, PathValues& values)
      : ix_(ix), readers_(readers), values_(values) {}

  // Decides the selections and predicates of every forward edge of `t`
  // (op.when) and of its other callers' edges (`other_callers`, by op index).
  void DecideAlongEdges(const Trace& t, const std::map<size_t, std::vector<CallerEdge>>& other_callers);

  // Decides the selections and predicates `when`, conditions of
  // `caller`'s code, name.
  void DecideSelectionsOf(const OpStep& caller, const std::vector<Condition>& when);

  // In the implementation of each op on the main path of `t`, every call
  // whose condition names a deciding function and whose other conditions
  // do not rule it out, nor the build (BuildCanReturn); grouped by that
  // function, one alternative per call, typical when all of the call's
  // conditions hold. A branch calling an op with no kernel for the traced
  // device is none.
  std::vector<SelectionStep> Find(const Trace& t);

 private:
  Tri ByDeciderReturn(const OpStep& caller, const Condition& c, const Assumptions& a);
  Tri ByPredicateReturns(const OpStep& caller, const Condition& c);
  // `c` (`backend == ConvBackend::Miopen`) asks for a member `decider`
  // (defined at `where`) returns for no tensor on this build and device.
  bool RuledOutByBuild(const Condition& c, const std::string& decider, const Location& where) const;
  std::string Decider(const OpStep& parent, const Condition& c, Location* where);
  std::string FollowVariable(const OpStep& parent, const std::string& file, int from, int before,
                             const std::string& var, int depth, Location* where);
  std::string FollowFunction(const OpStep& parent, const std::string& fn, int depth, Location* where,
                             const std::string& context_file = "");

  const Index& ix_;
  GuardReaders& readers_;
  PathValues& values_;
  // "caller@implementation@decider@definition" -> what the decider returns there (ByDeciderReturn).
  std::map<std::string, std::optional<std::string>> returns_;
  // "decider@definition@member" -> DeciderCanReturn's answer under the
  // trace's assumptions (their memo key is long: asked once per trace).
  std::map<std::string, Tri> can_return_;
  // "predicate@definition" -> what it returns for every call (ByPredicateReturns).
  std::map<std::string, Tri> predicate_holds_;
};

}  // namespace optrace
