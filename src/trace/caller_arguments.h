// What a C++ caller passes the op it calls, so that the callee's own
// conditions on its parameters are decided where the caller fixes them:
// `convolution` calls `at::_convolution(..., transposed, output_padding,
// groups, ...)` with its own `transposed`, which `conv2d` passes as the
// literal `false`; `_convolution`'s `if (transposed_)` then reads false.
//
// The call site is the one the edge's conditions were read at
// (OpStep::called_at). Its arguments bind to the callee's schema
// arguments by position (a method call's receiver is `self`); each is
//
//   * a literal: `true`/`false`, a number, `std::nullopt` (None), a string,
//     a qualified constant (`at::Reduction::Mean`);
//   * a parameter of the caller's own implementation, when the call is
//     written in that function's body: whatever the caller's parameter
//     holds (its default, or what its own caller passes);
//   * anything else: unknown -- the callee's schema default no longer
//     applies, for the caller chose the value.
//
// Calls the positions cannot be trusted for are not read: an out=
// overload (the C++ API moves `out` first), a factory (it packs dtype,
// layout and device into TensorOptions), a call passing fewer arguments
// than the schema requires or more than it has.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cpp/cpp_guards.h"
#include "cpp/cpp_params.h"
#include "trace/path_values.h"
#include "trace/trace.h"

namespace optrace {

// A qualified constant (`at::Reduction::Mean`, `ConvBackend::Cudnn`): no
// call, no operator, at least one `::`.
bool IsQualifiedConstant(std::string_view s);

// A C++ literal argument in the schema's spelling (`false` -> `False`,
// `std::nullopt` -> `None`, `{}` -> `None` for an `optional` parameter, a
// number without its suffix, a string, a qualified constant); nullopt
// for anything else.
std::optional<std::string> LiteralValue(std::string_view arg, bool optional);

// `op`'s implementation, written as a plain function, whose body holds
// `where`: only there do its parameters' names mean them.
const ImplStep* ImplementationHolding(const Index& ix, const OpStep& op, const Location& where);

// The parameter of the function defined at `from_line` (its `params`)
// that local `name` views at line `before`: the optional Tensor idiom
// `c10::MaybeOwned<Tensor> b = at::borrow_from_optional_tensor(x); const
// Tensor& t = *b;` (with plain copies `auto bias = bias_r;` on the way),
// followed a few steps to parameter x. "" when it is no such view.
std::string ViewedParameter(const CppGuardReader& reader, int from_line, int before, const std::string& name,
                            const std::vector<CppParameter>& params);

// What parameter `name` of implementation `im` holds at `site`: its value
// under `values`, unless the body assigns it before the call; a local
// viewing a parameter (ViewedParameter) holds what that parameter does.
std::optional<std::string> ParameterAt(const ImplStep& im, const std::string& name, const Location& site,
                                       const CppGuardReader& reader, const Assumptions& values);

// What `parent`'s call of `child` written at `site` (read by `reader`,
// the guard reader of that file) passes child's schema arguments by name,
// under `parent_values` (parent's AssumptionsOf): a value, or nullopt for
// one the caller chose but the trace cannot know. nullopt when the call is
// not read.
std::optional<PassedArguments> CppCallerArguments(const Index& ix, const OpStep& parent, const OpStep& child,
                                                  const Location& site, const CppGuardReader& reader,
                                                  const Assumptions& parent_values);

// What every call site of `child` passes alike (an argument a site does
// not pass is its schema default), unknown where they differ; nullopt
// when that is child's schema defaults.
std::optional<PassedArguments> AgreedArguments(const OpStep& child, const std::vector<PassedArguments>& sites);
// Where another call site of `child` is not read: no value is learned, but
// a schema default that one of the read `sites` does not pass (it passes
// another value, or one the trace cannot know) is no longer child's --
// unknown; nullopt when every read site keeps the defaults.
std::optional<PassedArguments> ContradictedDefaults(const OpStep& child, const std::vector<PassedArguments>& sites);

}  // namespace optrace
