// `optrace profile FILE`: a torch.profiler export joined with the source
// (issue 26). Per GPU kernel: calls, total and mean time, share of GPU time,
// the aten op that launched it (the launch's correlation id to its runtime
// call, that call's time to the innermost operator around it on its
// thread; the External id when there is no runtime call) with the Python
// frame and input shapes when recorded, and where its code is -- the
// kernel's definition and the functor or lambda line (trace/
// ResolveKernelName), or the vendor library. With shapes, the bytes / FLOPs
// estimate of the launching op (profile_cost.h), attributed to its kernels
// in proportion to their time, gives the achieved share of the device's
// peak: the baseline to beat.
//
// A CPU-only export has no kernels: the report then ranks the CPU operators
// by self time. CLI and MCP call the same BuildProfile and renderers.
#pragma once

#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/status.h"
#include "profile/chrome_trace.h"
#include "profile/profile_cost.h"
#include "trace/trace.h"

namespace optrace {

class Index;

struct ProfileRow {
  std::string name;  // the kernel (or CPU op) name as recorded
  std::string kind;  // "kernel" | "memcpy" | "memset" | "cpu_op"
  long calls = 0;
  double total_us = 0, mean_us = 0, share = 0;  // share of GPU time (CPU rows: of CPU op self time)
  std::string op, outer_op;                     // the launching aten op (innermost) and the outermost op around it
  long op_calls = 0;                            // calls launched by `op` (the most frequent launcher)
  std::string python;                           // the innermost user Python frame, when recorded
  std::vector<std::vector<int64_t>> shapes;     // the launching op's input shapes (first call)
  std::vector<std::string> types;
  KernelSource source;          // where its code is (invalid: not resolved)
  std::string unresolved;       // why not, when not
  OpCost cost;                  // of the launching op (first call), when modelled
  double bytes = 0, flops = 0;  // attributed to this kernel over all its calls
  double achieved_tbs = 0, bandwidth_share = 0, achieved_tflops = 0, compute_share = 0;
};

struct ProfileReport {
  std::string file;
  std::string device;  // as recorded, or --device
  const DevicePeak* peak = nullptr;
  bool gpu = false;              // kernels were recorded
  double total_us = 0;           // GPU time (kernels, copies, memsets), or CPU op self time
  size_t distinct = 0;           // distinct kernels (or ops)
  std::vector<ProfileRow> rows;  // sorted by total time, top N
  std::vector<std::string> notes;
};

struct ProfileOptions {
  size_t top = 20;      // 0: all
  std::string device;   // overrides the export's device name for the peak table
  bool resolve = true;  // join with the source (needs the index)
};

// Builds the report; `index` may be null when options.resolve is false.
Status BuildProfile(const ChromeTrace& trace, const Index* index, const ProfileOptions& options, ProfileReport* out);

std::string RenderProfileText(const ProfileReport& r);
std::string RenderProfileMarkdown(const ProfileReport& r);
nlohmann::ordered_json ProfileJson(const ProfileReport& r);  // optrace.profile/1 (doc/profile.md)

// verify --time's join: the names a static trace gives to what runs on a GPU (its kernels, the
// functions holding their functors or lambdas, its libraries), and whether one of them names a row's code.
std::set<std::string> TracedKernelNames(const Trace& t);
bool NamedByTrace(const KernelSource& s, const std::set<std::string>& names);

}  // namespace optrace
