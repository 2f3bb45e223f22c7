// `optrace profile FILE`: a torch.profiler export (export_chrome_trace, .json
// or .json.gz) joined with the source -- per GPU kernel its time, the op and
// Python frame that launched it, where its code is, and its achieved share of
// the device's peak (profile/profile.h). The same BuildProfile and renderers
// serve the MCP `profile` tool.
//
// Exit codes: 0 reported, 2 usage or an unreadable / malformed export, 3 no
// checkout or index (unless --no-source).
#include <unistd.h>

#include <iostream>

#include "base/json.h"
#include "cli/cmd_common.h"
#include "cli/commands.h"
#include "index/index.h"
#include "profile/profile.h"

namespace optrace {

int CmdProfile(int argc, char** argv) {
  CLI::App app{"Per GPU kernel of a torch.profiler export: time, launching op, source file:line, share of peak",
               "optrace profile"};
  std::string source, file, format = "text";
  bool json = false, no_source = false;
  ProfileOptions options;
  AddSourceFlag(app, &source);
  app.add_option("file", file, "a torch.profiler Chrome-trace export (.json or .json.gz)")->required();
  app.add_option("--top", options.top, "rows to print (default 20; 0 = all)");
  app.add_option("--device", options.device, "device name for the peak table (default: the export's, e.g. H200)");
  app.add_flag("--no-source", no_source, "timing only: do not join with a checkout");
  app.add_flag("--json", json, "same as --format json (optrace.profile/1, doc/profile.md)");
  app.add_option("--format", format, "text (default), md or json")->check(CLI::IsMember({"text", "md", "json"}));
  int rc = 0;
  if (!ParseOrReport(app, argc, argv, &rc)) return rc;
  ChromeTrace trace;
  if (Status s = ReadChromeTrace(file, &trace); !s.ok()) return Report(s);
  const Index* index = nullptr;
  if (!no_source) {
    Checkout checkout;
    if (!OpenCheckoutOrReport(source, &checkout, &rc)) return rc;
    auto* loaded = new Index;  // never destroyed: the process exits right after (see cmd_trace)
    LoadOptions load;
    load.progress = ::isatty(STDERR_FILENO);
    if (Status s = LoadIndex(checkout, load, loaded); !s.ok()) return Report(s);
    index = loaded;
  }
  options.resolve = !no_source;
  ProfileReport report;
  report.file = file;
  if (Status s = BuildProfile(trace, index, options, &report); !s.ok()) return Report(s);
  if (json || format == "json") {
    std::cout << DumpJson(ProfileJson(report), 1) << "\n";
  } else if (format == "md") {
    std::cout << RenderProfileMarkdown(report);
  } else {
    std::cout << RenderProfileText(report);
  }
  return FinishOutput(0);
}

}  // namespace optrace
