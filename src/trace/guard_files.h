// The guard reader of one checkout file (cpp/cpp_guards.h), lexed once per
// index and shared by every part of the tracer that asks when a call runs:
// the edges of the op graph (trace_paths.cc) and the bodies of the
// FunctionsManual helpers a backward formula calls (trace_backward.cc).
#pragma once

#include <string>

#include "cpp/cpp_guards.h"
#include "index/index.h"

namespace optrace {

const CppGuardReader& GuardReaderOf(const Index& index, const std::string& file);

}  // namespace optrace
