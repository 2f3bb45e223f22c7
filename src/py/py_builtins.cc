// The builtins module's names (Python 3.8-3.13), exceptions by their suffix.
#include "py/py_builtins.h"

#include <algorithm>
#include <iterator>

namespace optrace {

bool IsPythonBuiltin(std::string_view name) {
  static constexpr std::string_view kNames[] = {"__import__",  "abs",
                                                "aiter",       "all",
                                                "anext",       "any",
                                                "ascii",       "bin",
                                                "bool",        "breakpoint",
                                                "bytearray",   "bytes",
                                                "callable",    "chr",
                                                "classmethod", "compile",
                                                "complex",     "delattr",
                                                "dict",        "dir",
                                                "divmod",      "enumerate",
                                                "eval",        "exec",
                                                "exit",        "filter",
                                                "float",       "format",
                                                "frozenset",   "getattr",
                                                "globals",     "hasattr",
                                                "hash",        "help",
                                                "hex",         "id",
                                                "input",       "int",
                                                "isinstance",  "issubclass",
                                                "iter",        "len",
                                                "list",        "locals",
                                                "map",         "max",
                                                "memoryview",  "min",
                                                "next",        "object",
                                                "oct",         "open",
                                                "ord",         "pow",
                                                "print",       "property",
                                                "quit",        "range",
                                                "repr",        "reversed",
                                                "round",       "set",
                                                "setattr",     "slice",
                                                "sorted",      "staticmethod",
                                                "str",         "sum",
                                                "super",       "tuple",
                                                "type",        "vars",
                                                "zip",         "NotImplemented",
                                                "Ellipsis"};
  if (std::find(std::begin(kNames), std::end(kNames), name) != std::end(kNames)) return true;
  for (std::string_view suffix :
       {"Error", "Exception", "Warning", "Exit", "Interrupt", "StopIteration", "StopAsyncIteration"})
    if (name.ends_with(suffix)) return true;
  return false;
}

}  // namespace optrace
