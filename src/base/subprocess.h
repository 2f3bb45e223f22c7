// Running another program without a shell. optrace starts Python (the
// installed-torch check), git and apt; each gets an argument vector handed to
// execvp, so no user string (a --version, a path, a query) is ever parsed by
// a shell, and nothing is run through `sh -c`. The child's stdin is
// /dev/null; its stdout is captured or inherited; its stderr is discarded or
// inherited. A deadline kills a child that hangs (a Python that blocks on a
// network file system must not stall every trace).
//
// Every child runs in a process group of its own, registered while it runs:
// one kill path (KillChildGroups) ends it and whatever it started, from the
// deadline, from SIGINT/SIGTERM/SIGHUP to optrace (handlers installed with
// the first child, where the signal's disposition is still the default), and
// from the MCP server when its client hangs up (issue 29 item 6).
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace optrace {

struct RunSettings {
  std::string cwd;             // the child's working directory; "" keeps ours
  bool capture_stdout = true;  // else the child writes to our stdout
  bool quiet_stderr = true;    // else the child writes to our stderr
  double timeout_s = 0;        // 0: wait for ever; else SIGKILL after this long
  // Killed (or never started) once StopChildren has run: a child whose
  // output nobody will read after the MCP client hangs up. A check whose
  // answer the calls already queued still report (the installed torch's
  // version) sets it false; signals end it all the same.
  bool stops_on_hangup = true;
  // Added to the child's nice value (setpriority): a background question
  // that must not slow the work it overlaps (0: as ours).
  int niceness = 0;
};

struct RunResult {
  bool started = false;  // false: fork/exec failed (no such program)
  int exit_code = -1;    // the child's exit status; -1 when it died of a signal or timed out
  bool timed_out = false;
  std::string out;  // the child's stdout when captured
};

// Runs argv[0] (searched on PATH when it has no '/') with the arguments
// argv[1..]. Safe to call from a multi-threaded process.
RunResult RunProgram(const std::vector<std::string>& argv, const RunSettings& settings = {});

// The process-group registry. Track/Untrack bracket a child's life; the
// first Track installs the signal handlers. KillChildGroups is
// async-signal-safe: it SIGKILLs every tracked group.
void TrackChildGroup(pid_t pgid, bool stops_on_hangup = true);
void UntrackChildGroup(pid_t pgid);
void KillChildGroups();
// KillChildGroups, and from now on every child is killed as it starts (the
// MCP client hung up: calls still queued must not start a Python nobody
// will read). ChildrenStopped() says so, to skip starting one at all.
void StopChildren();
bool ChildrenStopped();

// Where `name` resolves on PATH (as execvp would), or "" when nowhere. A
// name with a '/' is returned made absolute (against the current
// directory) when it is an executable file. Empty and relative PATH entries
// are skipped: the current directory is exactly what must not run.
std::string FindOnPath(const std::string& name);

}  // namespace optrace
