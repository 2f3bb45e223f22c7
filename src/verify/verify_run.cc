// From a VerifyRequest to an Observed: the driver's configuration, its exit
// codes turned into messages a user can act on (which interpreter was asked,
// and why that one), never a Python traceback unless it is the user's code
// that raised (then its last lines, which name the user's line).
#include <cstdlib>
#include <string>

#include "base/installed_torch.h"
#include "verify/python_run.h"
#include "verify/verify.h"

namespace optrace {

namespace {

std::string ConfigJson(const VerifyRequest& r) {
  nlohmann::ordered_json config = {{"mode", r.mode},         {"query", r.query},   {"code", r.code},
                                   {"filename", r.filename}, {"device", r.device}, {"dtype", r.dtype},
                                   {"samples", r.samples}};
  return config.dump();
}

ObserveStatus Failed(std::string message) { return {kExitTorchFailed, std::move(message)}; }

std::string Tail(const std::string& text, size_t lines) {
  size_t pos = text.size();
  while (lines-- > 0 && pos > 0) {
    size_t nl = text.rfind('\n', pos - 1);
    if (nl == std::string::npos) return text;
    pos = nl;
  }
  return pos < text.size() ? text.substr(pos + 1) : text;
}

ObserveStatus DriverFailure(const PythonInterpreter& python, const ProcessResult& run, const Observed& observed) {
  const std::string who = python.path + " (chosen by " + python.found_by + ")";
  if (run.not_started) {
    return Failed("cannot run the Python interpreter " + who +
                  "; set $PYTHON to the interpreter whose torch should run");
  }
  if (run.timed_out) return Failed("the torch run by " + who + " did not finish in time; stopped");
  switch (observed.error_code) {
    case 10:
      return Failed("torch is not installed for " + who + ": " + observed.error +
                    "; set $PYTHON (or activate the environment) whose torch should run");
    case 11:
    case 12:
      return Failed(observed.error);
    case 13:
      return {1, observed.error};
    case 14:
      return {2, observed.error};
    default:
      return Failed("the torch run by " + who + " failed (exit " + std::to_string(run.exit_code) +
                    "): " + Tail(run.err, 4));
  }
}

}  // namespace

ObserveStatus ObserveWithTorch(const VerifyRequest& request, Observed* out) {
  PythonInterpreter python = FindPythonInterpreter();
  if (python.path.empty()) {
    const char* named = python.found_by == "$PYTHON" ? std::getenv("PYTHON") : nullptr;
    return Failed("cannot run the Python interpreter " + std::string(named ? named : "python3") + " (chosen by " +
                  python.found_by +
                  "): no such executable (empty and relative PATH entries are not searched); set "
                  "$PYTHON to the interpreter whose torch should run");
  }
  ProcessResult run =
      RunProcess({python.path, "-I", "-c", VerifyDriverSource()}, request.timeout_s, ConfigJson(request));
  Observed observed;
  Status parsed = run.out.empty() ? Status::Usage("no output") : ParseObserved(run.out, &observed);
  if (run.exit_code != 0 || !parsed.ok()) {
    if (!parsed.ok()) observed.error_code = run.exit_code;
    return DriverFailure(python, run, observed);
  }
  *out = std::move(observed);
  return {};
}

}  // namespace optrace
