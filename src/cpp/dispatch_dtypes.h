// AT_DISPATCH's dtype vocabulary (see dispatch_dtypes.cc).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace optrace {

// "at::kFloat" / "ScalarType::Half" / "Double" -> "float" / "Half" / "double"; "" when unknown.
std::string DtypeName(std::string_view scalar_type);
// Appends the dtypes of an AT_DISPATCH family ("FLOATING_TYPES", "ALL_TYPES_AND_COMPLEX", ...);
// false when the family is unknown.
bool FamilyDtypes(std::string_view family, std::vector<std::string>* out);
// Appends the dtypes of an AT_DISPATCH_V2 type list (AT_INTEGRAL_TYPES_V2, ...); false when unknown.
bool V2TypeList(std::string_view name, std::vector<std::string>* out);

}  // namespace optrace
