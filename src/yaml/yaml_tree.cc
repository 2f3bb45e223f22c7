// Builds a YamlNode tree from libyaml's event parser. The tree is assembled
// with an explicit stack (no recursion), so hostile nesting cannot overflow
// the C++ stack; nesting deeper than kMaxDepth is refused outright because
// torchgen's files never go past four levels.
#include "yaml/yaml_tree.h"

#include <yaml.h>

#include <algorithm>
#include <memory>
#include <unordered_map>
#include <utility>

#include "base/disk.h"
#include "base/text.h"

namespace optrace {

namespace {

constexpr size_t kMaxDepth = 64;

std::string Where(std::string_view file, size_t line0) { return std::string(file) + ":" + std::to_string(line0 + 1); }

// Owns a yaml_parser_t / yaml_event_t for the scope.
struct ParserHolder {
  yaml_parser_t parser;
  bool ok = false;
  ParserHolder() { ok = yaml_parser_initialize(&parser) != 0; }
  ~ParserHolder() {
    if (ok) yaml_parser_delete(&parser);
  }
};
struct EventHolder {
  yaml_event_t event;
  bool live = false;
  void Reset() {
    if (live) yaml_event_delete(&event);
    live = false;
  }
  ~EventHolder() { Reset(); }
};

void AppendFlowScalar(const YamlNode& n, std::string* out) {
  bool needs_quotes = n.quoted && (n.value.empty() || n.value.find_first_of(":,[]{}#'\"") != std::string::npos);
  if (needs_quotes) {
    *out += '"';
    for (char c : n.value) {
      if (c == '"' || c == '\\') *out += '\\';
      *out += c;
    }
    *out += '"';
  } else {
    *out += n.value;
  }
}

void AppendFlow(const YamlNode& n, std::string* out) {
  // Iterative would be overkill: depth is bounded by kMaxDepth at parse time.
  switch (n.kind) {
    case YamlNode::Kind::kNull:
      *out += "null";
      break;
    case YamlNode::Kind::kScalar:
      AppendFlowScalar(n, out);
      break;
    case YamlNode::Kind::kSequence:
      *out += '[';
      for (size_t i = 0; i < n.items.size(); ++i) {
        if (i) *out += ", ";
        AppendFlow(n.items[i], out);
      }
      *out += ']';
      break;
    case YamlNode::Kind::kMapping:
      *out += '{';
      for (size_t i = 0; i + 1 < n.items.size(); i += 2) {
        if (i) *out += ", ";
        AppendFlow(n.items[i], out);
        *out += ": ";
        AppendFlow(n.items[i + 1], out);
      }
      *out += '}';
      break;
  }
}

// torchgen's YamlLoader refuses a mapping with a repeated key (PyYAML would
// keep the last silently); so does optrace, naming both lines.
Status CheckDuplicateKeys(const YamlNode& map, std::string_view file) {
  if (map.kind != YamlNode::Kind::kMapping) return Status::Ok();
  std::unordered_map<std::string_view, int> first_line;
  for (size_t i = 0; i < map.items.size(); i += 2) {
    const YamlNode& key = map.items[i];
    if (key.kind != YamlNode::Kind::kScalar) continue;
    auto [it, inserted] = first_line.emplace(key.value, key.line);
    if (!inserted)
      return Status::SourceError(std::string(file) + ":" + std::to_string(key.line) + ": duplicate key '" +
                                 EscapeControl(key.value) + "' in one mapping (first at line " +
                                 std::to_string(it->second) + "); torchgen rejects it");
  }
  return Status::Ok();
}

// libyaml's error, at the line where it happened. A reader error (bad UTF-8,
// a control character) carries a byte offset instead of a mark; its mark is
// zero, which would blame line 1.
Status ParseError(const yaml_parser_t& parser, std::string_view text, std::string_view file) {
  size_t line0 = parser.problem_mark.line;
  if (parser.error == YAML_READER_ERROR) {
    size_t offset = std::min(parser.problem_offset, text.size());
    line0 = static_cast<size_t>(std::count(text.begin(), text.begin() + static_cast<long>(offset), '\n'));
  }
  std::string problem = parser.problem ? parser.problem : "malformed YAML";
  if (parser.context) problem = std::string(parser.context) + ": " + problem;
  return Status::SourceError(Where(file, line0) + ": " + problem);
}

}  // namespace

const YamlNode* YamlNode::Get(std::string_view key) const {
  if (kind != Kind::kMapping) return nullptr;
  for (size_t i = 0; i + 1 < items.size(); i += 2) {
    if (items[i].kind == Kind::kScalar && items[i].value == key) return &items[i + 1];
  }
  return nullptr;
}

bool YamlNode::AsBool(bool* out) const {
  if (kind != Kind::kScalar || quoted) return false;
  static const char* const kTrue[] = {"yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON"};
  static const char* const kFalse[] = {"no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF"};
  for (const char* t : kTrue) {
    if (value == t) return *out = true, true;
  }
  for (const char* f : kFalse) {
    if (value == f) return *out = false, true;
  }
  return false;
}

std::string YamlNode::Flow() const {
  std::string out;
  AppendFlow(*this, &out);
  return out;
}

Status ParseYaml(std::string_view text, std::string_view file, YamlNode* root) {
  *root = YamlNode();
  if (LooksBinary(text)) return Status::SourceError(std::string(file) + ": binary data, not YAML");
  ParserHolder holder;
  if (!holder.ok) return Status::SourceError(std::string(file) + ": cannot initialise the YAML parser");
  yaml_parser_set_input_string(&holder.parser, reinterpret_cast<const unsigned char*>(text.data()), text.size());

  // Nodes being built; the bottom element is a synthetic holder for the document.
  std::vector<YamlNode> stack;
  stack.emplace_back();
  stack.back().kind = YamlNode::Kind::kSequence;
  bool document_done = false;

  auto attach = [&](YamlNode node) { stack.back().items.push_back(std::move(node)); };

  EventHolder ev;
  while (true) {
    ev.Reset();
    if (!yaml_parser_parse(&holder.parser, &ev.event)) return ParseError(holder.parser, text, file);
    ev.live = true;
    const yaml_event_t& e = ev.event;
    size_t line0 = e.start_mark.line;
    switch (e.type) {
      case YAML_STREAM_START_EVENT:
      case YAML_DOCUMENT_START_EVENT:
        break;
      case YAML_DOCUMENT_END_EVENT:
        document_done = true;
        break;
      case YAML_STREAM_END_EVENT:
        document_done = true;
        break;
      case YAML_ALIAS_EVENT:
        return Status::SourceError(Where(file, line0) + ": YAML aliases are not supported here");
      case YAML_SCALAR_EVENT: {
        YamlNode n;
        n.kind = YamlNode::Kind::kScalar;
        n.value.assign(reinterpret_cast<const char*>(e.data.scalar.value), e.data.scalar.length);
        n.quoted = e.data.scalar.style != YAML_PLAIN_SCALAR_STYLE;
        n.line = static_cast<int>(line0) + 1;
        // PyYAML resolves an empty or "~"/"null" plain scalar to None.
        if (!n.quoted &&
            (n.value.empty() || n.value == "~" || n.value == "null" || n.value == "Null" || n.value == "NULL")) {
          n.kind = YamlNode::Kind::kNull;
        }
        attach(std::move(n));
        break;
      }
      case YAML_SEQUENCE_START_EVENT:
      case YAML_MAPPING_START_EVENT: {
        if (stack.size() > kMaxDepth) {
          return Status::SourceError(Where(file, line0) + ": YAML nested deeper than " + std::to_string(kMaxDepth) +
                                     " levels");
        }
        YamlNode n;
        n.kind = e.type == YAML_SEQUENCE_START_EVENT ? YamlNode::Kind::kSequence : YamlNode::Kind::kMapping;
        n.line = static_cast<int>(line0) + 1;
        stack.push_back(std::move(n));
        break;
      }
      case YAML_SEQUENCE_END_EVENT:
      case YAML_MAPPING_END_EVENT: {
        if (stack.size() < 2) return Status::SourceError(Where(file, line0) + ": unbalanced YAML structure");
        if (Status dup = CheckDuplicateKeys(stack.back(), file); !dup.ok()) return dup;
        YamlNode done = std::move(stack.back());
        stack.pop_back();
        attach(std::move(done));
        break;
      }
      case YAML_NO_EVENT:
        return Status::SourceError(Where(file, line0) + ": unexpected end of YAML");
    }
    if (document_done) break;
  }
  if (stack.size() != 1) return Status::SourceError(std::string(file) + ": truncated YAML");
  if (!stack[0].items.empty()) *root = std::move(stack[0].items[0]);
  return Status::Ok();
}

}  // namespace optrace
