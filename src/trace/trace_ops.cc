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
#include <cctype>
#include <unordered_set>

#include "base/text.h"
#include "trace/trace_internal.h"

namespace optrace {

namespace {

bool IsCudaFile(std::string_view path) {
  return EndsWith(path, ".cu") || EndsWith(path, ".cuh") || path.find("/cuda/") != std::string_view::npos ||
         path.find("/cudnn/") != std::string_view::npos || path.find("/miopen/") != std::string_view::npos;
}

bool IsCompositeKey(std::string_view key) { return StartsWith(key, "Composite"); }

// Where kernels and their helpers live. The walk stays out of ATen's
// dispatcher, core and registration machinery, which every op passes
// through and which says nothing about one op.
bool InNativeCode(std::string_view file) {
  return StartsWith(file, "aten/src/ATen/native/") || StartsWith(file, "aten/src/ATen/cuda/") ||
         StartsWith(file, "aten/src/ATen/cudnn/") || StartsWith(file, "aten/src/ATen/miopen/") ||
         StartsWith(file, "aten/src/ATen/ScalarOps") || StartsWith(file, "aten/src/ATen/ExpandUtils");
}

std::string DeviceOfKey(std::string_view key) {
  if (key == "CUDA") return "CUDA";
  if (key == "CPU") return "CPU";
  return "any";
}

// A registration's device, folded to the two the tracer follows.
std::string RegistrationDevice(const std::string& device) {
  if (device == "CUDA" || device == "HIP" || device == "MPS" || device == "unknown" || device == "none") return device;
  return "CPU";  // CPU, DEFAULT, AVX2, AVX512, VSX, ZVECTOR, SVE256: CPU capabilities
}

bool ReturnsTensor(const NativeFunction& fn) {
  for (const auto& r : fn.schema.returns) {
    if (r.type.find("Tensor") != std::string::npos) return true;
  }
  return false;
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
bool HasWantedKernel(const Tracer& t, const NativeFunction& fn) {
  if (fn.structured_delegate) return true;
  for (const auto& [key, kernel] : fn.dispatch) {
    if (t.KeyWanted(key)) return true;
  }
  return false;
}

bool WorthFollowing(const NativeFunction& fn) {
  if (IsPlumbing(fn)) return false;
  if (!ReturnsTensor(fn)) return false;
  bool has_tensor_input = false;
  for (const auto& a : fn.schema.arguments) has_tensor_input = has_tensor_input || a.type.find("Tensor") != std::string::npos;
  if (!has_tensor_input) return false;  // factories: empty, zeros, arange ...
  for (const auto& r : fn.schema.returns) {
    if (r.annotation == "a" || (!r.annotation.empty() && r.annotation.back() != '!')) return false;  // views
  }
  return true;
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

std::string StripTemplateAndNamespace(std::string s) {
  if (size_t lt = s.find('<'); lt != std::string::npos) s = s.substr(0, lt);
  if (size_t c = s.rfind("::"); c != std::string::npos) s = s.substr(c + 2);
  return s;
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

}  // namespace

std::string LibraryOfCall(std::string_view qualifier, std::string_view callee) {
  // Most calls name no library: every test below needs a qualifier of five
  // characters or more, or a callee starting with c, m or r.
  if (qualifier.size() < 5 && (callee.empty() || (callee[0] != 'c' && callee[0] != 'm' && callee[0] != 'r')))
    return "";
  if (StartsWith(callee, "cudnn") || qualifier.find("cudnn_frontend") != std::string_view::npos) return "cuDNN";
  if (StartsWith(callee, "cublasLt")) return "cuBLASLt";
  if (StartsWith(callee, "cublas") || qualifier.find("cuda::blas::") != std::string_view::npos) return "cuBLAS";
  if (StartsWith(callee, "cufft")) return "cuFFT";
  if (StartsWith(callee, "cusolver") || qualifier.find("cuda::solver::") != std::string_view::npos) return "cuSOLVER";
  if (StartsWith(callee, "cusparse") || qualifier.find("cuda::sparse::") != std::string_view::npos) return "cuSPARSE";
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

void Tracer::AddOp(const NativeFunction* fn, const std::string& role, const std::string& from, int depth) {
  if (!fn || !seen_ops_.insert({fn->name, role}).second) return;
  queue_.push_back({fn, role, from, depth});
}

void Tracer::AddOpsByBaseName(const std::string& base, const std::string& role, const std::string& from, int depth,
                              size_t arity) {
  auto overloads = ix_.yaml.Overloads(base);
  std::vector<const NativeFunction*> picked;
  for (const NativeFunction* fn : overloads) {
    if (fn->schema.is_out() || fn->autogen_from || !HasWantedKernel(*this, *fn)) continue;
    if (arity != SIZE_MAX) {
      size_t required = 0, total = fn->schema.arguments.size();
      for (const auto& a : fn->schema.arguments) required += a.default_value ? 0 : 1;
      if (arity < required || arity > total) continue;
    }
    picked.push_back(fn);
  }

  for (const NativeFunction* fn : picked) AddOp(fn, role, from, depth);
}

bool Tracer::KeyWanted(std::string_view key) const {
  switch (opt_.device) {
    case TraceOptions::Device::kAll: return true;
    case TraceOptions::Device::kCuda: return key == "CUDA" || IsCompositeKey(key);
    case TraceOptions::Device::kCpu: return key == "CPU" || IsCompositeKey(key);
    default: return key == "CPU" || key == "CUDA" || IsCompositeKey(key);
  }
}

void Tracer::ExpandQueuedOps() {
  while (!queue_.empty()) {
    PendingOp p = queue_.front();
    queue_.pop_front();
    OpStep op;
    op.name = p.fn->name;
    op.role = p.role;
    op.yaml = p.fn;
    op.reached_from = p.reached_from;
    op.depth = p.depth;
    ExpandOp(op, p.depth);
    t_.ops.push_back(std::move(op));
  }
}

void Tracer::ExpandOp(OpStep& op, int depth) {
  const NativeFunction& fn = *op.yaml;
  helper_keys_.clear();
  call_keys_.clear();
  if (fn.structured_delegate) {
    const NativeFunction* out = FindOp(*fn.structured_delegate);
    if (out) {
      op.notes.push_back("structured_delegate: " + out->name + " (its kernels run, through the structured meta/impl)");
      AddOp(out, op.role, op.name, depth);
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
      }
      break;
    }
  }
  for (const auto& [key, kernel] : fn.dispatch) {
    if (!KeyWanted(key)) continue;
    AddImplementations(op, fn, key, kernel, depth);
  }
  if (!fn.ufunc_inner_loop.empty()) AddUfuncKernels(op, fn);
  if (fn.implicit_composite) {
    op.notes.push_back("no dispatch: in native_functions.yaml, so CompositeImplicitAutograd: the C++ function " +
                       fn.dispatch.front().second + " runs on every backend, and autograd differentiates the ops it calls");
  }
}

Tracer::WalkCache& Tracer::Cache() const {
  if (!cache_) {
    std::string key = "cpp-walk-" + std::to_string(static_cast<int>(opt_.device));
    cache_ = ix_.Derived<std::unique_ptr<WalkCache>>(key, [] { return std::make_unique<WalkCache>(); }).get();
  }
  return *cache_;
}

std::vector<uint32_t> Tracer::DefinitionsFor(const std::string& name, const NativeFunction& fn,
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

std::vector<uint32_t> Tracer::FindDefinitions(const std::string& name, const NativeFunction& fn,
                                              const std::string& key, DefForm form) const {
  std::vector<uint32_t> all;
  for (uint32_t id : ix_.cpp.FunctionsNamed(name)) {
    const CppFunction& f = ix_.cpp.functions()[id];
    if (f.form != form) continue;
    const std::string& file = ix_.cpp.file(f.file);
    if (!StartsWith(file, "aten/src/ATen/")) continue;
    all.push_back(id);
  }
  if (all.size() <= 1) return all;
  // Device: a CUDA kernel lives in CUDA sources; CPU and composite ones don't.
  std::vector<uint32_t> by_device;
  for (uint32_t id : all) {
    bool cuda = IsCudaFile(ix_.cpp.file(ix_.cpp.functions()[id].file));
    if ((key == "CUDA") == cuda) by_device.push_back(id);
  }
  if (!by_device.empty()) all = by_device;
  // Namespaces: native kernels live in at::native (not at::cuda::, at::meta::...).
  std::vector<uint32_t> native;
  for (uint32_t id : all) {
    const std::string& q = ix_.cpp.functions()[id].qualified;
    if (q.find("native::") != std::string::npos || q == name) native.push_back(id);
  }
  if (!native.empty()) all = native;
  if (all.size() <= 1 || form != DefForm::kFunction) return all;
  // Overloads: the parameter kinds must match the schema's, in order.
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
  if (!exact.empty()) return exact;
  if (!same_arity.empty()) return same_arity;
  return all;
}

void Tracer::AddImplementations(OpStep& op, const NativeFunction& fn, const std::string& key,
                                const std::string& kernel, int depth) {
  if (StartsWith(kernel, "ufunc_")) {
    ImplStep impl;
    impl.key = key;
    impl.function = kernel;
    impl.form = "ufunc";
    op.impls.push_back(impl);  // located by AddUfuncKernels (the ufunc header)
    return;
  }
  DefForm form = fn.structured ? DefForm::kImplFunc : DefForm::kFunction;
  std::vector<uint32_t> defs = DefinitionsFor(kernel, fn, key, form);
  if (defs.empty() && form == DefForm::kImplFunc) defs = DefinitionsFor(kernel, fn, key, DefForm::kFunction);
  if (defs.empty() && fn.structured) {
    // TORCH_IMPL_FUNC written by a macro: CREATE_UNARY_TORCH_IMPL_FUNC(sigmoid_out, sigmoid_stub).
    if (const CppMacroUse* use = MacroGeneratedImpl(kernel)) {
      CppFunction synthetic;
      synthetic.name = kernel;
      synthetic.qualified = kernel;
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
      FollowCpp(op, UINT32_MAX, DeviceOfKey(key), depth, &synthetic);
      return;
    }
  }
  if (defs.empty()) {
    ImplStep impl;
    impl.key = key;
    impl.function = kernel;
    impl.form = "generated";
    op.impls.push_back(impl);
    std::string why = fn.autogen_from ? "autogen'd by " + *fn.autogen_from + ": torchgen generates it at build time"
                                      : "no definition of " + kernel + " found in aten/src/ATen";
    if (!fn.autogen_from) t_.not_found.push_back({"implementation", fn.name + " " + key + ": " + why});
    else op.notes.push_back(key + ": " + why);
    return;
  }
  if (defs.size() > 1 && form == DefForm::kFunction) {
    op.notes.push_back(key + ": " + std::to_string(defs.size()) + " definitions of " + kernel +
                       " match this schema's parameter kinds; all are listed");
  }
  for (uint32_t id : defs) {
    const CppFunction& f = ix_.cpp.functions()[id];
    ImplStep impl;
    impl.key = key;
    impl.function = f.name;
    impl.form = DefFormName(f.form);
    impl.where = CppLoc(f.file, f.line, 4);
    impl.params = f.params;
    for (uint32_t d : ix_.cpp.DtypeDispatchesIn(id)) {
      for (const auto& dt : ix_.cpp.dtype_dispatches()[d].dtypes) {
        if (std::find(impl.dtypes.begin(), impl.dtypes.end(), dt) == impl.dtypes.end()) impl.dtypes.push_back(dt);
      }
    }
    op.impls.push_back(impl);
    FollowCpp(op, id, DeviceOfKey(key), depth);
    // Only for the op asked about: operator inference on text is a guess
    // about operand types, kept where it matters most and noted.
    if (IsCompositeKey(key) && depth == 0 && WorthFollowing(fn)) AddOperatorOps(op, f, depth);
  }
}

void Tracer::AddOperatorOps(OpStep& op, const CppFunction& f, int depth) {
  // A composite written with C++ operators on tensors ((x1 * x2).sum(),
  // x / norm) calls mul, div, ... through them. Inferred from the text, so
  // only the tensor-only overload is taken and the inference is noted.
  int lines = static_cast<int>(f.body_end) - static_cast<int>(f.body_begin) + 1;
  if (lines <= 0 || lines > 200) return;
  std::string body = ix_.Snippet(ix_.cpp.file(f.file), static_cast<int>(f.body_begin), lines);
  std::vector<std::string> found;
  for (const std::string& name : OperatorOps(body, false)) {
    if (std::find(found.begin(), found.end(), name) != found.end()) continue;
    found.push_back(name);
    const NativeFunction* fn = FindOp(name + ".Tensor");
    if (!fn) fn = FindOp(name);
    if (fn) AddOp(fn, op.role, op.name, depth + 1);
  }
  if (!found.empty()) {
    std::string list;
    for (const auto& n : found) list += (list.empty() ? "" : ", ") + n;
    op.notes.push_back(f.name + " uses C++ operators on tensors (inferred: " + list + ")");
  }
}

void Tracer::AddUfuncKernels(OpStep& op, const NativeFunction& fn) {
  // ufunc_inner_loop: "Generic: add (AllAndComplex, ...)": torchgen generates
  // the CPU kernel and CUDA functors from aten/src/ATen/native/ufunc/<name>.h.
  std::string loop_name;
  for (const auto& [k, v] : fn.ufunc_inner_loop) {
    std::string n = v.substr(0, v.find(' '));
    if (loop_name.empty()) loop_name = n;
  }
  if (loop_name.empty()) return;
  std::string header = "aten/src/ATen/native/ufunc/" + loop_name + ".h";
  Location where;
  for (uint32_t id : ix_.cpp.FunctionsNamed(loop_name)) {
    const CppFunction& f = ix_.cpp.functions()[id];
    if (ix_.cpp.file(f.file) == header) {
      where = CppLoc(f.file, f.line, 3);
      break;
    }
  }
  if (!where.valid()) where = Loc(header, 1, 0);
  for (auto& impl : op.impls) {
    if (impl.form == "ufunc") impl.where = where;
  }
  // Which functors torchgen emits (torchgen/dest/ufunc.py): binary ops with a
  // scalar specialization get OnSelf/OnOther variants, every op CUDAFunctor.
  int tensor_inputs = 0;
  for (const auto& a : fn.schema.arguments) tensor_inputs += (!a.is_out && SchemaTypeKind(a.type) == 'T') ? 1 : 0;
  std::vector<std::string> functors;
  if (tensor_inputs == 2) functors = {"CUDAFunctorOnSelf_" + loop_name, "CUDAFunctorOnOther_" + loop_name};
  functors.push_back("CUDAFunctor_" + loop_name);
  if (KeyWanted("CUDA")) {
    for (const auto& name : functors) {
      KernelStep k;
      k.name = name;
      k.device = "CUDA";
      k.where = where;
      k.launch = "gpu_kernel";
      k.launcher = "ufunc codegen: UfuncCUDA_" + loop_name + ".cu (generated by torchgen/dest/ufunc.py)";
      k.path = {"ufunc_" + loop_name + "_CUDA", name};
      op.kernels.push_back(k);
    }
  }
  op.notes.push_back("ufunc_inner_loop: torchgen generates ufunc_" + loop_name + "_CPU/_CUDA from " + header +
                     " at build time (UfuncCPU_" + loop_name + ".cpp, UfuncCUDA_" + loop_name + ".cu)");
}

const CppMacroUse* Tracer::MacroGeneratedImpl(const std::string& kernel) const {
  const CppIndex& cpp = ix_.cpp;
  // The function-like macros whose #define body writes a TORCH_IMPL_FUNC,
  // then their file-scope uses in the same file: MACRO(kernel, ...).
  for (uint32_t i : cpp.MacroUsesOf("TORCH_IMPL_FUNC")) {
    const CppMacroUse& writer = cpp.macro_uses()[i];
    if (writer.within_macro.empty()) continue;
    for (uint32_t u : cpp.MacroUsesOf(writer.within_macro)) {
      const CppMacroUse& use = cpp.macro_uses()[u];
      if (use.function < 0 && use.within_macro.empty() && use.file == writer.file && use.first_arg == kernel)
        return &use;
    }
  }
  return nullptr;
}

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
};

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

std::vector<uint32_t> Tracer::ResolveCall(const CppCall& c, uint32_t from_file) const {
  // Definitions a call may reach, never guessing among unrelated ones.
  const CppIndex& cpp = ix_.cpp;
  std::vector<uint32_t> cands;
  if (c.kind == CallKind::kFunctor) {
    for (uint32_t id : cpp.FunctionsNamed("operator()")) {
      if (cpp.functions()[id].qualified.find(c.callee + "::operator()") != std::string::npos) cands.push_back(id);
    }
  } else {
    for (uint32_t id : cpp.FunctionsNamed(c.callee)) {
      const CppFunction& f = cpp.functions()[id];
      if (f.form != DefForm::kFunction) continue;
      if (!InNativeCode(cpp.file(f.file))) continue;
      cands.push_back(id);
    }
  }
  if (cands.empty()) return cands;
  std::vector<uint32_t> same_file, same_dir;
  const std::string& ff = cpp.file(from_file);
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

Tracer::CallFacts Tracer::ComputeCallFacts(const CppCall& c, uint32_t from_file) const {
  const CppIndex& cpp = ix_.cpp;
  CallFacts facts;
  // at::cudnn_convolution is an aten op, not a call into cuDNN itself.
  bool aten_qualified = c.qualifier == "at::" || c.qualifier == "::at::" || c.is_ops_call;
  if (!aten_qualified) facts.library = LibraryOfCall(c.qualifier, c.callee);
  facts.blas_helper = c.qualifier.find("cuda::blas::") != std::string::npos;
  facts.launcher = IsLauncherName(c.callee);
  facts.stub = c.kind != CallKind::kMember && !cpp.StubDeclsNamed(c.callee).empty();
  facts.at_call = c.qualifier == "at::" || c.qualifier == "::at::" || c.is_ops_call;
  // Member calls in CPU kernel files are on Vectorized<T> values
  // (x.neg().exp()), not tensors.
  facts.method_call = c.kind == CallKind::kMember && cpp.file(c.file).find("/native/cpu/") == std::string::npos;
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
    }
    for (const NativeFunction* o : overloads) {
      facts.is_op = facts.is_op || (facts.method_call ? o->HasVariant("method") : true);
    }
    for (const NativeFunction* o : overloads) facts.returns_tensor = facts.returns_tensor || ReturnsTensor(*o);
    facts.out_call = !overloads.empty() && overloads.front()->schema.is_out();  // at::x_out / x_outf
    for (const NativeFunction* o : overloads) {
      if ((o->schema.is_out() && !facts.out_call) || o->autogen_from || !HasWantedKernel(*this, *o)) continue;
      facts.worth = facts.worth || WorthFollowing(*o);
    }
  }
  // Helpers: plain, at::native::, at::cuda::, functors.
  bool qualified_elsewhere = c.kind == CallKind::kQualified && c.qualifier.find("native::") == std::string::npos &&
                             c.qualifier.find("cuda::") == std::string::npos &&
                             c.qualifier.find("detail::") == std::string::npos;
  facts.elsewhere = qualified_elsewhere && c.qualifier != "at::";
  // What the walk reaches through a call into a helper; none of it is asked
  // for what the walk stops at whatever the device (a library call stops it
  // only off the CPU).
  bool stops = facts.launcher || facts.stub || (facts.is_op && (facts.at_call || facts.method_call)) ||
               facts.method_call || c.kind == CallKind::kMember || facts.elsewhere;
  if (stops) return facts;
  facts.targets = ResolveCall(c, from_file);
  for (uint32_t id : facts.targets) {
    if (!IsCudaFile(cpp.file(cpp.functions()[id].file))) facts.cpu_targets.push_back(id);
  }
  if (c.kind == CallKind::kPlain) {
    // rsqrt(x) inside at::native with no native definition of that name:
    // C++ name lookup finds at::rsqrt, the op.
    for (const NativeFunction* o : ix_.yaml.Overloads(c.callee)) {
      facts.function_op = facts.function_op || (o->HasVariant("function") && !o->schema.is_out() &&
                                                WorthFollowing(*o) && HasWantedKernel(*this, *o));
    }
  }
  facts.kernel_ops = &OpsWithKernel(c.callee);
  return facts;
}

const Tracer::FunctionWalk& Tracer::WalkOf(uint32_t fn, const CppFunction& f) {
  WalkCache& cache = Cache();
  // A move keeps the calls' pointers into stub_refs valid: the buffer moves with it.
  return Remember(cache.mu, cache.walks, fn, [&] { return MakeWalk(fn, f); });
}

Tracer::FunctionWalk Tracer::MakeWalk(uint32_t fn, const CppFunction& f) const {
  FunctionWalk w;
  const CppIndex& cpp = ix_.cpp;
  w.holder = DisplayName(f);
  w.native = InNativeCode(cpp.file(f.file));
  w.launches = cpp.LaunchesIn(fn);
  std::vector<uint32_t> macro_calls;
  for (uint32_t u : cpp.MacroUsesIn(fn)) {
    const CppMacroUse& use = cpp.macro_uses()[u];
    for (uint32_t l : cpp.LaunchesInMacro(use.macro)) w.launches.push_back(l);
    for (uint32_t c : cpp.CallsInMacro(use.macro)) macro_calls.push_back(c);
  }
  // A stub passed by name to a helper (impl_func_cum_ops(self, dim, result,
  // cumsum_stub)) is called inside it: treat the reference as the call.
  w.stub_refs = StubReferences(f);
  for (uint32_t c : cpp.CallsIn(fn)) w.calls.push_back(&cpp.calls()[c]);
  for (const CppCall& ref : w.stub_refs) w.calls.push_back(&ref);
  for (uint32_t c : macro_calls) w.calls.push_back(&cpp.calls()[c]);
  // Only the calls the walk does something with, wherever it stands: most
  // are metadata, member calls, launchers or calls into code the walk does
  // not enter, and FollowCpp would read each of them once per op.
  std::vector<const CppCall*> kept;
  for (const CppCall* c : w.calls) {
    CallFacts facts = ComputeCallFacts(*c, f.file);
    if (!Matters(facts, *c)) continue;
    kept.push_back(c);
    w.facts.push_back(std::move(facts));
  }
  w.calls = std::move(kept);
  return w;  // no copy: moved or elided, so the pointers into stub_refs hold
}

bool Tracer::Matters(const CallFacts& facts, const CppCall& c) {
  // FollowCpp's tests, in its order, keeping what can add to the trace.
  if (!facts.library.empty()) return true;  // listed off the CPU, and followed on it
  if (facts.launcher) return false;
  if (facts.stub) return true;
  if (facts.at_call || facts.method_call) {
    if (facts.is_op) return facts.returns_tensor;
    if (facts.method_call) return false;
  }
  if (c.kind == CallKind::kMember || facts.elsewhere) return false;
  return !facts.targets.empty() || (c.kind == CallKind::kPlain && facts.function_op);
}

void Tracer::FollowCpp(OpStep& op, uint32_t start, const std::string& device, int depth,
                       const CppFunction* synthetic) {
  const CppIndex& cpp = ix_.cpp;
  // Nodes in the order they were reached; the unexpanded ones, from `next`
  // on, are the breadth-first queue.
  std::deque<WalkNode> nodes;
  size_t next = 0;
  std::unordered_set<uint32_t> visited{start};
  nodes.push_back({start, -1, "", "", 0, device});
  size_t budget = 150;

  auto add_kernel = [&](const CppLaunch& l, int32_t at, const std::string& holder) {
    const WalkNode& node = nodes[static_cast<size_t>(at)];
    bool cuda = IsCudaFile(cpp.file(l.file));
    if (node.device == "CPU" && cuda) return;
    // Name and place first: most launches a walk meets again are listed already.
    std::string name;
    const CppFunction* defined = nullptr;  // the __global__ definition of a <<<>>> kernel
    if (l.kind == LaunchKind::kTripleChevron) {
      name = l.kernel;
      std::vector<uint32_t> defs;
      for (uint32_t id : cpp.FunctionsNamed(l.kernel)) {
        if (cpp.functions()[id].form == DefForm::kGlobalKernel) defs.push_back(id);
      }
      uint32_t best = UINT32_MAX;
      for (uint32_t id : defs) {
        if (cpp.functions()[id].file == l.file) best = id;
      }
      if (best == UINT32_MAX && defs.size() == 1) best = defs[0];
      if (best != UINT32_MAX) defined = &cpp.functions()[best];
    } else if (l.kind == LaunchKind::kJiterator) {
      name = l.kernel.empty() ? holder : l.kernel;
    } else {
      name = l.functors.empty() ? holder : StripTemplateAndNamespace(l.functors.front());
    }
    const std::string& where_file = cpp.file(defined ? defined->file : l.file);
    for (const auto& existing : op.kernels) {
      if (existing.name == name && existing.where.file == where_file) return;  // one entry per kernel
    }
    KernelStep k;
    k.name = std::move(name);
    k.device = cuda ? "CUDA" : "CPU";
    k.launch = LaunchKindName(l.kind);
    k.launcher = l.macro.empty() ? l.launcher : l.macro;
    k.launch_site = CppLoc(l.file, l.line, 2);
    k.path = PathOf(nodes, at);
    k.path.push_back(holder);
    if (l.kind == LaunchKind::kTripleChevron) {
      if (!l.macro.empty()) k.launch = "macro";
      k.where = defined ? CppLoc(defined->file, defined->line, 2) : k.launch_site;
    } else if (l.kind == LaunchKind::kJiterator) {
      k.where = k.launch_site;
      k.path.insert(k.path.end(), l.functors.begin(), l.functors.end());
    } else {
      k.where = k.launch_site;
      for (size_t i = 1; i < l.functors.size(); ++i) k.path.push_back(StripTemplateAndNamespace(l.functors[i]));
    }
    op.kernels.push_back(std::move(k));
  };

  auto add_library = [&](const std::string& lib, const CppCall& c, int32_t at, const std::string& holder) {
    std::string call = c.qualifier + c.callee;
    for (auto& existing : op.libraries) {
      if (existing.name == lib) {
        if (std::find(existing.calls.begin(), existing.calls.end(), call) == existing.calls.end() &&
            existing.calls.size() < 12)
          existing.calls.push_back(call);
        return;
      }
    }
    LibraryStep l;
    l.name = lib;
    l.where = CppLoc(c.file, c.line, 2);
    l.calls.push_back(call);
    l.path = PathOf(nodes, at);
    l.path.push_back(holder);
    op.libraries.push_back(std::move(l));
  };

  // `stub`: reached through that dispatch stub's registration, "" for a call.
  auto enqueue = [&](const std::vector<uint32_t>& ids, int32_t at, const std::string& holder, const std::string& stub,
                     const std::string& dev) {
    int hops = nodes[static_cast<size_t>(at)].hops + 1;
    if (hops > opt_.kernel_depth) return;
    for (uint32_t id : ids) {
      if (!visited.insert(id).second) continue;
      nodes.push_back({id, at, holder, stub, hops, dev});
    }
  };

  while (next < nodes.size() && budget-- > 0) {
    const int32_t at = static_cast<int32_t>(next++);
    const WalkNode& node = nodes[static_cast<size_t>(at)];  // a deque: stays put while nodes are added
    const uint32_t fn = node.fn;
    const int hops = node.hops;
    const std::string& node_device = node.device;
    // UINT32_MAX: a definition written by a macro, given as `synthetic`.
    const CppFunction& f = fn == UINT32_MAX ? *synthetic : cpp.functions()[fn];
    const FunctionWalk* walk;
    if (fn == UINT32_MAX) {
      synthetic_walk_ = MakeWalk(fn, f);
      walk = &synthetic_walk_;
    } else {
      walk = &WalkOf(fn, f);
    }
    const std::string& holder = walk->holder;
    if (hops > 0) {
      const std::string& file = cpp.file(f.file);
      bool dup = false;
      if (!helper_keys_.insert(PlaceKey("", file, f.line)).second) {  // maybe listed: look
        for (const auto& h : op.helpers) dup = dup || (h.where.file == file && h.where.line == static_cast<int>(f.line));
      }
      if (!dup) {
        ImplStep h;
        h.key = node_device;
        h.function = holder;
        h.form = f.form == DefForm::kFunction ? "helper" : DefFormName(f.form);
        h.where = CppLoc(f.file, f.line, 2);
        h.params = f.params;
        op.helpers.push_back(h);
      }
    }
    for (uint32_t l : walk->launches) add_kernel(cpp.launches()[l], at, holder);
    for (size_t ci = 0; ci < walk->calls.size(); ++ci) {
      const CppCall& c = *walk->calls[ci];
      const CallFacts& facts = walk->facts[ci];
      if (!facts.library.empty() && node_device != "CPU") {
        add_library(facts.library, c, at, holder);
        if (!facts.blas_helper) continue;  // follow at::cuda::blas helpers
      }
      if (facts.launcher) continue;
      // Dispatch stubs: x_stub(device, ...) -> every registration for the device.
      if (facts.stub) {
        // One StubStep per stub; a shared implementation (CPU, CUDA: f) walks
        // it once per device and adds that device's registrations.
        size_t stub_index = op.stubs.size();
        for (size_t i = 0; i < op.stubs.size(); ++i) {
          if (op.stubs[i].name == c.callee) stub_index = i;
        }
        if (stub_index == op.stubs.size()) {
          StubStep fresh;
          fresh.name = c.callee;
          fresh.called_from = holder;
          fresh.call_site = CppLoc(c.file, c.line, 1);
          for (uint32_t d : cpp.StubDeclsNamed(c.callee)) {
            const StubDecl& decl = cpp.stub_decls()[d];
            Location loc = CppLoc(decl.file, decl.line, 1);
            if (decl.kind == StubDeclKind::kDeclare && !fresh.declared.valid()) fresh.declared = loc;
            if (decl.kind == StubDeclKind::kDefine && !fresh.defined.valid()) fresh.defined = loc;
          }
          op.stubs.push_back(std::move(fresh));
        }
        {
          StubStep& s = op.stubs[stub_index];
          for (uint32_t r : cpp.RegistrationsOf(c.callee)) {
            const StubRegistration& reg = cpp.registrations()[r];
            bool known = false;
            for (const auto& have : s.registrations) {
              known = known || (have.where.file == cpp.file(reg.file) && have.where.line == static_cast<int>(reg.line));
            }
            if (known) continue;
            std::string dev = RegistrationDevice(reg.device);
            bool wanted = node_device == "any" ? (dev == "CUDA" ? KeyWanted("CUDA") : dev == "CPU" ? KeyWanted("CPU") : opt_.device == TraceOptions::Device::kAll)
                                               : (dev == node_device || opt_.device == TraceOptions::Device::kAll);
            if (!wanted) continue;
            StubRegistrationStep rs;
            rs.device = reg.device;
            rs.macro = reg.macro;
            rs.target = reg.target;
            rs.where = CppLoc(reg.file, reg.line, 1);
            std::vector<uint32_t> targets;
            for (uint32_t id : cpp.FunctionsNamed(StripTemplateAndNamespace(reg.target))) {
              if (cpp.functions()[id].file == reg.file) targets.push_back(id);
            }
            if (targets.empty()) {
              CppCall pseudo;
              pseudo.callee = StripTemplateAndNamespace(reg.target);
              targets = ResolveCall(pseudo, reg.file);
            }
            if (!targets.empty()) {
              const CppFunction& tf = cpp.functions()[targets.front()];
              rs.target_definition = CppLoc(tf.file, tf.line, 2);
            }
            s.registrations.push_back(rs);
            enqueue(targets, at, holder, c.callee, dev == "CUDA" ? "CUDA" : dev == "CPU" ? "CPU" : dev);
          }
        }
        continue;
      }
      // aten ops called: at::x(...), at::_ops::x::call(...), tensor.x() methods.
      if (facts.at_call || facts.method_call) {
        if (facts.is_op && !facts.returns_tensor) continue;  // size(), dim(), numel(): metadata, no kernel
        if (facts.is_op) {
          // Calls are followed near the implementation; set-up calls
          // (empty, contiguous, copy_: IsPlumbing) are listed, not traced.
          bool follow = hops <= 3 && walk->native && facts.worth;
          const std::string& base = facts.base;
          const std::string& file = cpp.file(c.file);
          bool dup = false;
          if (!call_keys_.insert(PlaceKey(base, file, c.line)).second) {  // maybe listed: look
            for (const auto& e : op.calls) {
              dup = dup || (e.op == base && e.where.line == static_cast<int>(c.line) && e.where.file == file);
            }
          }
          if (!dup) {
            OpCallStep call;
            call.op = base;
            call.device = node_device;
            call.from = holder;
            call.where = CppLoc(c.file, c.line, 1);
            call.how = c.is_ops_call     ? "at::_ops::" + base + "::call"
                       : facts.method_call ? c.qualifier + base + "()"
                                           : "at::" + base;
            op.calls.push_back(std::move(call));
          }
          if (follow && depth + 1 <= opt_.depth) {
            if (facts.out_call) {
              for (const NativeFunction* o : facts.overloads) AddOp(o, op.role, op.name, depth + 1);
            } else {
              AddOpsByBaseName(base, op.role, op.name, depth + 1);
            }
          }
          continue;
        }
        if (facts.method_call) continue;
      }
      if (c.kind == CallKind::kMember) continue;
      if (facts.elsewhere) continue;
      if (facts.targets.empty() && c.kind == CallKind::kPlain && hops <= 3 && depth + 1 <= opt_.depth &&
          facts.function_op) {
        OpCallStep call;
        call.op = c.callee;
        call.device = node_device;
        call.from = holder;
        call.where = CppLoc(c.file, c.line, 1);
        call.how = c.callee + "() (at::" + c.callee + " by name lookup)";
        call_keys_.insert(PlaceKey(call.op, call.where.file, c.line));
        op.calls.push_back(call);
        AddOpsByBaseName(c.callee, op.role, op.name, depth + 1);
      }
      // A direct call to another op's kernel (index_select_cpu_ calling
      // index_select_out_cpu_) runs that op's implementation: record the op.
      if (!facts.targets.empty() && depth + 1 <= opt_.depth) {
        for (const NativeFunction* other : *facts.kernel_ops) {
          if (other != op.yaml) AddOp(other, op.role, op.name, depth + 1);
        }
      }
      enqueue(node_device == "CPU" ? facts.cpu_targets : facts.targets, at, holder, "", node_device);
    }
  }
}

const std::vector<const NativeFunction*>& Tracer::OpsWithKernel(const std::string& kernel) const {
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

std::vector<CppCall> Tracer::StubReferences(const CppFunction& f) const {
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

bool Tracer::TryKernel(std::string_view q) {
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
        AddOp(it->second, "forward", "", 0);
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
