// Whether an op's nondeterminism notes hold, and when. Each call of
// alertNotDeterministic the walk found (trace_walk.cc) is read with the
// conditions around it in its function -- the guard reader's, `#if` groups
// included: cumsum's scan alerts only in the `#else` of a CUDA version
// test, put_ only `if (!accumulate || ...)` -- and evaluated as under
// torch.use_deterministic_algorithms(True), the mode in which the call
// raises and so the question the note answers, with the trace's other
// assumptions and the op's schema defaults. A note whose conditions that
// rules out (a ROCm-only group, a case the defaults never take) is
// dropped; the others keep their conditions, each marked open where it
// stays undecided.
#pragma once

#include "index/index.h"
#include "trace/code_routes.h"
#include "trace/trace.h"
#include "trace/trace_typical.h"

namespace optrace {

void ReadNondeterminism(const Index& ix, const Assumptions& a, GuardReaders& readers, Trace* t);

}  // namespace optrace
