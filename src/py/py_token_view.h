// PyTokenView: one Python file's tokens as the structural pass (py_scan.cc)
// reads them -- the text of a token, its bracket partner, and the extents
// of what a range of tokens writes: a dotted name, an argument list split
// at top-level commas, a primary expression (atom and trailers), the text
// as written with whitespace collapsed. Read-only: the block walk, the
// module statements and the call recorder share one view and hand each
// other token indices, never text.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "py/py_tokenizer.h"

namespace optrace {

// What a recorded call's argument text is cut to.
inline constexpr size_t kMaxPyArgsText = 200;

inline bool IsOpenBracket(std::string_view t) { return t.size() == 1 && (t[0] == '(' || t[0] == '[' || t[0] == '{'); }
inline bool IsCloseBracket(std::string_view t) { return t.size() == 1 && (t[0] == ')' || t[0] == ']' || t[0] == '}'); }

// The value of a simple string literal token: prefix and quotes stripped, no
// escape processing (enough for the identifiers in __all__).
std::string_view StringValue(std::string_view tok);

class PyTokenView {
 public:
  // `match[i]`: the token index of the bracket partner of token i, else -1.
  PyTokenView(std::string_view src, const std::vector<PyToken>& toks, const std::vector<int32_t>& match)
      : src_(src), toks_(toks), match_(match) {}

  size_t size() const { return toks_.size(); }
  const PyToken& operator[](size_t i) const { return toks_[i]; }
  std::string_view Text(size_t i) const { return toks_[i].text(src_); }
  // The first character of token i (cheap test before Text).
  char FirstChar(size_t i) const { return src_[toks_[i].begin]; }
  int32_t Match(size_t i) const { return match_[i]; }
  bool IsOp(size_t i, std::string_view op) const;
  bool IsName(size_t i, std::string_view name) const { return toks_[i].kind == PyTok::kName && Text(i) == name; }
  // Whether token i opens a bracket group.
  bool IsOpenGroup(size_t i) const { return toks_[i].kind == PyTok::kOp && IsOpenBracket(Text(i)); }
  size_t NextNewline(size_t i) const;
  // Index just past the bracket group opening at i (or i+1 when unmatched).
  size_t SkipGroup(size_t i) const { return match_[i] > static_cast<int32_t>(i) ? match_[i] + 1 : i + 1; }
  // True when token i ends an operand, so a following '(' is a call, '[' a
  // subscript and '+' a binary operator.
  bool EndsOperand(size_t i) const;
  // Tokens [b, e) joined with single spaces where the source had any gap,
  // none after an opening bracket or before a closing one or a comma;
  // whitespace runs inside tokens (multi-line strings) collapse too. Stops
  // once `limit` characters are reached ("..." marks the cut).
  std::string Collapsed(size_t b, size_t e, size_t limit = kMaxPyArgsText) const;
  // Tokens [b, e) with no whitespace at all (dotted names, callees).
  std::string Joined(size_t b, size_t e) const;
  // Splits [b, e) at top-level commas into [begin, end) ranges (empty ones dropped).
  std::vector<std::pair<size_t, size_t>> SplitArgs(size_t b, size_t e) const;
  // Index past a dotted name NAME(.NAME)* starting at b, or b when none.
  size_t DottedEnd(size_t b, size_t e) const;
  // The line token `last` ends on (a multi-line string spans several).
  uint32_t EndLine(size_t last) const;
  // The last token in (b, e) that is no NEWLINE/INDENT/DEDENT/END, else b.
  size_t LastRealToken(size_t b, size_t e) const;
  // The parameter names of a parameter list [b, e) (`*args` -> "args").
  std::vector<std::string> ParamNames(size_t b, size_t e) const;
  // Index past the primary expression (atom and trailers) starting at b.
  size_t PrimaryEnd(size_t b, size_t e) const;
  // First token of the primary expression whose last token is `last`: walks
  // back over names, attribute dots and trailers (call arguments, subscripts).
  // With max_links, stops after that many trailers and sets *cut; the
  // returned token is then the last one of the part left out.
  size_t PrimaryStart(size_t last, int max_links = -1, bool* cut = nullptr) const;

 private:
  std::string_view src_;
  const std::vector<PyToken>& toks_;
  const std::vector<int32_t>& match_;
};

}  // namespace optrace
