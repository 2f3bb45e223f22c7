// Small string helpers shared by the stages: edit distance for "did you
// mean", joining, splitting and trimming. Each exists once, here; a stage
// that needs another one adds it here rather than a local copy.
#pragma once

#include <functional>
#include <limits>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace optrace {

// Levenshtein distance. With `cap`, stops as soon as the distance must
// exceed it and returns cap + 1 (names further apart are no suggestion).
size_t EditDistance(std::string_view a, std::string_view b, size_t cap = std::numeric_limits<size_t>::max());

// "Did you mean": the one ranking every suggestion of optrace goes through.
// A candidate is shown as `shown` and compared by `compared` (the name
// without its namespace: "nn.Conv2d" is compared as "Conv2d"), always
// ignoring case. Best first: equal ("nn.lstm" -> nn.LSTM); starting with the
// word, shortest first ("conv" -> Conv1d, conv2d, convolution); the word as
// initials ("sdpa" -> scaled_dot_product_attention); within an edit distance
// of about a third of the word; containing it.
struct NearName {
  std::string shown;
  std::string compared;
};
std::vector<std::string> DidYouMean(std::string_view word, const std::vector<NearName>& candidates, size_t limit);
// Candidates compared as they are shown.
std::vector<std::string> DidYouMean(std::string_view word, const std::vector<std::string>& candidates,
                                    size_t limit = 5);

// `parts` with `sep` between them; any container of strings or string_views.
template <class Strings>
std::string Join(const Strings& parts, std::string_view sep) {
  std::string out;
  bool first = true;
  for (const auto& part : parts) {
    if (!first) out += sep;
    out += part;
    first = false;
  }
  return out;
}

// `s` with each run of whitespace made one space, none at either end
// (a condition or argument written over several lines, as one line).
std::string CollapseSpace(std::string_view s);
// `s` without leading and trailing spaces, tabs and line ends.
std::string_view TrimView(std::string_view s);
// Reads `s` as code, calling `visit(i, depth, quoted)` for each offset: the
// bracket depth after s[i] (brackets from `open`, each closed by the
// character of `close` at its position; a stray closer leaves it at 0), and
// whether s[i] belongs to a quoted string ('...' or "...", backslash escapes
// inside, the quotes themselves included). Every quote- and bracket-aware
// reading of code goes through it (SplitTopLevel, the condition readers), so
// quotes and brackets are read one way everywhere.
// Whether `c` is one of the few characters of `set`.
inline bool OneOf(char c, std::string_view set) {
  for (char m : set)
    if (m == c) return true;
  return false;
}
template <class Visit>
void ScanCode(std::string_view s, std::string_view open, std::string_view close, Visit&& visit) {
  int depth = 0;
  char quote = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (quote) {
      visit(i, depth, true);
      if (c == '\\' && i + 1 < s.size()) visit(++i, depth, true);
      else if (c == quote) quote = 0;
      continue;
    }
    if (c == '"' || c == '\'') {
      quote = c;
      visit(i, depth, true);
      continue;
    }
    // Bracket sets are a few characters: compared in place, not by a
    // memchr call per character of every condition read.
    if (OneOf(c, open)) ++depth;
    else if (depth > 0 && OneOf(c, close)) --depth;
    visit(i, depth, false);
  }
}
// The index of the bracket closing the one at `open` (one of `([{`), read
// as ScanCode reads code (quoted brackets do not count); npos when the
// text ends first.
size_t ClosingBracket(std::string_view s, size_t open);
// Splits on `sep` outside quotes and the given brackets (C++ types need <>,
// schemas do not); pieces are trimmed, and the last one is always returned
// ("" -> {""}), so callers see an empty argument list as one empty piece.
std::vector<std::string> SplitTopLevel(std::string_view s, char sep, std::string_view open = "([{<",
                                       std::string_view close = ")]}>");
bool StartsWith(std::string_view s, std::string_view prefix);
// ASCII lower case.
std::string Lower(std::string_view s);
// A C++ or Python identifier character, and a whole identifier (not starting with a digit).
// Inline and locale-free: the tracer asks it of every byte it scans.
inline bool IsIdentChar(char c) {
  const unsigned char u = static_cast<unsigned char>(c);
  return (u >= 'a' && u <= 'z') || (u >= 'A' && u <= 'Z') || (u >= '0' && u <= '9') || u == '_';
}
bool IsIdentifier(std::string_view s);
// "add.Tensor" -> "add": an operator's name without its overload.
std::string_view OpBaseName(std::string_view op);
// "add.Tensor" -> "Tensor": its overload name; "" for the default overload.
std::string_view OpOverloadName(std::string_view op);
// "zeros_symint" -> "zeros": the op a C++ function's SymInt form calls.
std::string_view WithoutSymInt(std::string_view name);

// `s` with control characters (and DEL) written as \n, \t, \xNN, so a user
// string echoed in a message can never drive the terminal.
std::string EscapeControl(std::string_view s);
// A whole answer made safe for a terminal: as EscapeControl, but lines and
// tabs kept, and the C1 controls (U+0080..U+009F) escaped too. The text
// faces of `tests` and `verify` pass through it: they print names read from
// a checkout or an --observed file.
std::string TerminalText(std::string_view s);
bool EndsWith(std::string_view s, std::string_view suffix);
// Whether `part` occurs in `s`.
inline bool Contains(std::string_view s, std::string_view part) { return s.find(part) != std::string_view::npos; }

// A map keyed by text, looked up by string_view without building a
// std::string.
struct TextHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};
template <class V>
using TextMap = std::unordered_map<std::string, V, TextHash, std::equal_to<>>;

}  // namespace optrace
