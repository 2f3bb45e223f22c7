// `optrace verify QUERY --time` on Debian's torch 1.13 (python3-torch, CPU)
// against the 1.13.1 tree: the op runs with the given shapes under the
// profiler, and every operator it ran is one the static trace reaches.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>

#include "testing/test_util.h"

namespace optrace {
int CmdVerify(int argc, char** argv);

namespace {

using ::testing::HasSubstr;

int RunVerify(std::vector<std::string> args, std::string* out, std::string* err) {
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  const char* env = std::getenv("PYTHON");
  setenv("PYTHON", env && *env ? env : "/usr/bin/python3", 1);
  setenv("OPTRACE_NO_VERSION_CHECK", "1", 1);
  testing::internal::CaptureStdout();
  testing::internal::CaptureStderr();
  int rc = CmdVerify(static_cast<int>(argv.size()), argv.data());
  *out = testing::internal::GetCapturedStdout();
  *err = testing::internal::GetCapturedStderr();
  return rc;
}

TEST(CmdVerifyTime, MatmulRunsAndIsJoinedWithItsTrace) {
  REQUIRE_CORPUS("1.13.1");
  std::string out, err;
  ASSERT_EQ(RunVerify({"verify", "torch.matmul", "--time", "--shape", "64,32", "--shape", "32,16", "--repeat", "5",
                       "--source", CorpusTree("1.13.1")},
                      &out, &err),
            0)
      << err;
  EXPECT_THAT(out, HasSubstr("ran       5 times on cpu, dtype float32, inputs [64,32] [32,16]"));
  EXPECT_THAT(out, HasSubstr("trace     torch torch.matmul"));
  // torch.matmul of two matrices is aten::mm, 5 calls, and the trace reaches it.
  EXPECT_THAT(out, ::testing::ContainsRegex("aten::mm\n"));
  EXPECT_THAT(out, ::testing::ContainsRegex(" 5  +[0-9.]+  aten::mm"));
  EXPECT_THAT(out, HasSubstr("in the static trace: #1"));
}

TEST(CmdVerifyTime, UsageAndTorchErrors) {
  REQUIRE_CORPUS("1.13.1");
  std::string out, err;
  EXPECT_EQ(RunVerify({"verify", "torch.matmul", "--time", "--source", CorpusTree("1.13.1")}, &out, &err), 2);
  EXPECT_THAT(err, HasSubstr("--shape"));
  // A module class is not called with random tensors: the torch side says so (exit 4).
  EXPECT_EQ(RunVerify({"verify", "nn.LSTM", "--time", "--shape", "2,3", "--source", CorpusTree("1.13.1")}, &out, &err),
            4);
  EXPECT_THAT(err, HasSubstr("not module classes"));
}

}  // namespace
}  // namespace optrace
