// How a function's body uses one local object before a given line: the
// members it assigns (`params.groups = groups_;`), the methods it calls on
// it (`params.view1d_as_2d();`), the calls it is passed to
// (`check_shape_forward(input, weight_sizes, bias, params)`), and any
// other use (its address taken, the whole object assigned or moved).
// The tracer reads a member's value at a call from these: the last
// assignment, unless something after it may have changed the member.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "cpp/cpp_lexer.h"

namespace optrace {

struct ObjectUse {
  enum class Kind { kAssign, kMethodCall, kPassed, kOther };
  Kind kind = Kind::kOther;
  std::string name;        // kAssign: the member; kMethodCall: the method; kPassed: the callee
  std::string value;       // kAssign: the expression assigned, whitespace collapsed
  int position = 0;        // kPassed: which argument (0-based)
  bool top_level = false;  // kAssign: in the body's outermost block, so it always runs
  int line = 0;
};

// The uses of `object` in the body whose braces are tokens `open` and
// `close`, on lines before `before`, in order. A read of a member
// (`params.groups > 1`) is no use.
std::vector<ObjectUse> UsesOfObject(const std::vector<Token>& toks, size_t open, size_t close, int before,
                                    std::string_view object);

}  // namespace optrace
