// Reading a torch.profiler export: the Chrome-trace JSON `export_chrome_trace`
// writes (Kineto's: {"traceEvents": [...], "deviceProperties": [...]}; the
// legacy profiler's, as Debian's CPU-only torch 1.13 writes it: a bare array
// of events), plain or gzipped.
//
// A profile of a training run is easily 100 MB, so the text is read with
// nlohmann's SAX interface and only the fields `optrace profile` uses are
// kept (no DOM of the whole file): an event's name, category, time, thread,
// the correlation / External id that join a kernel to its launch and op, and
// an op's recorded input shapes, dtypes and concrete scalar inputs.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"

namespace optrace {

struct TraceEvent {
  std::string name, cat;   // cat: "kernel", "gpu_memcpy", "gpu_memset", "cpu_op", "cuda_runtime", "python_function"
  double ts = 0, dur = 0;  // microseconds
  std::string pid, tid;    // as written (numbers as their decimal text)
  int64_t external_id = -1, correlation = -1;
  std::vector<std::vector<int64_t>> dims;  // "Input Dims" ([] for a non-tensor input)
  std::vector<std::string> types;          // "Input type"
  std::vector<std::string> concrete;       // "Concrete Inputs" (scalars as text, "" for tensors)
};

struct ChromeTrace {
  std::vector<TraceEvent> events;  // complete ('X') events of the categories above, in file order
  std::string device_name;         // deviceProperties[0].name, "" when none (a CPU-only export)
  bool legacy = false;             // the legacy profiler's bare array: its events carry no category
};

// Parses the text of an export (already decompressed).
Status ParseChromeTrace(const std::string& text, ChromeTrace* out);

// Reads FILE (.json, or gzip: detected by its magic bytes, not its name) and parses it.
Status ReadChromeTrace(const std::string& path, ChromeTrace* out);

}  // namespace optrace
