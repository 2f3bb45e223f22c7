// One JSON serialiser and one nesting check for every stage.
#include "base/json.h"

#include <algorithm>

namespace optrace {

std::string DumpJson(const nlohmann::ordered_json& j, int indent) {
  return j.dump(indent, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

namespace {

// nlohmann's serialiser writes through this; it only counts.
class CountingOutput : public nlohmann::detail::output_adapter_protocol<char> {
 public:
  void write_character(char) override { ++count; }
  void write_characters(const char*, std::size_t length) override { count += length; }
  size_t count = 0;
};

}  // namespace

size_t DumpedJsonSize(const nlohmann::ordered_json& j) {
  auto counter = std::make_shared<CountingOutput>();
  // What j.dump(-1, ' ', false, replace) does, into the counter.
  nlohmann::detail::serializer<nlohmann::ordered_json> serializer(counter, ' ',
                                                                  nlohmann::ordered_json::error_handler_t::replace);
  serializer.dump(j, /*pretty_print=*/false, /*ensure_ascii=*/false, /*indent_step=*/0);
  return counter->count;
}

size_t JsonNestingDepth(std::string_view text, size_t stop_at) {
  size_t depth = 0, deepest = 0;
  bool in_string = false, escaped = false;
  for (char c : text) {
    if (in_string) {
      if (escaped) escaped = false;
      else if (c == '\\') escaped = true;
      else if (c == '"') in_string = false;
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      deepest = std::max(deepest, ++depth);
      if (deepest >= stop_at) return deepest;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return deepest;
}

}  // namespace optrace
