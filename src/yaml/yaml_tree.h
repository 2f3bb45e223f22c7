// A small YAML document tree built from libyaml's event stream: scalars,
// sequences and mappings, each with the 1-based line it starts on. This is all
// torchgen's YAML files need (no anchors, tags or multi-document streams), and
// keeping the tree this plain lets the model code read it the way torchgen
// reads PyYAML's dicts. Malformed text (a truncated quote, a tab indent,
// binary bytes, absurd nesting) becomes Status::SourceError naming the file and
// line instead of a crash.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace optrace {

struct YamlNode {
  enum class Kind { kNull, kScalar, kSequence, kMapping };
  Kind kind = Kind::kNull;
  std::string value;    // scalar text, without quotes
  bool quoted = false;  // the scalar was quoted or a block literal: never a bool/null
  int line = 0;         // 1-based line where the node starts
  // Sequence items; for a mapping, keys and values alternate: k0, v0, k1, v1, ...
  std::vector<YamlNode> items;

  bool is_scalar() const { return kind == Kind::kScalar; }
  bool is_sequence() const { return kind == Kind::kSequence; }
  bool is_mapping() const { return kind == Kind::kMapping; }
  // The value under a scalar key of a mapping, or nullptr.
  const YamlNode* Get(std::string_view key) const;
  // YAML 1.1 boolean as PyYAML resolves a plain scalar ("True", "false", "yes", "off").
  // Returns false when the node is not such a scalar.
  bool AsBool(bool* out) const;
  // The node written back as one line of flow YAML ("[True, False]", "{a: b}").
  std::string Flow() const;
};

// Parses the first document of `text`. `file` is used only in error messages.
Status ParseYaml(std::string_view text, std::string_view file, YamlNode* root);

}  // namespace optrace
