// JSON text out of nlohmann values, one way for every stage: names come from
// arbitrary checkout files and user queries, so serialising never throws on
// invalid UTF-8 (it is replaced by U+FFFD).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace optrace {

// indent < 0: one line.
std::string DumpJson(const nlohmann::ordered_json& j, int indent = -1);

}  // namespace optrace
