// Python lookups shared by `optrace py`, `find` and the MCP tools; see py.h.
#include "lookup/py.h"

#include "base/text.h"

namespace optrace {
namespace {

using json = nlohmann::json;

const char* KindNameOf(PySymbol::Kind kind) {
  switch (kind) {
    case PySymbol::kModule:
      return "module";
    case PySymbol::kClass:
      return "class";
    case PySymbol::kFunction:
      return "function";
    case PySymbol::kAlias:
      return "alias";
    case PySymbol::kImport:
      return "import";
    default:
      return "none";
  }
}

const char* AliasKindName(PyAliasKind kind) {
  switch (kind) {
    case PyAliasKind::kAssign:
      return "assign";
    case PyAliasKind::kAddDocstr:
      return "_add_docstr";
    case PyAliasKind::kBooleanDispatch:
      return "boolean_dispatch";
    case PyAliasKind::kCall:
      return "call";
  }
  return "";
}

// Candidate spellings of what the user typed, most literal first.
std::vector<std::string> SpellingsOf(const std::string& symbol) {
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
    case PySymbol::kClass:
      return {m.path, m.classes[s.index].line};
    case PySymbol::kFunction:
      return {m.path, m.functions[s.index].line};
    case PySymbol::kAlias:
      return {m.path, m.aliases[s.index].line};
    case PySymbol::kImport:
      return {m.path, m.imports[s.index].line};
    default:
      return {m.path, 0};
  }
}

json SymbolJson(const PyIndex& index, const PySymbol& s) {
  Location l = Locate(index, s);
  json j = {{"name", index.NameOf(s)}, {"kind", KindNameOf(s.kind)}, {"path", l.path}};
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
    case PySymbol::kFunction:
      return FunctionJson(index, s);
    case PySymbol::kClass:
      return ClassJson(index, s);
    case PySymbol::kAlias:
      return AliasJson(index, s);
    case PySymbol::kImport: {
      json j = SymbolJson(index, s);
      j["target"] = index.modules()[s.module].imports[s.index].target;
      j["note"] =
          "imported from a module the Python index does not hold (a C extension such as torch._C, or outside torch/)";
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

// Suggestions for an unknown dotted name: names next to where resolution stopped.
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

std::vector<std::string> PythonSpellings(const std::string& symbol) { return SpellingsOf(symbol); }

PySymbol ResolvePython(const PyIndex& index, const std::string& symbol) {
  PySymbol found;
  for (const std::string& s : SpellingsOf(symbol)) {
    found = index.Resolve(s);
    if (found.kind != PySymbol::kNone) break;
  }
  return found;
}

PyLocation LocatePython(const PyIndex& index, const PySymbol& s) {
  Location l = Locate(index, s);
  return {l.path, l.line};
}

const char* PythonKindName(PySymbol::Kind kind) { return KindNameOf(kind); }

json DescribePython(const PyIndex& index, const PySymbol& s) { return Describe(index, s); }

std::vector<std::string> SuggestPython(const PyIndex& index, const std::string& symbol) {
  for (const auto& s : SpellingsOf(symbol)) {
    std::vector<std::string> suggestions = Suggest(index, s);
    if (!suggestions.empty()) return suggestions;
  }
  return {};
}

}  // namespace optrace
