// Helpers for tests that assert facts about the real PyTorch trees.
#pragma once

#include <string>

#include <gtest/gtest.h>

#include "corpus_path.h"


// A test on a real tree fails (never skips) when the tree is missing: CI runs
// scripts/corpus.sh first, and a silently skipped fact check is a defect.
#define REQUIRE_CORPUS(version)                                                          \
  do {                                                                                   \
    std::string root_ = ::optrace::CorpusTree(version);                                  \
    ASSERT_TRUE(::testing::internal::FilePath(root_ + "/version.txt").FileOrDirectoryExists()) \
        << "missing corpus tree " << root_ << ": run scripts/corpus.sh";                 \
  } while (0)
