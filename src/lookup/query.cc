// The query bound; see query.h.
#include "lookup/query.h"

#include <string>

namespace optrace {

Status CheckQueryLength(std::string_view query) {
  size_t characters = 0;
  for (unsigned char c : query) characters += (c & 0xC0) != 0x80;
  if (characters <= kMaxQueryLength) return Status::Ok();
  return Status::Usage("query too long (" + std::to_string(characters) + " characters; at most " +
                       std::to_string(kMaxQueryLength) + "): no name in a checkout is that long");
}

}  // namespace optrace
