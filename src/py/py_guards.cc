// Reading conditions by indentation, not by parsing: the lines above the
// target are walked upwards; a header with less indentation than the
// current suite encloses it (an `else:`/`elif` header also brings the
// negated conditions of the `if`/`elif` headers before it at that
// indentation), and a sibling `if C:` whose suite's last statement returns
// or raises guards everything after it. Multi-line headers are joined
// while their brackets are open. Strings are not tokenized: a line inside a
// triple-quoted docstring may look like a header, which is why only lines
// starting with `if`/`elif`/`else`/`def` keywords count and docstrings of
// real functions rarely start lines with them.
#include "py/py_guards.h"

#include <cctype>

#include "base/text.h"

namespace optrace {

namespace {

struct PyLine {
  int indent = -1;  // -1: blank or comment
  std::string_view text;  // stripped of indentation
};

std::vector<PyLine> SplitLines(std::string_view text, int upto) {
  std::vector<PyLine> lines;
  size_t pos = 0;
  while (pos <= text.size() && static_cast<int>(lines.size()) < upto) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view l = text.substr(pos, end - pos);
    if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
    PyLine pl;
    size_t k = 0;
    int col = 0;
    while (k < l.size() && (l[k] == ' ' || l[k] == '\t')) col = l[k++] == '\t' ? (col / 8 + 1) * 8 : col + 1;
    if (k < l.size() && l[k] != '#') {
      pl.indent = col;
      pl.text = l.substr(k);
    }
    lines.push_back(pl);
    pos = end + 1;
  }
  return lines;
}

bool StartsWithWord(std::string_view s, std::string_view w) {
  return s.substr(0, w.size()) == w &&
         (s.size() == w.size() || !(std::isalnum(static_cast<unsigned char>(s[w.size()])) || s[w.size()] == '_'));
}

// The header's condition: from after the keyword to the last ':' of the
// (possibly continued) header, whitespace collapsed.
std::string HeaderCondition(const std::vector<PyLine>& lines, size_t i, std::string_view keyword) {
  std::string joined;
  int depth = 0;
  for (size_t k = i; k < lines.size(); ++k) {
    std::string_view t = lines[k].text;
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

// Whether the suite of the header at i (lines indented deeper, up to the
// next line at or above its indentation) ends in return/raise.
bool SuiteExits(const std::vector<PyLine>& lines, size_t i, size_t limit) {
  int indent = lines[i].indent;
  std::string_view last;
  size_t colon = lines[i].text.rfind(':');
  if (colon != std::string_view::npos && colon + 1 < lines[i].text.size()) last = lines[i].text.substr(colon + 1);
  int body = -1;
  for (size_t k = i + 1; k < limit; ++k) {
    if (lines[k].indent < 0) continue;
    if (lines[k].indent <= indent) break;
    if (body < 0) body = lines[k].indent;
    if (lines[k].indent == body) last = lines[k].text;
  }
  while (!last.empty() && last.front() == ' ') last.remove_prefix(1);
  return StartsWithWord(last, "return") || StartsWithWord(last, "raise");
}

}  // namespace

std::vector<PyCondition> PyLineConditions(std::string_view text, int line) {
  std::vector<PyLine> lines = SplitLines(text, line);
  if (line < 1 || static_cast<size_t>(line) > lines.size() || lines[line - 1].indent < 0) return {};
  std::vector<std::vector<PyCondition>> levels;  // innermost first
  int current = lines[line - 1].indent;
  std::vector<PyCondition> early;                // early returns in the current suite
  for (size_t k = static_cast<size_t>(line - 1); k-- > 0;) {
    const PyLine& l = lines[k];
    if (l.indent < 0) continue;
    if (l.indent == current && StartsWithWord(l.text, "if") && SuiteExits(lines, k, static_cast<size_t>(line - 1))) {
      early.push_back({HeaderCondition(lines, k, "if"), true, static_cast<int>(k + 1), "return"});
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
    if (StartsWithWord(l.text, "if") || is_elif) {
      level.insert(level.begin(), {HeaderCondition(lines, k, is_elif ? "elif" : "if"), false, static_cast<int>(k + 1), "if"});
    }
    if (is_else || is_elif) {
      // The if/elif headers above at the same indentation, back to the `if`.
      std::vector<PyCondition> negs;
      for (size_t m = k; m-- > 0;) {
        if (lines[m].indent < 0 || lines[m].indent > l.indent) continue;
        if (lines[m].indent < l.indent) break;
        bool head_if = StartsWithWord(lines[m].text, "if"), head_elif = StartsWithWord(lines[m].text, "elif");
        if (!head_if && !head_elif) break;
        negs.insert(negs.begin(),
                    {HeaderCondition(lines, m, head_if ? "if" : "elif"), true, static_cast<int>(m + 1), "else"});
        if (head_if) break;
      }
      level.insert(level.begin(), negs.begin(), negs.end());
    }
    levels.push_back(std::move(level));
  }
  if (!early.empty()) levels.push_back(std::vector<PyCondition>(early.rbegin(), early.rend()));
  std::vector<PyCondition> out;
  for (auto it = levels.rbegin(); it != levels.rend(); ++it) out.insert(out.end(), it->begin(), it->end());
  return out;
}

}  // namespace optrace
