// Evaluation is by structure, then by vocabulary: `||`/`or`, `&&`/`and`,
// `!`/`not` and parentheses are parsed; each remaining atom is matched
// against what the assumptions say about tensors and builds (method names
// such as is_cuda/is_sparse/is_nested, device and dtype comparisons,
// layout, configuration macros, library predicates named after cuDNN,
// MIOpen or oneDNN). The vocabulary is PyTorch's own API, never an op
// name: the same words decide conv, RNN, attention and norm paths alike.
#include "trace/trace_typical.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <functional>
#include <optional>

#include "base/text.h"
#include "cpp/enum_members.h"
#include "index/index.h"
#include "trace/walk_bounds.h"

namespace optrace {

namespace {

Tri Of(bool b) { return b ? Tri::kTrue : Tri::kFalse; }

bool Has(std::string_view s, std::string_view w) { return s.find(w) != std::string_view::npos; }

// `name` as a whole name: no identifier character follows it (`is_cpu` is
// not `is_cpu_scalar(1)`, which asks whether an operand is a wrapped number).
bool HasName(std::string_view s, std::string_view name) {
  for (size_t at = s.find(name); at != std::string_view::npos; at = s.find(name, at + 1)) {
    const size_t end = at + name.size();
    if (end == s.size() || !IsIdentChar(s[end])) return true;
  }
  return false;
}

// Whether the whole of s is wrapped in one pair of parentheses.
bool Wrapped(std::string_view s) {
  if (s.size() < 2 || s.front() != '(' || s.back() != ')') return false;
  bool wrapped = true;  // until the first parenthesis closes before the end
  ScanCode(s, "(", ")", [&](size_t i, int depth, bool quoted) {
    if (!quoted && depth == 0 && i + 1 != s.size()) wrapped = false;
  });
  return wrapped;
}

// Splits at top-level occurrences of `op` (outside brackets and quotes).
std::vector<std::string_view> SplitTop(std::string_view s, std::string_view op) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  const bool word = std::isalpha(static_cast<unsigned char>(op[0]));
  ScanCode(s, "([{", ")]}", [&](size_t i, int depth, bool quoted) {
    if (quoted || depth != 0 || i < start || s[i] != op[0] || s.substr(i, op.size()) != op) return;
    if (word && ((i > 0 && !std::isspace(static_cast<unsigned char>(s[i - 1]))) ||
                 (i + op.size() < s.size() && !std::isspace(static_cast<unsigned char>(s[i + op.size()]))))) {
      return;
    }
    parts.push_back(s.substr(start, i - start));
    start = i + op.size();
  });
  parts.push_back(s.substr(start));
  return parts;
}

std::string DtypeWord(std::string_view s) {
  static const std::pair<const char*, const char*> kNames[] = {
      {"BFloat16", "bfloat16"},   {"bfloat16", "bfloat16"}, {"ComplexFloat", "complex64"},
      {"complex64", "complex64"}, {"Half", "float16"},      {"float16", "float16"},
      {"kFloat", "float32"},      {"Float", "float32"},     {"float32", "float32"},
      {"Double", "float64"},      {"float64", "float64"},   {"Long", "int64"},
      {"int64", "int64"},         {"kInt", "int32"},        {"int32", "int32"},
      {"kBool", "bool"},          {"torch.bool", "bool"}};
  for (const auto& [word, dtype] : kNames)
    if (Has(s, word)) return dtype;
  return "";
}

// The device a literal names: "cuda", 'cpu', kCUDA, DeviceType::CPU ->
// "cuda"/"cpu"/"other"; "" when it is no literal (a call, a name).
std::string DeviceLiteral(std::string_view item) {
  item = TrimView(item);
  const bool quoted = item.size() >= 2 && (item.front() == '"' || item.front() == '\'') && item.back() == item.front();
  if (quoted) item = item.substr(1, item.size() - 2);
  else if (item.starts_with("c10::")) item.remove_prefix(5);
  if (!quoted) {
    if (item.starts_with("DeviceType::")) item.remove_prefix(12);
    else if (item.size() > 1 && item[0] == 'k' && std::isupper(static_cast<unsigned char>(item[1])))
      item.remove_prefix(1);
    else return "";
  }
  if (item.empty() || !std::all_of(item.begin(), item.end(), [](char c) { return IsIdentChar(c); })) return "";
  std::string lower = Lower(item);
  return lower == "cuda" || lower == "cpu" ? lower : "other";
}

// `x.device.type in ("cuda", "xpu")` / `not in [...]`: the assumed device
// is in the list of literals, or not (a list holding a call or a name it
// does not match stays open).
Tri DeviceMembership(std::string_view atom, const Assumptions& a) {
  size_t at = atom.find(" not in ");
  const bool negated = at != std::string_view::npos;
  if (!negated) at = atom.find(" in ");
  if (at == std::string_view::npos) return Tri::kUnknown;
  // A tensor's device (`x.device.type`), never a parameter named device
  // (a factory function's `device in (...)` is the caller's choice).
  std::string_view lhs = TrimView(atom.substr(0, at));
  if (!lhs.ends_with(".device.type") && !lhs.ends_with(".device")) return Tri::kUnknown;
  std::string_view list = TrimView(atom.substr(at + (negated ? 8 : 4)));
  if (list.size() < 2 || !((list.front() == '(' && list.back() == ')') || (list.front() == '[' && list.back() == ']') ||
                           (list.front() == '{' && list.back() == '}')))
    return Tri::kUnknown;
  bool found = false, open = false;
  for (std::string_view item : SplitTop(list.substr(1, list.size() - 2), ",")) {
    if (TrimView(item).empty()) continue;
    std::string device = DeviceLiteral(item);
    if (device.empty()) open = true;
    if (device == Lower(Name(a.device))) found = true;
  }
  if (found) return Of(!negated);
  return open ? Tri::kUnknown : Of(negated);
}

// A comparison `a == b` / `a != b` about the device or the dtype.
// Whether `side` names the device of a TensorIterator's operand:
// `iter.device(1)`. A tensor's own `value.device()` may be a CPU scalar's
// (fill_.Tensor's 0-dim value): it says nothing.
bool IsTensorsDevice(std::string_view side) {
  side = TrimView(side);
  while (side.size() > 2 && side.front() == '(' && side.back() == ')') side = TrimView(side.substr(1, side.size() - 2));
  const size_t at = side.rfind(".device(");
  if (at == std::string_view::npos || at == 0 || !side.ends_with(")")) return false;
  const std::string_view index = side.substr(at + 8, side.size() - at - 9);
  return !index.empty() &&
         std::all_of(index.begin(), index.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
}

// Two operands' devices compared (Copy.cu's `dst_device == src_device`, each
// `iter.device(i)`): the operands of the typical call are on the traced device.
Tri SameDevice(std::string_view atom) {
  const bool ne = Has(atom, "!=");
  const size_t at = atom.find(ne ? "!=" : "==");
  if (at == std::string_view::npos || !IsTensorsDevice(atom.substr(0, at)) || !IsTensorsDevice(atom.substr(at + 2)))
    return Tri::kUnknown;
  return Of(!ne);
}

// `x.is_same(x)`, `x.is_alias_of(x)`: one tensor is itself (a view read
// as what it views, trace/local_values.h).
Tri SameTensor(std::string_view atom) {
  atom = TrimView(atom);
  for (std::string_view ask : {".is_same(", ".is_alias_of("}) {
    const size_t at = atom.find(ask);
    if (at == std::string_view::npos || !atom.ends_with(")")) continue;
    std::string_view of = TrimView(atom.substr(at + ask.size(), atom.size() - at - ask.size() - 1));
    if (of.starts_with("*")) of = TrimView(of.substr(1));
    if (IsIdentifier(of) && of == TrimView(atom.substr(0, at))) return Tri::kTrue;
  }
  return Tri::kUnknown;
}

// `x.is_same(y)` where x holds the tensor the call allocates (kFreshTensor)
// and y is one of the op's inputs, or the other way round: false; where one
// holds the name of the other (an in-place op's out= tensor is its `self`): true.
Tri FreshOrAliasedTensor(std::string_view atom, const Assumptions& a) {
  atom = TrimView(atom);
  const size_t at = atom.find(".is_same(");
  if (at == std::string_view::npos || !atom.ends_with(")")) return Tri::kUnknown;
  const std::string_view left = TrimView(atom.substr(0, at));
  std::string_view right = TrimView(atom.substr(at + 9, atom.size() - at - 10));
  if (right.starts_with("*")) right = TrimView(right.substr(1));
  if (!IsIdentifier(left) || !IsIdentifier(right) || left == right) return Tri::kUnknown;
  auto held = [&](std::string_view name) -> std::string_view {
    const auto it = a.defaults.find(std::string(name));
    return it == a.defaults.end() ? std::string_view() : std::string_view(it->second);
  };
  auto fresh_beside = [&](std::string_view fresh, std::string_view input) {
    const std::string_view v = held(fresh);
    if (!v.starts_with(kFreshTensor)) return false;
    std::string_view names = v.substr(kFreshTensor.size());
    while (!names.empty()) {
      names = TrimView(names);
      const size_t end = std::min(names.find(' '), names.size());
      if (names.substr(0, end) == input) return true;
      names.remove_prefix(end);
    }
    return false;
  };
  if (fresh_beside(left, right) || fresh_beside(right, left)) return Tri::kFalse;
  if (held(left) == right || held(right) == left) return Tri::kTrue;
  return Tri::kUnknown;
}

Tri Comparison(std::string_view atom, const Assumptions& a) {
  if (Tri member = DeviceMembership(atom, a); member != Tri::kUnknown) return member;
  if (Tri same = SameTensor(atom); same != Tri::kUnknown) return same;
  if (Tri fresh = FreshOrAliasedTensor(atom, a); fresh != Tri::kUnknown) return fresh;
  if (Tri same = SameDevice(atom); same != Tri::kUnknown) return same;
  bool ne = Has(atom, "!=") || Has(atom, " is not ");
  if (!ne && !Has(atom, "==") && !Has(atom, " is ")) return Tri::kUnknown;
  if (Has(atom, "layout")) {
    if (Has(atom, "Strided") || Has(atom, "strided")) return ne ? Tri::kFalse : Tri::kTrue;
    if (Has(atom, "Sparse") || Has(atom, "sparse") || Has(atom, "Mkldnn") || Has(atom, "Jagged")) return Of(ne);
  }
  if (Has(atom, "device") || Has(atom, "DeviceType") || Has(atom, "kCUDA") || Has(atom, "kCPU")) {
    bool cuda = Has(atom, "CUDA") || Has(atom, "cuda");
    bool cpu = Has(atom, "CPU") || Has(atom, "cpu");
    bool other = Has(atom, "MPS") || Has(atom, "XPU") || Has(atom, "HIP") || Has(atom, "Meta") || Has(atom, "mps") ||
                 Has(atom, "xpu") || Has(atom, "meta") || Has(atom, "Lazy") || Has(atom, "PrivateUse1");
    if (cuda != cpu && !other) return Of((cuda ? a.device == CodeDevice::kCuda : a.device == CodeDevice::kCpu) != ne);
    if (other && !cuda && !cpu) return Of(ne);
  }
  if (Has(atom, "dtype") || Has(atom, "scalar_type") || Has(atom, "ScalarType") || Has(atom, "kFloat") ||
      Has(atom, "kHalf") || Has(atom, "kBFloat16") || Has(atom, "kDouble")) {
    std::string d = DtypeWord(atom);
    if (!d.empty()) return Of((d == a.dtype) != ne);
  }
  return Tri::kUnknown;
}

// Build configuration: #if conditions, and the context's cuDNN switches
// (`globalContext().userEnabledCuDNN()`, `getCUDAHooks().compiledWithCuDNN()`)
// that library checks open with. USE_LINALG_SOLVER is defined for every
// CUDA build with cuSOLVER and every ROCm build
// (cuda/linalg/BatchLinearAlgebraLib.h).
Tri Configuration(std::string_view atom, const Assumptions& a) {
  // Which cuDNN release a build has (`CUDNN_VERSION < 8900`,
  // `getCUDAHooks().versionCuDNN() >= 5110L`) is no more told than which
  // toolkit: that it is a cuDNN build decides that cuDNN is there, not
  // its version.
  if ((Has(atom, "CUDNN_VERSION") || Has(atom, "versionCuDNN()")) && atom.find_first_of("<>") != std::string_view::npos)
    return Tri::kUnknown;
  if ((Has(atom, "CUDNN_VERSION") || Has(atom, "versionCuDNN()")) && (Has(atom, "==") || Has(atom, "!=")))
    return Tri::kUnknown;
  if (Has(atom, "CUDNN") || Has(atom, "userEnabledCuDNN()") || Has(atom, "compiledWithCuDNN()"))
    return Of(a.cudnn && !a.rocm);
  // MIOpen is ROCm's library: only a ROCm build has it (`getCUDAHooks().compiledWithMIOpen()`).
  if (Has(atom, "ROCM") || Has(atom, "HIP") || Has(atom, "compiledWithMIOpen()")) return Of(a.rocm);
  if (Has(atom, "MPS") || Has(atom, "XPU") || Has(atom, "C10_MOBILE") || Has(atom, "FBCODE") || Has(atom, "VULKAN") ||
      Has(atom, "METAL") || Has(atom, "_WIN32") || Has(atom, "__APPLE__"))
    return Tri::kFalse;
  if (Has(atom, "AT_MKLDNN_ENABLED") || Has(atom, "AT_MKL_ENABLED") || Has(atom, "USE_CUDA") ||
      Has(atom, "AT_CUDA_ENABLED") || Has(atom, "USE_FLASH_ATTENTION") || Has(atom, "USE_MEM_EFF_ATTENTION") ||
      Has(atom, "AT_CUSPARSELT_ENABLED") || Has(atom, "AT_MAGMA_ENABLED") || Has(atom, "USE_LINALG_SOLVER"))
    return Tri::kTrue;
  // Whether the CUDA toolkit's version macros, and what cuda/linalg's
  // headers define from them (`#if (defined(CUDART_VERSION) &&
  // defined(CUSOLVER_VERSION)) || defined(USE_ROCM)` / `#define
  // USE_LINALG_SOLVER`), are defined: in every CUDA build. Which version
  // they hold (`CUSOLVER_VERSION >= 11102`) is left open.
  const std::string_view trimmed = TrimView(atom);
  for (std::string_view name : {"CUDART_VERSION", "CUSOLVER_VERSION", "USE_LINALG_SOLVER"})
    if (trimmed == "defined(" + std::string(name) + ")" || trimmed == "defined " + std::string(name))
      return Of(a.device == CodeDevice::kCuda);
  if (Has(atom, "NDEBUG")) return Tri::kTrue;  // a release build, as the wheels are
  return Tri::kUnknown;
}

// A run that chooses no linear-algebra library
// (torch.backends.cuda.preferred_linalg_library) has Context's default
// backend: a test for one named backend is false, for the default true.
Tri LinalgPreference(std::string_view atom) {
  if (!Has(atom, "linalgPreferredBackend()") || !Has(atom, "LinalgBackend::")) return Tri::kUnknown;
  const bool eq = Has(atom, "=="), ne = Has(atom, "!=");
  if (eq == ne) return Tri::kUnknown;
  return Of(Has(atom, "LinalgBackend::Default") == eq);
}

// The function a predicate calls is named after a library (use_cudnn,
// cudnn_is_acceptable, use_miopen, use_mkldnn ...).
// The words a library predicate's name holds (LibraryPredicate): text
// without any of them is decided the same with or without library names.
constexpr std::string_view kLibraryWords[] = {"miopen", "cudnn", "mkldnn", "onednn"};

bool NamesALibrary(std::string_view text) {
  const std::string lower = Lower(text);
  return std::any_of(std::begin(kLibraryWords), std::end(kLibraryWords),
                     [&](std::string_view w) { return Has(lower, w); });
}

Tri LibraryPredicate(std::string_view atom, const Assumptions& a) {
  if (!a.library_names) return Tri::kUnknown;
  size_t paren = atom.find('(');
  if (paren == std::string_view::npos) return Tri::kUnknown;
  const std::string name = Lower(atom.substr(0, paren));
  if (Has(name, "miopen")) return Of(a.rocm && a.device == CodeDevice::kCuda);
  if (Has(name, "cudnn")) return Of(a.cudnn && !a.rocm && a.device == CodeDevice::kCuda);
  if ((Has(name, "mkldnn") || Has(name, "onednn")) && a.device == CodeDevice::kCuda) return Tri::kFalse;
  return Tri::kUnknown;
}

// `x.is_contiguous()`: a typical tensor is contiguous in the default
// memory format. A view the code makes of it first (`result.mT()`,
// `x.transpose(-2, -1)`: contiguous only where a size is 1; a parameter
// its caller passed such a view, kStridedView) and channels-last
// contiguity (which a dense NCHW tensor has only for some sizes) are not
// what the assumptions say: open.
Tri Contiguity(std::string_view atom, const Assumptions& a) {
  const size_t at = atom.find("is_contiguous(");
  if (at == std::string_view::npos) return Tri::kUnknown;
  const size_t close = atom.find(')', at);
  if (close != std::string_view::npos && Has(atom.substr(at, close - at), "ChannelsLast")) return Tri::kUnknown;
  // The receiver: `x.`, `x->`, or none (a Tensor member function's own `is_contiguous(memory_format)`).
  std::string_view before = atom.substr(0, at);
  if (before.ends_with(".")) before.remove_suffix(1);
  else if (before.ends_with("->")) before.remove_suffix(2);
  else return Tri::kTrue;
  before = TrimView(before);
  if (!before.empty() && (before.back() == ')' || before.back() == ']')) return Tri::kUnknown;
  auto passed = a.defaults.find(std::string(before));
  return passed != a.defaults.end() && passed->second == kStridedView ? Tri::kUnknown : Tri::kTrue;
}

// The memory format a typical tensor suggests (`x.suggest_memory_format()`):
// dense, contiguous and of sizes above 1, it is Contiguous (its strides are
// no channels-last layout's). So `== MemoryFormat::Contiguous` holds and `==
// MemoryFormat::ChannelsLast` does not; anything else compared (a local, a
// parameter, another call) is left open.
Tri MemoryFormatTest(std::string_view atom) {
  constexpr std::string_view kAsked = "suggest_memory_format()";
  if (!Has(atom, kAsked)) return Tri::kUnknown;
  const bool eq = Has(atom, "=="), ne = Has(atom, "!=");
  if (eq == ne) return Tri::kUnknown;
  std::vector<std::string_view> sides = SplitTop(atom, eq ? "==" : "!=");
  if (sides.size() != 2) return Tri::kUnknown;
  std::string_view asked = TrimView(sides[0]), format = TrimView(sides[1]);
  if (!asked.ends_with(kAsked)) std::swap(asked, format);
  const size_t member = format.rfind("MemoryFormat::");
  if (!asked.ends_with(kAsked) || member == std::string_view::npos || !IsIdentifier(format.substr(member + 14)))
    return Tri::kUnknown;
  return Of((format.substr(member + 14) == "Contiguous") == eq);
}

// A typical run is eager, not a CUDA graph being captured (as it is no
// TorchScript being traced): `currentStreamCaptureStatus() ==
// CaptureStatus::None` holds, `!=` does not (efficient attention's
// `in_capture_stream`, the generators' philox offsets), and so does Python's
// `not torch.cuda.is_current_stream_capturing()`.
Tri GraphCapture(std::string_view atom) {
  if (Has(atom, "is_current_stream_capturing()")) return Tri::kFalse;
  if (!Has(atom, "StreamCaptureStatus") || !Has(atom, "CaptureStatus::None")) return Tri::kUnknown;
  const bool eq = Has(atom, "=="), ne = Has(atom, "!=");
  if (eq == ne) return Tri::kUnknown;
  return Of(eq);
}

// `E == 0`, `E != 0`, `E > 0` of a product E of a tensor's sizes.
Tri EmptyTest(std::string_view atom) {
  atom = TrimView(atom);
  for (std::string_view op : {" == 0", " != 0", " > 0"}) {
    if (!atom.ends_with(op)) continue;
    std::string_view lhs = atom.substr(0, atom.size() - op.size());
    if (lhs.find("size") == std::string_view::npos && lhs.find("numel") == std::string_view::npos) return Tri::kUnknown;
    if (!IsSizeExpression(lhs)) return Tri::kUnknown;
    return op == " == 0" ? Tri::kFalse : Tri::kTrue;
  }
  return Tri::kUnknown;
}

// `self.dim() == 0`: the tensor an op computes on -- its `self`, its
// `input` -- is no 0-dim scalar, so its rank is above 0. A tensor handed
// beside it (fill_'s `value`, a wrapped-number `other`, a full reduction's
// `result`, the `grad` of a scalar loss) may well be one: not read.
Tri ZeroDimTest(std::string_view atom) {
  atom = TrimView(atom);
  for (std::string_view receiver : {"self", "input"}) {
    if (!atom.starts_with(receiver)) continue;
    std::string_view rest = atom.substr(receiver.size());
    if (rest.starts_with(".dim()")) rest.remove_prefix(6);
    else if (rest.starts_with(".ndimension()")) rest.remove_prefix(13);
    else return Tri::kUnknown;
    rest = TrimView(rest);
    if (rest == "== 0") return Tri::kFalse;
    if (rest == "!= 0" || rest == "> 0") return Tri::kTrue;
    return Tri::kUnknown;
  }
  return Tri::kUnknown;
}

Tri TensorProperty(std::string_view atom, const Assumptions& a) {
  static const char* kNever[] = {
      "is_sparse", "is_nested", "is_quantized", "is_mkldnn", "is_meta", "is_mps", "is_xpu", "is_vulkan", "is_metal",
      "is_hip", "is_ipu", "is_lazy", "is_privateuseone", "is_neg()", "is_conj()", "is_zerotensor", "is_inference",
      "has_names", "is_scripting", "is_tracing", "_get_tracing_state", "has_torch_function", "TensorSubclassLike",
      "is_functorch_wrapped", "isBatchedTensor", "is_empty()", "_is_zerotensor", "is_sparse_csr",
      // isinstance(input, PackedSequence): a dense tensor is no packed batch
      "PackedSequence)",
      // Its dispatch key set spelled out: no meta backend bit, no Python
      // key (a FakeTensor's or a subclass's): `key_set().has_all(
      // DispatchKeySet(BackendComponent::MetaBit))`.
      "BackendComponent::MetaBit)", "DispatchKey::Python)",
      // A forward-mode gradient (torch.autograd.forward_ad's dual tensors):
      // the typical run's autograd is reverse mode.
      "_fw_grad("};
  for (const char* w : kNever)
    if (Has(atom, w)) return Tri::kFalse;
  if (HasName(atom, "is_cuda")) return Of(a.device == CodeDevice::kCuda);
  if (HasName(atom, "is_cpu")) return Of(a.device == CodeDevice::kCpu);
  if (Has(atom, "is_complex") || Has(atom, "isComplexType")) return Of(a.dtype.rfind("complex", 0) == 0);
  if (Has(atom, "is_floating_point") || Has(atom, "isFloatingType"))
    return Of(a.dtype.rfind("float", 0) == 0 || a.dtype == "bfloat16");
  if (Has(atom, "isIntegralType")) return Of(a.dtype.rfind("int", 0) == 0 || a.dtype == "bool");
  if (Has(atom, "isReducedFloatingType")) return Of(a.dtype == "float16" || a.dtype == "bfloat16");
  if (Has(atom, "is_contiguous")) return Contiguity(atom, a);
  if (a.backward_pass) {
    if (Has(atom, "GradMode::is_enabled") || Has(atom, "is_grad_enabled")) return Tri::kFalse;
    // A node's retain_variables (tools/autograd/gen_autograd_functions.py) is
    // false once the engine calls will_release_variables: a backward without
    // retain_graph (_cudnn_rnn's `retain_variables ? result3.clone() : result3`).
    if (HasName(atom, "retain_variables")) return Tri::kFalse;
    Tri gradient = DefinedGradient(atom);
    if (gradient != Tri::kUnknown) return gradient;
  }
  if (Has(atom, "requires_grad") || Has(atom, "GradMode::is_enabled") || Has(atom, "is_grad_enabled"))
    return Of(a.grad);
  if (Has(atom, "deterministicAlgorithms") || Has(atom, "are_deterministic_algorithms_enabled"))
    return Of(a.deterministic);
  if (HasName(atom, "IsTunableOpEnabled")) return Of(a.tunable_op);
  // A typical tensor is not empty: a product of its sizes is at least 1
  // (`x.numel() == 0` false, `x.size(0) > 0` true); what else is computed
  // from sizes (`w.size(0) % x.size(1) == 0`) may well be 0.
  if (Tri empty = a.typical_sizes ? EmptyTest(atom) : Tri::kUnknown; empty != Tri::kUnknown) return empty;
  if (Tri scalar = a.typical_sizes ? ZeroDimTest(atom) : Tri::kUnknown; scalar != Tri::kUnknown) return scalar;
  // Nor one of 2^31 elements: its offsets fit 32 bits (the kernels' host
  // code splits a bigger one and launches the same kernel on each part).
  if (a.typical_sizes && (Has(atom, "can_use_32bit_indexing()") || Has(atom, "canUse32BitIndexMath(")))
    return Tri::kTrue;
  if (Tri format = a.typical_sizes ? MemoryFormatTest(atom) : Tri::kUnknown; format != Tri::kUnknown) return format;
  // A module's own mode. A parameter named `training` or `train` holds what
  // its caller passes (F.alpha_dropout's default False, nn.Dropout's
  // self.training): bound where the call is read, else left open.
  if (TrimView(atom) == "self.training") return Of(a.training);
  return Tri::kUnknown;
}

// `n OP r` for a size local n (at least 1) and a number r, where that
// bound decides it.
Tri SizeComparison(std::string_view op, double r) {
  if (op == "==") return r < 1 ? Tri::kFalse : Tri::kUnknown;
  if (op == "!=") return r < 1 ? Tri::kTrue : Tri::kUnknown;
  if (op == ">") return r < 1 ? Tri::kTrue : Tri::kUnknown;
  if (op == ">=") return r <= 1 ? Tri::kTrue : Tri::kUnknown;
  if (op == "<") return r <= 1 ? Tri::kFalse : Tri::kUnknown;
  if (op == "<=") return r < 1 ? Tri::kFalse : Tri::kUnknown;
  return Tri::kUnknown;
}

// A condition on a size local: `n == 0`, `n > 0`, `n` (non-zero).
// `isinstance(n, T)` of a size local: an int in eager mode (a tensor only
// while JIT tracing, functional.py:6205's comment), so `int` (alone or in a
// tuple: `(int, torch.SymInt)`) is true and `torch.Tensor` false.
Tri SizeIsInstance(std::string_view s, const Assumptions& a) {
  if (!s.starts_with("isinstance(") || !s.ends_with(")")) return Tri::kUnknown;
  std::string_view inner = s.substr(11, s.size() - 12);
  const size_t comma = inner.find(',');
  if (comma == std::string_view::npos || !a.sizes.count(std::string(TrimView(inner.substr(0, comma)))))
    return Tri::kUnknown;
  std::string_view types = TrimView(inner.substr(comma + 1));
  if (types == "torch.Tensor" || types == "Tensor") return Tri::kFalse;
  if (types.starts_with("(") && types.ends_with(")")) types = types.substr(1, types.size() - 2);
  for (std::string_view type : SplitTop(types, ","))
    if (TrimView(type) == "int") return Tri::kTrue;
  return Tri::kUnknown;
}

Tri SizeLocal(std::string_view s, const Assumptions& a) {
  if (a.sizes.empty()) return Tri::kUnknown;
  if (a.sizes.count(std::string(s))) return Tri::kTrue;
  if (Tri kind = SizeIsInstance(s, a); kind != Tri::kUnknown) return kind;
  for (std::string_view op : {"==", "!=", ">=", "<=", ">", "<"}) {
    size_t at = s.find(op);
    if (at == std::string_view::npos) continue;
    if (!a.sizes.count(std::string(TrimView(s.substr(0, at))))) return Tri::kUnknown;
    std::string rhs(TrimView(s.substr(at + op.size())));
    char* end = nullptr;
    double r = std::strtod(rhs.c_str(), &end);
    if (rhs.empty() || !end || *end != 0) return Tri::kUnknown;
    return SizeComparison(op, r);
  }
  return Tri::kUnknown;
}

// `x != x` (`min.toDouble() != min.toDouble()`), the NaN test: false for a
// number a parameter holds (relu's `clamp_min(self, 0)`), and `x == x` true.
// The number a literal spells (`2`, `-0.5`, `1e-5`); nullopt for anything
// else (a name, `inf`, `nan`, a hex or suffixed literal).
std::optional<double> NumberLiteral(std::string_view v) {
  const std::string_view digits = v.starts_with("-") ? v.substr(1) : v;
  if (digits.empty() || !(std::isdigit(static_cast<unsigned char>(digits[0])) || digits[0] == '.')) return std::nullopt;
  const std::string text(v);
  char* end = nullptr;
  const double number = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size() || std::isalpha(static_cast<unsigned char>(digits.back()))) return std::nullopt;
  return number;
}

Tri NanTest(std::string_view s, const std::function<const std::string*(std::string_view)>& value_of) {
  const bool ne = Has(s, "!=");
  const size_t at = s.find(ne ? "!=" : "==");
  if (at == std::string_view::npos) return Tri::kUnknown;
  std::string_view lhs = TrimView(s.substr(0, at)), rhs = TrimView(s.substr(at + 2));
  if (lhs != rhs) return Tri::kUnknown;
  for (std::string_view conversion : {".toDouble()", ".to<double>()", ".toFloat()"})
    if (lhs.ends_with(conversion)) lhs.remove_suffix(conversion.size());
  const std::string* v = value_of(lhs);
  return v && NumberLiteral(*v) ? Of(!ne) : Tri::kUnknown;
}

// `exp.equal(0.0)`, c10::Scalar's comparison, of a Scalar holding a number
// (`x.pow(2)`): whether the numbers are equal; a number is never the bool
// `exp.equal(false)` asks for (Pow.cpp's fill and copy short-cuts).
Tri ScalarEquals(std::string_view s, const std::function<const std::string*(std::string_view)>& value_of) {
  const size_t at = s.find(".equal(");
  if (at == std::string_view::npos || !s.ends_with(")")) return Tri::kUnknown;
  const std::string* v = value_of(s.substr(0, at));
  const std::optional<double> held = v ? NumberLiteral(*v) : std::nullopt;
  if (!held) return Tri::kUnknown;
  const std::string_view arg = TrimView(s.substr(at + 7, s.size() - at - 8));
  if (arg == "true" || arg == "false") return Tri::kFalse;
  const std::optional<double> asked = NumberLiteral(arg);
  return asked ? Of(*held == *asked) : Tri::kUnknown;
}

// `exp.isComplex()` / `exp.isIntegral(false)` / `exp.isFloatingPoint()` of a
// Scalar holding a real number literal: what its spelling says (`2` is
// integral, `0.5` floating, neither complex).
Tri ScalarKind(std::string_view s, const std::function<const std::string*(std::string_view)>& value_of) {
  const size_t at = s.rfind(".is");
  if (at == std::string_view::npos || !s.ends_with(")")) return Tri::kUnknown;
  const std::string_view asked = s.substr(at + 1);
  const std::string* v = value_of(s.substr(0, at));
  if (!v || !NumberLiteral(*v)) return Tri::kUnknown;
  const bool integral = v->find_first_of(".eE") == std::string::npos;
  if (asked == "isComplex()") return Tri::kFalse;
  if (asked == "isIntegral(false)" || asked == "isIntegral(/*includeBool=*/false)") return Of(integral);
  if (asked == "isFloatingPoint()") return Of(!integral);
  return Tri::kUnknown;
}

// The number of elements of a list of numbers written as a literal --
// `(1, 1)`, `[1, 1, 2, 2]`, `{1, 1}` --; nullopt for anything else, and for
// an empty list: a schema's `int[1] dims=[]` stands for "not given", and an
// op whose code calls itself (roll_common's `roll(flattened, shifts[0],
// 0)`) runs that code again with a list of its own.
std::optional<size_t> LiteralListLength(std::string_view v) {
  v = TrimView(v);
  if (v.size() < 2) return std::nullopt;
  const char open = v.front(), close = v.back();
  if (!((open == '(' && close == ')') || (open == '[' && close == ']') || (open == '{' && close == '}')))
    return std::nullopt;
  const std::string_view inside = TrimView(v.substr(1, v.size() - 2));
  if (inside.empty()) return std::nullopt;
  size_t n = 0;
  for (const std::string& element : SplitTopLevel(inside, ',')) {
    if (TrimView(element).empty()) continue;  // Python's one-element tuple `(1,)`
    const std::string number(TrimView(element));
    char* end = nullptr;
    std::strtod(number.c_str(), &end);
    if (end == number.c_str() || *end != 0) return std::nullopt;
    ++n;
  }
  return n;
}

// A number against an enum member (`mode == EmbeddingBagMode::MAX` with
// mode 0, `reduction == at::Reduction::Mean` with 1): the member's value as
// the index read it (cpp/enum_members.h) in place of its name, on whichever
// side it is (`*member` holds it); one it does not know stays a name, and
// the comparison open. None is no member (core/Reduction.h's `None` is
// one): an empty optional equals no number.
void MemberValue(const Assumptions& a, const std::string** v, std::string* rhs, std::string* member) {
  if (!a.enums || NumberLiteral(**v).has_value() == NumberLiteral(*rhs).has_value()) return;
  const bool left_named = !NumberLiteral(**v);
  const std::string& name = left_named ? **v : *rhs;
  if (IsEmptyOptional(name) || name == "true" || name == "false" || name == "True" || name == "False") return;
  const std::optional<int64_t> value = a.enums->Value(name);
  if (!value) return;
  *member = std::to_string(*value);
  if (left_named) *v = member;
  else *rhs = *member;
}

// A parameter left at its default (Python def defaults, or the op's schema
// defaults for the C++ implementing it): `inplace`, `x is None`,
// `label_smoothing > 0.0`, `reduction == at::Reduction::Mean`.
Tri ParameterDefault(std::string_view atom, const Assumptions& a) {
  std::string_view s = TrimView(atom);
  if (Tri size = SizeLocal(s, a); size != Tri::kUnknown) return size;
  auto value_of = [&](std::string_view name) -> const std::string* {
    name = TrimView(name);
    // `self.norm_first`: the attribute __init__ set, else a parameter of that name.
    if (auto attr = a.defaults.find(std::string(name)); attr != a.defaults.end()) return &attr->second;
    if (name.substr(0, 5) == "self.") name.remove_prefix(5);
    auto it = a.defaults.find(std::string(name));
    return it == a.defaults.end() ? nullptr : &it->second;
  };
  auto is_none = [](const std::string& v) { return IsEmptyOptional(v); };
  // `out.defined()` / `n_opt.has_value()` of a value its caller passes empty
  // (`{}`, `Tensor()`, `std::nullopt`); a schema's None default says
  // nothing of a C++ variable of that name.
  for (std::string_view ask : {".defined()", ".has_value()", "->defined()"}) {
    if (!s.ends_with(ask)) continue;
    const std::string* v = value_of(s.substr(0, s.size() - ask.size()));
    if (v && (*v == "{}" || *v == "Tensor()" || *v == "at::Tensor()" ||
              (ask == ".has_value()" && *v != "None" && is_none(*v))))
      return Tri::kFalse;
    // A parameter or local holding the incoming gradient (`grads[0]`
    // passed by the formula): defined as that gradient is.
    if (v && ask == ".defined()" && IsIncomingGradient(*v)) return DefinedGradient(*v + ".defined()");
    // A module's parameter or buffer passed on (nn.Conv2d's self.bias): a Tensor.
    if (v && (*v == kModuleParameter || *v == kModuleBuffer)) return Tri::kTrue;
    // An optional a C++ call passes a string, a number or a truth: it holds one.
    if (v && ask == ".has_value()" && !v->empty() &&
        (v->front() == '"' || std::isdigit(static_cast<unsigned char>(v->front())) || *v == "True" || *v == "False" ||
         *v == "true" || *v == "false"))
      return Tri::kTrue;
    return Tri::kUnknown;
  }
  for (std::string_view op : {" is not None", " is None"}) {
    if (s.size() > op.size() && s.substr(s.size() - op.size()) == op) {
      const std::string* v = value_of(s.substr(0, s.size() - op.size()));
      if (!v) return Tri::kUnknown;
      return Of(is_none(*v) == (op == " is None"));
    }
  }
  // `isinstance(p, str)` of a parameter holding a literal: its kind is the literal's.
  if (s.starts_with("isinstance(") && s.ends_with(")")) {
    std::string_view inner = s.substr(11, s.size() - 12);
    size_t comma = inner.find(',');
    if (comma == std::string_view::npos) return Tri::kUnknown;
    const std::string* v = value_of(inner.substr(0, comma));
    std::string_view type = TrimView(inner.substr(comma + 1));
    if (!v || v->empty()) return Tri::kUnknown;
    bool text = v->front() == '\'' || v->front() == '"';
    bool number = std::isdigit(static_cast<unsigned char>(v->front())) || v->front() == '-' || v->front() == '.';
    if (type == "str") return text || number || is_none(*v) ? Of(text) : Tri::kUnknown;
    if (type == "int" || type == "float" || type == "bool" || type == "list" || type == "tuple")
      return text || is_none(*v) ? Tri::kFalse : Tri::kUnknown;
    return Tri::kUnknown;
  }
  if (Tri nan = NanTest(s, value_of); nan != Tri::kUnknown) return nan;
  if (Tri equal = ScalarEquals(s, value_of); equal != Tri::kUnknown) return equal;
  if (Tri kind = ScalarKind(s, value_of); kind != Tri::kUnknown) return kind;
  // `pad.size()`, `len(pad)` of a parameter holding a literal list: its length.
  std::string length;
  auto length_of = [&](std::string_view lhs) -> const std::string* {
    lhs = TrimView(lhs);
    std::string_view name;
    if (lhs.ends_with(".size()")) name = lhs.substr(0, lhs.size() - 7);
    else if (lhs.starts_with("len(") && lhs.ends_with(")")) name = lhs.substr(4, lhs.size() - 5);
    else return nullptr;
    const std::string* list = value_of(name);
    const std::optional<size_t> n = list ? LiteralListLength(*list) : std::nullopt;
    if (!n) return nullptr;
    length = std::to_string(*n);
    return &length;
  };
  for (std::string_view op : {"==", "!=", ">=", "<=", ">", "<"}) {
    size_t at = s.find(op);
    if (at == std::string_view::npos) continue;
    const std::string* v = value_of(s.substr(0, at));
    if (!v) v = length_of(s.substr(0, at));
    if (!v) return Tri::kUnknown;
    std::string rhs(TrimView(s.substr(at + op.size())));
    // `min == max`: another parameter is its default; a local variable
    // (lower case, not a kConstant) is not known; a literal, a constant
    // (kFloat, Mean, CUDNN_DATA_DOUBLE) or an enum member is itself.
    bool bare = !rhs.empty() && (std::islower(static_cast<unsigned char>(rhs[0])) || rhs[0] == '_') &&
                std::all_of(rhs.begin(), rhs.end(), [](char ch) { return IsIdentChar(ch); });
    bool constant = rhs.size() > 1 && rhs[0] == 'k' && std::isupper(static_cast<unsigned char>(rhs[1]));
    if (bare && !constant && rhs != "true" && rhs != "false") {
      const std::string* other = value_of(rhs);
      if (!other) return Tri::kUnknown;
      rhs = *other;
    }
    auto last = [](std::string_view x) {
      size_t c = x.rfind("::");
      size_t d = x.rfind('.');
      size_t cut = std::max(c == std::string_view::npos ? 0 : c + 2, d == std::string_view::npos ? 0 : d + 1);
      std::string out(x.substr(cut));
      out.erase(std::remove(out.begin(), out.end(), '\''), out.end());
      out.erase(std::remove(out.begin(), out.end(), '"'), out.end());
      return out;
    };
    std::string member;  // the value of an enum member the other side's number is compared with
    MemberValue(a, &v, &rhs, &member);
    char* end_l = nullptr;
    char* end_r = nullptr;
    double l = std::strtod(v->c_str(), &end_l), r = std::strtod(rhs.c_str(), &end_r);
    bool numeric = end_l && *end_l == 0 && !v->empty() && end_r && *end_r == 0 && !rhs.empty();
    if (numeric) {
      if (op == "==") return Of(l == r);
      if (op == "!=") return Of(l != r);
      if (op == ">=") return Of(l >= r);
      if (op == "<=") return Of(l <= r);
      if (op == ">") return Of(l > r);
      return Of(l < r);
    }
    if (op == "==" || op == "!=") {
      if (last(*v).empty() || last(rhs).empty()) return Tri::kUnknown;
      // A string default ('linear') against an enum member
      // (QUANTILE_INTERPOLATION_MODE::LINEAR) is another variable of the
      // same name -- a helper's converted parameter -- not the default.
      auto quoted = [](std::string_view x) { return !x.empty() && (x.front() == '\'' || x.front() == '"'); };
      // A number (p=2.0) is never a string (p == "nuc").
      bool number_l = end_l && *end_l == 0 && !v->empty(), number_r = end_r && *end_r == 0 && !rhs.empty();
      if ((number_l && quoted(rhs)) || (number_r && quoted(*v))) return Of(op == "!=");
      // A number against a name no enum member of the index answers for
      // (above): its spelling says nothing. An empty optional (None)
      // equals no number.
      if (number_l != number_r && !is_none(number_l ? rhs : *v)) return Tri::kUnknown;
      if (quoted(*v) != quoted(rhs)) return Tri::kUnknown;
      return Of((last(*v) == last(rhs)) == (op == "=="));
    }
    return Tri::kUnknown;
  }
  // `train.value()` of an optional holding a truth is that truth.
  const std::string* v = s.ends_with(".value()") ? value_of(s.substr(0, s.size() - 8)) : value_of(s);
  if (v && s.ends_with(".value()") && is_none(*v)) return Tri::kUnknown;  // no value: it throws
  if (v) {
    if (*v == "False" || *v == "false" || is_none(*v) || *v == "0" || *v == "0.0" || *v == "''" || *v == "\"\"" ||
        *v == "{}")
      return Tri::kFalse;
    if (*v == "True" || *v == "true") return Tri::kTrue;
  }
  return Tri::kUnknown;
}

// `atom` with one space either side of each comparison operator: C++
// writes `input.sym_numel()==0` as often as `numel() == 0`, and the rules
// below read the spaced form. A `<` or `>` counts only after a call's `)`
// or an index's `]` (`x.numel()>0`), never in `static_cast<int64_t>(...)`.
std::string SpacedComparisons(std::string_view atom) {
  std::string out;
  out.reserve(atom.size() + 8);
  auto space_before = [&] {
    while (!out.empty() && out.back() == ' ') out.pop_back();
    out += ' ';
  };
  for (size_t i = 0; i < atom.size(); ++i) {
    const char c = atom[i];
    const bool pair = i + 1 < atom.size() && atom[i + 1] == '=' && (c == '=' || c == '!' || c == '<' || c == '>');
    const bool single = (c == '<' || c == '>') && !pair && !out.empty() && (out.back() == ')' || out.back() == ']') &&
                        (i + 1 >= atom.size() || atom[i + 1] != c);  // not a shift
    if (!pair && !single) {
      out += c;
      continue;
    }
    space_before();
    out += c;
    if (pair) out += atom[++i];
    out += ' ';
    while (i + 1 < atom.size() && atom[i + 1] == ' ') ++i;
  }
  return out;
}

Tri Atom(std::string_view atom, bool python, const Assumptions& a) {
  std::string_view s = TrimView(atom);
  std::string spaced;  // most atoms compare nothing: no copy for them
  if (s.find_first_of("=<>") != std::string_view::npos) s = spaced = SpacedComparisons(s);
  if (s == "true" || s == "True" || s == "1") return Tri::kTrue;
  if (s == "false" || s == "False" || s == "0" || s == "None") return Tri::kFalse;
  for (Tri t : {Comparison(s, a), TensorProperty(s, a), LibraryPredicate(s, a), LinalgPreference(s), GraphCapture(s)})
    if (t != Tri::kUnknown) return t;
  if (!python) {
    Tri t = Configuration(s, a);
    if (t != Tri::kUnknown) return t;
  }
  return ParameterDefault(s, a);
}

std::optional<Tri> CallsCompared(std::string_view s, bool python, const Assumptions& a, int depth);

Tri Eval(std::string_view s, bool python, const Assumptions& a, int depth) {
  s = TrimView(s);
  if (s.empty() || depth > kMaxConditionNesting) return Tri::kUnknown;
  while (Wrapped(s)) s = TrimView(s.substr(1, s.size() - 2));
  // Split only where the operator's text occurs: most conditions are one atom.
  const std::string_view either = python ? "or" : "||", both = python ? "and" : "&&";
  if (auto parts = s.find(either) == std::string_view::npos ? std::vector<std::string_view>{} : SplitTop(s, either);
      parts.size() > 1) {
    Tri r = Tri::kFalse;
    for (auto p : parts) {
      Tri t = Eval(p, python, a, depth + 1);
      if (t == Tri::kTrue) return Tri::kTrue;
      if (t == Tri::kUnknown) r = Tri::kUnknown;
    }
    return r;
  }
  if (auto parts = s.find(both) == std::string_view::npos ? std::vector<std::string_view>{} : SplitTop(s, both);
      parts.size() > 1) {
    Tri r = Tri::kTrue;
    for (auto p : parts) {
      Tri t = Eval(p, python, a, depth + 1);
      if (t == Tri::kFalse) return Tri::kFalse;
      if (t == Tri::kUnknown) r = Tri::kUnknown;
    }
    return r;
  }
  if (python && s.substr(0, 4) == "not ") return Not(Eval(s.substr(4), python, a, depth + 1));
  if (!python && !s.empty() && s[0] == '!' && (s.size() < 2 || s[1] != '='))
    return Not(Eval(s.substr(1), python, a, depth + 1));
  if (!python && s.substr(0, 8) == "defined(") return Configuration(s, a);
  // The code's own word on the typical case: `C10_LIKELY(c)` holds and
  // `C10_UNLIKELY(c)` does not, where nothing else decides c
  // (`C10_LIKELY(!infos.any().item<bool>())`: a linear-algebra call succeeds).
  for (const auto& [hint, typical] : {std::pair{std::string_view("C10_LIKELY("), Tri::kTrue},
                                      std::pair{std::string_view("C10_UNLIKELY("), Tri::kFalse}})
    if (!python && s.starts_with(hint) && s.ends_with(")") && ClosingBracket(s, hint.size() - 1) == s.size() - 1) {
      const Tri t = Eval(s.substr(hint.size(), s.size() - hint.size() - 1), python, a, depth + 1);
      return t != Tri::kUnknown ? t : typical;
    }
  if (std::optional<Tri> t = CallsCompared(s, python, a, depth)) return *t;
  return Atom(s, python, a);
}

// `f(x) == g(y)` (or `!=`), both sides calls: equal when their values are,
// open when either is. Copy.cu's `iter.tensor(0).is_conj() ==
// iter.tensor(1).is_conj()` holds for two typical tensors (neither is
// conjugate), though each side alone is false -- read as one atom, the
// comparison would take the truth of whichever side the vocabulary knows.
// nullopt when `s` is no such comparison: a literal or a name may hold what
// its truth does not say (`n == 1`).
std::optional<Tri> CallsCompared(std::string_view s, bool python, const Assumptions& a, int depth) {
  if (python) return std::nullopt;
  for (std::string_view op : {"==", "!="}) {
    if (s.find(op) == std::string_view::npos) continue;
    std::vector<std::string_view> sides = SplitTop(s, op);
    if (sides.size() != 2) return std::nullopt;
    std::string_view left = TrimView(sides[0]), right = TrimView(sides[1]);
    if (!left.ends_with(")") || !right.ends_with(")") || Wrapped(left) || Wrapped(right)) return std::nullopt;
    if (left == right) return std::nullopt;  // one value compared with itself: the NaN test (NanTest)
    if (IsTensorsDevice(left) && IsTensorsDevice(right)) return std::nullopt;  // SameDevice
    const Tri l = Eval(left, python, a, depth + 1), r = Eval(right, python, a, depth + 1);
    if (l == Tri::kUnknown || r == Tri::kUnknown) return Tri::kUnknown;
    return Of((l == r) == (op == "=="));
  }
  return std::nullopt;
}

}  // namespace

bool IsEmptyOptional(std::string_view v) {
  return v == "None" || v == "std::nullopt" || v == "c10::nullopt" || v == "::std::nullopt";
}

Tri DefinedGradient(std::string_view atom) {
  std::string_view s = TrimView(atom);
  if (!s.ends_with(".defined()")) return Tri::kUnknown;
  s.remove_suffix(10);
  if (s == "grad" || s == "grad_output" || s == "grad_out" || s == "grads[0]") return Tri::kTrue;
  if (s.starts_with("grads[") && s.ends_with("]") && s.size() > 7) {
    std::string_view n = s.substr(6, s.size() - 7);
    if (std::all_of(n.begin(), n.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }))
      return Tri::kFalse;
  }
  return Tri::kUnknown;
}

bool IsIncomingGradient(std::string_view value) {
  if (value == "grad") return true;
  if (!value.starts_with("grads[") || !value.ends_with("]") || value.size() <= 7) return false;
  const std::string_view n = value.substr(6, value.size() - 7);
  return std::all_of(n.begin(), n.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
}

const EnumValues& EnumValuesOf(const Index& ix) {
  return ix.Derived<EnumValues>("enum values", [&] { return EnumValues(ix.cpp); });
}

Assumptions TraceAssumptions(const Index& ix, const TraceOptions& opt) {
  Assumptions a;
  a.enums = &EnumValuesOf(ix);
  a.device = opt.device == TraceOptions::Device::kCpu ? CodeDevice::kCpu : CodeDevice::kCuda;
  std::string ignored;
  a.Apply(opt.assume, &ignored);
  return a;
}

Tri EvaluateCondition(std::string_view text, bool python, const Assumptions& a) { return Eval(text, python, a, 0); }

bool DecidedByLibraryName(std::string_view text, const Assumptions& a) {
  // Most conditions name no library: neither evaluation (nor the copy of
  // the assumptions) is needed to know that.
  if (!a.library_names || !NamesALibrary(text) || Eval(text, false, a, 0) == Tri::kUnknown) return false;
  Assumptions without = a;
  without.library_names = false;
  return Eval(text, false, without, 0) == Tri::kUnknown;
}

namespace {

// `x.numel()`, `x.sym_size(1)`, `x.sizes()[0]`, `x.dim()`: a size of tensor x.
bool IsSizeTerm(std::string_view t) {
  t = TrimView(t);
  while (Wrapped(t)) t = TrimView(t.substr(1, t.size() - 2));
  // static_cast<int64_t>(x.numel()), int64_t(x.size(0)): a cast to an integer type.
  if (size_t open = t.find('('); open != std::string_view::npos && open > 0 && t.back() == ')') {
    std::string_view cast = t.substr(0, open);
    bool integer_type = cast.ends_with("_t") || cast == "int" || cast == "long" || cast == "unsigned";
    if ((cast.starts_with("static_cast<") && cast.back() == '>') ||
        (integer_type && std::all_of(cast.begin(), cast.end(), [](char c) { return IsIdentChar(c); })))
      return IsSizeTerm(t.substr(open + 1, t.size() - open - 2));
  }
  // at::symint::size<T>(input, 0), at::symint::numel<T>(input): a size of
  // `input` written as a function of it.
  if (t.starts_with("at::symint::")) t.remove_prefix(12);
  for (std::string_view fn : {"size<T>(", "numel<T>("}) {
    if (!t.starts_with(fn) || t.back() != ')') continue;
    std::string_view args = t.substr(fn.size(), t.size() - fn.size() - 1);
    return !args.empty() && std::all_of(args.begin(), args.end(),
                                        [](char c) { return IsIdentChar(c) || c == ',' || c == ' ' || c == '-'; });
  }
  size_t dot = t.find('.');
  if (dot == std::string_view::npos || dot == 0) return false;
  std::string_view receiver = t.substr(0, dot), call = t.substr(dot + 1);
  if (!std::all_of(receiver.begin(), receiver.end(), [](char c) { return IsIdentChar(c); })) return false;
  for (std::string_view whole : {"numel()", "sym_numel()", "dim()", "ndimension()"})
    if (call == whole) return true;
  for (std::string_view head : {"size(", "sym_size(", "sizes()[", "sym_sizes()["}) {
    if (!call.starts_with(head)) continue;
    std::string_view index = call.substr(head.size());
    if (index.empty() || (index.back() != ')' && index.back() != ']')) return false;
    index.remove_suffix(1);
    // Any index (a size at any dimension is at least 1), so long as the
    // call's own bracket closes the term: `size(a) + x.size(b)` is a sum.
    int depth = 0;
    for (char c : index) {
      if (c == '(' || c == '[') ++depth;
      if ((c == ')' || c == ']') && --depth < 0) return false;
    }
    return !index.empty() && depth == 0;
  }
  return false;
}

}  // namespace

bool IsSizeExpression(std::string_view expr) {
  std::vector<std::string_view> factors = SplitTop(TrimView(expr), "*");
  return std::all_of(factors.begin(), factors.end(), [](std::string_view f) { return IsSizeTerm(f); });
}

namespace {

// The parts of the ternary whose '?' is at `q`: where its condition starts,
// its ':' and where its else-branch ends (an enclosing ',' ')' ']' '}' or the
// end). False when the text around it does not balance.
bool TernaryAt(std::string_view s, size_t q, size_t* start, size_t* colon, size_t* end) {
  auto opens = [](char c) { return c == '(' || c == '[' || c == '{'; };
  auto closes = [](char c) { return c == ')' || c == ']' || c == '}'; };
  int depth = 0;
  size_t i = q;
  *start = 0;
  while (i-- > 0) {
    char c = s[i];
    if (closes(c)) ++depth;
    else if (opens(c) && depth-- == 0) {
      *start = i + 1;
      break;
    } else if (depth == 0 && (c == ',' || c == '?' ||
                              (c == ':' && (i == 0 || s[i - 1] != ':') && (i + 1 >= s.size() || s[i + 1] != ':')))) {
      *start = i + 1;
      break;
    }
  }
  depth = 0;
  int nested = 0;
  *colon = std::string_view::npos;
  for (i = q + 1; i < s.size(); ++i) {
    char c = s[i];
    if (opens(c)) ++depth;
    else if (closes(c) && depth-- == 0) return false;
    else if (depth == 0 && c == '?') ++nested;
    else if (depth == 0 && c == ':') {
      if (i + 1 < s.size() && s[i + 1] == ':') {
        ++i;
        continue;
      }
      if (nested-- == 0) {
        *colon = i;
        break;
      }
    }
  }
  if (*colon == std::string_view::npos) return false;
  depth = 0;
  for (i = *colon + 1; i < s.size(); ++i) {
    char c = s[i];
    if (opens(c)) ++depth;
    else if (closes(c) && depth-- == 0) break;
    else if (depth == 0 && c == ',') break;
  }
  *end = i;
  return true;
}

}  // namespace

std::string PruneTernaries(std::string_view expr, const Assumptions& a, bool drop_open) {
  std::string s(expr);
  for (size_t from = 0, rounds = 0; rounds < 256; ++rounds) {
    size_t q = s.find('?', from);
    if (q == std::string::npos) break;
    size_t start, colon, end;
    if (!TernaryAt(s, q, &start, &colon, &end)) {
      from = q + 1;
      continue;
    }
    Tri v = EvaluateCondition(std::string_view(s).substr(start, q - start), false, a);
    if (v == Tri::kUnknown && !drop_open) {
      from = q + 1;
      continue;
    }
    std::string taken = v == Tri::kUnknown ? std::string()
                        : v == Tri::kTrue  ? s.substr(q + 1, colon - q - 1)
                                           : s.substr(colon + 1, end - colon - 1);
    s = s.substr(0, start) + " " + taken + " " + s.substr(end);
    from = start;
  }
  return s;
}

bool Assumptions::Apply(const std::vector<std::string>& items, std::string* error) {
  for (const std::string& raw : items) {
    std::string item(TrimView(raw));
    if (item.empty()) continue;
    size_t eq = item.find('=');
    std::string key = item.substr(0, eq), value = eq == std::string::npos ? "" : item.substr(eq + 1);
    if (key == "dtype") {
      static const std::map<std::string, std::string> kDtypes = {
          {"float32", "float32"}, {"fp32", "float32"},   {"float", "float32"},       {"float16", "float16"},
          {"fp16", "float16"},    {"half", "float16"},   {"bfloat16", "bfloat16"},   {"bf16", "bfloat16"},
          {"float64", "float64"}, {"double", "float64"}, {"complex64", "complex64"}, {"int64", "int64"},
          {"int32", "int32"},     {"bool", "bool"}};
      auto it = kDtypes.find(value);
      if (it == kDtypes.end()) {
        *error = "unknown dtype '" + value +
                 "' in --assume (float32, float16, bfloat16, float64, complex64, int64, "
                 "int32, bool)";
        return false;
      }
      dtype = it->second;
    } else if (key == "device" && (value == "cuda" || value == "cpu")) {
      device = value == "cuda" ? CodeDevice::kCuda : CodeDevice::kCpu;
    } else if (key == "deterministic") {
      deterministic = true;
    } else if (key == "tunableop") {
      tunable_op = true;
    } else if (key == "no-cudnn") {
      cudnn = false;
    } else if (key == "rocm") {
      rocm = true;
    } else if (key == "eval") {
      training = false;
    } else if (key == "no-grad") {
      grad = false;
    } else {
      *error = "unknown --assume item '" + item +
               "' (dtype=..., device=cuda|cpu, deterministic, tunableop, no-cudnn, rocm, eval, no-grad)";
      return false;
    }
  }
  return true;
}

std::vector<std::string> Assumptions::Describe() const {
  std::vector<std::string> out = {"device=" + Lower(Name(device)), "dtype=" + dtype, "layout=strided", "dense"};
  out.push_back(rocm ? "rocm" : cudnn ? "cudnn" : "no-cudnn");
  out.push_back(grad ? "requires_grad" : "no-grad");
  out.push_back(training ? "training" : "eval");
  if (deterministic) out.push_back("deterministic");
  if (tunable_op) out.push_back("tunableop");
  return out;
}

std::string Assumptions::Key() const {
  // Separators no name or value holds: '\x1d' in an item, '\x1f' between items, '\x1e' between parts.
  std::string key = std::string(Name(device)) + '\x1e' + dtype + '\x1e';
  for (bool flag : {cudnn, rocm, deterministic, tunable_op, grad, training, backward_pass, library_names, typical_sizes,
                    enums != nullptr})
    key += flag ? '1' : '0';
  key += '\x1e';
  for (const auto& [name, value] : defaults) key += name + '\x1d' + value + '\x1f';
  key += '\x1e';
  for (const std::string& size : sizes) key += size + '\x1f';
  return key;
}

}  // namespace optrace
