// `optrace scan FILE.py`: every PyTorch op a user's file runs (usescan.h),
// each with its file:line uses and the checkout's classification; --trace
// appends the trace of each op that is not a well-known kind, in the same
// document: a brief block per op in text and markdown (--full: the whole
// trace), the whole trace in JSON. The user's file is read directly (it lies outside the
// checkout); names resolve against the checkout's index.
//
// Exit codes: 0 ops found, 1 no torch op found, 2 usage, 3 the file is
// unreadable or does not scan, or the checkout/index is unusable.
#include <unistd.h>

#include <iostream>

#include "base/disk.h"
#include "cli/cmd_common.h"
#include "cli/commands.h"
#include "index/index.h"
#include "render/render.h"
#include "trace/trace.h"
#include "usescan/usescan.h"

namespace optrace {

int CmdScan(int argc, char** argv) {
  CLI::App app{"Find every PyTorch op a Python file runs; optionally trace them", "optrace scan"};
  std::string source, format = "text", file, only_class;
  bool trace = false, json = false, full = false;
  AddSourceFlag(app, &source);
  app.add_option("file", file, "the Python file to scan")->required();
  app.add_option("--class", only_class, "only the functions of this class (and what they call)");
  app.add_option("--format", format, "text (default), md or json (optrace.scan/1, see doc/scan-schema.md)")
      ->check(CLI::IsMember({"text", "md", "markdown", "json"}));
  app.add_flag("--json", json, "same as --format json");
  app.add_flag("--trace", trace,
               "append the trace of each op that is not a well-known kind: one brief block each (text, md); "
               "JSON carries the whole traces");
  app.add_flag("--full", full, "with --trace: the whole trace of each op in text and md too");
  int rc = 0;
  if (!ParseOrReport(app, argc, argv, &rc)) return rc;
  if (json) format = "json";

  // An empty file reads fine (and has no ops: exit 1 below); a file that
  // cannot be read -- missing, a directory, a FIFO, a device, over the
  // index's size cap -- is exit 3 (base/disk.h ReadInputFile).
  std::string text;
  if (Status read = ReadInputFile(file, &text); !read.ok()) {
    std::cerr << "optrace: " << read.message() << "\n";
    return static_cast<int>(ExitCode::kSource);
  }

  Checkout checkout;
  if (!OpenCheckoutOrReport(source, &checkout, &rc)) return rc;
  LoadOptions load;
  load.progress = ::isatty(STDERR_FILENO);
  Index index;
  Status loaded = LoadIndex(checkout, load, &index);
  if (!loaded.ok()) return Report(loaded);

  ScanReport report;
  Status s = ScanUserFile(index, file, text, &report);
  if (s.code() == ExitCode::kSource) return Report(s);
  report.installed_torch = checkout.installed_torch;
  report.source_warning = checkout.version_warning;
  if (!only_class.empty()) {
    FilterScanToClass(&report, only_class);
    if (report.ops.empty()) s = Status::NotFound("no torch ops found in class " + only_class + " of " + file);
  }

  std::vector<Trace> traces;
  if (trace && s.ok()) {
    TraceOptions options;
    options.snippets = format != "json";
    for (const ScanOp& op : report.ops) {
      if (!op.needs_trace) continue;
      Trace t;
      const std::string query = TraceQueryOf(op);  // the file's own call, when its literals can decide
      Status ts = TraceQuery(index, query, options, &t);
      if (t.query.empty()) t.query = query;
      if (t.source_root.empty()) t.source_root = checkout.root;
      if (t.source_version.empty()) t.source_version = checkout.version;
      t.installed_torch = checkout.installed_torch;
      t.source_warning = checkout.version_warning;
      if (!ts.ok() && t.not_found.empty()) t.not_found.push_back({"query", ts.message()});
      traces.push_back(std::move(t));
    }
  }
  if (format == "json") {
    std::cout << DumpJson(ScanToJson(report, traces), 1) << "\n";
  } else if (format == "md" || format == "markdown") {
    std::cout << RenderScanMarkdown(report, traces, full);
  } else {
    std::cout << RenderScanText(report, traces, 100, full);
  }
  std::cout.flush();
  if (!s.ok()) std::cerr << "optrace: " << s.message() << "\n";
  return s.exit_code();
}

}  // namespace optrace
