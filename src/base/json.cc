#include "base/json.h"

namespace optrace {

std::string DumpJson(const nlohmann::ordered_json& j, int indent) {
  return j.dump(indent, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

}  // namespace optrace
