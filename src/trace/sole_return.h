// A call its Python function cannot return without. F.interpolate picks
// its op by rank and mode: `if input.dim() == 4 and mode == "bicubic":
// return upsample_bicubic2d(...)` stays open while the rank is unknown.
// But where the query fixes mode='bicubic', every other `return` of
// F.interpolate is ruled out (`mode == "nearest"`, ...) and its last
// statement raises: a call that returns at all returned there, so that
// call runs for every input the function accepts, whatever its rank.
//
// Only a whole reading counts (py/py_guards.h PyFunctionReturns): the
// call written in a `return` statement of the frame's own function, not
// in a conditional expression; every other `return` decided false by what
// the frame's parameters hold; no way to fall off the function's end.
// Anything less leaves the call as open as its conditions say.
#pragma once

#include "index/index.h"
#include "trace/frame_bindings.h"
#include "trace/trace.h"

namespace optrace {

// Whether call `c` of frame `f` is the only way `f` returns, given what
// `bindings` knows of the frame's parameters.
bool SoleReturn(const Index& ix, FrameBindings& bindings, const PyFrame& f, const PyCallStep& c);

}  // namespace optrace
