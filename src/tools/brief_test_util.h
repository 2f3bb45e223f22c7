// What the tools' tests check of a brief `trace` answer against the full
// trace it was cut from (mcp_tools_test.cc, and trace_pages_test.cc's
// every-op test, which traces each op once for the brief and the pages).
#pragma once

#include <string>

#include <gtest/gtest.h>

#include "base/json.h"
#include "render/render.h"
#include "testing/test_tree_index.h"
#include "trace/trace.h"

namespace optrace {

// The limit issue 16 set for a brief structuredContent.
inline constexpr size_t kBriefLimit = 16 * 1024;

// The full trace, traced as the tool traces (default depth, no snippets).
inline nlohmann::ordered_json FullTrace(const std::string& query, const std::string& device = "cuda") {
  TraceOptions options;
  options.snippets = false;
  ParseDevice(device, &options.device);
  Trace t;
  TraceQuery(TreeIndex("2.6.0"), query, options, &t);
  return TraceToJson(t);
}

// The essential facts of the full trace's summary are in the brief: its
// entry, the first step of the main path (the entry op and its
// implementation), the first typical step that runs a kernel or a library
// with its first kernel or its libraries, and the first backward op.
inline void ExpectEssentials(const nlohmann::ordered_json& full_trace, const nlohmann::ordered_json& brief) {
  using json = nlohmann::ordered_json;
  if (!full_trace.contains("summary")) return;  // nothing traced: no summary either way
  const json& full = full_trace["summary"];
  ASSERT_TRUE(brief.contains("summary")) << DumpJson(brief).substr(0, 2000);
  const json& summary = brief["summary"];
  EXPECT_EQ(summary["entry"], full["entry"]);
  if (full["path"].empty()) return;
  ASSERT_FALSE(summary["path"].empty());
  EXPECT_EQ(summary["path"][0]["op"], full["path"][0]["op"]);
  EXPECT_EQ(summary["path"][0].value("implementation", json()), full["path"][0].value("implementation", json()));
  for (const auto& step : full["path"]) {
    bool kernels = step.contains("kernels") && !step["kernels"].empty();
    bool libraries = step.contains("libraries") && !step["libraries"].empty();
    if ((!kernels && !libraries) || step.value("undecided", false)) continue;  // a branch, not the typical path
    bool kept = false;
    for (const auto& b : summary["path"]) {
      if (b["op"] != step["op"]) continue;
      if (kernels) kept = b.contains("kernels") && !b["kernels"].empty() && b["kernels"][0] == step["kernels"][0];
      if (libraries) kept = kept || (b.contains("libraries") && b["libraries"] == step["libraries"]);
    }
    EXPECT_TRUE(kept) << "the brief drops " << step["op"] << "'s kernels/libraries: " << DumpJson(summary["path"]);
    break;
  }
  const json& derivatives = full["backward"]["derivatives"];
  if (!derivatives.empty()) {
    const json& kept = summary["backward"]["derivatives"];
    ASSERT_FALSE(kept.empty());
    EXPECT_EQ(kept[0], derivatives[0]);
  }
}

}  // namespace optrace
