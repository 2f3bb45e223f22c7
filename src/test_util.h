// Helpers for tests that assert facts about the real PyTorch trees.
#pragma once

#include <cstdlib>
#include <string>

#include <gtest/gtest.h>

namespace optrace {

// Root of a real tree from scripts/corpus.sh, e.g. CorpusTree("2.6.0").
inline std::string CorpusTree(const std::string& version) {
  const char* env = std::getenv("OPTRACE_CORPUS");
  std::string base = env && *env ? env : std::string(std::getenv("HOME") ? std::getenv("HOME") : "/root") +
                                             "/.cache/optrace-corpus";
  return base + "/pytorch-" + version;
}

}  // namespace optrace

// A test on a real tree fails (never skips) when the tree is missing: CI runs
// scripts/corpus.sh first, and a silently skipped fact check is a defect.
#define REQUIRE_CORPUS(version)                                                          \
  do {                                                                                   \
    std::string root_ = ::optrace::CorpusTree(version);                                  \
    ASSERT_TRUE(::testing::internal::FilePath(root_ + "/version.txt").FileOrDirectoryExists()) \
        << "missing corpus tree " << root_ << ": run scripts/corpus.sh";                 \
  } while (0)
