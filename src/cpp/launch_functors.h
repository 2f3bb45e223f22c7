// Functor names of a launcher call's arguments, the launchers themselves,
// and the keywords that look like calls; shared by the scanner's passes (launch_functors.cc says why).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "cpp/cpp_lexer.h"
#include "cpp/cpp_records.h"

namespace optrace {

// Whether `name` is one of ATen's launchers of generated kernels
// (gpu_kernel, gpu_reduce_kernel, jitted_gpu_kernel, ...), and *kind its kind.
bool LauncherKindOf(std::string_view name, LaunchKind* kind);

// Names that may precede '(' but never name a called or defined function.
bool IsNonCallKeyword(std::string_view s);

// Type names constructed in the arguments of the group opened at `open` and
// closed at `close` (only argument `only_arg` when >= 0), outer first; a
// variable argument declared between `b` and the call (b: kNone to skip)
// adds its type. *lambda: an argument is (or holds) a lambda.
void LaunchFunctors(const std::vector<Token>& t, size_t b, size_t open, size_t close, int only_arg,
                    std::vector<std::string>* out, bool* lambda);

// The type of the variable named at `use`, from its declaration between `b`
// and `use`; "[" when it holds a lambda; "" when unknown.
std::string VariableType(const std::vector<Token>& t, size_t b, size_t use);

}  // namespace optrace
