// A condition that calls a one-statement predicate -- `train &&
// is_fused_kernel_acceptable(input, p)` where the tree defines
// `bool is_fused_kernel_acceptable(const Tensor& input, double p) { return
// (input.is_cuda() || ...) && p > 0 && p < 1 && input.sym_numel() > 0; }`
// -- says no more than the predicate's expression with the call's
// arguments in place of its parameters. Inlined, the typical-path
// vocabulary decides it where the call alone stays open: a CUDA tensor,
// the dropout probability F.dropout passes.
//
// A predicate (a function returning bool) has its body read as one expression (cpp/cpp_predicate.h: a
// `return EXPR;`, after guards `if (C) return false;`, locals and flags
// only narrowed), one level deep: the definition in the condition's own
// file, else the only one with as many parameters (an overload that
// forwards to a namesake left out; definitions in `#if` branches of their
// own joined under their configurations, `_use_cudnn_ctc_loss`'s
// `return false;` stub and its cuDNN body). So the body, not the name,
// decides a library check. Anything else is left as written.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "index/index.h"
#include "trace/trace_typical.h"

namespace optrace {

// `expr` with each whole word `names[i]` (not after `.` or `::`) replaced
// by `args[i]`, parenthesized unless it is one name.
std::string SubstituteWords(const std::string& expr, const std::vector<std::string>& names,
                            const std::vector<std::string>& args);

// `condition` (written in `file`) with each such call replaced by
// `(EXPR)`; "" when none was. A call the typical-path vocabulary decides
// under `a` (`isTensorSubclassLike(x)`, `x.is_sparse()`) stays: it knows
// them better than their bodies, whose words it would read out of context;
// a library check it decides only by name is inlined.
std::string InlinePredicates(const Index& ix, std::string_view condition, const std::string& file,
                             const Assumptions& a);

// `condition` with each call `object.f(args)` of a bool member function f
// defined in `file` (its class's methods live beside the function asking)
// replaced by f's body expression: each name in it that is no parameter,
// call, qualified name or constant -- a member -- written `object.name`,
// then its parameters replaced by the arguments; so that the values
// bound to `object.name` decide it (`params.is_depthwise(input, weight)`
// -> `... && params.groups > 1`). "" when none was.
std::string InlineMemberPredicates(const Index& ix, std::string_view condition, const std::string& file,
                                   const std::string& object);

}  // namespace optrace
