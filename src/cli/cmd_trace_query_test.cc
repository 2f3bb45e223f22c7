// `optrace trace` queries CLI11 would otherwise rewrite: an argument written
// "[...]" is a list to CLI11, so the documented indexing query '[]' became
// no query at all (issue 18 #14). Checked on the real 2.6.0 tree: x[i] with
// a tensor index binds aten::index (python_variable_indexing.cpp).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "testing/test_util.h"

namespace optrace {
int CmdTrace(int argc, char** argv);

namespace {

TEST(CmdTraceQuery, IndexingOperatorStaysOneQueryNextToOthers) {
  REQUIRE_CORPUS("2.6.0");
  std::vector<std::string> args = {"trace", "--source", CorpusTree("2.6.0"), "--json", "[]", "nn.ReLU"};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  setenv("OPTRACE_NO_VERSION_CHECK", "1", 1);
  setenv("OPTRACE_DAEMON", "0", 1);  // traced in process, not by a resident daemon
  testing::internal::CaptureStdout();
  int rc = CmdTrace(static_cast<int>(argv.size()), argv.data());
  std::string out = testing::internal::GetCapturedStdout();
  ASSERT_EQ(rc, 0);
  std::vector<nlohmann::json> traces;
  size_t start = 0;
  for (size_t nl; (nl = out.find('\n', start)) != std::string::npos; start = nl + 1)
    if (nl > start) traces.push_back(nlohmann::json::parse(out.substr(start, nl - start)));
  ASSERT_EQ(traces.size(), 2u) << out.substr(0, 300);
  EXPECT_EQ(traces[0]["query"], "[]");
  EXPECT_EQ(traces[0]["target"]["name"], "torch.Tensor.__getitem__");
  EXPECT_EQ(traces[0]["target"]["selected_overload"], "index.Tensor");
  EXPECT_EQ(traces[1]["query"], "nn.ReLU");
}

TEST(CmdTraceQuery, LongQueryIsAUsageErrorBeforeAnyWork) {
  std::vector<std::string> args = {"trace", "--source", "/nonexistent", std::string(100000, 'x')};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  testing::internal::CaptureStderr();
  int rc = CmdTrace(static_cast<int>(argv.size()), argv.data());
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(rc, 2);  // not 3: the checkout is never opened
  EXPECT_NE(err.find("query too long"), std::string::npos) << err;
}

}  // namespace
}  // namespace optrace
