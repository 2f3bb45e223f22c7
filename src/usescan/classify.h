// What kind of op each op a user's file runs is (pointwise, reduction,
// view/shape, convolution, ...), with the checkout fact that says so.
#pragma once

#include <string>
#include <string_view>

#include "usescan/checkout_facts.h"
#include "usescan/usescan.h"

namespace optrace {

struct Classification {
  std::string category, basis;
};

// The category of `op` and its basis (a YAML tag or schema, the nn module
// file of a layer, a name rule), read from the checkout.
Classification ClassifyOp(const CheckoutFacts& checkout, const ScanOp& op);
// Whether a category says enough without a trace (pointwise, view/shape,
// factory, in-place, indexing, reduction, copy).
bool IsWellKnownCategory(std::string_view category);
// Conversions bound by hand in python_variable_methods.cpp (Tensor.float is
// no YAML method): each is aten::to, a copy unless the tensor already has
// that dtype or device.
bool IsConversion(std::string_view method);

}  // namespace optrace
