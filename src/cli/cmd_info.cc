// `optrace info`: which checkout optrace reads, its version, the installed
// torch, and (--index) how much of the tree the indexes hold.
#include <iostream>

#include "base/heap.h"
#include "base/text.h"
#include "cli/cmd_common.h"
#include "cli/commands.h"
#include "index/index.h"

namespace optrace {

int CmdInfo(int argc, char** argv) {
  CLI::App app{"Show the checkout, its version and the installed torch", "optrace info"};
  std::string source;
  bool show_index = false;
  AddSourceFlag(app, &source);
  app.add_flag("--index", show_index, "also load the index and print what it holds");
  int rc = 0;
  if (!ParseOrReport(app, argc, argv, &rc)) return rc;
  Checkout checkout;
  if (!OpenCheckoutOrReport(source, &checkout, &rc)) return rc;
  InstalledTorch installed = CachedInstalledTorch(OptraceCacheDir());
  std::cout << "checkout:  " << checkout.root << "  (found by " << checkout.found_by << ")\n"
            << "version:   " << (checkout.version.empty() ? "unknown (no version.txt)" : checkout.version) << "\n";
  if (std::string git = GitDescribe(checkout); !git.empty()) std::cout << "git:       " << git << "\n";
  std::cout << "torch:     " << (installed.version ? *installed.version + " (installed)" : "not installed") << "\n"
            << "python:    "
            << (installed.python.path.empty() ? "none found ($PYTHON, $VIRTUAL_ENV, $CONDA_PREFIX, python3 on PATH)"
                                              : installed.python.path + "  (from " + installed.python.found_by + ")")
            << "\n"
            << "heap:      " << HeapName() << " (malloc of this optrace)\n";
  if (!show_index) return 0;
  // Never destroyed: an index mapped from the store would be walked page by
  // page to free it (~250 ms); the process exits right after.
  Index& index = *new Index;
  LoadOptions options;
  options.progress = true;
  Status s = LoadIndex(checkout, options, &index);
  if (!s.ok()) return Report(s);
  std::cout << "\nnative_functions.yaml: " << index.yaml.functions().size() << " entries (incl. autogen'd), "
            << "derivatives.yaml: " << index.yaml.derivatives().size() << " entries\n\nC++/CUDA index:\n";
  PrintCppIndexCounts(index.cpp, std::cout);
  std::cout << "\nPython index:\n";
  PrintPyIndexCounts(index.py, std::cout);
  // Modules over the store's size cap are kept with the reason as their error.
  for (const PyModule& m : index.py.modules())
    if (StartsWith(m.error, "too large")) std::cout << "  skipped " << m.path << ": " << m.error << "\n";
  return 0;
}

}  // namespace optrace
