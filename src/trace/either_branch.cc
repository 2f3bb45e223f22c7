// Call sites written on both sides of one condition: an if and its else,
// or an early return and what follows it. Whichever way the condition
// goes, one of them runs, so the pair is one call without that condition.
#include "trace/either_branch.h"

#include "trace/walk_bounds.h"

namespace optrace {

// `a` without the one condition `b` has negated, when they differ in
// nothing else.
std::optional<std::vector<Condition>> WithoutComplement(const std::vector<Condition>& a,
                                                        const std::vector<Condition>& b) {
  if (a.size() != b.size()) return std::nullopt;
  std::optional<size_t> flipped;
  for (size_t k = 0; k < a.size(); ++k) {
    if (a[k].text != b[k].text) return std::nullopt;
    if (a[k].negated == b[k].negated) continue;
    if (flipped) return std::nullopt;
    flipped = k;
  }
  if (!flipped) return std::nullopt;
  std::vector<Condition> out = a;
  out.erase(out.begin() + static_cast<std::ptrdiff_t>(*flipped));
  return out;
}

// Two call sites whose conditions are the same but for one, written once
// and taken with opposite polarity (an if and its else): the conditions
// under which one of them is reached.
std::optional<std::vector<Condition>> EitherBranch(const std::vector<Condition>& a, const std::vector<Condition>& b) {
  if (a.size() != b.size()) return std::nullopt;
  size_t differ = a.size();
  for (size_t i = 0; i < a.size(); ++i) {
    // A device condition is written at each call, and means the same at each.
    const bool device = a[i].kind == ConditionKind::kDevice && b[i].kind == ConditionKind::kDevice;
    const bool same_test = a[i].text == b[i].text && (a[i].where.line == b[i].where.line || device);
    if (same_test && a[i].negated == b[i].negated) continue;
    if (!same_test || differ != a.size()) return std::nullopt;
    differ = i;
  }
  if (differ == a.size()) return std::nullopt;
  std::vector<Condition> out = a;
  out.erase(out.begin() + static_cast<long>(differ));
  return out;
}

// The calls of frame `f` resolving to one of `targets`, plus one for each
// pair written on both sides of one condition (`if C: g(...)` and
// `else: g(...)`): g runs either way, so the pair is one call without C.
std::vector<PyCallStep> CallsTo(const PyFrame& f, const std::set<std::string>& targets) {
  std::vector<PyCallStep> out;
  for (const auto& c : f.calls)
    if (targets.count(c.resolved)) out.push_back(c);
  size_t n = out.size();
  for (size_t i = 0; i < n; ++i)
    for (size_t j = i + 1; j < n; ++j)
      if (auto merged = WithoutComplement(out[i].when, out[j].when)) {
        PyCallStep both = out[i];
        both.when = std::move(*merged);
        out.push_back(std::move(both));
      }
  return out;
}

// Adds to `sites` (the conditions of each call of one function) those of
// every pair an if/else splits (EitherBranch), merged again as long as
// pairs merge (an if / else if / else chain); returns how many were
// written in the code.
size_t AddEitherBranch(std::vector<std::vector<Condition>>* sites) {
  const size_t written = sites->size();
  for (size_t i = 0; i < sites->size() && sites->size() < kMaxMergedSites; ++i)
    for (size_t j = i + 1; j < sites->size(); ++j)
      if (auto both = EitherBranch((*sites)[i], (*sites)[j])) sites->push_back(std::move(*both));
  return written;
}

}  // namespace optrace
