// Issue 29's reproductions as users meet them: real optrace processes
// (OPTRACE_BINARY) given hostile inputs, environments and signals. Each test
// failed (hung, crashed, ran planted code, or answered wrongly) before the
// fix. Processes that could hang on a broken build run under `timeout`, and
// those that could eat memory under a memory bound, so a regression fails the
// test instead of the machine.
#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include "base/installed_torch.h"
#include "index/store.h"
#include "testing/test_util.h"

namespace optrace {
namespace {

namespace fs = std::filesystem;

class HardeningTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("optrace-hardening-test-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_ + "/cwd");
    fs::create_directories(dir_ + "/cache");
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  // The softmax slice of the 2.6.0 tree, copied once per test that needs a checkout.
  std::string Tree() {
    std::string tree = dir_ + "/tree";
    if (!fs::exists(tree)) CopySoftmaxSlice(CorpusTree("2.6.0"), tree);
    return tree;
  }
  // An executable sh script at `path`.
  void Script(const std::string& path, const std::string& body) {
    fs::create_directories(fs::path(path).parent_path());
    std::ofstream(path) << "#!/bin/sh\n" << body << "\n";
    fs::permissions(path, fs::perms::owner_all);
  }
  // The 4 GB memory bound. AddressSanitizer reserves terabytes of address
  // space for its shadow at start, so under it `ulimit -v` kills every run;
  // its own resident-memory limit bounds the run instead.
  static std::string MemoryBound() {
#if defined(__SANITIZE_ADDRESS__)
    const char* options = std::getenv("ASAN_OPTIONS");
    return "export ASAN_OPTIONS=" + std::string(options ? options : "") + ":hard_rss_limit_mb=4000 && ";
#else
    return "ulimit -v 4000000 && ";
#endif
  }
  // optrace in dir_/cwd with a private cache and no interpreter hints, under
  // a 120 s timeout and a 4 GB memory bound; `env` adds variables.
  // Through bash (a script file): some tests need its quoting and redirections.
  ProcessRun Run(const std::string& env, const std::string& args) {
    static int n = 0;
    std::string base = dir_ + "/run" + std::to_string(n++);
    std::ofstream(base + ".sh") << "cd " << dir_ << "/cwd && " << MemoryBound() << "env -u PYTHON -u VIRTUAL_ENV "
                                << "-u CONDA_PREFIX XDG_CACHE_HOME=" << dir_ << "/cache OPTRACE_DAEMON=0 " << env
                                << " /usr/bin/timeout 120 " << OPTRACE_BINARY << " " << args << " >" << base
                                << ".out 2>" << base << ".err\n";
    ProcessRun r;
    int status = std::system(("bash " + base + ".sh").c_str());
    r.rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    r.out = ReadText(base + ".out");
    r.err = ReadText(base + ".err");
    return r;
  }
  std::string dir_;
};

// Item 2: an empty PATH entry is the current directory; execvp would run a
// python3 planted there. The interpreter is resolved once, never from it.
TEST_F(HardeningTest, EmptyPathEntryNeverRunsThePlantedPython) {
  Script(dir_ + "/cwd/python3", "touch " + dir_ + "/pwned");
  ProcessRun r = Run("PATH=:/nonexistent", "verify --observe-only F.softmax");
  EXPECT_FALSE(fs::exists(dir_ + "/pwned")) << r.err;
  EXPECT_EQ(r.rc, 4) << r.err;
  EXPECT_NE(r.err.find("cannot run the Python interpreter python3 (chosen by PATH)"), std::string::npos) << r.err;
}

// Item 9: info and verify ask the same interpreter (one resolution): a venv
// holding both bin/python and bin/python3 got python from one, python3 from
// the other.
TEST_F(HardeningTest, InfoAndVerifyRunTheSameInterpreter) {
  REQUIRE_CORPUS("2.6.0");
  for (const char* name : {"python", "python3"})
    Script(dir_ + "/venv/bin/" + name, "echo \"$0\" >> " + dir_ + "/ran; exit 1");
  std::string env = "VIRTUAL_ENV=" + dir_ + "/venv";
  ProcessRun info = Run(env, "info --source " + Tree());
  ASSERT_EQ(info.rc, 0) << info.err;
  auto first_line = [](const std::string& s) { return s.substr(0, s.find('\n')); };
  std::string asked_by_info = first_line(ReadText(dir_ + "/ran"));
  fs::remove(dir_ + "/ran");
  Run(env + " OPTRACE_NO_VERSION_CHECK=1", "verify --observe-only F.softmax");
  std::string run_by_verify = first_line(ReadText(dir_ + "/ran"));
  ASSERT_FALSE(asked_by_info.empty());
  EXPECT_EQ(asked_by_info, run_by_verify);
}

// Item 6: SIGTERM (or Ctrl-C, SIGHUP) to optrace verify ends the Python
// child too; it used to run on with no timeout.
TEST_F(HardeningTest, InterruptedVerifyKillsItsPython) {
  std::string pids = dir_ + "/child.pid";
  Script(dir_ + "/slowpython", "echo $$ > " + pids + ".tmp; mv " + pids + ".tmp " + pids + "; exec sleep 300");
  for (int sig : {SIGTERM, SIGINT, SIGHUP}) {
    fs::remove(pids);
    // Started here, not by a shell: a shell's background job ignores SIGINT,
    // and optrace rightly leaves an ignored signal ignored.
    pid_t optrace = ::fork();
    if (optrace == 0) {
      for (int s : {SIGINT, SIGTERM, SIGHUP}) ::signal(s, SIG_DFL);
      int null_fd = ::open("/dev/null", O_RDWR);
      ::dup2(null_fd, 1);
      ::dup2(null_fd, 2);
      ::setenv("PYTHON", (dir_ + "/slowpython").c_str(), 1);
      ::execl(OPTRACE_BINARY, OPTRACE_BINARY, "verify", "--observe-only", "F.softmax", static_cast<char*>(nullptr));
      ::_exit(127);
    }
    ASSERT_GT(optrace, 0);
    for (int i = 0; i < 200 && !fs::exists(pids); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    ASSERT_TRUE(fs::exists(pids)) << "the fake python never started";
    pid_t child = std::stoi(ReadText(pids));
    ASSERT_EQ(::kill(optrace, sig), 0);
    int status = 0;
    ASSERT_EQ(::waitpid(optrace, &status, 0), optrace);
    EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == sig) << "optrace dies of the signal it got";
    bool gone = false;
    for (int i = 0; i < 100 && !gone; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      // Dead, or a zombie waiting for a reaper: either way no longer running.
      std::string stat = ReadText("/proc/" + std::to_string(child) + "/stat");
      gone = stat.empty() || stat.find(") Z") != std::string::npos;
    }
    EXPECT_TRUE(gone) << "signal " << sig << " left python " << child << " running";
    if (!gone) ::kill(child, SIGKILL);
  }
}

// Item 6: the MCP server whose client hangs up kills a verify still running
// instead of waiting for its 600 s deadline.
TEST_F(HardeningTest, McpInputEndKillsARunningVerify) {
  REQUIRE_CORPUS("2.6.0");
  std::string pids = dir_ + "/child.pid";
  // Only the verify driver (not the version check) writes the pid and hangs.
  Script(dir_ + "/slowpython",
         "case \"$3\" in *\"verify's Python driver\"*) echo $$ > " + pids + "; exec sleep 300;; esac; exit 1");
  std::string input = dir_ + "/mcp.in";
  std::ofstream(input)
      << R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}})"
      << "\n"
      << R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"verify","arguments":{"query":"F.softmax"}}})"
      << "\n";
  // The input ends only after the child has started (the sleep), as a client
  // closing its pipe mid-call.
  auto start = std::chrono::steady_clock::now();
  ProcessRun r = Run(
      "PYTHON=" + dir_ + "/slowpython OPTRACE_NO_VERSION_CHECK=1",
      "mcp --source " + Tree() + " < <(cat " + input + "; while [ ! -s " + pids + " ]; do sleep 0.1; done; sleep 0.5)");
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_LT(seconds, 60) << r.err;
  ASSERT_TRUE(fs::exists(pids));
  std::string stat = ReadText("/proc/" + ReadText(pids).substr(0, ReadText(pids).find('\n')) + "/stat");
  EXPECT_TRUE(stat.empty() || stat.find(") Z") != std::string::npos) << stat;
}

// Item 5: a stopped or hung holder of the index lock no longer stalls every
// other optrace: after the wait it builds in memory, with a note.
TEST_F(HardeningTest, HeldIndexLockFallsBackToMemory) {
  REQUIRE_CORPUS("2.6.0");
  std::string tree = fs::canonical(Tree()).string();
  std::string lock = StorePath(dir_ + "/cache/optrace", tree) + ".lock";
  fs::create_directories(dir_ + "/cache/optrace");
  int fd = ::open(lock.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::flock(fd, LOCK_EX), 0);  // held as a SIGSTOPped `optrace index` would
  ProcessRun r = Run("OPTRACE_NO_VERSION_CHECK=1 OPTRACE_LOCK_WAIT=1", "trace aten::_softmax --source " + tree);
  ::close(fd);
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.err.find("building the index in memory"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("softmax"), std::string::npos);
}

// Item 7: every file a user names is read by one reader: a directory, a
// FIFO and a device are refused with a message, never a crash, hang or an
// unbounded read.
TEST_F(HardeningTest, UserFilesThatAreNotFilesAreRefused) {
  REQUIRE_CORPUS("2.6.0");
  std::string fifo = dir_ + "/fifo.py";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::string src = " --source " + Tree();
  for (const std::string& file : {dir_ + "/cwd", std::string("/dev/zero"), fifo}) {
    ProcessRun scan = Run("OPTRACE_NO_VERSION_CHECK=1", "scan " + file + src);
    EXPECT_EQ(scan.rc, 3) << file << ": " << scan.err;
    EXPECT_NE(scan.err.find(file), std::string::npos) << scan.err;
    ProcessRun verify = Run("OPTRACE_NO_VERSION_CHECK=1", "verify F.softmax --file " + file + src);
    EXPECT_EQ(verify.rc, 2) << file << ": " << verify.err;
    EXPECT_NE(verify.err.find("--file"), std::string::npos) << verify.err;
    ProcessRun observed = Run("OPTRACE_NO_VERSION_CHECK=1", "verify F.softmax --observed " + file + src);
    EXPECT_EQ(observed.rc, 2) << file << ": " << observed.err;
  }
  // Over the index's cap (8 MiB): refused before it is read.
  std::string big = dir_ + "/big.py";
  { std::ofstream(big) << std::string(9u << 20, '#'); }
  ProcessRun scan = Run("OPTRACE_NO_VERSION_CHECK=1", "scan " + big + src);
  EXPECT_EQ(scan.rc, 3);
  EXPECT_NE(scan.err.find("too large"), std::string::npos) << scan.err;
}

// Item 4: 200,000 nested '[' in an --observed file overflowed the stack.
TEST_F(HardeningTest, DeepObservedDocumentIsRefused) {
  REQUIRE_CORPUS("2.6.0");
  std::string file = dir_ + "/deep.json";
  std::ofstream(file) << std::string(200000, '[');
  ProcessRun r = Run("OPTRACE_NO_VERSION_CHECK=1", "verify F.softmax --observed " + file + " --source " + Tree());
  EXPECT_EQ(r.rc, 2) << r.err;
  EXPECT_NE(r.err.find("nested deeper"), std::string::npos) << r.err;
}

// Item 11: a query with nothing after its prefix matched all 1,050 entries.
TEST_F(HardeningTest, EmptyTestsNameMatchesNothing) {
  REQUIRE_CORPUS("2.6.0");
  for (const char* q : {"''", "torch.", "aten::", "Tensor.", "F."}) {
    ProcessRun r = Run("OPTRACE_NO_VERSION_CHECK=1", std::string("tests ") + q + " --source " + CorpusTree("2.6.0"));
    EXPECT_EQ(r.rc, 1) << q << ": " << r.out.substr(0, 200);
    EXPECT_NE(r.err.find("did you mean"), std::string::npos) << r.err;
  }
}

// Item 13: an escape sequence in a tests query never reaches the terminal.
TEST_F(HardeningTest, TestsQueryWithEscapeIsRefused) {
  REQUIRE_CORPUS("2.6.0");
  ProcessRun r = Run("OPTRACE_NO_VERSION_CHECK=1", "tests $'\\e]0;x\\a' --source " + CorpusTree("2.6.0"));
  EXPECT_EQ(r.rc, 2) << r.err;
  EXPECT_EQ(r.err.find('\x1b'), std::string::npos);
  EXPECT_EQ(r.out.find('\x1b'), std::string::npos);
}

// Item 15: small ones.
TEST_F(HardeningTest, DaemonFlagsAndAClosedPipe) {
  REQUIRE_CORPUS("2.6.0");
  ProcessRun both = Run("", "daemon --stop --status --source " + Tree());
  EXPECT_EQ(both.rc, 2) << both.err;
  ProcessRun idle = Run("", "daemon --idle 0 --source " + Tree());
  EXPECT_EQ(idle.rc, 2);
  EXPECT_LT(idle.err.size(), 300u) << idle.err;  // no DBL_MAX digits
  EXPECT_NE(idle.err.find("at most a year"), std::string::npos) << idle.err;
  // `| head -c 1`: the reader leaves; the documented exit 4, not SIGPIPE's
  // 141 (ops --json is megabytes: far more than a pipe holds).
  std::ofstream(dir_ + "/pipe.sh") << "cd " << dir_ << " && XDG_CACHE_HOME=" << dir_
                                   << "/cache OPTRACE_NO_VERSION_CHECK=1 " << OPTRACE_BINARY << " ops --json --source "
                                   << Tree() << " 2>/dev/null | head -c 1 >/dev/null; echo ${PIPESTATUS[0]} > " << dir_
                                   << "/status\n";
  std::system(("bash " + dir_ + "/pipe.sh").c_str());
  EXPECT_EQ(ReadText(dir_ + "/status"), "4\n");
}

}  // namespace
}  // namespace optrace
