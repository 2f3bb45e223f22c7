// What a selection function returns for the typical call, read from its
// body: `ConvBackend backend = _select_conv_backend(input, weight, bias,
// ..., params)` returns the first of its guarded returns
// (cpp/guarded_returns.h) whose conditions hold, once every earlier one's
// are ruled out. Its conditions are evaluated with the calling op's
// assumptions and what the call hands the function:
//
//   * a literal argument, or a parameter of the caller's implementation
//     (its value: its default, or what the caller's own caller passes);
//   * a local object's members, where the caller assigns them before the
//     call (`params.groups = groups_;`, `params.transposed =
//     transposed_;`) and nothing after may change them: a method of the
//     object whose body names the member, a call the object is passed to
//     by non-const reference, any other use of the whole object;
//   * the object's bool methods it calls (`params.is_depthwise(input,
//     weight)`), their bodies inlined with the members' values
//     (trace/inline_predicates.h).
//
// So `groups == 1` rules out the depthwise backends and cuDNN's predicate
// leaves cuDNN (ConvBackend::Cudnn) where the assumptions have it. What the
// values leave open at any earlier return leaves the function undecided.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "index/index.h"
#include "trace/code_routes.h"
#include "trace/trace.h"
#include "trace/trace_typical.h"

namespace optrace {

// The definition of `name` in `file` taking `arity` arguments, the one at
// `preferred` first; null when there is none or several.
const CppFunction* DefinitionTaking(const Index& ix, const std::string& name, const std::string& file, size_t arity,
                                    const Location& preferred);

// The first of `returns` whose guards hold once every earlier one's are
// ruled out, each guard's truth given by `truth`; null when a guard left
// open comes first, or none is taken.
const GuardedReturn* TakenReturn(const std::vector<GuardedReturn>& returns,
                                 const std::function<Tri(const std::string&)>& truth);

// The expression function `decider` (defined at `where`) returns, called
// from `op`'s implementation holding condition place `asked`, under `a`
// (op's assumptions); nullopt when not decided.
std::optional<std::string> DeciderReturn(const Index& ix, GuardReaders& readers, const OpStep& op, const Assumptions& a,
                                         const Location& asked, const std::string& decider, const Location& where);

// kFalse when `decider` (defined at `where`) returns `value` for no call
// under `a`: each of its returns of `value` has a guard `a` rules out, or
// an earlier return certainly taken (predicates' bodies inlined, never
// decided by their names); kUnknown otherwise.
Tri DeciderCanReturn(const Index& ix, GuardReaders& readers, const std::string& decider, const Location& where,
                     const std::string& value, const Assumptions& a);

// The same for the call `op`'s implementation holding `asked` makes, its
// parameters bound to what the call hands them (as DeciderReturn binds
// them): `_select_conv_backend(..., need_backward, params)` returns no
// Xnnpack2d or Winograd3x3Depthwise where the local `need_backward` holds
// true (a typical training step).
Tri DeciderCanReturnFor(const Index& ix, GuardReaders& readers, const OpStep& op, const Assumptions& a,
                        const Location& asked, const std::string& decider, const Location& where,
                        const std::string& value);

// What predicate `predicate` (defined at `where`) returns for every call
// under `a`: kFalse when each of its returns the assumptions leave
// reachable is `return false;` (can_use_expanded_index_path's `if
// (!self.device().is_cpu()) return false;` comes before anything else it
// returns, for a CUDA tensor), kTrue when each is `return true;`; kUnknown
// otherwise, or where its body is not read.
Tri PredicateHolds(const Index& ix, GuardReaders& readers, const std::string& predicate, const Location& where,
                   const Assumptions& a);

// Whether `decider` (defined at `where`) can return `value` for some
// tensor on the build and device `a` describes: some dtype, in a training
// step or in inference under deterministic algorithms (the rest of `a` is
// the trace's, not the build's). False only when its guarded returns rule `value` out
// for every one of them -- a MIOpen backend on a CUDA build
// (`compiledWithMIOpen()`), a CPU-only one for a CUDA tensor; true where
// its body is not read. What a dtype decides (flash attention needs fp16)
// stays: another tensor takes it.
bool BuildCanReturn(const Index& ix, GuardReaders& readers, const std::string& decider, const Location& where,
                    const std::string& value, const Assumptions& a);

}  // namespace optrace
