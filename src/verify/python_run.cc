// fork/exec with two pipes and poll(): the driver's stdout is one JSON object
// (possibly megabytes for --all-opinfo), its stderr torch's warnings; both
// are drained together so neither pipe can fill and stall the child.
#include "verify/python_run.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>

#include "base/subprocess.h"
#include "verify/verify_driver_py.h"

namespace optrace {

const char* VerifyDriverSource() { return kVerifyDriverPy; }

namespace {

// stdin for the child: an anonymous memory file holding `input` (no pipe to
// feed while draining two others; no size limit but memory's).
int InputFd(const std::string& input) {
  int fd = ::memfd_create("optrace-input", MFD_CLOEXEC);
  if (fd < 0) return -1;
  size_t done = 0;
  while (done < input.size()) {
    ssize_t n = ::write(fd, input.data() + done, input.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      ::close(fd);
      return -1;
    }
    done += static_cast<size_t>(n);
  }
  ::lseek(fd, 0, SEEK_SET);
  return fd;
}

}  // namespace

ProcessResult RunProcess(const std::vector<std::string>& argv, int timeout_s, const std::string& input) {
  ProcessResult r;
  const std::string program = argv.empty() || ChildrenStopped() ? "" : FindOnPath(argv[0]);
  if (program.empty()) {
    r.not_started = true;
    return r;
  }
  int in_fd = InputFd(input);
  int out_pipe[2], err_pipe[2], exec_pipe[2];
  if (in_fd < 0 || ::pipe(out_pipe) || ::pipe(err_pipe) || ::pipe2(exec_pipe, O_CLOEXEC)) {
    if (in_fd >= 0) ::close(in_fd);
    r.not_started = true;
    return r;
  }
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = ::fork();
  if (pid == 0) {
    ::setpgid(0, 0);
    ::signal(SIGPIPE, SIG_DFL);  // optrace ignores it (main.cc); an exec'd program expects the default
    ::dup2(in_fd, 0);
    ::dup2(out_pipe[1], 1);
    ::dup2(err_pipe[1], 2);
    ::close(out_pipe[0]);
    ::close(err_pipe[0]);
    ::close(exec_pipe[0]);
    ::execv(program.c_str(), args.data());
    char failed = 1;  // tells the parent exec failed (the pipe closes on success)
    (void)!::write(exec_pipe[1], &failed, 1);
    ::_exit(127);
  }
  ::close(in_fd);
  ::close(out_pipe[1]);
  ::close(err_pipe[1]);
  ::close(exec_pipe[1]);
  if (pid > 0) {
    ::setpgid(pid, pid);
    TrackChildGroup(pid);
  }
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
  // Both pipes are closed: the driver is done (or was killed). Whatever it
  // started and left behind goes with it; the group still exists while the
  // leader is unreaped, so no other process can hold its id.
  ::kill(-pid, SIGKILL);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  UntrackChildGroup(pid);
  r.exit_code = !r.timed_out && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

}  // namespace optrace
