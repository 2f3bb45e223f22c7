// Python guard conditions by indentation: if/elif/else chains, early
// returns in the same suite (a raise guards nothing), multi-line headers;
// and real lines of the 2.6.0 functional.py and windows.py, checked with sed.
// A file split once (PyFileLines) reads as its text does, line for line.
#include "py/py_guards.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "testing/test_util.h"

namespace optrace {
namespace {

std::vector<std::string> Read(std::string_view text, int line) {
  std::vector<std::string> out;
  for (const auto& c : PyLineConditions(text, line)) out.push_back((c.negated ? "not " : "") + c.text + "/" + c.kind);
  return out;
}

using V = std::vector<std::string>;

TEST(PyOptionalStep, ALoneIfThatFallsThroughIsOptional) {
  const char* text =
      "def f(x, hx=None):\n"              // 1
      "    if x.dim() == 2:\n"            // 2
      "        x = x.unsqueeze(1)\n"      // 3
      "        # the batch dim\n"         // 4
      "    if hx is None:\n"              // 5
      "        hx = zeros(x)\n"           // 6
      "    else:\n"                       // 7
      "        hx = hx.clone()\n"         // 8
      "    if x.dim() == 3:\n"            // 9
      "        return a(x)\n"             // 10
      "    if x.dim() == 4:\n"            // 11
      "        if x.is_cuda:\n"           // 12
      "            x = x.contiguous()\n"  // 13
      "        raise ValueError(x)\n"     // 14
      "    elif x.dim() == 5:\n"          // 15
      "        x = b(x)\n"                // 16
      "    return x\n";                   // 17
  EXPECT_TRUE(PyOptionalStep(text, 2));
  EXPECT_FALSE(PyOptionalStep(text, 5)) << "an if with an else picks a form";
  EXPECT_FALSE(PyOptionalStep(text, 9)) << "a suite that returns";
  EXPECT_FALSE(PyOptionalStep(text, 11)) << "a suite that raises, and an elif follows";
  EXPECT_TRUE(PyOptionalStep(text, 12)) << "nested, falling through to the raise";
  EXPECT_FALSE(PyOptionalStep(text, 15)) << "an elif is a branch of a chain";
  EXPECT_FALSE(PyOptionalStep(text, 3)) << "no if header";
}

TEST(PyLineConditions, ChainsEarlyReturnsAndContinuedHeaders) {
  const char* text =
      "def f(x, mode='a', inplace=False):\n"  // 1
      "    if has_torch_function(x):\n"       // 2
      "        return handle(x)\n"            // 3
      "    if mode == 'a':\n"                 // 4
      "        y = a(x)\n"                    // 5
      "    elif (mode == 'b' and\n"           // 6
      "          x.dim() == 4):\n"            // 7
      "        y = b(x)\n"                    // 8
      "    else:\n"                           // 9
      "        y = c(x)\n"                    // 10
      "    return y\n";                       // 11
  EXPECT_EQ(Read(text, 5), (V{"not has_torch_function(x)/return", "mode == 'a'/if"}));
  EXPECT_EQ(Read(text, 8),
            (V{"not has_torch_function(x)/return", "not mode == 'a'/else", "(mode == 'b' and x.dim() == 4)/if"}));
  EXPECT_EQ(Read(text, 10),
            (V{"not has_torch_function(x)/return", "not mode == 'a'/else", "not (mode == 'b' and x.dim() == 4)/else"}));
  EXPECT_EQ(Read(text, 11), V{"not has_torch_function(x)/return"});
  EXPECT_TRUE(Read(text, 1).empty());
}

TEST(PyLineConditions, ACallInAnElifTestRunsWhenTheTestsAboveFailed) {
  const char* text =
      "def f(x, mask=None):\n"               // 1
      "    if self.training:\n"              // 2
      "        why = 'training'\n"           // 3
      "    elif mask is None:\n"             // 4
      "        why = 'no mask'\n"            // 5
      "    elif not aligned(\n"              // 6
      "            x, mask.logical_not()\n"  // 7
      "    ):\n"                             // 8
      "        why = 'not aligned'\n";       // 9
  EXPECT_EQ(Read(text, 7), (V{"not self.training/else", "not mask is None/else"}));
  EXPECT_EQ(Read(text, 4), V{"not self.training/else"});
  EXPECT_TRUE(Read(text, 2).empty());
}

TEST(PyLineConditions, AModulesTypeCheckingSuiteConditionsNothing) {
  const char* text =
      "if TYPE_CHECKING:\n"      // 1
      "    _reduce = reduce\n"   // 2
      "def f(x):\n"              // 3
      "    if TYPE_CHECKING:\n"  // 4
      "        g(x)\n"           // 5
      "if USE_FAST:\n"           // 6
      "    _fast = fast\n";      // 7
  EXPECT_EQ(Read(text, 2), V{});
  EXPECT_EQ(Read(text, 5), V{"TYPE_CHECKING/if"});  // inside a function: a branch like any other
  EXPECT_EQ(Read(text, 7), V{"USE_FAST/if"});
}

TEST(PyLineConditions, AHeadersCommentIsNoPartOfItsCondition) {
  // rnn.py:1156 `if not is_batched:  # type: ignore[possibly-undefined]`;
  // a '#' inside a string stays.
  const char* text =
      "def f(x, is_batched, s):\n"                           // 1
      "    if not is_batched:  # type: ignore[undefined]\n"  // 2
      "        x = x.squeeze(1)  # type: ignore\n"           // 3
      "    if s == '#':  # a hash\n"                         // 4
      "        return g(x)\n"                                // 5
      "    return x\n";                                      // 6
  EXPECT_EQ(Read(text, 3), V{"not is_batched/if"});
  EXPECT_EQ(Read(text, 5), V{"s == '#'/if"});
}

TEST(PyLineConditions, ARaisingGuardConditionsNothingAfterIt) {
  // A call that returns never entered `if not a: raise`; one that returns
  // early did not take the `return`.
  const char* text =
      "def f(M, a):\n"                       // 1
      "    if M == 0:\n"                     // 2
      "        return empty()\n"             // 3
      "    if not a:\n"                      // 4
      "        raise ValueError('empty')\n"  // 5
      "    return cos(a)\n";                 // 6
  EXPECT_EQ(Read(text, 6), V{"not M == 0/return"});
}

TEST(PyLineConditions, AnIfChainOfReturnsGuardsWhatFollowsByEachBranch) {
  // What follows `if A: return  elif B: return` runs unless A and unless B;
  // a branch that falls through ends what the chain tells; a line inside a
  // later branch takes the chain's conditions from its header only.
  const char* text =
      "def f(x, reduction='mean'):\n"         // 1
      "    if reduction == 'none':\n"         // 2
      "        return x\n"                    // 3
      "    elif reduction == 'sum':\n"        // 4
      "        return x.sum()\n"              // 5
      "    elif x.is_nested:\n"               // 6
      "        raise ValueError('nested')\n"  // 7
      "    y = x.mean()\n"                    // 8
      "    if a:\n"                           // 9
      "        return y\n"                    // 10
      "    elif b:\n"                         // 11
      "        y = y + 1\n"                   // 12
      "    elif c:\n"                         // 13
      "        return y\n"                    // 14
      "    return g(y)\n";                    // 15
  EXPECT_EQ(Read(text, 8), (V{"not reduction == 'none'/return", "not reduction == 'sum'/return"}));
  EXPECT_EQ(Read(text, 15), (V{"not reduction == 'none'/return", "not reduction == 'sum'/return", "not a/return"}));
  EXPECT_EQ(Read(text, 5), (V{"not reduction == 'none'/else", "reduction == 'sum'/if"}));
}

TEST(PyLineConditions, ASuiteEndingInAnIfElseThatLeavesOnEveryBranchLeaves) {
  // functional.py's norm: `if input.layout == torch.strided and ...:` ends
  // in an if/else returning on both sides; what follows runs only otherwise.
  const char* text =
      "def f(x, p='fro'):\n"              // 1
      "    if x.is_cuda:\n"               // 2
      "        if isinstance(p, str):\n"  // 3
      "            return a(x)\n"         // 4
      "        elif p is None:\n"         // 5
      "            raise ValueError()\n"  // 6
      "        else:\n"                   // 7
      "            return b(x)\n"         // 8
      "    if x.is_cpu:\n"                // 9
      "        if p:\n"                   // 10
      "            y = a(x)\n"            // 11
      "        else:\n"                   // 12
      "            return b(x)\n"         // 13
      "    return c(x)\n";                // 14
  EXPECT_EQ(Read(text, 14), V{"not x.is_cuda/return"}) << "x.is_cpu's if/else falls through on one side";
}

TEST(PyLineConditions, AHeadersContinuationLinesAreNoStatements) {
  // functional.py:1801-1803's `if p == "fro" and (\n dim is None ...\n ):`
  // encloses what follows; its `):` line is no header of its own.
  const char* text =
      "def f(x, p='fro', dim=None):\n"          // 1
      "    if p == 'fro' and (\n"               // 2
      "        dim is None or len(dim) <= 2\n"  // 3
      "    ):\n"                                // 4
      "        return a(x,\n"                   // 5
      "                 b(x))\n"                // 6
      "    s = '''(\n"                          // 7
      "    if q:'''\n"                          // 8
      "    return c(x)\n";                      // 9
  EXPECT_EQ(Read(text, 5), V{"p == 'fro' and ( dim is None or len(dim) <= 2 )/if"});
  EXPECT_EQ(Read(text, 6), Read(text, 5)) << "a call on a continuation line is in its statement";
  EXPECT_EQ(Read(text, 9), V{"not p == 'fro' and ( dim is None or len(dim) <= 2 )/return"});
}

TEST(PyLineConditions, RealGeneralCosineRunsPastItsChecks) {
  REQUIRE_CORPUS("2.6.0");
  std::string text = ReadText(CorpusTree("2.6.0") + "/torch/signal/windows/windows.py");
  // sed -n 665,689p: early returns for M == 0 and M == 1, `raise` for a
  // non-iterable or empty `a`, then the cosine sum at 689.
  EXPECT_EQ(Read(text, 689), (V{"not M == 0/return", "not M == 1/return"}));
}

TEST(PyLineConditions, RealReluChoosesByInplace) {
  REQUIRE_CORPUS("2.6.0");
  std::string text = ReadText(CorpusTree("2.6.0") + "/torch/nn/functional.py");
  // sed -n 1699,1704p torch/nn/functional.py: relu's early return for
  // __torch_function__, then `if inplace: relu_ else: relu`.
  EXPECT_EQ(Read(text, 1702), (V{"not has_torch_function_unary(input)/return", "inplace/if"}));
  EXPECT_EQ(Read(text, 1704), (V{"not has_torch_function_unary(input)/return", "not inplace/else"}));
}

TEST(PyLineConditions, RealLstmSqueezesUnlessBatched) {
  REQUIRE_CORPUS("2.6.0");
  std::string text = ReadText(CorpusTree("2.6.0") + "/torch/nn/modules/rnn.py");
  // sed -n 1150,1157p torch/nn/modules/rnn.py: `if not is_batched:  # type: ignore[...]`
  // in the else of `if isinstance(orig_input, PackedSequence):`.
  std::vector<std::string> got = Read(text, 1157);
  ASSERT_FALSE(got.empty());
  EXPECT_EQ(got.back(), "not is_batched/if");
}

TEST(PyExpressionConditions, ConditionalExpressionPicksEachSide) {
  std::string_view text =
      "def dropout(input, p=0.5, training=True, inplace=False):\n"
      "    return (\n"
      "        _VF.dropout_(input, p, training) if inplace else _VF.dropout(input, p, training)\n"
      "    )\n"
      "def f(x, a=None):\n"
      "    y = g(x, h(x) if a is None else k(x), m(x))\n";
  auto only = PyExpressionConditions(text, 3, "_VF.dropout_");
  ASSERT_EQ(only.size(), 1u);
  EXPECT_EQ(only[0].text, "inplace");
  EXPECT_FALSE(only[0].negated);
  auto other = PyExpressionConditions(text, 3, "_VF.dropout");
  ASSERT_EQ(other.size(), 1u);
  EXPECT_TRUE(other[0].negated);
  // Inside call arguments: the commas bound the expression.
  auto h = PyExpressionConditions(text, 6, "h");
  ASSERT_EQ(h.size(), 1u);
  EXPECT_EQ(h[0].text, "a is None");
  EXPECT_TRUE(PyExpressionConditions(text, 6, "m").empty());
  EXPECT_TRUE(PyExpressionConditions(text, 6, "g").empty());
}

TEST(PyExpressionConditions, RealDropoutChoosesByInplace) {
  REQUIRE_CORPUS("2.6.0");
  std::string text = ReadText(CorpusTree("2.6.0") + "/torch/nn/functional.py");
  // torch/nn/functional.py:1425: `_VF.dropout_(input, p, training) if inplace else _VF.dropout(...)`.
  auto c = PyExpressionConditions(text, 1425, "_VF.dropout_");
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0].text, "inplace");
  EXPECT_FALSE(c[0].negated);
}

TEST(PyFunctionReturns, ReturnsOfTheFunctionAloneAndWhetherTheyAreAll) {
  const std::string text =
      "def f(x, mode):\n"                         // 1
      "    def inner():\n"                        // 2
      "        return 0\n"                        // 3
      "    if mode == 'a':\n"                     // 4
      "        return g(\n"                       // 5
      "            x)\n"                          // 6
      "    return h(x)\n"                         // 7
      "\n"                                        // 8
      "def k(x):\n"                               // 9
      "    if x:\n"                               // 10
      "        return g(x)\n"                     // 11
      "    raise ValueError('no return here')\n"  // 12
      "\n"                                        // 13
      "def m(x):\n"                               // 14
      "    if x:\n"                               // 15
      "        return g(x)\n"                     // 16
      "\n"                                        // 17
      "def n(x):\n"                               // 18
      "    if x: return x\n"                      // 19
      "    return g(x)\n"                         // 20
      "\n"                                        // 21
      "def p(x):\n"                               // 22
      "    yield g(x)\n"                          // 23
      "    return\n";                             // 24
  PyReturns f = PyFunctionReturns(text, 1);
  EXPECT_TRUE(f.complete);
  EXPECT_EQ(f.statements, (std::vector<std::pair<int, int>>{{5, 6}, {7, 7}})) << "the nested def's return is its own";
  PyReturns k = PyFunctionReturns(text, 9);
  EXPECT_TRUE(k.complete) << "the last statement raises";
  EXPECT_EQ(k.statements, (std::vector<std::pair<int, int>>{{11, 11}}));
  EXPECT_FALSE(PyFunctionReturns(text, 14).complete) << "falls off its end: returns None";
  EXPECT_FALSE(PyFunctionReturns(text, 18).complete) << "a return inside a one-line if";
  EXPECT_FALSE(PyFunctionReturns(text, 22).complete) << "a generator";
  EXPECT_FALSE(PyFunctionReturns(text, 2 + 1).complete) << "no def on that line";
}

std::vector<std::string> Read(const PyFileLines& lines, int line) {
  std::vector<std::string> out;
  for (const auto& c : PyLineConditions(lines, line)) out.push_back((c.negated ? "not " : "") + c.text + "/" + c.kind);
  return out;
}

TEST(PyFileLines, ASplitFileReadsAsItsTextLineForLine) {
  const std::string text =
      "def f(x, mode='a'):\n"        // 1
      "    \"\"\"Docs.\n"            // 2
      "    if this is prose:\n"      // 3 (inside the docstring)
      "    \"\"\"\n"                 // 4
      "    if (mode == 'a' or\n"     // 5
      "            mode == 'b'):\n"  // 6
      "        return g(x,\n"        // 7
      "                 mode)\n"     // 8
      "    if x is None:\n"          // 9
      "        x = h(x)\n"           // 10
      "    return k(x)\n";           // 11
  const PyFileLines lines(std::make_shared<const std::string>(text));
  for (int line = 0; line <= 13; ++line) {
    EXPECT_EQ(Read(lines, line), Read(text, line)) << "line " << line;
    EXPECT_EQ(PyOptionalStep(lines, line), PyOptionalStep(text, line)) << "line " << line;
    EXPECT_EQ(PyFunctionReturns(lines, line).statements, PyFunctionReturns(text, line).statements) << "line " << line;
  }
  EXPECT_EQ(Read(lines, 11), (V{"not (mode == 'a' or mode == 'b')/return"}));
  EXPECT_EQ(Read(lines, 8), Read(lines, 7)) << "a continued line is its statement's";
  EXPECT_TRUE(PyOptionalStep(lines, 9));
}

TEST(PyFileLines, ReadsNoFurtherThanTheTextsOwnSplit) {
  // An `if` whose suite runs past the 4000 lines a suite may span reads as
  // cut short from the text; the whole file's lines must not see its else.
  std::string text = "def f(x):\n    if x:\n";
  for (int i = 0; i < 4100; ++i) text += "        x = x + 1\n";
  text += "    else:\n        x = 0\n    return x\n";
  const PyFileLines lines(std::make_shared<const std::string>(text));
  EXPECT_TRUE(PyOptionalStep(text, 2));
  EXPECT_TRUE(PyOptionalStep(lines, 2));
}

TEST(PyFileLines, NoTextIsOneEmptyLine) {
  const PyFileLines lines(nullptr);
  EXPECT_TRUE(Read(lines, 1).empty());
  EXPECT_FALSE(PyOptionalStep(lines, 1));
}

}  // namespace
}  // namespace optrace
