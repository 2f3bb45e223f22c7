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

#include <optional>
#include <string>

#include "index/index.h"
#include "trace/code_routes.h"
#include "trace/trace.h"
#include "trace/trace_typical.h"

namespace optrace {

// The expression function `decider` (defined at `where`) returns, called
// from `op`'s implementation holding condition place `asked`, under `a`
// (op's assumptions); nullopt when not decided.
std::optional<std::string> DeciderReturn(const Index& ix, GuardReaders& readers, const OpStep& op, const Assumptions& a,
                                         const Location& asked, const std::string& decider, const Location& where);

}  // namespace optrace
