// One JSON form of lookup/find.h's answer (see find_json.h). Items are
// added through a Lists helper that counts every item in `totals` and keeps
// the first `limit` of each list, so the bound is applied in one place.
#include "lookup/find_json.h"

#include <string>
#include <utility>

#include "base/pytorch_paths.h"
#include "lookup/op.h"
#include "lookup/py.h"

namespace optrace {
namespace {

using json = nlohmann::ordered_json;

json Loc(const std::string& file, uint32_t line) { return {{"file", file}, {"line", line}}; }

// The enclosing function (qualified) or macro of a call, launch or macro use.
std::string Holder(const CppIndex& cpp, int32_t function, const std::string& macro) {
  if (function >= 0 && static_cast<size_t>(function) < cpp.functions().id_end())
    return cpp.functions()[function].qualified;
  return macro.empty() ? "" : "#define " + macro;
}

// The answer's lists, each bounded by `limit` (0 = all), with every item
// counted in `totals` either way.
class Lists {
 public:
  explicit Lists(size_t limit) : limit_(limit) {
    for (const char* key : kKeys) out_[key] = json::array();
  }
  void Add(const char* key, json item) {
    totals_[key] = totals_.value(key, 0) + 1;
    if (limit_ == 0 || out_[key].size() < limit_) out_[key].push_back(std::move(item));
  }
  json Take(const std::string& symbol) && {
    json j = {{"symbol", symbol}};
    for (const char* key : kKeys) j[key] = std::move(out_[key]);
    j["totals"] = std::move(totals_);
    return j;
  }

 private:
  static constexpr const char* kKeys[] = {"definitions", "stubs",    "registrations", "dispatch",
                                          "ops",         "launches", "macro_uses",    "callers"};
  size_t limit_;
  json out_ = json::object();
  json totals_ = json::object();
};

json DefinitionJson(const CppIndex& cpp, const CppFunction& f) {
  json item = {{"kind", f.form == DefForm::kGlobalKernel ? "__global__" : DefFormName(f.form)},
               {"name", f.qualified.empty() ? f.name : f.qualified}};
  if (!f.overload.empty()) item["overload"] = f.overload;
  item.update(Loc(cpp.file(f.file), f.line));
  if (!f.params.empty()) item["params"] = f.params;
  if (!f.return_type.empty()) item["return_type"] = f.return_type;
  if (f.is_template) item["template"] = true;
  item["body"] = {f.body_begin, f.body_end};
  return item;
}

json LaunchJson(const CppIndex& cpp, const CppLaunch& l, const char* relation) {
  json item = {{"relation", relation},
               {"kind", LaunchKindName(l.kind)},
               {"launcher", l.launcher},
               {"from", Holder(cpp, l.function, l.macro)}};
  if (!l.kernel.empty()) item["kernel"] = l.kernel;
  if (!l.functors.empty()) item["functors"] = l.functors;
  item.update(Loc(cpp.file(l.file), l.line));
  return item;
}

json StubJson(const CppIndex& cpp, const FindAnswer& found) {
  json stub = {{"name", found.name}};
  for (uint32_t i : found.stub_decls) {
    const StubDecl& d = cpp.stub_decls()[i];
    stub[d.kind == StubDeclKind::kDeclare ? "declared" : "defined"] = Loc(cpp.file(d.file), d.line);
    if (d.kind == StubDeclKind::kDeclare) stub["type"] = d.type;
  }
  json regs = json::array();
  for (uint32_t i : found.stub_registrations) {
    const StubRegistration& r = cpp.registrations()[i];
    json item = {{"device", r.device}, {"macro", r.macro}, {"target", r.target}};
    if (!r.arch.empty()) item["arch"] = r.arch;
    item.update(Loc(cpp.file(r.file), r.line));
    regs.push_back(std::move(item));
  }
  stub["registrations"] = std::move(regs);
  return stub;
}

json MacroUseJson(const CppIndex& cpp, const CppMacroUse& u) {
  json item = Loc(cpp.file(u.file), u.line);
  if (u.function >= 0 || !u.within_macro.empty()) {
    item["from"] = Holder(cpp, u.function, u.within_macro);
  } else {  // at file scope the use itself says what it makes: its first argument
    item["file_scope"] = true;
    if (!u.first_arg.empty()) item["first_arg"] = u.first_arg;
  }
  return item;
}

}  // namespace

json FindJson(const Index& index, const FindAnswer& found, size_t limit) {
  const CppIndex& cpp = index.cpp;
  Lists lists(limit);
  for (uint32_t i : found.definitions) lists.Add("definitions", DefinitionJson(cpp, cpp.functions()[i]));
  for (uint32_t i : found.macros) {
    const CppMacro& m = cpp.macros()[i];
    json item = {{"kind", "macro"}, {"name", m.name}};
    item.update(Loc(cpp.file(m.file), m.line));
    item["end_line"] = m.end_line;
    lists.Add("definitions", std::move(item));
  }
  for (const PySymbol& p : found.python) {
    PyLocation l = LocatePython(index.py, p);
    json item = {{"kind", std::string("python ") + PythonKindName(p.kind)}, {"name", index.py.NameOf(p)}};
    item.update(Loc(l.path, l.line ? l.line : 1));
    lists.Add("definitions", std::move(item));
  }
  if (!found.stub_decls.empty()) lists.Add("stubs", StubJson(cpp, found));
  for (uint32_t i : found.registered_as_target) {
    const StubRegistration& r = cpp.registrations()[i];
    json item = {{"kind", "stub"}, {"stub", r.stub}, {"device", r.device}, {"macro", r.macro}};
    item.update(Loc(cpp.file(r.file), r.line));
    lists.Add("registrations", std::move(item));
  }
  for (uint32_t i : found.library_registrations) {
    const LibraryRegistration& r = cpp.library_registrations()[i];
    json item = {{"kind", r.block}, {"key", r.key}, {"op", r.op}, {"function", r.function}};
    item.update(Loc(cpp.file(r.file), r.line));
    lists.Add("registrations", std::move(item));
  }
  for (const auto& [f, key] : found.dispatch)
    lists.Add("dispatch", {{"op", f->name}, {"key", key}, {"file", kNativeFunctionsPath}, {"line", f->line}});
  for (const NativeFunction* f : found.ops)
    lists.Add("ops",
              {{"name", f->name}, {"func", OpSchemaText(*f)}, {"file", kNativeFunctionsPath}, {"line", f->line}});
  for (uint32_t i : found.launches_of) lists.Add("launches", LaunchJson(cpp, cpp.launches()[i], "of"));
  for (uint32_t i : found.launches_in) lists.Add("launches", LaunchJson(cpp, cpp.launches()[i], "in"));
  for (uint32_t i : found.macro_launches) lists.Add("launches", LaunchJson(cpp, cpp.launches()[i], "in macro"));
  for (uint32_t i : found.macro_uses) lists.Add("macro_uses", MacroUseJson(cpp, cpp.macro_uses()[i]));
  for (uint32_t i : found.callers) {
    const CppCall& c = cpp.calls()[i];
    json item = {{"from", Holder(cpp, c.function, c.macro)}, {"call", c.qualifier + c.callee}};
    item.update(Loc(cpp.file(c.file), c.line));
    lists.Add("callers", std::move(item));
  }
  json out = std::move(lists).Take(found.query);
  if (!found.found()) out["suggestions"] = found.suggestions;
  return out;
}

}  // namespace optrace
