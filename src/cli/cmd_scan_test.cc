// `optrace scan` called in-process on the real 2.6.0 tree: the command's
// JSON output as one document (the library answers are tested in usescan/).
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
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
  std::vector<std::string> args = {"scan", "--source", CorpusTree("2.6.0"),       "--format",
                                   "json", "--trace",  DataPath("transformer.py")};
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

// Runs `optrace scan ARGS...` in-process; returns the exit code.
int Scan(std::vector<std::string> args, std::string* out) {
  setenv("OPTRACE_NO_VERSION_CHECK", "1", 1);
  args.insert(args.begin(), {"scan", "--source", CorpusTree("2.6.0")});
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  testing::internal::CaptureStdout();
  testing::internal::CaptureStderr();
  int rc = CmdScan(static_cast<int>(argv.size()), argv.data());
  *out = testing::internal::GetCapturedStdout() + testing::internal::GetCapturedStderr();
  return rc;
}

// An empty file reads fine and has no ops: exit 1 as for any file without
// ops, not 3 ("cannot read"); a missing file is 3.
TEST(CmdScan, EmptyFileHasNoOpsMissingFileCannotBeRead) {
  REQUIRE_CORPUS("2.6.0");
  std::string empty = testing::TempDir() + "/optrace_empty_scan.py";
  { std::ofstream(empty, std::ios::trunc); }
  std::string out;
  EXPECT_EQ(Scan({empty}, &out), 1) << out;
  EXPECT_NE(out.find("no torch ops found"), std::string::npos) << out;
  EXPECT_EQ(out.find("cannot read"), std::string::npos) << out;
  EXPECT_EQ(Scan({testing::TempDir() + "/optrace_no_such_file.py"}, &out), 3) << out;
}

// --trace in text: one brief block per traced op, not whole traces.
TEST(CmdScan, TraceTextIsOneBriefBlockPerOp) {
  REQUIRE_CORPUS("2.6.0");
  std::string brief, full;
  ASSERT_EQ(Scan({"--trace", DataPath("transformer.py")}, &brief), 0);
  ASSERT_EQ(Scan({"--trace", "--full", DataPath("transformer.py")}, &full), 0);
  EXPECT_NE(brief.find("\n  nn.Linear\n      python: torch.nn.modules.linear.Linear.forward"), std::string::npos)
      << brief;
  EXPECT_NE(brief.find("      aten: linear"), std::string::npos) << brief;
  size_t brief_lines = std::count(brief.begin(), brief.end(), '\n');
  size_t full_lines = std::count(full.begin(), full.end(), '\n');
  EXPECT_LT(brief_lines * 5, full_lines);
}

}  // namespace
}  // namespace optrace
