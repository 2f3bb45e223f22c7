// Helpers the assumed dtype rules out. PyTorch's CPU kernels pick among
// overloads of one function template by std::enable_if on the element type
// (cpu/layer_norm_kernel.cpp: LayerNormKernelImplInternal for float and
// double, another for BFloat16 and Half, which alone calls
// layer_norm_kernel_mixed_type); the walk reaches every overload of the
// name. Where every call of an overload instantiates it with the dispatched
// element type (`LayerNormKernelImplInternal<scalar_t>(...)` in an
// AT_DISPATCH: float for a float32 tensor) or a written type, and its
// constraint rejects that type, the overload never runs; nor does a helper
// every call of which sits in such a function. A call whose template
// arguments are deduced, or a constraint this does not read, leaves the
// helper as it is.
#pragma once

#include "index/index.h"
#include "trace/trace.h"
#include "trace/trace_typical.h"

namespace optrace {

// Sets ImplStep::ruled_out on the helpers of `t`'s ops that `a`'s dtype rules out.
void MarkTemplateOverloads(Trace& t, const Index& ix, const Assumptions& a);

}  // namespace optrace
