// Expressions are read from the lexer's tokens: a conditional at the top
// level, else a call (its name the identifier before the group closing the
// expression, a method's receiver the tokens before its `.`). A helper's
// returns come from CppGuardReader::ReturnsOf; a local's one assignment
// from its function's tokens.
#include "trace/fresh_tensors.h"

#include <algorithm>
#include <optional>
#include <vector>

#include "base/text.h"
#include "cpp/cpp_lexer.h"
#include "py/py_values.h"
#include "trace/guard_files.h"
#include "trace/trace_internal.h"

namespace optrace {

namespace {

// How deep helpers returning a helper's result are followed.
constexpr int kMaxHelperDepth = 2;

// Tokens [b, e) as written (they point into one text).
std::string Joined(const std::vector<Token>& t, size_t b, size_t e) {
  if (b >= e) return "";
  const char* first = t[b].text.data();
  const char* last = t[e - 1].text.data() + t[e - 1].text.size();
  return std::string(first, last);
}

// Whether `schema` takes a Tensor (other than self, with `but_self`).
bool TakesTensor(const FunctionSchema& schema, bool but_self) {
  return std::any_of(schema.arguments.begin(), schema.arguments.end(), [&](const SchemaArgument& a) {
    return a.type.find("Tensor") != std::string::npos && !(but_self && a.name == "self");
  });
}

// Whether no non-out overload of op `base` takes a Tensor (beside self, `but_self`).
bool TakesNoTensor(const Index& ix, std::string_view base, bool but_self) {
  auto overloads = ix.yaml.Overloads(base);
  if (overloads.empty()) return false;
  return std::none_of(overloads.begin(), overloads.end(),
                      [&](const NativeFunction* f) { return !f->schema.is_out() && TakesTensor(f->schema, but_self); });
}

}  // namespace

const std::set<std::string>& OpsWithoutDerivative(const Index& ix) {
  return ix.Derived<std::set<std::string>>("ops-without-derivative", [&] {
    std::set<std::string> out;
    if (auto text = ix.FileText("tools/autograd/gen_variable_type.py"))
      for (std::string& name : StringsAssigned(*text, "DONT_REQUIRE_DERIVATIVE")) out.insert(std::move(name));
    return out;
  });
}

bool OnAFactorysResult(const Index& ix, const OpCallStep& call, const OpStep& callee) {
  const size_t made_by = call.how.find("().");
  if (!callee.yaml || made_by == std::string::npos || call.how.find('.') != made_by + 2) return false;
  const std::string factory = call.how.substr(0, made_by);
  return !TakesTensor(callee.yaml->schema, true) && TakesNoTensor(ix, factory.substr(factory.rfind(':') + 1), false);
}

bool MakesNoGradTensor(const Index& ix, std::string_view expr, int depth) {
  LexedFile lexed;
  LexCpp(expr, &lexed);
  const std::vector<Token>& t = lexed.tokens;
  if (t.empty()) return false;
  // `c ? a : b`: both arms.
  int level = 0;
  std::optional<size_t> question;
  for (size_t i = 0; i < t.size(); ++i) {
    if (IsOpenBracket(t[i])) ++level;
    if (IsCloseBracket(t[i])) --level;
    if (level != 0) continue;
    if (t[i].Is('?') && !question) question = i;
    if (t[i].Is(':') && question)
      return MakesNoGradTensor(ix, Joined(t, *question + 1, i), depth) &&
             MakesNoGradTensor(ix, Joined(t, i + 1, t.size()), depth);
  }
  // A call: the group closing the expression, and the name before it.
  if (!t.back().Is(')')) return false;
  level = 0;
  size_t open = t.size();
  for (size_t i = t.size(); i-- > 0;) {
    if (IsCloseBracket(t[i])) ++level;
    if (IsOpenBracket(t[i]) && --level == 0) {
      open = i;
      break;
    }
  }
  if (open == t.size() || open == 0 || !IsIdent(t[open - 1])) return false;
  const std::string callee(WithoutSymInt(t[open - 1].text));
  const bool method = open >= 2 && (t[open - 2].Is('.') || t[open - 2].Is("->"));
  if (OpsWithoutDerivative(ix).count(callee)) return true;
  if (!ix.yaml.Overloads(callee).empty()) {
    if (!method) return TakesNoTensor(ix, callee, false);
    return TakesNoTensor(ix, callee, true) && MakesNoGradTensor(ix, Joined(t, 0, open - 2), depth);
  }
  // A helper: each definition's every return.
  if (method || depth >= kMaxHelperDepth) return false;
  bool any = false;
  for (uint32_t id : ix.cpp.FunctionsNamed(callee)) {
    const CppFunction& f = ix.cpp.functions()[id];
    auto returns = GuardReaderOf(ix, ix.cpp.file(f.file)).ReturnsOf(static_cast<int>(f.line));
    if (!returns || returns->empty()) return false;
    for (const GuardedReturn& r : *returns)
      if (!MakesNoGradTensor(ix, r.value, depth + 1)) return false;
    any = true;
  }
  return any;
}

namespace {

// Whether the overloads call `c` admits (every overload of its op, where
// they are not read) take no Tensor beside self.
bool AdmitsNoOtherTensor(const Index& ix, const OpCallStep& c) {
  std::vector<const NativeFunction*> overloads;
  for (const std::string& o : c.overloads)
    if (const NativeFunction* f = ix.yaml.Find(o)) overloads.push_back(f);
  if (overloads.empty()) overloads = ix.yaml.Overloads(c.op);
  if (overloads.empty()) return false;
  return std::none_of(overloads.begin(), overloads.end(),
                      [](const NativeFunction* f) { return TakesTensor(f->schema, true); });
}

// The local a call of `caller`'s is made on, through the chain the scanner
// writes a link at a time ("noise.add()", then "add().mul_()" on the same
// line), each link an op taking no other Tensor; "" when it is made on
// anything else.
std::string LocalCalledOn(const Index& ix, const OpStep& caller, const OpCallStep& call, int depth = 0) {
  const std::string tail = "." + call.op + "()";
  if (!call.how.ends_with(tail) || !AdmitsNoOtherTensor(ix, call)) return "";
  const std::string receiver = call.how.substr(0, call.how.size() - tail.size());
  if (IsIdentifier(receiver)) return receiver;
  if (depth > 8 || !receiver.ends_with("()")) return "";
  const std::string link = receiver.substr(0, receiver.size() - 2);
  for (const OpCallStep& c : caller.calls)
    if (c.op == link && c.from == call.from && c.where.file == call.where.file && c.where.line == call.where.line &&
        &c != &call)
      return LocalCalledOn(ix, caller, c, depth + 1);
  return "";
}

}  // namespace

bool CalledOnANoGradLocal(const Index& ix, const OpStep& caller, const OpCallStep& call) {
  const std::string name = LocalCalledOn(ix, caller, call);
  if (name.empty()) return false;
  // The calling function's body, and the local's one assignment in it.
  const CppFunction* fn = nullptr;
  for (uint32_t id : ix.cpp.FunctionsNamed(call.from)) {
    const CppFunction& f = ix.cpp.functions()[id];
    if (ix.cpp.file(f.file) == call.where.file && f.HasBody() && static_cast<int>(f.body_begin) <= call.where.line &&
        call.where.line <= static_cast<int>(f.body_end))
      fn = &f;
  }
  if (!fn) return false;
  // Its body's tokens, as the file's reader lexed them once.
  const std::vector<Token>& t = GuardReaderOf(ix, call.where.file).lexed().tokens;
  auto line_before = [](const Token& tok, uint32_t line) { return tok.line < line; };
  const size_t first = std::lower_bound(t.begin(), t.end(), fn->body_begin, line_before) - t.begin();
  const size_t last = std::lower_bound(t.begin(), t.end(), fn->body_end + 1, line_before) - t.begin();
  std::optional<std::string> made;
  for (size_t i = first; i + 1 < last; ++i) {
    if (!IsIdent(t[i]) || t[i].text != name || (i > 0 && (t[i - 1].Is('.') || t[i - 1].Is("->")))) continue;
    const std::string_view op = t[i + 1].text;
    const bool assigns = t[i + 1].kind == TokKind::kPunct && op.size() <= 3 && op.back() == '=' && op != "==" &&
                         op != "<=" && op != ">=" && op != "!=";
    if (!assigns) continue;
    if (made || op != "=") return false;  // written twice, or by a compound assignment
    size_t end = i + 2;
    int level = 0;
    for (; end < last; ++end) {
      if (IsOpenBracket(t[end])) ++level;
      if (IsCloseBracket(t[end])) --level;
      if (level == 0 && t[end].Is(';')) break;
    }
    made = Joined(t, i + 2, end);
  }
  if (!made || !MakesNoGradTensor(ix, *made)) return false;
  // Every op called on it takes no other Tensor (`noise.copy_(x)` would make it need grad).
  for (const OpCallStep& c : caller.calls)
    if (c.from == call.from && c.how.starts_with(name + ".") && LocalCalledOn(ix, caller, c) != name) return false;
  return true;
}

}  // namespace optrace
