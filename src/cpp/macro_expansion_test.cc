// Functions written by uses of a file's own macros: found by ScanCppFile
// under their pasted names, named at the use, their bodies and calls in the
// #define; and what the expansion must not do (expand a macro of another
// file, recurse, leak a brace into the scopes around the use).
#include "cpp/macro_expansion.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "base/disk.h"
#include "cpp/cpp_index.h"
#include "cpp/cpp_test_util.h"

namespace optrace {
namespace {

std::vector<std::string> CalleesOf(const CppFileRecords& r, std::string_view function) {
  std::vector<std::string> out;
  for (const CppCall& c : r.calls)
    if (c.function >= 0 && r.functions[static_cast<size_t>(c.function)].name == function)
      out.push_back(c.qualifier + c.callee + ":" + std::to_string(c.line));
  return out;
}

std::string Text(const std::vector<Token>& tokens) {
  std::string out;
  for (const Token& t : tokens) out += std::string(t.text) + " ";
  return out;
}

TEST(MacroExpansion, ParametersArgumentsPastingAndStringizing) {
  const std::string text =
      "#define M(name, x, ...) int name##_v(x) { return f(#x, __VA_ARGS__); }\n"
      "M(abs, int y, 1, 2)\n";
  LexedFile lexed;
  LexCpp(text, &lexed);
  MacroExpander expander(lexed);
  ASSERT_EQ(lexed.tokens[0].text, "M");
  std::vector<Token> out = expander.Expand(lexed.tokens, 0, lexed.tokens.size() - 1);
  EXPECT_EQ(Text(out), "int abs_v ( int y ) { return f ( \"int y\" , 1 , 2 ) ; } ");
  ASSERT_GE(out.size(), 2u);
  EXPECT_EQ(out[0].line, 1u);  // the body's token: the #define's line
  EXPECT_EQ(lexed.tokens[2].line, 2u);
  EXPECT_EQ(out[1].line, 1u);  // pasted with the use's argument: where the ## is written
  EXPECT_EQ(out[1].kind, TokKind::kIdent);
}

TEST(MacroExpansion, UnknownMacroOrOneDefinedAfterTheUseExpandsToNothing) {
  const std::string text = "HEADER_MACRO(a)\nLATER(b)\n#define LATER(n) void n() {}\n";
  LexedFile lexed;
  LexCpp(text, &lexed);
  MacroExpander expander(lexed);
  EXPECT_TRUE(expander.Expand(lexed.tokens, 0, 3).empty());
  EXPECT_TRUE(expander.Expand(lexed.tokens, 4, 7).empty());
}

// RNN.cpp's shape: one use defines a function whose name is the argument,
// and its stubs by pasting; the body calls what the pasted names say.
TEST(MacroExpansion, AUseDefinesTheFunctionItNames) {
  auto r = ScanCppFile("aten/src/ATen/native/RNN.cpp",
                       "namespace at::native {\n"
                       "#define ONE_HIDDEN(NAME, CELL)                \\\n"
                       "  DEFINE_DISPATCH(NAME##_cudnn_stub);         \\\n"
                       "  std::tuple<Tensor, Tensor> NAME(            \\\n"
                       "      const Tensor& input, bool train) {      \\\n"
                       "    if (at::cudnn_is_acceptable(input)) {     \\\n"
                       "      NAME##_cudnn_stub(input.device().type()); \\\n"
                       "    }                                         \\\n"
                       "    return run<CELL>(input);                  \\\n"
                       "  }\n"
                       "ONE_HIDDEN(gru, GRUCell<CellParams>)\n"
                       "ONE_HIDDEN(rnn_tanh, TanhCell)\n"
                       "}\n");
  const CppFunction* gru = Fn(r, "gru");
  ASSERT_NE(gru, nullptr);
  EXPECT_EQ(gru->qualified, "at::native::gru");
  EXPECT_EQ(gru->params, "const Tensor& input, bool train");
  EXPECT_EQ(gru->line, 11u);
  EXPECT_EQ(gru->body_begin, 5u);
  EXPECT_EQ(gru->body_end, 10u);
  EXPECT_TRUE(gru->WrittenByMacroUse());
  EXPECT_EQ(CalleesOf(r, "gru"), (std::vector<std::string>{"at::cudnn_is_acceptable:6", "gru_cudnn_stub:7",
                                                           "input.device:7", "device().type:7", "run:9"}));
  ASSERT_NE(Fn(r, "rnn_tanh"), nullptr);
  EXPECT_EQ(Fn(r, "rnn_tanh")->line, 12u);
  EXPECT_EQ(CalleesOf(r, "rnn_tanh")[1], "rnn_tanh_cudnn_stub:7");
  bool declared = false;
  for (const StubDecl& d : r.stub_decls) declared = declared || d.stub == "gru_cudnn_stub";
  EXPECT_TRUE(declared);
}

// ForeachUnaryOp.cu's shape: a use of one macro expands to a use of another,
// which pastes the names of an op's out-of-place and in-place functions.
TEST(MacroExpansion, NestedUsesArePastedThrough) {
  auto r = ScanCppFile("aten/src/ATen/native/cuda/ForeachUnaryOp.cu",
                       "#define CUSTOM(function, op_name)                               \\\n"
                       "  std::vector<Tensor> foreach_tensor_##op_name##_cuda(TensorList t) { \\\n"
                       "    if (!can_use_fast_route({t})) {                              \\\n"
                       "      return at::native::foreach_tensor_##op_name##_slow(t);     \\\n"
                       "    }                                                            \\\n"
                       "    return function(t);                                          \\\n"
                       "  }                                                              \\\n"
                       "  void foreach_tensor_##op_name##_cuda_(TensorList t) {          \\\n"
                       "    function(t);                                                 \\\n"
                       "  }\n"
                       "#define OP(function, op_name) CUSTOM(function, op_name)\n"
                       "OP(floating_half, acos)\n");
  const CppFunction* out = Fn(r, "foreach_tensor_acos_cuda");
  const CppFunction* in_place = Fn(r, "foreach_tensor_acos_cuda_");
  ASSERT_NE(out, nullptr);
  ASSERT_NE(in_place, nullptr);
  EXPECT_EQ(out->line, 12u);
  EXPECT_EQ(out->body_begin, 2u);
  EXPECT_EQ(in_place->body_begin, 8u);
  EXPECT_EQ(
      CalleesOf(r, "foreach_tensor_acos_cuda"),
      (std::vector<std::string>{"can_use_fast_route:3", "at::native::foreach_tensor_acos_slow:4", "floating_half:6"}));
  EXPECT_EQ(CalleesOf(r, "foreach_tensor_acos_cuda_"), (std::vector<std::string>{"floating_half:9"}));
}

// A macro that names itself expands once; one whose brackets do not balance
// (its body goes on after the use) is stepped over as before, so the scopes
// around it stay as written.
TEST(MacroExpansion, RecursionStopsAndUnbalancedExpansionsAreNotRead) {
  auto r = ScanCppFile("aten/src/ATen/native/A.cpp",
                       "namespace at::native {\n"
                       "#define SELF(n) SELF(n) void n() {}\n"
                       "#define BEGIN(n) void n() {\n"
                       "SELF(a)\n"
                       "BEGIN(b) g(); }\n"
                       "void after() {}\n"
                       "}\n");
  ASSERT_NE(Fn(r, "a"), nullptr);
  EXPECT_EQ(Fn(r, "a")->qualified, "at::native::a");
  EXPECT_EQ(Fn(r, "b"), nullptr);
  ASSERT_NE(Fn(r, "after"), nullptr);
}

// Uses that would double at every level of 40 nested macros stop at the
// nesting bound, and what follows the use is read as ever.
TEST(MacroExpansion, ExpansionsAreBounded) {
  std::string text = "#define D0(x) void x() {}\n";
  for (int k = 1; k <= 40; ++k)
    text +=
        "#define D" + std::to_string(k) + "(x) D" + std::to_string(k - 1) + "(x) D" + std::to_string(k - 1) + "(x)\n";
  text += "D40(f)\nvoid after() {}\n";
  LexedFile lexed;
  LexCpp(text, &lexed);
  MacroExpander expander(lexed);
  const size_t use = lexed.tokens.size() - 10;  // D40 ( f ) void after ( ) { }
  ASSERT_EQ(lexed.tokens[use].text, "D40");
  EXPECT_LT(expander.Expand(lexed.tokens, use, use + 3).size(), 1u << 12);
  auto r = ScanCppFile("aten/src/ATen/native/A.cpp", text);
  EXPECT_NE(Fn(r, "after"), nullptr);
}

// FunctionAt answers for lines of ordinary bodies only: a #define's lines
// are shared by every use that writes a function there.
TEST(MacroExpansion, FunctionAtSkipsDefinitionsWrittenByAUse) {
  MemoryDisk disk;
  disk.Add("aten/src/ATen/native/R.cpp",
           "#define DEF(n) \\\n"
           "  void n() { g(); }\n"
           "DEF(a)\n"
           "DEF(b)\n"
           "void plain() {\n"
           "  h();\n"
           "}\n");
  CppIndex index = CppIndex::Build(disk, 1);
  ASSERT_EQ(index.FunctionsNamed("a").size(), 1u);
  ASSERT_EQ(index.FunctionsNamed("b").size(), 1u);
  uint32_t file = index.functions()[index.FunctionsNamed("a")[0]].file;
  EXPECT_EQ(index.FunctionAt(file, 2), -1);
  ASSERT_EQ(index.FunctionsNamed("plain").size(), 1u);
  EXPECT_EQ(index.FunctionAt(file, 6), static_cast<int32_t>(index.FunctionsNamed("plain")[0]));
}

// mkldnn/Utils.cpp:81-85 (2.6.0): `ATTR_FUNC(sigmoid)` pastes `fuse_##NAME()` into
// ideep's `fuse_sigmoid()`; the #define calls no function named by its parameter.
TEST(MacroExpansion, APastedNameIsNoCallOfTheParameter) {
  auto r = ScanCppFile("aten/src/ATen/native/mkldnn/Utils.cpp",
                       "namespace at::native {\n"
                       "#define ATTR_FUNC(NAME)                   \\\n"
                       "  [](int scalars) {                       \\\n"
                       "    return ideep::attr_t::fuse_##NAME();  \\\n"
                       "  }\n"
                       "const std::map<std::string_view, AttrFunction>& fusion_unary_attr_map() {\n"
                       "  static const std::map<std::string_view, AttrFunction> fusion_attr_map{\n"
                       "      {\"sigmoid\", ATTR_FUNC(sigmoid)},\n"
                       "  };\n"
                       "  return fusion_attr_map;\n"
                       "}\n"
                       "}\n");
  for (const CppCall& c : r.calls) EXPECT_NE(c.callee, "NAME") << "line " << c.line;
  EXPECT_EQ(CalleesOf(r, "fusion_unary_attr_map"), (std::vector<std::string>{"ATTR_FUNC:8"}));
}
}  // namespace
}  // namespace optrace
