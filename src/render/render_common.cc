// The renderers' shared helpers: locations, column-aware fitting and
// wrapping of UTF-8 text, snippet cleaning, dispatch summaries, and the
// order ops are walked in (a tree from the entry ops along reached_from).
#include <map>
#include <set>

#include "base/text.h"
#include "render/render_internal.h"
#include "yaml/yaml_json.h"

namespace optrace::render_detail {

// ---------------------------------------------------------------------------
// Shared helpers.

bool SameOp(std::string_view a, std::string_view b) { return a == b || (OpBaseName(a) == b) || (a == OpBaseName(b)); }

// Paths in the diagram drop the long ATen prefix; the walk and the table
// print them whole.
std::string ShortPath(const std::string& file) {
  static constexpr std::string_view kNative = "aten/src/ATen/native/";
  if (StartsWith(file, kNative)) return file.substr(kNative.size());
  if (StartsWith(file, "tools/autograd/")) return file.substr(15);
  return file;
}

std::string LocText(const Location& l, bool shorten) {
  if (!l.valid()) return "";
  return (shorten ? ShortPath(l.file) : l.file) + ":" + std::to_string(l.line);
}

Location YamlLocation(const NativeFunction* f) {
  Location l;
  if (f && f->line > 0) {
    l.file = kNativeFunctionsPath;
    l.line = f->line;
  }
  return l;
}

Location DerivativeLocation(const DerivativeEntry* d) {
  Location l;
  if (d && d->line > 0) {
    l.file = kDerivativesPath;
    l.line = d->line;
  }
  return l;
}

std::string Join(const std::vector<std::string>& parts, std::string_view sep) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i) out += sep;
    out += parts[i];
  }
  return out;
}

// Display columns of UTF-8 text, skipping ANSI escapes. Every character
// optrace draws is one column wide.
size_t Columns(std::string_view s) {
  size_t n = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    unsigned char c = s[i];
    if (c == 0x1b) {
      while (i < s.size() && !(s[i] >= '@' && s[i] <= '~' && s[i] != '[')) ++i;
      continue;
    }
    if ((c & 0xC0) != 0x80) ++n;
  }
  return n;
}

// Cuts `s` to `width` columns, ending in "…" when something was cut. A
// coloured string gets a reset so the colour cannot leak.
std::string Fit(std::string_view s, size_t width) {
  if (Columns(s) <= width) return std::string(s);
  if (width == 0) return "";
  std::string out;
  size_t n = 0;
  bool escaped = false;
  for (size_t i = 0; i < s.size(); ++i) {
    unsigned char c = s[i];
    if (c == 0x1b) {
      escaped = true;
      size_t j = i;
      while (j < s.size() && !(s[j] >= '@' && s[j] <= '~' && s[j] != '[')) ++j;
      out.append(s.substr(i, j - i + 1));
      i = j;
      continue;
    }
    if ((c & 0xC0) != 0x80) {
      if (n + 1 == width) break;
      ++n;
    }
    out.push_back(static_cast<char>(c));
  }
  out += "…";
  if (escaped) out += "\x1b[0m";
  return out;
}

// Bytes of the first `columns` columns of UTF-8 text without escapes.
size_t BytesOfColumns(std::string_view s, size_t columns) {
  size_t n = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80) {
      if (n == columns) return i;
      ++n;
    }
  }
  return s.size();
}

// Greedy word wrap to `width` columns, for prose and formulas that must not
// be cut. A word longer than a line is split, after a '.', ':', ',', '(' or
// '_' when one falls in its second half.
std::vector<std::string> Wrap(std::string_view text, size_t width) {
  width = std::max<size_t>(width, 8);
  std::vector<std::string> lines;
  std::string line;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find(' ', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view word = text.substr(pos, end - pos);
    pos = end + 1;
    if (word.empty()) continue;
    if (!line.empty() && Columns(line) + 1 + Columns(word) <= width) {
      line += ' ';
      line += word;
      continue;
    }
    if (!line.empty()) lines.push_back(std::move(line));
    line.clear();
    while (Columns(word) > width) {
      size_t cut = BytesOfColumns(word, width);
      size_t brk = word.substr(0, cut).find_last_of(".:,(_");
      if (brk != std::string_view::npos && brk + 1 >= cut / 2) cut = brk + 1;
      lines.emplace_back(word.substr(0, cut));
      word.remove_prefix(cut);
    }
    line = std::string(word);
  }
  if (!line.empty() || lines.empty()) lines.push_back(std::move(line));
  return lines;
}

// Cuts `s` to `width` columns from the left, starting with "…" when cut:
// for paths, whose tail says the most.
std::string FitLeft(std::string_view s, size_t width) {
  size_t cols = Columns(s);
  if (cols <= width) return std::string(s);
  if (width == 0) return "";
  return "…" + std::string(s.substr(BytesOfColumns(s, cols - (width - 1))));
}

// Code from a checkout file made safe for a terminal: tabs expanded,
// control characters (binary files, stray escapes) shown as '?'.
std::string CleanLine(std::string_view line) {
  std::string out;
  for (char ch : line) {
    unsigned char c = ch;
    if (c == '\t') {
      out.append(4 - Columns(out) % 4, ' ');
    } else if (c < 0x20 || c == 0x7f) {
      if (c != '\r') out.push_back('?');
    } else {
      out.push_back(ch);
    }
  }
  return out;
}

std::vector<std::string> SnippetLines(const std::string& snippet, size_t max_lines) {
  std::vector<std::string> lines;
  std::string_view s = snippet;
  while (!s.empty() && lines.size() < max_lines) {
    size_t nl = s.find('\n');
    lines.push_back(CleanLine(s.substr(0, nl)));
    if (nl == std::string_view::npos) break;
    s.remove_prefix(nl + 1);
  }
  while (!lines.empty() && TrimView(lines.back()).empty()) lines.pop_back();
  return lines;
}

// One line of prose for a formula or schema: newlines and runs of spaces collapsed.
std::string OneLine(std::string_view s) {
  std::string out;
  bool space = false;
  for (char c : s) {
    if (c == '\n' || c == '\r' || c == '\t' || c == ' ') {
      space = !out.empty();
      continue;
    }
    if (space) out.push_back(' ');
    space = false;
    out.push_back(c);
  }
  return CleanLine(out);
}

std::string SnippetLanguage(const std::string& file) {
  if (EndsWith(file, ".py")) return "python";
  if (EndsWith(file, ".yaml")) return "yaml";
  return "cpp";
}

// Dispatch key names short enough for the diagram and the table.
std::string ShortKey(const std::string& key) {
  if (key == "CompositeImplicitAutograd") return "CompositeImplicit";
  if (key == "CompositeExplicitAutograd") return "CompositeExplicit";
  if (key == "CompositeExplicitAutogradNonFunctional") return "CompositeExplicitNF";
  if (key == "CompositeImplicitAutogradNestedTensor") return "CompositeImplicitNested";
  return key;
}

// Dispatch keys that tell where an op runs on CPU and CUDA; the diagram shows
// these and counts the rest (sparse, MPS, nested, ...), which the walk lists.
bool MainDispatchKey(std::string_view key) {
  return key == "CPU" || key == "CUDA" || StartsWith(key, "Composite") || StartsWith(key, "ufunc_") || key == "Meta";
}

std::string DispatchSummary(const NativeFunction* f) {
  if (!f) return "";
  std::vector<std::string> keys;
  size_t others = 0;
  for (const auto& [key, fn] : f->dispatch) {
    if (MainDispatchKey(key))
      keys.push_back(ShortKey(key) + (key == "CompositeImplicitAutograd" && f->implicit_composite ? " (implied)" : ""));
    else ++others;
  }
  std::string out = Join(keys, " · ");
  if (others) out += (out.empty() ? "" : " ") + std::string("+") + std::to_string(others) + " more";
  if (f->structured_delegate) out += (out.empty() ? "" : "  ") + std::string("delegate→") + *f->structured_delegate;
  return out;
}

const char* StyleCode(Style s) {
  switch (s) {
    case Style::kBold:
      return "1";
    case Style::kDim:
      return "2";
    case Style::kPath:
      return "36";
    case Style::kOp:
      return "1;32";
    case Style::kKernel:
      return "33";
    case Style::kLib:
      return "35";
    case Style::kWarn:
      return "31";
    case Style::kPlain:
      break;
  }
  return nullptr;
}

OpOrder OrderOps(const Trace& t) {
  OpOrder order;
  size_t n = t.ops.size();
  order.children.resize(n);
  order.level.assign(n, -1);
  order.full.assign(n, false);
  std::map<std::pair<OpRole, std::string>, size_t> by_name;  // (role, name) -> first index
  for (size_t i = 0; i < n; ++i) by_name.emplace(std::make_pair(t.ops[i].role, t.ops[i].name), i);
  auto parent_of = [&](size_t i) -> long {
    const OpStep& op = t.ops[i];
    if (op.reached_from.empty()) return -1;
    auto it = by_name.find({op.role, op.reached_from});
    if (it == by_name.end() && op.role == OpRole::kBackward) it = by_name.find({OpRole::kForward, op.reached_from});
    if (it == by_name.end() || it->second == i) return -1;
    // A backward op reached from a forward op is a root of the backward tree.
    if (t.ops[it->second].role != op.role) return -1;
    return static_cast<long>(it->second);
  };
  std::vector<long> parent(n);
  for (size_t i = 0; i < n; ++i) {
    parent[i] = parent_of(i);
    if (parent[i] >= 0) order.children[parent[i]].push_back(i);
  }
  int shown_full = 0, budget = kMaxFullOps;
  auto visit = [&](auto&& self, size_t i, int level, std::vector<OpOrder::Item>* out) -> void {
    if (order.level[i] >= 0) return;
    order.level[i] = level;
    bool full = level <= kMaxFullLevel && shown_full < budget;
    if (full) ++shown_full;
    order.full[i] = full;
    out->push_back({i, level, full});
    for (size_t c : order.children[i]) self(self, c, level + 1, out);
  };
  for (int pass = 0; pass < 2; ++pass) {
    // Forward and backward each get their own budget of ops shown in full.
    shown_full = 0;
    budget = pass == 0 ? kMaxFullOps : kMaxFullBackwardOps;
    if (n > kBigTraceOps) budget /= 2;  // a big trace shows fewer ops in full
    auto* out = pass == 0 ? &order.forward : &order.backward;
    for (size_t i = 0; i < n; ++i) {
      bool mine = pass == 0 ? t.ops[i].role != OpRole::kBackward : t.ops[i].role == OpRole::kBackward;
      if (mine && parent[i] < 0) visit(visit, i, 0, out);
    }
    // Ops on a reached_from cycle have no root; show them anyway.
    for (size_t i = 0; i < n; ++i) {
      bool mine = pass == 0 ? t.ops[i].role != OpRole::kBackward : t.ops[i].role == OpRole::kBackward;
      if (mine) visit(visit, i, 0, out);
    }
  }
  return order;
}

}  // namespace optrace::render_detail
