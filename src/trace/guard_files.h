// The guard reader of one checkout file (cpp/cpp_guards.h), lexed once per
// index and shared by every part of the tracer that asks when a call runs:
// the edges of the op graph (trace_paths.cc) and the bodies of the
// FunctionsManual helpers a backward formula calls (trace_backward.cc).
// Likewise a Python file's lines (py/py_guards.h PyFileLines), split once
// per index for the readers of its calls' conditions, its frames' returns
// and optional steps: a split starts at the file's first line, and a trace
// of nn.MultiheadAttention asks about hundreds of lines of functional.py.
#pragma once

#include <string>

#include "cpp/cpp_guards.h"
#include "index/index.h"
#include "py/py_guards.h"

namespace optrace {

const CppGuardReader& GuardReaderOf(const Index& index, const std::string& file);

const PyFileLines& PyLinesOf(const Index& index, const std::string& file);

}  // namespace optrace
