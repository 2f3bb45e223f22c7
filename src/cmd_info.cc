// `optrace info`: which checkout optrace reads, its version, the installed
// torch, and (--index) how much of the tree the indexes hold.
#include <iostream>

#include "cmd_common.h"
#include "commands.h"

namespace optrace {

int CmdInfo(int argc, char** argv) {
  CLI::App app{"Show the checkout, its version and the installed torch", "optrace info"};
  std::string source;
  AddSourceFlag(app, &source);
  int rc = 0;
  if (!ParseOrReport(app, argc, argv, &rc)) return rc;
  Checkout checkout;
  if (!OpenCheckoutOrReport(source, &checkout, &rc)) return rc;
  auto installed = InstalledTorchVersion();
  std::cout << "checkout:  " << checkout.root << "  (found by " << checkout.found_by << ")\n"
            << "version:   " << (checkout.version.empty() ? "unknown (no version.txt)" : checkout.version) << "\n";
  if (!checkout.git_describe.empty()) std::cout << "git:       " << checkout.git_describe << "\n";
  std::cout << "torch:     " << (installed ? *installed + " (installed)" : "not installed") << "\n";
  return 0;
}

}  // namespace optrace
