// JSON forms of NativeFunction and DerivativeEntry (see yaml_json.h).
#include "yaml/yaml_json.h"

namespace optrace {

namespace {

template <typename T>
nlohmann::ordered_json OrNull(const std::optional<T>& v) {
  return v ? nlohmann::ordered_json(*v) : nlohmann::ordered_json(nullptr);
}

nlohmann::ordered_json PairsToObject(const std::vector<std::pair<std::string, std::string>>& pairs) {
  nlohmann::ordered_json o = nlohmann::ordered_json::object();
  for (const auto& [k, v] : pairs) o[k] = v;
  return o;
}

nlohmann::ordered_json FormulasToJson(const std::vector<DerivativeFormula>& formulas) {
  nlohmann::ordered_json a = nlohmann::ordered_json::array();
  for (const auto& f : formulas) a.push_back({{"inputs", f.inputs}, {"formula", f.formula}, {"line", f.line}});
  return a;
}

}  // namespace

nlohmann::ordered_json NativeFunctionToJson(const NativeFunction& f) {
  nlohmann::ordered_json j;
  j["name"] = f.name;
  j["file"] = kNativeFunctionsPath;
  j["line"] = f.line;
  j["func"] = f.schema.text;
  j["variants"] = f.variants;
  j["dispatch"] = PairsToObject(f.dispatch);
  j["implicit_composite"] = f.implicit_composite;
  j["structured"] = f.structured;
  j["structured_delegate"] = OrNull(f.structured_delegate);
  j["structured_inherits"] = OrNull(f.structured_inherits);
  j["precomputed"] = f.precomputed;
  j["autogen"] = f.autogen;
  j["autogen_from"] = OrNull(f.autogen_from);
  j["ufunc_inner_loop"] = PairsToObject(f.ufunc_inner_loop);
  j["tags"] = f.tags;
  j["python_module"] = OrNull(f.python_module);
  j["device_check"] = OrNull(f.device_check);
  j["device_guard"] = OrNull(f.device_guard);
  j["category_override"] = OrNull(f.category_override);
  j["manual_kernel_registration"] = f.manual_kernel_registration;
  j["manual_cpp_binding"] = f.manual_cpp_binding;
  j["other_keys"] = PairsToObject(f.other_keys);
  return j;
}

nlohmann::ordered_json DerivativeToJson(const DerivativeEntry& d) {
  nlohmann::ordered_json j;
  j["name"] = d.name;
  j["file"] = kDerivativesPath;
  j["line"] = d.line;
  j["schema"] = d.text;
  j["formulas"] = FormulasToJson(d.formulas);
  j["output_differentiability"] = OrNull(d.output_differentiability);
  nlohmann::ordered_json sections = nlohmann::ordered_json::object();
  for (const auto& [key, formulas] : d.dispatch_sections) sections[key] = FormulasToJson(formulas);
  j["dispatch"] = sections;
  return j;
}

nlohmann::ordered_json ModelToJson(const YamlModel& model) {
  nlohmann::ordered_json a = nlohmann::ordered_json::array();
  for (const auto& f : model.functions()) a.push_back(NativeFunctionToJson(f));
  return a;
}

}  // namespace optrace
