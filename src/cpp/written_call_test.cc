// A call's arguments as written: split at top-level commas only, a method
// call told apart, the SymInt spelling of the name found.
#include "cpp/written_call.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cpp/cpp_guards.h"

namespace optrace {
namespace {

TEST(WrittenCall, ArgumentsSplitAtTopLevelCommasOnly) {
  const std::string text =
      "Tensor f(const Tensor& x) {\n"
      "  return at::g(x, std::pair<int, int>(1, 2), {{0, 0}}, h(a, b), /*flag=*/false);\n"
      "}\n";
  auto call = CppGuardReader(text).CallWritten(2, "g");
  ASSERT_TRUE(call.has_value());
  EXPECT_FALSE(call->method);
  EXPECT_EQ(call->arguments,
            (std::vector<std::string>{"x", "std::pair<int, int>(1, 2)", "{{0, 0}}", "h(a, b)", "false"}));
}

TEST(WrittenCall, AMethodCallsReceiverIsNoArgument) {
  auto call = CppGuardReader("void f() {\n  out.select(0, n).fill_(bias[n]);\n}\n").CallWritten(2, "fill_");
  ASSERT_TRUE(call.has_value());
  EXPECT_TRUE(call->method);
  EXPECT_EQ(call->arguments, (std::vector<std::string>{"bias[n]"}));
}

TEST(WrittenCall, TheSymIntSpellingIsTheSameCallee) {
  auto call = CppGuardReader("void f() {\n  at::conv_symint(x, w,\n      false);\n}\n").CallWritten(2, "conv");
  ASSERT_TRUE(call.has_value());
  EXPECT_EQ(call->arguments, (std::vector<std::string>{"x", "w", "false"}));
}

TEST(WrittenCall, NoneWhenNotWrittenOnThatLine) {
  CppGuardReader reader("void f() {\n  at::g(x);\n  int g = 1;\n}\n");
  EXPECT_FALSE(reader.CallWritten(3, "g").has_value()) << "a variable named g is no call";
  EXPECT_FALSE(reader.CallWritten(1, "g").has_value());
  EXPECT_TRUE(reader.CallWritten(2, "g").has_value());
}

TEST(WrittenCall, TheStandardLibrarysFunctionOfThatNameIsNoCall) {
  // cuda/SummaryOps.cu:276 (2.6.0): the op max is the Tensor method, whose receiver is self.
  auto call =
      CppGuardReader("void f() {\n  n = std::max(self.max().item<T>() + (int64_t)1, m);\n}\n").CallWritten(2, "max");
  ASSERT_TRUE(call.has_value());
  EXPECT_TRUE(call->method);
  EXPECT_EQ(call->receiver, "self");
  EXPECT_TRUE(call->arguments.empty());
}

TEST(WrittenCall, TheObjectsACallHandsOnAreTypedByTheirDeclarations) {
  // cuda/Indexing.cu (2.6.0): `static ReduceAdd reduce_add;` (:369), launched with it inside the
  // SMALL_INDEX #define (:1027-1032); ScatterGatherKernel.cu:495 makes a functor and calls it.
  const std::string text =
      "static ReduceAdd reduce_add;\n"
      "static ReduceAdd reduce_add;\n"
      "Pair twice; Other twice;\n"
      "#define SMALL(T) k<T><<<grid, block, 0, stream>>>(dst, reduce_add, alpha);\n"
      "void f() {\n"
      "  base_kernel<true, false>()(self, dim, \"name\", reduce_add);\n"
      "  g(twice, reduce_add.x, unknown);\n"
      "}\n";
  LexedFile lexed;
  LexCpp(text, &lexed);
  EXPECT_EQ(ObjectTypesPassed(lexed, 4, "k"), std::vector<std::string>{"ReduceAdd"});
  EXPECT_EQ(ObjectTypesPassed(lexed, 6, "base_kernel"), std::vector<std::string>{"ReduceAdd"});
  EXPECT_TRUE(ObjectTypesPassed(lexed, 7, "g").empty()) << "two types, a member, an undeclared name";
  EXPECT_TRUE(ObjectTypesPassed(lexed, 6, "g").empty()) << "not written on that line";
}

TEST(WrittenCall, TheStatementABodyOpensWith) {
  // SparseTensor.cpp:615-616 (2.6.0): coalesce opens with a check of the layout, after a
  // signature over two lines and a comment; a cuDNN stand-in opens with a failing check.
  const std::string text =
      "Tensor coalesce(const Tensor& self,\n"
      "                std::optional<int64_t> n = {}) {\n"
      "  // a comment first\n"
      "  TORCH_CHECK(self.layout() == kSparse, \"coalesce expected sparse coordinate tensor layout but got \",\n"
      "      self.layout());\n"
      "  return self;\n"
      "}\n"
      "Tensor cudnn_stand_in(const Tensor& self) { throw std::runtime_error(\"no cuDNN\"); }\n"
      "Tensor declared(const Tensor& self);\n"
      "Tensor sparse_first(const Tensor& self) {\n"
      "  if (self.is_coalesced() && !opts.sparse.is_set() && self.to(x).dim()) {\n"
      "    return self;\n"
      "  }\n"
      "}\n";
  LexedFile lexed;
  LexCpp(text, &lexed);
  auto check = OpeningCallOf(lexed.tokens, 1);
  ASSERT_TRUE(check.has_value());
  EXPECT_EQ(check->callee, "TORCH_CHECK");
  ASSERT_EQ(check->arguments.size(), 3u);
  EXPECT_EQ(check->arguments.front(), "self.layout() == kSparse");
  auto thrown = OpeningCallOf(lexed.tokens, 8);
  ASSERT_TRUE(thrown.has_value());
  EXPECT_EQ(thrown->callee, "throw");
  EXPECT_FALSE(OpeningCallOf(lexed.tokens, 9).has_value()) << "a declaration has no body";
  const std::vector<std::pair<std::string, std::string>> layouts = {{"self", "layout"}, {"self", "layout"}};
  EXPECT_EQ(check->method_calls, layouts);
  auto branch = OpeningCallOf(lexed.tokens, 10);
  ASSERT_TRUE(branch.has_value());
  EXPECT_EQ(branch->callee, "if");
  const std::vector<std::pair<std::string, std::string>> methods = {{"self", "is_coalesced"}, {"self", "to"}};
  EXPECT_EQ(branch->method_calls, methods) << "a member's method (opts.sparse.is_set) is no object's own";
}

}  // namespace
}  // namespace optrace
