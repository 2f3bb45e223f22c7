// Helpers for tests that assert facts about the real PyTorch trees.
#pragma once

#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "testing/corpus_path.h"

// A test on a real tree fails (never skips) when the tree is missing: CI runs
// scripts/corpus.sh first, and a silently skipped fact check is a defect.
#define REQUIRE_CORPUS(version)                                                                \
  do {                                                                                         \
    std::string root_ = ::optrace::CorpusTree(version);                                        \
    ASSERT_TRUE(::testing::internal::FilePath(root_ + "/version.txt").FileOrDirectoryExists()) \
        << "missing corpus tree " << root_ << ": run scripts/corpus.sh";                       \
  } while (0)

namespace optrace {

inline std::string ReadText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A copy of the part of the 2.6.0 tree that F.softmax and aten::_softmax go
// through (the YAML files, SoftMax's C++/CUDA sources, the Python modules),
// for tests that edit a tree or run optrace processes on it.
inline void CopySoftmaxSlice(const std::string& from, const std::string& to) {
  namespace fs = std::filesystem;
  for (const char* p : {"version.txt", "aten/src/ATen/native/native_functions.yaml", "aten/src/ATen/native/tags.yaml",
                        "tools/autograd/derivatives.yaml", "aten/src/ATen/native/SoftMax.cpp",
                        "aten/src/ATen/native/cuda/SoftMax.cu", "aten/src/ATen/native/cuda/PersistentSoftmax.cuh",
                        "aten/src/ATen/native/cpu/SoftMaxKernel.cpp", "aten/src/ATen/native/cpu/SoftmaxKernel.h",
                        "torch/nn/functional.py", "torch/nn/__init__.py", "torch/__init__.py"}) {
    if (!fs::exists(from + "/" + p)) continue;
    fs::create_directories(fs::path(to + "/" + p).parent_path());
    fs::copy_file(from + "/" + p, to + "/" + p);
  }
}

// The every-op tests trace all 3,144 ops of 2.6.0. Under AddressSanitizer,
// several times slower, they take every 8th op so they end within the test
// timeout (one took 900 s); the release suite covers every op.
#if defined(__SANITIZE_ADDRESS__)
inline constexpr size_t kEveryOpStride = 8;
#else
inline constexpr size_t kEveryOpStride = 1;
#endif

struct ProcessRun {
  int rc = -1;
  std::string out, err;
};

// Runs `ENV optrace ARGS` (OPTRACE_BINARY, through the shell) with stdout and
// stderr captured in OUTPUT_BASE.out / .err.
inline ProcessRun RunOptrace(const std::string& env, const std::string& args, const std::string& output_base) {
  std::string cmd = env + " " + OPTRACE_BINARY + " " + args + " >" + output_base + ".out 2>" + output_base + ".err";
  ProcessRun r;
  int status = std::system(cmd.c_str());
  r.rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.out = ReadText(output_base + ".out");
  r.err = ReadText(output_base + ".err");
  return r;
}

}  // namespace optrace
