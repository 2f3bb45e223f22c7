// `optrace fetch [--version V] [--dest DIR]`: obtain a PyTorch checkout at the
// cache location. First `git clone --depth 1 --branch vV`; where that fails
// and apt is available, Debian's source package of that version (its orig
// tarball is the real tree). The tree is unpacked aside and renamed into place,
// so a failed fetch never leaves half a checkout behind. Every program runs
// from an argument vector (base/subprocess.h), never through a shell, and
// the version is checked to be a release number before it is used.
#include <cctype>
#include <filesystem>
#include <iostream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "base/bounded_regex.h"
#include "base/subprocess.h"
#include "base/text.h"

#include "cli/cmd_common.h"
#include "cli/commands.h"

namespace optrace {

namespace {

namespace fs = std::filesystem;

const char kRepository[] = "https://github.com/pytorch/pytorch.git";

// A release as `git tag` and Debian spell it: 2.6.0, 2.6, 2.6.0rc1, 2.6.0-rc1.
// Anything else is refused before it reaches a program's argument list.
bool ValidVersion(const std::string& v) {
  static const std::regex kRelease("[0-9]+(\\.[0-9]+){1,2}(-?[a-z]+[0-9]*)?");
  return v.size() <= 32 && BoundedRegexMatch(v, kRelease);
}

// Runs argv with our stdout/stderr (shown, so a long clone is visible),
// after printing it the way a shell would echo it.
bool Run(const std::vector<std::string>& argv, const std::string& cwd = "") {
  std::cerr << "+";
  for (const std::string& a : argv) std::cerr << " " << a;
  std::cerr << "\n";
  RunSettings settings;
  settings.cwd = cwd;
  settings.capture_stdout = false;
  settings.quiet_stderr = false;
  return RunProgram(argv, settings).exit_code == 0;
}

bool TryGit(const std::string& version, const std::string& tmp) {
  // "--": the positional arguments are never read as options, whatever they spell.
  return Run({"git", "clone", "--quiet", "--depth", "1", "--branch", "v" + version, "--", kRepository, tmp});
}

// Orders Debian versions as `sort -V` does: digit runs by value, the rest bytewise.
bool VersionLess(const std::string& a, const std::string& b) {
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (std::isdigit(static_cast<unsigned char>(a[i])) && std::isdigit(static_cast<unsigned char>(b[j]))) {
      size_t ie = i, je = j;
      while (ie < a.size() && std::isdigit(static_cast<unsigned char>(a[ie]))) ++ie;
      while (je < b.size() && std::isdigit(static_cast<unsigned char>(b[je]))) ++je;
      unsigned long long x = std::stoull(a.substr(i, std::min<size_t>(ie - i, 18)));
      unsigned long long y = std::stoull(b.substr(j, std::min<size_t>(je - j, 18)));
      if (x != y) return x < y;
      i = ie, j = je;
    } else {
      if (a[i] != b[j]) return a[i] < b[j];
      ++i, ++j;
    }
  }
  return a.size() - i < b.size() - j;
}

// The newest Debian source version whose upstream part is `version`
// (2.6.0+dfsg-7 for 2.6.0), or "".
std::string DebianSourceVersion(const std::string& version) {
  RunResult r = RunProgram({"apt-cache", "showsrc", "pytorch"});
  if (r.exit_code != 0) return "";
  std::istringstream lines(r.out);
  std::string line, best;
  while (std::getline(lines, line)) {
    if (line.rfind("Version: ", 0) != 0) continue;
    std::string v = line.substr(9);
    if (v.size() <= version.size() || v.compare(0, version.size(), version) != 0) continue;
    if (v[version.size()] != '+' && v[version.size()] != '-') continue;
    if (best.empty() || VersionLess(best, v)) best = v;
  }
  return best;
}

// Debian's source package of that version: download it and unpack the orig
// tarball (the upstream tree) into tmp.
bool TryDebian(const std::string& version, const std::string& tmp) {
  if (FindOnPath("apt-get").empty() || FindOnPath("apt-cache").empty()) return false;
  std::string debian_version = DebianSourceVersion(version);
  if (debian_version.empty()) return false;
  std::string dl = tmp + ".download";
  std::error_code ec;
  fs::create_directories(dl, ec);
  bool ok = Run({"apt-get", "source", "--download-only", "pytorch=" + debian_version}, dl);
  std::string tarball;
  for (const auto& entry : fs::directory_iterator(dl, ec)) {
    std::string name = entry.path().filename().string();
    if (name.rfind("pytorch_", 0) == 0 && name.find(".orig.tar.") != std::string::npos) tarball = entry.path().string();
  }
  ok = ok && !tarball.empty() && fs::create_directories(tmp, ec) &&
       Run({"tar", "-xf", tarball, "-C", tmp, "--strip-components=1"});  // both absolute: never an option
  fs::remove_all(dl, ec);
  return ok && fs::exists(tmp + "/aten/src/ATen/native/native_functions.yaml");
}

}  // namespace

int CmdFetch(int argc, char** argv) {
  CLI::App app{"Get a PyTorch source checkout into the cache location", "optrace fetch"};
  std::string version, dest;
  app.add_option("--version", version, "PyTorch release, e.g. 2.6.0 (default: installed torch, else 2.6.0)");
  app.add_option("--dest", dest, "where to put it (default: the tilegym cache location)");
  int rc = 0;
  if (!ParseOrReport(app, argc, argv, &rc)) return rc;
  if (app.count("--version") && version.empty()) return Report(Status::Usage("--version is empty; name a release"));
  if (version.empty()) {
    auto installed = InstalledTorchVersion();
    version = installed ? ReleaseOf(*installed) : "2.6.0";
  }
  if (!ValidVersion(version))
    return Report(Status::Usage("--version " + EscapeControl(version) +
                                " is not a PyTorch release (digits and dots: 2.6.0, 2.6, 2.6.0rc1)"));
  if (dest.empty()) dest = DefaultCheckoutPath();
  std::error_code ec;
  // Absolute from here on: a relative --dest has no parent_path to create,
  // and one spelled like an option (--x=y) reaches no program as one.
  dest = fs::absolute(dest, ec).lexically_normal().string();
  if (ec || dest.empty()) return Report(Status::Usage("--dest: not a usable path"));
  while (dest.size() > 1 && dest.back() == '/') dest.pop_back();
  if (fs::exists(dest + "/aten/src/ATen/native/native_functions.yaml", ec)) {
    std::cout << "a checkout is already at " << dest << "\n";
    return 0;
  }
  if (fs::exists(fs::symlink_status(dest, ec))) {
    return Report(Status::SourceError(dest + " exists but is not a PyTorch checkout; move it away first"));
  }
  fs::create_directories(fs::path(dest).parent_path(), ec);
  if (ec)
    return Report(Status::SourceError("cannot create " + fs::path(dest).parent_path().string() + ": " + ec.message()));
  std::string tmp = dest + ".partial";
  // Only what this fetch creates is ever deleted: a leftover of an
  // interrupted fetch (or anything else under that name) is the user's call.
  for (const std::string& ours : {tmp, tmp + ".download"})
    if (fs::exists(fs::symlink_status(ours, ec)))
      return Report(Status::SourceError(ours + " exists (an interrupted fetch leaves it); remove it (rm -rf " + ours +
                                        ") and run fetch again"));
  bool ok = TryGit(version, tmp);
  if (!ok) {
    fs::remove_all(tmp, ec);
    std::cerr << "optrace: git clone failed; trying Debian's source package of PyTorch " << version << "\n";
    ok = TryDebian(version, tmp);
  }
  if (!ok) {
    fs::remove_all(tmp, ec);
    return Report(Status::SourceError(
        "could not fetch PyTorch " + version + ": git clone of tag v" + version +
        " failed and no Debian source package matched. Clone it yourself (git clone --depth 1 --branch v" + version +
        " https://github.com/pytorch/pytorch " + dest + ") or pass --source"));
  }
  fs::rename(tmp, dest, ec);
  if (ec) return Report(Status::SourceError("cannot move the checkout into " + dest + ": " + ec.message()));
  std::cout << "PyTorch " << version << " checkout ready at " << dest << "\n";
  return 0;
}

}  // namespace optrace
