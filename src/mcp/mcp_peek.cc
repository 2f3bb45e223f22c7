// A byte-at-a-time reader of one JSON-RPC line; see mcp_peek.h for why it
// exists. It never validates: the real parser does that afterwards (when the
// line is kept and shallow enough). It only has to be right about lines that
// are valid JSON, and harmless on every other one.
#include "mcp/mcp_peek.h"

#include <algorithm>

namespace optrace {

namespace {

bool IsHex(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

unsigned HexValue(char c) {
  if (c >= '0' && c <= '9') return static_cast<unsigned>(c - '0');
  return static_cast<unsigned>((c | 0x20) - 'a' + 10);
}

bool IsHigh(unsigned unit) { return unit >= 0xD800 && unit <= 0xDBFF; }
bool IsLow(unsigned unit) { return unit >= 0xDC00 && unit <= 0xDFFF; }

bool EndsScalar(char c) { return c == ',' || c == '}' || c == ']' || c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

// A top-level key longer than this is not "id" and need not be kept.
constexpr size_t kMaxKeyBytes = 8;

}  // namespace

void McpLinePeek::Feed(std::string_view bytes) {
  for (char c : bytes) {
    if (in_string_) InString(c);
    else Structural(c);
  }
}

void McpLinePeek::Structural(char c) {
  if (id_state_ == IdState::kInScalar) {
    if (!EndsScalar(c)) {
      if (id_text_.size() < kMaxIdBytes) id_text_ += c;
      else id_state_ = IdState::kUnreadable;
      return;
    }
    EndScalarId();
  }
  bool id_value_here = id_state_ == IdState::kExpectValue && depth_ == 1;
  switch (c) {
    case '"':
      in_string_ = true;
      escape_ = false;
      hex_left_ = 0;
      high_pending_ = false;
      string_is_top_key_ = depth_ == 1 && top_expects_key_;
      if (string_is_top_key_) key_.clear();
      if (id_value_here) {
        id_state_ = IdState::kInString;
        id_is_string_ = true;
        id_text_.clear();
      }
      return;
    case '{':
    case '[':
      if (id_value_here) id_state_ = IdState::kUnreadable;
      ++depth_;
      max_depth_ = std::max(max_depth_, depth_);
      if (depth_ == 1) top_expects_key_ = c == '{';
      return;
    case '}':
    case ']':
      if (depth_ > 0) --depth_;
      return;
    case ',':
      if (depth_ == 1) top_expects_key_ = true;
      return;
    case ':':
      if (depth_ == 1 && key_ == "id") {
        id_state_ = IdState::kExpectValue;  // a repeated "id" key: the last one counts, as for the parser
        id_text_.clear();
      }
      return;
    case ' ':
    case '\t':
    case '\r':
    case '\n':
      return;
    default:
      if (id_value_here) {
        id_state_ = IdState::kInScalar;
        id_is_string_ = false;
        id_text_.assign(1, c);
      }
      return;
  }
}

void McpLinePeek::InString(char c) {
  if (hex_left_ > 0) {
    if (!IsHex(c)) {
      hex_left_ = 0;  // a broken escape: the parser will say so
    } else {
      hex_ = hex_ * 16 + HexValue(c);
      if (--hex_left_ == 0) Escape16(hex_);
    }
  } else if (escape_) {
    escape_ = false;
    if (c == 'u') {
      hex_left_ = 4;
      hex_ = 0;
    } else if (high_pending_) {
      lone_surrogate_ = true;
      high_pending_ = false;
    }
  } else if (c == '\\') {
    escape_ = true;
  } else if (c == '"') {
    EndString();
    return;
  } else if (high_pending_) {
    lone_surrogate_ = true;
    high_pending_ = false;
  }
  if (string_is_top_key_) {
    if (key_.size() <= kMaxKeyBytes) key_ += c;
  } else if (id_state_ == IdState::kInString) {
    if (id_text_.size() < kMaxIdBytes) id_text_ += c;
    else id_state_ = IdState::kUnreadable;
  }
}

void McpLinePeek::Escape16(unsigned unit) {
  if (IsHigh(unit)) {
    if (high_pending_) lone_surrogate_ = true;
    high_pending_ = true;
  } else if (IsLow(unit)) {
    if (!high_pending_) lone_surrogate_ = true;
    high_pending_ = false;
  } else {
    if (high_pending_) lone_surrogate_ = true;
    high_pending_ = false;
  }
}

void McpLinePeek::EndString() {
  if (high_pending_) lone_surrogate_ = true;
  in_string_ = false;
  high_pending_ = false;
  hex_left_ = 0;
  if (string_is_top_key_) top_expects_key_ = false;
  string_is_top_key_ = false;
  if (id_state_ == IdState::kInString) id_state_ = IdState::kDone;
}

void McpLinePeek::EndScalarId() { id_state_ = IdState::kDone; }

nlohmann::ordered_json McpLinePeek::id() const {
  using json = nlohmann::ordered_json;
  if (id_state_ != IdState::kDone && id_state_ != IdState::kInScalar) return nullptr;
  std::string text = id_is_string_ ? "\"" + id_text_ + "\"" : id_text_;
  json value = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (value.is_discarded() || !(value.is_string() || value.is_number())) return nullptr;
  return value;
}

std::string McpLinePeek::raw_id() const {
  if (id_state_ != IdState::kDone && id_state_ != IdState::kInScalar) return "";
  if (id_is_string_) return "\"" + id_text_ + "\"";
  // A number, as JSON spells one (what the parser could not hold included:
  // 1e400, 30 digits); true, false and null are no ids.
  if (id_text_.empty() || !(id_text_[0] == '-' || (id_text_[0] >= '0' && id_text_[0] <= '9'))) return "";
  for (char c : id_text_)
    if (!((c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E')) return "";
  return id_text_;
}

std::string ReplaceLoneSurrogates(std::string_view line) {
  auto unit_at = [&](size_t i, unsigned* unit) {  // "\uXXXX" at i
    if (i + 6 > line.size() || line[i] != '\\' || line[i + 1] != 'u') return false;
    unsigned u = 0;
    for (size_t k = i + 2; k < i + 6; ++k) {
      if (!IsHex(line[k])) return false;
      u = u * 16 + HexValue(line[k]);
    }
    *unit = u;
    return true;
  };
  std::string out;
  out.reserve(line.size());
  bool in_string = false;
  for (size_t i = 0; i < line.size();) {
    char c = line[i];
    if (!in_string || c != '\\') {
      if (c == '"') in_string = !in_string;
      out += c;
      ++i;
      continue;
    }
    unsigned unit = 0, next = 0;
    if (!unit_at(i, &unit)) {  // another escape: copy it whole
      out.append(line.substr(i, std::min<size_t>(2, line.size() - i)));
      i += 2;
      continue;
    }
    if (IsHigh(unit) && unit_at(i + 6, &next) && IsLow(next)) {
      out.append(line.substr(i, 12));
      i += 12;
    } else if (IsHigh(unit) || IsLow(unit)) {
      out += "\\uFFFD";
      i += 6;
    } else {
      out.append(line.substr(i, 6));
      i += 6;
    }
  }
  return out;
}

}  // namespace optrace
