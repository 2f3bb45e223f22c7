// How launches, stub calls and library calls get their conditions (see
// launch_conditions.h): a launch's are the way to its holder, then the best
// of the holder's launches of it (or of its uses of the #define that
// launches it); a stub's, the way to its caller, then the call; a library
// call's, the stub's on its way, else its own as a launch's.
#include "trace/launch_conditions.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <utility>

#include "trace/condition_text.h"
#include "trace/either_branch.h"
#include "trace/path_rules.h"
#include "trace/path_values.h"

namespace optrace {
namespace {

// An op reached from C++ is called with arguments its schema's defaults
// need not describe (hardtanh calls clamp with both limits): a launch
// only those defaults rule out stays open.
Tri LaunchValue(const CodeWays& w, const OpStep& op, const std::vector<Condition>& when) {
  const Tri v = w.Evaluate(op, when, true);
  return v == Tri::kFalse && !op.reached_from.empty() && w.Evaluate(op, when, false) != Tri::kFalse ? Tri::kUnknown : v;
}

// A kernel's, stub's or library's `typical`/`undecided` say `v`, and back.
template <class Step>
void Mark(Step& step, Tri v) {
  step.typical = v != Tri::kFalse;
  step.undecided = v == Tri::kUnknown;
}
template <class Step>
Tri ValueOf(const Step& step) {
  return !step.typical ? Tri::kFalse : step.undecided ? Tri::kUnknown : Tri::kTrue;
}

// A library entry point called below no stub, read as a launch is: the
// way to the function making the call, then the conditions around it.
std::vector<Condition> LibraryCallConditions(CodeWays& w, const OpStep& op, const LibraryStep& l) {
  std::vector<Condition> way;
  if (!w.WayTo(op, LastName(l.path.back()), CodeDevice::kCuda, &way, nullptr)) way.clear();
  std::vector<CodeCondition> at;
  if (w.Reader(l.where.file).CallConditions(1, l.where.line, LastName(l.calls.front()), &at))
    for (Condition& c : ConditionsIn(at, l.where.file)) way.push_back(std::move(c));
  return EachConditionOnce(std::move(way));
}

// A step of several entry points runs where any of them does: each call
// of one in the function making them is read as a launch is, after the
// way there, and a pair written on both sides of one condition runs either
// way (_cudnn_rnn calls cudnnRNNForwardTraining under `#ifndef
// USE_CUDNN_RNN_V8_API` and cudnnRNNForward in its `#else`: cuDNN runs;
// embedding_dense_backward_cuda calls CUB only past `if (num_indices <=
// 3072 && !scale_grad_by_freq) { ... return grad_weight; }`: open). No
// such call found there (they are made deeper): left as it was.
Tri LibraryValue(CodeWays& w, const OpStep& op, const LibraryStep& l) {
  if (l.calls.size() == 1) return LaunchValue(w, op, LibraryCallConditions(w, op, l));
  const Location holder = w.Definition(op, LastName(l.path.back()));
  if (!holder.valid()) return ValueOf(l);
  std::set<std::string> names;
  for (const std::string& call : l.calls) names.insert(LastName(call));
  std::vector<std::vector<Condition>> sites;
  for (const auto& call : w.Reader(holder.file).CallsIn(holder.line))
    if (names.count(LastName(call.callee))) sites.push_back(ConditionsIn(call.conditions, holder.file));
  if (sites.empty()) return ValueOf(l);
  AddEitherBranch(&sites);

  std::vector<Condition> way;
  if (!w.WayTo(op, LastName(l.path.back()), CodeDevice::kCuda, &way, nullptr)) way.clear();
  Tri best = Tri::kFalse;
  for (const std::vector<Condition>& site : sites) {
    std::vector<Condition> all = way;
    all.insert(all.end(), site.begin(), site.end());
    const Tri v = LaunchValue(w, op, EachConditionOnce(std::move(all)));
    if (Rank(v) > Rank(best)) best = v;
    if (best == Tri::kTrue) break;
  }
  return best;
}

// A stub's call is read as a launch is: the way to the function calling
// it, then the conditions around the call. A library call below a stub's
// registration is as taken as the first stub on its way; one below none
// is read as a launch too.
void AnnotateStubs(CodeWays& w, OpStep& op) {
  for (StubStep& s : op.stubs.Edit()) {
    std::vector<Condition> way;
    if (s.called_from.empty() || !s.call_site.valid() ||
        !w.WayTo(op, LastName(s.called_from), CodeDevice::kAny, &way, nullptr) || !w.StubCallConditions(op, s, &way))
      continue;
    s.when = EachConditionOnce(std::move(way));
    w.DecideSelectionsOf(op, s.when);  // `if (use_half_path(x))`: the predicate's body decides
    Mark(s, LaunchValue(w, op, s.when));
  }
  for (LibraryStep& l : op.libraries.Edit()) {
    auto stub = op.stubs.end();
    for (auto f = l.path.begin(); f != l.path.end() && stub == op.stubs.end(); ++f)
      stub = std::find_if(op.stubs.begin(), op.stubs.end(), [&](const StubStep& x) { return x.name == *f; });
    // Below a stub, as taken as that stub and as its own calls there are
    // (scan_dim calls CUB only `if (self.numel() == self.size(dim))`, below
    // cumsum_stub: open where the stub runs).
    Tri v = stub != op.stubs.end() ? ValueOf(*stub) : Tri::kTrue;
    if (!l.path.empty() && !l.calls.empty()) {
      Tri own = LibraryValue(w, op, l);
      if (l.setup && !l.setup->path.empty()) {  // in use where its setup runs, too
        LibraryStep setup = l;
        setup.where = l.setup->where;
        setup.path = l.setup->path;
        if (Tri at_setup = LibraryValue(w, op, setup); Rank(at_setup) > Rank(own)) own = at_setup;
      }
      Meet(&v, own);
    }
    if (stub != op.stubs.end() || (!l.path.empty() && !l.calls.empty())) Mark(l, v);
  }
}

bool LaunchSiteConditions(CodeWays& w, const OpStep& op, const KernelStep& k, const std::vector<Condition>& route,
                          std::vector<Condition>* out) {
  if (!k.macro.empty()) {
    // The holder writes the launching #define, or a #define using it
    // (CUDA_tensor_apply2's HANDLE_A_CASE in its 32-bit branch, HANDLE_CASE
    // itself in the 64-bit one): the best of their uses.
    const Location holder = w.Definition(op, LastName(k.holder));
    if (!holder.valid()) return false;
    bool any = false;
    Tri best = Tri::kFalse;
    for (const std::string& macro : w.MacrosUsing(LastName(k.macro), holder.file)) {
      std::vector<Condition> site;
      if (!w.BestCallSite(op, holder, macro, &site)) continue;
      std::vector<Condition> all = route;
      all.insert(all.end(), site.begin(), site.end());
      const Tri v = w.Evaluate(op, all, true);
      if (any && Rank(v) <= Rank(best)) continue;
      any = true;
      best = v;
      *out = std::move(site);
      if (v == Tri::kTrue) break;
    }
    return any;
  }
  const CppGuardReader& r = w.Reader(k.launch_site.file);
  std::vector<KernelStep::Launch> launches = {{k.launch_site.line, k.launcher.empty() ? k.name : k.launcher}};
  launches.insert(launches.end(), k.more_launches.begin(), k.more_launches.end());
  std::vector<std::vector<Condition>> sites;
  for (const auto& [line, call] : launches) {
    std::vector<CodeCondition> at;
    if (r.CallConditions(1, line, LastName(call), &at)) sites.push_back(ConditionsIn(at, k.launch_site.file));
  }
  const size_t written = AddEitherBranch(&sites);
  bool any = false;
  Tri best = Tri::kFalse;
  for (size_t i = 0; i < sites.size(); ++i) {
    std::vector<Condition>& conv = sites[i];
    std::vector<Condition> all = route;
    all.insert(all.end(), conv.begin(), conv.end());
    const Tri v = w.Evaluate(op, all, true);
    const bool wider = i >= written && v == best;  // both branches of an open if: fewer conditions
    if (any && !wider && (v == Tri::kFalse || (best == Tri::kUnknown && v != Tri::kTrue))) continue;
    any = true;
    best = v;
    *out = std::move(conv);
    if (v == Tri::kTrue) break;
  }
  return any;
}

// The kernel launched by other functions too runs where any launch does:
// the first the assumptions take (else leave open) replaces one they rule
// out (leave open), and the kernel then names it -- its holder, site and way.
template <class Read>
void TakeOtherLaunch(CodeWays& w, const OpStep& op, KernelStep& k, Read& read) {
  const std::vector<KernelStep::OtherLaunch> others = k.other_launches;
  for (const KernelStep::OtherLaunch& other : others) {
    if (Rank(ValueOf(k)) == 2) return;
    KernelStep candidate = k;
    candidate.holder = other.holder;
    candidate.launcher = other.launcher;
    candidate.launch_site = other.launch_site;
    candidate.path = other.path;
    candidate.more_launches.clear();
    if (k.where.file == k.launch_site.file && k.where.line == k.launch_site.line) candidate.where = other.launch_site;
    std::vector<Condition> when;
    if (!read(candidate, &when)) continue;
    const Tri v = LaunchValue(w, op, when);
    if (Rank(v) <= Rank(ValueOf(k))) continue;
    candidate.when = std::move(when);
    Mark(candidate, v);
    k = std::move(candidate);
  }
}

// Whether `path` goes through a stub of `op` the assumptions rule out.
bool PassesRuledOutStub(const OpStep& op, const std::vector<std::string>& path) {
  for (const StubStep& s : op.stubs)
    if (!s.typical && !s.undecided && std::find(path.begin(), path.end(), s.name) != path.end()) return true;
  return false;
}

}  // namespace

// Each launch's conditions, read as an edge's are: the way from the op's
// implementation to the function holding the launch (when the walk can
// read it; a launch whose way is not read keeps its own conditions only),
// then the conditions enclosing the launch there -- of the holder's best
// site when it launches the kernel at several (taken, else open, else
// ruled out), or of the holder's use of the #define that launches it.
void AnnotateLaunches(CodeWays& w, OpStep& op) {
  // The selections a stub's call decides (`case ConvBackend::Cudnn:`) are
  // the kernels' below it too: decided first.
  AnnotateStubs(w, op);
  // Most of an op's launches share a few holders (copy_'s thirty kernels,
  // copy_device_to_device's): the way to each is read once.
  struct Way {
    std::vector<Condition> when;
    std::vector<std::string> route;  // its functions, the holder last
  };
  std::map<std::pair<std::string, CodeDevice>, Way> routes;
  // The conditions of `k`'s launch (the way to its holder, then the
  // launch's own); false when the launch is not read.
  auto read = [&](const KernelStep& k, std::vector<Condition>* when) {
    auto [slot, fresh] = routes.try_emplace({k.holder, k.device});
    if (fresh && !w.WayTo(op, LastName(k.holder), k.device, &slot->second.when, &slot->second.route)) slot->second = {};
    *when = slot->second.when;
    std::vector<Condition> site;
    if (!LaunchSiteConditions(w, op, k, *when, &site)) return false;
    when->insert(when->end(), site.begin(), site.end());
    *when = EachConditionOnce(std::move(*when));
    return true;
  };
  // Of a launch left open, how many functions of its path run whenever the
  // op does: the way to each is taken; a stub's call is where its target's
  // way is. The first function whose way is open, ruled out or not read
  // ends them.
  auto taken = [&](const std::string& f, CodeDevice device) {
    auto [slot, fresh] = routes.try_emplace({f, device});
    if (fresh && !w.WayTo(op, LastName(f), device, &slot->second.when, &slot->second.route)) slot->second = {};
    return !slot->second.route.empty() && LaunchValue(w, op, EachConditionOnce(slot->second.when)) == Tri::kTrue;
  };
  auto is_stub = [&](const std::string& name) {
    return std::any_of(op.stubs.begin(), op.stubs.end(), [&](const StubStep& s) { return s.name == name; });
  };
  auto path_runs = [&](const KernelStep& k) {
    size_t runs = k.path.empty() ? 0 : 1;  // the implementation
    while (runs < k.path.size()) {
      const bool stub = is_stub(k.path[runs]);
      const size_t next = stub ? runs + 1 : runs;
      if (next >= k.path.size() || !taken(k.path[next], k.device)) break;
      runs = next + 1;
    }
    return runs;
  };
  for (KernelStep& k : op.kernels.Edit()) {
    if (k.holder.empty() || !k.launch_site.valid()) continue;
    std::vector<Condition> when;
    if (!read(k, &when)) continue;
    k.when = std::move(when);
    // The walk's path is the first it found: where it passes a stub the
    // assumptions rule out, the way these conditions are read on names
    // what runs instead (scatter_src_out's kernel is reached through
    // scatter_stub, not the reduce stub it never calls). Elsewhere the
    // walk's path stays: a way read by function names alone cannot tell
    // two functions of one name apart (a functor's two operator()s).
    const std::vector<std::string>& route = routes[{k.holder, k.device}].route;
    const bool plain_path = k.launch == KernelLaunch::kTripleChevron || k.launch == KernelLaunch::kPassed;
    if (plain_path && route.size() > 1 && LastName(route.back()) == LastName(k.holder) &&
        PassesRuledOutStub(op, k.path) && !PassesRuledOutStub(op, route)) {
      k.path = route;
      k.path.back() = k.holder;
    }
    // Objects handed on a way through a stub ruled out never reach the kernel.
    std::erase_if(k.passed_atomics, [&](const KernelStep::PassedAtomics& p) {
      return !p.stub.empty() && PassesRuledOutStub(op, {p.stub});
    });
    Mark(k, LaunchValue(w, op, k.when));
    TakeOtherLaunch(w, op, k, read);
    if (k.undecided) k.path_runs = path_runs(k);
  }
}

}  // namespace optrace
