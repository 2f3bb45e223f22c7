// ReportBuilder: collects what the scan of a user's file finds into its
// ScanReport, each op and function once, and finishes it (classification,
// line order).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "usescan/checkout_facts.h"
#include "usescan/user_file.h"
#include "usescan/usescan.h"

namespace optrace {

class ReportBuilder {
 public:
  // `roles[f]`: what function f of the file is ("module forward", "helper",
  // "" for none yet); read when f is first added.
  ReportBuilder(const UserFile& file, const std::vector<std::string>& roles, ScanReport* out)
      : file_(file), roles_(roles), out_(*out) {}

  // A call of function f that cannot be resolved, and why.
  void Unresolved(uint32_t f, const PyCall& call, std::string reason);
  // The report's entry of the file's function f (added on first use).
  ScanFunction& Function(uint32_t f);
  // Function f runs the file's function g.
  void AddFollow(uint32_t f, uint32_t g);
  // An op the file runs (once per query), with one more use (and receiver).
  void AddOp(const std::string& query, ScanOpKind kind, const std::string& resolved, const std::string& aten,
             bool inferred, const ScanUse& use, const std::string& receiver);
  // Classifies every op and puts ops, uses, functions and unresolved calls
  // in line order; the functions that say something go into the report.
  void Finish(const CheckoutFacts& checkout);

 private:
  const UserFile& file_;
  const std::vector<std::string>& roles_;
  ScanReport& out_;
  std::unordered_map<std::string, size_t> op_slot_;
  std::unordered_map<uint32_t, size_t> function_slot_;
  std::vector<ScanFunction> functions_;
  std::unordered_set<std::string> seen_uses_, seen_receivers_;  // "slot\nline\nhow", "slot\nreceiver"
};

}  // namespace optrace
