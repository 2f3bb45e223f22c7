// The returns of a function body in source order, each with the `if` /
// `else` conditions around it: what a selection function returns is the
// first return whose conditions hold, once every earlier one's are ruled
// out (straight code: nothing between the returns decides anything else).
//
//   ConvBackend select(...) {
//     if (a) { return X; }                  // X under (a)
//     if (b) {
//       if (c) return Y; else return Z;     // Y under (b, c); Z under (b, !c)
//     } else if (d) { return W; }           // W under (!b, d)
//     TORCH_CHECK(...);                     // stepped over
//     return V;                             // V under nothing
//   }
//
// A body with a return inside a loop, a `switch` or a `try` (a lambda's
// there too), or a statement the reader cannot step over (a label,
// `goto`), is not read; a return inside a lambda elsewhere is the
// lambda's, not the function's.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cpp/cpp_lexer.h"

namespace optrace {

struct GuardedReturn {
  struct Guard {
    std::string text;      // as written, whitespace collapsed
    bool negated = false;  // an `else` branch: the condition is false there
    // A loop's body (`text` its head): whether it runs, and how often, is not read.
    bool loop = false;
  };
  std::vector<Guard> guards;  // outermost first
  std::string value;          // the returned expression; "" for `return;`
  int line = 0;
};

// The returns of the body whose braces are tokens `open` and `close` of
// `toks`. With `loops`, a `for` or `while` loop's returns are read too, each
// under a `loop` guard (can_use_expanded_index_path's `for (...) if (...)
// return false;`): for readers that ask which returns may be reached, never
// which one is.
std::optional<std::vector<GuardedReturn>> GuardedReturns(const std::vector<Token>& toks, size_t open, size_t close,
                                                         bool loops = false);

}  // namespace optrace
