// The op lookup; see op.h.
#include "lookup/op.h"

#include <set>

#include "base/text.h"

namespace optrace {

std::string AtenOpName(std::string_view query) {
  std::string name(TrimView(query));
  for (std::string_view prefix : {"aten::", "torch.ops.aten.", "ops.aten.", "aten."}) {
    if (StartsWith(name, prefix)) {
      name = name.substr(prefix.size());
      break;
    }
  }
  if (EndsWith(name, ".default")) name.resize(name.size() - 8);
  return name;
}

std::string OpSchemaText(const NativeFunction& f) {
  return f.schema.text.empty() ? FunctionSchemaToString(f.schema) : f.schema.text;
}

std::vector<const NativeFunction*> OpEntries(const YamlModel& model, std::string_view query) {
  std::string name = AtenOpName(query);
  // "add.Tensor" and "mm.default" name one entry; a base name every overload.
  if (name.find('.') == std::string::npos && !EndsWith(TrimView(query), ".default")) return model.Overloads(name);
  const NativeFunction* f = model.Find(name);
  return f ? std::vector<const NativeFunction*>{f} : std::vector<const NativeFunction*>{};
}

OpAnswer LookupOp(const YamlModel& model, std::string_view query) {
  OpAnswer answer;
  answer.query = std::string(query);
  answer.name = AtenOpName(query);
  answer.entries = OpEntries(model, query);
  if (!answer.entries.empty()) return answer;
  // Base names, and whole names when an overload was asked for.
  bool with_overload = answer.name.find('.') != std::string::npos;
  std::set<std::string> names;
  for (const auto& f : model.functions()) {
    names.insert(f.schema.name);
    if (with_overload) names.insert(f.name);
  }
  answer.suggestions = DidYouMean(answer.name, std::vector<std::string>(names.begin(), names.end()), 5);
  return answer;
}

}  // namespace optrace
