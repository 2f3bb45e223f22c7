// The backward and the decompositions (BackwardTracer).
//
// Backward: for each forward op, the derivatives.yaml entry with exactly its
// schema (per overload). An op that only has a CompositeImplicitAutograd
// kernel for CPU/CUDA has no backward of its own: autograd differentiates
// the ops its C++ calls, which are in the trace. An op that only other
// kernels call (CUDA, CPU, CompositeExplicitAutograd code, below their
// autograd kernels), that is called under a no-grad guard, or that is
// called on a tensor a factory op just made with no other tensor given
// (`at::empty({}).random_(gen)`), or that Python calls only on a module
// buffer with literals (`self.num_batches_tracked.add_(1)`: nothing it is
// given requires grad) is never recorded: its entry is listed
// with `below_autograd`, never on the path, and the ops its formula names
// are not traced (they never run). The
// formulas name backward ops directly (_softmax_backward_data(...)), as
// tensor methods (grad.sum(...)), as FunctionsManual.cpp helpers (resolved to
// the aten ops their bodies call) and as C++ operators on tensors (grad *
// result is mul); those ops are traced in turn with role "backward".
//
// Decompositions: @register_decomposition(aten.x...) sites in torch/_decomp,
// torch/_refs and torch/_inductor, aten.x.default.py_impl(...) ones, and
// functions decorated by a factory that registers what it decorates
// (torch._refs' @_make_elementwise_unary_reference(...) def rsqrt), matched
// to the ops of the trace by name and overload.
#include <algorithm>
#include <cctype>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <regex>
#include <set>
#include <shared_mutex>
#include <tuple>
#include <unordered_map>

#include "base/bounded_regex.h"
#include "base/text.h"
#include "cpp/scoped_objects.h"
#include "py/py_guards.h"
#include "trace/formula_arguments.h"
#include "trace/frame_bindings.h"
#include "trace/fresh_tensors.h"
#include "trace/guard_files.h"
#include "trace/manual_helpers.h"
#include "trace/tensor_methods.h"
#include "trace/trace_internal.h"
#include "trace/trace_typical.h"
#include "trace/walk_bounds.h"

namespace optrace {

namespace {

struct FormulaNames {
  std::vector<std::string> calls;    // f(...)
  std::vector<std::string> methods;  // .f(...)
  // The arguments written in each call and method call (after self), in the
  // order of `calls` and `methods`, nullopt where not read: where(cond, a, b)
  // is one of the three-argument wheres, never the one-argument where.
  std::vector<std::optional<std::vector<std::string>>> call_arguments, method_arguments;
  std::vector<std::string> operators;  // aten ops for * / + - and unary -
  std::vector<size_t> operator_at;     // where each operator is written (offset into the code)
};

// The identifier starting at s[i] after spaces and '(' ("" when none).
std::string NextOperand(std::string_view s, size_t i) {
  while (i < s.size() && (s[i] == ' ' || s[i] == '\n')) ++i;
  if (i < s.size() && s[i] == '(') {
    // (rtol * other).abs(): the value is the method's result.
    int depth = 0;
    size_t close = i;
    for (; close < s.size(); ++close) {
      if (s[close] == '(') ++depth;
      else if (s[close] == ')' && --depth == 0) break;
    }
    if (close + 1 < s.size() && s[close + 1] == '.') {
      size_t b = close + 2, e = b;
      while (e < s.size() && IsIdentChar(s[e])) ++e;
      if (e > b && e < s.size() && s[e] == '(') return "." + std::string(s.substr(b, e - b));
    }
  }
  while (i < s.size() && (s[i] == ' ' || s[i] == '(' || s[i] == '\n')) ++i;
  size_t j = i;
  while (j < s.size() && IsIdentChar(s[j])) ++j;
  if (j == i || std::isdigit(static_cast<unsigned char>(s[i]))) return {};
  size_t k = j;
  while (k < s.size() && s[k] == ' ') ++k;
  // x.size(0), f(x), v[0], a::b: not the variable itself.
  // at::f(...): the op's result.
  if (s.compare(i, j - i, "at") == 0 && s.compare(k, 2, "::") == 0) {
    size_t b = k + 2, e = b;
    while (e < s.size() && IsIdentChar(s[e])) ++e;
    if (e < s.size() && s[e] == '(' && e > b) return "at::" + std::string(s.substr(b, e - b));
    return {};
  }
  if (k < s.size() && (s[k] == '.' || s[k] == '(' || s[k] == '[' || s[k] == ':' || s.compare(k, 2, "->") == 0))
    return {};
  return std::string(s.substr(i, j - i));
}

// What a formula's names are, from its derivatives.yaml entry: the
// arguments that are no Tensor (Scalar, int, double, bool), and which op
// names need a tensor argument (so `sqrt(M_PI)` is C's).
struct FormulaTypes {
  const std::set<std::string>* numbers = nullptr;
  std::function<bool(const std::string&)> needs_tensor;
  std::function<bool(std::string_view)> is_number;  // in a body: a name declared arithmetic
};

// The ordering comparisons, and each turned round: `a < b` is `b > a`.
bool IsOrdering(std::string_view op) { return op == "lt" || op == "gt" || op == "le" || op == "ge"; }
std::string Reversed(std::string_view op) { return op == "lt" ? "gt" : op == "gt" ? "lt" : op == "le" ? "ge" : "le"; }

// Which arithmetic of a formula computes on numbers, the way C++ types it:
// `2.0 / sqrt(M_PI)` and `std::sqrt(2 * M_PI)` are doubles, `-0.5` is a
// literal, a Scalar argument (`1 - weight.toDouble()`) is no tensor; and a
// number on the left of a tensor is TensorOperators.h's
// `empty_like(y).fill_(x).sub_(y)` for `x - y` (`.div_(y)` for `x / y`).
// An operator is settled by the first operand after it, in its own
// parentheses; an operand the formula does not show to be a number (a
// name, a call on one) is a tensor.
class NumericOperands {
 public:
  // kCall: an unqualified call, C's math on numbers when its op needs a
  // tensor (sqrt(M_PI)); kOpCall: at::x(...), always an op.
  enum class Paren { kGroup, kCall, kOpCall, kStdCall, kMember };

  NumericOperands(FormulaNames* out, const FormulaTypes& types) : out_(out), types_(types) { frames_.emplace_back(); }

  void Open(Paren kind, size_t call) {
    Frame opened;
    opened.kind = kind;
    opened.call = call;
    frames_.push_back(opened);
  }

  void Close() {
    if (frames_.size() < 2) return;
    Frame f = frames_.back();
    frames_.pop_back();
    if (f.kind == Paren::kMember) return;  // the chain goes on from its receiver, already read
    bool numbers_in = f.any && f.all;
    bool c_math =
        f.kind == Paren::kCall && numbers_in && types_.needs_tensor && types_.needs_tensor(out_->calls[f.call]);
    if (c_math) out_->calls[f.call].clear();  // sqrt(M_PI) is C's sqrt
    Operand(f.kind == Paren::kOpCall ? false : f.kind == Paren::kCall ? c_math : numbers_in);
  }

  // A name written alone (not called): a number when it is a constant
  // (M_PI, true) or a non-Tensor argument of the schema.
  void Name(std::string_view name) {
    bool constant = std::all_of(name.begin(), name.end(), [](char c) {
      return std::isupper(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) || c == '_';
    });
    Operand(constant || name == "true" || name == "false" ||
            (types_.numbers && types_.numbers->count(std::string(name))));
  }

  void Operand(bool numeric) {
    Frame& f = frames_.back();
    f.any = true;
    f.all = f.all && numeric;
    f.term = f.term && numeric;
    f.expr = f.expr && numeric;
    if (!f.pending) return;
    Settle(*f.pending, f.pending_left, numeric);
    f.pending.reset();
  }

  // The operator just pushed at out->operators[index] ('*', '/', '+', '-').
  void Operator(size_t index, char symbol, bool unary) {
    Frame& f = frames_.back();
    bool multiplicative = symbol == '*' || symbol == '/';
    f.pending = index;
    f.pending_left = unary ? std::optional<bool>() : std::optional<bool>(multiplicative ? f.term : f.expr);
    if (!multiplicative) f.term = true;
  }

  // ',', '?', ':', a comparison: the next operand starts a new expression.
  void Boundary() {
    Frame& f = frames_.back();
    f.term = f.expr = true;
    f.pending.reset();
  }

 private:
  struct Frame {
    Paren kind = Paren::kGroup;
    size_t call = 0;
    bool any = false, all = true;      // operands read directly inside, all numbers
    bool term = true, expr = true;     // the current product / sum so far is a number
    std::optional<size_t> pending;     // an operator waiting for its right operand
    std::optional<bool> pending_left;  // its left operand a number (none: unary)
  };

  void Settle(size_t index, std::optional<bool> left_numeric, bool right_numeric) {
    std::string& op = out_->operators[index];
    if (right_numeric && (!left_numeric || *left_numeric)) {
      op.clear();  // number op number
    } else if (left_numeric && *left_numeric && (op == "sub" || op == "div")) {
      op += "_";  // x - t: empty_like(t).fill_(x).sub_(t)
      out_->calls.push_back("empty_like");
      out_->call_arguments.push_back(std::nullopt);
      out_->methods.push_back("fill_");
      out_->method_arguments.push_back(std::vector<std::string>{""});  // one, not read
    }
  }

  FormulaNames* out_;
  const FormulaTypes& types_;
  std::vector<Frame> frames_;
};

// Whether a formula's comparison whose right side starts at `right` compares
// two numbers: on the left a number literal (`left_literal`) or a name the
// formula types as one (`left`), on the right a number literal or such a name.
bool NumbersCompared(std::string_view s, size_t right, bool left_literal, const std::string& left,
                     const FormulaTypes& types) {
  auto number_name = [&](const std::string& name) { return types.numbers && types.numbers->count(name) > 0; };
  if (!left_literal && !number_name(left)) return false;
  while (right < s.size() && s[right] == ' ') ++right;
  if (right < s.size() && s[right] == '-') ++right;
  if (right < s.size() && (std::isdigit(static_cast<unsigned char>(s[right])) || s[right] == '.')) return true;
  return number_name(NextOperand(s, right));
}

// The operand a parenthesized group is when a tensor operator was kept inside.
constexpr std::string_view kTensorGroup = "()";
// The operand a method call of what is no Tensor is (`sizes()` of
// `x.sizes().slice(1)`): no Tensor either, whatever op shares its name.
constexpr std::string_view kNoTensor = "!";

// Reads call names and operators out of a C++ expression (a formula, or a
// helper's body). `arithmetic_all`: count + and binary - too (formulas); in
// helper bodies those are mostly index arithmetic, so only * / and unary -.
// `is_tensor` (bodies): an operator counts only when an operand next to it is
// a variable declared as a Tensor -- `input_dim == 2`, `n * 2` are not ops.
FormulaNames ScanExpression(std::string_view s, bool arithmetic_all,
                            const std::function<bool(std::string_view)>& is_tensor = {},
                            const FormulaTypes& types = {}) {
  FormulaNames out;
  // A formula (no tensor test): its arithmetic on numbers is no op.
  std::optional<NumericOperands> numeric;
  if (!is_tensor) numeric.emplace(&out, types);
  NumericOperands::Paren pending_paren = NumericOperands::Paren::kGroup;
  size_t pending_index = 0;
  char prev_sig = '(';  // last significant char: decides unary vs binary minus
  // The operand just before: a variable, or a call's result (".abs" for
  // x.abs(), "at::log" for at::log(...)) once its ')' is read; and `left`,
  // as it stood at the last punctuation: an operator's left operand.
  std::string last_name, left;
  std::string pending_call;             // the call whose '(' comes next
  std::vector<std::string> open_calls;  // per open '(': the call it belongs to ("" for a group)
  // Per open '(': where its call's arguments go (nullptr for a group), and
  // whether anything is written inside.
  struct OpenArguments {
    std::vector<std::optional<std::vector<std::string>>>* arguments = nullptr;  // calls' or methods'
    size_t index = 0;
    size_t open_at = 0;           // the '(' in the text
    size_t operators_before = 0;  // a group holding a tensor operator is a tensor: (a - b) + m
    bool empty = true;
  };
  std::vector<OpenArguments> open_arguments;
  OpenArguments pending_arguments;
  size_t ops_before = 0;
  bool left_literal = false;  // the operator just pushed has a number literal on its left
  auto push = [&](std::string op, size_t at) {
    out.operators.push_back(std::move(op));
    out.operator_at.push_back(at);
    left_literal = prev_sig == '0';
  };
  // Whether an operand as `left` holds it is known to be a Tensor.
  auto tensor_operand = [&](const std::string& name) {
    return name == kTensorGroup || (!name.empty() && name != kNoTensor && is_tensor(name));
  };
  // The operator just read (if any): kept only on a Tensor operand.
  auto settle = [&](size_t i) {
    if (is_tensor && out.operators.size() > ops_before) {
      bool unary = out.operators.back() == "neg";
      bool compound =
          !out.operators.back().empty() && out.operators.back().back() == '_';  // x += y: x must be the tensor
      std::string right = compound ? std::string() : NextOperand(s, i);
      bool tensor = (!unary && tensor_operand(left)) || (!right.empty() && is_tensor(right));
      if (!tensor) {
        out.operators.pop_back();
        out.operator_at.pop_back();
      } else if ((out.operators.back() == "sub" || out.operators.back() == "div") && !right.empty() &&
                 is_tensor(right) &&
                 (left_literal || (types.is_number && !left.empty() && left != kNoTensor && types.is_number(left)))) {
        // x - t with a number x: empty_like(t).fill_(x).sub_(t) (TensorOperators.h).
        out.operators.back() += "_";
        size_t at = out.operator_at.back();
        push("empty_like", at);
        push("fill_", at);
      } else if (std::string& op = out.operators.back();
                 IsOrdering(op) && !right.empty() && is_tensor(right) && !tensor_operand(left)) {
        op = Reversed(op);  // n < t with no tensor n is TensorOperators.h's t > n
      }
    }
    ops_before = out.operators.size();
  };
  for (size_t i = 0; i < s.size();) {
    settle(i);
    char c = s[i];
    if (!open_arguments.empty() && c != ' ' && c != '\n' && c != '\t' && c != ')') open_arguments.back().empty = false;
    if (c == '"') {  // skip string literals
      size_t j = i + 1;
      while (j < s.size() && s[j] != '"') j += s[j] == '\\' ? 2 : 1;
      i = j + 1;
      prev_sig = 'a';
      continue;
    }
    if (c == '/' && i + 1 < s.size() && s[i + 1] == '/') {  // line comment
      while (i < s.size() && s[i] != '\n') ++i;
      continue;
    }
    if (c == '/' && i + 1 < s.size() && s[i + 1] == '*') {  // block comment: /*dim=*/-1
      size_t end = s.find("*/", i + 2);
      i = end == std::string_view::npos ? s.size() : end + 2;
      continue;
    }
    if (IsIdentChar(c) && !std::isdigit(static_cast<unsigned char>(c))) {
      size_t j = i;
      while (j < s.size() && IsIdentChar(s[j])) ++j;
      std::string name(s.substr(i, j - i));
      size_t k = j;
      while (k < s.size() && s[k] == ' ') ++k;
      // After return / case / throw an operator is unary: -x is neg; and
      // `return (a == b) * c` opens a group, no call.
      bool keyword = name == "return" || name == "case" || name == "throw" || name == "else" || name == "co_return";
      bool is_call = k < s.size() && s[k] == '(' && !keyword;
      bool member = i > 0 && (s[i - 1] == '.' || (i > 1 && s[i - 1] == '>' && s[i - 2] == '-'));
      bool at_call = !member && i >= 4 && s.compare(i - 4, 4, "at::") == 0;
      bool std_call = !member && i >= 5 && s.compare(i - 5, 5, "std::") == 0;  // std::sqrt: no op
      if (is_call && std_call) pending_paren = NumericOperands::Paren::kStdCall;
      if (is_call && !std_call) {
        (member ? out.methods : out.calls).push_back(name);
        auto& arguments = member ? out.method_arguments : out.call_arguments;
        arguments.push_back(std::nullopt);
        pending_arguments = {&arguments, arguments.size() - 1, k};
        pending_index = arguments.size() - 1;
        pending_paren = member    ? NumericOperands::Paren::kMember
                        : at_call ? NumericOperands::Paren::kOpCall
                                  : NumericOperands::Paren::kCall;
      }
      bool qualifier = j + 1 < s.size() && s[j] == ':' && s[j + 1] == ':';
      if (numeric && !is_call && !member && !qualifier) numeric->Name(name);
      // A body's helper call (`sum_backward(...) * mask`): "sum_backward()",
      // a Tensor where the helper returns one.
      pending_call = !is_call ? "" : member ? "." + name : at_call ? "at::" + name : is_tensor ? name + "()" : "";
      // A method of what is known to be no Tensor (`ord_variant.index()`,
      // `sizes().slice(1)`) returns no Tensor whatever op shares its name:
      // `left` is the receiver as it stood at the '.'.
      // So is a method of that result (`target.sym_sizes().slice(1)`): the
      // chain goes on with no Tensor.
      if (is_tensor && is_call && member && !left.empty() && !tensor_operand(left)) pending_call = kNoTensor;
      // &x is x's address (&result != &self compares addresses), not x.
      bool address = false;
      if (i > 0 && s[i - 1] == '&') {
        size_t b = i - 1;
        while (b > 0 && s[b - 1] == ' ') --b;
        address = b == 0 || !(IsIdentChar(s[b - 1]) || s[b - 1] == ')' || s[b - 1] == ']');
      }
      // Kernel::output_t names a member of a scope, never a local of that
      // name (a Tensor output_t declared elsewhere in the body).
      bool qualified = i >= 2 && s[i - 1] == ':' && s[i - 2] == ':';
      last_name = is_call || member || address || qualified ? std::string() : name;
      i = j;
      prev_sig = keyword ? '(' : 'a';
      if (keyword) last_name.clear();
      continue;
    }
    if (std::isdigit(static_cast<unsigned char>(c))) {
      while (i < s.size() && (IsIdentChar(s[i]) || s[i] == '.')) ++i;
      if (numeric) numeric->Operand(true);
      prev_sig = '0';
      last_name.clear();
      continue;
    }
    if (c == ' ' || c == '\n' || c == '\t') {
      ++i;
      continue;
    }
    left = last_name;
    last_name.clear();
    if (numeric && c == '(') numeric->Open(pending_paren, pending_index);
    if (numeric && c == ')') numeric->Close();
    bool scope = (c == ':' && i + 1 < s.size() && s[i + 1] == ':') || (c == ':' && i > 0 && s[i - 1] == ':');
    if (numeric && (c == ',' || c == '?' || (c == ':' && !scope) || c == '&' || c == '|')) numeric->Boundary();
    pending_paren = NumericOperands::Paren::kGroup;
    if (c == '(') {
      open_calls.push_back(pending_call);
      open_arguments.push_back(pending_arguments);
      open_arguments.back().operators_before = out.operators.size();
    } else if (c == ')' && !open_calls.empty()) {
      last_name = open_calls.back();
      open_calls.pop_back();
      const OpenArguments& closed = open_arguments.back();
      if (last_name.empty() && !closed.arguments && out.operators.size() > closed.operators_before)
        last_name = kTensorGroup;
      if (closed.arguments)
        (*closed.arguments)[closed.index] =
            closed.empty ? std::vector<std::string>{}
                         : SplitTopLevel(s.substr(closed.open_at + 1, i - closed.open_at - 1), ',', "([{", ")]}");
      open_arguments.pop_back();
    }
    pending_call.clear();
    pending_arguments = {};
    // A number is an operand of arithmetic too (`1 + exp(x)` is add, `0.5 * grad`
    // mul); with a Tensor test, `settle` keeps it only beside a Tensor.
    bool arithmetic = c == '+' || c == '-' || c == '*' || c == '/';
    bool operand_before = prev_sig == 'a' || prev_sig == ')' || prev_sig == ']' || (prev_sig == '0' && arithmetic);
    bool two = i + 1 < s.size();
    // Comparisons on tensors: a == b is eq, a >= b ge, a <= b le (not < >,
    // which C++ also uses for templates). In a formula, two numbers compared
    // (native_dropout's `p == 1` of its `float p`) are C++'s comparison.
    if (two && s[i + 1] == '=' && (c == '=' || c == '>' || c == '<' || c == '!')) {
      if (operand_before && !(numeric && NumbersCompared(s, i + 2, prev_sig == '0', left, types)))
        push(c == '=' ? "eq" : c == '>' ? "ge" : c == '<' ? "le" : "ne", i);
      if (numeric) numeric->Boundary();
      i += 2;
      prev_sig = '.';
      continue;
    }
    // a < b, a > b: lt, gt -- written with a space on both sides (templates,
    // vector<Tensor>, are not), on an operand (in a formula: a variable, not
    // a method's result such as self.dim() > 1).
    if ((c == '<' || c == '>') && two && i > 0 && s[i - 1] == ' ' && s[i + 1] == ' ' && operand_before &&
        (is_tensor || (!left.empty() && left.front() != '.')) &&
        !(numeric && NumbersCompared(s, i + 1, prev_sig == '0', left, types))) {
      push(c == '<' ? "lt" : "gt", i);
      ++i;
      prev_sig = c;
      continue;
    }
    // Compound assignment on a tensor is the in-place op: x += y is add_.
    if (two && s[i + 1] == '=' && (c == '+' || c == '-' || c == '*' || c == '/')) {
      if (operand_before && is_tensor) push(c == '+' ? "add_" : c == '-' ? "sub_" : c == '*' ? "mul_" : "div_", i);
      i += 2;
      prev_sig = '.';
      continue;
    }
    if (c == '-' && two && (s[i + 1] == '>' || s[i + 1] == '-')) {
      i += 2;
      prev_sig = '.';
      continue;
    }
    if (c == '+' && two && s[i + 1] == '+') {
      i += 2;
      prev_sig = '.';
      continue;
    }
    const size_t pushed = out.operators.size();
    if (c == '*' && operand_before) push("mul", i);
    if (c == '/' && operand_before) push("div", i);
    if (c == '-') push(operand_before ? (arithmetic_all ? "sub" : "") : "neg", i);
    if (c == '+' && operand_before && arithmetic_all) push("add", i);
    if (numeric && out.operators.size() > pushed) numeric->Operator(pushed, c, c == '-' && !operand_before);
    prev_sig = c;
    ++i;
  }
  settle(s.size());
  size_t kept = 0;
  for (size_t k = 0; k < out.operators.size(); ++k) {
    if (out.operators[k].empty()) continue;
    if (kept != k) {
      out.operators[kept] = std::move(out.operators[k]);
      out.operator_at[kept] = out.operator_at[k];
    }
    ++kept;
  }
  out.operators.resize(kept);
  out.operator_at.resize(kept);
  kept = 0;  // C's math (sqrt(M_PI)) is no call
  for (size_t k = 0; k < out.calls.size(); ++k) {
    if (out.calls[k].empty()) continue;
    if (kept != k) {
      out.calls[kept] = std::move(out.calls[k]);
      out.call_arguments[kept] = std::move(out.call_arguments[k]);
    }
    ++kept;
  }
  out.calls.resize(kept);
  out.call_arguments.resize(kept);
  return out;
}

}  // namespace

std::vector<std::string> OperatorOps(std::string_view code, bool arithmetic_all,
                                     const std::function<bool(std::string_view)>& is_tensor) {
  return ScanExpression(code, arithmetic_all, is_tensor).operators;
}

std::vector<OperatorUse> OperatorUses(std::string_view code, bool arithmetic_all,
                                      const std::function<bool(std::string_view)>& is_tensor,
                                      const std::function<bool(std::string_view)>& is_number) {
  FormulaTypes types;
  types.is_number = is_number;
  FormulaNames names = ScanExpression(code, arithmetic_all, is_tensor, types);
  std::vector<OperatorUse> out;
  for (size_t k = 0; k < names.operators.size(); ++k) {
    size_t at = names.operator_at[k];
    size_t len = at + 1 < code.size() && code[at + 1] == '=' ? 2 : 1;  // "<=", "+=" ...
    out.push_back({names.operators[k], std::string(code.substr(at, len)), at});
  }
  return out;
}

namespace {

// A body's operators on tensors (OperatorUses), each with its line; the
// body's text starts on `first_line`, after the parameters `params`.
std::vector<OperatorUse> OperatorUsesOnLines(std::string_view params, std::string_view body, int first_line,
                                             const std::function<bool(std::string_view)>& is_tensor) {
  auto is_number = [&](std::string_view name) { return ArgumentKind(params, body, name) == 'n'; };
  std::vector<OperatorUse> uses =
      body.empty() ? std::vector<OperatorUse>{} : OperatorUses(body, true, is_tensor, is_number);
  for (OperatorUse& use : uses)
    use.line = first_line + static_cast<int>(std::count(body.begin(), body.begin() + use.offset, '\n'));
  return uses;
}

// What AddBackward reads of a FunctionsManual helper's text, kept with the
// index (Index::Derived) for every later trace: each depends on the text
// alone, and reading it again per trace was a third of a trace's time.
struct HelperFacts {
  std::shared_mutex mu;
  std::unordered_map<uint32_t, std::vector<OperatorUse>> operators;  // by function index
  std::unordered_map<uint32_t, bool> receiver_is_other;  // by call index: a member call on what is no Tensor
};

HelperFacts& HelperFactsOf(const Index& ix, TraceOptions::Device device) {
  std::string key = "backward-helper-facts-" + std::to_string(static_cast<int>(device));
  return *ix.Derived<std::unique_ptr<HelperFacts>>(key, [] { return std::make_unique<HelperFacts>(); });
}

std::string BaseOpName(const std::string& name) { return std::string(WithoutSymInt(name)); }

// Whether every input a derivatives.yaml formula is for ("min, max") is an
// optional Tensor of the schema (`Tensor? min`). Autograd computes a formula
// only for inputs that require grad, and an optional Tensor a call leaves
// None (_embedding_bag's per_sample_weights) requires none.
bool OptionalTensorsOnly(const FunctionSchema& schema, std::string_view inputs) {
  const std::vector<std::string> names = SplitTopLevel(inputs, ',');
  if (names.empty()) return false;
  for (const std::string& name : names) {
    const auto it = std::find_if(schema.arguments.begin(), schema.arguments.end(),
                                 [&](const auto& a) { return a.name == TrimView(name); });
    if (it == schema.arguments.end() || !StartsWith(it->type, "Tensor") || !EndsWith(it->type, "?")) return false;
  }
  return true;
}

bool OnlyCompositeImplicit(const NativeFunction& fn) {
  bool composite_implicit = false, backend = false;
  for (const auto& [key, kernel] : fn.dispatch) {
    if (key == "CompositeImplicitAutograd") composite_implicit = true;
    else if (key == "CPU" || key == "CUDA" || key == "CompositeExplicitAutograd" ||
             key == "CompositeExplicitAutogradNonFunctional")
      backend = true;
  }
  return composite_implicit && !backend;
}

bool IsManualHelper(const CppIndex& cpp, const std::string& manual, const std::string& name) {
  for (uint32_t id : cpp.FunctionsNamed(name)) {
    if (cpp.file(cpp.functions()[id].file) == manual) return true;
  }
  return false;
}

// `dispatch: Default:` holds the formulas of an entry written per
// autograd key (view): what dense CPU/CUDA tensors use.
const std::vector<DerivativeFormula>& DenseFormulas(const DerivativeEntry& d) {
  for (const auto& [key, section] : d.dispatch_sections)
    if (d.formulas.empty() && key == "Default") return section;
  return d.formulas;
}

void AddUnique(std::vector<std::string>* v, const std::string& s) {
  if (std::find(v->begin(), v->end(), s) == v->end()) v->push_back(s);
}

// The entry autograd differentiates `fn` by on CPU/CUDA: none for an op
// with only a CompositeImplicitAutograd kernel (noted when it has one).
const DerivativeEntry* DenseDerivative(const YamlModel& yaml, const NativeFunction& fn,
                                       std::vector<std::string>* notes) {
  const DerivativeEntry* d = yaml.DerivativeOf(fn);
  if (!d || !OnlyCompositeImplicit(fn)) return d;
  notes->push_back("backward of " + fn.name + ": derivatives.yaml has an entry at line " + std::to_string(d->line) +
                   ", but on CPU/CUDA this op only has a CompositeImplicitAutograd kernel, so autograd "
                   "differentiates the ops it calls instead (the entry applies to backends with their own kernel)");
  return nullptr;
}

// The entry's arguments that are no Tensor go to `numbers`; an op name
// needs a tensor when every overload takes one first.
FormulaTypes TypesOf(const YamlModel& yaml, const DerivativeEntry& d, std::set<std::string>* numbers) {
  for (const auto& a : d.schema.arguments)
    if (a.type.find("Tensor") == std::string::npos) numbers->insert(a.name);
  FormulaTypes types;
  types.numbers = numbers;
  types.needs_tensor = [&yaml](const std::string& name) {
    auto overloads = yaml.Overloads(BaseOpName(name));
    for (const NativeFunction* o : overloads)
      if (o->schema.arguments.empty() || o->schema.arguments[0].type.find("Tensor") == std::string::npos) return false;
    return !overloads.empty();
  };
  return types;
}

// The forward ops autograd records: an op the Python code calls, and one a
// CompositeImplicitAutograd op's C++ calls (that code runs above autograd,
// so each op it calls goes through its own Autograd key). An op any other
// kernel calls (CUDA, CPU, CompositeExplicitAutograd) runs below its
// caller's autograd kernel (AutoDispatchBelowADInplaceOrView): no
// derivative of its own is recorded there (the as_strided under a view
// op's kernel, the copy_ under addmm's). Any one of an op's callers
// recording it is enough. `records_calls(caller, callee)`: whether the
// caller's code for the traced device runs above autograd and calls the
// callee with grad mode on; `python_records(op)`, whether the Python calls
// of an entry op do (one on a module buffer alone records nothing).
std::set<std::string> RecordedByAutograd(const std::vector<OpStep>& ops,
                                         const std::function<bool(const OpStep&, const OpStep&)>& records_calls,
                                         const std::function<bool(const OpStep&)>& python_records) {
  std::map<std::string, const OpStep*> forward;
  for (const auto& op : ops)
    if (op.role == OpRole::kForward) forward.emplace(op.name, &op);
  std::set<std::string> recorded;
  // Outwards from the entries, one caller level per pass.
  for (bool grew = true; grew;) {
    grew = false;
    for (const auto& [name, op] : forward) {
      if (recorded.count(name)) continue;
      bool by_caller = op->reached_from.empty() && python_records(*op);
      auto records = [&](const std::string& caller) {
        auto it = forward.find(caller);
        return recorded.count(caller) && it != forward.end() && records_calls(*it->second, *op);
      };
      by_caller = by_caller || records(op->reached_from);
      for (const std::string& other : op->also_reached_from) by_caller = by_caller || records(other);
      if (by_caller) grew = recorded.insert(name).second || grew;
    }
  }
  return recorded;
}

}  // namespace

Assumptions BackwardTracer::BackwardAssumptions() const {
  // A formula's ternaries are decided as a first-order backward of a
  // typical call takes them (trace_typical.h).
  Assumptions backward = TraceAssumptions(ix_, opt_);
  backward.backward_pass = true;
  return backward;
}

// Whether a line sits in a no-grad scope depends on the code alone: kept
// with the index (every trace reaching a composite asks again of its calls,
// and each answer reads the tokens of hundreds of lines).
struct NoGradScopes {
  std::shared_mutex mu;
  std::unordered_map<std::string, bool> at;  // by "file:line"
};

bool BackwardTracer::InNoGradScope(const std::string& file, int line) const {
  NoGradScopes& memo =
      *ix_.Derived<std::unique_ptr<NoGradScopes>>("no-grad-scopes", [] { return std::make_unique<NoGradScopes>(); });
  return Remember(memo.mu, memo.at, file + ":" + std::to_string(line), [&] {
    // An RAII guard in the call's block or one enclosing it turns autograd
    // off for the call (a guard outside the function would sit at namespace
    // scope, where none is).
    for (const ScopedObject& object :
         ObjectsInScopeAt(GuardReaderOf(ix_, file).lexed().tokens, line, kMaxBodyLinesRead)) {
      if (object.type == "NoGradGuard" || object.type == "AutoDispatchBelowAutograd" ||
          object.type == "AutoDispatchBelowADInplaceOrView")
        return true;
      if (object.type == "AutoGradMode" && object.arguments == std::vector<std::string>{"false"}) return true;
    }
    return false;
  });
}

BackwardTracer::BackwardTracer(const Index& index, const TraceOptions& options, Trace& trace, OpQueue& ops,
                               OpExpander& expander, const CallFactsReader& calls)
    : TraceReader(index, options), t_(trace), ops_(ops), expander_(expander), calls_(calls) {}
BackwardTracer::~BackwardTracer() = default;

bool BackwardTracer::CalledOnBuffersAlone(const OpStep& op) {
  if (t_.python.empty()) return false;
  if (!frames_) {
    frame_assumptions_ = std::make_unique<Assumptions>(TraceAssumptions(ix_, opt_));
    frames_ = std::make_unique<FrameBindings>(ix_, t_, *frame_assumptions_);
  }
  const std::string full = "aten::" + op.name, base = "aten::" + std::string(OpBaseName(op.name));
  bool any = false;
  for (const PyFrame& f : t_.python)
    for (const PyCallStep& c : f.calls) {
      if (c.resolved != full && c.resolved != base) continue;
      if (!OnABufferAlone(ix_, *frames_, f, c)) return false;
      any = true;
    }
  return any;
}

bool BackwardTracer::CalledOnlyWithoutGrad(const OpStep& caller, const OpStep& callee) const {
  std::string base(OpBaseName(callee.name));
  bool any = false;
  for (const OpCallStep& c : caller.calls) {
    if (c.op != base || !c.where.valid()) continue;
    // A call whose arguments admit other overloads only (`input.mul_(noise)` for mul_.Scalar) makes no call of it.
    if (!c.overloads.empty() && std::find(c.overloads.begin(), c.overloads.end(), callee.name) == c.overloads.end())
      continue;
    if (!OnAFactorysResult(ix_, c, callee) && !CalledOnANoGradLocal(ix_, caller, c) &&
        !InNoGradScope(c.where.file, c.where.line))
      return false;
    any = true;
  }
  return any;
}

std::vector<std::pair<const NativeFunction*, bool>> BackwardTracer::ForwardOpsByAutograd() {
  const std::set<std::string> recorded = RecordedByAutograd(
      t_.ops,
      [&](const OpStep& caller, const OpStep& callee) {
        if (!caller.yaml) return false;
        bool above = opt_.device == TraceOptions::Device::kAll
                         ? OnlyCompositeImplicit(*caller.yaml)
                         : !WalkDeviceOfKey(*caller.yaml, "CompositeImplicitAutograd").empty();
        return above && !CalledOnlyWithoutGrad(caller, callee);
      },
      [&](const OpStep& op) { return !CalledOnBuffersAlone(op); });
  std::vector<std::pair<const NativeFunction*, bool>> out;
  for (const auto& op : t_.ops) {
    const NativeFunction* fn = op.role == OpRole::kForward ? FindOp(op.name) : nullptr;
    if (fn && !fn->schema.is_out()) out.push_back({fn, !recorded.count(op.name)});
  }
  return out;
}

void BackwardTracer::FollowBackwardOps(
    const BackwardStep& b, const std::set<std::string>& from_operators,
    const std::map<std::string, std::vector<std::optional<WrittenArguments>>>& written, int depth) {
  for (const std::string& base : b.ops) {
    bool follow = false;
    for (const NativeFunction* o : ix_.yaml.Overloads(base)) {
      bool returns_tensor = false;
      for (const auto& r : o->schema.returns)
        returns_tensor = returns_tensor || r.type.find("Tensor") != std::string::npos;
      follow = follow || returns_tensor;
    }
    if (!follow) continue;
    // An operator on two tensors (grad * other) is the .Tensor overload.
    const NativeFunction* tensor_overload = FindOp(base + ".Tensor");
    if (from_operators.count(base) && tensor_overload) {
      ops_.AddOp(tensor_overload, OpRole::kBackward, b.op, depth);
      continue;
    }
    // The overloads the arguments as written admit (any, where none does);
    // a Dimname only where the forward op's schema has one to pass.
    bool dimnames = b.derivatives && TakesDimname(b.derivatives->schema);
    auto calls = written.find(base);
    size_t added = 0;
    if (calls != written.end() &&
        std::all_of(calls->second.begin(), calls->second.end(), [](const auto& w) { return w.has_value(); }))
      for (const auto& w : calls->second)
        added += ops_.AddOpsByBaseName(base, OpRole::kBackward, b.op, depth, &*w, dimnames);
    if (added == 0) added = ops_.AddOpsByBaseName(base, OpRole::kBackward, b.op, depth, nullptr, dimnames);
    if (added == 0) ops_.AddOpsByBaseName(base, OpRole::kBackward, b.op, depth);
  }
}

void BackwardTracer::AddBackward() {
  for (const auto& [fn, below_autograd] : ForwardOpsByAutograd()) {
    const size_t steps = t_.backward.size();
    // What the entry says depends on the op alone; whether its ops run, on
    // the trace: autograd records an op only where no other kernel calls it.
    AddBackwardRemembered(fn->name, !below_autograd);
    if (!below_autograd || t_.backward.size() == steps) continue;
    BackwardStep& b = t_.backward.back();  // whether autograd records it depends on the trace
    b.below_autograd = true;
    b.note = fn->name +
             " runs only below autograd (inside other ops' kernels, or under a no-grad guard): "
             "autograd never records it, so this entry is listed, never run";
  }
  expander_.ExpandQueuedOps();
}

void BackwardTracer::AddBackwardOf(const std::string& name) {
  const CppIndex& cpp = ix_.cpp;
  HelperFacts& helper_facts = HelperFactsOf(ix_, opt_.device);
  const std::string manual = "torch/csrc/autograd/FunctionsManual.cpp";
  const int backward_depth = std::max(0, opt_.depth - 1);
  const Assumptions backward = BackwardAssumptions();
  const NativeFunction* fn = FindOp(name);
  if (!fn || fn->schema.is_out()) return;
  const DerivativeEntry* d = DenseDerivative(ix_.yaml, *fn, &t_.notes);
  if (!d) return;
  std::set<std::string> numbers;  // the entry's arguments that are no Tensor
  const FormulaTypes types = TypesOf(ix_.yaml, *d, &numbers);
  BackwardStep b;
  b.op = fn->name;
  b.derivatives = d;
  std::set<std::string> from_operators;
  // The arguments each op is called with, by kind (nullopt: not read, any
  // overload), in code declaring `params` (a formula's: FormulaParameters).
  std::map<std::string, std::vector<std::optional<WrittenArguments>>> written;
  const std::string formula_parameters = FormulaParameters(d->schema);
  auto note_call = [&](const std::string& op, bool method, std::string_view params, std::string_view body,
                       const std::optional<std::vector<std::string>>& arguments) {
    std::optional<WrittenArguments>& w = written[op].emplace_back();
    if (!arguments) return;
    w.emplace().method = method;
    for (const std::string& a : *arguments) w->kinds.push_back(calls_.WrittenKind(params, body, a));
  };
  // The formulas are read three times: for what a first-order backward of
  // a typical call certainly runs, for what it may run (conditions the
  // assumptions leave open), and for every op named.
  enum class Reading { kCertain, kPossible, kAll } reading = Reading::kAll;
  std::set<std::string> certain, possible, visited_helpers;
  auto add_op = [&](const std::string& name) {
    AddUnique(&b.ops, name);
    if (reading == Reading::kCertain) certain.insert(name);
    if (reading != Reading::kAll) possible.insert(name);
  };
  // Whether code under these values of its conditions is read now.
  auto read = [&](Tri v) {
    return reading == Reading::kAll || (reading == Reading::kCertain ? v == Tri::kTrue : v != Tri::kFalse);
  };
  std::function<void(const std::string&, bool, int, const std::optional<std::vector<std::string>>&)> consider;
  // A hand-written method returning the tensor itself for a typical one
  // (`grad.conj()` of a real tensor) dispatches nothing in that backward.
  auto skips = [&](const std::string& method_name) {
    auto guard = EarlySelfReturn(ix_, method_name);
    if (!guard) return false;
    Tri returns_self = EvaluateCondition(guard->condition, false, backward);
    return !read(Not(returns_self));
  };
  consider = [&](const std::string& raw, bool method, int level,
                 const std::optional<std::vector<std::string>>& arguments) {
    std::string base = BaseOpName(raw);
    if (method && skips(base)) return;
    auto overloads = ix_.yaml.Overloads(base);
    bool is_op = false;
    for (const NativeFunction* o : overloads) is_op = is_op || !method || o->HasVariant("method");
    if (is_op) {
      add_op(base);
      note_call(base, method, formula_parameters, "", arguments);
      return;
    }
    if (method) return;
    // A FunctionsManual helper: the ops its body calls -- every overload's
    // the call's argument count admits, read once per count (norm_backward's
    // four-argument form, then the six-argument one it calls).
    const std::string visit = base + "/" + (arguments ? std::to_string(arguments->size()) : "*");
    if (!IsManualHelper(cpp, manual, base) || !visited_helpers.insert(visit).second) return;
    AddUnique(&b.helpers, base);
    for (uint32_t id : HelperOverloadsTaking(cpp, manual, base, arguments)) {
      const CppFunction& h = cpp.functions()[id];
      // A call in the helper runs as its own conditions say for a typical
      // tensor (handle_r_to_c's at::real only for a complex gradient of a
      // real input; norm_backward's branches by `p`, open).
      auto runs = [&](int line, std::string_view token) {
        return reading == Reading::kAll || read(CallSiteValue(ix_, manual, h, line, token, backward));
      };
      int lines = static_cast<int>(h.body_end) - static_cast<int>(h.body_begin) + 1;
      std::string body =
          lines > 0 && lines < kMaxBodyLinesRead ? ix_.Snippet(manual, static_cast<int>(h.body_begin), lines) : "";
      for (uint32_t c : cpp.CallsIn(id)) {
        const CppCall& call = cpp.calls()[c];
        if (!runs(static_cast<int>(call.line), call.callee)) continue;
        bool at_call = call.qualifier == "at::" || call.is_ops_call;
        bool member = call.kind == CallKind::kMember;
        if (!at_call && !member && call.kind != CallKind::kPlain) continue;
        // A method of what is no Tensor (`indices.sym_sizes().slice(...)`) is no op; remembered per index.
        auto other = [&] { return calls_.ReceiverOf(call, h, body) == Receiver::kOther; };
        if (member && !body.empty() && Remember(helper_facts.mu, helper_facts.receiver_is_other, c, other)) continue;
        std::string cb = BaseOpName(call.callee);
        if (member && skips(cb)) continue;
        bool is_op = false;
        for (const NativeFunction* o : ix_.yaml.Overloads(cb)) {
          if ((member && o->HasVariant("method")) || at_call || (!member && o->HasVariant("function"))) {
            add_op(cb);
            note_call(cb, member, h.params, body,
                      body.empty() ? std::nullopt : CallArguments(body, h.body_begin, call));
            is_op = true;
            break;
          }
        }
        // A helper calling another FunctionsManual helper (split_backward ->
        // split_with_sizes_backward -> at::cat): one level more.
        if (!is_op && !member && call.kind == CallKind::kPlain && level < 2)
          consider(call.callee, false, level + 1, std::nullopt);
      }
      auto is_tensor = [&](std::string_view name) { return calls_.IsTensorOperand(h.params, body, name); };
      // The helper's operators on tensors depend on its text alone: read once per index.
      auto read = [&] { return OperatorUsesOnLines(h.params, body, static_cast<int>(h.body_begin), is_tensor); };
      for (const OperatorUse& use : Remember(helper_facts.mu, helper_facts.operators, id, read)) {
        if (!runs(use.line, use.symbol)) continue;
        add_op(use.op);
        from_operators.insert(use.op);
      }
    }
  };
  std::vector<std::string> jvp_helpers;
  for (const auto& f : DenseFormulas(*d)) {
    if (f.formula == "non_differentiable" || f.formula == "not_implemented") continue;
    if (IsForwardDerivative(*d, f)) {
      // Forward-mode AD (`result:`, a named output's `values:`): its helpers
      // are named (logsumexp_jvp), not run by backward, so not expanded.
      for (const auto& c : ScanExpression(f.formula, true).calls) {
        if (ix_.yaml.Overloads(BaseOpName(c)).empty() && IsManualHelper(cpp, manual, c)) AddUnique(&jvp_helpers, c);
      }
      continue;
    }
    if (f.inputs == "output_differentiability") continue;
    // Only for inputs requiring grad: an optional Tensor's formula may run, never surely.
    for (Reading r : {Reading::kCertain, Reading::kPossible, Reading::kAll}) {
      if (r == Reading::kCertain && OptionalTensorsOnly(d->schema, f.inputs)) continue;
      reading = r;
      visited_helpers.clear();
      std::string text = r == Reading::kAll ? f.formula : PruneTernaries(f.formula, backward, r == Reading::kCertain);
      FormulaNames names = ScanExpression(text, true, {}, types);
      for (size_t k = 0; k < names.calls.size(); ++k) consider(names.calls[k], false, 0, names.call_arguments[k]);
      for (size_t k = 0; k < names.methods.size(); ++k) consider(names.methods[k], true, 0, names.method_arguments[k]);
      for (const auto& o : names.operators) {
        add_op(o);
        from_operators.insert(o);
      }
    }
  }
  for (const std::string& name : b.ops) {
    if (!possible.count(name)) b.untaken.push_back(name);
    else if (!certain.count(name)) b.open.push_back(name);
  }
  for (const std::string& h : jvp_helpers) AddUnique(&b.helpers, h);
  FollowBackwardOps(b, from_operators, written, backward_depth);
  t_.backward.push_back(std::move(b));
}

namespace {

// One decomposition registration: @register_decomposition(aten.x.ov) or
// @aten.x.ov.py_impl(...), with the aten name it targets.
struct DecompositionSite {
  std::string base, overload;  // overload "" = every overload, "default" = the overload-less one
  std::string target;          // "aten.silu_backward" as written
  std::string path, function, registry;
  int line = 0;
};

// The registrations of one index, read once: scanning every decorator with a
// regex costs milliseconds, more than the rest of a small trace.
using DecompositionMap = std::unordered_multimap<std::string, DecompositionSite>;

// A decorator factory that registers what it decorates: a module-level
// function D(..., P, ...) one of whose nested functions calls
// register_decomposition(P). When D also calls get_aten_op, P left out
// means the aten op named after the decorated function (torch._refs:
// `@_make_elementwise_unary_reference(...) def rsqrt` registers aten.rsqrt;
// get_aten_op prefixes the submodule: torch._refs.special.zeta ->
// special_zeta). The call's `if` conditions on D's parameters say which
// arguments switch the registration off (`aten_op is not None`, a bare
// `should_register_decomposition`).
struct RegisteringFactory {
  const PyModule* module = nullptr;
  const PyFunction* function = nullptr;
  std::string param;                  // P
  bool names_after_function = false;  // calls get_aten_op
  std::vector<std::string> not_none;  // parameters the registration needs non-None
  std::vector<std::string> truthy;    // parameters the registration needs true
};

bool HasParam(const PyFunction& f, std::string_view p) {
  return std::find(f.params.begin(), f.params.end(), p) != f.params.end();
}

// The factory conditions of the registering call: "aten_op is not None and
// should_register_decomposition" -> not_none {aten_op}, truthy {should_...}.
void ReadRegistrationGuard(const Index& ix, const PyModule& m, int line, RegisteringFactory* r) {
  auto text = ix.FileText(m.path);
  if (!text) return;
  for (const PyCondition& c : PyLineConditions(*text, line)) {
    if (c.negated) continue;
    std::string_view rest = c.text;
    while (!rest.empty()) {  // the conjuncts of `A and B and C`
      size_t cut = rest.find(" and ");
      std::string_view conjunct = TrimView(rest.substr(0, cut));
      rest = cut == std::string_view::npos ? std::string_view() : rest.substr(cut + 5);
      constexpr std::string_view kNotNone = " is not None";
      if (EndsWith(conjunct, kNotNone)) {
        std::string name(TrimView(conjunct.substr(0, conjunct.size() - kNotNone.size())));
        if (HasParam(*r->function, name)) r->not_none.push_back(name);
      } else if (HasParam(*r->function, conjunct)) {
        r->truthy.emplace_back(conjunct);
      }
    }
  }
}

std::vector<RegisteringFactory> RegisteringFactories(const Index& ix) {
  std::vector<RegisteringFactory> out;
  for (const PyModule& m : ix.py.modules()) {
    for (const PyFunction& f : m.functions) {
      std::string outer = f.qualname.substr(0, f.qualname.find('.'));
      if (outer == f.qualname) continue;  // the registering call sits in a nested function
      for (const PyCall& c : f.calls) {
        if (c.callee != "register_decomposition" && !EndsWith(c.callee, ".register_decomposition")) continue;
        for (const PyFunction& d : m.functions) {
          if (d.qualname != outer || d.is_method || !HasParam(d, TrimView(c.args))) continue;
          RegisteringFactory r;
          r.module = &m;
          r.function = &d;
          r.param = std::string(TrimView(c.args));
          for (const PyFunction& g : m.functions) {
            if (g.qualname != outer && !StartsWith(g.qualname, outer + ".")) continue;
            for (const PyCall& gc : g.calls) r.names_after_function |= EndsWith(gc.callee, "get_aten_op");
          }
          ReadRegistrationGuard(ix, m, static_cast<int>(c.line), &r);
          out.push_back(std::move(r));
        }
      }
    }
  }
  return out;
}

// The value a decorator `@D(args)` gives parameter `p` of D ("" when left out).
std::string ArgumentFor(const PyDecorator& dec, const PyFunction& factory, const std::string& p) {
  size_t positional = 0;
  for (const std::string& a : dec.args) {
    size_t eq = a.find('=');
    bool keyword = eq != std::string::npos && eq > 0 && a[eq + 1] != '=' &&
                   std::all_of(a.begin(), a.begin() + eq, [](char c) { return IsIdentChar(c) || c == ' '; });
    if (keyword) {
      if (TrimView(std::string_view(a).substr(0, eq)) == p)
        return std::string(TrimView(std::string_view(a).substr(eq + 1)));
      continue;
    }
    if (positional < factory.params.size() && factory.params[positional] == p) return a;
    ++positional;
  }
  return "";
}

// What `@D(...)` on `f` in module `m` registers: "aten.rsqrt", or "" for nothing.
std::string FactoryTarget(const RegisteringFactory& r, const PyDecorator& dec, const PyModule& m, const PyFunction& f) {
  for (const std::string& p : r.not_none)
    if (ArgumentFor(dec, *r.function, p) == "None") return "";
  for (const std::string& p : r.truthy) {
    std::string v = ArgumentFor(dec, *r.function, p);
    if (v == "False" || v == "None") return "";
  }
  std::string given = ArgumentFor(dec, *r.function, r.param);
  if (!given.empty()) return StartsWith(given, "aten.") ? given : "";
  const std::string refs = "torch._refs";
  if (!r.names_after_function || !StartsWith(m.name, refs)) return "";
  std::string prefix = m.name.substr(refs.size());
  if (!prefix.empty()) {
    prefix = prefix.substr(1);
    std::replace(prefix.begin(), prefix.end(), '.', '_');
    prefix += "_";
  }
  return "aten." + prefix + f.name;
}

DecompositionMap ReadDecompositionSites(const Index& ix) {
  DecompositionMap sites;
  static const std::regex aten_re(R"(aten\.([A-Za-z0-9_]+)(?:\.([A-Za-z0-9_]+))?)");
  const auto& mods = ix.py.modules();
  for (const char* decorator : {"register_decomposition", "py_impl"}) {
    for (const auto& [mi, fi] : ix.py.DecoratedWith(decorator)) {
      const PyModule& m = mods[mi];
      const PyFunction& f = m.functions[fi];
      std::string registry = StartsWith(m.name, "torch._decomp")     ? "torch._decomp"
                             : StartsWith(m.name, "torch._refs")     ? "torch._refs"
                             : StartsWith(m.name, "torch._inductor") ? "torch._inductor"
                                                                     : m.name;
      for (const PyDecorator& dec : f.decorators) {
        if (!EndsWith(dec.name, decorator)) continue;
        std::string text = std::string(decorator) == "py_impl" ? dec.name : dec.text;
        for (std::sregex_iterator r(text.begin(), text.end(), aten_re), end; r != end; ++r) {
          DecompositionSite site;
          site.base = (*r)[1];
          site.overload = (*r)[2];
          if (site.overload == "py_impl") site.overload.clear();
          site.target = r->str();
          site.path = m.path;
          site.function = f.qualname;
          site.registry = registry;
          site.line = static_cast<int>(dec.line);
          sites.emplace(site.base, std::move(site));
        }
      }
    }
  }
  // Functions registered by a decorator factory. A factory name must be
  // unique among factories: a decorator is matched by its name alone.
  std::vector<RegisteringFactory> factories = RegisteringFactories(ix);
  for (const RegisteringFactory& r : factories) {
    size_t same_name = std::count_if(factories.begin(), factories.end(),
                                     [&](const RegisteringFactory& o) { return o.function->name == r.function->name; });
    if (same_name != 1) continue;
    for (const auto& [mi, fi] : ix.py.DecoratedWith(r.function->name)) {
      const PyModule& m = mods[mi];
      const PyFunction& f = m.functions[fi];
      for (const PyDecorator& dec : f.decorators) {
        if (dec.name != r.function->name && !EndsWith(dec.name, "." + r.function->name)) continue;
        std::string target = FactoryTarget(r, dec, m, f);
        std::smatch match;
        if (target.empty() || !BoundedRegexMatch(target, &match, aten_re)) continue;
        DecompositionSite site;
        site.base = match[1];
        site.overload = match[2];
        site.target = target;
        site.path = m.path;
        site.function = f.qualname;
        site.registry = StartsWith(m.name, "torch._refs") ? "torch._refs" : m.name;
        site.line = static_cast<int>(dec.line);
        sites.emplace(site.base, std::move(site));
      }
    }
  }
  return sites;
}

const DecompositionMap& DecompositionSites(const Index& ix) {
  return ix.Derived<DecompositionMap>("decomposition-sites", [&] { return ReadDecompositionSites(ix); });
}

}  // namespace

void BackwardTracer::AddDecompositions() {
  const auto& sites = DecompositionSites(ix_);
  std::set<std::pair<std::string, int>> seen;
  std::set<std::string> op_names;
  for (const auto& op : t_.ops) op_names.insert(op.name);
  for (const std::string& name : op_names) {
    std::string base(OpBaseName(name));
    std::string overload(OpOverloadName(name));
    auto [b, e] = sites.equal_range(base);
    for (auto it = b; it != e; ++it) {
      const DecompositionSite& site = it->second;
      if (!site.overload.empty() && !(site.overload == overload || (site.overload == "default" && overload.empty())))
        continue;
      if (!seen.insert({site.path, site.line}).second) continue;
      DecompositionStep d;
      d.op = name;
      d.where = Loc(site.path, site.line, 0);
      d.function = site.function;
      d.registry = site.registry;
      d.target = site.target;
      t_.decompositions.push_back(d);
    }
  }
  // Keep the registries' file order, as the index lists them.
  std::stable_sort(t_.decompositions.begin(), t_.decompositions.end(), [](const auto& x, const auto& y) {
    return std::tie(x.where.file, x.where.line) < std::tie(y.where.file, y.where.line);
  });
}

}  // namespace optrace
