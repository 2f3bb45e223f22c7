// Running the installed torch for `optrace verify`. The interpreter is the
// one the user's own scripts would get: $PYTHON, else the active virtualenv
// or conda environment, else the first python3 on PATH (issue 16's order;
// base/checkout will own this choice once the version check uses it too).
//
// The driver (verify_driver.py, embedded into the binary at build time so an
// installed optrace needs no files beside it) runs as
//   <python> -I -c <driver> <config JSON>
// through fork/exec with an argument vector: no shell ever sees the user's
// code or query, and -I keeps the user's site-packages, PYTHON* variables
// and current directory out of sys.path surprises.
#pragma once

#include <string>
#include <vector>

#include "base/status.h"

namespace optrace {

struct PythonChoice {
  std::string path;  // what is executed ("python3" is searched on PATH by exec)
  std::string why;   // "$PYTHON", "$VIRTUAL_ENV", "$CONDA_PREFIX", "PATH"
};

// $PYTHON, $VIRTUAL_ENV/bin/python, $CONDA_PREFIX/bin/python, python3.
PythonChoice ChoosePython();

struct ProcessResult {
  int exit_code = -1;  // -1: killed (timeout) or could not start
  bool timed_out = false;
  bool not_started = false;  // exec failed: no such interpreter
  std::string out, err;
};

// Runs argv[0] (searched on PATH when it has no '/') with `argv`, no shell,
// stdin from /dev/null; collects stdout and stderr; kills the process group
// after `timeout_s` seconds.
ProcessResult RunProcess(const std::vector<std::string>& argv, int timeout_s);

// The embedded driver's source text.
const char* VerifyDriverSource();

}  // namespace optrace
