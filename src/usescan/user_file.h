// UserFile: a user's Python file, scanned (ScanPyFile with module-level
// code), with its lines and the lookups the scan makes of its own names.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "py/py_index.h"
#include "py/py_values.h"

namespace optrace {

// How many base classes up a hierarchy a user's file is read: its own
// classes (LocalMethod, and the scan's KindOf) derive a few levels deep; the
// bound stops a cycle of bases, which Python refuses but a scan may still read.
inline constexpr int kMaxLocalBaseDepth = 16;

class UserFile {
 public:
  // `text` must outlive this object (the lines are views into it); each
  // lookup adds one to *work.
  UserFile(std::string_view path, std::string_view text, uint64_t* work);

  const PyModule& mod() const { return mod_; }
  // Line `line` (1-based) of the file, "" past its end.
  std::string_view Line(uint32_t line) const { return line >= 1 && line <= lines_.size() ? lines_[line - 1] : ""; }
  size_t line_count() const { return lines_.size(); }
  // The class function f is a method of, or -1.
  int32_t OwnerClass(uint32_t f) const { return mod_.functions[f].class_index; }
  // The functions of that qualname, in file order (empty when none).
  const std::vector<size_t>& FunctionsNamed(const std::string& qualname) const;
  // The dotted name an expression's first component stands for through the
  // file's imports (and the function's own), or "" when it is no import.
  std::string ExpandImport(std::string_view expr, int32_t fn) const;
  // The file's first class named `name`, or -1.
  int32_t LocalClass(std::string_view name) const;
  // The file's first function (not a method) with qualname `name`, or -1.
  int32_t LocalFunction(std::string_view name) const;
  // A method of a local class or of the local classes it derives from.
  int32_t LocalMethod(uint32_t cls, std::string_view name, int depth = 0) const;
  // The line span of the bracket group opening at the first '(' after
  // `callee` on `line`: where a container's children are written.
  uint32_t SpanEnd(uint32_t line, std::string_view callee) const;
  // "self.proj" bound on this line right before `callee`, else "".
  std::string BoundAttr(uint32_t line, std::string_view callee) const;
  // Loop variables bound to a container: `for layer in self.layers:`.
  std::map<std::string, std::string> LoopBindings(uint32_t f) const;
  // The text of function f's def header (up to the line ending in ':').
  std::string Header(uint32_t f) const;
  std::vector<Assignment> AssignmentsOf(uint32_t f) const;

 private:
  PyModule mod_;
  std::vector<std::string_view> lines_;
  uint64_t* work_;
  // Lookups by name, so the scan stays linear in the file's size (the first
  // class / function of a name wins, as a walk from the top would find).
  std::unordered_map<std::string, size_t> class_by_name_, plain_function_by_qualname_;
  std::unordered_map<std::string, std::vector<size_t>> function_by_qualname_;  // in file order
};

}  // namespace optrace
