// `optrace trace --links` on the real 2.6.0 tree (version.txt 2.6.0a0, no git
// metadata): JSON gets a url beside every file:line at tag v2.6.0, markdown a
// Links section citing the same locations; without --links the output is
// unchanged (no url anywhere).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "testing/test_util.h"

namespace optrace {
int CmdTrace(int argc, char** argv);

namespace {

std::string TraceCli(std::vector<std::string> args) {
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  setenv("OPTRACE_NO_VERSION_CHECK", "1", 1);
  setenv("OPTRACE_DAEMON", "0", 1);
  testing::internal::CaptureStdout();
  int rc = CmdTrace(static_cast<int>(argv.size()), argv.data());
  std::string out = testing::internal::GetCapturedStdout();
  EXPECT_EQ(rc, 0);
  return out;
}

constexpr char kBase[] = "https://github.com/pytorch/pytorch/blob/v2.6.0/";

TEST(CmdTraceLinks, JsonCarriesAUrlBesideEveryFileLine) {
  REQUIRE_CORPUS("2.6.0");
  auto j =
      nlohmann::json::parse(TraceCli({"trace", "--source", CorpusTree("2.6.0"), "--json", "--links", "F.softmax"}));
  EXPECT_EQ(j["source"]["permalink"], kBase);
  const auto& yaml = j["ops"][0]["yaml"];
  EXPECT_EQ(yaml["url"], std::string(kBase) + "aten/src/ATen/native/native_functions.yaml#L" +
                             std::to_string(yaml["line"].template get<int>()));
  EXPECT_EQ(j["python"][0]["url"], std::string(kBase) + "torch/nn/functional.py#L2103");
  auto plain = nlohmann::json::parse(TraceCli({"trace", "--source", CorpusTree("2.6.0"), "--json", "F.softmax"}));
  EXPECT_FALSE(plain["python"][0].contains("url"));
  EXPECT_FALSE(plain["source"].contains("permalink"));
}

TEST(CmdTraceLinks, MarkdownEndsWithTheLinks) {
  REQUIRE_CORPUS("2.6.0");
  std::string md = TraceCli({"trace", "--source", CorpusTree("2.6.0"), "--format", "md", "--links", "F.softmax"});
  EXPECT_NE(md.find(std::string("### Links (") + kBase + ")"), std::string::npos);
  EXPECT_NE(md.find(std::string("- [`torch/nn/functional.py:2103`](") + kBase + "torch/nn/functional.py#L2103)"),
            std::string::npos);
  EXPECT_NE(md.find(std::string("(") + kBase + "aten/src/ATen/native/cuda/PersistentSoftmax.cuh#L68)"),
            std::string::npos);
}

}  // namespace
}  // namespace optrace
