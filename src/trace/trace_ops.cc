// The tracer's middle: from a YAML op to the code that runs.
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
// What the walk learns about a function (its calls, what each one is, where
// it leads) depends only on the index and the traced devices, so it is kept
// with the index (WalkCache) and every later op and trace reuses it: a warm
// daemon or MCP server walks from memory.
#include <algorithm>
#include <mutex>
#include <set>
#include <cctype>
#include <unordered_set>

#include "base/text.h"
#include "cpp/device_code.h"
#include "trace/code_scope.h"
#include "trace/trace_internal.h"

namespace optrace {

namespace {


bool IsCompositeKey(std::string_view key) { return StartsWith(key, "Composite"); }


std::string DeviceOfKey(std::string_view key) {
  if (key == "CUDA") return "CUDA";
  if (key == "CPU") return "CPU";
  return "any";
}



// An op that only makes a view or a new tensor from sizes runs no kernel of
// interest; calls to it are recorded but not traced further.
// The seed's "well-known ops" an implementation calls for set-up: dtype,
// device and memory plumbing. Listed where the call is made, not traced.
bool IsPlumbing(const NativeFunction& fn) {
  static const std::unordered_set<std::string_view> kPlumbing = {
      "clone", "to", "_to_copy", "copy_", "contiguous", "resize_", "resize_as_", "fill_", "zero_", "detach",
      "set_", "_copy_from", "_copy_from_and_resize"};
  const std::string& n = fn.schema.name;
  return kPlumbing.count(n) > 0 || EndsWith(n, "_like") || StartsWith(n, "new_") || StartsWith(n, "empty");
}

// Whether an op has an implementation for the devices traced (directly or
// through its structured delegate); an op only MPS or XPU implements is
// listed at its call site but not traced.
bool HasWantedKernel(const TraceReader& t, const NativeFunction& fn) {
  if (fn.structured_delegate) return true;
  for (const auto& [key, kernel] : fn.dispatch) {
    if (t.KeyWanted(key)) return true;
  }
  return false;
}

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
  for (const auto& a : fn.schema.arguments) has_tensor_input = has_tensor_input || a.type.find("Tensor") != std::string::npos;
  if (!has_tensor_input) return false;
  return fn.schema.returns.empty() || IsView(fn) || kDataMoving.count(fn.schema.name) > 0;
}

bool WorthFollowing(const NativeFunction& fn) {
  if (IsPlumbing(fn)) return false;
  if (!ReturnsTensor(fn)) return false;
  bool has_tensor_input = false;
  for (const auto& a : fn.schema.arguments) has_tensor_input = has_tensor_input || a.type.find("Tensor") != std::string::npos;
  if (!has_tensor_input) return false;  // factories: empty, zeros, arange ...
  return !IsView(fn);
}



bool IsLauncherName(std::string_view name) {
  static const std::unordered_set<std::string_view> kLaunchers = {
      "gpu_kernel", "gpu_kernel_with_scalars", "gpu_kernel_nocast", "opmath_gpu_kernel_with_scalars",
      "opmath_symmetric_gpu_kernel_with_scalars", "gpu_kernel_multiple_outputs", "gpu_reduce_kernel",
      "jitted_gpu_kernel", "opmath_jitted_gpu_kernel_with_scalars", "gpu_kernel_impl", "gpu_kernel_impl_nocast",
      "launch_kernel", "launch_vectorized_kernel", "launch_legacy_kernel", "launch_unrolled_kernel",
      "cpu_kernel", "cpu_kernel_vec", "cpu_serial_kernel", "binary_kernel_reduce", "binary_kernel_reduce_vec"};
  return kLaunchers.count(name) > 0;
}

// --- what a member call is made on -----------------------------------------
//
// x.index(), x.data(), x.eq() are aten ops only when x is a Tensor:
// iter.device().index() is Device::index, sizes.data() IntArrayRef::data. The
// receiver's type comes from its declaration (a parameter, a local) or, for a
// call's result, from the method returning it.


}  // namespace

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


namespace {

// Methods of Tensor (and of what it holds) that return no Tensor and are no aten op.
bool IsNonTensorMethod(std::string_view m) {
  static const std::unordered_set<std::string_view> kMethods = {
      "device", "options", "dtype", "scalar_type", "sizes", "strides", "sym_sizes", "sym_strides", "layout",
      "data_ptr", "const_data_ptr", "mutable_data_ptr", "key_set", "suggest_memory_format", "storage", "names",
      "get_device", "vec", "begin", "end", "toScalarType", "unsafeGetTensorImpl", "sym_numel", "sym_size",
      "sym_stride", "nbytes", "itemsize", "element_size", "ndimension", "has_names", "is_cuda", "is_cpu",
      "type", "str", "c_str", "index_type", "shape", "common_dtype", "input_dtype", "dtype_or_default"};
  return kMethods.count(m) > 0;
}

}  // namespace




std::string LibraryOfCall(std::string_view qualifier, std::string_view callee) {
  // Most calls name no library: every test below needs a qualifier of five
  // characters or more, or a callee starting with c, m or r.
  if (qualifier.size() < 5 && (callee.empty() || (callee[0] != 'c' && callee[0] != 'm' && callee[0] != 'r')))
    return "";
  // The vendors' C APIs are camelCase (cudnnConvolutionForward, cublasSgemm):
  // PyTorch's own cudnn_convolution_backward_stub or cudnn_is_acceptable is
  // code to follow, not a library call.
  auto api = [&](std::string_view prefix) {
    return StartsWith(callee, prefix) && callee.size() > prefix.size() &&
           std::isupper(static_cast<unsigned char>(callee[prefix.size()]));
  };
  if (api("cudnn") || qualifier.find("cudnn_frontend") != std::string_view::npos) return "cuDNN";
  if (api("cublasLt")) return "cuBLASLt";
  if (api("cublas") || qualifier.find("cuda::blas::") != std::string_view::npos) return "cuBLAS";
  if (api("cufft")) return "cuFFT";
  if (api("cusolver") || qualifier.find("cuda::solver::") != std::string_view::npos) return "cuSOLVER";
  if (api("cusparse") || qualifier.find("cuda::sparse::") != std::string_view::npos) return "cuSPARSE";
  if (qualifier.find("cub::") != std::string_view::npos) return "CUB";
  if (qualifier.find("thrust::") != std::string_view::npos) return "Thrust";
  if (StartsWith(callee, "magma_") || StartsWith(callee, "magma")) return "MAGMA";
  if (qualifier.find("cutlass::") != std::string_view::npos) return "cutlass";
  if (qualifier.find("pytorch_flash::") != std::string_view::npos || qualifier.find("flash::") == 0 ||
      StartsWith(callee, "mha_fwd") || StartsWith(callee, "mha_bwd") || StartsWith(callee, "mha_varlen"))
    return "flash-attention";
  if (StartsWith(callee, "run_mem_eff") || qualifier.find("mem_eff") != std::string_view::npos) return "mem-eff-attention";
  return "";
}

char SchemaTypeKind(std::string_view t) {
  if (StartsWith(t, "Tensor") && t.find("[]") != std::string_view::npos) return 'L';
  if (StartsWith(t, "Tensor")) return 'T';
  if (StartsWith(t, "ScalarType")) return 'D';
  if (StartsWith(t, "Scalar") && t.find("[]") == std::string_view::npos) return 'S';
  if ((StartsWith(t, "int") || StartsWith(t, "SymInt")) && t.find('[') != std::string_view::npos) return 'I';
  if (StartsWith(t, "int") || StartsWith(t, "SymInt")) return 'i';
  if (StartsWith(t, "bool") && t.find('[') == std::string_view::npos) return 'b';
  if (StartsWith(t, "float") && t.find('[') == std::string_view::npos) return 'f';
  if (StartsWith(t, "str")) return 's';
  if (StartsWith(t, "Dimname") && t.find('[') != std::string_view::npos) return 'N';
  if (StartsWith(t, "Dimname")) return 'n';
  if (StartsWith(t, "Generator")) return 'g';
  return 'o';
}

char CppParamKind(std::string_view p) {
  auto has = [&](std::string_view s) { return p.find(s) != std::string_view::npos; };
  if (has("TensorList") || has("ITensorListRef") || has("ArrayRef<Tensor>") || has("ArrayRef<at::Tensor>") ||
      has("List<c10::optional<Tensor>>") || has("List<std::optional<Tensor>>") || has("List<::std::optional<at::Tensor>>") ||
      has("IOptTensorListRef"))
    return 'L';
  if (has("Tensor")) return 'T';
  if (has("ScalarType")) return 'D';
  if (has("Scalar")) return 'S';
  if (has("IntArrayRef") || has("SymIntArrayRef") || has("ArrayRef<int64_t>") || has("ArrayRef<c10::SymInt>") ||
      has("OptionalIntArrayRef") || has("OptionalSymIntArrayRef") || has("IntList"))
    return 'I';
  if (has("int64_t") || has("SymInt") || has("int ")) return 'i';
  if (has("DimnameList")) return 'N';
  if (has("Dimname")) return 'n';
  if (has("bool") && !has("array<bool")) return 'b';
  if (has("double")) return 'f';
  if (has("string_view") || has("std::string")) return 's';
  if (has("Generator")) return 'g';
  return 'o';
}

// --- ops -------------------------------------------------------------------

void OpQueue::AddOp(const NativeFunction* fn, const std::string& role, const std::string& from, int depth) {
  if (!fn || !seen_ops_.insert({fn->name, role}).second) return;
  queue_.push_back({fn, role, from, depth});
}

bool TakesDimname(const FunctionSchema& schema) {
  for (const auto& a : schema.arguments)
    if (StartsWith(a.type, "Dimname")) return true;
  return false;
}

size_t OpQueue::AddOpsByBaseName(const std::string& base, const std::string& role, const std::string& from, int depth,
                                size_t arity, bool dimnames) {
  auto overloads = ix_.yaml.Overloads(base);
  std::vector<const NativeFunction*> picked;
  for (const NativeFunction* fn : overloads) {
    if (fn->schema.is_out() || fn->autogen_from || !HasWantedKernel(*this, *fn)) continue;
    if (!dimnames && TakesDimname(fn->schema)) continue;
    if (arity != SIZE_MAX) {
      size_t required = 0, total = fn->schema.arguments.size();
      for (const auto& a : fn->schema.arguments) required += a.default_value ? 0 : 1;
      if (arity < required || arity > total) continue;
    }
    picked.push_back(fn);
  }

  for (const NativeFunction* fn : picked) AddOp(fn, role, from, depth);
  return picked.size();
}

namespace {

// The dispatch key the dispatcher runs for a dense tensor on `device`: the
// device's own kernel, else the explicit composite (the non-functional one
// first), else the implicit one; "" when the op has none of them.
std::string ResolvedKey(const NativeFunction& fn, std::string_view device) {
  auto has = [&](std::string_view key) {
    for (const auto& [k, kernel] : fn.dispatch)
      if (k == key) return true;
    return false;
  };
  for (std::string_view key : {device, std::string_view("CompositeExplicitAutogradNonFunctional"),
                               std::string_view("CompositeExplicitAutograd"),
                               std::string_view("CompositeImplicitAutograd")})
    if (has(key)) return std::string(key);
  return "";
}

}  // namespace

std::string TraceReader::PrimaryDevice() const { return opt_.device == TraceOptions::Device::kCpu ? "CPU" : "CUDA"; }

bool TraceReader::OnPrimaryPath(std::string_view walk_device) const {
  return opt_.device == TraceOptions::Device::kAll || walk_device == "any" || walk_device == PrimaryDevice();
}

std::string TraceReader::WalkDeviceOfKey(const NativeFunction& fn, const std::string& key) const {
  if (opt_.device == TraceOptions::Device::kAll) return DeviceOfKey(key);
  bool cuda = opt_.device != TraceOptions::Device::kCpu && ResolvedKey(fn, "CUDA") == key;
  bool cpu = opt_.device != TraceOptions::Device::kCuda && ResolvedKey(fn, "CPU") == key;
  return cuda && cpu ? "any" : cuda ? "CUDA" : cpu ? "CPU" : "";
}

bool TraceReader::KeyWanted(std::string_view key) const {
  switch (opt_.device) {
    case TraceOptions::Device::kAll: return true;
    case TraceOptions::Device::kCuda: return key == "CUDA" || IsCompositeKey(key);
    case TraceOptions::Device::kCpu: return key == "CPU" || IsCompositeKey(key);
    default: return key == "CPU" || key == "CUDA" || IsCompositeKey(key);
  }
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
    ExpandOp(op, p.depth);
    // A composite op that only hands its work to one other op (index_put ->
    // index_put_ -> _index_put_impl_) is a step, not a level: what it
    // calls is followed as deep as if called directly.
    if (Forwards(op))
      for (size_t i = queued; i < ops_.queue_.size(); ++i) ops_.queue_[i].depth = std::min(ops_.queue_[i].depth, p.depth);
    t_.ops.push_back(std::move(op));
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
        meta.form = DefFormName(f.form);
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
    op.notes.push_back(IsView(fn)                 ? "view: returns an alias of its input; no data is computed"
                       : fn.schema.returns.empty() ? "returns nothing: a check or a side effect"
                                                   : "copies or converts data: the work of a set-up call");
  }
  if (fn.implicit_composite) {
    op.notes.push_back("no dispatch: in native_functions.yaml, so CompositeImplicitAutograd: the C++ function " +
                       fn.dispatch.front().second + " runs on every backend, and autograd differentiates the ops it calls");
  }
}

WalkFacts::WalkCache& WalkFacts::Cache() const {
  if (!cache_) {
    std::string key = "cpp-walk-" + std::to_string(static_cast<int>(opt_.device));
    cache_ = ix_.Derived<std::unique_ptr<WalkCache>>(key, [] { return std::make_unique<WalkCache>(); }).get();
  }
  return *cache_;
}

std::vector<uint32_t> WalkFacts::DefinitionsFor(const std::string& name, const NativeFunction& fn,
                                             const std::string& key, DefForm form) const {
  // Only whether the key is CUDA matters below.
  std::string memo_key = name;
  memo_key += key == "CUDA" ? "\1" : "\2";
  memo_key += static_cast<char>('0' + static_cast<int>(form));
  const NativeFunction* identity = &fn;
  memo_key.append(reinterpret_cast<const char*>(&identity), sizeof(identity));  // the op's identity
  WalkCache& cache = Cache();
  return Remember(cache.mu, cache.definitions, memo_key, [&] { return FindDefinitions(name, fn, key, form); });
}

std::vector<uint32_t> WalkFacts::FindDefinitions(const std::string& name, const NativeFunction& fn,
                                              const std::string& key, DefForm form) const {
  // The dispatcher's registration calls at::native::<name>: only a definition
  // in at::native itself (not a nested or anonymous namespace: vulkan::ops,
  // xnnpack, flash, a file's own __device__ helpers), in a file the key's
  // builds compile, can be it.
  const std::string device = DeviceOfKey(key);
  std::vector<uint32_t> all;
  for (uint32_t id : ix_.cpp.FunctionsNamed(name)) {
    const CppFunction& f = ix_.cpp.functions()[id];
    if (f.form != form) continue;
    const std::string& file = ix_.cpp.file(f.file);
    if (!StartsWith(file, "aten/src/ATen/") || !BackendFolder(file).empty() || !RunsOnDevice(file, device)) continue;
    LookupScope scope = form == DefForm::kFunction ? ScopeOfFunction(f) : SplitScope(f.qualified);
    bool in_native = !scope.anonymous && scope.parts.size() >= 2 && scope.parts[0] == "at" && scope.parts[1] == "native";
    if (!in_native || (form == DefForm::kFunction && scope.parts.size() != 2)) continue;
    all.push_back(id);
  }
  if (all.size() <= 1) return all;
  // Overloads first: the parameter kinds must match the schema's, in order
  // (a file's own helper of the same name -- UpSample.cuh's device max(a, b)
  // -- is never the op's kernel, whichever sources it sits in).
  if (form == DefForm::kFunction) {
    std::string want;
    for (const auto& a : fn.schema.arguments) want += SchemaTypeKind(a.type);
    std::vector<uint32_t> exact, same_arity;
    for (uint32_t id : all) {
      auto params = SplitTopLevel(ix_.cpp.functions()[id].params, ',');
      if (params.size() == 1 && params[0].empty()) params.clear();
      std::string got;
      for (const auto& p : params) got += CppParamKind(p);
      if (got.size() == want.size()) same_arity.push_back(id);
      if (got == want) exact.push_back(id);
    }
    if (!exact.empty()) all = exact;
    else if (!same_arity.empty()) all = same_arity;
  }
  // Then the device: a CUDA kernel lives in CUDA sources when it has its own.
  std::vector<uint32_t> by_device;
  for (uint32_t id : all) {
    bool cuda = IsCudaFile(ix_.cpp.file(ix_.cpp.functions()[id].file));
    if ((key == "CUDA") == cuda) by_device.push_back(id);
  }
  return by_device.empty() ? all : by_device;
}

void OpExpander::AddImplementations(OpStep& op, const NativeFunction& fn, const std::string& key,
                                const std::string& kernel, int depth, const std::string& walk_device) {
  if (StartsWith(kernel, "ufunc_")) {
    ImplStep impl;
    impl.key = key;
    impl.function = kernel;
    impl.form = "ufunc";
    op.impls.push_back(impl);  // located by AddUfuncKernels (the ufunc header)
    return;
  }
  DefForm form = fn.structured ? DefForm::kImplFunc : DefForm::kFunction;
  std::vector<uint32_t> defs = facts_.DefinitionsFor(kernel, fn, key, form);
  // A structured kernel's TORCH_IMPL_FUNC may be written by a macro; a plain
  // function of the same name is another overload's kernel (bitwise_and_out
  // of the Scalar overload), taken only when no macro writes the impl.
  if (defs.empty() && fn.structured && !gen_.MacroGeneratedImpl(kernel))
    defs = facts_.DefinitionsFor(kernel, fn, key, DefForm::kFunction);
  if (defs.empty() && fn.structured) {
    // TORCH_IMPL_FUNC written by a macro: CREATE_UNARY_TORCH_IMPL_FUNC(sigmoid_out, sigmoid_stub).
    if (const CppMacroUse* use = gen_.MacroGeneratedImpl(kernel)) {
      CppFunction synthetic;
      synthetic.name = kernel;
      synthetic.qualified = "at::native::structured_" + kernel + "::impl";  // what TORCH_IMPL_FUNC defines
      synthetic.form = DefForm::kImplFunc;
      synthetic.file = use->file;
      synthetic.line = synthetic.body_begin = synthetic.body_end = use->line;
      ImplStep impl;
      impl.key = key;
      impl.function = kernel;
      impl.form = "TORCH_IMPL_FUNC";
      impl.where = CppLoc(use->file, use->line, 1);
      impl.params = "generated by the macro " + use->macro;
      op.impls.push_back(impl);
      // Stubs the macro names by pasting (func##_stub) are called by the body it writes.
      synthetic_stub_calls_.clear();
      for (const std::string& name : gen_.PastedNames(*use)) {
        if (ix_.cpp.StubDeclsNamed(name).empty()) continue;
        CppCall call;
        call.callee = name;
        call.file = use->file;
        call.line = use->line;
        synthetic_stub_calls_.push_back(call);
      }
      if (!walk_device.empty()) FollowCpp(op, UINT32_MAX, walk_device, depth, &synthetic);
      return;
    }
  }
  if (defs.empty()) {
    ImplStep impl;
    impl.key = key;
    impl.function = kernel;
    impl.form = "generated";
    op.impls.push_back(impl);
    if (fn.autogen_from) {
      FollowGeneratedKernel(op, fn, key, depth);
      return;
    }
    t_.not_found.push_back({"implementation", fn.name + " " + key + ": no definition of " + kernel +
                                                  " found in aten/src/ATen"});
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
    impl.form = IsPlaceholder(f) ? "placeholder" : DefFormName(f.form);
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
  const NativeFunction* callee = ix_.yaml.GeneratedKernelCallee(fn);
  std::string note = key + ": autogen'd by " + *fn.autogen_from + ": torchgen generates the kernel at build time";
  if (callee) {
    note += fn.schema.is_out() ? "; it calls " + callee->name + " and copies the result into out"
                               : "; it clones the mutated inputs and calls " + callee->name;
    ops_.AddOp(callee, op.role, op.name, depth + 1);
  }
  op.notes.push_back(note);
}

bool OpExpander::IsPlaceholder(const CppFunction& f) const {
  // `#if !AT_CUDNN_ENABLED()` builds define the op with a body that only
  // raises: its first statement fails unconditionally.
  if (f.body_end <= f.body_begin || f.body_end - f.body_begin > 12) return false;
  std::string body = ix_.Snippet(ix_.cpp.file(f.file), static_cast<int>(f.body_begin),
                                 static_cast<int>(f.body_end - f.body_begin + 1));
  size_t open = body.find('{');  // the line of the body's '{' comes first
  if (open == std::string::npos) return false;
  std::string code;
  for (size_t i = open + 1; i < body.size(); ++i) {
    if (body.compare(i, 2, "//") == 0) {
      while (i < body.size() && body[i] != '\n') ++i;
    } else if (!std::isspace(static_cast<unsigned char>(body[i]))) {
      code += body[i];
    }
  }
  static const std::string_view kFailures[] = {"TORCH_CHECK(false", "AT_ERROR(", "TORCH_CHECK_NOT_IMPLEMENTED(false",
                                               "TORCH_INTERNAL_ASSERT(false", "throw", "AT_ASSERTM(false"};
  for (std::string_view fail : kFailures) {
    if (StartsWith(code, fail)) return true;
  }
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

const CppMacroUse* GeneratedCode::MacroGeneratedImpl(const std::string& kernel) const {
  const CppIndex& cpp = ix_.cpp;
  // The function-like macros whose #define body writes a TORCH_IMPL_FUNC,
  // then their file-scope uses in the same file: MACRO(kernel, ...), or
  // MACRO(eq) for a body writing TORCH_IMPL_FUNC(func##_Tensor_out).
  for (uint32_t i : cpp.MacroUsesOf("TORCH_IMPL_FUNC")) {
    const CppMacroUse& writer = cpp.macro_uses()[i];
    if (writer.within_macro.empty()) continue;
    for (uint32_t u : cpp.MacroUsesOf(writer.within_macro)) {
      const CppMacroUse& use = cpp.macro_uses()[u];
      if (use.function >= 0 || !use.within_macro.empty() || use.file != writer.file) continue;
      if (use.first_arg == kernel) return &use;
      std::vector<std::string> pasted = PastedNames(use);
      if (std::find(pasted.begin(), pasted.end(), kernel) != pasted.end()) return &use;
    }
  }
  return nullptr;
}

std::vector<std::string> GeneratedCode::PastedNames(const CppMacroUse& use) const {
  // #define M(func) ... func##_Tensor_out ... func##_stub(...), used as M(eq):
  // {"eq_Tensor_out", "eq_stub"} -- ## pasting of the first parameter.
  std::vector<std::string> out;
  std::vector<uint32_t> defs = calls_.VisibleMacros(use.macro, use.file, use.line);
  if (defs.empty() || use.first_arg.empty()) return out;
  const CppMacro& m = ix_.cpp.macros()[defs.front()];
  std::string text = ix_.Snippet(ix_.cpp.file(m.file), static_cast<int>(m.line), static_cast<int>(m.end_line - m.line + 1));
  size_t open = text.find('(', text.find(use.macro));
  size_t close = text.find_first_of(",)", open);
  if (open == std::string::npos || close == std::string::npos) return out;
  std::string param = text.substr(open + 1, close - open - 1);
  param.erase(std::remove(param.begin(), param.end(), ' '), param.end());
  if (param.empty()) return out;
  for (size_t at = text.find("##", close); at != std::string::npos; at = text.find("##", at + 2)) {
    // The identifier pieces on both sides of this ## (and of a second one).
    size_t b = at;
    while (b > 0 && IsIdentChar(text[b - 1])) --b;
    size_t e = at + 2;
    while (e < text.size() && (IsIdentChar(text[e]) || text.compare(e, 2, "##") == 0)) e += text[e] == '#' ? 2 : 1;
    std::string pieces = text.substr(b, e - b), name;
    bool uses_param = false;
    for (size_t p = 0; p <= pieces.size();) {
      size_t q = std::min(pieces.find("##", p), pieces.size());
      std::string piece = pieces.substr(p, q - p);
      uses_param = uses_param || piece == param;
      name += piece == param ? use.first_arg : piece;
      p = q + 2;
    }
    if (uses_param && std::find(out.begin(), out.end(), name) == out.end()) out.push_back(name);
    at = e > at + 2 ? e - 2 : at;
  }
  return out;
}


std::vector<uint32_t> CallFactsReader::ResolveCall(const CppCall& c, uint32_t from_file, const CppFunction* caller) const {
  // Definitions a call may reach, never guessing among unrelated ones: those
  // C++ lookup finds from the caller's scope (when known) in the caller's build.
  const CppIndex& cpp = ix_.cpp;
  const std::string& ff = cpp.file(from_file);
  const LookupScope from = caller ? ScopeOfFunction(*caller) : LookupScope{};
  auto reachable = [&](const CppFunction& f, std::string_view qualifier, const LookupScope& scope) {
    const std::string& file = cpp.file(f.file);
    if (!SameBuild(file, ff)) return false;
    if (scope.anonymous && f.file != from_file && !IsHeader(file)) return false;
    return !caller || LookupReaches(scope, qualifier, from);
  };
  std::vector<uint32_t> cands;
  if (c.kind == CallKind::kFunctor) {
    // Type<...>{}(...): the type is looked up like a function name.
    for (uint32_t id : cpp.FunctionsNamed("operator()")) {
      const CppFunction& f = cpp.functions()[id];
      if (f.qualified.find(c.callee + "::operator()") == std::string::npos) continue;
      LookupScope scope = ScopeOfFunction(f);
      if (!scope.parts.empty() && scope.parts.back() == c.callee) scope.parts.pop_back();
      if (reachable(f, c.qualifier, scope)) cands.push_back(id);
    }
  } else {
    for (uint32_t id : cpp.FunctionsNamed(c.callee)) {
      const CppFunction& f = cpp.functions()[id];
      if (f.form != DefForm::kFunction) continue;
      if (!InNativeCode(cpp.file(f.file))) continue;
      if (reachable(f, c.kind == CallKind::kQualified ? std::string_view(c.qualifier) : std::string_view(), ScopeOfFunction(f)))
        cands.push_back(id);
    }
  }
  if (cands.empty()) return cands;
  std::vector<uint32_t> same_file, same_dir;
  std::string_view dir = std::string_view(ff).substr(0, ff.rfind('/') + 1);
  for (uint32_t id : cands) {
    const std::string& file = cpp.file(cpp.functions()[id].file);
    if (cpp.functions()[id].file == from_file) same_file.push_back(id);
    else if (file.compare(0, dir.size(), dir) == 0 && file.find('/', dir.size()) == std::string::npos)
      same_dir.push_back(id);
  }
  if (!same_file.empty()) return same_file;
  if (!same_dir.empty() && same_dir.size() <= 6) return same_dir;
  // Elsewhere: only when every candidate sits in one file (overloads or
  // specializations of one helper), or the name is unique.
  uint32_t file0 = cpp.functions()[cands[0]].file;
  bool one_file = true;
  for (uint32_t id : cands) one_file = one_file && cpp.functions()[id].file == file0;
  if (one_file && cands.size() <= 16) return cands;
  return {};
}



std::vector<uint32_t> CallFactsReader::ResolveMember(const CppCall& c, const CppFunction& caller, std::string_view body) const {
  // obj.m(...) that is no aten op: the member functions m of obj's class --
  // by its declared type (params.matmul_ih on a CellParams), or, when that is
  // a template parameter (Sorter sorter; sorter.sort(...)), the classes of
  // the caller's own file defining m (the functors it is instantiated with).
  const CppIndex& cpp = ix_.cpp;
  std::string_view q = c.qualifier;
  size_t dot = std::min(q.find('.'), q.find("->"));
  if (dot == std::string_view::npos || dot == 0) return {};
  std::string_view recv = q.substr(0, dot);
  if (EndsWith(recv, "()") || recv == "this") return {};
  std::string type = DeclaredType(caller.params, body, recv);
  bool library_type = type.find("::") != std::string::npos;  // std::vector, c10::ArrayRef, at::TensorIterator
  // The class name: template arguments, qualifiers, cv and references dropped.
  if (size_t lt = type.find('<'); lt != std::string::npos) type = type.substr(0, lt);
  while (!type.empty() && !IsIdentChar(type.back())) type.pop_back();
  if (size_t sp = type.find_last_of(" :"); sp != std::string::npos) type = type.substr(sp + 1);
  if (type.empty() || type == "auto" || IsTensorType(type)) return {};
  const std::string& from_file = cpp.file(caller.file);
  const LookupScope from = ScopeOfFunction(caller);
  std::vector<uint32_t> by_type, same_file;
  bool known_class = false;  // some definition is a member of `type`: not a template parameter
  for (uint32_t id : cpp.FunctionsNamed(c.callee)) {
    const CppFunction& f = cpp.functions()[id];
    if (f.form != DefForm::kFunction || !InNativeCode(cpp.file(f.file)) || !SameBuild(cpp.file(f.file), from_file))
      continue;
    LookupScope scope = ScopeOfFunction(f);
    if (scope.parts.empty()) continue;
    known_class = known_class || scope.parts.back() == type;
    if (scope.parts.back() == type) by_type.push_back(id);
    // A member of a class (its scope is no namespace enclosing the caller).
    bool enclosing = scope.parts.size() <= from.parts.size() &&
                     std::equal(scope.parts.begin(), scope.parts.end(), from.parts.begin());
    if (f.file == caller.file && !enclosing) same_file.push_back(id);
  }
  if (!by_type.empty()) return by_type.size() <= 8 ? by_type : std::vector<uint32_t>{};
  if (known_class || library_type || same_file.empty() || same_file.size() > 8) return {};
  if (caller.is_template) return same_file;
  // A member of a class template (LSTMCell<cell_params>::operator() calling
  // params.linear_ih): the type is a template parameter of the class when
  // the file declares it one above the caller (`typename cell_params`).
  std::string above = ix_.Snippet(from_file, 1, static_cast<int>(caller.line));
  for (const char* intro : {"typename ", "class "}) {
    for (size_t at = above.find(intro + type); at != std::string::npos; at = above.find(intro + type, at + 1)) {
      size_t end = at + std::string_view(intro).size() + type.size();
      if (end < above.size() && !IsIdentChar(above[end])) return same_file;
    }
  }
  return {};
}

Receiver CallFactsReader::ReceiverOf(const CppCall& c, const CppFunction& caller, std::string_view body) const {
  std::string_view q = c.qualifier;
  size_t dot = std::min(q.find('.'), q.find("->"));
  if (dot == std::string_view::npos || dot == 0) return Receiver::kUnknown;
  std::string_view recv = q.substr(0, dot);
  if (recv.size() > 2 && recv.front() == '(' && recv.back() == ')')  // (self - maxes).exp_(): the expression's value
    return ValueIsTensor(caller.params, body, recv.substr(1, recv.size() - 2), "", 0) ? Receiver::kTensor
                                                                                     : Receiver::kUnknown;
  if (EndsWith(recv, "[]")) {  // an element: of a Tensor, a list of Tensors, or an op's Tensor[] result
    std::string_view container = recv.substr(0, recv.size() - 2);
    return IsTensorOperand(caller.params, body, container) ? Receiver::kTensor : Receiver::kUnknown;
  }
  if (EndsWith(recv, "()")) {  // a call's result: what that method returns
    std::string_view method = recv.substr(0, recv.size() - 2);
    if (EndsWith(method, "_symint")) method.remove_suffix(7);  // new_zeros_symint(): new_zeros
    if (IsNonTensorMethod(method)) return Receiver::kOther;
    std::string base(method);
    for (std::string_view suffix : {"_outf", "_out"})  // at::sum_out(...).div_(n): sum's out= overload
      if (ix_.yaml.Overloads(base).empty() && EndsWith(base, suffix)) base.resize(base.size() - suffix.size());
    bool any = false, tensor = false;
    for (const NativeFunction* o : ix_.yaml.Overloads(base)) {
      any = true;
      tensor = tensor || ReturnsTensor(*o);
    }
    if (!any) {  // a C++ helper: by its declared return type, when every definition agrees
      for (uint32_t id : ix_.cpp.FunctionsNamed(method)) {
        const std::string& type = ix_.cpp.functions()[id].return_type;
        if (type.empty()) continue;
        bool t = IsTensorType(type);
        if (any && t != tensor) return Receiver::kUnknown;
        any = true;
        tensor = t;
      }
    }
    return !any ? Receiver::kUnknown : tensor ? Receiver::kTensor : Receiver::kOther;
  }
  if (recv == "this") return Receiver::kOther;
  std::string type = DeclaredType(caller.params, body, recv);
  if (type.empty() || type.find("auto") != std::string::npos)  // auto x = ...: a Tensor on evidence only
    return IsTensorOperand(caller.params, body, recv) ? Receiver::kTensor : Receiver::kUnknown;
  return IsTensorType(type) && type.find('*') == std::string::npos ? Receiver::kTensor : Receiver::kOther;
}

std::string CallFactsReader::StubRegistrationKey(const CppCall& c, const CppFunction& caller) const {
  // REGISTER_DISPATCH(cpublas::copy_stub, ...) names the stub as seen from
  // the registering file's namespace: a call to copy_stub made inside
  // at::native::cpublas reaches cpublas::copy_stub's registrations, not
  // at::native's copy_stub. Lookup goes outwards from the caller's scope.
  const CppIndex& cpp = ix_.cpp;
  LookupScope from = ScopeOfFunction(caller);
  std::string written = c.qualifier + c.callee;
  if (c.kind == CallKind::kQualified && !cpp.RegistrationsWritten(written).empty()) return written;
  for (size_t keep = from.parts.size(); keep > 0; --keep) {
    // The innermost namespaces past at::native, as a registration writes them.
    std::string key;
    for (size_t i = 0; i < keep; ++i) {
      if (i < 2 && i < from.parts.size() && from.parts[i] == (i == 0 ? "at" : "native")) continue;
      key += std::string(from.parts[i]) + "::";
    }
    if (key.empty()) break;
    key += c.callee;
    if (!cpp.RegistrationsWritten(key).empty()) return key;
  }
  return c.callee;
}

CallFacts CallFactsReader::ComputeCallFacts(const CppCall& c, const CppFunction& caller, std::string_view body) const {
  const CppIndex& cpp = ix_.cpp;
  const uint32_t from_file = caller.file;
  CallFacts facts;
  // A call through one of the caller's parameters (`FillStub& fill_stub;
  // fill_stub(...)`) calls what the caller's caller passed, never a global
  // of the same name; the stub passed is followed where it is passed
  // (StubReferences).
  if (c.kind == CallKind::kPlain && !caller.params.empty() && !DeclaredType(caller.params, "", c.callee).empty()) {
    facts.elsewhere = true;
    return facts;
  }
  // at::cudnn_convolution is an aten op, not a call into cuDNN itself.
  bool aten_qualified = c.qualifier == "at::" || c.qualifier == "::at::" || c.is_ops_call;
  if (!aten_qualified) facts.library = LibraryOfCall(c.qualifier, c.callee);
  facts.blas_helper = c.qualifier.find("cuda::blas::") != std::string::npos;
  facts.launcher = IsLauncherName(c.callee);
  facts.stub = c.kind != CallKind::kMember && !cpp.StubDeclsNamed(c.callee).empty();
  if (facts.stub) facts.stub_key = StubRegistrationKey(c, caller);
  facts.at_call = c.qualifier == "at::" || c.qualifier == "::at::" || c.is_ops_call;
  // at::cuda::sort, at::cpu::add: the per-backend entry points torchgen
  // writes for each op call that backend's kernel (at::cuda:: also holds
  // helpers, which are not ops).
  static const std::string_view kBackendEntryPoints[] = {
      "at::cuda::", "at::cpu::", "at::compositeexplicitautograd::", "at::compositeimplicitautograd::",
      "at::compositeexplicitautogradnonfunctional::"};
  auto names_op = [&](std::string_view name) {  // x, or x_out / x_outf: x's out= overload
    if (!ix_.yaml.Overloads(name).empty()) return true;
    for (std::string_view suffix : {"_out", "_outf"}) {
      if (EndsWith(name, suffix) && !ix_.yaml.Overloads(name.substr(0, name.size() - suffix.size())).empty())
        return true;
    }
    return false;
  };
  for (std::string_view prefix : kBackendEntryPoints) {
    if (c.qualifier == prefix && names_op(c.callee)) facts.at_call = true;
  }
  // Member calls in CPU kernel files are on Vectorized<T> values
  // (x.neg().exp()), not tensors.
  // A member call is a Tensor method on positive evidence only: its
  // receiver is declared a Tensor, or is an auto holding one
  // (`auto input_shape = input.sizes(); input_shape.slice(1)` is IntArrayRef's).
  facts.method_call = c.kind == CallKind::kMember && cpp.file(c.file).find("/native/cpu/") == std::string::npos &&
                      ReceiverOf(c, caller, body) == Receiver::kTensor;
  if (facts.at_call || facts.method_call) {
    std::string& base = facts.base;
    base = c.callee;
    if (EndsWith(base, "_symint")) base = base.substr(0, base.size() - 7);
    if (EndsWith(base, "_outf")) base = base.substr(0, base.size() - 5) + "_out";
    auto& overloads = facts.overloads;
    overloads = ix_.yaml.Overloads(base);
    if (overloads.empty() && facts.at_call && EndsWith(base, "_out")) {
      // at::x_out(out, ...) is the out= overload of x.
      base = base.substr(0, base.size() - 4);
      for (const NativeFunction* o : ix_.yaml.Overloads(base)) {
        if (o->schema.is_out()) overloads.push_back(o);
      }
      facts.out_call = !overloads.empty();
    }
    for (const NativeFunction* o : overloads) {
      facts.is_op = facts.is_op || (facts.method_call ? o->HasVariant("method") : true);
    }
    for (const NativeFunction* o : overloads) facts.returns_tensor = facts.returns_tensor || ReturnsTensor(*o);
    for (const NativeFunction* o : overloads) {
      if ((o->schema.is_out() && !facts.out_call) || o->autogen_from || !HasWantedKernel(*this, *o)) continue;
      facts.worth = facts.worth || WorthFollowing(*o);
      facts.kept = facts.kept || KeptInTrace(*o);
    }
    if (facts.is_op && c.function >= 0 && !c.is_ops_call) facts.admitted = Admitted(c, caller, body, facts);
  }
  // Helpers: plain, at::native::, at::cuda::, functors.
  bool qualified_elsewhere = c.kind == CallKind::kQualified && c.qualifier.find("native::") == std::string::npos &&
                             c.qualifier.find("cuda::") == std::string::npos &&
                             c.qualifier.find("detail::") == std::string::npos;
  facts.elsewhere = qualified_elsewhere && c.qualifier != "at::" && !NamesNativeCode(c);
  // What the walk reaches through a call into a helper; none of it is asked
  // for what the walk stops at whatever the device (a library call stops it
  // only off the CPU).
  bool stops = facts.launcher || facts.stub || (facts.is_op && (facts.at_call || facts.method_call)) ||
               facts.elsewhere;
  if (stops) return facts;
  facts.targets = c.kind == CallKind::kMember ? ResolveMember(c, caller, body) : ResolveCall(c, from_file, &caller);
  if (c.kind != CallKind::kMember && !facts.targets.empty()) {
    const FunctorsByClass& by_class =
        ix_.Derived<FunctorsByClass>("functors-by-class", [&] { return FunctorsOfClasses(cpp); });
    for (uint32_t id : TemplateArgumentFunctors(cpp, by_class, c, caller, body)) facts.targets.push_back(id);
  }
  for (uint32_t id : facts.targets) {
    const std::string& file = cpp.file(cpp.functions()[id].file);
    if (RunsOnDevice(file, "CPU")) facts.cpu_targets.push_back(id);
    if (RunsOnDevice(file, "CUDA")) facts.cuda_targets.push_back(id);
    if (RunsOnDevice(file, "any")) facts.any_targets.push_back(id);
  }
  if (c.kind == CallKind::kPlain) {
    // rsqrt(x) inside at::native with no native definition of that name:
    // C++ name lookup finds at::rsqrt, the op (x_symint(...) is at::x_symint, op x's).
    std::string name = EndsWith(c.callee, "_symint") ? c.callee.substr(0, c.callee.size() - 7) : c.callee;
    for (const NativeFunction* o : ix_.yaml.Overloads(name)) {
      facts.function_op = facts.function_op || (o->HasVariant("function") && !o->schema.is_out() &&
                                                WorthFollowing(*o) && HasWantedKernel(*this, *o));
    }
    if (facts.function_op) facts.base = name;
    // From a header, an op's name finds at::x by argument-dependent lookup:
    // a kernel of that name defined in a source file (TensorTransformations.h's
    // `roll(t, ...)` and the CPU kernel `roll` of TensorTransformations.cpp)
    // is declared only in the generated headers that source files include.
    if (facts.function_op && IsHeader(cpp.file(from_file))) {
      auto in_source = [&](uint32_t id) { return !IsHeader(cpp.file(cpp.functions()[id].file)); };
      for (auto* list : {&facts.targets, &facts.cpu_targets, &facts.cuda_targets, &facts.any_targets})
        list->erase(std::remove_if(list->begin(), list->end(), in_source), list->end());
    }
  }
  facts.kernel_ops = &OpsWithKernel(c.callee);
  return facts;
}

bool CallFactsReader::NamesNativeCode(const CppCall& c) const {
  // internal::unique_cuda_template(...) written in at::native names
  // at::native::internal::unique_cuda_template: a nested namespace, walked.
  if (StartsWith(c.qualifier, "::") || c.qualifier.find('.') != std::string::npos) return false;
  const std::string written = c.qualifier + c.callee;
  for (uint32_t id : ix_.cpp.FunctionsNamed(c.callee)) {
    const std::string& q = ix_.cpp.functions()[id].qualified;
    if (StartsWith(q, "at::native::") && EndsWith(q, written) && q.size() > written.size() &&
        q[q.size() - written.size() - 1] == ':')
      return true;
  }
  return false;
}

char CallFactsReader::CallResultKind(std::string_view arg) const {
  // `name(...)` or `ns::name(...)` as the whole argument: what name returns.
  size_t open = arg.find('(');
  if (open == std::string_view::npos || open == 0 || arg.back() != ')') return '?';
  std::string_view callee = arg.substr(0, open);
  for (char ch : callee)
    if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '_' && ch != ':') return '?';
  bool at_op = StartsWith(callee, "at::") && callee.find("::", 4) == std::string_view::npos;
  if (size_t colon = callee.rfind("::"); colon != std::string_view::npos) callee.remove_prefix(colon + 2);
  if (at_op) {  // an op's function: what its overloads return
    bool any = false, tensor = true;
    for (const NativeFunction* o : ix_.yaml.Overloads(callee)) {
      any = true;
      tensor = tensor && ReturnsTensor(*o) && o->schema.returns.size() == 1;
    }
    return any && tensor ? 't' : '?';
  }
  // A C++ helper (wrapped_scalar_tensor): by its declared return type, when
  // every definition agrees.
  char kind = 0;
  for (uint32_t id : ix_.cpp.FunctionsNamed(std::string(callee))) {
    const std::string& type = ix_.cpp.functions()[id].return_type;
    char k = IsTensorType(type) && type.find('*') == std::string::npos ? 't' : '?';
    if (kind && k != kind) return '?';
    kind = k;
  }
  return kind ? kind : '?';
}

std::vector<const NativeFunction*> CallFactsReader::Admitted(const CppCall& c, const CppFunction& caller, std::string_view body,
                                                    const CallFacts& facts) const {
  // self.scatter_(dim, index, init_val) with `scalar_t init_val`: scatter_.value,
  // not .src (a Tensor), nor .reduce (one argument more).
  auto args = CallArguments(body, caller.body_begin, c);
  if (!args) return {};
  std::vector<char> kinds;
  for (const std::string& a : *args) {
    char kind = ArgumentKind(caller.params, body, a);
    kinds.push_back(kind == '?' ? CallResultKind(TrimView(a)) : kind);
  }
  std::vector<const NativeFunction*> out;
  for (const NativeFunction* o : facts.overloads) {
    if (o->autogen_from && !facts.out_call) continue;
    if (o->schema.is_out() != facts.out_call || !HasWantedKernel(*this, *o)) continue;
    if (facts.method_call && !o->HasVariant("method")) continue;
    if (!facts.out_call) {
      if (AdmitsArguments(o->schema, facts.method_call, kinds)) out.push_back(o);
      continue;
    }
    // at::x_out(out, args...) writes the out= tensors first, at::x_outf(args..., out) last;
    // the schema lists them last.
    size_t outs = 0;
    for (const auto& a : o->schema.arguments) outs += a.is_out ? 1 : 0;
    if (kinds.size() < outs) continue;
    bool first = !EndsWith(c.callee, "_outf");
    std::vector<char> rest(kinds.begin() + (first ? outs : 0), kinds.end() - (first ? 0 : outs));
    if (AdmitsArguments(o->schema, false, rest)) out.push_back(o);
  }
  return out;
}

bool CallFactsReader::Matters(const CallFacts& facts, const CppCall& c) {
  // FollowCpp's tests, in its order, keeping what can add to the trace.
  if (!facts.library.empty()) return true;  // listed off the CPU, and followed on it
  if (facts.launcher) return false;
  if (facts.stub) return true;
  if (facts.at_call || facts.method_call) {
    if (facts.is_op) return facts.returns_tensor || facts.kept;
    if (facts.method_call && facts.targets.empty()) return false;
  }
  if (facts.elsewhere) return false;
  return !facts.targets.empty() || (c.kind == CallKind::kPlain && facts.function_op);
}


const std::vector<const NativeFunction*>& CallFactsReader::OpsWithKernel(const std::string& kernel) const {
  // Built once per index: every trace asks, and the table is the same.
  using OpsByKernel = std::unordered_map<std::string, std::vector<const NativeFunction*>>;
  const OpsByKernel& by_kernel = ix_.Derived<OpsByKernel>("ops-by-kernel", [&] {
    OpsByKernel out;
    for (const auto& fn : ix_.yaml.functions()) {
      for (const auto& [key, name] : fn.dispatch) {
        if (key == "CPU" || key == "CUDA") out[name].push_back(&fn);
      }
    }
    return out;
  });
  static const std::vector<const NativeFunction*> kNone;
  auto it = by_kernel.find(kernel);
  return it == by_kernel.end() ? kNone : it->second;
}

std::vector<CppCall> CallFactsReader::StubReferences(const CppFunction& f) const {
  std::vector<CppCall> out;
  for (uint32_t r : ix_.cpp.StubReferencesIn(f.file, f.body_begin, f.body_end)) {
    const CppStubRef& ref = ix_.cpp.stub_refs()[r];
    bool dup = false;
    for (const auto& c : out) dup = dup || c.callee == ref.stub;
    if (dup) continue;
    CppCall call;
    call.callee = ref.stub;
    call.kind = CallKind::kPlain;
    call.file = ref.file;
    call.line = ref.line;
    out.push_back(call);
  }
  return out;
}

// --- bottom-up: a C++ function or kernel name ------------------------------

bool QueryResolver::TryKernel(std::string_view q) {
  std::string name(q);
  if (StartsWith(name, "at::native::")) name = name.substr(12);
  const CppIndex& cpp = ix_.cpp;
  if (cpp.FunctionsNamed(name).empty() && cpp.LaunchesOfKernel(name).empty()) return false;
  t_.target_kind = "kernel";
  t_.target_name = name;
  // Reverse dispatch table: C++ name -> ops whose dispatch names it.
  std::unordered_multimap<std::string, const NativeFunction*> by_kernel;
  for (const auto& fn : ix_.yaml.functions()) {
    for (const auto& [key, kernel] : fn.dispatch) {
      if (KeyWanted(key)) by_kernel.emplace(kernel, &fn);
    }
  }
  struct Up {
    std::string name;
    std::string chain;
  };
  std::deque<Up> work{{name, name}};
  std::set<std::string> seen{name};
  size_t budget = 200;
  int found = 0;
  while (!work.empty() && budget-- > 0) {
    Up u = work.front();
    work.pop_front();
    auto [b, e] = by_kernel.equal_range(u.name);
    if (b != e) {
      for (auto it = b; it != e; ++it) {
        t_.notes.push_back("reached from " + it->second->name + ": " + u.chain);
        ops_.AddOp(it->second, "forward", "", 0);
        ++found;
      }
      continue;
    }
    auto push = [&](const std::string& next, const std::string& via) {
      if (next.empty() || !seen.insert(next).second) return;
      work.push_back({next, u.chain + " <- " + via});
    };
    auto holder_of = [&](int32_t fn_index, const std::string& macro, uint32_t file, uint32_t line) {
      if (fn_index >= 0) {
        const CppFunction& f = cpp.functions()[static_cast<size_t>(fn_index)];
        push(f.name, DisplayName(f) + " (" + cpp.file(f.file) + ":" + std::to_string(f.line) + ")");
      } else if (!macro.empty()) {
        for (const auto& use : cpp.macro_uses()) {
          if (use.macro == macro && use.function >= 0) {
            const CppFunction& f = cpp.functions()[static_cast<size_t>(use.function)];
            push(f.name, macro + " (" + cpp.file(file) + ":" + std::to_string(line) + ") <- " + DisplayName(f) + " (" +
                             cpp.file(f.file) + ":" + std::to_string(f.line) + ")");
          }
        }
      }
    };
    for (uint32_t l : cpp.LaunchesOfKernel(u.name)) {
      const CppLaunch& launch = cpp.launches()[l];
      holder_of(launch.function, launch.macro, launch.file, launch.line);
    }
    for (const auto& reg : cpp.registrations()) {
      if (StripTemplateAndNamespace(reg.target) != u.name) continue;
      for (uint32_t c : cpp.CallersOf(reg.stub)) {
        const CppCall& call = cpp.calls()[c];
        holder_of(call.function, call.macro, call.file, call.line);
      }
      // A stub named, not called: passed to a helper (impl_func_cum_ops(..., cumsum_stub)) or to a
      // file-scope macro that defines the op's kernel (CREATE_UNARY_TORCH_IMPL_FUNC(sigmoid_out, sigmoid_stub)).
      for (const CppStubRef& ref : cpp.stub_refs()) {
        if (ref.stub != reg.stub) continue;
        if (int32_t fn = cpp.FunctionAt(ref.file, ref.line); fn >= 0) {
          holder_of(fn, "", ref.file, ref.line);
          continue;
        }
        for (const auto& use : cpp.macro_uses()) {
          if (use.file == ref.file && use.line == ref.line && use.function < 0 && !use.first_arg.empty()) {
            push(use.first_arg, use.macro + "(" + use.first_arg + ", " + reg.stub + ") (" + cpp.file(use.file) + ":" +
                                    std::to_string(use.line) + ")");
          }
        }
      }
    }
    for (uint32_t c : cpp.CallersOf(u.name)) {
      const CppCall& call = cpp.calls()[c];
      if (call.kind == CallKind::kMember) continue;
      holder_of(call.function, call.macro, call.file, call.line);
    }
  }
  if (found == 0) {
    t_.not_found.push_back({"op", "no native_functions.yaml op reaches " + name + " through its callers in the index"});
    for (uint32_t id : cpp.FunctionsNamed(name)) {
      const CppFunction& f = cpp.functions()[id];
      t_.notes.push_back(std::string(DefFormName(f.form)) + " " + f.qualified + " at " + cpp.file(f.file) + ":" +
                         std::to_string(f.line));
    }
  }
  return true;
}

}  // namespace optrace
