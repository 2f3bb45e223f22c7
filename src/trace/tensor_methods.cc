// Reads the first statement of a hand-written Tensor method: the guard of
// an early `return *this;`. Anything else -- no such definition, another
// first statement, a guard the assumptions leave open -- says the method
// may dispatch, which is what the tracer assumed before.
#include "trace/tensor_methods.h"

#include <string>

#include "base/text.h"

namespace optrace {

namespace {

constexpr std::string_view kClassFiles[] = {"aten/src/ATen/templates/TensorBody.h", "aten/src/ATen/core/TensorBase.h"};

// The body text (between its braces) of the hand-written method, "" if
// none; *line is its first line.
std::string MethodBody(const Index& index, std::string_view method, std::string_view file, int* line) {
  for (uint32_t id : index.cpp.FunctionsNamed(method)) {
    const CppFunction& f = index.cpp.functions()[id];
    if (index.cpp.file(f.file) != file || !f.HasBody()) continue;
    std::string text =
        index.Snippet(std::string(file), static_cast<int>(f.body_begin), static_cast<int>(f.BodyLines()));
    size_t open = text.find('{'), close = text.rfind('}');
    if (open == std::string::npos || close == std::string::npos || close <= open) continue;
    *line = static_cast<int>(f.body_begin);
    return text.substr(open + 1, close - open - 1);
  }
  return "";
}

// Whitespace collapsed, `this->` dropped: "if (!is_complex()) { return *this; } ...".
std::string Normalized(std::string_view body) {
  std::string out;
  for (char c : body) {
    bool space = c == ' ' || c == '\n' || c == '\t' || c == '\r';
    if (space && (out.empty() || out.back() == ' ')) continue;
    out += space ? ' ' : c;
  }
  for (size_t at; (at = out.find("this->")) != std::string::npos;) out.erase(at, 6);
  return std::string(TrimView(out));
}

}  // namespace

namespace {

std::optional<SelfReturn> ReadEarlySelfReturn(const Index& index, std::string_view method) {
  for (std::string_view file : kClassFiles) {
    int line = 0;
    std::string body = Normalized(MethodBody(index, method, file, &line));
    if (body.empty()) continue;
    std::string delegation = "return TensorBase::" + std::string(method) + "(";
    if (StartsWith(body, delegation)) continue;  // TensorBody.h hands it to TensorBase.h: read that one
    if (!StartsWith(body, "if (")) return std::nullopt;
    int depth = 0;
    size_t close = std::string::npos;
    for (size_t i = 3; i < body.size(); ++i) {
      if (body[i] == '(') ++depth;
      if (body[i] == ')' && --depth == 0) {
        close = i;
        break;
      }
    }
    if (close == std::string::npos) return std::nullopt;
    std::string rest(TrimView(std::string_view(body).substr(close + 1)));
    if (!StartsWith(rest, "return *this;") && !StartsWith(rest, "{ return *this; }")) return std::nullopt;
    return SelfReturn{body.substr(4, close - 4), std::string(file), line + 1};
  }
  return std::nullopt;
}

}  // namespace

// Asked for every method call on an edge and in every formula read: each
// method's body is read once per index.
std::optional<SelfReturn> EarlySelfReturn(const Index& index, std::string_view method) {
  return index.Derived<std::optional<SelfReturn>>("self-return:" + std::string(method),
                                                  [&] { return ReadEarlySelfReturn(index, method); });
}

}  // namespace optrace
