// The typical-path assumptions and the three-valued evaluation of a guard
// condition under them. A condition is decided only when every part of it
// is something the assumptions speak about (the tensor's device, layout,
// dtype and flags; build configuration such as AT_CUDNN_ENABLED; Python
// arguments left at their defaults); anything else is unknown, and an
// unknown condition keeps both of its sides off the typical path rather
// than guessing one.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace optrace {

enum class Tri { kFalse, kTrue, kUnknown };

struct Assumptions {
  std::string device = "cuda";  // "cuda" | "cpu"
  std::string dtype = "float32";  // float32 | float16 | bfloat16 | float64 | complex64 | int64 ...
  bool cudnn = true, rocm = false, deterministic = false, grad = true, training = true;
  // Python parameters left at their defaults ("inplace" -> "False").
  std::map<std::string, std::string> defaults;
  // Evaluating a derivatives.yaml formula in a first-order backward
  // (`loss.backward()`): grad mode is off while it runs, the incoming
  // gradient is defined, and only the first output's is (the others --
  // native_layer_norm's mean and rstd -- are unused by a typical caller).
  bool backward_pass = false;

  // Applies `--assume` items; false (with *error) for one it does not know.
  bool Apply(const std::vector<std::string>& items, std::string* error);
  // "device=cuda", "dtype=float32", "cudnn", ... for the trace's record.
  std::vector<std::string> Describe() const;
};

// Evaluates a C++ (`python` false) or Python condition.
Tri EvaluateCondition(std::string_view text, bool python, const Assumptions& a);

// A C++ expression with every ternary `c ? x : y` whose condition the
// assumptions decide replaced by the branch taken (nested ones, and those
// inside call arguments, too); an undecided one is kept whole. What a
// formula runs is what the pruned text names.
// With `drop_open`, an undecided one is dropped whole instead: what is left
// runs whatever the open conditions say.
std::string PruneTernaries(std::string_view expr, const Assumptions& a, bool drop_open = false);

}  // namespace optrace
