// What every subcommand shares: the subcommand table entry, the common
// --source flag, and opening the checkout. Each subcommand lives in its own
// src/cmd_<name>.cc and parses its own flags with CLI11.
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "base/checkout.h"
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

// Opens the checkout (--source, $PYTORCH_SOURCE, the tilegym cache), prints
// a version-mismatch warning to stderr when the installed torch differs.
// On failure prints the message and returns false; *exit_code is set.
bool OpenCheckoutOrReport(const std::string& source_flag, Checkout* checkout, int* exit_code);

// Runs a CLI11 parse; on --help or a usage error prints and returns false with *exit_code.
bool ParseOrReport(CLI::App& app, int argc, char** argv, int* exit_code);

// Prints "optrace: <message>" to stderr and returns the status's exit code.
int Report(const Status& status);

}  // namespace optrace
