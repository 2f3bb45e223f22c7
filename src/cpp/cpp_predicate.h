// What a C++ predicate returns, as one boolean expression of its
// parameters: the tracer inlines it into a condition that calls it
// (trace/inline_predicates.h), so the typical-path vocabulary decides
// `cudnn_is_acceptable(input)` from what its body checks -- the device,
// the dtype, the library switch -- instead of from its name.
//
// Only straight-line bodies are read; anything else gives "":
//
//   bool p(const Tensor& self) {
//     auto st = self.scalar_type();                 // a local: substituted
//     if (!self.is_cuda()) return false;            // a guard: !(C) && ...
//     if (st == kHalf) return true;                 // a guard: (C) || ...
//     bool ok = A && B;                             // a flag ...
//     if (ok) { for (...) { ok = ok && X; } }       // ... only narrowed
//     return ok;                                    // (A && B) && (X)
//   }
//
// A narrowing inside a loop is kept as written (`X` reads the loop's
// variable, so it stays open): the predicate is at most its first value.
// At any other statement (a call, a loop outside a narrowing block, an
// `else`, a write the reader cannot follow) reading stops: the guards
// before it still decide where they return (`if (!iter.device().is_cpu())
// return false;` on CUDA), and what follows is kUnreadRest, an atom no
// vocabulary decides. A body with no guard before such a statement is not
// read; the caller leaves out bodies with preprocessor directives.
#pragma once

#include <string>
#include <vector>

#include "cpp/cpp_lexer.h"

namespace optrace {

// What a predicate returns after the statement its reader stopped at.
inline constexpr char kUnreadRest[] = "unread_rest_of_the_predicate()";

// The expression the body whose braces are tokens `open` and `close` of
// `toks` returns; "" when it reads no guard before a statement it cannot read.
std::string PredicateExpression(const std::vector<Token>& toks, size_t open, size_t close);

}  // namespace optrace
