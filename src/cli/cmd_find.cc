// `optrace find NAME`: everything the C++/CUDA index knows about one symbol
// -- its definitions, dispatch-stub declarations and registrations (as stub
// or as registered target), kernel launches (of it, in it, in a macro of
// that name), TORCH_LIBRARY registrations and callers -- each with file:line.
// It also lists the aten ops of that name, the native_functions.yaml entries
// dispatching to it and its Python definition. The answer is computed in
// lookup/find.h (shared with the MCP `find` tool) over the persistent index.
// An unknown name exits 1 with the closest known names ("did you mean").
#include <unistd.h>

#include <algorithm>
#include <iostream>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/pytorch_paths.h"
#include "cli/cmd_common.h"
#include "cpp/cpp_index.h"
#include "index/index.h"
#include "lookup/find.h"
#include "lookup/find_json.h"
#include "lookup/op.h"
#include "lookup/py.h"
#include "lookup/query.h"

namespace optrace {
namespace {

std::string Loc(const CppIndex& index, uint32_t file, uint32_t line) {
  return index.file(file) + ":" + std::to_string(line);
}

// Where a call or launch sits: "in <qualified function>" or "in #define M".
std::string Context(const CppIndex& index, int32_t function, const std::string& macro) {
  if (function >= 0) return "in " + index.functions()[function].qualified;
  if (!macro.empty()) return "in #define " + macro;
  return "";
}

// Where a macro use sits; outside any function or #define, the use itself
// says what it makes: "at file scope: CREATE_UNARY_TORCH_IMPL_FUNC(acos_out, ...)".
std::string UseContext(const CppIndex& index, const CppMacroUse& u) {
  if (u.function >= 0 || !u.within_macro.empty()) return Context(index, u.function, u.within_macro);
  return "at file scope: " + u.macro + "(" + (u.first_arg.empty() ? "..." : u.first_arg + ", ...") + ")";
}

std::string LaunchText(const CppIndex& index, const CppLaunch& l) {
  std::string s = Loc(index, l.file, l.line) + "  ";
  if (l.kind == LaunchKind::kTripleChevron) {
    s += l.kernel + "<<<>>>";
  } else {
    s += l.launcher + "(" + (l.kernel.empty() ? "" : "\"" + l.kernel + "\"");
    for (size_t i = 0; i < l.functors.size(); ++i) s += (i || !l.kernel.empty() ? ", " : "") + l.functors[i];
    s += ")";
  }
  std::string ctx = Context(index, l.function, l.macro);
  if (!ctx.empty()) s += "  " + ctx;
  return s;
}

// What `find` prints: the shared answer (lookup/find.h) in the shared JSON
// form (lookup/find_json.h) or this command's text; `limit` bounds the
// callers listed, and in JSON every list (0 = all).
struct FindPrint {
  const Index& ix;
  const FindAnswer& found;
  const Checkout& checkout;
  size_t limit;
};

// How many callers the answer lists.
size_t ShownCallers(const FindPrint& print) {
  const size_t all = print.found.callers.size();
  return print.limit == 0 ? all : std::min(print.limit, all);
}

// The JSON is lookup/find_json.h's, the one the MCP `find` tool returns,
// with what the CLI adds: whether it was found and the checkout's facts.
void PrintFindJson(const FindPrint& print) {
  nlohmann::ordered_json j = {{"found", print.found.found()}, {"checkout", print.checkout.root}};
  j.update(FindJson(print.ix, print.found, print.limit));
  j["source"] = SourceJson(print.checkout);  // the version facts (cmd_common.h)
  std::cout << j.dump(2) << "\n";
}

void PrintFindText(const FindPrint& print) {
  const CppIndex& index = print.ix.cpp;
  const FindAnswer& found = print.found;

  const size_t shown_callers = ShownCallers(print);

  auto section = [](const char* title, size_t n) {
    if (n) std::cout << title << " (" << n << "):\n";
  };
  section("aten ops", found.ops.size());
  for (const NativeFunction* f : found.ops)
    std::cout << "  " << kNativeFunctionsPath << ":" << f->line << "  " << OpSchemaText(*f) << "\n";
  section("dispatched to by native_functions.yaml", found.dispatch.size());
  for (const auto& [f, key] : found.dispatch)
    std::cout << "  " << kNativeFunctionsPath << ":" << f->line << "  " << f->name << " [" << key << "]\n";
  section("python", found.python.size());
  for (const PySymbol& p : found.python) {
    PyLocation l = LocatePython(print.ix.py, p);
    std::cout << "  " << l.path << (l.line ? ":" + std::to_string(l.line) : "") << "  " << PythonKindName(p.kind) << " "
              << print.ix.py.NameOf(p) << "\n";
  }
  section("definitions", found.definitions.size());
  for (uint32_t i : found.definitions) {
    const CppFunction& f = index.functions()[i];
    std::cout << "  " << Loc(index, f.file, f.line) << "  ";
    if (f.form != DefForm::kFunction) std::cout << DefFormName(f.form) << " ";
    if (f.is_template) std::cout << "template ";
    std::cout << (f.return_type.empty() ? "" : f.return_type + " ") << f.qualified << "(" << f.params << ")"
              << "  [body " << f.body_begin << "-" << f.body_end << "]\n";
  }
  section("dispatch stub declarations", found.stub_decls.size());
  for (uint32_t i : found.stub_decls) {
    const StubDecl& d = index.stub_decls()[i];
    std::cout << "  " << Loc(index, d.file, d.line) << "  "
              << (d.kind == StubDeclKind::kDeclare ? "DECLARE_DISPATCH(" + d.type + ", " + d.stub + ")"
                                                   : "DEFINE_DISPATCH(" + d.stub + ")")
              << "\n";
  }
  auto print_reg = [&](const StubRegistration& r) {
    std::cout << "  " << Loc(index, r.file, r.line) << "  " << r.macro << " " << r.stub << " -> "
              << (r.target.empty() ? "(none)" : r.target_written) << "  [" << r.device
              << (r.arch.empty() ? "" : " " + r.arch) << "]\n";
  };
  section("stub registrations", found.stub_registrations.size());
  for (uint32_t i : found.stub_registrations) print_reg(index.registrations()[i]);
  section("registered as a stub's kernel", found.registered_as_target.size());
  for (uint32_t i : found.registered_as_target) print_reg(index.registrations()[i]);
  section("launches of this kernel", found.launches_of.size());
  for (uint32_t i : found.launches_of) std::cout << "  " << LaunchText(index, index.launches()[i]) << "\n";
  section("launches in its body", found.launches_in.size());
  for (uint32_t i : found.launches_in) std::cout << "  " << LaunchText(index, index.launches()[i]) << "\n";
  section("macro definitions", found.macros.size());
  for (uint32_t i : found.macros) {
    const CppMacro& m = index.macros()[i];
    std::cout << "  " << Loc(index, m.file, m.line) << "  #define " << m.name << (m.function_like ? "(...)" : "")
              << "  [lines " << m.line << "-" << m.end_line << "]\n";
  }
  section("launches in the macro", found.macro_launches.size());
  for (uint32_t i : found.macro_launches) std::cout << "  " << LaunchText(index, index.launches()[i]) << "\n";
  section("macro used at", found.macro_uses.size());
  for (uint32_t i : found.macro_uses) {
    const CppMacroUse& u = index.macro_uses()[i];
    std::cout << "  " << Loc(index, u.file, u.line) << "  " << UseContext(index, u) << "\n";
  }
  section("TORCH_LIBRARY registrations", found.library_registrations.size());
  for (uint32_t i : found.library_registrations) {
    const LibraryRegistration& r = index.library_registrations()[i];
    std::cout << "  " << Loc(index, r.file, r.line) << "  " << r.block << "(" << r.ns
              << (r.key.empty() ? "" : ", " + r.key) << "): " << (r.is_def ? "def " : "impl ") << r.op << "\n";
  }
  section("callers", found.callers.size());
  for (size_t k = 0; k < shown_callers; ++k) {
    const CppCall& c = index.calls()[found.callers[k]];
    std::cout << "  " << Loc(index, c.file, c.line) << "  " << c.qualifier << c.callee << "(...)  "
              << Context(index, c.function, c.macro) << "\n";
  }
  if (shown_callers < found.callers.size())
    std::cout << "  ... " << found.callers.size() - shown_callers << " more (--limit 0 lists all)\n";
}

}  // namespace

int CmdFind(int argc, char** argv) {
  CLI::App app{"List what the C++/CUDA index knows about a symbol, with file:line", "optrace find"};
  std::string source, name;
  bool as_json = false;
  size_t limit = 40;
  AddSourceFlag(app, &source);
  app.add_option("name", name, "function, kernel, dispatch stub or macro name (a::b::f looks up f)")->required();
  app.add_flag("--json", as_json, "print JSON");
  app.add_option("--limit", limit, "callers to list, in --json items per list (default 40; 0 = all)");
  int rc = 0;
  if (!ParseOrReport(app, argc, argv, &rc)) return rc;
  if (Status s = CheckQuery(name); !s.ok()) return Report(s);
  Checkout checkout;
  if (!OpenCheckoutOrReport(source, &checkout, &rc)) return rc;
  // The persistent index, kept for the life of the process (freeing a mapped
  // image costs more than the exit).
  auto* loaded = new Index;
  LoadOptions load;
  load.progress = ::isatty(STDERR_FILENO);
  if (Status s = LoadIndex(checkout, load, loaded); !s.ok()) return Report(s);
  FindAnswer found = FindName(*loaded, name);

  FindPrint what{*loaded, found, checkout, limit};
  if (!found.found()) {
    if (as_json) {
      PrintFindJson(what);  // "found": false, the empty lists and the suggestions
    } else {
      std::cerr << "optrace: no C++ symbol, aten op or Python name '" << name << "' in " << checkout.root << "\n";
      if (!found.suggestions.empty()) {
        std::cerr << "did you mean:";
        for (const auto& s : found.suggestions) std::cerr << " " << s;
        std::cerr << "\n";
      }
    }
    return static_cast<int>(ExitCode::kNotFound);
  }
  if (as_json) {
    PrintFindJson(what);
  } else {
    std::cout << WarningHeader(checkout);
    PrintFindText(what);
  }
  return 0;
}

}  // namespace optrace
