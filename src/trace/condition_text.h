// Reading a guard condition's text for what the path annotator follows:
// the functions it calls (a deciding function: `use_miopen(x)`,
// `_select_conv_backend(...)`), the one local it tests (`switch (backend)`),
// and a cast's operand -- words, not a parse: the conditions are short and
// written by few hands.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace optrace {

// "at::native::foo<T>" -> "foo".
std::string LastName(std::string_view s);
// The same, as a view into `s`: for comparisons on hot paths, which would
// otherwise allocate a copy per name compared.
std::string_view LastNameView(std::string_view s);

// Names of the free functions a condition calls, as qualified there (not
// methods, not casts).
std::vector<std::string> CalledFunctions(std::string_view text);

// A condition that is one local variable, or a comparison of one with a
// constant (`backend == SDPBackend::math`, `mode == 1`); "" for anything
// else -- `dim0 == dim1` compares two values, and neither selects.
std::string LoneVariable(std::string_view text);

// `static_cast<T>(x)` / `T(x)` -> "x"; anything else "".
std::string CastOperand(std::string_view expr);

}  // namespace optrace
