// The resident trace server. A warm `optrace trace` is dominated by work
// that does not depend on the query: starting a process that maps the
// index, stat-ing ~5000 files to prove the index fresh, and faulting in the
// pages a trace touches. So, like bazel's server, the first `optrace trace`
// of a checkout starts a background `optrace daemon` that keeps the index in
// memory and watches the tree with inotify; later `optrace trace` processes
// hand their arguments to it over a Unix socket and print what it answers.
//
// Never stale: the daemon watches every directory of the index's scope
// before it checks the index against the tree, and before answering a
// request it drains the inotify queue -- an edit finished before the request
// was sent has its event queued by then. Any event on an indexed kind of
// file ends the daemon instead of the request: the client then traces in
// process (updating the store) and starts a fresh daemon.
//
// Never in the way: any failure to reach or use a daemon (none running,
// another build's, a broken socket, a daemon that dies mid-request) falls
// back to tracing in process before anything is printed. OPTRACE_DAEMON=0
// turns the daemon off; it exits after OPTRACE_DAEMON_IDLE seconds without a
// request (default 600), when its socket is removed, or on `--stop`.
#pragma once

#include <string>
#include <vector>

#include "index/index.h"

namespace optrace {

// Whether this process may use or start a daemon (OPTRACE_DAEMON is not "0").
bool DaemonEnabled();

// Where the daemon of `root` built by this executable listens, or "" when
// the path would not fit a Unix socket address.
std::string DaemonSocketPath(const std::string& root);

// Whether a socket of that daemon exists (it may be a dead daemon's): when
// none does, ForwardToDaemon would fail at once, and a client need not
// prepare what it would send.
bool DaemonMayBeListening(const std::string& root);

// Client side: sends `args` (a subcommand and its arguments) to the daemon
// of `root`. True when the daemon answered: its output has been written to
// this process's stdout/stderr and *exit_code is set. False when no daemon
// answered; nothing has been written then.
bool ForwardToDaemon(const std::string& root, const std::vector<std::string>& args, int* exit_code);

// Starts a daemon for `root` in the background, detached from this process
// (its own session, stdio on /dev/null); returns at once.
void StartDaemon(const std::string& root);

// Inside the daemon: the index it serves for `root`, else null (then the
// caller loads one itself).
const Index* ResidentIndex(const std::string& root);

}  // namespace optrace
