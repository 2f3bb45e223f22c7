// Builds a YamlNode tree from libyaml's event parser. The tree is assembled
// with an explicit stack (no recursion), so hostile nesting cannot overflow
// the C++ stack; nesting deeper than kMaxDepth is refused outright because
// torchgen's files never go past four levels.
#include "yaml/yaml_tree.h"

#include <yaml.h>

#include <memory>
#include <utility>

#include "base/disk.h"

namespace optrace {

namespace {

constexpr size_t kMaxDepth = 64;

std::string Where(std::string_view file, size_t line0) {
  return std::string(file) + ":" + std::to_string(line0 + 1);
}

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
    if (!yaml_parser_parse(&holder.parser, &ev.event)) {
      const yaml_mark_t& mark = holder.parser.problem_mark;
      std::string problem = holder.parser.problem ? holder.parser.problem : "malformed YAML";
      if (holder.parser.context) problem = std::string(holder.parser.context) + ": " + problem;
      return Status::SourceError(Where(file, mark.line) + ": " + problem);
    }
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
        if (!n.quoted && (n.value.empty() || n.value == "~" || n.value == "null" || n.value == "Null" ||
                          n.value == "NULL")) {
          n.kind = YamlNode::Kind::kNull;
        }
        attach(std::move(n));
        break;
      }
      case YAML_SEQUENCE_START_EVENT:
      case YAML_MAPPING_START_EVENT: {
        if (stack.size() > kMaxDepth) {
          return Status::SourceError(Where(file, line0) + ": YAML nested deeper than " +
                                     std::to_string(kMaxDepth) + " levels");
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
