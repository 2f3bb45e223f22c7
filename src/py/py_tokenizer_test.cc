// Unit tests for the Python tokenizer on in-memory sources: one test per trap
// (f-strings, string prefixes, indentation with tabs, continuations, unicode
// names, numbers) plus error recovery.
#include "py/py_tokenizer.h"

#include <gtest/gtest.h>

namespace optrace {
namespace {

// Tokens as "KIND:text" separated by spaces; NEWLINE/INDENT/DEDENT/END bare.
std::string Render(std::string_view src, std::string* error = nullptr, uint32_t* error_line = nullptr) {
  std::vector<PyToken> toks;
  std::string err = TokenizePy(src, &toks, error_line);
  if (error) *error = err;
  std::string out;
  for (const PyToken& t : toks) {
    if (!out.empty()) out += ' ';
    switch (t.kind) {
      case PyTok::kName:
        out += "N:";
        break;
      case PyTok::kNumber:
        out += "#:";
        break;
      case PyTok::kString:
        out += "S:";
        break;
      case PyTok::kOp:
        out += "O:";
        break;
      case PyTok::kNewline:
        out += "NL";
        continue;
      case PyTok::kIndent:
        out += "IN";
        continue;
      case PyTok::kDedent:
        out += "DE";
        continue;
      case PyTok::kEnd:
        out += "END";
        continue;
    }
    out += t.text(src);
  }
  return out;
}

TEST(PyTokenizer, IndentAndDedent) {
  EXPECT_EQ(Render("def f():\n    return 1\nx = 2\n"),
            "N:def N:f O:( O:) O:: NL IN N:return #:1 NL DE N:x O:= #:2 NL END");
}

TEST(PyTokenizer, BlankAndCommentLinesDoNotIndent) {
  EXPECT_EQ(Render("if a:\n\n        # deep comment\n    b\n  # shallow\n    c\n"),
            "N:if N:a O:: NL IN N:b NL N:c NL DE END");
}

TEST(PyTokenizer, MissingFinalNewlineStillClosesBlocks) {
  EXPECT_EQ(Render("if a:\n    if b:\n        c"), "N:if N:a O:: NL IN N:if N:b O:: NL IN N:c NL DE DE END");
}

TEST(PyTokenizer, TabsCountToMultiplesOfEight) {
  std::string err;
  // Tabs alone nest fine; eight spaces then a tab reach the same column at
  // tab size 8 but not at tab size 1: CPython's TabError.
  EXPECT_EQ(Render("if a:\n\tb\n\tc\n", &err), "N:if N:a O:: NL IN N:b NL N:c NL DE END");
  EXPECT_EQ(err, "");
  uint32_t line = 0;
  Render("if a:\n        b\n\tc\n", &err, &line);
  EXPECT_EQ(err, "inconsistent use of tabs and spaces in indentation");
  EXPECT_EQ(line, 3u);
}

TEST(PyTokenizer, SpacesThenTabNestsConsistently) {
  std::string err;
  EXPECT_EQ(Render("if a:\n    if b:\n    \tc\n", &err), "N:if N:a O:: NL IN N:if N:b O:: NL IN N:c NL DE DE END");
  EXPECT_EQ(err, "");
}

TEST(PyTokenizer, BackslashContinuationJoinsLines) {
  EXPECT_EQ(Render("x = 1 + \\\n        2\ny = 3\n"), "N:x O:= #:1 O:+ #:2 NL N:y O:= #:3 NL END");
}

TEST(PyTokenizer, NoNewlineInsideBrackets) {
  EXPECT_EQ(Render("f(a,\n  b,\n\n# c\n)\ng\n"), "N:f O:( N:a O:, N:b O:, O:) NL N:g NL END");
}

TEST(PyTokenizer, UnindentMismatchIsReported) {
  std::string err;
  Render("if a:\n    b\n  c\n", &err);
  EXPECT_EQ(err, "unindent does not match any outer indentation level");
}

TEST(PyTokenizer, FStringWithNestedSameQuotes) {
  // Python 3.12 (PEP 701) allows the enclosing quote inside a field.
  EXPECT_EQ(Render("x = f\"{a[\"k\"]}\" + y\n"), "N:x O:= S:f\"{a[\"k\"]}\" O:+ N:y NL END");
  EXPECT_EQ(Render("x = f'{a[\"k\"]!r}' + y\n"), "N:x O:= S:f'{a[\"k\"]!r}' O:+ N:y NL END");
}

TEST(PyTokenizer, FStringWithNestedBracesAndSpecs) {
  EXPECT_EQ(Render("f'{x:{width}.{prec}}' z\n"), "S:f'{x:{width}.{prec}}' N:z NL END");
  EXPECT_EQ(Render("f\"{ {'a': 1}['a'] }\" z\n"), "S:f\"{ {'a': 1}['a'] }\" N:z NL END");
  EXPECT_EQ(Render("f\"{{literal}} }}\" z\n"), "S:f\"{{literal}} }}\" N:z NL END");
  EXPECT_EQ(Render("F'{x!r:>10}' z\n"), "S:F'{x!r:>10}' N:z NL END");
  // A string inside a field holding the other quote and a brace.
  EXPECT_EQ(Render("f\"{'}'}\" z\n"), "S:f\"{'}'}\" N:z NL END");
  // Nested f-string.
  EXPECT_EQ(Render("f\"a{f'{b}'}c\" z\n"), "S:f\"a{f'{b}'}c\" N:z NL END");
}

TEST(PyTokenizer, TripleQuotedFStringSpansLines) {
  EXPECT_EQ(Render("s = f\"\"\"\n{x}\n\"\"\"\ny\n"), "N:s O:= S:f\"\"\"\n{x}\n\"\"\" NL N:y NL END");
}

TEST(PyTokenizer, StringPrefixes) {
  EXPECT_EQ(Render("rb'\\d' BR\"x\" Rb'''a''' u'x' b'\\x00' Fr'{a}'\n"),
            "S:rb'\\d' S:BR\"x\" S:Rb'''a''' S:u'x' S:b'\\x00' S:Fr'{a}' NL END");
  // Not prefixes: the name stays a name.
  EXPECT_EQ(Render("ub'x'\n"), "N:ub S:'x' NL END");
}

TEST(PyTokenizer, RawStringBackslashProtectsQuote) { EXPECT_EQ(Render("r\"\\\"\" x\n"), "S:r\"\\\"\" N:x NL END"); }

TEST(PyTokenizer, TripleQuotedStringHidesCode) {
  EXPECT_EQ(Render("s = '''\ndef fake():\n    pass\n'''\nz\n"),
            "N:s O:= S:'''\ndef fake():\n    pass\n''' NL N:z NL END");
}

TEST(PyTokenizer, LineNumbersAfterMultilineStrings) {
  std::vector<PyToken> toks;
  TokenizePy("a = '''\n\n'''\nb\n", &toks);
  ASSERT_GE(toks.size(), 5u);
  EXPECT_EQ(toks[4].line, 4u);  // b
}

TEST(PyTokenizer, UnicodeIdentifiers) {
  EXPECT_EQ(Render("π = 3\ndef größe(ä): return ä\n"),
            "N:π O:= #:3 NL N:def N:größe O:( N:ä O:) O:: N:return N:ä NL END");
}

TEST(PyTokenizer, Numbers) {
  EXPECT_EQ(Render("1_000 0x_FF 1e-5 3.14j .5 1. 0b1010 1E+3J 0o17\n"),
            "#:1_000 #:0x_FF #:1e-5 #:3.14j #:.5 #:1. #:0b1010 #:1E+3J #:0o17 NL END");
  EXPECT_EQ(Render("x.real 1 .real\n"), "N:x O:. N:real #:1 O:. N:real NL END");
}

TEST(PyTokenizer, OperatorsLongestMatch) {
  EXPECT_EQ(Render("a **= b // c @ d -> e := f ... != <<= ~g\n"),
            "N:a O:**= N:b O:// N:c O:@ N:d O:-> N:e O::= N:f O:... O:!= O:<<= O:~ N:g NL END");
}

TEST(PyTokenizer, WalrusInCondition) {
  EXPECT_EQ(Render("if (n := len(a)) > 10:\n    pass\n"),
            "N:if O:( N:n O::= N:len O:( N:a O:) O:) O:> #:10 O:: NL IN N:pass NL DE END");
}

TEST(PyTokenizer, CrlfAndBom) {
  EXPECT_EQ(Render("\xEF\xBB\xBFif a:\r\n    b\r\nc\r\n"), "N:if N:a O:: NL IN N:b NL DE N:c NL END");
}

TEST(PyTokenizer, UnterminatedStringRecoversAtEndOfLine) {
  std::string err;
  uint32_t line = 0;
  EXPECT_EQ(Render("a = 'oops\nb = 1\n", &err, &line), "N:a O:= S:'oops NL N:b O:= #:1 NL END");
  EXPECT_EQ(err, "unterminated string literal");
  EXPECT_EQ(line, 1u);
}

TEST(PyTokenizer, UnterminatedTripleStringRunsToEnd) {
  std::string err;
  Render("def f():\n    '''doc\n", &err);
  EXPECT_EQ(err, "unterminated triple-quoted string literal");
}

TEST(PyTokenizer, UnmatchedBracketsAreReportedNotFatal) {
  std::string err;
  EXPECT_EQ(Render("a)\nb\n", &err), "N:a O:) NL N:b NL END");
  EXPECT_EQ(err, "unmatched closing bracket");
  Render("f(a,\n", &err);
  EXPECT_EQ(err, "unexpected end of input inside brackets");
}

TEST(PyTokenizer, HostileNestingIsBounded) {
  std::string deep = "f'";
  for (int i = 0; i < 100000; ++i) deep += "{x:";  // each format spec opens another field
  deep += "'\n";
  std::string err;
  Render(deep, &err);
  EXPECT_FALSE(err.empty());
}

TEST(PyTokenizer, Keywords) {
  EXPECT_TRUE(IsPyKeyword("lambda"));
  EXPECT_TRUE(IsPyKeyword("None"));
  EXPECT_TRUE(IsPyKeyword("nonlocal"));
  EXPECT_FALSE(IsPyKeyword("match"));  // soft keyword: a valid name
  EXPECT_FALSE(IsPyKeyword("print"));
  EXPECT_FALSE(IsPyKeyword("self"));
}

}  // namespace
}  // namespace optrace
