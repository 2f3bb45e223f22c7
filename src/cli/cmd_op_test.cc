// `optrace op` / `optrace ops` on the real 2.6.0 tree, called in-process.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "testing/test_util.h"

namespace optrace {
int CmdOp(int argc, char** argv);
int CmdOps(int argc, char** argv);

namespace {

using ::testing::HasSubstr;

// Runs a subcommand with `args` (argv[0] first); returns its exit code, stdout and stderr.
int RunCommand(int (*cmd)(int, char**), std::vector<std::string> args, std::string* out, std::string* err) {
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  setenv("OPTRACE_NO_VERSION_CHECK", "1", 1);
  testing::internal::CaptureStdout();
  testing::internal::CaptureStderr();
  int rc = cmd(static_cast<int>(argv.size()), argv.data());
  *out = testing::internal::GetCapturedStdout();
  *err = testing::internal::GetCapturedStderr();
  return rc;
}

TEST(CmdOp, LstmShowsImpliedCompositeWithLine) {
  REQUIRE_CORPUS("2.6.0");
  std::string out, err;
  int rc = RunCommand(CmdOp, {"op", "--source", CorpusTree("2.6.0"), "lstm.input"}, &out, &err);
  EXPECT_EQ(rc, 0) << err;
  EXPECT_THAT(out, HasSubstr("lstm.input   aten/src/ATen/native/native_functions.yaml:7854"));
  EXPECT_THAT(out, HasSubstr("CompositeImplicitAutograd: lstm   [implied: no dispatch: table]"));
  EXPECT_THAT(out, HasSubstr("derivative:  no tools/autograd/derivatives.yaml entry named lstm.input"));
}

TEST(CmdOp, SoftmaxListsOverloadsAndDerivative) {
  REQUIRE_CORPUS("2.6.0");
  std::string out, err;
  int rc = RunCommand(CmdOp, {"op", "--source", CorpusTree("2.6.0"), "_softmax"}, &out, &err);
  EXPECT_EQ(rc, 0) << err;
  EXPECT_THAT(out, HasSubstr("_softmax.out   aten/src/ATen/native/native_functions.yaml:5559"));
  EXPECT_THAT(out, HasSubstr("CUDA: softmax_cuda_out"));
  EXPECT_THAT(out, HasSubstr("derivative:  tools/autograd/derivatives.yaml:2196"));
  EXPECT_THAT(out, HasSubstr("self: _softmax_backward_data(grad, result, dim, self.scalar_type())   (line 2197)"));
}

TEST(CmdOp, JsonForAddOut) {
  REQUIRE_CORPUS("2.6.0");
  std::string out, err;
  int rc = RunCommand(CmdOp, {"op", "--source", CorpusTree("2.6.0"), "--json", "add.out"}, &out, &err);
  ASSERT_EQ(rc, 0) << err;
  auto j = nlohmann::json::parse(out);
  ASSERT_EQ(j["functions"].size(), 1u);
  const auto& f = j["functions"][0];
  EXPECT_EQ(f["line"], 575);
  EXPECT_EQ(f["dispatch"]["CPU"], "ufunc_add_CPU");
  EXPECT_EQ(f["dispatch"]["CUDA"], "ufunc_add_CUDA");
  EXPECT_EQ(f["ufunc_inner_loop"]["ScalarOnly"], "add (Bool)");
  EXPECT_TRUE(f["derivative"].is_null());
}

TEST(CmdOp, UnknownNameSuggestsAndExitsOne) {
  REQUIRE_CORPUS("2.6.0");
  std::string out, err;
  int rc = RunCommand(CmdOp, {"op", "--source", CorpusTree("2.6.0"), "_sofmax"}, &out, &err);
  EXPECT_EQ(rc, 1);
  EXPECT_THAT(err, HasSubstr("no operator '_sofmax'"));
  EXPECT_THAT(err, HasSubstr("did you mean _softmax"));
}

// lookup/op.h decides which entries a name means, for the CLI as for MCP.
TEST(CmdOp, AtenAndTorchOpsSpellings) {
  REQUIRE_CORPUS("2.6.0");
  std::string out, err;
  ASSERT_EQ(RunCommand(CmdOp, {"op", "--source", CorpusTree("2.6.0"), "torch.ops.aten.mm.default"}, &out, &err), 0)
      << err;
  EXPECT_THAT(out, HasSubstr("mm   aten/src/ATen/native/native_functions.yaml:4132"));
  ASSERT_EQ(RunCommand(CmdOp, {"op", "--source", CorpusTree("2.6.0"), "aten::add.Tensor"}, &out, &err), 0) << err;
  EXPECT_THAT(out, HasSubstr("add.Tensor   aten/src/ATen/native/native_functions.yaml:552"));
  EXPECT_EQ(RunCommand(CmdOp, {"op", "--source", CorpusTree("2.6.0"), std::string(8193, 'x')}, &out, &err), 2);
}

TEST(CmdOps, JsonHasEveryFunctionIncludingGenerated) {
  REQUIRE_CORPUS("2.6.0");
  std::string out, err;
  int rc = RunCommand(CmdOps, {"ops", "--source", CorpusTree("2.6.0"), "--json"}, &out, &err);
  ASSERT_EQ(rc, 0) << err;
  auto j = nlohmann::json::parse(out);
  ASSERT_TRUE(j.is_array());
  EXPECT_EQ(j.size(), 3144u);  // what torchgen's parse_native_yaml returns for 2.6.0
  size_t generated = 0;
  for (const auto& f : j) generated += f["autogen_from"].is_null() ? 0 : 1;
  EXPECT_EQ(generated, 511u);  // NativeFunctions tagged "generated" by torchgen
}

}  // namespace
}  // namespace optrace
