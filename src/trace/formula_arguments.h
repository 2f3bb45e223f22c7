// What a derivatives.yaml formula hands the backward op it calls: the
// formula's arguments written as the name of a forward argument
// (`embedding_backward_symint(grad, indices, weight.sym_size(0),
// padding_idx, scale_grad_by_freq, sparse)`) carry the value the forward
// call binds, or its schema default, into the backward op's parameters --
// so embedding's `sparse=False` decides embedding_backward's `if (sparse)`
// the way a Python call's arguments decide a forward op's branches. The
// incoming gradient passed on (`grads[0]`, `grads[1]`) binds as itself:
// _cudnn_rnn_backward's `grad_output_r.defined()` holds, `grad_hy_r`'s not.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "trace/trace.h"

namespace optrace {

// The C++ declarations of a formula's names, as the backward function torchgen
// generates around it declares them: each argument of the entry's schema with
// its C++ type, the incoming gradient and the forward's result Tensors
// ("const Tensor& grad, const Tensor& result, const Tensor& self, const Scalar& min").
std::string FormulaParameters(const FunctionSchema& schema);

// The arguments of each call of `name` (or its `_symint` form) written in
// a formula, as written.
std::vector<std::vector<std::string>> FormulaCallArguments(std::string_view formula, std::string_view name);

// Per call of `backward` in the formulas of `forward` (from `steps`): the
// backward op's parameters bound to the values `forward_values` holds for
// the forward arguments the call passes by name.
std::vector<std::map<std::string, std::optional<std::string>>> FormulaCallBindings(
    const std::vector<BackwardStep>& steps, const OpStep& forward, const OpStep& backward,
    const std::map<std::string, std::string>& forward_values);

}  // namespace optrace
