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

#include <signal.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
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
  EXPECT_NE(Optrace("daemon --status --source " + tree_, true).out.find(" 2 requests answered, 0 from memory"),
            std::string::npos);
  // A request asked before is answered from memory, byte for byte.
  EXPECT_EQ(Trace("--json", true), json);
  EXPECT_NE(Optrace("daemon --status --source " + tree_, true).out.find(" 3 requests answered, 1 from memory"),
            std::string::npos);
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

// The daemon's pid, from `daemon --status`.
pid_t DaemonPid(const std::string& status) {
  size_t at = status.find("pid ");
  return at == std::string::npos ? 0 : static_cast<pid_t>(std::atoi(status.c_str() + at + 4));
}

// Issue 18 #12: a stopped daemon (SIGSTOP) stalled every trace for 61.5 s
// with no message. Now the client gives up after 2 s of silence, says so in
// one line and traces in process.
TEST_F(DaemonTest, AStoppedDaemonCostsOneLineAndTheTraceInProcess) {
  std::string json = Trace("--json", false);
  EXPECT_EQ(Trace("--json", true), json);
  ASSERT_TRUE(DaemonUp());
  pid_t pid = DaemonPid(Optrace("daemon --status --source " + tree_, true).out);
  ASSERT_GT(pid, 0);
  ASSERT_EQ(::kill(pid, SIGSTOP), 0);
  ProcessRun r = Optrace("trace --json --source " + tree_ + " aten::_softmax", true);
  ::kill(pid, SIGCONT);
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(r.out, json);
  EXPECT_NE(r.err.find("optrace: the daemon (pid " + std::to_string(pid) +
                       ") did not answer within 2 s; tracing in process\n"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}

// Issue 18 #6: the daemon crashed when its image changed in place
// (truncate -s0: SIGBUS; cp other.img over it: SIGSEGV).
TEST_F(DaemonTest, AnImageChangedInPlaceDoesNotKillTheDaemon) {
  std::string json = Trace("--json", false);
  EXPECT_EQ(Trace("--json", true), json);
  ASSERT_TRUE(DaemonUp());
  pid_t pid = DaemonPid(Optrace("daemon --status --source " + tree_, true).out);
  std::string image;
  for (const auto& e : fs::directory_iterator(cache_ + "/optrace"))
    if (e.path().extension() == ".img") image = e.path();
  ASSERT_FALSE(image.empty());
  const auto size = fs::file_size(image);
  ASSERT_EQ(::truncate(image.c_str(), 0), 0);
  EXPECT_EQ(Trace("--json", true), json);
  {
    std::ofstream over(image, std::ios::binary | std::ios::in | std::ios::out);
    over << std::string(size, '\x5a');
  }
  EXPECT_EQ(Trace("--json", true), json);
  ProcessRun status = Optrace("daemon --status --source " + tree_, true);
  EXPECT_EQ(status.rc, 0) << status.err;
  EXPECT_EQ(DaemonPid(status.out), pid);  // the same daemon, alive
  EXPECT_NE(status.out.find(" 2 requests answered"), std::string::npos) << status.out;
}

// Issue 18 #4: a socket at the daemon's path served by another user's
// process is never believed (SO_PEERCRED). Needs root to be another user.
TEST_F(DaemonTest, ADaemonOfAnotherUserIsNotBelieved) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to listen as another user";
  std::string json = Trace("--json", false);
  ProcessRun none = Optrace("daemon --status --source " + tree_, true);
  size_t at = none.out.find("(socket ");
  ASSERT_NE(at, std::string::npos) << none.out;
  std::string path = none.out.substr(at + 8, none.out.find(')', at) - at - 8);
  fs::create_directories(fs::path(path).parent_path());
  int ready[2];
  ASSERT_EQ(::pipe(ready), 0);
  pid_t child = ::fork();
  if (child == 0) {
    // Bound as root (the socket file is this user's, as a daemon's is), then
    // listening as nobody: the kernel reports the listener's uid.
    int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::strcpy(addr.sun_path, path.c_str());
    if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 || ::setuid(65534) != 0 ||
        ::listen(fd, 8) != 0)
      ::_exit(1);
    if (::write(ready[1], "r", 1) != 1) ::_exit(1);
    const char fake[] = "X\4\0\0\0\0\0\0\0";  // a well-formed "exit 0" with no output
    for (;;) {
      int c = ::accept(fd, nullptr, nullptr);
      if (c < 0) ::_exit(0);
      if (::write(c, fake, sizeof(fake) - 1) < 0) ::_exit(0);
      ::close(c);
    }
  }
  char r;
  ASSERT_EQ(::read(ready[0], &r, 1), 1);
  ProcessRun traced = Optrace("trace --json --source " + tree_ + " aten::_softmax", true);
  ::kill(child, SIGKILL);
  ::waitpid(child, nullptr, 0);
  fs::remove(path);
  EXPECT_EQ(traced.rc, 0) << traced.err;
  EXPECT_EQ(traced.out, json);  // not the fake empty answer
  EXPECT_NE(traced.err.find("served by uid 65534, not by this user"), std::string::npos) << traced.err;
}

}  // namespace
}  // namespace optrace
