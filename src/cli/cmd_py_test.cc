// `optrace py` on the real 2.6.0 tree, called in-process, over the
// persistent index (lookup/py.h answers; checked by hand: class LSTM at
// torch/nn/modules/rnn.py:795).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "testing/test_util.h"

namespace optrace {
int CmdPy(int argc, char** argv);

namespace {

using ::testing::HasSubstr;

int RunPy(std::vector<std::string> args, std::string* out, std::string* err) {
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  setenv("OPTRACE_NO_VERSION_CHECK", "1", 1);
  testing::internal::CaptureStdout();
  testing::internal::CaptureStderr();
  int rc = CmdPy(static_cast<int>(argv.size()), argv.data());
  *out = testing::internal::GetCapturedStdout();
  *err = testing::internal::GetCapturedStderr();
  return rc;
}

TEST(CmdPy, ShorthandResolvesToTheClass) {
  REQUIRE_CORPUS("2.6.0");
  std::string out, err;
  ASSERT_EQ(RunPy({"py", "--json", "--source", CorpusTree("2.6.0"), "nn.LSTM"}, &out, &err), 0) << err;
  nlohmann::json j = nlohmann::json::parse(out);
  EXPECT_EQ(j["kind"], "class");
  EXPECT_EQ(j["path"], "torch/nn/modules/rnn.py");
  EXPECT_EQ(j["line"], 795);
}

TEST(CmdPy, UnknownNameSuggestsAndLongNameIsUsage) {
  REQUIRE_CORPUS("2.6.0");
  std::string out, err;
  EXPECT_EQ(RunPy({"py", "--source", CorpusTree("2.6.0"), "nn.LSMT"}, &out, &err), 1);
  EXPECT_THAT(err, HasSubstr("did you mean: torch.nn.LSTM"));
  EXPECT_EQ(RunPy({"py", "--source", CorpusTree("2.6.0"), std::string(8193, 'x')}, &out, &err), 2);
}

}  // namespace
}  // namespace optrace
