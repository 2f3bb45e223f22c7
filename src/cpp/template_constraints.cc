// The header is found by stepping back from the declaration to the
// `template` keyword before the previous statement or brace; its type
// parameters are the `typename N` / `class N` entries, its conditions the
// first argument of each `enable_if_t<...>` / `enable_if<...>` in it. The
// traits are decided by the element type's last name alone (at::BFloat16
// and c10::BFloat16 are one type).
#include "cpp/template_constraints.h"

#include <algorithm>
#include <utility>

#include "base/text.h"

namespace optrace {
namespace {

// Index of the first token on `line` or after, toks.size() when none.
size_t FirstTokenOn(const std::vector<Token>& toks, int line) {
  auto before = [](const Token& tok, int l) { return static_cast<int>(tok.line) < l; };
  return static_cast<size_t>(std::lower_bound(toks.begin(), toks.end(), line, before) - toks.begin());
}

// "at::BFloat16" -> "BFloat16"; "c10::complex<float>" stays whole.
std::string_view TypeName(std::string_view type) {
  type = TrimView(type);
  if (type.find('<') != std::string_view::npos) return type;
  const size_t sep = type.rfind("::");
  return sep == std::string_view::npos ? type : type.substr(sep + 2);
}

bool IsComplex(std::string_view type) { return TypeName(type).find("complex") != std::string_view::npos; }

}  // namespace

std::optional<TemplateConstraints> TemplateConstraintsOf(const std::vector<Token>& toks, int line) {
  const size_t name = FirstTokenOn(toks, line);
  size_t at = name;
  while (at-- > 0) {
    const Token& k = toks[at];
    if (k.Is(';') || k.Is('{') || k.Is('}')) return std::nullopt;
    if (IsIdent(k) && k.text == "template") break;
  }
  if (at >= name || at + 1 >= toks.size() || !toks[at + 1].Is('<')) return std::nullopt;
  Toks range(toks);
  const size_t close = range.MatchAngle(at + 1, name);
  if (close == Toks::kNone) return std::nullopt;
  TemplateConstraints out;
  for (const auto& [b, e] : range.Args(at + 1, close)) {
    if (e >= b + 2 && IsIdent(toks[b]) && (toks[b].text == "typename" || toks[b].text == "class") &&
        IsIdent(toks[b + 1]) && (e == b + 2 || toks[b + 2].Is('=')))
      out.parameters.emplace_back(toks[b + 1].text);
    for (size_t i = b; i + 1 < e; ++i) {
      if (!IsIdent(toks[i]) || (toks[i].text != "enable_if_t" && toks[i].text != "enable_if") || !toks[i + 1].Is('<'))
        continue;
      const size_t end = range.MatchAngle(i + 1, e);
      if (end == Toks::kNone) break;
      const auto args = range.Args(i + 1, end);
      if (!args.empty()) out.conditions.push_back(range.Join(args[0].first, args[0].second));
      i = end;
    }
  }
  return out;
}

std::vector<std::string> TemplateArgumentsAt(const std::vector<Token>& toks, int line, std::string_view callee) {
  Toks range(toks);
  for (size_t i = FirstTokenOn(toks, line); i + 1 < toks.size() && static_cast<int>(toks[i].line) == line; ++i) {
    if (!IsIdent(toks[i]) || toks[i].text != callee || !toks[i + 1].Is('<')) continue;
    const size_t close = range.MatchAngle(i + 1, toks.size());
    if (close == Toks::kNone || close + 1 >= toks.size() || !toks[close + 1].Is('(')) continue;
    std::vector<std::string> out;
    for (const auto& [b, e] : range.Args(i + 1, close)) out.push_back(range.Join(b, e));
    return out;
  }
  return {};
}

std::optional<bool> ConstraintHolds(std::string_view condition, std::string_view parameter, std::string_view type) {
  std::string_view c = TrimView(condition);
  const bool negated = c.starts_with('!');
  if (negated) c = TrimView(c.substr(1));
  // trait<args>::value or trait_v<args>, the trait maybe qualified.
  const size_t open = c.find('<');
  if (open == std::string_view::npos) return std::nullopt;
  std::string_view trait = TrimView(c.substr(0, open));
  if (const size_t sep = trait.rfind("::"); sep != std::string_view::npos) trait = trait.substr(sep + 2);
  const size_t close = c.rfind('>');
  if (close == std::string_view::npos || close < open) return std::nullopt;
  const std::string_view after = TrimView(c.substr(close + 1));
  if (trait.ends_with("_v")) {
    if (!after.empty()) return std::nullopt;
    trait.remove_suffix(2);
  } else if (after != "::value") {
    return std::nullopt;
  }
  std::vector<std::string> args = SplitTopLevel(c.substr(open + 1, close - open - 1), ',');
  // std::is_same_v<c10::Half, scalar_t> asks the same as <scalar_t, c10::Half>.
  if (trait.starts_with("is_same") && args.size() == 2 && TrimView(args[1]) == parameter) std::swap(args[0], args[1]);
  if (args.empty() || TrimView(args[0]) != parameter) return std::nullopt;
  const std::string_view name = TypeName(type);
  std::optional<bool> holds;
  if (trait == "is_reduced_floating_point" && args.size() == 1) holds = name == "BFloat16" || name == "Half";
  else if (trait == "is_floating_point" && args.size() == 1) holds = name == "float" || name == "double";
  else if (trait == "is_integral" && args.size() == 1)
    holds = !IsComplex(type) && name != "float" && name != "double" && name != "BFloat16" && name != "Half";
  else if (trait == "is_complex" && args.size() == 1) holds = IsComplex(type);
  else if (trait == "is_same" && args.size() == 2) holds = TypeName(args[1]) == name;
  if (!holds) return std::nullopt;
  return negated ? !*holds : *holds;
}

}  // namespace optrace
