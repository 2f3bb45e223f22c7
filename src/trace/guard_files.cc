// Kept in Index::Derived under "cpp_guards:<file>" and "py_lines:<file>":
// the text the reader's tokens (the lines' views) point into lives as long
// as they do.
#include "trace/guard_files.h"

#include <memory>

namespace optrace {

namespace {

struct GuardFile {
  explicit GuardFile(std::shared_ptr<const std::string> t)
      : text(t ? std::move(t) : std::make_shared<const std::string>()), reader(*text) {}
  std::shared_ptr<const std::string> text;  // the reader's views point into it
  CppGuardReader reader;
};

}  // namespace

const CppGuardReader& GuardReaderOf(const Index& index, const std::string& file) {
  return index.Derived<GuardFile>("cpp_guards:" + file, [&] { return GuardFile(index.FileText(file)); }).reader;
}

const PyFileLines& PyLinesOf(const Index& index, const std::string& file) {
  return index.Derived<PyFileLines>("py_lines:" + file, [&] { return PyFileLines(index.FileText(file)); });
}

}  // namespace optrace
