// From a YAML op to the code that runs (OpQueue, OpExpander): the ops
// reached wait in the queue, each once per role, and are expanded in turn.
//
// For each op reached: its effective dispatch table (yaml_model), the C++
// definition behind each wanted dispatch name (overloads told apart by their
// parameter kinds), structured_delegate to the out= op with its
// TORCH_META_FUNC / TORCH_IMPL_FUNC, ufunc codegen, and then a bounded walk
// from each implementation through helper functions (same file first, then
// the same folder, then a unique definition elsewhere; never an ambiguous
// one) collecting dispatch stubs and their registrations per device, CUDA
// launches (<<<>>> also inside macros, TensorIterator launchers, reductions,
// jiterator), vendor library calls, and the aten ops the code calls, which
// are traced in turn (composite following).
//
// The walk itself is trace_walk.cc; what it reads of a function and of a
// call (the same for every trace of an index) is trace_walk_facts.cc and
// trace_calls.cc; code the build writes is trace_kernels.cc. An op once
// expanded is replayed, not walked again (op_expansions.cc).
#include <algorithm>
#include <set>
#include <unordered_set>

#include "base/text.h"
#include "cpp/written_call.h"
#include "trace/code_scope.h"
#include "trace/cpp_operands.h"
#include "trace/guard_files.h"
#include "trace/trace_internal.h"
#include "trace/walk_bounds.h"

namespace optrace {

namespace {

// An op that only makes a view or a new tensor from sizes runs no kernel of
// interest; calls to it are recorded but not traced further.
// The seed's "well-known ops" an implementation calls for set-up: dtype,
// device and memory plumbing. Listed where the call is made, not traced.
bool IsPlumbing(const NativeFunction& fn) {
  static const std::unordered_set<std::string_view> kPlumbing = {
      "clone", "to",     "_to_copy", "copy_",      "contiguous",           "resize_", "resize_as_", "fill_",
      "zero_", "detach", "set_",     "_copy_from", "_copy_from_and_resize"};
  const std::string& n = fn.schema.name;
  return kPlumbing.count(n) > 0 || EndsWith(n, "_like") || StartsWith(n, "new_") || StartsWith(n, "empty");
}

}  // namespace

// Whether an op returns an alias of an input (a view).
bool IsView(const NativeFunction& fn) {
  for (const auto& r : fn.schema.returns) {
    if (r.annotation == "a" || (!r.annotation.empty() && r.annotation.back() != '!')) return true;
  }
  return false;
}

// Calls not worth following for kernels that still stay in the trace,
// marked: views (view_as, mT: an alias, no data computed), ops returning
// nothing (_linalg_check_errors), and the set-up ops that copy or convert
// data -- for x.half() copy_ is the work (direct_copy_kernel_cuda).
bool KeptInTrace(const NativeFunction& fn) {
  static const std::unordered_set<std::string_view> kDataMoving = {
      "clone", "to", "_to_copy", "copy_", "contiguous", "fill_", "zero_", "_copy_from", "_copy_from_and_resize"};
  bool has_tensor_input = false;
  for (const auto& a : fn.schema.arguments)
    has_tensor_input = has_tensor_input || a.type.find("Tensor") != std::string::npos;
  if (!has_tensor_input) return false;
  return fn.schema.returns.empty() || IsView(fn) || kDataMoving.count(fn.schema.name) > 0;
}

bool WorthFollowing(const NativeFunction& fn) {
  if (IsPlumbing(fn)) return false;
  if (!ReturnsTensor(fn)) return false;
  bool has_tensor_input = false;
  for (const auto& a : fn.schema.arguments)
    has_tensor_input = has_tensor_input || a.type.find("Tensor") != std::string::npos;
  if (!has_tensor_input) return false;  // factories: empty, zeros, arange ...
  return !IsView(fn);
}

// Where kernels and their helpers live. The walk stays out of ATen's
// dispatcher, core and registration machinery, which every op passes
// through and which says nothing about one op.
bool InNativeCode(std::string_view file) {
  return StartsWith(file, "aten/src/ATen/native/") || StartsWith(file, "aten/src/ATen/cuda/") ||
         StartsWith(file, "aten/src/ATen/cudnn/") || StartsWith(file, "aten/src/ATen/miopen/") ||
         StartsWith(file, "aten/src/ATen/ScalarOps") || StartsWith(file, "aten/src/ATen/ExpandUtils");
}

std::string DisplayName(const CppFunction& f) {
  if (f.name == "operator()") {
    // at::native::sum_functor::operator() -> sum_functor
    std::string q = f.qualified;
    size_t end = q.rfind("::operator()");
    if (end != std::string::npos) {
      std::string cls = q.substr(0, end);
      size_t start = cls.rfind("::");
      return start == std::string::npos ? cls : cls.substr(start + 2);
    }
  }
  return f.name;
}

// A registration's device, folded to the two the tracer follows.
std::string RegistrationDevice(const std::string& device) {
  if (device == "CUDA" || device == "HIP" || device == "MPS" || device == "unknown" || device == "none") return device;
  return "CPU";  // CPU, DEFAULT, AVX2, AVX512, VSX, ZVECTOR, SVE256: CPU capabilities
}

std::string StripTemplateAndNamespace(std::string s) {
  if (size_t lt = s.find('<'); lt != std::string::npos) s = s.substr(0, lt);
  if (size_t c = s.rfind("::"); c != std::string::npos) s = s.substr(c + 2);
  return s;
}

// --- ops -------------------------------------------------------------------

void OpQueue::AddOp(const NativeFunction* fn, OpRole role, const std::string& from, int depth) {
  if (!fn) return;
  if (recording_) recording_->push_back({fn, role, from, depth});
  if (recording_only_) return;
  if (!seen_ops_.insert({fn->name, role}).second) {
    if (from.empty() || from == fn->name) return;
    std::vector<std::string>& callers = more_callers_[{fn->name, role}];
    if (std::find(callers.begin(), callers.end(), from) == callers.end()) callers.push_back(from);
    return;
  }
  queue_.push_back({fn, role, from, depth});
}

const std::vector<std::string>& OpQueue::MoreCallers(const std::string& name, OpRole role) const {
  static const std::vector<std::string> kNone;
  auto it = more_callers_.find({name, role});
  return it == more_callers_.end() ? kNone : it->second;
}

bool TakesDimname(const FunctionSchema& schema) {
  for (const auto& a : schema.arguments)
    if (StartsWith(a.type, "Dimname")) return true;
  return false;
}

size_t OpQueue::AddOpsByBaseName(const std::string& base, OpRole role, const std::string& from, int depth,
                                 const WrittenArguments* written, bool dimnames) {
  std::vector<const NativeFunction*> candidates;
  for (const NativeFunction* fn : ix_.yaml.Overloads(base)) {
    if (fn->schema.is_out() || fn->autogen_from || !HasWantedKernel(*this, *fn)) continue;
    if (!dimnames && TakesDimname(fn->schema)) continue;
    candidates.push_back(fn);
  }
  const std::vector<const NativeFunction*> picked = written ? OverloadsAdmitting(candidates, *written) : candidates;
  for (const NativeFunction* fn : picked) AddOp(fn, role, from, depth);
  return picked.size();
}

void OpExpander::ExpandQueuedOps() {
  while (!ops_.queue_.empty()) {
    PendingOp p = ops_.queue_.front();
    ops_.queue_.pop_front();
    OpStep op;
    op.name = p.fn->name;
    op.role = p.role;
    op.yaml = p.fn;
    op.reached_from = p.reached_from;
    op.depth = p.depth;
    const size_t queued = ops_.queue_.size();
    OpStep unexpanded = op;
    ExpandRemembered(op, p.depth);
    // A composite op that only hands its work to one other op (index_put ->
    // index_put_ -> _index_put_impl_) is a step, not a level: what it
    // calls is followed as deep as if called directly -- at the --depth
    // limit too (max.other -> maximum), where its expansion queued nothing.
    const bool forwards = Forwards(op);
    if (forwards && p.depth + 1 > opt_.depth && p.depth > 0) {
      op = std::move(unexpanded);
      ExpandRemembered(op, p.depth - 1);
    }
    if (forwards)
      for (size_t i = queued; i < ops_.queue_.size(); ++i)
        ops_.queue_[i].depth = std::min(ops_.queue_[i].depth, p.depth);
    t_.ops.push_back(std::move(op));
  }
  // Callers met after an op was expanded (its own callees' included) are known only now.
  for (OpStep& op : t_.ops) {
    op.also_reached_from = ops_.MoreCallers(op.name, op.role);
    std::erase(op.also_reached_from, op.reached_from);
  }
}

bool OpExpander::Forwards(const OpStep& op) const {
  for (const auto& [key, kernel] : op.yaml->dispatch) {
    if (!IsCompositeKey(key)) return false;
  }
  if (!op.kernels.empty() || !op.stubs.empty() || !op.libraries.empty()) return false;
  std::set<std::string> callees;
  for (const auto& c : op.calls) {
    for (const NativeFunction* o : ix_.yaml.Overloads(c.op)) {
      if (WorthFollowing(*o)) {
        callees.insert(c.op);
        break;
      }
    }
  }
  return callees.size() == 1;
}

void OpExpander::ExpandOp(OpStep& op, int depth) {
  const NativeFunction& fn = *op.yaml;
  helper_keys_.clear();
  call_keys_.clear();
  if (fn.structured_delegate) {
    const NativeFunction* out = FindOp(*fn.structured_delegate);
    if (out) {
      op.notes.push_back("structured_delegate: " + out->name + " (its kernels run, through the structured meta/impl)");
      ops_.AddOp(out, op.role, op.name, depth);
    } else {
      t_.not_found.push_back({"structured_delegate", fn.name + " delegates to " + *fn.structured_delegate +
                                                         ", which is not in native_functions.yaml"});
    }
  }
  if (fn.structured) {
    // The meta function is named after the functional op that delegates here:
    // TORCH_META_FUNC(base) or TORCH_META_FUNC2(base, overload).
    for (const auto& other : ix_.yaml.functions()) {
      if (!other.structured_delegate || *other.structured_delegate != fn.name || other.schema.is_inplace()) continue;
      std::vector<uint32_t> metas;
      for (uint32_t id : ix_.cpp.FunctionsNamed(other.schema.name)) {
        const CppFunction& f = ix_.cpp.functions()[id];
        if (f.form != DefForm::kMetaFunc && f.form != DefForm::kPrecomputeMetaFunc) continue;
        if (f.overload == other.schema.overload) metas.push_back(id);
      }
      for (uint32_t id : metas) {
        const CppFunction& f = ix_.cpp.functions()[id];
        ImplStep meta;
        meta.key = "Meta";
        meta.function = f.name;
        meta.form = FormOf(f.form);
        meta.where = CppLoc(f.file, f.line);
        meta.params = f.overload;
        op.impls.push_back(meta);
        // The structured kernel calls meta() before impl() on every device:
        // what it calls runs too (index's make_info -> nonzero for a mask).
        FollowCpp(op, id, "any", depth);
      }
      break;
    }
  }
  for (const auto& [key, kernel] : fn.dispatch) {
    if (!KeyWanted(key)) continue;
    AddImplementations(op, fn, key, kernel, depth, WalkDeviceOfKey(fn, key));
  }
  if (!fn.ufunc_inner_loop.empty()) gen_.AddUfuncKernels(op, fn);
  if (!WorthFollowing(fn) && KeptInTrace(fn)) {
    op.notes.push_back(IsView(fn)                  ? "view: returns an alias of its input; no data is computed"
                       : fn.schema.returns.empty() ? "returns nothing: a check or a side effect"
                                                   : "copies or converts data: the work of a set-up call");
  }
  if (fn.implicit_composite) {
    op.notes.push_back("no dispatch: in native_functions.yaml, so CompositeImplicitAutograd: the C++ function " +
                       fn.dispatch.front().second +
                       " runs on every backend, and autograd differentiates the ops it calls");
  }
}

void OpExpander::AddImplementations(OpStep& op, const NativeFunction& fn, const std::string& key,
                                    const std::string& kernel, int depth, const std::string& walk_device) {
  if (StartsWith(kernel, "ufunc_")) {
    ImplStep impl;
    impl.key = key;
    impl.function = kernel;
    impl.form = ImplForm::kUfunc;
    op.impls.push_back(impl);  // located by AddUfuncKernels (the ufunc header)
    return;
  }
  DefForm form = fn.structured ? DefForm::kImplFunc : DefForm::kFunction;
  std::vector<uint32_t> defs = facts_.DefinitionsFor(kernel, fn, key, form);
  // A structured kernel's TORCH_IMPL_FUNC (one a macro use writes too,
  // CREATE_UNARY_TORCH_IMPL_FUNC(sigmoid_out, sigmoid_stub)); a plain
  // function of the same name is another overload's kernel (bitwise_and_out
  // of the Scalar overload), taken only when no TORCH_IMPL_FUNC is.
  if (defs.empty() && fn.structured) defs = facts_.DefinitionsFor(kernel, fn, key, DefForm::kFunction);
  if (defs.empty()) {
    ImplStep impl;
    impl.key = key;
    impl.function = kernel;
    impl.form = ImplForm::kGenerated;
    op.impls.push_back(impl);
    if (fn.autogen_from || ix_.yaml.ViewOfCopy(fn)) {
      FollowGeneratedKernel(op, fn, key, depth);
      return;
    }
    t_.not_found.push_back(
        {"implementation", fn.name + " " + key + ": no definition of " + kernel + " found in aten/src/ATen"});
    return;
  }
  defs = SetAsidePlaceholders(op, key, defs);
  if (defs.size() > 1 && form == DefForm::kFunction) {
    op.notes.push_back(key + ": " + std::to_string(defs.size()) + " definitions of " + kernel +
                       " match this schema's parameter kinds; all are listed");
  }
  for (uint32_t id : defs) {
    const CppFunction& f = ix_.cpp.functions()[id];
    ImplStep impl;
    impl.key = key;
    std::string device = walk_device;
    // A composite kernel in code only CPU builds compile (mkldnn/: oneDNN)
    // runs for CPU tensors only: it is listed, and walked, as CPU code.
    if (IsCompositeKey(key) && IsCpuOnlyFile(ix_.cpp.file(f.file))) {
      impl.key = "CPU";
      device = device == "any" || device == "CPU" ? "CPU" : "";
      op.notes.push_back(key + ": " + kernel + " is defined in " + ix_.cpp.file(f.file) +
                         ", which only CPU builds compile: listed as CPU code");
    }
    impl.function = f.name;
    impl.form = IsPlaceholder(f) ? ImplForm::kPlaceholder : FormOf(f.form);
    impl.where = CppLoc(f.file, f.line, 4);
    impl.params = f.params;
    for (uint32_t d : ix_.cpp.DtypeDispatchesIn(id)) {
      for (const auto& dt : ix_.cpp.dtype_dispatches()[d].dtypes) {
        if (std::find(impl.dtypes.begin(), impl.dtypes.end(), dt) == impl.dtypes.end()) impl.dtypes.push_back(dt);
      }
    }
    op.impls.push_back(impl);
    // Another key's kernel runs instead on every traced device (a
    // CompositeExplicitAutograd fallback beside CPU and CUDA kernels): it is
    // listed, and what it calls is on no path.
    if (!device.empty()) FollowCpp(op, id, device, depth);
  }
}

void OpExpander::FollowGeneratedKernel(OpStep& op, const NativeFunction& fn, const std::string& key, int depth) {
  const std::vector<const NativeFunction*> callees = ix_.yaml.GeneratedKernelCallees(fn);
  std::string note = key + ": " + (fn.autogen_from ? "autogen'd by " + *fn.autogen_from : "a view op's _copy variant") +
                     ": torchgen generates the kernel at build time";
  if (!callees.empty()) {
    const std::string& first = callees.front()->name;
    note += !fn.autogen_from     ? "; it calls " + first + " and clones the result"
            : fn.schema.is_out() ? "; it calls " + first + " and copies the result into out"
                                 : "; it clones the mutated inputs and calls " + first;
  }
  for (const NativeFunction* callee : callees) ops_.AddOp(callee, op.role, op.name, depth + 1);
  op.notes.push_back(note);
}

bool OpExpander::IsPlaceholder(const CppFunction& f) const {
  // `#if !AT_CUDNN_ENABLED()` builds define the op with a body that only
  // raises: its first statement fails unconditionally.
  if (!f.HasBody() || f.WrittenByMacroUse() || f.body_end - f.body_begin > kMaxPlaceholderLines) return false;
  const auto call = OpeningCallOf(GuardReaderOf(ix_, ix_.cpp.file(f.file)).lexed().tokens, static_cast<int>(f.line));
  if (!call) return false;
  if (call->callee == "throw" || call->callee == "AT_ERROR") return true;
  static const std::string_view kFalseChecks[] = {"TORCH_CHECK", "TORCH_CHECK_NOT_IMPLEMENTED", "TORCH_INTERNAL_ASSERT",
                                                  "AT_ASSERTM"};
  for (std::string_view check : kFalseChecks)
    if (call->callee == check && !call->arguments.empty() && call->arguments.front() == "false") return true;
  return false;
}

std::vector<uint32_t> OpExpander::SetAsidePlaceholders(OpStep& op, const std::string& key,
                                                       const std::vector<uint32_t>& defs) const {
  // A real definition and a placeholder for builds without the library:
  // the real one runs; the placeholder is noted, never listed as the code.
  std::vector<uint32_t> real;
  for (uint32_t id : defs) {
    if (!IsPlaceholder(ix_.cpp.functions()[id])) real.push_back(id);
  }
  if (real.empty() || real.size() == defs.size()) return defs;
  for (uint32_t id : defs) {
    const CppFunction& f = ix_.cpp.functions()[id];
    if (std::find(real.begin(), real.end(), id) != real.end()) continue;
    op.notes.push_back(key + ": " + ix_.cpp.file(f.file) + ":" + std::to_string(f.line) + " defines " + f.name +
                       " as a placeholder that only raises (compiled when the build lacks its library); not listed");
  }
  return real;
}

}  // namespace optrace
