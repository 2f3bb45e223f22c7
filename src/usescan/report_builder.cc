// ReportBuilder: the ScanReport of a user's file as the scan finds things --
// each op once (by its query) with every use and receiver once, each of the
// file's functions with the ops it runs and the functions it follows, what
// could not be resolved -- then classified and put in line order by Finish.
#include "usescan/report_builder.h"

#include <algorithm>

#include <fmt/format.h>

#include "base/text.h"
#include "usescan/classify.h"

namespace optrace {

void ReportBuilder::Unresolved(uint32_t f, const PyCall& call, std::string reason) {
  out_.unresolved.push_back({call.line, file_.mod().functions[f].qualname, call.callee, std::move(reason)});
}

ScanFunction& ReportBuilder::Function(uint32_t f) {
  auto it = function_slot_.find(f);
  if (it != function_slot_.end()) return functions_[it->second];
  const PyFunction& fn = file_.mod().functions[f];
  ScanFunction sf;
  sf.qualname = fn.qualname;
  sf.role = roles_[f].empty() ? "function" : roles_[f];
  sf.owner = fn.class_index >= 0 ? file_.mod().classes[fn.class_index].name : "";
  sf.line = fn.line;
  function_slot_[f] = functions_.size();
  functions_.push_back(sf);
  return functions_.back();
}

void ReportBuilder::AddFollow(uint32_t f, uint32_t g) {
  auto& calls = Function(f).calls;
  const std::string& q = file_.mod().functions[g].qualname;
  if (std::find(calls.begin(), calls.end(), q) == calls.end()) calls.push_back(q);
}

void ReportBuilder::AddOp(const std::string& query, ScanOpKind kind, const std::string& resolved,
                          const std::string& aten, bool inferred, const ScanUse& use, const std::string& receiver) {
  auto it = op_slot_.find(query);
  if (it == op_slot_.end()) {
    ScanOp op;
    op.query = query;
    op.kind = kind;
    op.resolved = resolved;
    op.aten = aten;
    op.inferred = inferred;
    it = op_slot_.emplace(query, out_.ops.size()).first;
    out_.ops.push_back(std::move(op));
  }
  ++out_.work;
  const size_t slot = it->second;
  ScanOp& op = out_.ops[slot];
  if (seen_uses_.insert(fmt::format("{}\n{}\n{}", slot, use.line, use.how)).second) op.uses.push_back(use);
  if (!receiver.empty() && seen_receivers_.insert(fmt::format("{}\n{}", slot, receiver)).second)
    op.receivers.push_back(receiver);
  if (!StartsWith(use.how, "built")) {
    if (const std::vector<size_t>& named = file_.FunctionsNamed(use.function); !named.empty()) {
      auto& ops = Function(static_cast<uint32_t>(named.front())).ops;
      if (std::find(ops.begin(), ops.end(), query) == ops.end()) ops.push_back(query);
    }
  }
}

void ReportBuilder::Finish(const CheckoutFacts& checkout) {
  for (ScanOp& op : out_.ops) {
    Classification k = ClassifyOp(checkout, op);
    op.category = k.category;
    op.basis = k.basis;
    // A layer runs a composition (nn.Embedding: embedding, then
    // index_select and its backward): its trace tells what, whatever the
    // category of the op its forward calls first.
    op.needs_trace = op.kind == ScanOpKind::kModule || !IsWellKnownCategory(op.category);
    if (!op.needs_trace) op.summary = fmt::format("{}: {}", op.category, op.basis);
    std::stable_sort(op.uses.begin(), op.uses.end(),
                     [](const ScanUse& a, const ScanUse& b) { return a.line < b.line; });
  }
  std::stable_sort(out_.ops.begin(), out_.ops.end(),
                   [](const ScanOp& a, const ScanOp& b) { return a.uses.front().line < b.uses.front().line; });
  std::sort(functions_.begin(), functions_.end(),
            [](const ScanFunction& a, const ScanFunction& b) { return a.line < b.line; });
  for (ScanFunction& f : functions_)
    if (!f.ops.empty() || !f.calls.empty() || !f.save_for_backward.empty() || f.role != "function")
      out_.functions.push_back(std::move(f));
  std::stable_sort(out_.unresolved.begin(), out_.unresolved.end(),
                   [](const ScanUnresolved& a, const ScanUnresolved& b) { return a.line < b.line; });
}

}  // namespace optrace
