// Predicate bodies read as one expression: every statement form the
// reader knows, and the forms it must refuse (the call then stays open).
#include "cpp/cpp_predicate.h"

#include <gtest/gtest.h>

#include <string>

#include "cpp/cpp_guards.h"

namespace optrace {
namespace {

std::string Read(const std::string& text) { return CppGuardReader(text).PredicateExpression(1); }

TEST(CppPredicate, SingleReturn) {
  EXPECT_EQ(Read("bool p(const Tensor& x) { return x.is_cuda() && x.dim() == 4; }"), "x.is_cuda() && x.dim() == 4");
}

TEST(CppPredicate, GuardsFoldAroundTheReturn) {
  EXPECT_EQ(Read("bool p(const Tensor& x) {\n"
                 "  if (!x.is_cuda()) return false;\n"
                 "  // a comment between statements\n"
                 "  if (x.is_meta()) { return true; }\n"
                 "  return x.dim() == 4;\n"
                 "}\n"),
            "!(!x.is_cuda()) && ((x.is_meta()) || (x.dim() == 4))");
}

TEST(CppPredicate, LocalsAreSubstituted) {
  // A call chain goes in bare (a library predicate still reads its name);
  // anything else in parentheses.
  EXPECT_EQ(Read("bool p(const Tensor& self) {\n"
                 "  auto& ctx = at::globalContext();\n"
                 "  auto st = self.scalar_type();\n"
                 "  const bool small = self.numel() < 16;\n"
                 "  if (!(st == kFloat || st == kHalf)) return false;\n"
                 "  return ctx.userEnabledCuDNN() && small;\n"
                 "}\n"),
            "!(!(self.scalar_type() == kFloat || self.scalar_type() == kHalf)) && "
            "(at::globalContext().userEnabledCuDNN() && (self.numel() < 16))");
}

TEST(CppPredicate, AFlagOnlyNarrowedIsItsFirstValueAndTheNarrowings) {
  EXPECT_EQ(Read("bool p(const Tensor& x, IntArrayRef lengths) {\n"
                 "  bool ok = x.is_cuda() && x.dim() == 3;\n"
                 "  if (ok) {\n"
                 "    int64_t most = x.size(0);\n"
                 "    for (const auto l : lengths) {\n"
                 "      ok = ok && (l == most);\n"
                 "    }\n"
                 "  }\n"
                 "  return ok;\n"
                 "}\n"),
            "((x.is_cuda() && x.dim() == 3) && ((l == most)))");
}

TEST(CppPredicate, GuardsBeforeAStatementNotReadStillDecide) {
  // ReduceOps.cpp:1177 should_use_acc_buffer: guards, then a loop over strides.
  const std::string expr = Read(
      "inline bool p(at::TensorIterator& iter) {\n"
      "  const auto ndim = iter.ndim();\n"
      "  if (!iter.device().is_cpu() || iter.noutputs() != 1) {\n"
      "    return false;\n"
      "  }\n"
      "  if (ndim < 2) return false;\n"
      "  auto out_strides = iter.strides(0);\n"
      "  for (const auto dim : c10::irange(0, 2)) {\n"
      "    if (out_strides[dim] != 0) return false;\n"
      "  }\n"
      "  return true;\n"
      "}\n");
  EXPECT_EQ(expr, "!(!iter.device().is_cpu() || iter.noutputs() != 1) && (!(iter.ndim() < 2) && (" +
                      std::string(kUnreadRest) + "))");
}

TEST(CppPredicate, OtherBodiesAreNotRead) {
  // A call statement, an else, a write that is no narrowing, a loop at the
  // top level, a preprocessor directive, a second return, with no guard
  // read before them: each "".
  EXPECT_EQ(Read("bool p(const Tensor& x) { check(x); return x.is_cuda(); }"), "");
  EXPECT_EQ(Read("bool p(const Tensor& x) { if (x.is_cuda()) return true; else return false; }"), "");
  EXPECT_EQ(Read("bool p(const Tensor& x) { bool ok = true; if (x.is_cuda()) { ok = false; } return ok; }"), "");
  EXPECT_EQ(
      Read("bool p(const Tensor& x) { bool ok = true; for (auto d : x.sizes()) { ok = ok && d > 0; } return ok; }"),
      "");
  EXPECT_EQ(Read("bool p(const Tensor& x) {\n#ifdef USE_ROCM\n  return false;\n#endif\n  return x.is_cuda();\n}\n"),
            "");
  EXPECT_EQ(Read("bool p(const Tensor& x) { if (x.is_cuda()) { return x.dim() == 4; } return false; }"), "");
  EXPECT_EQ(Read("void p(const Tensor& x) { x.zero_(); }"), "");
}

}  // namespace
}  // namespace optrace
