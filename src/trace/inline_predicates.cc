// Text substitution on balanced brackets: the call's arguments are split at
// top-level commas, each parameter name (the last identifier of its
// declaration, a default dropped) is replaced where it occurs as a whole
// word in the expression, parenthesized unless the argument is one name.
#include "trace/inline_predicates.h"
#include "trace/walk_bounds.h"

#include <algorithm>
#include <cctype>
#include <optional>
#include <vector>

#include "base/text.h"

namespace optrace {

namespace {

// Pieces of `text` between top-level commas, trimmed.
std::vector<std::string> TopLevel(std::string_view text) {
  std::vector<std::string> out;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i <= text.size(); ++i) {
    char c = i < text.size() ? text[i] : ',';
    if (c == '(' || c == '[' || c == '{' || c == '<') ++depth;
    if (c == ')' || c == ']' || c == '}' || c == '>') --depth;
    if (c == ',' && depth <= 0) {
      out.emplace_back(TrimView(text.substr(start, i - start)));
      start = i + 1;
    }
  }
  return out;
}

// The parameter names of a declaration list ("const Tensor& input, double p = 0").
std::vector<std::string> ParameterNames(std::string_view params) {
  std::vector<std::string> out;
  for (std::string piece : TopLevel(params)) {
    if (size_t eq = piece.find('='); eq != std::string::npos) piece = std::string(TrimView(piece.substr(0, eq)));
    size_t end = piece.size();
    while (end > 0 && !IsIdentChar(piece[end - 1])) --end;
    size_t begin = end;
    while (begin > 0 && IsIdentChar(piece[begin - 1])) --begin;
    if (begin == end) return {};
    out.push_back(piece.substr(begin, end - begin));
  }
  return out;
}

// The expression of a body that is one `return EXPR;`, else nullopt.
std::optional<std::string> SingleReturn(std::string_view body) {
  size_t open = body.find('{'), close = body.rfind('}');
  if (open == std::string_view::npos || close == std::string_view::npos || close <= open) return std::nullopt;
  std::string_view inner = TrimView(body.substr(open + 1, close - open - 1));
  if (!inner.starts_with("return ") || !inner.ends_with(";")) return std::nullopt;
  std::string_view expr = TrimView(inner.substr(7, inner.size() - 8));
  if (expr.find(';') != std::string_view::npos || expr.find("//") != std::string_view::npos) return std::nullopt;
  return CollapseSpace(expr);
}

// `expr` with each whole-word parameter replaced by its argument.
std::string Substitute(const std::string& expr, const std::vector<std::string>& names,
                       const std::vector<std::string>& args) {
  std::string out;
  for (size_t i = 0; i < expr.size();) {
    if (IsIdentChar(expr[i]) && (i == 0 || (!IsIdentChar(expr[i - 1]) && expr[i - 1] != '.' && expr[i - 1] != ':'))) {
      size_t j = i;
      while (j < expr.size() && IsIdentChar(expr[j])) ++j;
      std::string word = expr.substr(i, j - i);
      bool replaced = false;
      for (size_t k = 0; k < names.size(); ++k) {
        if (names[k] != word) continue;
        bool simple = std::all_of(args[k].begin(), args[k].end(), IsIdentChar);
        out += simple ? args[k] : "(" + args[k] + ")";
        replaced = true;
        break;
      }
      if (!replaced) out += word;
      i = j;
      continue;
    }
    out += expr[i++];
  }
  return out;
}

// The single-return expression of `name` with `args` in place: its
// definition in `file`, else its only one.
std::optional<std::string> Inlined(const Index& ix, const std::string& name, const std::vector<std::string>& args,
                                   const std::string& file) {
  const CppFunction* pick = nullptr;
  std::vector<uint32_t> ids = ix.cpp.FunctionsNamed(name);
  if (ids.size() == 1) pick = &ix.cpp.functions()[ids[0]];
  for (uint32_t id : ids)
    if (ix.cpp.file(ix.cpp.functions()[id].file) == file) pick = &ix.cpp.functions()[id];
  if (!pick) return std::nullopt;
  const CppFunction& f = *pick;
  if (!f.HasBody() || f.body_end - f.body_begin > kMaxInlinePredicateLines) return std::nullopt;
  auto text = ix.FileText(ix.cpp.file(f.file));
  if (!text) return std::nullopt;
  size_t at = 0;
  for (uint32_t l = 1; l < f.body_begin && at != std::string::npos; ++l) {
    at = text->find('\n', at);
    if (at != std::string::npos) ++at;
  }
  size_t end = at;
  for (uint32_t l = f.body_begin; l <= f.body_end && end != std::string::npos; ++l) {
    end = text->find('\n', end);
    if (end != std::string::npos) ++end;
  }
  if (at == std::string::npos) return std::nullopt;
  auto expr = SingleReturn(std::string_view(*text).substr(at, end == std::string::npos ? std::string::npos : end - at));
  std::vector<std::string> names = ParameterNames(f.params);
  if (!expr || names.size() != args.size()) return std::nullopt;
  return Substitute(*expr, names, args);
}

}  // namespace

std::string InlinePredicates(const Index& ix, std::string_view condition, const std::string& file) {
  std::string out;
  bool any = false;
  for (size_t i = 0; i < condition.size();) {
    // A free function's call: an identifier (qualified or not) not after '.' or '->'.
    bool starts = IsIdentChar(condition[i]) && !std::isdigit(static_cast<unsigned char>(condition[i])) &&
                  (i == 0 || (!IsIdentChar(condition[i - 1]) && condition[i - 1] != '.' && condition[i - 1] != '>'));
    if (!starts) {
      out += condition[i++];
      continue;
    }
    size_t j = i;
    while (j < condition.size() &&
           (IsIdentChar(condition[j]) || (condition[j] == ':' && j + 1 < condition.size() && condition[j + 1] == ':')))
      j += condition[j] == ':' ? 2 : 1;
    std::string qualified(condition.substr(i, j - i));
    std::string name = qualified.substr(qualified.rfind(':') == std::string::npos ? 0 : qualified.rfind(':') + 1);
    if (j < condition.size() && condition[j] == '(') {
      int depth = 0;
      size_t k = j;
      for (; k < condition.size(); ++k) {
        if (condition[k] == '(') ++depth;
        if (condition[k] == ')' && --depth == 0) break;
      }
      if (k < condition.size()) {
        std::vector<std::string> args = TopLevel(condition.substr(j + 1, k - j - 1));
        if (args.size() == 1 && args[0].empty()) args.clear();
        if (auto expr = Inlined(ix, name, args, file)) {
          out += "(" + *expr + ")";
          any = true;
          i = k + 1;
          continue;
        }
      }
    }
    out += qualified;
    i = j;
  }
  return any ? out : "";
}

}  // namespace optrace
