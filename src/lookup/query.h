// The bound on a query's length, the same for every front end (the MCP input
// schemas declare it as maxLength; the CLI checks it before any work). The
// longest op, Python or C++ name of 2.6.0 is well under 200 characters, but a
// kernel name as a profiler prints it is a query too (issue 26) and runs to
// a few KiB with its template arguments: 8 KiB holds them; anything longer
// names nothing and would only cost time (issue 18 #13).
#pragma once

#include <cstddef>
#include <string_view>

#include "base/status.h"

namespace optrace {

inline constexpr size_t kMaxQueryLength = 8192;

// Usage error (exit 2) for a query longer than kMaxQueryLength characters.
Status CheckQueryLength(std::string_view query);

}  // namespace optrace
