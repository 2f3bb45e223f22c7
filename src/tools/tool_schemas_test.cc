// The output schemas hold for the answers the tools really give on the 2.6.0
// tree (a schema that refused them would fail every client call), and they
// are not stubs: an answer with a field of the wrong type is refused. Every
// tool has an output schema and the server's instructions name every tool.
#include <gtest/gtest.h>

#include "mcp/mcp_server.h"
#include "profile/profile.h"
#include "testing/test_tree_index.h"
#include "testing/test_util.h"
#include "tools/mcp_tools.h"
#include "tools/tool_schemas.h"
#include "usescan/usescan.h"
#include "verify/test_finder.h"
#include "verify/verify.h"

namespace optrace {
namespace {

using json = nlohmann::ordered_json;

void ExpectValid(const json& schema, const json& value, const std::string& what) {
  std::string error;
  EXPECT_TRUE(ValidateJsonSchema(schema, value, &error)) << what << ": " << error;
}

void ExpectInvalid(const json& schema, const json& value, const std::string& what) {
  std::string error;
  EXPECT_FALSE(ValidateJsonSchema(schema, value, &error)) << what;
}

TEST(ToolSchemas, ScanAnswersHoldAndABrokenOneFails) {
  REQUIRE_CORPUS("2.6.0");
  ScanReport report;
  const char* text =
      "import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n"
      "class Block(nn.Module):\n    def __init__(self, d):\n        super().__init__()\n"
      "        self.proj = nn.Linear(d, d)\n"
      "    def forward(self, x):\n        y = F.gelu(self.proj(x)) @ x.transpose(-1, -2)\n"
      "        return getattr(torch, 'relu')(y.softmax(-1))\n";
  ASSERT_TRUE(ScanUserFile(TreeIndex("2.6.0"), "block.py", text, &report).ok());
  json answer = ScanToJson(report, {});
  ASSERT_FALSE(answer["ops"].empty());
  ASSERT_FALSE(answer["layers"].empty());
  ExpectValid(ScanOutputSchema(), answer, "scan");
  json broken = answer;
  broken["ops"][0]["uses"][0]["line"] = "9";
  ExpectInvalid(ScanOutputSchema(), broken, "scan with a string line");
  broken = answer;
  broken["ops"][0].erase("needs_trace");
  ExpectInvalid(ScanOutputSchema(), broken, "scan without needs_trace");
}

TEST(ToolSchemas, TestsAnswersHoldAndABrokenOneFails) {
  REQUIRE_CORPUS("2.6.0");
  for (const char* query : {"nn.LSTM", "F.softmax", "torch.matmul"}) {
    TestsAnswer answer;
    ASSERT_TRUE(FindTests(*TreeIndex("2.6.0").disk, query, &answer).ok()) << query;
    json j = TestsToJson(answer);
    ASSERT_FALSE(j["entries"].empty()) << query;
    ExpectValid(TestsOutputSchema(), j, query);
    json broken = j;
    broken["entries"][0]["decorations"] = "none";
    ExpectInvalid(TestsOutputSchema(), broken, std::string(query) + " with decorations a string");
  }
}

// A join of a small observation made by hand (no torch needed): _softmax ran
// under softmax with a kernel, and an op the trace does not name.
TEST(ToolSchemas, VerifyAnswersHoldAndABrokenOneFails) {
  REQUIRE_CORPUS("2.6.0");
  Observed observed;
  observed.torch_version = "2.6.0";
  observed.python = "/usr/bin/python3";
  observed.device = "cuda";
  ObservedRun run;
  run.label = "softmax sample 0 (float32)";
  run.query = "F.softmax";
  run.ops.push_back({"softmax", {}, "forward", "", 1, {}});
  run.ops.push_back(
      {"_softmax", {"softmax"}, "forward", "", 1, {{"void softmax_warp_forward<float, float, float, 5, false>()", 1}}});
  run.ops.push_back({"cumsum", {"softmax"}, "forward", "", 1, {}});
  observed.runs.push_back(run);
  VerifyReport report = JoinObserved(TreeIndex("2.6.0"), observed, {});
  json answer = VerifyToJson(report, false);
  ASSERT_FALSE(answer["queries"].empty());
  ASSERT_FALSE(answer["queries"][0]["static"].empty());
  ExpectValid(VerifyOutputSchema(), answer, "verify");
  json broken = answer;
  broken["queries"][0]["static"][0]["observed"] = "yes";
  ExpectInvalid(VerifyOutputSchema(), broken, "verify with observed a string");
}

// optrace.profile/1 of a report made by hand (no export needed): one GPU
// kernel row launched by aten::addmm, resolved to its definition.
TEST(ToolSchemas, ProfileAnswersHoldAndABrokenOneFails) {
  ProfileReport r;
  r.file = "prof.json";
  r.device = "NVIDIA H200";
  r.gpu = true;
  r.total_us = 12.5;
  ProfileRow row;
  row.name = "ampere_sgemm_128x64_tn";
  row.kind = "kernel";
  row.calls = 2;
  row.total_us = 12.5;
  row.mean_us = 6.25;
  row.share = 1.0;
  row.op = "aten::addmm";
  row.outer_op = "aten::linear";
  r.rows.push_back(row);
  json answer = ProfileJson(r);
  ExpectValid(ProfileOutputSchema(), answer, "profile");
  json broken = answer;
  broken["rows"][0]["calls"] = "2";
  ExpectInvalid(ProfileOutputSchema(), broken, "profile with calls a string");
}

// Every tool declares what it answers, with properties for each required
// field, and the instructions say when to use each one.
TEST(ToolSchemas, EveryToolHasARealOutputSchemaAndIsInTheInstructions) {
  OptraceTools tools("");
  for (const McpTool& tool : tools.Tools()) {
    SCOPED_TRACE(tool.name);
    ASSERT_TRUE(tool.output_schema.is_object());
    EXPECT_EQ(tool.output_schema["type"], "object");
    if (tool.output_schema.contains("required"))
      for (const auto& field : tool.output_schema["required"])
        EXPECT_TRUE(tool.output_schema["properties"].contains(field.get<std::string>())) << field;
    EXPECT_GE(tool.output_schema["properties"].size(), 4u);
    EXPECT_NE(McpInstructions().find("`" + tool.name + "`"), std::string::npos);
  }
}

}  // namespace
}  // namespace optrace
