// String helpers; see text.h.
#include "base/text.h"

#include <algorithm>
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

std::vector<std::string> DidYouMean(std::string_view word, const std::vector<std::string>& candidates,
                                    size_t limit) {
  std::vector<std::pair<size_t, const std::string*>> scored;
  size_t budget = std::max<size_t>(2, word.size() / 3);
  for (const auto& c : candidates) {
    size_t d = EditDistance(word, c, budget);
    if (d <= budget) {
      scored.push_back({d, &c});
    } else if (word.size() >= 3 && c.find(word) != std::string::npos) {
      scored.push_back({budget + 1 + (c.size() - word.size()), &c});
    }
  }
  std::stable_sort(scored.begin(), scored.end(),
                   [](const auto& x, const auto& y) { return x.first < y.first; });
  std::vector<std::string> out;
  for (const auto& [d, c] : scored) {
    if (std::find(out.begin(), out.end(), *c) == out.end()) out.push_back(*c);
    if (out.size() == limit) break;
  }
  return out;
}

std::string_view TrimView(std::string_view s) {
  size_t b = s.find_first_not_of(" \t\r\n");
  if (b == std::string_view::npos) return {};
  size_t e = s.find_last_not_of(" \t\r\n");
  return s.substr(b, e - b + 1);
}

std::vector<std::string> SplitTopLevel(std::string_view s, char sep, std::string_view open, std::string_view close) {
  std::vector<std::string> out;
  int depth = 0;
  char quote = 0;
  size_t start = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (quote) {
      if (c == '\\') ++i;
      else if (c == quote) quote = 0;
      continue;
    }
    if (c == '"' || c == '\'') quote = c;
    else if (open.find(c) != std::string_view::npos) ++depth;
    else if (close.find(c) != std::string_view::npos && depth > 0) --depth;
    else if (c == sep && depth == 0) {
      out.emplace_back(TrimView(s.substr(start, i - start)));
      start = i + 1;
    }
  }
  out.emplace_back(TrimView(s.substr(start)));
  return out;
}

bool StartsWith(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }
bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

std::string EscapeControl(std::string_view s) {
  static const char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(s.size());
  for (char ch : s) {
    unsigned char c = static_cast<unsigned char>(ch);
    if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
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

}  // namespace optrace
