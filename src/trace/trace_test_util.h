// Tracing in the tracer's tests -- the real trees (one helper and one
// fixture per tree) and hermetic MemoryDisk trees (testing/memory_index.h)
// -- so that each test file states only its facts.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

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

// `query` traced on a hermetic index with `options`; the trace must succeed.
inline Trace TraceIndex(const Index& index, const std::string& query, const TraceOptions& options) {
  Trace t;
  Status s = TraceQuery(index, query, options, &t);
  EXPECT_TRUE(s.ok()) << query << ": " << s.message();
  return t;
}

// The same for `device`, with `assume` (--assume's words), without snippets.
inline Trace TraceIndex(const Index& index, const std::string& query, TraceOptions::Device device,
                        std::vector<std::string> assume = {}) {
  TraceOptions options;
  options.device = device;
  options.snippets = false;
  options.assume = std::move(assume);
  return TraceIndex(index, query, options);
}

// The op `name` reached as `role`, or null.
inline const OpStep* FindOp(const Trace& t, const std::string& name, OpRole role = OpRole::kForward) {
  for (const OpStep& op : t.ops)
    if (op.name == name && op.role == role) return &op;
  return nullptr;
}

// `op`'s kernel named `name` (its first), or null.
inline const KernelStep* FindKernel(const OpStep& op, const std::string& name) {
  for (const KernelStep& k : op.kernels)
    if (k.name == name) return &k;
  return nullptr;
}

// Whether one of `op`'s notes contains `text`.
inline bool HasNoteContaining(const OpStep& op, std::string_view text) {
  for (const std::string& n : op.notes)
    if (n.find(text) != std::string::npos) return true;
  return false;
}

// The backward entry (derivatives.yaml) of forward op `op`, or null.
inline const BackwardStep* FindBackward(const Trace& t, const std::string& op) {
  for (const BackwardStep& b : t.backward)
    if (b.op == op) return &b;
  return nullptr;
}

// "typical", "open" or "not taken" for the forward op `name` of `t`; "" if not listed.
inline std::string PathOf(const Trace& t, const std::string& name) {
  for (const auto& op : t.ops)
    if (op.role == OpRole::kForward && op.name == name)
      return op.typical && !op.undecided ? "typical" : op.undecided ? "open" : "not taken";
  return "";
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
