// CallRecorder: records the calls and operators a function body's lines
// make into a PyModule's functions (py_scan.cc's conventions). The block
// walk hands it one logical line at a time with the function it belongs to.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "py/py_index.h"
#include "py/py_token_view.h"

namespace optrace {

class CallRecorder {
 public:
  // `package`: the module's package, for a function's relative imports.
  CallRecorder(const PyTokenView& tokens, PyModule* mod, const std::string& package)
      : t_(tokens), mod_(*mod), package_(package) {}

  // The logical line [b, e) of function `fn`'s body: its imports, calls and
  // operators (an annotation's are none).
  void Line(size_t b, size_t e, int32_t fn);

 private:
  // Calls and operators in tokens [b, e) into function `fn`.
  void CollectCalls(size_t b, size_t e, int32_t fn, int lambda_depth);
  // lambda params: body -- a function "<lambda>" of its own. Returns the
  // index past the lambda body.
  size_t Lambda(size_t i, size_t e, int32_t outer, int lambda_depth);
  // Operator token i (in a statement ending before e), with its operands.
  void AddOperator(int32_t fn, std::string_view op, size_t i, size_t e);
  // A unary operator at i: recorded as "u-" / "u~" with its operand (args
  // "\toperand": no left side).
  void AddUnary(int32_t fn, std::string_view op, size_t i, size_t e);
  // A call whose '(' is token `open`.
  void AddCall(int32_t fn, size_t open);
  // Token i is a binary operator (it follows an operand): its precedence, else 0.
  int BinaryAt(size_t i) const;
  // First token of the left operand of the operator at i.
  size_t LeftOperand(size_t i, int prec, bool* cut) const;
  // Index past the right operand starting at b (statement ends before e).
  size_t RightOperand(size_t b, size_t e, int prec) const;

  const PyTokenView& t_;
  PyModule& mod_;
  const std::string& package_;
};

}  // namespace optrace
