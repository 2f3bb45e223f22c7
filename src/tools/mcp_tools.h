// optrace's MCP tools: `trace` (the whole trace of a query), `find` (where a
// C++/Python symbol or kernel is defined, registered and called), `op` (the
// native_functions.yaml and derivatives.yaml entries of an aten op) and
// `source` (which checkout is read and the state of its index). Each answers
// with a short markdown text for the model and compact structured JSON (no
// code snippets: an agent's context is precious). The index is loaded on a
// background thread, so the server answers `initialize` at once; tool calls
// wait for it. The index is a LiveIndex (index/live_index.h): watched from
// before that load, a call that finds an edit queued reloads it first -- tens
// of milliseconds when the store can put a layer over its image -- so no
// answer comes from an index older than the tree; a failed load (the
// checkout gone for a moment) is retried by the next call.
#pragma once

#include <condition_variable>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>

#include "base/checkout.h"
#include "index/index.h"
#include "index/live_index.h"
#include "mcp/mcp_server.h"

namespace optrace {

struct Trace;

// The `op` answer for "add.Tensor", "aten::add.Tensor", "torch.ops.aten.add.Tensor"
// (one overload) or "add" (every overload). Returns false when no op has that
// name (*out then holds "did you mean" suggestions).
bool DescribeOp(const Index& index, std::string_view name, McpJson* out);

// The brief form of an optrace.trace/1 object: its `summary` (the main path
// on the device, the selection functions with each alternative and its
// condition, the backward path), the ops on that path, the alternatives the
// typical-path assumptions leave open, Python frames with their bridging
// calls; at most 16 KB whatever the op. What was left out is counted in
// "brief". Still an optrace.trace/1 object.
McpJson BriefTrace(const McpJson& full);

// The server's `instructions` (initialize, server/discover): every tool, and
// when to use it.
std::string McpInstructions();

// Markdown briefs of the find and op answers.
std::string FindMarkdown(const McpJson& found);
std::string OpMarkdown(const McpJson& op);

class OptraceTools : public McpToolProvider {
 public:
  // `source_flag` as given to --source ("" = $PYTORCH_SOURCE, then the cache folder).
  // allow_code: `optrace mcp --allow-code`, the `verify` tool's `code` argument.
  // store_dir: where the index images are ("" = the cache folder; LoadOptions::store_dir).
  explicit OptraceTools(std::string source_flag, bool allow_code = false, std::string store_dir = "");
  ~OptraceTools() override;

  // Finds the checkout and loads its index on a background thread.
  void StartLoading();
  // Blocks until loading has ended; false with *error when it failed.
  bool WaitLoaded(std::string* error);

  const std::vector<McpTool>& Tools() const override { return tools_; }
  McpToolResult Call(const std::string& name, const McpJson& arguments) override;

 private:
  void Load();
  McpToolResult Trace(const McpJson& arguments);
  McpToolResult FullTracePage(const optrace::Trace& trace, const std::string& cursor,
                              const std::vector<std::string>& ops, const std::vector<std::string>& sections);
  McpToolResult Find(const McpJson& arguments);
  McpToolResult Op(const McpJson& arguments);
  McpToolResult Scan(const McpJson& arguments);
  McpToolResult Source();
  // Adds the checkout and installed-torch facts to an answer read from the
  // checkout: `source` (as optrace.trace/1 has it) and the mismatch warning
  // ahead of the text.
  McpToolResult WithSourceFacts(McpToolResult result);

  std::string source_flag_;
  bool allow_code_ = false;
  std::vector<McpTool> tools_;
  std::thread loader_;

  // The index: loaded on loader_, watched, reloaded after an edit or a
  // failure (live_index.h). Tool calls read index_ under live_.ReadLock().
  LiveIndex live_;
  const Index& index_;
  std::mutex mu_;               // guards installed_torch_ and version_warning_ (set once the checkout is found)
  bool have_torch_ = false;     // installed_torch_ and version_warning_ are set (`source` may be asked before)
  bool torch_settled_ = false;  // ... or will never be (no checkout): other tools wait for this
  std::condition_variable torch_settled_cv_;
  std::optional<std::string> installed_torch_;
  std::string version_warning_;
};

}  // namespace optrace
