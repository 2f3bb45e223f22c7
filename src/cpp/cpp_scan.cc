// ScanCppFile: the structural pass over one lexed C++/CUDA file. It is not a
// C++ parser; it recognises the shapes ATen is written in, the way ctags and
// kythe's "good enough" indexers do:
//  - at namespace/class level it reads declarations up to ';' or '{' and
//    decides whether the '{' opens a namespace, a class, a function body, or
//    something to step over (initializer, enum, macro block);
//  - inside function bodies and #define bodies the code pass (CodePass)
//    records calls, CUDA launches, TensorIterator/jiterator launchers and
//    AT_DISPATCH uses;
//  - ATen's own macros (TORCH_IMPL_FUNC, DECLARE/DEFINE_DISPATCH,
//    REGISTER_*DISPATCH, TORCH_LIBRARY*) are read by name;
//  - outside function bodies it records uses of the file's own function-like
//    macros, and everywhere each uncalled `*_stub` name, so the tracer never
//    has to read source text for them.
// Everything works on token indices and string_views into the text; strings
// are made only for the records that are kept.
#include <algorithm>
#include <cctype>
#include <string>
#include <string_view>
#include <unordered_set>

#include "cpp/cpp_index.h"
#include "cpp/cpp_lexer.h"
#include "cpp/dispatch_dtypes.h"
#include "cpp/enum_members.h"
#include "cpp/launch_functors.h"
#include "cpp/macro_expansion.h"
#include "cpp/token_range.h"

namespace optrace {
namespace {

constexpr size_t kNone = static_cast<size_t>(-1);

struct Scope {
  enum Kind { kNamespace, kClass, kOther } kind;
  std::string name;
};

// The code pass: records the calls, launches, dtype dispatches and macro
// uses in [b, e) of `t` (a function body when fn >= 0, else the body of
// #define `macro`) into the file's records. It reads only the tokens it is
// handed and the names of the file's function-like macros (a call of one is
// a macro use), so it stands apart from the declaration-level scanner.
class CodePass {
 public:
  CodePass(const std::unordered_set<std::string_view>& file_macros, CppFileRecords* out)
      : file_macros_(file_macros), out_(out) {}

  void Read(const std::vector<Token>& t, size_t b, size_t e, int32_t fn, std::string_view macro) {
    Toks k(t);
    size_t host_args_end = b;  // the `)` of a call given a host policy: the calls in its arguments run there too
    for (size_t i = b; i < e; ++i) {
      const Token& x = t[i];
      if (x.kind == TokKind::kLaunchOpen) {
        TripleChevron(t, b, i, fn, macro);
        continue;
      }
      if (!IsIdent(x) || i + 1 >= e) continue;
      const Token& nx = t[i + 1];
      size_t call_paren = kNone, tmpl_open = kNone, tmpl_close = kNone;
      bool functor = false;
      if (nx.Is('(')) {
        call_paren = i + 1;
      } else if (nx.Is('<')) {
        size_t a = k.MatchAngle(i + 1, e);
        if (a == kNone || a + 1 >= e) continue;
        tmpl_open = i + 1;
        tmpl_close = a;
        if (t[a + 1].Is('(')) {
          call_paren = a + 1;
          // Type<...>()(...): a functor object made, then called.
          size_t c = k.MatchClose(a + 1, e);
          if (c != kNone && c + 1 < e && t[c + 1].Is('(')) {
            call_paren = c + 1;
            functor = true;
          }
        } else if (t[a + 1].Is('{')) {
          size_t c = k.MatchClose(a + 1, e);
          if (c + 1 < e && t[c + 1].Is('(')) {
            call_paren = c + 1;
            functor = true;
          }
        }
      } else if (nx.Is('{')) {
        size_t c = k.MatchClose(i + 1, e);
        if (c + 1 < e && t[c + 1].Is('(')) {
          call_paren = c + 1;
          functor = true;
        }
      }
      if (call_paren == kNone) {
        FunctionArgument(t, b, i, fn, macro);
        continue;
      }
      if (IsNonCallKeyword(x.text)) continue;
      if (i > b && t[i - 1].Is(']')) continue;  // [] GPU_LAMBDA (...): a lambda's attribute macro
      // `fuse_##NAME()` in a #define: the name is made by pasting at each
      // use (ideep's fuse_sigmoid), never a call of the parameter's own.
      if (i > b && t[i - 1].Is("##")) continue;
      if (x.text.size() > 12 && x.text.substr(0, 12) == "AT_DISPATCH_" && !functor) {
        DtypeDispatchUse(t, i, e, fn, macro);
      }
      // Qualifier: a::b<T>::name, and obj.name / obj->name.
      size_t q = i;
      while (q >= b + 2 && t[q - 1].Is("::")) {
        if (IsIdent(t[q - 2]) && !IsNonCallKeyword(t[q - 2].text)) {
          q -= 2;
        } else if (t[q - 2].Is('>')) {
          size_t lt = k.MatchAngleBack(q - 2, b);
          if (lt == kNone || lt <= b || !IsIdent(t[lt - 1])) break;
          q = lt - 1;
        } else {
          break;
        }
      }
      if (q > b && t[q - 1].Is("::")) --q;
      // sorter.template sort<A>(...): a member call through `template`.
      if (q > b + 1 && IsIdent(t[q - 1]) && t[q - 1].text == "template" && (t[q - 2].Is('.') || t[q - 2].Is("->"))) --q;
      CppCall call;
      call.kind = CallKind::kPlain;
      std::string qualifier = k.Concat(q, i);
      if (qualifier == "template") qualifier.clear();
      if (q > b && (t[q - 1].Is('.') || t[q - 1].Is("->"))) {
        call.kind = CallKind::kMember;
        std::string obj;
        if (q >= b + 2 && IsIdent(t[q - 2])) obj = std::string(t[q - 2].text);
        // An element (chunked_gates[0].sigmoid_()): "chunked_gates[]." names
        // the container, so that the tracer can tell a list of Tensors.
        if (q >= b + 3 && t[q - 2].Is(']')) {
          size_t open = q - 2;
          for (int depth = 0; open > b; --open) {
            if (t[open].Is(']')) ++depth;
            else if (t[open].Is('[') && --depth == 0) break;
          }
          if (open > b && t[open].Is('[') && IsIdent(t[open - 1])) obj = std::string(t[open - 1].text) + "[]";
        }
        // A call's result (iter.device().index()): "device()." names the
        // method whose return value the call is made on, so that the tracer
        // can tell a Tensor receiver from a Device or an IntArrayRef.
        if (q >= b + 2 && t[q - 2].Is(')')) {
          size_t open = q - 2;
          for (int depth = 0; open > b; --open) {
            if (t[open].Is(')')) ++depth;
            else if (t[open].Is('(') && --depth == 0) break;
          }
          if (open > b && t[open].Is('(') && IsIdent(t[open - 1]) && !IsNonCallKeyword(t[open - 1].text))
            obj = std::string(t[open - 1].text) + "()";
          // A parenthesized expression's value ((self - maxes).exp_()): kept
          // as written, so that the tracer can read what it holds.
          else if (open >= b && t[open].Is('(') && q - 2 - open < 48) obj = k.Concat(open, q - 1);
        }
        qualifier = obj + std::string(t[q - 1].text) + qualifier;
      } else {
        // `Type name(args)` and `vector<int> v(n)` declare variables.
        if (q > b && !functor) {
          const Token& p = t[q - 1];
          if (p.Is('>')) {
            size_t lt = k.MatchAngleBack(q - 1, b);
            if (lt != kNone && lt > b && IsIdent(t[lt - 1])) continue;
          }
          if (IsIdent(p) && !(p.text == "return" || p.text == "else" || p.text == "do" || p.text == "case" ||
                              p.text == "throw" || p.text == "co_return" || p.text == "new" || p.text == "co_yield" ||
                              p.text == "co_await" || p.text == "delete"))
            continue;
        }
        if (!qualifier.empty()) call.kind = CallKind::kQualified;
      }
      if (functor) call.kind = CallKind::kFunctor;
      call.callee = std::string(x.text);
      // at::_ops::x::call(...) -> callee x
      if ((x.text == "call" || x.text == "redispatch") && i >= q + 2 && IsIdent(t[i - 2]) &&
          qualifier.find("_ops::") != std::string::npos) {
        call.callee = std::string(t[i - 2].text);
        call.is_ops_call = true;
        qualifier = k.Concat(q, i - 2);
      }
      call.qualifier = std::move(qualifier);
      call.host_policy = i < host_args_end || HostPolicyFirst(t, call_paren, e);
      if (call.host_policy && i >= host_args_end) {
        const size_t close = k.MatchClose(call_paren, e);
        if (close != kNone) host_args_end = close;
      }
      call.function = fn;
      call.macro = std::string(macro);
      call.line = x.line;
      LauncherUse(t, b, i, call_paren, tmpl_open, tmpl_close, e, fn, macro);
      bool macro_use = file_macros_.count(x.text) > 0 || IsUpperMacroName(x.text);
      if (macro_use && call.kind == CallKind::kPlain) {
        CppMacroUse use;
        use.macro = call.callee;
        use.function = fn;
        use.within_macro = std::string(macro);
        use.line = x.line;
        out_->macro_uses.push_back(std::move(use));
      }
      out_->calls.push_back(std::move(call));
    }
  }

 private:
  // Whether the call whose `(` is at `paren` passes a host execution policy
  // first: `thrust::host` or `thrust::seq` (also `::thrust::host`), then `,`.
  static bool HostPolicyFirst(const std::vector<Token>& t, size_t paren, size_t e) {
    size_t a = paren + 1;
    if (a < e && t[a].Is("::")) ++a;
    return a + 3 < e && IdentIs(t[a], "thrust") && t[a + 1].Is("::") &&
           (IdentIs(t[a + 2], "host") || IdentIs(t[a + 2], "seq")) && t[a + 3].Is(',');
  }

  // An aten function passed by name, not called: `at::abs_out` in
  // unary_op_impl_with_complex_to_float(self, at::abs_out). The helper calls
  // it, so it is recorded as the call it stands for (an at:: or at::native::
  // name written as a whole argument).
  void FunctionArgument(const std::vector<Token>& t, size_t b, size_t i, int32_t fn, std::string_view macro) {
    if (i + 1 >= t.size() || !(t[i + 1].Is(',') || t[i + 1].Is(')'))) return;
    size_t q = i;
    if (q >= b + 4 && t[q - 1].Is("::") && IdentIs(t[q - 2], "native") && t[q - 3].Is("::")) q -= 2;
    if (!(q >= b + 3 && t[q - 1].Is("::") && IdentIs(t[q - 2], "at"))) return;
    q -= 2;
    if (q > b && t[q - 1].Is("::")) --q;
    if (!(t[q - 1].Is('(') || t[q - 1].Is(','))) return;
    CppCall call;
    call.kind = CallKind::kQualified;
    call.callee = std::string(t[i].text);
    call.qualifier = Toks(t).Concat(q, i);
    call.function = fn;
    call.macro = std::string(macro);
    call.line = t[i].line;
    out_->calls.push_back(std::move(call));
  }
  static bool IdentIs(const Token& x, std::string_view s) { return IsIdent(x) && x.text == s; }

  // A TensorIterator / reduce / jiterator launcher or launch_* helper called
  // at `i`: records the launch with the functors that name the code it runs.
  // `b`: where the enclosing body begins (a functor held in a variable is
  // declared there).
  void LauncherUse(const std::vector<Token>& t, size_t b, size_t i, size_t call_paren, size_t tmpl_open,
                   size_t tmpl_close, size_t e, int32_t fn, std::string_view macro) {
    Toks k(t);
    const Token& x = t[i];
    LaunchKind lk = LaunchKind::kLaunchHelper;
    bool helper = x.text.size() > 7 && x.text.substr(0, 7) == "launch_";
    if (LauncherKindOf(x.text, &lk) || helper) {
      size_t cr = k.MatchClose(call_paren, e);
      CppLaunch launch;
      launch.kind = helper ? LaunchKind::kLaunchHelper : lk;
      launch.launcher = std::string(x.text);
      bool lambda = false;
      // TensorIterator launchers take (iter, functor[, ident]): only the
      // functor argument names the code that runs. launch_* helpers vary;
      // jiterator runs the string kernel, whatever its arguments.
      if (launch.kind != LaunchKind::kJiterator) {
        int only_arg = launch.kind == LaunchKind::kLaunchHelper ? -1 : 1;
        // launch_* helpers take tensors and sizes too: only a TensorIterator
        // launcher's functor argument is looked up when it is a variable.
        LaunchFunctors(t, only_arg >= 0 ? b : kNone, call_paren, std::min(cr, e), only_arg, &launch.functors, &lambda);
      }
      if (tmpl_open != kNone) {
        if (launch.kind == LaunchKind::kJiterator) {
          auto targs = k.Args(tmpl_open, tmpl_close);
          if (!targs.empty() && targs[0].second == targs[0].first + 1 && IsIdent(t[targs[0].first])) {
            launch.kernel_name_ref = std::string(t[targs[0].first].text);
            for (const auto& [name, value] : out_->string_constants)
              if (name == launch.kernel_name_ref) launch.kernel = value;
          }
        }
      }
      if (!helper || lambda || !launch.functors.empty()) {
        launch.function = fn;
        launch.macro = std::string(macro);
        launch.line = x.line;
        out_->launches.push_back(std::move(launch));
      }
    }
  }

  void TripleChevron(const std::vector<Token>& t, size_t b, size_t i, int32_t fn, std::string_view macro) {
    Toks k(t);
    size_t name = kNone;
    if (i > b && IsIdent(t[i - 1])) {
      name = i - 1;
    } else if (i > b && t[i - 1].Is('>')) {
      size_t lt = k.MatchAngleBack(i - 1, b);
      if (lt != kNone && lt > b && IsIdent(t[lt - 1])) name = lt - 1;
    }
    CppLaunch launch;
    launch.kind = LaunchKind::kTripleChevron;
    if (name != kNone) launch.kernel = std::string(t[name].text);
    launch.function = fn;
    launch.macro = std::string(macro);
    launch.line = t[name != kNone ? name : i].line;  // the kernel's name, as a reader looks for it
    out_->launches.push_back(std::move(launch));
  }

  // AT_DISPATCH_<FAMILY>[_AND<N>](extra..., TYPE, "name", body),
  // AT_DISPATCH_V2(TYPE, "name", AT_WRAP(body), types...),
  // AT_DISPATCH_SWITCH(TYPE, "name", AT_DISPATCH_CASE...(...)...).
  void DtypeDispatchUse(const std::vector<Token>& t, size_t i, size_t e, int32_t fn, std::string_view macro) {
    Toks k(t);
    size_t cr = k.MatchClose(i + 1, e);
    if (cr >= e) return;
    auto args = k.Args(i + 1, cr);
    std::string_view name = t[i].text.substr(12);
    if (name.substr(0, 4) == "CASE") return;  // inside a SWITCH; counted there
    DtypeDispatch d;
    d.macro = std::string(t[i].text);
    d.function = fn;
    d.macro_body = std::string(macro);
    d.line = t[i].line;
    auto string_arg = [&](size_t a) -> std::string {
      if (a >= args.size()) return "";
      for (size_t j = args[a].first; j < args[a].second; ++j)
        if (t[j].kind == TokKind::kString && t[j].text.size() >= 2 && t[j].text[0] == '"')
          return std::string(t[j].text.substr(1, t[j].text.size() - 2));
      return "";
    };
    auto scalar_arg = [&](std::pair<size_t, size_t> a) {
      std::string text = k.Concat(a.first, a.second);
      std::string dt = DtypeName(text);
      d.dtypes.push_back(dt.empty() ? text : dt);  // unknown spellings are kept as written
    };
    if (name == "V2") {
      d.name = string_arg(1);
      for (size_t a = 3; a < args.size(); ++a) {
        auto [ab, ae] = args[a];
        // AT_EXPAND(AT_ALL_TYPES)
        if (ae - ab == 4 && t[ab].text == "AT_EXPAND" && t[ab + 1].Is('(') && V2TypeList(t[ab + 2].text, &d.dtypes))
          continue;
        if (ae - ab == 1 && V2TypeList(t[ab].text, &d.dtypes)) continue;
        scalar_arg(args[a]);
      }
    } else if (name == "SWITCH") {
      d.name = string_arg(1);
      for (size_t j = args.size() > 2 ? args[2].first : cr; j < cr; ++j) {
        if (!IsIdent(t[j]) || !PunctAt2(t, j + 1, '(')) continue;
        std::string_view c = t[j].text;
        if (c == "AT_DISPATCH_CASE") {
          size_t r = k.MatchClose(j + 1, cr);
          auto cargs = k.Args(j + 1, r);
          if (!cargs.empty()) scalar_arg(cargs[0]);
          j = r;
        } else if (c.size() > 17 && c.substr(0, 17) == "AT_DISPATCH_CASE_") {
          size_t r = k.MatchClose(j + 1, cr);
          auto cargs = k.Args(j + 1, r);
          std::string_view fam = c.substr(17);
          size_t extras = 0;
          SplitAnd(&fam, &extras);
          FamilyDtypes(fam, &d.dtypes);
          for (size_t a = 0; a < extras && a < cargs.size(); ++a) scalar_arg(cargs[a]);
          j = r;
        }
      }
    } else {
      size_t extras = 0;
      std::string_view fam = name;
      SplitAnd(&fam, &extras);
      if (!FamilyDtypes(fam, &d.dtypes)) return;  // not a dtype dispatch macro
      for (size_t a = 0; a < extras && a < args.size(); ++a) scalar_arg(args[a]);
      d.name = string_arg(extras + 1);
    }
    out_->dtype_dispatches.push_back(std::move(d));
  }

  static bool PunctAt2(const std::vector<Token>& t, size_t i, char c) { return i < t.size() && t[i].Is(c); }

  // "ALL_TYPES_AND_COMPLEX_AND2" -> family "ALL_TYPES_AND_COMPLEX", 2 extra
  // scalar types; "FLOATING_TYPES_AND" -> 1; "FLOATING_TYPES_AND_HALF" -> 0.
  static void SplitAnd(std::string_view* fam, size_t* extras) {
    size_t at = fam->rfind("_AND");
    if (at == std::string_view::npos) return;
    std::string_view rest = fam->substr(at + 4);
    if (rest.empty()) {
      *extras = 1;
    } else if (rest.size() == 1 && rest[0] >= '1' && rest[0] <= '9') {
      *extras = rest[0] - '0';
    } else {
      return;
    }
    *fam = fam->substr(0, at);
  }

  const std::unordered_set<std::string_view>& file_macros_;
  CppFileRecords* out_;
};

class FileScanner {
 public:
  FileScanner(std::string_view path, const LexedFile& lexed, CppFileRecords* out)
      : path_(path), lx_(lexed), out_(out), tokens_(&lexed.tokens), expander_(lexed) {
    for (const MacroDef& m : lx_.macros) {
      if (!m.function_like) continue;
      file_macros_.insert(m.name);
      for (uint32_t i = m.body_begin; i < m.body_end && i < lx_.macro_tokens.size(); ++i) {
        if (lx_.macro_tokens[i].text == "__global__") kernel_macros_.insert(m.name);
      }
    }
  }

  void Run() {
    CollectStringConstants(lx_.tokens);
    DeclarationLevel();
    FileScopeMacroUses();
    MacroBodies();
    StubReferences();
  }

 private:
  // ---------------------------------------------------------------- helpers
  // The tokens the declaration level reads: the file's, or a macro use's expansion.
  const std::vector<Token>& T() const { return *tokens_; }
  bool IdentAt(size_t i, std::string_view s) const { return i < T().size() && IsIdent(T()[i]) && T()[i].text == s; }
  bool PunctAt(size_t i, char c) const { return i < T().size() && T()[i].kind == TokKind::kPunct && T()[i].Is(c); }

  std::string ScopePrefix() const {
    std::string out;
    for (const Scope& s : scopes_) {
      if (s.kind == Scope::kOther || s.name.empty()) continue;
      out += s.name;
      out += "::";
    }
    return out;
  }

  // `constexpr char abs_name[] = "abs_kernel";` anywhere in the file.
  void CollectStringConstants(const std::vector<Token>& t) {
    for (size_t i = 0; i + 5 < t.size(); ++i) {
      if (!(IsIdent(t[i]) && t[i].text == "char" && IsIdent(t[i + 1]) && t[i + 2].Is('[') && t[i + 3].Is(']') &&
            t[i + 4].Is('=') && t[i + 5].kind == TokKind::kString))
        continue;
      std::string_view s = t[i + 5].text;
      if (s.size() < 2 || s[0] != '"' || s.back() != '"') continue;  // prefixed or raw strings: not jiterator names
      out_->string_constants.emplace_back(std::string(t[i + 1].text), std::string(s.substr(1, s.size() - 2)));
    }
  }

  // ------------------------------------------------------ declaration level
  void DeclarationLevel() {
    const size_t n = T().size();
    size_t i = 0;
    while (i < n) {
      const Token& t = T()[i];
      if (t.Is('}')) {
        if (!scopes_.empty()) scopes_.pop_back();
        ++i;
        continue;
      }
      if (t.Is(';')) {
        ++i;
        continue;
      }
      size_t next = Declaration(i);
      i = next > i ? next : i + 1;  // always make progress
    }
  }

  // Reads one declaration starting at `s`; returns the index after it.
  size_t Declaration(size_t s) {
    const auto& t = T();
    const size_t n = t.size();
    Toks k(t);
    const Token& first = t[s];
    if (IsIdent(first)) {
      std::string_view w = first.text;
      if (w == "namespace" || (w == "inline" && IdentAt(s + 1, "namespace")))
        return Namespace(w == "inline" ? s + 1 : s);
      if (w == "extern" && s + 2 < n && t[s + 1].kind == TokKind::kString && t[s + 2].Is('{')) {
        scopes_.push_back({Scope::kOther, ""});
        return s + 3;
      }
      if ((w == "public" || w == "private" || w == "protected") && PunctAt(s + 1, ':')) return s + 2;
      if (PunctAt(s + 1, '(')) {
        if (w == "TORCH_IMPL_FUNC" || w == "TORCH_META_FUNC" || w == "TORCH_META_FUNC2" ||
            w == "TORCH_PRECOMPUTE_META_FUNC" || w == "TORCH_PRECOMPUTE_META_FUNC2") {
          size_t r = StructuredFunction(s);
          if (r != kNone) return r;
        }
        if (w == "DECLARE_DISPATCH" || w == "DEFINE_DISPATCH") return StubDeclaration(s);
        if (kernel_macros_.count(w)) {
          size_t r = MacroDefinedKernel(s);
          if (r != kNone) return r;
        }
        if (IsRegisterMacro(w)) return Registration(s);
        if (file_macros_.count(w)) {
          size_t r = ExpandedDeclarations(s);
          if (r != kNone) return r;
        }
        if (w == "TORCH_LIBRARY" || w == "TORCH_LIBRARY_IMPL" || w == "TORCH_LIBRARY_FRAGMENT") {
          size_t r = LibraryBlock(s);
          if (r != kNone) return r;
        }
        if (IsUpperMacroName(w) && w.find("LAUNCH_BOUNDS") == std::string_view::npos) {
          // A macro invocation used as a whole declaration (C10_DEFINE_REGISTRY(...)
          // with or without ';'), unless a declaration continues on its line.
          size_t r = k.MatchClose(s + 1, n);
          if (r >= n) return n;
          if (r + 1 >= n || t[r + 1].Is(';')) return r + 2;
          if (t[r + 1].line > t[r].line && !t[r + 1].Is('{')) return r + 1;
        }
      }
    }
    // A general declaration: read to ';' or a '{' that decides what it is.
    size_t body_start = s;
    bool is_template = false;
    while (IdentAt(body_start, "template") && PunctAt(body_start + 1, '<')) {
      size_t a = k.MatchAngle(body_start + 1, n);
      if (a == kNone) break;
      is_template = true;
      body_start = a + 1;
    }
    int depth = 0;
    for (size_t j = s; j < n; ++j) {
      const Token& x = t[j];
      if (x.kind != TokKind::kPunct || x.text.size() != 1) continue;
      char c = x.text[0];
      if (c == '(' || c == '[') {
        ++depth;
      } else if (c == ')' || c == ']') {
        if (depth > 0) --depth;
      } else if (depth == 0 && c == ';') {
        return j + 1;
      } else if (depth == 0 && c == '}') {
        return j;  // let the caller close the scope
      } else if (depth == 0 && c == '{') {
        size_t next = kNone;
        if (Brace(body_start, j, is_template, &next)) return next;
        j = next;  // stepped over an initializer; keep reading the declaration
      }
    }
    return n;
  }

  size_t Namespace(size_t s) {
    const auto& t = T();
    std::string name;
    // An inline namespace's members are members of the enclosing one (C++
    // name lookup looks through it: at::native::CPU_CAPABILITY::f is found
    // as at::native::f), so it adds nothing to the qualified names.
    bool inline_ns = s > 0 && IdentAt(s - 1, "inline");
    size_t j = s + 1;
    for (; j < t.size(); ++j) {
      const Token& x = t[j];
      if (x.Is('{')) {
        scopes_.push_back(
            {inline_ns ? Scope::kOther : Scope::kNamespace, name.empty() ? "(anonymous namespace)" : name});
        return j + 1;
      }
      if (x.Is(';') || x.Is('=')) break;
      if (IsIdent(x) && x.text == "inline") continue;
      if (IsIdent(x) || x.Is("::")) name.append(x.text);
      else if (!x.Is('[') && !x.Is(']')) break;  // [[deprecated]] attributes are skipped
    }
    while (j < t.size() && !t[j].Is(';')) ++j;  // namespace alias
    return j + 1;
  }

  // At a depth-0 '{' ending [s, b). Returns true when the declaration is
  // done (*next = index after it); false when the brace was an initializer
  // that was stepped over (*next = its closing brace) and reading continues.
  bool Brace(size_t s, size_t b, bool is_template, size_t* next) {
    const auto& t = T();
    const size_t n = t.size();
    Toks k(t);
    size_t close = k.MatchClose(b, n);
    // enum bodies hold no code.
    for (size_t i = s; i < b; ++i) {
      if (IsIdent(t[i]) && t[i].text == "enum") {
        *next = close;
        return false;
      }
    }
    // Classes: a class-key whose head has no parameter list.
    size_t class_key = kNone;
    for (size_t i = s; i < b; ++i) {
      if (t[i].Is('(')) {
        size_t r = k.MatchClose(i, b);
        bool attribute = i > s && IsIdent(t[i - 1]) &&
                         (t[i - 1].text == "alignas" || t[i - 1].text == "__attribute__" ||
                          t[i - 1].text == "__declspec" || IsUpperMacroName(t[i - 1].text));
        if (!attribute) break;
        i = r;
        continue;
      }
      if (t[i].Is('=')) break;
      if (IsIdent(t[i]) && (t[i].text == "class" || t[i].text == "struct" || t[i].text == "union")) {
        class_key = i;
        break;
      }
    }
    if (class_key != kNone) {
      size_t head_end = b;
      bool has_params = false;
      for (size_t i = class_key + 1; i < b; ++i) {
        if (t[i].Is(':')) {
          head_end = i;
          break;
        }
        if (t[i].Is('(')) {
          bool attribute = IsIdent(t[i - 1]) && (t[i - 1].text == "alignas" || t[i - 1].text == "__attribute__" ||
                                                 t[i - 1].text == "__declspec" || IsUpperMacroName(t[i - 1].text));
          if (!attribute) {
            has_params = true;
            break;
          }
          i = k.MatchClose(i, b);
        }
      }
      if (!has_params) {
        std::string name;
        for (size_t i = class_key + 1; i < head_end; ++i) {
          if (t[i].Is('<')) break;
          if (t[i].Is('(')) {
            i = k.MatchClose(i, head_end);
            continue;
          }
          if (IsIdent(t[i]) && t[i].text != "final" && !IsUpperMacroName(t[i].text) && t[i].text != "alignas" &&
              t[i].text != "__attribute__" && t[i].text != "__declspec")
            name = std::string(t[i].text);
        }
        scopes_.push_back({Scope::kClass, name});
        *next = b + 1;
        return true;
      }
    }
    Declarator d;
    if (FindDeclarator(s, b, &d)) {
      // In a constructor's initializer list, `member{value}` braces are
      // initializers; the body is the '{' after ')' or '}'.
      if (d.init_list != kNone && b > d.init_list + 1 && (IsIdent(t[b - 1]) || t[b - 1].Is('>'))) {
        *next = close;
        return false;
      }
      RecordFunction(s, b, close, is_template, d);
      *next = close + 1;
      return true;
    }
    // `MACRO(args) { ... }` (TEST(a, b) {...}, a kernel-defining macro we
    // could not expand) ends the declaration; other braces are initializers.
    if (b > s && t[b - 1].Is(')')) {
      *next = close + 1;
      return true;
    }
    *next = close;
    return false;
  }

  struct Declarator {
    size_t qual_begin = kNone;  // first token of the qualified name
    size_t name_begin = kNone;  // first token of the unqualified name
    size_t name_end = kNone;    // one past it (operator names span tokens)
    size_t params_open = kNone, params_close = kNone;
    size_t init_list = kNone;  // ':' of a constructor initializer list
    size_t trailing = kNone;   // '->' of a trailing return type
  };

  // Finds the function declarator in [s, b): the name before the first
  // parameter list that is followed only by what may follow a parameter list.
  bool FindDeclarator(size_t s, size_t b, Declarator* d) {
    const auto& t = T();
    Toks k(t);
    for (size_t i = s; i < b; ++i) {
      const Token& x = t[i];
      if (x.Is('=')) return false;                       // an initializer, not a function
      if (x.Is('[') && i + 1 < b && t[i + 1].Is('[')) {  // [[attribute]]
        i = k.MatchClose(i, b);
        continue;
      }
      if (!x.Is('(')) continue;
      size_t r = k.MatchClose(i, b);
      if (r >= b) return false;
      size_t name_b = kNone, name_e = i;
      if (i > s) {
        // operator names: operator(), operator==, operator bool, operator>>
        for (size_t o = i; o-- > s && i - o <= 4;) {
          if (IsIdent(t[o]) && t[o].text == "operator") {
            name_b = o;
            break;
          }
        }
        if (name_b == kNone) {
          const Token& p = t[i - 1];
          if (IsIdent(p) && !IsNonCallKeyword(p.text)) {
            name_b = i - 1;
          } else if (p.Is('>')) {  // explicit specialization: foo<float>(
            size_t lt = k.MatchAngleBack(i - 1, s);
            if (lt != kNone && lt > s && IsIdent(t[lt - 1]) && !IsNonCallKeyword(t[lt - 1].text)) name_b = lt - 1;
          }
        }
        // operator()'s first () is its name.
        if (name_b != kNone && t[name_b].text == "operator" && x.Is('(') && r == i + 1 && PunctAt(r + 1, '(')) {
          i = r + 1;
          r = k.MatchClose(i, b);
          if (r >= b) return false;
          name_e = i;
        }
      }
      if (name_b == kNone) {
        i = r;
        continue;
      }
      // Check the tail between ')' and '{'.
      size_t tail = r + 1;
      bool ok = true, macro_prefix = false;
      Declarator out;
      for (size_t j = tail; j < b && ok; ++j) {
        const Token& y = t[j];
        if (y.Is(':')) {
          out.init_list = j;
          break;
        }
        if (y.Is("->")) {
          out.trailing = j;
          break;
        }
        if (IsIdent(y) && y.text == "requires") break;
        if (IsIdent(y) && IsFunctionTailWord(y.text)) {
          if (PunctAt(j + 1, '(')) j = k.MatchClose(j + 1, b);
          continue;
        }
        if (y.Is('&') || y.Is("&&")) continue;
        if (IsIdent(y) && IsUpperMacroName(y.text)) {  // C10_NOEXCEPT, TORCH_WARN_UNUSED...
          if (PunctAt(j + 1, '(')) j = k.MatchClose(j + 1, b);
          continue;
        }
        if (y.Is('[') && PunctAt(j + 1, '[')) {
          j = k.MatchClose(j, b);
          continue;
        }
        // An identifier here means the group was a macro's arguments, not
        // parameters: __global__ void C10_LAUNCH_BOUNDS_1(128) kernel(...).
        if (IsIdent(y)) macro_prefix = true;
        ok = false;
      }
      if (macro_prefix) {
        i = r;
        continue;
      }
      if (!ok) return false;
      // Walk back over the qualifier: a::b<T>::~c
      size_t q = name_b;
      if (q > s && t[q - 1].Is('~')) --q;
      while (q >= s + 2 && t[q - 1].Is("::")) {
        if (IsIdent(t[q - 2])) {
          q -= 2;
        } else if (t[q - 2].Is('>')) {
          size_t lt = k.MatchAngleBack(q - 2, s);
          if (lt == kNone || lt <= s || !IsIdent(t[lt - 1])) break;
          q = lt - 1;
        } else {
          break;
        }
      }
      if (q > s && t[q - 1].Is("::")) --q;
      // A name with nothing before it is a macro invocation (TEST(a, b) {)
      // unless it is a constructor or destructor of the enclosing class.
      bool qualified = name_b > s && t[name_b - 1].Is("::");
      if (q == s && !qualified) {
        bool ctor = !scopes_.empty() && scopes_.back().kind == Scope::kClass && (t[name_b].text == scopes_.back().name);
        if (!ctor) return false;
      }
      out.qual_begin = q;
      out.name_begin = name_b;
      out.name_end = name_e;
      out.params_open = i;
      out.params_close = r;
      *d = out;
      return true;
    }
    return false;
  }

  void RecordFunction(size_t s, size_t b, size_t close, bool is_template, const Declarator& d) {
    const auto& t = T();
    Toks k(t);
    CppFunction f;
    // An explicit specialization gemm<float>( is named "gemm"; its qualified
    // name keeps the arguments. Operator names span tokens: "operator()".
    bool op = t[d.name_begin].text == "operator";
    std::string full = op ? k.Join(d.name_begin, d.name_end) : k.Concat(d.name_begin, d.name_end);
    f.name = op ? full : std::string(t[d.name_begin].text);
    std::string written_qualifier = k.Concat(d.qual_begin, d.name_begin);
    f.qualified = ScopePrefix() + written_qualifier + full;
    if (d.name_begin > d.qual_begin && t[d.name_begin - 1].Is('~')) f.name = "~" + f.name;
    f.params = k.Join(d.params_open + 1, d.params_close);
    f.is_template = is_template;
    f.form = DefForm::kFunction;
    // Return type: what precedes the name, minus specifiers and macros.
    std::string ret;
    size_t last_kept = kNone;
    for (size_t i = s; i < d.qual_begin; ++i) {
      const Token& x = t[i];
      if (IsIdent(x) && x.text == "__global__") f.form = DefForm::kGlobalKernel;
      if (IsIdent(x) && (IsDeclSpecifier(x.text) || IsUpperMacroName(x.text) || x.text == "__launch_bounds__" ||
                         x.text == "__attribute__" || x.text == "alignas" || x.text == "__declspec")) {
        if (PunctAt(i + 1, '(')) i = k.MatchClose(i + 1, d.qual_begin);
        continue;
      }
      if (x.Is('[') && PunctAt(i + 1, '[')) {
        i = k.MatchClose(i, d.qual_begin);
        continue;
      }
      if (IsIdent(x) && x.text == "template" && PunctAt(i + 1, '<')) {
        size_t a = k.MatchAngle(i + 1, d.qual_begin);
        if (a != kNone) {
          i = a;
          continue;
        }
      }
      if (!ret.empty() && (last_kept + 1 != i || t[last_kept].text.data() + t[last_kept].text.size() != x.text.data()))
        ret += ' ';
      ret.append(x.text);
      last_kept = i;
    }
    if (d.trailing != kNone) {
      size_t e = d.trailing + 1;
      while (e < b && !IdentAt(e, "requires")) ++e;
      ret = k.Join(d.trailing + 1, e);
    }
    f.return_type = ret;
    f.line = t[d.name_begin].line;
    f.body_begin = t[b].line;
    f.body_end = close < t.size() ? t[close].line : (t.empty() ? 0 : t.back().line);
    int32_t index = static_cast<int32_t>(out_->functions.size());
    out_->functions.push_back(std::move(f));
    Code(t, b + 1, std::min(close, t.size()), index, "");
  }

  // TORCH_IMPL_FUNC(name) (params) { body } and the META forms.
  size_t StructuredFunction(size_t s) {
    const auto& t = T();
    const size_t n = t.size();
    Toks k(t);
    size_t mr = k.MatchClose(s + 1, n);
    if (mr >= n || !PunctAt(mr + 1, '(')) return kNone;
    size_t pr = k.MatchClose(mr + 1, n);
    size_t b = pr + 1;
    while (b < n && !t[b].Is('{') && !t[b].Is(';')) ++b;
    if (b >= n || t[b].Is(';')) return kNone;
    auto args = k.Args(s + 1, mr);
    if (args.empty()) return kNone;
    std::string_view macro = t[s].text;
    CppFunction f;
    f.name = k.Concat(args[0].first, args[0].second);
    if (args.size() > 1) f.overload = k.Concat(args[1].first, args[1].second);
    std::string structured = "structured_" + f.name + (f.overload.empty() ? "" : "_" + f.overload);
    if (macro == "TORCH_IMPL_FUNC") {
      f.form = DefForm::kImplFunc;
      f.qualified = ScopePrefix() + structured + "::impl";
      f.return_type = "void";
    } else if (macro == "TORCH_META_FUNC" || macro == "TORCH_META_FUNC2") {
      f.form = DefForm::kMetaFunc;
      f.qualified = ScopePrefix() + structured + "::meta";
      f.return_type = "void";
    } else {
      f.form = DefForm::kPrecomputeMetaFunc;
      f.qualified = ScopePrefix() + structured + "::meta";
      f.return_type = structured + "::meta_return_ty";
    }
    f.params = k.Join(mr + 2, pr);
    f.line = t[s].line;
    size_t close = k.MatchClose(b, n);
    f.body_begin = t[b].line;
    f.body_end = close < n ? t[close].line : t.back().line;
    int32_t index = static_cast<int32_t>(out_->functions.size());
    out_->functions.push_back(std::move(f));
    Code(t, b + 1, std::min(close, n), index, "");
    return close + 1;
  }

  // KERNEL_MACRO(name, template params...) { body }: a __global__ kernel
  // whose declarator a macro of this file writes.
  size_t MacroDefinedKernel(size_t s) {
    const auto& t = T();
    const size_t n = t.size();
    Toks k(t);
    size_t r = k.MatchClose(s + 1, n);
    if (r + 1 >= n || !t[r + 1].Is('{')) return kNone;
    auto args = k.Args(s + 1, r);
    if (args.empty() || args[0].second != args[0].first + 1 || !IsIdent(t[args[0].first])) return kNone;
    CppFunction f;
    f.name = std::string(t[args[0].first].text);
    f.qualified = ScopePrefix() + f.name;
    f.form = DefForm::kGlobalKernel;
    f.return_type = "void";
    f.is_template = true;
    f.params = "";  // written inside the macro, not here
    f.line = t[s].line;
    size_t close = k.MatchClose(r + 1, n);
    f.body_begin = t[r + 1].line;
    f.body_end = close < n ? t[close].line : t.back().line;
    int32_t index = static_cast<int32_t>(out_->functions.size());
    out_->functions.push_back(std::move(f));
    Code(t, r + 2, std::min(close, n), index, "");
    return close + 1;
  }

  size_t StubDeclaration(size_t s) {
    const auto& t = T();
    Toks k(t);
    size_t r = k.MatchClose(s + 1, t.size());
    if (r >= t.size()) return t.size();
    // DECLARE_DISPATCH(type, stub): the stub is the last argument; the type
    // is everything before it, commas and all.
    size_t last_comma = kNone;
    int depth = 0;
    for (size_t i = s + 2; i < r; ++i) {
      if (t[i].Is('(') || t[i].Is('[') || t[i].Is('{')) ++depth;
      if (t[i].Is(')') || t[i].Is(']') || t[i].Is('}')) --depth;
      if (depth == 0 && t[i].Is(',')) last_comma = i;
    }
    StubDecl d;
    d.kind = t[s].text == "DEFINE_DISPATCH" ? StubDeclKind::kDefine : StubDeclKind::kDeclare;
    size_t stub_b = last_comma == kNone ? s + 2 : last_comma + 1;
    d.stub = k.Concat(stub_b, r);
    if (d.kind == StubDeclKind::kDeclare && last_comma != kNone) d.type = k.Join(s + 2, last_comma);
    d.line = t[s].line;
    // Namespaces only (a stub is never a class member), past at::native.
    for (const Scope& sc : scopes_)
      if (sc.kind == Scope::kNamespace && !sc.name.empty()) d.scope += sc.name + "::";
    for (std::string_view outer : {"at::native::", "at::"}) {
      if (d.scope.compare(0, outer.size(), outer) == 0) {
        d.scope.erase(0, outer.size());
        break;
      }
    }
    if (!d.stub.empty()) out_->stub_decls.push_back(std::move(d));
    return PunctAt(r + 1, ';') ? r + 2 : r + 1;
  }

  static bool IsRegisterMacro(std::string_view w) {
    if (w.size() > 5 && w.substr(0, 5) == "ALSO_") w.remove_prefix(5);
    return w.size() >= 17 && w.substr(0, 9) == "REGISTER_" && w.substr(w.size() - 8) == "DISPATCH";
  }

  // What a plain REGISTER_DISPATCH means in this file (DispatchStub.h picks
  // by compiler: nvcc -> CUDA; CPU_CAPABILITY builds (native/cpu/*.cpp and
  // native/quantized/cpu/kernels/*.cpp, per cmake/Codegen.cmake) -> CPU;
  // Objective-C++ with MPS -> MPS). Anything else does not compile it.
  std::string PlainRegisterDevice() const {
    std::string_view p = path_;
    auto ends = [&](std::string_view suffix) {
      return p.size() >= suffix.size() && p.substr(p.size() - suffix.size()) == suffix;
    };
    if (ends(".cu") || ends(".cuh")) return "CUDA";
    if (ends(".mm")) return "MPS";
    for (std::string_view dir : {std::string_view("native/cpu/"), std::string_view("native/quantized/cpu/kernels/")}) {
      size_t at = p.find(dir);
      if (at != std::string_view::npos && p.find('/', at + dir.size()) == std::string_view::npos &&
          (ends(".cpp") || ends(".cc")))
        return "CPU";
    }
    return "unknown";
  }

  size_t Registration(size_t s) {
    const auto& t = T();
    Toks k(t);
    size_t r = k.MatchClose(s + 1, t.size());
    if (r >= t.size()) return t.size();
    auto args = k.Args(s + 1, r);
    std::string_view macro = t[s].text;
    StubRegistration reg;
    reg.macro = std::string(macro);
    reg.line = t[s].line;
    if (!args.empty()) reg.stub = k.Concat(args[0].first, args[0].second);
    auto target_of = [&](std::pair<size_t, size_t> a) {
      size_t b = a.first;
      while (b < a.second && t[b].Is('&')) ++b;
      reg.target_written = k.Concat(b, a.second);
      size_t last = reg.target_written.rfind("::");
      reg.target = last == std::string::npos ? reg.target_written : reg.target_written.substr(last + 2);
    };
    std::string_view m = macro;
    bool also = m.substr(0, 5) == "ALSO_";
    if (also) m.remove_prefix(5);
    std::string_view mid = m.substr(9, m.size() - 9 - 8);  // REGISTER_<mid>DISPATCH
    if (!mid.empty() && mid.back() == '_') mid.remove_suffix(1);
    if (m == "REGISTER_DISPATCH") {
      reg.device = PlainRegisterDevice();
      if (args.size() >= 2) target_of(args.back());
    } else if (mid == "ARCH") {
      reg.device = "CPU";
      if (args.size() >= 2) reg.arch = k.Concat(args[1].first, args[1].second);
      if (args.size() >= 3) target_of(args.back());
    } else if (mid == "NO_CPU") {
      reg.device = "none";
      reg.arch = "ALL";
    } else if (mid.substr(0, 3) == "NO_") {  // REGISTER_NO_AVX512_DISPATCH (1.13)
      reg.device = "none";
      reg.arch = std::string(mid.substr(3));
    } else if (mid == "ALL_CPU") {
      reg.device = "CPU";
      reg.arch = "ALL";
      if (args.size() >= 2) target_of(args.back());
    } else if (mid == "AVX2" || mid == "AVX512" || mid == "VSX" || mid == "ZVECTOR" || mid == "SVE256" ||
               mid == "SVE") {
      reg.device = "CPU";
      reg.arch = std::string(mid);
      if (args.size() >= 2) target_of(args.back());
    } else {
      static const std::pair<std::string_view, std::string_view> kDevices[] = {
          {"CUDA", "CUDA"}, {"HIP", "HIP"},   {"MPS", "MPS"},
          {"XPU", "XPU"},   {"MTIA", "MTIA"}, {"PRIVATEUSE1", "PrivateUse1"}};
      reg.device = "unknown";
      for (const auto& [from, to] : kDevices)
        if (mid == from) reg.device = std::string(to);
      if (args.size() >= 2) target_of(args.back());
    }
    if (!reg.stub.empty()) out_->registrations.push_back(std::move(reg));
    return PunctAt(r + 1, ';') ? r + 2 : r + 1;
  }

  // TORCH_LIBRARY(ns, m) { m.def(...); m.impl(...); }
  size_t LibraryBlock(size_t s) {
    const auto& t = T();
    const size_t n = t.size();
    Toks k(t);
    size_t r = k.MatchClose(s + 1, n);
    if (r >= n || !PunctAt(r + 1, '{')) return kNone;
    auto args = k.Args(s + 1, r);
    if (args.size() < 2) return kNone;
    std::string block(t[s].text);
    std::string ns = k.Concat(args[0].first, args[0].second);
    std::string key = block == "TORCH_LIBRARY_IMPL" && args.size() >= 3 ? k.Concat(args[1].first, args[1].second) : "";
    std::string_view var = t[args.back().second - 1].text;
    size_t close = k.MatchClose(r + 1, n);
    for (size_t i = r + 2; i + 3 < close; ++i) {
      if (!(IsIdent(t[i]) && t[i].text == var && t[i + 1].Is('.') && IsIdent(t[i + 2]) &&
            (t[i + 2].text == "impl" || t[i + 2].text == "def") && t[i + 3].Is('(')))
        continue;
      size_t cr = k.MatchClose(i + 3, close);
      auto call_args = k.Args(i + 3, cr);
      LibraryRegistration reg;
      reg.block = block;
      reg.ns = ns;
      reg.key = key;
      reg.is_def = t[i + 2].text == "def";
      reg.line = t[i].line;
      if (!call_args.empty()) {
        for (size_t j = call_args[0].first; j < call_args[0].second; ++j) {
          if (t[j].kind == TokKind::kString && t[j].text.size() >= 2 && t[j].text[0] == '"') {
            std::string op(t[j].text.substr(1, t[j].text.size() - 2));
            if (op.compare(0, ns.size() + 2, ns + "::") == 0) op.erase(0, ns.size() + 2);
            if (reg.is_def) {
              reg.schema = op;
              size_t paren = op.find('(');
              if (paren != std::string::npos) op.resize(paren);
            }
            reg.op = op;
            break;
          }
        }
      }
      if (call_args.size() >= 2) {
        auto [fb, fe] = call_args.back();
        reg.function_text = k.Join(fb, fe);
        // TORCH_FN(f), TORCH_FN((&f)), &f, at::native::f, f
        size_t b = fb, e = fe;
        if (IdentAt(b, "TORCH_FN") && PunctAt(b + 1, '(')) {
          e = std::min(k.MatchClose(b + 1, fe), fe);
          b += 2;
        }
        while (b < e && (t[b].Is('(') || t[b].Is('&'))) ++b;
        while (e > b && t[e - 1].Is(')')) --e;
        bool simple = b < e;
        for (size_t j = b; j < e; ++j)
          if (!IsIdent(t[j]) && !t[j].Is("::")) simple = false;
        if (simple && IsIdent(t[e - 1])) reg.function = std::string(t[e - 1].text);
      }
      if (!reg.op.empty()) out_->library_registrations.push_back(std::move(reg));
      i = cr;
    }
    return close + 1;
  }

  // ------------------------------------------------------------- code pass
  // A function body's token range is remembered (FileScopeMacroUses skips
  // the bodies), then CodePass reads it.
  // A file-scope use of one of this file's macros: the declarations its
  // expansion writes (ONE_HIDDEN_RNN(gru, ...) defines gru), read in the
  // scopes around the use; the index after the use, or kNone when the macro
  // expands to nothing this file defines.
  size_t ExpandedDeclarations(size_t s) {
    const auto& t = T();
    size_t close = Toks(t).MatchClose(s + 1, t.size());
    if (close >= t.size() || tokens_ != &lx_.tokens) return kNone;  // expansions are rescanned already
    std::vector<Token> expansion = expander_.Expand(t, s, close);
    if (expansion.empty()) return kNone;  // none, or one that goes on after the use
    const std::vector<Scope> around = scopes_;
    const size_t first = out_->functions.size();
    tokens_ = &expansion;
    DeclarationLevel();
    tokens_ = &lx_.tokens;
    scopes_ = around;
    for (size_t f = first; f < out_->functions.size(); ++f) out_->functions[f].line = t[s].line;  // named at the use
    return close + 1 < t.size() && t[close + 1].Is(';') ? close + 2 : close + 1;
  }

  void Code(const std::vector<Token>& t, size_t b, size_t e, int32_t fn, std::string_view macro) {
    if (fn >= 0 && &t == &lx_.tokens) bodies_.push_back({b, e});
    code_.Read(t, b, e, fn, macro);
  }

  // ------------------------------------------------- outside function bodies
  // Uses of this file's function-like macros outside every function body the
  // code pass read: CREATE_UNARY_TORCH_IMPL_FUNC(sigmoid_out, sigmoid_stub)
  // writes a function, so the tracer finds sigmoid_out by the first argument.
  void FileScopeMacroUses() {
    const auto& t = T();
    Toks k(t);
    std::sort(bodies_.begin(), bodies_.end());
    size_t body = 0;
    for (size_t i = 0; i + 1 < t.size(); ++i) {
      while (body < bodies_.size() && bodies_[body].second <= i) ++body;
      if (body < bodies_.size() && bodies_[body].first <= i) {
        i = bodies_[body].second - 1;  // skip the body (the loop's ++i lands on its end)
        continue;
      }
      if (!IsIdent(t[i]) || !t[i + 1].Is('(') || !file_macros_.count(t[i].text)) continue;
      if (i > 0 && (t[i - 1].Is('.') || t[i - 1].Is("->") || t[i - 1].Is("::"))) continue;
      CppMacroUse use;
      use.macro = std::string(t[i].text);
      use.line = t[i].line;
      size_t close = k.MatchClose(i + 1, t.size());
      auto args = k.Args(i + 1, std::min(close, t.size()));
      if (!args.empty()) use.first_arg = k.Join(args[0].first, args[0].second);
      out_->macro_uses.push_back(std::move(use));
    }
  }

  // Every identifier ending in "_stub" that is not called (next token not
  // '('), in code and #define bodies, sorted by line: the tracer follows a
  // stub passed by name to a helper as if the function called it.
  void StubReferences() {
    auto scan = [&](const std::vector<Token>& t) {
      for (size_t i = 0; i < t.size(); ++i) {
        std::string_view w = t[i].text;
        if (!IsIdent(t[i]) || w.size() <= 5 || w.substr(w.size() - 5) != "_stub") continue;
        // In a #define body the next token must belong to the same macro.
        bool called = i + 1 < t.size() && t[i + 1].macro == t[i].macro && t[i + 1].Is('(');
        if (!called) out_->stub_refs.push_back({std::string(w), 0, t[i].line});
      }
    };
    scan(lx_.tokens);
    scan(lx_.macro_tokens);
    std::stable_sort(out_->stub_refs.begin(), out_->stub_refs.end(),
                     [](const CppStubRef& a, const CppStubRef& b) { return a.line < b.line; });
  }

  // --------------------------------------------------------- #define bodies
  void MacroBodies() {
    const auto& mt = lx_.macro_tokens;
    for (const MacroDef& m : lx_.macros) {
      CppMacro rec;
      rec.name = std::string(m.name);
      rec.line = m.line;
      rec.end_line = m.end_line;
      rec.function_like = m.function_like;
      out_->macros.push_back(std::move(rec));
      if (m.body_end > m.body_begin && m.body_end <= mt.size()) Code(mt, m.body_begin, m.body_end, -1, m.name);
    }
  }

  std::string_view path_;
  const LexedFile& lx_;
  CppFileRecords* out_;
  std::vector<Scope> scopes_;
  const std::vector<Token>* tokens_;
  MacroExpander expander_;
  std::unordered_set<std::string_view> file_macros_;
  std::vector<std::pair<size_t, size_t>> bodies_;  // token ranges of the function bodies Code() read
  CodePass code_{file_macros_, out_};
  // Function-like macros of this file whose body declares a __global__
  // function named by their first argument (DEFINE_FLASH_FORWARD_KERNEL).
  std::unordered_set<std::string_view> kernel_macros_;
};

}  // namespace

CppFileRecords ScanCppFile(std::string_view path, std::string_view text) {
  CppFileRecords out;
  // Token vectors are reused across the files a thread scans: fresh ones
  // would page-fault their way through several MB per file.
  thread_local LexedFile lexed;
  LexCpp(text, &lexed);
  FileScanner(path, lexed, &out).Run();
  out.enum_members = ReadEnumMembers(text, lexed.tokens);
  return out;
}

}  // namespace optrace
