// CppIndexWriter: merges ScanCppFile's per-file records into a CppIndex --
// file ids, global function indices -- and finishes it: builds the lookup
// tables, sets aside the macro uses and stub references that name no
// indexed macro / declared stub, and fills jiterator kernels from other
// files' constants, all reversibly (CppRecordView::RecordsOf undoes it). A
// layer (CppRecordView::SetLayer) is written the same way over its base.
#pragma once

#include <cstdint>
#include <string>

#include "cpp/cpp_index.h"

namespace optrace {

class CppIndexWriter {
 public:
  // Writes into `index` (empty, or a layer begun with BeginLayer).
  explicit CppIndexWriter(CppIndex* index) : t_(index->t_) {}

  // Sizes the record vectors for `total` records, so that AddFile never
  // regrows them: regrowing copies, and in a store arena it leaves the old
  // buffers in the image as dead bytes.
  void Reserve(const CppRecordCounts& total);
  // Merges per-file records (in file order): the file gets the next file id
  // (skipped files get none). The rvalue form moves the records' strings,
  // the other copies them.
  void AddFile(std::string path, CppFileRecords&& records);
  void AddFile(std::string path, const CppFileRecords& records);
  void AddSkipped(std::string path, std::string reason) { t_.skipped.push_back({std::move(path), std::move(reason)}); }
  // Builds the lookup tables; call once after the last AddFile.
  void Finish() { FinishOver(nullptr); }

  // A layer over `base`, into an empty index: BeginLayer, AddLayerFile for
  // each replaced file in increasing id order, FinishLayer.
  void BeginLayer(const CppIndex& base);
  void AddLayerFile(uint32_t id, std::string path, const CppFileRecords& records);
  void FinishLayer(const CppIndex& base) { FinishOver(&base.t_); }

 private:
  // `Records` is CppFileRecords (its strings are moved) or const CppFileRecords.
  template <typename Records>
  void Append(uint32_t file, std::string path, Records& records);
  // Finish; a layer is finished knowing its base's tables (`base`, else null).
  void FinishOver(const CppTables* base);

  CppTables& t_;
};

}  // namespace optrace
