// One pass over the body's statements, left to right. Locals are kept as
// the text they were initialised with (earlier locals already in place),
// guards as (condition, returned literal); the result folds the guards
// around the final return from the last one back. Everything is read from
// tokens, so comments and strings never leak into the expression.
#include "cpp/cpp_predicate.h"

#include <map>
#include <optional>
#include <utility>

#include "cpp/token_range.h"

namespace optrace {

namespace {

class PredicateReader {
 public:
  PredicateReader(const std::vector<Token>& toks, size_t open, size_t close) : t_(toks), k_(toks), close_(close) {
    i_ = open + 1;
  }

  std::optional<std::string> Read() {
    while (i_ < close_) {
      if (t_[i_].Is("return")) return Return();
      if (t_[i_].Is("if")) {
        if (!IfStatement()) return GuardsBefore(kUnreadRest);
      } else if (!Declaration()) {
        return GuardsBefore(kUnreadRest);
      }
    }
    return std::nullopt;
  }

 private:
  struct Guard {
    std::string condition;
    bool returns_true = false;
  };
  struct Local {
    std::string value;
    bool primary = false;               // a name, member or call chain: needs no parentheses
    std::vector<std::string> narrowed;  // `name = name && X;`: each X
  };

  // Index of the ';' ending the statement at `from`, outside brackets; close_ if none.
  size_t StatementEnd(size_t from) const {
    for (size_t j = from; j < close_; ++j) {
      if (t_[j].Is('(') || t_[j].Is('[') || t_[j].Is('{')) j = k_.MatchClose(j, close_);
      else if (t_[j].Is(';')) return j;
    }
    return close_;
  }

  // Tokens [b, e) as text, each local read bare replaced by its value.
  std::string Substituted(size_t b, size_t e) const {
    std::string out;
    for (size_t j = b; j < e; ++j) {
      if (j > b && t_[j - 1].text.data() + t_[j - 1].text.size() != t_[j].text.data()) out += ' ';
      auto local = locals_.find(std::string(t_[j].text));
      const bool member = j > b && (t_[j - 1].Is('.') || t_[j - 1].Is("->") || t_[j - 1].Is("::"));
      if (local != locals_.end() && !member && !(j + 1 < e && t_[j + 1].Is('('))) {
        out += Value(local->second);
        continue;
      }
      out.append(t_[j].text);
    }
    return out;
  }

  static std::string Value(const Local& l) {
    if (l.narrowed.empty()) return l.primary ? l.value : "(" + l.value + ")";
    std::string v = "(" + l.value + ")";
    for (const std::string& x : l.narrowed) v = "(" + v + " && (" + x + "))";
    return v;
  }

  // Tokens [b, e) are a primary expression: names joined by `::`, `.`,
  // `->`, each maybe called or indexed (`at::globalContext()`, `self.sizes()[0]`).
  bool Primary(size_t b, size_t e) const {
    for (size_t j = b; j < e; ++j) {
      if (t_[j].Is('(') || t_[j].Is('[')) {
        j = k_.MatchClose(j, e);
        if (j >= e) return false;
      } else if (!IsIdent(t_[j]) && !t_[j].Is("::") && !t_[j].Is('.') && !t_[j].Is("->")) {
        return false;
      }
    }
    return b < e;
  }

  // `return E;` ending the body.
  std::optional<std::string> Return() {
    size_t end = StatementEnd(i_ + 1);
    if (end + 1 != close_ || end == i_ + 1) return std::nullopt;
    return GuardsBefore(Substituted(i_ + 1, end));
  }

  // The guards read so far folded around what the body returns after them;
  // nullopt when there are none to fold around a rest left unread.
  std::optional<std::string> GuardsBefore(std::string result) const {
    if (guards_.empty() && result == kUnreadRest) return std::nullopt;
    for (auto g = guards_.rbegin(); g != guards_.rend(); ++g)
      result = g->returns_true ? "(" + g->condition + ") || (" + result + ")"
                               : "!(" + g->condition + ") && (" + result + ")";
    return result;
  }

  // `if (C) return true|false;` (braced or not), or `if (flag) { ... }`
  // whose block only narrows locals.
  bool IfStatement() {
    if (i_ + 1 >= close_ || !t_[i_ + 1].Is('(')) return false;
    size_t cond_close = k_.MatchClose(i_ + 1, close_);
    if (cond_close >= close_) return false;
    size_t body = cond_close + 1;
    const bool braced = body < close_ && t_[body].Is('{');
    size_t stmt = braced ? body + 1 : body;
    size_t end = braced ? k_.MatchClose(body, close_) : StatementEnd(body);
    if (end >= close_) return false;
    size_t after = end + 1;
    if (after < close_ && t_[after].Is("else")) return false;
    if (stmt + 3 == end + (braced ? 0 : 1) && t_[stmt].Is("return") &&
        (t_[stmt + 1].Is("true") || t_[stmt + 1].Is("false")) && t_[stmt + 2].Is(';')) {
      guards_.push_back({Substituted(i_ + 2, cond_close), t_[stmt + 1].Is("true")});
      i_ = after;
      return true;
    }
    if (!braced || !OnlyNarrows(stmt, end)) return false;
    i_ = after;
    return true;
  }

  // Tokens [b, e) of a block: every write to a local is `name = name && X;`
  // (recorded), and nothing returns.
  bool OnlyNarrows(size_t b, size_t e) {
    for (size_t j = b; j < e; ++j) {
      if (t_[j].Is("return")) return false;
      auto local = locals_.find(std::string(t_[j].text));
      if (local == locals_.end() || j + 1 >= e || (j > b && (t_[j - 1].Is('.') || t_[j - 1].Is("->")))) continue;
      const Token& next = t_[j + 1];
      if (next.Is("==") || !(next.Is('=') || next.Is("&=") || next.Is("|=") || next.Is("++") || next.Is("--"))) {
        if (j > b && (t_[j - 1].Is('&') || t_[j - 1].Is("++") || t_[j - 1].Is("--"))) return false;
        continue;
      }
      size_t end = StatementEnd(j + 2);
      if (next.Is("&=")) {
        local->second.narrowed.push_back(k_.Join(j + 2, end));
      } else if (next.Is('=') && j + 3 < end && t_[j + 2].text == t_[j].text && t_[j + 3].Is("&&")) {
        local->second.narrowed.push_back(k_.Join(j + 4, end));
      } else {
        return false;
      }
      j = end;
    }
    return true;
  }

  // `[const] T [&] name = E;`: a local, read where it is used.
  bool Declaration() {
    size_t end = StatementEnd(i_);
    if (end >= close_) return false;
    size_t eq = end;
    for (size_t j = i_; j < end; ++j) {
      if (t_[j].Is('(') || t_[j].Is('[') || t_[j].Is('{')) break;
      if (t_[j].Is('=')) {
        eq = j;
        break;
      }
    }
    if (eq == end || eq < i_ + 2 || !IsIdent(t_[eq - 1]) || locals_.count(std::string(t_[eq - 1].text))) return false;
    locals_[std::string(t_[eq - 1].text)] = {Substituted(eq + 1, end), Primary(eq + 1, end), {}};
    i_ = end + 1;
    return true;
  }

  const std::vector<Token>& t_;
  Toks k_;
  size_t close_;
  size_t i_;
  std::vector<Guard> guards_;
  std::map<std::string, Local> locals_;
};

}  // namespace

std::string PredicateExpression(const std::vector<Token>& toks, size_t open, size_t close) {
  if (open >= close || close >= toks.size() || !toks[open].Is('{')) return "";
  return PredicateReader(toks, open, close).Read().value_or("");
}

}  // namespace optrace
