// optrace: trace a PyTorch operation from the Python API down to the code that
// really runs, by reading a PyTorch source checkout. This file is only the
// subcommand table and dispatch ("did you mean" for unknown subcommands).
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "base/text.h"
#include "cli/cmd_common.h"
#include "cli/commands.h"

namespace optrace {

const std::vector<Subcommand>& Subcommands() {
  static const std::vector<Subcommand> table = {
      {"trace", "trace an op, module, function, method, operator or kernel", CmdTrace},
      {"scan", "every PyTorch op a Python file runs, classified; --trace traces them", CmdScan},
      {"op", "an aten op's native_functions.yaml entries and derivatives", CmdOp},
      {"ops", "every native_functions.yaml entry as JSON (--json)", CmdOps},
      {"find", "definitions, registrations, launches and callers of a C++ symbol", CmdFind},
      {"py", "a Python symbol: definition or alias, decorators, calls", CmdPy},
      {"mcp", "serve optrace's tools over MCP (stdio)", CmdMcp},
      {"info", "the checkout, its version, the installed torch, index counts", CmdInfo},
      {"fetch", "get a PyTorch checkout matching the installed torch", CmdFetch},
      {"index", "build, update or --check the persistent index of the checkout", CmdIndex},
      {"verify", "run the installed torch and mark what of the trace ran (--code, OpInfo samples)", CmdVerify},
      {"tests", "the OpInfo/ModuleInfo entries and tests that exercise an op", CmdTests},
      {"profile", "a torch.profiler export per GPU kernel: time, op, source file:line, share of peak", CmdProfile},
      {"daemon", "serve traces of a checkout from memory (started by `trace`; --stop, --status)", CmdDaemon},
  };
  return table;
}

namespace {

void Usage(std::ostream& out) {
  out << "usage: optrace <command> [options]   (optrace <command> --help for its options)\n\n"
         "commands:\n";
  for (const auto& c : Subcommands()) {
    out << "  " << c.name << std::string(10 - std::min<size_t>(9, std::strlen(c.name)), ' ') << c.help << "\n";
  }
  out << "\nThe checkout: --source DIR, else $PYTORCH_SOURCE, else "
         "${TILEGYM_SKILL_CACHE_DIR:-~/.cache/tilegym}/pytorch-source.\n"
         "Exit codes: 0 ok, 1 not found, 2 usage, 3 checkout or index problem, 4 the output could not be written.\n";
}

}  // namespace
}  // namespace optrace

namespace optrace {
namespace {

// A closed stdin, stdout or stderr would be handed to the next file optrace
// opens (an index image), and the answer written into it: each gets
// /dev/null instead. Returns false when stdout was closed: nothing could
// receive the answer.
bool StandardStreamsOpen() {
  bool stdout_open = true;
  for (int fd = 0; fd <= 2; ++fd) {
    if (::fcntl(fd, F_GETFD) >= 0 || errno != EBADF) continue;
    if (fd == STDOUT_FILENO) stdout_open = false;
    ::open("/dev/null", fd == STDIN_FILENO ? O_RDONLY : O_WRONLY);  // takes the lowest free descriptor: fd
  }
  return stdout_open;
}

}  // namespace
}  // namespace optrace

int main(int argc, char** argv) {
  using namespace optrace;
  // A reader that stops early (`optrace trace X | head -1`) makes the next
  // write fail with EPIPE instead of killing optrace (exit 141): the answer
  // was lost, which FinishOutput reports as the documented exit 4. Children
  // get the default back (base/subprocess).
  std::signal(SIGPIPE, SIG_IGN);
  if (!StandardStreamsOpen()) {
    std::cerr << "optrace: stdout is closed; nothing can receive the answer\n";
    return static_cast<int>(ExitCode::kOutput);
  }
  if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h") || !std::strcmp(argv[1], "help")) {
    Usage(argc < 2 ? std::cerr : std::cout);
    return FinishOutput(argc < 2 ? static_cast<int>(ExitCode::kUsage) : 0);
  }
  if (!std::strcmp(argv[1], "--version")) {
    std::cout << "optrace 0.1\n";
    return FinishOutput(0);
  }
  std::vector<std::string> names;
  for (const auto& c : Subcommands()) {
    // Every answer is checked to have reached stdout (a full disk, a closed
    // stdout): a lost answer must not exit 0.
    if (argv[1] == std::string(c.name)) return FinishOutput(c.run(argc - 1, argv + 1));
    names.push_back(c.name);
  }
  std::cerr << "optrace: unknown command '" << argv[1] << "'";
  auto near = DidYouMean(argv[1], names, 3);
  if (!near.empty()) std::cerr << "; did you mean '" << near[0] << "'?";
  std::cerr << "\n";
  Usage(std::cerr);
  return static_cast<int>(ExitCode::kUsage);
}
