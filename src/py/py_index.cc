// PyIndex: every module of torch/ scanned (in parallel, kept in sorted path
// order so results do not depend on thread timing) plus lookup tables that
// answer "what does this dotted name mean" the way Python's import system
// would: attribute lookup walks module by module from the top package,
// seeing each module's own bindings (defs, classes, aliases, imports), then
// what its star imports export (honouring __all__), then its submodules.
#include <algorithm>
#include <atomic>
#include <ostream>
#include <thread>

#include "py/py_index.h"

#include "base/cores.h"

namespace optrace {
namespace {

constexpr int kMaxDepth = 24;  // import chains and base-class walks; guards cycles

std::string_view FirstComponent(std::string_view dotted) { return dotted.substr(0, dotted.find('.')); }

// "a.b.c" -> {"a", "b", "c"}; components with call/subscript text stay whole.
std::vector<std::string_view> Components(std::string_view dotted) {
  std::vector<std::string_view> out;
  size_t start = 0;
  for (size_t i = 0; i <= dotted.size(); ++i) {
    if (i == dotted.size() || dotted[i] == '.') {
      out.push_back(dotted.substr(start, i - start));
      start = i + 1;
    }
  }
  return out;
}

}  // namespace

PyIndex PyIndex::Build(const Disk& disk, unsigned threads) {
  PyIndex index;
  std::vector<std::string> files;
  disk.ListFiles(
      "torch", [](std::string_view p) { return p.size() > 3 && p.substr(p.size() - 3) == ".py"; }, &files,
      &index.skipped_);
  std::vector<PyModule> scanned(files.size());
  std::atomic<size_t> next{0};
  auto work = [&] {
    std::string text;
    for (size_t i; (i = next.fetch_add(1)) < files.size();) {
      const std::string& path = files[i];
      Status st = disk.ReadFile(path, &text);
      if (!st.ok()) {
        scanned[i].name = ModuleNameForPath(path);
        scanned[i].path = path;
        scanned[i].error = st.message();
        continue;
      }
      scanned[i] = ScanPyFile(ModuleNameForPath(path), path, text);
    }
  };
  if (threads == 0) threads = UsableCores();
  threads = std::min<unsigned>(threads, std::max<size_t>(1, files.size()));
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t) pool.emplace_back(work);
  work();
  for (auto& t : pool) t.join();
  index.modules_.reserve(scanned.size());
  for (auto& m : scanned) index.AddModule(std::move(m));
  index.Finish();
  return index;
}

void PyIndex::AddModule(PyModule module) { modules_.push_back(std::move(module)); }

void PyIndex::Finish() {
  by_name_.clear();
  decorated_.clear();
  names_.assign(modules_.size(), {});
  star_imports_.assign(modules_.size(), {});
  for (uint32_t m = 0; m < modules_.size(); ++m) {
    const PyModule& mod = modules_[m];
    // torch/x.py and torch/x/__init__.py: the package wins, as in Python.
    auto [it, inserted] = by_name_.emplace(mod.name, m);
    if (!inserted && mod.is_package && !modules_[it->second].is_package) it->second = m;
    IndexModule(m);
  }
}

void PyIndex::IndexModule(uint32_t m) {
  const PyModule& mod = modules_[m];
  // Top-level bindings; the latest line wins (a later def replaces an import).
  auto& names = names_[m];
  std::unordered_map<std::string_view, uint32_t> line_of;
  auto bind = [&](std::string_view name, PySymbol sym, uint32_t line) {
    auto [lit, fresh] = line_of.emplace(name, line);
    if (!fresh && lit->second > line) return;
    lit->second = line;
    names[name] = sym;
  };
  for (uint32_t i = 0; i < mod.imports.size(); ++i) {
    const PyImport& imp = mod.imports[i];
    if (imp.local == "*") star_imports_[m].push_back(imp.target);
    else bind(imp.local, {PySymbol::kImport, m, i}, imp.line);
  }
  for (uint32_t i = 0; i < mod.classes.size(); ++i)
    if (mod.classes[i].qualname == mod.classes[i].name)
      bind(mod.classes[i].name, {PySymbol::kClass, m, i}, mod.classes[i].line);
  for (uint32_t i = 0; i < mod.functions.size(); ++i) {
    const PyFunction& fn = mod.functions[i];
    if (!fn.is_method && fn.qualname == fn.name) bind(fn.name, {PySymbol::kFunction, m, i}, fn.line);
    for (const PyDecorator& d : fn.decorators) {
      std::string_view last = d.name;
      size_t dot = last.rfind('.');
      if (dot != std::string_view::npos) last.remove_prefix(dot + 1);
      decorated_.emplace(std::string(last), std::make_pair(m, i));
    }
  }
  for (uint32_t i = 0; i < mod.aliases.size(); ++i)
    if (mod.aliases[i].class_index < 0) bind(mod.aliases[i].name, {PySymbol::kAlias, m, i}, mod.aliases[i].line);
}

bool PyIndex::CanReplace(uint32_t m, const PyModule& module) const {
  return m < modules_.size() && module.name == modules_[m].name && module.path == modules_[m].path &&
         module.is_package == modules_[m].is_package;
}

bool PyIndex::ReplaceModule(uint32_t m, PyModule module) {
  if (!CanReplace(m, module)) return false;
  for (auto it = decorated_.begin(); it != decorated_.end();)
    it = it->second.first == m ? decorated_.erase(it) : std::next(it);
  // names_ views the module's strings: cleared before they go.
  names_[m].clear();
  star_imports_[m].clear();
  modules_[m] = std::move(module);
  IndexModule(m);
  return true;
}

const PyModule* PyIndex::FindModule(std::string_view dotted) const {
  auto it = by_name_.find(std::string(dotted));
  return it == by_name_.end() ? nullptr : &modules_[it->second];
}

bool PyIndex::Exports(uint32_t module, std::string_view name) const {
  const PyModule& mod = modules_[module];
  if (std::find(mod.all.begin(), mod.all.end(), name) != mod.all.end()) return true;
  // Without a literal __all__, star imports take every public name; with a
  // partly computed one, the public names are the best reading available.
  if (!mod.all.empty() && !mod.all_dynamic) return false;
  return !name.empty() && name[0] != '_';
}

PySymbol PyIndex::Follow(const PySymbol& symbol, int depth) const {
  if (depth > kMaxDepth) return symbol;
  const PyModule& mod = modules_[symbol.module];
  if (symbol.kind == PySymbol::kImport) {
    PySymbol target = ResolveAbsolute(mod.imports[symbol.index].target, depth + 1);
    return target.kind == PySymbol::kNone ? symbol : target;
  }
  return symbol;
}

PySymbol PyIndex::ModuleMember(uint32_t module, std::string_view name, int depth) const {
  if (depth > kMaxDepth) return {};
  // A lookup already in progress for the same (module, name) is a cycle:
  // star imports of each other, or a package importing its own submodule
  // by its absolute name. Cutting it keeps resolution linear.
  thread_local std::vector<std::pair<uint32_t, std::string_view>> active;
  for (const auto& [m, n] : active)
    if (m == module && n == name) return {};
  active.emplace_back(module, name);
  struct Pop {
    ~Pop() { active.pop_back(); }
  } pop;
  const auto& names = names_[module];
  auto it = names.find(name);
  std::string sub = modules_[module].name + "." + std::string(name);
  if (it != names.end()) {
    PySymbol sym = Follow(it->second, depth + 1);
    // An import the index cannot follow loses to a real submodule of that name.
    if (sym.kind != PySymbol::kImport || !by_name_.count(sub)) return sym;
  }
  // Star imports, the latest first (a later one rebinds the name).
  const auto& stars = star_imports_[module];
  for (auto s = stars.rbegin(); s != stars.rend(); ++s) {
    auto target = by_name_.find(std::string(*s));
    if (target == by_name_.end() || target->second == module || !Exports(target->second, name)) continue;
    PySymbol sym = ModuleMember(target->second, name, depth + 1);
    if (sym.kind != PySymbol::kNone) return sym;
  }
  auto submodule = by_name_.find(sub);
  if (submodule != by_name_.end()) return {PySymbol::kModule, submodule->second, 0};
  if (it != names.end()) return Follow(it->second, depth + 1);
  return {};
}

PySymbol PyIndex::Member(const PySymbol& owner, std::string_view name, int depth) const {
  if (depth > kMaxDepth) return {};
  switch (owner.kind) {
    case PySymbol::kModule:
      return ModuleMember(owner.module, name, depth);
    case PySymbol::kClass: {
      const PyModule& mod = modules_[owner.module];
      const PyClass& cls = mod.classes[owner.index];
      std::string nested = cls.qualname + "." + std::string(name);
      PySymbol inner;
      for (uint32_t i = 0; i < mod.classes.size(); ++i)
        if (mod.classes[i].qualname == nested) inner = {PySymbol::kClass, owner.module, i};
      if (inner.kind != PySymbol::kNone) return inner;
      std::vector<std::pair<uint32_t, uint32_t>> seen;
      auto found = FindMethodDepth(owner.module, owner.index, name, depth + 1, &seen);
      return found ? *found : PySymbol{};
    }
    case PySymbol::kAlias: {
      const PyAlias& alias = modules_[owner.module].aliases[owner.index];
      if (alias.kind != PyAliasKind::kAssign) return {};
      PySymbol target = ResolveIn(owner.module, alias.target);
      if (target.kind == PySymbol::kNone || depth > kMaxDepth) return {};
      return Member(target, name, depth + 1);
    }
    default:
      return {};
  }
}

PySymbol PyIndex::ResolveAbsolute(std::string_view dotted, int depth) const {
  if (depth > kMaxDepth || dotted.empty()) return {};
  std::vector<std::string_view> parts = Components(dotted);
  auto root = by_name_.find(std::string(parts[0]));
  if (root == by_name_.end()) return {};
  PySymbol sym{PySymbol::kModule, root->second, 0};
  for (size_t i = 1; i < parts.size(); ++i) {
    sym = Member(sym, parts[i], depth + 1);
    if (sym.kind == PySymbol::kNone) return sym;
    if (sym.kind == PySymbol::kImport && i + 1 < parts.size()) return {};
  }
  return sym;
}

PySymbol PyIndex::Resolve(std::string_view dotted) const { return ResolveAbsolute(dotted, 0); }

PySymbol PyIndex::ResolveIn(uint32_t module, std::string_view expr, int32_t function) const {
  if (module >= modules_.size() || expr.empty()) return {};
  const PyModule& mod = modules_[module];
  std::string_view first = FirstComponent(expr);
  std::string_view rest = expr.size() > first.size() ? expr.substr(first.size() + 1) : std::string_view();
  auto finish = [&](PySymbol sym) {
    for (std::string_view part : rest.empty() ? std::vector<std::string_view>() : Components(rest)) {
      if (sym.kind == PySymbol::kNone || sym.kind == PySymbol::kImport) return PySymbol{};
      sym = Member(sym, part, 1);
    }
    return sym;
  };
  // Lazy imports inside the function and the functions enclosing it.
  if (function >= 0 && static_cast<size_t>(function) < mod.functions.size()) {
    std::string_view qual = mod.functions[function].qualname;
    while (!qual.empty()) {
      for (const PyFunction& fn : mod.functions) {
        if (fn.qualname != qual) continue;
        for (auto imp = fn.imports.rbegin(); imp != fn.imports.rend(); ++imp) {
          if (imp->local != first) continue;
          PySymbol target = ResolveAbsolute(imp->target, 1);
          if (target.kind != PySymbol::kNone) return finish(target);
        }
      }
      size_t dot = qual.rfind('.');
      qual = dot == std::string_view::npos ? std::string_view() : qual.substr(0, dot);
    }
  }
  PySymbol own = ModuleMember(module, first, 0);
  // A submodule is not a name inside the module unless imported; ModuleMember
  // allows it (attribute view), which code inside the package also sees
  // after any import of it.
  if (own.kind != PySymbol::kNone) return finish(own);
  return ResolveAbsolute(expr, 0);
}

std::optional<PySymbol> PyIndex::FindMethod(uint32_t module, uint32_t class_index, std::string_view method) const {
  std::vector<std::pair<uint32_t, uint32_t>> seen;
  return FindMethodDepth(module, class_index, method, 0, &seen);
}

std::optional<PySymbol> PyIndex::FindMethodDepth(uint32_t module, uint32_t class_index, std::string_view method,
                                                 int depth, std::vector<std::pair<uint32_t, uint32_t>>* seen) const {
  if (depth > kMaxDepth || module >= modules_.size() || class_index >= modules_[module].classes.size())
    return std::nullopt;
  const std::pair<uint32_t, uint32_t> self{module, class_index};
  if (std::find(seen->begin(), seen->end(), self) != seen->end()) return std::nullopt;
  seen->push_back(self);
  const PyModule& mod = modules_[module];
  const PyClass& cls = mod.classes[class_index];
  // The class body's latest binding of the name wins: typing.overload stubs
  // come before the real def, and an attribute may rebind a method.
  std::optional<PySymbol> own;
  uint32_t own_line = 0;
  for (uint32_t f : cls.methods)
    if (mod.functions[f].name == method && mod.functions[f].line >= own_line) {
      own = PySymbol{PySymbol::kFunction, module, f};
      own_line = mod.functions[f].line;
    }
  for (uint32_t a = 0; a < mod.aliases.size(); ++a)
    if (mod.aliases[a].class_index == static_cast<int32_t>(class_index) && mod.aliases[a].name == method &&
        mod.aliases[a].line >= own_line) {
      own = PySymbol{PySymbol::kAlias, module, a};
      own_line = mod.aliases[a].line;
    }
  if (own) return own;
  for (size_t b = 0; b < cls.bases.size(); ++b) {
    PySymbol base;
    if (!cls.resolved_bases[b].empty()) base = ResolveAbsolute(cls.resolved_bases[b], depth + 1);
    if (base.kind == PySymbol::kNone) {
      std::string_view written = cls.bases[b];
      written = written.substr(0, written.find('['));  // Generic[T] -> Generic
      base = ResolveIn(module, written);
    }
    if (base.kind != PySymbol::kClass) continue;
    auto found = FindMethodDepth(base.module, base.index, method, depth + 1, seen);
    if (found) return found;
  }
  return std::nullopt;
}

std::vector<std::pair<uint32_t, uint32_t>> PyIndex::DecoratedWith(std::string_view decorator_name) const {
  std::string_view last = decorator_name;
  size_t dot = last.rfind('.');
  if (dot != std::string_view::npos) last.remove_prefix(dot + 1);
  std::vector<std::pair<uint32_t, uint32_t>> out;
  auto [b, e] = decorated_.equal_range(std::string(last));
  for (auto it = b; it != e; ++it) {
    const PyFunction& fn = modules_[it->second.first].functions[it->second.second];
    for (const PyDecorator& d : fn.decorators) {
      std::string_view name = d.name;
      bool ends = name.size() >= decorator_name.size() &&
                  name.substr(name.size() - decorator_name.size()) == decorator_name &&
                  (name.size() == decorator_name.size() || name[name.size() - decorator_name.size() - 1] == '.');
      if (ends) {
        out.push_back(it->second);
        break;
      }
    }
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::string PyIndex::NameOf(const PySymbol& symbol) const {
  if (symbol.kind == PySymbol::kNone || symbol.module >= modules_.size()) return {};
  const PyModule& mod = modules_[symbol.module];
  auto qualified = [&](const std::string& q) { return mod.name.empty() ? q : mod.name + "." + q; };
  switch (symbol.kind) {
    case PySymbol::kModule:
      return mod.name;
    case PySymbol::kClass:
      return qualified(mod.classes[symbol.index].qualname);
    case PySymbol::kFunction:
      return qualified(mod.functions[symbol.index].qualname);
    case PySymbol::kAlias: {
      const PyAlias& a = mod.aliases[symbol.index];
      return a.class_index >= 0 ? qualified(mod.classes[a.class_index].qualname + "." + a.name) : qualified(a.name);
    }
    case PySymbol::kImport:
      return qualified(mod.imports[symbol.index].local);
    default:
      return {};
  }
}

std::vector<std::string> PyIndex::NamesIn(uint32_t module) const {
  std::vector<std::string> out;
  if (module >= modules_.size()) return out;
  for (const auto& [name, sym] : names_[module]) out.emplace_back(name);
  for (std::string_view star : star_imports_[module]) {
    auto t = by_name_.find(std::string(star));
    if (t == by_name_.end() || t->second == module) continue;
    for (const auto& [name, sym] : names_[t->second])
      if (Exports(t->second, name)) out.emplace_back(name);
  }
  std::string prefix = modules_[module].name + ".";
  for (const auto& [name, m] : by_name_)
    if (name.size() > prefix.size() && name.compare(0, prefix.size(), prefix) == 0 &&
        name.find('.', prefix.size()) == std::string::npos)
      out.push_back(name.substr(prefix.size()));
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

void PrintPyIndexCounts(const PyIndex& index, std::ostream& out) {
  size_t classes = 0, functions = 0, aliases = 0, calls = 0, operators = 0, decorated = 0, errors = 0;
  for (const PyModule& m : index.modules()) {
    classes += m.classes.size();
    functions += m.functions.size();
    aliases += m.aliases.size();
    if (!m.error.empty()) ++errors;
    for (const PyFunction& f : m.functions) {
      if (!f.decorators.empty()) ++decorated;
      for (const PyCall& c : f.calls) (c.kind == PyCallKind::kOperator ? operators : calls) += 1;
    }
  }
  out << "python modules:    " << index.modules().size() << "\n"
      << "python classes:    " << classes << "\n"
      << "python functions:  " << functions << "\n"
      << "python aliases:    " << aliases << "\n"
      << "python calls:      " << calls << " (+" << operators << " operators)\n"
      << "python decorated:  " << decorated << "\n"
      << "python errors:     " << errors << " files\n";
}

}  // namespace optrace
