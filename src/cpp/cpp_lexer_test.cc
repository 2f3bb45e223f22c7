// Unit tests for the C++ lexer: the traps that would desynchronise brace
// matching or line numbers if the lexer were sloppy.
#include "cpp/cpp_lexer.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace optrace {
namespace {

std::vector<std::string> Texts(const std::vector<Token>& tokens) {
  std::vector<std::string> out;
  for (const Token& t : tokens) out.emplace_back(t.text);
  return out;
}

LexedFile Lex(std::string_view text) {
  LexedFile f;
  LexCpp(text, &f);
  return f;
}

int Count(const LexedFile& f, std::string_view text) {
  int n = 0;
  for (const Token& t : f.tokens) n += t.text == text;
  return n;
}

TEST(CppLexer, CommentsAndStringsHideBraces) {
  LexedFile f = Lex("void f() { // }\n  /* } { */ const char* s = \"}\\\"{\"; char c = '}'; }\n");
  EXPECT_EQ(Count(f, "{"), 1);
  EXPECT_EQ(Count(f, "}"), 1);
  EXPECT_EQ(f.tokens.back().line, 2u);
}

TEST(CppLexer, CharLiteralQuoteAndEscapedQuote) {
  LexedFile f = Lex("a = '\"'; b = '\\''; c = \"x\"; {");
  std::vector<std::string> want = {"a", "=", "'\"'", ";", "b", "=", "'\\''", ";", "c", "=", "\"x\"", ";", "{"};
  EXPECT_EQ(Texts(f.tokens), want);
  EXPECT_EQ(f.tokens[2].kind, TokKind::kChar);
}

TEST(CppLexer, DigitSeparatorsAreNotCharLiterals) {
  LexedFile f = Lex("int x = 1'000'000; int y = 0x1p-3; char c = '{';\n}");
  std::vector<std::string> want = {"int",    "x", "=",    "1'000'000", ";", "int", "y", "=",
                                   "0x1p-3", ";", "char", "c",         "=", "'{'", ";", "}"};
  EXPECT_EQ(Texts(f.tokens), want);
  EXPECT_EQ(f.tokens[3].kind, TokKind::kNumber);
  EXPECT_EQ(f.tokens.back().line, 2u);
}

TEST(CppLexer, RawStringsWithDelimiters) {
  LexedFile f = Lex("auto s = R\"xy(a )\" } { \n )xy\"; auto t = u8R\"(})\"; auto u = LR\"--(\")--\";\nint z;");
  ASSERT_GE(f.tokens.size(), 4u);
  EXPECT_EQ(f.tokens[3].text, "R\"xy(a )\" } { \n )xy\"");
  EXPECT_EQ(f.tokens[3].kind, TokKind::kString);
  EXPECT_EQ(Count(f, "{"), 0);
  EXPECT_EQ(Count(f, "}"), 0);
  EXPECT_EQ(Count(f, "u8R\"(})\""), 1);
  EXPECT_EQ(Count(f, "LR\"--(\")--\""), 1);
  EXPECT_EQ(f.tokens.back().line, 3u);  // the newline inside the raw string counts
}

TEST(CppLexer, LineContinuationInDefine) {
  LexedFile f = Lex("#define LAUNCH(x) \\\n  kernel<<<1, 2>>>(x); \\\n  check()\nint after;\n");
  ASSERT_EQ(f.macros.size(), 1u);
  const MacroDef& m = f.macros[0];
  EXPECT_EQ(m.name, "LAUNCH");
  EXPECT_TRUE(m.function_like);
  EXPECT_EQ(m.line, 1u);
  EXPECT_EQ(m.end_line, 3u);
  std::vector<Token> body(f.macro_tokens.begin() + m.body_begin, f.macro_tokens.begin() + m.body_end);
  std::vector<std::string> want = {"kernel", "<<<", "1", ",", "2", ">>>", "(", "x", ")", ";", "check", "(", ")"};
  EXPECT_EQ(Texts(body), want);
  EXPECT_EQ(body[0].line, 2u);
  EXPECT_EQ(body[0].macro, 1u);
  EXPECT_EQ(body[10].line, 3u);
  // Only `int after;` is code outside the directive.
  EXPECT_EQ(Texts(f.tokens), (std::vector<std::string>{"int", "after", ";"}));
  EXPECT_EQ(f.tokens[0].line, 4u);
}

TEST(CppLexer, LineCommentEndingInBackslashContinues) {
  LexedFile f = Lex("// note \\\n { still comment\nint x;");
  EXPECT_EQ(Texts(f.tokens), (std::vector<std::string>{"int", "x", ";"}));
  EXPECT_EQ(f.tokens[0].line, 3u);
}

TEST(CppLexer, LaunchBracketsVersusShifts) {
  LexedFile f = Lex("k<T, 4><<<g, b, 0, s>>>(x); y = a << 2; z = a >> 3; v<v<v<int>>> w;");
  int opens = 0, closes = 0, shifts_left = 0;
  for (const Token& t : f.tokens) {
    opens += t.kind == TokKind::kLaunchOpen;
    closes += t.kind == TokKind::kLaunchClose;
    shifts_left += t.text == "<<";
  }
  EXPECT_EQ(opens, 1);
  EXPECT_EQ(closes, 1);
  EXPECT_EQ(shifts_left, 1);
  // `a >> 3` and `int>>>` are single '>' tokens; the second of a pair is glued.
  int gt = 0, glued = 0;
  for (const Token& t : f.tokens) {
    gt += t.text == ">";
    glued += t.text == ">" && t.glued;
  }
  EXPECT_EQ(gt, 1 + 2 + 3);  // k<T, 4>, a >> 3, v<v<v<int>>>
  EXPECT_EQ(glued, 1 + 2);
}

TEST(CppLexer, ConditionalArmsThatWouldOpenTwice) {
  // Both arms open the same function; the second (unbalanced) arm is dropped.
  LexedFile f = Lex("#if A\nvoid f(int a) {\n#else\nvoid f(long a) {\n#endif\n  g();\n}\n");
  EXPECT_EQ(Count(f, "{"), 1);
  EXPECT_EQ(Count(f, "int"), 1);
  EXPECT_EQ(Count(f, "long"), 0);
  // Balanced arms are both kept; #if 0 is dead code.
  LexedFile g = Lex("#ifdef X\nint a;\n#else\nint b;\n#endif\n#if 0\nint c;\n#endif\n");
  EXPECT_EQ(Texts(g.tokens), (std::vector<std::string>{"int", "a", ";", "int", "b", ";"}));
}

TEST(CppLexer, UnterminatedInputsDoNotFail) {
  for (std::string_view text :
       {std::string_view("\"abc"), std::string_view("/* never closed"), std::string_view("R\"x(abc"),
        std::string_view("'"), std::string_view("#define"), std::string_view("#if\n#else\n#else\n#endif\n#endif"),
        std::string_view("\\"), std::string_view("a >>> b <<< c")}) {
    LexedFile f = Lex(text);
    for (const Token& t : f.tokens) {
      EXPECT_GE(t.text.data(), text.data());
      EXPECT_LE(t.text.data() + t.text.size(), text.data() + text.size());
    }
  }
}

TEST(CppLexer, DirectivesAreNotCode) {
  LexedFile f = Lex("#include <vector>\n  #  pragma once\n#error don't\nint x;\n# define EMPTY\n");
  EXPECT_EQ(Texts(f.tokens), (std::vector<std::string>{"int", "x", ";"}));
  ASSERT_EQ(f.macros.size(), 1u);
  EXPECT_EQ(f.macros[0].name, "EMPTY");
  EXPECT_FALSE(f.macros[0].function_like);
  EXPECT_EQ(f.macros[0].line, 5u);
}

}  // namespace
}  // namespace optrace
