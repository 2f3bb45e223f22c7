// `optrace tests`: how PyTorch tests an op, read from the checkout. The
// OpInfo database (common_methods_invocations.py and opinfo/definitions/*.py)
// and the ModuleInfo database (common_modules.py) are Python source; their
// entries are calls like OpInfo('softmax', aliases=(...), sample_inputs_func=
// ..., skips=(DecorateInfo(...), ...)). A kernel author porting an op wants
// exactly those arguments (which inputs, which reference, which dtypes per
// device, which tests are skipped or get looser tolerances), each with its
// file:line, plus the test files that run them. The entries are read with the
// Python tokenizer (keyword arguments split at top-level commas), never
// evaluated: values are shown as written, and named functions are located.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/disk.h"
#include "base/status.h"

namespace optrace {

struct TestArg {
  std::string name;   // keyword ("" for a positional argument)
  std::string value;  // as written, whitespace collapsed
  int line = 0;
};

struct TestDecoration {
  std::string kind;       // "skip" | "expected failure" | "tolerance" | "decorator"
  std::string text;       // the DecorateInfo(...) call as written, whitespace collapsed
  std::string decorator;  // its first argument: "unittest.skip(\"Skipped!\")", "toleranceOverride({...})"
  std::string test_class, test_name, device_type, dtypes;
  std::string active_if;  // the condition it applies under: "(TEST_CUDNN and not TEST_WITH_ROCM)"
  std::string via;        // the variable it was read from (decorators=rnn_gru_lstm_module_info_decorators)
  std::string file;       // where that variable is defined ("" : the entry's own file)
  int line = 0;
};

struct FunctionRef {
  std::string role;  // the keyword naming it: "sample_inputs_func", "ref", "module_inputs_func" ...
  std::string name;
  std::string file;  // "" when not defined in the files read (numpy, a lambda)
  int line = 0;
};

struct TestEntry {
  std::string kind;        // the constructor: "OpInfo", "UnaryUfuncInfo", "ModuleInfo", "PythonRefInfo" ...
  std::string name;        // first argument as written, unquoted: "softmax", "torch.nn.LSTM"
  std::string variant;     // variant_test_name
  std::string matched_by;  // "name" | "alias" | "aten_name" | "torch_opinfo_name"
  std::string file;
  int line = 0;
  std::vector<TestArg> args;
  std::vector<FunctionRef> functions;
  std::vector<std::string> dtypes;  // "cpu: <expr>" / "cuda: <expr>" ...
  std::vector<TestDecoration> decorations;
  std::vector<TestArg> decoration_names;  // skips=/decorators= given as a name defined elsewhere
};

struct TestFileUse {
  std::string file;
  int uses = 0;
  int first_line = 0;
  std::vector<std::string> tests;  // enclosing test functions (first few)
};

struct TestsAnswer {
  std::string query;
  std::vector<std::string> names_tried;  // the OpInfo/ModuleInfo names the query maps to
  std::vector<TestEntry> entries;
  std::vector<TestFileUse> database_tests;  // files running every entry: "@ops(op_db" / "@modules(module_db"
  std::vector<TestFileUse> direct_uses;     // test files calling the op by name
  std::vector<std::string> suggestions;     // "did you mean" when nothing matched (FindTestsOrSuggest)
};

// Reads the OpInfo and ModuleInfo databases and the test/ folder of the
// checkout on `disk`. NotFound when no entry matches (with the names tried).
Status FindTests(const Disk& disk, const std::string& query, TestsAnswer* out);

struct Index;
// FindTests, and when nothing matches, the "did you mean" of `trace`
// (SuggestQueries: nn.lstm -> nn.LSTM, F.sdpa -> F.scaled_dot_product_attention)
// in out->suggestions and at the end of the message, once.
Status FindTestsOrSuggest(const Index& index, const std::string& query, TestsAnswer* out);

nlohmann::ordered_json TestsToJson(const TestsAnswer& answer);
std::string TestsText(const TestsAnswer& answer, bool markdown);

}  // namespace optrace
