// Call sites of one callee written on both sides of one condition (an
// if/else, an early return and what follows it): one of them runs
// whichever way the condition goes. Used by the path annotation
// (trace_paths.cc and its parts) for Python calls, C++ op calls, helper
// calls and kernel launches.
#pragma once

#include <cstddef>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "trace/trace.h"

namespace optrace {

// `a` without the one condition `b` has negated, when they differ in nothing else.
std::optional<std::vector<Condition>> WithoutComplement(const std::vector<Condition>& a,
                                                        const std::vector<Condition>& b);

// The conditions under which one of two call sites is reached, when they
// are the same but for one test, written once (a device condition at any
// line) and taken with opposite polarity.
std::optional<std::vector<Condition>> EitherBranch(const std::vector<Condition>& a, const std::vector<Condition>& b);

// The calls of frame `f` resolving to one of `targets`, plus one for each
// pair written on both sides of one condition.
std::vector<PyCallStep> CallsTo(const PyFrame& f, const std::set<std::string>& targets);

// Adds to `sites` the conditions of every pair EitherBranch merges, again
// as long as pairs merge (an if / else if / else chain); returns how many
// were written in the code (the first ones).
size_t AddEitherBranch(std::vector<std::vector<Condition>>* sites);

}  // namespace optrace
