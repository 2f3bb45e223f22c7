// Directive lines read once per file; a line's groups replayed from them
// (see preprocessor_groups.h).
#include "cpp/preprocessor_groups.h"

#include <cctype>
#include <utility>

#include "base/text.h"

namespace optrace {

namespace {

Directive DirectiveNamed(std::string_view word) {
  static constexpr std::pair<std::string_view, Directive> kNames[] = {
      {"if", Directive::kIf},        {"ifdef", Directive::kIfdef}, {"ifndef", Directive::kIfndef},
      {"elif", Directive::kElif},    {"else", Directive::kElse},   {"endif", Directive::kEndif},
      {"define", Directive::kDefine}};
  for (const auto& [name, directive] : kNames)
    if (word == name) return directive;
  return Directive::kOther;
}

}  // namespace

std::vector<PreprocessorLine> ReadPreprocessorLines(std::string_view text) {
  std::vector<PreprocessorLine> out;
  int n = 1;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view l = text.substr(pos, end - pos);
    int this_line = n;
    // Backslash continuations join lines.
    while (!l.empty() && l.back() == '\\' && end < text.size()) {
      size_t next = text.find('\n', end + 1);
      if (next == std::string_view::npos) next = text.size();
      ++n;
      end = next;
      l = text.substr(pos, end - pos);
    }
    pos = end + 1;
    ++n;
    size_t k = l.find_first_not_of(" \t");
    if (k == std::string_view::npos || l[k] != '#') continue;
    std::string_view d = l.substr(k + 1);
    size_t s = d.find_first_not_of(" \t");
    if (s == std::string_view::npos) continue;
    d = d.substr(s);
    size_t w = 0;
    while (w < d.size() && std::isalpha(static_cast<unsigned char>(d[w]))) ++w;
    std::string_view word = d.substr(0, w);
    std::string arg = CollapseSpace(d.substr(w));
    size_t comment = arg.find("//");
    if (comment != std::string::npos) arg = CollapseSpace(arg.substr(0, comment));
    comment = arg.find("/*");
    if (comment != std::string::npos) arg = CollapseSpace(arg.substr(0, comment));
    out.push_back({this_line, DirectiveNamed(word), std::string(word), std::move(arg)});
  }
  return out;
}

std::vector<CodeCondition> PreprocessorConditionsAt(const std::vector<PreprocessorLine>& lines, int line) {
  struct Group {
    std::vector<CodeCondition> seen;    // conditions of the earlier branches
    std::vector<CodeCondition> active;  // of the branch we are in
    bool include_guard = false;
  };
  std::vector<Group> groups;
  bool expect_guard_define = false;
  std::string_view guard_name;
  for (const PreprocessorLine& pl : lines) {
    if (pl.line >= line) break;
    const Directive d = pl.directive;
    const std::string& arg = pl.arg;
    if (expect_guard_define) {  // the directive right after an #ifndef
      expect_guard_define = false;
      if (d == Directive::kDefine && !groups.empty() && arg.rfind(guard_name, 0) == 0)
        groups.back().include_guard = true;
    }
    if (d == Directive::kIf || d == Directive::kIfdef || d == Directive::kIfndef) {
      CodeCondition c;
      c.line = pl.line;
      c.kind = "#if";
      c.text = d == Directive::kIf ? arg : "defined(" + arg + ")";
      c.negated = d == Directive::kIfndef;
      groups.push_back({{}, {c}, false});
      if (d == Directive::kIfndef) {
        expect_guard_define = true;
        guard_name = arg;
      }
    } else if ((d == Directive::kElif || d == Directive::kElse) && !groups.empty()) {
      Group& g = groups.back();
      for (const auto& a : g.active)
        if (a.kind == "#if" && (g.seen.empty() || a.line != g.seen.back().line)) g.seen.push_back(a);
      g.active.clear();
      for (const auto& p : g.seen) {
        CodeCondition neg = p;
        neg.negated = !neg.negated;
        g.active.push_back(neg);
      }
      if (d == Directive::kElif) {
        CodeCondition c;
        c.line = pl.line;
        c.kind = "#if";
        c.text = arg;
        g.active.push_back(c);
      }
    } else if (d == Directive::kEndif && !groups.empty()) {
      groups.pop_back();
    }
  }
  std::vector<CodeCondition> out;
  for (const auto& g : groups)
    if (!g.include_guard) out.insert(out.end(), g.active.begin(), g.active.end());
  return out;
}

std::vector<CodeCondition> CppPreprocessorConditions(std::string_view text, int line) {
  return PreprocessorConditionsAt(ReadPreprocessorLines(text), line);
}

}  // namespace optrace
