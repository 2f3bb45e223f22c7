// Reading enum definitions from a lexed file, and the table of their
// members' values (enum_members.h).
#include "cpp/enum_members.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <limits>

#include "cpp/token_range.h"

namespace optrace {

namespace {

constexpr size_t kNone = static_cast<size_t>(-1);
// How far an enum's head (`enum class Name : std::uint8_t {`) may run.
constexpr size_t kMaxHeadTokens = 16;

bool Punct(const Token& t, char c) { return t.kind == TokKind::kPunct && t.Is(c); }

// Where the body of the enum whose `enum` keyword is at `i` opens, its
// name and whether it is scoped; kNone for a declaration without a body
// (`enum class Mode : int;`, `enum Mode m = ...`).
size_t EnumBody(const std::vector<Token>& t, size_t i, std::string* name, bool* scoped) {
  size_t k = i + 1;
  *scoped = k < t.size() && IsIdent(t[k]) && (t[k].text == "class" || t[k].text == "struct");
  if (*scoped) ++k;
  while (k + 1 < t.size() && Punct(t[k], '[') && Punct(t[k + 1], '[')) {  // [[nodiscard]]
    while (k < t.size() && !Punct(t[k], ']')) ++k;
    k += 2;
  }
  name->clear();
  if (k < t.size() && IsIdent(t[k])) *name = std::string(t[k++].text);
  if (k < t.size() && Punct(t[k], ':') && !(k + 1 < t.size() && Punct(t[k + 1], ':'))) {
    // The underlying type, up to the body.
    for (size_t end = k + kMaxHeadTokens; k < t.size() && k < end; ++k)
      if (Punct(t[k], '{') || Punct(t[k], ';') || Punct(t[k], '(') || Punct(t[k], '=')) break;
  }
  return k < t.size() && Punct(t[k], '{') ? k : kNone;
}

// The value `= ...` spells over tokens [b, e): an integer literal, possibly
// negated; nullopt for anything else.
std::optional<int64_t> LiteralValue(const std::vector<Token>& t, size_t b, size_t e) {
  bool negative = false;
  if (b < e && (Punct(t[b], '-') || Punct(t[b], '+'))) negative = Punct(t[b++], '-');
  if (e != b + 1 || t[b].kind != TokKind::kNumber) return std::nullopt;
  const std::optional<int64_t> v = IntegerLiteral(t[b].text);
  if (!v) return std::nullopt;
  return negative ? -*v : *v;
}

// Whether a preprocessor directive starts a line of text[from, to).
bool HasDirective(std::string_view text, size_t from, size_t to) {
  for (size_t at = text.find('\n', from); at != std::string_view::npos && at < to; at = text.find('\n', at + 1)) {
    size_t k = at + 1;
    while (k < to && (text[k] == ' ' || text[k] == '\t')) ++k;
    if (k < to && text[k] == '#') return true;
  }
  return false;
}

// The offset of token `tok` in `text` (its text points into it), or npos.
size_t OffsetIn(std::string_view text, const Token& tok) {
  const char* p = tok.text.data();
  if (p < text.data() || p > text.data() + text.size()) return std::string_view::npos;
  return static_cast<size_t>(p - text.data());
}

// The members of the body between `open` and `close`: one per top-level
// comma-separated piece.
void ReadBody(std::string_view text, const std::vector<Token>& t, size_t open, size_t close, const std::string& name,
              bool scoped, std::vector<CppEnumMember>* out) {
  std::optional<int64_t> next = 0;  // the value of the next implicit member
  for (const auto& [piece, end] : Toks(t).Args(open, close)) {
    // A directive between the previous piece and this one: members above
    // it may be the ones the build drops.
    const size_t from = OffsetIn(text, t[piece - 1]), to = OffsetIn(text, t[piece]);
    if (from != std::string_view::npos && to != std::string_view::npos && HasDirective(text, from, to))
      next = std::nullopt;
    size_t k = piece;
    if (k < end && IsIdent(t[k])) {
      CppEnumMember m;
      m.enum_name = name;
      m.member = std::string(t[k].text);
      m.scoped = scoped;
      m.line = t[k].line;
      ++k;
      while (k + 1 < end && Punct(t[k], '[') && Punct(t[k + 1], '[')) {  // MEMBER [[deprecated]]
        while (k < end && !Punct(t[k], ']')) ++k;
        k += 2;
      }
      std::optional<int64_t> value;
      if (k == end) value = next;
      else if (k < end && Punct(t[k], '=')) value = LiteralValue(t, k + 1, end);
      m.known = value.has_value();
      m.value = value.value_or(0);
      next = value && *value < std::numeric_limits<int64_t>::max() ? std::optional<int64_t>(*value + 1) : std::nullopt;
      out->push_back(std::move(m));
    } else if (k < end) {
      next = std::nullopt;  // no member read here: what follows counts from an unknown
    }
  }
}

}  // namespace

std::optional<int64_t> IntegerLiteral(std::string_view text) {
  std::string digits;
  for (char c : text)
    if (c != '\'') digits += c;
  while (!digits.empty() &&
         (digits.back() == 'u' || digits.back() == 'U' || digits.back() == 'l' || digits.back() == 'L'))
    digits.pop_back();
  if (digits.empty() || !std::isdigit(static_cast<unsigned char>(digits[0]))) return std::nullopt;
  int base = 10;
  size_t skip = 0;
  if (digits.size() > 2 && digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X')) base = 16, skip = 2;
  else if (digits.size() > 2 && digits[0] == '0' && (digits[1] == 'b' || digits[1] == 'B')) base = 2, skip = 2;
  else if (digits.size() > 1 && digits[0] == '0') base = 8, skip = 1;
  int64_t v = 0;
  const char* first = digits.data() + skip;
  const char* last = digits.data() + digits.size();
  auto [ptr, ec] = std::from_chars(first, last, v, base);
  if (ec != std::errc() || ptr != last || first == last) return std::nullopt;
  return v;
}

std::vector<CppEnumMember> ReadEnumMembers(std::string_view text, const std::vector<Token>& tokens) {
  std::vector<CppEnumMember> out;
  for (size_t i = 0; i < tokens.size(); ++i) {
    if (!IsIdent(tokens[i]) || tokens[i].text != "enum") continue;
    std::string name;
    bool scoped = false;
    const size_t open = EnumBody(tokens, i, &name, &scoped);
    if (open == kNone) continue;
    const size_t close = Toks(tokens).MatchClose(open, tokens.size());
    if (close == tokens.size()) break;
    ReadBody(text, tokens, open, close, name, scoped, &out);
    i = close;
  }
  return out;
}

EnumValues::EnumValues(const CppRecordView& index) {
  for (uint32_t f = 0; f < index.files().size(); ++f) Add(index.EnumMembersOf(f));
}

void EnumValues::Join(std::unordered_map<std::string, Entry>* table, const std::string& key, const CppEnumMember& m) {
  auto [it, fresh] = table->try_emplace(key, Entry{m.value, m.known});
  if (!fresh && (!it->second.known || !m.known || it->second.value != m.value)) it->second.known = false;
}

void EnumValues::Add(const std::vector<CppEnumMember>& members) {
  for (const CppEnumMember& m : members) {
    if (!m.enum_name.empty()) {
      enums_.insert(m.enum_name);
      Join(&qualified_, m.enum_name + "::" + m.member, m);
    }
    // A scoped member is never named bare, but a bare name that is one
    // too may be meant as either: the unscoped table keeps it, unknown.
    if (!m.scoped) Join(&bare_, m.member, m);
    else if (auto it = bare_.find(m.member); it != bare_.end()) it->second.known = false;
    else bare_.try_emplace(m.member, Entry{0, false});
  }
}

std::optional<int64_t> EnumValues::Value(std::string_view written) const {
  const size_t cut = written.rfind("::");
  const std::string_view member = cut == std::string_view::npos ? written : written.substr(cut + 2);
  const std::unordered_map<std::string, Entry>* table = &bare_;
  std::string key(member);
  if (cut != std::string_view::npos) {
    const std::string_view qualifier = written.substr(0, cut);
    const size_t before = qualifier.rfind("::");
    const std::string_view owner = before == std::string_view::npos ? qualifier : qualifier.substr(before + 2);
    if (enums_.count(std::string(owner))) {
      table = &qualified_;
      key = std::string(owner) + "::" + key;
    } else if (std::any_of(qualifier.begin(), qualifier.end(),
                           [](char c) { return std::isupper(static_cast<unsigned char>(c)); })) {
      return std::nullopt;  // a class's member (`Foo::kMax`), not an enum's
    }
  }
  auto it = table->find(key);
  if (it == table->end() || !it->second.known) return std::nullopt;
  return it->second.value;
}

}  // namespace optrace
