// Read from the text of function bodies (the C++ index gives their lines):
// the dtype lists are `array_of<at::ScalarType>(...)` calls, the
// constraint lists `array_of<bool (*)...>(...)` calls whose items are
// function names (template arguments dropped). Bounded in depth; a
// function defined more than once rejects a dtype only when every
// definition does. A priority order is the brace list a `switch`'s
// range-for iterates, followed through a local's assignment, the
// functions returning it (a member function too) and, for a class
// member, its initializer in the header beside the member function's
// file; an order not read claims nothing.
#include "trace/dtype_gates.h"
#include "trace/walk_bounds.h"

#include <algorithm>
#include <cctype>
#include <optional>
#include <set>
#include <vector>

#include "base/text.h"

namespace optrace {

namespace {

// The text of lines [from, to] (1-based) of `text`.
std::string_view Lines(std::string_view text, uint32_t from, uint32_t to) {
  size_t begin = 0;
  for (uint32_t l = 1; l < from && begin != std::string_view::npos; ++l) {
    begin = text.find('\n', begin);
    if (begin != std::string_view::npos) ++begin;
  }
  if (begin == std::string_view::npos) return {};
  size_t end = begin;
  for (uint32_t l = from; l <= to && end != std::string_view::npos; ++l) {
    end = text.find('\n', end);
    if (end != std::string_view::npos) ++end;
  }
  return text.substr(begin, end == std::string_view::npos ? std::string_view::npos : end - begin);
}

// The bodies of every definition of `function`.
std::vector<std::string> Bodies(const Index& ix, std::string_view function) {
  std::vector<std::string> out;
  for (uint32_t id : ix.cpp.FunctionsNamed(std::string(function))) {
    const CppFunction& f = ix.cpp.functions()[id];
    if (!f.HasBody()) continue;
    auto text = ix.FileText(ix.cpp.file(f.file));
    if (text) out.emplace_back(Lines(*text, f.body_begin, f.body_end));
  }
  return out;
}

// The argument texts of each `array_of<KIND...>(...)` call in `body`
// whose template argument starts with `kind`.
std::vector<std::string> ArrayLists(std::string_view body, std::string_view kind) {
  std::vector<std::string> out;
  for (size_t at = body.find("array_of<"); at != std::string_view::npos; at = body.find("array_of<", at + 1)) {
    std::string_view rest = TrimView(body.substr(at + 9));
    if (!rest.starts_with(kind)) continue;
    size_t open = body.find(">(", at);
    if (open == std::string_view::npos) continue;
    int depth = 0;
    size_t i = open + 1;
    for (; i < body.size(); ++i) {
      if (body[i] == '(') ++depth;
      if (body[i] == ')' && --depth == 0) break;
    }
    out.emplace_back(body.substr(open + 2, i - open - 2));
  }
  return out;
}

// "at::kBFloat16" -> "bfloat16"; "" for a name it does not know.
std::string DtypeOf(std::string_view item) {
  item = TrimView(item);
  if (size_t colon = item.rfind("::"); colon != std::string_view::npos) item = item.substr(colon + 2);
  static const std::pair<const char*, const char*> kNames[] = {
      {"kHalf", "float16"},  {"Half", "float16"},  {"kBFloat16", "bfloat16"}, {"BFloat16", "bfloat16"},
      {"kFloat", "float32"}, {"Float", "float32"}, {"kDouble", "float64"},    {"Double", "float64"},
      {"kLong", "int64"},    {"kInt", "int32"},    {"kBool", "bool"},         {"kComplexFloat", "complex64"}};
  for (const auto& [name, dtype] : kNames)
    if (item == name) return dtype;
  return "";
}

// Items of a comma-separated list at the top level (template arguments kept together).
std::vector<std::string> Items(std::string_view list) {
  std::vector<std::string> out;
  for (std::string item : SplitTopLevel(list, ',', "<(", ">)")) {
    if (size_t lt = item.find('<'); lt != std::string::npos) item = item.substr(0, lt);
    if (!item.empty() && item[0] != '#') out.push_back(item);
  }
  return out;
}

Tri Gate(const Index& ix, std::string_view function, const std::string& dtype, int depth, std::set<std::string>* seen) {
  if (depth > kValueDepth || !seen->insert(std::string(function)).second) return Tri::kUnknown;
  std::vector<std::string> bodies = Bodies(ix, function);
  if (bodies.empty()) return Tri::kUnknown;
  for (const std::string& body : bodies) {
    bool rejects = false;
    std::vector<std::string> lists = ArrayLists(body, "at::ScalarType");
    if (!lists.empty()) {
      bool allowed = false;
      for (const std::string& list : lists)
        for (const std::string& item : Items(list)) allowed = allowed || DtypeOf(item) == dtype;
      rejects = !allowed;
    }
    for (const std::string& list : ArrayLists(body, "bool")) {
      for (const std::string& item : Items(list)) {
        std::string name = item;
        if (size_t colon = name.rfind("::"); colon != std::string::npos) name = name.substr(colon + 2);
        if (!rejects && Gate(ix, name, dtype, depth + 1, seen) == Tri::kFalse) rejects = true;
      }
    }
    if (!rejects) return Tri::kUnknown;
  }
  return Tri::kFalse;
}

// Free functions a condition calls ("sdp::can_use_flash_attention" -> "can_use_flash_attention").
std::vector<std::string> Called(std::string_view text) {
  std::vector<std::string> out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '(' || i == 0) continue;
    size_t j = i;
    while (j > 0 && IsIdentChar(text[j - 1])) --j;
    if (j < i && (j == 0 || text[j - 1] != '.')) out.emplace_back(text.substr(j, i - j));
  }
  return out;
}

// The condition of the `if (...)` whose statement is the `return` at
// `at`: the nearest `if` before it, when the return is its lone statement
// or inside its still open block; nullopt otherwise.
std::optional<std::string_view> GuardOf(std::string_view body, size_t at) {
  size_t guard = body.rfind("if (", at);
  if (guard == std::string_view::npos) return std::nullopt;
  size_t open = guard + 3;
  int depth = 0;
  size_t close = open;
  for (; close < at; ++close) {
    if (body[close] == '(') ++depth;
    if (body[close] == ')' && --depth == 0) break;
  }
  if (close >= at) return std::nullopt;
  std::string_view between = body.substr(close + 1, at - close - 1);
  // Its block must open right after the condition and stay open (an
  // `} else {` between closes it: the return is then the else branch's).
  std::string_view rest = TrimView(between);
  if (!rest.empty()) {
    if (rest.front() != '{') return std::nullopt;
    int braces = 0;
    for (char c : rest) {
      if (c == '{') ++braces;
      if (c == '}' && --braces == 0) return std::nullopt;
    }
  }
  return body.substr(open + 1, close - open - 1);
}

// Where `body` returns the enum member `value` however qualified
// (`return SDPBackend::math;`, `return at::SDPBackend::math;`): the
// offsets of each `return`.
std::vector<size_t> Returns(std::string_view body, std::string_view value) {
  std::string tail = std::string(EnumTail(value)) + ";";
  std::vector<size_t> out;
  for (size_t at = body.find(tail); at != std::string_view::npos; at = body.find(tail, at + 1)) {
    if (at > 0 && IsIdentChar(body[at - 1])) continue;  // a longer name
    size_t start = at;
    while (start > 0 && (IsIdentChar(body[start - 1]) || body[start - 1] == ':')) --start;
    if (start >= 7 && body.substr(start - 7, 7) == "return ") out.push_back(start - 7);
  }
  return out;
}

// The body of the definition of `function` at `where` (its name's line).
std::optional<std::string> DefinitionBody(const Index& ix, std::string_view function, const Location& where) {
  if (!where.valid()) return std::nullopt;
  auto text = ix.FileText(where.file);
  if (!text) return std::nullopt;
  for (uint32_t id : ix.cpp.FunctionsNamed(std::string(function))) {
    const CppFunction& f = ix.cpp.functions()[id];
    if (ix.cpp.file(f.file) != where.file || static_cast<int>(f.line) != where.line) continue;
    if (!f.HasBody()) return std::nullopt;
    return std::string(Lines(*text, f.body_begin, f.body_end));
  }
  return std::nullopt;
}

// The text inside the parentheses opening at `open` in `text`, or "".
std::string_view Parenthesized(std::string_view text, size_t open) {
  int depth = 0;
  for (size_t i = open; i < text.size(); ++i) {
    if (text[i] == '(') ++depth;
    if (text[i] == ')' && --depth == 0) return text.substr(open + 1, i - open - 1);
  }
  return {};
}

// The range a `switch` on a range-for's variable iterates: in
// `for (auto& backend : ordering) { switch (backend) {`, "ordering".
std::string SwitchedRange(std::string_view body) {
  size_t sw = body.find("switch (");
  if (sw == std::string_view::npos) return "";
  std::string_view switched = TrimView(Parenthesized(body, sw + 7));
  for (size_t at = body.find("for ("); at != std::string_view::npos && at < sw; at = body.find("for (", at + 1)) {
    std::string_view header = Parenthesized(body, at + 4);
    size_t colon = header.find(" : ");
    if (colon == std::string_view::npos) continue;
    std::string_view var = TrimView(header.substr(0, colon));
    size_t start = var.size();
    while (start > 0 && IsIdentChar(var[start - 1])) --start;
    if (var.substr(start) != switched) continue;
    std::string range(TrimView(header.substr(colon + 3)));
    return IsIdentifier(range) ? range : "";
  }
  return "";
}

// Where `name` is written in `text` as a whole word followed by `next`
// (spaces between allowed), or npos; `next` is not consumed.
size_t WordBefore(std::string_view text, std::string_view name, std::string_view next) {
  for (size_t at = text.find(name); at != std::string_view::npos; at = text.find(name, at + 1)) {
    if (at > 0 && IsIdentChar(text[at - 1])) continue;
    size_t after = at + name.size();
    while (after < text.size() && text[after] == ' ') ++after;
    if (text.substr(after).starts_with(next) && !text.substr(after).starts_with("==")) return after;
  }
  return std::string_view::npos;
}

// The enum members of `name`'s brace initializer in `text` (`name{a::b,
// ...}` or `name = {...}`), or empty.
std::vector<std::string> InitializerMembers(std::string_view text, std::string_view name) {
  size_t brace = WordBefore(text, name, "{");
  if (brace == std::string_view::npos) {
    size_t eq = WordBefore(text, name, "=");
    if (eq == std::string_view::npos) return {};
    std::string_view rest = text.substr(eq + 1);
    size_t first = rest.find_first_not_of(" \n");
    if (first == std::string_view::npos || rest[first] != '{') return {};
    brace = eq + 1 + first;
  }
  size_t close = text.find('}', brace);
  if (close == std::string_view::npos) return {};
  std::vector<std::string> members;
  for (const std::string& item : Items(text.substr(brace + 1, close - brace - 1))) {
    if (item.find("::") == std::string::npos) return {};
    members.push_back(item);
  }
  return members;
}

// The last function a call expression calls, a member function too
// (`at::globalContext().sDPPriorityOrder()` -> "sDPPriorityOrder"), or "".
std::string LastCalled(std::string_view expr) {
  size_t open = expr.rfind('(');
  while (open != std::string_view::npos) {
    size_t start = open;
    while (start > 0 && IsIdentChar(expr[start - 1])) --start;
    if (start < open) return std::string(expr.substr(start, open - start));
    open = open == 0 ? std::string_view::npos : expr.rfind('(', open - 1);
  }
  return "";
}

std::vector<std::string> BraceList(const Index& ix, const std::string& file, std::string_view body,
                                   std::string_view name, int depth);

// The members the list `expr` (read in `body` of a function in `file`)
// holds: a name's (BraceList), or what the function it calls returns.
std::vector<std::string> ListOf(const Index& ix, const std::string& file, std::string_view body, std::string_view expr,
                                int depth) {
  if (depth > kValueDepth) return {};  // a list's value is followed back as a variable's is
  expr = TrimView(expr);
  if (IsIdentifier(expr)) return BraceList(ix, file, body, expr, depth);
  std::string called = LastCalled(expr);
  if (called.empty()) return {};
  for (uint32_t id : ix.cpp.FunctionsNamed(called)) {
    const CppFunction& f = ix.cpp.functions()[id];
    std::string callee_file = ix.cpp.file(f.file);
    std::optional<std::string> callee = DefinitionBody(ix, f.name, {callee_file, static_cast<int>(f.line), ""});
    if (!callee) continue;
    size_t ret = callee->find("return ");
    if (ret == std::string::npos) continue;
    std::string_view returned = std::string_view(*callee).substr(ret + 7, callee->find(';', ret) - ret - 7);
    std::vector<std::string> found = ListOf(ix, callee_file, *callee, returned, depth + 1);
    if (!found.empty()) return found;
  }
  return {};
}

// The members the list `name` holds, read in `body` (of a function in
// `file`): its own initializer, else what its local is assigned from
// (`ordering = priority_order(params)`), else a class member's initializer
// in the header beside `file` (Context.cpp's `return sdp_priority_order;`
// -> Context.h).
std::vector<std::string> BraceList(const Index& ix, const std::string& file, std::string_view body,
                                   std::string_view name, int depth) {
  if (std::vector<std::string> own = InitializerMembers(body, name); !own.empty()) return own;
  if (size_t eq = WordBefore(body, name, "="); eq != std::string_view::npos)
    return ListOf(ix, file, body, body.substr(eq + 1, body.find(';', eq) - eq - 1), depth + 1);
  size_t dot = file.rfind('.');
  if (dot == std::string::npos) return {};
  auto header = ix.FileText(file.substr(0, dot) + ".h");
  return header ? InitializerMembers(*header, name) : std::vector<std::string>{};
}
}  // namespace

std::string_view EnumTail(std::string_view member) {
  size_t last = member.rfind("::");
  if (last == std::string_view::npos || last == 0) return member;
  size_t before = member.rfind("::", last - 1);
  return before == std::string_view::npos ? member : member.substr(before + 2);
}

Tri DtypeGate(const Index& ix, std::string_view function, const std::string& dtype) {
  std::set<std::string> seen;
  return Gate(ix, function, dtype, 0, &seen);
}

Tri SelectionCanReturn(const Index& ix, std::string_view decider, const Location& where, std::string_view value,
                       const Assumptions& a) {
  if (value.empty()) return Tri::kUnknown;
  std::optional<std::string> body = DefinitionBody(ix, decider, where);
  if (!body) return Tri::kUnknown;
  int returns = 0;
  for (size_t at : Returns(*body, value)) {
    ++returns;
    std::optional<std::string_view> guard = GuardOf(*body, at);
    if (!guard) return Tri::kUnknown;
    bool ruled_out = EvaluateCondition(*guard, false, a) == Tri::kFalse;
    for (const std::string& f : Called(*guard)) ruled_out = ruled_out || DtypeGate(ix, f, a.dtype) == Tri::kFalse;
    if (!ruled_out) return Tri::kUnknown;
  }
  return returns > 0 ? Tri::kFalse : Tri::kUnknown;
}

std::vector<std::string> SelectionOrder(const Index& ix, std::string_view decider, const Location& where) {
  std::optional<std::string> body = DefinitionBody(ix, decider, where);
  if (!body) return {};
  std::string range = SwitchedRange(*body);
  if (range.empty()) return {};
  return BraceList(ix, where.file, *body, range, 0);
}

Tri SelectionPicks(const Index& ix, std::string_view decider, const Location& where, std::string_view value,
                   const Assumptions& a) {
  if (SelectionCanReturn(ix, decider, where, value, a) == Tri::kFalse) return Tri::kFalse;
  std::vector<std::string> order = SelectionOrder(ix, decider, where);
  if (order.empty()) return Tri::kUnknown;
  for (const std::string& candidate : order) {
    if (EnumTail(candidate) == EnumTail(value)) return Tri::kTrue;
    if (SelectionCanReturn(ix, decider, where, candidate, a) != Tri::kFalse) return Tri::kFalse;
  }
  // Not in the order: only a return outside the loop could give it.
  std::optional<std::string> body = DefinitionBody(ix, decider, where);
  return body && Returns(*body, value).empty() ? Tri::kFalse : Tri::kUnknown;
}

}  // namespace optrace
