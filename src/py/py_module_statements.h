// ModuleStatements: the module-level and class-level lines of one Python
// file, read into its PyModule (imports, __all__, aliases); ReadImport: one
// import statement, for the module or a function body.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "py/py_index.h"
#include "py/py_token_view.h"

namespace optrace {

// import a.b as c, d  |  from [.]*x import y as z, (p, q) | *  in tokens
// [b, e); a relative import resolves against `package`.
void ReadImport(const PyTokenView& tokens, size_t b, size_t e, std::string_view package, std::vector<PyImport>* out);

class ModuleStatements {
 public:
  ModuleStatements(const PyTokenView& tokens, PyModule* mod, const std::string& package)
      : t_(tokens), mod_(*mod), package_(package) {}

  // One logical line at module level (cls < 0) or in the body of class cls.
  void Line(size_t b, size_t e, int32_t cls);
  // "RNNBase" -> "torch.nn.modules.rnn.RNNBase" through what the module has
  // bound so far: its imports, classes and aliases ("" when unknown).
  std::string QualifyLocal(size_t b, size_t e) const;

 private:
  // One statement of a line (statements are separated by ';').
  void ModuleStatement(size_t b, size_t e, int32_t cls);
  // A literal list/tuple of strings for __all__ (appended); anything else
  // marks __all__ dynamic, keeping the literal parts.
  void AllLiteral(size_t b, size_t e);

  const PyTokenView& t_;
  PyModule& mod_;
  const std::string& package_;
};

}  // namespace optrace
