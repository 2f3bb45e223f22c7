// Where a C++ definition can be reached from, and which builds run it.
//
// A call names a function; which definitions it can reach is decided by C++
// name lookup (the caller's namespaces and classes, outwards, and the
// qualifier written) and by the build (a file under vulkan/ is compiled only
// into the Vulkan backend, a .cu file only for CUDA). Without both, a name
// shared by unrelated code (relu_ in vulkan/ops, min as a __device__ helper
// in an anonymous namespace, flash::'s helpers) would be listed as an op's
// code -- a wrong fact. These predicates are the tracer's only notion of
// "same scope" and "same build"; the C++ walk's files use them.
#include "trace/code_scope.h"

#include <algorithm>
#include <cctype>

#include "base/text.h"

namespace optrace {

bool IsCudaFile(std::string_view path) {
  return EndsWith(path, ".cu") || EndsWith(path, ".cuh") || path.find("/cuda/") != std::string_view::npos ||
         path.find("/cudnn/") != std::string_view::npos || path.find("/miopen/") != std::string_view::npos;
}

LookupScope SplitScope(std::string_view s) {
  LookupScope out;
  size_t begin = 0;
  int angle = 0, paren = 0;
  auto push = [&](size_t end) {
    std::string_view part = s.substr(begin, end - begin);
    if (size_t lt = part.find('<'); lt != std::string_view::npos) part = part.substr(0, lt);
    while (!part.empty() && part.front() == ' ') part.remove_prefix(1);
    while (!part.empty() && part.back() == ' ') part.remove_suffix(1);
    if (part == "(anonymous namespace)") out.anonymous = true;
    else if (!part.empty()) out.parts.push_back(part);
  };
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c == '<') ++angle;
    else if (c == '>') angle -= angle > 0 ? 1 : 0;
    else if (c == '(') ++paren;
    else if (c == ')') paren -= paren > 0 ? 1 : 0;
    else if (c == ':' && angle == 0 && paren == 0 && i + 1 < s.size() && s[i + 1] == ':') {
      push(i);
      begin = i + 2;
      ++i;
    }
  }
  if (begin < s.size()) push(s.size());
  return out;
}

// The scope a definition sits in: its qualified name less its last
// component (the function's own name: "f", "impl" of TORCH_IMPL_FUNC's
// structured_f::impl, "operator()").
LookupScope ScopeOfFunction(const CppFunction& f) {
  LookupScope scope = SplitScope(f.qualified);
  if (!scope.parts.empty()) scope.parts.pop_back();
  return scope;
}

bool IsHeader(std::string_view path) {
  return EndsWith(path, ".h") || EndsWith(path, ".cuh") || EndsWith(path, ".hpp") || EndsWith(path, ".inl");
}

// Whether a call written with `qualifier` (as written: "", "at::native::",
// "detail::", "::at::") from scope `from` can name a definition in scope
// `def`: the qualifier must be the end of the definition's scope, and what
// is left of it an enclosing scope of the caller (or the global one).
bool LookupReaches(const LookupScope& def, std::string_view qualifier, const LookupScope& from) {
  bool absolute = StartsWith(qualifier, "::");
  LookupScope q = SplitScope(qualifier);
  if (q.parts.size() > def.parts.size()) return false;
  size_t rest = def.parts.size() - q.parts.size();
  for (size_t i = 0; i < q.parts.size(); ++i) {
    if (def.parts[rest + i] != q.parts[i]) return false;
  }
  if (absolute) return rest == 0;
  if (rest > from.parts.size()) return false;
  for (size_t i = 0; i < rest; ++i) {
    if (def.parts[i] != from.parts[i]) return false;
  }
  return true;
}

// Folders compiled only into one backend's or one library's build: their
// code is reached only from code in the same folder.
std::string_view BackendFolder(std::string_view path) {
  static constexpr std::string_view kFolders[] = {"/vulkan/",     "/xnnpack/",  "/mps/",     "/metal/",
                                                  "/mkldnn/xpu/", "/xpu/",      "/qnnpack/", "/miopen/",
                                                  "/hip/",        "/kleidiai/", "/mtia/"};
  // The first of kFolders the path holds, in one pass over its slashes
  // (every candidate definition of a call asks this, twice).
  size_t first = std::size(kFolders);
  for (size_t at = path.find('/'); at != std::string_view::npos; at = path.find('/', at + 1)) {
    const std::string_view rest = path.substr(at);
    for (size_t k = 0; k < first; ++k)
      if (rest.size() > 1 && rest[1] == kFolders[k][1] && rest.starts_with(kFolders[k])) first = k;
  }
  return first < std::size(kFolders) ? kFolders[first] : std::string_view{};
}

// Code only CPU builds of ATen run: the per-capability CPU kernels and oneDNN.
bool IsCpuKernelFile(std::string_view path) { return path.find("/native/cpu/") != std::string_view::npos; }

bool IsCpuOnlyFile(std::string_view path) {
  return IsCpuKernelFile(path) || path.find("/mkldnn/") != std::string_view::npos ||
         path.find("/quantized/cpu/") != std::string_view::npos;
}

// Whether code in `file` can run on a walk for `device` ("CPU", "CUDA", "any").
bool RunsOnDevice(std::string_view file, std::string_view device) {
  if (device == "CUDA") return !IsCpuOnlyFile(file);
  if (device == "CPU") return !IsCudaFile(file);
  return !IsCudaFile(file) && !IsCpuKernelFile(file);
}

bool IsTestFile(std::string_view path) {
  return StartsWith(path, "test/") || path.find("/test/") != std::string_view::npos;
}

bool ForeignToDevice(std::string_view path, std::string_view device) {
  static const std::string_view kLayouts[] = {"/nested/", "/sparse/", "/quantized/", "/miopen/", "/hip/"};
  if (IsTestFile(path) || !BackendFolder(path).empty()) return true;
  for (std::string_view f : kLayouts)
    if (path.find(f) != std::string_view::npos) return true;
  if (device == "CUDA") return IsCpuOnlyFile(path);
  if (device == "CPU") return IsCudaFile(path);
  return false;
}

// Whether a definition in `def_file` is in the build of code in `from_file`.
bool SameBuild(std::string_view def_file, std::string_view from_file) {
  std::string_view folder = BackendFolder(def_file);
  return folder.empty() || BackendFolder(from_file) == folder;
}

MacroUsesByMacro MacroUsesWithinMacros(const CppIndex& cpp) {
  MacroUsesByMacro out;
  for (uint32_t u = 0; u < cpp.macro_uses().size(); ++u) {
    const CppMacroUse& use = cpp.macro_uses()[u];
    if (!use.within_macro.empty()) out[use.within_macro].push_back(u);
  }
  return out;
}

FunctorsByClass FunctorsOfClasses(const CppIndex& cpp) {
  FunctorsByClass out;
  for (uint32_t id : cpp.FunctionsNamed("operator()")) {
    const std::string& q = cpp.functions()[id].qualified;
    size_t end = q.rfind("::operator()");
    if (end == std::string::npos || end == 0) continue;
    size_t start = q.rfind("::", end - 1);
    start = start == std::string::npos ? 0 : start + 2;
    out[q.substr(start, end - start)].push_back(id);
  }
  return out;
}

std::vector<uint32_t> TemplateArgumentFunctors(const CppIndex& cpp, const FunctorsByClass& by_class, const CppCall& c,
                                               const CppFunction& caller, std::string_view body) {
  // A class named in a call's explicit template arguments is instantiated by
  // the callee, which calls it -- its operator() runs (the callee sees only a
  // template parameter, so this call site is where the class is known).
  std::vector<uint32_t> out;
  if (c.file != caller.file || c.line < caller.body_begin || c.line > caller.body_end || body.empty()) return out;
  size_t pos = 0;
  for (uint32_t l = caller.body_begin; l < c.line && pos != std::string_view::npos; ++l) {
    pos = body.find('\n', pos);
    if (pos != std::string_view::npos) ++pos;
  }
  if (pos == std::string_view::npos) return out;
  const size_t line_end = std::min(body.find('\n', pos), body.size());
  for (size_t at = body.find(c.callee, pos); at < line_end; at = body.find(c.callee, at + 1)) {
    size_t k = at + c.callee.size();
    if ((at > 0 && IsIdentChar(body[at - 1])) || k >= body.size()) continue;
    while (k < body.size() && body[k] == ' ') ++k;
    if (k >= body.size() || body[k] != '<') continue;
    // Every identifier of the template argument list, to its '>'.
    int depth = 0;
    for (size_t i = k; i < body.size() && i < k + 400; ++i) {
      char ch = body[i];
      if (ch == '<') ++depth;
      if ((ch == '>' && --depth == 0) || ch == ';' || ch == '{' || ch == '(') break;
      if (!IsIdentChar(ch) || (i > 0 && IsIdentChar(body[i - 1]))) continue;
      size_t j = i;
      while (j < body.size() && IsIdentChar(body[j])) ++j;
      auto it = by_class.find(std::string(body.substr(i, j - i)));
      if (it == by_class.end()) continue;
      for (uint32_t id : it->second) {
        const CppFunction& f = cpp.functions()[id];
        const std::string& file = cpp.file(f.file);
        if ((f.file == caller.file || IsHeader(file)) && SameBuild(file, cpp.file(caller.file)) &&
            std::find(out.begin(), out.end(), id) == out.end())
          out.push_back(id);
      }
    }
    break;
  }
  return out;
}

namespace {

// The arguments of call `c` as written in the caller's body (its template
// arguments skipped), or none when the text there is not its call.
std::vector<std::string> CallArgumentsAt(const CppCall& c, const CppFunction& caller, std::string_view body) {
  if (c.file != caller.file || c.line < caller.body_begin || c.line > caller.body_end) return {};
  size_t pos = 0;
  for (uint32_t l = caller.body_begin; l < c.line && pos != std::string_view::npos; ++l) {
    pos = body.find('\n', pos);
    if (pos != std::string_view::npos) ++pos;
  }
  if (pos == std::string_view::npos) return {};
  size_t at = body.find(c.callee, pos);
  while (at != std::string_view::npos && at > 0 && IsIdentChar(body[at - 1])) at = body.find(c.callee, at + 1);
  if (at == std::string_view::npos || body.substr(pos, at - pos).find('\n') != std::string_view::npos) return {};
  size_t k = at + c.callee.size();
  for (int depth = 0; k < body.size(); ++k) {  // past the template arguments, to the '('
    if (body[k] == '<') ++depth;
    else if (body[k] == '>') --depth;
    else if (depth == 0 && body[k] == '(') break;
    else if (depth == 0 && body[k] != ' ') return {};
  }
  int depth = 0;
  for (size_t i = k; i < body.size(); ++i) {
    if (body[i] == '(') ++depth;
    else if (body[i] == ')' && --depth == 0) return SplitTopLevel(body.substr(k + 1, i - k - 1), ',');
  }
  return {};
}

// The class an argument constructs ("KthValueLauncher(k)", "ns::L{}" ->
// the last name), or "" when it is no construction.
std::string_view ConstructedClass(std::string_view arg) {
  size_t end = 0;
  while (end < arg.size() && (IsIdentChar(arg[end]) || arg[end] == ':')) ++end;
  if (end == 0 || end >= arg.size() || (arg[end] != '(' && arg[end] != '{') ||
      arg.back() != (arg[end] == '(' ? ')' : '}'))
    return {};
  std::string_view name = arg.substr(0, end);
  if (size_t sep = name.rfind("::"); sep != std::string_view::npos) name = name.substr(sep + 2);
  return IsIdentifier(name) ? name : std::string_view{};
}

// The name a parameter declaration gives ("Launcher l" -> "l").
std::string_view ParameterName(std::string_view param) {
  if (size_t eq = param.find('='); eq != std::string_view::npos) param = param.substr(0, eq);
  while (!param.empty() && !IsIdentChar(param.back())) param.remove_suffix(1);
  size_t start = param.size();
  while (start > 0 && IsIdentChar(param[start - 1])) --start;
  return param.substr(start);
}

}  // namespace

std::vector<uint32_t> HandedObjectMethods(const CppIndex& cpp, const CppCall& c, const CppFunction& caller,
                                          std::string_view body, uint32_t callee) {
  std::vector<uint32_t> out;
  const CppFunction& target = cpp.functions()[callee];
  if (!target.is_template) return out;  // a class it is given by type, not by template parameter
  std::vector<std::string> args = CallArgumentsAt(c, caller, body);
  std::vector<std::string> params = SplitTopLevel(target.params, ',');
  for (size_t i = 0; i < args.size() && i < params.size(); ++i) {
    std::string_view cls = ConstructedClass(args[i]);
    std::string_view name = ParameterName(params[i]);
    if (cls.empty() || name.empty()) continue;
    for (uint32_t call : cpp.CallsIn(callee)) {
      const CppCall& m = cpp.calls()[call];
      std::string_view q = m.qualifier;
      if (m.kind != CallKind::kMember || !StartsWith(q, name) || q.size() == name.size() ||
          (q[name.size()] != '.' && q.substr(name.size(), 2) != "->"))
        continue;
      for (uint32_t id : cpp.FunctionsNamed(m.callee)) {
        const CppFunction& f = cpp.functions()[id];
        LookupScope scope = ScopeOfFunction(f);
        const std::string& file = cpp.file(f.file);
        if (scope.parts.empty() || scope.parts.back() != cls || (f.file != caller.file && !IsHeader(file)) ||
            !SameBuild(file, cpp.file(caller.file)) || std::find(out.begin(), out.end(), id) != out.end())
          continue;
        out.push_back(id);
      }
    }
  }
  return out;
}

}  // namespace optrace
