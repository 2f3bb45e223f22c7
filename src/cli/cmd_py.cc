// `optrace py SYMBOL`: what the Python index knows about one name -- where it
// is defined (file:line), its decorators and the calls it makes; for a class
// its resolved bases, its methods and which class's forward it really runs;
// for an alias what it stands for. It reads the Python files only (no YAML,
// no C++ index), so it answers in well under a second.
//
// Names: dotted ("torch.nn.modules.rnn.LSTM.forward"), re-exported
// ("torch.nn.LSTM"), or shorthand: nn.X -> torch.nn.X, F.x ->
// torch.nn.functional.x, Tensor.x -> torch.Tensor.x, and anything else is
// also tried under "torch.". --file USER.py scans a user file too; SYMBOL may
// then name something defined or imported there ("MyModel.forward").
#include <filesystem>
#include <iostream>

#include <nlohmann/json.hpp>

#include "cli/cmd_common.h"
#include "py/py_index.h"
#include "base/text.h"

namespace optrace {
namespace {

using nlohmann::json;

const char* KindName(PySymbol::Kind kind) {
  switch (kind) {
    case PySymbol::kModule: return "module";
    case PySymbol::kClass: return "class";
    case PySymbol::kFunction: return "function";
    case PySymbol::kAlias: return "alias";
    case PySymbol::kImport: return "import";
    default: return "none";
  }
}

const char* AliasKindName(PyAliasKind kind) {
  switch (kind) {
    case PyAliasKind::kAssign: return "assign";
    case PyAliasKind::kAddDocstr: return "_add_docstr";
    case PyAliasKind::kBooleanDispatch: return "boolean_dispatch";
    case PyAliasKind::kCall: return "call";
  }
  return "";
}

// Candidate spellings of what the user typed, most literal first.
std::vector<std::string> Spellings(const std::string& symbol) {
  std::vector<std::string> out{symbol};
  auto expand = [&](std::string_view short_prefix, std::string_view full) {
    if (StartsWith(symbol, short_prefix)) out.push_back(std::string(full) + symbol.substr(short_prefix.size()));
  };
  expand("nn.", "torch.nn.");
  expand("F.", "torch.nn.functional.");
  expand("Tensor.", "torch.Tensor.");
  if (!StartsWith(symbol, "torch.") && symbol != "torch") out.push_back("torch." + symbol);
  return out;
}

struct Location {
  std::string path;
  uint32_t line = 0;
};

Location Locate(const PyIndex& index, const PySymbol& s) {
  if (s.kind == PySymbol::kNone) return {};
  const PyModule& m = index.modules()[s.module];
  switch (s.kind) {
    case PySymbol::kClass: return {m.path, m.classes[s.index].line};
    case PySymbol::kFunction: return {m.path, m.functions[s.index].line};
    case PySymbol::kAlias: return {m.path, m.aliases[s.index].line};
    case PySymbol::kImport: return {m.path, m.imports[s.index].line};
    default: return {m.path, 0};
  }
}

json SymbolJson(const PyIndex& index, const PySymbol& s) {
  Location l = Locate(index, s);
  json j = {{"name", index.NameOf(s)}, {"kind", KindName(s.kind)}, {"path", l.path}};
  if (l.line) j["line"] = l.line;
  return j;
}

json FunctionJson(const PyIndex& index, const PySymbol& s) {
  const PyModule& m = index.modules()[s.module];
  const PyFunction& f = m.functions[s.index];
  json j = SymbolJson(index, s);
  j["end_line"] = f.end_line;
  j["params"] = f.params;
  j["decorators"] = json::array();
  for (const auto& d : f.decorators)
    j["decorators"].push_back({{"name", d.name}, {"args", d.args}, {"text", d.text}, {"line", d.line}});
  j["calls"] = json::array();
  for (const auto& c : f.calls) {
    json call = {{"callee", c.callee},
                 {"kind", c.kind == PyCallKind::kOperator ? "operator" : "call"},
                 {"path", m.path},
                 {"line", c.line}};
    if (c.kind == PyCallKind::kCall) call["args"] = c.args;
    if (c.in_preamble) call["in_preamble"] = true;
    j["calls"].push_back(std::move(call));
  }
  return j;
}

json ClassJson(const PyIndex& index, const PySymbol& s) {
  const PyModule& m = index.modules()[s.module];
  const PyClass& c = m.classes[s.index];
  json j = SymbolJson(index, s);
  j["bases"] = json::array();
  for (size_t b = 0; b < c.bases.size(); ++b) {
    PySymbol base = c.resolved_bases[b].empty() ? PySymbol{} : index.Resolve(c.resolved_bases[b]);
    if (base.kind == PySymbol::kNone) base = index.ResolveIn(s.module, c.bases[b]);
    json bj = {{"written", c.bases[b]}};
    if (base.kind == PySymbol::kClass) bj["resolved"] = SymbolJson(index, base);
    else if (!c.resolved_bases[b].empty()) bj["resolved_name"] = c.resolved_bases[b];
    j["bases"].push_back(std::move(bj));
  }
  j["methods"] = json::array();
  for (uint32_t f : c.methods) j["methods"].push_back({{"name", m.functions[f].name}, {"line", m.functions[f].line}});
  auto fwd = index.FindMethod(s.module, s.index, "forward");
  if (fwd) {
    json fj = SymbolJson(index, *fwd);
    fj["inherited"] = !(fwd->module == s.module && fwd->kind == PySymbol::kFunction &&
                        m.functions[fwd->index].class_index == static_cast<int32_t>(s.index));
    j["forward"] = std::move(fj);
  }
  return j;
}

json AliasJson(const PyIndex& index, const PySymbol& s) {
  const PyAlias& a = index.modules()[s.module].aliases[s.index];
  json j = SymbolJson(index, s);
  j["alias_kind"] = AliasKindName(a.kind);
  j["target"] = a.target;
  if (!a.args.empty()) j["args"] = a.args;
  auto resolved = [&](const std::string& name) {
    PySymbol t = index.ResolveIn(s.module, name);
    return t.kind == PySymbol::kNone || t.kind == PySymbol::kImport ? json(nullptr) : SymbolJson(index, t);
  };
  if (a.kind == PyAliasKind::kBooleanDispatch) {
    j["if_true"] = {{"name", a.if_true}, {"resolved", resolved(a.if_true)}};
    j["if_false"] = {{"name", a.if_false}, {"resolved", resolved(a.if_false)}};
  } else {
    j["target_resolved"] = resolved(a.target);
  }
  return j;
}

json Describe(const PyIndex& index, const PySymbol& s) {
  switch (s.kind) {
    case PySymbol::kFunction: return FunctionJson(index, s);
    case PySymbol::kClass: return ClassJson(index, s);
    case PySymbol::kAlias: return AliasJson(index, s);
    case PySymbol::kImport: {
      json j = SymbolJson(index, s);
      j["target"] = index.modules()[s.module].imports[s.index].target;
      j["note"] = "imported from a module the Python index does not hold (a C extension such as torch._C, or outside torch/)";
      return j;
    }
    case PySymbol::kModule: {
      const PyModule& m = index.modules()[s.module];
      json j = SymbolJson(index, s);
      j["classes"] = m.classes.size();
      j["functions"] = m.functions.size();
      j["aliases"] = m.aliases.size();
      j["imports"] = m.imports.size();
      if (!m.error.empty()) j["error"] = m.error;
      return j;
    }
    default:
      return json::object();
  }
}

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
      if (b.contains("resolved")) out << " -> " << b["resolved"]["name"].get<std::string>() << "  " << loc(b["resolved"]);
      else if (b.contains("resolved_name")) out << " -> " << b["resolved_name"].get<std::string>() << " (not in the Python index)";
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
      else
        out << "  (no Python definition under torch/: a torch._C binding or builtin)";
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

// Suggestions for an unknown name: names next to where resolution stopped.
std::vector<std::string> Suggest(const PyIndex& index, const std::string& dotted) {
  size_t dot = dotted.rfind('.');
  std::string last = dot == std::string::npos ? dotted : dotted.substr(dot + 1);
  std::vector<std::string> names;
  std::string owner_name;
  if (dot != std::string::npos) {
    owner_name = dotted.substr(0, dot);
    PySymbol owner = index.Resolve(owner_name);
    if (owner.kind == PySymbol::kModule) {
      names = index.NamesIn(owner.module);
    } else if (owner.kind == PySymbol::kClass) {
      const PyModule& m = index.modules()[owner.module];
      for (uint32_t f : m.classes[owner.index].methods) names.push_back(m.functions[f].name);
    }
  }
  std::vector<std::string> out;
  for (auto& n : DidYouMean(last, names)) out.push_back(owner_name.empty() ? n : owner_name + "." + n);
  return out;
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
  PyIndex index = PyIndex::Build(*checkout.disk);

  int32_t user_module = -1;
  if (!file.empty()) {
    std::filesystem::path p(file);
    std::string dir = p.has_parent_path() ? p.parent_path().string() : ".";
    if (!std::filesystem::is_directory(dir)) return Report(Status::Usage("--file: no such directory: " + dir));
    RealDisk user_disk(dir);
    std::string text;
    Status st = user_disk.ReadFile(p.filename().string(), &text);
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
  std::vector<std::string> spellings = Spellings(symbol);
  for (size_t i = 0; i < spellings.size() && found.kind == PySymbol::kNone; ++i) found = index.Resolve(spellings[i]);

  if (found.kind == PySymbol::kNone) {
    std::vector<std::string> suggestions;
    for (const auto& s : spellings) {
      suggestions = Suggest(index, s);
      if (!suggestions.empty()) break;
    }
    std::string msg = "no Python definition of '" + symbol + "' under torch/" + (file.empty() ? "" : " or in " + file);
    if (!suggestions.empty()) {
      msg += "; did you mean: ";
      for (size_t i = 0; i < suggestions.size(); ++i) msg += (i ? ", " : "") + suggestions[i];
      msg += "?";
    }
    if (as_json) {
      std::cout << json{{"query", symbol}, {"found", false}, {"suggestions", suggestions}}.dump(2) << "\n";
      return static_cast<int>(ExitCode::kNotFound);
    }
    return Report(Status::NotFound(msg));
  }

  json j = Describe(index, found);
  j["query"] = symbol;
  if (as_json) {
    j["found"] = true;
    std::cout << j.dump(2) << "\n";
  } else {
    PrintText(j, std::cout);
  }
  return 0;
}

}  // namespace optrace
