// RealDisk's confinement on a small real tree built in a temporary folder:
// files and symlinks inside the root are read; a symlink (to a file or a
// directory) that resolves outside it, a dangling one and a directory loop
// are refused or reported, never followed; a FIFO or a directory is not
// read (and does not block). MemoryDisk lists like RealDisk.
#include "base/disk.h"

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>

#include <gtest/gtest.h>

namespace optrace {
namespace {

namespace fs = std::filesystem;

class RealDiskTest : public ::testing::Test {
 protected:
  void SetUp() override {
    base_ = fs::temp_directory_path() / ("optrace-disk-test-" + std::to_string(::getpid()));
    fs::remove_all(base_);
    root_ = base_ / "root";
    fs::create_directories(root_ / "a/b");
    Write(root_ / "a/b/k.cu", "__global__ void k() {}\n");
    Write(root_ / "a/top.h", "int top;\n");
    Write(base_ / "secret.txt", "outside\n");
    fs::create_directories(base_ / "elsewhere");
    Write(base_ / "elsewhere/far.cu", "void far() {}\n");
    fs::create_symlink("../top.h", root_ / "a/b/alias.h");          // inside: followed
    fs::create_symlink(base_ / "secret.txt", root_ / "a/leak.cu");  // a file outside
    fs::create_symlink(base_ / "elsewhere", root_ / "a/far");       // a directory outside
    fs::create_symlink("nowhere.cu", root_ / "a/dangling.cu");      // dangling
    fs::create_directory_symlink("..", root_ / "a/b/up");           // a loop back to a/
    ASSERT_EQ(::mkfifo((root_ / "a/pipe.cu").c_str(), 0644), 0);
  }
  void TearDown() override { fs::remove_all(base_); }
  static void Write(const fs::path& p, const std::string& text) { std::ofstream(p, std::ios::binary) << text; }

  fs::path base_, root_;
};

TEST_F(RealDiskTest, ReadsInsideAndRefusesEverythingElse) {
  RealDisk disk(root_.string());
  std::string text;
  ASSERT_TRUE(disk.ReadFile("a/b/k.cu", &text).ok());
  EXPECT_EQ(text, "__global__ void k() {}\n");
  ASSERT_TRUE(disk.ReadFile("a/b/alias.h", &text).ok());
  EXPECT_EQ(text, "int top;\n");
  struct Case {
    const char* path;
    const char* message;
  };
  for (const Case& c :
       {Case{"a/leak.cu", "outside the checkout"}, Case{"a/far/far.cu", "outside the checkout"},
        Case{"a/dangling.cu", "missing"}, Case{"a/none.cu", "missing"}, Case{"../secret.txt", "outside the checkout"},
        Case{"a/pipe.cu", "cannot be read"}, Case{"a/b", "cannot be read"}}) {
    text = "unchanged";
    Status s = disk.ReadFile(c.path, &text);
    EXPECT_EQ(s.code(), ExitCode::kSource) << c.path;
    EXPECT_NE(s.message().find(c.message), std::string::npos) << c.path << ": " << s.message();
    EXPECT_NE(text, "outside\n") << c.path;
  }
  EXPECT_TRUE(disk.Exists("a/b/alias.h"));
  EXPECT_FALSE(disk.Exists("a/leak.cu"));
  FileStat st;
  EXPECT_TRUE(disk.Stat("a/top.h", &st).ok());
  EXPECT_EQ(st.size, 9u);
  EXPECT_FALSE(disk.Stat("a/far/far.cu", &st).ok());
}

TEST_F(RealDiskTest, ListingSkipsEscapesAndLoopsWithAReason) {
  RealDisk disk(root_.string());
  std::vector<std::string> files;
  std::vector<SkippedPath> skipped;
  disk.ListFiles(
      "a", [](std::string_view p) { return p.ends_with(".cu") || p.ends_with(".h"); }, &files, &skipped);
  // The loop a/b/up -> a is entered once (as a/), so its files are listed once.
  EXPECT_EQ(files, (std::vector<std::string>{"a/b/alias.h", "a/b/k.cu", "a/top.h"}));
  std::map<std::string, std::string> why;
  for (const SkippedPath& s : skipped) why[s.path] = s.reason;
  EXPECT_NE(why["a/leak.cu"].find("outside the checkout"), std::string::npos);
  EXPECT_NE(why["a/far"].find("outside the checkout"), std::string::npos);
  EXPECT_NE(why["a/dangling.cu"].find("dangling"), std::string::npos);
  EXPECT_NE(why["a/b/up"].find("directory loop"), std::string::npos);
}

TEST(MemoryDiskTest, ListsSortedUnderADirectoryAndReads) {
  MemoryDisk disk;
  disk.Add("a/z.cu", "z");
  disk.Add("a/b/y.cu", "y", 7);
  disk.Add("ab/x.cu", "x");  // not under a/
  std::vector<std::string> files;
  disk.ListFiles(
      "a", [](std::string_view) { return true; }, &files, nullptr);
  EXPECT_EQ(files, (std::vector<std::string>{"a/b/y.cu", "a/z.cu"}));
  std::string text;
  ASSERT_TRUE(disk.ReadFile("a/b/y.cu", &text).ok());
  EXPECT_EQ(text, "y");
  FileStat st;
  ASSERT_TRUE(disk.Stat("a/b/y.cu", &st).ok());
  EXPECT_EQ(st.mtime_ns, 7);
  disk.Remove("a/z.cu");
  EXPECT_FALSE(disk.Exists("a/z.cu"));
  EXPECT_EQ(disk.ReadFile("a/z.cu", &text).code(), ExitCode::kSource);
}

}  // namespace
}  // namespace optrace

namespace optrace {
namespace {

// Issue 29 item 7: the one reader of a user's file. A regular file reads; a
// directory, a FIFO (without blocking) and a device are refused; a file
// over the cap is refused before it is read; each as a usage error naming it.
TEST(ReadInputFile, OnlyRegularFilesUnderTheCap) {
  fs::path dir = fs::temp_directory_path() / ("optrace-input-test-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::ofstream(dir / "model.py") << "import torch\n";
  ASSERT_EQ(::mkfifo((dir / "fifo").c_str(), 0600), 0);
  std::string text;
  ASSERT_TRUE(ReadInputFile((dir / "model.py").string(), &text).ok());
  EXPECT_EQ(text, "import torch\n");
  for (const std::string& bad :
       {dir.string(), (dir / "fifo").string(), std::string("/dev/zero"), (dir / "missing.py").string()}) {
    Status s = ReadInputFile(bad, &text);
    EXPECT_EQ(s.code(), ExitCode::kUsage) << bad;
    EXPECT_NE(s.message().find(bad), std::string::npos) << s.message();
  }
  Status big = ReadInputFile((dir / "model.py").string(), &text, 4);
  EXPECT_EQ(big.code(), ExitCode::kUsage);
  EXPECT_NE(big.message().find("too large"), std::string::npos) << big.message();
  fs::remove_all(dir);
}

}  // namespace
}  // namespace optrace
