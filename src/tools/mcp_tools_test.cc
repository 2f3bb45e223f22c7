// The brief `trace` answer on the real 2.6.0 tree, measured the way an
// agent's host sees it: Claude Code hands the model only structuredContent,
// so that object is the whole answer and must fit a context window (issue
// 16: at most 16 KB for every op of native_functions.yaml and the largest
// modules) while still carrying what the porting workflow needs first -- the
// entry op, the typical implementation with its kernels or libraries on the
// device, and the backward op. Measured through OptraceTools::Call, the code
// the MCP server runs, not a copy of its options.
#include <algorithm>
#include <atomic>
#include <mutex>
#include <thread>

#include <gtest/gtest.h>

#include "base/json.h"
#include "render/render.h"
#include "testing/test_tree_index.h"
#include "testing/test_util.h"
#include "trace/trace.h"
#include "tools/mcp_tools.h"

namespace optrace {
namespace {

using json = nlohmann::ordered_json;

// The limit issue 16 set for a brief structuredContent.
constexpr size_t kBriefLimit = 16 * 1024;

OptraceTools& Tools() {
  static OptraceTools* tools = [] {
    auto* t = new OptraceTools(CorpusTree("2.6.0"));
    t->StartLoading();
    std::string error;
    EXPECT_TRUE(t->WaitLoaded(&error)) << error;
    return t;
  }();
  return *tools;
}

json Brief(const std::string& query, const std::string& device = "cuda") {
  McpToolResult r = Tools().Call("trace", {{"query", query}, {"device", device}});
  EXPECT_FALSE(r.is_error) << query << ": " << r.text;
  return r.structured;
}

// The full trace, traced as the tool traces (default depth, no snippets).
json FullTrace(const std::string& query, const std::string& device = "cuda") {
  TraceOptions options;
  options.snippets = false;
  ParseDevice(device, &options.device);
  Trace t;
  TraceQuery(TreeIndex("2.6.0"), query, options, &t);
  return TraceToJson(t);
}

std::vector<std::string> OpsOf(const json& path) {
  std::vector<std::string> ops;
  for (const auto& p : path) ops.push_back(p.value("op", std::string()));
  return ops;
}

// The essential facts of the full trace's summary are in the brief: its
// entry, the first step of the main path (the entry op and its
// implementation), the first typical step that runs a kernel or a library
// with its first kernel or its libraries, and the first backward op.
void ExpectEssentials(const json& full_trace, const json& brief) {
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

// The five queries issue 16 names, each on both devices: under 16 KB, with
// the essentials. nn.LSTM on CUDA goes to cuDNN: lstm.input's CUDA path asks
// cudnn_is_acceptable (RNN.cpp:1434) and reaches _cudnn_rnn.
TEST(BriefTrace, TheLargestModulesFitWithTheirEssentials) {
  REQUIRE_CORPUS("2.6.0");
  for (const char* query : {"nn.LSTM", "nn.MultiheadAttention", "nn.TransformerEncoderLayer", "nn.Conv2d",
                            "F.scaled_dot_product_attention"}) {
    for (const char* device : {"cuda", "cpu"}) {
      SCOPED_TRACE(std::string(query) + " on " + device);
      json brief = Brief(query, device);
      EXPECT_LE(DumpJson(brief).size(), kBriefLimit);
      ExpectEssentials(FullTrace(query, device), brief);
    }
  }
  std::vector<std::string> lstm = OpsOf(Brief("nn.LSTM")["summary"]["path"]);
  EXPECT_NE(std::find(lstm.begin(), lstm.end(), "lstm.input"), lstm.end()) << ::testing::PrintToString(lstm);
  EXPECT_NE(std::find(lstm.begin(), lstm.end(), "_cudnn_rnn"), lstm.end()) << ::testing::PrintToString(lstm);
}

// A deeper walk never makes the brief bigger than its default (it is the
// default); a shallower one is smaller where nothing was cut, and within
// the limit where the cuts decide the size (two briefs cut to fit may
// differ by a few bytes either way).
TEST(BriefTrace, DepthNeverGrowsTheBrief) {
  REQUIRE_CORPUS("2.6.0");
  for (const char* query : {"nn.LSTM", "nn.MultiheadAttention", "aten::add.Tensor", "nn.ReLU"}) {
    std::string shallow = DumpJson(Tools().Call("trace", {{"query", query}, {"depth", 1}}).structured);
    std::string normal = DumpJson(Tools().Call("trace", {{"query", query}}).structured);
    std::string deep = DumpJson(Tools().Call("trace", {{"query", query}, {"depth", 32}}).structured);
    EXPECT_EQ(deep, normal) << query;
    EXPECT_LE(shallow.size(), kBriefLimit) << query;
    if (normal.size() < kBriefLimit / 2) EXPECT_LE(shallow.size(), normal.size()) << query;
  }
}

// Every op of native_functions.yaml (3,144 in 2.6.0) on CUDA: the brief
// fits, with the essentials. Traced as the tool traces, on every core.
TEST(BriefTrace, EveryOpFitsWithItsEssentials) {
  REQUIRE_CORPUS("2.6.0");
  const std::vector<std::string> all = AllOpQueries(TreeIndex("2.6.0"));
  ASSERT_EQ(all.size(), 3144u);
  std::atomic<size_t> next{0};
  std::mutex mu;
  std::vector<std::pair<size_t, std::string>> sizes;
  auto work = [&] {
    for (size_t i; (i = next.fetch_add(kEveryOpStride)) < all.size();) {
      json full = FullTrace(all[i]);
      json brief = BriefTrace(full);
      size_t size = DumpJson(brief).size();
      std::lock_guard<std::mutex> lock(mu);
      sizes.emplace_back(size, all[i]);
      EXPECT_LE(size, kBriefLimit) << all[i];
      SCOPED_TRACE(all[i]);
      ExpectEssentials(full, brief);
    }
  };
  std::vector<std::thread> threads;
  for (unsigned t = 0; t < std::max(1u, std::thread::hardware_concurrency()); ++t) threads.emplace_back(work);
  for (auto& t : threads) t.join();
  std::sort(sizes.rbegin(), sizes.rend());
  std::cout << "largest briefs: " << sizes[0].second << " " << sizes[0].first << " bytes, " << sizes[1].second << " "
            << sizes[1].first << ", median " << sizes[sizes.size() / 2].first << "\n";
}

}  // namespace
}  // namespace optrace
