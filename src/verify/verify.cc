// The join of observed runs with static traces (see verify.h for the rules).
// Names are compared the way both sides spell them: runtime aten ops carry no
// overload ("_softmax"; the dispatch mode adds overloads for ops below
// autograd), static ops do ("softmax.int"); runtime CUDA kernels are
// demangled C++ names in which a static kernel (a __global__ function, a
// functor, or the function holding a gpu_kernel lambda) appears as one
// identifier.
#include "verify/verify.h"

#include <algorithm>
#include <set>

#include "base/checkout.h"
#include "base/text.h"

namespace optrace {

using json = nlohmann::ordered_json;

namespace {

std::string Joined(const std::vector<std::string>& items, const char* sep) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : sep) + item;
  return out;
}

std::string OverloadOf(std::string_view op) {
  return op.find('.') == std::string_view::npos ? "default" : std::string(OpOverloadName(op));
}

// Identifiers of a demangled kernel name, in order.
std::vector<std::string> Identifiers(std::string_view text) {
  std::vector<std::string> out;
  for (size_t i = 0; i < text.size();) {
    unsigned char c = text[i];
    if (std::isalpha(c) || c == '_') {
      size_t j = i;
      while (j < text.size() && IsIdentChar(text[j])) ++j;
      out.emplace_back(text.substr(i, j - i));
      i = j;
    } else {
      ++i;
    }
  }
  return out;
}

std::string LastComponent(std::string_view name) {
  size_t colon = name.rfind("::");
  return std::string(colon == std::string_view::npos ? name : name.substr(colon + 2));
}

std::string At(const Location& where) { return where.file + ":" + std::to_string(where.line); }

std::string DeviceKey(const std::string& device) { return device == "cuda" ? "CUDA" : "CPU"; }

// The dispatch keys the dispatcher would pick for a dense tensor on `device`
// among those an op has, most specific first (backend, then composite
// explicit, then composite implicit).
std::set<std::string> ChosenKeys(const OpStep& op, const std::string& device) {
  const std::string backend = DeviceKey(device);
  std::set<std::string> keys;
  for (const auto& impl : op.impls) keys.insert(impl.key);
  if (keys.count(backend)) return {backend};
  std::set<std::string> explicit_keys;
  for (const auto& k : keys) {
    if (StartsWith(k, "CompositeExplicitAutograd") || k == "DefaultBackend") explicit_keys.insert(k);
  }
  if (!explicit_keys.empty()) return explicit_keys;
  std::set<std::string> implicit_keys;
  for (const auto& k : keys) {
    if (StartsWith(k, "CompositeImplicitAutograd") || k == "Math") implicit_keys.insert(k);
  }
  return implicit_keys;
}

// What ran, merged over a query's runs.
struct RuntimeView {
  std::map<std::string, int> op_counts;                    // base name -> calls
  std::map<std::string, std::set<std::string>> overloads;  // from the dispatch mode
  std::vector<const ObservedOp*> ops;
};

RuntimeView ViewOf(const std::vector<const ObservedRun*>& runs) {
  RuntimeView v;
  for (const ObservedRun* run : runs) {
    for (const auto& op : run->ops) {
      v.op_counts[op.name] += op.count;
      v.ops.push_back(&op);
    }
    for (const auto& [name, list] : run->overloads) v.overloads[name].insert(list.begin(), list.end());
  }
  return v;
}

// The static overloads sharing each base name.
std::map<std::string, std::vector<std::string>> OverloadsByBase(const Trace& trace) {
  std::map<std::string, std::vector<std::string>> out;
  for (const auto& op : trace.ops) out[std::string(OpBaseName(op.name))].push_back(op.name);
  return out;
}

// Marks one op of the trace. The overload is told by the dispatch mode (ops
// below autograd), else by the Python call (the trace's selected overload),
// else by there being one overload of that name in the trace; otherwise the
// op is marked observed with overload_told false.
StaticMark OpMark(const OpStep& op, const Trace& trace, const RuntimeView& view,
                  const std::map<std::string, std::vector<std::string>>& by_base) {
  StaticMark m{"op", op.name, op.name, std::string(Name(op.role)), {}, false, "", 0, {}};
  if (op.yaml) m.where = {kNativeFunctionsPath, op.yaml->line, ""};
  const std::string base = std::string(OpBaseName(op.name));
  auto count = view.op_counts.find(base);
  if (count == view.op_counts.end()) return m;
  const std::vector<std::string>& siblings = by_base.at(base);
  auto seen = view.overloads.find(base);
  if (seen != view.overloads.end()) {
    m.observed = seen->second.count(OverloadOf(op.name)) > 0;
    m.evidence = m.observed ? "profiler and dispatch mode (overload " + OverloadOf(op.name) + ")"
                            : "another overload ran: " +
                                  Joined(std::vector<std::string>(seen->second.begin(), seen->second.end()), ", ");
  } else if (std::string(OpBaseName(trace.selected_overload)) == base &&
             std::count(siblings.begin(), siblings.end(), trace.selected_overload)) {
    m.observed = op.name == trace.selected_overload;
    m.evidence = m.observed ? "profiler; the Python call selects this overload"
                            : "the Python call selects " + trace.selected_overload;
  } else {
    m.observed = true;
    m.overload_told = siblings.size() == 1;
    m.evidence = m.overload_told
                     ? "profiler"
                     : "profiler: aten::" + base + " ran; the overload is not told (" + Joined(siblings, ", ") + ")";
  }
  if (m.observed) m.count = count->second;
  return m;
}

// Marks the ops of the trace, and returns which static ops ran: those
// observed, and the structured delegate (the out= op holding the kernel)
// of each, whose implementations run for the functional variant too.
std::set<std::string> MarkOps(const Trace& trace, const RuntimeView& view, std::vector<StaticMark>* marks) {
  std::set<std::string> ran;
  const auto by_base = OverloadsByBase(trace);
  for (const auto& op : trace.ops) {
    StaticMark m = OpMark(op, trace, view, by_base);
    if (m.observed) {
      ran.insert(op.name);
      if (op.yaml && op.yaml->structured_delegate) ran.insert(*op.yaml->structured_delegate);
    }
    marks->push_back(std::move(m));
  }
  return ran;
}

// (enclosing op, op) pairs that ran: "linear ran inside lstm".
std::set<std::pair<std::string, std::string>> Nesting(const RuntimeView& view) {
  std::set<std::pair<std::string, std::string>> out;
  for (const ObservedOp* op : view.ops) {
    for (const auto& outer : op->stack) out.insert({outer, op->name});
  }
  return out;
}

// A helper (a C++ function between an implementation and its kernels) is
// observed when an aten op that only it calls ran inside the op: the
// profiler cannot see C++ functions, only the ops they call.
void MarkHelpers(const OpStep& op, const std::set<std::pair<std::string, std::string>>& nesting,
                 std::vector<StaticMark>* marks) {
  const std::string base = std::string(OpBaseName(op.name));
  std::map<std::string, std::set<std::string>> callers;  // op called -> functions calling it
  for (const auto& call : op.calls) callers[std::string(OpBaseName(call.op))].insert(call.from);
  for (const auto& h : op.helpers) {
    StaticMark m{"helper", h.function, op.name, h.key, h.where, false, "", 0, {}};
    for (const auto& call : op.calls) {
      // Only a call no other function of the op makes tells that this one ran.
      if (call.from != h.function || callers[std::string(OpBaseName(call.op))].size() != 1 ||
          !nesting.count({base, std::string(OpBaseName(call.op))}))
        continue;
      m.observed = true;
      m.evidence = "its call to " + std::string(OpBaseName(call.op)) + " (" + At(call.where) + ") ran inside " + base;
      break;
    }
    marks->push_back(std::move(m));
  }
}

// Implementations of an op that ran are observed by the dispatch rule when
// on the device path the dispatcher picks. Stubs and CPU kernels on that
// path are only "on the path": the implementation may call one stub or
// another, and the profiler sees neither.
void MarkDevicePath(const OpStep& op, bool ran, const std::string& device, std::vector<StaticMark>* marks) {
  const std::set<std::string> chosen = ChosenKeys(op, device);
  const std::string backend = DeviceKey(device);
  for (const auto& impl : op.impls) {
    StaticMark m{"impl", impl.function, op.name, impl.key, impl.where, ran && chosen.count(impl.key) > 0, "", 0, {}};
    if (m.observed)
      m.evidence = "dispatch table: the op ran on " + device + " and dense " + device + " tensors dispatch here";
    marks->push_back(std::move(m));
  }
  auto path = [&](std::string kind, std::string name, std::string detail, Location where, bool on_path) {
    StaticMark m{std::move(kind), std::move(name), op.name, std::move(detail), std::move(where), false, "", 0, {}};
    m.on_path = ran && !chosen.empty() && on_path;
    if (m.on_path) m.evidence = "on the " + device + " path of an op that ran; not visible to the profiler";
    marks->push_back(std::move(m));
  };
  for (const auto& stub : op.stubs) {
    bool registered = false;
    for (const auto& r : stub.registrations) {
      registered |=
          r.device == backend || (backend == "CPU" && r.device != "CUDA" && r.device != "MPS" && r.device != "HIP");
    }
    path("stub", stub.name, "called from " + stub.called_from, stub.declared, registered);
  }
  if (device != "cuda") {
    for (const auto& k : op.kernels)
      path("kernel", k.name, std::string(Name(k.device)), k.where, k.device == CodeDevice::kCpu);
  }
}

// Runtime CUDA kernels matched to static kernels by name, and to vendor
// libraries of the op that launched them. Returns the explained kernel names.
struct KernelMatch {
  std::map<std::string, std::string> how;  // runtime kernel -> evidence
};

KernelMatch MarkKernels(const Trace& trace, const RuntimeView& view, std::vector<StaticMark>* marks) {
  KernelMatch match;
  std::map<std::string, std::vector<std::string>> launched_by;  // runtime kernel -> ops (and stacks)
  std::map<std::string, int> launches;
  for (const ObservedOp* op : view.ops) {
    for (const auto& k : op->kernels) {
      launches[k.name] += k.count;
      auto& who = launched_by[k.name];
      who.push_back(op->name);
      who.insert(who.end(), op->stack.begin(), op->stack.end());
    }
  }
  for (const auto& op : trace.ops) {
    for (const auto& k : op.kernels) {
      if (k.device != CodeDevice::kCuda) continue;
      StaticMark m{"kernel", k.name, op.name, std::string(Name(k.device)) + " " + std::string(Name(k.launch)),
                   k.where,  false,  "",      0,
                   {}};
      const std::string id = LastComponent(k.name);
      for (const auto& [runtime, n] : launches) {
        auto ids = Identifiers(runtime);
        if (std::find(ids.begin(), ids.end(), id) == ids.end()) continue;
        m.observed = true;
        m.evidence = "kernel name";
        m.count += n;
        m.runtime_names.push_back(runtime);
        match.how.emplace(runtime, "kernel " + k.name + " (" + op.name + ")");
      }
      marks->push_back(std::move(m));
    }
  }
  for (const auto& op : trace.ops) {
    const std::string base = std::string(OpBaseName(op.name));
    for (const auto& lib : op.libraries) {
      StaticMark m{"library", lib.name, op.name, Joined(lib.calls, ", "), lib.where, false, "", 0, {}};
      for (const auto& [runtime, ops] : launched_by) {
        if (match.how.count(runtime) && !StartsWith(match.how[runtime], "library")) continue;
        if (std::find(ops.begin(), ops.end(), base) == ops.end()) continue;
        m.observed = true;
        m.evidence = "library kernel: ran inside " + base + ", whose trace calls " + lib.name;
        m.count += launches[runtime];
        m.runtime_names.push_back(runtime);
        match.how.emplace(runtime, "library " + lib.name + " (" + op.name + ")");
      }
      marks->push_back(std::move(m));
    }
  }
  return match;
}

// Every op name the static trace accounts for: its ops, the ops they call,
// the backward ops of derivatives.yaml. `followed` is the subset the trace
// expanded (has an OpStep for); a call it names without following
// (plumbing like `to`, views, factories, ops past --depth) explains whatever
// ran inside it.
struct StaticNames {
  std::set<std::string> all, followed;
  // The innermost enclosing op of `stack` named by the trace but not followed, or "".
  std::string UnfollowedAround(const std::vector<std::string>& stack) const {
    for (auto it = stack.rbegin(); it != stack.rend(); ++it) {
      if (all.count(*it) && !followed.count(*it)) return *it;
    }
    return "";
  }
};

StaticNames ExplainedNames(const Trace& trace) {
  StaticNames names;
  for (const auto& op : trace.ops) {
    names.all.insert(std::string(OpBaseName(op.name)));
    names.followed.insert(std::string(OpBaseName(op.name)));
    for (const auto& call : op.calls) names.all.insert(std::string(OpBaseName(call.op)));
  }
  for (const auto& b : trace.backward) {
    for (const auto& op : b.ops) names.all.insert(std::string(OpBaseName(op)));
  }
  return names;
}

bool InTree(const Index* index, const std::string& op) { return !index || !index->yaml.Overloads(op).empty(); }

bool KernelInTree(const Index* index, const std::string& kernel) {
  if (!index) return true;
  for (const auto& id : Identifiers(kernel)) {
    if (id.size() > 3 && !index->cpp.FunctionsNamed(id).empty()) return true;
  }
  return false;
}

void Merge(std::vector<RuntimeItem>* list, RuntimeItem item) {
  for (auto& existing : *list) {
    if (existing.name == item.name && existing.phase == item.phase && existing.nearest == item.nearest &&
        existing.op == item.op) {
      existing.count += item.count;
      return;
    }
  }
  list->push_back(std::move(item));
}

// Sorts runtime ops into explained, unexplained, outside and not in the tree.
void ClassifyOps(const Index* index, const StaticNames& static_names, const std::vector<const ObservedRun*>& runs,
                 QueryVerification* q) {
  const std::set<std::string>& names = static_names.all;
  std::set<std::pair<std::string, std::string>> seen[4];  // distinct (phase, name) per class
  for (const ObservedRun* run : runs) {
    for (const auto& op : run->ops) {
      RuntimeItem item{op.name, op.phase, "", "", op.autograd_node, op.stack, op.count};
      for (auto it = op.stack.rbegin(); it != op.stack.rend() && item.nearest.empty(); ++it) {
        if (names.count(*it)) item.nearest = *it;
      }
      int cls;
      const std::string around = names.count(op.name) ? "" : static_names.UnfollowedAround(op.stack);
      if (names.count(op.name)) {
        cls = 0;
      } else if (!around.empty()) {
        cls = 0;
        item.nearest = around;
        if (seen[0].insert({op.phase, op.name}).second) ++q->ops.explained_inside_call;
      } else if (!InTree(index, op.name)) {
        cls = 3;
      } else if (!item.nearest.empty() || !item.autograd_node.empty() ||
                 (op.stack.empty() && op.phase == "forward" && !run->setup_in_run)) {
        cls = 1;
      } else {
        cls = 2;  // setup code or the autograd engine's own bookkeeping
      }
      std::vector<RuntimeItem>* lists[4] = {&q->explained_ops, &q->unexplained_ops, &q->outside_ops,
                                            &q->not_in_tree_ops};
      seen[cls].insert({op.phase, op.name});
      Merge(lists[cls], std::move(item));
    }
  }
  q->ops.explained = seen[0].size();
  q->ops.unexplained = seen[1].size();
  q->ops.outside = seen[2].size();
  q->ops.not_in_tree = seen[3].size();
  q->ops.total = q->ops.explained + q->ops.unexplained + q->ops.outside + q->ops.not_in_tree;
}

void ClassifyKernels(const Index* index, const std::set<std::string>& names, const KernelMatch& match,
                     const std::vector<const ObservedRun*>& runs, QueryVerification* q) {
  std::set<std::string> seen[3];
  for (const ObservedRun* run : runs) {
    for (const auto& op : run->ops) {
      std::string nearest = names.count(op.name) ? op.name : "";
      for (auto it = op.stack.rbegin(); it != op.stack.rend() && nearest.empty(); ++it) {
        if (names.count(*it)) nearest = *it;
      }
      for (const auto& k : op.kernels) {
        RuntimeItem item{k.name, op.phase, op.name, nearest, op.autograd_node, op.stack, k.count};
        auto how = match.how.find(k.name);
        int cls = how != match.how.end() ? 0 : KernelInTree(index, k.name) ? 1 : 2;
        if (cls == 0 && StartsWith(how->second, "library") && seen[0].insert(k.name).second)
          ++q->kernels.explained_by_library;
        seen[cls].insert(k.name);
        std::vector<RuntimeItem>* lists[3] = {&q->explained_kernels, &q->unexplained_kernels, &q->not_in_tree_kernels};
        if (cls == 0) item.nearest = how->second;
        Merge(lists[cls], std::move(item));
      }
    }
  }
  q->kernels.explained = seen[0].size();
  q->kernels.unexplained = seen[1].size();
  q->kernels.not_in_tree = seen[2].size();
  q->kernels.total = seen[0].size() + seen[1].size() + seen[2].size();
}

void Add(ShareCounts* to, const ShareCounts& from) {
  to->total += from.total;
  to->explained += from.explained;
  to->unexplained += from.unexplained;
  to->outside += from.outside;
  to->not_in_tree += from.not_in_tree;
  to->explained_by_library += from.explained_by_library;
  to->explained_inside_call += from.explained_inside_call;
}

}  // namespace

QueryVerification JoinTrace(const Index* index, const Trace& trace, const std::vector<const ObservedRun*>& runs,
                            const std::string& device) {
  QueryVerification q;
  q.query = trace.query;
  q.target = std::string(Name(trace.target_kind)) + " " + trace.target_name;
  for (const ObservedRun* run : runs) {
    (run->error.empty() ? q.runs : q.run_errors)
        .push_back(run->error.empty() ? run->label : run->label + ": " + run->error);
  }
  RuntimeView view = ViewOf(runs);
  std::set<std::string> ran = MarkOps(trace, view, &q.marks);
  const auto nesting = Nesting(view);
  for (const auto& op : trace.ops) {
    MarkDevicePath(op, ran.count(op.name) > 0, device, &q.marks);
    MarkHelpers(op, nesting, &q.marks);
  }
  KernelMatch match = MarkKernels(trace, view, &q.marks);
  StaticNames names = ExplainedNames(trace);
  ClassifyOps(index, names, runs, &q);
  ClassifyKernels(index, names.all, match, runs, &q);
  return q;
}

VerifyReport JoinObserved(const Index& index, const Observed& observed, const VerifyOptions& options) {
  VerifyReport report;
  report.observed = observed;
  report.source_root = index.root;
  report.source_version = index.version;
  report.warning = VerifyVersionWarning(index.version, observed.torch_version);
  std::vector<std::string> order;
  std::map<std::string, std::vector<const ObservedRun*>> by_query;
  for (const auto& run : report.observed.runs) {
    if (!by_query.count(run.query)) order.push_back(run.query);
    by_query[run.query].push_back(&run);
  }
  TraceOptions trace_options;
  trace_options.device = observed.device == "cuda" ? TraceOptions::Device::kCuda : TraceOptions::Device::kCpu;
  trace_options.backward = options.backward;
  trace_options.depth = options.depth;
  trace_options.snippets = false;
  for (const auto& query : order) {
    Trace trace;
    Status s = TraceQuery(index, query, trace_options, &trace);
    trace.query = query;
    QueryVerification q = JoinTrace(&index, trace, by_query[query], observed.device);
    if (!s.ok()) q.trace_error = s.message();
    Add(&report.ops, q.ops);
    Add(&report.kernels, q.kernels);
    report.queries.push_back(std::move(q));
  }
  return report;
}

std::string VerifyVersionWarning(const std::string& tree_version, const std::string& torch_version) {
  if (torch_version.empty() || ReleaseOf(tree_version) == ReleaseOf(torch_version)) return "";
  return "the installed torch is " + torch_version + " but the checkout is " + tree_version +
         ": ops and kernels the two versions do not share are reported as not in the tree";
}

}  // namespace optrace
