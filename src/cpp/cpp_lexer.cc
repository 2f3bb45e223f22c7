// The lexer behind cpp_scan (see cpp_lexer.h for what it guarantees). One
// pass over the bytes; every token is a string_view into the text, so lexing
// allocates only the token vectors. Unterminated comments, strings and raw
// strings end at the end of the file (or line, for ordinary strings) instead
// of failing: the scanner must keep going on any input.
#include "cpp/cpp_lexer.h"

#include <cstring>

namespace optrace {
namespace {

// The lexer's identifier characters: base/text.h's, plus '$' (a GCC
// extension) and every non-ASCII byte, so that no byte of a name starts a token.
bool IsCppIdentStart(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '$' || c >= 0x80;
}
bool IsCppIdentChar(unsigned char c) { return IsCppIdentStart(c) || (c >= '0' && c <= '9'); }
bool IsDigit(unsigned char c) { return c >= '0' && c <= '9'; }

// Where a directive's tokens go.
enum class Mode { kCode, kDrop, kDefineParams, kDefineBody, kIfExpr };

// One open #if group: where the current branch began, so a branch that must
// be dropped (an `#if 0` arm, or a later arm whose brackets do not balance) can
// be cut off the end of the token vector when the next #elif/#else/#endif
// arrives.
struct CondGroup {
  size_t branch_start;  // tokens.size() when the branch began
  int branch_braces;    // brace and paren balance then
  int branch_parens;
  bool first_branch;
  bool drop_first;  // #if 0
};

class Lexer {
 public:
  Lexer(std::string_view text, LexedFile* out)
      : begin_(text.data()), p_(text.data()), end_(text.data() + text.size()), out_(out) {}

  void Run() {
    while (p_ < end_) {
      unsigned char c = *p_;
      if (c == '\n') {
        ++p_;
        EndOfLine();
        continue;
      }
      if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
        ++p_;
        continue;
      }
      if (c == '\\' && Splice()) continue;
      if (c == '/' && p_ + 1 < end_ && p_[1] == '/') {
        LineComment();
        continue;
      }
      if (c == '/' && p_ + 1 < end_ && p_[1] == '*') {
        BlockComment();
        continue;
      }
      if (c == '#' && line_start_ && mode_ == Mode::kCode) {
        ++p_;
        Directive();
        continue;
      }
      line_start_ = false;
      LexToken();
    }
    EndDirective();
    // Unclosed #if groups at the end of the file: nothing more to decide.
  }

 private:
  // Backslash-newline: a line splice. Returns false for a lone backslash.
  bool Splice() {
    const char* q = p_ + 1;
    while (q < end_ && (*q == ' ' || *q == '\t' || *q == '\r')) ++q;  // tolerate trailing blanks
    if (q < end_ && *q == '\n') {
      p_ = q + 1;
      ++line_;
      return true;
    }
    return false;
  }

  void EndOfLine() {
    ++line_;
    line_start_ = true;
    if (mode_ != Mode::kCode) EndDirective();
  }

  void LineComment() {
    // A // comment ending in a backslash continues onto the next line.
    p_ += 2;
    while (p_ < end_) {
      if (*p_ == '\n') {
        const char* q = p_ - 1;
        while (q > begin_ && *q == '\r') --q;
        if (*q == '\\') {
          ++line_;
          ++p_;
          continue;
        }
        return;  // the newline itself is handled by Run (it may end a directive)
      }
      ++p_;
    }
  }

  void BlockComment() {
    p_ += 2;
    while (p_ < end_) {
      if (*p_ == '*' && p_ + 1 < end_ && p_[1] == '/') {
        p_ += 2;
        return;
      }
      if (*p_ == '\n') ++line_;
      ++p_;
    }
  }

  void SkipBlanks() {
    while (p_ < end_) {
      if (*p_ == ' ' || *p_ == '\t' || *p_ == '\r') {
        ++p_;
      } else if (*p_ == '\\' && Splice()) {
      } else if (*p_ == '/' && p_ + 1 < end_ && p_[1] == '*') {
        BlockComment();
      } else {
        return;
      }
    }
  }

  std::string_view ReadIdent() {
    const char* s = p_;
    while (p_ < end_ && IsCppIdentChar(*p_)) ++p_;
    return std::string_view(s, p_ - s);
  }

  void Directive() {
    SkipBlanks();
    std::string_view name = ReadIdent();
    directive_line_ = line_;
    if (name == "define") {
      SkipBlanks();
      MacroDef m;
      m.name = ReadIdent();
      m.line = line_;
      m.function_like = p_ < end_ && *p_ == '(';
      m.body_begin = m.body_end = static_cast<uint32_t>(out_->macro_tokens.size());
      out_->macros.push_back(m);
      macro_launch_depth_ = 0;
      if (m.name.empty()) {
        mode_ = Mode::kDrop;
      } else if (m.function_like) {
        ++p_;
        mode_ = Mode::kDefineParams;
      } else {
        mode_ = Mode::kDefineBody;
      }
      return;
    }
    if (name == "if" || name == "ifdef" || name == "ifndef") {
      groups_.push_back({out_->tokens.size(), brace_balance_, paren_balance_, true, false});
      if (name == "if") {
        mode_ = Mode::kIfExpr;
        if_tokens_ = 0;
        if_zero_ = false;
      } else {
        mode_ = Mode::kDrop;
      }
      return;
    }
    if (name == "elif" || name == "else" || name == "endif" || name == "elifdef" || name == "elifndef") {
      CloseBranch(name == "endif");
      mode_ = Mode::kDrop;
      return;
    }
    mode_ = Mode::kDrop;  // include, pragma, undef, error, line, unknown
  }

  // Ends the current branch of the innermost #if group: drops it when it is
  // an `#if 0` arm or a later arm with unbalanced braces.
  void CloseBranch(bool end_group) {
    if (groups_.empty()) return;  // stray #else/#endif
    CondGroup& g = groups_.back();
    bool drop = g.first_branch ? g.drop_first : brace_balance_ != g.branch_braces || paren_balance_ != g.branch_parens;
    if (drop && g.branch_start <= out_->tokens.size()) {
      out_->tokens.resize(g.branch_start);
      brace_balance_ = g.branch_braces;
      paren_balance_ = g.branch_parens;
    }
    if (end_group) {
      groups_.pop_back();
      return;
    }
    g.first_branch = false;
    g.branch_start = out_->tokens.size();
    g.branch_braces = brace_balance_;
    g.branch_parens = paren_balance_;
  }

  void EndDirective() {
    if (mode_ == Mode::kDefineBody || mode_ == Mode::kDefineParams) {
      MacroDef& m = out_->macros.back();
      m.body_end = static_cast<uint32_t>(out_->macro_tokens.size());
      m.end_line = line_ > m.line ? line_ - 1 : m.line;
      if (p_ >= end_) m.end_line = line_;
    } else if (mode_ == Mode::kIfExpr && !groups_.empty()) {
      groups_.back().drop_first = if_zero_ && if_tokens_ == 1;
    }
    mode_ = Mode::kCode;
  }

  void Emit(TokKind kind, const char* s, bool glued = false) {
    Token t;
    t.text = std::string_view(s, p_ - s);
    t.line = token_line_;
    t.kind = kind;
    t.glued = glued;
    switch (mode_) {
      case Mode::kCode:
        if (kind == TokKind::kPunct && t.text.size() == 1) {
          if (t.text[0] == '{') ++brace_balance_;
          if (t.text[0] == '}') --brace_balance_;
          if (t.text[0] == '(') ++paren_balance_;
          if (t.text[0] == ')') --paren_balance_;
        }
        out_->tokens.push_back(t);
        break;
      case Mode::kDefineBody:
        t.macro = static_cast<uint32_t>(out_->macros.size());
        out_->macro_tokens.push_back(t);
        break;
      case Mode::kDefineParams:
        if (t.Is(')')) mode_ = Mode::kDefineBody;
        break;
      case Mode::kIfExpr:
        ++if_tokens_;
        if_zero_ = if_tokens_ == 1 && t.text == "0";
        break;
      case Mode::kDrop:
        break;
    }
  }

  int& LaunchDepth() { return mode_ == Mode::kCode ? code_launch_depth_ : macro_launch_depth_; }

  void LexToken() {
    const char* s = p_;
    token_line_ = line_;
    unsigned char c = *p_;
    if (IsCppIdentStart(c)) {
      std::string_view id = ReadIdent();
      if (p_ < end_ && *p_ == '"') {
        if (id == "R" || id == "u8R" || id == "uR" || id == "UR" || id == "LR") {
          RawString(s);
          return;
        }
        if (id == "u8" || id == "u" || id == "U" || id == "L") {
          Quoted('"');
          Emit(TokKind::kString, s);
          return;
        }
      }
      if (p_ < end_ && *p_ == '\'' && (id == "u8" || id == "u" || id == "U" || id == "L")) {
        Quoted('\'');
        Emit(TokKind::kChar, s);
        return;
      }
      Emit(TokKind::kIdent, s);
      return;
    }
    if (IsDigit(c) || (c == '.' && p_ + 1 < end_ && IsDigit(p_[1]))) {
      Number();
      Emit(TokKind::kNumber, s);
      return;
    }
    if (c == '"') {
      Quoted('"');
      Emit(TokKind::kString, s);
      return;
    }
    if (c == '\'') {
      Quoted('\'');
      Emit(TokKind::kChar, s);
      return;
    }
    Punct(s);
  }

  void Number() {
    while (p_ < end_) {
      unsigned char c = *p_;
      if ((c == 'e' || c == 'E' || c == 'p' || c == 'P') && p_ + 1 < end_ && (p_[1] == '+' || p_[1] == '-')) {
        p_ += 2;
      } else if (c == '\'' && p_ + 1 < end_ && IsCppIdentChar(p_[1])) {
        p_ += 2;  // digit separator
      } else if (IsCppIdentChar(c) || c == '.') {
        ++p_;
      } else {
        return;
      }
    }
  }

  // A "..." or '...' literal starting at p_ (the quote). Escapes skip the next
  // character (including a spliced newline); an unescaped newline ends an
  // unterminated literal without consuming it.
  void Quoted(char quote) {
    ++p_;
    while (p_ < end_) {
      char c = *p_;
      if (c == quote) {
        ++p_;
        return;
      }
      if (c == '\\') {
        if (p_ + 1 < end_ && p_[1] == '\n') ++line_;
        if (p_ + 2 < end_ && p_[1] == '\r' && p_[2] == '\n') {
          ++line_;
          ++p_;
        }
        p_ += 2;
        continue;
      }
      if (c == '\n') return;
      ++p_;
    }
    p_ = end_;
  }

  // R"delim( ... )delim" starting with p_ at the quote. A malformed delimiter
  // (space, backslash, newline, over 16 characters) is read as a plain string.
  void RawString(const char* s) {
    const char* q = p_ + 1;
    const char* d = q;
    while (q < end_ && *q != '(' && q - d <= 16 && *q != ' ' && *q != ')' && *q != '\\' && *q != '\n' && *q != '"') ++q;
    if (q >= end_ || *q != '(') {
      Quoted('"');
      Emit(TokKind::kString, s);
      return;
    }
    std::string_view delim(d, q - d);
    const char* body = q + 1;
    const char* close = nullptr;
    for (const char* r = body; r < end_; ++r) {
      if (*r == ')' && static_cast<size_t>(end_ - r) >= delim.size() + 2 &&
          std::memcmp(r + 1, delim.data(), delim.size()) == 0 && r[1 + delim.size()] == '"') {
        close = r;
        break;
      }
    }
    const char* stop = close ? close + delim.size() + 2 : end_;
    for (const char* r = p_; r < stop; ++r)
      if (*r == '\n') ++line_;
    p_ = stop;
    Emit(TokKind::kString, s);
  }

  void Punct(const char* s) {
    auto at = [&](size_t i) -> char { return p_ + i < end_ ? p_[i] : '\0'; };
    char c = at(0);
    if (c == '<' && at(1) == '<' && at(2) == '<' && at(3) != '=') {
      p_ += 3;
      ++LaunchDepth();
      Emit(TokKind::kLaunchOpen, s);
      return;
    }
    if (c == '>') {
      bool glued = p_ > begin_ && p_[-1] == '>';
      if (at(1) == '>' && at(2) == '>' && LaunchDepth() > 0) {
        p_ += 3;
        --LaunchDepth();
        Emit(TokKind::kLaunchClose, s);
        return;
      }
      p_ += at(1) == '=' ? 2 : 1;
      Emit(TokKind::kPunct, s, glued);
      return;
    }
    static constexpr const char* kThree[] = {"<<=", "->*", "...", "<=>"};
    for (const char* op : kThree) {
      if (c == op[0] && at(1) == op[1] && at(2) == op[2]) {
        p_ += 3;
        Emit(TokKind::kPunct, s);
        return;
      }
    }
    static constexpr const char* kTwo[] = {"::", "->", "<<", "<=", "==", "!=", "&&", "||", "++", "--",
                                           "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", ".*", "##"};
    for (const char* op : kTwo) {
      if (c == op[0] && at(1) == op[1]) {
        p_ += 2;
        Emit(TokKind::kPunct, s);
        return;
      }
    }
    ++p_;
    Emit(TokKind::kPunct, s);
  }

  const char* begin_;
  const char* p_;
  const char* end_;
  LexedFile* out_;
  uint32_t line_ = 1;
  uint32_t token_line_ = 1;
  uint32_t directive_line_ = 0;
  bool line_start_ = true;
  Mode mode_ = Mode::kCode;
  int brace_balance_ = 0;
  int paren_balance_ = 0;
  int code_launch_depth_ = 0;
  int macro_launch_depth_ = 0;
  int if_tokens_ = 0;
  bool if_zero_ = false;
  std::vector<CondGroup> groups_;
};

}  // namespace

void LexCpp(std::string_view text, LexedFile* out) {
  out->tokens.clear();
  out->macro_tokens.clear();
  out->macros.clear();
  out->tokens.reserve(text.size() / 6 + 16);
  Lexer(text, out).Run();
}

}  // namespace optrace
