// `optrace py SYMBOL`: what the Python index knows about one name -- where it
// is defined (file:line), its decorators and the calls it makes; for a class
// its resolved bases, its methods and which class's forward it really runs;
// for an alias what it stands for. The answer is computed in lookup/py.h;
// the index is the persistent one (store.h), so a warm call costs a load of
// the mapped image, not a scan of torch/.
//
// Names: dotted ("torch.nn.modules.rnn.LSTM.forward"), re-exported
// ("torch.nn.LSTM"), or shorthand: nn.X -> torch.nn.X, F.x ->
// torch.nn.functional.x, Tensor.x -> torch.Tensor.x, and anything else is
// also tried under "torch.". --file USER.py scans a user file too; SYMBOL may
// then name something defined or imported there ("MyModel.forward").
#include <unistd.h>

#include <filesystem>
#include <iostream>

#include <nlohmann/json.hpp>

#include "cli/cmd_common.h"
#include "index/index.h"
#include "lookup/py.h"
#include "lookup/query.h"
#include "py/py_index.h"

namespace optrace {
namespace {

using json = nlohmann::json;

void PrintText(const json& j, std::ostream& out) {
  auto loc = [](const json& s) {
    std::string p = s.value("path", "");
    return s.contains("line") ? p + ":" + std::to_string(s["line"].get<uint32_t>()) : p;
  };
  out << j["name"].get<std::string>() << "  (" << j["kind"].get<std::string>() << ")  " << loc(j) << "\n";
  if (j.contains("query") && j["query"] != j["name"]) out << "  asked as " << j["query"].get<std::string>() << "\n";
  const std::string kind = j["kind"];
  if (kind == "function") {
    out << "  params: ";
    for (size_t i = 0; i < j["params"].size(); ++i) out << (i ? ", " : "") << j["params"][i].get<std::string>();
    out << "\n";
    for (const auto& d : j["decorators"])
      out << "  @" << d["text"].get<std::string>() << "   line " << d["line"].get<uint32_t>() << "\n";
    out << "  calls (" << j["calls"].size() << "):\n";
    for (const auto& c : j["calls"]) {
      out << "    " << loc(c) << "  ";
      if (c["kind"] == "operator") out << "operator " << c["callee"].get<std::string>();
      else out << c["callee"].get<std::string>() << "(" << c["args"].get<std::string>() << ")";
      if (c.value("in_preamble", false)) out << "   [__torch_function__ preamble]";
      out << "\n";
    }
  } else if (kind == "class") {
    for (const auto& b : j["bases"]) {
      out << "  base " << b["written"].get<std::string>();
      if (b.contains("resolved"))
        out << " -> " << b["resolved"]["name"].get<std::string>() << "  " << loc(b["resolved"]);
      else if (b.contains("resolved_name"))
        out << " -> " << b["resolved_name"].get<std::string>() << " (not in the Python index)";
      else out << " (builtin or not resolvable)";
      out << "\n";
    }
    out << "  methods:";
    for (const auto& m : j["methods"]) out << " " << m["name"].get<std::string>() << ":" << m["line"].get<uint32_t>();
    out << "\n";
    if (j.contains("forward")) {
      const auto& f = j["forward"];
      out << "  forward: " << f["name"].get<std::string>() << "  " << loc(f)
          << (f["inherited"].get<bool>() ? "  (inherited)" : "") << "\n";
    } else {
      out << "  forward: none defined in this class or its Python bases\n";
    }
  } else if (kind == "alias") {
    out << "  " << j["alias_kind"].get<std::string>() << " -> " << j["target"].get<std::string>();
    if (j.contains("target_resolved")) {
      if (!j["target_resolved"].is_null())
        out << "  = " << j["target_resolved"]["name"].get<std::string>() << "  " << loc(j["target_resolved"]);
      else out << "  (no Python definition under torch/: a torch._C binding or builtin)";
    }
    out << "\n";
    for (const char* branch : {"if_true", "if_false"}) {
      if (!j.contains(branch)) continue;
      const auto& b = j[branch];
      out << "  " << branch << ": " << b["name"].get<std::string>();
      if (!b["resolved"].is_null()) out << "  " << loc(b["resolved"]);
      out << "\n";
    }
  } else if (kind == "import") {
    out << "  imports " << j["target"].get<std::string>() << ": " << j["note"].get<std::string>() << "\n";
  } else if (kind == "module") {
    out << "  " << j["classes"] << " classes, " << j["functions"] << " functions, " << j["aliases"] << " aliases, "
        << j["imports"] << " imports\n";
    if (j.contains("error")) out << "  scan error: " << j["error"].get<std::string>() << "\n";
  }
}

}  // namespace

int CmdPy(int argc, char** argv) {
  CLI::App app{"Show a Python definition: file:line, decorators, calls; for a class its bases and forward",
               "optrace py"};
  std::string source, symbol, file;
  bool as_json = false;
  AddSourceFlag(app, &source);
  app.add_option("symbol", symbol, "torch.nn.LSTM, nn.Conv2d, F.softmax, torch.Tensor.split, MyModel.forward")
      ->required();
  app.add_flag("--json", as_json, "print JSON");
  app.add_option("--file", file, "also scan this Python file (SYMBOL may name something in it)");
  int rc = 0;
  if (!ParseOrReport(app, argc, argv, &rc)) return rc;
  if (Status s = CheckQuery(symbol); !s.ok()) return Report(s);

  Checkout checkout;
  if (!OpenCheckoutOrReport(source, &checkout, &rc)) return rc;
  // The persistent index, kept for the life of the process (as cmd_trace's:
  // freeing a mapped image costs more than the exit). A user file must be
  // added to the Python index, so --file builds one of its own.
  auto* loaded = new Index;
  PyIndex built;
  if (file.empty()) {
    LoadOptions load;
    load.progress = ::isatty(STDERR_FILENO);
    if (Status s = LoadIndex(checkout, load, loaded); !s.ok()) return Report(s);
  } else {
    built = PyIndex::Build(*checkout.disk);
  }
  PyIndex& index = file.empty() ? loaded->py : built;

  int32_t user_module = -1;
  if (!file.empty()) {
    std::filesystem::path p(file);
    std::string text;
    Status st = ReadInputFile(file, &text);  // one reader for every user file (base/disk.h)
    if (!st.ok()) return Report(Status::Usage("--file: " + st.message()));
    PyModule module = ScanPyFile(p.stem().string(), file, text);
    if (!module.error.empty())
      std::cerr << "optrace: " << file << ":" << module.error_line << ": " << module.error
                << " (showing what was read before it)\n";
    user_module = static_cast<int32_t>(index.modules().size());
    index.AddModule(std::move(module));
    index.Finish();
  }

  PySymbol found;
  if (user_module >= 0) found = index.ResolveIn(static_cast<uint32_t>(user_module), symbol);
  if (found.kind == PySymbol::kNone) found = ResolvePython(index, symbol);

  if (found.kind == PySymbol::kNone) {
    std::vector<std::string> suggestions = SuggestPython(index, symbol);
    std::string msg = "no Python definition of '" + symbol + "' under torch/" + (file.empty() ? "" : " or in " + file);
    if (!suggestions.empty()) {
      msg += "; did you mean: ";
      for (size_t i = 0; i < suggestions.size(); ++i) msg += (i ? ", " : "") + suggestions[i];
      msg += "?";
    }
    if (as_json) {
      json j = {{"query", symbol}, {"found", false}, {"suggestions", suggestions}};
      j["source"] = json(SourceJson(checkout));
      std::cout << j.dump(2) << "\n";
      return static_cast<int>(ExitCode::kNotFound);
    }
    return Report(Status::NotFound(msg));
  }

  json j = DescribePython(index, found);
  j["query"] = symbol;
  if (as_json) {
    j["found"] = true;
    j["source"] = json(SourceJson(checkout));  // the version facts (cmd_common.h)
    std::cout << j.dump(2) << "\n";
  } else {
    std::cout << WarningHeader(checkout);
    PrintText(j, std::cout);
  }
  return 0;
}

}  // namespace optrace
