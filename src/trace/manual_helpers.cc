// A helper's definitions are told apart by their parameter counts alone
// (the count the formula writes); the conditions of a call come from
// CppGuardReader, evaluated as the tracer evaluates any condition.
#include "trace/manual_helpers.h"

#include <algorithm>

#include "cpp/cpp_params.h"
#include "trace/guard_files.h"

namespace optrace {

Tri CallSiteValue(const Index& ix, const std::string& file, const CppFunction& f, int line, std::string_view token,
                  const Assumptions& assumptions) {
  std::vector<CodeCondition> at;
  if (!GuardReaderOf(ix, file).CallConditions(static_cast<int>(f.line), line, token, &at)) return Tri::kUnknown;
  Tri all = Tri::kTrue;
  for (const CodeCondition& cc : at) {
    Tri v = EvaluateCondition(cc.text, false, assumptions);
    if (cc.negated) v = Not(v);
    if (v == Tri::kFalse) return Tri::kFalse;
    if (v == Tri::kUnknown) all = Tri::kUnknown;
  }
  return all;
}

std::vector<uint32_t> HelperOverloadsTaking(const CppIndex& cpp, const std::string& file, const std::string& name,
                                            const std::optional<std::vector<std::string>>& arguments) {
  std::vector<uint32_t> all, fitting;
  for (uint32_t id : cpp.FunctionsNamed(name)) {
    const CppFunction& f = cpp.functions()[id];
    if (cpp.file(f.file) != file) continue;
    all.push_back(id);
    if (!arguments) continue;
    const std::vector<CppParameter>& params = ParseCppParameters(f.params);
    const size_t required = static_cast<size_t>(
        std::count_if(params.begin(), params.end(), [](const CppParameter& p) { return p.default_value.empty(); }));
    if (arguments->size() >= required && arguments->size() <= params.size()) fitting.push_back(id);
  }
  return fitting.empty() ? all : fitting;
}

}  // namespace optrace
