// Which C++ values hold a size of a typical tensor, so at least 1 (a
// typical tensor is not empty): the empty-input early returns of kernels'
// host code (`if (M > 0) LayerNormKernelImpl(...)`, `if (N == 0) return`)
// are decided where the size comes from, through
//
//   * sizes and their products (`x.numel()`, `x.size(0) * x.size(1)`:
//     trace_typical.h's IsSizeExpression), and `c10::multiply_integers`
//     over a tensor's sizes (`input_shape.cbegin(), input_shape.cbegin() +
//     axis` of `input_shape = input.sizes()`: an empty range is 1);
//   * locals written once with one (`const auto n = self.numel();`);
//   * an element of a pair or tuple a helper returns (`auto M_N =
//     _check_layer_norm_inputs(...); auto M = M_N.first;`, the helper
//     returning `std::make_pair(M, N)` of such locals);
//   * a parameter every call of its function (one definition of its name,
//     a few calls) passes one.
//
// What is read is code alone; the walk to the value is bounded by
// kSizeValueDepth (trace/walk_bounds.h).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "cpp/cpp_guards.h"
#include "index/index.h"

namespace optrace {

// Whether a line of a file is compiled in the assumed build (a write in
// an `#ifdef USE_ROCM` group is none on CUDA).
using BuiltLine = std::function<bool(const CppGuardReader& reader, int line)>;

// Whether local or parameter `name` of indexed function `fn` holds a size
// before line `before` (0: anywhere in its body).
bool LocalHoldsSize(const Index& ix, int32_t fn, const std::string& name, int before, const BuiltLine& built,
                    int depth = 0);

// Whether expression `expr`, written in indexed function `fn`, is a size.
bool HoldsSize(const Index& ix, int32_t fn, std::string_view expr, const BuiltLine& built, int depth = 0);

}  // namespace optrace
