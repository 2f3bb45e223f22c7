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

#include <cerrno>
#include <chrono>
#include <cstdlib>

namespace optrace {

namespace {

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
  if (kill_first) ::kill(pid, SIGKILL);
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
      ::kill(pid, SIGKILL);
      kill_first = true;
      continue;
    }
    ::usleep(2000);
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace

RunResult RunProgram(const std::vector<std::string>& argv, const RunSettings& settings) {
  RunResult result;
  if (argv.empty()) return result;
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
    // dup2 clears O_CLOEXEC on the target descriptor.
    ::dup2(null_fd, STDIN_FILENO);
    if (settings.capture_stdout) ::dup2(pipe_fd[1], STDOUT_FILENO);
    if (settings.quiet_stderr) ::dup2(null_fd, STDERR_FILENO);
    if (cwd && ::chdir(cwd) != 0) ::_exit(127);
    ::execvp(args[0], args.data());
    ::_exit(127);
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
  if (name.find('/') != std::string::npos) return executable(name) ? name : "";
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
