// The breadth-first walk from one C++ implementation through the helpers it
// calls (OpExpander::FollowCpp). Each function visited adds what it holds to the
// op being expanded: the helper itself, its CUDA launches, vendor library
// calls, dispatch stubs (and, through their registrations, each device's
// kernel), and the aten ops it calls, which the tracer then follows in turn.
// What a call *is* (CallFacts) is decided once per function and cached with
// the index (trace_walk_facts.cc, WalkFacts::WalkOf); this file only decides where the
// walk goes next and what it records, so its paths are per trace.
#include <algorithm>
#include <deque>
#include <unordered_set>

#include "base/text.h"
#include "cpp/cpp_params.h"
#include "cpp/written_call.h"
#include "trace/code_scope.h"
#include "trace/condition_text.h"
#include "trace/guard_files.h"
#include "trace/trace_internal.h"
#include "trace/walk_bounds.h"

namespace optrace {

namespace {

// One function reached by FollowCpp's breadth-first walk. Its path (the
// functions between the implementation and it) is the chain of `via`s up
// through its parents, spelled out only for the kernels and libraries found.
struct WalkNode {
  uint32_t fn;
  int32_t parent;  // index of the node it was reached from, -1 for the start
  // What the parent's path gains on the way here: the parent's name, or,
  // through a dispatch stub, the parent's name then the stub's.
  std::string via, stub;
  int hops;
  std::string device;
  const CppCall* call = nullptr;  // the call that reached it (its callee, or a class in its template arguments)
  // In code of another dispatch key than the traced device's dense path
  // (code_scope.h, ForeignToDevice), or below such code: its helpers,
  // stubs and kernels are listed, its calls are no ops that run.
  bool foreign = false;
};

// A walk's device ("any" | "CPU" | "CUDA": the walk is for one device's
// code or for code every device runs) as the trace says it.
CodeDevice WalkCodeDevice(const std::string& device) { return CodeDeviceOf(device).value_or(CodeDevice::kAny); }

// An atomic operation by name: CUDA's atomicAdd/atomicCAS/..., PyTorch's
// gpuAtomicAdd*, fastAtomicAdd, atomic_add ...
bool IsAtomic(std::string_view callee) {
  std::string lower = Lower(callee);
  return lower.starts_with("atomic") || lower.starts_with("gpuatomic") || lower.starts_with("fastatomic");
}

// The atomic operations function `fn` (a __global__ kernel) performs, in
// its body or in the functions of CUDA files it calls, two calls deep
// (upsample_bicubic2d_backward_out_frame -> upsample_increment_value_bounded
// -> gpuAtomicAddNoReturn). A callee defined more than twice (an overload
// set) is not followed: which one runs is not read.
std::vector<std::string> AtomicsIn(const CppIndex& cpp, uint32_t fn) {
  std::vector<std::string> found;
  std::unordered_set<uint32_t> seen{fn};
  std::vector<std::pair<uint32_t, int>> todo{{fn, 0}};
  while (!todo.empty()) {
    auto [at, depth] = todo.back();
    todo.pop_back();
    for (uint32_t id : cpp.CallsIn(at)) {
      const std::string& callee = cpp.calls()[id].callee;
      if (IsAtomic(callee)) {
        if (std::find(found.begin(), found.end(), callee) == found.end()) found.push_back(callee);
        continue;
      }
      if (depth >= 2) continue;
      std::vector<uint32_t> defs = cpp.FunctionsNamed(callee);
      if (defs.empty() || defs.size() > 2) continue;
      for (uint32_t d : defs)
        if (IsCudaFile(cpp.file(cpp.functions()[d].file)) && seen.insert(d).second) todo.push_back({d, depth + 1});
    }
  }
  return found;
}

// Whether function `fn` calls one of its parameters (`op(...)`, `f(idx)`):
// what it runs is what its callers hand it.
bool CallsAParameter(const CppIndex& cpp, uint32_t fn) {
  const std::vector<CppParameter>& params = ParseCppParameters(cpp.functions()[fn].params);
  for (uint32_t id : cpp.CallsIn(fn)) {
    const CppCall& c = cpp.calls()[id];
    if (c.kind != CallKind::kPlain) continue;
    for (const CppParameter& p : params)
      if (p.name == c.callee) return true;
  }
  return false;
}

// The operator() of class `type` the code of `from` may call
// (CallFactsReader::MembersOfClass): the one `from`'s file defines, else the
// only one (two files' anonymous namespaces may each hold a ReduceAdd);
// UINT32_MAX when none.
uint32_t CallOperatorOf(const CallFactsReader& calls, const std::string& type, const CppFunction& from) {
  const std::vector<uint32_t> members = calls.MembersOfClass("operator()", type, from);
  for (uint32_t id : members)
    if (calls.ix_.cpp.functions()[id].file == from.file) return id;
  return members.size() == 1 ? members.front() : UINT32_MAX;
}

// A hash of (name, file, line): equal places give equal keys, so a key not
// seen yet means a place not listed yet.
uint64_t PlaceKey(std::string_view name, std::string_view file, uint32_t line) {
  uint64_t h = std::hash<std::string_view>()(name);
  h = h * 1000003u ^ std::hash<std::string_view>()(file);
  return h * 1000003u ^ line;
}

std::vector<std::string> PathOf(const std::deque<WalkNode>& nodes, int32_t i) {
  std::vector<std::string> path;  // built backwards
  for (; i >= 0 && nodes[static_cast<size_t>(i)].parent >= 0; i = nodes[static_cast<size_t>(i)].parent) {
    const WalkNode& n = nodes[static_cast<size_t>(i)];
    if (!n.stub.empty()) path.push_back(n.stub);
    path.push_back(n.via);
  }
  std::reverse(path.begin(), path.end());
  return path;
}

}  // namespace

namespace {

// One FollowCpp walk: breadth-first from an implementation through the
// helpers it calls, each step adding to the op what the function holds --
// the helper itself, its launches, library calls, stubs (and, through their
// registrations, the per-device kernels), the aten ops it calls, and the
// helpers to visit next.
class CppWalk {
 public:
  CppWalk(OpExpander& ex, OpStep& op, uint32_t start, const std::string& device, int depth)
      : ex_(ex), cpp_(ex.ix_.cpp), op_(op), depth_(depth), visited_{start} {
    nodes_.push_back({start, -1, "", "", 0, device});
  }

  // Where the aten ops a node's code calls are listed: on the traced
  // device's path (op.calls) when the walk is for that device (or any);
  // on another traced device's (op.other_device_calls: CPU's in a default
  // trace, which answers for CUDA); nowhere in code of another key.
  SharedVector<OpCallStep>* CallList(const WalkNode& node) const {
    if (node.foreign) return nullptr;
    if (ex_.OnPrimaryPath(node.device)) return &op_.calls;
    if (ex_.opt_.device == TraceOptions::Device::kDefault) return &op_.other_device_calls;
    return nullptr;
  }
  bool Records(const WalkNode& node) const { return CallList(node) != nullptr; }

  void Run() {
    size_t budget = 150;
    while (next_ < nodes_.size() && budget-- > 0) Visit(static_cast<int32_t>(next_++));
  }

 private:
  void Visit(int32_t at) {
    const WalkNode& node = nodes_[static_cast<size_t>(at)];  // a deque: stays put while nodes are added
    const CppFunction& f = cpp_.functions()[node.fn];
    const FunctionWalk* walk = &ex_.facts_.WalkOf(node.fn, f);
    if (node.hops > 0) ListHelper(f, walk->holder, node);
    if (!node.foreign) NoteNondeterminism(node.fn);
    for (uint32_t l : walk->launches) AddKernel(cpp_.launches()[l], at, walk->holder);
    for (const auto& [kernel, line] : walk->kernel_refs) AddPassedKernel(kernel, line, f, at, walk->holder);
    if (node.hops <= kOpCallHops && walk->native && depth_ + 1 <= ex_.opt_.depth && Records(node))
      ex_.AddOperatorOps(op_, *walk, node.device, depth_, CallList(node));
    for (size_t ci = 0; ci < walk->calls.size(); ++ci) FollowCall(*walk->calls[ci], walk->facts[ci], *walk, at);
  }

  // A call of alertNotDeterministic in function `fn`: where PyTorch says the op is nondeterministic.
  void NoteNondeterminism(uint32_t fn) {
    for (uint32_t id : cpp_.CallsIn(fn)) {
      const CppCall& c = cpp_.calls()[id];
      if (c.callee != "alertNotDeterministic") continue;
      Location at = ex_.CppLoc(c.file, c.line, 1);
      bool listed = false;
      for (const auto& n : op_.nondeterministic)
        listed = listed || (n.where.file == at.file && n.where.line == at.line);
      if (!listed) op_.nondeterministic.push_back({std::move(at), {}});
    }
  }

  void ListHelper(const CppFunction& f, const std::string& holder, const WalkNode& node) {
    const std::string& device = node.device;
    const std::string& file = cpp_.file(f.file);
    // Listed once per device whose walk reaches it: a helper CPU and CUDA
    // code share (ResizeCommon.h's) is on each path, with the conditions of
    // each device's call.
    if (!ex_.helper_keys_.insert(PlaceKey(device, file, f.line)).second) {  // maybe listed: look
      for (const auto& h : op_.helpers) {
        if (h.key == device && h.where.file == file && h.where.line == static_cast<int>(f.line)) return;
      }
    }
    ImplStep h;
    h.key = device;
    h.function = holder;
    h.definition = node.fn;
    h.form = f.form == DefForm::kFunction ? ImplForm::kHelper : FormOf(f.form);
    h.where = ex_.CppLoc(f.file, f.line, 2);
    h.params = f.params;
    h.reached_from = node.via;
    if (node.call && node.stub.empty()) {
      h.reached_at = ex_.CppLoc(node.call->file, node.call->line, 1);
      h.reached_by = node.call->callee;
    }
    op_.helpers.push_back(h);
  }

  // What one call adds, in the order of its tests.
  void FollowCall(const CppCall& c, const CallFacts& facts, const FunctionWalk& walk, int32_t at) {
    const WalkNode& node = nodes_[static_cast<size_t>(at)];
    if (!facts.library.empty() && node.device != "CPU" && !node.foreign) {
      AddLibrary(facts.library, c, at, walk.holder);
      if (!facts.blas_helper) return;  // follow at::cuda::blas helpers
    }
    if (facts.launcher) return;
    if (facts.stub) return FollowStub(c, facts, at, walk.holder);
    // aten ops called: at::x(...), at::_ops::x::call(...), tensor.x() methods.
    if (facts.at_call || facts.method_call) {
      if (facts.is_op && !facts.returns_tensor && !facts.kept) return;  // size(), dim(), numel(): metadata
      if (facts.is_op && !Records(node)) return;
      if (facts.is_op) return FollowOpCall(c, facts, walk, node);
    }
    if (facts.elsewhere) return;
    const bool near = node.hops <= kOpCallHops && depth_ + 1 <= ex_.opt_.depth && Records(node);
    if (facts.targets.empty() && c.kind == CallKind::kPlain && near && facts.function_op) {
      // rsqrt(x) in at::native with no helper of that name: at::rsqrt.
      OpCallStep call;
      call.op = facts.base;
      call.device = WalkCodeDevice(node.device);
      call.from = walk.holder;
      call.where = ex_.CppLoc(c.file, c.line, 1);
      call.how = c.callee + "() (at::" + c.callee + " by name lookup)";
      ex_.call_keys_.insert(PlaceKey(call.op, call.where.file, c.line));
      CallList(node)->push_back(call);
      ex_.ops_.AddOpsByBaseName(facts.base, op_.role, op_.name, depth_ + 1);
    }
    // A direct call to another op's kernel (index_select_cpu_ calling
    // index_select_out_cpu_) runs that op's implementation: record the op.
    // It is no dispatched call (the profiler names no such op), so on the
    // traced device's path it stays as open as before; made by another
    // device's code, the call is listed there, and the op is that device's
    // (a CPU mkldnn helper's reference to `relu` is no call on the CUDA path).
    if (!facts.targets.empty() && depth_ + 1 <= ex_.opt_.depth && Records(node)) {
      for (const NativeFunction* other : *facts.kernel_ops) {
        if (other == op_.yaml) continue;
        const std::string base(OpBaseName(other->schema.name));
        if (!ex_.OnPrimaryPath(node.device) &&
            ex_.call_keys_.insert(PlaceKey(base, cpp_.file(c.file), c.line)).second) {
          OpCallStep call;
          call.op = base;
          call.device = WalkCodeDevice(node.device);
          call.from = walk.holder;
          call.where = ex_.CppLoc(c.file, c.line, 1);
          call.how = c.callee + "() (" + other->schema.name + "'s kernel, called directly)";
          CallList(node)->push_back(std::move(call));
        }
        ex_.ops_.AddOp(other, op_.role, op_.name, depth_ + 1);
      }
    }
    const std::string& dev = node.device;
    Enqueue(dev == "CPU"    ? facts.cpu_targets
            : dev == "CUDA" ? facts.cuda_targets
            : dev == "any"  ? facts.any_targets
                            : facts.targets,
            at, walk.holder, "", dev, &c);
  }

  // An aten op called: listed where the call is made, and traced when it
  // is near the implementation and does work (or is kept, marked).
  void FollowOpCall(const CppCall& c, const CallFacts& facts, const FunctionWalk& walk, const WalkNode& node) {
    bool follow = node.hops <= kOpCallHops && walk.native && (facts.worth || facts.kept);
    const std::string& base = facts.base;
    const std::string& file = cpp_.file(c.file);
    bool dup = false;
    std::vector<OpCallStep>& list = CallList(node)->Edit();
    std::vector<std::string> admitted;
    for (const NativeFunction* o : facts.admitted) admitted.push_back(o->name);
    if (!ex_.call_keys_.insert(PlaceKey(base, file, c.line)).second) {  // maybe listed: look
      for (auto& e : list) {
        if (dup || e.op != base || e.where.line != static_cast<int>(c.line) || e.where.file != file) continue;
        dup = true;
        if (admitted.empty()) e.overloads.clear();  // one call of the line is not read: any overload
        else if (!e.overloads.empty())
          for (const std::string& name : admitted)
            if (std::find(e.overloads.begin(), e.overloads.end(), name) == e.overloads.end())
              e.overloads.push_back(name);
      }
    }
    if (!dup) {
      OpCallStep call;
      call.op = base;
      call.device = WalkCodeDevice(node.device);
      call.from = walk.holder;
      call.where = ex_.CppLoc(c.file, c.line, 1);
      call.how = c.is_ops_call       ? "at::_ops::" + base + "::call"
                 : facts.method_call ? c.qualifier + base + "()"
                                     : (c.qualifier.empty() ? "at::" : c.qualifier) + base;
      call.undispatched = facts.backend_entry;
      call.overloads = std::move(admitted);
      list.push_back(std::move(call));
    }
    if (!follow || depth_ + 1 > ex_.opt_.depth) return;
    if (!facts.admitted.empty()) {
      for (const NativeFunction* o : facts.admitted) ex_.ops_.AddOp(o, op_.role, op_.name, depth_ + 1);
    } else if (facts.out_call) {
      for (const NativeFunction* o : facts.overloads) ex_.ops_.AddOp(o, op_.role, op_.name, depth_ + 1);
    } else {
      ex_.ops_.AddOpsByBaseName(base, op_.role, op_.name, depth_ + 1);
    }
  }

  // x_stub(device, ...): every registration for the walk's device, walked on.
  // One StubStep per stub; a shared implementation (CPU, CUDA: f) walks it
  // once per device and adds that device's registrations.
  void FollowStub(const CppCall& c, const CallFacts& facts, int32_t at, const std::string& holder) {
    StubStep& s = StubEntry(c, facts.stub_key, holder);
    const std::string node_device = nodes_[static_cast<size_t>(at)].device;
    const bool all = ex_.opt_.device == TraceOptions::Device::kAll;
    for (uint32_t r : cpp_.RegistrationsWritten(facts.stub_key)) {
      const StubRegistration& reg = cpp_.registrations()[r];
      bool known = false;
      for (const auto& have : s.registrations) {
        known = known || (have.where.file == cpp_.file(reg.file) && have.where.line == static_cast<int>(reg.line));
      }
      if (known) continue;
      std::string dev = RegistrationDevice(reg.device);
      bool wanted = node_device == "any" ? (dev == "CUDA"  ? ex_.KeyWanted("CUDA")
                                            : dev == "CPU" ? ex_.KeyWanted("CPU")
                                                           : all)
                                         : (dev == node_device || all);
      if (!wanted) continue;
      StubRegistrationStep rs;
      rs.device = reg.device;
      rs.macro = reg.macro;
      rs.target = reg.target;
      rs.where = ex_.CppLoc(reg.file, reg.line, 1);
      std::vector<uint32_t> targets;
      for (uint32_t id : cpp_.FunctionsNamed(StripTemplateAndNamespace(reg.target))) {
        if (cpp_.functions()[id].file == reg.file) targets.push_back(id);
      }
      if (targets.empty()) {
        CppCall pseudo;
        pseudo.callee = StripTemplateAndNamespace(reg.target);
        targets = ex_.calls_.ResolveCall(pseudo, reg.file, nullptr);
      }
      if (!targets.empty()) {
        const CppFunction& tf = cpp_.functions()[targets.front()];
        rs.target_definition = ex_.CppLoc(tf.file, tf.line, 2);
      }
      s.registrations.push_back(rs);
      Enqueue(targets, at, holder, c.callee, dev == "CUDA" ? "CUDA" : dev == "CPU" ? "CPU" : dev);
    }
    if (cpp_.RegistrationsWritten(facts.stub_key).empty()) AddGeneratedUfuncRegistrations(s, node_device);
  }

  // A stub torchgen's ufunc codegen registers (UfuncCPU_add.cpp,
  // UfuncCUDA_add.cu are generated at build time): the registrations are
  // the generator's REGISTER_DISPATCH lines, the kernels the loop's functors.
  void AddGeneratedUfuncRegistrations(StubStep& s, const std::string& node_device) {
    const NativeFunction* loop_op = ex_.gen_.UfuncOpOfStub(s.name);
    if (!loop_op) return;
    const std::string base = s.name.substr(0, s.name.size() - 5);  // less "_stub"
    for (const auto& [dev, generator] :
         {std::pair<std::string, std::string>{"CPU", "compute_ufunc_cpu_kernel"}, {"CUDA", "compute_ufunc_cuda"}}) {
      if (!ex_.KeyWanted(dev) || (node_device != "any" && node_device != dev)) continue;
      Location where = ex_.gen_.UfuncRegistrationSite(generator);
      if (!where.valid()) continue;
      StubRegistrationStep rs;
      rs.device = dev;
      rs.macro = "REGISTER_DISPATCH (generated by " + generator + ")";
      rs.target = base + "_kernel";
      rs.where = where;
      s.registrations.push_back(rs);
    }
    bool listed = false;
    for (const auto& k : op_.kernels) listed = listed || StartsWith(k.name, "CUDAFunctor_" + base);
    if (!listed && ex_.KeyWanted("CUDA") && node_device != "CPU") ex_.gen_.AddUfuncKernels(op_, *loop_op);
  }

  // `key` is the stub as the call's scope reaches it (StubRegistrationKey):
  // "cpublas::copy_stub" inside at::native::cpublas, "copy_stub" elsewhere;
  // its declaration is the one in that scope (CPUBlas.h's copy_stub is not
  // Copy.h's).
  StubStep& StubEntry(const CppCall& c, const std::string& key, const std::string& holder) {
    for (auto& s : op_.stubs.Edit()) {
      if (s.name == c.callee) return s;
    }
    StubStep fresh;
    fresh.name = c.callee;
    fresh.called_from = holder;
    fresh.call_site = ex_.CppLoc(c.file, c.line, 1);
    const std::string scope = key.size() > c.callee.size() ? key.substr(0, key.size() - c.callee.size()) : "";
    for (int pass = 0; pass < 2 && !fresh.declared.valid() && !fresh.defined.valid(); ++pass) {
      for (uint32_t d : cpp_.StubDeclsNamed(c.callee)) {
        const StubDecl& decl = cpp_.stub_decls()[d];
        if (pass == 0 && decl.scope != scope) continue;  // then any, as before scopes were read
        Location loc = ex_.CppLoc(decl.file, decl.line, 1);
        if (decl.kind == StubDeclKind::kDeclare && !fresh.declared.valid()) fresh.declared = loc;
        if (decl.kind == StubDeclKind::kDefine && !fresh.defined.valid()) fresh.defined = loc;
      }
    }
    return op_.stubs.emplace_back(std::move(fresh));
  }

  // The kernel a launch runs: the __global__ of a <<<>>>, the functor of a
  // TensorIterator launcher, the jiterator string; one entry per kernel.
  void AddKernel(const CppLaunch& l, int32_t at, const std::string& holder) {
    bool cuda = IsCudaFile(cpp_.file(l.file));
    if (nodes_[static_cast<size_t>(at)].device == "CPU" && cuda) return;
    // Name and place first: most launches a walk meets again are listed already.
    std::string name;
    size_t naming = 0;                     // which functor names a launcher's kernel
    const CppFunction* defined = nullptr;  // the __global__ definition of a <<<>>> kernel
    if (l.kind == LaunchKind::kTripleChevron) {
      name = l.kernel;
      defined = GlobalKernel(l);
    } else if (l.kind == LaunchKind::kJiterator) {
      name = l.kernel.empty() ? holder : l.kernel;
    } else {
      naming = NamingFunctor(l);
      name = l.functors.empty() ? holder : StripTemplateAndNamespace(l.functors[naming]);
    }
    const std::string& where_file = cpp_.file(defined ? defined->file : l.file);
    for (auto& existing : op_.kernels.Edit()) {
      // Two kernels of one name in one file (in two namespaces) are two kernels.
      if (existing.name != name || existing.where.file != where_file ||
          (defined && existing.where.line != static_cast<int>(defined->line)))
        continue;
      if (existing.holder == holder && existing.macro.empty() && l.macro.empty() &&
          existing.launch_site.file == cpp_.file(l.file) && existing.launch_site.line != static_cast<int>(l.line))
        existing.more_launches.push_back({static_cast<int>(l.line), l.launcher.empty() ? l.kernel : l.launcher});
      else if (existing.holder != holder && existing.macro.empty() && l.macro.empty() &&
               existing.other_launches.size() < kOtherLaunchesRead) {
        std::vector<std::string> path = PathOf(nodes_, at);
        path.push_back(holder);
        existing.other_launches.push_back({holder, l.launcher, ex_.CppLoc(l.file, l.line, 2), std::move(path)});
      }
      return;
    }
    KernelStep k;
    k.name = std::move(name);
    k.device = cuda ? CodeDevice::kCuda : CodeDevice::kCpu;
    k.launch = LaunchOf(l.kind);
    k.launcher = l.macro.empty() ? l.launcher : l.macro;
    k.launch_site = ex_.CppLoc(l.file, l.line, 2);
    k.path = PathOf(nodes_, at);
    k.path.push_back(holder);
    k.holder = holder;
    k.macro = l.macro;
    if (l.kind == LaunchKind::kTripleChevron) {
      if (!l.macro.empty()) k.launch = KernelLaunch::kMacro;
      k.where = defined ? ex_.CppLoc(defined->file, defined->line, 2) : k.launch_site;
      if (defined)
        for (uint32_t id : cpp_.FunctionsNamed(defined->name))
          if (&cpp_.functions()[id] == defined) {
            k.atomics = AtomicsIn(cpp_, id);
            if (CallsAParameter(cpp_, id)) k.passed_atomics = PassedAtomics(l, at);
          }
    } else if (l.kind == LaunchKind::kJiterator) {
      k.where = k.launch_site;
      k.path.insert(k.path.end(), l.functors.begin(), l.functors.end());
    } else {
      k.where = k.launch_site;
      // The other functors are made at the launch: before the launching
      // function, which stays last ("via" names it).
      for (size_t i = 0; i < l.functors.size(); ++i)
        if (i != naming) k.path.insert(k.path.end() - 1, StripTemplateAndNamespace(l.functors[i]));
      if (cuda && (l.kind == LaunchKind::kTensorIterator || l.kind == LaunchKind::kReduce))
        k.runs_in = ex_.gen_.LauncherGlobals(l.launcher);
    }
    op_.kernels.push_back(std::move(k));
  }

  // A __global__ kernel passed by name (a function pointer) to the code
  // that launches it: listed where it is passed, defined where it is.
  void AddPassedKernel(uint32_t kernel, uint32_t line, const CppFunction& from, int32_t at, const std::string& holder) {
    if (nodes_[static_cast<size_t>(at)].device == "CPU") return;
    const CppFunction& k = cpp_.functions()[kernel];
    const std::string& file = cpp_.file(k.file);
    for (const auto& existing : op_.kernels) {
      if (existing.name == k.name && existing.where.file == file) return;
    }
    KernelStep step;
    step.name = k.name;
    step.device = CodeDevice::kCuda;
    step.launch = KernelLaunch::kPassed;
    step.launch_site = ex_.CppLoc(from.file, line, 2);
    step.where = ex_.CppLoc(k.file, k.line, 2);
    step.atomics = AtomicsIn(cpp_, kernel);
    step.path = PathOf(nodes_, at);
    step.path.push_back(holder);
    op_.kernels.push_back(std::move(step));
  }

  // Which of a launch's functors names its kernel: the type whose code
  // runs, past the functions that only wrap it (func_wrapper<T>(
  // MaxNanFunctor<T>()) runs MaxNanFunctor). A wrapper of a lambda names it.
  size_t NamingFunctor(const CppLaunch& l) const {
    size_t i = 0;
    while (i + 1 < l.functors.size() && IsFreeFunction(StripTemplateAndNamespace(l.functors[i]))) ++i;
    return i;
  }

  bool IsFreeFunction(const std::string& name) const {
    for (uint32_t id : cpp_.FunctionsNamed(name)) {
      const CppFunction& f = cpp_.functions()[id];
      if (f.form == DefForm::kFunction && !f.qualified.ends_with(name + "::" + name)) return true;
    }
    return false;
  }

  // The atomics of the objects handed on by launch `l` and by the calls on
  // the way from the implementation to it (node `at`) that the passing
  // function makes under no condition of its own (scatter_reduce's
  // `switch (reduce)` hands each case its own functor): each class's
  // operator() with atomic operations, where the object was passed.
  std::vector<KernelStep::PassedAtomics> PassedAtomics(const CppLaunch& l, int32_t at) const {
    std::vector<KernelStep::PassedAtomics> out;
    // What the call or launch at `line` of `file`, in function `from`, hands on.
    auto read = [&](uint32_t file, uint32_t line, const std::string& callee, const CppFunction& from,
                    const std::string& stub) {
      const std::string& path = cpp_.file(file);
      for (const std::string& type :
           ObjectTypesPassed(GuardReaderOf(ex_.ix_, path).lexed(), static_cast<int>(line), callee)) {
        const uint32_t id = CallOperatorOf(ex_.calls_, type, from);
        if (id == UINT32_MAX) continue;
        std::vector<std::string> atomics = AtomicsIn(cpp_, id);
        const CppFunction& op = cpp_.functions()[id];
        if (!atomics.empty())
          out.push_back({type, ex_.CppLoc(op.file, op.line, 2), ex_.CppLoc(file, line, 1), stub, std::move(atomics)});
      }
    };
    read(l.file, l.line, l.kernel, cpp_.functions()[nodes_[static_cast<size_t>(at)].fn], StubAbove(at));
    for (int32_t i = at; i >= 0; i = nodes_[static_cast<size_t>(i)].parent) {
      const WalkNode& n = nodes_[static_cast<size_t>(i)];
      if (!n.call || n.parent < 0) continue;
      const CppFunction& caller = cpp_.functions()[nodes_[static_cast<size_t>(n.parent)].fn];
      std::vector<CodeCondition> conditions;
      if (!GuardReaderOf(ex_.ix_, cpp_.file(n.call->file))
               .CallConditions(static_cast<int>(caller.line), static_cast<int>(n.call->line), n.call->callee,
                               &conditions) ||
          !conditions.empty())
        continue;
      read(n.call->file, n.call->line, n.call->callee, caller, StubAbove(n.parent));
    }
    return out;
  }

  // The last dispatch stub on the way to node `at` ("" when none).
  std::string StubAbove(int32_t at) const {
    for (int32_t i = at; i >= 0; i = nodes_[static_cast<size_t>(i)].parent)
      if (!nodes_[static_cast<size_t>(i)].stub.empty()) return nodes_[static_cast<size_t>(i)].stub;
    return "";
  }

  // The __global__ definition a <<<>>> launches: the one in the launching
  // file, else the only one of that name.
  const CppFunction* GlobalKernel(const CppLaunch& l) const {
    std::vector<uint32_t> defs;
    for (uint32_t id : cpp_.FunctionsNamed(l.kernel)) {
      const CppFunction& f = cpp_.functions()[id];
      if (f.form == DefForm::kGlobalKernel && !IsTestFile(cpp_.file(f.file)))
        defs.push_back(id);  // a test's own kernel never is
    }
    std::vector<uint32_t> same_file;
    for (uint32_t id : defs)
      if (cpp_.functions()[id].file == l.file) same_file.push_back(id);
    if (same_file.size() > 1)
      if (const CppFunction* looked_up = LookedUpKernel(l, same_file)) return looked_up;
    if (!same_file.empty()) return &cpp_.functions()[same_file.front()];
    return defs.size() == 1 ? &cpp_.functions()[defs[0]] : nullptr;
  }

  // Of several __global__ kernels of one name in the launch's file
  // (sbtopk::gatherTopK and mbtopk::gatherTopK), the one C++ lookup finds
  // from the launching function with the qualifier written before the name
  // at the launch: the innermost such scope. nullptr when none or unknown.
  const CppFunction* LookedUpKernel(const CppLaunch& l, const std::vector<uint32_t>& candidates) const {
    if (l.function < 0) return nullptr;
    std::string line = ex_.ix_.Snippet(cpp_.file(l.file), static_cast<int>(l.line), 1);
    size_t at = line.find(l.kernel);
    while (at != std::string::npos && at > 0 && IsIdentChar(line[at - 1])) at = line.find(l.kernel, at + 1);
    if (at == std::string::npos) return nullptr;
    size_t q = at;  // the qualifier: "ns::" pieces just before the name
    while (q >= 2 && line.compare(q - 2, 2, "::") == 0) {
      q -= 2;
      while (q > 0 && IsIdentChar(line[q - 1])) --q;
    }
    const LookupScope from = ScopeOfFunction(cpp_.functions()[static_cast<size_t>(l.function)]);
    const CppFunction* best = nullptr;
    size_t depth = 0;
    for (uint32_t id : candidates) {
      const CppFunction& f = cpp_.functions()[id];
      LookupScope scope = ScopeOfFunction(f);
      if (!LookupReaches(scope, line.substr(q, at - q), from) || (best && scope.parts.size() <= depth)) continue;
      best = &f;
      depth = scope.parts.size();
    }
    return best;
  }

  // A library step is located at its first call that runs work; one found
  // first that only sets the library up (getCudnnHandle's cudnnSetStream)
  // yields its place to the first such call found after it.
  void AddLibrary(const std::string& lib, const CppCall& c, int32_t at, const std::string& holder) {
    std::string call = c.qualifier + c.callee;
    for (auto& existing : op_.libraries.Edit()) {
      if (existing.name != lib) continue;
      const bool listed = std::find(existing.calls.begin(), existing.calls.end(), call) != existing.calls.end();
      if (!listed && IsLibrarySetupCall(LastName(existing.calls.front()), existing.calls.front()) &&
          !IsLibrarySetupCall(c.callee, call)) {
        existing.setup = LibraryStep::Setup{existing.where, existing.path};
        existing.where = ex_.CppLoc(c.file, c.line, 2);
        existing.path = PathOf(nodes_, at);
        existing.path.push_back(holder);
        existing.calls.insert(existing.calls.begin(), call);
        if (existing.calls.size() > kLibraryCallsListed) existing.calls.pop_back();
      } else if (!listed && existing.calls.size() < kLibraryCallsListed) {
        existing.calls.push_back(call);
      }
      return;
    }
    LibraryStep l;
    l.name = lib;
    l.where = ex_.CppLoc(c.file, c.line, 2);
    l.calls.push_back(call);
    l.path = PathOf(nodes_, at);
    l.path.push_back(holder);
    op_.libraries.push_back(std::move(l));
  }

  // `stub`: reached through that dispatch stub's registration, "" for a call.
  void Enqueue(const std::vector<uint32_t>& ids, int32_t at, const std::string& holder, const std::string& stub,
               const std::string& dev, const CppCall* call = nullptr) {
    int hops = nodes_[static_cast<size_t>(at)].hops + 1;
    if (hops > ex_.opt_.kernel_depth) return;
    const bool foreign = nodes_[static_cast<size_t>(at)].foreign;
    for (uint32_t id : ids) {
      if (!visited_.insert(id).second) continue;
      // Foreign to the device this walk is for (the traced one for "any"),
      // or another key's implementation of this very op.
      const std::string other_key = OtherKeyOfKernel(cpp_.functions()[id].name, dev);
      if (!foreign && !other_key.empty()) NoteFallback(cpp_.functions()[id].name, other_key, dev, holder, call);
      bool off = foreign || !other_key.empty() ||
                 (ex_.opt_.device != TraceOptions::Device::kAll &&
                  ForeignToDevice(cpp_.file(cpp_.functions()[id].file),
                                  dev == "CPU" || dev == "CUDA" ? dev : ex_.PrimaryDevice()));
      nodes_.push_back({id, at, holder, stub, hops, dev, call, off});
    }
  }

  // The dispatch key whose kernel `name` is, where that is another key
  // of the op than `dev`, which has a kernel of its own: the dispatcher
  // runs `dev`'s, and when that kernel calls the other one directly (a
  // CUDA foreach kernel's `foreach_tensor_add_scalar_kernel_slow`
  // fallback, _chunk_cat_cuda's `else`), the other key's code is listed
  // with its kernels but its calls are on no path of `dev`: the trace for
  // the other key names them. "" for any other function.
  std::string OtherKeyOfKernel(std::string_view name, const std::string& dev) const {
    if (!op_.yaml || (dev != "CUDA" && dev != "CPU")) return "";
    std::string other;
    bool own = false, has_own_kernel = false;
    for (const auto& [key, kernel] : op_.yaml->dispatch) {
      has_own_kernel = has_own_kernel || key == dev;
      if (kernel != name) continue;
      if (key == dev) own = true;
      else if (other.empty()) other = key;
    }
    return own || !has_own_kernel ? "" : other;
  }

  // Says where the device's code falls back to another key's kernel, once.
  void NoteFallback(std::string_view name, const std::string& key, const std::string& dev, const std::string& caller,
                    const CppCall* call) {
    std::string note = dev + ": " + caller + " calls " + key + "'s " + std::string(name) + " directly";
    if (call) {
      const Location at = ex_.CppLoc(call->file, call->line, 1);
      note += " (" + at.file + ":" + std::to_string(at.line) + ")";
    }
    note += ", a fallback whose calls the trace lists under " + key + ", not on " + dev + "'s path";
    if (std::find(op_.notes.begin(), op_.notes.end(), note) == op_.notes.end()) op_.notes.push_back(std::move(note));
  }

  OpExpander& ex_;
  const CppIndex& cpp_;
  OpStep& op_;
  const int depth_;
  // Nodes in the order they were reached; the unexpanded ones, from `next_`
  // on, are the breadth-first queue.
  std::deque<WalkNode> nodes_;
  size_t next_ = 0;
  std::unordered_set<uint32_t> visited_;
};

}  // namespace

void OpExpander::FollowCpp(OpStep& op, uint32_t start, const std::string& device, int depth) {
  CppWalk(*this, op, start, device, depth).Run();
}
void OpExpander::AddOperatorOps(OpStep& op, const FunctionWalk& walk, const std::string& device, int depth,
                                SharedVector<OpCallStep>* list) {
  // Code written with C++ operators on tensors ((x1 * x2).sum(), x / norm,
  // out += bias) calls mul, div, add_ through them: the tensor-only
  // overload, listed as a call where the operator is written.
  if (walk.operator_ops.empty()) return;
  std::vector<std::string> names;
  for (const OperatorUse& use : walk.operator_ops) {
    const NativeFunction* fn = FindOp(use.op + ".Tensor");
    if (!fn) fn = FindOp(use.op);
    if (fn) ops_.AddOp(fn, op.role, op.name, depth + 1);
    if (std::find(names.begin(), names.end(), use.op) == names.end()) names.push_back(use.op);
    if (walk.file == UINT32_MAX) continue;
    OpCallStep call;
    call.op = use.op;
    call.device = WalkCodeDevice(device);
    call.from = walk.holder;
    call.where = CppLoc(walk.file, static_cast<uint32_t>(use.line), 1);
    call.how = "operator" + use.symbol;
    // Listed once per place, as FollowOpCall lists calls: a key not seen yet
    // is a place not listed yet; a key seen may be (look).
    bool dup = false;
    if (!call_keys_.insert(PlaceKey(call.op, call.where.file, call.where.line)).second) {
      for (const auto& e : *list)
        dup = dup || (e.op == call.op && e.where.line == call.where.line && e.where.file == call.where.file);
    }
    if (!dup) list->push_back(std::move(call));
  }
  op.notes.push_back(walk.holder + " applies C++ operators to tensors: " + Join(names, ", "));
}

}  // namespace optrace
