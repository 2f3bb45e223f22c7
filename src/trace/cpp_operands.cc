// What C++ code holds a Tensor: the tracer's reading of declarations,
// initializers and call arguments in a function body's text, so that a C++
// operator (`a * b`, `x > y`) or a member call is taken for an aten op only
// on a Tensor, and an op call for the overloads its arguments admit. The
// reading is textual and errs towards "not known": an op listed wrongly
// sends a kernel author to code that never runs, an op missed only leaves
// a call unlisted. So a variable is a Tensor when declared one, when `auto`
// and its initializer's value is one -- the value, not everything the
// initializer mentions: the arguments of getCudnnDataType(input) and the
// receiver of index.numel() are not it -- or when a structured binding
// unpacks a call returning Tensors, or when `auto` and a range-for's
// element of a list of tensors (`for (const auto& t : tensors)` over a
// TensorList). Comments, member accesses and
// comparisons (`S > tol,`) are no declarations.
#include "trace/cpp_operands.h"

#include <algorithm>
#include <cctype>
#include <optional>
#include <unordered_set>
#include <utility>

#include "base/text.h"
#include "cpp/cpp_params.h"
#include "cpp/operator_expression.h"
#include "trace/trace_internal.h"
#include "trace/walk_bounds.h"

namespace optrace {

namespace {

// The end of the type of a declaration whose declarator list has a ',' at
// `comma` (`Tensor a, b;`: just after `Tensor`); 0 when it is none.
size_t DeclaratorListTypeEnd(std::string_view body, size_t comma) {
  size_t statement = body.find_last_of(";{}", comma);
  statement = statement == std::string_view::npos ? 0 : statement + 1;
  for (bool skipped = true; skipped && statement < comma;) {  // past blanks and comments
    skipped = false;
    while (statement < comma && std::isspace(static_cast<unsigned char>(body[statement]))) ++statement;
    if (body.compare(statement, 2, "//") == 0) {
      statement = body.find('\n', statement);
      statement = statement == std::string_view::npos ? comma : statement;
      skipped = true;
    }
  }
  if (statement >= comma) return 0;
  // A comma inside an open '(' separates a call's arguments
  // (`auto out = f(input_, target_,`), not declarators.
  int open = 0;
  for (size_t i = statement; i < comma; ++i)
    open += body[i] == '(' || body[i] == '[' ? 1 : body[i] == ')' || body[i] == ']' ? -1 : 0;
  if (open > 0) return 0;
  auto parts = SplitTopLevel(body.substr(statement, comma - statement), ',');
  if (parts.empty()) return 0;
  std::string first = parts[0];  // starts at `statement`
  if (size_t eq = first.find('='); eq != std::string::npos) first.resize(eq);
  while (!first.empty() && first.back() == ' ') first.pop_back();
  size_t name_begin = first.size();
  while (name_begin > 0 && IsIdentChar(first[name_begin - 1])) --name_begin;
  size_t type_end = statement + name_begin;
  while (type_end > 0 && (body[type_end - 1] == ' ' || body[type_end - 1] == '&' || body[type_end - 1] == '*'))
    --type_end;
  return type_end;
}

// The next occurrence of `word` as a whole identifier in `text` from `from`
// (not inside a longer name), or npos.
size_t FindWord(std::string_view text, std::string_view word, size_t from) {
  for (size_t at = text.find(word, from); at != std::string_view::npos; at = text.find(word, at + 1)) {
    size_t end = at + word.size();
    if ((at == 0 || !IsIdentChar(text[at - 1])) && (end == text.size() || !IsIdentChar(text[end]))) return at;
  }
  return std::string_view::npos;
}

// Index of the `close` matching the `open` at init[at] (init.size() - 1 when
// the text ends first).
size_t Close(std::string_view init, size_t at, char open, char close) {
  int depth = 0;
  for (size_t i = at; i < init.size(); ++i) {
    if (init[i] == open) ++depth;
    else if (init[i] == close && --depth == 0) return i;
  }
  return init.size() - 1;
}
}  // namespace

bool ReturnsTensor(const NativeFunction& fn) {
  for (const auto& r : fn.schema.returns) {
    if (r.type.find("Tensor") != std::string::npos) return true;
  }
  return false;
}

bool IsTensorType(std::string_view type) {
  if (type.find('*') != std::string_view::npos) return false;  // a pointer (Tensor* Y) is no Tensor value
  for (size_t at = type.find("Tensor"); at != std::string_view::npos; at = type.find("Tensor", at + 1)) {
    if (at > 0 && IsIdentChar(type[at - 1])) continue;
    size_t end = at + 6;
    if (type.compare(end, 4, "Base") == 0) end += 4;
    if (end == type.size() || !IsIdentChar(type[end])) return true;
  }
  return false;
}

// A function's return type that is a Tensor value itself (`Tensor`,
// `static inline at::Tensor`), not a container of Tensors or a reference
// into one.
bool ReturnsTensorValue(std::string_view type) {
  std::string_view last = type.substr(type.rfind(' ') + 1);  // npos + 1 == 0: the whole type
  return last == "Tensor" || last == "at::Tensor";
}

// The type of a declaration `decl` ("const Tensor& gamma", "Vec gamma")
// when it declares `name`, else nothing.
std::optional<std::string_view> TypeDeclaring(std::string_view decl, std::string_view name) {
  if (decl.size() <= name.size() || !EndsWith(decl, name) || IsIdentChar(decl[decl.size() - name.size() - 1]))
    return std::nullopt;
  return decl.substr(0, decl.size() - name.size());
}

// The type a lambda's parameter list in `body` gives `name` (`[](Vec x,
// Vec gamma)` makes gamma a Vec inside it), or "" when no lambda does.
std::string LambdaParameterType(std::string_view body, std::string_view name) {
  for (size_t at = body.find("]("); at != std::string_view::npos; at = body.find("](", at + 2)) {
    size_t open = at + 1, close = Close(body, open, '(', ')');
    if (close <= open) break;
    if (FindWord(body.substr(open, close - open), name, 0) == std::string_view::npos) continue;
    for (const std::string& p : SplitTopLevel(body.substr(open + 1, close - open - 1), ','))
      if (auto type = TypeDeclaring(TrimView(p), name)) return std::string(TrimView(*type));
  }
  return "";
}

std::string DeclaredType(std::string_view params, std::string_view body, std::string_view name) {
  // Most names asked about are no parameter: split the list only when it names them.
  static const std::vector<std::string> kNone;
  const bool in_params = params.find(name) != std::string_view::npos;
  for (const std::string& p : in_params ? ParameterPieces(params) : kNone) {
    std::string_view decl = p;
    if (size_t eq = decl.find('='); eq != std::string_view::npos) decl = decl.substr(0, eq);
    while (!decl.empty() && decl.back() == ' ') decl.remove_suffix(1);
    if (auto declared = TypeDeclaring(decl, name)) {
      std::string type(*declared);
      // Shadowed by a lambda's parameter of another kind (the CPU layer
      // norm's `const Tensor& gamma` and its `[](Vec x, Vec gamma, ...)`):
      // which one a use means is not read, so neither is taken.
      std::string inner = LambdaParameterType(body, name);
      if (!inner.empty() && IsTensorType(inner) != IsTensorType(type)) return "";
      return type;
    }
  }
  std::string found;
  for (size_t at = FindWord(body, name, 0); at != std::string_view::npos; at = FindWord(body, name, at + 1)) {
    size_t end = at + name.size();
    // In a comment (`// Still on src_device, record ...`): no declaration.
    size_t line_begin = body.rfind('\n', at);
    line_begin = line_begin == std::string_view::npos ? 0 : line_begin + 1;
    if (body.substr(line_begin, at - line_begin).find("//") != std::string_view::npos) continue;
    // storage->device(), x.device, c10::device: a member or a qualified name, no declaration.
    if (at > 0 &&
        (body[at - 1] == '.' || (at > 1 && (body.compare(at - 2, 2, "->") == 0 || body.compare(at - 2, 2, "::") == 0))))
      continue;
    size_t next = end;
    while (next < body.size() && body[next] == ' ') ++next;
    // `Tensor t = ...;`, `Tensor t;`, `Tensor t(...)`, `Tensor t{...}`, a list's `Tensor a, b`, and a
    // range-for's `for (Tensor& t : grids)` (a ':' that is no '::').
    bool range_for = next + 1 < body.size() && body[next] == ':' && body[next + 1] != ':';
    if (next >= body.size() || (std::string_view("=;({,").find(body[next]) == std::string_view::npos && !range_for))
      continue;
    if (body[next] == '=' && next + 1 < body.size() && body[next + 1] == '=') continue;  // `n == 0` compares
    size_t type_end = at;
    while (type_end > 0 && (body[type_end - 1] == ' ' || body[type_end - 1] == '&' || body[type_end - 1] == '*'))
      --type_end;
    // A later name of a declarator list (`Tensor cast_self, cast_other;`)
    // has the type of the statement's first one.
    if (type_end > 0 && body[type_end - 1] == ',') type_end = DeclaratorListTypeEnd(body, type_end - 1);
    if (type_end == 0 || !(IsIdentChar(body[type_end - 1]) || body[type_end - 1] == '>')) continue;
    // `S > tol,`: a comparison, not a template type's '>'.
    if (body[type_end - 1] == '>' && type_end > 1 && body[type_end - 2] == ' ') continue;
    // A template's arguments may hold commas (`c10::SmallVector<int64_t, 4> shape;`):
    // the type starts before its '<'.
    size_t scan_from = type_end - 1;
    if (body[type_end - 1] == '>') {
      int depth = 0;
      for (size_t i = type_end; i-- > 0;) {
        if (body[i] == '>') ++depth;
        if (body[i] == '<' && --depth == 0) {
          scan_from = i;
          break;
        }
        if (body[i] == ';' || body[i] == '{' || body[i] == '}') break;
      }
    }
    size_t type_begin = body.find_last_of(";{}(,\n", scan_from);
    type_begin = type_begin == std::string_view::npos ? 0 : type_begin + 1;
    std::string_view type = body.substr(type_begin, type_end - type_begin);
    while (!type.empty() && type.front() == ' ') type.remove_prefix(1);
    if (type.empty() || type == "return" || type == "else" || type == "case") continue;
    if (!found.empty() && found != type) return "";
    found = std::string(type);
  }
  return found;
}

bool OnlyDeclaredTensor(std::string_view body, std::string_view name) {
  const size_t at = FindWord(body, name, 0);
  if (at == std::string_view::npos || FindWord(body, name, at + 1) != std::string_view::npos) return false;
  const std::string type = DeclaredType("", body, name);
  if (!IsTensorType(type) || type.find_first_of("&<") != std::string::npos) return false;
  // A declaration's statement starts with the type (`at::Tensor result, unused;`).
  size_t statement = body.find_last_of(";{}", at);
  statement = statement == std::string_view::npos ? 0 : statement + 1;
  size_t next = at + name.size();
  while (next < body.size() && body[next] == ' ') ++next;
  const std::string_view head = TrimView(body.substr(statement, at - statement));
  return head.starts_with(type) && head.find_first_of("&*") == std::string_view::npos && next < body.size() &&
         (body[next] == ';' || body[next] == ',');
}

std::string BindingInitializer(std::string_view body, std::string_view name) {
  // auto [U, S, V] = input.svd();  const auto& [a, b] = f(x);
  for (size_t at = FindWord(body, name, 0); at != std::string_view::npos; at = FindWord(body, name, at + 1)) {
    size_t end = at + name.size();
    size_t open = at, close = end;
    while (open > 0 && (IsIdentChar(body[open - 1]) || body[open - 1] == ',' || body[open - 1] == ' ')) --open;
    while (close < body.size() && (IsIdentChar(body[close]) || body[close] == ',' || body[close] == ' ')) ++close;
    if (open == 0 || body[open - 1] != '[' || close >= body.size() || body[close] != ']') continue;
    size_t before = open - 1;
    while (before > 0 && (body[before - 1] == ' ' || body[before - 1] == '&')) --before;
    if (before < 4 || body.compare(before - 4, 4, "auto") != 0) continue;
    size_t eq = close + 1;
    while (eq < body.size() && body[eq] == ' ') ++eq;
    if (eq >= body.size() || body[eq] != '=') continue;
    size_t stop = body.find(';', eq);
    return std::string(
        TrimView(body.substr(eq + 1, stop == std::string_view::npos ? std::string_view::npos : stop - eq - 1)));
  }
  return "";
}

// The range of a range-for declaring `name` (`for (const auto& t :
// tensors)` -> "tensors"), when it is a plain name; else "".
std::string RangeForRange(std::string_view body, std::string_view name) {
  for (size_t at = FindWord(body, name, 0); at != std::string_view::npos; at = FindWord(body, name, at + 1)) {
    size_t colon = at + name.size();
    while (colon < body.size() && body[colon] == ' ') ++colon;
    if (colon + 1 >= body.size() || body[colon] != ':' || body[colon + 1] == ':') continue;
    size_t begin = colon + 1;
    while (begin < body.size() && body[begin] == ' ') ++begin;
    size_t end = begin;
    while (end < body.size() && IsIdentChar(body[end])) ++end;
    size_t close = end;
    while (close < body.size() && body[close] == ' ') ++close;
    if (end > begin && close < body.size() && body[close] == ')') return std::string(body.substr(begin, end - begin));
  }
  return "";
}

// A list of tensors (TensorList, ITensorListRef, IOptTensorListRef,
// std::vector<Tensor>), whose elements are (optional) Tensors.
bool IsTensorListType(std::string_view type) {
  return type.find("TensorList") != std::string_view::npos || type.find("<Tensor>") != std::string_view::npos ||
         type.find("<at::Tensor>") != std::string_view::npos;
}

std::string Initializer(std::string_view body, std::string_view name) {
  // The first `name = <expr>;` (not ==) in the body.
  for (size_t at = FindWord(body, name, 0); at != std::string_view::npos; at = FindWord(body, name, at + 1)) {
    size_t end = at + name.size();
    while (end < body.size() && body[end] == ' ') ++end;
    if (end + 1 >= body.size() || body[end] != '=' || body[end + 1] == '=') continue;
    size_t stop = body.find(';', end);
    std::string_view init =
        body.substr(end + 1, stop == std::string_view::npos ? std::string_view::npos : stop - end - 1);
    while (!init.empty() && (init.front() == ' ' || init.front() == '\n')) init.remove_prefix(1);
    return std::string(init);
  }
  return "";
}

std::string CallFactsReader::DeclaredTypeIn(std::string_view params, std::string_view body,
                                            std::string_view name) const {
  if (body.data() != scoped_body_.data() || body.size() != scoped_body_.size() || body.empty())
    return DeclaredType(params, body, name);
  std::string key;
  key.reserve(params.size() + name.size() + 1);
  key.append(params).append(1, '\x1c').append(name);
  auto [slot, fresh] = types_.try_emplace(std::move(key));
  if (fresh) slot->second = DeclaredType(params, body, name);
  return slot->second;
}

CallFactsReader::BodyScope::BodyScope(const CallFactsReader& reader, std::string_view body)
    : reader_(reader), outer_body_(reader.scoped_body_), outer_types_(std::move(reader.types_)) {
  reader_.scoped_body_ = body;
  reader_.types_.clear();
}

CallFactsReader::BodyScope::~BodyScope() {
  reader_.scoped_body_ = outer_body_;
  reader_.types_ = std::move(outer_types_);
}

bool CallFactsReader::IsTensorOperand(std::string_view params, std::string_view body, std::string_view name,
                                      int depth) const {
  // A call's result (the operand scanner passes ".abs" for x.abs(), "at::log"
  // for at::log(...)): whether that op returns a Tensor.
  if (!name.empty() && (name.front() == '.' || StartsWith(name, "at::"))) {
    bool method = name.front() == '.';
    std::string base(name.substr(method ? 1 : 4));
    base = std::string(WithoutSymInt(base));  // at::zeros_symint: zeros' SymInt form
    bool tensor = false;
    for (const NativeFunction* o : ix_.yaml.Overloads(base)) {
      if (method && !o->HasVariant("method")) continue;
      tensor = tensor || ReturnsTensor(*o);
    }
    return tensor;
  }
  // A helper's result (ScanExpression passes "f()" for f(...)): a Tensor
  // where every function of that name the index defines returns one.
  if (name.ends_with("()")) return HelperReturnsTensor(name.substr(0, name.size() - 2));
  std::string type = DeclaredTypeIn(params, body, name);
  if (IsTensorType(type)) return true;
  // A structured binding holds a Tensor when the call it unpacks returns Tensors.
  if (type.empty() && depth < kAutoTensorDepth) {
    std::string init = BindingInitializer(body, name);
    if (!init.empty()) return ValueIsTensor(params, body, init, name, depth);
  }
  if (type.find("auto") == std::string::npos || depth >= kAutoTensorDepth) return false;
  // auto x = <expr>: a Tensor when the expression's value is one.
  std::string init = Initializer(body, name);
  if (!init.empty()) return ValueIsTensor(params, body, init, name, depth);
  // for (const auto& index_opt : indices): an element of a list of tensors.
  std::string range = RangeForRange(body, name);
  return !range.empty() && range != name && IsTensorListType(DeclaredTypeIn(params, body, range));
}

// The value of an initializer: a Tensor when one of its top-level operands
// is (a Tensor variable, a Tensor-returning op's result). What sits inside a
// call's parentheses is an argument, not the value (getDataType(input) is no
// Tensor), and a receiver is not the value either: only the last member of
// index.numel() or x.sum().item() decides. A constant (at::internal::GRAIN_SIZE)
// is no call, so no Tensor.
bool CallFactsReader::ValueIsTensor(std::string_view params, std::string_view body, std::string_view init,
                                    std::string_view name, int depth) const {
  std::string_view object;  // the variable a member call is made on ("" for a call's result)
  for (size_t i = 0; i < init.size();) {
    if (!IsIdentChar(init[i]) || std::isdigit(static_cast<unsigned char>(init[i]))) {
      ++i;
      continue;
    }
    size_t j = i;
    while (j < init.size() && (IsIdentChar(init[j]) || init.compare(j, 2, "::") == 0)) j += init[j] == ':' ? 2 : 1;
    std::string_view word = init.substr(i, j - i);
    bool member = i > 0 && (init[i - 1] == '.' || (i > 1 && init.compare(i - 2, 2, "->") == 0));
    size_t after = j;
    // f<T>(...): a template, and no aten method is one (s.to<double>() is Scalar's).
    bool templated = after < init.size() && init[after] == '<';
    if (templated) after = Close(init, after, '<', '>') + 1;
    bool call = after < init.size() && init[after] == '(';
    size_t args = after + 1;
    if (call) after = Close(init, after, '(', ')') + 1;
    // tensors[0].dtype(): an element's member is read like the variable's;
    // lists[0][t].numel() an element's element's.
    bool element = !call && after < init.size() && init[after] == '[';
    while (element && after < init.size() && init[after] == '[') after = Close(init, after, '[', ']') + 1;
    bool receiver = after < init.size() && (init[after] == '.' || init.compare(after, 2, "->") == 0);
    i = after;
    if (receiver) {
      // a.fmod(b) on a Vectorized a is no aten method: a variable receiver must be a Tensor
      // (an element's, chunks[1].sigmoid_(), is left to the method, as a call's result is).
      object = call || member || element ? "" : word;
      continue;
    }
    std::string_view last = word.substr(word.rfind(':') == std::string_view::npos ? 0 : word.rfind(':') + 1);
    // lengths.value() of a `std::optional<Tensor> lengths`: the Tensor it holds.
    if (call && member && last == "value" && !object.empty() && IsTensorOperand(params, body, object, depth + 1))
      return true;
    if (call && member && !templated && IsTensorOperand(params, body, "." + std::string(last), depth + 1) &&
        (object.empty() || IsTensorOperand(params, body, object, depth + 1)))
      return true;
    // at::exp(...) is the op; std::fmod(a, b) is not; a bare exp(x) is the op
    // only on a Tensor argument (in a kernel's lambda it is the math function).
    bool op_call = call && !member && IsTensorOperand(params, body, "at::" + std::string(last), depth + 1);
    if (op_call && word != last && word.substr(0, word.size() - last.size()) == "at::") return true;
    if (op_call && word == last && ValueIsTensor(params, body, init.substr(args, after - 1 - args), name, depth + 1))
      return true;
    if (!call && !member && word == last && word != name && IsTensorOperand(params, body, word, depth + 1)) return true;
    // A helper's result (`operator_1_norm(a)`): a Tensor when every function
    // of that name the index defines returns one.
    if (call && !member && !op_call && HelperReturnsTensor(last)) return true;
  }
  return false;
}

bool CallFactsReader::HelperReturnsTensor(std::string_view name) const {
  const std::vector<uint32_t> ids = ix_.cpp.FunctionsNamed(name);
  if (ids.empty()) return false;
  for (uint32_t id : ids)
    if (!ReturnsTensorValue(ix_.cpp.functions()[id].return_type)) return false;
  return true;
}

namespace {

// Whether the callee's name at `p` is written in the call's form: a member
// call after `.`/`->` (its receiver, where a name, before that), a qualified
// one after `::`, a plain one after neither. bincount's
// `std::max(self.max().item<input_t>() + 1, minlength)` (SummaryOps.cu:276)
// holds two calls named max: the Tensor method's arguments are none.
bool WrittenInItsForm(std::string_view body, size_t p, const CppCall& c) {
  size_t e = p;
  while (e > 0 && (body[e - 1] == ' ' || body[e - 1] == '\t')) --e;
  std::string_view before = body.substr(0, e);
  const bool after_dot = EndsWith(before, ".") || EndsWith(before, "->");
  const bool after_scope = EndsWith(before, "::");
  if (c.kind == CallKind::kMember) {
    if (!after_dot) return false;
    std::string_view receiver = c.qualifier;
    receiver.remove_suffix(EndsWith(receiver, "->") ? 2 : EndsWith(receiver, ".") ? 1 : 0);
    if (receiver.empty() || !std::all_of(receiver.begin(), receiver.end(), IsIdentChar)) return true;
    before.remove_suffix(EndsWith(before, "->") ? 2 : 1);
    while (!before.empty() && (before.back() == ' ' || before.back() == '\t')) before.remove_suffix(1);
    return EndsWith(before, receiver) &&
           (before.size() == receiver.size() || !IsIdentChar(before[before.size() - receiver.size() - 1]));
  }
  if (c.kind == CallKind::kQualified) return after_scope;
  return !after_dot && !after_scope;
}

}  // namespace

std::optional<std::vector<std::string>> CallArguments(std::string_view body, uint32_t body_line, const CppCall& c) {
  if (c.line < body_line) return std::nullopt;
  size_t at = 0;
  for (uint32_t l = body_line; l < c.line; ++l) {
    at = body.find('\n', at);
    if (at == std::string_view::npos) return std::nullopt;
    ++at;
  }
  size_t line_end = std::min(body.find('\n', at), body.size());
  // The callee's first standalone occurrence on its line in the call's form, then its '('.
  for (size_t p = FindWord(body, c.callee, at); p != std::string_view::npos && p < line_end;
       p = FindWord(body, c.callee, p + 1)) {
    if (!WrittenInItsForm(body, p, c)) continue;
    size_t end = p + c.callee.size();
    while (end < body.size() && body[end] == ' ') ++end;
    if (end < body.size() && body[end] == '<') end = Close(body, end, '<', '>') + 1;  // x.to<T>(...)
    if (end >= body.size() || body[end] != '(') continue;
    size_t close = Close(body, end, '(', ')');
    if (close + 1 >= body.size() && body.back() != ')') return std::nullopt;  // unbalanced: not read
    std::string_view inside = body.substr(end + 1, close - end - 1);
    if (TrimView(inside).empty()) return std::vector<std::string>{};
    return SplitTopLevel(inside, ',', "([{", ")]}");
  }
  return std::nullopt;
}

// `name[...]` as a whole argument: the name, else "".
std::string_view SubscriptedName(std::string_view arg) {
  size_t open = arg.find('[');
  if (open == 0 || open == std::string_view::npos || arg.back() != ']' || Close(arg, open, '[', ']') + 1 != arg.size())
    return "";
  std::string_view name = TrimView(arg.substr(0, open));
  for (char ch : name)
    if (!IsIdentChar(ch)) return "";
  return name;
}

namespace {

// A Tensor's methods that give a number (a size, a count, a rank).
bool IsSizeMethod(std::string_view m) {
  static const std::unordered_set<std::string_view> kSizes = {
      "size", "sym_size", "numel", "sym_numel", "dim", "ndimension", "stride", "sym_stride", "element_size"};
  return kSizes.count(m) > 0;
}

// Whether `expr` is arithmetic on numbers only: number literals, names
// ArgumentKind reads as numbers, and a size a Tensor's method gives
// (`(dim_size + chunks - 1) / chunks` of `auto dim_size = self.sym_size(dim)`).
bool NumberArithmetic(std::string_view params, std::string_view body, std::string_view expr, int depth) {
  bool any = false;
  for (size_t i = 0; i < expr.size();) {
    const char c = expr[i];
    if (c == ' ' || c == '(' || c == ')' || std::string_view("+-*/%").find(c) != std::string_view::npos) {
      ++i;
      continue;
    }
    if (std::isdigit(static_cast<unsigned char>(c))) {
      while (i < expr.size() && (IsIdentChar(expr[i]) || expr[i] == '.')) ++i;
      any = true;
      continue;
    }
    if (!IsIdentChar(c)) return false;
    size_t j = i;
    while (j < expr.size() && IsIdentChar(expr[j])) ++j;
    const std::string_view name = expr.substr(i, j - i);
    if (j < expr.size() && expr[j] == '.') {  // x.sym_size(dim): a size, its arguments skipped
      size_t k = j + 1;
      while (k < expr.size() && IsIdentChar(expr[k])) ++k;
      if (k >= expr.size() || expr[k] != '(' || !IsSizeMethod(expr.substr(j + 1, k - j - 1))) return false;
      const size_t close = ClosingBracket(expr, k);
      if (close == std::string_view::npos) return false;
      i = close + 1;
      any = true;
      continue;
    }
    if ((j < expr.size() && expr[j] == '(') || ArgumentKind(params, body, name, depth + 1) != 'n') return false;
    i = j;
    any = true;
  }
  return any;
}

// A dtype as written: `x.scalar_type()` (`x->`), a ScalarType constant
// (`at::kFloat`, `kLong`, `c10::ScalarType::Half`).
bool IsDtypeValue(std::string_view arg) {
  for (std::string_view method : {".scalar_type()", "->scalar_type()"})
    if (arg.ends_with(method)) {
      const std::string_view receiver = arg.substr(0, arg.size() - method.size());
      return !receiver.empty() && std::all_of(receiver.begin(), receiver.end(), IsIdentChar);
    }
  for (std::string_view ns : {"::c10::", "c10::", "at::"})
    if (StartsWith(arg, ns)) {
      arg.remove_prefix(ns.size());
      break;
    }
  if (StartsWith(arg, "ScalarType::")) arg.remove_prefix(12);
  else if (arg.size() > 1 && arg[0] == 'k') arg.remove_prefix(1);
  else return false;
  static const std::unordered_set<std::string_view> kDtypes = {
      "Byte",   "Char",        "Short",        "Int",           "Long", "Half",    "Float",
      "Double", "ComplexHalf", "ComplexFloat", "ComplexDouble", "Bool", "BFloat16"};
  return kDtypes.count(arg) > 0;
}

}  // namespace

namespace {

// The two arms of a conditional expression `c ? a : b` written at the top
// level of `expr` (not inside brackets, `::` no colon), else nothing.
std::optional<std::pair<std::string_view, std::string_view>> ConditionalArms(std::string_view expr) {
  int depth = 0;
  size_t question = std::string_view::npos;
  for (size_t i = 0; i < expr.size(); ++i) {
    const char c = expr[i];
    if (c == '(' || c == '[' || c == '{') ++depth;
    if (c == ')' || c == ']' || c == '}') --depth;
    if (depth != 0) continue;
    if (c == '?' && question == std::string_view::npos) question = i;
    const bool scope = (i + 1 < expr.size() && expr[i + 1] == ':') || (i > 0 && expr[i - 1] == ':');
    if (c == ':' && !scope && question != std::string_view::npos)
      return std::make_pair(TrimView(expr.substr(question + 1, i - question - 1)), TrimView(expr.substr(i + 1)));
  }
  return std::nullopt;
}

// A declared type holding sizes: an int[] argument's own IntArrayRef or
// SymIntArrayRef, or a container of integers that converts to one
// (`std::vector<int64_t> stat_shape;`, `DimVector sizes;`, `SmallVector<int64_t, 4>`).
namespace {

// `e` without the trailing calls that give a list back a part or a copy of
// itself (`.slice(...)`, `.vec()`); `e` itself where none is written.
std::string_view WithoutListMethods(std::string_view e) {
  for (;;) {
    if (e.empty() || e.back() != ')') return e;
    size_t open = e.size() - 1;
    for (int depth = 0; open > 0; --open) {
      if (e[open] == ')') ++depth;
      else if (e[open] == '(' && --depth == 0) break;
    }
    std::string_view head = e.substr(0, open);
    bool stripped = false;
    for (std::string_view m : {".slice", ".vec"})
      if (EndsWith(head, m) && head.size() > m.size()) {
        e = TrimView(head.substr(0, head.size() - m.size()));
        stripped = true;
        break;
      }
    if (!stripped) return e;
  }
}

}  // namespace

bool IsSizeListType(std::string_view t) {
  for (std::string_view ns : {"at::", "c10::", "std::"})
    if (StartsWith(t, ns)) t.remove_prefix(ns.size());
  for (std::string_view exact : {"IntArrayRef", "SymIntArrayRef", "DimVector", "SymDimVector"})
    if (t == exact) return true;
  for (std::string_view container : {"vector<", "SmallVector<", "array<", "ArrayRef<"}) {
    if (!StartsWith(t, container)) continue;
    std::string_view element = TrimView(t.substr(container.size()));
    for (std::string_view ns : {"at::", "c10::", "std::"})
      if (StartsWith(element, ns)) element.remove_prefix(ns.size());
    for (std::string_view integer : {"int64_t", "SymInt"})
      if (StartsWith(element, integer) && (element.size() == integer.size() || element[integer.size()] == ',' ||
                                           element[integer.size()] == '>' || element[integer.size()] == ' '))
        return true;
  }
  return false;
}

}  // namespace

char ArgumentKind(std::string_view params, std::string_view body, std::string_view arg, int depth) {
  if (arg.empty() || depth > 3) return '?';
  // std::move(x) is x.
  if (StartsWith(arg, "std::move(") && arg.back() == ')')
    return ArgumentKind(params, body, arg.substr(10, arg.size() - 11), depth);
  if (arg.front() == '"') return 's';
  // `self == other`, `grad / 2`, `2 * n - x`: an operator at::Tensor
  // overloads, with a Tensor operand, gives a Tensor (TensorOperators.h);
  // with numbers alone (`alpha * a` of two doubles), a number.
  if (const std::optional<TopLevelOperators> top = TopLevelOperatorsOf(arg); top && top->tensor_operators_only) {
    bool numbers = true;
    for (const std::string& operand : top->operands) {
      const char kind = ArgumentKind(params, body, TrimView(operand), depth + 1);
      if (kind == 't') return 't';
      numbers = numbers && kind == 'n';
    }
    if (numbers) return 'n';
  }
  size_t i = arg.front() == '-' ? 1 : 0;
  if (i < arg.size() && std::isdigit(static_cast<unsigned char>(arg[i]))) return 'n';
  // <cmath>'s number macros (`at::where(sign == -1., NAN, logabsdet)`).
  static const std::unordered_set<std::string_view> kNumberMacros = {
      "NAN", "INFINITY", "HUGE_VAL", "M_PI", "M_E", "M_SQRT2", "M_LN2", "M_LN10", "M_PI_2", "M_2_PI", "M_SQRT1_2"};
  if (kNumberMacros.count(arg.substr(i))) return 'n';
  // An element of a Tensor (TensorBody.h: `Tensor operator[](int64_t index)`).
  if (std::string_view base = SubscriptedName(arg); !base.empty()) {
    std::string type = DeclaredType(params, body, base);
    while (!type.empty() && (type.back() == '&' || type.back() == ' ')) type.pop_back();
    return ReturnsTensorValue(type) ? 't' : '?';
  }
  if (IsDtypeValue(arg)) return 'd';
  // `{v.size(0), -1}`: a braced list of numbers and sizes is a list of sizes.
  // Of two elements or more, whatever they are, it initialises a list and
  // nothing else: C++ initialises a single value from a braced list of one
  // element at most (`{3 * B, num_head, T, dim_per_head}` is never a dtype).
  if (arg.size() > 2 && arg.front() == '{' && arg.back() == '}') {
    const std::vector<std::string> elements = SplitTopLevel(arg.substr(1, arg.size() - 2), ',');
    const char some_list = elements.size() >= 2 ? 'B' : '?';
    for (const std::string& e : elements) {
      // `mat1.sizes()[0] * mat1.sizes()[1]`: each size read by index is a number.
      std::string sized(TrimView(e));
      for (std::string_view read : {".sizes()[", ".sym_sizes()["}) {
        for (size_t at = sized.find(read); at != std::string::npos; at = sized.find(read)) {
          size_t begin = at;
          while (begin > 0 && IsIdentChar(sized[begin - 1])) --begin;
          const size_t close = sized.find(']', at);
          if (begin == at || close == std::string::npos) return some_list;
          sized.replace(begin, close + 1 - begin, "1");
        }
      }
      const std::string_view element = sized;
      const bool size = element.find(".size(") != std::string_view::npos ||
                        element.find(".sym_size(") != std::string_view::npos || element.ends_with(".numel()") ||
                        element.ends_with(".dim()");
      if (element.empty() || (!size && ArgumentKind(params, body, element, depth + 1) != 'n' &&
                              !NumberArithmetic(params, body, element, depth + 1)))
        return some_list;
    }
    return 'l';
  }
  // A list's own slice or copy is a list (`x.sizes().slice(1)`, `sizes.vec()`), and so is a
  // size list type's functional cast (SpectralOps.cpp:905 `IntArrayRef(input.sizes()).slice(extra_dims)`).
  if (std::string_view list = WithoutListMethods(arg); list.size() < arg.size()) {
    if (ArgumentKind(params, body, list, depth + 1) == 'l') return 'l';
  }
  if (const size_t open = arg.find('('); open != std::string_view::npos && arg.back() == ')' &&
                                         Close(arg, open, '(', ')') + 1 == arg.size() &&
                                         IsSizeListType(TrimView(arg.substr(0, open))))
    return 'l';
  // `x.sizes()`, `x->sym_sizes()`, `x.strides()`: a Tensor's list of sizes.
  for (std::string_view list : {".sizes()", "->sizes()", ".sym_sizes()", "->sym_sizes()", ".strides()", "->strides()"})
    if (arg.ends_with(list) && arg.size() > list.size() &&
        std::all_of(arg.begin(), arg.end() - list.size(), [](char ch) { return IsIdentChar(ch); }))
      return 'l';
  for (char ch : arg) {
    if (!IsIdentChar(ch)) return '?';  // an expression: its kind is not read
  }
  std::string type = DeclaredType(params, body, arg);
  if (type.empty()) return '?';
  if (IsTensorType(type)) return 't';
  std::string_view t = TrimView(type);
  // `constexpr double alpha`, `static const int64_t n`: the type after its specifiers.
  for (bool stripped = true; stripped;) {
    stripped = false;
    for (std::string_view specifier : {"const ", "constexpr ", "static "})
      if (StartsWith(t, specifier)) {
        t.remove_prefix(specifier.size());
        stripped = true;
      }
  }
  while (!t.empty() && (t.back() == '&' || t.back() == ' ')) t.remove_suffix(1);
  if (t == "ScalarType" || t == "at::ScalarType" || t == "c10::ScalarType") return 'd';
  if (IsSizeListType(t)) return 'l';
  // `auto split_size = (dim_size + chunks - 1) / chunks;`: what it is initialised with.
  if (t == "auto") {
    const std::string initializer = Initializer(body, arg);
    std::string_view init = TrimView(initializer);
    // `auto input_shape = input.sizes();`, `auto sizes = self.sym_sizes().vec();`: a list of sizes.
    if (init.ends_with(".vec()")) init.remove_suffix(6);
    if (!init.empty() && ArgumentKind(params, body, init, depth + 1) == 'l') return 'l';
    if (NumberArithmetic(params, body, init, depth)) return 'n';
    // `auto B = qkv.is_nested() ? ... : qkv.size(0);`: the conditional's
    // value has its arms' common type, a number where one arm is.
    const std::optional<std::pair<std::string_view, std::string_view>> arms = ConditionalArms(init);
    return arms && (NumberArithmetic(params, body, arms->first, depth) ||
                    NumberArithmetic(params, body, arms->second, depth))
               ? 'n'
               : '?';
  }
  static const std::unordered_set<std::string_view> kNumbers = {
      "int",         "int64_t",  "int32_t",     "double",   "float",  "bool",        "Scalar", "at::Scalar",
      "c10::Scalar", "scalar_t", "accscalar_t", "opmath_t", "SymInt", "c10::SymInt", "size_t"};
  return kNumbers.count(t) ? 'n' : '?';
}

size_t ListConversions(const FunctionSchema& schema, bool method, const std::vector<char>& kinds) {
  size_t n = 0;
  for (size_t k = 0; k < kinds.size() && k + (method ? 1 : 0) < schema.arguments.size(); ++k) {
    const SchemaArgument& a = schema.arguments[k + (method ? 1 : 0)];
    if (kinds[k] == 'n' && a.type.find('[') != std::string::npos) ++n;
    if (kinds[k] == 'd' && a.kwarg_only) ++n;  // packed into TensorOptions
  }
  return n;
}

std::vector<const NativeFunction*> FewestConversions(
    const std::vector<std::pair<const NativeFunction*, size_t>>& admitted) {
  size_t fewest = SIZE_MAX;
  for (const auto& [o, conversions] : admitted) fewest = std::min(fewest, conversions);
  std::vector<const NativeFunction*> out;
  for (const auto& [o, conversions] : admitted)
    if (conversions == fewest) out.push_back(o);
  return out;
}

std::vector<const NativeFunction*> OverloadsAdmitting(const std::vector<const NativeFunction*>& overloads,
                                                      const WrittenArguments& written) {
  std::vector<std::pair<const NativeFunction*, size_t>> admitted;
  for (const NativeFunction* o : overloads)
    if (AdmitsArguments(o->schema, written.method, written.kinds, o->CppRequiredArguments()))
      admitted.push_back({o, ListConversions(o->schema, written.method, written.kinds)});
  return FewestConversions(admitted);
}

bool AdmitsArguments(const FunctionSchema& schema, bool method, const std::vector<char>& kinds, size_t cpp_required) {
  const size_t given = kinds.size() + (method ? 1 : 0);
  size_t required = 0;
  for (const auto& a : schema.arguments) required += a.default_value || a.is_out ? 0 : 1;
  required = std::max(required, cpp_required);
  if (given < required || given > schema.arguments.size()) return false;
  for (size_t k = 0; k < kinds.size(); ++k) {
    const std::string& type = schema.arguments[k + (method ? 1 : 0)].type;
    const char kind = SchemaTypeKind(type);
    const bool tensor = kind == 'T' || kind == 'L';
    // C++ converts a number to Scalar, int, float, bool, SymInt (and their
    // lists, from one element), never to a Tensor, Dimname, string, Generator or enum.
    const bool enumeration =
        kind == 'D' || StartsWith(type, "Layout") || StartsWith(type, "Device") || StartsWith(type, "MemoryFormat");
    if (kinds[k] == 't' && !tensor) return false;
    if (kinds[k] == 'n' && (tensor || kind == 'N' || kind == 'n' || kind == 's' || kind == 'g' || enumeration))
      return false;
    if (kinds[k] == 's' && kind != 's') return false;
    if (kinds[k] == 'd' && kind != 'D') return false;
    // A list of sizes converts to an int[] (IntArrayRef, SymIntArrayRef), nothing else;
    // a braced list of several elements to a list of any kind.
    if (kinds[k] == 'l' && kind != 'I') return false;
    if (kinds[k] == 'B' && type.find('[') == std::string::npos) return false;
  }
  return true;
}

std::vector<std::pair<std::string, uint32_t>> NamesPassedAsArguments(std::string_view body, uint32_t body_line) {
  std::vector<std::pair<std::string, uint32_t>> out;
  uint32_t line = body_line;
  auto significant_before = [&](size_t i) {
    while (i > 0 && (body[i - 1] == ' ' || body[i - 1] == '\n')) --i;
    return i == 0 ? '\0' : body[i - 1];
  };
  for (size_t i = 0; i < body.size();) {
    char c = body[i];
    if (c == '\n') ++line;
    if (!IsIdentChar(c) || std::isdigit(static_cast<unsigned char>(c)) || (i > 0 && IsIdentChar(body[i - 1]))) {
      ++i;
      continue;
    }
    size_t j = i;
    while (j < body.size() && IsIdentChar(body[j])) ++j;
    size_t k = j;
    while (k < body.size() && body[k] == ' ') ++k;
    char before = significant_before(i), after = k < body.size() ? body[k] : '\0';
    if ((before == '(' || before == ',') && (after == ')' || after == ','))
      out.push_back({std::string(body.substr(i, j - i)), line});
    i = j;
  }
  return out;
}

std::vector<std::pair<std::string, uint32_t>> NamesAssigned(std::string_view body, uint32_t body_line) {
  std::vector<std::pair<std::string, uint32_t>> out;
  uint32_t line = body_line;
  for (size_t i = 0; i < body.size(); ++i) {
    if (body[i] == '\n') ++line;
    // A lone '=': not ==, <=, >=, !=, +=, ...
    if (body[i] != '=' || (i + 1 < body.size() && body[i + 1] == '=') ||
        (i > 0 && std::string_view("=<>!+-*/%&|^").find(body[i - 1]) != std::string_view::npos))
      continue;
    size_t b = i + 1;
    while (b < body.size() && body[b] == ' ') ++b;
    size_t e = b;
    while (e < body.size() && IsIdentChar(body[e])) ++e;
    if (e == b || std::isdigit(static_cast<unsigned char>(body[b]))) continue;
    size_t k = e;
    if (k < body.size() && body[k] == '<') {  // template arguments, to their '>'
      int depth = 0;
      for (; k < body.size() && body[k] != ';' && body[k] != '('; ++k) {
        if (body[k] == '<') ++depth;
        else if (body[k] == '>' && --depth == 0) break;
      }
      if (k >= body.size() || body[k] != '>') continue;
      ++k;
    }
    while (k < body.size() && body[k] == ' ') ++k;
    if (k < body.size() && body[k] == ';') out.push_back({std::string(body.substr(b, e - b)), line});
  }
  return out;
}

}  // namespace optrace
