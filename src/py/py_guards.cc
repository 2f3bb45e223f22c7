// Reading conditions by indentation, not by parsing: the lines above the
// target are walked upwards; a header with less indentation than the
// current suite encloses it (an `else:`/`elif` header also brings the
// negated conditions of the `if`/`elif` headers before it at that
// indentation), and a sibling `if C:` whose suite's last statement returns
// guards everything after it; one that raises guards nothing (a call that
// succeeds never entered it). An if-chain whose branches all return or
// raise guards what follows by each returning branch's condition (`if A:
// return a  elif B: return b` -> not A, not B), and a suite that ends in
// an if/else whose every branch leaves leaves too. Multi-line headers are joined
// while their brackets are open. Strings are not tokenized: a line inside a
// triple-quoted docstring may look like a header, which is why only lines
// starting with `if`/`elif`/`else`/`def` keywords count and docstrings of
// real functions rarely start lines with them. A module-level `if
// TYPE_CHECKING:` conditions nothing (DeclaresForTypeCheckers).
#include "py/py_guards.h"

#include <algorithm>
#include <cctype>

#include "base/text.h"
#include "py/py_arguments.h"

namespace optrace {

namespace {

std::vector<PyLine> SplitLines(std::string_view text, size_t upto) {
  std::vector<PyLine> lines;
  PyContinuation open;
  size_t pos = 0;
  while (pos <= text.size() && lines.size() < upto) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view l = text.substr(pos, end - pos);
    if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
    PyLine pl;
    pl.continued = open.depth > 0 || open.triple;
    size_t k = 0;
    int col = 0;
    while (k < l.size() && (l[k] == ' ' || l[k] == '\t')) col = l[k++] == '\t' ? (col / 8 + 1) * 8 : col + 1;
    if (k < l.size() && (l[k] != '#' || pl.continued)) {
      pl.indent = pl.continued ? -1 : col;
      pl.text = l.substr(k);
    }
    open.Scan(l);
    lines.push_back(pl);
    pos = end + 1;
  }
  return lines;
}

bool StartsWithWord(std::string_view s, std::string_view w) {
  return s.substr(0, w.size()) == w && (s.size() == w.size() || !IsIdentChar(s[w.size()]));
}

// The header's condition: from after the keyword to the last ':' of the
// (possibly continued) header, comments left out, whitespace collapsed.
std::string HeaderCondition(std::span<const PyLine> lines, size_t i, std::string_view keyword) {
  std::string joined;
  int depth = 0;
  for (size_t k = i; k < lines.size(); ++k) {
    std::string_view t = CodeOf(lines[k].text);
    for (char c : t) {
      if (c == '(' || c == '[' || c == '{') ++depth;
      if (c == ')' || c == ']' || c == '}') --depth;
    }
    joined += std::string(t) + " ";
    if (depth <= 0) break;
  }
  std::string_view s = joined;
  s.remove_prefix(std::min(s.size(), keyword.size()));
  size_t colon = s.rfind(':');
  if (colon != std::string_view::npos) s = s.substr(0, colon);
  return CollapseSpace(s);
}

// How the suite of the header at i (lines indented deeper, up to the next
// line at or above its indentation) ends: in a return, a raise, or neither.
// A suite that ends in an if/elif/else chain leaves as its branches do:
// returns when every branch returns or raises and one returns.
enum class SuiteEnd { kFallsThrough, kReturns, kRaises };
SuiteEnd ChainEnd(std::span<const PyLine> lines, size_t else_at, size_t limit, int depth);
SuiteEnd SuiteExit(std::span<const PyLine> lines, size_t i, size_t limit, int depth = 0) {
  int indent = lines[i].indent;
  std::string_view last, header = CodeOf(lines[i].text);
  size_t colon = header.rfind(':');
  if (colon != std::string_view::npos && colon + 1 < header.size()) last = header.substr(colon + 1);
  int body = -1;
  size_t last_at = i;
  for (size_t k = i + 1; k < limit; ++k) {
    if (lines[k].indent < 0) continue;
    if (lines[k].indent <= indent) break;
    if (body < 0) body = lines[k].indent;
    if (lines[k].indent == body) {
      last = lines[k].text;
      last_at = k;
    }
  }
  while (!last.empty() && last.front() == ' ') last.remove_prefix(1);
  if (StartsWithWord(last, "return")) return SuiteEnd::kReturns;
  if (StartsWithWord(last, "raise")) return SuiteEnd::kRaises;
  if (last_at != i && StartsWithWord(last, "else") && depth < 8) return ChainEnd(lines, last_at, limit, depth + 1);
  return SuiteEnd::kFallsThrough;
}

// The chain whose `else:` is at else_at: its headers back to the `if`.
SuiteEnd ChainEnd(std::span<const PyLine> lines, size_t else_at, size_t limit, int depth) {
  const int indent = lines[else_at].indent;
  bool returns = false;
  for (size_t k = else_at + 1; k-- > 0;) {
    if (lines[k].indent < 0 || lines[k].indent > indent) continue;
    if (lines[k].indent < indent) return SuiteEnd::kFallsThrough;
    const bool head_if = StartsWithWord(lines[k].text, "if");
    if (!head_if && !StartsWithWord(lines[k].text, "elif") && !StartsWithWord(lines[k].text, "else"))
      return SuiteEnd::kFallsThrough;
    SuiteEnd end = SuiteExit(lines, k, limit, depth);
    if (end == SuiteEnd::kFallsThrough) return end;
    returns = returns || end == SuiteEnd::kReturns;
    if (head_if) return returns ? SuiteEnd::kReturns : SuiteEnd::kRaises;
  }
  return SuiteEnd::kFallsThrough;
}

// Whether the suite of the header at i ends at or before line `limit`
// (the line asked about: outside the suite when no deeper than its header).
bool SuiteEndsBefore(std::span<const PyLine> lines, size_t i, size_t limit) {
  for (size_t k = i + 1; k <= limit && k < lines.size(); ++k)
    if (lines[k].indent >= 0 && lines[k].indent <= lines[i].indent) return true;
  return false;
}

// The header after the suite of the header at i, when it continues the
// same if-chain (`elif`/`else` at its indentation, before `limit`).
size_t NextBranch(std::span<const PyLine> lines, size_t i, size_t limit) {
  for (size_t k = i + 1; k < limit; ++k) {
    if (lines[k].indent < 0 || lines[k].indent > lines[i].indent) continue;
    if (lines[k].indent == lines[i].indent &&
        (StartsWithWord(lines[k].text, "elif") || StartsWithWord(lines[k].text, "else")))
      return k;
    break;
  }
  return limit;
}

// The if-chain headed at i (`if A: return a  elif B: return b ...`), all of
// it before `limit`: what follows it runs only where no branch returned. As
// long as every branch before returns or raises, a branch that returns adds
// "not its condition" (B is tested only where A did not return); a branch
// that falls through ends what the chain tells (after `if A: x = 1  elif B:
// return`, what follows runs when A or not B: left open).
// A chain that holds `limit` in one of its branches tells nothing: that
// branch's header encloses the line and brings the chain's conditions.
void ChainExits(std::span<const PyLine> lines, size_t i, size_t limit, std::vector<PyCondition>* out) {
  size_t last = i;
  for (size_t k = i; k < limit; k = NextBranch(lines, k, limit)) last = k;
  if (!SuiteEndsBefore(lines, last, limit)) return;
  for (size_t k = i; k < limit; k = NextBranch(lines, k, limit)) {
    const bool is_else = StartsWithWord(lines[k].text, "else");
    SuiteEnd end = SuiteExit(lines, k, limit);
    if (end == SuiteEnd::kFallsThrough) return;
    if (end == SuiteEnd::kReturns && !is_else)
      out->push_back({HeaderCondition(lines, k, k == i ? "if" : "elif"), true, static_cast<int>(k + 1), "return"});
  }
}

// The lines the suite and what follows it can span; a longer suite reads as cut short.
constexpr size_t kSuiteLines = 4000;

// PyOptionalStep over the file's first line + kSuiteLines lines.
bool OptionalStepIn(std::span<const PyLine> lines, int line) {
  if (line < 1) return false;
  size_t i = static_cast<size_t>(line - 1);
  if (i >= lines.size() || lines[i].indent < 0 || !StartsWithWord(lines[i].text, "if")) return false;
  if (NextBranch(lines, i, lines.size()) != lines.size()) return false;
  return SuiteExit(lines, i, lines.size()) == SuiteEnd::kFallsThrough;
}

// Lines enough for line `line` (1-based) and the `after` lines after it.
size_t LinesFor(int line, size_t after) { return line < 1 ? 0 : static_cast<size_t>(line) + after; }

// A module's `if TYPE_CHECKING:` suite: what it binds (`_segment_reduce =
// segment_reduce` in torch/__init__.py) tells type checkers what the module
// binds at run time by other means (a loop over `dir()`, `globals()[...]`),
// so its aliases are no branch a call takes.
bool DeclaresForTypeCheckers(std::span<const PyLine> lines, size_t k) {
  return lines[k].indent == 0 && StartsWithWord(lines[k].text, "if") &&
         TrimView(HeaderCondition(lines, k, "if")) == "TYPE_CHECKING";
}

// The if/elif headers of the chain above header k, at its indentation,
// back to the `if`, each negated: an `else:`/`elif` runs when all failed.
std::vector<PyCondition> ChainNegations(std::span<const PyLine> lines, size_t k) {
  std::vector<PyCondition> negs;
  for (size_t m = k; m-- > 0;) {
    if (lines[m].indent < 0 || lines[m].indent > lines[k].indent) continue;
    if (lines[m].indent < lines[k].indent) break;
    bool head_if = StartsWithWord(lines[m].text, "if"), head_elif = StartsWithWord(lines[m].text, "elif");
    if (!head_if && !head_elif) break;
    negs.insert(negs.begin(),
                {HeaderCondition(lines, m, head_if ? "if" : "elif"), true, static_cast<int>(m + 1), "else"});
    if (head_if) break;
  }
  return negs;
}

// PyLineConditions over the file's first `line` lines.
std::vector<PyCondition> LineConditionsIn(std::span<const PyLine> lines, int line) {
  if (line < 1 || static_cast<size_t>(line) > lines.size()) return {};
  while (line > 1 && lines[line - 1].continued) --line;  // a call in a statement's continuation
  if (lines[line - 1].indent < 0) return {};
  std::vector<std::vector<PyCondition>> levels;  // innermost first
  int current = lines[line - 1].indent;
  std::vector<PyCondition> early;  // early returns in the current suite
  for (size_t k = static_cast<size_t>(line - 1); k-- > 0;) {
    const PyLine& l = lines[k];
    if (l.indent < 0) continue;
    if (l.indent == current && StartsWithWord(l.text, "if")) {
      // After `if C: return ...` a line runs when C is false; after `if C:
      // raise ...` on every call that does not fail: no condition.
      std::vector<PyCondition> exits;
      ChainExits(lines, k, static_cast<size_t>(line - 1), &exits);
      early.insert(early.end(), exits.rbegin(), exits.rend());
      continue;
    }
    if (l.indent >= current) continue;
    current = l.indent;
    std::vector<PyCondition> level(early.rbegin(), early.rend());
    early.clear();
    if (StartsWithWord(l.text, "def") || StartsWithWord(l.text, "async") || StartsWithWord(l.text, "class")) {
      levels.push_back(std::move(level));
      break;
    }
    bool is_else = StartsWithWord(l.text, "else"), is_elif = StartsWithWord(l.text, "elif");
    if (DeclaresForTypeCheckers(lines, k)) {
      levels.push_back(std::move(level));
      continue;
    }
    if (StartsWithWord(l.text, "if") || is_elif) {
      level.insert(level.begin(),
                   {HeaderCondition(lines, k, is_elif ? "elif" : "if"), false, static_cast<int>(k + 1), "if"});
    }
    if (is_else || is_elif) {
      const std::vector<PyCondition> negs = ChainNegations(lines, k);
      level.insert(level.begin(), negs.begin(), negs.end());
    }
    levels.push_back(std::move(level));
  }
  if (!early.empty()) levels.push_back(std::vector<PyCondition>(early.rbegin(), early.rend()));
  std::vector<PyCondition> out;
  for (auto it = levels.rbegin(); it != levels.rend(); ++it) out.insert(out.end(), it->begin(), it->end());
  // A call in an `elif` header's own test runs only when every test above
  // it in the chain failed (transformer.py's `elif src_key_padding_mask is
  // None: ... elif ... src_key_padding_mask.logical_not()`).
  if (StartsWithWord(lines[line - 1].text, "elif")) {
    const std::vector<PyCondition> negs = ChainNegations(lines, static_cast<size_t>(line - 1));
    out.insert(out.end(), negs.begin(), negs.end());
  }
  return out;
}

}  // namespace

PyFileLines::PyFileLines(std::shared_ptr<const std::string> text)
    : text_(text ? std::move(text) : std::make_shared<const std::string>()),
      lines_(SplitLines(*text_, text_->size() + 1)) {}

std::span<const PyLine> PyFileLines::First(size_t count) const {
  return std::span<const PyLine>(lines_).first(std::min(count, lines_.size()));
}

std::vector<PyCondition> PyLineConditions(std::string_view text, int line) {
  return LineConditionsIn(SplitLines(text, LinesFor(line, 0)), line);
}

std::vector<PyCondition> PyLineConditions(const PyFileLines& lines, int line) {
  return LineConditionsIn(lines.First(LinesFor(line, 0)), line);
}

bool PyOptionalStep(std::string_view text, int line) {
  return OptionalStepIn(SplitLines(text, LinesFor(line, kSuiteLines)), line);
}

bool PyOptionalStep(const PyFileLines& lines, int line) {
  return OptionalStepIn(lines.First(LinesFor(line, kSuiteLines)), line);
}

namespace {

// The logical line (statement) holding line `line`: from the last line at
// or before it that starts outside brackets, through the line closing them.
// Offsets: [*begin, *end) in `text`; *at is where `line` starts.
bool StatementAround(std::string_view text, int line, size_t* begin, size_t* end, size_t* at) {
  // The starts of the lines up to the one after `line`: nothing below it is
  // read by line (a trace asks about every call of a 6,000-line file).
  std::vector<size_t> starts = {0};
  for (size_t nl = text.find('\n');
       nl != std::string_view::npos && starts.size() <= static_cast<size_t>(std::max(line, 0));
       nl = text.find('\n', nl + 1))
    starts.push_back(nl + 1);
  if (line < 1 || static_cast<size_t>(line) > starts.size()) return false;
  *at = starts[line - 1];
  // Bracket depth at each line start, from a bounded window before the line.
  size_t first = line > 40 ? static_cast<size_t>(line - 40) : 0;
  int depth = 0;
  size_t stmt = starts[first];
  for (size_t l = first; l < static_cast<size_t>(line); ++l) {
    if (depth <= 0) {
      depth = 0;
      stmt = starts[l];
    }
    size_t stop = l + 1 < starts.size() ? starts[l + 1] : text.size();
    for (size_t i = starts[l]; i < stop && text[i] != '#'; ++i) {
      if (text[i] == '(' || text[i] == '[' || text[i] == '{') ++depth;
      if (text[i] == ')' || text[i] == ']' || text[i] == '}') --depth;
    }
  }
  if (depth <= 0) stmt = *at;
  *begin = stmt;
  size_t i = stmt;
  depth = 0;
  for (; i < text.size(); ++i) {
    char c = text[i];
    if (c == '(' || c == '[' || c == '{') ++depth;
    if (c == ')' || c == ']' || c == '}') --depth;
    if (c == '\n' && depth <= 0 && i >= *at) break;
  }
  *end = i;
  return true;
}

bool WordAt(std::string_view s, size_t i, std::string_view word) {
  auto ident = [](char c) { return IsIdentChar(c) || c == '.'; };
  return s.compare(i, word.size(), word) == 0 && (i == 0 || !ident(s[i - 1])) &&
         (i + word.size() >= s.size() || !ident(s[i + word.size()]));
}

// Whether `word` is written in `code` as a word outside quoted strings.
bool WritesWord(std::string_view code, std::string_view word) {
  bool found = false;
  ScanCode(code, "", "", [&](size_t i, int, bool quoted) { found = found || (!quoted && WordAt(code, i, word)); });
  return found;
}

}  // namespace

std::vector<PyCondition> PyExpressionConditions(std::string_view text, int line, std::string_view callee) {
  size_t begin, end, at;
  if (callee.empty() || !StatementAround(text, line, &begin, &end, &at)) return {};
  std::string_view stmt = text.substr(begin, end - begin);
  size_t line_at = at - begin;
  size_t call = std::string_view::npos;
  for (size_t i = stmt.find(callee, line_at); i != std::string_view::npos; i = stmt.find(callee, i + 1)) {
    size_t after = i + callee.size();
    while (after < stmt.size() && stmt[after] == ' ') ++after;
    if (WordAt(stmt, i, callee) && after < stmt.size() && stmt[after] == '(') {
      call = i;
      break;
    }
  }
  if (call == std::string_view::npos) return {};
  // The bracket depth of every offset, and the call's expression: bounded by
  // the brackets and commas of its depth.
  std::vector<int> depth(stmt.size() + 1, 0);
  ScanCode(stmt, "([{", ")]}", [&](size_t i, int d, bool) { depth[i + 1] = d; });
  const int level = depth[call];
  auto bound = [&](size_t i) {
    char c = stmt[i];
    return depth[i] == level && (c == ',' || c == ')' || c == ']' || c == '}');
  };
  size_t lo = call, hi = call;
  while (lo > 0 && !(bound(lo - 1) || depth[lo - 1] < level)) --lo;
  while (hi < stmt.size() && !(depth[hi] == level && bound(hi)) && depth[hi] >= level) ++hi;
  size_t if_at = std::string_view::npos, else_at = std::string_view::npos;
  for (size_t i = lo; i < hi; ++i) {
    if (depth[i] != level) continue;
    if (if_at == std::string_view::npos && WordAt(stmt, i, "if")) if_at = i;
    else if (if_at != std::string_view::npos && WordAt(stmt, i, "else")) {
      else_at = i;
      break;
    }
  }
  if (if_at == std::string_view::npos || else_at == std::string_view::npos) return {};
  std::string condition = CollapseSpace(stmt.substr(if_at + 2, else_at - if_at - 2));
  if (call < if_at) return {{condition, false, line, "?:"}};
  if (call > else_at) return {{condition, true, line, "?:"}};
  return {};
}

namespace {

// The lines a function can span; a longer one reads as incomplete.
constexpr size_t kFunctionLines = 4000;

// PyFunctionReturns over the file's first def_line + kFunctionLines lines.
PyReturns FunctionReturnsIn(std::span<const PyLine> lines, int def_line) {
  PyReturns out;
  if (def_line < 1) return out;
  const size_t d = static_cast<size_t>(def_line - 1);
  if (d >= lines.size() || lines[d].indent < 0 || !StartsWithWord(lines[d].text, "def")) return out;
  constexpr int kNoScope = 1 << 30;
  int nested = kNoScope;  // indentation of a nested def/class being skipped
  size_t end = d + 1;
  bool readable = true;
  for (size_t k = d + 1; k < lines.size(); ++k) {
    const PyLine& l = lines[k];
    if (l.indent < 0) {
      if (l.continued && !out.statements.empty() && out.statements.back().second == static_cast<int>(k))
        out.statements.back().second = static_cast<int>(k + 1);
      continue;
    }
    if (l.indent <= lines[d].indent) break;
    end = k + 1;
    if (l.indent > nested) continue;
    nested = kNoScope;
    const std::string_view code = CodeOf(l.text);
    if (StartsWithWord(code, "def") || StartsWithWord(code, "async") || StartsWithWord(code, "class")) {
      nested = l.indent;
      continue;
    }
    if (StartsWithWord(code, "return")) {
      out.statements.push_back({static_cast<int>(k + 1), static_cast<int>(k + 1)});
      continue;
    }
    if (WritesWord(code, "return") || WritesWord(code, "yield")) readable = false;
  }
  out.complete = readable && SuiteExit(lines, d, end) != SuiteEnd::kFallsThrough;
  return out;
}

}  // namespace

PyReturns PyFunctionReturns(std::string_view text, int def_line) {
  return FunctionReturnsIn(SplitLines(text, LinesFor(def_line, kFunctionLines)), def_line);
}

PyReturns PyFunctionReturns(const PyFileLines& lines, int def_line) {
  return FunctionReturnsIn(lines.First(LinesFor(def_line, kFunctionLines)), def_line);
}

}  // namespace optrace
