// An Index built from a MemoryDisk tree, for hermetic tests of the stages
// above the index (tracer, renderers): the same three builds LoadIndex runs on
// a checkout without a store, on files the test writes. No store, no real
// disk, no downloaded tree -- such a test runs in milliseconds and fails only
// when the code changes.
#pragma once

#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include <gtest/gtest.h>

#include "base/disk.h"
#include "index/index.h"

namespace optrace {

// A MemoryDisk holding `files`, each (checkout path, text): a hermetic test's
// whole tree, written where the test states it.
inline std::shared_ptr<MemoryDisk> MemoryTree(std::initializer_list<std::pair<std::string, std::string_view>> files) {
  auto disk = std::make_shared<MemoryDisk>();
  for (const auto& [path, text] : files) disk->Add(path, std::string(text));
  return disk;
}

// Builds `out` from `disk` as if it were the checkout at `root`. The YAML
// model must load (native_functions.yaml present); a failure is a test
// failure, reported with its message.
inline void BuildMemoryIndex(std::shared_ptr<const MemoryDisk> disk, Index* out,
                             const std::string& root = "/memory/pytorch") {
  out->root = root;
  out->disk = disk;
  std::string version;
  if (disk->ReadFile("version.txt", &version).ok()) {
    while (!version.empty() && (version.back() == '\n' || version.back() == ' ')) version.pop_back();
  }
  out->version = version;
  Status s = YamlModel::Load(*disk, &out->yaml);
  ASSERT_TRUE(s.ok()) << s.message();
  out->cpp = CppIndex::Build(*disk, 1);
  out->py = PyIndex::Build(*disk, 1);
}

}  // namespace optrace
