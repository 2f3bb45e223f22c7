// How conditions read, alone and together (see code_condition.h).
#include "cpp/code_condition.h"

namespace optrace {

std::string CodeCondition::Describe() const {
  if (kind == "#if") return negated ? "#if !(" + text + ")" : "#if " + text;
  return (negated ? "unless " : "when ") + text;
}

std::string ConjunctionOf(const std::vector<CodeCondition>& conditions) {
  std::string out;
  for (const auto& c : conditions) {
    const bool loose = c.text.find("||") != std::string::npos || c.text.find('?') != std::string::npos;
    out += (out.empty() ? "" : " && ") + (c.negated ? "!(" + c.text + ")" : loose ? "(" + c.text + ")" : c.text);
  }
  return out;
}

}  // namespace optrace
