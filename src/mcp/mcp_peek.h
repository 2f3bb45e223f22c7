// What a message line says before it is parsed. A client waits for an answer
// carrying its request's id; a line the parser refuses (too long, nested
// too deep to parse or copy safely, a lone UTF-16 surrogate escape) would
// otherwise be answered with id null, which no client can match, so the
// call hangs until its timeout. McpLinePeek reads the bytes once, in order,
// with a fixed amount of state and no recursion: how deep arrays and objects
// nest, the top-level "id" when it is a short string or a number, and
// whether a string escapes a surrogate that has no partner. It is fed piece
// by piece, so a line too long to keep can still be answered with its id.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace optrace {

class McpLinePeek {
 public:
  // Feeds the next bytes of the line (all of it may come at once).
  void Feed(std::string_view bytes);

  // The deepest nesting of arrays and objects seen (1 for a flat object).
  size_t max_depth() const { return max_depth_; }
  // The top-level "id" member when it is a string (up to kMaxIdBytes) or a
  // number; null when there is none or it cannot be read.
  nlohmann::ordered_json id() const;
  // The id as written (quotes and escapes kept) when it is a string or a
  // number, even one id() cannot hold; "" otherwise. An answer echoes it
  // byte for byte: 1e400, 123456789012345678901234567890 or a string with a
  // lone surrogate do not survive a parse and dump unchanged.
  std::string raw_id() const;
  // A string holds \uD800-\uDBFF not followed by \uDC00-\uDFFF, or a
  // \uDC00-\uDFFF not preceded by one: invalid UTF-16, which JSON parsers reject.
  bool lone_surrogate() const { return lone_surrogate_; }

  static constexpr size_t kMaxIdBytes = 1024;

 private:
  void Structural(char c);
  void InString(char c);
  void EndString();
  void Escape16(unsigned unit);
  void EndScalarId();

  size_t depth_ = 0, max_depth_ = 0;
  bool in_string_ = false, escape_ = false;
  int hex_left_ = 0;           // hex digits still expected after \u
  unsigned hex_ = 0;           // the \u unit read so far
  bool high_pending_ = false;  // the last thing in the string was a high surrogate escape
  bool lone_surrogate_ = false;
  // The top-level object: whether the next string there is a key, the last
  // key read, and the id value while it is being read.
  bool top_expects_key_ = false;
  bool string_is_top_key_ = false;
  std::string key_;
  enum class IdState { kNone, kExpectValue, kInString, kInScalar, kDone, kUnreadable } id_state_ = IdState::kNone;
  std::string id_text_;  // the value's raw text (string contents with escapes, or the scalar token)
  bool id_is_string_ = false;
};

// The line with every lone surrogate escape replaced by \uFFFD, so it parses.
std::string ReplaceLoneSurrogates(std::string_view line);

}  // namespace optrace
