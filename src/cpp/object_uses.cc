// Each token spelling the object, not after '.', '->' or '::' (another
// object's member of that name), classified by what follows it; a passed
// object's callee and argument position come from the innermost
// parenthesis around it that follows a name.
#include "cpp/object_uses.h"

#include "cpp/token_range.h"

namespace optrace {

namespace {

// The callee and argument index of the call whose parentheses hold token
// `at` directly, or false.
bool EnclosingCall(const std::vector<Token>& t, size_t open, size_t at, std::string* callee, int* position) {
  int depth = 0, commas = 0;
  for (size_t q = at; q-- > open;) {
    const Token& k = t[q];
    if (k.Is(')') || k.Is(']') || k.Is('}')) ++depth;
    else if (k.Is('[') || k.Is('{')) {
      if (depth-- == 0) return false;
    } else if (k.Is('(')) {
      if (depth-- > 0) continue;
      if (q == 0 || !IsIdent(t[q - 1])) return false;
      *callee = std::string(t[q - 1].text);
      *position = commas;
      return true;
    } else if (k.Is(',') && depth == 0) {
      ++commas;
    } else if (k.Is(';') && depth == 0) {
      return false;
    }
  }
  return false;
}

}  // namespace

std::vector<ObjectUse> UsesOfObject(const std::vector<Token>& t, size_t open, size_t close, int before,
                                    std::string_view object) {
  std::vector<ObjectUse> uses;
  Toks k(t);
  int depth = 0;
  for (size_t i = open + 1; i < close && static_cast<int>(t[i].line) < before; ++i) {
    if (t[i].Is('{')) ++depth;
    if (t[i].Is('}')) --depth;
    if (t[i].text != object || !IsIdent(t[i])) continue;
    if (i > 0 && (t[i - 1].Is('.') || t[i - 1].Is("->") || t[i - 1].Is("::"))) continue;
    ObjectUse use;
    use.line = static_cast<int>(t[i].line);
    const bool member = i + 2 < close && t[i + 1].Is('.') && IsIdent(t[i + 2]);
    if (member && i + 3 < close && t[i + 3].Is('=')) {
      use.kind = ObjectUse::Kind::kAssign;
      use.name = std::string(t[i + 2].text);
      size_t j = i + 4;
      while (j < close && !t[j].Is(';')) {
        if (t[j].Is('(') || t[j].Is('[') || t[j].Is('{')) j = k.MatchClose(j, close);
        ++j;
      }
      use.value = k.Join(i + 4, std::min(j, close));
      use.top_level = depth == 0;
    } else if (member && i + 3 < close && t[i + 3].Is('(')) {
      use.kind = ObjectUse::Kind::kMethodCall;
      use.name = std::string(t[i + 2].text);
    } else if (member) {
      continue;  // a member read
    } else if (i + 1 < close && (t[i + 1].Is(',') || t[i + 1].Is(')')) &&
               EnclosingCall(t, open, i, &use.name, &use.position)) {
      use.kind = ObjectUse::Kind::kPassed;
    } else if (i > 0 && (IsIdent(t[i - 1]) || t[i - 1].Is('>')) && i + 1 < close && t[i + 1].Is(';')) {
      continue;  // its declaration: `ConvParams<int64_t> params;`
    }
    uses.push_back(std::move(use));
  }
  return uses;
}

}  // namespace optrace
