// Tensor methods and properties bound by hand in C++, read from the
// checkout: the method table of tools/autograd/templates/
// python_variable_methods.cpp (`{"half", ...THPVariable_half...}`) and the
// property table of torch/csrc/autograd/python_variable.cpp
// (`{"mT", (getter)PropertymT::getter, ...}`). For each Python name: the C++
// function bound, and the calls its body makes that may be aten ops
// (`self.to(...)`, `at::matmul(...)`), following the file's own helpers
// (THPVariable_half -> THPVariable_to_type -> dispatch_to -> self.to). The
// tracer keeps the calls that name YAML ops; a binding whose body reaches
// none is reported, not guessed.
//
// This is a reader of C++ text, not a parser: comments and literals are
// skipped, definitions are found by name at the start of a line followed by
// a parameter list and a body, and calls are identifiers before '('.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace optrace {

class Disk;

struct HandBoundCall {
  std::string name;     // "to", "numpy_T"
  bool method = false;  // x.name(...) / x->name(...), else at::name(...)
  int line = 0;
  std::string file;
};

struct HandBinding {
  std::string file;                  // the table's file
  int line = 0;                      // of the table entry
  std::string function;              // "THPVariable_half", "PropertymT::getter"
  std::string kind;                  // "method" | "property"
  std::vector<HandBoundCall> calls;  // in body order, helpers' calls where the helper is called
};

// Python name -> binding, for both tables (a name in both: the method).
using HandBindings = std::map<std::string, HandBinding, std::less<>>;
HandBindings ReadHandBindings(const Disk& disk);

// The calls a C++ function's body makes (as HandBoundCall), following the
// same text's helpers up to `depth` levels. Exposed for tests.
std::vector<HandBoundCall> CallsOfDefinition(std::string_view text, const std::string& file,
                                             const std::string& function, int depth);

}  // namespace optrace
