// Shared plumbing for subcommands: flags, checkout opening, error reporting.
#include "cli/cmd_common.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <iostream>

#include "base/text.h"
#include "lookup/query.h"

namespace optrace {

void AddSourceFlag(CLI::App& app, std::string* source) {
  // An empty --source is a mistake (an unset variable in `--source "$DIR"`),
  // never a request for the default checkout.
  app.add_option("--source", *source,
                 "PyTorch checkout (default: $PYTORCH_SOURCE, else "
                 "${TILEGYM_SKILL_CACHE_DIR:-~/.cache/tilegym}/pytorch-source)")
      ->check(CLI::Validator(
          [](const std::string& v) { return v.empty() ? std::string("must name a directory (it is empty)") : ""; },
          "DIR"));
}

bool OpenCheckoutOrReport(const std::string& source_flag, Checkout* checkout, int* exit_code, bool check_version) {
  Status s = FindCheckout(source_flag, checkout);
  if (!s.ok()) {
    *exit_code = Report(s);
    return false;
  }
  VersionCheck(check_version, false).Settle(checkout);
  return true;
}

VersionCheck::VersionCheck(bool ask, bool in_background) {
  if (ask && !std::getenv("OPTRACE_NO_VERSION_CHECK"))
    asking_ = std::async(in_background ? std::launch::async : std::launch::deferred, [in_background] {
      return CachedInstalledTorch(OptraceCacheDir(), in_background ? kBackgroundNiceness : 0);
    });
}

void VersionCheck::Settle(Checkout* checkout) {
  std::call_once(settled_, [&] {
    if (!asking_.valid()) return;
    InstalledTorch installed = asking_.get();
    checkout->installed_torch = installed.version;
    checkout->version_warning = VersionMismatchWarning(*checkout, installed);
    if (!checkout->version_warning.empty()) std::cerr << "optrace: " << checkout->version_warning << "\n";
  });
}

nlohmann::ordered_json SourceJson(const Checkout& checkout) {
  nlohmann::ordered_json source = {{"root", checkout.root}, {"version", checkout.version}};
  source["installed_torch"] = checkout.installed_torch ? nlohmann::ordered_json(*checkout.installed_torch) : nullptr;
  if (!checkout.version_warning.empty()) source["warning"] = checkout.version_warning;
  return source;
}

std::string WarningHeader(const Checkout& checkout, bool markdown) {
  if (checkout.version_warning.empty()) return "";
  return markdown ? "**" + checkout.version_warning + "**\n\n" : checkout.version_warning + "\n\n";
}

namespace {
constexpr char kShield = '\x01';  // a control character: CheckQuery refuses one left behind
}  // namespace

ShieldedArgs::ShieldedArgs(int argc, char** argv) : args_(argv, argv + argc) {
  for (size_t i = 1; i < args_.size(); ++i)
    if (args_[i].size() >= 2 && args_[i].front() == '[' && args_[i].back() == ']') args_[i].insert(0, 1, kShield);
  for (std::string& a : args_) pointers_.push_back(a.data());
  pointers_.push_back(nullptr);
}

void Unshield(std::string* value) {
  if (!value->empty() && value->front() == kShield) value->erase(0, 1);
}

bool ParseOrReport(CLI::App& app, int argc, char** argv, int* exit_code) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    *exit_code = rc == 0 ? 0 : static_cast<int>(ExitCode::kUsage);
    return false;
  }
  return true;
}

Status CheckQuery(const std::string& query) {
  if (Status s = CheckQueryLength(query); !s.ok()) return s;
  for (unsigned char c : query)
    if (c < 0x20 || c == 0x7f) return Status::Usage("a query has no control characters: " + EscapeControl(query));
  return Status::Ok();
}

int FinishOutput(int exit_code) {
  std::cout.flush();
  if (std::cout.good() && std::fflush(stdout) == 0 && !std::ferror(stdout)) return exit_code;
  int error = errno;
  std::cerr << "optrace: cannot write the output: " << (error ? std::strerror(error) : "write error") << "\n";
  return static_cast<int>(ExitCode::kOutput);
}

int Report(const Status& status) {
  if (!status.ok()) std::cerr << "optrace: " << status.message() << "\n";
  return status.exit_code();
}

}  // namespace optrace
