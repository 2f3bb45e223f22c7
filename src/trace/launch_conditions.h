// When each launch, stub call and vendor library call of an op runs: the
// conditions on the way from the op's implementation to the function
// making it, then those around it there, evaluated as an op's edge is
// (KernelStep/StubStep::when, typical, undecided; LibraryStep::typical).
// The path annotation's parts (trace_paths.cc) read the ways and evaluate;
// this file says which ways and sites a launch, a stub and a library call have.
#pragma once

#include <string>
#include <vector>

#include "cpp/cpp_guards.h"
#include "trace/trace.h"
#include "trace/trace_typical.h"

namespace optrace {

// What the launch reading asks the path annotator.
class CodeWays {
 public:
  virtual ~CodeWays() = default;
  // The conditions on the way from `op`'s implementation to function `fn`
  // through code for `device`; false when the way is not read. `route`
  // (null: not wanted): that way's functions, stubs by name, `fn` last.
  virtual bool WayTo(const OpStep& op, const std::string& fn, CodeDevice device, std::vector<Condition>* out,
                     std::vector<std::string>* route) = 0;
  // The conditions of the best of `fn`'s call sites in the function
  // defined at `where` (taken, else open, else ruled out); false: no call.
  virtual bool BestCallSite(const OpStep& op, const Location& where, const std::string& fn,
                            std::vector<Condition>* out) = 0;
  // The conditions of stub `s`'s call (CodeRoutes::StubCallConditions).
  virtual bool StubCallConditions(const OpStep& op, const StubStep& s, std::vector<Condition>* out) = 0;
  // `macro` and the macros of `file` whose definitions use it, a few
  // levels up (HANDLE_CASE <- HANDLE_B_CASE <- HANDLE_A_CASE): a function
  // launches what `macro` launches by writing any of them.
  virtual std::vector<std::string> MacrosUsing(const std::string& macro, const std::string& file) = 0;
  // Where `op`'s code defines function `name`.
  virtual Location Definition(const OpStep& op, const std::string& name) const = 0;
  virtual const CppGuardReader& Reader(const std::string& file) = 0;
  // The value of `when` under `op`'s assumptions (with its schema's defaults or without).
  virtual Tri Evaluate(const OpStep& op, const std::vector<Condition>& when, bool schema_defaults) const = 0;
  // Decides the selections and predicates `when` calls, for Evaluate.
  virtual void DecideSelectionsOf(const OpStep& op, const std::vector<Condition>& when) = 0;
};

// Sets when/typical/undecided of `op`'s kernels and stubs and the
// typical/undecided of its libraries.
void AnnotateLaunches(CodeWays& w, OpStep& op);

}  // namespace optrace
