// The #if groups around a line: nested groups outermost first, an #else as
// the negation of the branches above it, an include guard no condition.
#include "cpp/preprocessor_groups.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace optrace {
namespace {

std::vector<std::string> Described(const std::vector<CodeCondition>& conditions) {
  std::vector<std::string> out;
  for (const auto& c : conditions) out.push_back(c.Describe());
  return out;
}

TEST(PreprocessorGroups, NestedGroupsOutermostFirstAndAnElseNegatesTheBranchesAbove) {
  const std::string text =
      "#ifndef GUARD_H\n"         // 1: an include guard,
      "#define GUARD_H\n"         // 2: no condition
      "#include <x.h>\n"          // 3
      "#if AT_CUDNN_ENABLED()\n"  // 4
      "#ifdef USE_ROCM\n"         // 5
      "int a;\n"                  // 6
      "#elif defined(USE_X)\n"    // 7
      "int b;\n"                  // 8
      "#else\n"                   // 9
      "int c;\n"                  // 10
      "#endif\n"                  // 11
      "#endif\n"                  // 12
      "#endif\n";                 // 13
  const std::vector<PreprocessorLine> lines = ReadPreprocessorLines(text);
  EXPECT_EQ(lines.size(), 10u);
  EXPECT_EQ(lines[2].directive, Directive::kOther);  // #include
  EXPECT_EQ(Described(PreprocessorConditionsAt(lines, 6)),
            (std::vector<std::string>{"#if AT_CUDNN_ENABLED()", "#if defined(USE_ROCM)"}));
  EXPECT_EQ(Described(PreprocessorConditionsAt(lines, 8)),
            (std::vector<std::string>{"#if AT_CUDNN_ENABLED()", "#if !(defined(USE_ROCM))", "#if defined(USE_X)"}));
  EXPECT_EQ(Described(PreprocessorConditionsAt(lines, 10)),
            (std::vector<std::string>{"#if AT_CUDNN_ENABLED()", "#if !(defined(USE_ROCM))", "#if !(defined(USE_X))"}));
  EXPECT_TRUE(PreprocessorConditionsAt(lines, 3).empty());
}

TEST(PreprocessorGroups, AnIfndefNotFollowedByItsDefineIsACondition) {
  // `#ifndef X` then another directive before `#define X`: no include guard.
  const std::string text = "#ifndef USE_X\n#include <y.h>\n#define USE_X\nint a;\n#endif\n";
  EXPECT_EQ(Described(CppPreprocessorConditions(text, 4)), (std::vector<std::string>{"#if !(defined(USE_X))"}));
}

}  // namespace
}  // namespace optrace
