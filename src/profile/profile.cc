// Building the profile report (profile.h says what and why).
//
// Joins, per kernel launch: kernel --correlation--> runtime call (thread,
// time) --time nesting--> the operators around it on that thread (innermost
// = the aten op that launched it, outermost = the op the user called) and
// the innermost Python frame outside torch. Nesting is read from each
// thread's events sorted by start: an event contains a time when it starts
// at or before it and ends at or after it.
#include "profile/profile.h"

#include <algorithm>
#include <map>
#include <unordered_map>

#include "index/index.h"

namespace optrace {

namespace {

// One thread's events of one category, sorted by start.
struct Lane {
  std::vector<const TraceEvent*> ev;
  void Sort() {
    std::stable_sort(ev.begin(), ev.end(), [](const TraceEvent* a, const TraceEvent* b) {
      return a->ts != b->ts ? a->ts < b->ts : a->dur > b->dur;  // a parent before its first child
    });
  }
  // The events containing t, innermost first (a bounded look back).
  std::vector<const TraceEvent*> Around(double t) const {
    std::vector<const TraceEvent*> out;
    auto it = std::upper_bound(ev.begin(), ev.end(), t, [](double x, const TraceEvent* e) { return x < e->ts; });
    size_t steps = 0;
    while (it != ev.begin() && steps++ < 50000) {
      --it;
      if ((*it)->ts + (*it)->dur >= t) out.push_back(*it);
    }
    return out;
  }
};

bool UserFrame(const std::string& name) {
  if (name.rfind("<built-in", 0) == 0 || name.rfind("torch/", 0) == 0 || name.rfind("nn.Module:", 0) == 0) return false;
  return name.find(".py(") != std::string::npos;
}

struct Launch {
  const TraceEvent* op = nullptr;      // innermost operator
  const TraceEvent* outer = nullptr;   // outermost operator
  const TraceEvent* python = nullptr;  // innermost user frame
};

struct Acc {
  ProfileRow row;
  std::map<std::string, long> ops;
  std::map<std::string, long> outer;
  std::map<std::string, long> python;
  const TraceEvent* first_op = nullptr;
};

std::string MostCommon(const std::map<std::string, long>& m, long* count = nullptr) {
  std::string best;
  long n = 0;
  for (const auto& [k, v] : m) {
    if (v > n) {
      best = k;
      n = v;
    }
  }
  if (count) *count = n;
  return best;
}

void Finish(ProfileReport* r, std::vector<Acc>* accs, const ProfileOptions& o) {
  std::sort(accs->begin(), accs->end(), [](const Acc& a, const Acc& b) { return a.row.total_us > b.row.total_us; });
  r->distinct = accs->size();
  for (Acc& a : *accs) {
    if (o.top && r->rows.size() >= o.top) break;
    ProfileRow& row = a.row;
    row.mean_us = row.calls ? row.total_us / static_cast<double>(row.calls) : 0;
    row.share = r->total_us > 0 ? row.total_us / r->total_us : 0;
    row.op = MostCommon(a.ops, &row.op_calls);
    row.outer_op = MostCommon(a.outer);
    row.python = MostCommon(a.python);
    if (a.first_op) {
      row.shapes = a.first_op->dims;
      row.types = a.first_op->types;
    }
    r->rows.push_back(std::move(row));
  }
}

void CpuReport(const ChromeTrace& t, const ProfileOptions& o, ProfileReport* r) {
  std::map<std::string, Lane> lanes;
  for (const TraceEvent& e : t.events) {
    if (e.cat == "cpu_op") lanes[e.pid + "/" + e.tid].ev.push_back(&e);
  }
  std::unordered_map<std::string, size_t> by_name;
  std::vector<Acc> accs;
  for (auto& [id, lane] : lanes) {
    lane.Sort();
    // Self time: its duration less its direct children's, by a stack of open events.
    std::vector<std::pair<const TraceEvent*, double>> open;  // event, children's time
    auto close = [&](const TraceEvent* e, double children) {
      auto [it, fresh] = by_name.try_emplace(e->name, accs.size());
      if (fresh) {
        accs.emplace_back();
        accs.back().row.name = e->name;
        accs.back().row.kind = "cpu_op";
        accs.back().first_op = e;
      }
      Acc& a = accs[it->second];
      a.row.calls++;
      a.row.total_us += std::max(0.0, e->dur - children);
      r->total_us += std::max(0.0, e->dur - children);
      a.ops[e->name]++;
    };
    for (const TraceEvent* e : lane.ev) {
      while (!open.empty() && open.back().first->ts + open.back().first->dur <= e->ts) {
        close(open.back().first, open.back().second);
        open.pop_back();
      }
      if (!open.empty()) open.back().second += e->dur;
      open.push_back({e, 0});
    }
    while (!open.empty()) {
      close(open.back().first, open.back().second);
      open.pop_back();
    }
  }
  r->notes.push_back("no GPU kernels in this export (a CPU profile): CPU operators by self time");
  Finish(r, &accs, o);
}

}  // namespace

Status BuildProfile(const ChromeTrace& t, const Index* index, const ProfileOptions& o, ProfileReport* r) {
  r->device = o.device.empty() ? t.device_name : o.device;
  r->peak = FindDevicePeak(r->device);
  std::map<std::string, Lane> ops, py;  // by pid/tid
  std::unordered_map<int64_t, const TraceEvent*> runtime_by_corr, op_by_ext;
  bool kernels = false;
  for (const TraceEvent& e : t.events) {
    const std::string lane = e.pid + "/" + e.tid;
    if (e.cat == "cpu_op") {
      ops[lane].ev.push_back(&e);
      if (e.external_id >= 0) op_by_ext.emplace(e.external_id, &e);
    } else if (e.cat == "python_function") {
      py[lane].ev.push_back(&e);
    } else if (e.cat == "cuda_runtime" && e.correlation >= 0) {
      runtime_by_corr.emplace(e.correlation, &e);
    } else if (e.cat == "kernel" || e.cat == "gpu_memcpy" || e.cat == "gpu_memset") {
      kernels = true;
    }
  }
  if (!kernels) {
    CpuReport(t, o, r);
    return Status::Ok();
  }
  r->gpu = true;
  for (auto& [k, l] : ops) l.Sort();
  for (auto& [k, l] : py) l.Sort();
  // Each GPU event's launch, then each op instance's kernel time (for attributing its cost).
  std::vector<std::pair<const TraceEvent*, Launch>> launches;
  std::unordered_map<const TraceEvent*, double> op_kernel_time;
  for (const TraceEvent& e : t.events) {
    if (e.cat != "kernel" && e.cat != "gpu_memcpy" && e.cat != "gpu_memset") continue;
    Launch l;
    auto rt = runtime_by_corr.find(e.correlation);
    if (rt != runtime_by_corr.end()) {
      const TraceEvent* call = rt->second;
      const std::string lane = call->pid + "/" + call->tid;
      if (auto it = ops.find(lane); it != ops.end()) {
        std::vector<const TraceEvent*> around = it->second.Around(call->ts);
        if (!around.empty()) {
          l.op = around.front();
          l.outer = around.back();
        }
      }
      if (auto it = py.find(lane); it != py.end()) {
        for (const TraceEvent* f : it->second.Around(call->ts)) {
          if (UserFrame(f->name)) {
            l.python = f;
            break;
          }
        }
      }
    }
    if (!l.op && e.external_id >= 0) {
      auto it = op_by_ext.find(e.external_id);
      if (it != op_by_ext.end()) l.op = l.outer = it->second;
    }
    if (l.op && e.cat == "kernel") op_kernel_time[l.op] += e.dur;
    launches.push_back({&e, l});
  }
  std::unordered_map<std::string, size_t> by_name;
  std::vector<Acc> accs;
  for (const auto& [e, l] : launches) {
    auto [it, fresh] = by_name.try_emplace(e->name, accs.size());
    if (fresh) {
      accs.emplace_back();
      accs.back().row.name = e->name;
      accs.back().row.kind = e->cat == "kernel" ? "kernel" : e->cat == "gpu_memcpy" ? "memcpy" : "memset";
    }
    Acc& a = accs[it->second];
    a.row.calls++;
    a.row.total_us += e->dur;
    r->total_us += e->dur;
    if (l.op) {
      a.ops[l.op->name]++;
      a.outer[l.outer->name]++;
      if (!a.first_op && !l.op->dims.empty()) a.first_op = l.op;
      // A copy or memset the runtime does for an op is no measure of the op's arithmetic.
      OpCost c = e->cat == "kernel" ? EstimateOpCost(l.op->name, l.op->dims, l.op->types, l.op->concrete) : OpCost();
      double total = op_kernel_time[l.op];
      if (c.valid() && total > 0) {
        a.row.bytes += c.bytes * e->dur / total;
        a.row.flops += c.flops * e->dur / total;
        if (!a.row.cost.valid()) a.row.cost = c;
      } else if (a.row.cost.family.empty() && a.row.cost.note.empty()) {
        a.row.cost.note = c.note;
      }
    }
    if (l.python) a.python[l.python->name]++;
  }
  Finish(r, &accs, o);
  for (ProfileRow& row : r->rows) {
    if (row.total_us > 0 && row.bytes > 0) {
      row.achieved_tbs = row.bytes / (row.total_us * 1e-6) / 1e12;
      row.achieved_tflops = row.flops / (row.total_us * 1e-6) / 1e12;
      if (r->peak) {
        row.bandwidth_share = row.achieved_tbs / r->peak->hbm_tbs;
        double peak = ComputePeakTflops(*r->peak, row.cost.family, row.cost.dtype);
        if (peak > 0) row.compute_share = row.achieved_tflops / peak;
      }
    }
    if (row.kind != "kernel") {
      row.source.kernel = row.name;
      row.source.library = "CUDA runtime";
      row.source.library_reason = "a copy or memset the driver does, not a kernel of the tree";
      continue;
    }
    if (!o.resolve || !index) continue;
    row.source = ResolveKernelName(*index, row.name);
    if (!row.source.valid()) row.unresolved = "not defined in this tree, and its name names no library";
  }
  if (!r->peak) {
    r->notes.push_back("device '" + r->device +
                       "' is not in the peak table (H100, H200, A100, B200, L40S): no share of peak");
  }
  return Status::Ok();
}

// A launch's last path function holds the code the launch passes: sum_functor's gpu_reduce_kernel
// call is named by its argument (func_wrapper) in the trace, by sum_functor in a profiler's name.
std::set<std::string> TracedKernelNames(const Trace& t) {
  std::set<std::string> names;
  for (const OpStep& op : t.ops) {
    for (const KernelStep& k : op.kernels) {
      names.insert(k.name);
      if (!k.path.empty()) names.insert(k.path.back());
    }
    for (const LibraryStep& l : op.libraries) names.insert(l.name);
  }
  return names;
}

bool NamedByTrace(const KernelSource& s, const std::set<std::string>& names) {
  if (!s.valid()) return false;
  for (const std::string& n : {s.payload, s.kernel, s.library}) {
    if (n.empty()) continue;
    for (const std::string& t : names) {
      if (t == n || (!s.library.empty() && t.find(s.library) != std::string::npos)) return true;
    }
  }
  return false;
}

}  // namespace optrace
