// One PathValues under the deterministic-mode assumptions is made per
// trace, and only for a trace with such a call (most have none).
#include "trace/nondeterminism.h"

#include <optional>
#include <utility>
#include <vector>

#include "cpp/cpp_guards.h"
#include "trace/path_rules.h"
#include "trace/path_values.h"

namespace optrace {

void ReadNondeterminism(const Index& ix, const Assumptions& a, GuardReaders& readers, Trace* t) {
  Assumptions deterministic = a;
  deterministic.deterministic = true;
  std::optional<PathValues> values;  // reads `deterministic`, which outlives it
  for (OpStep& op : t->ops) {
    if (op.nondeterministic.empty()) continue;
    if (!values) values.emplace(ix, deterministic);
    std::vector<NondeterminismStep> kept;
    for (NondeterminismStep& n : op.nondeterministic) {
      std::vector<CodeCondition> around;
      if (readers.Of(n.where.file).CallConditions(1, n.where.line, "alertNotDeterministic", &around))
        n.when = ConditionsIn(around, n.where.file);
      if (values->Evaluate(op, n.when) == Tri::kFalse) continue;
      for (Condition& c : n.when) {
        const Tri v = values->Evaluate(op, {c});
        c.open = c.kind != ConditionKind::kDevice && v == Tri::kUnknown;
        c.holds = v == Tri::kTrue;
      }
      kept.push_back(std::move(n));
    }
    op.nondeterministic = std::move(kept);
  }
}

}  // namespace optrace
