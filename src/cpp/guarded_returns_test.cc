// A body's returns with the if/else conditions around each, in order, and
// the bodies the reader refuses (a return in a loop).
#include "cpp/guarded_returns.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cpp/cpp_guards.h"

namespace optrace {
namespace {

// Each return as "value <- guard, !guard" (outermost first); `reachable`:
// as ReturnsOf(line, /*reachable=*/true) reads them (loops and #if groups too).
std::vector<std::string> Read(const std::string& text, bool reachable = false) {
  CppGuardReader reader(text);
  auto returns = reader.ReturnsOf(1, reachable);
  if (!returns) return {"(not read)"};
  std::vector<std::string> out;
  for (const GuardedReturn& r : *returns) {
    std::string line = r.value + " <-";
    for (const auto& g : r.guards)
      line += " " + std::string(g.loop ? "loop:" : "") + std::string(g.negated ? "!" : "") + g.text;
    out.push_back(line);
  }
  return out;
}

TEST(GuardedReturns, EachReturnKeepsItsBranchesConditions) {
  EXPECT_EQ(Read("Backend pick(const Tensor& x, const Params& p) {\n"
                 "  if (x.numel() == 0) {\n"
                 "    return Backend::Empty;\n"
                 "  } else if (x.numel() < 0) {\n"
                 "    TORCH_CHECK(false, \"negative\");\n"
                 "  }\n"
                 "  auto f = [&](int y) { return y + 1; };\n"
                 "  if (p.grouped(x))\n"
                 "    if (p.fast) return Backend::Fast; else return Backend::Grouped;\n"
                 "  for (auto d : p.dilation) { check(d); }\n"
                 "  return Backend::Slow;\n"
                 "}\n"),
            (std::vector<std::string>{"Backend::Empty <- x.numel() == 0", "Backend::Fast <- p.grouped(x) p.fast",
                                      "Backend::Grouped <- p.grouped(x) !p.fast", "Backend::Slow <-"}));
}

TEST(GuardedReturns, AReturnInALoopIsNotRead) {
  EXPECT_EQ(Read("Backend pick(const Params& p) {\n"
                 "  for (auto b : p.order) {\n"
                 "    if (ok(b)) return b;\n"
                 "  }\n"
                 "  return Backend::Slow;\n"
                 "}\n"),
            (std::vector<std::string>{"(not read)"}));
}

TEST(GuardedReturns, APreprocessorDirectiveInTheBodyIsNotRead) {
  EXPECT_EQ(Read("bool p() {\n#if defined(C10_MOBILE)\n  return false;\n#endif\n  return true;\n}\n"),
            (std::vector<std::string>{"(not read)"}));
}

TEST(GuardedReturns, EveryReachableReturnIsReadWithItsLoopAndItsPreprocessorGroups) {
  // TensorAdvancedIndexing.cpp:1568-1636 (2.6.0), can_use_expanded_index_path's shape: a return in
  // an #else arm and in a loop, under conditions no reader takes as decided.
  const std::string text =
      "bool p(const Tensor& self) {\n"
      "#ifdef USE_FBGEMM\n"
      "  if (!accelerated()) {\n"
      "    return false;\n"
      "  }\n"
      "#else\n"
      "  return false;\n"
      "#endif\n"
      "  if (!self.device().is_cpu()) {\n"
      "    return false;\n"
      "  }\n"
      "  for (const auto d : c10::irange(1, self.dim())) {\n"
      "    if (self.size(d) != 1) return false;\n"
      "  }\n"
      "  return self.is_contiguous();\n"
      "}\n";
  EXPECT_EQ(Read(text), (std::vector<std::string>{"(not read)"})) << "which return is taken is not read";
  EXPECT_EQ(Read(text, true),
            (std::vector<std::string>{"false <- defined(USE_FBGEMM) !accelerated()", "false <- !defined(USE_FBGEMM)",
                                      "false <- !self.device().is_cpu()",
                                      "false <- loop:for (const auto d : c10::irange(1, self.dim())) self.size(d) != 1",
                                      "self.is_contiguous() <-"}));
}

}  // namespace
}  // namespace optrace
