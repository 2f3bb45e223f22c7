// Permalinks name the checkout's exact version or nothing: release tags from
// version.txt, the commit of a git checkout's HEAD (every way git stores it),
// and the 2.6.0 tree's own links.
#include "base/permalink.h"

#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "testing/test_util.h"

namespace optrace {
namespace {

TEST(Permalink, ReleaseTagsFromVersionTxt) {
  EXPECT_EQ(RefOfVersion("2.6.0a0"), "v2.6.0");
  EXPECT_EQ(RefOfVersion("2.6.0a0\n"), "v2.6.0");
  EXPECT_EQ(RefOfVersion("2.6.0"), "v2.6.0");
  EXPECT_EQ(RefOfVersion("2.5.0rc3"), "v2.5.0-rc3");
  EXPECT_EQ(RefOfVersion("2.6.0a0+git1a2b3c4"), "1a2b3c4");
  EXPECT_EQ(RefOfVersion("2.6.0.dev20241112"), "");  // a nightly: no tag names it
  EXPECT_EQ(RefOfVersion(""), "");
  EXPECT_EQ(RefOfVersion("banana"), "");
}

class GitDir : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/optrace-permalink-XXXXXX";
    ASSERT_NE(::mkdtemp(pattern), nullptr);
    root_ = pattern;
  }
  void TearDown() override { std::filesystem::remove_all(root_); }
  void Write(const std::string& path, const std::string& text) {
    std::filesystem::create_directories(std::filesystem::path(root_ + "/" + path).parent_path());
    std::ofstream(root_ + "/" + path) << text;
  }
  std::string root_;
};

constexpr char kCommit[] = "0123456789abcdef0123456789abcdef01234567";

TEST_F(GitDir, DetachedHead) {
  Write(".git/HEAD", std::string(kCommit) + "\n");
  EXPECT_EQ(GitHeadCommit(root_), kCommit);
  EXPECT_EQ(PermalinkBase(root_, "2.6.0a0"), std::string("https://github.com/pytorch/pytorch/blob/") + kCommit + "/");
}

TEST_F(GitDir, BranchInALooseRefOrPackedRefs) {
  Write(".git/HEAD", "ref: refs/heads/main\n");
  EXPECT_EQ(GitHeadCommit(root_), "");
  Write(".git/packed-refs", std::string("# pack-refs with: peeled\n") + kCommit + " refs/heads/main\n");
  EXPECT_EQ(GitHeadCommit(root_), kCommit);
  Write(".git/refs/heads/main", "fedcba9876543210fedcba9876543210fedcba98\n");
  EXPECT_EQ(GitHeadCommit(root_), "fedcba9876543210fedcba9876543210fedcba98");  // a loose ref wins
}

TEST_F(GitDir, AWorktreeNamesItsGitDir) {
  Write("main/.git/refs/heads/b", std::string(kCommit) + "\n");
  Write("main/.git/worktrees/w/HEAD", "ref: refs/heads/b\n");
  Write("main/.git/worktrees/w/commondir", "../..\n");
  Write("w/.git", "gitdir: " + root_ + "/main/.git/worktrees/w\n");
  EXPECT_EQ(GitHeadCommit(root_ + "/w"), kCommit);
}

TEST_F(GitDir, NoMetadataNoVersionNoLink) {
  EXPECT_EQ(GitHeadCommit(root_), "");
  EXPECT_EQ(PermalinkBase(root_, ""), "");
  EXPECT_EQ(PermalinkBase(root_, "2.6.0.dev20241112"), "");
}

TEST(Permalink, TheRealTreeLinksToItsTag) {
  REQUIRE_CORPUS("2.6.0");
  std::string base = PermalinkBase(CorpusTree("2.6.0"), "2.6.0a0");
  EXPECT_EQ(base, "https://github.com/pytorch/pytorch/blob/v2.6.0/");
  EXPECT_EQ(Permalink(base, "aten/src/ATen/native/cuda/PersistentSoftmax.cuh", 68),
            "https://github.com/pytorch/pytorch/blob/v2.6.0/aten/src/ATen/native/cuda/PersistentSoftmax.cuh#L68");
}

TEST(Permalink, EveryFileLinePairGetsItsUrl) {
  nlohmann::ordered_json v = {{"file", "a.cpp"},
                              {"line", 3},
                              {"impls", {{{"file", "b.cu"}, {"line", 9}}, {{"file", "c.cu"}}}},
                              {"where", {{"file", "/abs.py"}, {"line", 1}}}};
  AddPermalinks(&v, "https://github.com/pytorch/pytorch/blob/v2.6.0/");
  EXPECT_EQ(v["url"], "https://github.com/pytorch/pytorch/blob/v2.6.0/a.cpp#L3");
  EXPECT_EQ(v["impls"][0]["url"], "https://github.com/pytorch/pytorch/blob/v2.6.0/b.cu#L9");
  EXPECT_FALSE(v["impls"][1].contains("url"));  // no line: no anchor to cite
  EXPECT_FALSE(v["where"].contains("url"));     // not a checkout path
  nlohmann::ordered_json none = {{"file", "a.cpp"}, {"line", 3}};
  AddPermalinks(&none, "");
  EXPECT_FALSE(none.contains("url"));
}

}  // namespace
}  // namespace optrace
