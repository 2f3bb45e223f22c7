// ScanPyFile: the structural pass over one Python file's tokens. It walks
// logical lines and the INDENT/DEDENT block structure (no AST): module-level
// lines give imports, __all__ and aliases; `def`/`class` headers give
// functions and classes (qualnames follow nesting); lines inside a function
// body give the calls and tensor operators that function makes.
//
// Conventions (the tracer relies on them):
//   - A callee is the primary expression before '(' with whitespace removed;
//     argument lists and subscripts inside it are elided: "x.view(...).transpose"
//     for x.view(a, b).transpose(0, 1), "super().forward", "self.w[...].add_";
//     a string literal receiver is "<str>", a parenthesised one "(...)".
//   - The line of a call is the line of the last callee token (the method
//     name), so a chain split over lines points at each link.
//   - Binary operators are recorded where the token before is the end of an
//     operand: "@", "+", "-", "*", "/", "**", "//", "%", "&", "|", "^", "<<",
//     ">>", the comparisons, the augmented forms ("+=", "@=" ...) and "[]"
//     for subscripts; unary minus and invert as "u-" and "u~" (not before a
//     number literal). '%' and '+'
//     right after a string literal are string formatting/concatenation and
//     are skipped, as are subscripts inside annotations (x: List[int] = ...).
//     Each operator's operands are kept as written ("left\tright" in args):
//     the primary expression on each side, extended over operators that bind
//     tighter (`x * 2 + 1` at '+' has operands "x * 2" and "1"), so a reader
//     can tell int arithmetic (`C // self.n_heads`) from tensor operators.
//   - Calls in a lambda belong to a function "<lambda>" (qualname
//     "outer.<lambda>"); calls in a nested def belong to it ("outer.inner").
//   - Code at module or class level records no calls, unless asked
//     (PyScanOptions::module_code, for a user's script): then module-level
//     statements record theirs into a function "<module>".
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "py/py_index.h"
#include "py/py_tokenizer.h"

namespace optrace {
namespace {

constexpr size_t kMaxArgsText = 200;
// An operator call keeps both operands ("left\tright", maybe after "... "),
// each cut so that the whole stays within kMaxArgsText like any call's args.
constexpr size_t kMaxOperandText = (kMaxArgsText - 5) / 2;
constexpr int kMaxBlockDepth = 100;   // CPython's own limit on nested blocks
constexpr int kMaxLambdaDepth = 16;
constexpr int kMaxOperands = 16;      // operands an operator's left side is read back over
constexpr int kMaxCalleeLinks = 16;   // trailers a call's callee is read back over

bool IsOpenBracket(std::string_view t) { return t.size() == 1 && (t[0] == '(' || t[0] == '[' || t[0] == '{'); }
bool IsCloseBracket(std::string_view t) { return t.size() == 1 && (t[0] == ')' || t[0] == ']' || t[0] == '}'); }

// The value of a simple string literal token: prefix and quotes stripped, no
// escape processing (enough for the identifiers in __all__).
std::string_view StringValue(std::string_view tok) {
  size_t q = tok.find_first_of("'\"");
  if (q == std::string_view::npos) return {};
  std::string_view body = tok.substr(q);
  size_t quote_len = body.size() >= 6 && body[1] == body[0] && body[2] == body[0] ? 3 : 1;
  if (body.size() < 2 * quote_len) return {};
  return body.substr(quote_len, body.size() - 2 * quote_len);
}

class Scanner {
 public:
  Scanner(std::string_view src, const std::vector<PyToken>& toks, const std::vector<int32_t>& match, PyModule* mod,
          const PyScanOptions& options)
      : src_(src), toks_(toks), match_(match), mod_(*mod) {
    if (options.module_code) {
      PyFunction fn;
      fn.name = fn.qualname = kModuleCodeName;
      fn.line = 1;
      fn.end_line = toks_.empty() ? 1 : toks_.back().line;
      module_code_ = static_cast<int32_t>(mod_.functions.size());
      mod_.functions.push_back(std::move(fn));
    }
    std::string_view name = mod_.name;
    if (mod_.is_package) {
      package_ = std::string(name);
    } else {
      size_t dot = name.rfind('.');
      package_ = dot == std::string_view::npos ? std::string() : std::string(name.substr(0, dot));
    }
  }

  void Run() {
    Context ctx;
    size_t i = 0;
    while (i < toks_.size() && toks_[i].kind != PyTok::kEnd) {
      i = ParseBlock(i, ctx, 0);
      // A stray DEDENT at top level (only after an indentation error): skip it.
      if (i < toks_.size() && toks_[i].kind == PyTok::kDedent) ++i;
    }
  }

 private:
  enum class Scope : uint8_t { kModule, kClass, kFunction };
  struct Context {
    Scope scope = Scope::kModule;
    int32_t function = -1;  // kFunction: the function whose body this is
    int32_t cls = -1;       // kClass: the class whose body this is
    std::string prefix;     // qualname prefix: "", "LSTM.", "outer."
  };

  std::string_view Text(size_t i) const { return toks_[i].text(src_); }
  bool IsOp(size_t i, std::string_view op) const {
    const PyToken& t = toks_[i];
    return t.kind == PyTok::kOp && t.size == op.size() && src_[t.begin] == op[0] && Text(i) == op;
  }
  bool IsName(size_t i, std::string_view name) const { return toks_[i].kind == PyTok::kName && Text(i) == name; }
  size_t NextNewline(size_t i) const {
    while (i < toks_.size() && toks_[i].kind != PyTok::kNewline && toks_[i].kind != PyTok::kEnd) ++i;
    return i;
  }
  // Index just past the bracket group opening at i (or i+1 when unmatched).
  size_t SkipGroup(size_t i) const { return match_[i] > static_cast<int32_t>(i) ? match_[i] + 1 : i + 1; }

  // True when token i ends an operand, so a following '(' is a call, '[' a
  // subscript and '+' a binary operator.
  bool EndsOperand(size_t i) const {
    const PyToken& t = toks_[i];
    switch (t.kind) {
      case PyTok::kName: {
        std::string_view s = Text(i);
        return !IsPyKeyword(s) || s == "None" || s == "True" || s == "False";
      }
      case PyTok::kNumber:
      case PyTok::kString:
        return true;
      case PyTok::kOp: {
        std::string_view s = Text(i);
        return s == ")" || s == "]" || s == "}" || s == "...";
      }
      default:
        return false;
    }
  }

  // Tokens [b, e) joined with single spaces where the source had any gap,
  // none after an opening bracket or before a closing one or a comma;
  // whitespace runs inside tokens (multi-line strings) collapse too. Stops
  // once `limit` characters are reached ("..." marks the cut).
  std::string Collapsed(size_t b, size_t e, size_t limit = kMaxArgsText) const {
    std::string out;
    if (b < e) out.reserve(std::min<size_t>(limit + 1, toks_[e - 1].begin + toks_[e - 1].size - toks_[b].begin));
    for (size_t i = b; i < e; ++i) {
      std::string_view t = Text(i);
      if (i > b && toks_[i].begin > toks_[i - 1].begin + toks_[i - 1].size) {
        std::string_view prev = Text(i - 1);
        if (!IsOpenBracket(prev) && !IsCloseBracket(t) && t != ",") out += ' ';
      }
      bool space = false;
      for (char c : t) {
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f') {
          space = true;
          continue;
        }
        if (space && !out.empty()) out += ' ';
        space = false;
        out += c;
        if (out.size() > limit) break;
      }
      if (out.size() > limit) {
        out.resize(limit - 3);
        out += "...";
        break;
      }
    }
    return out;
  }

  // Tokens [b, e) with no whitespace at all (dotted names, callees).
  std::string Joined(size_t b, size_t e) const {
    std::string out;
    for (size_t i = b; i < e; ++i) out += Text(i);
    return out;
  }

  // Splits [b, e) at top-level commas into [begin, end) ranges (empty ones dropped).
  std::vector<std::pair<size_t, size_t>> SplitArgs(size_t b, size_t e) const {
    std::vector<std::pair<size_t, size_t>> out;
    size_t start = b;
    for (size_t i = b; i < e;) {
      if (toks_[i].kind == PyTok::kOp && IsOpenBracket(Text(i))) {
        i = std::min(SkipGroup(i), e);
        continue;
      }
      if (IsOp(i, ",")) {
        if (i > start) out.emplace_back(start, i);
        start = i + 1;
      }
      ++i;
    }
    if (e > start) out.emplace_back(start, e);
    return out;
  }

  // Index past a dotted name NAME(.NAME)* starting at b, or b when none.
  size_t DottedEnd(size_t b, size_t e) const {
    if (b >= e || toks_[b].kind != PyTok::kName || IsPyKeyword(Text(b))) return b;
    size_t i = b + 1;
    while (i + 1 < e && IsOp(i, ".") && toks_[i + 1].kind == PyTok::kName) i += 2;
    return i;
  }

  uint32_t EndLine(size_t last) const {
    uint32_t line = toks_[last].line;
    for (char c : Text(last))
      if (c == '\n') ++line;
    return line;
  }

  // ---- blocks and statements ------------------------------------------------

  // Parses statements until the DEDENT closing this block (consumed) or END.
  size_t ParseBlock(size_t i, const Context& ctx, int depth) {
    std::vector<PyDecorator> decorators;
    int flattened = 0;  // INDENTs read inline past kMaxBlockDepth
    while (i < toks_.size()) {
      const PyToken& t = toks_[i];
      if (t.kind == PyTok::kEnd) return i;
      if (t.kind == PyTok::kDedent) {
        if (flattened > 0) {
          --flattened;
          ++i;
          continue;
        }
        return i + 1;
      }
      if (t.kind == PyTok::kNewline) {
        ++i;
        continue;
      }
      if (t.kind == PyTok::kIndent) {  // unexpected indent (a tokenizer error was recorded)
        i = Nested(i + 1, ctx, depth, &flattened);
        continue;
      }
      if (IsOp(i, "@")) {
        size_t nl = NextNewline(i);
        decorators.push_back(ParseDecorator(i + 1, nl));
        i = nl + 1;
        continue;
      }
      size_t head = i;
      if (IsName(i, "async") && i + 1 < toks_.size() && IsName(i + 1, "def")) ++head;
      if (IsName(head, "def")) {
        i = ParseDef(head, ctx, std::move(decorators), depth);
        decorators.clear();
        continue;
      }
      if (IsName(head, "class")) {
        i = ParseClass(head, ctx, std::move(decorators), depth);
        decorators.clear();
        continue;
      }
      decorators.clear();
      i = ParseStatement(i, ctx, depth, &flattened);
    }
    return i;
  }

  // Parses the block after an INDENT at i-1: recursively, or inline when too deep.
  size_t Nested(size_t i, const Context& ctx, int depth, int* flattened) {
    if (depth + 1 >= kMaxBlockDepth) {
      TooDeep(i);
      ++*flattened;
      return i;
    }
    return ParseBlock(i, ctx, depth + 1);
  }

  // A simple statement or compound header plus its indented body.
  size_t ParseStatement(size_t i, const Context& ctx, int depth, int* flattened) {
    const size_t nl = NextNewline(i);
    const bool has_body = nl + 1 < toks_.size() && toks_[nl + 1].kind == PyTok::kIndent;
    switch (ctx.scope) {
      case Scope::kModule:
        ModuleLine(i, nl, /*cls=*/-1);
        if (module_code_ >= 0 && !IsName(i, "import") && !IsName(i, "from")) {
          Context code;
          code.scope = Scope::kFunction;
          code.function = module_code_;
          FunctionLine(i, nl, code);
        }
        break;
      case Scope::kClass:
        ModuleLine(i, nl, ctx.cls);
        break;
      case Scope::kFunction: {
        PyFunction* fn = &mod_.functions[ctx.function];
        const size_t first_call = fn->calls.size();
        FunctionLine(i, nl, ctx);
        fn = &mod_.functions[ctx.function];
        // The __torch_function__ preamble: `if has_torch_function...(...):`
        // whose body returns handle_torch_function(...).
        bool preamble_if = false;
        if (IsName(i, "if") || IsName(i, "elif")) {
          for (size_t c = first_call; c < fn->calls.size(); ++c)
            if (fn->calls[c].callee.find("has_torch_function") != std::string::npos) preamble_if = true;
        }
        size_t end = nl + 1;
        if (has_body) end = Nested(nl + 2, ctx, depth, flattened);
        fn = &mod_.functions[ctx.function];
        if (preamble_if) {
          bool handles = false;
          for (size_t c = first_call; c < fn->calls.size(); ++c) {
            const std::string& callee = fn->calls[c].callee;
            if (callee.size() >= 21 && callee.compare(callee.size() - 21, 21, "handle_torch_function") == 0)
              handles = true;
          }
          if (handles)
            for (size_t c = first_call; c < fn->calls.size(); ++c) fn->calls[c].in_preamble = true;
        }
        return end;
      }
    }
    if (has_body) return Nested(nl + 2, ctx, depth, flattened);
    return nl + 1;
  }

  PyDecorator ParseDecorator(size_t b, size_t e) {
    PyDecorator d;
    d.line = toks_[b > 0 ? b - 1 : b].line;
    d.text = Collapsed(b, e, 1000);
    size_t call_open = e;
    if (e > b && IsOp(e - 1, ")") && match_[e - 1] >= static_cast<int32_t>(b)) call_open = match_[e - 1];
    d.name = Joined(b, call_open);
    if (call_open < e)
      for (auto [ab, ae] : SplitArgs(call_open + 1, e - 1)) d.args.push_back(Collapsed(ab, ae));
    return d;
  }

  // def NAME(params) [-> ann]: body
  size_t ParseDef(size_t i, const Context& ctx, std::vector<PyDecorator> decorators, int depth) {
    const size_t nl = NextNewline(i);
    if (i + 1 >= nl || toks_[i + 1].kind != PyTok::kName) return Body(nl, ctx, depth);
    PyFunction fn;
    fn.name = std::string(Text(i + 1));
    fn.qualname = ctx.prefix + fn.name;
    fn.line = toks_[i].line;
    fn.decorators = std::move(decorators);
    fn.is_method = ctx.scope == Scope::kClass;
    fn.class_index = fn.is_method ? ctx.cls : -1;
    size_t j = i + 2;
    if (j < nl && IsOp(j, "(")) {
      size_t close = SkipGroup(j) - 1;
      if (close > nl) close = nl;
      fn.params = ParamNames(j + 1, close);
      j = close + 1;
    }
    while (j < nl && !IsOp(j, ":")) j = (toks_[j].kind == PyTok::kOp && IsOpenBracket(Text(j))) ? SkipGroup(j) : j + 1;
    const uint32_t index = static_cast<uint32_t>(mod_.functions.size());
    mod_.functions.push_back(std::move(fn));
    if (ctx.scope == Scope::kClass && ctx.cls >= 0) mod_.classes[ctx.cls].methods.push_back(index);

    Context body;
    body.scope = Scope::kFunction;
    body.function = static_cast<int32_t>(index);
    body.prefix = mod_.functions[index].qualname + ".";
    size_t end;
    if (j + 1 < nl) {  // def f(): return x  -- body on the header line
      FunctionLine(j + 1, nl, body);
      end = nl + 1;
    } else {
      end = Body(nl, body, depth);
    }
    mod_.functions[index].end_line = EndLine(LastRealToken(i, end));
    return end;
  }

  size_t LastRealToken(size_t b, size_t e) const {
    size_t k = e;
    while (k > b + 1) {
      --k;
      PyTok kind = toks_[k].kind;
      if (kind != PyTok::kNewline && kind != PyTok::kIndent && kind != PyTok::kDedent && kind != PyTok::kEnd) return k;
    }
    return b;
  }

  // The indented block after the header line ending at nl, parsed in `body`;
  // past kMaxBlockDepth it is skipped to its DEDENT without recursing.
  size_t Body(size_t nl, const Context& body, int depth) {
    if (nl + 1 >= toks_.size() || toks_[nl + 1].kind != PyTok::kIndent) return nl + 1;
    if (depth + 1 < kMaxBlockDepth) return ParseBlock(nl + 2, body, depth + 1);
    TooDeep(nl + 1);
    int level = 1;
    size_t i = nl + 2;
    for (; i < toks_.size() && toks_[i].kind != PyTok::kEnd; ++i) {
      if (toks_[i].kind == PyTok::kIndent) ++level;
      if (toks_[i].kind == PyTok::kDedent && --level == 0) return i + 1;
    }
    return i;
  }

  // CPython refuses a file nesting blocks this deep ("too many levels of
  // indentation"), so it cannot run: said, with the line, rather than
  // silently answering from what was read (issue 29 item 15).
  void TooDeep(size_t at) {
    if (!too_deep_.empty()) return;
    too_deep_line_ = toks_[std::min(at, toks_.size() - 1)].line;
    too_deep_ = "too many levels of indentation (over " + std::to_string(kMaxBlockDepth) +
                ", which CPython refuses); what is deeper is not read";
  }

 public:
  const std::string& too_deep() const { return too_deep_; }
  uint32_t too_deep_line() const { return too_deep_line_; }

 private:
  std::vector<std::string> ParamNames(size_t b, size_t e) const {
    std::vector<std::string> names;
    for (auto [pb, pe] : SplitArgs(b, e)) {
      size_t k = pb;
      while (k < pe && (IsOp(k, "*") || IsOp(k, "**"))) ++k;
      if (k < pe && toks_[k].kind == PyTok::kName) names.emplace_back(Text(k));
    }
    return names;
  }

  // class NAME[(bases)]: body
  size_t ParseClass(size_t i, const Context& ctx, std::vector<PyDecorator> decorators, int depth) {
    const size_t nl = NextNewline(i);
    if (i + 1 >= nl || toks_[i + 1].kind != PyTok::kName) return Body(nl, ctx, depth);
    PyClass cls;
    cls.name = std::string(Text(i + 1));
    cls.qualname = ctx.prefix + cls.name;
    cls.line = toks_[i].line;
    cls.decorators = std::move(decorators);
    size_t j = i + 2;
    if (j < nl && IsOp(j, "(")) {
      size_t close = std::min(SkipGroup(j) - 1, nl);
      for (auto [ab, ae] : SplitArgs(j + 1, close)) {
        if (ae > ab + 1 && IsOp(ab + 1, "=")) continue;  // metaclass=..., total=False
        if (IsOp(ab, "*") || IsOp(ab, "**")) continue;
        std::string base = Joined(ab, ae);
        // Generic[T] resolves as Generic; a call (namedtuple(...)) does not resolve.
        size_t dotted = DottedEnd(ab, ae);
        bool named = dotted > ab && (dotted == ae || IsOp(dotted, "["));
        cls.resolved_bases.push_back(named ? QualifyLocal(ab, dotted) : std::string());
        cls.bases.push_back(std::move(base));
      }
      j = close + 1;
    }
    while (j < nl && !IsOp(j, ":")) ++j;
    const int32_t index = static_cast<int32_t>(mod_.classes.size());
    mod_.classes.push_back(std::move(cls));

    Context body;
    body.scope = Scope::kClass;
    body.cls = index;
    body.prefix = mod_.classes[index].qualname + ".";
    if (j + 1 < nl) {  // class X: pass
      ModuleLine(j + 1, nl, index);
      return nl + 1;
    }
    return Body(nl, body, depth);
  }

  // "RNNBase" -> "torch.nn.modules.rnn.RNNBase" through what the module has
  // bound so far: its imports, classes and aliases ("" when unknown).
  std::string QualifyLocal(size_t b, size_t e) const {
    std::string_view first = Text(b);
    std::string rest = Joined(b + 1, e);
    // The latest binding of `first` wins, as in Python.
    uint32_t best_line = 0;
    std::string best;
    for (const PyImport& imp : mod_.imports)
      if (imp.local == first && imp.line >= best_line) {
        best_line = imp.line;
        best = imp.target;
      }
    for (const PyClass& c : mod_.classes)
      if (c.qualname == first && c.line >= best_line) {
        best_line = c.line;
        best = mod_.name + "." + c.name;
      }
    for (const PyAlias& a : mod_.aliases)
      if (a.class_index < 0 && a.name == first && a.line >= best_line) {
        best_line = a.line;
        best = mod_.name + "." + a.name;
      }
    if (best.empty()) return best;
    return best + rest;
  }

  // ---- module and class level ----------------------------------------------

  // One logical line at module level (cls < 0) or in a class body.
  void ModuleLine(size_t b, size_t e, int32_t cls) {
    // Statements separated by ';'.
    size_t start = b;
    for (size_t i = b; i <= e; ++i) {
      if (i == e || IsOp(i, ";")) {
        if (i > start) ModuleStatement(start, i, cls);
        start = i + 1;
      }
    }
  }

  void ModuleStatement(size_t b, size_t e, int32_t cls) {
    if (cls < 0 && (IsName(b, "import") || IsName(b, "from"))) {
      ParseImport(b, e, &mod_.imports);
      return;
    }
    if (toks_[b].kind != PyTok::kName || IsPyKeyword(Text(b))) return;
    // __all__.extend([...]) / __all__.append("x")
    if (cls < 0 && Text(b) == "__all__" && b + 3 < e && IsOp(b + 1, ".") && IsOp(b + 3, "(")) {
      std::string_view method = Text(b + 2);
      size_t close = SkipGroup(b + 3) - 1;
      if (method == "append" || method == "extend") {
        size_t lb = b + 4, le = std::min(close, e);
        if (method == "append") {
          if (le == lb + 1 && toks_[lb].kind == PyTok::kString) mod_.all.emplace_back(StringValue(Text(lb)));
          else mod_.all_dynamic = true;
        } else {
          AllLiteral(lb, le);
        }
      }
      return;
    }
    // Target: NAME [: annotation] (= | +=) value
    size_t k = b + 1;
    if (k < e && IsOp(k, ":")) {
      while (k < e && !IsOp(k, "=")) k = (toks_[k].kind == PyTok::kOp && IsOpenBracket(Text(k))) ? SkipGroup(k) : k + 1;
    }
    if (k >= e) return;
    const bool augmented = IsOp(k, "+=");
    if (!IsOp(k, "=") && !augmented) return;
    std::string_view name = Text(b);
    const size_t vb = k + 1;
    if (cls < 0 && name == "__all__") {
      if (!augmented) {
        mod_.all.clear();
        mod_.all_dynamic = false;
      }
      AllLiteral(vb, e);
      return;
    }
    if (augmented) return;
    for (size_t i = vb; i < e; i = (toks_[i].kind == PyTok::kOp && IsOpenBracket(Text(i))) ? SkipGroup(i) : i + 1)
      if (IsOp(i, "=")) return;  // a = b = c: not an alias the pass records
    size_t dotted = DottedEnd(vb, e);
    if (dotted == vb) return;
    PyAlias alias;
    alias.name = std::string(name);
    alias.line = toks_[b].line;
    alias.class_index = cls;
    if (dotted == e) {
      alias.kind = PyAliasKind::kAssign;
      alias.target = Joined(vb, e);
    } else if (IsOp(dotted, "(") && SkipGroup(dotted) == e) {
      std::string callee = Joined(vb, dotted);
      std::string_view last = std::string_view(callee).substr(callee.rfind('.') + 1);
      auto args = SplitArgs(dotted + 1, e - 1);
      alias.args = Collapsed(dotted + 1, e - 1);
      if (last == "_add_docstr" && !args.empty()) {
        alias.kind = PyAliasKind::kAddDocstr;
        alias.target = Joined(args[0].first, args[0].second);
      } else if (last == "boolean_dispatch") {
        alias.kind = PyAliasKind::kBooleanDispatch;
        alias.target = callee;
        // boolean_dispatch(arg_name, arg_index, default, if_true, if_false, module_name, func_name)
        for (size_t a = 0; a < args.size(); ++a) {
          auto [ab, ae] = args[a];
          if (ae > ab + 2 && IsOp(ab + 1, "=")) {
            std::string_view kw = Text(ab);
            if (kw == "if_true") alias.if_true = Joined(ab + 2, ae);
            if (kw == "if_false") alias.if_false = Joined(ab + 2, ae);
          } else if (a == 3) {
            alias.if_true = Joined(ab, ae);
          } else if (a == 4) {
            alias.if_false = Joined(ab, ae);
          }
        }
      } else {
        alias.kind = PyAliasKind::kCall;
        alias.target = std::move(callee);
      }
    } else {
      return;
    }
    mod_.aliases.push_back(std::move(alias));
  }

  // A literal list/tuple of strings for __all__ (appended); anything else
  // marks __all__ dynamic, keeping the literal parts.
  void AllLiteral(size_t b, size_t e) {
    if (b < e && (IsOp(b, "[") || IsOp(b, "(")) && SkipGroup(b) == e) {
      for (auto [ib, ie] : SplitArgs(b + 1, e - 1)) {
        if (ie == ib + 1 && toks_[ib].kind == PyTok::kString) mod_.all.emplace_back(StringValue(Text(ib)));
        else mod_.all_dynamic = true;
      }
      return;
    }
    // ["a", "b"] + other.__all__: take the literal head.
    if (b < e && IsOp(b, "[") && SkipGroup(b) < e) AllLiteral(b, SkipGroup(b));
    mod_.all_dynamic = true;
  }

  // import a.b as c, d  |  from [.]*x import y as z, (p, q) | *
  void ParseImport(size_t b, size_t e, std::vector<PyImport>* out) {
    const uint32_t line = toks_[b].line;
    if (IsName(b, "import")) {
      for (auto [ib, ie] : SplitArgs(b + 1, e)) {
        size_t dotted = DottedEnd(ib, ie);
        if (dotted == ib) continue;
        PyImport imp;
        imp.line = line;
        if (dotted + 1 < ie && IsName(dotted, "as")) {
          imp.local = std::string(Text(dotted + 1));
          imp.target = Joined(ib, dotted);
        } else {  // import a.b binds a
          imp.local = std::string(Text(ib));
          imp.target = imp.local;
        }
        out->push_back(std::move(imp));
      }
      return;
    }
    // from
    size_t i = b + 1;
    int level = 0;
    while (i < e && (IsOp(i, ".") || IsOp(i, "..."))) {
      level += static_cast<int>(Text(i).size());
      ++i;
    }
    size_t dotted = DottedEnd(i, e);
    std::string from = Joined(i, dotted);
    if (level > 0) {
      std::string base = package_;
      for (int up = 1; up < level; ++up) {
        size_t dot = base.rfind('.');
        base = dot == std::string::npos ? std::string() : base.substr(0, dot);
      }
      from = from.empty() ? base : (base.empty() ? from : base + "." + from);
    }
    i = dotted;
    if (i >= e || !IsName(i, "import")) return;
    ++i;
    size_t ne = e;
    if (i < e && IsOp(i, "(")) {
      ne = std::min(SkipGroup(i) - 1, e);
      ++i;
    }
    for (auto [ib, ie] : SplitArgs(i, ne)) {
      PyImport imp;
      imp.line = toks_[ib].line;
      if (IsOp(ib, "*")) {
        imp.local = "*";
        imp.target = from;
      } else if (toks_[ib].kind == PyTok::kName) {
        std::string_view name = Text(ib);
        imp.local = std::string(ie > ib + 2 && IsName(ib + 1, "as") ? Text(ib + 2) : name);
        imp.target = from.empty() ? std::string(name) : from + "." + std::string(name);
      } else {
        continue;
      }
      out->push_back(std::move(imp));
    }
  }

  // ---- function bodies -------------------------------------------------------

  void FunctionLine(size_t b, size_t e, const Context& ctx) {
    if (IsName(b, "import") || IsName(b, "from")) {
      std::vector<PyImport> imports;
      ParseImport(b, e, &imports);
      auto& dst = mod_.functions[ctx.function].imports;
      dst.insert(dst.end(), imports.begin(), imports.end());
      return;
    }
    // Soft keywords: `case` patterns look like calls but are not; `match x:`
    // starts with a name that is not a callee.
    if (e > b + 1 && IsOp(e - 1, ":") && toks_[b].kind == PyTok::kName) {
      if (Text(b) == "case") return;
      if (Text(b) == "match" && !IsOp(b + 1, "(") && !IsOp(b + 1, ".") && !IsOp(b + 1, "=")) ++b;
    }
    // An annotated assignment's annotation holds no calls or subscripts of tensors.
    size_t skip_b = e, skip_e = e;
    size_t dotted = DottedEnd(b, e);
    if (dotted > b && dotted < e && IsOp(dotted, ":") && !IsName(b, "lambda")) {
      skip_b = dotted + 1;
      skip_e = skip_b;
      while (skip_e < e && !IsOp(skip_e, "="))
        skip_e = (toks_[skip_e].kind == PyTok::kOp && IsOpenBracket(Text(skip_e))) ? SkipGroup(skip_e) : skip_e + 1;
      skip_e = std::min(skip_e, e);
    }
    if (skip_b < e) {
      CollectCalls(b, skip_b, ctx.function, 0);
      CollectCalls(skip_e, e, ctx.function, 0);
    } else {
      CollectCalls(b, e, ctx.function, 0);
    }
  }

  // Calls and operators in tokens [b, e) into function `fn`.
  void CollectCalls(size_t b, size_t e, int32_t fn, int lambda_depth) {
    for (size_t i = b; i < e; ++i) {
      const PyToken& t = toks_[i];
      if (t.kind == PyTok::kName) {
        if (lambda_depth < kMaxLambdaDepth && Text(i) == "lambda") i = Lambda(i, e, fn, lambda_depth) - 1;
        continue;
      }
      if (t.kind != PyTok::kOp || i == b) continue;
      const char c0 = src_[t.begin];
      // Only these can start a recorded operator; test the cheap part first.
      if (!std::strchr("([@-*/+%&|^<>=!~", c0)) continue;
      std::string_view op = Text(i);
      if (!EndsOperand(i - 1)) {
        // Unary minus and invert (`-input`, `~mask`); not before a number literal (`x[-1]`).
        if ((op == "-" || op == "~") && i + 1 < e && toks_[i + 1].kind != PyTok::kNumber) AddUnary(fn, op, i, e);
        continue;
      }
      if (op == "=" || op == "!") continue;
      if (op.size() == 1) {
        if (c0 == '(') AddCall(fn, i);
        else if (c0 == '[') AddOperator(fn, "[]", i, e);
        else if ((c0 != '+' && c0 != '%') || toks_[i - 1].kind != PyTok::kString) AddOperator(fn, op, i, e);
      } else if (op == "**" || op == "//" || op == "<<" || op == ">>" || op.back() == '=') {
        AddOperator(fn, op, i, e);  // ** // << >>, comparisons, and += -= *= /= @= //= **= %= &= ...
      }
    }
  }

  // lambda params: body -- a function "<lambda>" of its own. Returns the
  // index past the lambda body.
  size_t Lambda(size_t i, size_t e, int32_t outer, int lambda_depth) {
    size_t colon = i + 1;
    while (colon < e && !IsOp(colon, ":"))
      colon = (toks_[colon].kind == PyTok::kOp && IsOpenBracket(Text(colon))) ? SkipGroup(colon) : colon + 1;
    if (colon >= e) return i + 1;
    size_t end = colon + 1;
    int inner_lambdas = 0;  // `lambda: lambda x: x` -- their colons are not ours
    while (end < e) {
      if (toks_[end].kind == PyTok::kOp) {
        std::string_view s = Text(end);
        if (IsOpenBracket(s)) {
          end = SkipGroup(end);
          continue;
        }
        if (s == "," || IsCloseBracket(s) || s == ";") break;
        if (s == ":") {  // a slice bound or dict value ends the lambda
          if (inner_lambdas == 0) break;
          --inner_lambdas;
        }
      } else if (toks_[end].kind == PyTok::kName) {
        std::string_view s = Text(end);
        if (s == "for" || s == "async") break;
        if (s == "lambda") ++inner_lambdas;
      }
      ++end;
    }
    end = std::min(end, e);
    PyFunction fn;
    fn.name = "<lambda>";
    fn.qualname = mod_.functions[outer].qualname + ".<lambda>";
    fn.line = toks_[i].line;
    fn.end_line = EndLine(end > colon + 1 ? end - 1 : colon);
    fn.params = ParamNames(i + 1, colon);
    const int32_t index = static_cast<int32_t>(mod_.functions.size());
    mod_.functions.push_back(std::move(fn));
    CollectCalls(colon + 1, end, index, lambda_depth + 1);
    return end;
  }

  // Operator token i (in a statement ending before e), with its operands.
  void AddOperator(int32_t fn, std::string_view op, size_t i, size_t e) {
    PyCall call;
    call.callee = std::string(op);
    call.kind = PyCallKind::kOperator;
    call.line = toks_[i].line;
    if (op == "[]") {
      call.args = Collapsed(PrimaryStart(i - 1), i, kMaxOperandText) + '\t' + Collapsed(i + 1, SkipGroup(i) - 1, kMaxOperandText);
    } else {
      const int prec = Precedence(op);
      bool cut = false;
      size_t left = LeftOperand(i, prec, &cut);
      call.args = (cut ? "... " : "") + Collapsed(left, i, kMaxOperandText) + '\t' +
                  Collapsed(i + 1, RightOperand(i + 1, e, prec), kMaxOperandText);
    }
    mod_.functions[fn].calls.push_back(std::move(call));
  }

  // How tightly a binary operator binds (Python's order); 0 for the
  // augmented assignments, whose right side is everything after them.
  static int Precedence(std::string_view op) {
    if (op == "**") return kPowerPrecedence;
    if (op == "*" || op == "/" || op == "//" || op == "%" || op == "@") return 7;
    if (op == "+" || op == "-") return 6;
    if (op == "<<" || op == ">>") return 5;
    if (op == "&") return 4;
    if (op == "^") return 3;
    if (op == "|") return 2;
    if (op == "<" || op == ">" || op == "<=" || op == ">=" || op == "==" || op == "!=") return 1;
    return 0;
  }
  static constexpr int kPowerPrecedence = 8;

  // A unary operator at i: recorded as "u-" / "u~" with its operand (args
  // "\toperand": no left side).
  void AddUnary(int32_t fn, std::string_view op, size_t i, size_t e) {
    PyCall call;
    call.callee = "u" + std::string(op);
    call.kind = PyCallKind::kOperator;
    call.line = toks_[i].line;
    call.args = '\t' + Collapsed(i + 1, RightOperand(i + 1, e, kPowerPrecedence - 1), kMaxOperandText);
    mod_.functions[fn].calls.push_back(std::move(call));
  }
  // Token i is a binary operator (it follows an operand): its precedence, else 0.
  int BinaryAt(size_t i) const {
    if (i == 0 || toks_[i].kind != PyTok::kOp || !EndsOperand(i - 1)) return 0;
    return Precedence(Text(i));
  }
  // First token of the left operand of the operator at i: the primary before
  // it, a unary sign before that, and operands joined by tighter operators
  // (or equal ones: left-associative; ** is right-associative). A long chain
  // (a + b + c + ...) is cut after kMaxOperands operands (*cut), so that
  // scanning it stays linear.
  size_t LeftOperand(size_t i, int prec, bool* cut) const {
    size_t s = PrimaryStart(i - 1);
    for (int n = 0;; ++n) {
      if (n == kMaxOperands) {
        *cut = true;
        return s;
      }
      while (s > 0 && (IsOp(s - 1, "-") || IsOp(s - 1, "+") || IsOp(s - 1, "~")) && (s < 2 || !EndsOperand(s - 2)))
        --s;
      if (s < 2 || prec == 0) return s;
      int p = BinaryAt(s - 1);
      if (p == 0 || p < prec || (p == prec && prec == kPowerPrecedence)) return s;
      s = PrimaryStart(s - 2);
    }
  }
  // Index past the right operand starting at b (statement ends before e).
  size_t RightOperand(size_t b, size_t e, int prec) const {
    size_t i = b;
    for (;;) {
      while (i < e && (IsOp(i, "-") || IsOp(i, "+") || IsOp(i, "~") || IsName(i, "not"))) ++i;
      if (i >= e) return e;
      i = PrimaryEnd(i, e);
      if (i >= e) return e;
      int p = BinaryAt(i);
      if (p == 0 || (prec > 0 && (p < prec || (p == prec && prec != kPowerPrecedence)))) return i;
      ++i;
    }
  }
  // Index past the primary expression (atom and trailers) starting at b.
  size_t PrimaryEnd(size_t b, size_t e) const {
    size_t i = b;
    if (toks_[i].kind == PyTok::kOp && IsOpenBracket(Text(i))) {
      i = SkipGroup(i);
    } else if (toks_[i].kind == PyTok::kString) {
      while (i < e && toks_[i].kind == PyTok::kString) ++i;
    } else {
      ++i;
    }
    while (i < e) {
      if (IsOp(i, ".") && i + 1 < e && toks_[i + 1].kind == PyTok::kName) i += 2;
      else if (IsOp(i, "(") || IsOp(i, "[")) i = SkipGroup(i);
      else break;
    }
    return std::min(i, e);
  }

  // First token of the primary expression whose last token is `last`: walks
  // back over names, attribute dots and trailers (call arguments, subscripts).
  // With max_links, stops after that many trailers and sets *cut; the
  // returned token is then the last one of the part left out.
  size_t PrimaryStart(size_t last, int max_links = -1, bool* cut = nullptr) const {
    size_t start = last;
    for (int links = 0;; ++links) {
      if (links == max_links) {
        *cut = true;
        return start;
      }
      size_t atom = start;
      if (toks_[atom].kind == PyTok::kOp && IsCloseBracket(Text(atom))) {
        int32_t m = match_[atom];
        if (m < 0) break;
        atom = static_cast<size_t>(m);
        // A trailer (call args or subscript) when it follows an operand.
        if (atom > 0 && EndsOperand(atom - 1) && toks_[atom - 1].kind != PyTok::kNumber) {
          start = atom - 1;
          continue;
        }
        start = atom;
        break;
      }
      start = atom;
      if (start >= 2 && IsOp(start - 1, ".") && EndsOperand(start - 2) && toks_[start - 2].kind != PyTok::kNumber) {
        start -= 2;
        continue;
      }
      break;
    }
    return start;
  }

  // A call whose '(' is token i: walks back over the primary expression, at
  // most kMaxCalleeLinks trailers: the receiver of x.relu().relu()... is
  // "(...)" past that, so a chain of n calls costs n, not n^2, in time and
  // in callee text (issue 29 item 3).
  void AddCall(int32_t fn, size_t open) {
    bool cut = false;
    size_t start = PrimaryStart(open - 1, kMaxCalleeLinks, &cut);  // first token of the callee
    PyCall call;
    if (cut) {
      call.callee = "(...)";
      ++start;
    }
    call.line = toks_[open - 1].line;
    call.callee.reserve(std::min<size_t>(64, toks_[open - 1].begin + toks_[open - 1].size - toks_[start].begin));
    // Callee text with groups elided.
    for (size_t k = start; k < open;) {
      const PyToken& t = toks_[k];
      if (t.kind == PyTok::kOp && IsOpenBracket(Text(k))) {
        size_t next = SkipGroup(k);
        bool empty = next == k + 2;
        std::string_view o = Text(k);
        if (k == start && o == "(" && !cut) call.callee += "(...)";
        else if (o == "(") call.callee += empty ? "()" : "(...)";
        else if (o == "[") call.callee += "[...]";
        else call.callee += "{...}";
        k = std::min(next, open);
        continue;
      }
      if (t.kind == PyTok::kString) call.callee += "<str>";
      else call.callee += Text(k);
      ++k;
    }
    size_t close = SkipGroup(open) - 1;
    if (close > open) call.args = Collapsed(open + 1, close);
    mod_.functions[fn].calls.push_back(std::move(call));
  }

  std::string_view src_;
  const std::vector<PyToken>& toks_;
  const std::vector<int32_t>& match_;
  PyModule& mod_;
  std::string package_;  // for relative imports
  std::string too_deep_;  // TooDeep's message, once
  uint32_t too_deep_line_ = 0;
  int32_t module_code_ = -1;  // the "<module>" function (PyScanOptions::module_code)
};

}  // namespace

std::string ModuleNameForPath(std::string_view path) {
  while (path.substr(0, 2) == "./") path.remove_prefix(2);
  if (path.size() >= 3 && path.substr(path.size() - 3) == ".py") path.remove_suffix(3);
  else if (path.size() >= 4 && path.substr(path.size() - 4) == ".pyi") path.remove_suffix(4);
  std::string name(path);
  for (char& c : name)
    if (c == '/') c = '.';
  constexpr std::string_view kInit = "__init__";
  if (name == kInit) return std::string();
  if (name.size() > kInit.size() && std::string_view(name).substr(name.size() - kInit.size() - 1) == ".__init__")
    name.resize(name.size() - kInit.size() - 1);
  return name;
}

PyModule ScanPyFile(std::string_view module_name, std::string_view path, std::string_view text,
                    const PyScanOptions& options) {
  PyModule mod;
  mod.name = std::string(module_name);
  mod.path = std::string(path);
  std::string_view base = path.substr(path.rfind('/') == std::string_view::npos ? 0 : path.rfind('/') + 1);
  mod.is_package = base == "__init__.py";
  if (LooksBinary(text)) {
    mod.error = "binary file (NUL byte in the first 8 KiB), not scanned";
    return mod;
  }
  if (text.size() >= UINT32_MAX) {
    mod.error = "file too large to scan (>= 4 GiB)";
    return mod;
  }
  // Reused per thread: the index scans thousands of files.
  thread_local std::vector<PyToken> tokens;
  thread_local std::vector<int32_t> match;
  thread_local std::vector<uint32_t> stack;
  uint32_t error_line = 0;
  std::string error = TokenizePy(text, &tokens, &error_line);
  match.assign(tokens.size(), -1);
  stack.clear();
  for (size_t i = 0; i < tokens.size(); ++i) {
    if (tokens[i].kind != PyTok::kOp || tokens[i].size != 1) continue;
    char c = text[tokens[i].begin];
    if (c == '(' || c == '[' || c == '{') {
      stack.push_back(static_cast<uint32_t>(i));
    } else if ((c == ')' || c == ']' || c == '}') && !stack.empty()) {
      uint32_t o = stack.back();
      stack.pop_back();
      match[o] = static_cast<int32_t>(i);
      match[i] = static_cast<int32_t>(o);
    }
  }
  Scanner scanner(text, tokens, match, &mod, options);
  scanner.Run();
  if (!error.empty()) {
    mod.error = error;
    mod.error_line = error_line;
  } else if (!scanner.too_deep().empty()) {
    mod.error = scanner.too_deep();
    mod.error_line = scanner.too_deep_line();
  }
  return mod;
}

}  // namespace optrace
