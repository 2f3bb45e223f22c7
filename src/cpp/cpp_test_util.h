// Helpers the cpp/ tests share: lookups in one file's scanned records.
#pragma once

#include <string_view>

#include "cpp/cpp_records.h"

namespace optrace {

// The first function of `r` named `name`, or null.
inline const CppFunction* Fn(const CppFileRecords& r, std::string_view name) {
  for (const CppFunction& f : r.functions)
    if (f.name == name) return &f;
  return nullptr;
}

}  // namespace optrace
