// Device code found on the lexer's tokens (cpp_lexer.h), so comments and
// strings that mention GPU_LAMBDA never count. A marker opens device code
// at the first '{' after it at the same nesting of parentheses -- past the
// lambda's parameters and `-> type`, or a function's signature -- unless a
// ';' comes first (a declaration, or a marker in an expression).
#include "cpp/device_code.h"

#include <algorithm>
#include <cctype>

#include "base/text.h"
#include "cpp/cpp_lexer.h"

namespace optrace {

namespace {

bool IsDeviceMarker(std::string_view t) {
  return t == "__device__" || t == "__global__" || t == "GPU_LAMBDA" || t == "C10_DEVICE" || t == "C10_HOST_DEVICE";
}

// The index of the '}' matching the '{' at `open`, or tokens.size().
size_t MatchingBrace(const std::vector<Token>& tokens, size_t open) {
  int depth = 0;
  for (size_t i = open; i < tokens.size(); ++i) {
    if (tokens[i].Is('{')) ++depth;
    if (tokens[i].Is('}') && --depth == 0) return i;
  }
  return tokens.size();
}

}  // namespace

std::vector<std::pair<size_t, size_t>> DeviceCodeRanges(std::string_view code) {
  LexedFile lexed;
  LexCpp(code, &lexed);
  const std::vector<Token>& tokens = lexed.tokens;
  auto offset = [&](const Token& t) { return static_cast<size_t>(t.text.data() - code.data()); };
  std::vector<std::pair<size_t, size_t>> out;
  size_t covered_to = 0;  // tokens before this index are inside a range already reported
  for (size_t i = 0; i < tokens.size(); ++i) {
    if (i < covered_to || !IsIdent(tokens[i]) || !IsDeviceMarker(tokens[i].text)) continue;
    int parens = 0;
    size_t open = tokens.size();
    for (size_t j = i + 1; j < tokens.size(); ++j) {
      const Token& t = tokens[j];
      if (t.Is('(')) ++parens;
      if (t.Is(')') && --parens < 0) break;
      if (parens == 0 && (t.Is(';') || t.Is('}'))) break;
      if (parens == 0 && t.Is('{')) {
        open = j;
        break;
      }
    }
    if (open == tokens.size()) continue;
    size_t close = MatchingBrace(tokens, open);
    size_t end = close < tokens.size() ? offset(tokens[close]) : code.size();
    out.push_back({offset(tokens[open]), end});
    covered_to = close;
  }
  return out;
}

bool DeclaresDeviceCode(std::string_view head) {
  LexedFile lexed;
  LexCpp(head, &lexed);
  bool marked = false;
  for (const Token& t : lexed.tokens) {
    if (t.Is(';') || t.Is('}') || t.Is('{')) marked = false;
    else if (IsIdent(t) && IsDeviceMarker(t.text)) marked = true;
  }
  return marked;
}

bool MentionsOnlyIn(std::string_view code, int line, std::string_view name,
                    const std::vector<std::pair<size_t, size_t>>& ranges) {
  size_t begin = 0;
  for (int l = 0; l < line && begin != std::string_view::npos; ++l) {
    begin = code.find('\n', begin);
    if (begin != std::string_view::npos) ++begin;
  }
  if (begin == std::string_view::npos || name.empty()) return false;
  size_t end = std::min(code.find('\n', begin), code.size());
  auto ident = IsIdentChar;
  bool any = false;
  for (size_t at = code.find(name, begin); at != std::string_view::npos && at < end; at = code.find(name, at + 1)) {
    if ((at > 0 && ident(code[at - 1])) || (at + name.size() < code.size() && ident(code[at + name.size()]))) continue;
    if (!InRanges(ranges, at)) return false;
    any = true;
  }
  return any;
}

bool InRanges(const std::vector<std::pair<size_t, size_t>>& ranges, size_t offset) {
  return std::any_of(ranges.begin(), ranges.end(),
                     [&](const auto& r) { return offset >= r.first && offset <= r.second; });
}

}  // namespace optrace
