// One pass over the expression's tokens at bracket depth 0. A `<` opens a
// template argument list where a name precedes it and the matching `>` is
// followed by `(`, `::` or `{` (`static_cast<int64_t>(n)`,
// `std::numeric_limits<T>::max()`); anywhere else it compares. An operator
// is unary where no operand precedes it (the start, or after another operator).
#include "cpp/operator_expression.h"

#include <unordered_set>

#include "cpp/cpp_lexer.h"

namespace optrace {

namespace {

// The binary operators at::Tensor overloads with a Tensor result.
bool IsTensorBinary(std::string_view op) {
  static const std::unordered_set<std::string_view> kOps = {"+",  "-",  "*",  "/",  "%",  "&", "|", "^",
                                                            "<<", "==", "!=", "<=", ">=", "<", ">"};
  return kOps.count(op) > 0;
}

// The index just past the `>` closing a template argument list opened at
// `open`, or npos when the `<` there is a comparison.
size_t TemplateClose(const std::vector<Token>& t, size_t open) {
  if (open == 0 || !IsIdent(t[open - 1])) return std::string_view::npos;
  int angles = 0, brackets = 0;
  for (size_t i = open; i < t.size(); ++i) {
    if (IsOpenBracket(t[i])) ++brackets;
    if (IsCloseBracket(t[i]) && --brackets < 0) return std::string_view::npos;
    if (brackets > 0) continue;
    if (t[i].Is('<')) ++angles;
    if (t[i].Is('>') && --angles == 0) {
      const bool follows = i + 1 < t.size() && (t[i + 1].Is('(') || t[i + 1].Is("::") || t[i + 1].Is('{'));
      return follows ? i + 1 : std::string_view::npos;
    }
    if (t[i].Is("&&") || t[i].Is("||") || t[i].Is(';')) return std::string_view::npos;
  }
  return std::string_view::npos;
}

}  // namespace

std::optional<TopLevelOperators> TopLevelOperatorsOf(std::string_view expression) {
  LexedFile lexed;
  LexCpp(expression, &lexed);
  const std::vector<Token>& t = lexed.tokens;
  TopLevelOperators out;
  bool any_operator = false, operand_before = false;
  size_t operand_begin = 0;
  int depth = 0;
  auto close_operand = [&](size_t end) {
    if (end > operand_begin) {
      const char* b = t[operand_begin].text.data();
      const char* e = t[end - 1].text.data() + t[end - 1].text.size();
      out.operands.emplace_back(b, e);
    }
  };
  for (size_t i = 0; i < t.size(); ++i) {
    if (IsOpenBracket(t[i])) ++depth;
    if (IsCloseBracket(t[i]) && --depth < 0) return std::nullopt;
    if (depth > 0 || IsCloseBracket(t[i])) {  // inside a bracket, or closing one: part of an operand
      operand_before = true;
      continue;
    }
    if (t[i].kind != TokKind::kPunct || t[i].Is("::") || t[i].Is('.') || t[i].Is("->")) {
      operand_before = true;
      continue;
    }
    if (t[i].Is('<')) {
      if (size_t past = TemplateClose(t, i); past != std::string_view::npos) {
        i = past - 1;
        operand_before = true;
        continue;
      }
    }
    // `>>`: two glued '>' tokens, a shift.
    std::string_view op = t[i].text;
    const bool shift = t[i].Is('>') && i + 1 < t.size() && t[i + 1].Is('>') && t[i + 1].glued;
    if (shift) op = ">>";
    const bool unary = !operand_before;
    any_operator = true;
    close_operand(i);
    if (unary) {
      if (!(op == "-" || op == "~")) out.tensor_operators_only = false;  // !x, *p, &x, ++i
    } else if (!IsTensorBinary(op) && op != ">>") {
      out.tensor_operators_only = false;  // && || = += ?: , and the rest
    }
    if (shift) ++i;
    operand_begin = i + 1;
    operand_before = false;
  }
  if (depth != 0 || !any_operator) return std::nullopt;
  close_operand(t.size());
  return out;
}

}  // namespace optrace
