// One index per real tree for a whole test binary, loaded through the
// persistent store (store.h), as optrace loads it. Each gtest case is a
// process of its own (gtest_discover_tests): building the 2.6.0 index from
// the tree took about a second of CPU in each of ~200 of them, mapping the
// image a few milliseconds. The first process of a binary builds and saves
// it; the store's checks (every file's stamp, the binary's identity) rebuild
// it whenever the tree or the binary changes.
//
// Except in a binary built with OPTRACE_TREE_INDEX_ON_HEAP (tools_tests,
// CMakeLists.txt): its tests also hold an OptraceTools, whose LiveIndex
// unmaps every image of the process before it loads (ReleaseArenaMemory), so
// there the index is built from the tree on the heap, as before.
#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include <gtest/gtest.h>

#include "base/checkout.h"
#include "index/index.h"
#include "testing/test_util.h"

namespace optrace {

// Where this test binary keeps its images: beside it, in a folder of its
// own. An image holds the pointers of the binary that wrote it, so binaries
// sharing one folder (or the user's cache, where optrace keeps its own)
// would each rebuild the others' image; inside the build folder it goes
// with the build and never touches the user's cache.
inline std::string TestStoreDir() {
  std::error_code error;
  std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", error);
  return (exe.parent_path() / "test-index" / exe.filename()).string();
}

inline const Index& TreeIndex(const std::string& version) {
  static std::mutex mu;
  static std::map<std::string, std::unique_ptr<Index>> indexes;
  std::lock_guard<std::mutex> lock(mu);
  auto& slot = indexes[version];
  if (!slot) {
    Checkout checkout;
    Status s = FindCheckout(CorpusTree(version), &checkout);
    EXPECT_TRUE(s.ok()) << s.message();
    slot = std::make_unique<Index>();
    LoadOptions options;
    options.store_dir = TestStoreDir();
#ifdef OPTRACE_TREE_INDEX_ON_HEAP
    options.use_store = false;
#endif
    s = LoadIndex(checkout, options, slot.get());
    EXPECT_TRUE(s.ok()) << s.message();
  }
  return *slot;
}

}  // namespace optrace
