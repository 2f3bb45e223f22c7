// What the walk reads of one C++ function, once per index and traced
// devices (WalkFacts::WalkOf, kept in the WalkCache): its launches, the
// macros it uses and those their definitions use, the stubs it names, its
// calls with their facts (what each call is: trace_calls.cc,
// ComputeCallFacts), its C++ operators on tensors and the kernels it passes
// by name -- leaving out device code (cpp/device_code.h), which calls no op.
// Also the C++ definitions behind a dispatch entry (DefinitionsFor): the
// dispatcher's at::native::<name>, told apart by parameter kinds and device.
// Apart from the walk because these answers are the same for every trace of
// an index, so they are computed once and kept with it.
#include <algorithm>
#include <set>

#include "base/text.h"
#include "cpp/device_code.h"
#include "trace/code_scope.h"
#include "trace/trace_internal.h"
#include "trace/walk_bounds.h"

namespace optrace {

const FunctionWalk& WalkFacts::WalkOf(uint32_t fn, const CppFunction& f) {
  WalkCache& cache = Cache();
  // A move keeps the calls' pointers into stub_refs valid: the buffer moves with it.
  return Remember(cache.mu, cache.walks, fn, [&] { return MakeWalk(fn, f); });
}

FunctionWalk WalkFacts::MakeWalk(uint32_t fn, const CppFunction& f) const {
  FunctionWalk w;
  const CppIndex& cpp = ix_.cpp;
  w.holder = DisplayName(f);
  w.native = InNativeCode(cpp.file(f.file));
  w.launches = cpp.LaunchesIn(fn);
  std::vector<uint32_t> macro_calls;
  // The macros the body uses, and those their definitions use in turn
  // (HANDLE_SWITCH_CASE -> HANDLE_CASE -> kernelHistogram1D<<<...>>>).
  const MacroUsesByMacro& nested =
      ix_.Derived<MacroUsesByMacro>("macro-uses-by-macro", [&] { return MacroUsesWithinMacros(cpp); });
  std::vector<uint32_t> uses = cpp.MacroUsesIn(fn);
  std::set<std::string> expanded;
  for (size_t i = 0; i < uses.size() && i < kMacroUsesExpanded; ++i) {
    const CppMacroUse& use = cpp.macro_uses()[uses[i]];
    std::vector<uint32_t> defs = calls_.VisibleMacros(use.macro, use.file, use.line);
    // Each use passes its own arguments (RUN_K(..., mbtopk::launch), then
    // RUN_K(..., sbtopk::launch)): read for every use, the body once.
    if (!defs.empty())
      for (CppCall& c : MacroArgumentCalls(use, defs.front(), fn)) w.macro_argument_calls.push_back(std::move(c));
    if (!expanded.insert(use.macro).second) continue;
    auto inside = [&](uint32_t file, uint32_t line) {
      for (uint32_t d : defs) {
        const CppMacro& m = cpp.macros()[d];
        if (m.file == file && line >= m.line && line <= m.end_line) return true;
      }
      return false;
    };
    for (uint32_t l : cpp.LaunchesInMacro(use.macro)) {
      if (inside(cpp.launches()[l].file, cpp.launches()[l].line)) w.launches.push_back(l);
    }
    for (uint32_t c : cpp.CallsInMacro(use.macro)) {
      if (inside(cpp.calls()[c].file, cpp.calls()[c].line)) macro_calls.push_back(c);
    }
    if (auto it = nested.find(use.macro); it != nested.end()) {
      for (uint32_t inner : it->second) {
        const CppMacroUse& n = cpp.macro_uses()[inner];
        if (inside(n.file, n.line)) uses.push_back(inner);
      }
    }
  }
  // A stub passed by name to a helper (impl_func_cum_ops(self, dim, result,
  // cumsum_stub)) is called inside it: treat the reference as the call.
  w.stub_refs = calls_.StubReferences(f);
  for (uint32_t c : cpp.CallsIn(fn)) w.calls.push_back(&cpp.calls()[c]);
  for (const CppCall& ref : w.stub_refs) w.calls.push_back(&ref);
  for (uint32_t c : macro_calls) w.calls.push_back(&cpp.calls()[c]);
  for (const CppCall& c : w.macro_argument_calls) w.calls.push_back(&c);
  // Only the calls the walk does something with, wherever it stands: most
  // are metadata, member calls, launchers or calls into code the walk does
  // not enter, and FollowCpp would read each of them once per op.
  std::vector<const CppCall*> kept;
  // The body's text: the declarations of member calls' receivers and of
  // operators' operands.
  std::string body;
  if (f.HasBody() && (w.native || !w.calls.empty()))
    body = ix_.Snippet(cpp.file(f.file), static_cast<int>(f.body_begin), static_cast<int>(f.BodyLines()));
  // The body's first line may end the parameter list (`Tensor* rstd) {`):
  // only what follows its '{' is code of the body (blanked, lines kept).
  if (size_t open = body.find('{'); open != std::string::npos)
    for (size_t i = 0; i < open; ++i)
      if (body[i] != '\n') body[i] = ' ';
  const CallFactsReader::BodyScope declarations(calls_, body);
  // Device code calls no aten op (cpp/device_code.h): a __device__ or
  // __global__ function calls none, a GPU lambda in a host function none
  // inside its braces, whatever its operators and calls look like.
  const bool device_function = f.form == DefForm::kGlobalKernel || DeclaresDeviceCode(DeclarationHead(f));
  const auto device_ranges = body.empty() ? std::vector<std::pair<size_t, size_t>>{} : DeviceCodeRanges(body);
  std::vector<std::pair<int, int>> device_lines;  // (line of '{', line of '}'): calls strictly after the '{' line
  for (const auto& [b, e] : device_ranges) {
    int open = static_cast<int>(f.body_begin) + static_cast<int>(std::count(body.begin(), body.begin() + b, '\n'));
    int close = open + static_cast<int>(std::count(body.begin() + b, body.begin() + e, '\n'));
    device_lines.push_back({open, close});
  }
  auto in_device_code = [&](const CppCall& c) {
    if (device_function) return true;
    for (const auto& [open, close] : device_lines) {
      int line = static_cast<int>(c.line);
      if (line > open && line <= close) return true;
      // On the line that opens the lambda: device code when every mention
      // of the callee there is inside it (`[] GPU_LAMBDA(a) { return f(a); }`).
      if (line == open) return MentionsOnlyIn(body, line - static_cast<int>(f.body_begin), c.callee, device_ranges);
    }
    return false;
  };
  if (w.native && !device_function && f.body_end - f.body_begin < kMaxBodyLinesRead) {
    // In a CPU kernel file, values are Vectorized or scalars: a method's or
    // a helper's result there (`(one + (a - b).abs().neg().exp()).log()`) is
    // no evidence of a Tensor, as its member calls are none (trace_calls.cc).
    const bool cpu_kernel_file = IsCpuKernelFile(cpp.file(f.file));
    // Each answer reads the body's declarations: asked once per name (an
    // operand is named again and again in a body).
    TextMap<bool> tensors, numbers;
    auto remembered = [](TextMap<bool>& answers, std::string_view name, auto ask) {
      auto it = answers.find(name);
      if (it == answers.end()) it = answers.emplace(std::string(name), ask()).first;
      return it->second;
    };
    auto is_tensor = [&](std::string_view name) {
      if (cpu_kernel_file && (name.starts_with('.') || name.ends_with("()"))) return false;
      return remembered(tensors, name, [&] { return calls_.IsTensorOperand(f.params, body, name); });
    };
    w.file = f.file;
    int line = static_cast<int>(f.body_begin);
    size_t counted = 0;
    auto is_number = [&](std::string_view name) {
      return remembered(numbers, name, [&] { return ArgumentKind(f.params, body, name) == 'n'; });
    };
    for (OperatorUse& use : OperatorUses(body, true, is_tensor, is_number)) {
      line += static_cast<int>(std::count(body.begin() + counted, body.begin() + use.offset, '\n'));
      counted = use.offset;
      use.line = line;
      if (InRanges(device_ranges, use.offset)) continue;
      w.operator_ops.push_back(std::move(use));
    }
  }
  // Only CUDA code names a __global__ kernel: a C++ file's `compute_mode`
  // argument is its own variable, never TensorModeKernel.cuh's kernel.
  if (w.native && !body.empty() && IsCudaFile(cpp.file(f.file))) {
    // A kernel passed to the code that launches it, or assigned to the
    // function pointer the body launches (auto impl_fptr = k<T, p>; ...
    // impl_fptr<<<...>>>).
    std::vector<std::pair<std::string, uint32_t>> handed = NamesPassedAsArguments(body, f.body_begin);
    for (auto& assigned : NamesAssigned(body, f.body_begin)) handed.push_back(std::move(assigned));
    for (const auto& [name, line] : handed) {
      if (!calls_.DeclaredTypeIn(f.params, body, name).empty()) continue;  // a parameter or local of that name
      for (uint32_t id : cpp.FunctionsNamed(name)) {
        if (cpp.functions()[id].form != DefForm::kGlobalKernel || IsTestFile(cpp.file(cpp.functions()[id].file)))
          continue;
        w.kernel_refs.push_back({id, line});
        break;
      }
    }
  }
  for (const CppCall* c : w.calls) {
    if (in_device_code(*c)) continue;
    CallFacts facts = calls_.ComputeCallFacts(*c, f, body);
    if (!calls_.Matters(facts, *c)) continue;
    kept.push_back(c);
    w.facts.push_back(std::move(facts));
  }
  w.calls = std::move(kept);
  return w;  // no copy: moved or elided, so the pointers into stub_refs hold
}

namespace {

// The parameter names of a function-like #define ("#define RUN_K(A, B) ..."
// -> {"A", "B"}); empty when the text is no such definition.
std::vector<std::string> MacroParameters(std::string_view text, std::string_view name) {
  size_t at = text.find(name);
  if (at == std::string_view::npos || at + name.size() >= text.size() || text[at + name.size()] != '(') return {};
  size_t open = at + name.size(), close = text.find(')', open);
  if (close == std::string_view::npos) return {};
  return SplitTopLevel(text.substr(open + 1, close - open - 1), ',');
}

// The arguments of the first use of `name` in `text` ("RUN_K(x, ns::f);"
// -> {"x", "ns::f"}), or none when its parentheses do not close there.
std::vector<std::string> MacroArguments(std::string_view text, std::string_view name) {
  for (size_t at = text.find(name); at != std::string_view::npos; at = text.find(name, at + 1)) {
    if (at > 0 && IsIdentChar(text[at - 1])) continue;
    size_t open = at + name.size();
    while (open < text.size() && text[open] == ' ') ++open;
    if (open >= text.size() || text[open] != '(') continue;
    int depth = 0;
    for (size_t i = open; i < text.size(); ++i) {
      if (text[i] == '(') ++depth;
      else if (text[i] == ')' && --depth == 0) return SplitTopLevel(text.substr(open + 1, i - open - 1), ',');
    }
    return {};
  }
  return {};
}

// Whether `s` is a name a call can be made through: an identifier, or one
// qualified by namespaces or classes (mbtopk::launch, ::f).
bool IsQualifiedName(std::string_view s) {
  if (StartsWith(s, "::")) s.remove_prefix(2);
  for (size_t at = 0;;) {
    size_t sep = s.find("::", at);
    if (!IsIdentifier(s.substr(at, sep == std::string_view::npos ? std::string_view::npos : sep - at))) return false;
    if (sep == std::string_view::npos) return true;
    at = sep + 2;
  }
}

}  // namespace

std::vector<CppCall> WalkFacts::MacroArgumentCalls(const CppMacroUse& use, uint32_t definition, uint32_t fn) const {
  const CppIndex& cpp = ix_.cpp;
  const CppMacro& m = cpp.macros()[definition];
  std::vector<CppCall> out;
  std::vector<uint32_t> through_parameter;  // calls in the body whose callee may be a parameter
  for (uint32_t c : cpp.CallsInMacro(use.macro)) {
    const CppCall& call = cpp.calls()[c];
    if (call.file == m.file && call.line >= m.line && call.line <= m.end_line && call.kind == CallKind::kPlain)
      through_parameter.push_back(c);
  }
  if (through_parameter.empty()) return out;
  std::vector<std::string> params = MacroParameters(
      ix_.Snippet(cpp.file(m.file), static_cast<int>(m.line), static_cast<int>(m.end_line - m.line + 1)), use.macro);
  // A use may spread over continued lines (CUB_WRAPPER's ten in SegmentReduce.cu).
  constexpr int kUseLines = 16;
  std::vector<std::string> args =
      MacroArguments(ix_.Snippet(cpp.file(use.file), static_cast<int>(use.line), kUseLines), use.macro);
  // A variadic macro (`#define CUB_WRAPPER(func, ...)`) takes its named
  // parameters first and any number of arguments after them.
  const bool variadic = !params.empty() && EndsWith(params.back(), "...");
  if (variadic) params.pop_back();
  if (params.empty() || args.size() < params.size() || (!variadic && args.size() != params.size())) return out;
  for (uint32_t c : through_parameter) {
    const CppCall& call = cpp.calls()[c];
    auto p = std::find(params.begin(), params.end(), call.callee);
    if (p == params.end()) continue;
    const std::string& arg = args[static_cast<size_t>(p - params.begin())];
    if (!IsQualifiedName(arg)) continue;
    CppCall made;
    size_t sep = arg.rfind("::");
    made.callee = sep == std::string::npos ? arg : arg.substr(sep + 2);
    made.qualifier = sep == std::string::npos ? "" : arg.substr(0, sep + 2);
    made.kind = made.qualifier.empty() ? CallKind::kPlain : CallKind::kQualified;
    made.function = static_cast<int32_t>(fn);
    made.file = use.file;
    made.line = use.line;
    out.push_back(std::move(made));
  }
  return out;
}

WalkFacts::WalkCache& WalkFacts::Cache() const {
  if (!cache_) {
    std::string key = "cpp-walk-" + std::to_string(static_cast<int>(opt_.device));
    cache_ = ix_.Derived<std::unique_ptr<WalkCache>>(key, [] { return std::make_unique<WalkCache>(); }).get();
  }
  return *cache_;
}

std::vector<uint32_t> WalkFacts::DefinitionsFor(const std::string& name, const NativeFunction& fn,
                                                const std::string& key, DefForm form) const {
  // Only whether the key is CUDA matters below.
  std::string memo_key = name;
  memo_key += key == "CUDA" ? "\1" : "\2";
  memo_key += static_cast<char>('0' + static_cast<int>(form));
  const NativeFunction* identity = &fn;
  memo_key.append(reinterpret_cast<const char*>(&identity), sizeof(identity));  // the op's identity
  WalkCache& cache = Cache();
  return Remember(cache.mu, cache.definitions, memo_key, [&] { return FindDefinitions(name, fn, key, form); });
}

std::vector<uint32_t> WalkFacts::FindDefinitions(const std::string& name, const NativeFunction& fn,
                                                 const std::string& key, DefForm form) const {
  // The dispatcher's registration calls at::native::<name>: only a definition
  // in at::native itself (not a nested or anonymous namespace: vulkan::ops,
  // xnnpack, flash, a file's own __device__ helpers), in a file the key's
  // builds compile, can be it.
  const std::string device = DeviceOfKey(key);
  std::vector<uint32_t> all;
  for (uint32_t id : ix_.cpp.FunctionsNamed(name)) {
    const CppFunction& f = ix_.cpp.functions()[id];
    if (f.form != form) continue;
    const std::string& file = ix_.cpp.file(f.file);
    if (!StartsWith(file, "aten/src/ATen/") || !BackendFolder(file).empty() || !RunsOnDevice(file, device)) continue;
    LookupScope scope = form == DefForm::kFunction ? ScopeOfFunction(f) : SplitScope(f.qualified);
    bool in_native =
        !scope.anonymous && scope.parts.size() >= 2 && scope.parts[0] == "at" && scope.parts[1] == "native";
    if (!in_native || (form == DefForm::kFunction && scope.parts.size() != 2)) continue;
    all.push_back(id);
  }
  if (all.size() <= 1) return all;
  // Overloads first: the parameter kinds must match the schema's, in order
  // (a file's own helper of the same name -- UpSample.cuh's device max(a, b)
  // -- is never the op's kernel, whichever sources it sits in).
  if (form == DefForm::kFunction) {
    std::string want;
    for (const auto& a : fn.schema.arguments) want += SchemaTypeKind(a.type);
    std::vector<uint32_t> exact, same_arity;
    for (uint32_t id : all) {
      auto params = SplitTopLevel(ix_.cpp.functions()[id].params, ',');
      if (params.size() == 1 && params[0].empty()) params.clear();
      std::string got;
      for (const auto& p : params) got += CppParamKind(p);
      if (got.size() == want.size()) same_arity.push_back(id);
      if (got == want) exact.push_back(id);
    }
    if (!exact.empty()) all = exact;
    else if (!same_arity.empty()) all = same_arity;
  }
  // Then the device: a CUDA kernel lives in CUDA sources when it has its own.
  std::vector<uint32_t> by_device;
  for (uint32_t id : all) {
    bool cuda = IsCudaFile(ix_.cpp.file(ix_.cpp.functions()[id].file));
    if ((key == "CUDA") == cuda) by_device.push_back(id);
  }
  return by_device.empty() ? all : by_device;
}

std::string WalkFacts::DeclarationHead(const CppFunction& f) const {
  // The name's line and the two before it hold a declaration's markers
  // (`template <...>` / `__device__ __forceinline__ T` / `name(`).
  int first = std::max(1, static_cast<int>(f.line) - 2);
  std::string head = ix_.Snippet(ix_.cpp.file(f.file), first, static_cast<int>(f.line) - first + 1);
  size_t name = head.rfind(f.name);
  return name == std::string::npos ? head : head.substr(0, name);
}

}  // namespace optrace
