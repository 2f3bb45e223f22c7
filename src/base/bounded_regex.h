// Regular expressions on text of unbounded length: a checkout's lines, a
// user's Python file, a query of up to 8 KiB.
//
// libstdc++'s std::regex executor recurses once per character it consumes
// (a `\w+` over an identifier, a `[^\n]*?` over a line), so a long enough
// input overflows the stack: an 8 KiB kernel-name query did under
// AddressSanitizer, whose frames are larger. Every pattern of optrace runs
// through these, and an input over kMaxRegexInput bytes does not match:
// the lines the patterns look for (a binding, an assignment, a jiterator
// kernel name) are short, and a fact not read is better than a crash.
#pragma once

#include <cstddef>
#include <regex>
#include <string>

namespace optrace {

inline constexpr size_t kMaxRegexInput = 2048;

bool BoundedRegexMatch(const std::string& text, std::smatch* match, const std::regex& re);
bool BoundedRegexMatch(const std::string& text, const std::regex& re);
bool BoundedRegexSearch(const std::string& text, std::smatch* match, const std::regex& re);

}  // namespace optrace
