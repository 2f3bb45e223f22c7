// `optrace fetch [--version V] [--dest DIR]`: obtain a PyTorch checkout at the
// cache location. First `git clone --depth 1 --branch vV`; where that fails
// and apt is available, Debian's source package of that version (its orig
// tarball is the real tree). The tree is unpacked aside and renamed into place,
// so a failed fetch never leaves half a checkout behind.
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <string>

#include "cli/cmd_common.h"
#include "cli/commands.h"

namespace optrace {

namespace {

namespace fs = std::filesystem;

std::string Quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

bool Run(const std::string& command) {
  std::cerr << "+ " << command << "\n";
  return std::system(command.c_str()) == 0;
}

bool TryGit(const std::string& version, const std::string& tmp) {
  return Run("git clone --quiet --depth 1 --branch v" + Quote(version) +
             " https://github.com/pytorch/pytorch.git " + Quote(tmp));
}

// Debian names source versions like 2.6.0+dfsg-7: pick the newest one whose
// upstream part is `version`, download it and unpack the orig tarball.
bool TryDebian(const std::string& version, const std::string& tmp) {
  if (std::system("command -v apt-get >/dev/null 2>&1") != 0) return false;
  std::string dl = tmp + ".download";
  fs::create_directories(dl);
  std::string cmd = "cd " + Quote(dl) +
                    " && v=$(apt-cache showsrc pytorch 2>/dev/null | sed -n 's/^Version: //p' | grep '^" +
                    version + "[+-]' | sort -V | tail -n1) && [ -n \"$v\" ] && apt-get source --download-only "
                    "\"pytorch=$v\" >/dev/null; ls pytorch_*.orig.tar.* >/dev/null 2>&1 && mkdir -p " +
                    Quote(tmp) + " && tar -xf pytorch_*.orig.tar.* -C " + Quote(tmp) +
                    " --strip-components=1";
  bool ok = Run(cmd);
  std::error_code ec;
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
  if (version.empty()) {
    auto installed = InstalledTorchVersion();
    version = installed ? ReleaseOf(*installed) : "2.6.0";
  }
  if (dest.empty()) dest = DefaultCheckoutPath();
  if (fs::exists(dest + "/aten/src/ATen/native/native_functions.yaml")) {
    std::cout << "a checkout is already at " << dest << "\n";
    return 0;
  }
  if (fs::exists(dest)) {
    return Report(Status::SourceError(dest + " exists but is not a PyTorch checkout; move it away first"));
  }
  fs::create_directories(fs::path(dest).parent_path());
  std::string tmp = dest + ".partial";
  std::error_code ec;
  fs::remove_all(tmp, ec);
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
        " failed and no Debian source package matched. Clone it yourself (git clone --depth 1 --branch v" +
        version + " https://github.com/pytorch/pytorch " + dest + ") or pass --source"));
  }
  fs::rename(tmp, dest, ec);
  if (ec) return Report(Status::SourceError("cannot move the checkout into " + dest + ": " + ec.message()));
  std::cout << "PyTorch " << version << " checkout ready at " << dest << "\n";
  return 0;
}

}  // namespace optrace
