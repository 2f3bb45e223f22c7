// The typical-path assumptions and the three-valued evaluation of a guard
// condition under them. A condition is decided only when every part of it
// is something the assumptions speak about (the tensor's device, layout,
// dtype and flags; build configuration such as AT_CUDNN_ENABLED; Python
// arguments left at their defaults); anything else is unknown, and an
// unknown condition keeps both of its sides off the typical path rather
// than guessing one.
#pragma once

#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "trace/trace.h"

namespace optrace {

class EnumValues;
struct Index;

enum class Tri { kFalse, kTrue, kUnknown };

// What a condition is worth where it is false (an `else`, after an early return).
inline Tri Not(Tri t) { return t == Tri::kTrue ? Tri::kFalse : t == Tri::kFalse ? Tri::kTrue : Tri::kUnknown; }

struct Assumptions {
  CodeDevice device = CodeDevice::kCuda;  // kCuda | kCpu, never kAny
  std::string dtype = "float32";          // float32 | float16 | bfloat16 | float64 | complex64 | int64 ...
  bool cudnn = true, rocm = false, deterministic = false, grad = true, training = true;
  // TunableOp (PYTORCH_TUNABLEOP_ENABLED=1, torch.cuda.tunable.enable()):
  // off unless asked for, as its TuningContext starts (`enable_{false}`).
  bool tunable_op = false;
  // Python parameters left at their defaults ("inplace" -> "False").
  std::map<std::string, std::string> defaults;
  // Evaluating a derivatives.yaml formula in a first-order backward
  // (`loss.backward()`): grad mode is off while it runs, the incoming
  // gradient is defined, and only the first output's is (the others --
  // native_layer_norm's mean and rstd -- are unused by a typical caller).
  bool backward_pass = false;
  // Locals holding a size of a typical tensor (`auto n = self.numel();`,
  // IsSizeExpression): at least 1, so `n == 0` is false and `n > 0` true;
  // which size it is stays unknown (`n == 4` is open).
  std::set<std::string> sizes;
  // A call named after a library (use_cudnn, cudnn_is_acceptable, use_miopen)
  // is decided by its name: the fallback where its body cannot be read
  // (trace/inline_predicates.h). Off to ask whether a decision rests on it.
  bool library_names = true;
  // A typical tensor's sizes: not empty (`x.numel() == 0` is false), nor
  // of 2^31 elements (32-bit offsets). Off to ask what any tensor may take.
  bool typical_sizes = true;
  // The values of the checkout's enum members (cpp/enum_members.h), owned
  // by the index the trace reads (EnumValuesOf): `mode ==
  // EmbeddingBagMode::MAX` with mode 0 is decided by MAX's value. Null:
  // a number against a member's name stays open. Key() holds only whether
  // it is set: every memo keyed by it is kept per index, and an index has
  // one table.
  const EnumValues* enums = nullptr;

  // Applies `--assume` items; false (with *error) for one it does not know.
  bool Apply(const std::vector<std::string>& items, std::string* error);
  // "device=cuda", "dtype=float32", "cudnn", ... for the trace's record.
  std::vector<std::string> Describe() const;
  // Every field above, as one string: equal keys, equal assumptions (a
  // memo of what is read under them is keyed by it). A new field joins it.
  std::string Key() const;
};

// The value of a module attribute `__init__` makes a tensor: a buffer
// (`self.register_buffer("X", torch.zeros(...))`: no grad) or a parameter
// (`self.X = Parameter(...)`, `self.register_parameter("X", p)`: requires
// grad). Either is not None and, passed to C++, a defined Tensor.
inline constexpr std::string_view kModuleBuffer = "<buffer>";
inline constexpr std::string_view kModuleParameter = "<parameter>";
// A Tensor a C++ caller passes as a view it made of a strided layout of
// its own (`auto input = self.permute(dims); input.reshape(...)`): the
// typical tensor's contiguity says nothing of it.
inline constexpr std::string_view kStridedView = "<strided view>";
// The out= tensor of a structured kernel its functional op runs: a tensor
// the call allocates, none of the op's input tensors, whose names follow
// (`<fresh tensor> self index source`): `!result.is_same(self)` holds in
// index_add_cuda_impl for torch.index_add. A local made from it
// (cumsum's `result_ = contiguous_out_arg(result)`) may be it.
inline constexpr std::string_view kFreshTensor = "<fresh tensor>";

// The values of `ix`'s enum members (Assumptions::enums), read once per index.
const EnumValues& EnumValuesOf(const Index& ix);

// What a trace with `opt` assumes: its device, its `--assume` items (checked
// before: ValidateAssume), and `ix`'s enum values.
Assumptions TraceAssumptions(const Index& ix, const TraceOptions& opt);

// Evaluates a C++ (`python` false) or Python condition.
Tri EvaluateCondition(std::string_view text, bool python, const Assumptions& a);
// A C++ condition decided only because a call in it is named after a
// library: the predicate's body, where it can be read, says more.
bool DecidedByLibraryName(std::string_view text, const Assumptions& a);

// A value that is an empty optional: Python's None, C++'s std::nullopt.
bool IsEmptyOptional(std::string_view v);

// In a backward formula: `grad.defined()`, `grads[0].defined()` (the first
// output's gradient) is true; `grads[1].defined()` and later ones false;
// unknown for anything else.
Tri DefinedGradient(std::string_view atom);
// A value that is the incoming gradient as a formula writes it (`grad`,
// `grads[1]`): DefinedGradient says whether it is defined.
bool IsIncomingGradient(std::string_view value);

// Whether a C++ expression is a size of a typical tensor, at least 1: a
// product of `x.numel()`, `x.size(d)`, `x.sizes()[d]`, `x.dim()` (and their
// sym_ forms), possibly cast -- never a sum or difference (`x.size(0) - 1`
// may be 0).
bool IsSizeExpression(std::string_view expr);

// A C++ expression with every ternary `c ? x : y` whose condition the
// assumptions decide replaced by the branch taken (nested ones, and those
// inside call arguments, too); an undecided one is kept whole. What a
// formula runs is what the pruned text names.
// With `drop_open`, an undecided one is dropped whole instead: what is left
// runs whatever the open conditions say.
std::string PruneTernaries(std::string_view expr, const Assumptions& a, bool drop_open = false);

}  // namespace optrace
