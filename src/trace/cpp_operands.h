// What C++ code holds a Tensor, and what a call's arguments are, read from
// a function body's text (the tracer's own reading; see cpp_operands.cc).
// Used by the walk (trace_calls.cc, trace_walk_facts.cc) to take C++
// operators for aten ops only on Tensors, and an op call for the overloads
// its arguments admit.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cpp/cpp_index.h"
#include "yaml/yaml_model.h"

namespace optrace {

// Whether an op's schema returns a Tensor (or several, or a list of them).
bool ReturnsTensor(const NativeFunction& fn);
// "Tensor", "const at::Tensor&", "std::optional<Tensor>"; not "TensorIterator", "TensorList".
bool IsTensorType(std::string_view type);
// The identifiers of `body` (whose first line is `body_line`) passed as a
// call's whole argument -- `f(a, name)`, not `name(...)` nor `g(name + 1)` --
// each with its line.
std::vector<std::pair<std::string, uint32_t>> NamesPassedAsArguments(std::string_view body, uint32_t body_line);
// The identifiers of `body` assigned whole to a variable -- `auto f = name;`,
// `f = name<T, 2>;`, not `f = name(x);` nor `a == name;` -- each with its line:
// a function pointer the body may call or launch (f<<<...>>>(...)).
std::vector<std::pair<std::string, uint32_t>> NamesAssigned(std::string_view body, uint32_t body_line);
// The expression a structured binding naming `name` unpacks (`auto [U, S, V] =
// input.svd();` gives "input.svd()"), "" when none.
std::string BindingInitializer(std::string_view body, std::string_view name);
// The expression `name` is first assigned in `body` ("" when none).
std::string Initializer(std::string_view body, std::string_view name);
// The declared type of `name` in a parameter list or a body's text ("" when
// not found, or declarations disagree).
std::string DeclaredType(std::string_view params, std::string_view body, std::string_view name);

// Whether the only mention of `name` in `body` declares it a Tensor value
// without an initializer (`at::Tensor result, unused;`): default-constructed,
// an undefined Tensor, and nothing there writes it.
bool OnlyDeclaredTensor(std::string_view body, std::string_view name);

// The arguments written at call `c` in `body` (a function body whose first
// line is `body_line`), split at top-level commas; nullopt when the call's
// text is not found there (written by a macro, split oddly).
std::optional<std::vector<std::string>> CallArguments(std::string_view body, uint32_t body_line, const CppCall& c);
// What an argument as written is: 't' a Tensor variable, 'n' a number (a
// literal, or a variable of an arithmetic or Scalar type), 's' a string
// literal, 'd' a dtype (a ScalarType variable, constant -- `at::kFloat`,
// `ScalarType::Long` -- or `x.scalar_type()`), 'l' a list of sizes (a
// variable declared IntArrayRef, DimVector, std::vector<int64_t>, ...),
// 'B' a braced list of two elements or more, not all read (a list of some
// kind: never a single value), '?' not known (an expression, an undeclared name).
// An `auto` local initialised by arithmetic on numbers and sizes is a
// number (`depth`: how many such locals deep the reading is).
char ArgumentKind(std::string_view params, std::string_view body, std::string_view arg, int depth = 0);
// Whether an overload can take arguments of these kinds in C++ (after self
// for a method call): their count within its required..all -- at least
// `cpp_required` (NativeFunction::CppRequiredArguments) --, and no
// argument of a kind C++ cannot convert to its parameter's type.
bool AdmitsArguments(const FunctionSchema& schema, bool method, const std::vector<char>& kinds,
                     size_t cpp_required = 0);
// How many arguments an overload takes through a user-defined conversion
// -- a number as a list of one element (`int64_t` into `IntArrayRef`), a
// dtype into the TensorOptions that packs an overload's keyword-only
// dtype, layout and device: among the overloads a call admits, C++ picks
// one needing the fewest, so `self.split(split_size, dim)` with a number
// is split.Tensor, never split.sizes, and `self.to(x.scalar_type())` is
// to.dtype, never to.dtype_layout.
size_t ListConversions(const FunctionSchema& schema, bool method, const std::vector<char>& kinds);
// Of overloads admitted, each with its ListConversions, the ones C++
// overload resolution keeps: those needing the fewest.
std::vector<const NativeFunction*> FewestConversions(
    const std::vector<std::pair<const NativeFunction*, size_t>>& admitted);

// A call's arguments as written, by kind (ArgumentKind's letters; after
// self for a method call).
struct WrittenArguments {
  bool method = false;
  std::vector<char> kinds;
};
// Of `overloads`, those a call with these arguments binds to: admitted
// (AdmitsArguments), the fewest conversions (FewestConversions).
std::vector<const NativeFunction*> OverloadsAdmitting(const std::vector<const NativeFunction*>& overloads,
                                                      const WrittenArguments& written);

}  // namespace optrace
