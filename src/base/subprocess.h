// Running another program without a shell. optrace starts Python (the
// installed-torch check), git and apt; each gets an argument vector handed to
// execvp, so no user string (a --version, a path, a query) is ever parsed by
// a shell, and nothing is run through `sh -c`. The child's stdin is
// /dev/null; its stdout is captured or inherited; its stderr is discarded or
// inherited. A deadline kills a child that hangs (a Python that blocks on a
// network file system must not stall every trace).
#pragma once

#include <string>
#include <vector>

namespace optrace {

struct RunSettings {
  std::string cwd;              // the child's working directory; "" keeps ours
  bool capture_stdout = true;   // else the child writes to our stdout
  bool quiet_stderr = true;     // else the child writes to our stderr
  double timeout_s = 0;         // 0: wait for ever; else SIGKILL after this long
};

struct RunResult {
  bool started = false;  // false: fork/exec failed (no such program)
  int exit_code = -1;    // the child's exit status; -1 when it died of a signal or timed out
  bool timed_out = false;
  std::string out;       // the child's stdout when captured
};

// Runs argv[0] (searched on PATH when it has no '/') with the arguments
// argv[1..]. Safe to call from a multi-threaded process.
RunResult RunProgram(const std::vector<std::string>& argv, const RunSettings& settings = {});

// Where `name` resolves on PATH (as execvp would), or "" when nowhere. A
// name with a '/' is returned as is when it is an executable file.
std::string FindOnPath(const std::string& name);

}  // namespace optrace
