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

}  // namespace
}  // namespace optrace
