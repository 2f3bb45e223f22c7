// A kernel name as a profiler prints it, as a query (issue 26): from
// `void at::native::vectorized_elementwise_kernel<4, at::native::
// sigmoid_kernel_cuda(...)::{lambda()#2}::...::{lambda(float)#1}, ...>(...)`
// back to the source.
//
// cpp/kernel_name reads the name; this file decides against the index what
// it names, in order:
//  1. a __global__ kernel of the tree. When it is one of the launch
//     templates below, the answer is the code it was instantiated with --
//     the first of the name's candidates the index knows as a functor (a
//     class with operator() / reduce / combine members, or one a launch
//     constructs) or as a function holding the named lambda -- and that
//     lambda's line, found by numbering the lambdas of the function the way
//     the Itanium ABI does (LambdaLine);
//  2. a jiterator kernel: `<s>_vectorized4_kernel` runs the kernel string s
//     of a jitted_gpu_kernel launch of the tree;
//  3. a vendor library kernel (the name's conventions, kernel_name.cc):
//     "not in this tree: cuBLAS", with the tree's calls into that library;
//  4. a C++ function of the tree by the kernel's name.
// Anything else is not found: a name that cannot be resolved says so.
// The ops that launch it are found bottom-up from the kernel, functor or
// lambda-holding function (TryKernel).
#include <algorithm>
#include <cctype>
#include <set>

#include "cpp/cpp_guards.h"
#include "cpp/cpp_lexer.h"
#include "cpp/kernel_name.h"
#include "trace/trace_internal.h"
#include "trace/walk_bounds.h"

namespace optrace {

namespace {

// The __global__ templates of ATen that run a functor or lambda given as a
// template argument and hold no arithmetic of their own (CUDALoops.cuh,
// Loops.cuh, Reduce.cuh, IndexKernel.cu, ScatterGatherKernel.cu,
// DistributionTemplates.h, RangeFactories.cu, LinearAlgebra.cu, MultiTensorApply.cuh): for these
// the answer is the code they were instantiated with. A kernel with logic of
// its own that also takes a functor (indexFuncSmallIndex<..., ReduceMinimum>)
// is answered by itself. kernel_query_test checks each is defined so.
const char* const kLaunchTemplates[] = {"vectorized_elementwise_kernel",
                                        "unrolled_elementwise_kernel",
                                        "elementwise_kernel",
                                        "reduce_kernel",
                                        "_scatter_gather_elementwise_kernel",
                                        "index_elementwise_kernel",
                                        "distribution_elementwise_grid_stride_kernel",
                                        "distribution_binary_elementwise_kernel",
                                        "unrolled_elementwise_kernel_for_multi_outputs",
                                        "elementwise_kernel_with_index",
                                        "_elementwise_kernel",
                                        "vectorized_templated_elementwise_kernel",
                                        "multi_tensor_apply_kernel"};

bool IsLaunchTemplate(const std::string& kernel) {
  for (const char* t : kLaunchTemplates) {
    if (kernel == t) return true;
  }
  return false;
}

size_t Match(const std::vector<Token>& t, size_t open, size_t end) {
  int depth = 0;
  const std::string_view o = t[open].text;
  const char c = o == "(" ? ')' : o == "[" ? ']' : '}';
  for (size_t i = open; i < end; ++i) {
    if (t[i].Is(o)) ++depth;
    else if (t[i].Is(c) && --depth == 0) return i;
  }
  return end;
}

// A lambda or a dispatch macro's hidden switch lambda in one context.
struct Producer {
  bool dispatch = false;
  int arity = 0;
  size_t open = 0, close = 0;  // the lambda body's braces (dispatch: the user lambda's)
  uint32_t line = 0;           // of the lambda's '['
};

// Reads the lambda whose '[' is at i: its arity and body. False when it is
// no lambda (a subscript, an attribute).
bool ReadLambda(const std::vector<Token>& t, size_t i, size_t end, Producer* p) {
  if (i > 0) {
    const Token& prev = t[i - 1];
    bool ok = prev.Is('(') || prev.Is(',') || prev.Is('=') || prev.Is('{') || prev.Is(';') || prev.Is('}') ||
              prev.Is(':') || prev.Is("return") || prev.Is('?');
    if (!ok) return false;
  }
  size_t j = Match(t, i, end);
  if (j >= end) return false;
  ++j;
  while (j < end && IsIdent(t[j]) && !t[j].Is("mutable")) ++j;  // GPU_LAMBDA, __device__, __host__
  p->arity = 0;
  if (j < end && t[j].Is('(')) {
    size_t close = Match(t, j, end);
    int depth = 0;
    bool any = false;
    p->arity = 1;
    for (size_t k = j + 1; k < close; ++k) {
      if (t[k].Is('(') || t[k].Is('<') || t[k].Is('[')) ++depth;
      else if (t[k].Is(')') || t[k].Is('>') || t[k].Is(']')) --depth;
      else if (t[k].Is(',') && depth == 0) ++p->arity;
      any = any || !t[k].Is("void");
    }
    if (!any) p->arity = 0;
    j = close + 1;
  }
  int angle = 0;  // a trailing return type may hold commas: -> thrust::tuple<scalar_t, int32_t>
  while (j < end && !t[j].Is('{')) {
    if (t[j].Is('<')) ++angle;
    else if (t[j].Is('>')) --angle;
    if (t[j].Is(';') || t[j].Is(')') || (t[j].Is(',') && angle <= 0)) return false;
    ++j;
  }
  if (j >= end) return false;
  p->open = j;
  p->close = Match(t, j, end);
  p->line = t[i].line;
  return true;
}

// The lambdas of one context (a function or lambda body), in order;
// lambdas nested in them belong to their own contexts.
std::vector<Producer> Producers(const std::vector<Token>& t, size_t begin, size_t end) {
  std::vector<Producer> out;
  for (size_t i = begin; i < end; ++i) {
    if (IsIdent(t[i]) && t[i].text.substr(0, 12) == "AT_DISPATCH_" && i + 1 < end && t[i + 1].Is('(')) {
      // AT_DISPATCH_* expands to [&]{ switch ... case: return <user lambda>(); }(): a ()-lambda of this
      // context whose body holds one copy of the user lambda per case.
      size_t close = Match(t, i + 1, end);
      for (size_t k = i + 2; k < close; ++k) {
        Producer p;
        if (t[k].Is('[') && ReadLambda(t, k, close, &p)) {
          p.dispatch = true;
          p.arity = 0;
          out.push_back(p);
          break;
        }
      }
      i = close;
      continue;
    }
    Producer p;
    if (t[i].Is('[') && ReadLambda(t, i, end, &p)) {
      out.push_back(p);
      i = p.close;
    }
  }
  return out;
}

// Whether an #if group around a lambda is compiled in a CUDA (not ROCm)
// build: 1 yes, 0 no, -1 cannot tell. Only the configuration words a
// kernel's body is written under are read; anything else cannot be told.
int CudaAtom(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  bool neg = false;
  if (!s.empty() && s[0] == '!') {
    neg = true;
    s.remove_prefix(1);
  }
  int v = -1;
  if (s == "0") v = 0;
  else if (s == "1") v = 1;
  else if (s.find("ROCM") != std::string_view::npos || s.find("HIP") != std::string_view::npos) v = 0;
  else if (s.find("AT_USE_JITERATOR") != std::string_view::npos || s.find("__CUDACC__") != std::string_view::npos ||
           s.find("__NVCC__") != std::string_view::npos || s.find("USE_CUDA") != std::string_view::npos)
    v = 1;
  return v < 0 ? -1 : neg ? 1 - v : v;
}

// Whether an #if group around a lambda is compiled in a CUDA (not ROCm)
// build: 1 yes, 0 no, -1 cannot tell. Only the configuration words a
// kernel's body is written under are read (`#if 0 && AT_USE_JITERATOR()`,
// `#ifdef USE_ROCM`), over one chain of && or ||; anything else cannot be told.
int CompiledForCuda(const CodeCondition& c) {
  std::string_view s = c.text;
  const bool all = s.find("||") == std::string_view::npos;
  if (!all && s.find("&&") != std::string_view::npos) return -1;
  const std::string_view op = all ? "&&" : "||";
  int v = all ? 1 : 0;
  for (size_t b = 0; b <= s.size();) {
    size_t e = s.find(op, b);
    if (e == std::string_view::npos) e = s.size();
    int a = CudaAtom(s.substr(b, e - b));
    if (all) v = (a == 0 || v == 0) ? 0 : (a < 0 || v < 0) ? -1 : 1;
    else v = (a == 1 || v == 1) ? 1 : (a < 0 || v < 0) ? -1 : 0;
    b = e + op.size();
  }
  return v < 0 ? -1 : c.negated ? 1 - v : v;
}

}  // namespace

// The line of the lambda `chain` names in function f: each step is the n-th
// lambda with that many parameters in its context (counted by arity: the
// source's parameter types are template parameters the name shows
// substituted). 0 and *why when the source does not match the name.
uint32_t LambdaLine(const Disk* disk, const CppIndex& cpp, const CppFunction& f, const std::vector<LambdaStep>& chain,
                    std::string* why) {
  std::string text;
  if (!disk || !disk->ReadFile(cpp.file(f.file), &text).ok()) {
    *why = "cannot read " + cpp.file(f.file);
    return 0;
  }
  LexedFile lexed;
  LexCpp(text, &lexed);
  const std::vector<Token>& t = lexed.tokens;
  size_t open = t.size();
  for (size_t i = 0; i < t.size(); ++i) {
    if (t[i].line == f.body_begin && t[i].Is('{')) {
      open = i;
      break;
    }
  }
  if (open == t.size()) {
    *why = "no body of " + f.qualified + " found";
    return 0;
  }
  size_t begin = open + 1, end = Match(t, open, t.size());
  uint32_t line = 0;
  for (size_t i = 0; i < chain.size();) {
    std::vector<Producer> ps = Producers(t, begin, end);
    int seen = 0;
    const Producer* hit = nullptr;
    for (const Producer& p : ps) {
      if (p.arity != chain[i].arity) continue;
      // Both arms of an #if are lexed; only those a CUDA build compiles are numbered.
      int compiled = 1;
      for (const CodeCondition& c : CppPreprocessorConditions(text, static_cast<int>(p.line))) {
        int v = CompiledForCuda(c);
        if (v == 0 || (v < 0 && compiled == 1)) compiled = v;
      }
      if (compiled == 0) continue;
      if (compiled < 0) {
        *why = "a lambda of " + f.qualified + " at line " + std::to_string(p.line) +
               " is under an #if this build's configuration does not decide";
        return 0;
      }
      if (++seen == chain[i].number) {
        hit = &p;
        break;
      }
    }
    if (!hit) {
      *why = "the source of " + f.qualified + " has " + std::to_string(seen) + " lambda(s) of " +
             std::to_string(chain[i].arity) + " parameter(s) where the name counts " + std::to_string(chain[i].number);
      return 0;
    }
    i += hit->dispatch ? 2 : 1;  // a dispatch switch's case copy is the user lambda
    begin = hit->open + 1;
    end = hit->close;
    line = hit->line;
  }
  return line;
}

namespace {

// Classes the index knows as functors: a call operator or a reduction's
// members defined in the tree, or a type a launch constructs.
std::vector<uint32_t> FunctorMembers(const CppIndex& cpp, const std::string& cls) {
  std::vector<uint32_t> out;
  const std::string mid = "::" + cls + "::";
  for (const char* member : {"operator()", "reduce", "combine", "project"}) {
    for (uint32_t id : cpp.FunctionsNamed(member)) {
      const std::string& q = cpp.functions()[id].qualified;
      if (q.find(mid) != std::string::npos || q.rfind(cls + "::", 0) == 0) out.push_back(id);
    }
  }
  return out;
}

bool CudaFile(const std::string& f) {
  return f.find("/cuda/") != std::string::npos || f.ends_with(".cu") || f.ends_with(".cuh");
}

// What a kernel name resolves to, before any op is traced.
struct KernelResolution {
  KernelSource source;
  TargetKind target_kind = TargetKind::kNone;
  std::string target_name;
  std::vector<std::string> starts;  // functions to trace bottom-up to the ops
  std::string not_found;
  std::string near_miss;  // a function of the tree the query is likely a typo of
};

class Resolver {
 public:
  explicit Resolver(const Index& ix) : ix_(ix) {}
  bool Resolve(std::string_view q, KernelResolution* r);

 private:
  bool HasDefinitionInScope(const KernelName& k) const;
  bool ResolvePayload(const KernelName& k, KernelSource* ks, std::vector<std::string>* starts);
  bool ResolveJiterator(const KernelName& k, KernelSource* ks, std::vector<std::string>* starts);
  void AddLibraryCalls(const std::string& lib, KernelSource* ks);
  std::string LibraryOf(const KernelName& k, std::string_view q, std::string* why, std::string* near_miss);
  Location CppLoc(uint32_t file, uint32_t line) const { return {ix_.cpp.file(file), static_cast<int>(line), ""}; }
  const Index& ix_;
};

bool InScope(const KernelName& k, const CppFunction& f);

// Levenshtein distance of a and b when it is at most 2, else 3.
int NearDistance(std::string_view a, std::string_view b) {
  if (a.size() > b.size() + 2 || b.size() > a.size() + 2) return 3;
  std::vector<int> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = static_cast<int>(j);
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = static_cast<int>(i);
    int best = cur[0];
    for (size_t j = 1; j <= b.size(); ++j) {
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] != b[j - 1])});
      best = std::min(best, cur[j]);
    }
    if (best > 2) return 3;
    std::swap(prev, cur);
  }
  return std::min(prev[b.size()], 3);
}

// The library of a kernel the tree does not define. A bare name typed by a
// user (no template, no parameters) whose library would rest on a routine
// name alone (`gemm_and_bia`) and that is within two edits of a function of
// the tree is that function mistyped, not a vendor kernel: no library, and
// *near_miss names the function.
std::string Resolver::LibraryOf(const KernelName& k, std::string_view q, std::string* why, std::string* near_miss) {
  bool weak = false;
  std::string lib = KernelLibrary(k, why, &weak);
  if (lib.empty() || !weak || LooksLikeProfilerKernelName(q)) return lib;
  for (const CppFunction& f : ix_.cpp.functions()) {
    if (NearDistance(f.name, k.kernel) <= 2) {
      *near_miss = f.name;
      return "";
    }
  }
  return lib;
}

// A function of the tree by the kernel's name whose qualified name ends in
// the name's own qualifier (`(anonymous namespace)` as printed is ignored):
// `internal::gemvx::kernel` is not any function called `kernel`.
bool Resolver::HasDefinitionInScope(const KernelName& k) const {
  for (uint32_t id : ix_.cpp.FunctionsNamed(k.kernel)) {
    if (InScope(k, ix_.cpp.functions()[id])) return true;
  }
  return false;
}

bool InScope(const KernelName& k, const CppFunction& f) {
  auto strip = [](std::string s) {
    for (size_t p; (p = s.find("(anonymous namespace)::")) != std::string::npos;) s.erase(p, 23);
    return s;
  };
  const std::string want = strip(k.scope + k.kernel);
  std::string q = strip(f.qualified);
  return q == want || q.ends_with("::" + want);
}

bool Resolver::Resolve(std::string_view q, KernelResolution* r) {
  std::string_view head = q.substr(0, q.find_first_of("<("));
  if (head.find('.') != std::string_view::npos) return false;  // x.softmax(-1): Python, not a kernel
  KernelName k = ParseKernelName(q);
  if (k.kernel.empty() || (!std::isalpha(static_cast<unsigned char>(k.kernel[0])) && k.kernel[0] != '_')) return false;
  const CppIndex& cpp = ix_.cpp;
  KernelSource& ks = r->source;
  ks.name = k.demangled;
  ks.truncated = k.truncated;
  ks.kernel = k.kernel;
  if (k.was_mangled) ks.notes.push_back("demangled from " + std::string(q.substr(0, 80)));
  if (k.truncated) ks.notes.push_back("the name is cut (brackets left open): read as far as it goes");
  std::vector<std::string>& starts = r->starts;  // names to trace bottom-up to the ops
  const CppFunction* global = nullptr;
  for (uint32_t id : cpp.FunctionsNamed(k.kernel)) {
    const CppFunction& f = cpp.functions()[id];
    if (f.form == DefForm::kGlobalKernel && InScope(k, f) &&
        (!global || (!CudaFile(cpp.file(global->file)) && CudaFile(cpp.file(f.file))))) {
      global = &f;
    }
  }
  r->target_kind = TargetKind::kKernel;
  if (global) {
    ks.definition = CppLoc(global->file, global->line);
    r->target_name = k.kernel;
    if (IsLaunchTemplate(k.kernel)) {
      if (ResolvePayload(k, &ks, &starts)) r->target_name = ks.payload;
      else
        ks.notes.push_back("the functor or lambda this " + k.kernel + " runs is not named in the name" +
                           std::string(k.truncated ? " as far as it was printed" : "") + " or not in this tree");
    }
    if (starts.empty()) starts.push_back(k.kernel);
  } else if (ResolveJiterator(k, &ks, &starts)) {
    r->target_name = ks.payload;
  } else if (std::string why, lib = LibraryOf(k, q, &why, &r->near_miss); !lib.empty()) {
    ks.library = lib;
    ks.library_reason = why;
    AddLibraryCalls(lib, &ks);
    r->target_kind = TargetKind::kLibrary;
    r->target_name = lib;
  } else if (HasDefinitionInScope(k)) {
    r->target_name = k.kernel;
    starts.push_back(k.kernel);
  } else {
    r->not_found = k.kernel + " is not defined in this tree, and its name names no library";
    if (!r->near_miss.empty()) r->not_found += " (a function " + r->near_miss + " is)";
    return false;
  }
  return true;
}

}  // namespace

KernelSource ResolveKernelName(const Index& index, std::string_view name) {
  KernelResolution r;
  if (!Resolver(index).Resolve(name, &r)) return KernelSource();  // names nothing: nothing half-filled
  return r.source;
}

bool QueryResolver::TryProfilerKernel(std::string_view q) {
  KernelResolution r;
  if (!Resolver(ix_).Resolve(q, &r)) {
    if (!r.not_found.empty()) t_.not_found.push_back({"kernel", r.not_found});
    if (!r.near_miss.empty()) t_.suggestions.push_back(r.near_miss);
    return false;
  }
  if (opt_.snippets) {  // the arithmetic with its code, the rest by line
    for (Location& l : r.source.arithmetic) l = Loc(l.file, l.line, 4);
  }
  for (const std::string& s : r.starts) TryKernel(s);
  if (!r.source.library.empty()) {
    t_.notes.push_back("not in this tree: " + r.source.library + " (" + r.source.library_reason + ")");
  }
  t_.target_kind = r.target_kind;
  t_.target_name = r.target_name;
  t_.kernel_source = std::move(r.source);
  return true;
}

namespace {

bool Resolver::ResolvePayload(const KernelName& k, KernelSource* ks, std::vector<std::string>* starts) {
  const CppIndex& cpp = ix_.cpp;
  for (const PayloadCandidate& c : k.payloads) {
    std::vector<uint32_t> defs;  // where the lambda is, or the functor's members
    bool functor = false;
    if (c.call_operator) {
      defs = FunctorMembers(cpp, c.name);  // Functor<...>::operator()(...)::{lambda}: the class named
      for (auto it = defs.begin(); it != defs.end();) {
        it = cpp.functions()[*it].name == "operator()" ? it + 1 : defs.erase(it);
      }
    } else if (c.lambda) {
      for (uint32_t id : cpp.FunctionsNamed(c.name)) {
        if (cpp.functions()[id].form != DefForm::kGlobalKernel) defs.push_back(id);
      }
    } else {
      defs = FunctorMembers(cpp, c.name);
      functor = true;
    }
    std::vector<uint32_t> holders;
    if (functor) {
      for (const CppLaunch& l : cpp.launches()) {
        if (l.function < 0 || std::find(l.functors.begin(), l.functors.end(), c.name) == l.functors.end()) continue;
        holders.push_back(static_cast<uint32_t>(l.function));
      }
    }
    if (defs.empty() && holders.empty()) continue;
    ks->payload = c.name;
    ks->payload_kind = functor ? PayloadKind::kFunctor : PayloadKind::kLambda;
    // The innermost lambda's parameters are the element types it runs on.
    if (!c.chain.empty()) ks->dtype = c.chain.back().params;
    std::stable_sort(defs.begin(), defs.end(), [&](uint32_t a, uint32_t b) {
      return CudaFile(cpp.file(cpp.functions()[a].file)) > CudaFile(cpp.file(cpp.functions()[b].file));
    });
    if (!defs.empty()) {
      const CppFunction& d = cpp.functions()[defs.front()];
      ks->payload_definition = CppLoc(d.file, d.line);
    }
    if (functor) {
      for (uint32_t id : defs) {
        const CppFunction& d = cpp.functions()[id];
        if (d.name == "operator()" || d.name == "combine" || d.name == "reduce")
          ks->arithmetic.push_back(CppLoc(d.file, d.line));
      }
      std::set<std::string> named;
      for (uint32_t h : holders) {
        const std::string& n = cpp.functions()[h].name;
        if (named.insert(n).second && starts->size() < kKernelStartsListed) starts->push_back(n);
      }
      if (starts->empty()) starts->push_back(c.name);
    } else {
      std::string why;
      for (uint32_t id : defs) {
        uint32_t line = LambdaLine(ix_.disk.get(), cpp, cpp.functions()[id], c.chain, &why);
        if (line > 0) ks->arithmetic.push_back(CppLoc(cpp.functions()[id].file, line));
      }
      if (ks->arithmetic.empty() && !why.empty()) ks->notes.push_back("lambda line not told: " + why);
      if (!c.call_operator) {
        starts->push_back(c.name);
      } else {  // a functor's operator(): its callers construct the class
        std::set<std::string> named;
        for (uint32_t caller : cpp.CallersOf(c.name)) {
          const CppCall& call = cpp.calls()[caller];
          if (call.function >= 0 && named.insert(cpp.functions()[call.function].name).second) {
            starts->push_back(cpp.functions()[call.function].name);
          }
        }
      }
    }
    return true;
  }
  return false;
}

bool Resolver::ResolveJiterator(const KernelName& k, KernelSource* ks, std::vector<std::string>* starts) {
  const CppIndex& cpp = ix_.cpp;
  for (const std::string* s : {&k.jiterator_vectorized, &k.jiterator_plain}) {
    if (s->empty()) continue;
    std::set<std::string> holders;
    for (const CppLaunch& l : cpp.launches()) {
      if (l.kind != LaunchKind::kJiterator || l.kernel != *s) continue;
      if (!ks->payload_definition.valid()) ks->payload_definition = CppLoc(l.file, l.line);
      ks->arithmetic.push_back(CppLoc(l.file, l.line));
      if (l.function >= 0 && holders.insert(cpp.functions()[l.function].name).second) {
        starts->push_back(cpp.functions()[l.function].name);
      }
    }
    if (ks->arithmetic.empty()) continue;
    ks->payload = *s;
    ks->payload_kind = PayloadKind::kJiterator;
    ks->notes.push_back("compiled at run time by the jiterator from the kernel string \"" + *s + "\"");
    return true;
  }
  return false;
}

// Where the tree calls a library, by its API's spelling.
void Resolver::AddLibraryCalls(const std::string& lib, KernelSource* ks) {
  const CppIndex& cpp = ix_.cpp;
  std::string prefix = lib == "cuBLAS" || lib == "cuBLASLt" ? "cublas"
                       : lib == "cuDNN"                     ? "cudnn"
                       : lib == "cuFFT"                     ? "cufft"
                       : lib == "cuSOLVER"                  ? "cusolver"
                       : lib == "cuRAND"                    ? "curand"
                       : lib == "NCCL"                      ? "nccl"
                                                            : "";
  std::string scope = lib == "CUB" ? "cub::" : lib == "Thrust" ? "thrust::" : "";
  std::set<int32_t> functions;
  for (const CppCall& c : cpp.calls()) {
    bool hit = !prefix.empty() ? c.callee.rfind(prefix, 0) == 0 : c.qualifier.find(scope) != std::string::npos;
    if (!hit || c.function < 0 || !functions.insert(c.function).second) continue;
    ks->library_calls.push_back(CppLoc(c.file, c.line));
    if (ks->library_calls.size() >= kLibrarySitesListed) break;
  }
}

}  // namespace

}  // namespace optrace
