// What a function template's std::enable_if says of its type parameters.
// PyTorch writes overloads of one name for different element types and lets
// the compiler pick by a constraint in the template header:
//
//   template <typename T,
//             typename std::enable_if_t<!is_reduced_floating_point_v<T>, int> = 0>
//   void LayerNormKernelImplInternal(...)   // float, double
//   template <typename T,
//             typename std::enable_if_t<is_reduced_floating_point_v<T>, int> = 0>
//   void LayerNormKernelImplInternal(...)   // BFloat16, Half
//
// A call `LayerNormKernelImplInternal<scalar_t>(...)` inside an
// AT_DISPATCH of a float32 tensor instantiates the first alone. This file
// reads the header and a call's explicit template arguments from the
// lexer's tokens, and decides the common traits of one element type.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cpp/cpp_lexer.h"
#include "cpp/token_range.h"

namespace optrace {

struct TemplateConstraints {
  std::vector<std::string> parameters;  // the type parameters' names, in order: "T", "param_t"
  std::vector<std::string> conditions;  // each enable_if's condition as written: "!is_reduced_floating_point_v<T>"
};

// The template header of the function whose name is on `line` (the
// declaration's first token at or after that line's start): nullopt when
// it is no template.
std::optional<TemplateConstraints> TemplateConstraintsOf(const std::vector<Token>& toks, int line);

// The explicit template arguments of the first call of `callee` on `line`
// (`f<scalar_t, float>(...)` gives {"scalar_t", "float"}); empty when none
// are written.
std::vector<std::string> TemplateArgumentsAt(const std::vector<Token>& toks, int line, std::string_view callee);

// Whether `condition` (an enable_if's, its type parameter `parameter`
// standing for the element type `type`: "float", "double", "BFloat16",
// "Half", "c10::complex<float>", "int64_t") holds: one trait --
// is_reduced_floating_point, std::is_floating_point, std::is_integral,
// c10::is_complex, std::is_same with the parameter -- as `_v<...>` or
// `<...>::value`, maybe negated. nullopt for anything else.
std::optional<bool> ConstraintHolds(std::string_view condition, std::string_view parameter, std::string_view type);

}  // namespace optrace
