// Which code a TensorIterator launcher runs, read from its functor
// argument: the type constructed there (MulFunctor<T>(), func_wrapper<T>(
// MaxNanFunctor<T>()) names both), or, when the argument is a variable, the
// type it was declared with earlier in the body (CompareFunctor<T> f(op);
// gpu_kernel(iter, f)). Split from cpp_scan.cc: these read tokens only, and
// the scanner's code pass calls them for each launcher it meets.
#include "cpp/launch_functors.h"

#include <cctype>
#include <unordered_set>

#include "cpp/token_range.h"

namespace optrace {

namespace {
constexpr size_t kNone = static_cast<size_t>(-1);

// The last identifier of the (maybe ::-qualified) name starting at token q,
// before `end`: `at::native::MulFunctor` -> MulFunctor; kNone when none.
size_t LastOfQualifiedName(const std::vector<Token>& t, size_t q, size_t end) {
  if (q < end && t[q].Is("::")) ++q;
  size_t last = kNone;
  while (q < end && IsIdent(t[q])) {
    last = q;
    if (q + 1 >= end || !t[q + 1].Is("::")) break;
    q += 2;
  }
  return last;
}
}  // namespace

// Names that may precede '(' but never name a called or defined function.
bool IsNonCallKeyword(std::string_view s) {
  static const std::unordered_set<std::string_view> kSet = {"if",
                                                            "for",
                                                            "while",
                                                            "switch",
                                                            "return",
                                                            "sizeof",
                                                            "decltype",
                                                            "static_cast",
                                                            "dynamic_cast",
                                                            "reinterpret_cast",
                                                            "const_cast",
                                                            "alignof",
                                                            "alignas",
                                                            "typeid",
                                                            "catch",
                                                            "noexcept",
                                                            "throw",
                                                            "new",
                                                            "delete",
                                                            "defined",
                                                            "__attribute__",
                                                            "__launch_bounds__",
                                                            "__declspec",
                                                            "requires",
                                                            "typename",
                                                            "template",
                                                            "operator",
                                                            "void",
                                                            "bool",
                                                            "char",
                                                            "int",
                                                            "float",
                                                            "double",
                                                            "long",
                                                            "short",
                                                            "unsigned",
                                                            "signed",
                                                            "auto",
                                                            "static_assert",
                                                            "co_await",
                                                            "co_return",
                                                            "co_yield",
                                                            "case",
                                                            "do",
                                                            "else",
                                                            "try",
                                                            "using",
                                                            "namespace",
                                                            "class",
                                                            "struct",
                                                            "union",
                                                            "enum",
                                                            "constexpr",
                                                            "const",
                                                            "volatile",
                                                            "_Pragma",
                                                            "asm",
                                                            "__asm__",
                                                            "__asm",
                                                            "__typeof__",
                                                            "typeof",
                                                            "__builtin_offsetof",
                                                            "offsetof",
                                                            "goto",
                                                            "default",
                                                            "public",
                                                            "private",
                                                            "protected",
                                                            "virtual",
                                                            "static",
                                                            "inline",
                                                            "extern",
                                                            "explicit",
                                                            "friend",
                                                            "mutable",
                                                            "register",
                                                            "thread_local",
                                                            "consteval",
                                                            "constinit",
                                                            "__host__",
                                                            "__device__",
                                                            "__global__",
                                                            "__forceinline__",
                                                            "__inline__",
                                                            "__noinline__",
                                                            "this",
                                                            "nullptr",
                                                            "true",
                                                            "false"};
  return kSet.count(s) > 0;
}

// Type names constructed in the arguments of the group opened at `open`
// (only argument `only_arg` when >= 0): MulFunctor<T>(), MeanOps<...>{f},
// func_wrapper<T>(MaxNanFunctor<T>()) (both, outer first), and a variable
// declared earlier in the body from `b` on (CompareFunctor<T> f(op); ...
// gpu_kernel(iter, f)). *lambda: an argument is a lambda.
void LaunchFunctors(const std::vector<Token>& t, size_t b, size_t open, size_t close, int only_arg,
                    std::vector<std::string>* out, bool* lambda) {
  Toks k(t);
  if (close <= open || close > t.size()) return;
  auto args = k.Args(open, close);
  for (size_t a = 0; a < args.size(); ++a) {
    auto [ab, ae] = args[a];
    if (ab >= ae || (only_arg >= 0 && a != static_cast<size_t>(only_arg))) continue;
    if (t[ab].Is('[')) {
      *lambda = true;
      continue;
    }
    size_t last = LastOfQualifiedName(t, ab, ae);
    if (last == kNone || IsNonCallKeyword(t[last].text)) continue;
    size_t j = last + 1;
    if (last == ab && j == ae) {
      std::string type = VariableType(t, b, ab);
      if (type == "[") *lambda = true;
      else if (!type.empty()) out->push_back(std::move(type));
      continue;
    }
    if (j < ae && t[j].Is('<')) {
      size_t a = k.MatchAngle(j, ae);
      if (a == kNone) continue;
      j = a + 1;
    }
    if (j < ae && (t[j].Is('(') || t[j].Is('{'))) {
      out->push_back(std::string(t[last].text));
      size_t inner = k.MatchClose(j, ae);
      if (inner < ae && inner > j + 1) LaunchFunctors(t, kNone, j, inner, -1, out, lambda);
    }
  }
}

// The type named at `name`, through an alias declared between `b` and it
// (`using ops_t = WelfordOps<...>;`, `typedef WelfordOps<...> ops_t;`).
static std::string AliasedType(const std::vector<Token>& t, size_t b, size_t name) {
  std::string_view alias = t[name].text;
  auto type_at = [&](size_t q, size_t end) -> std::string {
    if (q < end && t[q].Is("typename")) ++q;
    size_t last = LastOfQualifiedName(t, q, end);
    return last == kNone || IsNonCallKeyword(t[last].text) ? "" : std::string(t[last].text);
  };
  for (size_t d = name; d-- > b + 1;) {
    if (!IsIdent(t[d]) || t[d].text != alias) continue;
    if (t[d - 1].Is("using") && d + 1 < name && t[d + 1].Is('=')) {
      std::string target = type_at(d + 2, name);
      if (!target.empty()) return target;
    }
    if (d + 1 < name && t[d + 1].Is(';')) {  // typedef Type<...> alias;
      size_t s = d;
      while (s > b && !t[s - 1].Is(';') && !t[s - 1].Is('{') && !t[s - 1].Is('}')) --s;
      if (t[s].Is("typedef")) {
        std::string target = type_at(s + 1, d);
        if (!target.empty()) return target;
      }
    }
  }
  return std::string(alias);
}

// The type of the variable named at `use`, from its declaration between
// `b` and `use`: `Type<...> name(...)`, `Type name{...}`, `Type name;`,
// `auto name = Type<...>(...)`; "[" when it holds a lambda; "" when unknown.
std::string VariableType(const std::vector<Token>& t, size_t b, size_t use) {
  if (b == kNone) return "";
  Toks k(t);
  for (size_t d = use; d-- > b + 1;) {
    if (!IsIdent(t[d]) || t[d].text != t[use].text || d + 1 >= use) continue;
    const Token& after = t[d + 1];
    if (!(after.Is('(') || after.Is('{') || after.Is('=') || after.Is(';'))) continue;
    size_t p = d - 1;
    while (p > b && (t[p].Is('&') || (IsIdent(t[p]) && t[p].text == "const"))) --p;
    if (t[p].Is('>')) {
      size_t lt = k.MatchAngleBack(p, b);
      if (lt == kNone || lt <= b) return "";
      p = lt - 1;
    }
    if (!IsIdent(t[p])) return "";
    if (t[p].text != "auto") return IsNonCallKeyword(t[p].text) ? "" : AliasedType(t, b, p);
    if (!after.Is('=') || d + 2 >= use) return "";
    if (t[d + 2].Is('[')) return "[";
    size_t q = d + 2;
    while (q + 2 < use && IsIdent(t[q]) && t[q + 1].Is("::")) q += 2;
    if (!IsIdent(t[q]) || q + 1 >= use) return "";
    // A type is made (Type{...}, or a capitalised Type<...>(...)), not a
    // function's result.
    size_t open = q + 1;
    if (t[open].Is('<')) {
      size_t a = k.MatchAngle(open, use);
      open = a == kNone ? use : a + 1;
    }
    if (open >= use) return "";
    bool type_like = std::isupper(static_cast<unsigned char>(t[q].text[0])) != 0;
    return t[open].Is('{') || (t[open].Is('(') && type_like) ? std::string(t[q].text) : "";
  }
  return "";
}

bool LauncherKindOf(std::string_view name, LaunchKind* kind) {
  static const std::pair<std::string_view, LaunchKind> kMap[] = {
      {"gpu_kernel", LaunchKind::kTensorIterator},
      {"gpu_kernel_with_scalars", LaunchKind::kTensorIterator},
      {"gpu_kernel_nocast", LaunchKind::kTensorIterator},
      {"opmath_gpu_kernel_with_scalars", LaunchKind::kTensorIterator},
      {"opmath_symmetric_gpu_kernel_with_scalars", LaunchKind::kTensorIterator},
      {"gpu_kernel_multiple_outputs", LaunchKind::kTensorIterator},
      {"gpu_kernel_with_index", LaunchKind::kTensorIterator},
      {"gpu_reduce_kernel", LaunchKind::kReduce},
      {"jitted_gpu_kernel", LaunchKind::kJiterator},
      {"opmath_jitted_gpu_kernel_with_scalars", LaunchKind::kJiterator},
      {"jitted_gpu_reduce_kernel", LaunchKind::kJiterator},
  };
  for (const auto& [n, k] : kMap) {
    if (name == n) {
      *kind = k;
      return true;
    }
  }
  return false;
}

}  // namespace optrace
