// ValueScope: a reader of expression text, not a parser. It splits at
// top-level operators and keywords, strips unary signs and parentheses, and
// reads primaries (literals, names, attributes, calls, subscripts) from the
// right: `x.size(1)` is a call of method `size` on `x`, `x.shape[-1]` a
// subscript of attribute `shape`. Anything it cannot read is kUnknown, which
// callers treat as "may be a tensor".
#include "py/py_values.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <unordered_set>

#include "base/text.h"
#include "py/py_tokenizer.h"

namespace optrace {
namespace {

constexpr int kMaxDepth = 24;

std::string_view Trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

bool IsQuote(char c) { return c == '"' || c == '\''; }

// Index past the string literal starting with the quote at i.
size_t SkipString(std::string_view s, size_t i) {
  char q = s[i];
  bool triple = i + 2 < s.size() && s[i + 1] == q && s[i + 2] == q;
  size_t j = i + (triple ? 3 : 1);
  while (j < s.size()) {
    if (s[j] == '\\') {
      j += 2;
      continue;
    }
    if (s[j] == q && (!triple || (j + 2 < s.size() && s[j + 1] == q && s[j + 2] == q))) return j + (triple ? 3 : 1);
    ++j;
  }
  return s.size();
}

// Index of the bracket matching the one at `open` (forward), or npos.
size_t MatchForward(std::string_view s, size_t open) {
  int depth = 0;
  for (size_t i = open; i < s.size(); ++i) {
    char c = s[i];
    if (IsQuote(c)) {
      i = SkipString(s, i) - 1;
      continue;
    }
    if (c == '(' || c == '[' || c == '{') ++depth;
    else if (c == ')' || c == ']' || c == '}') {
      if (--depth == 0) return i;
    }
  }
  return std::string_view::npos;
}

// Index of the bracket opening the group that closes at s.back(), or npos.
size_t MatchBackward(std::string_view s) {
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (IsQuote(c)) {
      i = SkipString(s, i) - 1;
      continue;
    }
    if (c == '(' || c == '[' || c == '{') {
      size_t m = MatchForward(s, i);
      if (m == std::string_view::npos) return m;
      if (m == s.size() - 1) return i;
      i = m;
    }
  }
  return std::string_view::npos;
}

// A '+' or '-' inside a number's exponent (1e-6).
bool InExponent(std::string_view s, size_t i) {
  if (i < 2 || (s[i - 1] != 'e' && s[i - 1] != 'E')) return false;
  size_t b = i - 1;
  while (b > 0 && (IsIdentChar(s[b - 1]) || s[b - 1] == '.')) --b;
  return std::isdigit(static_cast<unsigned char>(s[b])) || s[b] == '.';
}

bool KeywordAt(std::string_view s, size_t i, std::string_view kw) {
  return s.substr(i, kw.size()) == kw && (i == 0 || !IsIdentChar(s[i - 1])) &&
         (i + kw.size() >= s.size() || !IsIdentChar(s[i + kw.size()]));
}

// Splits at top-level commas.
std::vector<std::string_view> SplitCommas(std::string_view s) {
  std::vector<std::string_view> out;
  size_t start = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (IsQuote(c)) {
      i = SkipString(s, i) - 1;
    } else if (c == '(' || c == '[' || c == '{') {
      size_t m = MatchForward(s, i);
      if (m == std::string_view::npos) return {s};
      i = m;
    } else if (c == ',') {
      out.push_back(Trim(s.substr(start, i - start)));
      start = i + 1;
    }
  }
  out.push_back(Trim(s.substr(start)));
  std::erase_if(out, [](std::string_view p) { return p.empty(); });
  return out;
}

// Splits at top-level binary operators and the keywords that join
// expressions (and, or, if, else, in, is, not). Unary signs leave an empty
// piece, dropped. A lambda makes the whole thing unreadable (false).
bool SplitOperators(std::string_view s, std::vector<std::string_view>* parts) {
  static const char kOps[] = "+-*/%@&|^<>=!~";
  size_t start = 0;
  auto cut = [&](size_t at, size_t skip) {
    parts->push_back(Trim(s.substr(start, at - start)));
    start = at + skip;
  };
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (IsQuote(c)) {
      i = SkipString(s, i) - 1;
    } else if (c == '(' || c == '[' || c == '{') {
      size_t m = MatchForward(s, i);
      if (m == std::string_view::npos) return false;
      i = m;
    } else if (std::strchr(kOps, c) && c != '\0') {
      if ((c == '+' || c == '-') && InExponent(s, i)) continue;
      cut(i, 1);
    } else if (KeywordAt(s, i, "lambda") || KeywordAt(s, i, "for")) {
      return false;
    } else {
      for (std::string_view kw : {"and", "or", "if", "else", "in", "is", "not"}) {
        if (KeywordAt(s, i, kw)) {
          cut(i, kw.size());
          i += kw.size() - 1;
          break;
        }
      }
    }
  }
  cut(s.size(), 0);
  std::erase_if(*parts, [](std::string_view p) { return p.empty(); });
  return true;
}

bool IsNumber(std::string_view s) {
  return !s.empty() && (std::isdigit(static_cast<unsigned char>(s[0])) ||
                        (s[0] == '.' && s.size() > 1 && std::isdigit(static_cast<unsigned char>(s[1]))));
}
bool IsStringLiteral(std::string_view s) {
  size_t i = 0;
  while (i < s.size() && i < 3 && std::isalpha(static_cast<unsigned char>(s[i]))) ++i;
  return i < s.size() && IsQuote(s[i]) && SkipString(s, i) == s.size();
}

ValueKind Both(ValueKind a, ValueKind b) { return a == b ? a : ValueKind::kUnknown; }

}  // namespace

ValueKind ValueScope::KindOf(std::string_view expr) const { return ExprKind(Trim(expr), 0); }

ValueKind ValueScope::ExprKind(std::string_view e, int depth) const {
  if (e.empty() || depth > kMaxDepth || e.substr(0, 3) == "...") return ValueKind::kUnknown;
  std::vector<std::string_view> commas = SplitCommas(e);
  if (commas.size() > 1) {  // a tuple: scalar when every item is (a shape), else a container
    for (std::string_view item : commas)
      if (ExprKind(item, depth + 1) != ValueKind::kScalar) return ValueKind::kContainer;
    return ValueKind::kScalar;
  }
  std::vector<std::string_view> parts;
  if (!SplitOperators(e, &parts) || parts.empty()) return ValueKind::kUnknown;
  if (parts.size() == 1 && parts[0].size() == e.size()) return PrimaryKind(e, depth);
  // An operator expression: a tensor when an operand is one, scalar when
  // all are; list * int and str % x are no tensors either, but what they
  // are is not told.
  bool all_scalar = true, any_unknown = false;
  for (std::string_view p : parts) {
    ValueKind k = ExprKind(p, depth + 1);
    if (k == ValueKind::kTensor) return k;
    all_scalar = all_scalar && k == ValueKind::kScalar;
    any_unknown = any_unknown || k == ValueKind::kUnknown;
  }
  if (any_unknown) return ValueKind::kUnknown;
  return all_scalar ? ValueKind::kScalar : ValueKind::kContainer;
}

ValueKind ValueScope::PrimaryKind(std::string_view e, int depth) const {
  e = Trim(e);
  if (e.empty()) return ValueKind::kUnknown;
  if (IsNumber(e) || IsStringLiteral(e) || e == "<str>" || e == "True" || e == "False" || e == "None")
    return ValueKind::kScalar;  // "<str>": a string receiver as the Python index writes it
  char last = e.back();
  if (last == ')' || last == ']' || last == '}') {
    size_t open = MatchBackward(e);
    if (open == std::string_view::npos) return ValueKind::kUnknown;
    std::string_view head = Trim(e.substr(0, open));
    std::string_view inner = e.substr(open + 1, e.size() - open - 2);
    if (head.empty()) {
      if (last == ')') return ExprKind(Trim(inner), depth + 1);  // parentheses
      return ValueKind::kContainer;                              // a list, dict or set display
    }
    if (last == ')') return CallKind(head, inner, depth);
    if (last == ']') {  // a subscript: items of a shape are ints, of a tensor tensors; else unknown
      ValueKind hk = PrimaryKind(head, depth + 1);
      if (hk == ValueKind::kTensors) return ValueKind::kUnknown;  // xs[0] a tensor, xs[1:] a list
      return hk == ValueKind::kScalar || hk == ValueKind::kTensor ? hk : ValueKind::kUnknown;
    }
    return ValueKind::kUnknown;
  }
  size_t dot = e.rfind('.');
  if (dot == std::string_view::npos) {
    if (!IsIdentifier(e)) return ValueKind::kUnknown;
    auto it = locals_.find(std::string(e));
    return it == locals_.end() ? ValueKind::kUnknown : it->second;
  }
  std::string_view recv = Trim(e.substr(0, dot)), attr = Trim(e.substr(dot + 1));
  if (!IsIdentifier(attr)) return ValueKind::kUnknown;
  if (recv == "self") {
    auto it = attrs_.find(std::string(attr));
    return it == attrs_.end() ? ValueKind::kUnknown : it->second;
  }
  if (recv.substr(0, 5) == "self.") {  // an attribute of a layer: "proj.in_features"
    auto it = attrs_.find(std::string(recv.substr(5)) + "." + std::string(attr));
    if (it != attrs_.end()) return it->second;
  }
  if (std::find(scalar_modules_.begin(), scalar_modules_.end(), recv) != scalar_modules_.end())
    return ValueKind::kScalar;  // math.pi
  if (facts_ && facts_->attr_is_scalar && facts_->attr_is_scalar(attr)) return ValueKind::kScalar;
  if (PrimaryKind(recv, depth + 1) == ValueKind::kTensor &&
      (attr == "T" || attr == "mT" || attr == "H" || attr == "mH"))
    return ValueKind::kTensor;  // the tensor properties
  return ValueKind::kUnknown;
}

ValueKind ValueScope::CallKind(std::string_view callee, std::string_view args, int depth) const {
  if (auto known = call_results_.find(std::string(Trim(callee))); known != call_results_.end()) return known->second;
  static const char* kScalarBuiltins[] = {"len",        "int",        "float",   "bool",     "round", "str",
                                          "hash",       "id",         "ord",     "chr",      "repr",  "format",
                                          "isinstance", "issubclass", "hasattr", "callable", "divmod"};
  static const char* kContainerBuiltins[] = {"list",     "dict",  "set",       "tuple", "sorted", "enumerate", "zip",
                                             "reversed", "range", "frozenset", "map",   "filter", "vars",      "dir"};
  for (const char* b : kScalarBuiltins)
    if (callee == b) return ValueKind::kScalar;
  for (const char* b : kContainerBuiltins)
    if (callee == b) return ValueKind::kContainer;
  if (callee == "max" || callee == "min" || callee == "sum" || callee == "abs") {
    // Scalar when every argument is (max(a, b) of ints); tensors otherwise.
    std::vector<std::string_view> items = SplitCommas(args);
    if (items.empty()) return ValueKind::kUnknown;
    for (std::string_view a : items)
      if (ExprKind(a, depth + 1) != ValueKind::kScalar) return ValueKind::kUnknown;
    return ValueKind::kScalar;
  }
  size_t dot = callee.rfind('.');
  if (dot == std::string_view::npos) return ValueKind::kUnknown;
  std::string_view recv = Trim(callee.substr(0, dot)), method = Trim(callee.substr(dot + 1));
  if (std::find(scalar_modules_.begin(), scalar_modules_.end(), recv) != scalar_modules_.end())
    return ValueKind::kScalar;  // math.sqrt(d)
  ValueKind rk = PrimaryKind(recv, depth + 1);
  if (rk == ValueKind::kScalar) return ValueKind::kScalar;  // "x".join(...), n.bit_length()
  if (rk == ValueKind::kContainer || rk == ValueKind::kTensors)
    return ValueKind::kUnknown;  // xs.pop() may give anything
  if (facts_ && facts_->method_returns_scalar && facts_->method_returns_scalar(method)) return ValueKind::kScalar;
  if (rk == ValueKind::kTensor && facts_ && facts_->method_returns_tensor && facts_->method_returns_tensor(method))
    return ValueKind::kTensor;  // div.mul(alpha).add(k)
  if (rk == ValueKind::kTensor && facts_ && facts_->method_returns_tensors && facts_->method_returns_tensors(method))
    return ValueKind::kTensors;  // proj.chunk(3)
  return ValueKind::kUnknown;
}

bool ParseAssignment(std::string_view line, Assignment* out) {
  std::string_view s = Trim(line);
  size_t hash = std::string_view::npos;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (IsQuote(c)) {
      i = SkipString(s, i) - 1;
      continue;
    }
    if (c == '#') {
      hash = i;
      break;
    }
  }
  if (hash != std::string_view::npos) s = Trim(s.substr(0, hash));
  size_t word = 0;
  while (word < s.size() && IsIdentChar(s[word])) ++word;
  for (std::string_view kw : {"if", "elif", "while", "for", "return", "assert", "with", "def", "class", "lambda",
                              "yield", "del", "print", "import", "from", "raise", "global", "nonlocal"})
    if (s.substr(0, word) == kw) return false;
  int depth = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (IsQuote(c)) {
      i = SkipString(s, i) - 1;
    } else if (c == '(' || c == '[' || c == '{') {
      ++depth;
    } else if (c == ')' || c == ']' || c == '}') {
      if (--depth < 0) return false;  // the end of a call begun on an earlier line
    } else if (c == '=' && depth == 0) {
      if (i + 1 < s.size() && s[i + 1] == '=') return false;
      if (i > 0 && std::strchr("=<>!+-*/%@&|^:", s[i - 1])) return false;
      // `dim=dim` on a line continuing a call's arguments is a keyword
      // argument: an assignment is read only when '=' stands apart.
      if (i == 0 || s[i - 1] != ' ' || i + 1 >= s.size() || s[i + 1] != ' ') return false;
      std::string_view lhs = Trim(s.substr(0, i));
      out->value = std::string(Trim(s.substr(i + 1)));
      out->targets.clear();
      if (size_t colon = lhs.find(':'); colon != std::string_view::npos) lhs = Trim(lhs.substr(0, colon));
      if (lhs.size() >= 2 && (lhs.front() == '(' || lhs.front() == '[')) lhs = lhs.substr(1, lhs.size() - 2);
      for (std::string_view t : SplitCommas(lhs)) {
        if (!t.empty() && t[0] == '*') t.remove_prefix(1);
        out->targets.emplace_back(Trim(t));
      }
      // `n: int = 8,` continues a def header or a call: no assignment.
      return !out->targets.empty() && !out->value.empty() && out->value.back() != ',';
    }
  }
  return false;
}

namespace {

// The kind of each of `targets` names bound to a value of kind `k`: the
// value itself for one name; for a tuple target, an item of it: a shape's
// items are ints, a sequence of tensors' tensors, anything else's unknown.
ValueKind UnpackedKind(ValueKind k, size_t targets) {
  if (targets == 1 || k == ValueKind::kScalar) return k;
  return k == ValueKind::kTensors ? ValueKind::kTensor : ValueKind::kUnknown;
}

}  // namespace

void LearnAssignments(const std::vector<Assignment>& assignments, ValueScope* scope) {
  // In text order, each value read with the bindings made so far (so
  // `div = div.mul(alpha)` keeps a tensor a tensor); a name's final kind
  // agrees with every binding of it, a parameter's own included.
  std::unordered_map<std::string, ValueKind> merged = scope->locals();
  for (const Assignment& a : assignments) {
    ValueKind k = scope->KindOf(a.value);
    for (const std::string& t : a.targets) {
      if (!IsIdentifier(t)) continue;
      ValueKind tk = UnpackedKind(k, a.targets.size());
      auto it = merged.find(t);
      if (it == merged.end()) merged.emplace(t, tk);
      else it->second = Both(it->second, tk);
      scope->SetLocal(t, tk);
    }
  }
  for (const auto& [name, kind] : merged) scope->SetLocal(name, kind);
}

namespace {

// Method names of Python's own types: a call of one says nothing about its
// receiver's type.
bool IsBuiltinTypeMethod(std::string_view m) {
  static const std::unordered_set<std::string_view> kNames = {"add",
                                                              "append",
                                                              "as_integer_ratio",
                                                              "bit_length",
                                                              "capitalize",
                                                              "casefold",
                                                              "center",
                                                              "clear",
                                                              "conjugate",
                                                              "copy",
                                                              "count",
                                                              "difference",
                                                              "discard",
                                                              "encode",
                                                              "endswith",
                                                              "expandtabs",
                                                              "extend",
                                                              "find",
                                                              "format",
                                                              "from_bytes",
                                                              "fromhex",
                                                              "fromkeys",
                                                              "get",
                                                              "hex",
                                                              "imag",
                                                              "index",
                                                              "insert",
                                                              "intersection",
                                                              "is_integer",
                                                              "isdisjoint",
                                                              "issubset",
                                                              "issuperset",
                                                              "items",
                                                              "join",
                                                              "keys",
                                                              "ljust",
                                                              "lower",
                                                              "lstrip",
                                                              "partition",
                                                              "pop",
                                                              "popitem",
                                                              "real",
                                                              "remove",
                                                              "replace",
                                                              "reverse",
                                                              "rfind",
                                                              "rindex",
                                                              "rjust",
                                                              "rpartition",
                                                              "rsplit",
                                                              "rstrip",
                                                              "setdefault",
                                                              "sort",
                                                              "split",
                                                              "splitlines",
                                                              "startswith",
                                                              "strip",
                                                              "swapcase",
                                                              "symmetric_difference",
                                                              "title",
                                                              "to_bytes",
                                                              "translate",
                                                              "union",
                                                              "update",
                                                              "upper",
                                                              "values",
                                                              "zfill"};
  return kNames.count(m) > 0;
}

}  // namespace

void LearnTensorReceivers(const std::vector<std::string>& params, const std::vector<std::string>& callees,
                          ValueScope* scope) {
  for (const std::string& callee : callees) {
    size_t dot = callee.find('.');
    if (dot == std::string::npos || callee.find('.', dot + 1) != std::string::npos) continue;
    std::string receiver = callee.substr(0, dot), method = callee.substr(dot + 1);
    if (std::find(params.begin(), params.end(), receiver) == params.end() || IsBuiltinTypeMethod(method)) continue;
    auto it = scope->locals().find(receiver);
    if (it != scope->locals().end() && it->second == ValueKind::kUnknown && scope->MethodReturnsTensor(method))
      scope->SetLocal(receiver, ValueKind::kTensor);
  }
}

std::vector<std::string> TensorParams(std::string_view header) {
  std::vector<std::string> out;
  size_t open = header.find('(');
  if (open == std::string_view::npos) return out;
  size_t close = MatchForward(header, open);
  if (close == std::string_view::npos) return out;
  for (std::string_view p : SplitCommas(header.substr(open + 1, close - open - 1))) {
    size_t colon = p.find(':');
    if (colon == std::string_view::npos) continue;
    std::string_view name = Trim(p.substr(0, colon)), annotation = Trim(p.substr(colon + 1));
    if (size_t eq = annotation.find('='); eq != std::string_view::npos) annotation = Trim(annotation.substr(0, eq));
    if (IsIdentifier(name) &&
        (annotation == "Tensor" || annotation == "Optional[Tensor]" || annotation == "torch.Tensor"))
      out.emplace_back(name);
  }
  return out;
}

namespace {

// The return annotation of a def header's text (`List[Tensor]`), or "".
std::string_view ReturnAnnotation(std::string_view header) {
  size_t open = header.find('(');
  if (open == std::string_view::npos) return {};
  size_t close = MatchForward(header, open);
  if (close == std::string_view::npos) return {};
  std::string_view rest = Trim(header.substr(close + 1));
  if (rest.substr(0, 2) != "->") return {};
  rest = rest.substr(2);
  return Trim(rest.substr(0, rest.find(':')));
}

bool IsTensorType(std::string_view t) { return t == "Tensor" || t == "torch.Tensor"; }

}  // namespace

bool ReturnsTensor(std::string_view header) { return IsTensorType(ReturnAnnotation(header)); }

bool ReturnsTensors(std::string_view header) {
  std::string_view a = ReturnAnnotation(header);
  size_t open = a.find('[');
  if (open == std::string_view::npos || a.back() != ']') return false;
  std::string_view outer = Trim(a.substr(0, open));
  if (outer != "List" && outer != "list" && outer != "Tuple" && outer != "tuple" && outer != "typing.List" &&
      outer != "typing.Tuple")
    return false;
  std::vector<std::string_view> items = SplitCommas(a.substr(open + 1, a.size() - open - 2));
  if (items.empty()) return false;
  for (std::string_view item : items)
    if (!IsTensorType(item) && item != "...") return false;
  return IsTensorType(items.front());
}

int OpenBrackets(std::string_view line) {
  line = WithoutComment(line);
  int depth = 0;
  for (size_t i = 0; i < line.size(); ++i) {
    char c = line[i];
    if (IsQuote(c)) i = SkipString(line, i) - 1;
    else if (c == '(' || c == '[' || c == '{') ++depth;
    else if (c == ')' || c == ']' || c == '}') --depth;
  }
  return depth;
}

std::string_view WithoutComment(std::string_view line) {
  for (size_t i = 0; i < line.size(); ++i) {
    if (IsQuote(line[i])) i = SkipString(line, i) - 1;
    else if (line[i] == '#') return line.substr(0, i);
  }
  return line;
}

std::vector<std::string> ScalarParams(std::string_view header) {
  std::vector<std::string> out;
  size_t open = header.find('(');
  if (open == std::string_view::npos) return out;
  size_t close = MatchForward(header, open);
  if (close == std::string_view::npos) return out;
  ValueScope literal(nullptr);
  for (std::string_view p : SplitCommas(header.substr(open + 1, close - open - 1))) {
    std::string_view name = p, annotation, def;
    if (size_t eq = p.find('='); eq != std::string_view::npos) {
      name = Trim(p.substr(0, eq));
      def = Trim(p.substr(eq + 1));
    }
    if (size_t colon = name.find(':'); colon != std::string_view::npos) {
      annotation = Trim(name.substr(colon + 1));
      name = Trim(name.substr(0, colon));
    }
    if (!IsIdentifier(name)) continue;
    bool scalar = annotation == "int" || annotation == "float" || annotation == "bool" || annotation == "str";
    if (annotation.empty() && !def.empty() && def != "None") scalar = literal.KindOf(def) == ValueKind::kScalar;
    if (scalar) out.emplace_back(name);
  }
  return out;
}

std::vector<std::string> StringsAssigned(std::string_view source, std::string_view name) {
  std::vector<PyToken> t;
  TokenizePy(source, &t);
  for (size_t i = 0; i + 2 < t.size(); ++i) {
    // `name = {` at the start of a top-level logical line.
    const bool line_start = i == 0 || t[i - 1].kind == PyTok::kNewline;
    if (!line_start || t[i].kind != PyTok::kName || t[i].text(source) != name) continue;
    if (t[i + 1].kind != PyTok::kOp || t[i + 1].text(source) != "=") continue;
    const std::string_view open = t[i + 2].text(source);
    const std::string_view close = open == "{" ? "}" : open == "[" ? "]" : open == "(" ? ")" : "";
    if (close.empty()) return {};
    std::vector<std::string> out;
    for (size_t k = i + 3; k < t.size(); ++k) {
      const std::string_view text = t[k].text(source);
      if (t[k].kind == PyTok::kOp && text == close) return out;
      if (t[k].kind == PyTok::kOp && text == ",") continue;
      if (t[k].kind != PyTok::kString || text.size() < 2 || (text.front() != '"' && text.front() != '\'')) return {};
      out.emplace_back(text.substr(1, text.size() - 2));
    }
    return {};
  }
  return {};
}

}  // namespace optrace
