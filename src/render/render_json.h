// A streaming JSON writer whose text is byte-for-byte what
// nlohmann::ordered_json::dump(indent, ' ', false, error_handler_t::replace)
// gives for the same value: same separators, same pretty indentation, same
// string escaping (\b \t \n \f \r \" \\, other control characters as
// lowercase \u00xx, UTF-8 passed through, invalid UTF-8 replaced by U+FFFD).
//
// Why: `optrace trace --json` used to build a DOM of the whole trace only to
// dump it; ordered_json objects are vectors of pair<const string, json>, so
// every growth deep-copied the values already inserted. Writing the text
// directly does neither. It is the only encoder of optrace.trace/1: callers
// that need a value (the MCP server's structuredContent) parse its text back
// (TraceToJson in render.h).
#pragma once

#include <algorithm>
#include <cstring>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace optrace {

// A member name the program writes -- a schema key -- checked when it is
// compiled to be printable ASCII without '"' or '\\', so writing it needs no
// scan or escape (a trace writes some fifteen million keys a `--all`). Keys
// read from data (derivatives.yaml's input names) go through KeyText.
class JsonKey {
 public:
  consteval JsonKey(const char* key) : key_(key) {  // NOLINT: implicit, for literals
    for (char c : key_)
      if (c < 0x20 || c == '"' || c == '\\' || static_cast<unsigned char>(c) >= 0x80)
        throw "a JSON key that would need escaping";
  }
  std::string_view view() const { return key_; }

 private:
  std::string_view key_;
};

// The text a JsonWriter writes: a buffer grown by doubling and written
// through pointers into it, one capacity check per piece (a std::string
// append or resize is an out-of-line call, and a `--all` writes some fifty
// million pieces). The buffer is kept for the thread's next writer: a
// trace's JSON runs to hundreds of kilobytes, and growing a fresh buffer to
// that size for every trace zero-filled and copied it several times over.
class JsonText {
 public:
  JsonText();   // takes the thread's spare buffer
  ~JsonText();  // and leaves its own for the next
  JsonText(const JsonText&) = delete;
  JsonText& operator=(const JsonText&) = delete;
  // Room for `n` more bytes at the end, where they are to be written.
  char* Room(size_t n) {
    if (out_.size() - size_ < n) out_.resize(std::max(2 * out_.size(), size_ + n));
    char* at = out_.data() + size_;
    size_ += n;
    return at;
  }
  void Put(char c) { *Room(1) = c; }
  void Put(std::string_view s) { std::memcpy(Room(s.size()), s.data(), s.size()); }
  // `"s"` then `tail`, where `s` needs no escaping.
  void PutQuoted(std::string_view s, std::string_view tail);
  // `s` quoted and escaped as AppendJsonString does.
  void PutString(std::string_view s);
  std::string_view view() const { return std::string_view(out_.data(), size_); }
  // The text, with room for a byte more (a caller ends a line with it: a
  // string grown by one byte is copied whole).
  std::string Take() {
    std::string text;
    text.reserve(size_ + 1);
    text.assign(out_.data(), size_);
    size_ = 0;
    return text;
  }

 private:
  std::string out_;  // the text is its first size_ bytes; the rest is room
  size_t size_ = 0;
};

class JsonWriter {
 public:
  // indent < 0: one line, as DumpJson's default; otherwise that many spaces
  // per level.
  explicit JsonWriter(int indent = -1);

  // Containers; an object's members are Key() followed by one value.
  void BeginObject();
  void EndObject();
  void BeginArray();
  void EndArray();
  void Key(JsonKey key);
  void KeyText(std::string_view key);  // any text, escaped as needed

  void String(std::string_view s);
  void Int(long long v);
  void Bool(bool b);
  void Null();
  void StringArray(const std::vector<std::string>& items);
  // An object member: Key(key) then its value. OptionalString writes
  // nothing for an empty value (the schema's optional string fields).
  void StringField(JsonKey key, std::string_view value);
  void OptionalString(JsonKey key, std::string_view value);
  void IntField(JsonKey key, long long value);
  void BoolField(JsonKey key, bool value);
  void StringArrayField(JsonKey key, const std::vector<std::string>& items);
  // {key: value, ...} with ordered_json's operator[] semantics: a repeated
  // key keeps its first position and takes its last value.
  void StringPairsObject(const std::vector<std::pair<std::string, std::string>>& pairs);

  std::string_view text() const { return out_.view(); }
  std::string Take() { return out_.Take(); }

 private:
  // The separator, newline and indentation before a member or array element.
  void BeginElement();
  void BeginValue();
  void BeginContainer(char open);
  void EndContainer(char close);
  void Newline(size_t depth);
  JsonText out_;
  int indent_;
  std::vector<unsigned char> empty_;  // per open container: nothing written in it yet (no vector<bool>: bit access)
  bool after_key_ = false;
};

// Appends `s` as a quoted JSON string, escaped as nlohmann's dump does
// (exposed for tests).
void AppendJsonString(std::string& out, std::string_view s);

}  // namespace optrace
