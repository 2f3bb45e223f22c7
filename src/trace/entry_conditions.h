// The Python side of the path annotation: each Python call gets the guard
// of its line in its frame (python[].calls[].when), and an entry op the
// conditions on the way to it -- the guard of the Python call that resolved
// to it and of the calls leading to that frame, the way the assumptions
// decide best -- evaluated with the frame's bindings
// (trace/frame_bindings.h: defaults, what callers and the user's call
// pass, __init__'s attributes, flag locals). Also what those calls pass an
// entry op's schema arguments, which its C++ conditions are evaluated with
// (PathValues::SetEntryArguments).
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "index/index.h"
#include "trace/frame_bindings.h"
#include "trace/path_values.h"
#include "trace/trace.h"
#include "trace/trace_typical.h"

namespace optrace {

// What the Python calls reaching an entry op pass it.
struct EntryCalls {
  // False when no call can be this overload (`torch.nanmedian(x, dim)`
  // passes more than `nanmedian(Tensor self)` takes; a keyword it lacks, a
  // literal of another kind): the Python argument parser takes another.
  bool fits = true;
  // What the calls that fit pass to its schema arguments, where they agree.
  std::optional<PassedArguments> agreed;
};

class PythonEntries {
 public:
  // `t` and `a` outlive this.
  PythonEntries(const Index& ix, Trace& t, const Assumptions& a) : ix_(ix), t_(t), a_(a), bindings_(ix, t, a) {}

  // Gives every Python call the conditions of its line (python[].calls[].when).
  void PythonConditions();

  // The conditions on the way to entry op `op`, with their value in
  // *value. *optional_step: every open way passes an optional step the
  // assumptions leave open (FrameBindings::IsOpenOptionalStep).
  std::vector<Condition> EntryConditions(const OpStep& op, Tri* value, bool* optional_step);

  EntryCalls EntryArguments(const OpStep& op);

  // Whether the Python calls of entry op `op` leave which overload of its
  // name they take open: each names the op without an overload and passes
  // arguments this trace cannot read (FrameBindings::ArgumentsUnread), so
  // the Python argument parser may pick any overload its values fit.
  bool LeavesOverloadOpen(const OpStep& op);

  // Whether every Python call of entry op `op` assigns a value that only a
  // later element of its frame's returned tuple carries.
  bool FeedsOnlyLaterOutputs(const OpStep& op);

 private:
  using Way = std::pair<std::vector<Condition>, Tri>;
  void FrameConditions(const std::string& symbol, int depth, std::vector<Condition>* out, Tri* value);
  Way WayThrough(const PyFrame& f, const PyCallStep& c, int depth);
  // Whether the frame's known values rule call `c` of frame `f` out.
  bool RuledOut(const PyFrame& f, const PyCallStep& c);
  // Whether call `c` of frame `f` fits entry op `op`'s schema.
  bool Binds(const PyFrame& f, const PyCallStep& c, const OpStep& op);
  void Accumulate(const PyFrame& f, const std::vector<Condition>& when, std::vector<Condition>* out, Tri* value);
  const std::string& Text(const std::string& file);

  const Index& ix_;
  Trace& t_;
  const Assumptions& a_;
  FrameBindings bindings_;
  std::map<std::string, std::shared_ptr<const std::string>> texts_;
  std::map<const PyCallStep*, bool> sole_returns_;  // SoleReturn's answer per call
};

}  // namespace optrace
