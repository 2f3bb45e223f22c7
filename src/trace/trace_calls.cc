// What one C++ call is (CallFactsReader): a vendor library call, a dispatch
// stub and the key of its registrations, a TensorIterator launcher, an aten
// op (at::x, x.method() on a Tensor, a plain call of a function op) with the
// overloads its arguments admit, or a helper and the definitions it resolves
// to by C++ lookup from the caller's scope. Apart from the walk
// (trace_walk.cc) because these answers depend only on the call and the
// traced devices, never on where the walk stands: WalkFacts computes them
// once per function and keeps them with the index.
#include <algorithm>
#include <cctype>
#include <set>
#include <unordered_set>

#include "base/text.h"
#include "cpp/cpp_params.h"
#include "trace/code_scope.h"
#include "trace/cpp_operands.h"
#include "trace/trace_internal.h"
#include "trace/walk_bounds.h"

namespace optrace {

namespace {

bool IsLauncherName(std::string_view name) {
  static const std::unordered_set<std::string_view> kLaunchers = {"gpu_kernel",
                                                                  "gpu_kernel_with_scalars",
                                                                  "gpu_kernel_nocast",
                                                                  "opmath_gpu_kernel_with_scalars",
                                                                  "opmath_symmetric_gpu_kernel_with_scalars",
                                                                  "gpu_kernel_multiple_outputs",
                                                                  "gpu_reduce_kernel",
                                                                  "jitted_gpu_kernel",
                                                                  "opmath_jitted_gpu_kernel_with_scalars",
                                                                  "gpu_kernel_impl",
                                                                  "gpu_kernel_impl_nocast",
                                                                  "launch_kernel",
                                                                  "launch_vectorized_kernel",
                                                                  "launch_legacy_kernel",
                                                                  "launch_unrolled_kernel",
                                                                  "cpu_kernel",
                                                                  "cpu_kernel_vec",
                                                                  "cpu_serial_kernel",
                                                                  "binary_kernel_reduce",
                                                                  "binary_kernel_reduce_vec"};
  return kLaunchers.count(name) > 0;
}

// --- what a member call is made on -----------------------------------------
//
// x.index(), x.data(), x.eq() are aten ops only when x is a Tensor:
// iter.device().index() is Device::index, sizes.data() IntArrayRef::data. The
// receiver's type comes from its declaration (a parameter, a local) or, for a
// call's result, from the method returning it.

// Methods of Tensor (and of what it holds) that return no Tensor and are no aten op.
bool IsNonTensorMethod(std::string_view m) {
  static const std::unordered_set<std::string_view> kMethods = {"device",         "options",
                                                                "dtype",          "scalar_type",
                                                                "sizes",          "strides",
                                                                "sym_sizes",      "sym_strides",
                                                                "layout",         "data_ptr",
                                                                "const_data_ptr", "mutable_data_ptr",
                                                                "key_set",        "suggest_memory_format",
                                                                "storage",        "names",
                                                                "get_device",     "vec",
                                                                "begin",          "end",
                                                                "toScalarType",   "unsafeGetTensorImpl",
                                                                "sym_numel",      "sym_size",
                                                                "sym_stride",     "nbytes",
                                                                "itemsize",       "element_size",
                                                                "ndimension",     "has_names",
                                                                "is_cuda",        "is_cpu",
                                                                "type",           "str",
                                                                "c_str",          "index_type",
                                                                "shape",          "common_dtype",
                                                                "input_dtype",    "dtype_or_default"};
  return kMethods.count(m) > 0;
}

// A declared type as overload resolution compares it: cv, references and
// the at::/c10::/std:: qualifiers dropped ("const at::Tensor&" is "Tensor").
std::string PlainType(std::string type) {
  for (std::string_view drop : {"const ", "volatile ", "at::", "c10::", "std::"})
    for (size_t at = type.find(drop); at != std::string::npos; at = type.find(drop)) type.erase(at, drop.size());
  type.erase(std::remove_if(type.begin(), type.end(), [](char ch) { return ch == '&' || ch == ' '; }), type.end());
  return type;
}

// C++ overload resolution prefers an exact match to a conversion: where the
// call passes variables of declared types, the candidates taking each as
// that very type win over those it only converts to
// (`at::native::split(self, split_size, dim)` with an int64_t split_size
// is split's int64_t overload, not the IntArrayRef one an int64_t also
// builds). Unchanged unless some candidates match exactly and others not.
std::vector<uint32_t> ExactOverloads(const CppIndex& cpp, const CppCall& c, const CppFunction& caller,
                                     std::string_view body, std::vector<uint32_t> cands) {
  if (cands.size() < 2) return cands;
  auto args = CallArguments(body, caller.body_begin, c);
  if (!args) return cands;
  std::vector<std::string> types;  // "" where the argument's type is not read
  bool any = false;
  for (const std::string& arg : *args) {
    std::string type = IsIdentifier(arg) ? PlainType(DeclaredType(caller.params, body, arg)) : "";
    if (type.find("auto") != std::string::npos) type.clear();
    any = any || !type.empty();
    types.push_back(std::move(type));
  }
  if (!any) return cands;
  std::vector<uint32_t> exact;
  for (uint32_t id : cands) {
    const CppFunction& f = cpp.functions()[id];
    std::vector<CppParameter> params = ParseCppParameters(f.params);
    bool matches = params.size() >= types.size();
    for (size_t k = 0; matches && k < types.size(); ++k)
      matches = types[k].empty() || PlainType(DeclaredType(f.params, "", params[k].name)) == types[k];
    if (matches) exact.push_back(id);
  }
  return exact.empty() || exact.size() == cands.size() ? cands : exact;
}

// Whether an argument of declared type `arg` can never become a parameter
// of declared type `param`: an integer (a dim) is no Dimname -- the
// named-tensor overloads at::native defines beside an op's name
// (`Tensor all(const Tensor&, Dimname, bool)`) take no int64_t dim.
bool NeverConverts(const std::string& arg, const std::string& param) {
  static const std::set<std::string_view> kIntegers = {"int64_t", "int", "int32_t", "long", "size_t", "uint64_t"};
  return kIntegers.count(arg) > 0 && (param == "Dimname" || param == "DimnameList");
}

// The candidates of a call that can take every argument whose type the
// caller declares: C++ lookup never picks a function an argument cannot
// convert to, so a plain call none is left for is the op argument-dependent
// lookup finds (at::x, FollowCall's name lookup).
std::vector<uint32_t> ConvertibleCandidates(const CppIndex& cpp, const CppCall& c, const CppFunction& caller,
                                            std::string_view body, std::vector<uint32_t> cands) {
  if (cands.empty()) return cands;
  auto args = CallArguments(body, caller.body_begin, c);
  if (!args) return cands;
  std::vector<std::string> types;
  for (const std::string& arg : *args)
    types.push_back(IsIdentifier(arg) ? PlainType(DeclaredType(caller.params, body, arg)) : "");
  std::vector<uint32_t> kept;
  for (uint32_t id : cands) {
    const CppFunction& f = cpp.functions()[id];
    std::vector<CppParameter> params = ParseCppParameters(f.params);
    bool takes = true;
    for (size_t k = 0; takes && k < types.size() && k < params.size(); ++k)
      takes = !NeverConverts(types[k], PlainType(DeclaredType(f.params, "", params[k].name)));
    if (takes) kept.push_back(id);
  }
  return kept;
}

// Thrust's and CUB's vocabulary, which launches nothing: value types and
// iterators (thrust::pair, cub::TransformInputIterator), their factories
// and accessors (make_*, get, tie, *_cast), function objects handed to an
// algorithm (thrust::maximum, cub::Sum), execution policies (thrust::cuda::par)
// and compile-time helpers (cub::get_num_bits). Only the algorithms
// (thrust::sort_by_key, cub::DeviceReduce::Sum, at::cuda::cub::radix_sort_pairs)
// run device work.
bool IsLibraryVocabulary(std::string_view qualifier, std::string_view callee) {
  static const std::set<std::string_view> kNames = {
      "pair",       "tuple",         "complex",      "tie",        "get",        "swap",         "distance",
      "device_ptr", "identity",      "plus",         "minus",      "multiplies", "maximum",      "minimum",
      "greater",    "greater_equal", "less",         "less_equal", "equal_to",   "not_equal_to", "logical_and",
      "logical_or", "negate",        "get_num_bits", "par",        "seq",        "host",         "device"};
  if (callee.empty() || kNames.count(callee) > 0 || StartsWith(callee, "make_")) return true;
  if (EndsWith(callee, "_iterator") || EndsWith(callee, "_cast") || EndsWith(callee, "Iterator")) return true;
  // CUB's algorithms are members of its Device* classes; a capitalised name
  // elsewhere (cub::Sum, cub::Equality, cub::FutureValue) is a type.
  const bool type_name = std::isupper(static_cast<unsigned char>(callee[0])) != 0;
  return type_name && qualifier.find("::Device") == std::string_view::npos;
}

}  // namespace

bool IsLibrarySetupCall(std::string_view callee, std::string_view written) {
  if (written.find("cudnn_frontend::") != std::string_view::npos) return true;  // builders, heuristics, errata
  for (std::string_view api :
       {"cudnn", "cublasLt", "cublas", "cusolverDn", "cusolverSp", "cusolver", "cufft", "cusparse"}) {
    if (!StartsWith(callee, api)) continue;
    // A CamelCase word of the name after the prefix (cudnnSetStream,
    // cudnnDropoutGetStatesSize, cudnnRNNSetClip).
    const std::string_view name = callee.substr(api.size());
    for (std::string_view setup : {"Create", "Destroy", "Set", "Get"})
      for (size_t at = name.find(setup); at != std::string_view::npos; at = name.find(setup, at + 1)) {
        const size_t end = at + setup.size();
        if (end == name.size() || std::isupper(static_cast<unsigned char>(name[end])) || name[end] == '_') return true;
      }
    return false;
  }
  return false;
}

std::string LibraryOfCall(std::string_view qualifier, std::string_view callee) {
  // Most calls name no library: every test below needs a qualifier of five
  // characters or more, or a callee starting with c, m or r.
  if (qualifier.size() < 5 && (callee.empty() || (callee[0] != 'c' && callee[0] != 'm' && callee[0] != 'r'))) return "";
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
  if (qualifier.find("cub::") != std::string_view::npos) return IsLibraryVocabulary(qualifier, callee) ? "" : "CUB";
  if (qualifier.find("thrust::") != std::string_view::npos)
    return IsLibraryVocabulary(qualifier, callee) ? "" : "Thrust";
  if (StartsWith(callee, "magma_") || StartsWith(callee, "magma")) return "MAGMA";
  if (qualifier.find("cutlass::") != std::string_view::npos) return "cutlass";
  if (qualifier.find("pytorch_flash::") != std::string_view::npos || qualifier.find("flash::") == 0 ||
      StartsWith(callee, "mha_fwd") || StartsWith(callee, "mha_bwd") || StartsWith(callee, "mha_varlen"))
    return "flash-attention";
  if (StartsWith(callee, "run_mem_eff") || qualifier.find("mem_eff") != std::string_view::npos)
    return "mem-eff-attention";
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
      has("List<c10::optional<Tensor>>") || has("List<std::optional<Tensor>>") ||
      has("List<::std::optional<at::Tensor>>") || has("IOptTensorListRef"))
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

std::vector<uint32_t> CallFactsReader::VisibleMacros(const std::string& macro, uint32_t use_file,
                                                     uint32_t use_line) const {
  // A macro means what the #define the preprocessor saw in that translation
  // unit says: the using file's own -- the last one written before the use,
  // when the file defines it again after an #undef (SMALL_INDEX of
  // index_add, then of index_select) --, else the one header defining it;
  // when several headers do, the index cannot tell which is included, so none.
  const CppIndex& cpp = ix_.cpp;
  std::vector<uint32_t> own, headers;
  uint32_t header_file = UINT32_MAX;
  bool one_header = true;
  for (uint32_t d : cpp.MacrosNamed(macro)) {
    const CppMacro& m = cpp.macros()[d];
    if (m.file == use_file && m.line <= use_line) {
      if (!own.empty() && cpp.macros()[own.back()].line < m.line) own.clear();
      if (own.empty() || cpp.macros()[own.back()].line == m.line) own.push_back(d);
    }
    if (!IsHeader(cpp.file(m.file))) continue;
    headers.push_back(d);
    one_header = one_header && (header_file == UINT32_MAX || header_file == m.file);
    header_file = m.file;
  }
  if (!own.empty()) return own;
  if (one_header) return headers;
  return {};
}

std::vector<uint32_t> CallFactsReader::ResolveCall(const CppCall& c, uint32_t from_file,
                                                   const CppFunction* caller) const {
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
      if (reachable(f, c.kind == CallKind::kQualified ? std::string_view(c.qualifier) : std::string_view(),
                    ScopeOfFunction(f)))
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
  if (!same_dir.empty() && same_dir.size() <= kMaxSameFolderDefinitions) return same_dir;
  // Elsewhere: only when every candidate sits in one file (overloads or
  // specializations of one helper), or the name is unique.
  uint32_t file0 = cpp.functions()[cands[0]].file;
  bool one_file = true;
  for (uint32_t id : cands) one_file = one_file && cpp.functions()[id].file == file0;
  if (one_file && cands.size() <= kMaxOneFileDefinitions) return cands;
  return {};
}

std::vector<uint32_t> CallFactsReader::ResolveMember(const CppCall& c, const CppFunction& caller,
                                                     std::string_view body) const {
  // obj.m(...) that is no aten op: the member functions m of obj's class --
  // by its declared type (params.matmul_ih on a CellParams), or, when that is
  // a template parameter (Sorter sorter; sorter.sort(...)), the classes of
  // the caller's own file defining m (the functors it is instantiated with).
  const CppIndex& cpp = ix_.cpp;
  std::string_view q = c.qualifier;
  size_t dot = std::min(q.find('.'), q.find("->"));
  if (dot == std::string_view::npos || dot == 0) return {};
  std::string_view recv = q.substr(0, dot);
  if (recv == "this") return {};
  // A member called on an object made in the same expression
  // (KronImpl(self, other).kron()): a member of that class, if it is one.
  if (EndsWith(recv, "()")) return MembersOfClass(c.callee, recv.substr(0, recv.size() - 2), caller);
  std::string type = DeclaredTypeIn(caller.params, body, recv);
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
  if (!by_type.empty()) return by_type.size() <= kMaxMemberDefinitions ? by_type : std::vector<uint32_t>{};
  if (known_class || library_type || same_file.empty() || same_file.size() > kMaxMemberDefinitions) return {};
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

std::vector<uint32_t> CallFactsReader::MembersOfClass(std::string_view member, std::string_view cls,
                                                      const CppFunction& caller) const {
  const CppIndex& cpp = ix_.cpp;
  std::vector<uint32_t> out;
  if (!IsIdentifier(cls)) return out;
  const std::string& from_file = cpp.file(caller.file);
  for (uint32_t id : cpp.FunctionsNamed(member)) {
    const CppFunction& f = cpp.functions()[id];
    if (f.form != DefForm::kFunction || !InNativeCode(cpp.file(f.file)) || !SameBuild(cpp.file(f.file), from_file))
      continue;
    LookupScope scope = ScopeOfFunction(f);
    if (!scope.parts.empty() && scope.parts.back() == cls) out.push_back(id);
  }
  return out.size() <= kMaxMemberDefinitions ? out : std::vector<uint32_t>{};
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
    method = WithoutSymInt(method);  // new_zeros_symint(): new_zeros
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
  std::string type = DeclaredTypeIn(caller.params, body, recv);
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
  // thrust::sort(thrust::host, ...) sorts on the CPU (cpp_records.h host_policy).
  if (!aten_qualified && !c.host_policy) facts.library = LibraryOfCall(c.qualifier, c.callee);
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
    if (c.qualifier == prefix && names_op(c.callee)) facts.at_call = facts.backend_entry = true;
  }
  // Member calls in CPU kernel files are on Vectorized<T> values
  // (x.neg().exp()), not tensors.
  // A member call is a Tensor method on positive evidence only: its
  // receiver is declared a Tensor, or is an auto holding one
  // (`auto input_shape = input.sizes(); input_shape.slice(1)` is IntArrayRef's).
  facts.method_call = c.kind == CallKind::kMember && !IsCpuKernelFile(cpp.file(c.file)) &&
                      ReceiverOf(c, caller, body) == Receiver::kTensor;
  if (facts.at_call || facts.method_call) {
    std::string& base = facts.base;
    base = c.callee;
    base = WithoutSymInt(base);
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
  bool stops = facts.launcher || facts.stub || (facts.is_op && (facts.at_call || facts.method_call)) || facts.elsewhere;
  if (stops) return facts;
  facts.targets = c.kind == CallKind::kMember ? ResolveMember(c, caller, body) : ResolveCall(c, from_file, &caller);
  if (c.kind == CallKind::kPlain) facts.targets = ConvertibleCandidates(cpp, c, caller, body, std::move(facts.targets));
  facts.targets = ExactOverloads(cpp, c, caller, body, std::move(facts.targets));
  if (c.kind != CallKind::kMember && !facts.targets.empty()) {
    const FunctorsByClass& by_class =
        ix_.Derived<FunctorsByClass>("functors-by-class", [&] { return FunctorsOfClasses(cpp); });
    for (uint32_t id : TemplateArgumentFunctors(cpp, by_class, c, caller, body)) facts.targets.push_back(id);
    std::vector<uint32_t> callees = facts.targets;
    for (uint32_t callee : callees)
      for (uint32_t id : HandedObjectMethods(cpp, c, caller, body, callee))
        if (std::find(facts.targets.begin(), facts.targets.end(), id) == facts.targets.end())
          facts.targets.push_back(id);
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
    std::string name(WithoutSymInt(c.callee));
    for (const NativeFunction* o : ix_.yaml.Overloads(name)) {
      facts.function_op = facts.function_op || (o->HasVariant("function") && !o->schema.is_out() &&
                                                WorthFollowing(*o) && HasWantedKernel(*this, *o));
    }
    // In a CPU kernel file such a call is mostly on Vectorized or scalar
    // values (`[](Vectorized<scalar_t> a, Vectorized<scalar_t> b) { return
    // maximum(a, b); }`: at::vec::maximum, by argument-dependent lookup), as
    // its member calls are: the op only on positive evidence, an argument
    // known to be a Tensor (HistogramKernel.cpp's `aminmax(input, 0)`).
    if (facts.function_op && IsCpuKernelFile(cpp.file(c.file))) {
      const auto args = CallArguments(body, caller.body_begin, c);
      facts.function_op = args && std::any_of(args->begin(), args->end(), [&](const std::string& a) {
                            return WrittenKind(caller.params, body, a) == 't';
                          });
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
    if (!IsIdentChar(ch) && ch != ':') return '?';
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

char CallFactsReader::WrittenKind(std::string_view params, std::string_view body, std::string_view arg) const {
  char kind = ArgumentKind(params, body, arg);
  if (kind == '?') kind = CallResultKind(TrimView(arg));
  // An `auto` local whose initializer's value is a Tensor (`auto factor = c ? norm : at::empty(...)`).
  const std::string_view name = TrimView(arg);
  if (kind == '?' && !name.empty() && std::all_of(name.begin(), name.end(), IsIdentChar) &&
      IsTensorOperand(params, body, name, 0))
    kind = 't';
  return kind;
}

std::vector<const NativeFunction*> CallFactsReader::Admitted(const CppCall& c, const CppFunction& caller,
                                                             std::string_view body, const CallFacts& facts) const {
  // self.scatter_(dim, index, init_val) with `scalar_t init_val`: scatter_.value,
  // not .src (a Tensor), nor .reduce (one argument more).
  auto args = CallArguments(body, caller.body_begin, c);
  if (!args) return {};
  std::vector<char> kinds;
  for (const std::string& a : *args) kinds.push_back(WrittenKind(caller.params, body, a));
  std::vector<std::pair<const NativeFunction*, size_t>> admitted;  // with its list conversions
  for (const NativeFunction* o : facts.overloads) {
    if (o->autogen_from && !facts.out_call) continue;
    if (o->schema.is_out() != facts.out_call || !HasWantedKernel(*this, *o)) continue;
    if (facts.method_call && !o->HasVariant("method")) continue;
    if (!facts.out_call) {
      if (AdmitsArguments(o->schema, facts.method_call, kinds, o->CppRequiredArguments()))
        admitted.push_back({o, ListConversions(o->schema, facts.method_call, kinds)});
      continue;
    }
    // at::x_out(out, args...) writes the out= tensors first, at::x_outf(args..., out) last;
    // the schema lists them last.
    size_t outs = 0;
    for (const auto& a : o->schema.arguments) outs += a.is_out ? 1 : 0;
    if (kinds.size() < outs) continue;
    bool first = !EndsWith(c.callee, "_outf");
    std::vector<char> rest(kinds.begin() + (first ? outs : 0), kinds.end() - (first ? 0 : outs));
    if (AdmitsArguments(o->schema, false, rest, o->CppRequiredArguments()))
      admitted.push_back({o, ListConversions(o->schema, false, rest)});
  }
  // C++ overload resolution: a number passed as itself beats one wrapped in a list.
  return FewestConversions(admitted);
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

}  // namespace optrace
