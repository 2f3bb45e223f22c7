// Reading a demangled kernel name (kernel_name.h says what and why).
//
// The name is tokenized (identifiers, `::`, brackets, `{lambda(...)#n}`,
// `(anonymous namespace)`) and read as a list of qualified names, each
// component with its template arguments and parameter list, recursively.
// Brackets a profiler's cut left open simply end the reading. The kernel is
// the first top-level name with a parameter list (a return type such as
// `std::enable_if<...>::type` comes before it); its template arguments are
// searched, inner first, for the functors and lambda-holding functions a
// launch template runs: a wrapper (`BinaryFunctor<..., F>`,
// `gpu_kernel_impl_nocast<F>(...)::{lambda(int)#1}`) lists what it wraps
// before itself, so the first candidate the index knows as code is the one
// that holds the arithmetic.
#include "cpp/kernel_name.h"

#include <cxxabi.h>

#include <cctype>
#include <cstdlib>
#include <memory>
#include <regex>

#include "base/bounded_regex.h"
#include "base/text.h"

namespace optrace {

std::string DemangleKernelName(std::string_view name, bool* was_mangled) {
  if (was_mangled) *was_mangled = false;
  std::string s(name);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
  size_t b = 0;
  while (b < s.size() && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  s = s.substr(b);
  if (s.rfind("_Z", 0) != 0) return s;
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> out(abi::__cxa_demangle(s.c_str(), nullptr, nullptr, &status), std::free);
  if (status != 0 || !out) return s;  // not a valid mangled name: read it as written
  if (was_mangled) *was_mangled = true;
  return out.get();
}

namespace {

enum class T { kIdent, kLambda, kAnon, kScope, kPunct, kNumber };
struct Tok {
  T kind;
  std::string text;  // identifier / punctuation; lambda: its parameter list
  int number = 0;    // lambda: n of #n
  size_t begin = 0, end = 0;
};

bool IdentStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }

// Splits at depth-0 commas of a parameter list as printed.
int Arity(std::string_view params) {
  if (params.find_first_not_of(' ') == std::string_view::npos) return 0;
  if (params == "void") return 0;
  int depth = 0, n = 1;
  for (char c : params) {
    if (c == '<' || c == '(' || c == '[') ++depth;
    else if (c == '>' || c == ')' || c == ']') --depth;
    else if (c == ',' && depth == 0) ++n;
  }
  return n;
}

std::vector<Tok> Tokenize(const std::string& s) {
  std::vector<Tok> out;
  size_t i = 0;
  while (i < s.size()) {
    char c = s[i];
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
      continue;
    }
    size_t start = i;
    if (s.compare(i, 8, "{lambda(") == 0) {
      // {lambda(params)#n}: the parameter list may hold brackets of its own.
      size_t j = i + 8;
      int depth = 1;
      while (j < s.size() && depth > 0) {
        if (s[j] == '(') ++depth;
        else if (s[j] == ')') --depth;
        ++j;
      }
      Tok t{T::kLambda, depth == 0 ? s.substr(i + 8, j - 1 - (i + 8)) : s.substr(i + 8), 1, start, j};
      if (j < s.size() && s[j] == '#') {
        size_t k = j + 1;
        while (k < s.size() && std::isdigit(static_cast<unsigned char>(s[k]))) ++k;
        if (k > j + 1) t.number = std::atoi(s.substr(j + 1, k - j - 1).c_str());
        j = k;
      }
      if (j < s.size() && s[j] == '}') ++j;
      t.end = j;
      out.push_back(t);
      i = j;
      continue;
    }
    if (c == '{') {  // {unnamed type#1} and the like: one opaque identifier
      size_t j = s.find('}', i);
      j = j == std::string::npos ? s.size() : j + 1;
      out.push_back({T::kIdent, s.substr(i, j - i), 0, start, j});
      i = j;
      continue;
    }
    if (s.compare(i, 21, "(anonymous namespace)") == 0) {
      out.push_back({T::kAnon, "(anonymous namespace)", 0, i, i + 21});
      i += 21;
      continue;
    }
    if (IdentStart(c)) {
      size_t j = i;
      while (j < s.size() && IsIdentChar(s[j])) ++j;
      std::string id = s.substr(i, j - i);
      if (id == "operator") {
        // operator(), operator<, operator+= ...: the symbol is part of the name.
        if (s.compare(j, 2, "()") == 0) j += 2;
        else
          while (j < s.size() && std::string_view("<>=!+-*/%&|^~[]").find(s[j]) != std::string_view::npos) ++j;
        id = s.substr(i, j - i);
      }
      out.push_back({T::kIdent, id, 0, start, j});
      i = j;
      continue;
    }
    if (std::isdigit(static_cast<unsigned char>(c))) {
      size_t j = i;
      while (j < s.size() && IsIdentChar(s[j])) ++j;
      out.push_back({T::kNumber, s.substr(i, j - i), 0, start, j});
      i = j;
      continue;
    }
    if (s.compare(i, 2, "::") == 0) {
      out.push_back({T::kScope, "::", 0, i, i + 2});
      i += 2;
      continue;
    }
    out.push_back({T::kPunct, std::string(1, c), 0, i, i + 1});
    ++i;
  }
  return out;
}

struct QName;
using Arg = std::vector<QName>;  // the names written in one argument
struct Comp {
  std::string id;
  bool lambda = false, anon = false;
  LambdaStep step;
  std::vector<Arg> targs, params;
  bool has_params = false;
  std::string params_text;
};
struct QName {
  std::vector<Comp> comps;
};

class Reader {
 public:
  Reader(const std::string& s, std::vector<Tok> toks) : s_(s), t_(std::move(toks)) {}
  bool truncated() const { return truncated_; }
  bool done() const { return p_ >= t_.size(); }

  // A list of arguments up to `close` (or the end of a cut name).
  std::vector<Arg> Args(char close) {
    std::vector<Arg> out(1);
    while (p_ < t_.size()) {
      const Tok& k = t_[p_];
      if (k.kind == T::kPunct && k.text[0] == close) {
        ++p_;
        if (out.size() == 1 && out[0].empty()) out.clear();
        return out;
      }
      if (k.kind == T::kPunct && k.text == ",") {
        ++p_;
        out.emplace_back();
      } else if (k.kind == T::kIdent || k.kind == T::kLambda || k.kind == T::kAnon) {
        out.back().push_back(Name());
      } else if (k.kind == T::kPunct && (k.text == "(" || k.text == "<" || k.text == "[")) {
        // A group not attached to a name: `!(false)`, `(padding_t)6`, `[16]`.
        ++p_;
        char inner = k.text == "(" ? ')' : k.text == "<" ? '>' : ']';
        for (Arg& a : Args(inner)) out.back().insert(out.back().end(), a.begin(), a.end());
      } else {
        ++p_;
      }
    }
    truncated_ = true;
    return out;
  }

  QName Name() {
    QName q;
    while (p_ < t_.size()) {
      const Tok& k = t_[p_];
      Comp c;
      if (k.kind == T::kLambda) {
        c.lambda = true;
        c.id = "{lambda}";
        c.step = {k.text, Arity(k.text), k.number};
        ++p_;
      } else if (k.kind == T::kAnon) {
        c.anon = true;
        c.id = k.text;
        ++p_;
      } else if (k.kind == T::kIdent) {
        c.id = k.text;
        ++p_;
        // operator()<T>: once the call operator is read, '<' opens its template arguments.
        if (At("<") && (c.id.rfind("operator", 0) != 0 || c.id == "operator()")) {
          ++p_;
          c.targs = Args('>');
        }
      } else {
        break;
      }
      if (!c.lambda && !c.anon && At("(")) {
        size_t open = t_[p_].end;
        ++p_;
        c.has_params = true;
        c.params = Args(')');
        size_t close = p_ > 0 && p_ <= t_.size() ? t_[p_ - 1].begin : s_.size();
        if (close > open) c.params_text = s_.substr(open, close - open);
        while (p_ < t_.size() && t_[p_].kind == T::kIdent && (t_[p_].text == "const" || t_[p_].text == "volatile"))
          ++p_;
      }
      q.comps.push_back(std::move(c));
      if (p_ < t_.size() && t_[p_].kind == T::kScope) {
        ++p_;
        continue;
      }
      break;
    }
    return q;
  }

  std::vector<QName> TopLevel() {
    std::vector<QName> out;
    while (p_ < t_.size()) {
      const Tok& k = t_[p_];
      if (k.kind == T::kIdent || k.kind == T::kLambda || k.kind == T::kAnon) {
        out.push_back(Name());
      } else {
        ++p_;
      }
    }
    return out;
  }

 private:
  bool At(const char* punct) const { return p_ < t_.size() && t_[p_].kind == T::kPunct && t_[p_].text == punct; }
  const std::string& s_;
  std::vector<Tok> t_;
  size_t p_ = 0;
  bool truncated_ = false;
};

// Names that are types of the language or of libraries below the launch
// (std::array, c10::Half, ...): never a functor of the tree.
bool PlainName(const QName& q) {
  static const char* kBuiltins[] = {"void",   "bool",    "char",          "short", "int",      "long",   "unsigned",
                                    "signed", "float",   "double",        "const", "volatile", "__half", "half",
                                    "float2", "double2", "__nv_bfloat16", "true",  "false",    "int8_t", "uint8_t"};
  if (q.comps.empty()) return true;
  const std::string& first = q.comps.front().id;
  if (q.comps.size() == 1) {
    for (const char* b : kBuiltins) {
      if (first == b) return true;
    }
  }
  static const char* kLibraryScopes[] = {"std", "cuda", "c10", "thrust", "cub", "at_cuda_detail", "torch", "__gnu_cxx"};
  if (q.comps.size() > 1) {
    for (const char* s : kLibraryScopes) {
      if (first == s) return true;
    }
  }
  return false;
}

std::string ScopeOf(const QName& q, size_t end) {
  std::string s;
  for (size_t i = 0; i < end && i < q.comps.size(); ++i) s += q.comps[i].id + "::";
  return s;
}

void CollectPayloads(const QName& q, std::vector<PayloadCandidate>* out);

void CollectFromArgs(const std::vector<Arg>& args, std::vector<PayloadCandidate>* out) {
  for (const Arg& a : args) {
    for (const QName& q : a) CollectPayloads(q, out);
  }
}

void CollectPayloads(const QName& q, std::vector<PayloadCandidate>* out) {
  if (PlainName(q)) return;
  size_t first_lambda = q.comps.size();
  for (size_t i = 0; i < q.comps.size(); ++i) {
    if (q.comps[i].lambda) {
      first_lambda = i;
      break;
    }
  }
  if (first_lambda < q.comps.size() && first_lambda > 0) {
    PayloadCandidate c;
    c.lambda = true;
    for (size_t i = first_lambda; i < q.comps.size(); ++i) {
      if (q.comps[i].lambda) c.chain.push_back(q.comps[i].step);
    }
    size_t enc = first_lambda - 1;
    if (q.comps[enc].id == "operator()" && enc > 0) {
      --enc;  // a functor's call operator holds the lambda: the functor names it
      c.call_operator = true;
    } else {
      c.params = q.comps[enc].params_text;
    }
    CollectFromArgs(q.comps[enc].targs, out);  // a wrapper lists what it wraps first
    c.name = q.comps[enc].id;
    c.scope = ScopeOf(q, enc);
    out->push_back(std::move(c));
    return;
  }
  const Comp& last = q.comps.back();
  // A cut name may end inside a wrapper's scope (`gpu_kernel_impl_nocast<F>(...)::{lambd`): every
  // component's template arguments are read, the inner ones first.
  for (size_t i = q.comps.size(); i-- > 0;) CollectFromArgs(q.comps[i].targs, out);
  if (last.lambda || last.anon || last.id.empty() || !IdentStart(last.id[0])) return;
  PayloadCandidate c;
  c.name = last.id;
  c.scope = ScopeOf(q, q.comps.size() - 1);
  out->push_back(std::move(c));
}

void CollectIdentifiers(const std::vector<Tok>& toks, std::vector<std::string>* out) {
  for (const Tok& t : toks) {
    if (t.kind == T::kIdent && !t.text.empty() && IdentStart(t.text[0])) out->push_back(t.text);
  }
}

}  // namespace

KernelName ParseKernelName(std::string_view name) {
  KernelName k;
  k.demangled = DemangleKernelName(name, &k.was_mangled);
  std::vector<Tok> toks = Tokenize(k.demangled);
  CollectIdentifiers(toks, &k.identifiers);
  Reader r(k.demangled, std::move(toks));
  std::vector<QName> top = r.TopLevel();
  k.truncated = r.truncated();
  const QName* kernel = nullptr;
  for (const QName& q : top) {
    if (!q.comps.empty() && q.comps.back().has_params) {
      kernel = &q;
      break;
    }
  }
  if (!kernel && !top.empty()) kernel = &top.back();
  if (!kernel || kernel->comps.empty()) return k;
  const Comp& last = kernel->comps.back();
  k.kernel = last.id;
  k.scope = ScopeOf(*kernel, kernel->comps.size() - 1);
  CollectFromArgs(last.targs, &k.payloads);
  // Jiterator kernels are compiled at run time from a string of the tree and
  // named after it (jit_utils: "<name>_vectorized<N>_kernel", "<name>_kernel").
  if (kernel->comps.size() == 1 && last.targs.empty()) {
    static const std::regex kVec("^(\\w+)_vectorized[0-9]+_kernel$");
    std::smatch m;
    if (BoundedRegexMatch(k.kernel, &m, kVec)) k.jiterator_vectorized = m[1];
    if (k.kernel.size() > 7 && k.kernel.compare(k.kernel.size() - 7, 7, "_kernel") == 0) {
      k.jiterator_plain = k.kernel.substr(0, k.kernel.size() - 7);
    }
  }
  return k;
}

// Each rule reads one naming convention of NVIDIA's libraries as their
// kernels show up in profiles; the resolver asks only about kernels the
// tree does not define. Order: the kernel's own namespace, its name's
// prefix or suffix, the library's own types among its arguments, then the
// LAPACK / BLAS routine names that cuSOLVER's and cuBLAS's kernels carry.
std::string KernelLibrary(const KernelName& k, std::string* reason, bool* by_routine_name) {
  if (by_routine_name) *by_routine_name = false;
  auto say = [&](const char* lib, std::string why) {
    if (reason) *reason = std::move(why);
    return std::string(lib);
  };
  const std::string& n = k.kernel;
  const std::string scope = k.scope;
  if (Contains(scope, "cub::")) return say("CUB", "namespace " + scope);
  if (Contains(scope, "thrust::")) return say("Thrust", "namespace " + scope);
  if (Contains(scope, "cublasLt::")) return say("cuBLASLt", "namespace " + scope);
  if (Contains(scope, "cudnn::")) return say("cuDNN", "namespace " + scope);
  if (Contains(scope, "cusolver::")) return say("cuSOLVER", "namespace " + scope);
  if (Contains(scope, "cufft")) return say("cuFFT", "namespace " + scope);
  if (Contains(scope, "nccl") || StartsWith(n, "ncclDevKernel") || StartsWith(n, "ncclKernel")) {
    return say("NCCL", "NCCL's kernel naming (ncclDevKernel_*, ncclKernel_*)");
  }
  // cuBLAS's own GEMM kernels: nvJet (nvjet_*), the XMMA/CUTLASS-built ones
  // carry the library as a suffix (`..._execute_kernel__5x_cublas`,
  // `..._cudnn`), and the CUTLASS kernels cuBLAS ships are
  // `cutlass::Kernel2<cutlass_80_simt_sgemm_...>`.
  if (StartsWith(n, "nvjet_")) return say("cuBLAS", "nvJet GEMM kernel (nvjet_*), shipped in cuBLAS");
  if (EndsWith(n, "_cublas") || Contains(n, "_cublas_")) return say("cuBLAS", "name ends in _cublas");
  if (EndsWith(n, "_cudnn") || Contains(n, "_cudnn_")) return say("cuDNN", "name ends in _cudnn");
  for (const std::string& id : k.identifiers) {
    if (std::regex_match(id, std::regex("^cutlass_[0-9]+_(simt|tensorop|wmma)_.*"))) {
      return say("cuBLAS", id + ": cuBLAS's bundled CUTLASS kernel (cutlass_<sm>_<simt|tensorop>_*)");
    }
  }
  if (std::regex_search(n, std::regex("^sm[0-9]+_xmma_(fprop|dgrad|wgrad)"))) {
    return say("cuDNN", "XMMA convolution kernel (sm*_xmma_fprop|dgrad|wgrad)");
  }
  if (std::regex_search(n, std::regex("^(sm[0-9]+_xmma_gemm|ampere_|volta_|turing_|sm[0-9]+_sgemm)"))) {
    return say("cuBLAS", "XMMA / architecture GEMM kernel name");
  }
  if (StartsWith(n, "cusolver")) return say("cuSOLVER", "name starts with cusolver");
  if (StartsWith(n, "cublas")) return say("cuBLAS", "name starts with cublas");
  if (StartsWith(n, "cudnn")) return say("cuDNN", "name starts with cudnn");
  for (const std::string& id : k.identifiers) {
    if (id == k.kernel) continue;
    if (StartsWith(id, "cublas")) return say(StartsWith(id, "cublasLt") ? "cuBLASLt" : "cuBLAS", "argument type " + id);
    if (StartsWith(id, "cudnn")) return say("cuDNN", "argument type " + id);
    if (StartsWith(id, "cufft")) return say("cuFFT", "argument type " + id);
    if (StartsWith(id, "cusolver")) return say("cuSOLVER", "argument type " + id);
    if (StartsWith(id, "curand") && !Contains(id, "State")) return say("cuRAND", "argument type " + id);
  }
  // From here on the library is read from routine names alone: weaker evidence, which the resolver
  // weighs against a near miss of a name of the tree (a typed typo is no vendor kernel).
  if (by_routine_name) *by_routine_name = true;
  const std::string low = Lower(n);
  if (Contains(low, "fft")) return say("cuFFT", "FFT kernel name (" + n + ")");
  if (Contains(low, "convolve") || Contains(low, "nchwtonhwc") || Contains(low, "nhwctonchw") ||
      Contains(low, "wgrad") || Contains(low, "dgrad") || Contains(low, "fprop")) {
    return say("cuDNN", "convolution / layout kernel name (" + n + ")");
  }
  // LAPACK routine names (getrf, potrf, geqr2, orgqr, ...) in the kernel or
  // its template arguments: cuSOLVER's kernels are named after the routine.
  // MAGMA's types in a closed kernel's arguments: MAGMA-derived code, which
  // both MAGMA and cuSOLVER ship; the name cannot tell which.
  for (const std::string& id : k.identifiers) {
    if (StartsWith(id, "magma_")) return say("MAGMA or cuSOLVER", "argument type " + id + " (MAGMA-derived kernel)");
  }
  static const char* kLapack[] = {"getrf", "getrs", "potrf", "potrs", "potri", "geqr",  "orgqr", "ormqr",
                                  "larft", "larfb", "lacpy", "laswp", "sytrd", "sytrf", "steqr", "stedc",
                                  "lansy", "syev",  "gesvd", "svd",   "ipiv",  "trtri", "xxtrf", "pivot"};
  for (const std::string& id : k.identifiers) {
    std::string l = Lower(id);
    for (const char* r : kLapack) {
      if (Contains(l, r)) return say("cuSOLVER", std::string("LAPACK routine ") + r + " in " + id);
    }
  }
  static const char* kBlas[] = {"gemm", "gemv", "trsm", "trmv", "ger_kernel", "dot_kernel", "axpy", "scal_kernel"};
  for (const char* r : kBlas) {
    if (Contains(low, r)) return say("cuBLAS", std::string("BLAS routine ") + r + " in " + n);
  }
  return "";
}

bool LooksLikeProfilerKernelName(std::string_view q) {
  if (q.rfind("_Z", 0) == 0) return true;
  return q.find_first_of("<>(){} ") != std::string_view::npos;
}

}  // namespace optrace
