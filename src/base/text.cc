// String helpers; see text.h.
#include "base/text.h"

#include <algorithm>
#include <cctype>
#include <utility>

namespace optrace {

size_t EditDistance(std::string_view a, std::string_view b, size_t cap) {
  size_t longer = std::max(a.size(), b.size()), shorter = std::min(a.size(), b.size());
  if (longer - shorter > cap) return cap + 1;
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    size_t row_min = row[0];
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      row_min = std::min(row_min, row[j]);
      diag = up;
    }
    if (row_min > cap) return cap + 1;  // every later row is at least this far
  }
  return row[b.size()] > cap ? cap + 1 : row[b.size()];
}

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool IsIdentifier(std::string_view s) {
  return !s.empty() && !std::isdigit(static_cast<unsigned char>(s[0])) && std::all_of(s.begin(), s.end(), IsIdentChar);
}

std::string_view OpBaseName(std::string_view op) { return op.substr(0, op.find('.')); }
std::string_view WithoutSymInt(std::string_view name) {
  return name.ends_with("_symint") ? name.substr(0, name.size() - 7) : name;
}
std::string_view OpOverloadName(std::string_view op) {
  const size_t dot = op.find('.');
  return dot == std::string_view::npos ? std::string_view() : op.substr(dot + 1);
}

namespace {

// "scaled_dot_product_attention" -> "sdpa", "TransformerEncoderLayer" -> "tel":
// the first letter of each word, words split at '_' and at lower-to-upper case.
std::string Initials(std::string_view name) {
  std::string out;
  for (size_t i = 0; i < name.size(); ++i) {
    char c = name[i];
    if (c == '_') continue;
    bool starts_word =
        i == 0 || name[i - 1] == '_' ||
        (std::isupper(static_cast<unsigned char>(c)) && std::islower(static_cast<unsigned char>(name[i - 1])));
    if (starts_word) out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

// Lower is better: (kind of match, closeness within it).
std::pair<int, size_t> Score(const std::string& word, const std::string& compared, size_t budget) {
  std::string c = Lower(compared);
  if (c == word) return {0, 0};
  if (word.size() >= 2 && c.size() > word.size() && c.compare(0, word.size(), word) == 0) return {1, c.size()};
  if (word.size() >= 3 && Initials(compared) == word) return {2, c.size()};
  if (c.size() <= word.size() + budget && word.size() <= c.size() + budget) {
    if (size_t d = EditDistance(word, c, budget); d <= budget) return {3, d};
  }
  if (word.size() >= 3 && c.find(word) != std::string::npos) return {4, c.size()};
  return {-1, 0};
}

}  // namespace

std::vector<std::string> DidYouMean(std::string_view word, const std::vector<NearName>& candidates, size_t limit) {
  std::string w = Lower(word);
  size_t budget = std::max<size_t>(2, w.size() / 3);
  struct Scored {
    std::pair<int, size_t> score;
    size_t order;
  };
  std::vector<Scored> scored;
  for (size_t i = 0; i < candidates.size(); ++i) {
    auto score = Score(w, candidates[i].compared, budget);
    if (score.first >= 0) scored.push_back({score, i});
  }
  std::sort(scored.begin(), scored.end(), [](const Scored& x, const Scored& y) {
    return x.score != y.score ? x.score < y.score : x.order < y.order;
  });
  std::vector<std::string> out;
  for (const Scored& s : scored) {
    if (out.size() == limit) break;
    const std::string& shown = candidates[s.order].shown;
    if (std::find(out.begin(), out.end(), shown) == out.end()) out.push_back(shown);
  }
  return out;
}

std::vector<std::string> DidYouMean(std::string_view word, const std::vector<std::string>& candidates, size_t limit) {
  std::vector<NearName> near;
  near.reserve(candidates.size());
  for (const auto& c : candidates) near.push_back({c, c});
  return DidYouMean(word, near, limit);
}

std::string CollapseSpace(std::string_view s) {
  std::string out;
  bool space = false;
  for (char c : s) {
    if (std::isspace(static_cast<unsigned char>(c))) {
      space = !out.empty();
      continue;
    }
    if (space) out.push_back(' ');
    space = false;
    out.push_back(c);
  }
  return out;
}

std::string_view TrimView(std::string_view s) {
  // A loop, not find_first_not_of: that searches the set with memchr for
  // every character, and the tracer trims some fifteen million pieces a `--all`.
  auto space = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; };
  size_t b = 0, e = s.size();
  while (b < e && space(s[b])) ++b;
  while (e > b && space(s[e - 1])) --e;
  return s.substr(b, e - b);
}

size_t ClosingBracket(std::string_view s, size_t open) {
  size_t found = std::string_view::npos;
  if (open >= s.size()) return found;
  // The depth stays above 0 from the opening bracket to the one closing it.
  ScanCode(s.substr(open), "([{", ")]}", [&](size_t i, int depth, bool quoted) {
    if (found == std::string_view::npos && depth == 0 && !quoted) found = open + i;
  });
  return found;
}

std::vector<std::string> SplitTopLevel(std::string_view s, char sep, std::string_view open, std::string_view close) {
  std::vector<std::string> out;
  size_t start = 0;
  ScanCode(s, open, close, [&](size_t i, int depth, bool quoted) {
    if (quoted || depth != 0 || s[i] != sep) return;
    out.emplace_back(TrimView(s.substr(start, i - start)));
    start = i + 1;
  });
  out.emplace_back(TrimView(s.substr(start)));
  return out;
}

bool StartsWith(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }
bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

namespace {

std::string Escaped(std::string_view s, bool keep_lines) {
  static const char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    const char ch = s[i];
    unsigned char c = static_cast<unsigned char>(ch);
    if (keep_lines && (c == '\n' || c == '\t')) {
      out += ch;
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (keep_lines && c == 0xc2 && i + 1 < s.size() && static_cast<unsigned char>(s[i + 1]) >= 0x80 &&
               static_cast<unsigned char>(s[i + 1]) <= 0x9f) {
      // U+0080..U+009F: the C1 controls (CSI is U+009B), escapes to some terminals.
      out += "\\u00";
      out += kHex[static_cast<unsigned char>(s[i + 1]) >> 4];
      out += kHex[static_cast<unsigned char>(s[i + 1]) & 15];
      ++i;
    } else if (c < 0x20 || c == 0x7f) {
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    } else {
      out += ch;
    }
  }
  return out;
}

}  // namespace

std::string EscapeControl(std::string_view s) { return Escaped(s, false); }

std::string TerminalText(std::string_view s) { return Escaped(s, true); }

}  // namespace optrace
