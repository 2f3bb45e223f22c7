// Kept in Index::Derived under "cpp_guards:<file>": the text the reader's
// tokens point into lives as long as the reader.
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

}  // namespace optrace
