// `optrace verify`: runs the installed torch on the query's inputs (the
// user's --code/--file, else the OpInfo samples, else the ModuleInfo inputs
// of the installed torch's test suite) and joins what ran with the static
// trace of the checkout (verify/verify.h). `--observe-only` stops after the
// run and prints the optrace.observed/1 document (no checkout needed: a
// machine with a GPU but no tree); `--observed FILE` joins such a document
// here. `--all-opinfo` runs every OpInfo's first sample: the tracer's gap
// report.
//
// Exit codes: 0 verified, 1 the query names nothing (no trace, no OpInfo),
// 2 usage, 3 checkout or index problem, 4 the installed torch could not run
// it (no Python or torch, no device, the code raised).
#include <unistd.h>

#include <iostream>

#include "base/disk.h"
#include "base/json.h"
#include "base/text.h"
#include "cli/cmd_common.h"
#include "cli/commands.h"
#include "cli/verify_time.h"
#include "index/index.h"
#include "verify/verify.h"

namespace optrace {

namespace {

// --observed documents of --all-opinfo hold every OpInfo's runs: megabytes,
// more than a source file's cap.
constexpr uint64_t kMaxObservedBytes = uint64_t{256} << 20;

struct VerifyFlags {
  std::string source, format = "text", file, observed_file;
  bool json = false, all = false, observe_only = false, no_backward = false;
  VerifyRequest request;
  bool time = false;  // --time: cmd_verify_time.cc
  VerifyTimeFlags timing;
};

// Fills request.mode and the code from the flags; a usage error when they clash.
Status Prepare(VerifyFlags& f, const std::vector<std::string>& queries) {
  VerifyRequest& r = f.request;
  if (f.all) {
    if (!queries.empty() || !r.code.empty() || !f.file.empty())
      return Status::Usage("--all-opinfo takes no QUERY, --code or --file");
    r.mode = "all-opinfo";
    r.samples = 1;
    return Status::Ok();
  }
  if (!f.observed_file.empty() && queries.empty()) return Status::Ok();  // the queries are the file's
  if (queries.size() != 1) return Status::Usage("verify needs one QUERY (or --all-opinfo); see optrace verify --help");
  r.query = queries[0];
  if (Status s = CheckQuery(r.query); !s.ok()) return s;
  if (!r.code.empty() && !f.file.empty()) return Status::Usage("give --code or --file, not both");
  if (!f.file.empty()) {
    if (Status s = ReadInputFile(f.file, &r.code); !s.ok()) return Status::Usage("--file: " + s.message());
    r.filename = f.file;
    r.mode = "file";
  } else if (!r.code.empty()) {
    r.mode = "code";
  }
  return Status::Ok();
}

ObserveStatus LoadObserved(const VerifyFlags& f, Observed* observed) {
  if (f.observed_file.empty()) return ObserveWithTorch(f.request, observed);
  std::string text;
  if (Status s = ReadInputFile(f.observed_file, &text, kMaxObservedBytes); !s.ok())
    return {2, "--observed: " + s.message()};
  Status s = ParseObserved(text, observed);
  return {s.exit_code(), s.message()};
}

void AddFlags(CLI::App& app, VerifyFlags& f) {
  AddSourceFlag(app, &f.source);
  app.add_option("--code", f.request.code, "Python to run (torch, nn, F and `device` are defined)");
  app.add_option("--file", f.file, "a Python script to run");
  app.add_option("--sample", f.request.samples, "OpInfo samples / ModuleInfo inputs to run (default 3)")
      ->check(CLI::Range(1, 100));
  app.add_option("--dtype", f.request.dtype, "float32, float64, bfloat16, ... (default: float32 when supported)");
  app.add_option("--device", f.request.device, "cpu (default) or cuda")->check(CLI::IsMember({"cpu", "cuda"}));
  app.add_flag("--all-opinfo", f.all, "run every OpInfo's first sample: how much of what runs the traces explain");
  app.add_flag("--observe-only", f.observe_only,
               "print what ran (optrace.observed/1) without joining; no checkout needed");
  app.add_option("--observed", f.observed_file, "join a saved optrace.observed/1 document instead of running torch");
  app.add_flag("--no-backward", f.no_backward, "trace without derivatives.yaml and backward ops");
  app.add_option("--timeout", f.request.timeout_s, "seconds the torch run may take (default 900)")
      ->check(CLI::Range(10, 86400));
  app.add_flag("--json", f.json, "same as --format json (optrace.verify/1, see doc/verify-schema.md)");
  app.add_option("--format", f.format, "text (default), md or json")->check(CLI::IsMember({"text", "md", "json"}));
  app.add_flag("--time", f.time,
               "run QUERY with --shape inputs under the profiler: per-kernel time, source, share of peak");
  app.add_option("--shape", f.timing.shapes, "--time: an input's shape, 8,1024,4096 (one per input, in order)");
  app.add_option("--repeat", f.timing.repeat, "--time: calls profiled (default 20)")->check(CLI::Range(1, 10000));
  app.add_option("--top", f.timing.top, "--time: kernels listed (default 20; 0 = all)");
}

}  // namespace

int CmdVerify(int argc, char** argv) {
  CLI::App app{"Run the installed torch and join what ran with the static trace", "optrace verify"};
  VerifyFlags f;
  std::vector<std::string> queries;
  AddFlags(app, f);
  app.add_option("query", queries, "F.softmax, nn.LSTM, torch.matmul, aten::_softmax ...");
  int rc = 0;
  if (!ParseOrReport(app, argc, argv, &rc)) return rc;
  if (f.time) {
    if (queries.size() != 1) return Report(Status::Usage("verify --time needs one QUERY"));
    f.timing.source = f.source;
    f.timing.query = queries[0];
    f.timing.device = f.request.device;
    f.timing.dtype = f.request.dtype;
    return RunVerifyTime(f.timing);
  }
  if (Status s = Prepare(f, queries); !s.ok()) return Report(s);
  if (!f.observed_file.empty() && f.observe_only)
    return Report(Status::Usage("--observed and --observe-only exclude each other"));

  Checkout checkout;
  if (!f.observe_only) {
    Status found = FindCheckout(f.source, &checkout);
    if (!found.ok()) return Report(found);
  }
  Observed observed;
  if (ObserveStatus s = LoadObserved(f, &observed); !s.ok()) {
    std::cerr << "optrace: " << TerminalText(s.message) << "\n";
    return s.exit_code;
  }
  if (f.observe_only) {
    std::cout << DumpJson(ObservedToJson(observed)) << "\n";
    return 0;
  }
  auto* index = new Index;  // never destroyed: the process exits right after (see cmd_trace)
  LoadOptions load;
  load.progress = ::isatty(STDERR_FILENO);
  if (Status s = LoadIndex(checkout, load, index); !s.ok()) return Report(s);
  VerifyOptions options;
  options.backward = !f.no_backward;
  VerifyReport report = JoinObserved(*index, observed, options);
  if (!report.warning.empty()) std::cerr << "optrace: warning: " << report.warning << "\n";
  if (f.json || f.format == "json") {
    std::cout << DumpJson(VerifyToJson(report, f.all), f.all ? -1 : 1) << "\n";
  } else {
    std::cout << VerifyText(report, f.format == "md");
  }
  if (!f.all && report.queries.size() == 1 && !report.queries[0].trace_error.empty()) {
    std::cerr << "optrace: " << report.queries[0].trace_error << "\n";
    return static_cast<int>(ExitCode::kNotFound);
  }
  return 0;
}

}  // namespace optrace
