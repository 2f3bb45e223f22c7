// Marking the typical path (ops[].typical, ops[].undecided) once every
// edge has its conditions: an entry op by its Python way, any other op by
// its edge from the parent under the parent's assumptions (the best of its
// callers' edges where several call it), a backward op also by whether a
// taken formula names it -- what only some of the entry overloads a call
// may take reach, open; then which conditions of each edge stay open,
// and the structured delegates folded into the op that delegates.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "trace/op_edges.h"
#include "trace/path_values.h"
#include "trace/trace.h"
#include "trace/trace_typical.h"

namespace optrace {

// What the reading of entries and edges found, by op index.
struct PathEdges {
  std::map<size_t, Tri> entry_python;                       // an entry op's Python way (PythonEntries::EntryConditions)
  std::map<size_t, bool> optional_step;                     // entry ops behind an open optional step
  std::set<size_t> edge_found;                              // ops whose edge from the parent is a listed call
  std::map<size_t, std::vector<CallerEdge>> other_callers;  // each op's other callers (also_reached_from)
  // Forward entry ops whose value only a later returned output carries: no first-order backward.
  std::set<std::string> later_outputs_only;
  // Forward entry ops that are one of several overloads a Python call may
  // take (trace_paths.cc MarkOpenOverloads): each stays on the path, one of
  // them runs, but what it alone calls, and its backward, are open. Also the
  // ops whose name every such overload reaches, through different overloads
  // (masked_fill_.Scalar, masked_fill_.Tensor): their backward as well.
  std::set<std::string> open_overloads;
};

// Sets typical/undecided of every op of `t`; the best of an op's callers
// becomes its reached_from (edges->other_callers keeps the others).
void MarkTypical(Trace& t, const PathValues& values, PathEdges* edges);

// Which conditions of each C++ edge the assumptions leave open
// (Condition::open, Condition::holds).
void MarkOpenConditions(Trace& t, const PathValues& values);

// An op whose kernel for the traced device only raises (a placeholder:
// sspaddmm.out's `_sspaddmm_out_only_sparse_cuda`, "can only be called on
// sparse tensors") never completes for a typical dense tensor, nor does an
// op whose taken path calls it (smm, sspaddmm): each is off the typical
// path, with a note naming the kernel that raises, and so is what they call.
// An entry op another entry op calls (aten::sspaddmm's query lists both
// sspaddmm and sspaddmm.out) is reached by that call where the assumptions
// take it (`edges.other_callers`).
// An implementation that opens with a check of the tensor's kind the
// assumptions fail (coalesce's `TORCH_CHECK(self.layout() == kSparse, ...)`)
// raises as well, as does one that opens by calling, on one of its tensor
// arguments, a method only other kinds of tensor have kernels for (1.13.1
// coalesce's `if (self.is_coalesced())`: SparseCPU, SparseCUDA, SparseMeta).
void MarkRaisingOps(Trace& t, const Index& ix, CodeDevice device, const PathValues& values, const PathEdges& edges);

// A structured delegate reached only as such (add_.Tensor -> add.out) is
// no dispatched op: no longer typical itself.
void FoldStructuredDelegates(Trace& t);

}  // namespace optrace
