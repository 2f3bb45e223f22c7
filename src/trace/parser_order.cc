// sort_overloads (tools/autograd/gen_python_functions.py) sorts a name's
// signatures by their text, then moves an overload that is larger in its
// partial order (is_smaller) before the smaller one. Two overloads are
// compared here the same way; the text is compared at the first argument
// where they differ, rendered as torchgen/api/python.py's
// argument_type_str renders it (symint). Everything before that argument
// is the same text in both, whatever its rendering. Which arguments parse
// at all is the parser's too: a Python number is a Tensor only for the few
// functions python_arg_parser.cpp names.
#include "trace/parser_order.h"

#include <map>
#include <set>
#include <string>
#include <vector>

#include "base/text.h"

namespace optrace {
namespace {

// The schema arguments a Python signature lists (out= arguments aside).
std::vector<const SchemaArgument*> Inputs(const FunctionSchema& s) {
  std::vector<const SchemaArgument*> out;
  for (const SchemaArgument& a : s.arguments)
    if (!a.is_out) out.push_back(&a);
  return out;
}

// "int[2]" -> ("int", "2"); "int[]" -> ("int", ""); nullopt for no list.
std::optional<std::pair<std::string, std::string>> ListOf(const std::string& type) {
  const size_t open = type.find('[');
  if (open == std::string::npos || type.back() != ']') return std::nullopt;
  return std::make_pair(type.substr(0, open), type.substr(open + 1, type.size() - open - 2));
}

// argument_type_str's text of a schema type; nullopt where it is not
// rendered here.
std::optional<std::string> ParserTypeText(const std::string& type) {
  if (type == "Tensor?") return type;
  if (!type.empty() && type.back() == '?') {
    auto elem = ParserTypeText(type.substr(0, type.size() - 1));
    return elem ? std::optional<std::string>(*elem + "?") : std::nullopt;
  }
  static const std::map<std::string, std::string> kBase = {{"Tensor", "Tensor"},
                                                           {"int", "int64_t"},
                                                           {"float", "double"},
                                                           {"str", "c10::string_view"},
                                                           {"bool", "bool"},
                                                           {"Scalar", "Scalar"},
                                                           {"ScalarType", "ScalarType"},
                                                           {"Generator", "Generator"},
                                                           {"Layout", "Layout"},
                                                           {"Device", "Device"},
                                                           {"MemoryFormat", "MemoryFormat"},
                                                           {"Dimname", "Dimname"},
                                                           {"SymInt", "SymInt"}};
  if (auto it = kBase.find(type); it != kBase.end()) return it->second;
  static const std::map<std::string, std::string> kLists = {{"int", "IntArrayRef"},
                                                            {"SymInt", "SymIntArrayRef"},
                                                            {"Tensor", "TensorList"},
                                                            {"Scalar", "ScalarList"},
                                                            {"Dimname", "DimnameList"}};
  auto list = ListOf(type);
  if (!list) return std::nullopt;
  auto it = kLists.find(list->first);
  if (it == kLists.end()) return std::nullopt;
  return list->second.empty() ? it->second : it->second + "[" + list->second + "]";
}

// is_arg_smaller: `t1` has lower priority than `t2`.
bool ArgSmaller(const std::string& t1, const std::string& t2) {
  return (t1 == "Scalar" && t2 == "Tensor") || (t1 == "Scalar?" && t2 == "Tensor?") ||
         (t1.find("Dimname") != std::string::npos && t2.find("Dimname") == std::string::npos) ||
         (t1 == "int[]" && (t2 == "int" || t2 == "int?")) || (t1 == "Tensor[]" && t2.find("[]") != std::string::npos) ||
         (t1 == "SymInt[]" && t2 == "int[]") || ((t1 == "SymInt" || t1 == "int") && t2 == "Tensor");
}

// is_smaller: every argument of `a` is of `b`'s type or a smaller one, and not all the same.
bool Smaller(const std::vector<const SchemaArgument*>& a, const std::vector<const SchemaArgument*>& b) {
  if (a.size() != b.size()) return false;
  bool equal = true;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i]->type == b[i]->type) continue;
    equal = false;
    if (!ArgSmaller(a[i]->type, b[i]->type)) return false;
  }
  return !equal;
}

}  // namespace

std::optional<bool> ParserTriesFirst(const FunctionSchema& a, const FunctionSchema& b) {
  const auto in_a = Inputs(a), in_b = Inputs(b);
  if (Smaller(in_a, in_b)) return false;
  if (Smaller(in_b, in_a)) return true;
  for (size_t i = 0; i < in_a.size() && i < in_b.size(); ++i) {
    const SchemaArgument &x = *in_a[i], &y = *in_b[i];
    if (x.type == y.type && x.name == y.name && x.default_value == y.default_value && x.kwarg_only == y.kwarg_only)
      continue;
    if (x.type == y.type || x.kwarg_only != y.kwarg_only) return std::nullopt;
    auto tx = ParserTypeText(x.type), ty = ParserTypeText(y.type);
    if (!tx || !ty) return std::nullopt;
    return *tx + " " < *ty + " ";  // each type is followed by a space and the name
  }
  return std::nullopt;
}

std::set<std::string> NumbersAsTensorsFunctions(std::string_view parser_cpp) {
  std::set<std::string> names;
  const size_t at = parser_cpp.find("bool should_allow_numbers_as_tensors(");
  if (at == std::string_view::npos) return names;
  const size_t body = parser_cpp.find('{', at), list = parser_cpp.find('{', body + 1);
  if (body == std::string_view::npos || list == std::string_view::npos) return names;
  const size_t end = ClosingBracket(parser_cpp, list);
  if (end == std::string_view::npos) return names;
  // The quoted names of the set's initializer; a comment there names none.
  std::string_view init = parser_cpp.substr(list + 1, end - list - 1);
  for (size_t i = 0; i < init.size(); ++i) {
    if (init.compare(i, 2, "//") == 0) {
      i = init.find('\n', i);
      if (i == std::string_view::npos) break;
    } else if (init[i] == '"') {
      const size_t close = init.find('"', i + 1);
      if (close == std::string_view::npos) break;
      names.emplace(init.substr(i + 1, close - i - 1));
      i = close;
    }
  }
  return names;
}

}  // namespace optrace
