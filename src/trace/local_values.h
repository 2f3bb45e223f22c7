// What the locals a C++ condition reads hold, read where the function that
// holds the condition assigns them before it (cpp_guards' Writes: a local
// written twice holds either, unless each write keeps the value before it):
//
//   * a size of a typical tensor (`const auto n = self.numel();`, a product
//     of sizes: trace/trace_typical.h's IsSizeExpression) is at least 1, so
//     the empty-input early returns that open many kernels' host code
//     (`if (n == 0) return`) are not taken, while which size it is (`n ==
//     4`) stays open;
//   * a flag computed from what the assumptions decide (`bool
//     needs_grad_path = weight.requires_grad() || ...;`) holds that value;
//     where that rests on a library check's name (`use_cudnn = ... &&
//     _use_cudnn_ctc_loss(...)`), on what the check's body returns;
//   * a local viewing a parameter's optional Tensor (`const Tensor& bias =
//     *at::borrow_from_optional_tensor(bias_opt)`, in two steps) holds
//     what the parameter does: nn.Conv2d's bias, a Parameter, is defined;
//   * an optional's `value_or(fallback)` holds the optional's known value,
//     or the literal fallback where it is empty (`driver.value_or("gesvdj")`
//     of a call leaving `driver` at None).
//
// A local written again (`deterministic = deterministic && (op == SUM)` in
// a branch, `ok &= check(x)`) holds its initializer's truth where every
// later write keeps it (false stays false under `&&`), whichever run.
//
// A write in an `#if` group the assumed build leaves out (`#ifdef USE_ROCM`
// on CUDA) is no write: the local's other assignment is its only one.
//
// Sizes are followed further by trace/size_values.h: through a helper's
// returned pair (layer_norm_cuda's `M = M_N.first`), `c10::multiply_integers`
// over a tensor's sizes, and a parameter every caller passes a size (`N`
// of `_launch_scatter_gather_kernel(iter.numel(), f)`).
//
// `x.size(0) - 1` may be 0, and a helper's result may be anything.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "index/index.h"
#include "trace/trace.h"
#include "trace/trace_typical.h"

namespace optrace {

struct LocalsRead {
  std::set<std::string> sizes;                  // size locals: at least 1
  std::map<std::string, std::string> assigned;  // other locals -> the one expression assigned
  std::map<std::string, std::string> inlined;   // the same with the predicates it calls inlined
  // Locals written again after their initializer (`deterministic =
  // deterministic && (...)` in a branch, `ok &= ...`): each later write's
  // value in terms of the one before. The local holds a truth only where
  // every write leaves the one before unchanged, whichever of them run.
  std::map<std::string, std::vector<std::string>> rewritten;
  // Locals viewing a parameter's optional Tensor (`const Tensor& bias =
  // *bias_maybe_owned;`, trace/caller_arguments.h ViewedParameter) -> it:
  // the local holds what the parameter does.
  std::map<std::string, std::string> views;
};

// `condition` evaluated with the values of the locals it reads: a size
// local at least 1, a flag the truth the assumptions give its expression,
// a literal itself (`const int64_t n = 0;`, never a truth value).
Tri EvaluateWithLocals(const std::string& condition, const LocalsRead& locals, const Assumptions& a);

class LocalValues {
 public:
  explicit LocalValues(const Index& ix);

  // The locals `condition`, written at `where`, reads; remembered per
  // condition, place and assumptions for every trace of the index (what
  // a function assigns does not change with the query: `trace --all` read
  // copy_'s guard locals again in each trace reaching it). `a` tells which
  // writes the build compiles and which calls in their values the
  // vocabulary decides (trace/inline_predicates.h).
  const LocalsRead& Of(const std::string& condition, const Location& where, const Assumptions& a);

  // The identifiers of a condition that name variables: no call, member,
  // scope or template follows or precedes them, save `.defined()` and
  // `.has_value()` (what a local holding a parameter's value answers).
  static std::vector<std::string> BareNames(std::string_view text);

 private:
  // What Of reads, uncached.
  LocalsRead Read(const std::string& condition, const Location& where, const Assumptions& a);
  // The indexed C++ function whose body holds `where`, or -1.
  int32_t FunctionHolding(const Location& where);

  struct Memo;  // per index: (assumptions, place, condition) -> LocalsRead
  const Index& ix_;
  Memo& memo_;
  std::unordered_map<std::string, int64_t> file_ids_;
};

}  // namespace optrace
