// RunProgram hands its argument vector to the program untouched (no shell
// ever parses it), honours the working directory, and kills a child that
// overruns its deadline.
#include "base/subprocess.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

namespace optrace {
namespace {

namespace fs = std::filesystem;

class SubprocessTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("optrace-subprocess-test-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string dir_;
};

TEST_F(SubprocessTest, ShellSyntaxInAnArgumentIsNeverRun) {
  std::string marker = dir_ + "/PWNED";
  std::string hostile = "x'; touch " + marker + "; echo '$(touch " + marker + ")`touch " + marker + "`";
  RunResult r = RunProgram({"printf", "%s\\n", hostile});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out, hostile + "\n");
  EXPECT_FALSE(fs::exists(marker));
}

TEST_F(SubprocessTest, RunsInTheGivenDirectory) {
  RunSettings settings;
  settings.cwd = dir_;
  RunResult r = RunProgram({"pwd"}, settings);
  EXPECT_EQ(r.out, fs::canonical(dir_).string() + "\n");
}

TEST_F(SubprocessTest, NicenessLowersTheChildsPriorityOnly) {
  // `nice` with no operand prints its own niceness: ours plus what the
  // settings add (the kernel caps it at 19).
  const int ours = ::nice(0);
  RunSettings settings;
  settings.niceness = 7;
  RunResult lowered = RunProgram({"nice"}, settings);
  ASSERT_EQ(lowered.exit_code, 0);
  EXPECT_EQ(lowered.out, std::to_string(std::min(ours + 7, 19)) + "\n");
  RunResult same = RunProgram({"nice"});
  ASSERT_EQ(same.exit_code, 0);
  EXPECT_EQ(same.out, std::to_string(ours) + "\n");
  EXPECT_EQ(::nice(0), ours);  // ours is untouched
}

TEST_F(SubprocessTest, MissingProgramIsNotStarted) {
  RunResult r = RunProgram({"optrace-no-such-program-anywhere"});
  EXPECT_FALSE(r.started);
  EXPECT_NE(r.exit_code, 0);
}

TEST_F(SubprocessTest, DeadlineKillsAHungChild) {
  RunSettings settings;
  settings.timeout_s = 0.2;
  RunResult r = RunProgram({"sleep", "30"}, settings);
  EXPECT_TRUE(r.timed_out);
  EXPECT_EQ(r.exit_code, -1);
}

TEST_F(SubprocessTest, FindOnPathSkipsRelativeEntries) {
  // An empty PATH entry means "the current directory" to a shell; an
  // interpreter planted there must not be found.
  fs::path fake = fs::path(dir_) / "python3";
  {
    std::FILE* f = std::fopen(fake.c_str(), "w");
    std::fputs("#!/bin/sh\n", f);
    std::fclose(f);
  }
  fs::permissions(fake, fs::perms::owner_all);
  std::string old_path = std::getenv("PATH") ? std::getenv("PATH") : "";
  std::string old_cwd = fs::current_path();
  fs::current_path(dir_);
  setenv("PATH", ":.:", 1);
  EXPECT_EQ(FindOnPath("python3"), "");
  setenv("PATH", (dir_ + ":" + old_path).c_str(), 1);
  EXPECT_EQ(FindOnPath("python3"), fake.string());
  setenv("PATH", old_path.c_str(), 1);
  fs::current_path(old_cwd);
}

}  // namespace
}  // namespace optrace

namespace optrace {
namespace {

// Issue 29 item 2: RunProgram resolves the program itself (FindOnPath),
// never execvp's search, which tries an empty PATH entry: the cwd.
TEST_F(SubprocessTest, EmptyPathEntryNeverRunsTheCurrentDirectory) {
  std::string marker = dir_ + "/PWNED";
  fs::path fake = fs::path(dir_) / "optrace-planted-tool";
  {
    std::FILE* f = std::fopen(fake.c_str(), "w");
    std::fprintf(f, "#!/bin/sh\ntouch %s\n", marker.c_str());
    std::fclose(f);
  }
  fs::permissions(fake, fs::perms::owner_all);
  std::string old_path = std::getenv("PATH") ? std::getenv("PATH") : "";
  std::string old_cwd = fs::current_path();
  fs::current_path(dir_);
  setenv("PATH", (":" + old_path).c_str(), 1);
  RunResult r = RunProgram({"optrace-planted-tool"});
  setenv("PATH", old_path.c_str(), 1);
  fs::current_path(old_cwd);
  EXPECT_FALSE(r.started);
  EXPECT_FALSE(fs::exists(marker));
}

// Item 6: the child runs in a group of its own that KillChildGroups ends,
// grandchildren included.
TEST_F(SubprocessTest, KillChildGroupsEndsTheChildAndWhatItStarted) {
  std::string pid_file = dir_ + "/grandchild";
  std::thread killer([&] {
    for (int i = 0; i < 1500 && !fs::exists(pid_file); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    KillChildGroups();
  });
  auto start = std::chrono::steady_clock::now();
  RunSettings settings;
  settings.timeout_s = 60;
  RunResult r = RunProgram({"sh", "-c", "sleep 300 & echo $! > " + pid_file + "; wait"}, settings);
  killer.join();
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 30);
  EXPECT_EQ(r.exit_code, -1);
  std::string pid;
  std::getline(std::ifstream(pid_file) >> std::ws, pid);
  // SIGKILL is delivered when the grandchild is next scheduled: on a busy
  // machine it may still read as sleeping for a moment.
  std::string line;
  for (int i = 0; i < 250; ++i) {
    std::ifstream stat("/proc/" + pid + "/stat");
    line.clear();
    std::getline(stat, line);
    if (line.empty() || line.find(") Z") != std::string::npos) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_TRUE(line.empty() || line.find(") Z") != std::string::npos) << line;
}

}  // namespace
}  // namespace optrace
