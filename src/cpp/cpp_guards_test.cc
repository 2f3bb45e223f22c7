// Guard conditions read from small C++ texts (every construct the walker
// knows) and from the real 2.6.0 RNN.cpp, whose lines were checked with sed.
#include "cpp/cpp_guards.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cpp/cpp_params.h"
#include "testing/test_util.h"

namespace optrace {
namespace {

std::vector<std::string> Described(std::string_view text, int from, int line, std::string_view callee) {
  std::vector<CodeCondition> c;
  if (!CppCallConditions(text, from, line, callee, &c)) return {"<no call>"};
  std::vector<std::string> out;
  for (const auto& x : c) out.push_back(x.Describe());
  return out;
}

using V = std::vector<std::string>;

TEST(CppCallConditions, IfElseChains) {
  const char* text =
      "Tensor f(const Tensor& x) {\n"  // 1
      "  if (x.is_cuda()) {\n"         // 2
      "    return a(x);\n"             // 3
      "  } else if (use_b(x)) {\n"     // 4
      "    return b(x);\n"             // 5
      "  } else {\n"                   // 6
      "    return c(x);\n"             // 7
      "  }\n"                          // 8
      "}\n";
  EXPECT_EQ(Described(text, 1, 3, "a"), V{"when x.is_cuda()"});
  EXPECT_EQ(Described(text, 1, 5, "b"), (V{"unless x.is_cuda()", "when use_b(x)"}));
  EXPECT_EQ(Described(text, 1, 7, "c"), (V{"unless x.is_cuda()", "unless use_b(x)"}));
  EXPECT_EQ(Described(text, 1, 0, "c"), (V{"unless x.is_cuda()", "unless use_b(x)"}));
  EXPECT_EQ(Described(text, 1, 4, "a"), V{"<no call>"});
}

// A function a macro use writes (RNN.cpp's ONE_HIDDEN_RNN(gru, ...)): its
// calls lie in the #define, under the pasted names the use gives them, with
// the conditions written there, line continuations left out; asked from the
// use's line (the function's), the walk is the use's expansion.
TEST(CppCallConditions, InTheDefineOfAMacroAUseExpands) {
  const char* text =
      "#define ONE(NAME)                        \\\n"  // 1
      "  void NAME(const Tensor& x) {           \\\n"  // 2
      "    if (acceptable(x) &&                 \\\n"  // 3
      "        x.is_cuda()) {                   \\\n"  // 4
      "      NAME##_stub(x);                    \\\n"  // 5
      "      return;                            \\\n"  // 6
      "    }                                    \\\n"  // 7
      "    fallback(x);                         \\\n"  // 8
      "  }\n"                                          // 9
      "ONE(gru)\n"                                     // 10
      "ONE(rnn_tanh)\n";                               // 11
  EXPECT_EQ(Described(text, 1, 5, "gru_stub"), V{"when acceptable(x) && x.is_cuda()"});
  EXPECT_EQ(Described(text, 1, 5, "rnn_tanh_stub"), V{"when acceptable(x) && x.is_cuda()"});
  EXPECT_EQ(Described(text, 1, 8, "fallback"), V{"unless acceptable(x) && x.is_cuda()"});
  EXPECT_EQ(Described(text, 10, 0, "gru_stub"), V{"when acceptable(x) && x.is_cuda()"});
  EXPECT_EQ(Described(text, 1, 5, "lstm_stub"), V{"<no call>"});
}

TEST(CppCallConditions, EarlyReturnBracelessSwitchTernaryAndPreprocessor) {
  const char* text =
      "#ifndef X_H\n"                                // 1
      "#define X_H\n"                                // 2
      "#if AT_CUDNN_ENABLED()\n"                     // 3
      "Tensor g(const Tensor& x, int mode) {\n"      // 4
      "  if (at::cudnn_is_acceptable(x)) {\n"        // 5
      "    return cudnn_stub(x);\n"                  // 6
      "  }\n"                                        // 7
      "  if (x.is_sparse()) return s(x);\n"          // 8
      "  switch (mode) {\n"                          // 9
      "    case 0:\n"                                // 10
      "    case 1: return m(x);\n"                   // 11
      "    default: break;\n"                        // 12
      "  }\n"                                        // 13
      "  auto y = x.dim() == 2 ? mm(x) : bmm(x);\n"  // 14
      "  return impl<Full>(y);\n"                    // 15
      "}\n"
      "#endif\n"
      "#endif\n";
  EXPECT_EQ(Described(text, 4, 6, "cudnn_stub"), (V{"#if AT_CUDNN_ENABLED()", "when at::cudnn_is_acceptable(x)"}));
  EXPECT_EQ(Described(text, 4, 8, "s"),
            (V{"#if AT_CUDNN_ENABLED()", "unless at::cudnn_is_acceptable(x)", "when x.is_sparse()"}));
  EXPECT_EQ(Described(text, 4, 11, "m"), (V{"#if AT_CUDNN_ENABLED()", "unless at::cudnn_is_acceptable(x)",
                                            "unless x.is_sparse()", "when mode == 0 || mode == 1"}));
  EXPECT_EQ(Described(text, 4, 14, "mm"), (V{"#if AT_CUDNN_ENABLED()", "unless at::cudnn_is_acceptable(x)",
                                             "unless x.is_sparse()", "when x.dim() == 2"}));
  EXPECT_EQ(Described(text, 4, 14, "bmm"), (V{"#if AT_CUDNN_ENABLED()", "unless at::cudnn_is_acceptable(x)",
                                              "unless x.is_sparse()", "unless x.dim() == 2"}));
  EXPECT_EQ(Described(text, 4, 15, "impl"),
            (V{"#if AT_CUDNN_ENABLED()", "unless at::cudnn_is_acceptable(x)", "unless x.is_sparse()"}));
}

// `if MACRO (cond)` (c10's branch hints): the condition is kept as written,
// with its polarity through `else if` and `else` (BatchLinearAlgebra.cpp's
// `} else if C10_UNLIKELY (A_is_neg) {` in 2.6.0).
TEST(CppCallConditions, AMacroBetweenIfAndItsParenthesisIsPartOfTheCondition) {
  const char* text =
      "void f(Tensor& a, bool neg, bool conj) {\n"  // 1
      "  if C10_UNLIKELY (conj) {\n"                // 2
      "    a = clone(a);\n"                         // 3
      "  } else if C10_UNLIKELY (neg) {\n"          // 4
      "    a = resolve_neg(a);\n"                   // 5
      "  } else {\n"                                // 6
      "    use(a);\n"                               // 7
      "  }\n"                                       // 8
      "}\n";
  EXPECT_EQ(Described(text, 1, 3, "clone"), V{"when C10_UNLIKELY (conj)"});
  EXPECT_EQ(Described(text, 1, 5, "resolve_neg"), (V{"unless C10_UNLIKELY (conj)", "when C10_UNLIKELY (neg)"}));
  EXPECT_EQ(Described(text, 1, 7, "use"), (V{"unless C10_UNLIKELY (conj)", "unless C10_UNLIKELY (neg)"}));
}

// An if chain whose every branch returns, a final else included, returns
// from the block around it: what follows the outer if runs unless its
// condition holds (1.13.1 TensorShape.cpp:1356's reshape: `if
// (stride.has_value()) { if (...) return ...; else return ...; }` then the
// clone). Without a final else the chain may fall through.
TEST(CppCallConditions, AChainThatReturnsOnEveryBranchReturnsFromItsBlock) {
  const char* text =
      "Tensor r(const Tensor& self, bool s) {\n"  // 1
      "  if (s) {\n"                              // 2
      "    if (!self.is_xla()) {\n"               // 3
      "      return alias(self);\n"               // 4
      "    } else {\n"                            // 5
      "      return view(self);\n"                // 6
      "    }\n"                                   // 7
      "  }\n"                                     // 8
      "  if (t) {\n"                              // 9
      "    if (u) return a(self);\n"              // 10
      "    else if (v) return b(self);\n"         // 11
      "  }\n"                                     // 12
      "  return unsafe(clone(self));\n"           // 13
      "}\n";
  EXPECT_EQ(Described(text, 1, 13, "clone"), V{"unless s"});
}

TEST(CppCallConditions, WhatFollowsAnIfElseReturningOnBothBranchesRunsUnderBoth) {
  // cuda/linalg/BatchLinearAlgebra.cpp:1851-1856 (2.6.0): a call after an if/else that returns
  // on both branches is never made; it is read as "when C" and "unless C", which no path meets.
  const char* text =
      "Tensor q(const Tensor& x) {\n"  // 1
      "  if (x.size(0) > 4) {\n"       // 2
      "    return a(x);\n"             // 3
      "  } else {\n"                   // 4
      "    return b(x);\n"             // 5
      "  }\n"                          // 6
      "  return c(x);\n"               // 7
      "}\n";
  EXPECT_EQ(Described(text, 1, 5, "b"), V{"unless x.size(0) > 4"});
  EXPECT_EQ(Described(text, 1, 7, "c"), (V{"when x.size(0) > 4", "unless x.size(0) > 4"}));
}

TEST(CppGuardReader, WritesAreEveryAssignmentBeforeTheLine) {
  const char* text =
      "void f(const Tensor& self, int64_t p) {\n"  // 1
      "  const auto n = self.numel();\n"           // 2
      "  bool flag = false;\n"                     // 3
      "  if (p) {\n"                               // 4
      "    flag = true;\n"                         // 5
      "  }\n"                                      // 6
      "  int64_t k = 1;\n"                         // 7
      "  k *= 2;\n"                                // 8
      "  if (n == 0 || flag || k || p) return;\n"  // 9
      "}\n";
  CppGuardReader r(text);
  auto all = [](int) { return true; };
  std::vector<CppGuardReader::Write> n = r.Writes(1, 9, "n", all);
  ASSERT_EQ(n.size(), 1u);
  EXPECT_EQ(n[0].value, "self.numel()");
  EXPECT_TRUE(n[0].plain);
  EXPECT_EQ(r.AssignedExpression(1, 9, "flag"), "true");
  EXPECT_EQ(r.Writes(1, 9, "flag", all).size(), 2u) << "set in a branch too";
  std::vector<CppGuardReader::Write> k = r.Writes(1, 9, "k", all);
  ASSERT_EQ(k.size(), 2u);
  EXPECT_TRUE(k[1].value.empty() && !k[1].plain) << "a compound assignment that is no truth";
  EXPECT_TRUE(r.Writes(1, 9, "p", all).empty()) << "a parameter";
  EXPECT_EQ(r.Writes(1, 3, "n", all).size(), 1u);
}

TEST(CppGuardReader, WritesGiveEachValueInTermsOfTheOneBefore) {
  const char* text =
      "void f(const Tensor& self, int64_t p) {\n"  // 1
      "  bool ok = self.is_cuda();\n"              // 2
      "  if (p) ok = ok && p > 2;\n"               // 3
      "  ok &= p < 9;\n"                           // 4
      "  ok |= p == 4;\n"                          // 5
      "  ok *= 2;\n"                               // 6
      "  if (ok) return;\n"                        // 7
      "}\n";
  CppGuardReader r(text);
  auto all = [](int) { return true; };
  std::vector<CppGuardReader::Write> w = r.Writes(1, 7, "ok", all);
  ASSERT_EQ(w.size(), 5u);
  EXPECT_EQ(w[0].value, "self.is_cuda()");
  EXPECT_TRUE(w[0].plain);
  EXPECT_EQ(w[1].value, "ok && p > 2");
  EXPECT_EQ(w[2].value, "ok && (p < 9)");
  EXPECT_FALSE(w[2].plain);
  EXPECT_EQ(w[3].value, "ok || (p == 4)");
  EXPECT_EQ(w[4].value, "") << "a product is no truth of the value before";
  EXPECT_EQ(r.Writes(1, 4, "ok", all).size(), 2u) << "writes before the line asked";
  EXPECT_EQ(r.Writes(1, 7, "ok", [](int line) { return line != 3; }).size(), 4u) << "a write the build leaves out";
}

TEST(CppGuardReader, AnotherObjectsMemberOfTheSameNameIsNoAssignment) {
  const char* text =
      "Tensor f(bool transposed) {\n"        // 1
      "  Params params;\n"                   // 2
      "  params.transposed = transposed;\n"  // 3
      "  return pick(params);\n"             // 4
      "}\n";
  EXPECT_EQ(CppGuardReader(text).AssignedExpression(1, 4, "transposed"), "") << "the parameter keeps its value";
}

TEST(CppGuardReader, ALocalALambdaCalledAtOnceInitialisesHoldsOneOfItsReturns) {
  const char* text =
      "Tensor pad(const Tensor& self, std::string_view mode) {\n"    // 1
      "  const auto mode_enum = [&] {\n"                             // 2
      "    if (mode == \"reflect\") {\n"                             // 3
      "      return padding_mode::reflect;\n"                        // 4
      "    } else if (mode == \"constant\") {\n"                     // 5
      "      return padding_mode::constant;\n"                       // 6
      "    }\n"                                                      // 7
      "    C10_THROW_ERROR(NotImplementedError, \"mode\");\n"        // 8
      "  }();\n"                                                     // 9
      "  auto later = [&] { return padding_mode::reflect; };\n"      // 10
      "  auto twice = [&] { return 1; }();\n"                        // 11
      "  twice += 1;\n"                                              // 12
      "  return pad_enum(self, static_cast<int64_t>(mode_enum));\n"  // 13
      "}\n";
  CppGuardReader r(text);
  auto returns = r.InvokedLambdaReturns(1, 13, "mode_enum");
  ASSERT_TRUE(returns.has_value());
  ASSERT_EQ(returns->size(), 2u);
  EXPECT_EQ((*returns)[0].value, "padding_mode::reflect");
  ASSERT_EQ((*returns)[1].guards.size(), 2u);
  EXPECT_TRUE((*returns)[1].guards[0].negated);
  EXPECT_EQ((*returns)[1].guards[1].text, "mode == \"constant\"");
  EXPECT_FALSE(r.InvokedLambdaReturns(1, 13, "later")) << "a lambda kept, not called";
  EXPECT_FALSE(r.InvokedLambdaReturns(1, 13, "twice")) << "written again";
  EXPECT_FALSE(r.InvokedLambdaReturns(1, 13, "mode")) << "a parameter";
}

TEST(CppCallConditions, ACallInANamedLambdaRunsWhereTheLambdaIsCalled) {
  const char* text =
      "void k(const Tensor& b, int n, int t) {\n"       // 1
      "  if (b.numel() == 0) return;\n"                 // 2
      "  auto tri = [n](const Tensor& b, int t) {\n"    // 3
      "    if (t == 0) {\n"                             // 4
      "      solve(b);\n"                               // 5
      "    } else {\n"                                  // 6
      "      solve(b);\n"                               // 7
      "    }\n"                                         // 8
      "  };\n"                                          // 9
      "  auto once = [&] { once_op(b); };\n"            // 10
      "  auto never = [&](int i) { passed_op(b); };\n"  // 11
      "#ifdef FAST\n"                                   // 12
      "  if (n == t) {\n"                               // 13
      "    if (n <= 16) batched(b); else tri(b, t);\n"  // 14
      "  }\n"                                           // 15
      "  if (n > 8) once();\n"                          // 16
      "#else\n"                                         // 17
      "  tri(b, t);\n"                                  // 18
      "#endif\n"                                        // 19
      "  parallel_for(0, n, never);\n"                  // 20
      "}\n";
  // Both calls of tri follow the early return; one runs under #ifdef FAST
  // and its ifs, the other under #else: one of them, then the body's ifs.
  EXPECT_EQ(Described(text, 1, 5, "solve"),
            (V{"unless b.numel() == 0", "when (defined(FAST) && n == t && !(n <= 16)) || (!(defined(FAST)))",
               "when t == 0"}));
  EXPECT_EQ(Described(text, 1, 10, "once_op"), (V{"#if defined(FAST)", "unless b.numel() == 0", "when n > 8"}));
  EXPECT_EQ(Described(text, 1, 11, "passed_op"), V{"unless b.numel() == 0"}) << "never called by its name";
  // Every call of a function read at once: each with its own #if groups,
  // a lambda's calls where the lambda runs.
  CppGuardReader r(text);
  std::vector<std::string> batched, once;
  for (const auto& c : r.CallsIn(1)) {
    std::string d;
    for (const auto& x : c.conditions) d += x.Describe() + "; ";
    if (c.callee == "batched") batched.push_back(d);
    if (c.callee == "once_op") once.push_back(d);
  }
  EXPECT_EQ(batched, V{"#if defined(FAST); unless b.numel() == 0; when n == t; when n <= 16; "});
  EXPECT_EQ(once, V{"#if defined(FAST); unless b.numel() == 0; when n > 8; "});
}

TEST(CppCallConditions, ALambdaCalledOnBothSidesOfAConditionRunsEitherWay) {
  // ReduceOps.cpp's value_selecting_reduction_backward shape: the lambda is
  // called in `if (C) { ... return f(...); }` and after it.
  const char* text =
      "Tensor k(const Tensor& g, bool keep) {\n"   // 1
      "  auto scatter = [&](const Tensor& x) {\n"  // 2
      "    return g.scatter_(0, x, x);\n"          // 3
      "  };\n"                                     // 4
      "  if (!keep) {\n"                           // 5
      "    return scatter(g.unsqueeze(0));\n"      // 6
      "  }\n"                                      // 7
      "  return scatter(g);\n"                     // 8
      "}\n";
  EXPECT_EQ(Described(text, 1, 3, "scatter_"), V{}) << "not `when (!keep) || (!(!keep))`";
}

TEST(CppCallConditions, ANamedLambdaRunsWhereItIsCalled) {
  const char* text =
      "void k(const Tensor& b, int64_t n) {\n"      // 1
      "  auto tri = [n](const Tensor& b) {\n"       // 2
      "    solve_tri(b);\n"                         // 3
      "  };\n"                                      // 4
      "  auto batched = [](const Tensor& b) {\n"    // 5
      "    if (b.dim() > 2) batched_solve(b);\n"    // 6
      "  };\n"                                      // 7
      "  auto always = [&]() { plain(b); };\n"      // 8
      "  auto handed = [&]() { handed_on(b); };\n"  // 9
      "  always();\n"                               // 10
      "  parallel(handed);\n"                       // 11
      "  if (n <= 16) {\n"                          // 12
      "    batched(b);\n"                           // 13
      "    return;\n"                               // 14
      "  }\n"                                       // 15
      "  if (n == 32) tri(b);\n"                    // 16
      "  else if (n > 64) tri(b);\n"                // 17
      "}\n";
  EXPECT_EQ(Described(text, 1, 6, "batched_solve"), (V{"when n <= 16", "when b.dim() > 2"}));
  EXPECT_EQ(Described(text, 1, 3, "solve_tri"), (V{"unless n <= 16", "when (n == 32) || (!(n == 32) && n > 64)"}));
  EXPECT_EQ(Described(text, 1, 8, "plain"), V{}) << "called where it is defined";
  EXPECT_EQ(Described(text, 1, 9, "handed_on"), V{}) << "handed to a function: its own conditions stand";
  const char* same_line =
      "void k(int64_t n) {\n"
      "  auto twice = [&]() { once(n); };\n"
      "  if (n > 1) twice(); else if (n < 0) twice();\n"
      "}\n";
  EXPECT_EQ(Described(same_line, 1, 2, "once"), V{}) << "two calls on a line: only the first would be read";
  const char* same_name =
      "void k(const Tensor& x, int64_t n) {\n"
      "  auto clamp = [](const Tensor& i) { return at::clamp(i, 0, 1); };\n"
      "  if (n > 1) clamp(x);\n"
      "}\n";
  EXPECT_EQ(Described(same_name, 1, 2, "clamp"), V{"when n > 1"}) << "the op of the lambda's name in its body";
}

TEST(CppCallConditions, ADebugOnlyAssertionsArgumentsRunInADebugBuildOnly) {
  const char* text =
      "void k(const Tensor& a) {\n"                                    // 1
      "  TORCH_INTERNAL_ASSERT_DEBUG_ONLY(a.mT().is_contiguous());\n"  // 2
      "  TORCH_INTERNAL_ASSERT(check(a));\n"                           // 3
      "  run(a);\n"                                                    // 4
      "}\n";
  EXPECT_EQ(Described(text, 1, 2, "mT"), V{"#if !(defined(NDEBUG))"});
  EXPECT_EQ(Described(text, 1, 3, "check"), V{}) << "an assertion of every build";
  EXPECT_EQ(Described(text, 1, 4, "run"), V{});
  REQUIRE_CORPUS("2.6.0");
  // sed -n 2287p BatchLinearAlgebra.cpp: `TORCH_INTERNAL_ASSERT_DEBUG_ONLY(result.mT().is_contiguous());`
  std::string real = ReadText(CorpusTree("2.6.0") + "/aten/src/ATen/native/BatchLinearAlgebra.cpp");
  EXPECT_EQ(Described(real, 1, 2287, "mT"), V{"#if !(defined(NDEBUG))"});
}

TEST(CppCallConditions, AShortCircuitsRightOperandRunsOnlyWhenItsLeftDecidesNothing) {
  const char* text =
      "void k(const Tensor& w, const Tensor& x, bool a, bool b) {\n"  // 1
      "  TORCH_CHECK(!w.defined() || is_true(w.ne(0)), \"msg\");\n"   // 2
      "  bool both = a && b && first(x);\n"                           // 3
      "  bool mixed = a || b && second(x);\n"                         // 4
      "  auto y = (a || b) ? third(x) : x;\n"                         // 5
      "  auto&& z = fourth(x);\n"                                     // 6
      "  f(a && b, fifth(x));\n"                                      // 7
      "}\n";
  EXPECT_EQ(Described(text, 1, 2, "is_true"), V{"unless !w.defined()"});
  EXPECT_EQ(Described(text, 1, 3, "first"), V{"when a && b"});
  EXPECT_EQ(Described(text, 1, 4, "second"), (V{"unless a", "when b"}));
  EXPECT_EQ(Described(text, 1, 5, "third"), V{"when (a || b)"});
  EXPECT_EQ(Described(text, 1, 6, "fourth"), V{}) << "a declaration's &&";
  EXPECT_EQ(Described(text, 1, 7, "fifth"), V{}) << "another argument";
}

TEST(CppCallConditions, AConjunctionKeepsEachConditionsPrecedence) {
  // A disjunction among conjuncts keeps its parentheses: `a || b` and `c`
  // is not `a || b && c`.
  std::vector<CodeCondition> c(3);
  c[0].text = "x.is_cuda() || x.is_meta()";
  c[1].text = "n > 4";
  c[2].text = "flag ? a : b";
  c[2].negated = true;
  EXPECT_EQ(ConjunctionOf(c), "(x.is_cuda() || x.is_meta()) && n > 4 && !(flag ? a : b)");
  EXPECT_EQ(ConjunctionOf({}), "");
}

// An early return in an #if group guards what follows only where the group
// is compiled; in the group's #else branch the return is not there at all.
TEST(CppCallConditions, AnEarlyReturnInAnIfGroupGuardsOnlyWhereTheGroupIsCompiled) {
  const char* text =
      "Tensor f(const Tensor& x) {\n"  // 1
      "#ifdef USE_MPS\n"               // 2
      "  if (x.is_mps()) {\n"          // 3
      "    return mps(x);\n"           // 4
      "  }\n"                          // 5
      "  early(x);\n"                  // 6
      "#else\n"                        // 7
      "  other(x);\n"                  // 8
      "#endif\n"                       // 9
      "  return math(x);\n"            // 10
      "}\n";
  EXPECT_EQ(Described(text, 1, 10, "math"), V{"unless defined(USE_MPS) && x.is_mps()"});
  EXPECT_EQ(Described(text, 1, 6, "early"), (V{"#if defined(USE_MPS)", "unless x.is_mps()"}));
  EXPECT_EQ(Described(text, 1, 8, "other"), (V{"#if !(defined(USE_MPS))", "unless defined(USE_MPS) && x.is_mps()"}));
  CppGuardReader reader(text);
  std::vector<std::string> math;
  for (const auto& call : reader.CallsIn(1))
    if (call.callee == "math")
      for (const auto& c : call.conditions) math.push_back(c.Describe());
  EXPECT_EQ(math, V{"unless defined(USE_MPS) && x.is_mps()"});
}

// A variable constructed (`Type name(args)`) and a standard library call
// are no calls of the tree's functions; a call after a keyword is.
TEST(CppGuardReader, CallsInLeaveOutDeclaratorsAndTheStandardLibrary) {
  const char* text =
      "Tensor f(const Tensor& x, int64_t a, int64_t b) {\n"  // 1
      "  SymDimVector sizes(x.sym_sizes().begin(), x.sym_sizes().end());\n"
      "  auto n(count(x));\n"
      "  std::swap(sizes[a], sizes[b]);\n"
      "  if (a == b) throw error(a);\n"
      "  else helper(x);\n"
      "  return finish(x, sizes);\n"
      "}\n";
  CppGuardReader reader(text);
  std::vector<std::string> callees;
  for (const auto& call : reader.CallsIn(1)) callees.push_back(call.callee);
  EXPECT_EQ(callees, (V{"count", "error", "helper", "finish"}));
}

// One reader answers every call of a function from one walk of it: the
// answers are those of the call's own place whatever was asked before --
// a later line first, the second call of a name on a line (a walk finds
// the first), a call in a named lambda, a line with no such call.
TEST(CppGuardReader, EachCallOfAFunctionKeepsItsOwnConditionsInAnyOrder) {
  const char* text =
      "void f(const Tensor& x, bool s) {\n"              // 1
      "  if (x.is_cuda()) {\n"                           // 2
      "    g(x);\n"                                      // 3
      "    return;\n"                                    // 4
      "  }\n"                                            // 5
      "  auto run = [&](int n) { if (n > 1) g(x); };\n"  // 6
      "  s ? g(x) : h(g(x));\n"                          // 7
      "  run(2);\n"                                      // 8
      "}\n";
  CppGuardReader reader(text);
  auto described = [&](int line, std::string_view callee) {
    std::vector<CodeCondition> c;
    if (!reader.CallConditions(1, line, callee, &c)) return V{"<no call>"};
    V out;
    for (const auto& x : c) out.push_back(x.Describe());
    return out;
  };
  EXPECT_EQ(described(7, "h"), (V{"unless x.is_cuda()", "unless s"}));
  // g is called on both arms of `s ? ... : ...`: whichever s is.
  EXPECT_EQ(described(7, "g"), (V{"unless x.is_cuda()"}));
  EXPECT_EQ(described(3, "g"), V{"when x.is_cuda()"});
  EXPECT_EQ(described(6, "g"), (V{"unless x.is_cuda()", "when n > 1"}));
  EXPECT_EQ(described(5, "g"), V{"<no call>"});
  EXPECT_EQ(described(3, "h"), V{"<no call>"});
  // The same answers as a reader asked about one call only.
  EXPECT_EQ(described(7, "g"), Described(text, 1, 7, "g"));
  EXPECT_EQ(described(3, "g"), Described(text, 1, 3, "g"));
}

// A kernel launched by name (`k<<<grid, block>>>(...)`, no template
// arguments) is called there: its launch has conditions like any call.
TEST(CppCallConditions, APlainKernelLaunchIsACall) {
  const char* text =
      "void launch(int64_t n, bool fast) {\n"         // 1
      "  if (fast && n % 4 == 0) {\n"                 // 2
      "    fast_kernel<<<1, 128, 0, stream>>>(n);\n"  // 3
      "  } else {\n"                                  // 4
      "    slow_kernel<float><<<1, 128>>>(n);\n"      // 5
      "  }\n"                                         // 6
      "}\n";
  EXPECT_EQ(Described(text, 1, 3, "fast_kernel"), V{"when fast && n % 4 == 0"});
  EXPECT_EQ(Described(text, 1, 5, "slow_kernel"), V{"unless fast && n % 4 == 0"});
}

// The reader's arguments of a call are read from the start of the line on:
// lines found from the reader's line table, the first line for 0, none past
// the text's end.
TEST(CppGuardReader, CallArgumentsFromTheStartOfTheLine) {
  const std::string text = "void g(int a) {\n  f(a, 1);\n  h();\n  f(2,\n    3);\n}";
  CppGuardReader r(text);
  size_t start = 0;  // of line `line`, counted here
  for (int line = 1; line <= 6; ++line) {
    for (const char* callee : {"f", "h", "ns::f", "g"})
      EXPECT_EQ(r.CallArguments(line, callee), CppCallArgumentsFrom(text, start, callee)) << line << " " << callee;
    start = text.find('\n', start) + 1;
  }
  EXPECT_EQ(r.CallArguments(0, "f"), r.CallArguments(1, "f"));
  EXPECT_EQ(r.CallArguments(2, "f"), (std::vector<std::string>{"a", "1"}));
  EXPECT_EQ(r.CallArguments(3, "f"), (std::vector<std::string>{"2", "3"}));
  EXPECT_EQ(r.CallArguments(7, "f"), std::nullopt);
}

// A function asked for its first call of a name its walk never saw has
// none, though a later function calls it; of a name it calls (a member
// call counts, as the walk reads it), that call's conditions.
TEST(CppGuardReader, FirstCallOfANameTheFunctionDoesNotCall) {
  const std::string text =
      "void a() {}\n"
      "void g(bool p) {\n"
      "  if (p) {\n"
      "    f(1);\n"
      "  }\n"
      "  obj.k(2);\n"
      "}\n"
      "void h() { m(3); }\n";
  CppGuardReader r(text);
  std::vector<CodeCondition> at;
  EXPECT_FALSE(r.CallConditions(2, 0, "m", &at)) << "h's call is not g's";
  EXPECT_FALSE(r.CallConditions(2, 0, "a", &at));
  EXPECT_TRUE(at.empty());
  EXPECT_TRUE(r.CallConditions(2, 0, "k", &at));
  at.clear();
  ASSERT_TRUE(r.CallConditions(2, 0, "f", &at));
  ASSERT_EQ(at.size(), 1u);
  EXPECT_EQ(at[0].text, "p");
}

TEST(CppCallConditions, RealLstmInRnnCpp) {
  REQUIRE_CORPUS("2.6.0");
  std::string text = ReadText(CorpusTree("2.6.0") + "/aten/src/ATen/native/RNN.cpp");
  // sed -n 1429,1488p: lstm(input, hx, params, ...) picks cuDNN, MPS, MIOpen, oneDNN, else _lstm_impl.
  EXPECT_EQ(Described(text, 1429, 1436, "lstm_cudnn_stub"), V{"when at::cudnn_is_acceptable(_input)"});
  EXPECT_EQ(Described(text, 1429, 1453, "lstm_miopen_stub"),
            (V{"unless at::cudnn_is_acceptable(_input)", "unless defined(USE_MPS) && _input.is_mps()",
               "when use_miopen(_input, dropout_p)", "when !has_projections"}));
  // sed -n 1440,1441p: the MPS branch sits in #ifdef USE_MPS.
  EXPECT_EQ(Described(text, 1429, 1442, "_lstm_mps"),
            (V{"#if defined(USE_MPS)", "unless at::cudnn_is_acceptable(_input)", "when _input.is_mps()"}));
  EXPECT_EQ(Described(text, 1429, 1482, "_lstm_impl"),
            (V{"unless at::cudnn_is_acceptable(_input)", "unless defined(USE_MPS) && _input.is_mps()"}));
}

}  // namespace
}  // namespace optrace
