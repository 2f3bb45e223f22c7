// `optrace info` and checkout discovery, run as a real process: the version
// of the 2.6.0 tree, the TILEGYM_SKILL_CACHE_DIR location, and a missing
// checkout (exit 3 with a message that says how to get one).
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "testing/test_util.h"

namespace optrace {
namespace {

struct Result {
  int exit_code;
  std::string output;  // stdout and stderr
};

Result RunOptrace(const std::string& env, const std::string& args) {
  std::string command =
      "env -u PYTORCH_SOURCE OPTRACE_NO_VERSION_CHECK=1 " + env + " " + OPTRACE_BINARY + " " + args + " 2>&1";
  Result r{-1, ""};
  FILE* p = ::popen(command.c_str(), "r");
  if (!p) return r;
  char buf[4096];
  while (size_t n = std::fread(buf, 1, sizeof buf, p)) r.output.append(buf, n);
  int status = ::pclose(p);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

TEST(CmdInfo, PrintsTheCheckoutVersion) {
  REQUIRE_CORPUS("2.6.0");
  Result r = RunOptrace("", "info --source " + CorpusTree("2.6.0"));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("version:   2.6.0a0"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("found by --source"), std::string::npos) << r.output;
  // The allocator the build linked: jemalloc where it found libjemalloc.a
  // (glibc's malloc.o kept out of the link), glibc's malloc otherwise.
  EXPECT_NE(r.output.find(std::string("heap:      ") + OPTRACE_HEAP + " "), std::string::npos) << r.output;
}

TEST(CmdInfo, FindsTheTilegymCacheCheckout) {
  REQUIRE_CORPUS("1.13.1");
  std::filesystem::path cache =
      std::filesystem::temp_directory_path() / ("optrace-tilegym-" + std::to_string(::getpid()));
  std::filesystem::create_directories(cache);
  std::filesystem::create_directory_symlink(CorpusTree("1.13.1"), cache / "pytorch-source");
  Result r = RunOptrace("TILEGYM_SKILL_CACHE_DIR=" + cache.string(), "info");
  std::filesystem::remove_all(cache);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("version:   1.13.0a0"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("found by TILEGYM_SKILL_CACHE_DIR"), std::string::npos) << r.output;
}

TEST(CmdInfo, MissingCheckoutExits3AndSaysHowToFetch) {
  std::filesystem::path empty =
      std::filesystem::temp_directory_path() / ("optrace-empty-" + std::to_string(::getpid()));
  std::filesystem::create_directories(empty);
  Result r = RunOptrace("TILEGYM_SKILL_CACHE_DIR=" + empty.string(), "info");
  Result not_tree = RunOptrace("", "info --source " + empty.string());
  std::filesystem::remove_all(empty);
  EXPECT_EQ(r.exit_code, 3) << r.output;
  EXPECT_NE(r.output.find("no PyTorch checkout"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("optrace fetch"), std::string::npos) << r.output;
  EXPECT_EQ(not_tree.exit_code, 3) << not_tree.output;
  EXPECT_NE(not_tree.output.find("is not a PyTorch checkout"), std::string::npos) << not_tree.output;
}

TEST(CmdInfo, UnknownSubcommandSuggests) {
  Result r = RunOptrace("", "trcae nn.LSTM");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("did you mean 'trace'"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace optrace
