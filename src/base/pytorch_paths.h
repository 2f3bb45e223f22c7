// Where a PyTorch checkout keeps the files every stage asks about. Checkout
// discovery checks one of them exists; the YAML model, the tracer and the
// answers name them in file:line facts. Paths are relative to the tree root.
#pragma once

namespace optrace {

inline constexpr char kNativeFunctionsPath[] = "aten/src/ATen/native/native_functions.yaml";
inline constexpr char kTagsPath[] = "aten/src/ATen/native/tags.yaml";
inline constexpr char kDerivativesPath[] = "tools/autograd/derivatives.yaml";

}  // namespace optrace
