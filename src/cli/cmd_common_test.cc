// What every command shares, tested as users meet it: real optrace processes
// (OPTRACE_BINARY, through /bin/sh for the redirections) on a copy of part of
// the 2.6.0 tree, each test with its own cache folder. Issue 18's
// reproductions (code run from the current directory, lost writes, long and
// hostile queries, an empty --source) and issue 16's interpreter-aware
// version warning in every output.
#include "cli/cmd_common.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "testing/test_util.h"

namespace optrace {
namespace {

namespace fs = std::filesystem;

class CommonTest : public ::testing::Test {
 protected:
  void SetUp() override {
    REQUIRE_CORPUS("2.6.0");
    dir_ = fs::temp_directory_path() / ("optrace-common-test-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    tree_ = dir_ + "/tree";
    cache_ = dir_ + "/cache";
    fs::create_directories(cache_);
    CopySoftmaxSlice(CorpusTree("2.6.0"), tree_);
    // An interpreter whose torch is 1.13.1: the tree is 2.6.0a0.
    old_python_ = FakePython("old", "1.13.1");
  }
  void TearDown() override {
    for (int i = 0; i < 50; ++i) {
      bool none = Sh("XDG_CACHE_HOME=" + cache_ + " " + OPTRACE_BINARY + " daemon --stop --source " + tree_ +
                     " >/dev/null 2>&1") != 0;
      std::error_code ec;
      fs::remove_all(dir_, ec);
      if (none && !ec && !fs::exists(dir_)) return;
      fs::create_directories(cache_, ec);
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    ADD_FAILURE() << "could not stop the daemon and remove " << dir_;
  }
  // dir_/<name>/bin/python3, answering the check with `version`.
  std::string FakePython(const std::string& name, const std::string& version) {
    std::string home = dir_ + "/" + name;
    fs::create_directories(home + "/bin");
    fs::create_directories(home + "/site");
    std::string path = home + "/bin/python3";
    std::ofstream(path) << "#!/bin/sh\nprintf '" << version << "\\n" << path << "\\n" << home << "/site\\n'\n";
    fs::permissions(path, fs::perms::owner_all);
    return path;
  }
  static int Sh(const std::string& command) {
    int status = std::system(command.c_str());
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }
  // `optrace ARGS` in this test's cache with `env` and `redirect` (stdout;
  // stderr always goes to err_).
  int Run(const std::string& env, const std::string& args, const std::string& redirect) {
    err_ = dir_ + "/err" + std::to_string(runs_++);
    return Sh("env -u PYTORCH_SOURCE -u PYTHON -u VIRTUAL_ENV -u CONDA_PREFIX XDG_CACHE_HOME=" + cache_ + " " + env +
              " " + OPTRACE_BINARY + " " + args + " " + redirect + " 2>" + err_);
  }
  ProcessRun Capture(const std::string& env, const std::string& args) {
    ProcessRun r;
    std::string out = dir_ + "/out" + std::to_string(runs_);
    r.rc = Run(env, args, ">" + out);
    r.out = ReadText(out);
    r.err = ReadText(err_);
    return r;
  }
  std::string Err() const { return ReadText(err_); }
  std::string dir_, tree_, cache_, old_python_, err_;
  int runs_ = 0;
};

// Issue 18 item 1, the exact reproduction: a csv.py in the directory where
// the user runs optrace was executed by the installed-torch check.
TEST_F(CommonTest, CodeInTheCurrentDirectoryNeverRuns) {
  std::string planted = dir_ + "/e";
  fs::create_directories(planted + "/email");
  for (const char* module : {"csv.py", "string.py", "socket.py", "email/__init__.py"})
    std::ofstream(planted + "/" + module) << "open('" << dir_ << "/PWNED', 'w')\n";
  // python3 from PATH, as a user without $PYTHON has it.
  int rc = Sh("cd " + planted + " && env -u PYTHON -u PYTORCH_SOURCE PATH=/usr/bin:/bin XDG_CACHE_HOME=" + cache_ +
              " OPTRACE_DAEMON=0 " + OPTRACE_BINARY + " trace --source " + tree_ + " aten::_softmax >/dev/null 2>&1");
  EXPECT_EQ(rc, 0);
  EXPECT_FALSE(fs::exists(dir_ + "/PWNED"));
}

// Issue 18 item 10: a lost answer exited 0.
TEST_F(CommonTest, FailedWritesExitNonZeroWithAMessage) {
  const std::string env = "OPTRACE_NO_VERSION_CHECK=1 OPTRACE_DAEMON=0";
  const std::string trace = "trace --source " + tree_ + " aten::_softmax";
  EXPECT_EQ(Run(env, trace, ">/dev/full"), 4);
  EXPECT_NE(Err().find("cannot write the output"), std::string::npos) << Err();
  EXPECT_EQ(Run(env, trace, ">&-"), 4);
  EXPECT_NE(Err().find("stdout is closed"), std::string::npos) << Err();
  EXPECT_EQ(Run(env, "trace --all --json --source " + tree_, ">/dev/full"), 4);
  EXPECT_EQ(Run(env, "op _softmax --source " + tree_, ">/dev/full"), 4);
  EXPECT_EQ(Run(env, "op _softmax --json --source " + tree_, ">/dev/full"), 4);
  std::string model = dir_ + "/model.py";
  std::ofstream(model) << "import torch\n\ndef f(x):\n    return torch.softmax(x, -1)\n";
  EXPECT_EQ(Run(env, "scan --source " + tree_ + " " + model, ">/dev/full"), 4);
  EXPECT_EQ(Run(env, "scan --format json --source " + tree_ + " " + model, ">/dev/full"), 4);
  // And the same answers reach a working stdout.
  EXPECT_EQ(Run(env, trace, ">/dev/null"), 0);
}

TEST_F(CommonTest, FailedWriteOfADaemonAnswerExitsNonZero) {
  const std::string env = "OPTRACE_NO_VERSION_CHECK=1 OPTRACE_DAEMON=1";
  const std::string trace = "trace --source " + tree_ + " aten::_softmax";
  ASSERT_EQ(Run(env, trace, ">/dev/null"), 0);  // starts the daemon
  bool up = false;
  for (int i = 0; i < 200 && !up; ++i) {
    up = Run(env, "daemon --status --source " + tree_, ">/dev/null") == 0;
    if (!up) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_TRUE(up) << "no daemon answered";
  EXPECT_EQ(Run(env, trace, ">/dev/full"), 4);
  EXPECT_NE(Err().find("cannot write the output"), std::string::npos) << Err();
}

// Issue 18 item 13: a long query cost ~50 us per byte before "not found".
TEST_F(CommonTest, OverlongQueryIsAUsageErrorBeforeAnyWork) {
  std::string query(100000, 'a');
  ProcessRun r = Capture("OPTRACE_NO_VERSION_CHECK=1 OPTRACE_DAEMON=0", "trace --source " + tree_ + " " + query);
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("at most 8192"), std::string::npos) << r.err;
  EXPECT_LT(r.err.size(), 200u) << "the query is not echoed back";
  // Before any work: no index was built.
  EXPECT_TRUE(fs::is_empty(cache_) || !fs::exists(cache_ + "/optrace"));
  EXPECT_EQ(Capture("OPTRACE_NO_VERSION_CHECK=1", "op " + query + " --source " + tree_).rc, 2);
  EXPECT_EQ(Capture("OPTRACE_NO_VERSION_CHECK=1", "find " + query + " --source " + tree_).rc, 2);
  EXPECT_EQ(Capture("OPTRACE_NO_VERSION_CHECK=1", "py " + query + " --source " + tree_).rc, 2);
  std::string longest(8192, 'a');  // issue 26: a profiler's kernel name fits
  EXPECT_EQ(Capture("OPTRACE_NO_VERSION_CHECK=1 OPTRACE_DAEMON=0", "trace --source " + tree_ + " " + longest).rc, 1);
}

// Issue 18 item 14: control characters in a query reached the terminal raw.
TEST_F(CommonTest, ControlCharactersInAQueryAreNeverEchoedRaw) {
  ProcessRun r = Capture("OPTRACE_NO_VERSION_CHECK=1 OPTRACE_DAEMON=0",
                         "trace --source " + tree_ + " \"$(printf 'soft\\033]0;owned\\007max')\"");
  EXPECT_EQ(r.rc, 2);
  EXPECT_EQ(r.err.find('\033'), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find('\007'), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("soft\\x1b]0;owned\\x07max"), std::string::npos) << r.err;
}

// Issue 18 item 14: the documented operator query '[]' failed in the CLI.
TEST_F(CommonTest, BracketOperatorQueryTraces) {
  ProcessRun r = Capture("OPTRACE_NO_VERSION_CHECK=1 OPTRACE_DAEMON=0", "trace --json --source " + tree_ + " '[]'");
  EXPECT_NE(r.rc, 2) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["query"], "[]");
}

// Issue 18 item 14: --source "" fell back to the default checkout.
TEST_F(CommonTest, EmptySourceIsAUsageError) {
  for (const char* command : {"trace aten::_softmax", "info", "op _softmax", "index --check"}) {
    ProcessRun r = Capture("OPTRACE_NO_VERSION_CHECK=1 OPTRACE_DAEMON=0 PYTORCH_SOURCE=" + tree_,
                           std::string(command) + " --source ''");
    EXPECT_EQ(r.rc, 2) << command << ": " << r.err;
    EXPECT_NE(r.err.find("--source: must name a directory"), std::string::npos) << r.err;
  }
}

// Issue 16 item 4: the installed version and the mismatch warning were on
// stderr only; they are in every output, in process and from the daemon.
TEST_F(CommonTest, EveryOutputCarriesTheVersionMismatch) {
  const std::string env = "PYTHON=" + old_python_ + " OPTRACE_DAEMON=0";
  const std::string q = " --source " + tree_ + " aten::_softmax";
  ProcessRun text = Capture(env, "trace" + q);
  ASSERT_EQ(text.rc, 0) << text.err;
  EXPECT_NE(text.out.find("torch     1.13.1 (installed)"), std::string::npos) << text.out.substr(0, 600);
  EXPECT_NE(text.out.find("installed torch of " + old_python_ + " (from $PYTHON) is 1.13.1"), std::string::npos);
  ProcessRun md = Capture(env, "trace --format md" + q);
  EXPECT_NE(md.out.find("- **Installed torch:** `1.13.1`"), std::string::npos);
  EXPECT_NE(md.out.find("- **Warning:** warning: the checkout"), std::string::npos);
  std::string model = dir_ + "/model.py";
  std::ofstream(model) << "import torch\n\ndef f(x):\n    return torch.softmax(x, -1)\n";
  ProcessRun scan = Capture(env, "scan --format json --source " + tree_ + " " + model);
  auto scanned = nlohmann::json::parse(scan.out);
  EXPECT_EQ(scanned["source"]["installed_torch"], "1.13.1");
  EXPECT_NE(scanned["source"].value("warning", "").find("1.13.1"), std::string::npos);
  EXPECT_NE(Capture(env, "scan --source " + tree_ + " " + model).out.find("installed torch of"), std::string::npos);
  // The lookups read the checkout too: op, find, py and tests, text and JSON
  // (tests reads the OpInfo database, which the slice lacks: the whole tree).
  for (const std::string lookup :
       {"op _softmax --source " + tree_, "find softmax_warp_forward --source " + tree_,
        "py torch.nn.functional.softmax --source " + tree_, "tests F.softmax --source " + CorpusTree("2.6.0")}) {
    ProcessRun plain = Capture(env, lookup);
    ASSERT_EQ(plain.rc, 0) << lookup << ": " << plain.err;
    EXPECT_EQ(plain.out.rfind("warning: the checkout", 0), 0u) << lookup << ": " << plain.out.substr(0, 300);
    ProcessRun json = Capture(env, lookup + " --json");
    ASSERT_EQ(json.rc, 0) << lookup << ": " << json.err;
    auto j = nlohmann::json::parse(json.out);
    EXPECT_EQ(j["source"]["installed_torch"], "1.13.1") << lookup;
    EXPECT_NE(j["source"].value("warning", "").find("(from $PYTHON) is 1.13.1"), std::string::npos) << lookup;
  }
  ProcessRun quiet = Capture("OPTRACE_NO_VERSION_CHECK=1", "op _softmax --json --source " + tree_);
  EXPECT_TRUE(nlohmann::json::parse(quiet.out)["source"]["installed_torch"].is_null());
  EXPECT_FALSE(nlohmann::json::parse(quiet.out)["source"].contains("warning"));
  for (const char* daemon : {"0", "1", "1"}) {  // in process; starting the daemon; from the daemon
    ProcessRun json = Capture("PYTHON=" + old_python_ + " OPTRACE_DAEMON=" + daemon, "trace --json" + q);
    ASSERT_EQ(json.rc, 0) << json.err;
    auto j = nlohmann::json::parse(json.out);
    EXPECT_EQ(j["source"]["installed_torch"], "1.13.1");
    EXPECT_NE(j["source"].value("warning", "").find("1.13.1"), std::string::npos) << j["source"];
    if (std::string(daemon) == "1") std::this_thread::sleep_for(std::chrono::seconds(1));
  }
}

TEST_F(CommonTest, McpSourceAndTraceCarryTheVersionMismatch) {
  std::string input = dir_ + "/mcp.in";
  std::ofstream(input)
      << R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}})"
      << "\n"
      << R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"trace","arguments":{"query":"aten::_softmax"}}})"
      << "\n"
      << R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"source","arguments":{}}})"
      << "\n"
      << R"({"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"find","arguments":{"symbol":"softmax_warp_forward"}}})"
      << "\n"
      << R"({"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"op","arguments":{"name":"_softmax"}}})"
      << "\n";
  ProcessRun r = Capture("PYTHON=" + old_python_, "mcp --source " + tree_ + " --jobs 1 <" + input);
  ASSERT_EQ(r.rc, 0) << r.err;
  std::istringstream lines(r.out);
  std::map<int, nlohmann::json> answers;
  for (std::string line; std::getline(lines, line);) {
    auto j = nlohmann::json::parse(line);
    answers[j["id"].get<int>()] = j;
  }
  ASSERT_EQ(answers.size(), 5u) << r.out;
  const auto& trace = answers[1]["result"]["structuredContent"];
  EXPECT_EQ(trace["source"]["installed_torch"], "1.13.1") << trace["source"];
  EXPECT_NE(trace["source"].value("warning", "").find("1.13.1"), std::string::npos);
  EXPECT_NE(answers[1]["result"]["content"][0]["text"].get<std::string>().find("installed torch"), std::string::npos);
  const auto& source = answers[2]["result"]["structuredContent"];
  EXPECT_EQ(source["installed_torch"], "1.13.1");
  EXPECT_NE(source.value("warning", "").find("(from $PYTHON)"), std::string::npos);
  for (int id : {3, 4}) {  // find, op (tests adds the same facts: WithSourceFacts)
    const auto& result = answers[id]["result"];
    EXPECT_FALSE(result.value("isError", false)) << result.dump().substr(0, 300);
    EXPECT_EQ(result["structuredContent"]["source"]["installed_torch"], "1.13.1") << id;
    EXPECT_NE(result["structuredContent"]["source"].value("warning", "").find("1.13.1"), std::string::npos) << id;
    EXPECT_EQ(result["content"][0]["text"].get<std::string>().rfind("**warning: the checkout", 0), 0u) << id;
  }
}

// Issue 16 item 4: after one interpreter's answer was cached, a torch-less
// interpreter first on PATH got the stale version.
TEST_F(CommonTest, TorchlessInterpreterFirstOnPathReportsNoStaleVersion) {
  const std::string q = "trace --json --source " + tree_ + " aten::_softmax";
  ProcessRun first = Capture("PYTHON=" + old_python_ + " OPTRACE_DAEMON=0", q);
  ASSERT_EQ(nlohmann::json::parse(first.out)["source"]["installed_torch"], "1.13.1");
  std::string bare = FakePython("bare", "none");
  ProcessRun second = Capture("PATH=" + fs::path(bare).parent_path().string() + ":/usr/bin:/bin OPTRACE_DAEMON=0", q);
  ASSERT_EQ(second.rc, 0) << second.err;
  auto j = nlohmann::json::parse(second.out);
  EXPECT_TRUE(j["source"]["installed_torch"].is_null()) << j["source"];
  EXPECT_FALSE(j["source"].contains("warning"));
  EXPECT_EQ(second.err.find("1.13.1"), std::string::npos) << second.err;
}

}  // namespace
}  // namespace optrace
