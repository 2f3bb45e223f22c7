// fork + execvp with a pipe for stdout. Everything the child needs (argv,
// the working directory, /dev/null) is prepared before fork, because after
// fork in a multi-threaded process only async-signal-safe calls are allowed.
#include "base/subprocess.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <mutex>

namespace optrace {

namespace {

// Tracked process groups: a fixed table of atomics, so that a signal handler
// can read it without a lock. 0 is a free slot. More children at once than
// slots (never: the MCP server runs at most --jobs) go untracked, still
// killed by their deadline.
constexpr int kSlots = 128;
std::atomic<pid_t> g_groups[kSlots];
std::atomic<bool> g_stopped{false};
// Groups that StopChildren spares (RunSettings::stops_on_hangup false): a
// signal still ends them.
std::atomic<pid_t> g_kept_groups[kSlots];

void OnTerminatingSignal(int sig) {
  KillChildGroups();
  ::signal(sig, SIG_DFL);
  ::raise(sig);  // delivered when the handler returns: optrace dies of it as it would have
}

void InstallHandlers() {
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
    struct sigaction old {};
    if (::sigaction(sig, nullptr, &old) != 0 || old.sa_handler != SIG_DFL) continue;  // someone else's choice
    struct sigaction sa {};
    sa.sa_handler = OnTerminatingSignal;
    sigemptyset(&sa.sa_mask);
    ::sigaction(sig, &sa, nullptr);
  }
}

// Reads the child's stdout until EOF or the deadline; false on timeout.
bool Drain(int fd, double timeout_s, std::string* out) {
  using Clock = std::chrono::steady_clock;
  const auto deadline = Clock::now() + std::chrono::duration<double>(timeout_s);
  char buf[4096];
  for (;;) {
    int wait_ms = -1;
    if (timeout_s > 0) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
      if (left <= 0) return false;
      wait_ms = static_cast<int>(left);
    }
    pollfd p{fd, POLLIN, 0};
    int r = ::poll(&p, 1, wait_ms);
    if (r < 0 && errno == EINTR) continue;
    if (r == 0) return false;
    ssize_t n = ::read(fd, buf, sizeof(buf));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return true;
    out->append(buf, static_cast<size_t>(n));
  }
}

// Waits for the child, killing it first when it overran its deadline.
int Reap(pid_t pid, bool kill_first, double timeout_s) {
  using Clock = std::chrono::steady_clock;
  if (kill_first) ::kill(-pid, SIGKILL);
  const auto deadline = Clock::now() + std::chrono::duration<double>(timeout_s);
  int status = 0;
  for (;;) {
    pid_t r = ::waitpid(pid, &status, timeout_s > 0 && !kill_first ? WNOHANG : 0);
    if (r == pid) break;
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return -1;
    // Stdout closed but the child is still running (it closed its stdout
    // early): poll until the deadline, then kill.
    if (Clock::now() >= deadline) {
      ::kill(-pid, SIGKILL);
      kill_first = true;
      continue;
    }
    ::usleep(2000);
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace

void TrackChildGroup(pid_t pgid, bool stops_on_hangup) {
  static std::once_flag once;
  std::call_once(once, InstallHandlers);
  for (auto& slot : stops_on_hangup ? g_groups : g_kept_groups) {
    pid_t free_slot = 0;
    if (slot.compare_exchange_strong(free_slot, pgid)) break;
  }
  if (stops_on_hangup && g_stopped.load()) ::kill(-pgid, SIGKILL);  // started as StopChildren ran
}

void UntrackChildGroup(pid_t pgid) {
  for (auto* groups : {&g_groups, &g_kept_groups})
    for (auto& slot : *groups) {
      pid_t mine = pgid;
      if (slot.compare_exchange_strong(mine, 0)) return;
    }
}

namespace {

void KillGroups(std::atomic<pid_t> (&groups)[kSlots]) {
  for (auto& slot : groups) {
    pid_t pgid = slot.load();
    if (pgid > 0) ::kill(-pgid, SIGKILL);
  }
}

}  // namespace

void KillChildGroups() {
  KillGroups(g_groups);
  KillGroups(g_kept_groups);
}

void StopChildren() {
  g_stopped.store(true);
  KillGroups(g_groups);
}

bool ChildrenStopped() { return g_stopped.load(); }

RunResult RunProgram(const std::vector<std::string>& argv, const RunSettings& settings) {
  RunResult result;
  if (argv.empty() || (settings.stops_on_hangup && ChildrenStopped())) return result;
  // Resolved here, never by execvp: its search would try an empty PATH entry
  // (the current directory).
  const std::string program = FindOnPath(argv[0]);
  if (program.empty()) return result;
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  int null_fd = ::open("/dev/null", O_RDWR | O_CLOEXEC);
  if (null_fd < 0) return result;
  int pipe_fd[2] = {-1, -1};
  if (settings.capture_stdout && ::pipe2(pipe_fd, O_CLOEXEC) != 0) {
    ::close(null_fd);
    return result;
  }
  const char* cwd = settings.cwd.empty() ? nullptr : settings.cwd.c_str();
  pid_t pid = ::fork();
  if (pid == 0) {
    ::setpgid(0, 0);
    ::signal(SIGPIPE, SIG_DFL);  // optrace ignores it (main.cc); an exec'd program expects the default
    // dup2 clears O_CLOEXEC on the target descriptor.
    ::dup2(null_fd, STDIN_FILENO);
    if (settings.capture_stdout) ::dup2(pipe_fd[1], STDOUT_FILENO);
    if (settings.quiet_stderr) ::dup2(null_fd, STDERR_FILENO);
    if (cwd && ::chdir(cwd) != 0) ::_exit(127);
    if (settings.niceness != 0) (void)::nice(settings.niceness);  // a system call: safe after fork
    ::execv(program.c_str(), args.data());
    ::_exit(127);
  }
  if (pid > 0) {
    ::setpgid(pid, pid);  // also here: the group exists before anything could kill it
    TrackChildGroup(pid, settings.stops_on_hangup);
  }
  ::close(null_fd);
  if (settings.capture_stdout) ::close(pipe_fd[1]);
  if (pid < 0) {
    if (settings.capture_stdout) ::close(pipe_fd[0]);
    return result;
  }
  bool in_time = true;
  if (settings.capture_stdout) {
    in_time = Drain(pipe_fd[0], settings.timeout_s, &result.out);
    ::close(pipe_fd[0]);
  }
  result.exit_code = Reap(pid, !in_time, settings.timeout_s);
  UntrackChildGroup(pid);
  result.timed_out = !in_time;
  // execvp failing in the child exits 127, as a shell reports "not found".
  result.started = result.exit_code != 127;
  return result;
}

std::string FindOnPath(const std::string& name) {
  auto executable = [](const std::string& p) {
    struct stat st;
    return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(p.c_str(), X_OK) == 0;
  };
  if (name.empty()) return "";
  if (name.find('/') != std::string::npos) {
    if (!executable(name)) return "";
    std::error_code ec;
    std::string absolute = std::filesystem::absolute(name, ec).lexically_normal().string();
    return ec ? "" : absolute;
  }
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "/usr/local/bin:/usr/bin:/bin";
  size_t begin = 0;
  for (;;) {
    size_t end = dirs.find(':', begin);
    std::string dir = dirs.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
    // An empty PATH entry means the current directory; optrace never looks
    // there for an interpreter (the cwd is exactly what must not run).
    if (!dir.empty() && dir[0] == '/' && executable(dir + "/" + name)) return dir + "/" + name;
    if (end == std::string::npos) return "";
    begin = end + 1;
  }
}

}  // namespace optrace
