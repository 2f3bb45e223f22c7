// `optrace scan` called in-process on the real 2.6.0 tree: the command's
// JSON output as one document (the library answers are tested in usescan/).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "testing/test_util.h"

namespace optrace {
namespace {

// tests/data/scan/NAME in this source tree.
std::string DataPath(const std::string& name) {
  std::string here = __FILE__;
  return here.substr(0, here.rfind("/src/")) + "/tests/data/scan/" + name;
}

TEST(CmdScan, TraceJsonIsOneDocument) {
  REQUIRE_CORPUS("2.6.0");
  setenv("OPTRACE_NO_VERSION_CHECK", "1", 1);
  std::vector<std::string> args = {"scan", "--source", CorpusTree("2.6.0"), "--format", "json", "--trace",
                                   DataPath("transformer.py")};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  testing::internal::CaptureStdout();
  int rc = CmdScan(static_cast<int>(argv.size()), argv.data());
  std::string out = testing::internal::GetCapturedStdout();
  ASSERT_EQ(rc, 0);
  auto j = nlohmann::json::parse(out);
  EXPECT_EQ(j["schema"], "optrace.scan/1");
  size_t needs = 0;
  for (const auto& op : j["ops"]) needs += op["needs_trace"].get<bool>();
  ASSERT_EQ(j["traces"].size(), needs);
  EXPECT_EQ(j["traces"][0]["schema"], "optrace.trace/1");
}

}  // namespace
}  // namespace optrace
