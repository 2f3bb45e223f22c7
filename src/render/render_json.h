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

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace optrace {

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
  void Key(std::string_view key);

  void String(std::string_view s);
  void Int(long long v);
  void Bool(bool b);
  void Null();
  void StringArray(const std::vector<std::string>& items);
  // An object member: Key(key) then its value. OptionalString writes
  // nothing for an empty value (the schema's optional string fields).
  void StringField(std::string_view key, std::string_view value);
  void OptionalString(std::string_view key, std::string_view value);
  void IntField(std::string_view key, long long value);
  void BoolField(std::string_view key, bool value);
  void StringArrayField(std::string_view key, const std::vector<std::string>& items);
  // {key: value, ...} with ordered_json's operator[] semantics: a repeated
  // key keeps its first position and takes its last value.
  void StringPairsObject(const std::vector<std::pair<std::string, std::string>>& pairs);

  const std::string& text() const { return out_; }
  std::string Take() { return std::move(out_); }

 private:
  // The separator, newline and indentation before a member or array element.
  void BeginElement();
  void BeginValue();
  void BeginContainer(char open);
  void EndContainer(char close);
  void Newline(size_t depth);

  std::string out_;
  int indent_;
  std::vector<bool> empty_;  // per open container: nothing written in it yet
  bool after_key_ = false;
};

// Appends `s` as a quoted JSON string, escaped as nlohmann's dump does
// (exposed for tests).
void AppendJsonString(std::string& out, std::string_view s);

}  // namespace optrace
