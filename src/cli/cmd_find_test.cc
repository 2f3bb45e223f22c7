// `optrace find` on the real 2.6.0 tree, called in-process: macro uses at
// file scope are labelled with what they make (checked by hand:
// sed -n '321,322p' aten/src/ATen/native/UnaryOps.cpp).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "testing/test_util.h"

namespace optrace {
int CmdFind(int argc, char** argv);

namespace {

using ::testing::HasSubstr;

int RunFind(std::vector<std::string> args, std::string* out, std::string* err = nullptr) {
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  setenv("OPTRACE_NO_VERSION_CHECK", "1", 1);
  testing::internal::CaptureStdout();
  testing::internal::CaptureStderr();
  int rc = CmdFind(static_cast<int>(argv.size()), argv.data());
  *out = testing::internal::GetCapturedStdout();
  std::string e = testing::internal::GetCapturedStderr();
  if (err) *err = e;
  return rc;
}

TEST(CmdFind, FileScopeMacroUsesSayWhatTheyMake) {
  REQUIRE_CORPUS("2.6.0");
  std::string out;
  ASSERT_EQ(RunFind({"find", "--source", CorpusTree("2.6.0"), "CREATE_UNARY_TORCH_IMPL_FUNC"}, &out), 0);
  EXPECT_THAT(out, HasSubstr("aten/src/ATen/native/UnaryOps.cpp:301  #define CREATE_UNARY_TORCH_IMPL_FUNC(...)"));
  EXPECT_THAT(out, HasSubstr("aten/src/ATen/native/UnaryOps.cpp:321  at file scope: "
                             "CREATE_UNARY_TORCH_IMPL_FUNC(acos_out, ...)\n"));
  ASSERT_EQ(RunFind({"find", "--json", "--source", CorpusTree("2.6.0"), "CREATE_UNARY_TORCH_IMPL_FUNC"}, &out), 0);
  const nlohmann::json j = nlohmann::json::parse(out);
  ASSERT_GE(j["macro_uses"].size(), 2u);
  const nlohmann::json& acosh = j["macro_uses"][1];
  EXPECT_EQ(acosh["line"], 322);
  EXPECT_EQ(acosh["file_scope"], true);
  EXPECT_EQ(acosh["first_arg"], "acosh_out");
  // The MCP `find` tool's shape (lookup/find_json.h): the first 40 uses
  // (the default --limit) and the count of all 53 (grep -c in the tree).
  EXPECT_EQ(j["symbol"], "CREATE_UNARY_TORCH_IMPL_FUNC");
  EXPECT_EQ(j["macro_uses"].size(), 40u);
  EXPECT_EQ(j["totals"]["macro_uses"], 53);
}

// The answer is lookup/find.h's, shared with the MCP tool: aten ops and
// Python names are found too (native_functions.yaml:552 add.Tensor;
// torch/nn/modules/rnn.py:795 class LSTM).
TEST(CmdFind, AtenOpsAndPythonNamesFromTheSharedAnswer) {
  REQUIRE_CORPUS("2.6.0");
  std::string out;
  ASSERT_EQ(RunFind({"find", "--json", "--source", CorpusTree("2.6.0"), "aten::add.Tensor"}, &out), 0);
  nlohmann::json j = nlohmann::json::parse(out);
  ASSERT_EQ(j["ops"].size(), 1u);
  EXPECT_EQ(j["ops"][0]["line"], 552);
  ASSERT_EQ(RunFind({"find", "--source", CorpusTree("2.6.0"), "nn.LSTM"}, &out), 0);
  EXPECT_THAT(out, HasSubstr("torch/nn/modules/rnn.py:795  class torch.nn.modules.rnn.LSTM"));
}

TEST(CmdFind, UnknownNameSuggestsAndLongNameIsUsage) {
  REQUIRE_CORPUS("2.6.0");
  std::string out, err;
  EXPECT_EQ(RunFind({"find", "--source", CorpusTree("2.6.0"), "softmax_warp_forwrd"}, &out, &err), 1);
  EXPECT_THAT(err, HasSubstr("did you mean: softmax_warp_forward"));
  EXPECT_EQ(RunFind({"find", "--source", CorpusTree("2.6.0"), std::string(8193, 'x')}, &out, &err), 2);
  EXPECT_THAT(err, HasSubstr("query too long"));
}

}  // namespace
}  // namespace optrace
