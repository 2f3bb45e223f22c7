// The `op` answer, computed once for `optrace op` and the MCP `op` tool: the
// native_functions.yaml entries a name means -- one overload
// ("add.Tensor", "aten::add.Tensor", "torch.ops.aten.add.Tensor",
// "add.default" for the overload-less one) or every overload of a base name
// ("add") -- or, when none, the closest names. The front ends print the
// entries and their derivatives.yaml entries (yaml_json.h) in their forms.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "yaml/yaml_model.h"

namespace optrace {

struct OpAnswer {
  std::string query;  // as asked
  std::string name;   // without aten::/torch.ops.aten. and .default: "add.Tensor", "add"
  std::vector<const NativeFunction*> entries;
  std::vector<std::string> suggestions;  // when no entry
};

OpAnswer LookupOp(const YamlModel& model, std::string_view query);
// "aten::add.Tensor", "torch.ops.aten.add.Tensor", "aten.mm.default" -> "add.Tensor", "mm".
std::string AtenOpName(std::string_view query);
// The entries alone (no suggestions): what `find` lists as the aten ops of a name.
std::vector<const NativeFunction*> OpEntries(const YamlModel& model, std::string_view query);

// The entry's schema as written, or as torchgen spells a generated one.
std::string OpSchemaText(const NativeFunction& f);

}  // namespace optrace
