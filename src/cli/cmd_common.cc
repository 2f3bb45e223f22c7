// Shared plumbing for subcommands: flags, checkout opening, error reporting.
#include "cli/cmd_common.h"

#include <sys/stat.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <iostream>

namespace optrace {

void AddSourceFlag(CLI::App& app, std::string* source) {
  app.add_option("--source", *source,
                 "PyTorch checkout (default: $PYTORCH_SOURCE, else "
                 "${TILEGYM_SKILL_CACHE_DIR:-~/.cache/tilegym}/pytorch-source)");
}

namespace {

// The installed torch version, remembered for five minutes in the cache
// folder: asking Python costs ~40 ms, more than a whole warm trace.
std::optional<std::string> CachedInstalledTorchVersion() {
  const char* xdg = std::getenv("XDG_CACHE_HOME");
  const char* home = std::getenv("HOME");
  std::string dir = xdg && *xdg ? std::string(xdg) + "/optrace" : std::string(home ? home : "/tmp") + "/.cache/optrace";
  std::string file = dir + "/installed-torch";
  struct stat st;
  auto now = std::chrono::system_clock::now().time_since_epoch();
  long now_s = std::chrono::duration_cast<std::chrono::seconds>(now).count();
  if (::stat(file.c_str(), &st) == 0 && now_s - st.st_mtim.tv_sec < 300) {
    std::ifstream in(file);
    std::string v;
    std::getline(in, v);
    if (v == "none") return std::nullopt;
    if (!v.empty()) return v;
  }
  std::optional<std::string> v = InstalledTorchVersion();
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  std::string tmp = file + ".tmp." + std::to_string(::getpid());
  {
    std::ofstream out(tmp);
    out << (v ? *v : "none") << "\n";
  }
  std::filesystem::rename(tmp, file, ec);
  return v;
}

}  // namespace

bool OpenCheckoutOrReport(const std::string& source_flag, Checkout* checkout, int* exit_code) {
  Status s = FindCheckout(source_flag, checkout);
  if (!s.ok()) {
    *exit_code = Report(s);
    return false;
  }
  if (!std::getenv("OPTRACE_NO_VERSION_CHECK")) {
    std::string warning = VersionMismatchWarning(*checkout, CachedInstalledTorchVersion());
    if (!warning.empty()) std::cerr << "optrace: " << warning << "\n";
  }
  return true;
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

int Report(const Status& status) {
  if (!status.ok()) std::cerr << "optrace: " << status.message() << "\n";
  return status.exit_code();
}

}  // namespace optrace
