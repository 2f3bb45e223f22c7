// CppIndex: merges ScanCppFile's per-file records into one index with file
// ids and global function indices, and answers the tracer's lookups through
// hash tables built once by Finish(). Build scans files on std::thread
// workers (an atomic counter hands out files) and merges the results in file
// order, so the index is the same whatever the thread count. Nothing Finish()
// does is irreversible: RecordsOf gives any file's records back exactly as
// scanned, so the index store needs no raw copy of them for partial updates.
#include "cpp/cpp_index.h"

#include <algorithm>
#include <atomic>
#include <ostream>
#include <thread>
#include <tuple>
#include <unordered_set>

#include "base/cores.h"
#include "base/text.h"

namespace optrace {

const char* DefFormName(DefForm form) {
  switch (form) {
    case DefForm::kFunction: return "function";
    case DefForm::kImplFunc: return "TORCH_IMPL_FUNC";
    case DefForm::kMetaFunc: return "TORCH_META_FUNC";
    case DefForm::kPrecomputeMetaFunc: return "TORCH_PRECOMPUTE_META_FUNC";
    case DefForm::kGlobalKernel: return "__global__";
  }
  return "?";
}

const char* LaunchKindName(LaunchKind kind) {
  switch (kind) {
    case LaunchKind::kTripleChevron: return "<<<>>>";
    case LaunchKind::kTensorIterator: return "gpu_kernel";
    case LaunchKind::kReduce: return "gpu_reduce_kernel";
    case LaunchKind::kJiterator: return "jiterator";
    case LaunchKind::kLaunchHelper: return "launch";
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
    disk.ListFiles(dir, [](std::string_view p) { return InCppScope(p); }, &paths, &listing_skipped);
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
  CppRecordCounts total;
  for (const Result& r : results)
    if (r.skip_reason.empty()) total.Add(r.records);
  index.Reserve(total);
  for (const SkippedPath& s : listing_skipped) index.AddSkipped(s.path, s.reason);
  for (size_t i = 0; i < paths.size(); ++i) {
    if (!results[i].skip_reason.empty()) {
      index.AddSkipped(paths[i], results[i].skip_reason);
    } else {
      index.AddFile(paths[i], std::move(results[i].records));
    }
  }
  index.Finish();
  return index;
}

void CppRecordCounts::Add(const CppRecordCounts& c, int sign) {
  files += sign * c.files;
  functions += sign * c.functions;
  stub_decls += sign * c.stub_decls;
  registrations += sign * c.registrations;
  launches += sign * c.launches;
  calls += sign * c.calls;
  macros += sign * c.macros;
  macro_uses += sign * c.macro_uses;
  library_registrations += sign * c.library_registrations;
  dtype_dispatches += sign * c.dtype_dispatches;
  stub_refs += sign * c.stub_refs;
}

void CppRecordCounts::Add(const CppFileRecords& r) {
  ++files;
  functions += r.functions.size();
  stub_decls += r.stub_decls.size();
  registrations += r.registrations.size();
  launches += r.launches.size();
  calls += r.calls.size();
  macros += r.macros.size();
  macro_uses += r.macro_uses.size();
  library_registrations += r.library_registrations.size();
  dtype_dispatches += r.dtype_dispatches.size();
  stub_refs += r.stub_refs.size();
}

void CppIndex::Reserve(const CppRecordCounts& total) {
  files_.reserve(total.files);
  string_constants_.reserve(total.files);
  functions_.reserve(total.functions);
  stub_decls_.reserve(total.stub_decls);
  registrations_.reserve(total.registrations);
  launches_.reserve(total.launches);
  calls_.reserve(total.calls);
  macros_.reserve(total.macros);
  macro_uses_.reserve(total.macro_uses);
  library_registrations_.reserve(total.library_registrations);
  dtype_dispatches_.reserve(total.dtype_dispatches);
  stub_refs_.reserve(total.stub_refs);
}

CppRecordCounts CppIndex::Counts() const {
  CppRecordCounts c;
  c.files = files_.size();
  c.functions = functions_.size();
  c.stub_decls = stub_decls_.size();
  c.registrations = registrations_.size();
  c.launches = launches_.size();
  c.calls = calls_.size();
  c.macros = macros_.size();
  c.macro_uses = macro_uses_.size() + set_aside_macro_uses_.size();
  c.library_registrations = library_registrations_.size();
  c.dtype_dispatches = dtype_dispatches_.size();
  c.stub_refs = stub_refs_.size() + set_aside_stub_refs_.size();
  if (layer_) {
    CppRecordCounts layered = layer_->Counts();
    layered.files = 0;  // the layer's files are this index's
    c.Add(layered, +1);
    c.Add(hidden_, -1);
    c.macro_uses -= hidden_set_aside_macro_uses_;
    c.stub_refs -= hidden_set_aside_stub_refs_;
  }
  return c;
}

void CppIndex::AddFile(std::string path, CppFileRecords&& records) {
  Append(static_cast<uint32_t>(files_.size()), std::move(path), records);
}
void CppIndex::AddFile(std::string path, const CppFileRecords& records) {
  Append(static_cast<uint32_t>(files_.size()), std::move(path), records);
}

// `Records` is CppFileRecords (its strings are moved) or const CppFileRecords
// (std::move of a const record copies it).
// `file` is the next id (AddFile) or, in a layer, the file's id in the base
// (files_ is then sized like the base's).
template <typename Records>
void CppIndex::Append(uint32_t file, std::string path, Records& records) {
  const int32_t fn_base = static_cast<int32_t>(function_base_ + functions_.size());
  const bool next = file == files_.size();
  if (next) files_.push_back(std::move(path));
  else files_[file] = std::move(path);
  auto fn = [&](int32_t local) { return local < 0 ? -1 : local + fn_base; };
  for (auto& f : records.functions) functions_.emplace_back(std::move(f)).file = file;
  for (auto& d : records.stub_decls) stub_decls_.emplace_back(std::move(d)).file = file;
  for (auto& r : records.registrations) registrations_.emplace_back(std::move(r)).file = file;
  for (auto& l : records.launches) {
    CppLaunch& to = launches_.emplace_back(std::move(l));
    to.file = file;
    to.function = fn(to.function);
  }
  for (auto& c : records.calls) {
    CppCall& to = calls_.emplace_back(std::move(c));
    to.file = file;
    to.function = fn(to.function);
  }
  for (auto& m : records.macros) macros_.emplace_back(std::move(m)).file = file;
  for (auto& u : records.macro_uses) {
    CppMacroUse& to = macro_uses_.emplace_back(std::move(u));
    to.file = file;
    to.function = fn(to.function);
  }
  for (auto& r : records.library_registrations) library_registrations_.emplace_back(std::move(r)).file = file;
  for (auto& d : records.dtype_dispatches) {
    DtypeDispatch& to = dtype_dispatches_.emplace_back(std::move(d));
    to.file = file;
    to.function = fn(to.function);
  }
  const size_t first_ref = stub_refs_.size();
  for (auto& r : records.stub_refs) stub_refs_.emplace_back(std::move(r)).file = file;
  // StubReferencesIn binary-searches (file, line); ScanCppFile's are in line
  // order already (so RecordsOf gives them back as scanned), hand-made ones may not be.
  std::stable_sort(stub_refs_.begin() + first_ref, stub_refs_.end(),
                   [](const CppStubRef& a, const CppStubRef& b) { return a.line < b.line; });
  if (next) string_constants_.push_back(std::move(records.string_constants));
  else string_constants_[file] = std::move(records.string_constants);
}

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

// [begin, end) of the records of `file` in a vector grouped by file in file order.
template <typename T, typename FileOf>
std::pair<size_t, size_t> FileRange(const std::vector<T>& records, uint32_t file, FileOf file_of) {
  auto b = std::partition_point(records.begin(), records.end(), [&](const T& r) { return file_of(r) < file; });
  auto e = std::partition_point(b, records.end(), [&](const T& r) { return file_of(r) == file; });
  return {static_cast<size_t>(b - records.begin()), static_cast<size_t>(e - records.begin())};
}
template <typename T>
std::pair<size_t, size_t> FileRange(const std::vector<T>& records, uint32_t file) {
  return FileRange(records, file, [](const T& r) { return r.file; });
}

// The file's records of `kept` and `set_aside` (SetAside's two lists) in their scanned order.
template <typename T>
std::vector<T> Rejoin(const std::vector<T>& kept, const std::vector<std::pair<uint32_t, T>>& set_aside, uint32_t file) {
  auto [kb, ke] = FileRange(kept, file);
  auto [sb, se] = FileRange(set_aside, file, [](const std::pair<uint32_t, T>& p) { return p.second.file; });
  std::vector<T> out;
  out.reserve(ke - kb + se - sb);
  while (kb < ke || sb < se) {
    if (sb < se && (set_aside[sb].first <= out.size() || kb == ke)) out.push_back(set_aside[sb++].second);
    else out.push_back(kept[kb++]);
  }
  return out;
}

// Copies the file's records of `all` (grouped by file).
template <typename T>
std::vector<T> RecordsIn(const std::vector<T>& all, uint32_t file) {
  auto [b, e] = FileRange(all, file);
  return std::vector<T>(all.begin() + b, all.begin() + e);
}

}  // namespace

CppFileRecords CppIndex::RecordsOf(uint32_t id) const {
  if (Replaced(id)) return layer_->RecordsOf(id);
  CppFileRecords r;
  if (id >= files_.size()) return r;
  // AddFile's rebasing, undone: file ids back to 0, function indices back to file-local.
  const int32_t fn_base = static_cast<int32_t>(function_base_ + FileRange(functions_, id).first);
  auto local = [&](auto& records) {
    for (auto& x : records) {
      x.file = 0;
      if constexpr (requires { x.function = 0; }) {
        if (x.function >= 0) x.function -= fn_base;
      }
    }
  };
  r.functions = RecordsIn(functions_, id);
  r.stub_decls = RecordsIn(stub_decls_, id);
  r.registrations = RecordsIn(registrations_, id);
  r.launches = RecordsIn(launches_, id);
  for (CppLaunch& l : r.launches) {
    if (!l.kernel_from_index) continue;
    l.kernel.clear();
    l.kernel_from_index = false;
  }
  r.calls = RecordsIn(calls_, id);
  r.macros = RecordsIn(macros_, id);
  r.macro_uses = Rejoin(macro_uses_, set_aside_macro_uses_, id);
  r.library_registrations = RecordsIn(library_registrations_, id);
  r.dtype_dispatches = RecordsIn(dtype_dispatches_, id);
  r.stub_refs = Rejoin(stub_refs_, set_aside_stub_refs_, id);
  r.string_constants = string_constants_[id];
  local(r.functions);
  local(r.stub_decls);
  local(r.registrations);
  local(r.launches);
  local(r.calls);
  local(r.macros);
  local(r.macro_uses);
  local(r.library_registrations);
  local(r.dtype_dispatches);
  local(r.stub_refs);
  return r;
}

void CppIndex::Finish() { FinishOver(nullptr); }

void CppIndex::BeginLayer(const CppIndex& base) {
  files_.assign(base.files_.size(), std::string());
  string_constants_.assign(base.files_.size(), {});
  replaces_.assign(base.files_.size(), 0);
  function_base_ = static_cast<uint32_t>(base.functions_.size());
}

void CppIndex::AddLayerFile(uint32_t id, std::string path, const CppFileRecords& records) {
  replaces_[id] = 1;
  Append(id, std::move(path), records);
}

void CppIndex::FinishLayer(const CppIndex& base) { FinishOver(&base); }

bool CppIndex::SetLayer(const CppIndex* layer) {
  if (layer && (layer->replaces_.size() != files_.size() || layer->function_base_ != functions_.size())) return false;
  layer_ = layer;
  hidden_ = {};
  hidden_set_aside_macro_uses_ = hidden_set_aside_stub_refs_ = 0;
  if (!layer) return true;
  for (uint32_t f = 0; f < files_.size(); ++f) {
    if (!layer->replaces_[f]) continue;
    auto count = [&](const auto& records) {
      auto [b, e] = FileRange(records, f);
      return e - b;
    };
    auto count_set_aside = [&](const auto& set_aside) {
      auto [b, e] = FileRange(set_aside, f, [](const auto& p) { return p.second.file; });
      return e - b;
    };
    hidden_.functions += count(functions_);
    hidden_.stub_decls += count(stub_decls_);
    hidden_.registrations += count(registrations_);
    hidden_.launches += count(launches_);
    hidden_.calls += count(calls_);
    hidden_.macros += count(macros_);
    hidden_.macro_uses += count(macro_uses_);
    hidden_.library_registrations += count(library_registrations_);
    hidden_.dtype_dispatches += count(dtype_dispatches_);
    hidden_.stub_refs += count(stub_refs_);
    hidden_set_aside_macro_uses_ += count_set_aside(set_aside_macro_uses_);
    hidden_set_aside_stub_refs_ += count_set_aside(set_aside_stub_refs_);
  }
  return true;
}

bool CppIndex::SameCrossFileFacts(const CppFileRecords& a, const CppFileRecords& b) {
  auto facts = [](const CppFileRecords& r) {
    std::vector<std::string> macros, stubs;
    for (const CppMacro& m : r.macros)
      if (m.function_like) macros.push_back(m.name);
    for (const StubDecl& d : r.stub_decls) stubs.push_back(d.stub);
    auto constants = r.string_constants;
    for (auto* v : {&macros, &stubs}) {
      std::sort(v->begin(), v->end());
      v->erase(std::unique(v->begin(), v->end()), v->end());
    }
    std::sort(constants.begin(), constants.end());
    return std::tuple(std::move(macros), std::move(stubs), std::move(constants));
  };
  return facts(a) == facts(b);
}

void CppIndex::FinishOver(const CppIndex* base) {
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
  for (const auto* index : {base, static_cast<const CppIndex*>(this)})
    if (index)
      for (const CppMacro& m : index->macros_)
        if (m.function_like) function_macros.insert(m.name);
  SetAside(macro_uses_, set_aside_macro_uses_, [&](const CppMacroUse& u) { return function_macros.count(u.macro) > 0; });
  // Stub references: ScanCppFile keeps every uncalled name ending in _stub; keep
  // only those naming a DECLARE_DISPATCH / DEFINE_DISPATCH stub.
  std::unordered_set<std::string_view> stubs;
  for (const auto* index : {base, static_cast<const CppIndex*>(this)})
    if (index)
      for (const StubDecl& d : index->stub_decls_) stubs.insert(d.stub);
  SetAside(stub_refs_, set_aside_stub_refs_, [&](const CppStubRef& r) { return stubs.count(r.stub) > 0; });
  // Jiterator names defined in another file (a header): StringConstant
  // answers only when the index holds a single value for the constant.
  for (CppLaunch& l : launches_) {
    if (!l.kernel.empty() || l.kernel_name_ref.empty()) continue;
    const std::string* value =
        base ? FindStringConstant(*base, this, l.file, l.kernel_name_ref) : StringConstant(l.file, l.kernel_name_ref);
    if (value) {
      l.kernel = *value;
      l.kernel_from_index = true;
    }
  }
  fill(functions_by_name_, functions_.size(), [&](auto& m, uint32_t i) { m.emplace(functions_[i].name, i); });
  fill(stub_decls_by_name_, stub_decls_.size(), [&](auto& m, uint32_t i) { m.emplace(stub_decls_[i].stub, i); });
  fill(registrations_by_stub_, registrations_.size(),
       [&](auto& m, uint32_t i) {
         // Under the stub's declared name: find and every lookup by name see
         // REGISTER_DISPATCH(cpublas::gemm_stub, ...) as gemm_stub's.
         const std::string& stub = registrations_[i].stub;
         size_t colons = stub.rfind("::");
         m.emplace(colons == std::string::npos ? stub : stub.substr(colons + 2), i);
       });
  launches_by_kernel_.clear();
  launches_by_macro_.clear();
  launches_by_function_.clear();
  for (uint32_t i = 0; i < launches_.size(); ++i) {
    const CppLaunch& l = launches_[i];
    if (l.kind == LaunchKind::kTripleChevron && !l.kernel.empty()) launches_by_kernel_.emplace(l.kernel, i);
    if (!l.macro.empty()) launches_by_macro_.emplace(l.macro, i);
    if (l.function >= 0) launches_by_function_.emplace(static_cast<uint32_t>(l.function), i);
  }
  calls_by_callee_.clear();
  calls_by_macro_.clear();
  calls_by_function_.clear();
  calls_by_callee_.reserve(calls_.size());
  for (uint32_t i = 0; i < calls_.size(); ++i) {
    const CppCall& c = calls_[i];
    calls_by_callee_.emplace(c.callee, i);
    if (!c.macro.empty()) calls_by_macro_.emplace(c.macro, i);
    if (c.function >= 0) calls_by_function_.emplace(static_cast<uint32_t>(c.function), i);
  }
  fill(macros_by_name_, macros_.size(), [&](auto& m, uint32_t i) { m.emplace(macros_[i].name, i); });
  macro_uses_by_function_.clear();
  for (uint32_t i = 0; i < macro_uses_.size(); ++i)
    if (macro_uses_[i].function >= 0) macro_uses_by_function_.emplace(macro_uses_[i].function, i);
  fill(macro_uses_by_macro_, macro_uses_.size(), [&](auto& m, uint32_t i) { m.emplace(macro_uses_[i].macro, i); });
  dtype_by_function_.clear();
  for (uint32_t i = 0; i < dtype_dispatches_.size(); ++i)
    if (dtype_dispatches_[i].function >= 0) dtype_by_function_.emplace(dtype_dispatches_[i].function, i);
  library_regs_by_function_.clear();
  for (uint32_t i = 0; i < library_registrations_.size(); ++i)
    if (!library_registrations_[i].function.empty())
      library_regs_by_function_.emplace(library_registrations_[i].function, i);
  functions_by_file_.assign(files_.size(), {});
  for (uint32_t i = 0; i < functions_.size(); ++i) functions_by_file_[functions_[i].file].push_back(i);
  for (auto& v : functions_by_file_) {
    std::stable_sort(v.begin(), v.end(),
                     [&](uint32_t a, uint32_t b) { return functions_[a].body_begin < functions_[b].body_begin; });
  }
}

template <typename T, typename Find>
std::vector<uint32_t> CppIndex::Across(std::vector<T> CppIndex::*records, Find find) const {
  std::vector<uint32_t> ids = find(*this);
  if (!layer_) return ids;
  const std::vector<T>& mine = this->*records;
  const std::vector<T>& theirs = layer_->*records;
  std::erase_if(ids, [&](uint32_t id) { return layer_->replaces_[mine[id].file]; });
  std::vector<uint32_t> layered = find(*layer_);
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
std::vector<uint32_t> CppIndex::ByFunction(std::vector<T> CppIndex::*records,
                                           std::unordered_multimap<uint32_t, uint32_t> CppIndex::*table,
                                           uint32_t function) const {
  if (!layer_ || function < functions_.size()) return Lookup(this->*table, function);
  // The layer's tables are keyed by the same (base-numbered) function ids.
  std::vector<uint32_t> ids = Lookup(layer_->*table, function);
  for (uint32_t& id : ids) id += static_cast<uint32_t>((this->*records).size());
  return ids;
}

template <typename T>
std::vector<uint32_t> CppIndex::ByName(std::vector<T> CppIndex::*records, NameTable CppIndex::*table,
                                       std::string_view key) const {
  return Across(records, [&](const CppIndex& ix) { return LookupName(ix.*table, key); });
}

std::vector<uint32_t> CppIndex::FunctionsNamed(std::string_view key) const {
  return ByName(&CppIndex::functions_, &CppIndex::functions_by_name_, key);
}
std::vector<uint32_t> CppIndex::StubDeclsNamed(std::string_view key) const {
  return ByName(&CppIndex::stub_decls_, &CppIndex::stub_decls_by_name_, key);
}
std::vector<uint32_t> CppIndex::RegistrationsOf(std::string_view key) const {
  return ByName(&CppIndex::registrations_, &CppIndex::registrations_by_stub_, key);
}
std::vector<uint32_t> CppIndex::RegistrationsWritten(std::string_view written) const {
  size_t colons = written.rfind("::");
  std::vector<uint32_t> out;
  for (uint32_t r : RegistrationsOf(colons == std::string_view::npos ? written : written.substr(colons + 2)))
    if (registrations()[r].stub == written) out.push_back(r);
  return out;
}
std::vector<uint32_t> CppIndex::LaunchesInMacro(std::string_view key) const {
  return ByName(&CppIndex::launches_, &CppIndex::launches_by_macro_, key);
}
std::vector<uint32_t> CppIndex::LaunchesOfKernel(std::string_view key) const {
  return ByName(&CppIndex::launches_, &CppIndex::launches_by_kernel_, key);
}
std::vector<uint32_t> CppIndex::CallsInMacro(std::string_view key) const {
  return ByName(&CppIndex::calls_, &CppIndex::calls_by_macro_, key);
}
std::vector<uint32_t> CppIndex::CallersOf(std::string_view key) const {
  return ByName(&CppIndex::calls_, &CppIndex::calls_by_callee_, key);
}
std::vector<uint32_t> CppIndex::MacrosNamed(std::string_view key) const {
  return ByName(&CppIndex::macros_, &CppIndex::macros_by_name_, key);
}
std::vector<uint32_t> CppIndex::MacroUsesOf(std::string_view key) const {
  return ByName(&CppIndex::macro_uses_, &CppIndex::macro_uses_by_macro_, key);
}
std::vector<uint32_t> CppIndex::LibraryRegistrationsOf(std::string_view key) const {
  return ByName(&CppIndex::library_registrations_, &CppIndex::library_regs_by_function_, key);
}

std::vector<uint32_t> CppIndex::LaunchesIn(uint32_t function) const {
  return ByFunction(&CppIndex::launches_, &CppIndex::launches_by_function_, function);
}
std::vector<uint32_t> CppIndex::CallsIn(uint32_t function) const {
  return ByFunction(&CppIndex::calls_, &CppIndex::calls_by_function_, function);
}
std::vector<uint32_t> CppIndex::MacroUsesIn(uint32_t function) const {
  return ByFunction(&CppIndex::macro_uses_, &CppIndex::macro_uses_by_function_, function);
}
std::vector<uint32_t> CppIndex::DtypeDispatchesIn(uint32_t function) const {
  return ByFunction(&CppIndex::dtype_dispatches_, &CppIndex::dtype_by_function_, function);
}

std::vector<uint32_t> CppIndex::StubReferencesIn(uint32_t file, uint32_t first_line, uint32_t last_line) const {
  if (Replaced(file)) {
    std::vector<uint32_t> ids = layer_->StubReferencesIn(file, first_line, last_line);
    for (uint32_t& id : ids) id += static_cast<uint32_t>(stub_refs_.size());
    return ids;
  }
  auto before = [](const CppStubRef& r, std::pair<uint32_t, uint32_t> at) {
    return r.file < at.first || (r.file == at.first && r.line < at.second);
  };
  std::vector<uint32_t> out;
  auto it = std::lower_bound(stub_refs_.begin(), stub_refs_.end(), std::pair{file, first_line}, before);
  for (; it != stub_refs_.end() && it->file == file && it->line <= last_line; ++it)
    out.push_back(static_cast<uint32_t>(it - stub_refs_.begin()));
  return out;
}

const std::string* CppIndex::StringConstant(uint32_t file, std::string_view name) const {
  return FindStringConstant(*this, layer_, file, name);
}

// The constants of `base`'s files, each replaced file's taken from `layer`.
const std::string* CppIndex::FindStringConstant(const CppIndex& base, const CppIndex* layer, uint32_t file,
                                                std::string_view name) {
  auto of = [&](uint32_t f) -> const std::vector<std::pair<std::string, std::string>>& {
    return layer && layer->Replaces(f) ? layer->string_constants_[f] : base.string_constants_[f];
  };
  if (file < base.string_constants_.size()) {
    for (const auto& [n, v] : of(file))
      if (n == name) return &v;
  }
  const std::string* found = nullptr;
  for (uint32_t f = 0; f < base.string_constants_.size(); ++f) {
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

int32_t CppIndex::FunctionAt(uint32_t file, uint32_t line) const {
  if (Replaced(file)) {
    int32_t local = layer_->FunctionAt(file, line);
    return local < 0 ? -1 : local + static_cast<int32_t>(functions_.size());
  }
  if (file >= functions_by_file_.size()) return -1;
  int32_t best = -1;
  for (uint32_t i : functions_by_file_[file]) {
    const CppFunction& f = functions_[i];
    if (f.body_begin > line) break;
    // The innermost body wins (a later-starting body nested in an earlier one).
    if (line <= f.body_end) best = static_cast<int32_t>(i);
  }
  return best;
}

}  // namespace optrace
