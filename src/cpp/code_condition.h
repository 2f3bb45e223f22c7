// A condition under which code runs, as the C++ reader finds it: an `if`,
// `else`, `case`, `?:`, an early `return`'s, or an `#if` group's -- the
// value the guard reader (cpp_guards.h) and the preprocessor reader
// (preprocessor_groups.h) hand the tracer, and how a conjunction of them reads.
#pragma once

#include <string>
#include <vector>

namespace optrace {

struct CodeCondition {
  std::string text;      // as written, whitespace collapsed: "at::cudnn_is_acceptable(_input)"
  bool negated = false;  // the call runs when the condition is false (else branch, after an early return)
  int line = 0;          // where the condition is written (1-based)
  std::string kind;      // "if" | "else" | "case" | "?:" | "return" | "#if"
  // How it reads: "when C", "unless C" (negated), "case C of switch (E)".
  std::string Describe() const;
};

// Conditions that all hold, as one expression: "a && !(b) && (c || d)" (an
// operand holding `||` or `?:` parenthesized); "" for none.
std::string ConjunctionOf(const std::vector<CodeCondition>& conditions);

}  // namespace optrace
