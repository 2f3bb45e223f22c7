// Checkout discovery: which tree, which version, and whether it matches the
// torch the user has installed. Nothing here parses PyTorch sources.
#include "base/checkout.h"

#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>

#include "base/pytorch_paths.h"
#include "base/subprocess.h"
#include "base/text.h"

namespace optrace {

namespace {

std::string Env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

const char kFetchHint[] =
    "get one with `optrace fetch` (clones the PyTorch release matching your installed torch), "
    "or point --source / $PYTORCH_SOURCE at a PyTorch checkout";

}  // namespace

std::string DefaultCheckoutPath() {
  std::string cache = Env("TILEGYM_SKILL_CACHE_DIR");
  if (cache.empty()) cache = Env("HOME") + "/.cache/tilegym";
  return cache + "/pytorch-source";
}

Status FindCheckout(const std::string& source_flag, Checkout* out) {
  std::string path, found_by;
  if (!source_flag.empty()) {
    path = source_flag, found_by = "--source";
  } else if (!Env("PYTORCH_SOURCE").empty()) {
    path = Env("PYTORCH_SOURCE"), found_by = "PYTORCH_SOURCE";
  } else {
    path = DefaultCheckoutPath();
    found_by = Env("TILEGYM_SKILL_CACHE_DIR").empty() ? "default cache" : "TILEGYM_SKILL_CACHE_DIR";
  }
  struct stat st;
  if (::stat(path.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    return Status::SourceError("no PyTorch checkout at " + path + " (from " + found_by + "); " + kFetchHint);
  }
  auto disk = std::make_shared<RealDisk>(path);
  if (!disk->Exists(kNativeFunctionsPath)) {
    return Status::SourceError(path + " (from " + found_by + ") is not a PyTorch checkout: " + kNativeFunctionsPath +
                               " is missing or unreadable; " + kFetchHint);
  }
  out->root = disk->root();
  out->found_by = found_by;
  std::string version;
  if (disk->ReadFile("version.txt", &version).ok()) out->version = std::string(TrimView(version));
  out->disk = std::move(disk);
  return Status::Ok();
}

std::string GitDescribe(const Checkout& checkout) {
  struct stat git;
  if (::stat((checkout.root + "/.git").c_str(), &git) != 0) return "";
  RunSettings settings;
  settings.timeout_s = 20;
  RunResult r = RunProgram({"git", "-C", checkout.root, "describe", "--tags"}, settings);
  return r.exit_code == 0 ? std::string(TrimView(r.out)) : "";
}

std::optional<std::string> InstalledTorchVersion() { return CachedInstalledTorch(OptraceCacheDir()).version; }

std::string ReleaseOf(const std::string& version) {
  size_t end = 0;
  int dots = 0;
  while (end < version.size() &&
         (std::isdigit(static_cast<unsigned char>(version[end])) || (version[end] == '.' && dots < 2))) {
    if (version[end] == '.') ++dots;
    ++end;
  }
  std::string r = version.substr(0, end);
  if (!r.empty() && r.back() == '.') r.pop_back();
  return r;
}

std::string VersionMismatchWarning(const Checkout& checkout, const std::optional<std::string>& installed) {
  return VersionMismatchWarning(checkout, installed, "");
}

std::string VersionMismatchWarning(const Checkout& checkout, const InstalledTorch& installed) {
  std::string python =
      installed.python.path.empty() ? "" : installed.python.path + " (from " + installed.python.found_by + ")";
  return VersionMismatchWarning(checkout, installed.version, python);
}

std::string VersionMismatchWarning(const Checkout& checkout, const std::optional<std::string>& installed,
                                   const std::string& python) {
  if (!installed || checkout.version.empty()) return "";
  if (ReleaseOf(*installed) == ReleaseOf(checkout.version)) return "";
  return "warning: the checkout at " + checkout.root + " is PyTorch " + checkout.version + " but the installed torch" +
         (python.empty() ? "" : " of " + python) + " is " + *installed +
         "; traces describe the checkout, not what runs. Fix: `optrace fetch --version " + ReleaseOf(*installed) +
         "` (or --source a matching checkout)";
}

}  // namespace optrace
