// `verify` runs the installed torch (seconds to minutes: torch's import and
// the OpInfo database dominate) and answers with the verification's markdown
// and optrace.verify/1; `tests` reads the OpInfo/ModuleInfo databases of the
// checkout. Both report problems (no torch, no device, the code raised, no
// entry) as tool errors the model can act on.
#include "tools/verify_tool.h"

#include "tools/tool_schemas.h"
#include "verify/test_finder.h"
#include "verify/verify.h"

namespace optrace {

using json = nlohmann::ordered_json;

namespace {

json QuerySchema() {
  return {{"type", "string"},
          {"minLength", 1},
          {"maxLength", 300},
          {"description", "F.softmax, nn.LSTM, torch.matmul, aten::_softmax ..."}};
}

McpTool VerifySpec(bool allow_code) {
  McpJson properties = {
      {"query", QuerySchema()},
      {"device", {{"type", "string"}, {"enum", {"cpu", "cuda"}}, {"default", "cpu"}}},
      {"dtype", {{"type", "string"}, {"maxLength", 40}, {"description", "float32, float64, bfloat16 ..."}}},
      {"samples", {{"type", "integer"}, {"minimum", 1}, {"maximum", 20}, {"default", 3}}}};
  if (allow_code) {
    properties["code"] = {
        {"type", "string"},
        {"maxLength", 100000},
        {"description", "Python to run instead of the OpInfo samples (torch, nn, F, device defined)"}};
  }
  McpToolHints hints;
  hints.read_only = false;  // runs a Python process: never a read-only tool
  hints.destructive = allow_code;
  hints.idempotent = !allow_code;
  hints.open_world = allow_code;
  return {"verify",
          "Run the installed torch and mark what of the trace ran",
          "Runs the installed torch (the interpreter of $PYTHON, else the active venv/conda, else python3) on the "
          "query's inputs -- " +
              std::string(allow_code ? "`code` if given, else " : "") +
              "the op's OpInfo sample inputs (or a module's ModuleInfo inputs) "
              "from torch's own test suite -- forward and backward under the profiler, and joins what ran with the "
              "static trace of the checkout: every traced op, implementation, stub, kernel and library is marked "
              "observed or not observed (with the evidence), and every aten op or CUDA kernel that ran but the trace "
              "does not explain is listed with the traced op running around it. Slow (torch import): seconds to a "
              "minute." +
              std::string(allow_code ? " `code` runs as the user who started the server: it can do anything they can."
                                     : " Arbitrary `code` is accepted only when the server was started with "
                                       "`optrace mcp --allow-code`."),
          {{"type", "object"}, {"properties", properties}, {"required", {"query"}}, {"additionalProperties", false}},
          VerifyOutputSchema(),
          hints};
}

McpTool TestsSpec() {
  return {"tests",
          "How PyTorch tests an op",
          "The OpInfo / ModuleInfo entries for an op or module in the checkout's test databases "
          "(common_methods_invocations.py, opinfo/definitions/*.py, common_modules.py) with file:line: sample-input "
          "and reference functions (located), dtypes per device as written, DecorateInfo skips and tolerance "
          "overrides, the test files that run every entry, and test files calling the op directly.",
          {{"type", "object"},
           {"properties", {{"query", QuerySchema()}}},
           {"required", {"query"}},
           {"additionalProperties", false}},
          TestsOutputSchema()};
}

McpToolResult Verify(const Index& index, const McpJson& arguments, bool allow_code) {
  VerifyRequest request;
  request.query = arguments.at("query");
  // The schema leaves `code` out without --allow-code; this holds whatever
  // reaches here (a schema check is not where a security rule should live).
  if (arguments.contains("code") && !allow_code) {
    return {true,
            "optrace verify: `code` is accepted only when the MCP server is started with `optrace mcp --allow-code` "
            "(it runs arbitrary Python); without it, verify runs the OpInfo/ModuleInfo samples of the query",
            nullptr};
  }
  request.code = arguments.value("code", std::string());
  request.mode = request.code.empty() ? "opinfo" : "code";
  request.device = arguments.value("device", std::string("cpu"));
  request.dtype = arguments.value("dtype", std::string());
  request.samples = arguments.value("samples", 3);
  request.timeout_s = 600;
  Observed observed;
  if (ObserveStatus s = ObserveWithTorch(request, &observed); !s.ok())
    return {true, "optrace verify: " + s.message, nullptr};
  VerifyReport report = JoinObserved(index, observed, {});
  return {false, VerifyText(report, true), VerifyToJson(report, false)};
}

McpToolResult Tests(const Index& index, const McpJson& arguments) {
  TestsAnswer answer;
  Status s = FindTestsOrSuggest(index, arguments.at("query"), &answer);
  if (!s.ok()) return {true, "optrace tests: " + s.message(), nullptr};
  return {false, TestsText(answer, true), TestsToJson(answer)};
}

}  // namespace

std::vector<McpTool> VerifyTools(bool allow_code) { return {VerifySpec(allow_code), TestsSpec()}; }

bool CallVerifyTool(const Index& index, const std::string& name, const McpJson& arguments, bool allow_code,
                    McpToolResult* result) {
  if (name == "verify") *result = Verify(index, arguments, allow_code);
  else if (name == "tests") *result = Tests(index, arguments);
  else return false;
  return true;
}

}  // namespace optrace
