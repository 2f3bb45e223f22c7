// The words of a condition, read as the path annotator needs them
// (trace_paths.cc and its parts): declared in trace/condition_text.h; and a Condition
// (trace.h) as the trace states it.
#include "trace/condition_text.h"

#include <algorithm>
#include <cctype>
#include <set>

#include "base/text.h"
#include "trace/trace.h"

namespace optrace {

std::string Condition::Describe() const {
  // "unless !x" reads "when x".
  bool neg = negated;
  std::string_view t = text;
  if (t.size() > 1 && t[0] == '!' && t[1] != '=' && t.find_first_of("&|") == std::string_view::npos) {
    neg = !neg;
    t.remove_prefix(1);
  }
  if (kind == ConditionKind::kPreprocessor) return neg ? "#if !(" + std::string(t) + ")" : "#if " + std::string(t);
  return (neg ? "unless " : "when ") + std::string(t);
}

std::string LastName(std::string_view s) { return std::string(LastNameView(s)); }

std::string_view LastNameView(std::string_view s) {
  size_t lt = s.find('<');
  if (lt != std::string_view::npos) s = s.substr(0, lt);
  size_t colon = s.rfind("::");
  if (colon != std::string_view::npos) s = s.substr(colon + 2);
  while (!s.empty() && (s.front() == '&' || s.front() == '*')) s.remove_prefix(1);
  return s;
}

std::vector<std::string> CalledFunctions(std::string_view text) {
  static const std::set<std::string> kSkip = {
      "static_cast", "reinterpret_cast", "const_cast", "dynamic_cast", "defined", "sizeof",
      "TORCH_CHECK", "C10_UNLIKELY",     "C10_LIKELY", "isinstance",   "len",     "get",
      "value",       "has_value",        "size",       "dim",          "numel"};
  std::vector<std::string> out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (!IsIdentChar(text[i]) || (i > 0 && IsIdentChar(text[i - 1]))) continue;
    size_t j = i;
    while (j < text.size() && (IsIdentChar(text[j]) || (text[j] == ':' && j + 1 < text.size() && text[j + 1] == ':')))
      j += text[j] == ':' ? 2 : 1;
    size_t k = j;
    if (k < text.size() && text[k] == '<') {  // template arguments
      int d = 0;
      for (; k < text.size(); ++k) {
        if (text[k] == '<') ++d;
        if (text[k] == '>' && --d == 0) break;
      }
      ++k;
    }
    bool method = i > 0 && (text[i - 1] == '.' || text[i - 1] == '>');
    if (!method && k < text.size() && text[k] == '(' && !std::isdigit(static_cast<unsigned char>(text[i]))) {
      std::string qualified(text.substr(i, j - i));
      if (!kSkip.count(LastName(qualified)) && std::find(out.begin(), out.end(), qualified) == out.end())
        out.push_back(qualified);
    }
    i = j;
  }
  return out;
}

namespace {

// A lower-case name (`dim1`, `other_dim`), not a constant: constants are
// qualified (`SDPBackend::math`), literals, or spelled kName / NAME.
bool IsVariableName(std::string_view s) {
  if (!IsIdentifier(s) || !std::islower(static_cast<unsigned char>(s[0])) || s == "true" || s == "false" ||
      s == "nullptr")
    return false;
  return std::none_of(s.begin(), s.end(), [](char c) { return std::isupper(static_cast<unsigned char>(c)); });
}

}  // namespace

std::string LoneVariable(std::string_view text) {
  size_t eq = text.find(" == ");
  if (eq != std::string_view::npos) {
    if (IsVariableName(text.substr(eq + 4))) return "";
    text = text.substr(0, eq);
  }
  while (!text.empty() && text.front() == '!') text.remove_prefix(1);
  if (text.empty()) return "";
  for (char c : text)
    if (!IsIdentChar(c)) return "";
  return std::isdigit(static_cast<unsigned char>(text[0])) ? "" : std::string(text);
}

std::string CastOperand(std::string_view expr) {
  size_t open = expr.find('(');
  if (open == std::string_view::npos || expr.empty() || expr.back() != ')') return "";
  return LoneVariable(expr.substr(open + 1, expr.size() - open - 2));
}

}  // namespace optrace
