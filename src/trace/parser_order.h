// The order in which torch's Python argument parser tries the overloads of
// one function, as tools/autograd/gen_python_functions.py's sort_overloads
// writes them into the generated parser: by signature text, then any
// overload whose every argument is of a type the other's is preferred over
// (a Tensor over a Scalar, an int over an int list, ...) before it. A call
// that several overloads fit takes the first one that parses, so a call
// with default arguments between conv2d and conv2d.padding (which need the
// same arguments) is conv2d's. Only what this file can render exactly is
// answered: an argument type it does not know leaves the order unknown.
#pragma once

#include <optional>

#include "yaml/yaml_model.h"

namespace optrace {

// Whether the parser tries `a` before `b` (true), after it (false), or
// nothing here says (nullopt). Both are overloads of one name.
std::optional<bool> ParserTriesFirst(const FunctionSchema& a, const FunctionSchema& b);

}  // namespace optrace
