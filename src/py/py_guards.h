// Guard conditions of a line of Python: the `if`/`elif`/`else` headers
// around it (read by indentation, up to the enclosing `def`) and the lone
// `if C:` blocks before it in the same suite that end in `return`/`raise`
// (the line runs "unless C"). F.interpolate picks its op by `mode == ...`,
// nn.ReLU by `inplace`, MultiheadAttention its fast path by a chain of
// early checks: this is how the trace says which call runs when.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace optrace {

struct PyCondition {
  std::string text;      // the condition as written, whitespace collapsed: "mode == 'bilinear'"
  bool negated = false;  // the line runs when it is false (else/elif chain, after an early return)
  int line = 0;          // of the header
  std::string kind;      // "if" | "else" | "return"
};

// One line of a Python file as the readers below see it.
struct PyLine {
  int indent = -1;         // -1: blank, comment, or the continuation of a statement
  std::string_view text;   // stripped of indentation
  bool continued = false;  // inside the brackets (or triple quotes) of an earlier line
};

// A Python file's lines, split once. Whether a line continues a statement
// depends on every line above it, so a split starts at the file's first
// line: a caller that asks about many lines of one file (a trace asks about
// every call of every frame) splits it once with this and passes it to the
// overloads below, which read the same lines the text's own split gives.
class PyFileLines {
 public:
  explicit PyFileLines(std::shared_ptr<const std::string> text);
  // The first `count` lines (all of them when there are fewer).
  std::span<const PyLine> First(size_t count) const;

 private:
  std::shared_ptr<const std::string> text_;  // the lines' views point into it
  std::vector<PyLine> lines_;
};

// Conditions of line `line` (1-based) of `text`, outermost first; empty
// when it is not in a conditional suite.
std::vector<PyCondition> PyLineConditions(std::string_view text, int line);
std::vector<PyCondition> PyLineConditions(const PyFileLines& lines, int line);

// Whether the header on line `line` (1-based) of `text` is a lone `if` --
// no `elif`/`else` follows its suite -- whose suite falls through (ends in
// no return or raise): an optional step (`if not is_batched: input =
// input.unsqueeze(1)`), after which the code goes on either way, rather
// than a pick among forms whose branches each leave.
bool PyOptionalStep(std::string_view text, int line);
bool PyOptionalStep(const PyFileLines& lines, int line);

// The `return` statements of the function whose `def` is on line
// `def_line` (1-based) of `text`, each as its first and last line, leaving
// out nested defs and classes; `complete` when they are its only ways to
// return: its body's last statement leaves (returns or raises, or an
// if/else chain whose every branch does), no `yield` makes it a generator,
// and no `return` hides inside another statement (`if C: return x` on one
// line), which this reading by line would miss.
struct PyReturns {
  std::vector<std::pair<int, int>> statements;
  bool complete = false;
};
PyReturns PyFunctionReturns(std::string_view text, int def_line);
PyReturns PyFunctionReturns(const PyFileLines& lines, int def_line);

// The condition of a conditional expression around the call of `callee`
// written on line `line`: `_VF.dropout_(...) if inplace else _VF.dropout(...)`
// gives "inplace" for the first call and "not inplace" (negated) for the
// second; kind "?:". Only the innermost expression holding the call counts;
// empty when the call is in none (or is not found on that line).
std::vector<PyCondition> PyExpressionConditions(std::string_view text, int line, std::string_view callee);

}  // namespace optrace
