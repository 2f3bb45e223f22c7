// Tensor methods written by hand in the Tensor classes (TensorBody.h's
// template, TensorBase.h) rather than generated: some return the tensor
// itself before dispatching anything -- `conj()` of a real tensor,
// `contiguous()` of a contiguous one -- so the op of that name never runs
// for such a tensor, and a profiler never sees it. The tracer asks this
// before it puts a method's op on the typical path.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "index/index.h"

namespace optrace {

// The guard under which `tensor.method()` returns the tensor itself,
// dispatching nothing: the hand-written method (through one `return
// TensorBase::method(...)` delegation) opens with `if (C) return *this;`.
// C as written less `this->` ("!is_complex()"), and where it is written;
// nullopt when the method has no such guard.
struct SelfReturn {
  std::string condition;
  std::string file;
  int line = 0;
};
std::optional<SelfReturn> EarlySelfReturn(const Index& index, std::string_view method);

}  // namespace optrace
