// Tracing the real trees in the tracer's tests: one helper and one fixture
// per tree, so that each test file states only its facts.
#pragma once

#include <string>

#include <gtest/gtest.h>

#include "testing/test_tree_index.h"
#include "testing/test_util.h"
#include "trace/trace.h"

namespace optrace {

// `query` traced on the real tree of `version`, without snippets.
inline Trace TraceTree(const std::string& version, const std::string& query, TraceOptions options = {}) {
  options.snippets = false;
  Trace t;
  Status s = TraceQuery(TreeIndex(version), query, options, &t);
  EXPECT_TRUE(s.ok()) << query << ": " << s.message();
  return t;
}

inline Trace TraceTree(const std::string& version, const std::string& query, TraceOptions::Device device) {
  TraceOptions options;
  options.device = device;
  return TraceTree(version, query, options);
}

// Fixtures of tests that read a downloaded tree: skipped when it is absent.
class Tree260 : public ::testing::Test {
 protected:
  void SetUp() override { REQUIRE_CORPUS("2.6.0"); }
};
class Tree1131 : public ::testing::Test {
 protected:
  void SetUp() override { REQUIRE_CORPUS("1.13.1"); }
};

}  // namespace optrace
