// What kind of value a Python expression holds, as far as the text tells
// without running it: a scalar (int, float, bool, str, None, a shape tuple
// and its items -- `x.shape`, `x.size(1)`, `len(xs)`, `C // self.n_heads`),
// a plain container (a list, dict or set literal or constructor), a tensor
// (a parameter annotated `Tensor`, arithmetic on one, a tensor method's
// result), a sequence of tensors (a call of a function annotated
// `-> List[Tensor]` or `-> Tuple[Tensor, Tensor]`, a Tensor method returning
// `Tensor[]`: `x.chunk(3)`), or unknown. `optrace scan` asks it so that int arithmetic and a
// `set.add` never become Tensor ops (an operator counts unless both operands
// are known not to be tensors); the tracer asks it which operators of
// torch's own Python code are tensor operators (an operand must be known to
// be a tensor). Unknown stays unknown; nothing here guesses.
//
// Names learn their kind from assignments (`B, T, C = x.size()`,
// `hd = C // self.n_heads`), parameters from an annotation (`n: int`), a
// literal default (`eps=1e-6`) or a Tensor-only method called on them
// (`input.abs()`), and `self.attr` from every assignment to it
// in the class (all must be scalar). A tuple target unpacks a sequence of
// tensors into tensors (`q, k, v = _in_projection_packed(...)`): what the
// function's annotation promises, item by item. Which Tensor methods and attributes
// return no tensor is asked of the caller (the checkout's YAML schemas).
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace optrace {

enum class ValueKind { kUnknown, kScalar, kContainer, kTensor, kTensors };

// Whether a Tensor method called as `recv.name(...)` returns a scalar
// (true: size, dim, numel, item ...), and whether `recv.name` read as an
// attribute is one (shape, dtype, device, ndim ...).
struct TensorFacts {
  std::function<bool(std::string_view method)> method_returns_scalar;
  std::function<bool(std::string_view attr)> attr_is_scalar;
  // Whether `recv.name(...)` on a tensor returns a tensor (a YAML method
  // returning one); unset: never known.
  std::function<bool(std::string_view method)> method_returns_tensor;
  // Whether it returns a list of tensors (a YAML method returning
  // `Tensor[]`: chunk, split, unbind); unset: never known.
  std::function<bool(std::string_view method)> method_returns_tensors;
};

// The names an expression can see: locals and parameters of one function,
// `self.` attributes of its class, and modules imported as math-like
// libraries (their calls return scalars: "math").
class ValueScope {
 public:
  explicit ValueScope(const TensorFacts* facts) : facts_(facts) {}
  void SetLocal(const std::string& name, ValueKind kind) { locals_[name] = kind; }
  // `name`: "n_heads" for self.n_heads, or "proj.in_features" for an attribute of the layer self.proj.
  void SetAttr(const std::string& name, ValueKind kind) { attrs_[name] = kind; }
  void AddScalarModule(const std::string& local_name) { scalar_modules_.push_back(local_name); }
  // What a call written `callee(...)` returns, known from its definition
  // (a function of torch annotated `-> Tensor`): it wins over the builtins,
  // which a module's own `def sum` shadows.
  void SetCallResult(const std::string& callee, ValueKind kind) { call_results_[callee] = kind; }
  const std::unordered_map<std::string, ValueKind>& locals() const { return locals_; }
  // Whether `recv.m(...)` on a tensor returns one (TensorFacts).
  bool MethodReturnsTensor(std::string_view m) const {
    return facts_ && facts_->method_returns_tensor && facts_->method_returns_tensor(m);
  }

  // The kind of the value `expr` (as written, any spacing) evaluates to.
  ValueKind KindOf(std::string_view expr) const;
  bool NotTensor(std::string_view expr) const {
    ValueKind k = KindOf(expr);
    return k == ValueKind::kScalar || k == ValueKind::kContainer;
  }

 private:
  ValueKind PrimaryKind(std::string_view e, int depth) const;
  ValueKind ExprKind(std::string_view e, int depth) const;
  ValueKind CallKind(std::string_view callee, std::string_view args, int depth) const;
  const TensorFacts* facts_;
  std::unordered_map<std::string, ValueKind> locals_, attrs_, call_results_;
  std::vector<std::string> scalar_modules_;
};

// One assignment `targets = value` read from a source line: the targets
// split at top-level commas ("B", "T", "C"; "self.n_heads").
struct Assignment {
  std::vector<std::string> targets;
  std::string value;
};
// The assignment a logical line makes, if it is one (not ==, <=, a keyword
// argument, or an augmented assignment).
bool ParseAssignment(std::string_view line, Assignment* out);
// Learns locals from the assignments, in text order, each value read with
// the bindings before it: a target gets the value's kind, or, for a tuple
// target from a scalar value (shape unpacking), kScalar each. A name (or a
// parameter already in the scope, unknown ones included) bound to two kinds
// ends kUnknown.
void LearnAssignments(const std::vector<Assignment>& assignments, ValueScope* scope);
// Learns the parameters of unknown kind that a body uses as tensors: the
// receiver of a call written `param.m(...)` (`callees` as written:
// "input.abs") where m is a Tensor method returning a tensor that no Python
// builtin type (str, list, dict, set, tuple, int, float) has -- nothing else
// in torch's code answers `input.abs()` or `x.tanh()`.
void LearnTensorReceivers(const std::vector<std::string>& params, const std::vector<std::string>& callees,
                          ValueScope* scope);
// Parameters of a def header's text ("def f(self, x, n: int = 4, eps=1e-6):")
// with a scalar annotation (int, float, bool, str) or a literal default.
std::vector<std::string> ScalarParams(std::string_view header);
// Parameters annotated `Tensor` or `Optional[Tensor]`.
std::vector<std::string> TensorParams(std::string_view header);
// Whether a def header's text annotates the return `Tensor` (`-> Tensor:`,
// `-> torch.Tensor:`).
bool ReturnsTensor(std::string_view header);
// Whether it annotates a sequence of tensors, every item a `Tensor` (never
// `Optional[Tensor]`): `-> List[Tensor]:`, `-> Tuple[Tensor, Tensor]:`,
// `-> tuple[Tensor, ...]:`.
bool ReturnsTensors(std::string_view header);
// How many brackets a line leaves open (strings and a comment skipped): a
// statement continues on the next line while it is above 0.
int OpenBrackets(std::string_view line);
// The line without its comment (a '#' outside strings and what follows).
std::string_view WithoutComment(std::string_view line);

// The strings of the set, list or tuple literal a module assigns to `name`
// at its top level (tools/autograd/gen_variable_type.py's
// `DONT_REQUIRE_DERIVATIVE = {"empty_like", ...}`), read from tokens;
// empty when there is no such assignment or the literal holds anything but
// strings.
std::vector<std::string> StringsAssigned(std::string_view source, std::string_view name);

}  // namespace optrace
