// ModuleStatements: what a module-level or class-level line binds --
// imports, __all__ (literal, extended, appended), and the aliases the tracer
// follows (`name = other`, `_add_docstr(...)`, `boolean_dispatch(...)`,
// other calls) -- recorded into the PyModule; and what a name bound so far
// stands for (a class's bases). ReadImport reads an import statement for
// the module and for a function body alike.
#include "py/py_module_statements.h"

#include <algorithm>

namespace optrace {

// "RNNBase" -> "torch.nn.modules.rnn.RNNBase" through what the module has
// bound so far: its imports, classes and aliases ("" when unknown).
std::string ModuleStatements::QualifyLocal(size_t b, size_t e) const {
  std::string_view first = t_.Text(b);
  std::string rest = t_.Joined(b + 1, e);
  // The latest binding of `first` wins, as in Python.
  uint32_t best_line = 0;
  std::string best;
  for (const PyImport& imp : mod_.imports)
    if (imp.local == first && imp.line >= best_line) {
      best_line = imp.line;
      best = imp.target;
    }
  for (const PyClass& c : mod_.classes)
    if (c.qualname == first && c.line >= best_line) {
      best_line = c.line;
      best = mod_.name + "." + c.name;
    }
  for (const PyAlias& a : mod_.aliases)
    if (a.class_index < 0 && a.name == first && a.line >= best_line) {
      best_line = a.line;
      best = mod_.name + "." + a.name;
    }
  if (best.empty()) return best;
  return best + rest;
}

// One logical line at module level (cls < 0) or in a class body.
void ModuleStatements::Line(size_t b, size_t e, int32_t cls) {
  // Statements separated by ';'.
  size_t start = b;
  for (size_t i = b; i <= e; ++i) {
    if (i == e || t_.IsOp(i, ";")) {
      if (i > start) ModuleStatement(start, i, cls);
      start = i + 1;
    }
  }
}

void ModuleStatements::ModuleStatement(size_t b, size_t e, int32_t cls) {
  if (cls < 0 && (t_.IsName(b, "import") || t_.IsName(b, "from"))) {
    ReadImport(t_, b, e, package_, &mod_.imports);
    return;
  }
  if (t_[b].kind != PyTok::kName || IsPyKeyword(t_.Text(b))) return;
  // __all__.extend([...]) / __all__.append("x")
  if (cls < 0 && t_.Text(b) == "__all__" && b + 3 < e && t_.IsOp(b + 1, ".") && t_.IsOp(b + 3, "(")) {
    std::string_view method = t_.Text(b + 2);
    size_t close = t_.SkipGroup(b + 3) - 1;
    if (method == "append" || method == "extend") {
      size_t lb = b + 4, le = std::min(close, e);
      if (method == "append") {
        if (le == lb + 1 && t_[lb].kind == PyTok::kString) mod_.all.emplace_back(StringValue(t_.Text(lb)));
        else mod_.all_dynamic = true;
      } else {
        AllLiteral(lb, le);
      }
    }
    return;
  }
  // Target: NAME [: annotation] (= | +=) value
  size_t k = b + 1;
  if (k < e && t_.IsOp(k, ":")) {
    while (k < e && !t_.IsOp(k, "=")) k = t_.IsOpenGroup(k) ? t_.SkipGroup(k) : k + 1;
  }
  if (k >= e) return;
  const bool augmented = t_.IsOp(k, "+=");
  if (!t_.IsOp(k, "=") && !augmented) return;
  std::string_view name = t_.Text(b);
  const size_t vb = k + 1;
  if (cls < 0 && name == "__all__") {
    if (!augmented) {
      mod_.all.clear();
      mod_.all_dynamic = false;
    }
    AllLiteral(vb, e);
    return;
  }
  if (augmented) return;
  for (size_t i = vb; i < e; i = t_.IsOpenGroup(i) ? t_.SkipGroup(i) : i + 1)
    if (t_.IsOp(i, "=")) return;  // a = b = c: not an alias the pass records
  size_t dotted = t_.DottedEnd(vb, e);
  if (dotted == vb) return;
  PyAlias alias;
  alias.name = std::string(name);
  alias.line = t_[b].line;
  alias.class_index = cls;
  if (dotted == e) {
    alias.kind = PyAliasKind::kAssign;
    alias.target = t_.Joined(vb, e);
  } else if (t_.IsOp(dotted, "(") && t_.SkipGroup(dotted) == e) {
    std::string callee = t_.Joined(vb, dotted);
    std::string_view last = std::string_view(callee).substr(callee.rfind('.') + 1);
    auto args = t_.SplitArgs(dotted + 1, e - 1);
    alias.args = t_.Collapsed(dotted + 1, e - 1);
    if (last == "_add_docstr" && !args.empty()) {
      alias.kind = PyAliasKind::kAddDocstr;
      alias.target = t_.Joined(args[0].first, args[0].second);
    } else if (last == "boolean_dispatch") {
      alias.kind = PyAliasKind::kBooleanDispatch;
      alias.target = callee;
      // boolean_dispatch(arg_name, arg_index, default, if_true, if_false, module_name, func_name)
      for (size_t a = 0; a < args.size(); ++a) {
        auto [ab, ae] = args[a];
        if (ae > ab + 2 && t_.IsOp(ab + 1, "=")) {
          std::string_view kw = t_.Text(ab);
          if (kw == "if_true") alias.if_true = t_.Joined(ab + 2, ae);
          if (kw == "if_false") alias.if_false = t_.Joined(ab + 2, ae);
        } else if (a == 3) {
          alias.if_true = t_.Joined(ab, ae);
        } else if (a == 4) {
          alias.if_false = t_.Joined(ab, ae);
        }
      }
    } else {
      alias.kind = PyAliasKind::kCall;
      alias.target = std::move(callee);
    }
  } else {
    return;
  }
  mod_.aliases.push_back(std::move(alias));
}

// A literal list/tuple of strings for __all__ (appended); anything else
// marks __all__ dynamic, keeping the literal parts.
void ModuleStatements::AllLiteral(size_t b, size_t e) {
  if (b < e && (t_.IsOp(b, "[") || t_.IsOp(b, "(")) && t_.SkipGroup(b) == e) {
    for (auto [ib, ie] : t_.SplitArgs(b + 1, e - 1)) {
      if (ie == ib + 1 && t_[ib].kind == PyTok::kString) mod_.all.emplace_back(StringValue(t_.Text(ib)));
      else mod_.all_dynamic = true;
    }
    return;
  }
  // ["a", "b"] + other.__all__: take the literal head.
  if (b < e && t_.IsOp(b, "[") && t_.SkipGroup(b) < e) AllLiteral(b, t_.SkipGroup(b));
  mod_.all_dynamic = true;
}

// import a.b as c, d  |  from [.]*x import y as z, (p, q) | *
void ReadImport(const PyTokenView& t, size_t b, size_t e, std::string_view package, std::vector<PyImport>* out) {
  const uint32_t line = t[b].line;
  if (t.IsName(b, "import")) {
    for (auto [ib, ie] : t.SplitArgs(b + 1, e)) {
      size_t dotted = t.DottedEnd(ib, ie);
      if (dotted == ib) continue;
      PyImport imp;
      imp.line = line;
      if (dotted + 1 < ie && t.IsName(dotted, "as")) {
        imp.local = std::string(t.Text(dotted + 1));
        imp.target = t.Joined(ib, dotted);
      } else {  // import a.b binds a
        imp.local = std::string(t.Text(ib));
        imp.target = imp.local;
      }
      out->push_back(std::move(imp));
    }
    return;
  }
  // from
  size_t i = b + 1;
  int level = 0;
  while (i < e && (t.IsOp(i, ".") || t.IsOp(i, "..."))) {
    level += static_cast<int>(t.Text(i).size());
    ++i;
  }
  size_t dotted = t.DottedEnd(i, e);
  std::string from = t.Joined(i, dotted);
  if (level > 0) {
    std::string base(package);
    for (int up = 1; up < level; ++up) {
      size_t dot = base.rfind('.');
      base = dot == std::string::npos ? std::string() : base.substr(0, dot);
    }
    from = from.empty() ? base : (base.empty() ? from : base + "." + from);
  }
  i = dotted;
  if (i >= e || !t.IsName(i, "import")) return;
  ++i;
  size_t ne = e;
  if (i < e && t.IsOp(i, "(")) {
    ne = std::min(t.SkipGroup(i) - 1, e);
    ++i;
  }
  for (auto [ib, ie] : t.SplitArgs(i, ne)) {
    PyImport imp;
    imp.line = t[ib].line;
    if (t.IsOp(ib, "*")) {
      imp.local = "*";
      imp.target = from;
    } else if (t[ib].kind == PyTok::kName) {
      std::string_view name = t.Text(ib);
      imp.local = std::string(ie > ib + 2 && t.IsName(ib + 1, "as") ? t.Text(ib + 2) : name);
      imp.target = from.empty() ? std::string(name) : from + "." + std::string(name);
    } else {
      continue;
    }
    out->push_back(std::move(imp));
  }
}

}  // namespace optrace
