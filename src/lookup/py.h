// The `py` answer, computed once: which Python definition a name means
// (dotted, re-exported, or the shorthands nn.X -> torch.nn.X, F.x ->
// torch.nn.functional.x, Tensor.x -> torch.Tensor.x, anything else also under
// "torch."), what the index knows about it (file:line, decorators, calls; for
// a class its resolved bases, methods and which forward it runs; for an alias
// what it stands for), and the names next to where resolution stopped when
// nothing matches. `optrace py` and `find` (its Python definitions) use it.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "py/py_index.h"

namespace optrace {

// The spellings of what the user typed, most literal first.
std::vector<std::string> PythonSpellings(const std::string& symbol);

// The first spelling that resolves; kind kNone when none does.
PySymbol ResolvePython(const PyIndex& index, const std::string& symbol);

struct PyLocation {
  std::string path;
  uint32_t line = 0;  // 0 for a module
};
PyLocation LocatePython(const PyIndex& index, const PySymbol& s);

// "class", "function", "alias", "import", "module".
const char* PythonKindName(PySymbol::Kind kind);

// The JSON `optrace py --json` prints (without "query" and "found").
nlohmann::json DescribePython(const PyIndex& index, const PySymbol& s);

// For a name that resolves to nothing: members of the module or class where
// resolution stopped that are near its last part, under every spelling.
std::vector<std::string> SuggestPython(const PyIndex& index, const std::string& symbol);

}  // namespace optrace
