// The callee's name is an identifier token directly followed by '(' (a
// qualified `at::f(` or a method `.f(`); Toks::Args splits the group.
#include "cpp/written_call.h"

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

}  // namespace optrace
