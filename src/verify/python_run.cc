// fork/exec with two pipes and poll(): the driver's stdout is one JSON object
// (possibly megabytes for --all-opinfo), its stderr torch's warnings; both
// are drained together so neither pipe can fill and stall the child.
#include "verify/python_run.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>

#include "verify/verify_driver_py.h"

namespace optrace {

namespace {

std::string Env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

bool Executable(const std::string& path) { return ::access(path.c_str(), X_OK) == 0; }

}  // namespace

PythonChoice ChoosePython() {
  if (std::string p = Env("PYTHON"); !p.empty()) return {p, "$PYTHON"};
  for (const char* env : {"VIRTUAL_ENV", "CONDA_PREFIX"}) {
    std::string prefix = Env(env);
    if (prefix.empty()) continue;
    for (const char* name : {"/bin/python3", "/bin/python"}) {
      if (Executable(prefix + name)) return {prefix + name, std::string("$") + env};
    }
  }
  return {"python3", "PATH"};
}

const char* VerifyDriverSource() { return kVerifyDriverPy; }

ProcessResult RunProcess(const std::vector<std::string>& argv, int timeout_s) {
  ProcessResult r;
  int out_pipe[2], err_pipe[2], exec_pipe[2];
  if (::pipe(out_pipe) || ::pipe(err_pipe) || ::pipe2(exec_pipe, O_CLOEXEC)) {
    r.not_started = true;
    return r;
  }
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = ::fork();
  if (pid == 0) {
    ::setpgid(0, 0);
    int devnull = ::open("/dev/null", O_RDONLY);
    ::dup2(devnull, 0);
    ::dup2(out_pipe[1], 1);
    ::dup2(err_pipe[1], 2);
    ::close(out_pipe[0]);
    ::close(err_pipe[0]);
    ::close(exec_pipe[0]);
    ::execvp(args[0], args.data());
    char failed = 1;  // tells the parent exec failed (the pipe closes on success)
    (void)!::write(exec_pipe[1], &failed, 1);
    ::_exit(127);
  }
  ::close(out_pipe[1]);
  ::close(err_pipe[1]);
  ::close(exec_pipe[1]);
  if (pid < 0) {
    ::close(out_pipe[0]);
    ::close(err_pipe[0]);
    ::close(exec_pipe[0]);
    r.not_started = true;
    return r;
  }
  char failed = 0;
  r.not_started = ::read(exec_pipe[0], &failed, 1) == 1;
  ::close(exec_pipe[0]);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_s);
  pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
  std::string* sinks[2] = {&r.out, &r.err};
  int open_fds = 2;
  char buf[65536];
  while (open_fds > 0) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      r.timed_out = true;
      ::kill(-pid, SIGKILL);
      break;
    }
    if (::poll(fds, 2, static_cast<int>(std::min<long>(left.count(), 1000))) < 0 && errno != EINTR) break;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      ssize_t n = ::read(fds[i].fd, buf, sizeof buf);
      if (n > 0) {
        sinks[i]->append(buf, n);
      } else if (n == 0 || errno != EINTR) {
        ::close(fds[i].fd);
        fds[i].fd = -1;
        --open_fds;
      }
    }
  }
  for (auto& f : fds) {
    if (f.fd >= 0) ::close(f.fd);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  r.exit_code = !r.timed_out && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

}  // namespace optrace
