// PyTokenView's reads of a token range (see py_token_view.h).
#include "py/py_token_view.h"

#include <algorithm>

namespace optrace {

std::string_view StringValue(std::string_view tok) {
  size_t q = tok.find_first_of("'\"");
  if (q == std::string_view::npos) return {};
  std::string_view body = tok.substr(q);
  size_t quote_len = body.size() >= 6 && body[1] == body[0] && body[2] == body[0] ? 3 : 1;
  if (body.size() < 2 * quote_len) return {};
  return body.substr(quote_len, body.size() - 2 * quote_len);
}

bool PyTokenView::IsOp(size_t i, std::string_view op) const {
  const PyToken& t = toks_[i];
  return t.kind == PyTok::kOp && t.size == op.size() && src_[t.begin] == op[0] && Text(i) == op;
}
size_t PyTokenView::NextNewline(size_t i) const {
  while (i < toks_.size() && toks_[i].kind != PyTok::kNewline && toks_[i].kind != PyTok::kEnd) ++i;
  return i;
}

bool PyTokenView::EndsOperand(size_t i) const {
  const PyToken& t = toks_[i];
  switch (t.kind) {
    case PyTok::kName: {
      std::string_view s = Text(i);
      return !IsPyKeyword(s) || s == "None" || s == "True" || s == "False";
    }
    case PyTok::kNumber:
    case PyTok::kString:
      return true;
    case PyTok::kOp: {
      std::string_view s = Text(i);
      return s == ")" || s == "]" || s == "}" || s == "...";
    }
    default:
      return false;
  }
}

std::string PyTokenView::Collapsed(size_t b, size_t e, size_t limit) const {
  std::string out;
  if (b < e) out.reserve(std::min<size_t>(limit + 1, toks_[e - 1].begin + toks_[e - 1].size - toks_[b].begin));
  for (size_t i = b; i < e; ++i) {
    std::string_view t = Text(i);
    if (i > b && toks_[i].begin > toks_[i - 1].begin + toks_[i - 1].size) {
      std::string_view prev = Text(i - 1);
      if (!IsOpenBracket(prev) && !IsCloseBracket(t) && t != ",") out += ' ';
    }
    bool space = false;
    for (char c : t) {
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f') {
        space = true;
        continue;
      }
      if (space && !out.empty()) out += ' ';
      space = false;
      out += c;
      if (out.size() > limit) break;
    }
    if (out.size() > limit) {
      out.resize(limit - 3);
      out += "...";
      break;
    }
  }
  return out;
}

std::string PyTokenView::Joined(size_t b, size_t e) const {
  std::string out;
  for (size_t i = b; i < e; ++i) out += Text(i);
  return out;
}

std::vector<std::pair<size_t, size_t>> PyTokenView::SplitArgs(size_t b, size_t e) const {
  std::vector<std::pair<size_t, size_t>> out;
  size_t start = b;
  for (size_t i = b; i < e;) {
    if (IsOpenGroup(i)) {
      i = std::min(SkipGroup(i), e);
      continue;
    }
    if (IsOp(i, ",")) {
      if (i > start) out.emplace_back(start, i);
      start = i + 1;
    }
    ++i;
  }
  if (e > start) out.emplace_back(start, e);
  return out;
}

size_t PyTokenView::DottedEnd(size_t b, size_t e) const {
  if (b >= e || toks_[b].kind != PyTok::kName || IsPyKeyword(Text(b))) return b;
  size_t i = b + 1;
  while (i + 1 < e && IsOp(i, ".") && toks_[i + 1].kind == PyTok::kName) i += 2;
  return i;
}

uint32_t PyTokenView::EndLine(size_t last) const {
  uint32_t line = toks_[last].line;
  for (char c : Text(last))
    if (c == '\n') ++line;
  return line;
}

size_t PyTokenView::LastRealToken(size_t b, size_t e) const {
  size_t k = e;
  while (k > b + 1) {
    --k;
    PyTok kind = toks_[k].kind;
    if (kind != PyTok::kNewline && kind != PyTok::kIndent && kind != PyTok::kDedent && kind != PyTok::kEnd) return k;
  }
  return b;
}

std::vector<std::string> PyTokenView::ParamNames(size_t b, size_t e) const {
  std::vector<std::string> names;
  for (auto [pb, pe] : SplitArgs(b, e)) {
    size_t k = pb;
    while (k < pe && (IsOp(k, "*") || IsOp(k, "**"))) ++k;
    if (k < pe && toks_[k].kind == PyTok::kName) names.emplace_back(Text(k));
  }
  return names;
}

size_t PyTokenView::PrimaryEnd(size_t b, size_t e) const {
  size_t i = b;
  if (IsOpenGroup(i)) {
    i = SkipGroup(i);
  } else if (toks_[i].kind == PyTok::kString) {
    while (i < e && toks_[i].kind == PyTok::kString) ++i;
  } else {
    ++i;
  }
  while (i < e) {
    if (IsOp(i, ".") && i + 1 < e && toks_[i + 1].kind == PyTok::kName) i += 2;
    else if (IsOp(i, "(") || IsOp(i, "[")) i = SkipGroup(i);
    else break;
  }
  return std::min(i, e);
}

size_t PyTokenView::PrimaryStart(size_t last, int max_links, bool* cut) const {
  size_t start = last;
  for (int links = 0;; ++links) {
    if (links == max_links) {
      *cut = true;
      return start;
    }
    size_t atom = start;
    if (toks_[atom].kind == PyTok::kOp && IsCloseBracket(Text(atom))) {
      int32_t m = match_[atom];
      if (m < 0) break;
      atom = static_cast<size_t>(m);
      // A trailer (call args or subscript) when it follows an operand.
      if (atom > 0 && EndsOperand(atom - 1) && toks_[atom - 1].kind != PyTok::kNumber) {
        start = atom - 1;
        continue;
      }
      start = atom;
      break;
    }
    start = atom;
    if (start >= 2 && IsOp(start - 1, ".") && EndsOperand(start - 2) && toks_[start - 2].kind != PyTok::kNumber) {
      start -= 2;
      continue;
    }
    break;
  }
  return start;
}

}  // namespace optrace
