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
//
// The parts: PyTokenView (py_token_view.h) reads extents and text of token
// ranges; this file's Scanner walks the blocks; ModuleStatements
// (py_module_statements.h) reads module- and class-level lines;
// CallRecorder (py_call_recorder.h) a function body's lines.
#include <string>
#include <string_view>
#include <vector>

#include "py/py_call_recorder.h"
#include "py/py_index.h"
#include "py/py_module_statements.h"
#include "py/py_token_view.h"
#include "py/py_tokenizer.h"

namespace optrace {
namespace {

constexpr int kMaxBlockDepth = 100;  // CPython's own limit on nested blocks

// The block walk: statements, `def` and `class` headers and their bodies,
// each line handed to the module statements or the call recorder by where
// it stands.
class Scanner {
 public:
  Scanner(std::string_view src, const std::vector<PyToken>& toks, const std::vector<int32_t>& match, PyModule* mod,
          const PyScanOptions& options)
      : t_(src, toks, match),
        mod_(*mod),
        package_(PackageOf(*mod)),
        module_(t_, mod, package_),
        calls_(t_, mod, package_) {
    if (options.module_code) {
      PyFunction fn;
      fn.name = fn.qualname = kModuleCodeName;
      fn.line = 1;
      fn.end_line = toks.empty() ? 1 : toks.back().line;
      module_code_ = static_cast<int32_t>(mod_.functions.size());
      mod_.functions.push_back(std::move(fn));
    }
  }

  void Run() {
    Context ctx;
    size_t i = 0;
    while (i < t_.size() && t_[i].kind != PyTok::kEnd) {
      i = ParseBlock(i, ctx, 0);
      // A stray DEDENT at top level (only after an indentation error): skip it.
      if (i < t_.size() && t_[i].kind == PyTok::kDedent) ++i;
    }
  }

  const std::string& too_deep() const { return too_deep_; }
  uint32_t too_deep_line() const { return too_deep_line_; }

 private:
  enum class Scope : uint8_t { kModule, kClass, kFunction };
  struct Context {
    Scope scope = Scope::kModule;
    int32_t function = -1;  // kFunction: the function whose body this is
    int32_t cls = -1;       // kClass: the class whose body this is
    std::string prefix;     // qualname prefix: "", "LSTM.", "outer."
  };

  // The package a relative import starts from.
  static std::string PackageOf(const PyModule& mod) {
    if (mod.is_package) return mod.name;
    size_t dot = mod.name.rfind('.');
    return dot == std::string::npos ? std::string() : mod.name.substr(0, dot);
  }

  // Parses statements until the DEDENT closing this block (consumed) or END.
  size_t ParseBlock(size_t i, const Context& ctx, int depth) {
    std::vector<PyDecorator> decorators;
    int flattened = 0;  // INDENTs read inline past kMaxBlockDepth
    while (i < t_.size()) {
      const PyToken& t = t_[i];
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
      if (t_.IsOp(i, "@")) {
        size_t nl = t_.NextNewline(i);
        decorators.push_back(ParseDecorator(i + 1, nl));
        i = nl + 1;
        continue;
      }
      size_t head = i;
      if (t_.IsName(i, "async") && i + 1 < t_.size() && t_.IsName(i + 1, "def")) ++head;
      if (t_.IsName(head, "def")) {
        i = ParseDef(head, ctx, std::move(decorators), depth);
        decorators.clear();
        continue;
      }
      if (t_.IsName(head, "class")) {
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
    const size_t nl = t_.NextNewline(i);
    const bool has_body = nl + 1 < t_.size() && t_[nl + 1].kind == PyTok::kIndent;
    switch (ctx.scope) {
      case Scope::kModule:
        module_.Line(i, nl, /*cls=*/-1);
        if (module_code_ >= 0 && !t_.IsName(i, "import") && !t_.IsName(i, "from")) calls_.Line(i, nl, module_code_);
        break;
      case Scope::kClass:
        module_.Line(i, nl, ctx.cls);
        break;
      case Scope::kFunction: {
        PyFunction* fn = &mod_.functions[ctx.function];
        const size_t first_call = fn->calls.size();
        calls_.Line(i, nl, ctx.function);
        fn = &mod_.functions[ctx.function];
        // The __torch_function__ preamble: `if has_torch_function...(...):`
        // whose body returns handle_torch_function(...).
        bool preamble_if = false;
        if (t_.IsName(i, "if") || t_.IsName(i, "elif")) {
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
    d.line = t_[b > 0 ? b - 1 : b].line;
    d.text = t_.Collapsed(b, e, 1000);
    size_t call_open = e;
    if (e > b && t_.IsOp(e - 1, ")") && t_.Match(e - 1) >= static_cast<int32_t>(b)) call_open = t_.Match(e - 1);
    d.name = t_.Joined(b, call_open);
    if (call_open < e)
      for (auto [ab, ae] : t_.SplitArgs(call_open + 1, e - 1)) d.args.push_back(t_.Collapsed(ab, ae));
    return d;
  }

  // def NAME(params) [-> ann]: body
  size_t ParseDef(size_t i, const Context& ctx, std::vector<PyDecorator> decorators, int depth) {
    const size_t nl = t_.NextNewline(i);
    if (i + 1 >= nl || t_[i + 1].kind != PyTok::kName) return Body(nl, ctx, depth);
    PyFunction fn;
    fn.name = std::string(t_.Text(i + 1));
    fn.qualname = ctx.prefix + fn.name;
    fn.line = t_[i].line;
    fn.decorators = std::move(decorators);
    fn.is_method = ctx.scope == Scope::kClass;
    fn.class_index = fn.is_method ? ctx.cls : -1;
    size_t j = i + 2;
    if (j < nl && t_.IsOp(j, "(")) {
      size_t close = t_.SkipGroup(j) - 1;
      if (close > nl) close = nl;
      fn.params = t_.ParamNames(j + 1, close);
      j = close + 1;
    }
    while (j < nl && !t_.IsOp(j, ":")) j = t_.IsOpenGroup(j) ? t_.SkipGroup(j) : j + 1;
    const uint32_t index = static_cast<uint32_t>(mod_.functions.size());
    mod_.functions.push_back(std::move(fn));
    if (ctx.scope == Scope::kClass && ctx.cls >= 0) mod_.classes[ctx.cls].methods.push_back(index);

    Context body;
    body.scope = Scope::kFunction;
    body.function = static_cast<int32_t>(index);
    body.prefix = mod_.functions[index].qualname + ".";
    size_t end;
    if (j + 1 < nl) {  // def f(): return x  -- body on the header line
      calls_.Line(j + 1, nl, body.function);
      end = nl + 1;
    } else {
      end = Body(nl, body, depth);
    }
    mod_.functions[index].end_line = t_.EndLine(t_.LastRealToken(i, end));
    return end;
  }

  // The indented block after the header line ending at nl, parsed in `body`;
  // past kMaxBlockDepth it is skipped to its DEDENT without recursing.
  size_t Body(size_t nl, const Context& body, int depth) {
    if (nl + 1 >= t_.size() || t_[nl + 1].kind != PyTok::kIndent) return nl + 1;
    if (depth + 1 < kMaxBlockDepth) return ParseBlock(nl + 2, body, depth + 1);
    TooDeep(nl + 1);
    int level = 1;
    size_t i = nl + 2;
    for (; i < t_.size() && t_[i].kind != PyTok::kEnd; ++i) {
      if (t_[i].kind == PyTok::kIndent) ++level;
      if (t_[i].kind == PyTok::kDedent && --level == 0) return i + 1;
    }
    return i;
  }

  // CPython refuses a file nesting blocks this deep ("too many levels of
  // indentation"), so it cannot run: said, with the line, rather than
  // silently answering from what was read (issue 29 item 15).
  void TooDeep(size_t at) {
    if (!too_deep_.empty()) return;
    too_deep_line_ = t_[std::min(at, t_.size() - 1)].line;
    too_deep_ = "too many levels of indentation (over " + std::to_string(kMaxBlockDepth) +
                ", which CPython refuses); what is deeper is not read";
  }

  // class NAME[(bases)]: body
  size_t ParseClass(size_t i, const Context& ctx, std::vector<PyDecorator> decorators, int depth) {
    const size_t nl = t_.NextNewline(i);
    if (i + 1 >= nl || t_[i + 1].kind != PyTok::kName) return Body(nl, ctx, depth);
    PyClass cls;
    cls.name = std::string(t_.Text(i + 1));
    cls.qualname = ctx.prefix + cls.name;
    cls.line = t_[i].line;
    cls.decorators = std::move(decorators);
    size_t j = i + 2;
    if (j < nl && t_.IsOp(j, "(")) {
      size_t close = std::min(t_.SkipGroup(j) - 1, nl);
      for (auto [ab, ae] : t_.SplitArgs(j + 1, close)) {
        if (ae > ab + 1 && t_.IsOp(ab + 1, "=")) continue;  // metaclass=..., total=False
        if (t_.IsOp(ab, "*") || t_.IsOp(ab, "**")) continue;
        std::string base = t_.Joined(ab, ae);
        // Generic[T] resolves as Generic; a call (namedtuple(...)) does not resolve.
        size_t dotted = t_.DottedEnd(ab, ae);
        bool named = dotted > ab && (dotted == ae || t_.IsOp(dotted, "["));
        cls.resolved_bases.push_back(named ? module_.QualifyLocal(ab, dotted) : std::string());
        cls.bases.push_back(std::move(base));
      }
      j = close + 1;
    }
    while (j < nl && !t_.IsOp(j, ":")) ++j;
    const int32_t index = static_cast<int32_t>(mod_.classes.size());
    mod_.classes.push_back(std::move(cls));

    Context body;
    body.scope = Scope::kClass;
    body.cls = index;
    body.prefix = mod_.classes[index].qualname + ".";
    if (j + 1 < nl) {  // class X: pass
      module_.Line(j + 1, nl, index);
      return nl + 1;
    }
    return Body(nl, body, depth);
  }

  PyTokenView t_;
  PyModule& mod_;
  std::string package_;  // for relative imports
  ModuleStatements module_;
  CallRecorder calls_;
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
