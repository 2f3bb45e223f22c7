// The Python tokenizer (see py_tokenizer.h for the rules it follows). It is a
// pull tokenizer over a string_view: each Next() skips trivia, then returns
// one token as an offset/size pair. Errors never stop it: the first one is
// kept with its line and scanning resumes at a safe point (end of line for an
// unterminated single-quoted string, end of input for a triple-quoted one).
#include "py/py_tokenizer.h"

#include <algorithm>
#include <array>

namespace optrace {
namespace {

constexpr std::array<std::string_view, 35> kKeywords = {
    "False", "None",     "True",  "and",    "as",   "assert", "async",  "await",    "break",
    "class", "continue", "def",   "del",    "elif", "else",   "except", "finally",  "for",
    "from",  "global",   "if",    "import", "in",   "is",     "lambda", "nonlocal", "not",
    "or",    "pass",     "raise", "return", "try",  "while",  "with",   "yield"};

// Python 3's identifier characters (PEP 3131 admits every non-ASCII letter),
// not base/text.h's ASCII IsIdentChar, which reads C++ names.
bool IsPyIdentStart(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c >= 0x80;
}
bool IsPyIdentChar(unsigned char c) { return IsPyIdentStart(c) || (c >= '0' && c <= '9'); }
bool IsDigit(unsigned char c) { return c >= '0' && c <= '9'; }
bool IsNewline(char c) { return c == '\n' || c == '\r'; }

// Valid string prefixes: any order/case of at most one each of r and one of
// b/u/f, where u stands alone.
bool StringPrefix(std::string_view word, bool* raw, bool* fstring) {
  if (word.empty() || word.size() > 2) return false;
  bool r = false, b = false, u = false, f = false;
  for (char c : word) {
    switch (c | 0x20) {
      case 'r':
        if (r) return false;
        r = true;
        break;
      case 'b':
        if (b) return false;
        b = true;
        break;
      case 'u':
        if (u) return false;
        u = true;
        break;
      case 'f':
        if (f) return false;
        f = true;
        break;
      default:
        return false;
    }
  }
  if (u && word.size() > 1) return false;
  if (b && f) return false;
  *raw = r;
  *fstring = f;
  return true;
}

// Length of the operator at the start of s (1 for any other character).
size_t OperatorLength(std::string_view s) {
  const char c = s[0];
  const char d = s.size() > 1 ? s[1] : '\0';
  const char e = s.size() > 2 ? s[2] : '\0';
  switch (c) {
    case '*':
    case '/':
    case '<':
    case '>':
      if (d == c) return e == '=' ? 3 : 2;  // ** // << >> and **= //= <<= >>=
      if (d == '=') return 2;
      return (c == '<' && d == '>') ? 2 : 1;
    case '.':
      return (d == '.' && e == '.') ? 3 : 1;
    case '-':
      return (d == '>' || d == '=') ? 2 : 1;
    case ':':
    case '=':
    case '!':
    case '+':
    case '%':
    case '&':
    case '|':
    case '^':
    case '@':
      return d == '=' ? 2 : 1;
    default:
      return 1;
  }
}

}  // namespace

bool IsPyKeyword(std::string_view name) {
  // Cheap rejection first: keywords are 2..8 characters starting with a
  // lowercase letter or F/N/T.
  if (name.size() < 2 || name.size() > 8) return false;
  const char c = name[0];
  if (!((c >= 'a' && c <= 'y') || c == 'F' || c == 'N' || c == 'T')) return false;
  return std::find(kKeywords.begin(), kKeywords.end(), name) != kKeywords.end();
}

PyTokenizer::PyTokenizer(std::string_view source) : src_(source) {
  if (src_.substr(0, 3) == "\xEF\xBB\xBF") pos_ = 3;  // UTF-8 BOM
}

void PyTokenizer::Fail(const char* message, uint32_t line) {
  if (error_.empty()) {
    error_ = message;
    error_line_ = line;
  }
}

void PyTokenizer::NewlineAt(size_t pos) {
  // \r\n counts once; the caller advances past the whole sequence.
  ++line_;
  pos_ = pos + ((src_[pos] == '\r' && pos + 1 < src_.size() && src_[pos + 1] == '\n') ? 2 : 1);
}

void PyTokenizer::StartLine() {
  uint32_t col = 0, alt = 0;
  size_t p = pos_;
  for (; p < src_.size(); ++p) {
    char c = src_[p];
    if (c == ' ') {
      ++col;
      ++alt;
    } else if (c == '\t') {
      col = (col / 8 + 1) * 8;
      ++alt;
    } else if (c == '\f') {
      col = alt = 0;
    } else {
      break;
    }
  }
  pos_ = p;
  // Blank, comment-only and end-of-input lines do not take part in indentation.
  if (p >= src_.size() || src_[p] == '#' || IsNewline(src_[p])) return;
  if (src_[p] == '\\' && p + 1 < src_.size() && IsNewline(src_[p + 1])) return;
  if (col > indents_.back()) {
    if (alt <= alt_indents_.back()) Fail("inconsistent use of tabs and spaces in indentation", line_);
    indents_.push_back(col);
    alt_indents_.push_back(alt);
    pending_indent_ = true;
    return;
  }
  if (col == indents_.back()) {
    if (alt != alt_indents_.back()) Fail("inconsistent use of tabs and spaces in indentation", line_);
    return;
  }
  while (indents_.size() > 1 && col < indents_.back()) {
    indents_.pop_back();
    alt_indents_.pop_back();
    ++pending_dedents_;
  }
  if (col != indents_.back()) Fail("unindent does not match any outer indentation level", line_);
}

PyToken PyTokenizer::Next() {
  PyToken t;
  for (;;) {
    if (pending_dedents_ > 0) {
      --pending_dedents_;
      t.kind = PyTok::kDedent;
      t.begin = static_cast<uint32_t>(pos_);
      t.line = line_;
      return t;
    }
    if (pending_indent_) {
      pending_indent_ = false;
      t.kind = PyTok::kIndent;
      t.begin = static_cast<uint32_t>(pos_);
      t.line = line_;
      return t;
    }
    if (done_) {
      t.kind = PyTok::kEnd;
      t.begin = static_cast<uint32_t>(src_.size());
      t.line = line_;
      return t;
    }
    if (at_line_start_) {
      at_line_start_ = false;
      StartLine();
      continue;
    }
    while (pos_ < src_.size() && (src_[pos_] == ' ' || src_[pos_] == '\t' || src_[pos_] == '\f')) ++pos_;
    if (pos_ >= src_.size()) {
      if (depth_ > 0) {
        Fail("unexpected end of input inside brackets", line_);
        depth_ = 0;
      }
      if (line_has_tokens_) {
        line_has_tokens_ = false;
        t.kind = PyTok::kNewline;
        t.begin = static_cast<uint32_t>(pos_);
        t.line = line_;
        return t;
      }
      pending_dedents_ = static_cast<int>(indents_.size()) - 1;
      indents_.resize(1);
      alt_indents_.resize(1);
      done_ = true;
      continue;
    }
    const char c = src_[pos_];
    if (c == '#') {
      while (pos_ < src_.size() && !IsNewline(src_[pos_])) ++pos_;
      continue;
    }
    if (IsNewline(c)) {
      const uint32_t line = line_;
      const size_t at = pos_;
      NewlineAt(pos_);
      if (depth_ > 0) continue;
      at_line_start_ = true;
      if (!line_has_tokens_) continue;
      line_has_tokens_ = false;
      t.kind = PyTok::kNewline;
      t.begin = static_cast<uint32_t>(at);
      t.line = line;
      return t;
    }
    if (c == '\\') {
      if (pos_ + 1 < src_.size() && IsNewline(src_[pos_ + 1])) {
        NewlineAt(pos_ + 1);
        continue;
      }
      if (pos_ + 1 >= src_.size()) {  // a trailing backslash at end of input
        ++pos_;
        continue;
      }
      Fail("unexpected character after line continuation character", line_);
      ++pos_;
      continue;
    }

    line_has_tokens_ = true;
    t.begin = static_cast<uint32_t>(pos_);
    t.line = line_;
    const unsigned char uc = static_cast<unsigned char>(c);
    if (IsPyIdentStart(uc)) {
      size_t p = pos_ + 1;
      while (p < src_.size() && IsPyIdentChar(static_cast<unsigned char>(src_[p]))) ++p;
      bool raw = false, fstring = false;
      if (p < src_.size() && (src_[p] == '\'' || src_[p] == '"') &&
          StringPrefix(src_.substr(pos_, p - pos_), &raw, &fstring)) {
        pos_ = p;
        ScanStringBody(fstring, raw);
        t.kind = PyTok::kString;
      } else {
        pos_ = p;
        t.kind = PyTok::kName;
      }
    } else if (c == '\'' || c == '"') {
      ScanStringBody(false, false);
      t.kind = PyTok::kString;
    } else if (IsDigit(uc) || (c == '.' && pos_ + 1 < src_.size() && IsDigit(src_[pos_ + 1]))) {
      ScanNumber();
      t.kind = PyTok::kNumber;
    } else {
      size_t n = OperatorLength(src_.substr(pos_));
      if (n == 1) {
        switch (c) {
          case '(':
          case '[':
          case '{':
            ++depth_;
            break;
          case ')':
          case ']':
          case '}':
            if (depth_ > 0) --depth_;
            else Fail("unmatched closing bracket", line_);
            break;
          case '+':
          case '-':
          case '*':
          case '/':
          case '%':
          case '@':
          case '&':
          case '|':
          case '^':
          case '~':
          case '<':
          case '>':
          case '=':
          case '.':
          case ',':
          case ':':
          case ';':
          case '!':
            break;
          default:
            Fail("invalid character", line_);
        }
      }
      pos_ += n;
      t.kind = PyTok::kOp;
    }
    t.size = static_cast<uint32_t>(pos_ - t.begin);
    return t;
  }
}

void PyTokenizer::ScanNumber() {
  const size_t n = src_.size();
  auto digits = [&](bool hex) {
    while (pos_ < n) {
      unsigned char c = src_[pos_];
      if (IsDigit(c) || c == '_' || (hex && ((c | 0x20) >= 'a' && (c | 0x20) <= 'f'))) ++pos_;
      else break;
    }
  };
  if (src_[pos_] == '0' && pos_ + 1 < n && std::string_view("xXoObB").find(src_[pos_ + 1]) != std::string_view::npos) {
    pos_ += 2;
    digits(true);
  } else {
    digits(false);
    if (pos_ < n && src_[pos_] == '.') {
      ++pos_;
      digits(false);
    }
    if (pos_ < n && (src_[pos_] | 0x20) == 'e') {
      size_t p = pos_ + 1;
      if (p < n && (src_[p] == '+' || src_[p] == '-')) ++p;
      if (p < n && IsDigit(src_[p])) {
        pos_ = p;
        digits(false);
      }
    }
    if (pos_ < n && (src_[pos_] | 0x20) == 'j') ++pos_;
  }
  // Python 2 suffixes (10L) and malformed literals stay one token.
  while (pos_ < n && IsPyIdentChar(static_cast<unsigned char>(src_[pos_]))) ++pos_;
}

void PyTokenizer::ScanStringBody(bool fstring, bool raw) {
  const size_t n = src_.size();
  const uint32_t start_line = line_;
  const char quote = src_[pos_];
  const bool triple = pos_ + 2 < n && src_[pos_ + 1] == quote && src_[pos_ + 2] == quote;
  pos_ += triple ? 3 : 1;
  while (pos_ < n) {
    const char c = src_[pos_];
    if (c == '\\') {
      ++pos_;
      if (pos_ >= n) break;
      const char e = src_[pos_];
      if (IsNewline(e)) {
        NewlineAt(pos_);
      } else if (fstring && (e == '{' || e == '}')) {
        // "\{" leaves the brace to start a field, as CPython does.
      } else if (fstring && !raw && e == 'N' && pos_ + 1 < n && src_[pos_ + 1] == '{') {
        while (pos_ < n && src_[pos_] != '}' && src_[pos_] != quote && !IsNewline(src_[pos_])) ++pos_;
        if (pos_ < n && src_[pos_] == '}') ++pos_;
      } else {
        ++pos_;
      }
      continue;
    }
    if (c == quote) {
      if (!triple) {
        ++pos_;
        return;
      }
      if (pos_ + 2 < n && src_[pos_ + 1] == quote && src_[pos_ + 2] == quote) {
        pos_ += 3;
        return;
      }
      ++pos_;
      continue;
    }
    if (IsNewline(c)) {
      if (!triple) {
        Fail("unterminated string literal", start_line);
        return;  // resume at the newline
      }
      NewlineAt(pos_);
      continue;
    }
    if (fstring && c == '{') {
      if (pos_ + 1 < n && src_[pos_ + 1] == '{') {
        pos_ += 2;
        continue;
      }
      ++pos_;
      ScanReplacementField(quote, triple, raw);
      if (!error_.empty() && pos_ < n && IsNewline(src_[pos_]) && !triple) return;
      continue;
    }
    ++pos_;
  }
  Fail(triple ? "unterminated triple-quoted string literal" : "unterminated string literal", start_line);
}

void PyTokenizer::ScanReplacementField(char quote, bool triple, bool raw) {
  const size_t n = src_.size();
  // Real code nests a few levels; past this the input is hostile, and the
  // rest is read as literal text rather than recursing further.
  constexpr int kMaxNesting = 64;
  if (fstring_nesting_ >= kMaxNesting) {
    Fail("f-string nested too deeply", line_);
    return;
  }
  struct Guard {
    int& n;
    explicit Guard(int& v) : n(v) { ++n; }
    ~Guard() { --n; }
  } guard(fstring_nesting_);
  const uint32_t start_line = line_;
  int depth = 0;
  bool in_spec = false;  // after the top-level ':' of the field
  while (pos_ < n) {
    const char c = src_[pos_];
    if (IsNewline(c)) {
      if (!triple) {
        Fail("unterminated f-string replacement field", start_line);
        return;
      }
      NewlineAt(pos_);
      continue;
    }
    if (in_spec) {
      // The format spec is literal text with nested fields.
      if (c == '{') {
        ++pos_;
        ScanReplacementField(quote, triple, raw);
      } else if (c == '}') {
        ++pos_;
        return;
      } else if (c == quote) {
        return;  // let the string end; the field was unterminated
      } else if (c == '\\') {
        pos_ += (pos_ + 1 < n && !IsNewline(src_[pos_ + 1])) ? 2 : 1;
      } else {
        ++pos_;
      }
      continue;
    }
    if (c == '\'' || c == '"') {
      ScanStringBody(false, false);
      continue;
    }
    if (IsPyIdentStart(static_cast<unsigned char>(c))) {
      size_t p = pos_ + 1;
      while (p < n && IsPyIdentChar(static_cast<unsigned char>(src_[p]))) ++p;
      bool nraw = false, nf = false;
      if (p < n && (src_[p] == '\'' || src_[p] == '"') && StringPrefix(src_.substr(pos_, p - pos_), &nraw, &nf)) {
        pos_ = p;
        ScanStringBody(nf, nraw);
      } else {
        pos_ = p;
      }
      continue;
    }
    switch (c) {
      case '(':
      case '[':
      case '{':
        ++depth;
        break;
      case ')':
      case ']':
        if (depth > 0) --depth;
        break;
      case '}':
        if (depth > 0) {
          --depth;
          break;
        }
        ++pos_;
        return;
      case ':':
        if (depth == 0) in_spec = true;
        break;
      case '\\':
        if (pos_ + 1 < n && !IsNewline(src_[pos_ + 1])) ++pos_;
        break;
      default:
        break;
    }
    ++pos_;
  }
  Fail("unterminated f-string replacement field", start_line);
}

std::string TokenizePy(std::string_view source, std::vector<PyToken>* tokens, uint32_t* error_line) {
  tokens->clear();
  PyTokenizer tokenizer(source);
  for (;;) {
    PyToken t = tokenizer.Next();
    tokens->push_back(t);
    if (t.kind == PyTok::kEnd) break;
  }
  if (error_line) *error_line = tokenizer.error_line();
  return tokenizer.error();
}

}  // namespace optrace
