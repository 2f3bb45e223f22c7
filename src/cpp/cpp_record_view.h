// CppRecordView: the records of a C++ index as its readers see them -- its
// own tables, or, with a layer over it (SetLayer), the base's records minus
// those of the files the layer replaces, plus the layer's -- and the same
// records given back per file exactly as cpp_scan produced them
// (RecordsOf), so that the store needs no raw copy of them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "cpp/cpp_records.h"

namespace optrace {

class CppRecordView {
 public:
  const std::vector<std::string>& files() const { return t_.files; }
  const std::string& file(uint32_t id) const { return t_.files[id]; }
  RecordList<CppFunction> functions() const { return List(&CppTables::functions, hidden_.functions); }
  RecordList<StubDecl> stub_decls() const { return List(&CppTables::stub_decls, hidden_.stub_decls); }
  RecordList<StubRegistration> registrations() const { return List(&CppTables::registrations, hidden_.registrations); }
  RecordList<CppLaunch> launches() const { return List(&CppTables::launches, hidden_.launches); }
  RecordList<CppCall> calls() const { return List(&CppTables::calls, hidden_.calls); }
  RecordList<CppMacro> macros() const { return List(&CppTables::macros, hidden_.macros); }
  RecordList<CppMacroUse> macro_uses() const { return List(&CppTables::macro_uses, hidden_.macro_uses); }
  RecordList<LibraryRegistration> library_registrations() const {
    return List(&CppTables::library_registrations, hidden_.library_registrations);
  }
  RecordList<DtypeDispatch> dtype_dispatches() const {
    return List(&CppTables::dtype_dispatches, hidden_.dtype_dispatches);
  }
  RecordList<CppStubRef> stub_refs() const { return List(&CppTables::stub_refs, hidden_.stub_refs); }
  const std::vector<CppSkipped>& skipped() const { return t_.skipped; }
  // The enum members file `id` defines (the layer's where it replaces the file).
  const std::vector<CppEnumMember>& EnumMembersOf(uint32_t id) const {
    return Replaced(id) ? layer_->t_.enum_members[id] : t_.enum_members[id];
  }

  // The records of file `id` exactly as ScanCppFile produced them (file-local
  // ids, every record Finish set aside, nothing Finish filled in), so that the
  // store can rebuild an index after a partial update without keeping a raw
  // copy of every file's records. Empty for an unknown id.
  CppFileRecords RecordsOf(uint32_t id) const;
  // The records of every file as scanned: the sum of RecordsOf's sizes.
  CppRecordCounts Counts() const;

  // Layers. After an edit to a few files, the store does not rebuild the
  // whole index: it builds a small layer holding those files' new records
  // (under their ids here: CppIndexWriter::BeginLayer) and puts it over the
  // index it has. Every accessor and lookup then answers exactly as an index
  // built from the edited tree would, provided each replaced file's
  // cross-file facts did not change (SameCrossFileFacts) and no file was
  // added or removed.
  //
  // Puts `layer` (built over an index with this one's records; it must
  // outlive this index) over this index. False, changing nothing, when it was
  // built over an index of another shape.
  bool SetLayer(const CppRecordView* layer);
  // Whether the layer replaces file `id`'s records.
  bool Replaced(uint32_t id) const { return layer_ && layer_->Replaces(id); }
  // In a layer: whether it replaces file `id` of its base.
  bool Replaces(uint32_t id) const { return id < t_.replaces.size() && t_.replaces[id]; }

 protected:
  // This index's own records and tables, and its layer's (null: none).
  const CppTables& own() const { return t_; }
  const CppTables* layer_tables() const { return layer_ ? &layer_->t_ : nullptr; }

 private:
  friend class CppIndexWriter;
  template <typename T>
  RecordList<T> List(std::vector<T> CppTables::*records, size_t hidden) const {
    if (!layer_) return RecordList<T>(t_.*records, nullptr, nullptr, 0);
    return RecordList<T>(t_.*records, &(layer_->t_.*records), &layer_->t_.replaces, hidden);
  }

  CppTables t_;
  // The base's side of a layer: the layer, and how many of the base's
  // (kept) records of each kind belong to the files it replaces.
  const CppRecordView* layer_ = nullptr;
  CppRecordCounts hidden_;
  size_t hidden_set_aside_macro_uses_ = 0, hidden_set_aside_stub_refs_ = 0;
};

// Whether two scans of one file agree on everything CppIndexWriter::Finish
// looks at across files (what it sets aside and fills in in *other* files):
// the function-like macros defined, the stubs declared, the string constants.
bool SameCrossFileFacts(const CppFileRecords& a, const CppFileRecords& b);

}  // namespace optrace
