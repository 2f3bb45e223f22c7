// A hand-written Python tokenizer, enough for optrace's structural pass: it
// produces NAME / NUMBER / STRING / OP tokens plus the NEWLINE, INDENT and
// DEDENT tokens that give Python its block structure. Tokens are views into
// the source (offset + size), so tokenizing allocates nothing per token.
//
// Why hand-written: we only need the token stream, never an AST, and must
// keep going on code CPython would reject (truncated files, Python 2 leftovers,
// newer syntax than the scanner knows). Every problem is recorded as the first
// error (with its line) and the tokenizer recovers and continues to the end.
//
// Rules followed (CPython's tokenizer semantics):
//   - Inside (), [] and {} newlines are insignificant: no NEWLINE/INDENT/DEDENT.
//   - A backslash before a newline joins the two physical lines.
//   - Blank and comment-only lines produce nothing.
//   - Indentation: tabs advance to the next multiple of 8; a line whose
//     indentation compares differently when tabs count as 1 column is a
//     TabError (recorded, the 8-column reading is kept).
//   - Strings: any prefix of r/b/u/f in either case (rb, Rb, BR, f, rf...),
//     single/double, triple-quoted; a backslash always protects the next
//     character (also in raw strings, where it stays in the value). f-strings
//     are scanned through their replacement fields so nested braces, format
//     specs and nested strings (including the same quote, as Python 3.12
//     allows) do not end the literal early. An f-string is one STRING token.
//   - Identifiers: ASCII letters, digits, '_' and every byte >= 0x80 (UTF-8
//     sequences of unicode identifiers).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace optrace {

enum class PyTok : uint8_t {
  kName,
  kNumber,
  kString,
  kOp,
  kNewline,  // end of a logical line
  kIndent,
  kDedent,
  kEnd,
};

struct PyToken {
  uint32_t begin = 0;  // byte offset into the source
  uint32_t size = 0;   // 0 for NEWLINE/INDENT/DEDENT/END
  uint32_t line = 0;   // 1-based line where the token starts
  PyTok kind = PyTok::kEnd;

  std::string_view text(std::string_view source) const { return source.substr(begin, size); }
};

class PyTokenizer {
 public:
  explicit PyTokenizer(std::string_view source);

  // The next token; after kEnd keeps returning kEnd.
  PyToken Next();

  // The first problem met ("" when none) and its line.
  const std::string& error() const { return error_; }
  uint32_t error_line() const { return error_line_; }

 private:
  // Handles the start of a logical line: measures indentation and queues
  // INDENT/DEDENT; blank and comment-only lines leave the levels alone.
  void StartLine();
  // Scans a string body whose opening quote is at pos_; leaves pos_ after the
  // closing quote. `fstring` scans replacement fields.
  void ScanStringBody(bool fstring, bool raw);
  // Scans an f-string replacement field starting after '{'; returns at the
  // position after its closing '}' (or at the string end on error).
  void ScanReplacementField(char quote, bool triple, bool raw);
  void ScanNumber();
  void Fail(const char* message, uint32_t line);
  void NewlineAt(size_t pos);  // counts a newline at pos (\n, \r\n or \r)

  std::string_view src_;
  size_t pos_ = 0;
  uint32_t line_ = 1;
  int depth_ = 0;                         // bracket depth
  bool at_line_start_ = true;             // next token begins a physical/logical line
  bool line_has_tokens_ = false;          // a logical line is open (NEWLINE owed)
  std::vector<uint32_t> indents_{0};      // tab-8 columns
  std::vector<uint32_t> alt_indents_{0};  // tab-1 columns (TabError check)
  int fstring_nesting_ = 0;               // bounds recursion on hostile input
  int pending_dedents_ = 0;
  bool pending_indent_ = false;
  bool done_ = false;
  std::string error_;
  uint32_t error_line_ = 0;
};

// Tokenizes all of `source` into `tokens` (cleared first; ends with kEnd).
// Returns the first error ("" when none) and sets *error_line.
std::string TokenizePy(std::string_view source, std::vector<PyToken>* tokens, uint32_t* error_line = nullptr);

// True for Python's hard keywords (not soft ones like match/case/type).
bool IsPyKeyword(std::string_view name);

}  // namespace optrace
