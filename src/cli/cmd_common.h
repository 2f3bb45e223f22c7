// What every subcommand shares: the subcommand table entry, the common
// --source flag, and opening the checkout. Each subcommand lives in its own
// src/cmd_<name>.cc and parses its own flags with CLI11.
#pragma once

#include <future>
#include <mutex>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "base/checkout.h"
#include "base/json.h"
#include "base/status.h"

namespace optrace {

struct Subcommand {
  const char* name;
  const char* help;
  // argv[0] is the subcommand name; returns the process exit code.
  int (*run)(int argc, char** argv);
};

// The table, in the order `optrace --help` lists it (defined in main.cc).
const std::vector<Subcommand>& Subcommands();

// Adds --source DIR to `app`, storing into *source.
void AddSourceFlag(CLI::App& app, std::string* source);

// Opens the checkout (--source, $PYTORCH_SOURCE, the tilegym cache), asks
// which torch the user's Python has (base/installed_torch.h; skipped with
// $OPTRACE_NO_VERSION_CHECK) into checkout->installed_torch, and puts a
// version-mismatch warning into checkout->version_warning and on stderr.
// On failure prints the message and returns false; *exit_code is set.
// check_version=false skips the question (the daemon is told the client's answer).
bool OpenCheckoutOrReport(const std::string& source_flag, Checkout* checkout, int* exit_code,
                          bool check_version = true);

// The installed-torch question of OpenCheckoutOrReport, asked on a thread of
// its own (`in_background`) so that a command can load its index and trace
// meanwhile: with an empty cache, a Python behind a pyenv shim answers in
// 0.3 s to seconds, the whole of a cold trace's goal (1 s). That Python runs
// at a lower priority (kBackgroundNiceness): while the index is built on
// every core it takes what they leave, and it has a core of its own once
// the (one-threaded) trace runs. A command with nothing to do meanwhile
// asks inline: a remembered answer is a file read, and a new thread waits
// its turn on a busy machine (a warm trace answered by the daemon was ~10%
// slower with one). Nothing is asked when `ask` is false or
// $OPTRACE_NO_VERSION_CHECK is set.
class VersionCheck {
 public:
  static constexpr int kBackgroundNiceness = 10;

  // A command that returns before settling still waits for the Python it
  // started (std::async's future does, when destroyed).
  VersionCheck(bool ask, bool in_background);
  // Waits for the answer, puts it into *checkout (installed_torch,
  // version_warning) and prints the warning; once, later calls do nothing.
  // Safe to call from several threads: each returns after the first has
  // written *checkout.
  void Settle(Checkout* checkout);

 private:
  std::future<InstalledTorch> asking_;
  std::once_flag settled_;
};

// The checkout and interpreter facts every answer carries, so a reader of
// any output -- not only of stderr -- learns that the installed torch is
// another release than the checkout (issue 16). JSON: a "source" object as
// optrace.trace/1 has it (root, version, installed_torch: null when none was
// found or the check is off, warning when there is one). Text and markdown:
// the warning as the first line, only when there is one ("" otherwise).
nlohmann::ordered_json SourceJson(const Checkout& checkout);
std::string WarningHeader(const Checkout& checkout, bool markdown = false);

// CLI11 turns an argument "[a,b]" into the list a, b and "[]" into nothing
// (its vector literal syntax), which loses the operator query '[]'. A copy
// of argv with each such argument prefixed by a byte no argument holds;
// Unshield() takes the byte off a parsed value.
class ShieldedArgs {
 public:
  ShieldedArgs(int argc, char** argv);
  int argc() const { return static_cast<int>(pointers_.size()) - 1; }
  char** argv() { return pointers_.data(); }

 private:
  std::vector<std::string> args_;
  std::vector<char*> pointers_;
};
void Unshield(std::string* value);

// Runs a CLI11 parse; on --help or a usage error prints and returns false with *exit_code.
bool ParseOrReport(CLI::App& app, int argc, char** argv, int* exit_code);

// A query (trace, op, find, py) is checked before any work: at most
// kMaxQueryLength (lookup/query.h: answering "not found" costs time per byte), and no control
// characters (an escape sequence would be echoed to the terminal in every
// message naming the query). Usage error otherwise, the query escaped.
Status CheckQuery(const std::string& query);

// Flushes stdout and returns exit_code, or ExitCode::kOutput with a message
// when anything written to stdout was lost (a full disk, a closed stdout).
// main() calls it after every subcommand.
int FinishOutput(int exit_code);

// Prints "optrace: <message>" to stderr and returns the status's exit code.
int Report(const Status& status);

}  // namespace optrace
