// The find lookup; see find.h. One pass per kind of fact over the index's
// lookup tables; the registration and launch lists without a table by target
// are scanned once each.
#include "lookup/find.h"

#include <algorithm>
#include <set>

#include "base/text.h"
#include "cpp/kernel_name.h"
#include "lookup/op.h"
#include "lookup/py.h"
#include "trace/trace.h"

namespace optrace {

namespace {

void FindCpp(const CppIndex& cpp, const std::string& aten_op, FindAnswer* a) {
  const std::string& name = a->name;
  for (uint32_t i : cpp.FunctionsNamed(name))
    if (a->qualified.empty() || EndsWith(cpp.functions()[i].qualified, a->qualified)) a->definitions.push_back(i);
  a->macros = cpp.MacrosNamed(name);
  a->stub_decls = cpp.StubDeclsNamed(name);
  a->stub_registrations = cpp.RegistrationsOf(name);
  const auto registrations = cpp.registrations();
  for (auto it = registrations.begin(); it != registrations.end(); ++it)
    if (it->target == name) a->registered_as_target.push_back(it.id());
  std::set<uint32_t> libraries;
  for (uint32_t i : cpp.LibraryRegistrationsOf(name)) libraries.insert(i);
  if (!aten_op.empty()) {
    const auto all = cpp.library_registrations();
    for (auto it = all.begin(); it != all.end(); ++it)
      if (it->op == aten_op) libraries.insert(it.id());
  }
  a->library_registrations.assign(libraries.begin(), libraries.end());
  // Launches of `name`: a __global__ kernel's <<<>>>, a jiterator kernel
  // string, a functor handed to gpu_kernel & co.
  std::vector<uint32_t> of_kernel = cpp.LaunchesOfKernel(name);
  std::set<uint32_t> launches(of_kernel.begin(), of_kernel.end());
  const auto all_launches = cpp.launches();
  for (auto it = all_launches.begin(); it != all_launches.end(); ++it) {
    if (it->kernel == name || std::find(it->functors.begin(), it->functors.end(), name) != it->functors.end())
      launches.insert(it.id());
  }
  a->launches_of.assign(launches.begin(), launches.end());
  for (uint32_t f : a->definitions)
    for (uint32_t l : cpp.LaunchesIn(f)) a->launches_in.push_back(l);
  a->macro_launches = cpp.LaunchesInMacro(name);
  const auto uses = cpp.macro_uses();
  for (auto it = uses.begin(); it != uses.end(); ++it)
    if (it->macro == name) a->macro_uses.push_back(it.id());
  a->callers = cpp.CallersOf(name);
}

void FindDispatch(const YamlModel& yaml, const std::string& name, FindAnswer* a) {
  for (const NativeFunction& f : yaml.functions())
    for (const auto& [key, function] : f.dispatch)
      if (function == name) a->dispatch.push_back({&f, key});
}

std::vector<std::string> Suggestions(const Index& index, const FindAnswer& a) {
  if (a.name.empty()) return SuggestPython(index.py, a.query);
  std::set<std::string> names;
  for (const CppFunction& f : index.cpp.functions()) names.insert(f.name);
  for (const StubDecl& d : index.cpp.stub_decls()) names.insert(d.stub);
  for (const CppMacro& m : index.cpp.macros()) names.insert(m.name);
  return DidYouMean(a.name, std::vector<std::string>(names.begin(), names.end()), 8);
}

}  // namespace

bool FindAnswer::found() const {
  return !ops.empty() || !definitions.empty() || !macros.empty() || !stub_decls.empty() ||
         !stub_registrations.empty() || !registered_as_target.empty() || !library_registrations.empty() ||
         !dispatch.empty() || !launches_of.empty() || !macro_uses.empty() || !callers.empty() || !python.empty();
}

FindAnswer FindName(const Index& index, std::string_view raw) {
  FindAnswer a;
  a.query = std::string(raw);
  std::string query(TrimView(raw));
  // A kernel name as a profiler prints it (issue 26) is looked up as what it
  // resolves to: the functor or lambda-holding function of a launch template,
  // or the kernel itself (trace/ResolveKernelName).
  if (LooksLikeProfilerKernelName(query)) {
    KernelSource k = ResolveKernelName(index, query);
    if (k.valid() && k.library.empty()) query = k.payload.empty() ? k.kernel : k.payload;
  }
  // The query is an aten op ("aten::add.Tensor"), a C++ name, qualified
  // ("at::native::add": look up the last component, keep definitions that end
  // with the whole) or not, or a Python dotted name.
  bool is_aten = StartsWith(query, "aten::") || StartsWith(query, "torch.ops.aten.");
  std::string op = is_aten ? AtenOpName(query) : query;
  bool is_operator = StartsWith(query, "operator");
  if (is_aten) {
    a.name = OpBaseName(op);
  } else if (size_t at = query.rfind("::"); at != std::string::npos && !is_operator) {
    a.qualified = query;
    a.name = query.substr(at + 2);
  } else if (query.find('.') == std::string::npos) {
    a.name = query;
  }
  if (a.qualified.empty()) a.ops = OpEntries(index.yaml, is_aten ? query : op);
  if (!a.name.empty()) {
    FindCpp(index.cpp, is_aten ? op : "", &a);
    FindDispatch(index.yaml, a.name, &a);
  }
  if (a.qualified.empty() && !is_aten) {
    PySymbol py = ResolvePython(index.py, query);
    if (py.kind != PySymbol::kNone) a.python.push_back(py);
  }
  if (!a.found()) a.suggestions = Suggestions(index, a);
  return a;
}

}  // namespace optrace
