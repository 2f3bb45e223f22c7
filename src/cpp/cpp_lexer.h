// A hand-written C++/CUDA lexer for cpp_scan. It is not a preprocessor: it
// turns one file's text into tokens that point into that text (no copies),
// each with its line, and sets #define bodies apart as per-macro token runs
// so the structural pass can read them as "code written inside a macro".
// It must be exact on the traps that would otherwise desynchronise brace
// matching: comments, strings with escapes, raw strings with delimiters,
// char literals ('"', '\''), digit separators (1'000'000), backslash line
// continuations, and CUDA's <<< >>> launch brackets. Conditional groups
// (#if/#elif/#else) are resolved the way ctags does: a later branch whose
// braces or parentheses do not balance is dropped so both arms of an #if cannot open the same
// function twice; `#if 0` blocks are dropped as dead code. It never fails.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace optrace {

enum class TokKind : uint8_t {
  kIdent,        // identifiers and keywords
  kNumber,       // pp-numbers, including 1'000'000 and 0x1p-3
  kString,       // "..." / R"d(...)d" / u8"..." (text includes prefix and quotes)
  kChar,         // '.' with any prefix
  kPunct,        // operators and punctuation; '>' is always a single token
  kLaunchOpen,   // <<< of a CUDA launch
  kLaunchClose,  // the >>> closing it
};

struct Token {
  std::string_view text;
  uint32_t line = 0;
  TokKind kind = TokKind::kPunct;
  // For '>': the previous character was also '>' (the two came from ">>"),
  // so a parser can tell "a >> b" (shift) from "A<B<C>>" (two closes).
  bool glued = false;
  // 0 outside #define bodies; otherwise 1 + the index of the macro in
  // LexedFile::macros whose body holds this token.
  uint32_t macro = 0;

  bool Is(char c) const { return text.size() == 1 && text[0] == c; }
  bool Is(std::string_view s) const { return text == s; }
};

struct MacroDef {
  std::string_view name;
  uint32_t line = 0;      // line of the #define
  uint32_t end_line = 0;  // last line of the continued body
  bool function_like = false;
  uint32_t body_begin = 0, body_end = 0;  // range in LexedFile::macro_tokens
};

struct LexedFile {
  std::vector<Token> tokens;        // code outside preprocessor directives
  std::vector<Token> macro_tokens;  // bodies of #defines, one run per macro
  std::vector<MacroDef> macros;
};

// Lexes `text` into `out` (cleared first). Tokens point into `text`, which
// must outlive `out`.
void LexCpp(std::string_view text, LexedFile* out);

// True for identifier-like tokens (identifiers and keywords).
inline bool IsIdent(const Token& t) { return t.kind == TokKind::kIdent; }
// True for the brackets that group: ( [ { and their closers (never < >,
// which the lexer cannot tell from comparisons).
inline bool IsOpenBracket(const Token& t) { return t.kind == TokKind::kPunct && (t.Is('(') || t.Is('[') || t.Is('{')); }
inline bool IsCloseBracket(const Token& t) {
  return t.kind == TokKind::kPunct && (t.Is(')') || t.Is(']') || t.Is('}'));
}

}  // namespace optrace
