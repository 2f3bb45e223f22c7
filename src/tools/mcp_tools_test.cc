// The brief `trace` answer on the real 2.6.0 tree, measured the way an
// agent's host sees it: Claude Code hands the model only structuredContent,
// so that object is the whole answer and must fit a context window (issue
// 16: at most 16 KB for every op of native_functions.yaml and the largest
// modules) while still carrying what the porting workflow needs first -- the
// entry op, the typical implementation with its kernels or libraries on the
// device, and the backward op. Measured through OptraceTools::Call, the code
// the MCP server runs, not a copy of its options. Every op's brief is
// checked in trace_pages_test.cc, beside its pages, from the same trace.
#include <algorithm>

#include <gtest/gtest.h>

#include "base/json.h"
#include "render/render.h"
#include "testing/test_tree_index.h"
#include "testing/test_util.h"
#include "tools/brief_test_util.h"
#include "tools/mcp_tools.h"
#include "trace/trace.h"

namespace optrace {
namespace {

using json = nlohmann::ordered_json;

OptraceTools& Tools() {
  static OptraceTools* tools = [] {
    auto* t = new OptraceTools(CorpusTree("2.6.0"), /*allow_code=*/false, TestStoreDir());
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

std::vector<std::string> OpsOf(const json& path) {
  std::vector<std::string> ops;
  for (const auto& p : path) ops.push_back(p.value("op", std::string()));
  return ops;
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

}  // namespace
}  // namespace optrace
