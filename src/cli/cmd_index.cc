// `optrace index`: builds or updates the persistent index of a checkout
// (store.h) and says what it did -- counts and timings; --rebuild ignores the
// existing image, --check verifies it (full checksum and every in-scope
// file's state) without writing: exit 0 when fresh, 3 when stale or damaged.
#include <unistd.h>

#include <cstdio>
#include <iostream>

#include "cli/cmd_common.h"
#include "cli/commands.h"
#include "index/index.h"
#include "index/store.h"

namespace optrace {

namespace {

// The layer over the image (edited files), if any.
void PrintLayer(const StoreReport& r) {
  if (!r.layer_bytes) return;
  if (r.layer_files)
    std::printf("  layer: %zu edited file%s over the image, %.1f KiB\n", r.layer_files, r.layer_files == 1 ? "" : "s",
                r.layer_bytes / 1024.0);
  else std::printf("  layer: new stamps of touched files over the image, %.1f KiB\n", r.layer_bytes / 1024.0);
}

void PrintReport(const StoreReport& r) {
  std::printf("index: %s\n", r.path.c_str());
  std::printf("  %s%s%s\n", StoreActionName(r.action), r.reason.empty() ? "" : ": ", r.reason.c_str());
  std::printf("  files: %zu C++/CUDA, %zu Python", r.cpp_files, r.py_files);
  if (r.action == StoreReport::Action::kUpdated)
    std::printf(" (%zu scanned again, %zu added, %zu removed)", r.rescanned, r.added, r.removed);
  std::printf("\n");
  if (r.image_bytes) std::printf("  size: %.1f MiB\n", r.image_bytes / 1048576.0);
  PrintLayer(r);
  std::printf("  time: %.1f ms (check %.1f, scan %.1f, merge %.1f, write %.1f)\n", r.total_ms, r.check_ms, r.scan_ms,
              r.merge_ms, r.write_ms);
}

}  // namespace

int CmdIndex(int argc, char** argv) {
  CLI::App app{"Build or update the persistent index of a checkout", "optrace index"};
  std::string source;
  bool rebuild = false, check = false;
  AddSourceFlag(app, &source);
  app.add_flag("--rebuild", rebuild, "rebuild from scratch, ignoring the existing index");
  app.add_flag("--check", check, "verify the index without writing (exit 0 fresh, 3 stale or damaged)");
  int rc = 0;
  if (!ParseOrReport(app, argc, argv, &rc)) return rc;
  if (rebuild && check) {
    std::cerr << "optrace: --rebuild and --check exclude each other\n";
    return static_cast<int>(ExitCode::kUsage);
  }
  Checkout checkout;
  if (!OpenCheckoutOrReport(source, &checkout, &rc)) return rc;
  StoreTree tree{checkout.root, checkout.version, checkout.disk};
  StoreOptions options;
  StoreReport report;
  if (check) {
    Status s = CheckStore(tree, options, &report);
    if (!s.ok()) return Report(s);
    std::printf("index: %s\n  fresh: %zu C++/CUDA, %zu Python files, %.1f MiB, checked in %.1f ms\n",
                report.path.c_str(), report.cpp_files, report.py_files, report.image_bytes / 1048576.0,
                report.total_ms);
    PrintLayer(report);
    return 0;
  }
  options.rebuild = rebuild;
  options.progress = ::isatty(STDERR_FILENO);
  // Never destroyed: the process ends right after, and destroying an index
  // that lives in a mapped image would touch every one of its pages.
  Index& index = *new Index;
  Status s = LoadWithStore(tree, options, &index, &report);
  if (!s.ok()) return Report(s);
  PrintReport(report);
  return report.action == StoreReport::Action::kInMemory ? static_cast<int>(ExitCode::kSource) : 0;
}

}  // namespace optrace
