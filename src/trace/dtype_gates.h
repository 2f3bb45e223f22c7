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
#pragma once

#include <string>
#include <string_view>

#include "index/index.h"
#include "trace/trace.h"
#include "trace/trace_typical.h"

namespace optrace {

// kFalse when the predicate named `function` rejects `dtype` (a dtype word
// as Assumptions spells it: "float32", "bfloat16"), else kUnknown.
Tri DtypeGate(const Index& ix, std::string_view function, const std::string& dtype);

// kFalse when every `return` of `value` (an enum member as a condition
// writes it: "SDPBackend::flash_attention") in function `decider` defined
// at `where` is guarded by a predicate the dtype rules out, else kUnknown.
Tri SelectionCanReturn(const Index& ix, std::string_view decider, const Location& where, std::string_view value,
                       const std::string& dtype);

}  // namespace optrace
