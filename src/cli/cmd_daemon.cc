// `optrace daemon` and its client: see cmd_daemon.h for why and the rules.
//
// Wire format (one request per connection, both ends on this machine and
// this build -- the socket's name carries the build's identity):
//   request:  "OPTRACE-DAEMON-1\n", then u32 count, then count strings
//             (u32 length + bytes): the checkout root, then the arguments.
//   reply:    frames of one tag byte + u32 length + bytes:
//             'K' (empty) every half second while the daemon works, so that a
//             client can tell a slow answer from a daemon that stopped,
//             'O' stdout bytes, 'E' stderr bytes, 'X' exit code (4 bytes),
//             or a lone 'S' frame: the daemon found the tree changed and is
//             ending, so the client must trace in process.
//
// Trust: the socket lives in the cache folder, which must be this user's
// own (CheckCacheDir); the client also asks the kernel who serves the
// socket (SO_PEERCRED) and talks only to a daemon of its own user, and the
// daemon answers only its own user. A daemon silent for kDaemonSilenceS
// (stopped with SIGSTOP, say) costs the client that long, then it traces in
// process, saying so in one line.
// Integers are little-endian as this machine writes them.
#include "cli/cmd_daemon.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <iostream>
#include <map>
#include <mutex>
#include <sstream>
#include <thread>

#include "cli/cmd_common.h"
#include "cli/commands.h"
#include "index/live_index.h"
#include "index/store.h"
#include "index/store_arena.h"

namespace optrace {

namespace {

constexpr char kMagic[] = "OPTRACE-DAEMON-1\n";
constexpr size_t kMaxRequestBytes = 1 << 20;
// The longest a client waits for any frame (the daemon sends 'K' every
// kHeartbeatS while it works), and for connecting and sending.
constexpr int kDaemonSilenceS = 2;
constexpr auto kHeartbeat = std::chrono::milliseconds(500);

// The uid of the process at the other end of a connected Unix socket, or -1.
long PeerUid(int fd, pid_t* pid = nullptr) {
  ucred cred{};
  socklen_t len = sizeof(cred);
  if (::getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0 || len != sizeof(cred)) return -1;
  if (pid) *pid = cred.pid;
  return static_cast<long>(cred.uid);
}

bool SendAll(int fd, const void* data, size_t n) {
  const char* p = static_cast<const char*>(data);
  while (n) {
    ssize_t w = ::send(fd, p, n, MSG_NOSIGNAL);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    p += w;
    n -= static_cast<size_t>(w);
  }
  return true;
}

bool RecvAll(int fd, void* data, size_t n) {
  char* p = static_cast<char*>(data);
  while (n) {
    ssize_t r = ::recv(fd, p, n, 0);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    p += r;
    n -= static_cast<size_t>(r);
  }
  return true;
}

bool SendString(int fd, const std::string& s) {
  uint32_t n = static_cast<uint32_t>(s.size());
  return SendAll(fd, &n, sizeof(n)) && SendAll(fd, s.data(), s.size());
}

bool RecvString(int fd, size_t limit, std::string* s) {
  uint32_t n;
  if (!RecvAll(fd, &n, sizeof(n)) || n > limit) return false;
  s->resize(n);
  return RecvAll(fd, s->data(), n);
}

bool SendFrame(int fd, char tag, const std::string& bytes) { return SendAll(fd, &tag, 1) && SendString(fd, bytes); }

double SecondsFromEnv(const char* name, double fallback) {
  const char* v = std::getenv(name);
  if (!v || !*v) return fallback;
  char* end = nullptr;
  double d = std::strtod(v, &end);
  return end && !*end && d > 0 ? d : fallback;
}

const Index* g_resident = nullptr;
std::string g_resident_root;

}  // namespace

bool DaemonEnabled() {
  const char* v = std::getenv("OPTRACE_DAEMON");
  return !(v && std::strcmp(v, "0") == 0);
}

std::string DaemonSocketPath(const std::string& root) {
  // Next to the checkout's image, named by this build too: a client only
  // ever talks to a daemon of its own binary.
  std::string image = StorePath(DefaultStoreDir(), root);
  char build[9];
  std::snprintf(build, sizeof(build), "%08zx", std::hash<std::string>{}(BinaryIdentity()) & 0xffffffffu);
  std::string path = image.substr(0, image.size() - 4) + ".daemon-" + build + ".sock";
  return path.size() < sizeof(sockaddr_un{}.sun_path) ? path : "";
}

bool DaemonMayBeListening(const std::string& root) {
  const std::string path = DaemonSocketPath(root);
  struct stat st;
  return !path.empty() && ::stat(path.c_str(), &st) == 0;
}

const Index* ResidentIndex(const std::string& root) {
  return g_resident && root == g_resident_root ? g_resident : nullptr;
}

// ---------------------------------------------------------------------------
// Client.

namespace {

int Connect(const std::string& path) {
  if (path.empty()) return -1;
  int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  // A stopped daemon's full backlog would block connect: it honours the send timeout.
  timeval timeout{kDaemonSilenceS, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof(timeout));
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout));
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

bool WriteFd(int fd, const std::string& bytes) {
  const char* p = bytes.data();
  size_t n = bytes.size();
  while (n) {
    ssize_t w = ::write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    p += w;
    n -= static_cast<size_t>(w);
  }
  return true;
}

}  // namespace

bool ForwardToDaemon(const std::string& root, const std::vector<std::string>& args, int* exit_code) {
  const std::string path = DaemonSocketPath(root);
  // A cache folder another user can write to: no daemon (the in-process
  // load then refuses the folder, saying why).
  if (path.empty() || !CheckCacheDir(path.substr(0, path.rfind('/'))).ok()) return false;
  int fd = Connect(path);
  if (fd < 0) return false;
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  pid_t pid = 0;
  if (long uid = PeerUid(fd, &pid); uid != static_cast<long>(::geteuid())) {
    std::cerr << "optrace: ignoring " << path << ": served by uid " << uid << ", not by this user\n";
    return false;
  }
  uint32_t count = static_cast<uint32_t>(args.size() + 1);
  bool sent = SendAll(fd, kMagic, sizeof(kMagic) - 1) && SendAll(fd, &count, sizeof(count)) && SendString(fd, root);
  for (size_t i = 0; sent && i < args.size(); ++i) sent = SendString(fd, args[i]);
  // Print nothing until the exit frame: a daemon dying half-way must leave
  // the client free to trace in process without doubled output.
  std::vector<std::pair<char, std::string>> frames;
  for (;;) {
    char tag;
    std::string bytes;
    errno = 0;
    if (!sent || !RecvAll(fd, &tag, 1) || !RecvString(fd, 1u << 30, &bytes)) {
      if (errno == EAGAIN || errno == EWOULDBLOCK)
        std::cerr << "optrace: the daemon (pid " << pid << ") did not answer within " << kDaemonSilenceS
                  << " s; tracing in process\n";
      return false;
    }
    if (tag == 'K') continue;
    if (tag == 'S') return false;
    if (tag == 'X') {
      if (bytes.size() != sizeof(int32_t)) return false;
      int32_t code;
      std::memcpy(&code, bytes.data(), sizeof(code));
      *exit_code = code;
      for (const auto& [t, b] : frames) {
        if (WriteFd(t == 'O' ? STDOUT_FILENO : STDERR_FILENO, b) || t != 'O') continue;
        // A lost answer is an error, as for a trace in process (FinishOutput).
        std::cerr << "optrace: cannot write the output: " << std::strerror(errno) << "\n";
        *exit_code = static_cast<int>(ExitCode::kOutput);
        break;
      }
      return true;
    }
    if (tag != 'O' && tag != 'E') return false;
    frames.emplace_back(tag, std::move(bytes));
  }
}

void StartDaemon(const std::string& root) {
  if (DaemonSocketPath(root).empty()) return;
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
  pid_t child = ::fork();
  if (child < 0) return;
  if (child > 0) {
    int status;
    while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
    }
    return;
  }
  // The child: a new session, then a grandchild that the session leader
  // leaves to init, so the daemon is nobody's child and has no terminal.
  ::setsid();
  if (::fork() != 0) ::_exit(0);
  int null = ::open("/dev/null", O_RDWR);
  if (null >= 0) {
    ::dup2(null, STDIN_FILENO);
    ::dup2(null, STDOUT_FILENO);
    ::dup2(null, STDERR_FILENO);
  }
  // Inherited descriptors (a test harness's pipes) would keep their readers waiting.
  for (int fd = 3; fd < 1024; ++fd) ::close(fd);
  if (::chdir("/") != 0) ::_exit(1);
  std::string self = "/proc/self/exe";
  char* const argv[] = {const_cast<char*>("optrace"), const_cast<char*>("daemon"), const_cast<char*>("--source"),
                        const_cast<char*>(root.c_str()), nullptr};
  ::execv(self.c_str(), argv);
  ::_exit(127);
}

// ---------------------------------------------------------------------------
// Server.

namespace {

// Runs one subcommand with std::cout/std::cerr captured.
int RunCaptured(const std::vector<std::string>& args, std::string* out, std::string* err) {
  std::ostringstream o, e;
  std::streambuf* old_out = std::cout.rdbuf(o.rdbuf());
  std::streambuf* old_err = std::cerr.rdbuf(e.rdbuf());
  std::vector<char*> argv;
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  int rc = static_cast<int>(ExitCode::kSource);
  try {
    rc = CmdTrace(static_cast<int>(args.size()), argv.data());
  } catch (const std::exception& ex) {
    std::cerr << "optrace: internal error: " << ex.what() << "\n";
  }
  std::cout.flush();
  std::cout.rdbuf(old_out);
  std::cerr.rdbuf(old_err);
  *out = o.str();
  *err = e.str();
  return rc;
}

class Server {
 public:
  Server(Checkout checkout, std::string socket_path, double idle_s)
      : checkout_(std::move(checkout)),
        path_(std::move(socket_path)),
        idle_s_(idle_s),
        live_(new LiveIndex(checkout_.root, "optrace daemon")) {}

  int Run() {
    std::string why;
    // Watched, then loaded as a private copy (live_index.h); an edit during
    // the load ends the daemon before it serves anything.
    Status s = live_->Start();
    if (!s.ok()) return Fail(s.message());
    if (live_->watch_fd() < 0) return Fail(live_->Describe().watch_error);
    if (live_->TreeChanged()) return Fail("the tree changed while loading");
    g_resident = &live_->index();
    g_resident_root = checkout_.root;
    if (!Listen(&why)) return Fail(why);
    std::cerr << "optrace daemon: serving " << checkout_.root << " on " << path_ << "\n";
    auto last = std::chrono::steady_clock::now();
    for (;;) {
      pollfd fds[2] = {{listen_fd_, POLLIN, 0}, {live_->watch_fd(), POLLIN, 0}};
      int n = ::poll(fds, 2, 1000);
      if (n < 0 && errno != EINTR) return Stop("poll failed");
      if (fds[1].revents && live_->TreeChanged()) return Stop("the tree changed");
      if (fds[0].revents & POLLIN) {
        int client = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
        if (client >= 0 && PeerUid(client) != static_cast<long>(::geteuid())) {
          ::close(client);  // another user's process: never answered
        } else if (client >= 0) {
          bool keep = Serve(client);
          ::close(client);
          if (!keep) return Stop(stop_reason_);
          last = std::chrono::steady_clock::now();
        }
      }
      if (std::chrono::duration<double>(std::chrono::steady_clock::now() - last).count() > idle_s_) return Stop("idle");
      if (!SocketStillOurs()) return Stop("socket removed");
    }
  }

 private:
  int Fail(const std::string& why) {
    std::cerr << "optrace daemon: not serving " << checkout_.root << ": " << why << "\n";
    return static_cast<int>(ExitCode::kSource);
  }
  int Stop(const std::string& why) {
    if (SocketStillOurs()) ::unlink(path_.c_str());
    std::cerr << "optrace daemon: stopping (" << why << ")\n";
    return 0;
  }
  bool Listen(std::string* why) {
    listen_fd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::memcpy(addr.sun_path, path_.c_str(), path_.size() + 1);
    ::unlink(path_.c_str());  // a dead daemon's socket; the lock says none is alive
    mode_t old = ::umask(077);
    bool ok = listen_fd_ >= 0 && ::bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0 &&
              ::listen(listen_fd_, 64) == 0;
    ::umask(old);
    struct stat st;
    if (!ok || ::stat(path_.c_str(), &st) != 0) {
      *why = "cannot listen on " + path_ + ": " + std::strerror(errno);
      return false;
    }
    socket_ino_ = st.st_ino;
    return true;
  }
  bool SocketStillOurs() const {
    struct stat st;
    return ::stat(path_.c_str(), &st) == 0 && st.st_ino == socket_ino_;
  }
  // Answers one request; false when the daemon must end afterwards.
  bool Serve(int client) {
    timeval timeout{5, 0};  // a client that connects and says nothing
    ::setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout));
    char magic[sizeof(kMagic) - 1];
    uint32_t count = 0;
    if (!RecvAll(client, magic, sizeof(magic)) || std::memcmp(magic, kMagic, sizeof(magic)) != 0 ||
        !RecvAll(client, &count, sizeof(count)) || count < 2 || count > 10000)
      return true;
    std::vector<std::string> args;
    size_t bytes = 0;
    for (uint32_t i = 0; i < count; ++i) {
      std::string s;
      if (!RecvString(client, kMaxRequestBytes, &s) || (bytes += s.size()) > kMaxRequestBytes) return true;
      args.push_back(std::move(s));
    }
    std::string root = std::move(args.front());
    args.erase(args.begin());
    // The tree may have changed since the last event was read: an edit that
    // finished before this request was sent has its event queued by now.
    if (live_->TreeChanged() || root != checkout_.root) {
      SendFrame(client, 'S', "");
      stop_reason_ = root != checkout_.root ? "asked about another checkout" : "the tree changed";
      return root != checkout_.root;
    }
    std::string out, err;
    int rc = 0;
    bool keep = true;
    if (args[0] == "--stop") {
      out = "optrace daemon: stopped (pid " + std::to_string(::getpid()) + ")\n";
      stop_reason_ = "asked to stop";
      keep = false;
    } else if (args[0] == "--status") {
      out = "optrace daemon: pid " + std::to_string(::getpid()) + ", serving " + checkout_.root + ", " +
            std::to_string(served_) + " requests answered, " + std::to_string(remembered_) + " from memory\n";
    } else if (args[0] == "trace") {
      rc = Answer(client, args, &out, &err);
      ++served_;
    } else {
      err = "optrace daemon: cannot run '" + args[0] + "'\n";
      rc = static_cast<int>(ExitCode::kUsage);
    }
    int32_t code = rc;
    if (SendFrame(client, 'O', out) && SendFrame(client, 'E', err))
      SendFrame(client, 'X', std::string(reinterpret_cast<const char*>(&code), sizeof(code)));
    return keep;
  }

  // A trace's answer, remembered for the daemon's lifetime. The request
  // names everything the answer depends on (DaemonArgs: query, format,
  // device, assumptions, the client's installed torch), and the index cannot
  // change under it: an edit to the tree ends the daemon. Bounded in bytes;
  // past the bound answers are computed every time.
  int Answer(int client, const std::vector<std::string>& args, std::string* out, std::string* err) {
    if (auto it = answers_.find(args); it != answers_.end()) {
      ++remembered_;
      *out = it->second.out;
      *err = it->second.err;
      return it->second.rc;
    }
    int rc = RunWithHeartbeat(client, args, out, err);
    size_t bytes = out->size() + err->size();
    if (answer_bytes_ + bytes <= kMaxRememberedBytes) {
      answer_bytes_ += bytes;
      answers_.emplace(args, Remembered{*out, *err, rc});
    }
    return rc;
  }

  // Runs a trace on a thread of its own, sending 'K' every kHeartbeat meanwhile.
  static int RunWithHeartbeat(int client, const std::vector<std::string>& args, std::string* out, std::string* err) {
    std::mutex mu;
    std::condition_variable cv;
    bool done = false;
    int rc = 0;
    std::thread worker([&] {
      int code = RunCaptured(args, out, err);
      std::lock_guard<std::mutex> lock(mu);
      rc = code;
      done = true;
      cv.notify_all();
    });
    {
      std::unique_lock<std::mutex> lock(mu);
      while (!cv.wait_for(lock, kHeartbeat, [&] { return done; })) SendFrame(client, 'K', "");
    }
    worker.join();
    return rc;
  }

  Checkout checkout_;
  std::string path_;
  double idle_s_;
  LiveIndex* live_;  // lives as long as the process (see CmdTrace: never destroyed)
  int listen_fd_ = -1;
  ino_t socket_ino_ = 0;
  size_t served_ = 0;
  std::string stop_reason_;
  struct Remembered {
    std::string out, err;
    int rc;
  };
  static constexpr size_t kMaxRememberedBytes = size_t{256} << 20;
  std::map<std::vector<std::string>, Remembered> answers_;
  size_t answer_bytes_ = 0, remembered_ = 0;
};

}  // namespace

int CmdDaemon(int argc, char** argv) {
  CLI::App app{"Serve `optrace trace` for one checkout from memory, watching the tree (started on demand)",
               "optrace daemon"};
  std::string source;
  bool stop = false, status = false;
  double idle = SecondsFromEnv("OPTRACE_DAEMON_IDLE", 600);
  AddSourceFlag(app, &source);
  CLI::Option* stop_flag = app.add_flag("--stop", stop, "stop the daemon of the checkout");
  app.add_flag("--status", status, "say whether a daemon serves the checkout")->excludes(stop_flag);
  // A range in words: CLI::PositiveNumber's message prints DBL_MAX's 309 digits.
  app.add_option("--idle", idle, "seconds without a request before it exits (default $OPTRACE_DAEMON_IDLE, else 600)")
      ->check(CLI::Validator(
          [](std::string& v) {
            char* end = nullptr;
            double d = std::strtod(v.c_str(), &end);
            return end != v.c_str() && *end == '\0' && d > 0 && d <= 31536000 ? std::string()
                                                                              : "--idle takes seconds, more than 0 "
                                                                                "and at most a year (31536000)";
          },
          "SECONDS"));
  int rc = 0;
  if (!ParseOrReport(app, argc, argv, &rc)) return rc;
  ::setenv("OPTRACE_NO_VERSION_CHECK", "1", 1);  // clients check the version themselves
  Checkout checkout;
  if (!OpenCheckoutOrReport(source, &checkout, &rc)) return rc;
  std::string path = DaemonSocketPath(checkout.root);
  if (path.empty()) {
    std::cerr << "optrace daemon: the cache path is too long for a Unix socket\n";
    return static_cast<int>(ExitCode::kSource);
  }
  if (stop || status) {
    int code = 0;
    if (ForwardToDaemon(checkout.root, {stop ? "--stop" : "--status"}, &code)) return code;
    std::cout << "optrace daemon: none running for " << checkout.root << " (socket " << path << ")\n";
    return static_cast<int>(ExitCode::kNotFound);
  }
  // One daemon per checkout and build: the lock decides, waiting a moment
  // for one that is ending (it answered 'S' and is on its way out).
  std::string dir = path.substr(0, path.rfind('/'));
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (Status trusted = CheckCacheDir(dir); !trusted.ok()) return Report(trusted);
  int lock = ::open((path + ".lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (lock < 0) return Report(Status::SourceError("cannot create " + path + ".lock: " + std::strerror(errno)));
  bool locked = false;
  for (int i = 0; i < 40 && !(locked = ::flock(lock, LOCK_EX | LOCK_NB) == 0); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  if (!locked) {
    std::cerr << "optrace daemon: another daemon serves " << checkout.root << "\n";
    return 0;
  }
  ::signal(SIGPIPE, SIG_IGN);
  return Server(std::move(checkout), path, idle).Run();
}

}  // namespace optrace
