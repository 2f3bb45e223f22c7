// The conditions of an edge parent -> child between two ops: where the
// parent lists the call, the way from its implementation to the function
// making it (trace/code_routes.h), then the guard of the call's line there.
// A condition written in a helper is decided with the declared defaults of
// the trailing arguments its caller omits and the literals the caller
// passes (cpp/cpp_params.h); those decisions go to PathValues. An edge read
// from the parent's code alone is shared per index (trace/shared_annotations.h).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "index/index.h"
#include "trace/code_routes.h"
#include "trace/frame_bindings.h"
#include "trace/path_values.h"
#include "trace/shared_annotations.h"
#include "trace/trace.h"

namespace optrace {

// One call of an op by one of its callers: the caller, the conditions of its
// call sites, and whether it lists the call (EdgeReader::Read's *found).
struct CallerEdge {
  const OpStep* parent = nullptr;
  std::vector<Condition> when;
  bool found = false;
  Location site;  // the call the edge takes
};

class EdgeReader {
 public:
  EdgeReader(const Index& ix, GuardReaders& readers, CodeRoutes& routes, PathValues& values)
      : ix_(ix), readers_(readers), routes_(routes), values_(values) {}

  // The conditions of the edge parent -> child, read once per parent
  // expansion and child for every trace that knows nothing more of the
  // parent (`edges`): the helper bindings it decided are replayed into
  // this trace's. *found: the parent lists the call; *site: the call taken
  // (left as it is when none is).
  std::vector<Condition> Read(SharedEdges& edges, const OpStep& parent, const OpStep& child, bool* found,
                              Location* site);

 private:
  using BindingLog = std::vector<std::pair<std::string, Tri>>;
  std::vector<Condition> EdgeConditions(const OpStep& parent, const OpStep& child, bool* found, Location* site,
                                        BindingLog* log);
  void KeepSitesAdmitting(const OpStep& child, std::vector<const OpCallStep*>* sites);
  void KeepSitesOfItsForm(const OpStep& child, const std::string& base, std::vector<const OpCallStep*>* sites);
  std::vector<Condition> SiteConditions(const OpStep& parent, const OpCallStep& call, const std::string& base,
                                        bool out_form, BindingLog* log);
  Bindings HelperBindings(const OpStep& parent, const std::string& fn, int depth = 0);
  std::optional<std::string> InvokedLambdaValue(const OpStep& parent, const CppGuardReader& r, int from_line,
                                                int before, const std::string& name, const Bindings& passed);
  void BindHelperConditions(const OpStep& parent, const std::string& fn, const std::vector<Condition>& conditions,
                            BindingLog* log);

  const Index& ix_;
  GuardReaders& readers_;
  CodeRoutes& routes_;
  PathValues& values_;
  // BindHelperConditions' readings, by parent, helper and whether the
  // parent's arguments were bound (PathValues::HasEntryArguments).
  std::map<std::tuple<const OpStep*, std::string, bool>, Bindings> helper_bindings_;
};

}  // namespace optrace
