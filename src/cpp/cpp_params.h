// What a C++ declaration's parameter list fixes and what a call passes,
// read as facts from the text: a parameter's declared default
// (`Activation activation = Activation::None` in Blas.cpp's
// addmm_out_cuda_impl) binds where a call omits the trailing arguments
// (mm_out_cuda's `addmm_out_cuda_impl(result, result, self, mat2, 0, 1)`),
// and a literal a call passes (`pad(..., "constant")`) is the parameter's
// value in the callee. The trace binds them where its walk enters a
// helper (trace/op_edges.cc), the C++ counterpart of a Python frame's
// bindings (trace/frame_bindings.h).
//
// Only what is written is read: a parameter pack, an argument expression
// or a default naming other parameters is no value (IsCppLiteral).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace optrace {

struct CppParameter {
  std::string name;           // "activation"; "" when the declaration names none
  std::string default_value;  // "Activation::None"; "" when it has none
  std::string type;           // "const Tensor&", "Activation": the declaration without name and default
};

// The parameters of a list as CppFunction::params holds it (without
// parentheses): "const Tensor& self, Activation activation = Activation::None".
// Parsed once per thread and kept (the answer depends on the text alone): a
// trace asks for the same few thousand lists again and again.
const std::vector<CppParameter>& ParseCppParameters(std::string_view params);
// The same list split at its top-level commas, each piece as written (a
// declaration with its default), remembered the same way.
const std::vector<std::string>& ParameterPieces(std::string_view params);

// The arguments, trimmed, of the first call of `callee` (its last name:
// `at::native::f` is called as `f(`, `ns::f(`, `obj.f(`) written from byte
// `begin` of `text` on (a line's start: CppGuardReader::CallArguments finds
// it), never `std::f(`; nullopt when none is there. Comments are dropped
// (`/*forward=*/true` is `true`).
std::optional<std::vector<std::string>> CppCallArgumentsFrom(std::string_view text, size_t begin,
                                                             std::string_view callee);

// A value written as itself: a number, a string or character literal,
// true/false, nullptr, an empty value (IsEmptyValue), or an enum member or
// constant named with its scope (`Activation::None`, `at::kFloat`).
bool IsCppLiteral(std::string_view arg);

// What a value-preserving cast converts: `e` of `static_cast<T>(e)`
// (`static_cast<int64_t>(mode_enum)`: an enum passed as its integer and
// cast back keeps its member); `expr` itself when it is no such cast.
std::string_view StaticCastOperand(std::string_view expr);

// A default-constructed value passed as itself: `{}`, `Tensor()`,
// `std::nullopt` -- an undefined tensor, an empty optional (a helper's
// `out.defined()` is false where its caller passes `{}`).
bool IsEmptyValue(std::string_view arg);

}  // namespace optrace
