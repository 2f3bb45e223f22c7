// Arguments of a Python call bound to the parameters of the `def` it calls,
// read from the text: the user's own call (`F.interpolate(x,
// mode='bicubic', align_corners=True)`), or a call written in torch's code
// (`F.multi_head_attention_forward(..., need_weights=need_weights)`).
// A value is kept as written; whether it is a literal the typical path can
// use (a number, a string, True/False/None, a dtype) is asked separately,
// so that a symbolic argument (`x`, `self.weight`) binds its parameter to
// "unknown" rather than to the parameter's default.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace optrace {

struct PyArgument {
  std::string name;   // keyword; "" for a positional argument
  std::string value;  // as written, whitespace trimmed: "'bicubic'", "True", "x"
};

struct PyParameter {
  std::string name;
  std::optional<std::string> default_value;  // as written: "None", "0.0", "'mean'"
  bool keyword_only = false;                 // after a bare `*` or `*args`
  bool variadic = false;                     // *args or **kwargs itself
};

// "x, mode='bicubic', align_corners=True" split at top-level commas (a
// `*xs` / `**kw` argument is kept positional, value as written).
std::vector<PyArgument> SplitArguments(std::string_view text);

// The parameters of the `def` whose header starts `header` (the text from
// `def` on; annotations dropped, defaults kept). A header cut short gives
// the parameters it holds.
std::vector<PyParameter> ParseParameters(std::string_view header);

// The argument text of the first call of `callee` written on line `line`
// (1-based) of `text`; the call may go on over later lines. nullopt when no
// call of that name opens on that line. A `(...)` in `callee` (the scanner's
// `super(...).__init__`) stands for any arguments written there.
std::optional<std::string> CallArgumentText(std::string_view text, int line, std::string_view callee);

// A call "name(args)" split into its name and its argument text; nullopt
// for a plain name (no trailing balanced argument list).
struct SplitCall {
  std::string name, arguments;
};
std::optional<SplitCall> SplitCallQuery(std::string_view query);

// `arguments` bound to `params`: parameter name -> the value passed. A
// parameter nothing was passed for is absent; *args/**kwargs take nothing.
// A leading `self` / `cls` is skipped when `method` (a bound call).
std::map<std::string, std::string> BindArguments(const std::vector<PyArgument>& arguments,
                                                 const std::vector<PyParameter>& params, bool method);

// The statements writing `name` on lines [from, before) of `text`
// (1-based), in order, each with the value it gives `name`: `name = v` v,
// `name += v` `name + (v)`, a tuple target `a, name = v` `(v)[1]`; a
// value continued over lines is joined.
// Open brackets, an open triple-quoted string and a trailing backslash,
// tracked from line to line: a line read after one that leaves any open
// continues a statement (a multi-line `if (` header, a call's arguments, a
// docstring) and starts none of its own.
struct PyContinuation {
  int depth = 0;
  char triple = 0;  // the quote of an open triple-quoted string
  bool backslash = false;
  bool Continued() const { return depth > 0 || triple != 0 || backslash; }
  void Scan(std::string_view line);
};

// A line of Python without its comment: up to a '#' outside a string
// literal, trimmed (`if not is_batched:  # type: ignore[...]` is `if not
// is_batched:`); the line itself when it has none.
std::string_view CodeOf(std::string_view line);

struct PyAssignment {
  int line = 0;
  int indent = 0;  // columns before the name
  std::string value;
};
// The assignments of `name` on lines [from, before) of `text`, outside the
// defs and classes nested there (a `def`/`class` line at `from` is the
// function's own header).
std::vector<PyAssignment> AssignmentsOf(std::string_view text, int from, int before, std::string_view name);

// Whether every write of local `name` on lines [from, before) of `text`
// reads a size of a tensor -- unpacked from its shape (`tgt_len, bsz,
// embed_dim = query.shape`, `x.size()`) or one of it (`n = x.size(0)`,
// `x.shape[-1]`, `x.dim()`, `x.ndim`, `x.numel()`) -- and there is one.
bool HoldsATensorSize(std::string_view text, int from, int before, std::string_view name);

// What a literal value is when tested by `if`: nullopt when not a literal
// whose truth the text tells ("" and f"" false, a non-empty string true).
std::optional<bool> LiteralTruth(std::string_view value);

// Whether a value as written is a literal the typical path can evaluate:
// a number, a string, True/False/None, or a dtype (`torch.float16`).
bool IsLiteral(std::string_view value);

// What Python's `float(v)`, `int(v)` or `bool(v)` (`builtin`) makes of a
// number or True/False literal `v`: `float(0)` is "0.0", `int(2.5)` "2",
// `bool(0)` "False". nullopt for another builtin or value (a string, a
// number in another notation than plain decimals).
std::optional<std::string> ConvertedLiteral(std::string_view builtin, std::string_view v);

}  // namespace optrace
