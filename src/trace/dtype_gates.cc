// Read from the text of function bodies (the C++ index gives their lines):
// the dtype lists are `array_of<at::ScalarType>(...)` calls, the
// constraint lists `array_of<bool (*)...>(...)` calls whose items are
// function names (template arguments dropped). Bounded in depth; a
// function defined more than once rejects a dtype only when every
// definition does.
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
    if (f.body_end <= f.body_begin) continue;
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
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i <= list.size(); ++i) {
    char c = i < list.size() ? list[i] : ',';
    if (c == '<' || c == '(') ++depth;
    if (c == '>' || c == ')') --depth;
    if (c == ',' && depth <= 0) {
      std::string item(TrimView(list.substr(start, i - start)));
      if (size_t lt = item.find('<'); lt != std::string::npos) item = item.substr(0, lt);
      if (!item.empty() && item[0] != '#') out.push_back(item);
      start = i + 1;
    }
  }
  return out;
}

Tri Gate(const Index& ix, std::string_view function, const std::string& dtype, int depth,
         std::set<std::string>* seen) {
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
    while (j > 0 && (std::isalnum(static_cast<unsigned char>(text[j - 1])) || text[j - 1] == '_')) --j;
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

}  // namespace

Tri DtypeGate(const Index& ix, std::string_view function, const std::string& dtype) {
  std::set<std::string> seen;
  return Gate(ix, function, dtype, 0, &seen);
}

Tri SelectionCanReturn(const Index& ix, std::string_view decider, const Location& where, std::string_view value,
                       const std::string& dtype) {
  if (!where.valid() || value.empty()) return Tri::kUnknown;
  auto text = ix.FileText(where.file);
  if (!text) return Tri::kUnknown;
  // The body of the function defined there.
  const CppFunction* fn = nullptr;
  for (uint32_t id : ix.cpp.FunctionsNamed(std::string(decider))) {
    const CppFunction& f = ix.cpp.functions()[id];
    if (ix.cpp.file(f.file) == where.file && static_cast<int>(f.line) == where.line) fn = &f;
  }
  if (!fn || fn->body_end <= fn->body_begin) return Tri::kUnknown;
  std::string_view body = Lines(*text, fn->body_begin, fn->body_end);
  std::string returned = "return " + std::string(value) + ";";
  int returns = 0;
  for (size_t at = body.find(returned); at != std::string_view::npos; at = body.find(returned, at + 1)) {
    ++returns;
    std::optional<std::string_view> guard = GuardOf(body, at);
    if (!guard) return Tri::kUnknown;
    bool ruled_out = false;
    for (const std::string& f : Called(*guard)) ruled_out = ruled_out || DtypeGate(ix, f, dtype) == Tri::kFalse;
    if (!ruled_out) return Tri::kUnknown;
  }
  return returns > 0 ? Tri::kFalse : Tri::kUnknown;
}

}  // namespace optrace
