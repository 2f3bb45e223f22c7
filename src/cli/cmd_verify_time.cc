// `optrace verify QUERY --time`: runs the op on the installed torch and
// device with the given shapes and dtype, repeats it under torch.profiler,
// and prints the same per-kernel table as `optrace profile` (profile/)
// joined with the op's static trace: each kernel that ran is marked when
// the trace names it (by kernel, functor / lambda-holding function, or
// library) -- what to beat, and where its code is.
//
// The torch side is a short script run like verify's driver (python_run.h:
// argument vector, no shell, -I); the query becomes a callable there:
// `aten::x[.ov]` is torch.ops.aten.x.ov, `Tensor.m` / `x.m` a method of the
// first input, anything else (torch.matmul, F.softmax) is looked up as a
// dotted name under torch / F / nn. Every input is torch.randn of a --shape.
#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <set>

#include "base/json.h"
#include "base/text.h"
#include "cli/cmd_common.h"
#include "cli/verify_time.h"
#include "index/index.h"
#include "profile/profile.h"
#include "trace/trace.h"
#include "verify/python_run.h"
#include "verify/verify.h"

namespace optrace {

namespace {

const char kTimeDriver[] = R"PY(
import json, sys
import torch, torch.nn as nn, torch.nn.functional as F
from torch.profiler import profile, ProfilerActivity
c = json.loads(sys.stdin.read())  # the config comes on stdin: no argument-size limit
dev, q = c["device"], c["query"]
dt = getattr(torch, c["dtype"] or "float32")
if q.startswith("aten::"):
    base, _, ov = q[6:].partition(".")
    fn = getattr(getattr(torch.ops.aten, base), ov or "default")
elif q.startswith("Tensor.") or q.startswith("x."):
    m = q.split(".", 1)[1]
    fn = lambda *a: getattr(a[0], m)(*a[1:])
else:
    fn = {"torch": torch, "F": F, "nn": nn}
    for i, part in enumerate(q.split(".")):
        fn = fn[part] if i == 0 else getattr(fn, part)
if isinstance(fn, type):
    sys.exit("verify --time runs functions and methods, not module classes: " + q)
xs = [torch.randn(*[int(d) for d in s.split(",")], device=dev, dtype=dt) for s in c["shapes"]]
sync = torch.cuda.synchronize if dev == "cuda" else (lambda: None)
for _ in range(3):
    fn(*xs)
sync()
acts = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if dev == "cuda" else [])
with profile(activities=acts, record_shapes=True) as p:
    for _ in range(c["repeat"]):
        fn(*xs)
    sync()
p.export_chrome_trace(c["out"])
print(json.dumps({"torch": torch.__version__, "device": torch.cuda.get_device_name() if dev == "cuda" else "cpu"}))
)PY";

}  // namespace

int RunVerifyTime(const VerifyTimeFlags& f) {
  if (f.shapes.empty())
    return Report(Status::Usage("verify --time needs at least one --shape (e.g. --shape 8,1024,4096)"));
  Checkout checkout;
  int rc = 0;
  if (!OpenCheckoutOrReport(f.source, &checkout, &rc)) return rc;
  auto* index = new Index;  // never destroyed: the process exits right after (see cmd_trace)
  LoadOptions load;
  load.progress = ::isatty(STDERR_FILENO);
  if (Status s = LoadIndex(checkout, load, index); !s.ok()) return Report(s);
  Trace trace;
  TraceOptions topt;
  topt.snippets = false;
  topt.device = f.device == "cuda" ? TraceOptions::Device::kCuda : TraceOptions::Device::kCpu;
  if (Status s = TraceQuery(*index, f.query, topt, &trace); !s.ok()) return Report(s);

  char tmpl[] = "/tmp/optrace-time-XXXXXX";
  int fd = ::mkstemp(tmpl);
  if (fd < 0) return Report(Status::Usage("cannot create a temporary file"));
  ::close(fd);
  const std::string out = tmpl;
  nlohmann::ordered_json config = {{"query", f.query},   {"shapes", f.shapes}, {"dtype", f.dtype},
                                   {"device", f.device}, {"repeat", f.repeat}, {"out", out}};
  // The one interpreter resolution every command uses (base/installed_torch.h).
  PythonInterpreter py = FindPythonInterpreter();
  if (py.path.empty()) {
    ::unlink(out.c_str());
    std::cerr << "optrace: verify --time: no Python interpreter (chosen by " << py.found_by
              << "); set $PYTHON to the interpreter whose torch should run\n";
    return kExitTorchFailed;
  }
  ProcessResult run = RunProcess({py.path, "-I", "-c", kTimeDriver}, f.timeout_s, DumpJson(config));
  if (run.exit_code != 0) {
    ::unlink(out.c_str());
    std::cerr << "optrace: verify --time: the installed torch (" << py.path << ", from " << py.found_by
              << ") could not run it" << (run.timed_out ? " (timed out)" : "") << ":\n"
              << run.err;
    return kExitTorchFailed;
  }
  ChromeTrace ct;
  Status read = ReadChromeTrace(out, &ct);
  ::unlink(out.c_str());
  if (!read.ok()) return Report(read);
  ProfileOptions po;
  po.top = f.top;
  ProfileReport report;
  report.file = f.query;
  if (Status s = BuildProfile(ct, index, po, &report); !s.ok()) return Report(s);
  std::set<std::string> names = TracedKernelNames(trace);
  std::string ran = TrimView(run.out).empty() ? "" : std::string(TrimView(run.out));
  std::cout << "optrace verify --time " << f.query << "\n";
  std::cout << "  ran       " << f.repeat << " times on " << f.device << ", dtype "
            << (f.dtype.empty() ? "float32" : f.dtype) << ", inputs";
  for (const std::string& s : f.shapes) std::cout << " [" << s << "]";
  std::cout << "  (" << ran << ")\n";
  std::cout << "  trace     " << Name(trace.target_kind) << " " << trace.target_name << ": " << trace.ops.size()
            << " ops, " << names.size() << " kernels and libraries named\n";
  std::string table = RenderProfileText(report);
  std::cout << table.substr(table.find('\n') + 1);
  // GPU: a kernel the trace names; CPU: an operator the trace reaches.
  std::set<std::string> ops;
  for (const OpStep& op : trace.ops) ops.insert("aten::" + std::string(OpBaseName(op.name)));
  std::cout << "\nin the static trace:";
  size_t shown = 0;
  for (size_t i = 0; i < report.rows.size(); ++i) {
    if (report.gpu ? !NamedByTrace(report.rows[i].source, names) : !ops.count(report.rows[i].name)) continue;
    std::cout << (shown++ ? ", " : " ") << "#" << i + 1;
  }
  std::cout << (shown ? "" : " none") << " of " << report.rows.size() << (report.gpu ? " kernels\n" : " operators\n");
  return FinishOutput(0);
}

}  // namespace optrace
