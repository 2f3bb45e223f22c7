// A body's returns with the if/else conditions around each, in order, and
// the bodies the reader refuses (a return in a loop).
#include "cpp/guarded_returns.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cpp/cpp_guards.h"

namespace optrace {
namespace {

// Each return as "value <- guard, !guard" (outermost first).
std::vector<std::string> Read(const std::string& text) {
  auto returns = CppGuardReader(text).ReturnsOf(1);
  if (!returns) return {"(not read)"};
  std::vector<std::string> out;
  for (const GuardedReturn& r : *returns) {
    std::string line = r.value + " <-";
    for (const auto& g : r.guards) line += " " + std::string(g.negated ? "!" : "") + g.text;
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

}  // namespace
}  // namespace optrace
