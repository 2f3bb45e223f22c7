// Running the installed torch for `optrace verify`. The interpreter is the
// one `optrace info` reports, chosen in one place
// (base/installed_torch.h FindPythonInterpreter: $PYTHON, else the active
// virtualenv or conda environment, else the first python3 on PATH, always
// an absolute path, never from an empty PATH entry).
//
// The driver (verify_driver.py, embedded into the binary at build time so an
// installed optrace needs no files beside it) runs as
//   <python> -I -c <driver>      with the config JSON on stdin
// through fork/exec with an argument vector: no shell ever sees the user's
// code or query, and -I keeps the user's site-packages, PYTHON* variables
// and current directory out of sys.path surprises. The config goes through
// stdin, not argv: one argument is limited to 128 KiB (E2BIG), a --file is
// not. The driver's answer goes to stdout, which it keeps for itself: the
// user's prints are moved to stderr.
#pragma once

#include <string>
#include <vector>

#include "base/status.h"

namespace optrace {

struct ProcessResult {
  int exit_code = -1;  // -1: killed (timeout) or could not start
  bool timed_out = false;
  bool not_started = false;  // exec failed: no such interpreter
  std::string out, err;
};

// Runs argv[0] (resolved by base's FindOnPath when it has no '/') with
// `argv`, no shell, `input` on stdin; collects stdout and stderr; kills the
// process group after `timeout_s` seconds, or when optrace is interrupted
// (base/subprocess.h's registry).
ProcessResult RunProcess(const std::vector<std::string>& argv, int timeout_s, const std::string& input = "");

// The embedded driver's source text.
const char* VerifyDriverSource();

}  // namespace optrace
