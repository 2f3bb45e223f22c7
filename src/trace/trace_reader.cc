// What every part of the tracer reads (TraceReader, trace_internal.h): the
// index, the options, and the devices the options trace -- which dispatch
// keys are wanted, which device's path the trace answers for, and how the
// implementation behind a key is walked. One place, so that every part
// answers "is this on the traced device?" the same way.
#include "base/text.h"
#include "trace/trace_internal.h"

namespace optrace {

bool IsCompositeKey(std::string_view key) { return StartsWith(key, "Composite"); }

std::string DeviceOfKey(std::string_view key) {
  if (key == "CUDA") return "CUDA";
  if (key == "CPU") return "CPU";
  return "any";
}

// Whether an op has an implementation for the devices traced (directly or
// through its structured delegate); an op only MPS or XPU implements is
// listed at its call site but not traced.
bool HasWantedKernel(const TraceReader& t, const NativeFunction& fn) {
  if (fn.structured_delegate) return true;
  for (const auto& [key, kernel] : fn.dispatch) {
    if (t.KeyWanted(key)) return true;
  }
  return false;
}

Location TraceReader::Loc(const std::string& file, int line, int snippet_lines) const {
  Location l;
  l.file = file;
  l.line = line;
  if (opt_.snippets && line > 0 && snippet_lines > 0) l.snippet = ix_.Snippet(file, line, snippet_lines);
  return l;
}

Location TraceReader::CppLoc(uint32_t file, uint32_t line, int snippet_lines) const {
  return Loc(ix_.cpp.file(file), static_cast<int>(line), snippet_lines);
}

std::string ResolvedKey(const NativeFunction& fn, std::string_view device) {
  auto has = [&](std::string_view key) {
    for (const auto& [k, kernel] : fn.dispatch)
      if (k == key) return true;
    return false;
  };
  for (std::string_view key :
       {device, std::string_view("CompositeExplicitAutogradNonFunctional"),
        std::string_view("CompositeExplicitAutograd"), std::string_view("CompositeImplicitAutograd")})
    if (has(key)) return std::string(key);
  return "";
}

std::string TraceReader::PrimaryDevice() const { return opt_.device == TraceOptions::Device::kCpu ? "CPU" : "CUDA"; }

bool TraceReader::OnPrimaryPath(std::string_view walk_device) const {
  return opt_.device == TraceOptions::Device::kAll || walk_device == "any" || walk_device == PrimaryDevice();
}

std::string TraceReader::WalkDeviceOfKey(const NativeFunction& fn, const std::string& key) const {
  if (opt_.device == TraceOptions::Device::kAll) return DeviceOfKey(key);
  bool cuda = opt_.device != TraceOptions::Device::kCpu && ResolvedKey(fn, "CUDA") == key;
  bool cpu = opt_.device != TraceOptions::Device::kCuda && ResolvedKey(fn, "CPU") == key;
  return cuda && cpu ? "any" : cuda ? "CUDA" : cpu ? "CPU" : "";
}

bool TraceReader::KeyWanted(std::string_view key) const {
  switch (opt_.device) {
    case TraceOptions::Device::kAll:
      return true;
    case TraceOptions::Device::kCuda:
      return key == "CUDA" || IsCompositeKey(key);
    case TraceOptions::Device::kCpu:
      return key == "CPU" || IsCompositeKey(key);
    default:
      return key == "CPU" || key == "CUDA" || IsCompositeKey(key);
  }
}

}  // namespace optrace
