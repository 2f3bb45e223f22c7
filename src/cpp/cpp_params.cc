// Parameter lists are split at top-level commas (templates and brackets
// kept together); a parameter's default is what follows its top-level `=`,
// its name the identifier before it. Call arguments are split the same way
// without `<`, which a call argument uses as less-than.
#include "cpp/cpp_params.h"

#include <cctype>
#include <string>

#include "base/text.h"

namespace optrace {

namespace {

// The offset of a top-level `=` that is an assignment (not `==`, `<=`, `>=`, `!=`), or npos.
size_t DefaultSign(std::string_view param) {
  int depth = 0;
  for (size_t i = 0; i < param.size(); ++i) {
    char c = param[i];
    if (c == '(' || c == '[' || c == '{' || c == '<') ++depth;
    if (c == ')' || c == ']' || c == '}' || c == '>') --depth;
    if (c != '=' || depth != 0) continue;
    bool compares =
        (i + 1 < param.size() && param[i + 1] == '=') ||
        (i > 0 && (param[i - 1] == '=' || param[i - 1] == '!' || param[i - 1] == '<' || param[i - 1] == '>'));
    if (!compares) return i;
  }
  return std::string_view::npos;
}

// The identifier ending `declarator` ("const Tensor& self" -> "self"), or ""
// when it ends in no name (an unnamed `bool`, a pack `Args&&...`).
std::string DeclaredName(std::string_view declarator) {
  declarator = TrimView(declarator);
  while (!declarator.empty() && declarator.back() == ']') {  // `int a[2]`
    size_t open = declarator.rfind('[');
    if (open == std::string_view::npos) return "";
    declarator = TrimView(declarator.substr(0, open));
  }
  size_t start = declarator.size();
  while (start > 0 && IsIdentChar(declarator[start - 1])) --start;
  std::string_view name = declarator.substr(start);
  std::string_view type = TrimView(declarator.substr(0, start));
  // A lone type (`bool`, `Tensor`) names no parameter.
  if (!IsIdentifier(name) || type.empty() || type.ends_with("::")) return "";
  return std::string(name);
}

std::vector<CppParameter> ParseParameters(std::string_view params) {
  std::vector<CppParameter> out;
  if (TrimView(params).empty() || TrimView(params) == "void") return out;
  for (const std::string& piece : ParameterPieces(params)) {
    CppParameter p;
    size_t eq = DefaultSign(piece);
    const std::string_view declaration = TrimView(std::string_view(piece).substr(0, eq));
    p.name = DeclaredName(declaration);
    p.type =
        std::string(declaration.ends_with(p.name) ? TrimView(declaration.substr(0, declaration.size() - p.name.size()))
                                                  : declaration);
    if (eq != std::string_view::npos) p.default_value = std::string(TrimView(std::string_view(piece).substr(eq + 1)));
    out.push_back(std::move(p));
  }
  return out;
}

}  // namespace

const std::vector<std::string>& ParameterPieces(std::string_view params) {
  thread_local TextMap<std::vector<std::string>> split;
  auto it = split.find(params);
  if (it == split.end()) it = split.emplace(std::string(params), SplitTopLevel(params, ',')).first;
  return it->second;
}

const std::vector<CppParameter>& ParseCppParameters(std::string_view params) {
  thread_local TextMap<std::vector<CppParameter>> parsed;
  auto it = parsed.find(params);
  if (it == parsed.end()) it = parsed.emplace(std::string(params), ParseParameters(params)).first;
  return it->second;
}

namespace {

// `/*forward=*/true` -> `true`: a comment naming the parameter binds it by
// position, as C++ does (outside string literals).
std::string WithoutComments(std::string_view arg) {
  std::string out;
  char quote = 0;
  for (size_t i = 0; i < arg.size(); ++i) {
    const char c = arg[i];
    if (quote) {
      out += c;
      if (c == '\\' && i + 1 < arg.size()) out += arg[++i];
      else if (c == quote) quote = 0;
      continue;
    }
    if (c == '"' || c == '\'') quote = c;
    if (c == '/' && i + 1 < arg.size() && arg[i + 1] == '*') {
      size_t end = arg.find("*/", i + 2);
      if (end == std::string_view::npos) break;
      i = end + 1;
      continue;
    }
    if (c == '/' && i + 1 < arg.size() && arg[i + 1] == '/') {
      size_t end = arg.find('\n', i);
      if (end == std::string_view::npos) break;
      i = end;
      continue;
    }
    out += c;
  }
  return std::string(TrimView(out));
}

// Past the template argument list opening at text[open] ('<'): its
// closing '>' outside parentheses; text.size() when it does not close
// before a ';' or '{' (a comparison, not a template).
size_t PastTemplateArguments(std::string_view text, size_t open) {
  int angles = 0, parens = 0;
  for (size_t i = open; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '(') ++parens;
    if (c == ')' && --parens < 0) return text.size();
    if (parens > 0) continue;
    if (c == ';' || c == '{') return text.size();
    if (c == '<') ++angles;
    if (c == '>' && --angles == 0) return i + 1;
  }
  return text.size();
}

}  // namespace

std::optional<std::vector<std::string>> CppCallArgumentsFrom(std::string_view text, size_t begin,
                                                             std::string_view callee) {
  if (size_t colon = callee.rfind("::"); colon != std::string_view::npos) callee = callee.substr(colon + 2);
  for (size_t at = text.find(callee, begin); at != std::string_view::npos; at = text.find(callee, at + 1)) {
    if (at > 0 && IsIdentChar(text[at - 1])) continue;
    // Not the standard library's function of that name (`std::max(self.max().item<T>() + 1, n)`).
    size_t before = at;
    while (before > 0 && (text[before - 1] == ' ' || text[before - 1] == '\n')) --before;
    if (text.substr(0, before).ends_with("std::")) continue;
    size_t open = at + callee.size();
    while (open < text.size() && (text[open] == ' ' || text[open] == '\n')) ++open;
    // Explicit template arguments come between the name and its '('
    // (`launch<num_threads(), 4>(n, f)`).
    if (open < text.size() && text[open] == '<') {
      open = PastTemplateArguments(text, open);
      while (open < text.size() && (text[open] == ' ' || text[open] == '\n')) ++open;
    }
    if (open >= text.size() || text[open] != '(') continue;
    int depth = 0;
    size_t close = open;
    for (; close < text.size(); ++close) {
      if (text[close] == '(') ++depth;
      if (text[close] == ')' && --depth == 0) break;
    }
    if (close >= text.size()) return std::nullopt;
    std::string_view inside = text.substr(open + 1, close - open - 1);
    if (TrimView(inside).empty()) return std::vector<std::string>{};
    std::vector<std::string> args = SplitTopLevel(inside, ',', "([{", ")]}");
    for (std::string& arg : args) arg = WithoutComments(arg);
    return args;
  }
  return std::nullopt;
}

bool IsEmptyValue(std::string_view arg) {
  arg = TrimView(arg);
  return arg == "{}" || arg == "Tensor()" || arg == "at::Tensor()" || arg == "std::nullopt" || arg == "c10::nullopt";
}

std::string_view StaticCastOperand(std::string_view expr) {
  const std::string_view trimmed = TrimView(expr);
  if (!trimmed.starts_with("static_cast<") || !trimmed.ends_with(")")) return expr;
  // The type's closing `>` (templates nest), then `(` e `)` to the end.
  int depth = 0;
  for (size_t i = 11; i < trimmed.size(); ++i) {
    if (trimmed[i] == '<') ++depth;
    if (trimmed[i] != '>' || --depth != 0) continue;
    if (i + 1 >= trimmed.size() || trimmed[i + 1] != '(') return expr;
    const std::string_view inner = trimmed.substr(i + 2, trimmed.size() - i - 3);
    int parens = 0;
    for (char c : inner) {
      parens += c == '(' ? 1 : c == ')' ? -1 : 0;
      if (parens < 0) return expr;  // `static_cast<T>(a) + (b)`: the cast is not the whole
    }
    return parens == 0 ? TrimView(inner) : expr;
  }
  return expr;
}

bool IsCppLiteral(std::string_view arg) {
  arg = TrimView(arg);
  if (arg.empty()) return false;
  if (arg == "true" || arg == "false" || arg == "nullptr" || arg == "std::nullopt" || arg == "c10::nullopt")
    return true;
  if (IsEmptyValue(arg)) return true;
  char first = arg.front();
  if (first == '"' || first == '\'') return arg.size() >= 2 && arg.back() == first;
  std::string_view unsigned_part = first == '-' ? arg.substr(1) : arg;
  bool numeric_start = !unsigned_part.empty() && (std::isdigit(static_cast<unsigned char>(unsigned_part[0])) ||
                                                  (unsigned_part[0] == '.' && unsigned_part.size() > 1 &&
                                                   std::isdigit(static_cast<unsigned char>(unsigned_part[1]))));
  if (numeric_start) {
    for (size_t i = 1; i < arg.size(); ++i) {
      char c = arg[i];
      bool exponent_sign = (c == '-' || c == '+') && (arg[i - 1] == 'e' || arg[i - 1] == 'E');
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '\'' && !exponent_sign) return false;
    }
    return true;
  }
  // A scoped name (`Activation::None`, `at::kFloat`): its last part a
  // capitalized or k-prefixed constant, never a function or variable.
  size_t colon = arg.rfind("::");
  if (colon == std::string_view::npos || colon == 0) return false;
  for (char c : arg)
    if (!IsIdentChar(c) && c != ':') return false;
  std::string_view last = arg.substr(colon + 2);
  if (last.empty()) return false;
  bool constant = last.size() > 1 && last[0] == 'k' && std::isupper(static_cast<unsigned char>(last[1]));
  return std::isupper(static_cast<unsigned char>(last[0])) || constant;
}

}  // namespace optrace
