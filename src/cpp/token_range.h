// Toks: bracket matching, joining and argument splitting over a range of
// lexed tokens -- the vocabulary ScanCppFile's declaration and body passes
// share. Everything works on token indices; strings are made only when a
// record keeps them. Inline: every call sits in the scanner's inner loops.
#pragma once

#include <string>
#include <string_view>
#include <unordered_set>
#include <utility>
#include <vector>

#include "cpp/cpp_lexer.h"

namespace optrace {

// The words the declaration pass classifies.
inline bool IsUpperMacroName(std::string_view s) {
  // TORCH_API, C10_HOST_DEVICE, GPU_LAMBDA: all caps with an underscore.
  bool underscore = false, letter = false;
  for (char c : s) {
    if (c == '_') {
      underscore = true;
    } else if (c >= 'A' && c <= 'Z') {
      letter = true;
    } else if (!(c >= '0' && c <= '9')) {
      return false;
    }
  }
  return underscore && letter;
}

// Declaration specifiers dropped from a function's return-type text.
inline bool IsDeclSpecifier(std::string_view s) {
  static const std::unordered_set<std::string_view> kSet = {
      "static",   "inline",     "constexpr",  "consteval",     "virtual",           "explicit",        "friend",
      "extern",   "__global__", "__device__", "__host__",      "__forceinline__",   "__inline__",      "__noinline__",
      "template", "typename",   "__inline",   "__forceinline", "_CCCL_HOST_DEVICE", "C10_HOST_DEVICE", "C10_DEVICE",
      "C10_HOST"};
  return kSet.count(s) > 0;
}

// Words that may follow a function's parameter list before its body.
inline bool IsFunctionTailWord(std::string_view s) {
  return s == "const" || s == "volatile" || s == "noexcept" || s == "override" || s == "final" || s == "mutable" ||
         s == "throw" || s == "try" || s == "__attribute__" || s == "requires" || s == "&" || s == "&&";
}

class Toks {
 public:
  static constexpr size_t kNone = static_cast<size_t>(-1);

  explicit Toks(const std::vector<Token>& t) : t_(t) {}
  const std::vector<Token>& t_;

  // Index of the bracket closing the one at `open` ('(' '[' '{'), tracking
  // all three kinds; `end` when unbalanced.
  size_t MatchClose(size_t open, size_t end) const {
    int depth = 0;
    for (size_t i = open; i < end; ++i) {
      const Token& k = t_[i];
      if (k.kind != TokKind::kPunct || k.text.size() != 1) continue;
      char c = k.text[0];
      if (c == '(' || c == '[' || c == '{') {
        ++depth;
      } else if (c == ')' || c == ']' || c == '}') {
        if (--depth == 0) return i;
        if (depth < 0) return end;
      }
    }
    return end;
  }

  // Index of the '>' closing the template argument list opened at `open`,
  // or kNone when it is not a template argument list (a comparison): the
  // scan stops at ';', '{', '}', '&&', '||' and unbalanced ')' / ']'.
  size_t MatchAngle(size_t open, size_t end) const {
    int depth = 0;
    for (size_t i = open; i < end; ++i) {
      const Token& k = t_[i];
      if (k.kind == TokKind::kLaunchOpen || k.kind == TokKind::kLaunchClose) return kNone;
      if (k.kind != TokKind::kPunct) continue;
      std::string_view s = k.text;
      if (s == "<") {
        ++depth;
      } else if (s == ">") {
        if (--depth == 0) return i;
      } else if (s == "(" || s == "[") {
        size_t c = MatchClose(i, end);
        if (c >= end) return kNone;
        i = c;
      } else if (s == ";" || s == "{" || s == "}" || s == "&&" || s == "||" || s == ")" || s == "]") {
        return kNone;
      }
    }
    return kNone;
  }

  // Backwards: index of the '<' opening the template argument list whose
  // '>' is at `close`, or kNone.
  size_t MatchAngleBack(size_t close, size_t begin) const {
    int depth = 0;
    for (size_t i = close + 1; i-- > begin;) {
      const Token& k = t_[i];
      if (k.kind != TokKind::kPunct) continue;
      std::string_view s = k.text;
      if (s == ">") {
        ++depth;
      } else if (s == "<") {
        if (--depth == 0) return i;
      } else if (s == ")" || s == "]") {
        int d = 0;  // step back over a balanced group
        size_t j = i + 1;
        while (j-- > begin) {
          std::string_view x = t_[j].text;
          if (t_[j].kind != TokKind::kPunct) continue;
          if (x == ")" || x == "]") ++d;
          if (x == "(" || x == "[") {
            if (--d == 0) break;
          }
        }
        if (j >= close || j < begin || d != 0) return kNone;
        i = j;
      } else if (s == ";" || s == "{" || s == "}" || s == "(" || s == "[" || s == "&&" || s == "||") {
        return kNone;
      }
    }
    return kNone;
  }

  // Text of tokens [b, e) with one space wherever the source had whitespace
  // or a comment between two tokens: "const Tensor& self, int64_t dim".
  std::string Join(size_t b, size_t e) const {
    std::string out;
    for (size_t i = b; i < e; ++i) {
      if (i > b) {
        const Token& p = t_[i - 1];
        bool closing = t_[i].Is(',') || t_[i].Is(')') || t_[i].Is(']');
        if (p.text.data() + p.text.size() != t_[i].text.data() && !closing) out += ' ';
      }
      out.append(t_[i].text);
    }
    return out;
  }

  // Tokens [b, e) joined with no spaces: "at::native::", "Foo<T>::".
  std::string Concat(size_t b, size_t e) const {
    std::string out;
    for (size_t i = b; i < e; ++i) out.append(t_[i].text);
    return out;
  }

  // Top-level comma-separated arguments of the group opened at `open`
  // ('(' or '<'), as [begin, end) ranges; commas inside () [] {} and inner
  // template lists are not separators.
  std::vector<std::pair<size_t, size_t>> Args(size_t open, size_t close) const {
    std::vector<std::pair<size_t, size_t>> args;
    size_t start = open + 1;
    for (size_t i = open + 1; i < close; ++i) {
      const Token& k = t_[i];
      if (k.kind != TokKind::kPunct) continue;
      if (k.Is('(') || k.Is('[') || k.Is('{')) {
        i = std::min(MatchClose(i, close), close);
      } else if (k.Is('<') && i > open + 1 && IsIdent(t_[i - 1])) {
        size_t a = MatchAngle(i, close);
        if (a != kNone) i = a;
      } else if (k.Is(',')) {
        args.push_back({start, i});
        start = i + 1;
      }
    }
    if (start < close || !args.empty()) args.push_back({start, close});
    return args;
  }
};

}  // namespace optrace
