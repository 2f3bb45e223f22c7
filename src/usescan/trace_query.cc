// The query `scan --trace` hands the tracer for an op of the user's file:
// the call as the file writes it when its literal arguments can decide the
// typical path (trace/frame_bindings.h binds them), else the plain name.
// A file that calls an op with different arguments has no one call to
// trace, so the plain query stands.
#include "usescan/usescan.h"

#include "py/py_arguments.h"

namespace optrace {

std::string TraceQueryOf(const ScanOp& op) {
  if (op.kind != ScanOpKind::kModule && op.kind != ScanOpKind::kFunctional && op.kind != ScanOpKind::kTorch)
    return op.query;
  std::string arguments;
  for (const ScanUse& use : op.uses) {
    // A module's arguments are its construction's ("built as self.attn"); calling the
    // built layer ("layer self.attn") passes its forward's.
    if (use.how != "call" && !use.how.starts_with("built")) continue;
    if (use.arguments.empty() || (!arguments.empty() && use.arguments != arguments)) return op.query;
    arguments = use.arguments;
  }
  bool literal = false;
  for (const PyArgument& a : SplitArguments(arguments)) literal = literal || IsLiteral(a.value);
  return literal ? op.query + "(" + arguments + ")" : op.query;
}

}  // namespace optrace
