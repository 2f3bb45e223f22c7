// CallRecorder: the calls and tensor operators of one logical line of a
// function body (py_scan.cc's conventions: callee text, line, operands as
// written), each recorded into the function it belongs to -- a lambda's
// into a "<lambda>" function of its own.
#include "py/py_call_recorder.h"

#include <algorithm>
#include <cstring>

#include "py/py_module_statements.h"

namespace optrace {
namespace {

constexpr int kMaxLambdaDepth = 16;
constexpr int kMaxOperands = 16;     // operands an operator's left side is read back over
constexpr int kMaxCalleeLinks = 16;  // trailers a call's callee is read back over
// An operator call keeps both operands ("left\tright", maybe after "... "),
// each cut so that the whole stays within kMaxPyArgsText like any call's args.
constexpr size_t kMaxOperandText = (kMaxPyArgsText - 5) / 2;
constexpr int kPowerPrecedence = 8;

// How tightly a binary operator binds (Python's order); 0 for the
// augmented assignments, whose right side is everything after them.
int Precedence(std::string_view op) {
  if (op == "**") return kPowerPrecedence;
  if (op == "*" || op == "/" || op == "//" || op == "%" || op == "@") return 7;
  if (op == "+" || op == "-") return 6;
  if (op == "<<" || op == ">>") return 5;
  if (op == "&") return 4;
  if (op == "^") return 3;
  if (op == "|") return 2;
  if (op == "<" || op == ">" || op == "<=" || op == ">=" || op == "==" || op == "!=") return 1;
  return 0;
}

}  // namespace

void CallRecorder::Line(size_t b, size_t e, int32_t fn) {
  if (t_.IsName(b, "import") || t_.IsName(b, "from")) {
    std::vector<PyImport> imports;
    ReadImport(t_, b, e, package_, &imports);
    auto& dst = mod_.functions[fn].imports;
    dst.insert(dst.end(), imports.begin(), imports.end());
    return;
  }
  // Soft keywords: `case` patterns look like calls but are not; `match x:`
  // starts with a name that is not a callee.
  if (e > b + 1 && t_.IsOp(e - 1, ":") && t_[b].kind == PyTok::kName) {
    if (t_.Text(b) == "case") return;
    if (t_.Text(b) == "match" && !t_.IsOp(b + 1, "(") && !t_.IsOp(b + 1, ".") && !t_.IsOp(b + 1, "=")) ++b;
  }
  // An annotated assignment's annotation holds no calls or subscripts of tensors.
  size_t skip_b = e, skip_e = e;
  size_t dotted = t_.DottedEnd(b, e);
  if (dotted > b && dotted < e && t_.IsOp(dotted, ":") && !t_.IsName(b, "lambda")) {
    skip_b = dotted + 1;
    skip_e = skip_b;
    while (skip_e < e && !t_.IsOp(skip_e, "=")) skip_e = t_.IsOpenGroup(skip_e) ? t_.SkipGroup(skip_e) : skip_e + 1;
    skip_e = std::min(skip_e, e);
  }
  if (skip_b < e) {
    CollectCalls(b, skip_b, fn, 0);
    CollectCalls(skip_e, e, fn, 0);
  } else {
    CollectCalls(b, e, fn, 0);
  }
}

// Calls and operators in tokens [b, e) into function `fn`.
void CallRecorder::CollectCalls(size_t b, size_t e, int32_t fn, int lambda_depth) {
  for (size_t i = b; i < e; ++i) {
    const PyToken& t = t_[i];
    if (t.kind == PyTok::kName) {
      if (lambda_depth < kMaxLambdaDepth && t_.Text(i) == "lambda") i = Lambda(i, e, fn, lambda_depth) - 1;
      continue;
    }
    if (t.kind != PyTok::kOp || i == b) continue;
    const char c0 = t_.FirstChar(i);
    // Only these can start a recorded operator; test the cheap part first.
    if (!std::strchr("([@-*/+%&|^<>=!~", c0)) continue;
    std::string_view op = t_.Text(i);
    if (!t_.EndsOperand(i - 1)) {
      // Unary minus and invert (`-input`, `~mask`); not before a number literal (`x[-1]`).
      if ((op == "-" || op == "~") && i + 1 < e && t_[i + 1].kind != PyTok::kNumber) AddUnary(fn, op, i, e);
      continue;
    }
    if (op == "=" || op == "!") continue;
    if (op.size() == 1) {
      if (c0 == '(') AddCall(fn, i);
      else if (c0 == '[') AddOperator(fn, "[]", i, e);
      else if ((c0 != '+' && c0 != '%') || t_[i - 1].kind != PyTok::kString) AddOperator(fn, op, i, e);
    } else if (op == "**" || op == "//" || op == "<<" || op == ">>" || op.back() == '=') {
      AddOperator(fn, op, i, e);  // ** // << >>, comparisons, and += -= *= /= @= //= **= %= &= ...
    }
  }
}

// lambda params: body -- a function "<lambda>" of its own. Returns the
// index past the lambda body.
size_t CallRecorder::Lambda(size_t i, size_t e, int32_t outer, int lambda_depth) {
  size_t colon = i + 1;
  while (colon < e && !t_.IsOp(colon, ":")) colon = t_.IsOpenGroup(colon) ? t_.SkipGroup(colon) : colon + 1;
  if (colon >= e) return i + 1;
  size_t end = colon + 1;
  int inner_lambdas = 0;  // `lambda: lambda x: x` -- their colons are not ours
  while (end < e) {
    if (t_[end].kind == PyTok::kOp) {
      std::string_view s = t_.Text(end);
      if (IsOpenBracket(s)) {
        end = t_.SkipGroup(end);
        continue;
      }
      if (s == "," || IsCloseBracket(s) || s == ";") break;
      if (s == ":") {  // a slice bound or dict value ends the lambda
        if (inner_lambdas == 0) break;
        --inner_lambdas;
      }
    } else if (t_[end].kind == PyTok::kName) {
      std::string_view s = t_.Text(end);
      if (s == "for" || s == "async") break;
      if (s == "lambda") ++inner_lambdas;
    }
    ++end;
  }
  end = std::min(end, e);
  PyFunction fn;
  fn.name = "<lambda>";
  fn.qualname = mod_.functions[outer].qualname + ".<lambda>";
  fn.line = t_[i].line;
  fn.end_line = t_.EndLine(end > colon + 1 ? end - 1 : colon);
  fn.params = t_.ParamNames(i + 1, colon);
  const int32_t index = static_cast<int32_t>(mod_.functions.size());
  mod_.functions.push_back(std::move(fn));
  CollectCalls(colon + 1, end, index, lambda_depth + 1);
  return end;
}

// Operator token i (in a statement ending before e), with its operands.
void CallRecorder::AddOperator(int32_t fn, std::string_view op, size_t i, size_t e) {
  PyCall call;
  call.callee = std::string(op);
  call.kind = PyCallKind::kOperator;
  call.line = t_[i].line;
  if (op == "[]") {
    call.args = t_.Collapsed(t_.PrimaryStart(i - 1), i, kMaxOperandText) + '\t' +
                t_.Collapsed(i + 1, t_.SkipGroup(i) - 1, kMaxOperandText);
  } else {
    const int prec = Precedence(op);
    bool cut = false;
    size_t left = LeftOperand(i, prec, &cut);
    call.args = (cut ? "... " : "") + t_.Collapsed(left, i, kMaxOperandText) + '\t' +
                t_.Collapsed(i + 1, RightOperand(i + 1, e, prec), kMaxOperandText);
  }
  mod_.functions[fn].calls.push_back(std::move(call));
}

// A unary operator at i: recorded as "u-" / "u~" with its operand (args
// "\toperand": no left side).
void CallRecorder::AddUnary(int32_t fn, std::string_view op, size_t i, size_t e) {
  PyCall call;
  call.callee = "u" + std::string(op);
  call.kind = PyCallKind::kOperator;
  call.line = t_[i].line;
  call.args = '\t' + t_.Collapsed(i + 1, RightOperand(i + 1, e, kPowerPrecedence - 1), kMaxOperandText);
  mod_.functions[fn].calls.push_back(std::move(call));
}
// Token i is a binary operator (it follows an operand): its precedence, else 0.
int CallRecorder::BinaryAt(size_t i) const {
  if (i == 0 || t_[i].kind != PyTok::kOp || !t_.EndsOperand(i - 1)) return 0;
  return Precedence(t_.Text(i));
}
// First token of the left operand of the operator at i: the primary before
// it, a unary sign before that, and operands joined by tighter operators
// (or equal ones: left-associative; ** is right-associative). A long chain
// (a + b + c + ...) is cut after kMaxOperands operands (*cut), so that
// scanning it stays linear.
size_t CallRecorder::LeftOperand(size_t i, int prec, bool* cut) const {
  size_t s = t_.PrimaryStart(i - 1);
  for (int n = 0;; ++n) {
    if (n == kMaxOperands) {
      *cut = true;
      return s;
    }
    while (s > 0 && (t_.IsOp(s - 1, "-") || t_.IsOp(s - 1, "+") || t_.IsOp(s - 1, "~")) &&
           (s < 2 || !t_.EndsOperand(s - 2)))
      --s;
    if (s < 2 || prec == 0) return s;
    int p = BinaryAt(s - 1);
    if (p == 0 || p < prec || (p == prec && prec == kPowerPrecedence)) return s;
    s = t_.PrimaryStart(s - 2);
  }
}
// Index past the right operand starting at b (statement ends before e).
size_t CallRecorder::RightOperand(size_t b, size_t e, int prec) const {
  size_t i = b;
  for (;;) {
    while (i < e && (t_.IsOp(i, "-") || t_.IsOp(i, "+") || t_.IsOp(i, "~") || t_.IsName(i, "not"))) ++i;
    if (i >= e) return e;
    i = t_.PrimaryEnd(i, e);
    if (i >= e) return e;
    int p = BinaryAt(i);
    if (p == 0 || (prec > 0 && (p < prec || (p == prec && prec != kPowerPrecedence)))) return i;
    ++i;
  }
}

// A call whose '(' is token i: walks back over the primary expression, at
// most kMaxCalleeLinks trailers: the receiver of x.relu().relu()... is
// "(...)" past that, so a chain of n calls costs n, not n^2, in time and
// in callee text (issue 29 item 3).
void CallRecorder::AddCall(int32_t fn, size_t open) {
  bool cut = false;
  size_t start = t_.PrimaryStart(open - 1, kMaxCalleeLinks, &cut);  // first token of the callee
  PyCall call;
  if (cut) {
    call.callee = "(...)";
    ++start;
  }
  call.line = t_[open - 1].line;
  call.callee.reserve(std::min<size_t>(64, t_[open - 1].begin + t_[open - 1].size - t_[start].begin));
  // Callee text with groups elided.
  for (size_t k = start; k < open;) {
    const PyToken& t = t_[k];
    if (t.kind == PyTok::kOp && IsOpenBracket(t_.Text(k))) {
      size_t next = t_.SkipGroup(k);
      bool empty = next == k + 2;
      std::string_view o = t_.Text(k);
      if (k == start && o == "(" && !cut) call.callee += "(...)";
      else if (o == "(") call.callee += empty ? "()" : "(...)";
      else if (o == "[") call.callee += "[...]";
      else call.callee += "{...}";
      k = std::min(next, open);
      continue;
    }
    if (t.kind == PyTok::kString) call.callee += "<str>";
    else call.callee += t_.Text(k);
    ++k;
  }
  size_t close = t_.SkipGroup(open) - 1;
  if (close > open) call.args = t_.Collapsed(open + 1, close);
  mod_.functions[fn].calls.push_back(std::move(call));
}

}  // namespace optrace
