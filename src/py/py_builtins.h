// Python's builtin names: what a bare name call in a frame means when the
// module neither defines nor imports it -- a builtin (`len(x)`,
// `isinstance(...)`, `ValueError(...)`), or else a value the frame holds (a
// parameter, a local, a loop variable: `for mod in self.layers: mod(x)`),
// known only when the code runs.
#pragma once

#include <string_view>

namespace optrace {

// A builtin function, type or constant of Python 3, or a builtin exception
// or warning class.
bool IsPythonBuiltin(std::string_view name);

}  // namespace optrace
