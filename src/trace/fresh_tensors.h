// Tensors autograd never records anything on: those made by a factory op
// (`at::empty({})`), or by an op torchgen generates no derivative for
// (tools/autograd/gen_variable_type.py's DONT_REQUIRE_DERIVATIVE:
// `empty_like`, `new_empty` -- their results depend on the input's shape
// alone), and what ops taking no other Tensor make of them. Dropout's
// `auto noise = feature_dropout ? make_feature_noise(input) :
// at::empty_like(input); noise.bernoulli_(1 - p);` records no bernoulli_:
// its backward never runs.
#pragma once

#include <set>
#include <string>
#include <string_view>

#include "index/index.h"
#include "trace/trace.h"

namespace optrace {

// The ops torchgen generates no derivative for, read from the checkout once per index.
const std::set<std::string>& OpsWithoutDerivative(const Index& ix);

// Whether C++ expression `expr` makes a tensor that needs no grad: a call
// of a factory op (no Tensor argument), of an op without derivative, of an
// op taking no Tensor beside self on such a tensor (`noise.add(-1)`), of a
// helper whose every return is one (`make_feature_noise`: `return
// input.new_empty_symint(sizes);`), or a conditional whose arms both are.
bool MakesNoGradTensor(const Index& ix, std::string_view expr, int depth = 0);

// Whether `call` of `callee` is made on what a factory op just made, with
// no other Tensor passed (`at::empty({}).random_(gen)`, which the scanner
// writes "at::empty().random_()").
bool OnAFactorysResult(const Index& ix, const OpCallStep& call, const OpStep& callee);

// Whether `call` (one of `caller`'s calls) is made on a local of the calling
// function that needs no grad: assigned once, from such an expression, and
// every op `caller` calls on it admits no Tensor beside self.
bool CalledOnANoGradLocal(const Index& ix, const OpStep& caller, const OpCallStep& call);

}  // namespace optrace
