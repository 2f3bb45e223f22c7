// The installed-torch check: which interpreter is asked ($PYTHON, the active
// venv or conda env, python3 on PATH), that it runs isolated (nothing from
// the current directory or $PYTHONPATH is executed), and that the cached
// answer belongs to the interpreter asked and is never stale. Fake
// interpreters are small sh scripts that log each call (its first two
// arguments, one line) and print a canned
// answer in the check's format (version, sys.executable, site directories).
#include "base/installed_torch.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

namespace optrace {
namespace {

namespace fs = std::filesystem;

class InstalledTorchTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("optrace-installed-torch-test-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_ + "/cache");
    for (const char* v : {"PYTHON", "VIRTUAL_ENV", "CONDA_PREFIX", "PATH", "PYTHONPATH"})
      if (const char* old = std::getenv(v)) saved_[v] = old;
    for (const char* v : {"PYTHON", "VIRTUAL_ENV", "CONDA_PREFIX", "PYTHONPATH"}) unsetenv(v);
  }
  void TearDown() override {
    for (const char* v : {"PYTHON", "VIRTUAL_ENV", "CONDA_PREFIX", "PATH", "PYTHONPATH"}) {
      auto it = saved_.find(v);
      if (it == saved_.end()) unsetenv(v);
      else setenv(v, it->second.c_str(), 1);
    }
    fs::remove_all(dir_);
  }
  // dir_/<name>/bin/<exe>: prints `version`, itself and dir_/<name>/site.
  std::string FakePython(const std::string& name, const std::string& version, const std::string& exe = "python3") {
    std::string home = dir_ + "/" + name;
    fs::create_directories(home + "/bin");
    fs::create_directories(home + "/site");
    std::string path = home + "/bin/" + exe;
    std::ofstream(home + "/answer") << version << "\n" << path << "\n" << home << "/site\n";
    std::ofstream(path) << "#!/bin/sh\necho \"$1 $2\" >> " << home << "/calls\ncat " << home << "/answer\n";
    fs::permissions(path, fs::perms::owner_all);
    return path;
  }
  int Calls(const std::string& name) {
    std::ifstream in(dir_ + "/" + name + "/calls");
    int n = 0;
    for (std::string line; std::getline(in, line);) ++n;
    return n;
  }
  std::string dir_;
  std::map<std::string, std::string> saved_;
};

TEST_F(InstalledTorchTest, InterpreterOrderIsPythonThenVenvThenCondaThenPath) {
  std::string on_path = FakePython("onpath", "2.6.0");
  std::string conda = FakePython("conda", "2.5.1", "python");
  std::string venv = FakePython("venv", "2.4.0", "python");
  std::string chosen = FakePython("chosen", "1.13.1");
  setenv("PATH", (dir_ + "/onpath/bin:/usr/bin:/bin").c_str(), 1);
  EXPECT_EQ(FindPythonInterpreter().path, on_path);
  EXPECT_EQ(FindPythonInterpreter().found_by, "PATH");
  setenv("CONDA_PREFIX", (dir_ + "/conda").c_str(), 1);
  EXPECT_EQ(FindPythonInterpreter().path, conda);
  setenv("VIRTUAL_ENV", (dir_ + "/venv").c_str(), 1);
  EXPECT_EQ(FindPythonInterpreter().path, venv);
  EXPECT_EQ(FindPythonInterpreter().found_by, "$VIRTUAL_ENV");
  setenv("PYTHON", chosen.c_str(), 1);
  EXPECT_EQ(FindPythonInterpreter().path, chosen);
  EXPECT_EQ(FindPythonInterpreter().found_by, "$PYTHON");
  EXPECT_EQ(CachedInstalledTorch(dir_ + "/cache").version, "1.13.1");
}

TEST_F(InstalledTorchTest, PythonRunsIsolated) {
  std::string python = FakePython("logged", "1.13.1");
  InstalledTorch t = AskInstalledTorch({python, "$PYTHON"});
  EXPECT_EQ(t.version, "1.13.1");
  std::ifstream calls(dir_ + "/logged/calls");
  std::string args;
  std::getline(calls, args);
  EXPECT_EQ(args, "-I -c");
}

// Issue 18 item 1: a csv.py (or email/, string.py ...) in the directory
// optrace runs in, or on $PYTHONPATH, was executed by the check.
TEST_F(InstalledTorchTest, CodeInTheCurrentDirectoryOrPythonpathNeverRuns) {
  std::string python = "/usr/bin/python3";
  ASSERT_TRUE(fs::exists(python));
  std::string planted = dir_ + "/planted";
  fs::create_directories(planted + "/email");
  std::string code = "open('" + dir_ + "/PWNED', 'w')\n";
  for (const char* module : {"csv.py", "string.py", "socket.py", "os.py", "site.py", "email/__init__.py",
                             "sitecustomize.py", "usercustomize.py"})
    std::ofstream(planted + "/" + module) << code;
  std::string old_cwd = fs::current_path();
  fs::current_path(planted);
  setenv("PYTHONPATH", planted.c_str(), 1);
  InstalledTorch t = AskInstalledTorch({python, "$PYTHON"});
  fs::current_path(old_cwd);
  EXPECT_FALSE(t.executable.empty()) << "the interpreter gave no answer";
  EXPECT_FALSE(fs::exists(dir_ + "/PWNED"));
}

TEST_F(InstalledTorchTest, CacheBelongsToTheInterpreterAsked) {
  std::string with_torch = FakePython("with", "1.13.1");
  std::string without = FakePython("without", "none");
  std::string cache = dir_ + "/cache";
  setenv("PYTHON", with_torch.c_str(), 1);
  EXPECT_EQ(CachedInstalledTorch(cache).version, "1.13.1");
  // Another interpreter: its own answer, not the cached one of the first.
  setenv("PYTHON", without.c_str(), 1);
  EXPECT_EQ(CachedInstalledTorch(cache).version, std::nullopt);
  // Back to the first: answered from the cache, not asked again.
  setenv("PYTHON", with_torch.c_str(), 1);
  EXPECT_EQ(CachedInstalledTorch(cache).version, "1.13.1");
  EXPECT_EQ(Calls("with"), 1);
}

TEST_F(InstalledTorchTest, PipInstallInvalidatesTheCache) {
  std::string python = FakePython("venv", "none");
  std::string cache = dir_ + "/cache";
  setenv("PYTHON", python.c_str(), 1);
  EXPECT_EQ(CachedInstalledTorch(cache).version, std::nullopt);
  EXPECT_EQ(CachedInstalledTorch(cache).version, std::nullopt);
  EXPECT_EQ(Calls("venv"), 1);
  // pip install torch: a new dist-info directory changes the site dir's mtime.
  std::ofstream(dir_ + "/venv/answer") << "2.6.0\n" << python << "\n" << dir_ << "/venv/site\n";
  fs::create_directories(dir_ + "/venv/site/torch-2.6.0.dist-info");
  struct timespec times[2] = {{0, UTIME_NOW}, {12345, 0}};
  ASSERT_EQ(::utimensat(AT_FDCWD, (dir_ + "/venv/site").c_str(), times, 0), 0);
  EXPECT_EQ(CachedInstalledTorch(cache).version, "2.6.0");
}

TEST_F(InstalledTorchTest, NoInterpreterMeansNoVersion) {
  setenv("PATH", (dir_ + "/nowhere").c_str(), 1);
  InstalledTorch t = CachedInstalledTorch(dir_ + "/cache");
  EXPECT_TRUE(t.python.path.empty());
  EXPECT_EQ(t.version, std::nullopt);
}

}  // namespace
}  // namespace optrace

namespace optrace {
namespace {

// Issue 29 item 8: a cache file another user owns (or may write) is not
// believed: its "9.9.9" would decide every version warning and which tag
// `fetch` clones. As root the file is given to another uid; otherwise (the
// suite cannot create a user) it is made writable by others, the other
// half of the same rule.
TEST_F(InstalledTorchTest, ForeignCacheFileIsIgnored) {
  std::string python = FakePython("real", "2.6.0");
  setenv("PYTHON", python.c_str(), 1);
  EXPECT_EQ(CachedInstalledTorch(dir_ + "/cache").version, "2.6.0");
  std::string file;
  for (const auto& e : fs::directory_iterator(dir_ + "/cache")) file = e.path().string();
  ASSERT_FALSE(file.empty());
  std::string text;
  {
    std::ifstream in(file);
    std::stringstream ss;
    ss << in.rdbuf();
    text = ss.str();
  }
  size_t v = text.find("\n2.6.0\n");
  ASSERT_NE(v, std::string::npos) << text;
  text.replace(v, 7, "\n9.9.9\n");
  for (int variant = 0; variant < 2; ++variant) {
    fs::remove(file);
    std::ofstream(file) << text;
    if (variant == 0) {
      if (::geteuid() != 0) continue;
      ASSERT_EQ(::chown(file.c_str(), 4242, 4242), 0);
    } else {
      ::chmod(file.c_str(), 0666);
    }
    // Unchanged witnesses: only the owner check keeps 9.9.9 out.
    EXPECT_EQ(CachedInstalledTorch(dir_ + "/cache").version, "2.6.0") << variant;
  }
}

// Item 8: a relative $XDG_CACHE_HOME would put the cache under the current
// directory; it is ignored, as the index store ignores it.
TEST_F(InstalledTorchTest, RelativeXdgCacheHomeIsIgnored) {
  const char* old = std::getenv("XDG_CACHE_HOME");
  std::string saved = old ? old : "";
  setenv("XDG_CACHE_HOME", "relative/cache", 1);
  std::string dir = OptraceCacheDir();
  setenv("XDG_CACHE_HOME", (dir_ + "/abs").c_str(), 1);
  std::string absolute = OptraceCacheDir();
  if (old) setenv("XDG_CACHE_HOME", saved.c_str(), 1);
  else unsetenv("XDG_CACHE_HOME");
  EXPECT_EQ(dir.find("relative"), std::string::npos) << dir;
  EXPECT_EQ(dir[0], '/') << dir;
  EXPECT_EQ(absolute, dir_ + "/abs/optrace");
}

}  // namespace
}  // namespace optrace
