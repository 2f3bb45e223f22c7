// The resident daemon as users meet it: real optrace processes (OPTRACE_BINARY)
// on a copy of part of the 2.6.0 tree, each test with its own cache folder.
// A trace answered by the daemon must be byte-for-byte the in-process trace,
// an edit must show up in the very next trace, and a broken daemon socket
// must never cost the client its answer.
#include "cli/cmd_daemon.h"

#include <gtest/gtest.h>
#include <sys/inotify.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "testing/test_util.h"

namespace optrace {
namespace {

namespace fs = std::filesystem;

class DaemonTest : public ::testing::Test {
 protected:
  void SetUp() override {
    REQUIRE_CORPUS("2.6.0");
    int probe = ::inotify_init1(IN_CLOEXEC);
    if (probe < 0) GTEST_SKIP() << "no inotify here: the daemon never serves (traces run in process)";
    ::close(probe);
    std::string from = CorpusTree("2.6.0");
    dir_ = fs::temp_directory_path() / ("optrace-daemon-test-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    tree_ = dir_ + "/tree";
    cache_ = dir_ + "/cache";
    fs::create_directories(cache_);
    CopySoftmaxSlice(from, tree_);
  }
  void TearDown() override {
    // A daemon started by the last trace may still be loading (and writing
    // into the cache): stop it until none answers, then remove everything.
    for (int i = 0; i < 50; ++i) {
      bool none = Optrace("daemon --stop --source " + tree_, true).rc != 0;  // 1: none; 3: tree gone
      std::error_code ec;
      fs::remove_all(dir_, ec);
      if (none && !ec && !fs::exists(dir_)) return;
      fs::create_directories(cache_, ec);
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    ADD_FAILURE() << "could not stop the daemon and remove " << dir_;
  }
  // Runs optrace with this test's cache; `daemon` enables the daemon.
  ProcessRun Optrace(const std::string& args, bool daemon) {
    static int n = 0;
    std::string base = dir_ + "/run" + std::to_string(n++);
    return RunOptrace("XDG_CACHE_HOME=" + cache_ + " OPTRACE_NO_VERSION_CHECK=1 OPTRACE_DAEMON=" + (daemon ? "1" : "0"),
                      args, base);
  }
  // Waits (up to 20 s) until a daemon answers --status.
  bool DaemonUp() {
    for (int i = 0; i < 200; ++i) {
      if (Optrace("daemon --status --source " + tree_, true).rc == 0) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return false;
  }
  std::string Trace(const std::string& flags, bool daemon) {
    ProcessRun r = Optrace("trace " + flags + " --source " + tree_ + " aten::_softmax", daemon);
    EXPECT_EQ(r.rc, 0) << r.err;
    return r.out;
  }
  std::string dir_, tree_, cache_;
};

TEST_F(DaemonTest, AnswersExactlyWhatTheProcessPrints) {
  EXPECT_EQ(Optrace("daemon --status --source " + tree_, true).rc, 1);  // none yet
  std::string json = Trace("--json", false), text = Trace("--format text --width 90", false);
  ASSERT_NE(json.find("\"_softmax\""), std::string::npos);
  // The first trace starts the daemon; later ones are answered by it.
  EXPECT_EQ(Trace("--json", true), json);
  ASSERT_TRUE(DaemonUp());
  ProcessRun status = Optrace("daemon --status --source " + tree_, true);
  EXPECT_NE(status.out.find("serving " + fs::canonical(tree_).string()), std::string::npos) << status.out;
  EXPECT_EQ(Trace("--json", true), json);
  EXPECT_EQ(Trace("--format text --width 90", true), text);
  EXPECT_NE(Optrace("daemon --status --source " + tree_, true).out.find(" 2 requests answered"), std::string::npos);
  // Exit codes and stderr travel too.
  ProcessRun missing = Optrace("trace --json --source " + tree_ + " no_such_op_xyz", true);
  EXPECT_EQ(missing.rc, 1);
  EXPECT_NE(missing.err.find("no_such_op_xyz"), std::string::npos) << missing.err;
  EXPECT_EQ(Optrace("daemon --stop --source " + tree_, true).rc, 0);
  EXPECT_EQ(Optrace("daemon --status --source " + tree_, true).rc, 1);
}

TEST_F(DaemonTest, AnEditShowsUpInTheNextTrace) {
  std::string before = Trace("--json", true);
  ASSERT_TRUE(DaemonUp());
  std::string cu = tree_ + "/aten/src/ATen/native/cuda/SoftMax.cu";
  std::string text = ReadText(cu);
  std::ofstream(cu, std::ios::binary) << "// two new\n// lines\n" << text;
  std::string after = Trace("--json", false);
  ASSERT_NE(after, before);  // SoftMax.cu's lines moved
  EXPECT_EQ(Trace("--json", true), after);
  // The daemon that saw the edit ended; the trace started a fresh one.
  ASSERT_TRUE(DaemonUp());
  EXPECT_EQ(Trace("--json", true), after);
}

TEST_F(DaemonTest, ABrokenSocketNeverCostsTheAnswer) {
  std::string json = Trace("--json", false);
  // Something that accepts and hangs up at once, where the daemon would listen.
  ProcessRun none = Optrace("daemon --status --source " + tree_, true);
  ASSERT_EQ(none.rc, 1);
  size_t at = none.out.find("(socket ");
  ASSERT_NE(at, std::string::npos) << none.out;
  std::string path = none.out.substr(at + 8, none.out.find(')', at) - at - 8);
  ASSERT_EQ(path.substr(0, cache_.size()), cache_);
  fs::create_directories(fs::path(path).parent_path());
  int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::strcpy(addr.sun_path, path.c_str());
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  ASSERT_EQ(::listen(fd, 8), 0);
  std::thread rude([fd] {
    for (int i = 0; i < 2; ++i) {
      int c = ::accept(fd, nullptr, nullptr);
      if (c >= 0) ::close(c);
    }
  });
  EXPECT_EQ(Trace("--json", true), json);
  // A plain file where the socket should be.
  ::shutdown(fd, SHUT_RDWR);
  ::close(fd);
  rude.join();
  fs::remove(path);
  std::ofstream(path) << "not a socket";
  EXPECT_EQ(Trace("--json", true), json);
}

}  // namespace
}  // namespace optrace
