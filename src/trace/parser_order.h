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
#include <set>
#include <string>
#include <string_view>

#include "yaml/yaml_model.h"

namespace optrace {

// Whether the parser tries `a` before `b` (true), after it (false), or
// nothing here says (nullopt). Both are overloads of one name.
std::optional<bool> ParserTriesFirst(const FunctionSchema& a, const FunctionSchema& b);

// Where python_arg_parser.cpp is, and the names of the functions whose
// Tensor parameters its parser lets take a Python number
// (`should_allow_numbers_as_tensors`: add, mul, ...): for any other, a
// number never parses as a Tensor (`x.clamp_min(1e-12)` is clamp_min's
// Scalar overload, never clamp_min.Tensor). Read from the file's text;
// empty when the function is not there.
inline constexpr char kPythonArgParserFile[] = "torch/csrc/utils/python_arg_parser.cpp";
std::set<std::string> NumbersAsTensorsFunctions(std::string_view parser_cpp);

}  // namespace optrace
