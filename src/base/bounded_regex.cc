// Length-bounded std::regex calls (bounded_regex.h says why).
#include "base/bounded_regex.h"

namespace optrace {

bool BoundedRegexMatch(const std::string& text, std::smatch* match, const std::regex& re) {
  return text.size() <= kMaxRegexInput && std::regex_match(text, *match, re);
}

bool BoundedRegexMatch(const std::string& text, const std::regex& re) {
  return text.size() <= kMaxRegexInput && std::regex_match(text, re);
}

bool BoundedRegexSearch(const std::string& text, std::smatch* match, const std::regex& re) {
  return text.size() <= kMaxRegexInput && std::regex_search(text, *match, re);
}

}  // namespace optrace
