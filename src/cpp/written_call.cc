// The callee's name is an identifier token directly followed by '(' (a
// qualified `at::f(` or a method `.f(`); Toks::Args splits the group. The
// types of objects passed are read from declarations alone (`Type name;`,
// `Type name{...}`, `Type name = ...`): the lexer's tokens, never the text.
#include "cpp/written_call.h"

#include <algorithm>

#include "cpp/launch_functors.h"
#include "cpp/token_range.h"

namespace optrace {

std::optional<WrittenCall> CallWrittenAt(const std::vector<Token>& toks, size_t first, int line,
                                         std::string_view callee) {
  const std::string symint = std::string(callee) + "_symint";
  for (size_t i = first; i + 1 < toks.size() && static_cast<int>(toks[i].line) == line; ++i) {
    const Token& name = toks[i];
    if (!IsIdent(name) || (name.text != callee && name.text != symint) || !toks[i + 1].Is('(')) continue;
    // `std::max(self.max().item<T>() + 1, n)`: the standard library's function is no call of an op or helper.
    if (i >= first + 2 && toks[i - 1].Is("::") && toks[i - 2].Is("std")) continue;
    Toks range(toks);
    const size_t close = range.MatchClose(i + 1, toks.size());
    if (close >= toks.size()) return std::nullopt;
    WrittenCall call;
    call.method = i > 0 && (toks[i - 1].Is('.') || toks[i - 1].Is("->"));
    if (call.method && i > 1 && IsIdent(toks[i - 2]) &&
        (i == 2 || !(toks[i - 3].Is('.') || toks[i - 3].Is("->") || toks[i - 3].Is("::"))))
      call.receiver = std::string(toks[i - 2].text);
    for (const auto& [b, e] : range.Args(i + 1, close)) call.arguments.push_back(range.Join(b, e));
    return call;
  }
  return std::nullopt;
}

namespace {

// The type of `name` by its declarations in `t`: one type name for all of
// them, else "".
std::string DeclaredObjectType(const std::vector<Token>& t, std::string_view name) {
  std::string type;
  for (size_t d = 1; d + 1 < t.size(); ++d) {
    if (!IsIdent(t[d]) || t[d].text != name) continue;
    const Token& after = t[d + 1];
    if (!(after.Is(';') || after.Is('{') || after.Is('='))) continue;
    const Token& before = t[d - 1];
    if (!IsIdent(before) || IsNonCallKeyword(before.text) || before.text == "auto" || before.text == "return") continue;
    if (!type.empty() && type != before.text) return "";
    type = std::string(before.text);
  }
  return type;
}

// The argument group of the call whose name is at `i`: past template
// arguments and a launch's <<<...>>>; a functor made then called
// (`T<...>()(...)`, `T{}(...)`) gives its second group. kNone when none.
std::pair<size_t, size_t> CallGroup(const std::vector<Token>& t, size_t i) {
  Toks range(t);
  size_t j = i + 1;
  if (j < t.size() && t[j].Is('<')) {
    const size_t close = range.MatchAngle(j, t.size());
    if (close == Toks::kNone) return {Toks::kNone, Toks::kNone};
    j = close + 1;
  }
  if (j < t.size() && t[j].kind == TokKind::kLaunchOpen) {
    while (j < t.size() && t[j].kind != TokKind::kLaunchClose) ++j;
    ++j;
  }
  if (j >= t.size() || !(t[j].Is('(') || t[j].Is('{'))) return {Toks::kNone, Toks::kNone};
  size_t close = range.MatchClose(j, t.size());
  if (close >= t.size()) return {Toks::kNone, Toks::kNone};
  if (close == j + 1 && close + 1 < t.size() && t[close + 1].Is('(')) {
    j = close + 1;
    close = range.MatchClose(j, t.size());
    if (close >= t.size()) return {Toks::kNone, Toks::kNone};
  }
  if (!t[j].Is('(')) return {Toks::kNone, Toks::kNone};
  return {j, close};
}

}  // namespace

std::optional<OpeningCall> OpeningCallOf(const std::vector<Token>& toks, int line) {
  // Tokens run in line order: find the definition's first by halving.
  auto line_before = [](const Token& tok, int l) { return static_cast<int>(tok.line) < l; };
  size_t i = std::lower_bound(toks.begin(), toks.end(), line, line_before) - toks.begin();
  int parens = 0;
  for (; i < toks.size(); ++i) {  // the body's '{': past the parameter list's brackets
    if (toks[i].Is('(')) ++parens;
    if (toks[i].Is(')')) --parens;
    if (toks[i].Is(';') && parens == 0) return std::nullopt;  // a declaration
    if (toks[i].Is('{') && parens == 0) break;
  }
  if (i + 1 >= toks.size()) return std::nullopt;
  const Token& first = toks[i + 1];
  if (!IsIdent(first)) return std::nullopt;
  if (first.text == "throw") return OpeningCall{"throw", {}};
  if (i + 2 >= toks.size() || !toks[i + 2].Is('(')) return std::nullopt;
  Toks range(toks);
  const size_t close = range.MatchClose(i + 2, toks.size());
  if (close >= toks.size()) return std::nullopt;
  OpeningCall call{std::string(first.text), {}, {}};
  for (const auto& [b, e] : range.Args(i + 2, close)) call.arguments.push_back(range.Join(b, e));
  for (size_t m = i + 3; m + 3 < close; ++m) {
    const bool object = IsIdent(toks[m]) && !toks[m - 1].Is('.') && !toks[m - 1].Is("->") && !toks[m - 1].Is("::");
    if (object && toks[m + 1].Is('.') && IsIdent(toks[m + 2]) && toks[m + 3].Is('('))
      call.method_calls.emplace_back(std::string(toks[m].text), std::string(toks[m + 2].text));
  }
  return call;
}

std::vector<std::string> ObjectTypesPassed(const LexedFile& lexed, int line, std::string_view callee) {
  for (const std::vector<Token>* run : {&lexed.tokens, &lexed.macro_tokens}) {
    const std::vector<Token>& t = *run;
    for (size_t i = 0; i < t.size(); ++i) {
      if (static_cast<int>(t[i].line) != line || !IsIdent(t[i]) || t[i].text != callee) continue;
      const auto [open, close] = CallGroup(t, i);
      if (open == Toks::kNone) continue;
      std::vector<std::string> types;
      for (const auto& [b, e] : Toks(t).Args(open, close)) {
        if (e != b + 1 || !IsIdent(t[b])) continue;
        std::string type = DeclaredObjectType(lexed.tokens, t[b].text);
        if (!type.empty() && std::find(types.begin(), types.end(), type) == types.end()) types.push_back(type);
      }
      return types;
    }
  }
  return {};
}

}  // namespace optrace
