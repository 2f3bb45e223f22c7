// The top level of a C++ expression as operator overloading reads it, for
// the tracer to type an argument by its operands: `self == other` and
// `grad / 2` are at::Tensor's operators (TensorOperators.h) when an operand
// is a Tensor, so each is a Tensor; `x.size(0) - 1` is a number's.
//
// Read from tokens: brackets, strings and template argument lists
// (`static_cast<int64_t>(n)`) hide what they hold, so only the operators
// written outside them split the expression.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace optrace {

struct TopLevelOperators {
  // Each operand as written (`self`, `other`; the `x` of `-x`).
  std::vector<std::string> operands;
  // Every operator one whose at::Tensor overload returns a Tensor: binary
  // + - * / % & | ^ << >> == != < > <= >=, unary - and ~. Not so: && || !
  // (bool), assignments, `?:`, the comma, unary * and & (a pointer's).
  bool tensor_operators_only = true;
};

// nullopt when no operator is written at the top level (a name, a call, a
// bracketed group alone) or the expression does not lex into balanced brackets.
std::optional<TopLevelOperators> TopLevelOperatorsOf(std::string_view expression);

}  // namespace optrace
