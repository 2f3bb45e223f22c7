// Enum definitions and the values of their members: what a condition's
// `mode == EmbeddingBagMode::MAX` or `reduction == at::Reduction::Mean`
// compares a number with. The scan reads every enum of a file
// (ReadEnumMembers, into CppFileRecords::enum_members); EnumValues is the
// table over an index's files that a trace asks.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "cpp/cpp_lexer.h"
#include "cpp/cpp_record_view.h"
#include "cpp/cpp_records.h"

namespace optrace {

// Every member of every `enum` / `enum class` / `enum struct` definition
// in `tokens` (lexed from `text`), in line order (CppEnumMember says how a
// value is read). A member the reader cannot take apart (a macro writing
// members) is recorded unknown under its first name, and breaks the chain
// of implicit values; so does a preprocessor directive inside the braces
// (`#if` may drop members the lexer keeps).
std::vector<CppEnumMember> ReadEnumMembers(std::string_view text, const std::vector<Token>& tokens);

// The integer a C++ integer literal spells (`2`, `0x10`, `010`, `0b11`,
// `1'000`, `3u`, `4LL`); nullopt for anything else (a float, a name, an
// overflow).
std::optional<int64_t> IntegerLiteral(std::string_view text);

// The members of an index's enums by name. A name is decided only where it
// says one value: every enum of that name defining that member (anywhere,
// nested in any namespace or class) reads it as the same known value.
class EnumValues {
 public:
  EnumValues() = default;
  // Every file's members (a layer's for the files it replaces).
  explicit EnumValues(const CppRecordView& index);
  void Add(const std::vector<CppEnumMember>& members);

  // The value of the member `written` names: `Enum::Member`, with any
  // qualification before the enum's name (`at::native::EmbeddingBagMode::MAX`);
  // a bare member (`Mean`) of an unscoped enum, or one qualified by
  // namespaces alone (lower-case: `at::Mean`). Nullopt where no enum
  // defines it, where its value is unknown, or where namesakes disagree.
  std::optional<int64_t> Value(std::string_view written) const;

 private:
  struct Entry {
    int64_t value = 0;
    bool known = false;  // false: unread, or namesakes disagree
  };
  static void Join(std::unordered_map<std::string, Entry>* table, const std::string& key, const CppEnumMember& m);

  std::unordered_map<std::string, Entry> qualified_;  // "Enum::Member"
  std::unordered_map<std::string, Entry> bare_;       // "Member" of an unscoped enum
  std::unordered_set<std::string> enums_;             // the enums' own names
};

}  // namespace optrace
