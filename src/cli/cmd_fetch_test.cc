// `optrace fetch` with fake git, apt-cache, apt-get and tar first on PATH
// (sh scripts that log their arguments one per line): the programs get
// exactly the argument vectors fetch means, a version carrying shell syntax
// is refused before anything runs (issue 18 item 5), and a leftover
// DEST.partial is never deleted (issue 18 item 14).
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "testing/test_util.h"

namespace optrace {
namespace {

namespace fs = std::filesystem;

class FetchTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("optrace-fetch-test-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_ + "/bin");
    // git fails (no network), as behind a firewall; apt has two 2.6.0 builds.
    Fake("git", "exit 1");
    Fake("apt-cache",
         "printf 'Package: pytorch\\nVersion: 2.6.0+dfsg-7\\nVersion: 2.6.0+dfsg-10\\nVersion: 2.6.1+dfsg-1\\n'");
    Fake("apt-get", "pwd >> " + dir_ + "/apt-get.cwd; touch pytorch_2.6.0+dfsg.orig.tar.xz");
    // tar -xf T -C DIR --strip-components=1: the tree appears in DIR.
    Fake("tar",
         "mkdir -p \"$4/aten/src/ATen/native\" && echo '- func: a() -> ()' > "
         "\"$4/aten/src/ATen/native/native_functions.yaml\"");
  }
  void TearDown() override { fs::remove_all(dir_); }
  void Fake(const std::string& name, const std::string& body) {
    std::string path = dir_ + "/bin/" + name;
    std::ofstream(path) << "#!/bin/sh\nfor a in \"$@\"; do printf '%s\\n' \"$a\"; done > " << dir_ << "/" << name
                        << ".args\n"
                        << body << "\n";
    fs::permissions(path, fs::perms::owner_all);
  }
  std::string Args(const std::string& name) { return ReadText(dir_ + "/" + name + ".args"); }
  ProcessRun Fetch(const std::string& args) {
    return RunOptrace("PATH=" + dir_ + "/bin:/usr/bin:/bin OPTRACE_NO_VERSION_CHECK=1", "fetch " + args, dir_ + "/run");
  }
  std::string dir_;
};

TEST_F(FetchTest, ProgramsGetArgumentVectorsNotShellLines) {
  std::string dest = dir_ + "/pytorch source";  // a space: one argument, not two
  ProcessRun r = Fetch("--version 2.6.0 --dest '" + dest + "'");
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(Args("git"), "clone\n--quiet\n--depth\n1\n--branch\nv2.6.0\n--\nhttps://github.com/pytorch/pytorch.git\n" +
                             dest + ".partial\n");
  EXPECT_EQ(Args("apt-cache"), "showsrc\npytorch\n");
  // The newest Debian build of 2.6.0 (-10 sorts after -7), not 2.6.1.
  EXPECT_EQ(Args("apt-get"), "source\n--download-only\npytorch=2.6.0+dfsg-10\n");
  EXPECT_EQ(ReadText(dir_ + "/apt-get.cwd"), dest + ".partial.download\n");
  EXPECT_EQ(Args("tar"), "-xf\n" + dest + ".partial.download/pytorch_2.6.0+dfsg.orig.tar.xz\n-C\n" + dest +
                             ".partial\n--strip-components=1\n");
  EXPECT_TRUE(fs::exists(dest + "/aten/src/ATen/native/native_functions.yaml"));
  EXPECT_FALSE(fs::exists(dest + ".partial"));
  EXPECT_FALSE(fs::exists(dest + ".partial.download"));
}

// Issue 29 items 7 and 14: a relative --dest (no parent_path) aborted on an
// uncaught filesystem_error; one spelled like an option reached git as one.
// Both become absolute paths after a "--".
TEST_F(FetchTest, RelativeAndOptionLikeDestinations) {
  fs::create_directories(dir_ + "/cwd");
  for (const std::string& dest : {std::string("mytree"), std::string("--x=y")}) {
    ProcessRun r = RunOptrace("cd " + dir_ + "/cwd && PATH=" + dir_ + "/bin:/usr/bin:/bin OPTRACE_NO_VERSION_CHECK=1",
                              "fetch --version 2.6.0 --dest=" + dest, dir_ + "/run");
    EXPECT_EQ(r.rc, 0) << dest << ": " << r.err;
    std::string absolute = fs::canonical(dir_ + "/cwd").string() + "/" + dest;
    EXPECT_EQ(Args("git"),
              "clone\n--quiet\n--depth\n1\n--branch\nv2.6.0\n--\n"
              "https://github.com/pytorch/pytorch.git\n" +
                  absolute + ".partial\n");
    EXPECT_TRUE(fs::exists(absolute + "/aten/src/ATen/native/native_functions.yaml")) << dest;
  }
}

TEST_F(FetchTest, VersionWithShellSyntaxIsRefusedBeforeAnythingRuns) {
  std::string marker = dir_ + "/PWNED";
  for (const std::string& version :
       std::vector<std::string>{"2.6.0'; touch " + marker + "; echo '", "2.6.0$(touch " + marker + ")",
                                "2.6.0`touch " + marker + "`", "-2.6", "2.6.0 --upload-pack=touch", "v2.6.0", ""}) {
    // Single-quoted for the test's own shell: optrace gets the string as is.
    std::string quoted = "'";
    for (char c : version) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
    ProcessRun r = Fetch("--version " + quoted + "' --dest " + dir_ + "/dest");
    EXPECT_EQ(r.rc, 2) << version << ": " << r.err;
    EXPECT_FALSE(fs::exists(marker)) << version;
    EXPECT_FALSE(fs::exists(dir_ + "/git.args")) << version << ": git ran";
  }
}

TEST_F(FetchTest, LeftoverPartialIsNeverDeleted) {
  std::string dest = dir_ + "/dest";
  fs::create_directories(dest + ".partial");
  std::ofstream(dest + ".partial/keep") << "the user's";
  ProcessRun r = Fetch("--version 2.6.0 --dest " + dest);
  EXPECT_EQ(r.rc, 3);
  EXPECT_NE(r.err.find(dest + ".partial exists"), std::string::npos) << r.err;
  EXPECT_TRUE(fs::exists(dest + ".partial/keep"));
  EXPECT_FALSE(fs::exists(dir_ + "/git.args"));
}

}  // namespace
}  // namespace optrace
