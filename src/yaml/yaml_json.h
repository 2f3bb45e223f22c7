// JSON forms of the YAML model's records, shared by `optrace op/ops --json`
// and the tracer. Objects keep their fields (and the dispatch table) in a
// fixed, meaningful order, hence nlohmann::ordered_json; it converts to a
// plain nlohmann::json where order does not matter.
#pragma once

#include <nlohmann/json.hpp>

#include "yaml/yaml_model.h"

namespace optrace {

// {"name", "file", "line", "func", "variants": [...], "dispatch": {key: kernel} in
// YAML order, "implicit_composite", "structured", "structured_delegate",
// "structured_inherits", "precomputed", "autogen": [...], "autogen_from",
// "ufunc_inner_loop": {key: loop}, "tags": [...], "python_module", "device_check",
// "device_guard", "category_override", "manual_kernel_registration",
// "manual_cpp_binding", "other_keys": {key: raw}}. Absent optionals are null.
nlohmann::ordered_json NativeFunctionToJson(const NativeFunction& f);

// {"name", "file", "line", "schema", "formulas": [{"inputs", "formula", "line"}],
// "output_differentiability", "dispatch": {section: [formulas]}}.
nlohmann::ordered_json DerivativeToJson(const DerivativeEntry& d);

// Every function of the model, in model order.
nlohmann::ordered_json ModelToJson(const YamlModel& model);

}  // namespace optrace
