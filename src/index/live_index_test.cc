// LiveIndex as the daemon and the MCP server hold it: on a copy of part of
// the 2.6.0 tree, with this test binary's own cache folder. The image file
// changed in place under a loaded index must not crash it (issue 18 #6), and
// a checkout that goes away for a moment and comes back must be served again
// without a restart (issue 18 #7).
#include "index/live_index.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "index/store.h"
#include "index/store_arena.h"
#include "testing/test_util.h"

namespace optrace {
namespace {

namespace fs = std::filesystem;

class LiveIndexTest : public ::testing::Test {
 protected:
  void SetUp() override {
    REQUIRE_CORPUS("2.6.0");
    dir_ = fs::temp_directory_path() / ("optrace-live-test-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    tree_ = dir_ + "/tree";
    fs::create_directories(dir_ + "/cache");
    CopySoftmaxSlice(CorpusTree("2.6.0"), tree_);
    const char* old = std::getenv("XDG_CACHE_HOME");
    old_cache_ = old ? old : "";
    had_cache_ = old != nullptr;
    ::setenv("XDG_CACHE_HOME", (dir_ + "/cache").c_str(), 1);
  }
  void TearDown() override {
    ReleaseArenaMemory();
    if (had_cache_) ::setenv("XDG_CACHE_HOME", old_cache_.c_str(), 1);
    else ::unsetenv("XDG_CACHE_HOME");
    fs::remove_all(dir_);
  }
  std::string ImagePath() const { return StorePath(DefaultStoreDir(), fs::canonical(tree_).string()); }
  // Reads every record a trace could touch.
  static std::string Walk(const Index& index) {
    std::ostringstream out;
    PrintCppIndexCounts(index.cpp, out);
    PrintPyIndexCounts(index.py, out);
    for (const CppFunction& f : index.cpp.functions()) out << f.qualified;
    for (const PyModule& m : index.py.modules()) out << m.name;
    out << index.yaml.functions().size();
    return out.str();
  }

  std::string dir_, tree_, old_cache_;
  bool had_cache_ = false;
};

TEST_F(LiveIndexTest, AnImageTruncatedOrOverwrittenInPlaceCannotReachTheLoadedIndex) {
  LiveIndex live(tree_, "test");
  ASSERT_TRUE(live.Start().ok());
  const std::string walked = [&] {
    auto reading = live.ReadLock();
    return Walk(live.index());
  }();
  ASSERT_NE(live.index().cpp.FunctionsNamed("masked_softmax_cuda").size(), 0u);
  const std::string image = ImagePath();
  ASSERT_TRUE(fs::exists(image)) << image;
  const auto size = fs::file_size(image);
  ASSERT_EQ(::truncate(image.c_str(), 0), 0);  // SIGBUS here before
  {
    auto reading = live.ReadLock();
    EXPECT_EQ(Walk(live.index()), walked);
  }
  {
    std::ofstream over(image, std::ios::binary | std::ios::in | std::ios::out);  // cp other.img over it
    over << std::string(size, '\x5a');
  }
  auto reading = live.ReadLock();
  EXPECT_EQ(Walk(live.index()), walked);  // SIGSEGV here before
  EXPECT_NE(live.index().cpp.FunctionsNamed("masked_softmax_cuda").size(), 0u);
}

TEST_F(LiveIndexTest, RecoversByItselfWhenTheCheckoutComesBack) {
  LiveIndex live(tree_, "test");
  ASSERT_TRUE(live.Start().ok());
  EXPECT_TRUE(live.Refresh().ok());
  fs::rename(tree_, tree_ + ".away");  // as `optrace fetch` renames
  EXPECT_FALSE(live.Refresh().ok());
  EXPECT_EQ(live.Describe().state, LiveIndex::State::kFailed);
  EXPECT_FALSE(live.Refresh().ok());  // still gone
  fs::rename(tree_ + ".away", tree_);
  ASSERT_TRUE(live.Refresh().ok()) << live.Describe().error;
  LiveIndex::Info info = live.Describe();
  EXPECT_EQ(info.state, LiveIndex::State::kReady);
  EXPECT_TRUE(info.watching);
  EXPECT_EQ(info.reloads, 3);
  auto reading = live.ReadLock();
  EXPECT_NE(live.index().cpp.FunctionsNamed("masked_softmax_cuda").size(), 0u);
}

TEST_F(LiveIndexTest, AnEditReloadsBeforeTheNextAnswer) {
  LiveIndex live(tree_, "test");
  ASSERT_TRUE(live.Start().ok());
  std::string cu = tree_ + "/aten/src/ATen/native/cuda/SoftMax.cu";
  { std::ofstream(cu, std::ios::app) << "\nvoid live_index_test_added() {}\n"; }
  ASSERT_TRUE(live.Refresh().ok());
  auto reading = live.ReadLock();
  EXPECT_EQ(live.index().cpp.FunctionsNamed("live_index_test_added").size(), 1u);
  EXPECT_EQ(live.Describe().reloads, 1);
}

}  // namespace
}  // namespace optrace
