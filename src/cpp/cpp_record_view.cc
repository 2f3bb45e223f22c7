// CppRecordView (see cpp_record_view.h). Every record vector is grouped by
// file in file order (CppIndexWriter appends so), so a file's records are
// found by binary search: RecordsOf gives them back as scanned without a
// raw copy, and SetLayer counts what a layer hides.
#include "cpp/cpp_record_view.h"

#include <algorithm>
#include <tuple>

namespace optrace {
namespace {

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

CppRecordCounts CppRecordView::Counts() const {
  CppRecordCounts c;
  c.files = t_.files.size();
  c.functions = t_.functions.size();
  c.stub_decls = t_.stub_decls.size();
  c.registrations = t_.registrations.size();
  c.launches = t_.launches.size();
  c.calls = t_.calls.size();
  c.macros = t_.macros.size();
  c.macro_uses = t_.macro_uses.size() + t_.set_aside_macro_uses.size();
  c.library_registrations = t_.library_registrations.size();
  c.dtype_dispatches = t_.dtype_dispatches.size();
  c.stub_refs = t_.stub_refs.size() + t_.set_aside_stub_refs.size();
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

CppFileRecords CppRecordView::RecordsOf(uint32_t id) const {
  if (Replaced(id)) return layer_->RecordsOf(id);
  CppFileRecords r;
  if (id >= t_.files.size()) return r;
  // AddFile's rebasing, undone: file ids back to 0, function indices back to file-local.
  const int32_t fn_base = static_cast<int32_t>(t_.function_base + FileRange(t_.functions, id).first);
  auto local = [&](auto& records) {
    for (auto& x : records) {
      x.file = 0;
      if constexpr (requires { x.function = 0; }) {
        if (x.function >= 0) x.function -= fn_base;
      }
    }
  };
  r.functions = RecordsIn(t_.functions, id);
  r.stub_decls = RecordsIn(t_.stub_decls, id);
  r.registrations = RecordsIn(t_.registrations, id);
  r.launches = RecordsIn(t_.launches, id);
  for (CppLaunch& l : r.launches) {
    if (!l.kernel_from_index) continue;
    l.kernel.clear();
    l.kernel_from_index = false;
  }
  r.calls = RecordsIn(t_.calls, id);
  r.macros = RecordsIn(t_.macros, id);
  r.macro_uses = Rejoin(t_.macro_uses, t_.set_aside_macro_uses, id);
  r.library_registrations = RecordsIn(t_.library_registrations, id);
  r.dtype_dispatches = RecordsIn(t_.dtype_dispatches, id);
  r.stub_refs = Rejoin(t_.stub_refs, t_.set_aside_stub_refs, id);
  r.string_constants = t_.string_constants[id];
  r.enum_members = t_.enum_members[id];
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

bool CppRecordView::SetLayer(const CppRecordView* layer) {
  if (layer && (layer->t_.replaces.size() != t_.files.size() || layer->t_.function_base != t_.functions.size()))
    return false;
  layer_ = layer;
  hidden_ = {};
  hidden_set_aside_macro_uses_ = hidden_set_aside_stub_refs_ = 0;
  if (!layer) return true;
  for (uint32_t f = 0; f < t_.files.size(); ++f) {
    if (!layer->t_.replaces[f]) continue;
    auto count = [&](const auto& records) {
      auto [b, e] = FileRange(records, f);
      return e - b;
    };
    auto count_set_aside = [&](const auto& set_aside) {
      auto [b, e] = FileRange(set_aside, f, [](const auto& p) { return p.second.file; });
      return e - b;
    };
    hidden_.functions += count(t_.functions);
    hidden_.stub_decls += count(t_.stub_decls);
    hidden_.registrations += count(t_.registrations);
    hidden_.launches += count(t_.launches);
    hidden_.calls += count(t_.calls);
    hidden_.macros += count(t_.macros);
    hidden_.macro_uses += count(t_.macro_uses);
    hidden_.library_registrations += count(t_.library_registrations);
    hidden_.dtype_dispatches += count(t_.dtype_dispatches);
    hidden_.stub_refs += count(t_.stub_refs);
    hidden_set_aside_macro_uses_ += count_set_aside(t_.set_aside_macro_uses);
    hidden_set_aside_stub_refs_ += count_set_aside(t_.set_aside_stub_refs);
  }
  return true;
}

bool SameCrossFileFacts(const CppFileRecords& a, const CppFileRecords& b) {
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

}  // namespace optrace
