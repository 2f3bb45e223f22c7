// `optrace tests QUERY`: the OpInfo / ModuleInfo entries of the checkout's
// test databases for an op or module, and the tests that run them
// (verify/test_finder.h). Reads Python files only; the index is loaded only for the "did you mean" of a miss. Like
// every answer it carries the installed-torch facts (cmd_common.h).
//
// Exit codes: 0 found, 1 no entry, 2 usage, 3 checkout problem.
#include <unistd.h>

#include <iostream>

#include "base/json.h"
#include "cli/cmd_common.h"
#include "cli/commands.h"
#include "index/index.h"
#include "verify/test_finder.h"

namespace optrace {

int CmdTests(int argc, char** argv) {
  CLI::App app{"The OpInfo/ModuleInfo entries and tests that exercise an op or module", "optrace tests"};
  std::string source, format = "text", query;
  bool json = false;
  AddSourceFlag(app, &source);
  app.add_flag("--json", json, "same as --format json (optrace.tests/1, see doc/verify-schema.md)");
  app.add_option("--format", format, "text (default), md or json")->check(CLI::IsMember({"text", "md", "json"}));
  app.add_option("query", query, "F.softmax, torch.matmul, nn.LSTM, aten::_softmax ...")->required();
  int rc = 0;
  if (!ParseOrReport(app, argc, argv, &rc)) return rc;
  if (Status s = CheckQuery(query); !s.ok()) return Report(s);
  Checkout checkout;
  if (!OpenCheckoutOrReport(source, &checkout, &rc)) return rc;
  TestsAnswer answer;
  Status s = FindTests(*checkout.disk, query, &answer);
  if (s.code() == ExitCode::kNotFound) {
    // Only a miss needs the index: its names give the "did you mean" trace gives.
    auto* index = new Index;  // kept to the exit: freeing a mapped image costs more
    LoadOptions load;
    load.progress = ::isatty(STDERR_FILENO);
    if (Status loaded = LoadIndex(checkout, load, index); loaded.ok()) s = FindTestsOrSuggest(*index, query, &answer);
  }
  if (!s.ok()) return Report(s);
  if (json || format == "json") {
    nlohmann::ordered_json out = TestsToJson(answer);
    out["source"] = SourceJson(checkout);  // the version facts (cmd_common.h)
    std::cout << DumpJson(out, 1) << "\n";
  } else {
    std::cout << WarningHeader(checkout, format == "md") << TestsText(answer, format == "md");
  }
  return 0;
}

}  // namespace optrace
