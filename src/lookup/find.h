// The `find` answer, computed once for `optrace find` and the MCP `find`
// tool: everything the index knows about one name -- C++ definitions and
// macros, the dispatch stub of that name (declaration, registrations), what
// registers it (stub target, TORCH_LIBRARY impl, a native_functions.yaml
// dispatch entry), the aten ops of that name, kernel launches of it and in
// it, macro uses, callers, and Python definitions. Each list holds index ids
// (or entries of the YAML model), so every front end prints file:line from
// the same facts in its own form; nothing here formats.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "index/index.h"

namespace optrace {

struct FindAnswer {
  std::string query;      // as asked
  std::string name;       // the identifier looked up: "add" for at::native::add; "" for a Python dotted name
  std::string qualified;  // "at::native::add" when asked qualified: definitions end with it
  std::vector<const NativeFunction*> ops;       // aten ops of that name (aten::add.Tensor, add)
  std::vector<uint32_t> definitions;            // CppIndex::functions()
  std::vector<uint32_t> macros;                 // CppIndex::macros() named so
  std::vector<uint32_t> stub_decls;             // DECLARE/DEFINE_DISPATCH of the stub `name`
  std::vector<uint32_t> stub_registrations;     // REGISTER_DISPATCH of the stub `name`
  std::vector<uint32_t> registered_as_target;   // stub registrations whose kernel is `name`
  std::vector<uint32_t> library_registrations;  // TORCH_LIBRARY(_IMPL) of the function or the aten op
  std::vector<std::pair<const NativeFunction*, std::string>> dispatch;  // YAML entries dispatching to `name`, with key
  std::vector<uint32_t> launches_of;     // launches of `name` (<<<>>>, jiterator string, functor), by id
  std::vector<uint32_t> launches_in;     // launches inside its definitions
  std::vector<uint32_t> macro_launches;  // launches inside the macro `name`
  std::vector<uint32_t> macro_uses;      // CppIndex::macro_uses() of the macro `name`
  std::vector<uint32_t> callers;         // CppIndex::calls() whose callee is `name`
  std::vector<PySymbol> python;          // the Python definition, under the usual spellings (py.h)
  std::vector<std::string> suggestions;  // when nothing was found: the closest known names

  bool found() const;
};

FindAnswer FindName(const Index& index, std::string_view query);

}  // namespace optrace
