// Reads ImplStep::params (the parameter list the tracer matched the
// definition by) with cpp/cpp_params.h; see the header for what is bound.
#include "trace/impl_parameters.h"

#include "cpp/cpp_params.h"
#include "trace/condition_text.h"

namespace optrace {

namespace {

// An implementation of `op` (not a helper) whose parameters are its schema's:
// a plain function, or a structured op's TORCH_IMPL_FUNC (the out= overload's
// arguments in order), unless the op replaces some by precomputed values.
bool IsPlainImplementation(const OpStep& op, const ImplStep& im) {
  if (!im.reached_from.empty()) return false;
  return im.form == ImplForm::kFunction || (im.form == ImplForm::kImplFunc && op.yaml && op.yaml->precomputed.empty());
}

bool IsSchemaArgument(const NativeFunction& f, const std::string& name) {
  for (const auto& arg : f.schema.arguments)
    if (arg.name == name) return true;
  return false;
}

}  // namespace

std::string AsCppArgument(const std::string& schema_value) {
  return schema_value == "None" ? "std::nullopt" : schema_value;
}

std::map<std::string, std::string> ImplParameterNames(const OpStep& op) {
  std::map<std::string, std::string> names;
  std::map<std::string, std::string> disagreed;  // a C++ name two implementations bind differently
  if (!op.yaml) return names;
  const auto& args = op.yaml->schema.arguments;
  for (const auto& im : op.impls) {
    if (!IsPlainImplementation(op, im)) continue;
    const std::vector<CppParameter>& params = ParseCppParameters(im.params);
    if (params.size() != args.size()) continue;
    for (size_t i = 0; i < params.size(); ++i) {
      const std::string& cpp = params[i].name;
      if (cpp.empty() || cpp == args[i].name || IsSchemaArgument(*op.yaml, cpp)) continue;
      auto [it, inserted] = names.emplace(cpp, args[i].name);
      if (!inserted && it->second != args[i].name) disagreed[cpp] = args[i].name;
    }
  }
  for (const auto& [cpp, unused] : disagreed) names.erase(cpp);
  return names;
}

std::map<std::string, std::string> OutParameterNames(const OpStep& op) {
  std::map<std::string, std::string> names;
  if (!op.yaml) return names;
  std::vector<std::string> outs;
  for (const auto& a : op.yaml->schema.arguments)
    if (a.is_out) outs.push_back(a.name);
  if (outs.empty()) return names;
  for (const auto& im : op.impls) {
    if (im.form != ImplForm::kImplFunc) continue;
    const std::vector<CppParameter>& params = ParseCppParameters(im.params);
    if (params.size() < outs.size()) continue;
    for (size_t i = 0; i < outs.size(); ++i) {
      const std::string& cpp = params[params.size() - outs.size() + i].name;
      if (cpp.empty() || cpp == outs[i]) continue;
      auto [it, inserted] = names.emplace(cpp, outs[i]);
      if (!inserted && it->second != outs[i]) it->second.clear();  // two implementations disagree
    }
  }
  std::erase_if(names, [](const auto& n) { return n.second.empty(); });
  return names;
}

std::optional<std::string> ImplParameterValue(const OpStep& op, const std::string& fn, const std::string& name,
                                              const std::map<std::string, std::string>& values) {
  for (const auto& im : op.impls) {
    if (!IsPlainImplementation(op, im) || LastName(im.function) != fn) continue;
    for (const auto& p : ParseCppParameters(im.params)) {
      if (p.name != name) continue;
      auto it = values.find(name);
      if (it != values.end()) return AsCppArgument(it->second);
    }
  }
  return std::nullopt;
}

}  // namespace optrace
