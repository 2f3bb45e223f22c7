// MacroExpander (see the header): substitution, pasting, stringizing and
// rescanning over the lexer's tokens. Bounded: a chain of at most
// kMaxDepth nested uses and kMaxTokens tokens per file, so a pathological
// file cannot blow the scan up; past the bounds a use expands to what was
// made so far (fewer functions found, never a wrong one).
#include "cpp/macro_expansion.h"

#include <algorithm>
#include <cctype>

#include "cpp/token_range.h"

namespace optrace {
namespace {

constexpr int kMaxDepth = 8;
constexpr size_t kMaxTokens = 1u << 20;

bool IsIdentText(std::string_view s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  return std::all_of(s.begin(), s.end(),
                     [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

}  // namespace

MacroExpander::MacroExpander(const LexedFile& lexed) : lx_(lexed) {
  for (const MacroDef& m : lx_.macros)
    if (m.function_like && !m.name.empty()) by_name_[m.name].push_back(&m);
}

const MacroDef* MacroExpander::DefinitionAt(std::string_view name, uint32_t line) const {
  auto it = by_name_.find(name);
  if (it == by_name_.end()) return nullptr;
  const MacroDef* found = nullptr;
  for (const MacroDef* m : it->second)
    if (m->line < line) found = m;
  return found;
}

std::vector<std::string_view> MacroExpander::ParametersOf(const MacroDef& m) const {
  // The lexer steps over the parameter list; it follows the name in the text.
  std::vector<std::string_view> out;
  const char* p = m.name.data() + m.name.size();
  if (*p != '(') return out;
  for (++p;;) {
    while (*p == ' ' || *p == '\t' || *p == '\\' || *p == '\n' || *p == '\r') ++p;
    const char* b = p;
    while (std::isalnum(static_cast<unsigned char>(*p)) || *p == '_' || *p == '.') ++p;
    if (p > b) out.emplace_back(b, static_cast<size_t>(p - b));
    while (*p == ' ' || *p == '\t' || *p == '\\' || *p == '\n' || *p == '\r') ++p;
    if (*p != ',') break;  // ')' ends the list; anything else is not a list we read
    ++p;
  }
  return out;
}

MacroExpander::Args MacroExpander::ArgumentsOf(const std::vector<Token>& t, size_t open, size_t close) {
  Args args;
  if (close <= open + 1) return args;
  Toks k(t);
  for (const auto& [b, e] : k.Args(open, close)) args.emplace_back(t.begin() + b, t.begin() + e);
  return args;
}

Token MacroExpander::Paste(const Token& left, const Token& right) {
  texts_.push_back(std::string(left.text) + std::string(right.text));
  Token out = left;
  out.text = texts_.back();
  out.kind = IsIdentText(out.text) ? TokKind::kIdent : left.kind;
  return out;
}

Token MacroExpander::Stringize(const std::vector<Token>& arg, uint32_t line) {
  std::string s = "\"";
  for (size_t i = 0; i < arg.size(); ++i) {
    if (i > 0) s += ' ';
    s += arg[i].text;
  }
  texts_.push_back(s + "\"");
  Token out;
  out.text = texts_.back();
  out.kind = TokKind::kString;
  out.line = line;
  return out;
}

std::vector<Token> MacroExpander::Substitute(const MacroDef& m, const Args& args) {
  std::vector<std::string_view> params = ParametersOf(m);
  // Each parameter's tokens; `...` takes the rest of the arguments, commas and all.
  std::vector<std::vector<Token>> values(params.size());
  for (size_t i = 0; i < params.size() && i < args.size(); ++i) {
    values[i] = args[i];
    if (params[i] != "...") continue;
    for (size_t j = i + 1; j < args.size(); ++j) {
      Token comma;
      comma.text = ",";
      values[i].push_back(comma);
      values[i].insert(values[i].end(), args[j].begin(), args[j].end());
    }
  }
  auto argument = [&](std::string_view name) -> const std::vector<Token>* {
    for (size_t i = 0; i < params.size(); ++i)
      if (params[i] == name || (params[i] == "..." && name == "__VA_ARGS__")) return &values[i];
    return nullptr;
  };
  std::vector<Token> out;
  const uint32_t end = std::min<uint32_t>(m.body_end, static_cast<uint32_t>(lx_.macro_tokens.size()));
  bool paste = false;
  for (uint32_t i = m.body_begin; i < end; ++i) {
    const Token& x = lx_.macro_tokens[i];
    if (x.Is("##")) {
      paste = !out.empty();
      continue;
    }
    std::vector<Token> piece;
    const std::vector<Token>* arg = IsIdent(x) ? argument(x.text) : nullptr;
    if (x.Is('#') && i + 1 < end && IsIdent(lx_.macro_tokens[i + 1]) && argument(lx_.macro_tokens[i + 1].text)) {
      piece.push_back(Stringize(*argument(lx_.macro_tokens[i + 1].text), x.line));
      ++i;
    } else if (arg) {
      piece = *arg;
    } else {
      piece.push_back(x);
    }
    for (Token& p : piece) {
      p.macro = 0;      // expanded code reads as code
      p.line = x.line;  // written where the parameter is: the calls' conditions are read there
    }
    if (paste && !piece.empty()) {
      out.back() = Paste(out.back(), piece.front());
      out.insert(out.end(), piece.begin() + 1, piece.end());
    } else {
      out.insert(out.end(), piece.begin(), piece.end());
    }
    paste = false;
  }
  produced_ += out.size();
  return out;
}

void MacroExpander::Rescan(std::vector<Token>* tokens, uint32_t line, std::vector<std::string_view>* active,
                           int depth) {
  std::vector<Token>& t = *tokens;
  for (size_t i = 0; i + 1 < t.size(); ++i) {
    if (!IsIdent(t[i]) || !t[i + 1].Is('(')) continue;
    if (std::find(active->begin(), active->end(), t[i].text) != active->end()) continue;
    const MacroDef* m = DefinitionAt(t[i].text, line);
    if (!m || depth >= kMaxDepth || produced_ > kMaxTokens) continue;
    size_t close = Toks(t).MatchClose(i + 1, t.size());
    if (close >= t.size()) continue;
    std::vector<Token> inner = Substitute(*m, ArgumentsOf(t, i + 1, close));
    active->push_back(m->name);
    Rescan(&inner, line, active, depth + 1);
    active->pop_back();
    t.erase(t.begin() + static_cast<std::ptrdiff_t>(i), t.begin() + static_cast<std::ptrdiff_t>(close) + 1);
    t.insert(t.begin() + static_cast<std::ptrdiff_t>(i), inner.begin(), inner.end());
    i += inner.size();
    if (i > 0) --i;  // the loop's ++i lands on the token after the expansion
  }
}

std::vector<Token> MacroExpander::Expand(const std::vector<Token>& t, size_t at, size_t close) {
  if (at + 1 >= t.size() || close >= t.size() || !IsIdent(t[at])) return {};
  const MacroDef* m = DefinitionAt(t[at].text, t[at].line);
  if (!m || produced_ > kMaxTokens) return {};
  std::vector<Token> out = Substitute(*m, ArgumentsOf(t, at + 1, close));
  std::vector<std::string_view> active = {m->name};
  Rescan(&out, t[at].line, &active, 1);
  if (!Balanced(out)) return {};
  return out;
}

bool MacroExpander::Balanced(const std::vector<Token>& t) {
  int depth = 0;
  for (const Token& x : t) {
    if (x.kind != TokKind::kPunct || x.text.size() != 1) continue;
    char c = x.text[0];
    depth += c == '(' || c == '[' || c == '{' ? 1 : c == ')' || c == ']' || c == '}' ? -1 : 0;
    if (depth < 0) return false;
  }
  return depth == 0;
}

}  // namespace optrace
