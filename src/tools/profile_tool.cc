// `profile` reads a torch.profiler export from a path on this machine (the
// agent has just written or been given it) and answers with the report's
// markdown and optrace.profile/1. An unreadable or malformed file is a tool
// error the model can act on.
#include "tools/profile_tool.h"

#include "tools/tool_schemas.h"

#include "profile/profile.h"

namespace optrace {

using json = nlohmann::ordered_json;

std::vector<McpTool> ProfileTools() {
  McpTool profile{
      "profile",
      "Per GPU kernel of a torch.profiler export, joined with the source",
      "Reads a torch.profiler Chrome-trace export (prof.export_chrome_trace(path); .json or .json.gz) and lists, "
      "per GPU kernel sorted by time: calls, total and mean time, share of GPU time, the aten op and Python frame "
      "that launched it, its input shapes, where its code is in the checkout (the kernel's definition file:line; "
      "for a launch template such as vectorized_elementwise_kernel the functor or the exact lambda line; for a "
      "cuBLAS/cuDNN/... kernel the library), and with record_shapes=True the bytes/FLOPs estimate and the "
      "achieved share of the device's peak bandwidth and compute (H100, H200, A100, B200, L40S). A CPU-only "
      "export lists CPU operators by self time.",
      {{"type", "object"},
       {"properties",
        {{"path",
          {{"type", "string"},
           {"minLength", 1},
           {"maxLength", 4096},
           {"description", "the export's path on this machine"}}},
         {"top",
          {{"type", "integer"}, {"minimum", 0}, {"maximum", 1000}, {"default", 20}, {"description", "rows (0: all)"}}},
         {"device",
          {{"type", "string"},
           {"maxLength", 100},
           {"description", "device for the peak table when the export names none (H100, H200, ...)"}}}}},
       {"required", {"path"}},
       {"additionalProperties", false}},
      ProfileOutputSchema()};
  return {std::move(profile)};
}

bool CallProfileTool(const Index& index, const std::string& name, const McpJson& arguments, McpToolResult* result) {
  if (name != "profile") return false;
  ChromeTrace trace;
  std::string path = arguments.at("path");
  if (Status s = ReadChromeTrace(path, &trace); !s.ok()) {
    *result = {true, "optrace profile: " + s.message(), nullptr};
    return true;
  }
  ProfileOptions options;
  options.top = arguments.value("top", 20);
  options.device = arguments.value("device", std::string());
  ProfileReport report;
  report.file = path;
  if (Status s = BuildProfile(trace, &index, options, &report); !s.ok()) {
    *result = {true, "optrace profile: " + s.message(), nullptr};
    return true;
  }
  *result = {false, RenderProfileMarkdown(report), ProfileJson(report)};
  return true;
}

}  // namespace optrace
