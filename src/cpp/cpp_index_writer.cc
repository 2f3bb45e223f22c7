// CppIndexWriter (see cpp_index_writer.h): merging keeps every record
// vector grouped by file in file order, which RecordsOf relies on; Finish
// sets records aside rather than erasing them, so nothing it does is
// irreversible.
#include "cpp/cpp_index_writer.h"

#include <algorithm>
#include <string_view>
#include <unordered_set>

namespace optrace {

namespace {

// Moves the records of `kept` that fail `keep` to `set_aside`, each with its
// index among its file's records (`kept` is grouped by file).
template <typename T, typename Keep>
void SetAside(std::vector<T>& kept, std::vector<std::pair<uint32_t, T>>& set_aside, Keep keep) {
  // Sized first: in a store arena a regrown buffer stays in the image as dead bytes.
  set_aside.reserve(set_aside.size() + std::count_if(kept.begin(), kept.end(), [&](const T& r) { return !keep(r); }));
  size_t out = 0;
  uint32_t file = 0, position = 0;
  for (size_t i = 0; i < kept.size(); ++i) {
    position = i > 0 && kept[i].file == file ? position + 1 : 0;
    file = kept[i].file;
    if (keep(kept[i])) {
      if (out != i) kept[out] = std::move(kept[i]);
      ++out;
    } else {
      set_aside.emplace_back(position, std::move(kept[i]));
    }
  }
  kept.resize(out);
}

}  // namespace

void CppIndexWriter::Reserve(const CppRecordCounts& total) {
  t_.files.reserve(total.files);
  t_.string_constants.reserve(total.files);
  t_.enum_members.reserve(total.files);
  t_.functions.reserve(total.functions);
  t_.stub_decls.reserve(total.stub_decls);
  t_.registrations.reserve(total.registrations);
  t_.launches.reserve(total.launches);
  t_.calls.reserve(total.calls);
  t_.macros.reserve(total.macros);
  t_.macro_uses.reserve(total.macro_uses);
  t_.library_registrations.reserve(total.library_registrations);
  t_.dtype_dispatches.reserve(total.dtype_dispatches);
  t_.stub_refs.reserve(total.stub_refs);
}

void CppIndexWriter::AddFile(std::string path, CppFileRecords&& records) {
  Append(static_cast<uint32_t>(t_.files.size()), std::move(path), records);
}
void CppIndexWriter::AddFile(std::string path, const CppFileRecords& records) {
  Append(static_cast<uint32_t>(t_.files.size()), std::move(path), records);
}

// `Records` is CppFileRecords (its strings are moved) or const CppFileRecords
// (std::move of a const record copies it).
// `file` is the next id (AddFile) or, in a layer, the file's id in the base
// (t_.files is then sized like the base's).
template <typename Records>
void CppIndexWriter::Append(uint32_t file, std::string path, Records& records) {
  const int32_t fn_base = static_cast<int32_t>(t_.function_base + t_.functions.size());
  const bool next = file == t_.files.size();
  if (next) t_.files.push_back(std::move(path));
  else t_.files[file] = std::move(path);
  auto fn = [&](int32_t local) { return local < 0 ? -1 : local + fn_base; };
  for (auto& f : records.functions) t_.functions.emplace_back(std::move(f)).file = file;
  for (auto& d : records.stub_decls) t_.stub_decls.emplace_back(std::move(d)).file = file;
  for (auto& r : records.registrations) t_.registrations.emplace_back(std::move(r)).file = file;
  for (auto& l : records.launches) {
    CppLaunch& to = t_.launches.emplace_back(std::move(l));
    to.file = file;
    to.function = fn(to.function);
  }
  for (auto& c : records.calls) {
    CppCall& to = t_.calls.emplace_back(std::move(c));
    to.file = file;
    to.function = fn(to.function);
  }
  for (auto& m : records.macros) t_.macros.emplace_back(std::move(m)).file = file;
  for (auto& u : records.macro_uses) {
    CppMacroUse& to = t_.macro_uses.emplace_back(std::move(u));
    to.file = file;
    to.function = fn(to.function);
  }
  for (auto& r : records.library_registrations) t_.library_registrations.emplace_back(std::move(r)).file = file;
  for (auto& d : records.dtype_dispatches) {
    DtypeDispatch& to = t_.dtype_dispatches.emplace_back(std::move(d));
    to.file = file;
    to.function = fn(to.function);
  }
  const size_t first_ref = t_.stub_refs.size();
  for (auto& r : records.stub_refs) t_.stub_refs.emplace_back(std::move(r)).file = file;
  // StubReferencesIn binary-searches (file, line); ScanCppFile's are in line
  // order already (so RecordsOf gives them back as scanned), hand-made ones may not be.
  std::stable_sort(t_.stub_refs.begin() + first_ref, t_.stub_refs.end(),
                   [](const CppStubRef& a, const CppStubRef& b) { return a.line < b.line; });
  if (next) t_.string_constants.push_back(std::move(records.string_constants));
  else t_.string_constants[file] = std::move(records.string_constants);
  if (next) t_.enum_members.push_back(std::move(records.enum_members));
  else t_.enum_members[file] = std::move(records.enum_members);
}

void CppIndexWriter::BeginLayer(const CppIndex& whole) {
  const CppTables& base = whole.t_;
  t_.files.assign(base.files.size(), std::string());
  t_.string_constants.assign(base.files.size(), {});
  t_.enum_members.assign(base.files.size(), {});
  t_.replaces.assign(base.files.size(), 0);
  t_.function_base = static_cast<uint32_t>(base.functions.size());
}

void CppIndexWriter::AddLayerFile(uint32_t id, std::string path, const CppFileRecords& records) {
  t_.replaces[id] = 1;
  Append(id, std::move(path), records);
}

void CppIndexWriter::FinishOver(const CppTables* base) {
  auto fill = [](auto& map, size_t n, auto key) {
    map.clear();
    map.reserve(n);
    for (uint32_t i = 0; i < n; ++i) key(map, i);
  };
  // Macro uses: ScanCppFile keeps uses of same-file macros and of any
  // ALL_CAPS name; keep only those naming a function-like macro we indexed.
  // The others are set aside, not erased: RecordsOf gives them back.
  // A layer's files may use macros and stubs of its base: the base's lists
  // count (they equal the whole edited tree's: see SameCrossFileFacts).
  std::unordered_set<std::string_view> function_macros;
  for (const CppTables* tables : {base, static_cast<const CppTables*>(&t_)})
    if (tables)
      for (const CppMacro& m : tables->macros)
        if (m.function_like) function_macros.insert(m.name);
  SetAside(t_.macro_uses, t_.set_aside_macro_uses,
           [&](const CppMacroUse& u) { return function_macros.count(u.macro) > 0; });
  // Stub references: ScanCppFile keeps every uncalled name ending in _stub; keep
  // only those naming a DECLARE_DISPATCH / DEFINE_DISPATCH stub.
  std::unordered_set<std::string_view> stubs;
  for (const CppTables* tables : {base, static_cast<const CppTables*>(&t_)})
    if (tables)
      for (const StubDecl& d : tables->stub_decls) stubs.insert(d.stub);
  SetAside(t_.stub_refs, t_.set_aside_stub_refs, [&](const CppStubRef& r) { return stubs.count(r.stub) > 0; });
  // Jiterator names defined in another file (a header): StringConstant
  // answers only when the index holds a single value for the constant.
  for (CppLaunch& l : t_.launches) {
    if (!l.kernel.empty() || l.kernel_name_ref.empty()) continue;
    // Finishing a layer, the constants are the base's with the layer's files replaced.
    const std::string* value = base ? FindStringConstant(*base, &t_, l.file, l.kernel_name_ref)
                                    : FindStringConstant(t_, nullptr, l.file, l.kernel_name_ref);
    if (value) {
      l.kernel = *value;
      l.kernel_from_index = true;
    }
  }
  fill(t_.functions_by_name, t_.functions.size(), [&](auto& m, uint32_t i) { m.emplace(t_.functions[i].name, i); });
  fill(t_.stub_decls_by_name, t_.stub_decls.size(), [&](auto& m, uint32_t i) { m.emplace(t_.stub_decls[i].stub, i); });
  fill(t_.registrations_by_stub, t_.registrations.size(), [&](auto& m, uint32_t i) {
    // Under the stub's declared name: find and every lookup by name see
    // REGISTER_DISPATCH(cpublas::gemm_stub, ...) as gemm_stub's.
    const std::string& stub = t_.registrations[i].stub;
    size_t colons = stub.rfind("::");
    m.emplace(colons == std::string::npos ? stub : stub.substr(colons + 2), i);
  });
  t_.launches_by_kernel.clear();
  t_.launches_by_macro.clear();
  t_.launches_by_function.clear();
  for (uint32_t i = 0; i < t_.launches.size(); ++i) {
    const CppLaunch& l = t_.launches[i];
    if (l.kind == LaunchKind::kTripleChevron && !l.kernel.empty()) t_.launches_by_kernel.emplace(l.kernel, i);
    if (!l.macro.empty()) t_.launches_by_macro.emplace(l.macro, i);
    if (l.function >= 0) t_.launches_by_function.emplace(static_cast<uint32_t>(l.function), i);
  }
  t_.calls_by_callee.clear();
  t_.calls_by_macro.clear();
  t_.calls_by_function.clear();
  t_.calls_by_callee.reserve(t_.calls.size());
  for (uint32_t i = 0; i < t_.calls.size(); ++i) {
    const CppCall& c = t_.calls[i];
    t_.calls_by_callee.emplace(c.callee, i);
    if (!c.macro.empty()) t_.calls_by_macro.emplace(c.macro, i);
    if (c.function >= 0) t_.calls_by_function.emplace(static_cast<uint32_t>(c.function), i);
  }
  fill(t_.macros_by_name, t_.macros.size(), [&](auto& m, uint32_t i) { m.emplace(t_.macros[i].name, i); });
  t_.macro_uses_by_function.clear();
  for (uint32_t i = 0; i < t_.macro_uses.size(); ++i)
    if (t_.macro_uses[i].function >= 0) t_.macro_uses_by_function.emplace(t_.macro_uses[i].function, i);
  fill(t_.macro_uses_by_macro, t_.macro_uses.size(),
       [&](auto& m, uint32_t i) { m.emplace(t_.macro_uses[i].macro, i); });
  t_.dtype_by_function.clear();
  for (uint32_t i = 0; i < t_.dtype_dispatches.size(); ++i)
    if (t_.dtype_dispatches[i].function >= 0) t_.dtype_by_function.emplace(t_.dtype_dispatches[i].function, i);
  t_.library_regs_by_function.clear();
  for (uint32_t i = 0; i < t_.library_registrations.size(); ++i)
    if (!t_.library_registrations[i].function.empty())
      t_.library_regs_by_function.emplace(t_.library_registrations[i].function, i);
  t_.functions_by_file.assign(t_.files.size(), {});
  for (uint32_t i = 0; i < t_.functions.size(); ++i) t_.functions_by_file[t_.functions[i].file].push_back(i);
  for (auto& v : t_.functions_by_file) {
    std::stable_sort(v.begin(), v.end(),
                     [&](uint32_t a, uint32_t b) { return t_.functions[a].body_begin < t_.functions[b].body_begin; });
  }
}

}  // namespace optrace
