// CppIndex: the lookups the tracer asks of the C++ index, answered through
// hash tables CppIndexWriter::Finish built once, and through the layer when
// one is on (a replaced file's records come from the layer, ids past the
// base's). Build scans files on std::thread workers (an atomic counter hands
// out files) and merges the results in file order, so the index is the same
// whatever the thread count.
#include "cpp/cpp_index.h"

#include <algorithm>
#include <atomic>
#include <ostream>
#include <thread>

#include "base/cores.h"
#include "base/text.h"
#include "cpp/cpp_index_writer.h"

namespace optrace {

const char* DefFormName(DefForm form) {
  switch (form) {
    case DefForm::kFunction:
      return "function";
    case DefForm::kImplFunc:
      return "TORCH_IMPL_FUNC";
    case DefForm::kMetaFunc:
      return "TORCH_META_FUNC";
    case DefForm::kPrecomputeMetaFunc:
      return "TORCH_PRECOMPUTE_META_FUNC";
    case DefForm::kGlobalKernel:
      return "__global__";
  }
  return "?";
}

const char* LaunchKindName(LaunchKind kind) {
  switch (kind) {
    case LaunchKind::kTripleChevron:
      return "<<<>>>";
    case LaunchKind::kTensorIterator:
      return "gpu_kernel";
    case LaunchKind::kReduce:
      return "gpu_reduce_kernel";
    case LaunchKind::kJiterator:
      return "jiterator";
    case LaunchKind::kLaunchHelper:
      return "launch";
  }
  return "?";
}

namespace {

bool IsCppSource(std::string_view path) {
  return EndsWith(path, ".cpp") || EndsWith(path, ".cc") || EndsWith(path, ".cu") || EndsWith(path, ".cuh") ||
         EndsWith(path, ".h") || EndsWith(path, ".hpp");
}

template <typename Map>
std::vector<uint32_t> Lookup(const Map& map, const typename Map::key_type& key) {
  std::vector<uint32_t> out;
  auto [b, e] = map.equal_range(key);
  for (auto it = b; it != e; ++it) out.push_back(it->second);
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<uint32_t> LookupName(const std::unordered_multimap<std::string, uint32_t>& map, std::string_view key) {
  return Lookup(map, std::string(key));
}

// References to declared stubs on lines [first_line, last_line] of `file` in `t`.
std::vector<uint32_t> StubRefsIn(const CppTables& t, uint32_t file, uint32_t first_line, uint32_t last_line) {
  auto before = [](const CppStubRef& r, std::pair<uint32_t, uint32_t> at) {
    return r.file < at.first || (r.file == at.first && r.line < at.second);
  };
  std::vector<uint32_t> out;
  auto it = std::lower_bound(t.stub_refs.begin(), t.stub_refs.end(), std::pair{file, first_line}, before);
  for (; it != t.stub_refs.end() && it->file == file && it->line <= last_line; ++it)
    out.push_back(static_cast<uint32_t>(it - t.stub_refs.begin()));
  return out;
}

// The function of `t` whose body holds (file, line), or -1.
int32_t FunctionIn(const CppTables& t, uint32_t file, uint32_t line) {
  if (file >= t.functions_by_file.size()) return -1;
  int32_t best = -1;
  for (uint32_t i : t.functions_by_file[file]) {
    const CppFunction& f = t.functions[i];
    if (f.body_begin > line) break;
    if (f.WrittenByMacroUse()) continue;  // its lines are the #define's, shared by every use
    // The innermost body wins (a later-starting body nested in an earlier one).
    if (line <= f.body_end) best = static_cast<int32_t>(i);
  }
  return best;
}

}  // namespace

bool InCppScope(std::string_view path) {
  constexpr std::string_view kAten = "aten/src/ATen/";
  constexpr std::string_view kAutograd = "torch/csrc/autograd/";
  if (path.substr(0, kAten.size()) == kAten) return IsCppSource(path);
  if (path == "torch/csrc/autograd/FunctionsManual.cpp") return true;
  if (path.substr(0, kAutograd.size()) == kAutograd) {
    std::string_view rest = path.substr(kAutograd.size());
    return rest.find('/') == std::string_view::npos && EndsWith(rest, ".h");
  }
  return false;
}

CppIndex CppIndex::Build(const Disk& disk, unsigned threads) {
  std::vector<std::string> paths;
  std::vector<SkippedPath> listing_skipped;
  for (const char* dir : {"aten/src/ATen", "torch/csrc/autograd"})
    disk.ListFiles(
        dir, [](std::string_view p) { return InCppScope(p); }, &paths, &listing_skipped);
  std::sort(paths.begin(), paths.end());
  paths.erase(std::unique(paths.begin(), paths.end()), paths.end());

  struct Result {
    CppFileRecords records;
    std::string skip_reason;  // non-empty: not indexed
  };
  std::vector<Result> results(paths.size());
  std::atomic<size_t> next{0};
  auto worker = [&] {
    std::string text;
    for (size_t i; (i = next.fetch_add(1)) < paths.size();) {
      Status st = disk.ReadFile(paths[i], &text);
      if (!st.ok()) {
        results[i].skip_reason = "unreadable: " + st.message();
      } else if (LooksBinary(text)) {
        results[i].skip_reason = "binary";
      } else {
        results[i].records = ScanCppFile(paths[i], text);
      }
    }
  };
  if (threads == 0) threads = UsableCores();
  threads = static_cast<unsigned>(std::min<size_t>(threads, std::max<size_t>(1, paths.size())));
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();

  CppIndex index;
  CppIndexWriter writer(&index);
  CppRecordCounts total;
  for (const Result& r : results)
    if (r.skip_reason.empty()) total.Add(r.records);
  writer.Reserve(total);
  for (const SkippedPath& s : listing_skipped) writer.AddSkipped(s.path, s.reason);
  for (size_t i = 0; i < paths.size(); ++i) {
    if (!results[i].skip_reason.empty()) {
      writer.AddSkipped(paths[i], results[i].skip_reason);
    } else {
      writer.AddFile(paths[i], std::move(results[i].records));
    }
  }
  writer.Finish();
  return index;
}

template <typename T, typename Find>
std::vector<uint32_t> CppIndex::Across(std::vector<T> CppTables::*records, Find find) const {
  std::vector<uint32_t> ids = find(own());
  const CppTables* layer = layer_tables();
  if (!layer) return ids;
  const std::vector<T>& mine = own().*records;
  const std::vector<T>& theirs = layer->*records;
  std::erase_if(ids, [&](uint32_t id) { return layer->replaces[mine[id].file]; });
  std::vector<uint32_t> layered = find(*layer);
  if (layered.empty()) return ids;
  // Each file's records come from one side only, so ordering by file keeps
  // every file's own order.
  std::vector<std::pair<uint32_t, uint32_t>> keyed;
  keyed.reserve(ids.size() + layered.size());
  for (uint32_t id : ids) keyed.emplace_back(mine[id].file, id);
  for (uint32_t id : layered) keyed.emplace_back(theirs[id].file, static_cast<uint32_t>(mine.size() + id));
  std::sort(keyed.begin(), keyed.end());
  ids.clear();
  for (const auto& k : keyed) ids.push_back(k.second);
  return ids;
}

template <typename T>
std::vector<uint32_t> CppIndex::ByFunction(std::vector<T> CppTables::*records, CppTables::IdTable CppTables::*table,
                                           uint32_t function) const {
  const CppTables* layer = layer_tables();
  if (!layer || function < own().functions.size()) return Lookup(own().*table, function);
  // The layer's tables are keyed by the same (base-numbered) function ids.
  std::vector<uint32_t> ids = Lookup(layer->*table, function);
  for (uint32_t& id : ids) id += static_cast<uint32_t>((own().*records).size());
  return ids;
}

template <typename T>
std::vector<uint32_t> CppIndex::ByName(std::vector<T> CppTables::*records, CppTables::NameTable CppTables::*table,
                                       std::string_view key) const {
  return Across(records, [&](const CppTables& t) { return LookupName(t.*table, key); });
}

std::vector<uint32_t> CppIndex::FunctionsNamed(std::string_view key) const {
  return ByName(&CppTables::functions, &CppTables::functions_by_name, key);
}
std::vector<uint32_t> CppIndex::StubDeclsNamed(std::string_view key) const {
  return ByName(&CppTables::stub_decls, &CppTables::stub_decls_by_name, key);
}
std::vector<uint32_t> CppIndex::RegistrationsOf(std::string_view key) const {
  return ByName(&CppTables::registrations, &CppTables::registrations_by_stub, key);
}
std::vector<uint32_t> CppIndex::RegistrationsWritten(std::string_view written) const {
  size_t colons = written.rfind("::");
  std::vector<uint32_t> out;
  for (uint32_t r : RegistrationsOf(colons == std::string_view::npos ? written : written.substr(colons + 2)))
    if (registrations()[r].stub == written) out.push_back(r);
  return out;
}
std::vector<uint32_t> CppIndex::LaunchesInMacro(std::string_view key) const {
  return ByName(&CppTables::launches, &CppTables::launches_by_macro, key);
}
std::vector<uint32_t> CppIndex::LaunchesOfKernel(std::string_view key) const {
  return ByName(&CppTables::launches, &CppTables::launches_by_kernel, key);
}
std::vector<uint32_t> CppIndex::CallsInMacro(std::string_view key) const {
  return ByName(&CppTables::calls, &CppTables::calls_by_macro, key);
}
std::vector<uint32_t> CppIndex::CallersOf(std::string_view key) const {
  return ByName(&CppTables::calls, &CppTables::calls_by_callee, key);
}
std::vector<uint32_t> CppIndex::MacrosNamed(std::string_view key) const {
  return ByName(&CppTables::macros, &CppTables::macros_by_name, key);
}
std::vector<uint32_t> CppIndex::MacroUsesOf(std::string_view key) const {
  return ByName(&CppTables::macro_uses, &CppTables::macro_uses_by_macro, key);
}
std::vector<uint32_t> CppIndex::LibraryRegistrationsOf(std::string_view key) const {
  return ByName(&CppTables::library_registrations, &CppTables::library_regs_by_function, key);
}

std::vector<uint32_t> CppIndex::LaunchesIn(uint32_t function) const {
  return ByFunction(&CppTables::launches, &CppTables::launches_by_function, function);
}
std::vector<uint32_t> CppIndex::CallsIn(uint32_t function) const {
  return ByFunction(&CppTables::calls, &CppTables::calls_by_function, function);
}
std::vector<uint32_t> CppIndex::MacroUsesIn(uint32_t function) const {
  return ByFunction(&CppTables::macro_uses, &CppTables::macro_uses_by_function, function);
}
std::vector<uint32_t> CppIndex::DtypeDispatchesIn(uint32_t function) const {
  return ByFunction(&CppTables::dtype_dispatches, &CppTables::dtype_by_function, function);
}

std::vector<uint32_t> CppIndex::StubReferencesIn(uint32_t file, uint32_t first_line, uint32_t last_line) const {
  if (!Replaced(file)) return StubRefsIn(own(), file, first_line, last_line);
  std::vector<uint32_t> ids = StubRefsIn(*layer_tables(), file, first_line, last_line);
  for (uint32_t& id : ids) id += static_cast<uint32_t>(own().stub_refs.size());
  return ids;
}

const std::string* CppIndex::StringConstant(uint32_t file, std::string_view name) const {
  return FindStringConstant(own(), layer_tables(), file, name);
}

int32_t CppIndex::FunctionAt(uint32_t file, uint32_t line) const {
  if (!Replaced(file)) return FunctionIn(own(), file, line);
  int32_t local = FunctionIn(*layer_tables(), file, line);
  return local < 0 ? -1 : local + static_cast<int32_t>(own().functions.size());
}

const std::string* FindStringConstant(const CppTables& base, const CppTables* layer, uint32_t file,
                                      std::string_view name) {
  auto of = [&](uint32_t f) -> const std::vector<std::pair<std::string, std::string>>& {
    return layer && f < layer->replaces.size() && layer->replaces[f] ? layer->string_constants[f]
                                                                     : base.string_constants[f];
  };
  if (file < base.string_constants.size()) {
    for (const auto& [n, v] : of(file))
      if (n == name) return &v;
  }
  const std::string* found = nullptr;
  for (uint32_t f = 0; f < base.string_constants.size(); ++f) {
    for (const auto& [n, v] : of(f)) {
      if (n != name) continue;
      if (found && *found != v) return nullptr;  // two different values: do not guess
      found = &v;
    }
  }
  return found;
}

void PrintCppIndexCounts(const CppIndex& index, std::ostream& out) {
  size_t kernels = 0;
  for (const CppFunction& f : index.functions()) kernels += f.form == DefForm::kGlobalKernel;
  out << "  C++ files:              " << index.files().size() << "\n"
      << "  functions:              " << index.functions().size() << "\n"
      << "  __global__ kernels:     " << kernels << "\n"
      << "  dispatch stubs:         " << index.stub_decls().size() << "\n"
      << "  stub registrations:     " << index.registrations().size() << "\n"
      << "  launches:               " << index.launches().size() << "\n"
      << "  calls:                  " << index.calls().size() << "\n"
      << "  macros:                 " << index.macros().size() << "\n"
      << "  library registrations:  " << index.library_registrations().size() << "\n"
      << "  dtype dispatches:       " << index.dtype_dispatches().size() << "\n"
      << "  skipped files:          " << index.skipped().size() << "\n";
  for (const CppSkipped& s : index.skipped()) out << "    " << s.path << ": " << s.reason << "\n";
}

}  // namespace optrace
