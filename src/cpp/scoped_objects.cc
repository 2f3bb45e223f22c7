// Declarations read off tokens, backwards, blocks closed before the line
// skipped (see scoped_objects.h).
#include "cpp/scoped_objects.h"

#include <algorithm>
#include <optional>
#include <string_view>

#include "cpp/token_range.h"

namespace optrace {
namespace {

// Words that may stand before a name without declaring it (`return x;`,
// `else y(...)`): never a type.
bool IsStatementKeyword(std::string_view s) {
  static constexpr std::string_view kWords[] = {"return", "else",      "case",   "goto", "throw", "new",
                                                "delete", "co_return", "sizeof", "do",   "using"};
  return std::find(std::begin(kWords), std::end(kWords), s) != std::end(kWords);
}

// The declaration whose type's last name is toks[i], where toks[i + 1] is
// the declared name and toks[i + 2] opens its initialiser or ends it.
std::optional<ScopedObject> DeclarationAt(const std::vector<Token>& toks, size_t i) {
  if (i + 2 >= toks.size() || !IsIdent(toks[i]) || !IsIdent(toks[i + 1])) return std::nullopt;
  if (IsStatementKeyword(toks[i].text) || IsStatementKeyword(toks[i + 1].text)) return std::nullopt;
  const Token& after = toks[i + 2];
  if (!(after.Is(';') || after.Is('(') || after.Is('{'))) return std::nullopt;
  ScopedObject object{std::string(toks[i].text), std::string(toks[i + 1].text), {}, static_cast<int>(toks[i].line)};
  if (!after.Is(';')) {
    Toks range(toks);
    const size_t close = range.MatchClose(i + 2, toks.size());
    // `Type name(params) {` defines a function: no object.
    if (close + 1 >= toks.size() || toks[close + 1].Is('{')) return std::nullopt;
    for (const auto& [b, e] : range.Args(i + 2, close)) object.arguments.push_back(range.Join(b, e));
  }
  return object;
}

}  // namespace

std::vector<ScopedObject> ObjectsInScopeAt(const std::vector<Token>& toks, int line, int lines_back) {
  auto line_before = [](const Token& tok, int l) { return static_cast<int>(tok.line) < l; };
  size_t i = std::lower_bound(toks.begin(), toks.end(), line, line_before) - toks.begin();
  std::vector<ScopedObject> found;
  int closed = 0;  // blocks closed between a token and the line
  while (i > 0) {
    --i;
    const Token& t = toks[i];
    if (static_cast<int>(t.line) < line - lines_back) break;
    if (t.Is('}')) ++closed;
    if (t.Is('{') && closed > 0) --closed;
    if (closed > 0 || !IsIdent(t)) continue;
    // A statement's start: what precedes the type is `;`, `{`, `}`, or a
    // qualification or `const` (whose own start is checked no further).
    if (i > 0 && !(toks[i - 1].Is(';') || toks[i - 1].Is('{') || toks[i - 1].Is('}') || toks[i - 1].Is("::") ||
                   toks[i - 1].Is("const")))
      continue;
    if (auto object = DeclarationAt(toks, i)) found.push_back(std::move(*object));
  }
  return found;
}

}  // namespace optrace
