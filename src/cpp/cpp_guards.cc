// How the conditions of a call are read: the file is lexed (cpp_lexer, so
// comments, strings and raw strings never confuse the braces), then the
// tokens from the function's definition on are walked with a stack of
// frames, one per `{}` block or braceless `if` body. A frame remembers the
// conditions it adds (its `if`, the negated chain of an `else`, the current
// `case` of a `switch`), whether it returns, and the if-chain that closed
// last in it, so a following `else` knows what it negates and a statement
// after `if (C) { ... return; }` runs "unless C". `?:` is tracked per
// parenthesis depth, and so is a short circuit (the right operand of `||`
// runs unless its left holds, of `&&` when it holds); what a
// `*_DEBUG_ONLY(...)` assertion's arguments call runs unless NDEBUG. Preprocessor groups are read separately, line by
// line, because the lexer resolves them. A call in the body of a named local lambda (`auto solve = [&](...) { ... };`)
// runs where `solve(...)` is called: its conditions are those of the lambda's calls (ThroughLambdaCalls), then the
// body's own. A reader walks each function it is asked about once, keeping
// every name's first call per line with the conditions found there
// (CppCallSites): the walk's state never depends on the call looked for.
#include "cpp/cpp_guards.h"

#include <algorithm>
#include <cctype>
#include <deque>
#include <map>
#include <optional>
#include <unordered_set>

#include "base/text.h"
#include "cpp/cpp_lexer.h"
#include "cpp/cpp_params.h"
#include "cpp/cpp_predicate.h"
#include "cpp/macro_expansion.h"
#include "cpp/token_range.h"

namespace optrace {

namespace {

// Text of tokens [b, e) as written in `text`.
bool IsIdentLike(const Token& t) { return t.kind == TokKind::kIdent || t.kind == TokKind::kNumber; }

// Whether toks[b, e) are written one after another in `text`, with only
// blanks, line continuations and comments between them -- not a macro
// expansion's tokens, which come from the #define, the use and pasting.
bool WrittenTogether(std::string_view text, const std::vector<Token>& toks, size_t b, size_t e) {
  const char* const first = text.data();
  const char* const last = text.data() + text.size();
  for (size_t i = b; i < e; ++i) {
    const char* p = toks[i].text.data();
    if (p < first || p + toks[i].text.size() > last) return false;
    if (i == b) continue;
    const char* gap = toks[i - 1].text.data() + toks[i - 1].text.size();
    if (gap > p) return false;
    std::string_view between(gap, static_cast<size_t>(p - gap));
    if (between.find_first_not_of(" \t\r\n\\") != std::string_view::npos && between.find("/") == std::string_view::npos)
      return false;
  }
  return true;
}

std::string Span(std::string_view text, const std::vector<Token>& toks, size_t b, size_t e) {
  if (b >= e || e > toks.size()) return "";
  if (!WrittenTogether(text, toks, b, e)) {
    // An expansion's tokens: joined, a blank only between two words and after a comma.
    std::string out;
    for (size_t i = b; i < e; ++i) {
      bool words = i > b && ((IsIdentLike(toks[i - 1]) && IsIdentLike(toks[i])) || toks[i - 1].Is(','));
      out += words ? " " : "";
      out += toks[i].text;
    }
    return out;
  }
  const char* start = toks[b].text.data();
  const char* end = toks[e - 1].text.data() + toks[e - 1].text.size();
  std::string written(start, static_cast<size_t>(end - start));
  // A #define's line continuations are no part of what it says.
  for (size_t at = written.find('\\'); at != std::string::npos; at = written.find('\\', at)) {
    size_t next = written.find_first_not_of(" \t\r", at + 1);
    if (next != std::string::npos && written[next] == '\n') written.replace(at, next - at + 1, " ");
    else ++at;
  }
  return CollapseSpace(written);
}

CodeCondition Negated(CodeCondition c, const char* kind) {
  c.negated = !c.negated;
  c.kind = kind;
  return c;
}

struct Frame {
  bool brace = true;                 // a {} block; else a braceless body that ends at ';'
  int paren = 0;                     // parenthesis depth the frame was opened at
  std::vector<CodeCondition> conds;  // what the frame adds
  std::vector<CodeCondition> chain;  // an if body: the chain's conditions as written
  bool if_body = false, returns = false;
  // An `else if` body, a final `else` body; and, in the block around them,
  // whether every body of the current if chain so far returns: a chain
  // whose every branch returns (a final else included) returns from the
  // block (`if (s) { if (x) return a; else return b; }` guards what follows
  // the outer if with "unless s").
  bool else_if = false, else_body = false, chain_returns = false;
  std::vector<CodeCondition> after;  // from early returns earlier in this block
  // The if chain that closed last in this block, until the next token says
  // whether an `else` follows.
  std::vector<CodeCondition> closed_chain;
  bool closed_pending = false, closed_returns = false;
  bool is_switch = false, last_was_case = false;
  std::string switch_expr;
  std::vector<std::string> cases;  // labels of the current case group
  int case_line = 0;               // of its first label
  // A named local lambda's body (`auto solve = [&](...) { ... };`): its
  // calls run where `solve(...)` is called, not where it is written.
  std::string lambda_name;
  int lambda_line = 0;
  size_t lambda_open = 0;  // the body's '{' token
};

// A `?:` condition, or the left operand of a short-circuit `&&`/`||` (what
// the right operand's calls need: `!w.defined() || f(w)` calls f unless
// !w.defined()), in force to the end of its expression.
struct Ternary {
  int paren;
  size_t frames;
  CodeCondition cond;
  bool in_else = false;
  bool short_circuit = false;
  bool is_or = false;
  size_t operand = 0;  // a short circuit's right operand starts at this token
};

}  // namespace

// Where a call is in a named local lambda: the innermost one, and the
// conditions written inside it (its body's own).
struct InLambda {
  std::string name;
  int line = 0;
  size_t open = 0;
  std::vector<CodeCondition> inner;
};

// What a walk finds at a call: its conditions, and the lambda it is in.
struct CallSite {
  std::vector<CodeCondition> conditions;
  std::optional<InLambda> lambda;
};

struct CppCallSites {
  // (line, name) -> the first call of that name on that line
  std::map<std::pair<int, std::string_view>, CallSite> first;
};

namespace {

// Index past the function body that starts at or after token i (or at
// the `;` of a declaration).
size_t BodyEnd(const std::vector<Token>& toks, size_t i) {
  while (i < toks.size() && !toks[i].Is('{') && !toks[i].Is(';')) ++i;
  if (i >= toks.size() || toks[i].Is(';')) return i;
  int d = 0;
  for (; i < toks.size(); ++i) {
    if (toks[i].Is('{')) ++d;
    if (toks[i].Is('}') && --d == 0) return i + 1;
  }
  return toks.size();
}

// Whether the walk that gave `sites` saw a call of `name` on any line.
bool NamesCall(const CppCallSites& sites, std::string_view name) {
  return std::any_of(sites.first.begin(), sites.first.end(),
                     [&](const auto& site) { return site.first.second == name; });
}

}  // namespace

// Every use of a function-like macro of the file, wherever it is written,
// expanded and walked as code of its own: the first call of each name on
// each #define line, as the first expansion naming it has it.
struct CppGuardReader::ExpandedCode {
  explicit ExpandedCode(const LexedFile& lexed) : expander(lexed) {}
  MacroExpander expander;
  std::deque<std::vector<Token>> expansions;  // the sites' names point into them
  std::unordered_map<int, size_t> at_line;    // a use's line -> its expansion (the first there)
  CppCallSites sites;
};

namespace {

// Whether `line` lies in a function-like macro's #define.
bool InMacroBody(const LexedFile& lx, int line) {
  for (const MacroDef& m : lx.macros)
    if (m.function_like && static_cast<int>(m.line) <= line && line <= static_cast<int>(m.end_line)) return true;
  return false;
}

// Whether `line` starts with a use of a function-like macro #defined above it.
bool MacroUseAt(const LexedFile& lx, int line) {
  const auto& t = lx.tokens;
  auto it =
      std::lower_bound(t.begin(), t.end(), line, [](const Token& x, int l) { return static_cast<int>(x.line) < l; });
  const size_t i = static_cast<size_t>(it - t.begin());
  if (i + 1 >= t.size() || static_cast<int>(t[i].line) != line || !IsIdent(t[i]) || !t[i + 1].Is('(')) return false;
  for (const MacroDef& m : lx.macros)
    if (m.function_like && m.name == t[i].text && static_cast<int>(m.line) < line) return true;
  return false;
}

// A function defined at `from_line` is written by a macro use there: its
// body lies in the #define, shared by every use, so the readers that walk
// one function's body answer "not read" for it (its calls' conditions are
// read from the expansions, CallConditions).
bool WrittenByMacroUse(const LexedFile& lx, int from_line) { return from_line > 1 && MacroUseAt(lx, from_line); }

}  // namespace

namespace {

class Walker {
 public:
  Walker(std::string_view text, const std::vector<Token>& toks, bool one_function)
      : text_(text), t_(toks), one_function_(one_function) {}

  // The conditions of the first call of `callee` on `call_line` (any line
  // when 0); *line is where it was found.
  bool Run(size_t begin, int call_line, std::string_view callee, std::vector<CodeCondition>* out, int* line);
  // With `all` set, Run records every free call it passes into *all and
  // looks for no callee.
  std::vector<CppGuardReader::GuardedCall>* all = nullptr;
  // With `sites` set, Run records the first call of each name on each line
  // into *sites, as Run for that line and callee would find it, and looks
  // for no callee: the walk's state never depends on what it looks for.
  CppCallSites* sites = nullptr;
  // Where the call Run found is in a named local lambda.
  std::optional<InLambda> lambda;

 private:
  // Index past the ')' matching the '(' at i (t_.size() when unbalanced).
  size_t SkipParens(size_t i) const {
    int d = 0;
    for (; i < t_.size(); ++i) {
      if (t_[i].Is('(')) ++d;
      else if (t_[i].Is(')') && --d == 0) return i + 1;
    }
    return t_.size();
  }
  void Collect(std::vector<CodeCondition>* out) const { CollectFrom(0, out); }
  // The conditions of frames [first, top) and of the ternaries opened in them.
  void CollectFrom(size_t first, std::vector<CodeCondition>* out) const;
  // The innermost frame that is a named lambda's body; frames_.size() when none.
  size_t InnermostLambda() const {
    for (size_t k = frames_.size(); k-- > 0;)
      if (!frames_[k].lambda_name.empty()) return k;
    return frames_.size();
  }
  // Collect, and where the scan is inside a named lambda, `lambda` too.
  void CollectFound(std::vector<CodeCondition>* out) {
    Collect(out);
    const size_t k = InnermostLambda();
    if (k == frames_.size()) return;
    lambda = InLambda{frames_[k].lambda_name, frames_[k].lambda_line, frames_[k].lambda_open, {}};
    CollectFrom(k, &lambda->inner);
  }
  // The call at `tok`. A name called earlier on its line keeps that call's
  // conditions, save when this one is the other arm of the same choice
  // (`keepdim ? f(a) : f(b)`): the name is called either way.
  void RecordSite(const Token& tok) {
    auto [site, fresh] = sites->first.try_emplace({static_cast<int>(tok.line), tok.text});
    lambda.reset();
    if (!fresh) {
      std::vector<CodeCondition> now;
      CollectFound(&now);
      if (!lambda && !site->second.lambda) DropTheChoice(&site->second.conditions, now);
      lambda.reset();
      return;
    }
    CollectFound(&site->second.conditions);
    site->second.lambda = std::move(lambda);
    lambda.reset();
  }
  // `kept` without its last condition where `other` is `kept` with that
  // condition's other polarity: the two calls run under either.
  static void DropTheChoice(std::vector<CodeCondition>* kept, const std::vector<CodeCondition>& other) {
    if (kept->empty() || kept->size() != other.size()) return;
    for (size_t i = 0; i + 1 < kept->size(); ++i)
      if ((*kept)[i].text != other[i].text || (*kept)[i].negated != other[i].negated) return;
    const CodeCondition &a = kept->back(), &b = other.back();
    if (a.text == b.text && a.line == b.line && a.negated != b.negated) kept->pop_back();
  }
  // The name a lambda whose body opens at token `open` is assigned to
  // (`auto name = [captures](params) mutable -> T {`); "" when none.
  std::string LambdaNameAt(size_t open) const;
  // `&&` of a declaration (`auto&& x = ...`, `Tensor&& t,`), not the operator.
  bool DeclaratorAmpersands(size_t i) const {
    if (i == 0 || i + 2 >= t_.size()) return false;
    if (t_[i - 1].Is("auto") || t_[i - 1].Is('>') || t_[i - 1].Is("const")) return true;
    return IsIdent(t_[i + 1]) &&
           (t_[i + 2].Is('=') || t_[i + 2].Is(',') || t_[i + 2].Is(')') || t_[i + 2].Is('[') || t_[i + 2].Is(';'));
  }
  // The short circuits of the expression at this depth end (`?`, `:`).
  void EndShortCircuits() {
    while (!ternaries_.empty() && ternaries_.back().short_circuit && ternaries_.back().paren == paren_ &&
           ternaries_.back().frames == frames_.size())
      ternaries_.pop_back();
  }
  // `||` at token i: what follows runs unless everything left of it at this
  // depth holds. `&&`: when its left operand (back to the last `||`) holds.
  void ShortCircuit(size_t i) {
    const bool is_or = t_[i].Is("||");
    size_t start = expr_start_.back();
    auto here = [&](const Ternary& t) { return t.short_circuit && t.paren == paren_ && t.frames == frames_.size(); };
    if (is_or) {
      EndShortCircuits();
    } else {
      for (auto it = ternaries_.rbegin(); it != ternaries_.rend() && here(*it); ++it)
        if (it->is_or) {
          start = it->operand;
          break;
        }
      while (!ternaries_.empty() && here(ternaries_.back()) && !ternaries_.back().is_or) ternaries_.pop_back();
    }
    CodeCondition c;
    c.text = Span(text_, t_, start, i);
    c.line = static_cast<int>(t_[i].line);
    c.kind = "if";
    c.negated = is_or;
    if (c.text.empty()) return;
    Ternary t{paren_, frames_.size(), std::move(c)};
    t.short_circuit = true;
    t.is_or = is_or;
    t.operand = i + 1;
    ternaries_.push_back(std::move(t));
  }
  // t_[i] is called: `f(` or `f<...>(`.
  bool IsCall(size_t i) const {
    if (i + 1 >= t_.size()) return false;
    if (t_[i + 1].Is('(')) return true;
    if (!t_[i + 1].Is('<')) return false;
    int d = 0;
    for (size_t j = i + 1; j < t_.size() && j < i + 40; ++j) {
      if (t_[j].Is('<')) ++d;
      if (t_[j].Is('>') && --d == 0) return j + 1 < t_.size() && t_[j + 1].Is('(');
      if (t_[j].Is(';') || t_[j].Is('{')) return false;
    }
    return false;
  }
  // `SymDimVector sizes(n)`, `auto y(x)`: a name after a type is a variable
  // constructed, not a function called (a keyword before it -- `return
  // f(x)` -- is no type).
  bool Declarator(size_t i) const {
    if (i == 0 || !IsIdent(t_[i - 1])) return false;
    for (const char* word : {"return", "else", "case", "throw", "co_return", "co_await", "co_yield", "do"})
      if (t_[i - 1].Is(word)) return false;
    return true;
  }
  // `std::swap(a, b)`: the standard library's, never a function of the tree.
  bool StandardLibrary(size_t i) const { return i >= 2 && t_[i - 1].Is("::") && t_[i - 2].Is("std"); }
  void CloseFrame();
  void SettleClosedChain();
  // Header of an if/else/switch: its frame is pushed at the next token.
  size_t ReadIf(size_t i, std::vector<CodeCondition> prefix, std::vector<CodeCondition> prefix_chain);
  size_t ReadCase(size_t i);
  void OpenPending(bool brace);

  std::string_view text_;
  const std::vector<Token>& t_;
  bool one_function_;  // stop when the scope the scan started in closes
  std::vector<Frame> frames_;
  std::vector<Ternary> ternaries_;
  std::vector<size_t> expr_start_{0};  // per parenthesis depth
  int paren_ = 0;
  bool have_pending_ = false;
  Frame pending_;
  // Inside the parentheses of a `*_DEBUG_ONLY(...)` macro: the depth they
  // opened at and the line of the macro (-1: outside).
  int debug_only_paren_ = -1;
  int debug_only_line_ = 0;
};

void Walker::CollectFrom(size_t first, std::vector<CodeCondition>* out) const {
  for (size_t k = first; k < frames_.size(); ++k) {
    const Frame& f = frames_[k];
    out->insert(out->end(), f.after.begin(), f.after.end());
    out->insert(out->end(), f.conds.begin(), f.conds.end());
    if (f.is_switch && !f.cases.empty()) {
      CodeCondition c;
      c.kind = "case";
      c.line = f.case_line;
      if (f.cases.size() == 1 && f.cases[0] == "default") {
        c.text = "default of switch (" + f.switch_expr + ")";
      } else {
        for (size_t i = 0; i < f.cases.size(); ++i) c.text += (i ? " || " : "") + f.switch_expr + " == " + f.cases[i];
      }
      out->push_back(std::move(c));
    }
  }
  for (const Ternary& t : ternaries_)
    if (t.frames > first) out->push_back(t.in_else ? Negated(t.cond, "?:") : t.cond);
  // c10/util/Exception.h: under NDEBUG a *_DEBUG_ONLY assertion is
  // `while (false) ...`; what its arguments call runs in a debug build only.
  if (debug_only_paren_ >= 0 && first == 0) {
    CodeCondition c;
    c.text = "defined(NDEBUG)";
    c.negated = true;
    c.kind = "#if";
    c.line = debug_only_line_;
    out->push_back(std::move(c));
  }
}

std::string Walker::LambdaNameAt(size_t open) const {
  size_t k = open;
  // Back over `mutable`, `noexcept`, `-> T` to the parameter list's ')'.
  for (int steps = 0; k > 0 && steps < 8 && !t_[k - 1].Is(')') && !t_[k - 1].Is(']'); ++steps, --k)
    if (t_[k - 1].Is(';') || t_[k - 1].Is('{') || t_[k - 1].Is('}') || t_[k - 1].Is('=')) return "";
  if (k == 0) return "";
  auto match_back = [&](size_t close, char open_ch, char close_ch) -> size_t {  // index of the opener
    int d = 0;
    for (size_t j = close + 1; j-- > 0;) {
      if (t_[j].Is(close_ch)) ++d;
      else if (t_[j].Is(open_ch) && --d == 0) return j;
    }
    return t_.size();
  };
  size_t close = k - 1;
  if (t_[close].Is(')')) {
    size_t paren = match_back(close, '(', ')');
    if (paren == t_.size() || paren == 0 || !t_[paren - 1].Is(']')) return "";
    close = paren - 1;
  }
  size_t bracket = match_back(close, '[', ']');
  if (bracket == t_.size() || bracket < 2 || !t_[bracket - 1].Is('=') || !IsIdent(t_[bracket - 2])) return "";
  return std::string(t_[bracket - 2].text);
}

// The body on top ends: an if body leaves its chain with the block around it.
void Walker::CloseFrame() {
  Frame done = std::move(frames_.back());
  frames_.pop_back();
  while (!ternaries_.empty() && ternaries_.back().frames > frames_.size()) ternaries_.pop_back();
  if (frames_.empty()) return;
  Frame& parent = frames_.back();
  if (done.else_body) {
    if (parent.chain_returns && done.returns) {
      parent.returns = true;
      // `if (C) { return a; } else { return b; }`: what follows in the
      // block runs when C and unless C -- never (the tracer reads the pair
      // as a contradiction).
      if (parent.closed_chain.size() == 1) {
        parent.after.push_back(Negated(Negated(parent.closed_chain[0], "return"), "return"));
        parent.after.push_back(Negated(parent.closed_chain[0], "return"));
      }
    }
    return;
  }
  if (!done.if_body) return;
  parent.chain_returns = (done.else_if ? parent.chain_returns : true) && done.returns;
  parent.closed_chain = std::move(done.chain);
  parent.closed_returns = done.returns;
  parent.closed_pending = true;
}

// No `else` follows the chain that closed: a lone `if (C)` that returns
// guards every later statement of the block with "unless C".
void Walker::SettleClosedChain() {
  if (frames_.empty() || !frames_.back().closed_pending) return;
  Frame& f = frames_.back();
  f.closed_pending = false;
  if (f.closed_returns && f.closed_chain.size() == 1) f.after.push_back(Negated(f.closed_chain[0], "return"));
}

size_t Walker::ReadIf(size_t i, std::vector<CodeCondition> prefix, std::vector<CodeCondition> prefix_chain) {
  size_t j = i + 1;
  if (j < t_.size() && t_[j].Is("constexpr")) ++j;
  // `if C10_UNLIKELY (x)`: a name between `if` and its parenthesis is a
  // macro whose expansion holds the parentheses C++ requires; the condition
  // is the macro use as written (never dropped, never unwrapped by guess).
  const bool macro = j + 1 < t_.size() && IsIdent(t_[j]) && t_[j + 1].Is('(');
  const size_t open = macro ? j + 1 : j;
  if (open >= t_.size() || !t_[open].Is('(')) return i + 1;
  size_t close = SkipParens(open);
  CodeCondition c;
  c.text = macro ? Span(text_, t_, j, close) : Span(text_, t_, j + 1, close - 1);
  c.line = static_cast<int>(t_[i].line);
  c.kind = "if";
  pending_ = Frame();
  pending_.conds = std::move(prefix);
  pending_.conds.push_back(c);
  pending_.chain = std::move(prefix_chain);
  pending_.chain.push_back(c);
  pending_.if_body = true;
  have_pending_ = true;
  return close;
}

size_t Walker::ReadCase(size_t i) {
  Frame& sw = frames_.back();
  size_t j = i + 1;
  int d = 0;
  while (j < t_.size() && !(d == 0 && t_[j].Is(':'))) {
    if (t_[j].Is('(')) ++d;
    if (t_[j].Is(')')) --d;
    if (t_[j].Is(';') || t_[j].Is('{') || t_[j].Is('}')) return i + 1;
    ++j;
  }
  std::string label = t_[i].Is("default") ? "default" : Span(text_, t_, i + 1, j);
  if (!sw.last_was_case) {
    sw.cases.clear();
    sw.case_line = static_cast<int>(t_[i].line);
  }
  sw.cases.push_back(label);
  sw.last_was_case = true;
  return j + 1;
}

void Walker::OpenPending(bool brace) {
  pending_.brace = brace;
  pending_.paren = paren_;
  frames_.push_back(std::move(pending_));
  have_pending_ = false;
}

bool Walker::Run(size_t i, int call_line, std::string_view callee, std::vector<CodeCondition>* out, int* line) {
  frames_.push_back(Frame());  // the scope the scan starts in
  while (i < t_.size()) {
    const Token& tok = t_[i];
    if (call_line > 0 && static_cast<int>(tok.line) > call_line) return false;
    bool opened = false;  // this '{' opens the pending if/else/switch body
    if (have_pending_) {
      opened = tok.Is('{');
      OpenPending(opened);
    }
    if (IsIdent(tok) && tok.Is("else")) {
      Frame& f = frames_.back();
      std::vector<CodeCondition> negs, chain = f.closed_chain;
      for (const auto& c : f.closed_chain) negs.push_back(Negated(c, "else"));
      f.closed_pending = false;
      if (i + 1 < t_.size() && t_[i + 1].Is("if")) {
        i = ReadIf(i + 1, std::move(negs), std::move(chain));
        if (have_pending_) pending_.else_if = true;
      } else {
        pending_ = Frame();
        pending_.conds = std::move(negs);
        pending_.else_body = true;
        have_pending_ = true;
        ++i;
      }
      continue;
    }
    SettleClosedChain();
    Frame& top = frames_.back();
    if (top.is_switch && (tok.Is("case") || tok.Is("default")) && paren_ == top.paren) {
      i = ReadCase(i);
      continue;
    }
    if (top.is_switch) top.last_was_case = false;
    // An operator looked for by its symbol ("<=" of a C++ operator on tensors).
    if (!all && !IsIdent(tok) && tok.text == callee && static_cast<int>(tok.line) == call_line) {
      CollectFound(out);
      *line = call_line;
      return true;
    }
    if (IsIdent(tok)) {
      if (tok.Is("if")) {
        i = ReadIf(i, {}, {});
        continue;
      }
      if (debug_only_paren_ < 0 && tok.text.ends_with("_DEBUG_ONLY") && i + 1 < t_.size() && t_[i + 1].Is('(')) {
        debug_only_paren_ = paren_;
        debug_only_line_ = static_cast<int>(tok.line);
      }
      if (tok.Is("switch") && i + 1 < t_.size() && t_[i + 1].Is('(')) {
        size_t close = SkipParens(i + 1);
        pending_ = Frame();
        pending_.is_switch = true;
        pending_.switch_expr = Span(text_, t_, i + 2, close - 1);
        have_pending_ = true;
        i = close;
        continue;
      }
      if (tok.Is("return") || tok.Is("throw")) {
        top.returns = true;
        expr_start_.back() = i + 1;
      }
      if (all && IsCall(i) && !(i > 0 && (t_[i - 1].Is('.') || t_[i - 1].Is("->"))) && !Declarator(i) &&
          !StandardLibrary(i)) {
        CppGuardReader::GuardedCall g;
        g.callee = std::string(tok.text);
        g.line = static_cast<int>(tok.line);
        Collect(&g.conditions);
        g.in_lambda = InnermostLambda() != frames_.size();
        all->push_back(std::move(g));
      }
      // `kernel<<<grid, block>>>(...)` is a call of the kernel as much as `f(...)`.
      const bool called = i + 1 < t_.size() && (t_[i + 1].Is('(') || t_[i + 1].Is('<') || t_[i + 1].Is("::") ||
                                                t_[i + 1].kind == TokKind::kLaunchOpen);
      if (sites && called) RecordSite(tok);
      if (!all && !sites && tok.text == callee && (call_line <= 0 || static_cast<int>(tok.line) == call_line) &&
          called) {
        CollectFound(out);
        *line = static_cast<int>(tok.line);
        return true;
      }
    } else if (tok.Is('(')) {
      ++paren_;
      expr_start_.push_back(i + 1);
    } else if (tok.Is(')')) {
      if (paren_ > 0) --paren_;
      if (paren_ <= debug_only_paren_) debug_only_paren_ = -1;
      if (expr_start_.size() > 1) expr_start_.pop_back();
      while (!ternaries_.empty() && ternaries_.back().paren > paren_) ternaries_.pop_back();
    } else if (tok.Is('{')) {
      if (!opened) {
        Frame f;
        f.paren = paren_;
        f.lambda_name = LambdaNameAt(i);
        f.lambda_line = static_cast<int>(tok.line);
        f.lambda_open = i;
        frames_.push_back(std::move(f));
      }
      expr_start_.back() = i + 1;
    } else if (tok.Is('}')) {
      // A braceless body whose statement was this block ends with it.
      while (frames_.size() > 1 && !frames_.back().brace) CloseFrame();
      if (frames_.size() > 1) CloseFrame();
      else if (one_function_) return false;
      if (one_function_ && frames_.size() == 1) return false;  // the function's body closed
      while (frames_.size() > 1 && !frames_.back().brace && frames_.back().paren == paren_) CloseFrame();
      expr_start_.back() = i + 1;
    } else if (tok.Is(';') || tok.Is(',')) {
      while (!ternaries_.empty() && ternaries_.back().paren == paren_ && ternaries_.back().frames == frames_.size())
        ternaries_.pop_back();
      if (tok.Is(';'))
        while (frames_.size() > 1 && !frames_.back().brace && frames_.back().paren == paren_) CloseFrame();
      expr_start_.back() = i + 1;
    } else if (tok.Is('=')) {
      expr_start_.back() = i + 1;
    } else if (tok.Is("||") || (tok.Is("&&") && !DeclaratorAmpersands(i))) {
      ShortCircuit(i);
    } else if (tok.Is('?')) {
      EndShortCircuits();
      CodeCondition c;
      c.text = Span(text_, t_, expr_start_.back(), i);
      c.line = static_cast<int>(tok.line);
      c.kind = "?:";
      if (!c.text.empty()) ternaries_.push_back({paren_, frames_.size(), std::move(c)});
    } else if (tok.Is(':') && (EndShortCircuits(), true) && !ternaries_.empty() && ternaries_.back().paren == paren_ &&
               !ternaries_.back().in_else) {
      ternaries_.back().in_else = true;
    }
    ++i;
  }
  return false;
}

bool SameCondition(const CodeCondition& a, const CodeCondition& b) {
  return a.text == b.text && a.negated == b.negated && a.line == b.line && a.kind == b.kind;
}

bool Holds(const std::vector<CodeCondition>& list, const CodeCondition& c) {
  return std::any_of(list.begin(), list.end(), [&](const CodeCondition& d) { return SameCondition(c, d); });
}

// `(a && !(b)) || (c)`: one of the calls runs.
CodeCondition AnyOf(const std::vector<std::vector<CodeCondition>>& rests, int line) {
  CodeCondition any;
  any.kind = "if";
  any.line = line;
  for (size_t i = 0; i < rests.size(); ++i) any.text += (i ? " || (" : "(") + ConjunctionOf(rests[i]) + ")";
  return any;
}

// An early return written inside an #if group the call is not in guards
// the call only where that group is compiled: after `#ifdef USE_MPS if (m)
// return f(); #endif`, g() runs unless (defined(USE_MPS) && m), so always
// in a build without MPS, and never in the #else branch of that group.
// The groups are those around the returning `if`'s condition.
void ScopeEarlyReturns(const std::vector<PreprocessorLine>& pp, int call_line, std::vector<CodeCondition>* conds) {
  std::optional<std::vector<CodeCondition>> at_call;
  for (CodeCondition& c : *conds) {
    if (c.kind != "return") continue;
    if (!at_call) at_call = PreprocessorConditionsAt(pp, call_line);
    std::vector<CodeCondition> only_there;
    for (const CodeCondition& g : PreprocessorConditionsAt(pp, c.line))
      if (!Holds(*at_call, g)) only_there.push_back(g);
    if (only_there.empty()) continue;
    CodeCondition returning = c;
    returning.negated = false;
    only_there.push_back(returning);
    c.text = ConjunctionOf(only_there);
  }
}

}  // namespace

CppGuardReader::CppGuardReader(std::string_view text)
    : text_(text), pp_lines_(ReadPreprocessorLines(text)), memo_(std::make_unique<Memo>()) {
  line_starts_.push_back(0);
  for (size_t at = text.find('\n'); at != std::string_view::npos; at = text.find('\n', at + 1))
    line_starts_.push_back(static_cast<uint32_t>(at + 1));
  LexCpp(text, &lexed_);
}

std::optional<std::vector<std::string>> CppGuardReader::CallArguments(int line, std::string_view callee) const {
  if (static_cast<size_t>(std::max(line, 1)) > line_starts_.size()) return std::nullopt;
  return CppCallArgumentsFrom(text_, line_starts_[static_cast<size_t>(std::max(line, 1)) - 1], callee);
}

std::optional<WrittenCall> CppGuardReader::CallWritten(int line, std::string_view callee) const {
  return CallWrittenAt(lexed_.tokens, FirstToken(line), line, callee);
}

size_t CppGuardReader::FirstToken(int line) const {
  const auto& toks = lexed_.tokens;
  auto it = std::lower_bound(toks.begin(), toks.end(), line,
                             [](const Token& t, int l) { return static_cast<int>(t.line) < l; });
  return static_cast<size_t>(it - toks.begin());
}

bool CppGuardReader::CallConditions(int from_line, int call_line, std::string_view callee,
                                    std::vector<CodeCondition>* out) const {
  std::string key = std::to_string(from_line) + ":" + std::to_string(call_line) + ":" + std::string(callee);
  {
    std::shared_lock<std::shared_mutex> lock(memo_->mu);
    if (auto it = memo_->calls.find(key); it != memo_->calls.end()) {
      if (!it->second.first) return false;
      out->insert(out->end(), it->second.second.begin(), it->second.second.end());
      return true;
    }
  }
  std::vector<CodeCondition> found, all;
  std::optional<InLambda> in;
  int line = 0;
  bool written = false;
  if (call_line > 0 && !callee.empty() && (std::isalpha(static_cast<unsigned char>(callee[0])) || callee[0] == '_')) {
    // A named call on a known line: from the function's one walk.
    const CppCallSites& sites = SitesOf(from_line);
    if (auto it = sites.first.find({call_line, callee}); it != sites.first.end()) {
      written = true;
      line = call_line;
      found = it->second.conditions;
      in = it->second.lambda;
    } else if (InMacroBody(lexed_, call_line)) {
      // Written in a #define: found in an expansion of one of the file's
      // uses, where `NAME##_stub` is the name it pastes (no lambda is
      // followed there: its tokens are not the file's).
      const CppCallSites& expanded = ExpandedSites();
      if (auto e = expanded.first.find({call_line, callee}); e != expanded.first.end()) {
        written = true;
        line = call_line;
        found = e->second.conditions;
      }
    }
  } else if (call_line <= 0 && !WrittenByMacroUse(lexed_, from_line) && IsIdentifier(callee) &&
             !NamesCall(SitesOf(from_line), callee)) {
    // The first call of a name on any line, where the function's one walk
    // saw no call of it: none (most functions asked whether they call a
    // helper do not, and a walk of its own crosses the whole body).
  } else {
    // An operator by its symbol, or the first call on any line: a walk of its
    // own -- of the expansion, for a function a macro use at from_line writes.
    const std::vector<Token>* expansion = from_line > 1 ? ExpansionAt(from_line) : nullptr;
    Walker walker(text_, expansion ? *expansion : lexed_.tokens, from_line > 1 && !expansion);
    written = walker.Run(expansion ? 0 : FirstToken(from_line), call_line, callee, &found, &line);
    if (!expansion) in = std::move(walker.lambda);
  }
  if (written) {
    ScopeEarlyReturns(pp_lines_, line, &found);
    if (in) ScopeEarlyReturns(pp_lines_, line, &in->inner);
    if (!in || !ThroughLambdaCalls(from_line, in->name, in->line, in->open, line, &all)) {
      all = PreprocessorConditionsAt(pp_lines_, line);
      all.insert(all.end(), found.begin(), found.end());
    } else {
      all.insert(all.end(), in->inner.begin(), in->inner.end());
    }
    out->insert(out->end(), all.begin(), all.end());
  }
  std::lock_guard<std::shared_mutex> lock(memo_->mu);
  memo_->calls.emplace(std::move(key), std::make_pair(written, std::move(all)));
  return written;
}

const CppCallSites& CppGuardReader::ExpandedSites() const {
  std::call_once(memo_->expanded_once, [&] {
    auto code = std::make_shared<ExpandedCode>(lexed_);
    const auto& t = lexed_.tokens;
    std::unordered_set<std::string_view> macros;
    for (const MacroDef& m : lexed_.macros)
      if (m.function_like) macros.insert(m.name);
    for (size_t i = 0; i + 1 < t.size(); ++i) {
      if (!IsIdent(t[i]) || !t[i + 1].Is('(') || !macros.count(t[i].text)) continue;
      size_t close = Toks(t).MatchClose(i + 1, t.size());
      std::vector<Token> expansion = code->expander.Expand(t, i, close);
      if (expansion.empty()) continue;
      code->expansions.push_back(std::move(expansion));
      code->at_line.try_emplace(static_cast<int>(t[i].line), code->expansions.size() - 1);
      CppCallSites sites;
      Walker walker(text_, code->expansions.back(), false);
      walker.sites = &sites;
      std::vector<CodeCondition> unused;
      int line = 0;
      walker.Run(0, 0, "", &unused, &line);
      for (auto& [key, site] : sites.first) code->sites.first.try_emplace(key, CallSite{site.conditions, {}});
    }
    memo_->expanded = std::move(code);
  });
  return memo_->expanded->sites;
}

const std::vector<Token>* CppGuardReader::ExpansionAt(int line) const {
  if (!MacroUseAt(lexed_, line)) return nullptr;
  ExpandedSites();
  auto it = memo_->expanded->at_line.find(line);
  return it == memo_->expanded->at_line.end() ? nullptr : &memo_->expanded->expansions[it->second];
}

const CppCallSites& CppGuardReader::SitesOf(int from_line) const {
  static const CppCallSites kUnread;
  if (WrittenByMacroUse(lexed_, from_line)) return kUnread;
  {
    std::shared_lock<std::shared_mutex> lock(memo_->mu);
    if (auto it = memo_->sites.find(from_line); it != memo_->sites.end()) return *it->second;
  }
  auto sites = std::make_shared<CppCallSites>();
  Walker walker(text_, lexed_.tokens, from_line > 1);
  walker.sites = sites.get();
  std::vector<CodeCondition> unused;
  int line = 0;
  walker.Run(FirstToken(from_line), 0, "", &unused, &line);
  std::lock_guard<std::shared_mutex> lock(memo_->mu);
  return *memo_->sites.try_emplace(from_line, std::move(sites)).first->second;
}

bool CppGuardReader::ThroughLambdaCalls(int from_line, const std::string& name, int line, size_t open, int call_line,
                                        std::vector<CodeCondition>* out) const {
  const auto& t = lexed_.tokens;
  std::vector<int> lines;
  int depth = 0;
  for (size_t i = BodyEnd(lexed_.tokens, open); i < t.size() && depth >= 0; ++i) {
    if (t[i].Is('{')) ++depth;
    if (t[i].Is('}')) --depth;
    const bool member = i > 0 && (t[i - 1].Is('.') || t[i - 1].Is("->") || t[i - 1].Is("::"));
    if (t[i].text != name || !IsIdent(t[i]) || member) continue;
    // Handed on by name (`parallel_for(0, n, f)`), it runs where the callee
    // calls it: the body's place decides. Two calls on one line: the reader
    // tells only the first's conditions.
    if (i + 1 >= t.size() || !t[i + 1].Is('(')) return false;
    if (!lines.empty() && lines.back() == static_cast<int>(t[i].line)) return false;
    lines.push_back(static_cast<int>(t[i].line));
  }
  std::vector<std::vector<CodeCondition>> sites;
  for (int l : lines) {
    std::vector<CodeCondition> site;
    if (CallConditions(from_line, l, name, &site)) sites.push_back(std::move(site));
  }
  if (sites.empty()) return false;
  std::vector<CodeCondition> common;
  for (const auto& c : sites[0])
    if (std::all_of(sites.begin(), sites.end(), [&](const auto& s) { return Holds(s, c); })) common.push_back(c);
  std::vector<std::vector<CodeCondition>> rests;
  bool one_unconditional = false;
  for (const auto& s : sites) {
    std::vector<CodeCondition> rest;
    for (const auto& c : s)
      if (!Holds(common, c)) rest.push_back(c);
    one_unconditional = one_unconditional || rest.empty();
    rests.push_back(std::move(rest));
  }
  // Called on both sides of one condition (`if (C) { return f(a); }
  // return f(b);`): one of the calls runs whichever way C goes.
  for (size_t i = 0; i < rests.size() && !one_unconditional; ++i)
    for (size_t j = i + 1; j < rests.size() && !one_unconditional; ++j)
      one_unconditional = rests[i].size() == 1 && rests[j].size() == 1 && rests[i][0].text == rests[j][0].text &&
                          rests[i][0].negated != rests[j][0].negated;
  out->insert(out->end(), common.begin(), common.end());
  if (!one_unconditional) out->push_back(AnyOf(rests, line));
  const auto outside = PreprocessorConditionsAt(pp_lines_, line);
  for (const auto& c : PreprocessorConditionsAt(pp_lines_, call_line))
    if (!Holds(outside, c)) out->push_back(c);
  return true;
}

std::string CppGuardReader::AssignedExpression(int from_line, int before, std::string_view name) const {
  std::string key = std::to_string(from_line) + ":" + std::to_string(before) + ":" + std::string(name);
  {
    std::shared_lock<std::shared_mutex> lock(memo_->mu);
    if (auto it = memo_->assigned.find(key); it != memo_->assigned.end()) return it->second;
  }
  std::string last = LastAssignment(from_line, before, name);
  std::lock_guard<std::shared_mutex> lock(memo_->mu);
  return memo_->assigned.try_emplace(std::move(key), std::move(last)).first->second;
}

std::string CppGuardReader::LastAssignment(int from_line, int before, std::string_view name) const {
  if (WrittenByMacroUse(lexed_, from_line)) return "";
  const auto& t = lexed_.tokens;
  size_t begin = FirstToken(from_line), end = from_line > 1 ? BodyEnd(lexed_.tokens, begin) : t.size();
  std::string last;
  for (size_t i = begin; i + 1 < end; ++i) {
    if (before > 0 && static_cast<int>(t[i].line) >= before) break;
    if (t[i].text != name || !t[i + 1].Is('=')) continue;
    if (i > begin && (t[i - 1].Is('.') || t[i - 1].Is("->"))) continue;  // another object's member
    last = AssignedAt(i, end);
  }
  return last;
}

// The expression assigned by the `name =` at token i, up to its `;`.
std::string CppGuardReader::AssignedAt(size_t i, size_t end) const {
  const auto& t = lexed_.tokens;
  size_t j = i + 2;
  int d = 0;
  while (j < end && !(d == 0 && t[j].Is(';'))) {
    if (t[j].Is('(') || t[j].Is('{')) ++d;
    if (t[j].Is(')') || t[j].Is('}')) --d;
    ++j;
  }
  return Span(text_, t, i + 2, j);
}

namespace {

// The tokens of `name` in [begin, end), before line `before` (0: any), that
// write it on a line `built` admits: `name = e`, a compound assignment,
// `++`/`--`, or `&name` handed out (Writes' and InvokedLambdaReturns' scan).
std::vector<size_t> WriteTokens(const std::vector<Token>& t, size_t begin, size_t end, int before,
                                std::string_view name, const std::function<bool(int line)>& built) {
  std::vector<size_t> out;
  for (size_t i = begin; i + 1 < end; ++i) {
    if (before > 0 && static_cast<int>(t[i].line) >= before) break;
    if (t[i].text != name) continue;
    const std::string_view next = t[i + 1].text, prev = i > begin ? std::string_view(t[i - 1].text) : "";
    const bool compound =
        next.size() >= 2 && next.back() == '=' && next != "==" && next != "!=" && next != "<=" && next != ">=";
    if (!(next == "=" || compound || next == "++" || next == "--" || prev == "++" || prev == "--" || prev == "&"))
      continue;
    if (built(static_cast<int>(t[i].line))) out.push_back(i);
  }
  return out;
}

}  // namespace

std::vector<CppGuardReader::Write> CppGuardReader::Writes(int from_line, int before, std::string_view name,
                                                          const std::function<bool(int line)>& built) const {
  if (WrittenByMacroUse(lexed_, from_line)) return {Write{}};
  const auto& t = lexed_.tokens;
  const size_t begin = FirstToken(from_line), end = from_line > 1 ? BodyEnd(lexed_.tokens, begin) : t.size();
  std::vector<Write> writes;
  for (size_t i : WriteTokens(t, begin, end, before, name, built)) {
    const std::string_view next = t[i + 1].text;
    if (next == "=") {
      writes.push_back({AssignedAt(i, end), true});
    } else if (next == "&=" || next == "|=") {
      const std::string value = AssignedAt(i, end);
      writes.push_back({value.empty() ? "" : std::string(name) + (next == "&=" ? " && (" : " || (") + value + ")"});
    } else {
      writes.emplace_back();
    }
  }
  return writes;
}

const std::vector<CppGuardReader::GuardedCall>& CppGuardReader::CallsIn(int from_line) const {
  static const std::vector<GuardedCall> kUnread;
  if (WrittenByMacroUse(lexed_, from_line)) return kUnread;
  {
    std::shared_lock<std::shared_mutex> lock(memo_->mu);
    if (auto it = memo_->calls_in.find(from_line); it != memo_->calls_in.end()) return it->second;
  }
  std::vector<GuardedCall> calls;
  std::vector<CodeCondition> unused;
  Walker walker(text_, lexed_.tokens, true);
  walker.all = &calls;
  int line = 0;
  walker.Run(FirstToken(from_line), 0, "", &unused, &line);
  for (auto& c : calls) {
    ScopeEarlyReturns(pp_lines_, c.line, &c.conditions);
    // Each call's own #if groups: `#ifdef X ... f(); #else f(); #endif`
    // inside a body are two calls under opposite conditions.
    std::vector<CodeCondition> pp = PreprocessorConditionsAt(pp_lines_, c.line);
    c.conditions.insert(c.conditions.begin(), pp.begin(), pp.end());
    if (c.in_lambda) {
      std::vector<CodeCondition> through;
      if (CallConditions(from_line, c.line, c.callee, &through)) c.conditions = std::move(through);
    }
  }
  std::lock_guard<std::shared_mutex> lock(memo_->mu);
  return memo_->calls_in.try_emplace(from_line, std::move(calls)).first->second;
}

std::vector<std::string> CppGuardReader::ReturnedExpressions(int from_line) const {
  if (WrittenByMacroUse(lexed_, from_line)) return {};
  const auto& t = lexed_.tokens;
  size_t begin = FirstToken(from_line), end = BodyEnd(lexed_.tokens, begin);
  std::vector<std::string> out;
  for (size_t i = begin; i < end; ++i) {
    if (!t[i].Is("return")) continue;
    size_t j = i + 1;
    while (j < end && !t[j].Is(';')) ++j;
    if (j > i + 1) out.push_back(Span(text_, t, i + 1, j));
  }
  return out;
}

// The braces of the body of the function defined at `from_line`; false
// when it has none.
bool CppGuardReader::BodyBraces(int from_line, size_t* open, size_t* close, bool plain) const {
  if (WrittenByMacroUse(lexed_, from_line)) return false;
  const auto& t = lexed_.tokens;
  size_t begin = FirstToken(from_line), end = BodyEnd(lexed_.tokens, begin);
  *open = begin;
  while (*open < end && !t[*open].Is('{')) ++*open;
  if (*open >= end || !t[end - 1].Is('}')) return false;
  *close = end - 1;
  if (!plain) return true;
  const auto first = static_cast<int>(t[*open].line), last = static_cast<int>(t[*close].line);
  for (const PreprocessorLine& pl : pp_lines_)
    if (pl.line > first && pl.line < last) return false;
  return true;
}

std::optional<std::vector<GuardedReturn>> CppGuardReader::ReturnsOf(int from_line, bool reachable) const {
  size_t open = 0, close = 0;
  if (!BodyBraces(from_line, &open, &close, /*plain=*/!reachable)) return std::nullopt;
  auto returns = GuardedReturns(lexed_.tokens, open, close, /*loops=*/reachable);
  if (!returns || !reachable) return returns;
  const int body = static_cast<int>(lexed_.tokens[open].line);
  for (GuardedReturn& r : *returns) {
    std::vector<GuardedReturn::Guard> groups;
    for (const CodeCondition& c : PreprocessorConditionsAt(pp_lines_, r.line))
      if (c.line > body) groups.push_back({c.text, c.negated, false});
    r.guards.insert(r.guards.begin(), groups.begin(), groups.end());
  }
  return returns;
}

std::optional<std::vector<GuardedReturn>> CppGuardReader::InvokedLambdaReturns(int from_line, int before,
                                                                               std::string_view name) const {
  if (WrittenByMacroUse(lexed_, from_line)) return std::nullopt;
  const auto& t = lexed_.tokens;
  const size_t begin = FirstToken(from_line), end = from_line > 1 ? BodyEnd(lexed_.tokens, begin) : t.size();
  // One plain `name = [...` write, of the local itself (not `obj.name`).
  const std::vector<size_t> writes = WriteTokens(t, begin, end, before, name, [](int) { return true; });
  if (writes.size() != 1) return std::nullopt;
  const size_t at = writes.front();
  if (!t[at + 1].Is('=') || (at > 0 && (t[at - 1].Is('.') || t[at - 1].Is("->"))) || at + 2 >= end ||
      !t[at + 2].Is('['))
    return std::nullopt;
  // The capture list, the parameters, then anything up to the body's brace
  // (`mutable`, `-> T`).
  size_t open = at + 2;
  for (int depth = 0; open < end; ++open) {
    if (t[open].Is('[')) ++depth;
    if (t[open].Is(']') && --depth == 0) break;
  }
  while (open < end && !t[open].Is('{') && !t[open].Is(';')) ++open;
  if (open >= end || !t[open].Is('{')) return std::nullopt;
  size_t close = open;
  for (int depth = 0; close < end; ++close) {
    if (t[close].Is('{')) ++depth;
    if (t[close].Is('}') && --depth == 0) break;
  }
  // Called at once, with no arguments: `}();`.
  if (close + 3 >= end || !t[close + 1].Is('(') || !t[close + 2].Is(')') || !t[close + 3].Is(';')) return std::nullopt;
  const auto first = static_cast<int>(t[open].line), last = static_cast<int>(t[close].line);
  for (const PreprocessorLine& pl : pp_lines_)
    if (pl.line > first && pl.line < last) return std::nullopt;
  return GuardedReturns(t, open, close);
}

std::optional<std::vector<ObjectUse>> CppGuardReader::UsesOf(int from_line, int before, std::string_view object) const {
  size_t open = 0, close = 0;
  if (!BodyBraces(from_line, &open, &close)) return std::nullopt;
  return UsesOfObject(lexed_.tokens, open, close, before, object);
}

bool CppGuardReader::Names(int from_line, std::string_view word) const {
  if (WrittenByMacroUse(lexed_, from_line)) return false;
  const auto& t = lexed_.tokens;
  size_t begin = FirstToken(from_line), end = BodyEnd(lexed_.tokens, begin);
  for (size_t i = begin; i < end; ++i)
    if (t[i].text == word) return true;
  return false;
}

std::string CppGuardReader::PredicateExpression(int from_line) const {
  if (WrittenByMacroUse(lexed_, from_line)) return "";
  {
    std::shared_lock<std::shared_mutex> lock(memo_->mu);
    if (auto it = memo_->predicates.find(from_line); it != memo_->predicates.end()) return it->second;
  }
  std::string expr;
  size_t open = 0, close = 0;
  if (BodyBraces(from_line, &open, &close, /*plain=*/true))
    expr = optrace::PredicateExpression(lexed_.tokens, open, close);
  std::lock_guard<std::shared_mutex> lock(memo_->mu);
  return memo_->predicates.try_emplace(from_line, std::move(expr)).first->second;
}

std::vector<CodeCondition> CppGuardReader::PreprocessorConditions(int line) const {
  return PreprocessorConditionsAt(pp_lines_, line);
}

bool CppCallConditions(std::string_view text, int from_line, int call_line, std::string_view callee,
                       std::vector<CodeCondition>* out) {
  return CppGuardReader(text).CallConditions(from_line, call_line, callee, out);
}

}  // namespace optrace
