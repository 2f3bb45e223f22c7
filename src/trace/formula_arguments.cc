// The formula's text is read here as torchgen reads it: a call's name
// followed by its parenthesized, comma-separated arguments; an argument
// that is a bare name of the forward schema's argument is that argument.
#include "trace/formula_arguments.h"

#include <set>

#include "base/text.h"
#include "trace/trace_internal.h"
#include "trace/trace_typical.h"

namespace optrace {

// The C++ declarations of a formula's names, as the backward function torchgen
// generates around it declares them: each argument of the entry's schema with
// its C++ type, the incoming gradient and the forward's result Tensors.
std::string FormulaParameters(const FunctionSchema& schema) {
  std::string params = "const Tensor& grad, const Tensor& result";
  for (const auto& a : schema.arguments) {
    std::string_view type;
    switch (SchemaTypeKind(a.type)) {
      case 'T':
        type = "const Tensor&";
        break;
      case 'L':
        type = "TensorList";
        break;
      case 'D':
        type = "ScalarType";
        break;
      case 'S':
        type = "const Scalar&";
        break;
      case 'I':
        type = "IntArrayRef";
        break;
      case 'i':
        type = "int64_t";
        break;
      case 'b':
        type = "bool";
        break;
      case 'f':
        type = "double";
        break;
      default:
        continue;
    }
    params += ", " + std::string(type) + " " + a.name;
  }
  return params;
}

std::vector<std::vector<std::string>> FormulaCallArguments(std::string_view formula, std::string_view name) {
  std::vector<std::vector<std::string>> calls;
  for (std::string callee : {std::string(name) + "_symint", std::string(name)}) {
    for (size_t at = formula.find(callee); at != std::string_view::npos; at = formula.find(callee, at + 1)) {
      size_t open = at + callee.size();
      if ((at > 0 && (IsIdentChar(formula[at - 1]) || formula[at - 1] == '.')) || open >= formula.size() ||
          formula[open] != '(')
        continue;
      int depth = 0;
      size_t close = open;
      for (; close < formula.size(); ++close) {
        if (formula[close] == '(') ++depth;
        else if (formula[close] == ')' && --depth == 0) break;
      }
      if (close >= formula.size()) continue;
      calls.push_back(SplitTopLevel(formula.substr(open + 1, close - open - 1), ','));
    }
    if (!calls.empty()) break;
  }
  return calls;
}

std::vector<std::map<std::string, std::optional<std::string>>> FormulaCallBindings(
    const std::vector<BackwardStep>& steps, const OpStep& forward, const OpStep& backward,
    const std::map<std::string, std::string>& forward_values) {
  std::vector<std::map<std::string, std::optional<std::string>>> sites;
  if (!backward.yaml || !forward.yaml) return sites;
  std::set<std::string> forward_names;
  for (const auto& a : forward.yaml->schema.arguments) forward_names.insert(a.name);
  const auto& parameters = backward.yaml->schema.arguments;
  for (const BackwardStep& b : steps) {
    if (b.op != forward.name || !b.derivatives) continue;
    for (const DerivativeFormula& f : b.derivatives->formulas)
      for (const auto& arguments : FormulaCallArguments(f.formula, OpBaseName(backward.name))) {
        if (arguments.size() > parameters.size()) continue;  // another overload's call
        std::map<std::string, std::optional<std::string>> site;
        for (size_t k = 0; k < arguments.size(); ++k) {
          // The incoming gradient (`grad`, `grads[1]`; no forward argument
          // of that name) is itself: defined for the first output only
          // (trace_typical.h's DefinedGradient).
          if (IsIncomingGradient(arguments[k]) && !forward_names.count(arguments[k])) {
            site[parameters[k].name] = arguments[k];
            continue;
          }
          auto value = forward_values.find(arguments[k]);
          if (forward_names.count(arguments[k]) && value != forward_values.end())
            site[parameters[k].name] = value->second;
        }
        sites.push_back(std::move(site));
      }
  }
  return sites;
}

}  // namespace optrace
