// A frame's bindings are computed once per trace, callers first (a bounded
// recursion up the calls that resolve to it); a cycle through callers reads
// the frame's defaults alone.
#include "trace/frame_bindings.h"
#include "trace/walk_bounds.h"

#include <algorithm>
#include <cctype>

#include "base/text.h"
#include "py/py_guards.h"
#include "trace/guard_files.h"
#include "trace/parser_order.h"

namespace optrace {

namespace {

// `float(dropout)`, `int(n)`, `bool(flag)` of a literal or of a name `local`
// binds to one (RNNBase's `self.dropout = float(dropout)`): the literal the
// builtin makes (py/py_arguments.h ConvertedLiteral); nullopt otherwise.
std::optional<std::string> Conversion(std::string_view value, const Bindings& local) {
  const size_t open = value.find('(');
  if (open == std::string_view::npos || value.back() != ')') return std::nullopt;
  const std::string_view builtin = TrimView(value.substr(0, open));
  if (builtin != "float" && builtin != "int" && builtin != "bool") return std::nullopt;
  std::string_view inner = TrimView(value.substr(open + 1, value.size() - open - 2));
  if (auto b = local.find(std::string(inner)); b != local.end() && IsIdentifier(inner)) inner = b->second;
  return ConvertedLiteral(builtin, inner);
}

// The names an expression reads (identifiers not after a '.').
std::vector<std::string> NamesRead(std::string_view expr) {
  std::vector<std::string> out;
  for (size_t i = 0; i < expr.size();) {
    char c = expr[i];
    if (c == '\'' || c == '"') {
      size_t end = expr.find(c, i + 1);
      i = end == std::string_view::npos ? expr.size() : end + 1;
      continue;
    }
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      size_t j = i;
      while (j < expr.size() && IsIdentChar(expr[j])) ++j;
      if (i == 0 || expr[i - 1] != '.') out.emplace_back(expr.substr(i, j - i));
      i = j;
      continue;
    }
    ++i;
  }
  return out;
}

// Whether every read of `name` in condition `expr` asks only its truth
// (`not name`, `name and x`, `if name`): none is compared (`is`, `==`,
// `in`, `<` ...), indexed, called or read an attribute of.
bool ReadAsTruthOnly(std::string_view expr, std::string_view name) {
  auto word_at = [&](size_t i, std::string_view w) {
    return expr.substr(i, w.size()) == w && (i + w.size() == expr.size() || !IsIdentChar(expr[i + w.size()]));
  };
  for (size_t i = expr.find(name); i != std::string_view::npos; i = expr.find(name, i + 1)) {
    const size_t end = i + name.size();
    if ((i > 0 && (IsIdentChar(expr[i - 1]) || expr[i - 1] == '.')) || (end < expr.size() && IsIdentChar(expr[end])))
      continue;  // part of another name
    size_t after = end;
    while (after < expr.size() && expr[after] == ' ') ++after;
    if (after < expr.size() && std::string_view("=!<>.[(").find(expr[after]) != std::string_view::npos) return false;
    if (word_at(after, "is") || word_at(after, "in") || word_at(after, "not")) return false;
    size_t before = i;
    while (before > 0 && expr[before - 1] == ' ') --before;
    if (before > 0 && std::string_view("=<>").find(expr[before - 1]) != std::string_view::npos) return false;
    for (std::string_view w : {"is", "in"})
      if (before >= w.size() && word_at(before - w.size(), w) &&
          (before == w.size() || !IsIdentChar(expr[before - w.size() - 1])))
        return false;
  }
  return true;
}

// "torch.nn.modules.activation.MultiheadAttention.forward" -> the class part.
std::string OwnerOf(const std::string& symbol) {
  size_t dot = symbol.rfind('.');
  return dot == std::string::npos ? "" : symbol.substr(0, dot);
}

// Keeps in *into only what agrees with `other` (several callers).
void Agree(Bindings* into, const Bindings& other) {
  for (auto it = into->begin(); it != into->end();) {
    auto o = other.find(it->first);
    it = (o == other.end() || o->second != it->second) ? into->erase(it) : std::next(it);
  }
}

// Whether `word` occurs in `line` as a name of its own (not `x.word`, not `words`).
bool Mentions(std::string_view line, std::string_view word) {
  for (size_t at = line.find(word); at != std::string_view::npos; at = line.find(word, at + 1)) {
    bool left = at == 0 || !(IsIdentChar(line[at - 1]) || line[at - 1] == '.');
    size_t end = at + word.size();
    bool right = end == line.size() || !IsIdentChar(line[end]);
    if (left && right) return true;
  }
  return false;
}

// `name = ...` (one target, not `==`): the target, else "".
std::string AssignedName(std::string_view line) {
  line = TrimView(line);
  size_t eq = line.find('=');
  if (eq == std::string_view::npos || eq + 1 >= line.size() || line[eq + 1] == '=' || eq == 0) return "";
  std::string_view target = TrimView(line.substr(0, eq));
  return IsIdentifier(target) ? std::string(target) : "";
}

// Whether `stmt` opens with keyword `word` (`if x:`, `else:`; not `iffy = 1`).
bool StartsWithKeyword(std::string_view stmt, std::string_view word) {
  if (!stmt.starts_with(word) || stmt.size() == word.size()) return false;
  char next = stmt[word.size()];
  return next == ' ' || next == ':' || next == '(';
}

// The '=' of an assignment statement (the first at bracket depth 0, outside
// strings, that is no comparison), npos when none; an augmented assignment
// (`+=`) is none either.
size_t AssignmentEquals(std::string_view stmt) {
  int depth = 0;
  char quote = 0;
  for (size_t i = 0; i < stmt.size(); ++i) {
    char c = stmt[i];
    if (quote) {
      if (c == '\\') ++i;
      else if (c == quote) quote = 0;
      continue;
    }
    if (c == '\'' || c == '"') quote = c;
    else if (c == '(' || c == '[' || c == '{') ++depth;
    else if (c == ')' || c == ']' || c == '}') --depth;
    else if (c == '=' && depth == 0) {
      if (i + 1 < stmt.size() && stmt[i + 1] == '=') return std::string_view::npos;
      if (i > 0 && std::string_view("+-*/%&|^<>!:@=").find(stmt[i - 1]) != std::string_view::npos)
        return std::string_view::npos;
      return i;
    }
  }
  return std::string_view::npos;
}

// `self.register_parameter("X", v)` / `self.register_buffer("X", v)`: X,
// v as written, and which of the two registers it.
struct Registration {
  std::string name, value;
  bool buffer = false;
};
std::optional<Registration> Registered(std::string_view stmt) {
  for (std::string_view call : {"self.register_parameter(", "self.register_buffer("}) {
    if (!stmt.starts_with(call)) continue;
    std::vector<PyArgument> args = SplitArguments(stmt.substr(call.size(), stmt.rfind(')') - call.size()));
    if (args.size() < 2 || args[0].value.size() < 3 || !args[0].name.empty()) return std::nullopt;
    char q = args[0].value.front();
    if ((q != '"' && q != '\'') || args[0].value.back() != q) return std::nullopt;
    std::string name = args[0].value.substr(1, args[0].value.size() - 2);
    if (!IsIdentifier(name)) return std::nullopt;
    return Registration{name, args[1].value, call == "self.register_buffer("};
  }
  return std::nullopt;
}

// Whether frame `f` is a name bound to a builtin by `_add_docstr`
// (`conv2d = _add_docstr(torch.conv2d, ...)`, as the Python index records
// it): no def, no arguments of its own to read.
bool IsBuiltinAlias(const Index& ix, const PyFrame& f) {
  const PySymbol s = ix.py.Resolve(f.symbol);
  return s.kind == PySymbol::kAlias && ix.py.modules()[s.module].aliases[s.index].kind == PyAliasKind::kAddDocstr;
}

// A Parameter made in place: `Parameter(...)`, `nn.Parameter(...)`.
bool MakesParameter(std::string_view value) {
  for (std::string_view call : {"Parameter(", "nn.Parameter(", "torch.nn.Parameter(", "nn.parameter.Parameter("})
    if (value.starts_with(call) && value.back() == ')') return true;
  return false;
}

}  // namespace

bool FrameBindings::IsTarget(const PyFrame& f) const {
  if (!t_.call_query) return false;
  return f.symbol == t_.target_name || (IsModuleTarget() && f.symbol == t_.target_name + ".forward");
}

bool FrameBindings::RuledOut(const PyCallStep& c, const Bindings& caller) const {
  Assumptions a = a_;
  a.defaults = caller;
  for (const Condition& when : c.when) {
    Tri t = EvaluateCondition(when.text, true, a);
    if (t == (when.negated ? Tri::kTrue : Tri::kFalse)) return true;
  }
  return false;
}

std::vector<PyParameter> FrameBindings::ParametersOf(const Location& def) {
  if (!def.valid()) return {};
  return ParseParameters(ix_.Snippet(def.file, def.line, 40));
}

std::optional<std::vector<PyArgument>> FrameBindings::ArgumentsAt(const PyFrame& from, const PyCallStep& c) {
  if (!from.where.valid() || c.line <= 0) return std::nullopt;
  auto text = ix_.FileText(from.where.file);
  if (!text) return std::nullopt;
  // `self.self_attn(...)`, `F.pad(...)`: the name as written before '('.
  auto args = CallArgumentText(lines_.From(from.where.file, *text, c.line), 1, c.callee);
  if (!args) return std::nullopt;
  return SplitArguments(*args);
}

namespace {

// Whether literal `v` is quoted text.
bool IsTextLiteral(const std::string& v) { return v.front() == '\'' || v.front() == '"'; }

// Whether literal `v` is a number: neither text, None, a bool nor a torch
// constant (`torch.float`).
bool IsNumberLiteral(const std::string& v) {
  return !IsTextLiteral(v) && v != "None" && v != "True" && v != "False" && !v.starts_with("torch.");
}

// Whether Python's argument parser takes literal `v` for a parameter of
// schema type `type`.
bool LiteralFits(const std::string& v, const std::string& type) {
  const bool text = IsTextLiteral(v);
  const bool number = IsNumberLiteral(v);
  if (v == "None" && !type.ends_with("?")) return false;
  // Python's parser takes a string for a Device too (`device="cpu"`).
  if (text && type.find("str") == std::string::npos && type.find("Dimname") == std::string::npos &&
      type.find("Device") == std::string::npos)
    return false;
  if (number && (type.find("Dimname") != std::string::npos || type.find("str") != std::string::npos)) return false;
  // A list of tensors takes a sequence of them, never one value.
  return !(type.starts_with("Tensor") && type.ends_with("[]"));
}

// The last assignment whose `if`/`elif`/`else` conditions (py_guards) the
// frame's values make true, when each later one's make false: `if
// size_average is not None or reduce is not None: r = legacy(...)` / `else:
// r = get_enum(reduction)` with both left None holds the second. nullopt
// when a condition on the way is open -- also one the guard reader did not
// follow: no condition read, yet deeper than the first assignment (a
// multi-line `if (` header; LocalTruths reads it so too).
std::optional<size_t> HeldAssignment(const PyFileLines& lines, const std::vector<PyAssignment>& assigned, Assumptions a,
                                     bool* left_open) {
  std::optional<size_t> held;
  bool open = false;
  for (size_t k = 0; k < assigned.size(); ++k) {
    const std::vector<PyCondition> conds = PyLineConditions(lines, assigned[k].line);
    Tri runs = conds.empty() && assigned[k].indent > assigned.front().indent ? Tri::kUnknown : Tri::kTrue;
    for (const PyCondition& c : conds) {
      Tri v = EvaluateCondition(c.text, true, a);
      v = c.negated ? Not(v) : v;
      runs = v == Tri::kFalse || runs == Tri::kFalse ? Tri::kFalse : v == Tri::kUnknown ? Tri::kUnknown : runs;
    }
    if (runs == Tri::kTrue) held = k, open = false;
    if (runs == Tri::kUnknown) open = true;
  }
  *left_open = open;
  if (open) return std::nullopt;
  return held;
}

// What a call of one of the trace's Python functions gives back, when that
// function has one `return`, of a name (`F._canonical_mask(mask=attn_mask,
// ...)`'s `return mask`): the callee's frame, the name and the return's
// line; nullopt for anything else (several returns, an expression).
struct ReturnedName {
  const PyCallStep* call = nullptr;
  const PyFrame* frame = nullptr;
  std::string name;
  int line = 0;
};
std::optional<ReturnedName> SoleReturnedName(const Index& ix, const Trace& t, const PyFrame& from,
                                             std::string_view value, int line) {
  value = TrimView(value);
  const size_t open = value.find('(');
  if (open == std::string_view::npos || value.back() != ')') return std::nullopt;
  const std::string_view callee = TrimView(value.substr(0, open));
  const PyCallStep* call = nullptr;
  for (const PyCallStep& c : from.calls)
    if (c.line == line && c.callee == callee) call = &c;
  if (!call || call->resolved.empty()) return std::nullopt;
  const PyFrame* frame = nullptr;
  for (const PyFrame& f : t.python)
    if (f.symbol == call->resolved && f.where.valid()) frame = &f;
  if (!frame) return std::nullopt;
  const PyFileLines& lines = PyLinesOf(ix, frame->where.file);
  const PyReturns returns = PyFunctionReturns(lines, frame->where.line);
  if (!returns.complete || returns.statements.size() != 1) return std::nullopt;
  const int at = returns.statements[0].first;
  const auto first = lines.First(static_cast<size_t>(at));
  if (first.size() < static_cast<size_t>(at)) return std::nullopt;
  std::string_view text = TrimView(CodeOf(first[static_cast<size_t>(at) - 1].text));
  if (!text.starts_with("return ")) return std::nullopt;
  text = TrimView(text.substr(7));
  if (!IsIdentifier(text)) return std::nullopt;
  return ReturnedName{call, frame, std::string(text), at};
}

}  // namespace

std::optional<std::string> FrameBindings::Resolve(const std::string& value, const Bindings& caller,
                                                  const std::vector<PyParameter>& caller_params, const PyFrame* from,
                                                  int line, int depth) {
  if (IsLiteral(value)) return value;
  // A module's mode is the assumptions' (nn.Dropout passes self.training on).
  if (value == "self.training") return a_.training ? "True" : "False";
  bool parameter = false;
  for (const PyParameter& p : caller_params) parameter = parameter || p.name == value;
  // A name the frame writes before the call (a local, or a parameter it
  // rebinds: LSTM.forward's `hx = (h_zeros, c_zeros)` under `if hx is
  // None`) holds the write the caller's values take; open when that is open.
  if (IsIdentifier(value) && from && from->where.valid() && line > 0 && depth <= kLocalValueDepth) {
    auto text = ix_.FileText(from->where.file);
    const std::vector<PyAssignment> none;
    const auto& assigned = text ? lines_.Assignments(from->where.file, *text, from->where.line, line, value) : none;
    if (!assigned.empty()) {
      Assumptions with_frame = a_;
      with_frame.defaults = caller;
      bool open = false;
      std::optional<size_t> held = HeldAssignment(PyLinesOf(ix_, from->where.file), assigned, with_frame, &open);
      if (held) return Resolve(assigned[*held].value, caller, caller_params, from, assigned[*held].line, depth + 1);
      // Written on several lines, none of them known to run: no default
      // stands for a local; a parameter keeps what the caller passed.
      if (open || !parameter) return std::nullopt;
    } else if (!parameter && !caller.count(value)) {
      return "";  // a local never written: what it was (the default stands)
    }
  }
  auto known = caller.find(value);
  if (known != caller.end()) return known->second;
  if (IsIdentifier(value)) return parameter ? std::optional<std::string>(std::nullopt) : std::optional<std::string>("");
  // A call of a Python function on the trace whose one return gives back a
  // name: what that name holds there, with what this call passes
  // (MultiheadAttention's `attn_mask = F._canonical_mask(mask=attn_mask,
  // ...)` returns the mask it is passed, None at the defaults).
  if (from && depth <= kLocalValueDepth)
    if (std::optional<ReturnedName> r = SoleReturnedName(ix_, t_, *from, value, line)) {
      const std::vector<PyParameter> params = ParametersOf(r->frame->where);
      std::optional<std::vector<PyArgument>> args = ArgumentsAt(*from, *r->call);
      if (!args) return std::nullopt;
      Bindings passed;
      for (const PyParameter& p : params)
        if (p.default_value && IsLiteral(*p.default_value)) passed[p.name] = *p.default_value;
      const bool method = !params.empty() && params[0].name == "self";
      for (const auto& [name, arg] : BindArguments(*args, params, method)) {
        std::optional<std::string> v = Resolve(arg, caller, caller_params, from, line, depth + 1);
        if (!v) passed.erase(name);
        else if (!v->empty()) passed[name] = *v;
      }
      return Resolve(r->name, passed, params, r->frame, r->line, depth + 1);
    }
  // An expression: unknown when it reads a parameter that left its default.
  for (const std::string& name : NamesRead(value)) {
    for (const PyParameter& p : caller_params) {
      if (p.name != name) continue;
      auto b = caller.find(name);
      if (!p.default_value || b == caller.end() || b->second != *p.default_value) return std::nullopt;
    }
  }
  return "";
}

Bindings FrameBindings::LocalTruths(const PyFrame& f, const std::string& condition, int line,
                                    const std::function<Tri(const std::string&, const Bindings&)>& evaluate) {
  Bindings out;
  if (!f.where.valid() || line <= 0) return out;
  auto text = ix_.FileText(f.where.file);
  if (!text) return out;
  const Bindings& known = Of(f);
  for (const std::string& name : NamesRead(condition)) {
    if (known.count(name) || out.count(name)) continue;
    const auto& assigned = lines_.Assignments(f.where.file, *text, f.where.line, line, name);
    if (assigned.empty()) continue;
    // What the unconditional write holds, and what the branches write;
    // literals as written ("None", "'training is enabled'").
    std::optional<std::string> state, branches;
    bool branches_agree = true;  // every branch writes one literal (not just one truth)
    Tri taken = Tri::kFalse;     // whether a branch is taken
    bool open = false;
    for (const PyAssignment& a : assigned) {
      std::vector<PyCondition> conds = PyLineConditions(PyLinesOf(ix_, f.where.file), a.line);
      // Deeper than the first assignment with no condition read: a branch
      // under a header the guard reader did not follow (a multi-line `if (`).
      bool unread = conds.empty() && a.indent > assigned.front().indent;
      // The branch's own conditions: the earlier branches of its chain
      // (kind "else") set the flag alike, so they do not matter.
      Tri own = unread ? Tri::kUnknown : Tri::kTrue;
      for (const PyCondition& c : conds) {
        if (ConditionKindOf(c.kind) == ConditionKind::kElse) continue;
        Tri t = evaluate(c.text, known);
        if (c.negated) t = Not(t);
        if (t == Tri::kFalse) own = Tri::kFalse;
        else if (t == Tri::kUnknown && own == Tri::kTrue) own = Tri::kUnknown;
      }
      // A branch ruled out writes nothing, whatever it would write
      // (`input, batch_sizes, ... = input` under `isinstance(orig_input,
      // PackedSequence)`).
      if (!conds.empty() && own == Tri::kFalse) continue;
      if (!LiteralTruth(a.value)) {
        open = true;
        break;
      }
      if (conds.empty() && !unread) {
        state = a.value;
        branches.reset();
        branches_agree = true;
        taken = Tri::kFalse;
        continue;
      }
      if (branches && *LiteralTruth(*branches) != *LiteralTruth(a.value)) open = true;
      if (branches && *branches != a.value) branches_agree = false;
      branches = a.value;
      if (own == Tri::kTrue) taken = Tri::kTrue;
      else if (own == Tri::kUnknown && taken == Tri::kFalse) taken = Tri::kUnknown;
    }
    if (open) continue;
    // The literal held, else (several literals of one truth) that truth.
    std::optional<std::string> value;
    bool one_literal = true;
    if (!branches || taken == Tri::kFalse) {
      value = state;
    } else if (taken == Tri::kTrue) {
      value = branches;
      one_literal = branches_agree;
    } else if (state && *LiteralTruth(*state) == *LiteralTruth(*branches)) {
      value = state;
      one_literal = branches_agree && *state == *branches;
    }
    if (!value) continue;
    // Where the condition asks only its truth (`if not why:`), the truth;
    // else the literal itself, when one: `x is None` of a local holding
    // None is true, of one holding False false.
    if (ReadAsTruthOnly(condition, name)) out[name] = *LiteralTruth(*value) ? "True" : "False";
    else if (one_literal) out[name] = *value;
  }
  return out;
}

const Bindings& FrameBindings::Of(const PyFrame& f) { return Compute(f, 0); }

Tri FrameBindings::Evaluate(const PyFrame& f, const Condition& c) {
  auto evaluate = [&](const std::string& text, const Bindings& known) {
    Assumptions b = a_;
    b.defaults = known;
    return EvaluateCondition(text, true, b);
  };
  Assumptions with_locals = a_;
  with_locals.defaults = Of(f);
  for (const auto& [name, truth] : LocalTruths(f, c.text, c.where.line, evaluate)) with_locals.defaults[name] = truth;
  with_locals.sizes = SizeLocals(f, c);
  return EvaluateCondition(c.text, true, with_locals);
}

std::string_view FrameLines::From(const std::string& file, std::string_view text, int line) const {
  return text.substr(std::min(text.size(), ix_.LineOffset(file, line)));
}

const std::vector<PyAssignment>& FrameLines::Assignments(const std::string& file, std::string_view text, int from,
                                                         int before, std::string_view name) {
  auto [it, added] = assignments_.try_emplace(Key{file, from, before, std::string(name)});
  if (added) {
    it->second = AssignmentsOf(From(file, text, from), 1, before - from + 1, name);
    for (PyAssignment& a : it->second) a.line += from - 1;
  }
  return it->second;
}

bool FrameLines::HoldsSize(const std::string& file, std::string_view text, int from, int before,
                           const std::string& name) {
  auto [it, added] = sizes_.try_emplace(Key{file, from, before, name});
  if (added) it->second = HoldsATensorSize(From(file, text, from), 1, before - from + 1, name);
  return it->second;
}

std::set<std::string> FrameBindings::SizeLocals(const PyFrame& f, const Condition& c) {
  std::set<std::string> out;
  if (!f.where.valid() || c.where.file != f.where.file || c.where.line <= f.where.line) return out;
  auto text = ix_.FileText(f.where.file);
  if (!text) return out;
  const Bindings& known = Of(f);
  for (const std::string& name : NamesRead(c.text))
    if (!known.count(name) && lines_.HoldsSize(f.where.file, *text, f.where.line + 1, c.where.line, name))
      out.insert(name);
  return out;
}

bool FrameBindings::IsOpenOptionalStep(const Condition& c) {
  if (c.kind != ConditionKind::kIf || c.negated || !c.where.valid() || !c.where.file.ends_with(".py")) return false;
  auto text = ix_.FileText(c.where.file);
  if (!text || !PyOptionalStep(PyLinesOf(ix_, c.where.file), c.where.line)) return false;
  // The frame one of whose calls the condition guards.
  for (const PyFrame& f : t_.python) {
    if (f.where.file != c.where.file) continue;
    for (const PyCallStep& call : f.calls)
      for (const Condition& w : call.when)
        if (w.where.line == c.where.line && w.text == c.text) return Evaluate(f, c) == Tri::kUnknown;
  }
  return false;
}

bool FrameBindings::FeedsOnlyLaterOutputs(const PyFrame& f, const PyCallStep& c) {
  PySymbol fn = ix_.py.Resolve(f.symbol);
  if (fn.kind != PySymbol::kFunction || !f.where.valid() || c.line <= 0) return false;
  uint32_t end_line = ix_.py.modules()[fn.module].functions[fn.index].end_line;
  auto text = ix_.FileText(f.where.file);
  if (!text) return false;
  std::vector<std::string_view> lines;
  for (size_t at = 0; at <= text->size();) {
    size_t nl = text->find('\n', at);
    if (nl == std::string::npos) nl = text->size();
    lines.push_back(std::string_view(*text).substr(at, nl - at));
    at = nl + 1;
  }
  if (static_cast<size_t>(c.line) > lines.size() || end_line > lines.size()) return false;
  std::string x = AssignedName(lines[c.line - 1]);
  if (x.empty()) return false;
  bool returned = false;
  for (uint32_t l = static_cast<uint32_t>(c.line) + 1; l <= end_line; ++l) {
    std::string_view line = TrimView(lines[l - 1]);
    if (!Mentions(line, x)) continue;
    if (AssignedName(line) == x) {
      // `x = x.squeeze(0)` passes the value on; `x = other` ends it.
      if (Mentions(line.substr(line.find('=') + 1), x)) continue;
      break;
    }
    if (!line.starts_with("return ")) return false;
    std::vector<PyArgument> items = SplitArguments(line.substr(7));
    for (size_t i = 0; i < items.size(); ++i) {
      if (!Mentions(items[i].value, x)) continue;
      if (i == 0 || items[i].value != x) return false;
      returned = true;
    }
  }
  return returned;
}

const Bindings& FrameBindings::Compute(const PyFrame& f, int depth) {
  if (auto it = done_.find(f.symbol); it != done_.end()) return it->second;
  std::vector<PyParameter> params = ParametersOf(f.where);
  Bindings out;
  for (const PyParameter& p : params)
    if (p.default_value) out[p.name] = *p.default_value;
  bool busy = busy_[f.symbol];
  if (IsTarget(f) && !IsModuleTarget()) {
    bool method = !params.empty() && params[0].name == "self";
    for (const auto& [name, value] : BindArguments(SplitArguments(t_.call_arguments), params, method)) {
      if (IsLiteral(value)) out[name] = value;
      else out.erase(name);
    }
  } else if (!busy && depth < kBindingFrameDepth) {
    busy_[f.symbol] = true;
    std::optional<Bindings> agreed;
    for (const PyFrame& g : t_.python) {
      for (const PyCallStep& c : g.calls) {
        if (c.resolved != f.symbol || &g == &f) continue;
        const Bindings& caller = Compute(g, depth + 1);
        if (RuledOut(c, caller)) continue;
        auto args = ArgumentsAt(g, c);
        if (!args) continue;  // unread: the defaults stand
        std::vector<PyParameter> caller_params = ParametersOf(g.where);
        Bindings site = out;
        bool method = !params.empty() && params[0].name == "self";
        for (const auto& [name, value] : BindArguments(*args, params, method)) {
          std::optional<std::string> v = Resolve(value, caller, caller_params, &g, c.line);
          if (!v) site.erase(name);
          else if (!v->empty()) site[name] = *v;
        }
        if (!agreed) agreed = site;
        else Agree(&*agreed, site);
      }
    }
    busy_[f.symbol] = false;
    if (agreed) out = *agreed;
  }
  AddAttributes(f.symbol, &out, depth);
  return done_[f.symbol] = std::move(out);
}

void FrameBindings::AddAttributes(const std::string& symbol, Bindings* out, int depth) {
  PySymbol owner = ix_.py.Resolve(OwnerOf(symbol));
  if (owner.kind != PySymbol::kClass) return;
  std::optional<std::vector<PyArgument>> args;
  if (IsModuleTarget() && OwnerOf(symbol) == t_.target_name && t_.call_query) args = SplitArguments(t_.call_arguments);
  InitAttributes(owner.module, owner.index, args, out, depth);
}

// `self.X = <literal or parameter>` lines at the top level of `__init__`'s
// body (an assignment under an `if` depends on what the `if` tests), after
// those of the base `__init__` it calls through super() with its own
// arguments bound.
void FrameBindings::InitAttributes(uint32_t module, uint32_t cls, const std::optional<std::vector<PyArgument>>& args,
                                   Bindings* out, int depth) {
  if (depth > kInitBaseDepth) return;
  auto init = ix_.py.FindMethod(module, cls, "__init__");
  if (!init || init->kind != PySymbol::kFunction) return;
  const PyModule& m = ix_.py.modules()[init->module];
  const PyFunction& fn = m.functions[init->index];
  auto text = ix_.FileText(m.path);
  if (!text) return;
  Location def{m.path, static_cast<int>(fn.line), ""};
  std::vector<PyParameter> params = ParametersOf(def);
  Bindings local;
  for (const PyParameter& p : params)
    if (p.default_value) local[p.name] = *p.default_value;
  if (args) {
    for (const auto& [name, value] : BindArguments(*args, params, true)) {
      if (IsLiteral(value)) local[name] = value;
      else local.erase(name);
    }
  }
  // The base __init__ first: the subclass's own assignments override it.
  for (const PyCall& call : fn.calls) {
    if (call.callee != "super().__init__" && call.callee != "super(...).__init__") continue;
    auto call_args = CallArgumentText(*text, static_cast<int>(call.line), call.callee);
    const PyClass& c = m.classes[fn.class_index];
    if (!call_args || c.resolved_bases.empty() || c.resolved_bases[0].empty()) break;
    PySymbol base = ix_.py.Resolve(c.resolved_bases[0]);
    if (base.kind != PySymbol::kClass) break;
    std::vector<PyArgument> passed;
    for (PyArgument a : SplitArguments(*call_args)) {
      auto v = Resolve(a.value, local, params);
      a.value = v && !v->empty() ? *v : "<unknown>";
      passed.push_back(std::move(a));
    }
    InitAttributes(base.module, base.index, passed, out, depth + 1);
    break;
  }
  std::vector<BodyLine> lines = BodyLines(*text, fn.line, fn.end_line);
  AssignAttributes(lines, 0, lines.size(), local, out);
}

// The statements of a def's body after its header (blank and comment lines
// dropped), each with its indentation.
std::vector<FrameBindings::BodyLine> FrameBindings::BodyLines(std::string_view body, uint32_t first, uint32_t last) {
  std::vector<BodyLine> lines;
  size_t at = 0;
  for (uint32_t l = 1; l < first && at != std::string_view::npos; ++l) at = body.find('\n', at) + 1;
  int brackets = 0;
  bool in_header = true;  // the `def` line and its continued parameter lines
  for (uint32_t l = first; l <= last && at < body.size(); ++l) {
    size_t end = body.find('\n', at);
    std::string_view line = body.substr(at, end == std::string_view::npos ? std::string_view::npos : end - at);
    at = end == std::string_view::npos ? body.size() : end + 1;
    if (in_header) {
      for (char c : line) brackets += c == '(' ? 1 : c == ')' ? -1 : 0;
      in_header = brackets > 0 || TrimView(line).back() != ':';
      continue;
    }
    size_t indent = line.find_first_not_of(" \t");
    if (indent == std::string_view::npos || line[indent] == '#') continue;
    std::string_view code = TrimView(CodeOf(line.substr(indent)));
    // A line inside an open bracket continues the statement above
    // (`self.register_buffer(\n "num_batches_tracked", ...)`).
    if (brackets > 0 && !lines.empty()) lines.back().text += " " + std::string(code);
    else lines.push_back({static_cast<int>(indent), std::string(code)});
    for (char c : code) brackets += c == '(' || c == '[' || c == '{' ? 1 : c == ')' || c == ']' || c == '}' ? -1 : 0;
    brackets = std::max(brackets, 0);
  }
  return lines;
}

// The `self.X = <literal or parameter>` statements of lines [begin, end),
// a suite whose statements are indented as lines[begin]. An `if` chain
// whose conditions `local` (and the attributes set so far) decide runs the
// branch taken (`if add_bias_kv: ... else: self.bias_k = self.bias_v =
// None`); an open one leaves what any branch sets unknown. What sits under
// other compound statements (for, with, try) is not read.
void FrameBindings::AssignAttributes(const std::vector<BodyLine>& lines, size_t begin, size_t end,
                                     const Bindings& local, Bindings* out) {
  if (begin >= end) return;
  const int indent = lines[begin].indent;
  auto suite_end = [&](size_t header) {
    size_t k = header + 1;
    while (k < end && lines[k].indent > lines[header].indent) ++k;
    return k;
  };
  for (size_t k = begin; k < end;) {
    if (lines[k].indent != indent) {
      ++k;
      continue;
    }
    std::string_view stmt = lines[k].text;
    if (!StartsWithKeyword(stmt, "if")) {
      AssignAttribute(stmt, local, out);
      ++k;
      continue;
    }
    // The chain: if, elif..., else.
    std::optional<size_t> taken;
    bool open = false;
    size_t chain_begin = k;
    while (k < end && lines[k].indent == indent &&
           (k == chain_begin ? StartsWithKeyword(lines[k].text, "if")
                             : StartsWithKeyword(lines[k].text, "elif") || StartsWithKeyword(lines[k].text, "else"))) {
      std::string_view head = lines[k].text;
      size_t body_end = suite_end(k);
      if (!taken && !open) {
        Tri t = Tri::kTrue;
        if (!StartsWithKeyword(head, "else")) t = BranchCondition(head, local, *out);
        if (t == Tri::kTrue) taken = k;
        else if (t == Tri::kUnknown) open = true;
      }
      k = body_end;
    }
    if (taken && !open) {
      AssignAttributes(lines, *taken + 1, suite_end(*taken), local, out);
      continue;
    }
    if (!open) continue;
    for (size_t m = chain_begin; m < k; ++m) ForgetAttribute(lines[m].text, out);
  }
}

// The truth of an `if C:` / `elif C:` header written on one line.
Tri FrameBindings::BranchCondition(std::string_view header, const Bindings& local, const Bindings& attributes) const {
  size_t space = header.find(' ');
  if (space == std::string_view::npos || header.back() != ':') return Tri::kUnknown;
  std::string condition(TrimView(header.substr(space + 1, header.size() - space - 2)));
  Assumptions a = a_;
  a.defaults = attributes;
  for (const auto& [name, value] : local) a.defaults[name] = value;
  return EvaluateCondition(condition, true, a);
}

// `self.X = <literal or parameter>`, `self.X = self.Y = <...>`, or
// `self.register_parameter("X", None)` (a parameter or buffer left unset
// reads as None); one registered from a parameter of __init__ holds what
// that holds (`self.register_buffer("pos_weight", pos_weight)` with
// `pos_weight=None`: None), any other value a tensor.
void FrameBindings::AssignAttribute(std::string_view stmt, const Bindings& local, Bindings* out) {
  if (auto r = Registered(stmt)) {
    std::string& slot = (*out)["self." + r->name];
    if (r->value == "None") slot = "None";
    else if (auto b = local.find(r->value); b != local.end() && IsIdentifier(r->value)) slot = b->second;
    else slot = r->buffer ? kModuleBuffer : kModuleParameter;
    return;
  }
  if (!stmt.starts_with("self.")) return;
  std::vector<std::string> targets;
  size_t eq;
  while ((eq = AssignmentEquals(stmt)) != std::string_view::npos) {
    std::string_view target = TrimView(stmt.substr(0, eq));
    if (size_t colon = target.find(':'); colon != std::string_view::npos) target = TrimView(target.substr(0, colon));
    if (!target.starts_with("self.") || !IsIdentifier(target.substr(5))) break;
    targets.emplace_back(target);
    stmt = TrimView(stmt.substr(eq + 1));
  }
  std::string value(stmt);
  const std::optional<std::string> converted = Conversion(value, local);
  for (const std::string& key : targets) {
    if (IsLiteral(value)) (*out)[key] = value;
    else if (MakesParameter(value)) (*out)[key] = kModuleParameter;
    else if (auto b = local.find(value); b != local.end() && IsIdentifier(value)) (*out)[key] = b->second;
    else if (converted) (*out)[key] = *converted;
    else out->erase(key);
  }
}

// An attribute a line of an open branch sets: unknown afterwards.
void FrameBindings::ForgetAttribute(std::string_view stmt, Bindings* out) {
  if (auto registered = Registered(stmt)) out->erase("self." + registered->name);
  while (stmt.starts_with("self.")) {
    size_t eq = AssignmentEquals(stmt);
    if (eq == std::string_view::npos) return;
    std::string_view target = TrimView(stmt.substr(0, eq));
    if (size_t colon = target.find(':'); colon != std::string_view::npos) target = TrimView(target.substr(0, colon));
    out->erase(std::string(target));
    stmt = TrimView(stmt.substr(eq + 1));
  }
}

namespace {

// The schema argument of `fn` named `name`; nullptr when it has none.
const SchemaArgument* ArgumentNamed(const NativeFunction& fn, const std::string& name) {
  for (const SchemaArgument& a : fn.schema.arguments)
    if (a.name == name) return &a;
  return nullptr;
}

// Whether `value`, passed for schema argument `name` of `fn`, is a Python
// number the parser never takes for that Tensor parameter: `fn` is none of
// the functions `allowed` names (parser_order.h NumbersAsTensorsFunctions;
// an unread list says nothing). A module's attribute or a parameter's
// default counts as the number it holds.
bool NumberForTensor(const NativeFunction& fn, const std::string& name, const std::string& value,
                     const std::set<std::string>& allowed) {
  if (allowed.empty() || !IsLiteral(value) || !IsNumberLiteral(value)) return false;
  const SchemaArgument* arg = ArgumentNamed(fn, name);
  return arg && (arg->type == "Tensor" || arg->type == "Tensor?") && !allowed.count(fn.schema.name);
}

// Whether schema argument `name` of `fn` takes a number (Scalar, float,
// complex): the parser gives one a tensor only when it needs no grad and
// has no dimensions (python_arg_parser.cpp's SCALAR and DOUBLE cases), never
// a typical tensor, which requires grad.
bool TakesANumber(const NativeFunction& fn, const std::string& name) {
  const SchemaArgument* arg = ArgumentNamed(fn, name);
  if (!arg) return false;
  const std::string_view type = arg->type;
  return type == "Scalar" || type == "Scalar?" || type == "float" || type == "float?" || type == "complex";
}

// Whether `value`, written in frame `f`, is a tensor: `self` in a method of
// torch's Tensor class (`Tensor.__rpow__`'s `torch.pow(other, self)`).
bool HoldsATensor(const PyFrame& f, const std::string& value) {
  return value == "self" && f.symbol.starts_with("torch._tensor.Tensor.");
}

}  // namespace

std::map<std::string, std::optional<std::string>> FrameBindings::ToSchema(const PyFrame& f, const PyCallStep& c,
                                                                          const NativeFunction& fn, bool* fits) {
  // What is read: the arguments written, and the frame (and line) whose
  // names they use.
  struct Reading {
    std::vector<PyArgument> args;
    const PyFrame* from = nullptr;
    int line = 0;
  };
  std::vector<Reading> readings;
  // A bridge frame with no Python body of its own (torch.sum): the user's
  // call goes to the schema directly, and must fit it.
  bool user_call = !f.where.valid() && IsTarget(f);
  // An operator calls its dunder on the tensor with the other operand
  // (`q / s` is q.__truediv__(s)): one positional argument, no keyword.
  bool op = c.kind == PyCallTarget::kOperator && c.operand;
  if (user_call) {
    readings.push_back({SplitArguments(t_.call_arguments), &f, c.line});
  } else if (op) {
    readings.push_back(
        {c.operand->empty() ? std::vector<PyArgument>{} : std::vector<PyArgument>{{"", *c.operand}}, &f, c.line});
  } else if (auto written = ArgumentsAt(f, c)) {
    readings.push_back({std::move(*written), &f, c.line});
  } else if (IsBuiltinAlias(ix_, f)) {
    // A name bound to a builtin (functional.py's `conv2d = _add_docstr(
    // torch.conv2d, ...)`) hands the builtin what its callers pass: each
    // call of it the trace's frames make, where they agree.
    for (const PyFrame& g : t_.python)
      for (const PyCallStep& d : g.calls)
        if (d.resolved == f.symbol && &g != &f)
          if (auto passed = ArgumentsAt(g, d)) readings.push_back({std::move(*passed), &g, d.line});
  }
  std::vector<PyParameter> schema;
  for (const SchemaArgument& a : fn.schema.arguments)
    if (!a.is_out) schema.push_back({a.name, a.default_value, a.kwarg_only, false});
  // A tensor method's receiver is the schema's first argument (`self`).
  bool method = (c.kind == PyCallTarget::kMethod || op) && !schema.empty() && schema[0].name == "self";
  std::optional<std::map<std::string, std::optional<std::string>>> agreed;
  bool any_fits = readings.empty();
  auto numbers_as_tensors = [&]() -> const std::set<std::string>& {
    if (!numbers_as_tensors_) {
      auto text = ix_.FileText(kPythonArgParserFile);
      numbers_as_tensors_ = text ? NumbersAsTensorsFunctions(*text) : std::set<std::string>{};
    }
    return *numbers_as_tensors_;
  };
  for (Reading& r : readings) {
    const Bindings& caller = Of(*r.from);
    std::vector<PyParameter> caller_params = ParametersOf(r.from->where);
    PackIntListVarargs(fn, method, &r.args);
    std::map<std::string, std::string> bound = BindArguments(r.args, schema, method);
    bool reading_fits = Fits(r.args, bound, fn, method);
    std::map<std::string, std::optional<std::string>> out;
    for (const auto& [name, value] : bound) {
      std::optional<std::string> v = Resolve(value, caller, caller_params, r.from, r.line);
      if (!v) out[name] = std::nullopt;
      else if (!v->empty()) out[name] = *v;
      if (v && NumberForTensor(fn, name, *v, numbers_as_tensors())) reading_fits = false;
      if (a_.grad && TakesANumber(fn, name) && HoldsATensor(*r.from, value)) reading_fits = false;
    }
    // A module attribute holds what the module's constructor gives it
    // whatever branch the call is on (`self.bias`, True): it fits as that
    // literal would -- lstm.data's `Tensor[] params` takes no bool, so
    // LSTM.forward's `_VF.lstm(input, hx, self._flat_weights, self.bias, ...)`
    // is a call of lstm.input only.
    for (const SchemaArgument& a : fn.schema.arguments) {
      auto b = bound.find(a.name);
      if (b == bound.end() || !b->second.starts_with("self.")) continue;
      auto held = caller.find(b->second);
      if (held != caller.end() && IsLiteral(held->second) && !LiteralFits(held->second, a.type)) reading_fits = false;
    }
    any_fits = any_fits || reading_fits;
    if (!agreed) {
      agreed = std::move(out);
      continue;
    }
    // Where the callers differ (or one leaves the default), nothing is known.
    for (auto& [name, value] : *agreed) {
      auto other = out.find(name);
      if (other == out.end() || other->second != value) value = std::nullopt;
    }
    for (const auto& [name, value] : out)
      if (!agreed->count(name)) (*agreed)[name] = std::nullopt;
  }
  if (!any_fits) *fits = false;
  return agreed ? std::move(*agreed) : std::map<std::string, std::optional<std::string>>{};
}

bool FrameBindings::ArgumentsUnread(const PyFrame& f, const PyCallStep& c) {
  const bool user_call = !f.where.valid() && IsTarget(f);  // its arguments are the query's
  return !user_call && !ArgumentsAt(f, c);
}

// The Python parser lets a schema whose only positional parameter is an
// int list take it as varargs (`torch.rand(2, 3)`, `x.view(2, 3)`): the
// positional arguments are that one list.
void FrameBindings::PackIntListVarargs(const NativeFunction& fn, bool method, std::vector<PyArgument>* args) {
  std::vector<const SchemaArgument*> positional;
  for (const SchemaArgument& a : fn.schema.arguments)
    if (!a.is_out && !a.kwarg_only &&
        !(method && positional.empty() && a.name == "self" && &a == &fn.schema.arguments[0]))
      positional.push_back(&a);
  if (positional.size() != 1 ||
      !(positional[0]->type.starts_with("int[") || positional[0]->type.starts_with("SymInt[")))
    return;
  std::vector<PyArgument> packed;
  std::string list;
  size_t values = 0;
  for (const PyArgument& a : *args) {
    if (!a.name.empty() || a.value.starts_with("*")) {
      packed.push_back(a);
      continue;
    }
    list += (list.empty() ? "" : ", ") + a.value;
    ++values;
  }
  if (values < 2) return;
  packed.insert(packed.begin(), PyArgument{"", "(" + list + ")"});
  *args = std::move(packed);
}

// Every argument found its parameter, and no literal is of a kind the
// parameter's type cannot take (a number for a Dimname, a string for an int).
bool FrameBindings::Fits(const std::vector<PyArgument>& args, const std::map<std::string, std::string>& bound,
                         const NativeFunction& fn, bool method) {
  // `out=` names an out= tensor, bound only where the overload has one;
  // the Python parser adds `requires_grad=` to a factory's TensorOptions.
  auto has = [&](std::string_view name, bool out) {
    for (const SchemaArgument& s : fn.schema.arguments)
      if (s.name == name && s.is_out == out) return true;
    return false;
  };
  auto unbound_keyword = [&](const PyArgument& a) {
    return !a.name.empty() && (has(a.name, true) || (a.name == "requires_grad" && has("device", false)));
  };
  size_t placed = 0;
  bool unpacked = false;  // `*args`: how many it holds is unknown
  for (const PyArgument& a : args) {
    unpacked = unpacked || a.value.starts_with("*");
    placed += a.value.starts_with("*") || unbound_keyword(a) ? 0 : 1;
  }
  if (!unpacked && bound.size() != placed) return false;
  // Every argument without a default is passed (a method's receiver is `self`).
  for (const SchemaArgument& a : fn.schema.arguments) {
    if (unpacked || a.is_out || a.default_value || (method && a.name == "self")) continue;
    if (!bound.count(a.name)) return false;
  }
  for (const SchemaArgument& a : fn.schema.arguments) {
    auto b = bound.find(a.name);
    if (b != bound.end() && IsLiteral(b->second) && !LiteralFits(b->second, a.type)) return false;
  }
  return true;
}

bool OnABufferAlone(const Index& ix, FrameBindings& frames, const PyFrame& f, const PyCallStep& c) {
  if (c.kind != PyCallTarget::kMethod || !f.where.valid()) return false;
  const size_t dot = c.callee.rfind('.');
  if (dot == std::string::npos) return false;
  const Bindings& known = frames.Of(f);
  auto receiver = known.find(c.callee.substr(0, dot));
  if (receiver == known.end() || receiver->second != kModuleBuffer) return false;
  auto text = ix.FileText(f.where.file);
  auto args = text ? CallArgumentText(*text, c.line, c.callee) : std::nullopt;
  if (!args) return false;
  const std::vector<PyArgument> passed = SplitArguments(*args);
  return std::all_of(passed.begin(), passed.end(), [](const PyArgument& a) { return IsLiteral(a.value); });
}

}  // namespace optrace
