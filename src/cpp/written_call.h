// A call's arguments as the source writes them, for the tracer to bind to
// the callee's parameters: `at::_convolution(input, weight, bias, stride,
// padding, dilation, transposed, output_padding, groups, ...)` hands
// `_convolution` its `transposed` and `groups`, and `at::convolution_symint(
// input, weight, bias, stride, padding, dilation, false, {{0, 0}}, groups)`
// fixes `transposed` to false whatever its caller was given.
//
// Read from tokens (comments and strings never leak in); the arguments
// split at top-level commas -- not those inside brackets or a template
// argument list (`std::pair<int, int>(a, b)` is one argument).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cpp/cpp_lexer.h"

namespace optrace {

struct WrittenCall {
  // `x.f(...)` or `p->f(...)`: the receiver is no argument.
  bool method = false;
  // The receiver, where it is a name alone (`x` of `x.f(...)`); "" otherwise.
  std::string receiver;
  // Each as written, whitespace collapsed: "false", "{{0, 0}}", "ctx.benchmarkCuDNN()".
  std::vector<std::string> arguments;
};

// The first call of `callee` (or of `callee_symint`, the SymInt form a
// composite writes) whose name is on `line`; tokens [first, ...) are the
// file's from that line on. nullopt when none is written there or its
// parentheses do not close.
std::optional<WrittenCall> CallWrittenAt(const std::vector<Token>& toks, size_t first, int line,
                                         std::string_view callee);

// The statement a function's body opens with, where it is a call
// (`TORCH_CHECK(self.layout() == kSparse, "...")`, `AT_ERROR("...")`), an
// `if` (callee "if", its condition the one argument) or a `throw` (callee
// "throw", no arguments): the function is the one whose
// definition begins on `line`, its body the first `{` after its parameter
// list. Comments are no tokens, so never its first statement.
struct OpeningCall {
  std::string callee;                  // "TORCH_CHECK", "AT_ERROR", "throw"
  std::vector<std::string> arguments;  // each as written, whitespace collapsed
  // The methods its arguments call on a name, in order: `if
  // (self.is_coalesced())` gives {"self", "is_coalesced"}; `a.b.f()` and
  // `x->f()` give none (a member's or a pointer's, no object's own).
  std::vector<std::pair<std::string, std::string>> method_calls;
};
std::optional<OpeningCall> OpeningCallOf(const std::vector<Token>& toks, int line);

// The class types of the objects a call passes by name: for each argument
// written as a name alone, the type the file's one declaration of that name
// gives it (`static ReduceAdd reduce_add;` -> "ReduceAdd"; a name declared
// twice with two types, or with `auto` or a template type, gives none). The
// call is the first of `callee` whose name is on `line`, in the file's code
// or a #define body: `f(...)`, `f<T>(...)`, `T<...>()(...)` (a functor made
// and called: the second group), `k<...><<<grid, block>>>(...)` (a kernel
// launched). A kernel generic in what it calls runs those objects' code
// (Indexing.cu's `indexFuncSmallIndex<<<...>>>(..., reduce_add, alpha)`).
std::vector<std::string> ObjectTypesPassed(const LexedFile& lexed, int line, std::string_view callee);

}  // namespace optrace
