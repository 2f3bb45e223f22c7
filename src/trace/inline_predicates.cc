// Text substitution on balanced brackets: the call's arguments are split at
// top-level commas, each parameter name (the last identifier of its
// declaration, a default dropped) is replaced where it occurs as a whole
// word in the expression, parenthesized unless the argument is one name.
#include "trace/inline_predicates.h"
#include "trace/walk_bounds.h"

#include <algorithm>
#include <cctype>
#include <functional>
#include <optional>
#include <vector>

#include "base/text.h"
#include "trace/guard_files.h"

namespace optrace {

namespace {

// The parameter names of a declaration list ("const Tensor& input, double p = 0").
std::vector<std::string> ParameterNames(std::string_view params) {
  std::vector<std::string> out;
  for (std::string piece : SplitTopLevel(params, ',')) {
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

// A predicate returns bool: what any other function returns (a size, a
// pointer) is no truth value, and the caller's condition reads it as such.
bool ReturnsBool(const CppFunction& f) {
  std::string_view type = TrimView(f.return_type);
  return type == "bool" || type.ends_with(" bool");
}

// The arguments of a call whose parentheses are at `open` and `close` of `s`.
std::vector<std::string> CallArgumentsOf(std::string_view s, size_t open, size_t close) {
  std::vector<std::string> args = SplitTopLevel(s.substr(open + 1, close - open - 1), ',');
  if (args.size() == 1 && args[0].empty()) args.clear();
  return args;
}

// Whether `expr` is one call of `name` (maybe qualified) handing its
// arguments on: `cudnn_is_acceptable(static_cast<const TensorBase&>(self))`.
bool Forwards(const std::string& expr, const std::string& name) {
  size_t at = expr.rfind(name + "(", 0) == 0 ? 0 : expr.find("::" + name + "(");
  if (at == std::string::npos) return false;
  if (at > 0 && !std::all_of(expr.begin(), expr.begin() + at, [](char c) { return IsIdentChar(c) || c == ':'; }))
    return false;
  return ClosingBracket(expr, expr.find('(', at)) + 1 == expr.size();
}

// `expr` with each bare word (an identifier not after `.`, `->` or `::`)
// replaced by what `rewrite` makes of it, told whether a call, a scope or
// template arguments follow it (`f(`, `ns::`, `T<`).
std::string RewriteBareWords(const std::string& expr,
                             const std::function<std::string(const std::string& word, bool named)>& rewrite) {
  std::string out;
  for (size_t i = 0; i < expr.size();) {
    const bool starts =
        IsIdentChar(expr[i]) && !std::isdigit(static_cast<unsigned char>(expr[i])) &&
        (i == 0 || (!IsIdentChar(expr[i - 1]) && expr[i - 1] != '.' && expr[i - 1] != ':' && expr[i - 1] != '>'));
    if (!starts) {
      out += expr[i++];
      continue;
    }
    size_t j = i;
    while (j < expr.size() && IsIdentChar(expr[j])) ++j;
    size_t next = j;
    while (next < expr.size() && expr[next] == ' ') ++next;
    const bool named = next < expr.size() && (expr[next] == '(' || expr[next] == ':' || expr[next] == '<');
    out += rewrite(expr.substr(i, j - i), named);
    i = j;
  }
  return out;
}

// A predicate of several returns (`if (same device) return false; if (c)
// return false; ... return true;`, Copy.cu's copy_requires_temporaries) as
// one expression: each return's value under its guards, once every earlier
// return's guards are ruled out; each local written once before them
// (`Device dst_device = iter.device(0);`) replaced by what it is written.
// "" when the returns are not read, or too many to join.
std::string ReturnsExpression(const CppGuardReader& r, const CppFunction& f) {
  constexpr size_t kMaxReturns = 6;
  auto returns = r.ReturnsOf(static_cast<int>(f.line));
  if (!returns || returns->empty() || returns->size() > kMaxReturns) return "";
  auto all_of = [](const GuardedReturn& g) {
    std::string out;
    for (const auto& guard : g.guards)
      out += (out.empty() ? "" : " && ") + std::string(guard.negated ? "!(" : "(") + guard.text + ")";
    return out;
  };
  std::string expr, earlier;  // earlier: every earlier return's guards ruled out
  for (const GuardedReturn& g : *returns) {
    if (g.value.empty()) return "";
    const std::string guards = all_of(g);
    std::string term = earlier;
    if (!guards.empty()) term += (term.empty() ? "" : " && ") + guards;
    term += (term.empty() ? "(" : " && (") + g.value + ")";
    expr += (expr.empty() ? "(" : " || (") + term + ")";
    if (guards.empty()) break;  // taken whenever reached: nothing after runs
    earlier += (earlier.empty() ? "!(" : " && !(") + guards + ")";
  }
  return RewriteBareWords(expr, [&](const std::string& word, bool named) {
    if (named) return word;
    const auto writes = r.Writes(static_cast<int>(f.line), 0, word, [](int) { return true; });
    return writes.size() == 1 && writes[0].plain && !writes[0].value.empty() ? "(" + writes[0].value + ")" : word;
  });
}

// What `name(args)` returns: the predicate expression of its definition in
// `file`, else of its only definition with as many parameters. Overloads
// that forward to a namesake are left to the one they call; definitions in
// `#if` branches of their own are joined as `(P1 && (E1)) || (P2 && (E2))`,
// for the configuration to pick.
std::optional<std::string> Inlined(const Index& ix, const std::string& name, const std::vector<std::string>& args,
                                   const std::string& file) {
  struct Candidate {
    const CppFunction* f;
    std::string expr;
  };
  std::vector<Candidate> found;
  bool unread = false;
  for (uint32_t id : ix.cpp.FunctionsNamed(name)) {
    const CppFunction& f = ix.cpp.functions()[id];
    std::vector<std::string> names = ParameterNames(f.params);
    if (!f.HasBody() || names.size() != args.size() || !ReturnsBool(f)) continue;
    const CppGuardReader& r = GuardReaderOf(ix, ix.cpp.file(f.file));
    std::string expr =
        f.body_end - f.body_begin > kMaxInlinePredicateLines ? "" : r.PredicateExpression(static_cast<int>(f.line));
    if (expr.empty() && f.body_end - f.body_begin <= kMaxInlinePredicateLines) expr = ReturnsExpression(r, f);
    if (expr.empty() && ix.cpp.file(f.file) == file) return std::nullopt;
    unread = unread || expr.empty();
    if (!expr.empty() && !Forwards(expr, name)) found.push_back({&f, SubstituteWords(expr, names, args)});
  }
  for (const Candidate& c : found)
    if (ix.cpp.file(c.f->file) == file) return c.expr;
  if (unread || found.empty()) return std::nullopt;  // an overload we cannot read: the call stays open
  if (found.size() == 1) return found[0].expr;
  std::string joined;
  for (const Candidate& c : found) {
    std::string guard =
        ConjunctionOf(GuardReaderOf(ix, ix.cpp.file(c.f->file)).PreprocessorConditions(static_cast<int>(c.f->line)));
    if (guard.empty()) return std::nullopt;  // overloads told apart by types, not configuration
    joined += (joined.empty() ? "(" : " || (") + guard + " && (" + c.expr + "))";
  }
  return joined;
}

// Whether the word `w` is a constant or keyword rather than a member:
// `true`, `nullptr`, `kFloat`, `MIOPEN_DIM_MAX`.
bool IsConstantWord(std::string_view w) {
  if (w == "true" || w == "false" || w == "nullptr" || w == "this" || w == "sizeof") return true;
  if (w.size() > 1 && w[0] == 'k' && std::isupper(static_cast<unsigned char>(w[1]))) return true;
  return std::none_of(w.begin(), w.end(), [](char c) { return std::islower(static_cast<unsigned char>(c)); });
}

// `expr`, a member function's body expression, with each bare word that
// names no parameter, call, qualified name or constant written
// `object.word`: in a member function such a word is a member, and the
// caller's own parameter of that name is another variable.
std::string QualifyMembers(const std::string& expr, const std::string& object, const std::vector<std::string>& params) {
  return RewriteBareWords(expr, [&](const std::string& word, bool named) {
    const bool member =
        !named && !IsConstantWord(word) && std::find(params.begin(), params.end(), word) == params.end();
    return member ? object + "." + word : word;
  });
}

}  // namespace

std::string SubstituteWords(const std::string& expr, const std::vector<std::string>& names,
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

std::string InlineMemberPredicates(const Index& ix, std::string_view condition, const std::string& file,
                                   const std::string& object) {
  const std::string prefix = object + ".";
  std::string out;
  bool any = false;
  for (size_t i = 0; i < condition.size();) {
    const bool starts =
        condition.substr(i, prefix.size()) == prefix &&
        (i == 0 || (!IsIdentChar(condition[i - 1]) && condition[i - 1] != '.' && condition[i - 1] != '>'));
    size_t name_end = i + prefix.size();
    while (starts && name_end < condition.size() && IsIdentChar(condition[name_end])) ++name_end;
    if (!starts || name_end >= condition.size() || condition[name_end] != '(') {
      out += condition[i++];
      continue;
    }
    const std::string name(condition.substr(i + prefix.size(), name_end - i - prefix.size()));
    const size_t close = ClosingBracket(condition, name_end);
    if (close >= condition.size()) break;
    const std::vector<std::string> args = CallArgumentsOf(condition, name_end, close);
    std::string expr;
    for (uint32_t id : ix.cpp.FunctionsNamed(name)) {
      const CppFunction& f = ix.cpp.functions()[id];
      std::vector<std::string> names = ParameterNames(f.params);
      if (ix.cpp.file(f.file) != file || !f.HasBody() || names.size() != args.size() || !ReturnsBool(f)) continue;
      if (f.body_end - f.body_begin > kMaxInlinePredicateLines) continue;
      expr = GuardReaderOf(ix, file).PredicateExpression(static_cast<int>(f.line));
      if (!expr.empty()) expr = SubstituteWords(QualifyMembers(expr, object, names), names, args);
      break;
    }
    if (expr.empty()) {
      out.append(condition.substr(i, close + 1 - i));
    } else {
      out += "(" + expr + ")";
      any = true;
    }
    i = close + 1;
  }
  return any ? out : "";
}

std::string InlinePredicates(const Index& ix, std::string_view condition, const std::string& file,
                             const Assumptions& a) {
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
      const size_t k = ClosingBracket(condition, j);
      if (k < condition.size()) {
        const std::vector<std::string> args = CallArgumentsOf(condition, j, k);
        const std::string call(condition.substr(i, k + 1 - i));
        const bool known = EvaluateCondition(call, false, a) != Tri::kUnknown && !DecidedByLibraryName(call, a);
        if (auto expr = known ? std::nullopt : Inlined(ix, name, args, file)) {
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
