#include "cpp/cpp_params.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cpp/cpp_guards.h"
#include "testing/test_util.h"

namespace optrace {
namespace {

// The arguments of the first call of `callee` from line `line` on, as the
// guard reader finds them (CppGuardReader::CallArguments).
std::optional<std::vector<std::string>> CallArgumentsAt(std::string_view text, int line, std::string_view callee) {
  return CppGuardReader(text).CallArguments(line, callee);
}

TEST(CppParams, NamesAndDefaults) {
  auto p = ParseCppParameters(
      "const Tensor& self, std::array<int64_t, 2> kernel = {1, 1}, Activation activation=Activation::None, "
      "bool, double eps = 1e-5, std::optional<int64_t> dim = std::nullopt, bool b = a <= c");
  ASSERT_EQ(p.size(), 7u);
  EXPECT_EQ(p[0].name, "self");
  EXPECT_EQ(p[0].default_value, "");
  EXPECT_EQ(p[1].name, "kernel");
  EXPECT_EQ(p[1].default_value, "{1, 1}");
  EXPECT_EQ(p[2].name, "activation");
  EXPECT_EQ(p[2].default_value, "Activation::None");
  EXPECT_EQ(p[3].name, "") << "an unnamed parameter";
  EXPECT_EQ(p[4].default_value, "1e-5");
  EXPECT_EQ(p[5].default_value, "std::nullopt");
  EXPECT_EQ(p[6].default_value, "a <= c") << "the comparison is the default's, not a second '='";
  EXPECT_EQ(p[0].type, "const Tensor&");
  EXPECT_EQ(p[1].type, "std::array<int64_t, 2>");
  EXPECT_EQ(p[3].type, "bool") << "an unnamed parameter is its type";
  EXPECT_TRUE(ParseCppParameters("").empty());
  EXPECT_TRUE(ParseCppParameters("void").empty());
}

TEST(CppParams, CallArgumentsFromALineOn) {
  std::string text =
      "void g() {\n"
      "  f(a, b);\n"
      "  at::native::f(x,\n"
      "      std::min(y, z), \"constant\");\n"
      "  notf(1);\n"
      "}\n";
  EXPECT_EQ(CallArgumentsAt(text, 1, "f"), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(CallArgumentsAt(text, 3, "at::native::f"),
            (std::vector<std::string>{"x", "std::min(y, z)", "\"constant\""}));
  EXPECT_EQ(CallArgumentsAt(text, 5, "f"), std::nullopt) << "notf is another name";
  // cuda/SummaryOps.cu:276 (2.6.0): the first call named max on the line is std::max.
  EXPECT_EQ(CallArgumentsAt("n = std::max(self.max(), m);\n", 1, "max"), std::vector<std::string>{});
}

TEST(CppParams, ExplicitTemplateArgumentsComeBeforeTheCallsArguments) {
  // cuda/ScatterGatherKernel.cu:155 `_launch_scatter_gather_kernel<num_threads(), thread_work_size()>(iter.numel(),
  // loop);`
  std::string text =
      "  launch<num_threads(), (a > b)>(iter.numel(), loop);\n"
      "  if (launch < n) g(1);\n";
  EXPECT_EQ(CallArgumentsAt(text, 1, "launch"), (std::vector<std::string>{"iter.numel()", "loop"}));
  EXPECT_EQ(CallArgumentsAt(text, 2, "launch"), std::nullopt) << "a comparison, no call";
}

TEST(CppParams, ACommentNamingTheParameterIsDropped) {
  // SpectralOps.cpp:364 `fft_r2c("fft", {}, self, n, dim, norm, /*forward=*/true, /*onesided=*/false);`
  std::string text = "  fft_r2c(\"fft /*x*/\", {}, self, /*forward=*/true, // why\n false);\n";
  EXPECT_EQ(CallArgumentsAt(text, 1, "fft_r2c"),
            (std::vector<std::string>{"\"fft /*x*/\"", "{}", "self", "true", "false"}));
}

TEST(CppParams, AStaticCastPassesItsOperand) {
  EXPECT_EQ(StaticCastOperand("static_cast<int64_t>(mode_enum)"), "mode_enum");
  EXPECT_EQ(StaticCastOperand(" static_cast<std::pair<int, int>>( f(x) ) "), "f(x)");
  EXPECT_EQ(StaticCastOperand("static_cast<int64_t>(a) + (b)"), "static_cast<int64_t>(a) + (b)")
      << "the cast is no whole";
  EXPECT_EQ(StaticCastOperand("reinterpret_cast<char*>(p)"), "reinterpret_cast<char*>(p)") << "no value kept";
  EXPECT_EQ(StaticCastOperand("mode"), "mode");
}

TEST(CppParams, AnEmptyValueIsALiteral) {
  for (const char* yes : {"{}", "Tensor()", "at::Tensor()", "std::nullopt"}) {
    EXPECT_TRUE(IsEmptyValue(yes)) << yes;
    EXPECT_TRUE(IsCppLiteral(yes)) << yes;
  }
  for (const char* no : {"{1, 2}", "Tensor(x)", "out", "0"}) EXPECT_FALSE(IsEmptyValue(no)) << no;
}

TEST(CppParams, Literals) {
  for (const char* yes : {"0", "1", "-1", "0.5", "1e-5", "\"constant\"", "'a'", "true", "nullptr", "std::nullopt",
                          "Activation::None", "at::kFloat", "at::Reduction::Mean"})
    EXPECT_TRUE(IsCppLiteral(yes)) << yes;
  for (const char* no : {"", "x", "use_gelu ? Activation::GELU : Activation::RELU", "at::native::helper",
                         "std::min(a, b)", "self.size(0)", "-x"})
    EXPECT_FALSE(IsCppLiteral(no)) << no;
}

TEST(CppParams, RealAddmmOmitsItsActivation) {
  REQUIRE_CORPUS("2.6.0");
  std::string text = ReadText(CorpusTree("2.6.0") + "/aten/src/ATen/native/cuda/Blas.cpp");
  // sed -n 249p: addmm_out_cuda_impl(..., Activation activation=Activation::None)
  std::string line = text.substr(0, text.find("{", text.find("Tensor& addmm_out_cuda_impl(")));
  line = line.substr(line.rfind('(') + 1);
  line = line.substr(0, line.rfind(')'));
  auto params = ParseCppParameters(line);
  ASSERT_EQ(params.size(), 7u);
  EXPECT_EQ(params[6].name, "activation");
  EXPECT_EQ(params[6].default_value, "Activation::None");
  // sed -n 601p: mm_out_cuda passes six arguments, so activation is its default.
  auto args = CallArgumentsAt(text, 601, "addmm_out_cuda_impl");
  ASSERT_TRUE(args);
  EXPECT_EQ(args->size(), 6u);
  EXPECT_EQ((*args)[4], "0");
  // sed -n 596p: addmm_activation passes a ternary: no value.
  auto activation = CallArgumentsAt(text, 596, "addmm_out_cuda_impl");
  ASSERT_TRUE(activation && activation->size() == 7u);
  EXPECT_FALSE(IsCppLiteral((*activation)[6]));
}

}  // namespace
}  // namespace optrace
