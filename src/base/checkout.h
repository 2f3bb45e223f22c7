// Finding the PyTorch checkout and telling its version. Order: --source DIR,
// $PYTORCH_SOURCE, ${TILEGYM_SKILL_CACHE_DIR:-~/.cache/tilegym}/pytorch-source.
// A checkout must hold aten/src/ATen/native/native_functions.yaml; every read
// goes through its RealDisk, which never leaves the checkout.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "base/disk.h"
#include "base/installed_torch.h"
#include "base/status.h"

namespace optrace {

struct Checkout {
  std::string root;      // canonical absolute path
  std::string found_by;  // "--source", "PYTORCH_SOURCE", "TILEGYM_SKILL_CACHE_DIR", "default cache"
  std::string version;   // from version.txt: "2.6.0a0"
  std::shared_ptr<RealDisk> disk;
  // What the user's Python has installed and the warning when it is another
  // release (VersionMismatchWarning); filled by the commands that report it
  // (cli/cmd_common.h), never by FindCheckout.
  std::optional<std::string> installed_torch;
  std::string version_warning;
};

// The default cache folder: ${TILEGYM_SKILL_CACHE_DIR:-~/.cache/tilegym}/pytorch-source.
std::string DefaultCheckoutPath();

// Finds and validates the checkout. kSource with a message saying how to get
// one (optrace fetch) when none is found or it is not a PyTorch tree.
Status FindCheckout(const std::string& source_flag, Checkout* out);

// `git describe --tags` of a git checkout ("v2.6.0"), else "". Runs git, so
// only for commands that show it (info, the MCP source tool), never per trace.
std::string GitDescribe(const Checkout& checkout);

// The installed torch version of the user's interpreter (installed_torch.h:
// $PYTHON, the active venv or conda env, else python3 on PATH; cached), or
// nullopt when Python or torch is absent.
std::optional<std::string> InstalledTorchVersion();

// "2.6.0a0" and "2.6.0+cu124" -> "2.6.0": the release a version belongs to.
std::string ReleaseOf(const std::string& version);

// A warning naming both versions (and the interpreter asked, when given) and
// the fix when they differ, else "".
std::string VersionMismatchWarning(const Checkout& checkout, const std::optional<std::string>& installed);
std::string VersionMismatchWarning(const Checkout& checkout, const InstalledTorch& installed);
std::string VersionMismatchWarning(const Checkout& checkout, const std::optional<std::string>& installed,
                                   const std::string& python);

}  // namespace optrace
