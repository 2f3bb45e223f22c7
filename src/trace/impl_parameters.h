// The names an op's C++ implementation gives its schema arguments. C++
// binds arguments by position, and a kernel may call a schema argument by
// a name of its own (native_functions.yaml's `bool replacement=False` is
// `bool with_replacement` in the kernel's definition, `int? dim=None` is
// `std::optional<int64_t> opt_dim`): a condition the kernel writes on its
// own name reads the value the schema argument holds there -- its default,
// or what the Python call passes -- and so does a helper the kernel hands
// that parameter on to unchanged.
//
// Only a plain function's parameter list is read, and only where it has
// exactly one parameter per schema argument (a structured kernel's
// TORCH_IMPL_FUNC takes what its meta function computed, not the schema's
// arguments); implementations that name one argument differently leave
// it unnamed.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "trace/trace.h"

namespace optrace {

// A schema argument's value as the implementation's parameter holds it:
// `None` is an empty optional (`opt_dim.has_value()` is false).
std::string AsCppArgument(const std::string& schema_value);

// The C++ parameter names of `op`'s implementations that differ from the
// schema argument at their position: C++ name -> schema argument name.
std::map<std::string, std::string> ImplParameterNames(const OpStep& op);

// The C++ names a structured kernel's TORCH_IMPL_FUNC gives the op's out=
// arguments: its last parameters, one per out= argument, in order (its
// others may be what the meta function precomputed): C++ name -> schema
// argument name (index_add_cuda_out's `result` -> `out`).
std::map<std::string, std::string> OutParameterNames(const OpStep& op);

// The value `values` (schema arguments and the names ImplParameterNames
// adds) gives `name` where `name` is a parameter of `op`'s implementation
// `fn`, as that parameter holds it (AsCppArgument); nullopt for a local or
// a name the values do not hold.
std::optional<std::string> ImplParameterValue(const OpStep& op, const std::string& fn, const std::string& name,
                                              const std::map<std::string, std::string>& values);

}  // namespace optrace
