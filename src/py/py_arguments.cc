// Text-level reading: brackets and quotes are balanced by hand (a string
// may hold a comma or a parenthesis), whitespace is trimmed, nothing is
// evaluated. Binding follows Python's rules for the common forms --
// positionals fill parameters in order up to the first keyword-only one,
// keywords by name -- and gives up on nothing: an argument it cannot place
// (too many positionals, an unknown keyword) is simply not bound.
#include "py/py_arguments.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <utility>

#include "base/text.h"

namespace optrace {

namespace {

bool Opens(char c) { return c == '(' || c == '[' || c == '{'; }
bool Closes(char c) { return c == ')' || c == ']' || c == '}'; }

// Pieces of `text` between top-level commas (base/text's SplitTopLevel),
// empty pieces dropped (a trailing comma).
std::vector<std::string> TopLevelPieces(std::string_view text) {
  std::vector<std::string> out;
  for (std::string& piece : SplitTopLevel(text, ',', "([{", ")]}"))
    if (!piece.empty()) out.push_back(std::move(piece));
  return out;
}

// The position of a top-level '=' that makes `piece` a keyword argument
// (`name=value`, not `a == b`), or npos.
size_t KeywordEquals(std::string_view piece) {
  size_t i = 0;
  while (i < piece.size() && IsIdentChar(piece[i])) ++i;
  size_t name_end = i;
  if (name_end == 0) return std::string_view::npos;
  while (i < piece.size() && std::isspace(static_cast<unsigned char>(piece[i]))) ++i;
  if (i < piece.size() && piece[i] == '=' && (i + 1 >= piece.size() || piece[i + 1] != '=')) return i;
  return std::string_view::npos;
}

// The index just past the bracket that closes the one opening at `open`,
// or npos when the text ends first.
size_t MatchingClose(std::string_view text, size_t open) {
  int depth = 0;
  char quote = 0;
  for (size_t i = open; i < text.size(); ++i) {
    char c = text[i];
    if (quote) {
      if (c == '\\') ++i;
      else if (c == quote) quote = 0;
      continue;
    }
    if (c == '\'' || c == '"') quote = c;
    else if (Opens(c)) ++depth;
    else if (Closes(c) && --depth == 0) return i + 1;
  }
  return std::string_view::npos;
}

// `text` without its `# ...` comments (a '#' inside a string is kept).
std::string WithoutComments(std::string_view text) {
  std::string out;
  char quote = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (!quote && c == '#') {
      while (i < text.size() && text[i] != '\n') ++i;
      out.push_back('\n');
      continue;
    }
    if (quote && c == '\\' && i + 1 < text.size()) {
      out.push_back(c);
      out.push_back(text[++i]);
      continue;
    }
    if (c == '\'' || c == '"') quote = quote == c ? 0 : quote ? quote : c;
    out.push_back(c);
  }
  return out;
}

bool IsNumber(std::string_view v) {
  if (!v.empty() && (v[0] == '-' || v[0] == '+')) v.remove_prefix(1);
  if (v.empty() || !(std::isdigit(static_cast<unsigned char>(v[0])) || v[0] == '.')) return false;
  for (char c : v)
    if (!(IsIdentChar(c) || c == '.' || c == '+' || c == '-')) return false;
  return true;
}

}  // namespace

void PyContinuation::Scan(std::string_view l) {
  backslash = false;
  for (size_t i = 0; i < l.size(); ++i) {
    const char c = l[i];
    if (triple) {
      if (c == triple && l.substr(i, 3) == std::string(3, triple)) {
        triple = 0;
        i += 2;
      }
      continue;
    }
    if (c == '#') return;
    if (c == '"' || c == '\'') {
      if (l.substr(i, 3) == std::string(3, c)) {
        triple = c;
        i += 2;
        continue;
      }
      for (++i; i < l.size() && l[i] != c; ++i)
        if (l[i] == '\\') ++i;
      continue;
    }
    if (Opens(c)) ++depth;
    if (Closes(c) && depth > 0) --depth;
  }
  backslash = !l.empty() && l.back() == '\\' && !triple;
}

std::string_view CodeOf(std::string_view line) {
  char quote = 0;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quote) {
      if (c == '\\') ++i;
      else if (c == quote) quote = 0;
    } else if (c == '"' || c == '\'') {
      quote = c;
    } else if (c == '#') {
      return TrimView(line.substr(0, i));
    }
  }
  return line;
}

std::vector<PyArgument> SplitArguments(std::string_view text) {
  std::vector<PyArgument> out;
  // A comment after an argument of a call spread over lines (`self._flat_weights,
  // # type: ignore[arg-type]`) is no part of the next one.
  const std::string code = WithoutComments(text);
  for (std::string_view piece : TopLevelPieces(code)) {
    size_t eq = KeywordEquals(piece);
    if (eq == std::string_view::npos) {
      out.push_back({"", std::string(piece)});
    } else {
      out.push_back({std::string(TrimView(piece.substr(0, eq))), std::string(TrimView(piece.substr(eq + 1)))});
    }
  }
  return out;
}

std::vector<PyParameter> ParseParameters(std::string_view header) {
  std::vector<PyParameter> out;
  size_t open = header.find('(');
  if (open == std::string_view::npos) return out;
  // A header cut short (a long signature) gives the parameters it shows.
  size_t close = MatchingClose(header, open);
  if (close == std::string_view::npos) close = header.size() + 1;
  bool keyword_only = false;
  std::string params = WithoutComments(header.substr(open + 1, close - open - 2));
  for (std::string_view piece : TopLevelPieces(params)) {
    PyParameter p;
    if (piece == "*" || piece == "/") {
      keyword_only = keyword_only || piece == "*";
      continue;
    }
    if (piece.starts_with("*")) {
      p.variadic = true;
      keyword_only = true;
      piece.remove_prefix(piece.starts_with("**") ? 2 : 1);
    }
    size_t eq = KeywordEquals(piece);
    std::string_view name = eq == std::string_view::npos ? piece : piece.substr(0, eq);
    if (size_t colon = name.find(':'); colon != std::string_view::npos) name = name.substr(0, colon);
    if (eq == std::string_view::npos) {
      // `x: int = 3` has its '=' after the annotation.
      size_t annotated = piece.find('=');
      if (annotated != std::string_view::npos && piece.find(':') < annotated &&
          (annotated + 1 >= piece.size() || piece[annotated + 1] != '='))
        p.default_value = std::string(TrimView(piece.substr(annotated + 1)));
    } else {
      p.default_value = std::string(TrimView(piece.substr(eq + 1)));
    }
    p.name = std::string(TrimView(name));
    p.keyword_only = keyword_only && !p.variadic;
    out.push_back(std::move(p));
  }
  return out;
}

// The end of callee `callee` written at `hit` of `text`, npos when it is not
// there. The scanner writes an inner call's arguments as `(...)`
// (`super(...).__init__` for `super(Conv2d, self).__init__`): there any
// balanced group of arguments matches.
static size_t CalleeEnd(std::string_view text, size_t hit, std::string_view callee) {
  static constexpr std::string_view kElided = "(...)";
  size_t at = hit;
  while (true) {
    size_t elided = callee.find(kElided);
    std::string_view literal = callee.substr(0, elided);
    if (text.substr(at, literal.size()) != literal) return std::string_view::npos;
    at += literal.size();
    if (elided == std::string_view::npos) return at;
    if (at >= text.size() || text[at] != '(') return std::string_view::npos;
    at = MatchingClose(text, at);
    if (at == std::string_view::npos) return at;
    callee.remove_prefix(elided + kElided.size());
  }
}

std::optional<std::string> CallArgumentText(std::string_view text, int line, std::string_view callee) {
  if (line <= 0 || callee.empty()) return std::nullopt;
  std::string_view head = callee.substr(0, callee.find("(...)"));
  if (head.empty()) return std::nullopt;
  size_t at = 0;
  for (int l = 1; l < line; ++l) {
    at = text.find('\n', at);
    if (at == std::string_view::npos) return std::nullopt;
    ++at;
  }
  size_t line_end = text.find('\n', at);
  if (line_end == std::string_view::npos) line_end = text.size();
  for (size_t from = at;;) {
    size_t hit = text.find(head, from);
    if (hit == std::string_view::npos || hit >= line_end) return std::nullopt;
    from = hit + 1;
    bool word_before = hit > 0 && (IsIdentChar(text[hit - 1]) || text[hit - 1] == '.');
    size_t open = CalleeEnd(text, hit, callee);
    if (word_before || open == std::string_view::npos) continue;
    while (open < text.size() && (text[open] == ' ' || text[open] == '\t')) ++open;
    if (open >= text.size() || text[open] != '(') continue;
    size_t close = MatchingClose(text, open);
    if (close == std::string_view::npos) return std::nullopt;
    return std::string(text.substr(open + 1, close - open - 2));
  }
}

std::optional<SplitCall> SplitCallQuery(std::string_view query) {
  query = TrimView(query);
  size_t open = query.find('(');
  if (open == 0 || open == std::string_view::npos || query.back() != ')') return std::nullopt;
  if (MatchingClose(query, open) != query.size()) return std::nullopt;
  std::string_view name = TrimView(query.substr(0, open));
  for (char c : name)
    if (!(IsIdentChar(c) || c == '.' || c == ':')) return std::nullopt;
  return SplitCall{std::string(name), std::string(TrimView(query.substr(open + 1, query.size() - open - 2)))};
}

std::map<std::string, std::string> BindArguments(const std::vector<PyArgument>& arguments,
                                                 const std::vector<PyParameter>& params, bool method) {
  std::map<std::string, std::string> out;
  size_t next = 0;
  if (method && !params.empty() && (params[0].name == "self" || params[0].name == "cls")) next = 1;
  for (const PyArgument& a : arguments) {
    if (!a.name.empty()) {
      for (const PyParameter& p : params)
        if (p.name == a.name && !p.variadic) out[p.name] = a.value;
      continue;
    }
    if (a.value.starts_with("*")) return out;  // an unpacked sequence: later positions are unknown
    if (next >= params.size() || params[next].keyword_only || params[next].variadic) continue;
    out[params[next++].name] = a.value;
  }
  return out;
}

namespace {

// The value of the statement whose '=' is at `eq`: to the end of the
// statement, brackets closed (a value continued over lines is joined).
std::string StatementValue(std::string_view text, size_t eq) {
  size_t stop = eq + 1;
  int depth = 0;
  char quote = 0;
  for (; stop < text.size(); ++stop) {
    char c = text[stop];
    if (quote) {
      if (c == '\\') ++stop;
      else if (c == quote) quote = 0;
      continue;
    }
    if (c == '\'' || c == '"') quote = c;
    else if (Opens(c)) ++depth;
    else if (Closes(c)) --depth;
    else if (c == '\n' && depth <= 0) break;
  }
  return CollapseSpace(text.substr(eq + 1, stop - eq - 1));
}

// The '=' of an assignment statement at the top level of `line` -- not a
// comparison, not a keyword argument inside brackets, not `:=` -- and
// where its operator begins: before the '=' for an augmented one (`+=`,
// `//=`, `>>=`), at it for a plain one. nullopt for none.
struct Assigning {
  size_t op = 0, eq = 0;
};
std::optional<Assigning> AssigningEquals(std::string_view line) {
  std::optional<Assigning> found;
  int depth = 0;
  char quote = 0;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quote) {
      if (c == '\\') ++i;
      else if (c == quote) quote = 0;
      continue;
    }
    if (c == '\'' || c == '"') quote = c;
    else if (c == '#') break;
    else if (Opens(c)) ++depth;
    // A line closing a bracket it did not open lies inside one (`y, name=v)`
    // of a call spread over lines): a keyword argument, no statement.
    else if (Closes(c) && --depth < 0) return std::nullopt;
    else if (c == '=' && depth == 0 && !found) {
      if (i + 1 < line.size() && line[i + 1] == '=') {  // ==
        ++i;
        continue;
      }
      const char p = i > 0 ? line[i - 1] : ' ';
      if (p == '!' || p == '=' || p == ':') continue;  // != or walrus
      if (p == '<' || p == '>') {                      // <= >= are comparisons, <<= >>= assign
        if (i >= 2 && line[i - 2] == p) found = Assigning{i - 2, i};
        continue;
      }
      if (std::string_view("+-*/%&|^@").find(p) == std::string_view::npos) {
        found = Assigning{i, i};
        continue;
      }
      const bool doubled = (p == '/' || p == '*') && i >= 2 && line[i - 2] == p;  // //= **=
      found = Assigning{doubled ? i - 2 : i - 1, i};
    }
  }
  return found;
}

// Where `name` is one of the targets of a tuple assignment written before
// the '=' (`input, batch_sizes, sorted_indices, unsorted_indices = input`,
// `(a, b) = ...`): its position; nullopt when it is none of them.
std::optional<size_t> TupleTarget(std::string_view targets, std::string_view name) {
  targets = TrimView(targets);
  if (targets.size() >= 2 && (targets.front() == '(' || targets.front() == '[') &&
      MatchingClose(targets, 0) == targets.size())
    targets = TrimView(targets.substr(1, targets.size() - 2));
  if (targets.find(',') == std::string_view::npos) return std::nullopt;
  std::vector<std::string> parts = SplitTopLevel(targets, ',', "([{", ")]}");
  for (size_t i = 0; i < parts.size(); ++i)
    if (parts[i] == name || (parts[i].starts_with("*") && TrimView(std::string_view(parts[i]).substr(1)) == name))
      return i;
  return std::nullopt;
}

}  // namespace

// Every statement that writes `name`: `name = v`, an augmented `name += v`
// (value `name + (v)`: what it held, changed), and a tuple target (`a, name
// = v`: value `(v)[1]`, an element of what is unpacked). A write missed
// here would leave the name holding an earlier value it no longer holds.
std::vector<PyAssignment> AssignmentsOf(std::string_view text, int from, int before, std::string_view name) {
  std::vector<PyAssignment> out;
  size_t at = 0;
  int line = 1;
  for (; line < from && at != std::string_view::npos; ++line) {
    at = text.find('\n', at);
    if (at != std::string_view::npos) ++at;
  }
  PyContinuation continuation;  // a keyword argument's or docstring's line starts no statement
  // A def or class nested in the function is a scope of its own: its
  // assignments (Combine.backward's `(mask,) = ctx.saved_tensors`) bind its
  // names, not the function's. The indentation of the one being skipped.
  int nested = -1;
  for (; line < before && at != std::string_view::npos && at < text.size(); ++line) {
    size_t end = text.find('\n', at);
    std::string_view raw = text.substr(at, end == std::string_view::npos ? std::string_view::npos : end - at);
    std::string_view l = TrimView(raw);
    int indent = static_cast<int>(l.data() - raw.data());
    const size_t line_start = static_cast<size_t>(l.data() - text.data());
    at = end == std::string_view::npos ? end : end + 1;
    const bool continued = continuation.Continued();
    continuation.Scan(l);
    if (continued || l.empty() || l.starts_with("#")) continue;
    if (nested >= 0 && indent > nested) continue;
    nested = -1;
    if (line > from && (l.starts_with("def ") || l.starts_with("async def ") || l.starts_with("class "))) {
      nested = indent;
      continue;
    }
    if (l.find(name) == std::string_view::npos) continue;
    const std::optional<Assigning> assigning = AssigningEquals(l);
    if (!assigning) continue;
    std::string_view target = TrimView(l.substr(0, assigning->op));
    const std::string value = StatementValue(text, line_start + assigning->eq);
    const bool augmented = assigning->op != assigning->eq;
    if (target == name && !augmented) {
      out.push_back({line, indent, value});
    } else if (target == name) {
      std::string_view op = l.substr(assigning->op, assigning->eq - assigning->op);
      out.push_back({line, indent, std::string(name) + " " + std::string(op) + " (" + value + ")"});
    } else if (auto i = augmented ? std::nullopt : TupleTarget(target, name)) {
      out.push_back({line, indent, "(" + value + ")[" + std::to_string(*i) + "]"});
    }
  }
  return out;
}

namespace {

// `x.shape`, `x.size()` (a.b.shape too): a tensor's whole size.
bool IsWholeShape(std::string_view v) {
  for (std::string_view tail : {".shape", ".size()"}) {
    if (!v.ends_with(tail)) continue;
    std::string_view receiver = v.substr(0, v.size() - tail.size());
    return !receiver.empty() &&
           std::all_of(receiver.begin(), receiver.end(), [](char c) { return IsIdentChar(c) || c == '.'; });
  }
  return false;
}

// `x.shape[i]`, `x.size(i)`, `x.dim()`, `x.ndim`, `x.numel()`: one size of a tensor.
bool IsOneSize(std::string_view v) {
  size_t dot = v.find('.');
  if (dot == std::string_view::npos || dot == 0 || !IsIdentifier(v.substr(0, dot))) return false;
  std::string_view call = v.substr(dot + 1);
  if (call == "dim()" || call == "ndim" || call == "numel()") return true;
  for (std::string_view head : {"shape[", "size("}) {
    if (!call.starts_with(head)) continue;
    std::string_view index = call.substr(head.size());
    if (index.empty() || index.back() != (head == "shape[" ? ']' : ')')) return false;
    index.remove_suffix(1);
    index = TrimView(index);
    return !index.empty() && std::all_of(index.begin(), index.end(), [](char c) { return IsIdentChar(c) || c == '-'; });
  }
  return false;
}

// The names a statement's left side writes (`a, (b, c) =` -> a, b, c), or
// none when the statement is no assignment; `compound` for `+=` and kin.
std::vector<std::string_view> Written(std::string_view statement, std::string_view* value, bool* compound) {
  *compound = false;
  int depth = 0;
  char quote = 0;
  for (size_t i = 0; i < statement.size(); ++i) {
    char c = statement[i];
    if (quote) {
      if (c == '\\') ++i;
      else if (c == quote) quote = 0;
      continue;
    }
    if (c == '\'' || c == '"') quote = c;
    if (c == '#') return {};
    if (Opens(c)) ++depth;
    else if (Closes(c)) --depth;
    if (c != '=' || depth != 0) continue;
    const char before = i > 0 ? statement[i - 1] : ' ', after = i + 1 < statement.size() ? statement[i + 1] : ' ';
    if (after == '=' || before == '=' || before == '!' || before == '<' || before == '>') return {};
    std::string_view lhs = statement.substr(0, i);
    if (!lhs.empty() && std::string_view("+-*/%&|^@").find(lhs.back()) != std::string_view::npos) {
      *compound = true;
      lhs.remove_suffix(1);
    }
    *value = TrimView(CodeOf(statement.substr(i + 1)));
    std::vector<std::string_view> names;
    for (size_t at = 0; at <= lhs.size();) {
      size_t comma = lhs.find(',', at);
      if (comma == std::string_view::npos) comma = lhs.size();
      std::string_view item = TrimView(lhs.substr(at, comma - at));
      while (!item.empty() && (item.front() == '(' || item.front() == '[')) item = TrimView(item.substr(1));
      while (!item.empty() && (item.back() == ')' || item.back() == ']'))
        item = TrimView(item.substr(0, item.size() - 1));
      if (!item.empty()) names.push_back(item);
      at = comma + 1;
    }
    return names;
  }
  return {};
}

}  // namespace

bool HoldsATensorSize(std::string_view text, int from, int before, std::string_view name) {
  bool sized = false;
  int line = 1;
  for (size_t at = 0; at < text.size() && line < before; ++line) {
    size_t end = text.find('\n', at);
    if (end == std::string_view::npos) end = text.size();
    std::string_view statement = TrimView(text.substr(at, end - at));
    at = end + 1;
    if (line < from) continue;
    std::string_view value;
    bool compound = false;
    std::vector<std::string_view> names = Written(statement, &value, &compound);
    if (std::find(names.begin(), names.end(), name) == names.end()) continue;
    const bool size = !compound && (names.size() > 1 ? IsWholeShape(value) : IsOneSize(value));
    if (!size) return false;
    sized = true;
  }
  return sized;
}

std::optional<bool> LiteralTruth(std::string_view value) {
  value = TrimView(value);
  while (value.size() >= 2 && value.front() == '(' && value.back() == ')' && MatchingClose(value, 0) == value.size())
    value = TrimView(value.substr(1, value.size() - 2));
  if (value == "True") return true;
  if (value == "False" || value == "None") return false;
  if (value.starts_with("f") || value.starts_with("r")) value.remove_prefix(1);
  if (value.size() >= 2 && (value.front() == '\'' || value.front() == '"')) return value.size() > 2;
  if (IsNumber(value)) {
    for (char c : value)
      if (c >= '1' && c <= '9') return true;
    return false;
  }
  return std::nullopt;
}

std::optional<std::string> ConvertedLiteral(std::string_view builtin, std::string_view v) {
  v = TrimView(v);
  double number = 0;
  if (v == "True" || v == "False") {
    number = v == "True" ? 1 : 0;
  } else {
    // Plain decimals only: 0, -3, 0.5, 1e-05 (no hex, no underscores).
    if (v.empty() || v.find_first_not_of("+-0123456789.eE") != std::string_view::npos) return std::nullopt;
    const std::string text(v);
    char* end = nullptr;
    number = std::strtod(text.c_str(), &end);
    if (end != text.c_str() + text.size()) return std::nullopt;
  }
  if (builtin == "bool") return std::string(number != 0 ? "True" : "False");
  if (builtin == "int") {
    if (!(std::fabs(number) < 9e18)) return std::nullopt;  // past a long long: not written out here
    return std::to_string(static_cast<long long>(number));
  }
  if (builtin != "float") return std::nullopt;
  if (v.find_first_of(".eE") != std::string_view::npos) return std::string(v);  // already a float literal
  return v == "True" ? "1.0" : v == "False" ? "0.0" : std::string(v) + ".0";
}

bool IsLiteral(std::string_view value) {
  value = TrimView(value);
  if (value.empty()) return false;
  if (value == "True" || value == "False" || value == "None") return true;
  if (IsNumber(value)) return true;
  if ((value.front() == '\'' || value.front() == '"') && value.size() >= 2 && value.back() == value.front())
    return true;
  // A tuple or list of numbers: F.pad's `(1, 1)`, a size `[2, 3]`.
  if ((value.front() == '(' && value.back() == ')') || (value.front() == '[' && value.back() == ']')) {
    std::string_view inside = TrimView(value.substr(1, value.size() - 2));
    if (inside.empty()) return false;
    for (std::string_view element : SplitTopLevel(inside, ','))
      if (!TrimView(element).empty() && !IsNumber(TrimView(element))) return false;
    return true;
  }
  // A dtype: torch.float16, torch.bfloat16, torch.int64 ...
  if (value.starts_with("torch.")) {
    std::string_view rest = value.substr(6);
    static const char* kDtypes[] = {"float",   "double", "half", "bfloat16", "int",    "long",   "bool",
                                    "complex", "uint8",  "int8", "short",    "cfloat", "cdouble"};
    for (const char* d : kDtypes)
      if (rest.starts_with(d) && rest.find_first_of(".()") == std::string_view::npos) return true;
  }
  return false;
}

}  // namespace optrace
