// The objects declared in scope at a line of a function body: those of the
// line's own block and of every block enclosing it, declared above the
// line. RAII guards are such objects -- `at::NoGradGuard no_grad;`,
// `c10::AutoDispatchBelowAutograd mode;`, `AutoGradMode grad_mode(false);`
// -- and they hold for every call below them until their block closes, so
// the tracer asks this reader whether a call runs with autograd off.
//
// Read backwards from the line's first token: a block closed before the
// line (a `}` met first) is skipped with everything in it, so a guard in a
// sibling block or an earlier function never counts. A declaration is
// `Type name;`, `Type name(args);` or `Type name{args};`, the type possibly
// qualified (`c10::`) or const; the type is reported by its last name.
#pragma once

#include <string>
#include <vector>

#include "cpp/cpp_lexer.h"

namespace optrace {

struct ScopedObject {
  std::string type;                    // "NoGradGuard" (qualification dropped)
  std::string name;                    // "no_grad"
  std::vector<std::string> arguments;  // each as written: {"false"}
  int line = 0;
};

// The objects in scope at `line`, nearest first, looking at most
// `lines_back` lines above it (a function body is no longer).
std::vector<ScopedObject> ObjectsInScopeAt(const std::vector<Token>& toks, int line, int lines_back);

}  // namespace optrace
