// C++ name lookup and build membership, as the tracer needs them to tell
// which definition a call can reach (see code_scope.cc).
#pragma once

#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "cpp/cpp_index.h"

namespace optrace {

// The components of a scope as lookup sees them: template arguments dropped,
// anonymous namespaces left out (and noted: their members are visible only in
// the file that defines them, or the files including it).
struct LookupScope {
  std::vector<std::string_view> parts;
  bool anonymous = false;
};

// "at::native::(anonymous namespace)::foo<T>" -> {at, native, foo}, anonymous.
LookupScope SplitScope(std::string_view scope);
// The scope a definition sits in: its qualified name less its own name.
LookupScope ScopeOfFunction(const CppFunction& f);
// Whether a call written with `qualifier` ("", "at::native::", "::at::") from
// scope `from` can name a definition in scope `def`.
bool LookupReaches(const LookupScope& def, std::string_view qualifier, const LookupScope& from);

bool IsHeader(std::string_view path);
// A file compiled for CUDA (or cuDNN / MIOpen): where launches run on the GPU.
bool IsCudaFile(std::string_view path);
// Code only CPU builds of ATen run: the per-capability CPU kernels and oneDNN.
bool IsCpuOnlyFile(std::string_view path);
// A per-capability CPU kernel file (aten/src/ATen/native/cpu/): its values
// are Vectorized or scalars, so its member calls and plain calls by an
// op's name are no ops without a Tensor to show for it.
bool IsCpuKernelFile(std::string_view path);
// The folder ("/vulkan/", "/xnnpack/", ...) compiled only into one backend's
// or library's build, or "" for code every build has.
std::string_view BackendFolder(std::string_view path);
// Whether code in `file` can run on a walk for `device` ("CPU", "CUDA", "any").
bool RunsOnDevice(std::string_view file, std::string_view device);
// Code of another dispatch key than a dense tensor on `device` ("CPU" |
// "CUDA") reaches: other layouts (sparse/, nested/, quantized/), other
// backends and libraries (miopen/, vulkan/, mps/, ...; native/cpu/ and
// mkldnn/ for CUDA, CUDA sources for CPU), and tests (test/). A dense op
// reaches it only behind a test of the tensor's kind (`if (self.is_sparse())`),
// so what it calls is never on that device's path.
bool ForeignToDevice(std::string_view path, std::string_view device);
// A file of a test folder: its kernels and functions are never an op's.
bool IsTestFile(std::string_view path);
// Whether a definition in `def_file` is in the build of code in `from_file`.
bool SameBuild(std::string_view def_file, std::string_view from_file);

// Class name -> the operator() definitions of classes of that name.
// Macro uses written inside each macro's definition, by that macro's name.
using MacroUsesByMacro = std::unordered_map<std::string, std::vector<uint32_t>>;
MacroUsesByMacro MacroUsesWithinMacros(const CppIndex& cpp);

using FunctorsByClass = std::unordered_map<std::string, std::vector<uint32_t>>;
FunctorsByClass FunctorsOfClasses(const CppIndex& cpp);
// f<FullLayer, FullBidirectionalLayer>(...): the operator()s of the classes
// named in call `c`'s explicit template arguments, read from `body` (the
// caller's body text), that the caller's file can see.
std::vector<uint32_t> TemplateArgumentFunctors(const CppIndex& cpp, const FunctorsByClass& by_class, const CppCall& c,
                                               const CppFunction& caller, std::string_view body);
// run_launcher<T>(..., KthValueLauncher(k)) into a `callee` that calls a
// member of that parameter (l.template launch<...>(...)): those members of
// the class constructed in the argument, that the caller's file can see --
// the callee sees only a template parameter, so this call site is where the
// launcher's class is known.
std::vector<uint32_t> HandedObjectMethods(const CppIndex& cpp, const CppCall& c, const CppFunction& caller,
                                          std::string_view body, uint32_t callee);

}  // namespace optrace
