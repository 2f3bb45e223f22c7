// The FunctionsManual helpers a derivatives.yaml formula calls
// (torch/csrc/autograd/FunctionsManual.cpp: prod_backward, norm_backward):
// which of a helper's definitions a call reaches, and whether a call
// written in one runs under the assumptions of a first-order backward.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cpp/cpp_index.h"
#include "index/index.h"
#include "trace/trace_typical.h"

namespace optrace {

// The definitions of helper `name` in `file` a call with `arguments` may
// reach: those whose parameter count admits them (prod_backward(grad,
// input, result) is never the five-parameter form for a dim), every one
// where the arguments are not read or none admits them.
std::vector<uint32_t> HelperOverloadsTaking(const CppIndex& cpp, const std::string& file, const std::string& name,
                                            const std::optional<std::vector<std::string>>& arguments);

// Whether the conditions around a call of `token` on `line` of function `f`
// (in `file`) hold under `assumptions`: all of them, unknown where one is
// (or where they are not read).
Tri CallSiteValue(const Index& ix, const std::string& file, const CppFunction& f, int line, std::string_view token,
                  const Assumptions& assumptions);

}  // namespace optrace
