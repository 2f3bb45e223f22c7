// MacroExpander: what a use of one of a file's own function-like macros
// writes, as tokens, so the structural pass can read the functions it
// defines. ATen writes whole families of definitions this way --
// `ONE_HIDDEN_RNN(gru, GRUCell<CellParams>)` defines `gru`,
// `OP(floating_half_bfloat16, acos, Acos)` defines `foreach_tensor_acos_cuda`
// and `foreach_tensor_acos_cuda_` through a nested OP_CUSTOM_FUNCTOR -- and
// a reader that only sees the #define finds no function of those names.
//
// It is the preprocessor's substitution, restricted to what such uses need:
// parameters replaced by the arguments (`__VA_ARGS__` too), `##` pasting,
// `#` stringizing, and the result rescanned for uses of the file's other
// function-like macros (each macro expanded at most once per chain, as the
// preprocessor's "painted blue" rule says). Macros of other files (headers)
// are not seen: a lexer of one file cannot know them, and the uses this
// serves define their macros beside them.
//
// Each token takes the line of the #define's token it comes from: an
// argument's tokens the line of the parameter they replace, a pasted token
// its left piece's. So the calls of a function the expansion defines lie in
// the #define, where their code and conditions are written (the scanner
// names the function at the use).
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "cpp/cpp_lexer.h"

namespace optrace {

class MacroExpander {
 public:
  explicit MacroExpander(const LexedFile& lexed);

  // The expansion of the use whose name is at t[at] (t[at + 1] is its '(',
  // t[close] the matching ')'), or nothing when no function-like macro of
  // this file of that name is #defined before the use's line, or when the
  // expansion's brackets do not balance (`#define BEGIN(n) void n() {`: its
  // code goes on after the use, and is read as written). Tokens made by
  // pasting or stringizing point into this expander, which must outlive them.
  std::vector<Token> Expand(const std::vector<Token>& t, size_t at, size_t close);

 private:
  using Args = std::vector<std::vector<Token>>;
  // The definition of `name` in force at `line`: the last one before it.
  const MacroDef* DefinitionAt(std::string_view name, uint32_t line) const;
  // The parameter names written in m's #define ("..." for a variadic one).
  std::vector<std::string_view> ParametersOf(const MacroDef& m) const;
  // The arguments of the use whose '(' is t[open] and ')' is t[close].
  static Args ArgumentsOf(const std::vector<Token>& t, size_t open, size_t close);
  // m's body with the arguments substituted, pasted and stringized.
  std::vector<Token> Substitute(const MacroDef& m, const Args& args);
  // Expands, in place, the uses of this file's macros in `tokens` that are
  // not in `active` (the chain being expanded).
  void Rescan(std::vector<Token>* tokens, uint32_t line, std::vector<std::string_view>* active, int depth);
  Token Paste(const Token& left, const Token& right);
  static bool Balanced(const std::vector<Token>& t);
  Token Stringize(const std::vector<Token>& arg, uint32_t line);

  const LexedFile& lx_;
  std::unordered_map<std::string_view, std::vector<const MacroDef*>> by_name_;  // function-like, in line order
  std::deque<std::string> texts_;  // pasted and stringized tokens' text (stable addresses)
  size_t produced_ = 0;            // tokens made so far, against runaway expansions
};

}  // namespace optrace
