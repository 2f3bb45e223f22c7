// What a selection function can return for the assumed dtype. A backend
// chooser (`select_sdp_backend`) returns each backend under a predicate
// (`if (can_use_flash_attention(params, debug)) return
// SDPBackend::flash_attention;`); such a predicate gates on the dtype by
// listing the dtypes it allows (`array_of<at::ScalarType>(at::kHalf,
// at::kBFloat16)`), directly or in one of the constraints it requires all
// of (`array_of<bool (*)(sdp_params const&, bool)>(check_a, check_b)`).
// A dtype in none of a predicate's lists rules its backend out: float32
// never reaches flash or cuDNN attention, bfloat16 does.
//
// Only ruling out is claimed: a predicate the dtype passes still has
// shape, hardware and runtime checks, so it stays open (kUnknown).
//
// A chooser that tries its backends in a priority order (`for (auto&
// backend : ordering) switch (backend) { case ...: if (can_use_x(...))
// return x; }`, the order a brace list: `sdp_priority_order = {flash,
// efficient, math, cudnn}`) returns the first candidate the dtype does not
// rule out on a typical tensor: that one is the typical path, the later
// ones are alternatives (their own checks failing is what reaches them).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "index/index.h"
#include "trace/trace.h"
#include "trace/trace_typical.h"

namespace optrace {

// kFalse when the predicate named `function` rejects `dtype` (a dtype word
// as Assumptions spells it: "float32", "bfloat16"), else kUnknown.
Tri DtypeGate(const Index& ix, std::string_view function, const std::string& dtype);

// An enum member's last two names: "at::SDPBackend::math" -> "SDPBackend::math"
// (the order names it qualified, a return or a condition need not).
std::string_view EnumTail(std::string_view member);

// kFalse when every `return` of `value` (an enum member as a condition
// writes it: "SDPBackend::flash_attention") in function `decider` defined
// at `where` is guarded by a predicate the assumed dtype rules out, or by
// a condition the assumptions decide false (`... &&
// getCUDAHooks().compiledWithMIOpen()` in a CUDA build), else kUnknown.
Tri SelectionCanReturn(const Index& ix, std::string_view decider, const Location& where, std::string_view value,
                       const Assumptions& a);

// The enum members `decider` (defined at `where`) tries, in its order: the
// brace list its `switch`'s range-for iterates, followed through locals,
// the functions returning it and a class member's initializer in the
// header beside the member function's file. Empty when not read.
std::vector<std::string> SelectionOrder(const Index& ix, std::string_view decider, const Location& where);

// Whether `decider` returns `value` for a typical tensor under `a`:
// kFalse when the assumptions rule it out (SelectionCanReturn) or an
// earlier candidate of its order is not ruled out (or its order lacks it
// and no return names it), kTrue when it is the first candidate not ruled
// out, else kUnknown.
Tri SelectionPicks(const Index& ix, std::string_view decider, const Location& where, std::string_view value,
                   const Assumptions& a);

}  // namespace optrace
