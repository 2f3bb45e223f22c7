// A recursive walk over statements: a block, an `if` with its optional
// `else`, a `return`, a loop or `switch` stepped over whole (unless it
// returns), anything else up to its `;` at bracket depth 0.
#include "cpp/guarded_returns.h"

#include "cpp/token_range.h"

namespace optrace {

namespace {

class ReturnReader {
 public:
  ReturnReader(const std::vector<Token>& toks, bool loops) : t_(toks), k_(toks), loops_(loops) {}

  // The statements of the block from token `i` to `end`; false when one cannot be read.
  bool Block(size_t i, size_t end, std::vector<GuardedReturn::Guard>& guards) {
    while (i < end) {
      size_t next = Statement(i, end, guards);
      if (next == Toks::kNone) return false;
      i = next;
    }
    return true;
  }

  std::vector<GuardedReturn> returns;

 private:
  // Reads the statement at `i`; the token past it, or kNone.
  size_t Statement(size_t i, size_t end, std::vector<GuardedReturn::Guard>& guards) {
    const Token& k = t_[i];
    if (k.Is('{')) {
      size_t c = k_.MatchClose(i, end);
      if (c >= end || !Block(i + 1, c, guards)) return Toks::kNone;
      return c + 1;
    }
    if (k.Is(';')) return i + 1;
    if (k.Is("if")) return If(i, end, guards);
    if (k.Is("return")) {
      size_t semi = StatementEnd(i, end);
      if (semi == Toks::kNone) return Toks::kNone;
      returns.push_back({guards, k_.Join(i + 1, semi), static_cast<int>(k.line)});
      return semi + 1;
    }
    if (loops_ && (k.Is("for") || k.Is("while"))) return Loop(i, end, guards);
    if (k.Is("for") || k.Is("while") || k.Is("switch") || k.Is("do") || k.Is("try")) return Compound(i, end);
    if (k.Is("case") || k.Is("default") || k.Is("goto") || k.Is("else")) return Toks::kNone;
    size_t semi = StatementEnd(i, end);
    return semi == Toks::kNone ? Toks::kNone : semi + 1;
  }

  size_t If(size_t i, size_t end, std::vector<GuardedReturn::Guard>& guards) {
    size_t open = i + 1;
    if (open < end && t_[open].Is("constexpr")) ++open;
    if (open >= end || !t_[open].Is('(')) return Toks::kNone;
    size_t close = k_.MatchClose(open, end);
    if (close >= end) return Toks::kNone;
    const std::string condition = k_.Join(open + 1, close);
    guards.push_back({condition, false});
    size_t after = Statement(close + 1, end, guards);
    guards.pop_back();
    if (after == Toks::kNone) return Toks::kNone;
    if (after < end && t_[after].Is("else")) {
      guards.push_back({condition, true});
      after = Statement(after + 1, end, guards);
      guards.pop_back();
    }
    return after;
  }

  // A `for` or `while` loop: its head, then its body read under a loop guard.
  size_t Loop(size_t i, size_t end, std::vector<GuardedReturn::Guard>& guards) {
    const size_t open = i + 1;
    if (open >= end || !t_[open].Is('(')) return Toks::kNone;
    const size_t close = k_.MatchClose(open, end);
    if (close >= end) return Toks::kNone;
    guards.push_back({k_.Join(i, close + 1), false, true});
    const size_t after = Statement(close + 1, end, guards);
    guards.pop_back();
    return after;
  }

  // A loop, `switch`, `do` or `try` with no return in it, stepped over.
  size_t Compound(size_t i, size_t end) {
    size_t j = i + 1;
    // Its head's parentheses, then the body; `do { } while (c);` and
    // `try { } catch (...) { }` have more parts: take up to the last.
    while (j < end) {
      if (t_[j].Is('(')) {
        j = k_.MatchClose(j, end);
        if (j >= end) return Toks::kNone;
        ++j;
        continue;
      }
      if (t_[j].Is('{')) {
        size_t c = k_.MatchClose(j, end);
        if (c >= end) return Toks::kNone;
        j = c + 1;
        if (j < end && (t_[j].Is("while") || t_[j].Is("catch"))) continue;
        break;
      }
      size_t semi = StatementEnd(j, end);  // a body without braces
      if (semi == Toks::kNone) return Toks::kNone;
      j = semi + 1;
      break;
    }
    for (size_t r = i; r < j && r < end; ++r)  // a lambda's return too: not told apart here
      if (t_[r].Is("return")) return Toks::kNone;
    return j;
  }

  // The ';' ending the statement at `i` (brackets, braces of lambdas and
  // initializer lists included), or kNone.
  size_t StatementEnd(size_t i, size_t end) const {
    for (size_t j = i; j < end; ++j) {
      const Token& k = t_[j];
      if (k.Is('(') || k.Is('[') || k.Is('{')) {
        j = k_.MatchClose(j, end);
        if (j >= end) return Toks::kNone;
        continue;
      }
      if (k.Is(';')) return j;
    }
    return Toks::kNone;
  }

  const std::vector<Token>& t_;
  Toks k_;
  const bool loops_;
};

}  // namespace

std::optional<std::vector<GuardedReturn>> GuardedReturns(const std::vector<Token>& toks, size_t open, size_t close,
                                                         bool loops) {
  ReturnReader reader(toks, loops);
  std::vector<GuardedReturn::Guard> guards;
  if (!reader.Block(open + 1, close, guards)) return std::nullopt;
  return std::move(reader.returns);
}

}  // namespace optrace
