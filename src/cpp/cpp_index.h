// The C++/CUDA index: plain records of what ATen's source defines, registers,
// launches and calls, each with file and line, built by cpp_scan (lexer +
// structural pass) over aten/src/ATen and the autograd helper files. The
// tracer asks its questions through CppIndex's lookups (what it still reads
// of body text itself is listed in doc/design.md, "The tracer's strategy").
//
// The parts: the records (cpp_records.h), the view of them through an
// index and its layer (cpp_record_view.h), the writer that merges and
// finishes them (cpp_index_writer.h), and CppIndex's lookups (here).
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

#include "base/disk.h"
#include "cpp/cpp_record_view.h"
#include "cpp/cpp_records.h"

namespace optrace {

// Scans one C++/CUDA source text. `path` is used for the device of plain
// REGISTER_DISPATCH (cuda/ -> CUDA, cpu/ -> CPU, ...). Never throws or crashes
// on any input.
CppFileRecords ScanCppFile(std::string_view path, std::string_view text);

// Whether a checkout path is in the C++ index's scope.
bool InCppScope(std::string_view path);

class CppIndex;
// One line per record kind: files, functions, stubs, registrations, kernels,
// launches, calls, macros, library registrations, dtype dispatches, skipped
// (for `optrace info --index`).
void PrintCppIndexCounts(const CppIndex& index, std::ostream& out);

// The index of a checkout's C++: its records (CppRecordView) and the
// lookups the tracer asks, each answered through the layer when one is on.
class CppIndex : public CppRecordView {
 public:
  // Scans every in-scope file of `disk` (in parallel with `threads` workers; 0 = all cores).
  static CppIndex Build(const Disk& disk, unsigned threads = 0);

  // Lookups return indices into the vectors above, in file/line order.
  std::vector<uint32_t> FunctionsNamed(std::string_view name) const;  // by unqualified name (any form)
  std::vector<uint32_t> StubDeclsNamed(std::string_view stub) const;
  // The registrations whose stub is written exactly `written` ("cpublas::copy_stub"):
  // RegistrationsOf of its last component, filtered.
  std::vector<uint32_t> RegistrationsWritten(std::string_view written) const;
  std::vector<uint32_t> RegistrationsOf(std::string_view stub) const;
  std::vector<uint32_t> LaunchesIn(uint32_t function) const;
  std::vector<uint32_t> LaunchesInMacro(std::string_view macro) const;
  std::vector<uint32_t> LaunchesOfKernel(std::string_view kernel) const;  // <<<>>> of that __global__
  std::vector<uint32_t> CallsIn(uint32_t function) const;
  std::vector<uint32_t> CallsInMacro(std::string_view macro) const;
  std::vector<uint32_t> CallersOf(std::string_view name) const;  // calls whose callee is `name`
  std::vector<uint32_t> MacrosNamed(std::string_view name) const;
  std::vector<uint32_t> MacroUsesIn(uint32_t function) const;
  std::vector<uint32_t> MacroUsesOf(std::string_view macro) const;  // every use naming `macro`
  // References to declared stubs written on lines [first_line, last_line] of `file`, in line order.
  std::vector<uint32_t> StubReferencesIn(uint32_t file, uint32_t first_line, uint32_t last_line) const;
  std::vector<uint32_t> DtypeDispatchesIn(uint32_t function) const;
  std::vector<uint32_t> LibraryRegistrationsOf(std::string_view function) const;
  // jiterator: `constexpr char abs_name[] = "abs_kernel";` -> "abs_kernel" (file-local first).
  const std::string* StringConstant(uint32_t file, std::string_view name) const;
  // The function whose body holds (file, line), or -1.
  int32_t FunctionAt(uint32_t file, uint32_t line) const;

 private:
  // Lookup `find` answered by this index and its layer: the replaced files'
  // records dropped from this index's answer, the layer's added (ids moved
  // past this index's), all in file order.
  template <typename T, typename Find>
  std::vector<uint32_t> Across(std::vector<T> CppTables::*records, Find find) const;
  template <typename T>
  std::vector<uint32_t> ByName(std::vector<T> CppTables::*records, CppTables::NameTable CppTables::*table,
                               std::string_view key) const;
  // A lookup by function id: a function of the layer is answered by the layer.
  template <typename T>
  std::vector<uint32_t> ByFunction(std::vector<T> CppTables::*records, CppTables::IdTable CppTables::*table,
                                   uint32_t function) const;
};

}  // namespace optrace
