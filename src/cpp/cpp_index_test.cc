// CppIndex tests: merging and lookups on a MemoryDisk tree, then facts about
// the real PyTorch 2.6.0 and 1.13.1 trees, each checked by hand against the
// file (sed -n 'Np'), and whole-tree scans of both.
#include "cpp/cpp_index.h"

#include <algorithm>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <sstream>

#include <gtest/gtest.h>

#include "cpp/cpp_index_writer.h"

#include "testing/test_util.h"

namespace optrace {
namespace {

// One index per real tree, built once for all tests of the binary.
const CppIndex& TreeIndex(const std::string& version) {
  static std::mutex mu;
  static std::map<std::string, std::unique_ptr<CppIndex>> cache;
  std::lock_guard<std::mutex> lock(mu);
  auto& slot = cache[version];
  if (!slot) {
    RealDisk disk(CorpusTree(version));
    slot = std::make_unique<CppIndex>(CppIndex::Build(disk));
  }
  return *slot;
}

// The only function named `name` defined in `path`, or -1.
int32_t FunctionIn(const CppIndex& index, std::string_view name, std::string_view path) {
  int32_t found = -1;
  for (uint32_t i : index.FunctionsNamed(name)) {
    if (index.file(index.functions()[i].file) != path) continue;
    if (found != -1) return -2;  // ambiguous
    found = static_cast<int32_t>(i);
  }
  return found;
}

std::string Where(const CppIndex& index, uint32_t file, uint32_t line) {
  return index.file(file) + ":" + std::to_string(line);
}

// The id of the indexed file `path`, or UINT32_MAX.
uint32_t FileId(const CppIndex& index, std::string_view path) {
  for (uint32_t i = 0; i < index.files().size(); ++i)
    if (index.file(i) == path) return i;
  return UINT32_MAX;
}

// "" when the two scans are equal, else the first difference: "calls[12] (line 40 vs 41)".
std::string FirstDifference(const CppFileRecords& got, const CppFileRecords& want) {
  std::string out;
  auto check = [&](const char* kind, const auto& a, const auto& b) {
    if (!out.empty()) return;
    for (size_t i = 0; i < std::min(a.size(), b.size()); ++i) {
      if (a[i] == b[i]) continue;
      out = std::string(kind) + "[" + std::to_string(i) + "]";
      if constexpr (requires { a[i].line; })
        out += " (line " + std::to_string(a[i].line) + " vs " + std::to_string(b[i].line) + ")";
      return;
    }
    if (a.size() != b.size())
      out = std::string(kind) + ": " + std::to_string(a.size()) + " records vs " + std::to_string(b.size());
  };
  check("functions", got.functions, want.functions);
  check("stub_decls", got.stub_decls, want.stub_decls);
  check("registrations", got.registrations, want.registrations);
  check("launches", got.launches, want.launches);
  check("calls", got.calls, want.calls);
  check("macros", got.macros, want.macros);
  check("macro_uses", got.macro_uses, want.macro_uses);
  check("library_registrations", got.library_registrations, want.library_registrations);
  check("dtype_dispatches", got.dtype_dispatches, want.dtype_dispatches);
  check("stub_refs", got.stub_refs, want.stub_refs);
  check("string_constants", got.string_constants, want.string_constants);
  check("enum_members", got.enum_members, want.enum_members);
  if (out.empty() && !(got == want)) out = "a difference the checks above miss";
  return out;
}

// An index merged from `index`'s RecordsOf of every file -- or, for the
// files in `replaced` (file id -> records), those -- as the store rebuilds one
// after a partial update.
CppIndex Remerged(const CppIndex& index, const std::map<uint32_t, CppFileRecords>& replaced = {}) {
  CppIndex out;
  CppIndexWriter writer(&out);
  for (const CppSkipped& s : index.skipped()) writer.AddSkipped(s.path, s.reason);
  for (uint32_t id = 0; id < index.files().size(); ++id) {
    auto it = replaced.find(id);
    writer.AddFile(index.file(id), it != replaced.end() ? it->second : index.RecordsOf(id));
  }
  writer.Finish();
  return out;
}

// A layer over `base` holding `files` (file id -> records as now scanned).
void MakeLayer(const CppIndex& base, const std::map<uint32_t, CppFileRecords>& files, CppIndex* layer) {
  CppIndexWriter writer(layer);
  writer.BeginLayer(base);
  for (const auto& [id, records] : files) writer.AddLayerFile(id, base.file(id), records);
  writer.FinishLayer(base);
}

// Every list a consumer sees is the same.
void ExpectSameIndex(const CppIndex& a, const CppIndex& b) {
  EXPECT_EQ(a.files(), b.files());
  EXPECT_TRUE(a.functions() == b.functions());
  EXPECT_TRUE(a.stub_decls() == b.stub_decls());
  EXPECT_TRUE(a.registrations() == b.registrations());
  EXPECT_TRUE(a.launches() == b.launches());
  EXPECT_TRUE(a.calls() == b.calls());
  EXPECT_TRUE(a.macros() == b.macros());
  EXPECT_TRUE(a.macro_uses() == b.macro_uses());
  EXPECT_TRUE(a.library_registrations() == b.library_registrations());
  EXPECT_TRUE(a.dtype_dispatches() == b.dtype_dispatches());
  EXPECT_TRUE(a.stub_refs() == b.stub_refs());
  ASSERT_EQ(a.skipped().size(), b.skipped().size());
  for (size_t i = 0; i < a.skipped().size(); ++i) {
    EXPECT_EQ(a.skipped()[i].path, b.skipped()[i].path);
    EXPECT_EQ(a.skipped()[i].reason, b.skipped()[i].reason);
  }
}

// ----------------------------------------------------------------- layers

// Records of two indexes compared across their id spaces: a record's
// `function` becomes the function's position in the index's file-ordered
// list of functions, the same in both when the indexes agree.
class Normalizer {
 public:
  explicit Normalizer(const CppIndex& index) : index_(index) {
    const auto functions = index.functions();
    uint32_t ordinal = 0;
    for (auto it = functions.begin(); it != functions.end(); ++it) ordinal_[it.id()] = ordinal++;
  }
  template <typename T>
  T operator()(T record) const {
    if constexpr (requires { record.function = 0; }) {
      if (record.function >= 0)
        record.function = static_cast<int32_t>(ordinal_.at(static_cast<uint32_t>(record.function)));
    }
    return record;
  }
  template <typename T>
  std::vector<T> All(const RecordList<T>& list) const {
    std::vector<T> out;
    for (const T& r : list) out.push_back((*this)(r));
    EXPECT_EQ(out.size(), list.size());
    return out;
  }
  template <typename T>
  std::vector<T> Some(const RecordList<T>& list, const std::vector<uint32_t>& ids) const {
    std::vector<T> out;
    for (uint32_t id : ids) out.push_back((*this)(list[id]));
    return out;
  }
  // The id of the function at `ordinal`.
  uint32_t FunctionId(uint32_t ordinal) const {
    for (const auto& [id, o] : ordinal_)
      if (o == ordinal) return id;
    return UINT32_MAX;
  }

 private:
  const CppIndex& index_;
  std::map<uint32_t, uint32_t> ordinal_;
};

// `layered` (an index with a layer) answers every question as `full` (the
// edited tree's index built in one go) does: every list, every lookup by the
// names in `names`, every lookup by the functions of the files in `files`.
void ExpectSameAnswers(const CppIndex& layered, const CppIndex& full, const std::set<std::string>& names,
                       const std::vector<uint32_t>& files) {
  Normalizer nl(layered), nf(full);
  EXPECT_EQ(layered.files(), full.files());
  EXPECT_TRUE(nl.All(layered.functions()) == nf.All(full.functions()));
  EXPECT_TRUE(nl.All(layered.stub_decls()) == nf.All(full.stub_decls()));
  EXPECT_TRUE(nl.All(layered.registrations()) == nf.All(full.registrations()));
  EXPECT_TRUE(nl.All(layered.launches()) == nf.All(full.launches()));
  EXPECT_TRUE(nl.All(layered.calls()) == nf.All(full.calls()));
  EXPECT_TRUE(nl.All(layered.macros()) == nf.All(full.macros()));
  EXPECT_TRUE(nl.All(layered.macro_uses()) == nf.All(full.macro_uses()));
  EXPECT_TRUE(nl.All(layered.library_registrations()) == nf.All(full.library_registrations()));
  EXPECT_TRUE(nl.All(layered.dtype_dispatches()) == nf.All(full.dtype_dispatches()));
  EXPECT_TRUE(nl.All(layered.stub_refs()) == nf.All(full.stub_refs()));
  EXPECT_TRUE(layered.Counts() == full.Counts());
  // Iteration's ids name the records iterated, and stay below id_end().
  auto ids_name_records = [](const auto& list) {
    for (auto it = list.begin(); it != list.end(); ++it) {
      EXPECT_LT(it.id(), list.id_end());
      EXPECT_TRUE(list[it.id()] == *it);
    }
  };
  ids_name_records(layered.functions());
  ids_name_records(layered.launches());
  ids_name_records(layered.macro_uses());
  ids_name_records(layered.stub_refs());
  ids_name_records(layered.dtype_dispatches());
  for (const std::string& name : names) {
    auto same = [&](const char* what, auto list_l, auto list_f, const std::vector<uint32_t>& ids_l,
                    const std::vector<uint32_t>& ids_f) {
      EXPECT_TRUE(nl.Some(list_l, ids_l) == nf.Some(list_f, ids_f)) << what << "(" << name << ")";
    };
    same("FunctionsNamed", layered.functions(), full.functions(), layered.FunctionsNamed(name),
         full.FunctionsNamed(name));
    same("StubDeclsNamed", layered.stub_decls(), full.stub_decls(), layered.StubDeclsNamed(name),
         full.StubDeclsNamed(name));
    same("RegistrationsOf", layered.registrations(), full.registrations(), layered.RegistrationsOf(name),
         full.RegistrationsOf(name));
    same("LaunchesInMacro", layered.launches(), full.launches(), layered.LaunchesInMacro(name),
         full.LaunchesInMacro(name));
    same("LaunchesOfKernel", layered.launches(), full.launches(), layered.LaunchesOfKernel(name),
         full.LaunchesOfKernel(name));
    same("CallsInMacro", layered.calls(), full.calls(), layered.CallsInMacro(name), full.CallsInMacro(name));
    same("CallersOf", layered.calls(), full.calls(), layered.CallersOf(name), full.CallersOf(name));
    same("MacrosNamed", layered.macros(), full.macros(), layered.MacrosNamed(name), full.MacrosNamed(name));
    same("MacroUsesOf", layered.macro_uses(), full.macro_uses(), layered.MacroUsesOf(name), full.MacroUsesOf(name));
    same("LibraryRegistrationsOf", layered.library_registrations(), full.library_registrations(),
         layered.LibraryRegistrationsOf(name), full.LibraryRegistrationsOf(name));
  }
  // Lookups by function and by place, for every function of the edited files and their neighbours.
  std::set<uint32_t> near;
  for (uint32_t f : files)
    for (uint32_t g = f > 0 ? f - 1 : 0; g <= f + 1 && g < full.files().size(); ++g) near.insert(g);
  uint32_t ordinal = 0;
  for (const CppFunction& f : full.functions()) {
    const uint32_t mine = ordinal++;
    if (!near.count(f.file)) continue;
    const uint32_t idf = nf.FunctionId(mine), idl = nl.FunctionId(mine);
    ASSERT_NE(idl, UINT32_MAX);
    EXPECT_TRUE(nl.Some(layered.launches(), layered.LaunchesIn(idl)) == nf.Some(full.launches(), full.LaunchesIn(idf)));
    EXPECT_TRUE(nl.Some(layered.calls(), layered.CallsIn(idl)) == nf.Some(full.calls(), full.CallsIn(idf)));
    EXPECT_TRUE(nl.Some(layered.macro_uses(), layered.MacroUsesIn(idl)) ==
                nf.Some(full.macro_uses(), full.MacroUsesIn(idf)));
    EXPECT_TRUE(nl.Some(layered.dtype_dispatches(), layered.DtypeDispatchesIn(idl)) ==
                nf.Some(full.dtype_dispatches(), full.DtypeDispatchesIn(idf)));
    EXPECT_TRUE(nl.Some(layered.stub_refs(), layered.StubReferencesIn(f.file, f.body_begin, f.body_end)) ==
                nf.Some(full.stub_refs(), full.StubReferencesIn(f.file, f.body_begin, f.body_end)));
    const int32_t at_l = layered.FunctionAt(f.file, f.body_begin), at_f = full.FunctionAt(f.file, f.body_begin);
    ASSERT_EQ(at_l < 0, at_f < 0);
    if (at_l >= 0) EXPECT_TRUE(nl(layered.functions()[at_l]) == nf(full.functions()[at_f]));
  }
  // Every file's records as scanned (set-aside uses and references, unfilled
  // jiterator names), its stub references and the function at each of its
  // lines; every constant by every name, from every file.
  for (uint32_t f = 0; f < full.files().size(); ++f) {
    const CppFileRecords rl = layered.RecordsOf(f), rf = full.RecordsOf(f);
    EXPECT_TRUE(rl == rf) << full.file(f);
    EXPECT_TRUE(nl.Some(layered.stub_refs(), layered.StubReferencesIn(f, 0, UINT32_MAX)) ==
                nf.Some(full.stub_refs(), full.StubReferencesIn(f, 0, UINT32_MAX)))
        << full.file(f);
    uint32_t last_line = 0;
    for (const CppFunction& fn : rf.functions) last_line = std::max(last_line, fn.body_end + 1);
    for (uint32_t line = 0; line <= last_line; ++line) {
      const int32_t at_l = layered.FunctionAt(f, line), at_f = full.FunctionAt(f, line);
      ASSERT_EQ(at_l < 0, at_f < 0) << full.file(f) << ":" << line;
      if (at_l >= 0) EXPECT_TRUE(nl(layered.functions()[at_l]) == nf(full.functions()[at_f]));
    }
    std::set<std::string> constants(names.begin(), names.end());
    for (const auto& [n, v] : rf.string_constants) constants.insert(n);
    for (const CppLaunch& l : rf.launches) constants.insert(l.kernel_name_ref);
    for (const std::string& n : constants) {
      const std::string *cl_value = layered.StringConstant(f, n), *cf_value = full.StringConstant(f, n);
      ASSERT_EQ(cl_value == nullptr, cf_value == nullptr) << full.file(f) << " " << n;
      if (cl_value) EXPECT_EQ(*cl_value, *cf_value);
    }
  }
  // An unknown file id: no records, no references, no function (and no
  // read past the layer's per-file flags: caught with -D_GLIBCXX_ASSERTIONS).
  const uint32_t unknown = static_cast<uint32_t>(full.files().size());
  EXPECT_EQ(layered.RecordsOf(unknown), CppFileRecords{});
  EXPECT_TRUE(layered.StubReferencesIn(unknown, 0, UINT32_MAX).empty());
  EXPECT_EQ(layered.FunctionAt(unknown, 1), -1);
}

// Every name a file's records mention.
void AddNames(const CppFileRecords& r, std::set<std::string>* names) {
  for (const auto& f : r.functions) names->insert(f.name);
  for (const auto& d : r.stub_decls) names->insert(d.stub);
  for (const auto& g : r.registrations) names->insert(g.stub);
  for (const auto& l : r.launches) {
    names->insert(l.kernel);
    names->insert(l.macro);
  }
  for (const auto& c : r.calls) {
    names->insert(c.callee);
    names->insert(c.macro);
  }
  for (const auto& m : r.macros) names->insert(m.name);
  for (const auto& u : r.macro_uses) names->insert(u.macro);
  for (const auto& g : r.library_registrations) names->insert(g.function);
}

// A layer of `edits` (path -> new text) over `base`, and the index of the
// edited tree built in one go; then ExpectSameAnswers.
void ExpectLayerAnswersAsARebuild(const CppIndex& base, const std::map<std::string, std::string>& edits,
                                  std::set<std::string> names) {
  std::map<uint32_t, CppFileRecords> edited;
  for (const auto& [path, text] : edits) {
    uint32_t id = FileId(base, path);
    ASSERT_NE(id, UINT32_MAX) << path;
    edited[id] = ScanCppFile(path, text);
    ASSERT_TRUE(SameCrossFileFacts(base.RecordsOf(id), edited[id])) << path;
    AddNames(base.RecordsOf(id), &names);
    AddNames(edited[id], &names);
  }
  CppIndex layer;
  MakeLayer(base, edited, &layer);
  CppIndex layered = base;
  ASSERT_TRUE(layered.SetLayer(&layer));
  EXPECT_TRUE(layered.Replaced(edited.begin()->first));

  const CppIndex full = Remerged(base, edited);
  std::vector<uint32_t> ids;
  for (const auto& e : edited) ids.push_back(e.first);
  ExpectSameAnswers(layered, full, names, ids);
}

TEST(CppIndexLayer, CrossFileFactsAreTheDefinedMacrosStubsAndConstants) {
  const CppFileRecords a = ScanCppFile("aten/src/ATen/native/cuda/A.cu",
                                       "#define LAUNCH(x) x<<<1, 1>>>()\n"
                                       "DECLARE_DISPATCH(fn_t, a_stub);\n"
                                       "constexpr char a_name[] = \"a_kernel\";\n"
                                       "void f() { g(); }\n");
  // Other calls, other lines: the same facts.
  EXPECT_TRUE(SameCrossFileFacts(a, ScanCppFile("aten/src/ATen/native/cuda/A.cu",
                                                "\n#define LAUNCH(x) x<<<1, 1>>>()\n"
                                                "DECLARE_DISPATCH(fn_t, a_stub);\n"
                                                "constexpr char a_name[] = \"a_kernel\";\n"
                                                "void f() { h(); k(); }\n")));
  for (const char* other : {"#define LAUNCH2(x) x<<<1, 1>>>()\nDECLARE_DISPATCH(fn_t, a_stub);\n"
                            "constexpr char a_name[] = \"a_kernel\";\n",
                            "#define LAUNCH(x) x<<<1, 1>>>()\nDECLARE_DISPATCH(fn_t, b_stub);\n"
                            "constexpr char a_name[] = \"a_kernel\";\n",
                            "#define LAUNCH(x) x<<<1, 1>>>()\nDECLARE_DISPATCH(fn_t, a_stub);\n"
                            "constexpr char a_name[] = \"b_kernel\";\n"})
    EXPECT_FALSE(SameCrossFileFacts(a, ScanCppFile("aten/src/ATen/native/cuda/A.cu", other))) << other;
}

// A layered file uses a macro, a stub and a jiterator name of files it does
// not replace; a file it does not replace calls into it.
TEST(CppIndexLayer, InMemoryEditAnswersAsARebuild) {
  MemoryDisk disk;
  disk.Add("aten/src/ATen/native/cuda/Defs.cuh",
           "#define LAUNCH_IT(k) k<<<1, 1>>>(nullptr)\n"
           "DECLARE_DISPATCH(fn_t, frob_stub);\n"
           "constexpr char frob_name[] = \"frob_kernel\";\n");
  disk.Add("aten/src/ATen/native/cuda/Frob.cu",
           "namespace at::native {\n"
           "__global__ void frob_k(float* x) {}\n"
           "void frob_cuda(TensorIterator& iter) {\n"
           "  LAUNCH_IT(frob_k);\n"
           "  jitted_gpu_kernel<frob_name, float, float, 1>(iter, \"\");\n"
           "}\n"
           "REGISTER_DISPATCH(frob_stub, &frob_cuda);\n"
           "}\n");
  disk.Add("aten/src/ATen/native/Use.cpp",
           "namespace at::native {\n"
           "void use(TensorIterator& iter) { frob_cuda(iter); frob_stub(kCPU, iter); }\n"
           "}\n");
  CppIndex base = CppIndex::Build(disk, 1);
  ExpectLayerAnswersAsARebuild(
      base,
      {{"aten/src/ATen/native/cuda/Frob.cu",
        "namespace at::native {\n"
        "\n"
        "__global__ void frob_k(float* x) {}\n"
        "__global__ void frob_k2(float* x) {}\n"
        "void frob_helper() { at::relu(x); }\n"
        "void frob_cuda(TensorIterator& iter) {\n"
        "  LAUNCH_IT(frob_k2);\n"
        "  frob_helper();\n"
        "  jitted_gpu_kernel<frob_name, float, float, 1>(iter, \"\");\n"
        "  auto s = frob_stub;\n"
        "}\n"
        "REGISTER_DISPATCH(frob_stub, &frob_cuda);\n"
        "}\n"}},
      {"frob_cuda", "frob_helper", "relu", "LAUNCH_IT", "frob_k", "frob_k2", "frob_kernel", "frob_stub", "use"});
  // The layered jiterator launch found its name in Defs.cuh, as a rebuild does.
  uint32_t frob = FileId(base, "aten/src/ATen/native/cuda/Frob.cu");
  std::string text;
  ASSERT_TRUE(disk.ReadFile("aten/src/ATen/native/cuda/Frob.cu", &text).ok());
  CppIndex layer;
  MakeLayer(base, {{frob, ScanCppFile(base.file(frob), "\n" + text)}}, &layer);
  CppIndex layered = base;
  ASSERT_TRUE(layered.SetLayer(&layer));
  auto jit = std::find_if(layered.launches().begin(), layered.launches().end(),
                          [](const CppLaunch& l) { return l.kind == LaunchKind::kJiterator; });
  ASSERT_NE(jit, layered.launches().end());
  EXPECT_EQ(jit->kernel, "frob_kernel");
  EXPECT_EQ(jit->line, 6u);
  EXPECT_GE(jit.id(), base.launches().size());  // the layer's
  // A layer built over an index of another shape is refused.
  CppIndex other = CppIndex::Build(MemoryDisk(), 1);
  EXPECT_FALSE(other.SetLayer(&layer));
}

// A small tree for edge cases: the first file (A.cpp) and the last (Z.cu)
// hold records of most kinds, set-aside macro uses and stub references
// among them; Defs.h defines the macro, stub and constants others use;
// Empty.cpp has no records; only D.cu has a dtype dispatch.
MemoryDisk LayerEdgeTree() {
  MemoryDisk disk;
  disk.Add("aten/src/ATen/native/A.cpp",
           "namespace at::native {\n"
           "void a_first(TensorIterator& iter) {\n"
           "  LAUNCH_IT(k_a);\n"
           "  NOT_A_MACRO(iter);\n"
           "  call_it(iter, frob_stub, nobody_stub);\n"
           "  helper_d(iter);\n"
           "}\n"
           "TORCH_LIBRARY_IMPL(aten, CPU, m) { m.impl(\"a_first\", TORCH_FN(a_first)); }\n"
           "}\n");
  disk.Add("aten/src/ATen/native/Defs.h",
           "#define LAUNCH_IT(k) k<<<1, 1>>>(nullptr)\n"
           "DECLARE_DISPATCH(fn_t, frob_stub);\n"
           "constexpr char frob_name[] = \"frob_kernel\";\n");
  disk.Add("aten/src/ATen/native/Empty.cpp", "// nothing yet\n");
  disk.Add("aten/src/ATen/native/Reg.cpp",
           "namespace at::native {\n"
           "void reg_impl(TensorIterator& iter) { frob_stub(kCPU, iter); }\n"
           "REGISTER_DISPATCH(frob_stub, &reg_impl);\n"
           "}\n");
  disk.Add("aten/src/ATen/native/cuda/D.cu",
           "namespace at::native {\n"
           "void helper_d(TensorIterator& iter) {\n"
           "  AT_DISPATCH_FLOATING_TYPES(iter.dtype(), \"helper_d\", [&] {\n"
           "    jitted_gpu_kernel<frob_name, float, float, 1>(iter, \"\");\n"
           "  });\n"
           "}\n"
           "}\n");
  disk.Add("aten/src/ATen/native/cuda/Z.cu",
           "namespace at::native {\n"
           "__global__ void k_z(float* x) {}\n"
           "void z_last(TensorIterator& iter) {\n"
           "  LAUNCH_IT(k_z);\n"
           "  OTHER_CAPS(iter);\n"
           "  jitted_gpu_kernel<frob_name, float, float, 1>(iter, \"\");\n"
           "  auto s = &frob_stub;\n"
           "  auto n = &stray_stub;\n"
           "}\n"
           "}\n");
  return disk;
}

struct LayerEdgeCase {
  const char* name;
  std::map<std::string, std::string> edits;  // path -> new text
};

// Edits at the edges: first and last file ids, adjacent files, every file,
// a file losing all its records and one gaining its first, a kind (dtype
// dispatches) only the layer has or only the base has, set-aside records in
// the layer, jiterator names both ways between layer and base.
TEST(CppIndexLayer, EdgeCasesAnswerAsARebuild) {
  const MemoryDisk disk = LayerEdgeTree();
  const CppIndex base = CppIndex::Build(disk, 1);
  ASSERT_EQ(base.files().size(), 6u);
  // The tree has what the cases are about: set-aside macro uses and stub
  // references, jiterator names filled from Defs.h, one dtype dispatch.
  EXPECT_EQ(base.RecordsOf(0).macro_uses.size(), 2u);
  EXPECT_EQ(base.MacroUsesOf("NOT_A_MACRO").size(), 0u);
  EXPECT_EQ(base.RecordsOf(0).stub_refs.size(), 2u);
  EXPECT_EQ(base.stub_refs().size(), 4u);  // frob_stub only: Defs.h, A.cpp, Reg.cpp, Z.cu
  size_t filled = 0;
  for (const CppLaunch& l : base.launches()) filled += l.kernel_from_index && l.kernel == "frob_kernel";
  EXPECT_EQ(filled, 2u);
  EXPECT_EQ(base.dtype_dispatches().size(), 1u);
  auto text = [&](const char* path) {
    std::string t;
    EXPECT_TRUE(disk.ReadFile(path, &t).ok()) << path;
    return t;
  };
  const std::string a = "aten/src/ATen/native/A.cpp", defs = "aten/src/ATen/native/Defs.h",
                    empty = "aten/src/ATen/native/Empty.cpp", reg = "aten/src/ATen/native/Reg.cpp",
                    d = "aten/src/ATen/native/cuda/D.cu", z = "aten/src/ATen/native/cuda/Z.cu";
  const std::string new_fn =
      "namespace at::native {\n"
      "void fresh(TensorIterator& iter) {\n"
      "  LAUNCH_IT(k_fresh);\n"
      "  NOT_A_MACRO(iter);\n"
      "  AT_DISPATCH_ALL_TYPES(iter.dtype(), \"fresh\", [&] { jitted_gpu_kernel<frob_name, float>(iter, \"\"); });\n"
      "  g(frob_stub, lost_stub);\n"
      "}\n"
      "}\n";
  const std::vector<LayerEdgeCase> cases = {
      {"first file", {{a, "\n\n" + text(a.c_str())}}},
      {"last file", {{z, "// moved\n" + text(z.c_str())}}},
      {"first and last", {{a, "\n" + text(a.c_str())}, {z, "\n" + text(z.c_str())}}},
      {"adjacent", {{defs, "\n" + text(defs.c_str()) + "void in_defs() { LAUNCH_IT(k_defs); }\n"}, {empty, new_fn}}},
      {"records vanish", {{reg, "// gone\n"}, {a, "// gone too\n"}}},
      {"first records of an empty file", {{empty, new_fn}}},
      {"only dtype dispatch dropped", {{d, "namespace at::native {\nvoid helper_d(TensorIterator& iter) {}\n}\n"}}},
      {"dtype dispatches only in the layer",
       {{d, "namespace at::native {\nvoid helper_d(TensorIterator& iter) {}\n}\n"}, {z, new_fn}}},
      {"constants file kept, users edited", {{defs, "// x\n" + text(defs.c_str())}, {z, "\n" + text(z.c_str())}}},
      {"every file",
       {{a, "\n" + text(a.c_str())},
        {defs, "\n" + text(defs.c_str())},
        {empty, new_fn},
        {reg, "\n" + text(reg.c_str())},
        {d, "\n" + text(d.c_str())},
        {z, "\n" + text(z.c_str())}}},
  };
  for (const LayerEdgeCase& c : cases) {
    SCOPED_TRACE(c.name);
    ExpectLayerAnswersAsARebuild(
        base, c.edits,
        {"LAUNCH_IT", "NOT_A_MACRO", "OTHER_CAPS", "frob_stub", "nobody_stub", "stray_stub", "lost_stub", "frob_name",
         "frob_kernel", "helper_d", "k_a", "k_z", "k_fresh", "a_first", "z_last", "fresh", "reg_impl"});
  }
}

// A second layer over an index that has one, as the store builds it: the
// old layer's files come back through RecordsOf, the newly edited ones are
// scanned; the result answers as a rebuild, and its Counts size a rebuild
// exactly.
TEST(CppIndexLayer, ASecondLayerKeepsTheFirstLayersFiles) {
  const MemoryDisk disk = LayerEdgeTree();
  const CppIndex base = CppIndex::Build(disk, 1);
  auto edited_text = [&](const std::string& path, const std::string& prefix) {
    std::string t;
    EXPECT_TRUE(disk.ReadFile(path, &t).ok()) << path;
    return ScanCppFile(path, prefix + t);
  };
  const uint32_t a = FileId(base, "aten/src/ATen/native/A.cpp"), z = FileId(base, "aten/src/ATen/native/cuda/Z.cu"),
                 reg = FileId(base, "aten/src/ATen/native/Reg.cpp");
  CppIndex first;
  MakeLayer(base, {{a, edited_text(base.file(a), "\n")}, {z, edited_text(base.file(z), "\n\n")}}, &first);
  CppIndex once = base;
  ASSERT_TRUE(once.SetLayer(&first));

  // The second: Z.cu edited again, Reg.cpp for the first time, A.cpp kept.
  std::map<uint32_t, CppFileRecords> now = {
      {a, once.RecordsOf(a)}, {z, edited_text(base.file(z), "\n\n\n")}, {reg, edited_text(base.file(reg), "\n")}};
  CppIndex second;
  MakeLayer(once, now, &second);
  CppIndex twice = base;
  ASSERT_TRUE(twice.SetLayer(&second));

  const CppIndex full = Remerged(base, now);  // ExpectSameAnswers compares its Counts with the layered one's
  std::set<std::string> names;
  for (uint32_t id = 0; id < base.files().size(); ++id) AddNames(full.RecordsOf(id), &names);
  ExpectSameAnswers(twice, full, names, {a, reg, z});
  EXPECT_EQ(twice.RecordsOf(a), once.RecordsOf(a));
}

TEST(CppIndex, MergesFilesAndAnswersLookups) {
  MemoryDisk disk;
  disk.Add("aten/src/ATen/native/cuda/A.cu",
           "namespace at::native {\n"
           "__global__ void k(float* x) {}\n"
           "void launch_a(TensorIterator& iter) {\n"
           "  k<<<1, 1>>>(nullptr);\n"
           "  helper(iter);\n"
           "}\n"
           "REGISTER_DISPATCH(a_stub, &launch_a)\n"
           "}\n");
  disk.Add("aten/src/ATen/native/A.h", "DECLARE_DISPATCH(fn_t, a_stub);\n#define MY_MACRO(x) k<<<1, 1>>>(x)\n");
  disk.Add("aten/src/ATen/native/B.cpp",
           "void helper(TensorIterator& iter) { MY_MACRO(iter); }\n"
           "TORCH_LIBRARY_IMPL(aten, CPU, m) { m.impl(\"a\", TORCH_FN(helper)); }\n");
  disk.Add("aten/src/ATen/native/bin.cpp", std::string("\0\x01\x02binary", 9));
  disk.Add("aten/src/ATen/native/notes.txt", "void not_scanned() {}");
  disk.Add("torch/csrc/autograd/FunctionsManual.cpp", "Tensor manual_helper(const Tensor& g) { return g; }\n");
  disk.Add("torch/csrc/autograd/functions/Deep.h", "void too_deep() {}\n");
  for (unsigned threads : {1u, 3u}) {
    CppIndex index = CppIndex::Build(disk, threads);
    ASSERT_EQ(index.files().size(), 4u);
    EXPECT_EQ(index.file(0), "aten/src/ATen/native/A.h");  // sorted order, whatever the threads
    ASSERT_EQ(index.skipped().size(), 1u);
    EXPECT_EQ(index.skipped()[0].path, "aten/src/ATen/native/bin.cpp");
    EXPECT_EQ(index.skipped()[0].reason, "binary");
    EXPECT_TRUE(index.FunctionsNamed("not_scanned").empty());
    EXPECT_TRUE(index.FunctionsNamed("too_deep").empty());
    ASSERT_EQ(index.FunctionsNamed("manual_helper").size(), 1u);

    auto launch_a = index.FunctionsNamed("launch_a");
    ASSERT_EQ(launch_a.size(), 1u);
    auto launches = index.LaunchesIn(launch_a[0]);
    ASSERT_EQ(launches.size(), 1u);
    EXPECT_EQ(index.launches()[launches[0]].kernel, "k");
    EXPECT_EQ(index.LaunchesOfKernel("k").size(), 2u);  // the function's and the macro's
    EXPECT_EQ(index.LaunchesInMacro("MY_MACRO").size(), 1u);
    auto helper = index.FunctionsNamed("helper");
    ASSERT_EQ(helper.size(), 1u);
    auto uses = index.MacroUsesIn(helper[0]);
    ASSERT_EQ(uses.size(), 1u);
    EXPECT_EQ(index.macro_uses()[uses[0]].macro, "MY_MACRO");
    ASSERT_EQ(index.CallersOf("helper").size(), 1u);
    EXPECT_EQ(index.calls()[index.CallersOf("helper")[0]].function, static_cast<int32_t>(launch_a[0]));
    EXPECT_EQ(index.FunctionAt(index.functions()[launch_a[0]].file, 5), static_cast<int32_t>(launch_a[0]));
    EXPECT_EQ(index.FunctionAt(index.functions()[launch_a[0]].file, 7), -1);
    EXPECT_EQ(index.StubDeclsNamed("a_stub").size(), 1u);
    ASSERT_EQ(index.RegistrationsOf("a_stub").size(), 1u);
    EXPECT_EQ(index.registrations()[index.RegistrationsOf("a_stub")[0]].device, "CUDA");
    ASSERT_EQ(index.LibraryRegistrationsOf("helper").size(), 1u);
    EXPECT_EQ(index.MacrosNamed("MY_MACRO").size(), 1u);
  }
}

TEST(CppIndex, StubReferencesAndFileScopeMacroUses) {
  MemoryDisk disk;
  disk.Add("aten/src/ATen/native/A.h", "DECLARE_DISPATCH(fn_t, a_stub);\nDECLARE_DISPATCH(fn_t, b_stub);\n");
  disk.Add("aten/src/ATen/native/B.cpp",
           "#define MAKE_IMPL(out, stub) TORCH_IMPL_FUNC(out) () { stub(); }\n"
           "MAKE_IMPL(b_out, b_stub)\n"
           "void helper(fn_t& stub);\n"
           "void f() {\n"
           "  helper(a_stub);\n"
           "  helper(undeclared_stub);\n"
           "  helper(b_stub); helper(a_stub);\n"
           "}\n");
  disk.Add("aten/src/ATen/TensorMeta.h", "#define TORCH_IMPL_FUNC(name) void structured_##name::impl\n");
  CppIndex index = CppIndex::Build(disk, 1);
  auto refs = [&](uint32_t file, uint32_t first, uint32_t last) {
    std::vector<std::string> out;
    for (uint32_t r : index.StubReferencesIn(file, first, last)) {
      const CppStubRef& ref = index.stub_refs()[r];
      out.push_back(ref.stub + ":" + std::to_string(ref.line));
    }
    return out;
  };
  const uint32_t a = FileId(index, "aten/src/ATen/native/A.h"), b = FileId(index, "aten/src/ATen/native/B.cpp");
  ASSERT_NE(b, UINT32_MAX);
  auto f = index.FunctionsNamed("f");
  ASSERT_EQ(f.size(), 1u);
  const CppFunction& fn = index.functions()[f[0]];
  // Only declared stubs; every mention, in line order (the tracer keeps the first per stub).
  EXPECT_EQ(refs(b, fn.body_begin, fn.body_end), (std::vector<std::string>{"a_stub:5", "b_stub:7", "a_stub:7"}));
  EXPECT_EQ(refs(b, 2, 2), (std::vector<std::string>{"b_stub:2"}));
  EXPECT_EQ(refs(b, 3, 4), (std::vector<std::string>{}));
  // A.h's own DECLARE_DISPATCH lines name the stubs too; B.cpp's lines do not leak into A.h's.
  EXPECT_EQ(refs(a, 1, 100), (std::vector<std::string>{"a_stub:1", "b_stub:2"}));
  EXPECT_TRUE(refs(5, 1, 100).empty());  // no such file

  auto uses = index.MacroUsesOf("MAKE_IMPL");
  ASSERT_EQ(uses.size(), 1u);
  const CppMacroUse& use = index.macro_uses()[uses[0]];
  EXPECT_EQ(use.function, -1);
  EXPECT_EQ(use.within_macro, "");
  EXPECT_EQ(use.first_arg, "b_out");
  EXPECT_EQ(Where(index, use.file, use.line), "aten/src/ATen/native/B.cpp:2");
  ASSERT_EQ(index.MacroUsesOf("TORCH_IMPL_FUNC").size(), 1u);
  EXPECT_EQ(index.macro_uses()[index.MacroUsesOf("TORCH_IMPL_FUNC")[0]].within_macro, "MAKE_IMPL");
  EXPECT_TRUE(index.MacroUsesIn(f[0]).empty());  // file-scope uses belong to no function
}

TEST(CppIndex, RecordsOfGivesBackEachFileAsScanned) {
  MemoryDisk disk;
  const std::map<std::string, std::string> files = {
      {"aten/src/ATen/native/A.h",
       "DECLARE_DISPATCH(fn_t, a_stub);\n"
       "#define MY_MACRO(x) k<<<1, 1>>>(x)\n"
       "constexpr char abs_name[] = \"abs_kernel\";\n"},
      // Sorts between A.h and B.cpp: the skipped file gets no file id.
      {"aten/src/ATen/native/AB_binary.cpp", std::string("\0\x01\x02binary", 9)},
      {"aten/src/ATen/native/B.cpp",
       "void first() { helper(1); }\n"
       "void second(TensorIterator& iter) {\n"
       "  NOT_A_MACRO(iter);\n"
       "  MY_MACRO(iter);\n"
       "  helper(undeclared_stub); helper(a_stub);\n"
       "  OTHER_CAPS(iter); MY_MACRO(iter);\n"
       "  helper(b_undeclared_stub);\n"
       "}\n"},
      {"aten/src/ATen/native/cuda/C.cu",
       "void abs_kernel_cuda(TensorIteratorBase& iter) {\n"
       "  jitted_gpu_kernel</*name=*/abs_name, scalar_t, scalar_t, 1>(iter, abs_string);\n"
       "}\n"},
  };
  for (const auto& [path, text] : files) disk.Add(path, text);
  CppIndex index = CppIndex::Build(disk, 1);
  ASSERT_EQ(index.files().size(), 3u);
  ASSERT_EQ(index.skipped().size(), 1u);
  const uint32_t b = FileId(index, "aten/src/ATen/native/B.cpp"), c = FileId(index, "aten/src/ATen/native/cuda/C.cu");
  ASSERT_EQ(b, 1u);
  // What Finish changed: unknown macro uses and undeclared stubs set aside,
  // the jiterator kernel filled from A.h's constant.
  std::vector<std::string> uses, refs;
  for (const CppMacroUse& u : index.macro_uses()) uses.push_back(u.macro + ":" + std::to_string(u.line));
  for (const CppStubRef& r : index.stub_refs()) refs.push_back(index.file(r.file) + ":" + r.stub);
  EXPECT_EQ(uses, (std::vector<std::string>{"MY_MACRO:4", "MY_MACRO:6"}));
  EXPECT_EQ(refs, (std::vector<std::string>{"aten/src/ATen/native/A.h:a_stub", "aten/src/ATen/native/B.cpp:a_stub"}));
  ASSERT_EQ(index.launches().size(), 2u);
  EXPECT_EQ(index.launches()[1].kernel, "abs_kernel");
  EXPECT_TRUE(index.launches()[1].kernel_from_index);
  EXPECT_GT(index.functions().size(), 2u);  // B.cpp's function indices are rebased

  for (uint32_t id = 0; id < index.files().size(); ++id) {
    const std::string& path = index.file(id);
    CppFileRecords scanned = ScanCppFile(path, files.at(path));
    CppFileRecords given = index.RecordsOf(id);
    EXPECT_TRUE(given == scanned) << path << ": " << FirstDifference(given, scanned);
  }
  CppFileRecords of_b = index.RecordsOf(b);
  uses.clear();
  for (const CppMacroUse& u : of_b.macro_uses) uses.push_back(u.macro + ":" + std::to_string(u.function));
  EXPECT_EQ(uses, (std::vector<std::string>{"NOT_A_MACRO:1", "MY_MACRO:1", "OTHER_CAPS:1", "MY_MACRO:1"}));
  ASSERT_EQ(of_b.stub_refs.size(), 3u);
  EXPECT_EQ(of_b.stub_refs[0].stub, "undeclared_stub");
  EXPECT_EQ(index.RecordsOf(c).launches[0].kernel, "");  // as scanned: C.cu has no abs_name
  EXPECT_TRUE(index.RecordsOf(99) == CppFileRecords{});

  CppIndex again = Remerged(index);
  ExpectSameIndex(again, index);
  EXPECT_EQ(again.Counts().macro_uses, 4u);
  EXPECT_EQ(again.Counts().stub_refs, 4u);
}

TEST(CppIndex, InScope) {
  EXPECT_TRUE(InCppScope("aten/src/ATen/native/cuda/SoftMax.cu"));
  EXPECT_TRUE(InCppScope("aten/src/ATen/native/cuda/PersistentSoftmax.cuh"));
  EXPECT_TRUE(InCppScope("aten/src/ATen/core/Tensor.hpp"));
  EXPECT_TRUE(InCppScope("torch/csrc/autograd/FunctionsManual.cpp"));
  EXPECT_TRUE(InCppScope("torch/csrc/autograd/FunctionsManual.h"));
  EXPECT_FALSE(InCppScope("torch/csrc/autograd/engine.cpp"));
  EXPECT_FALSE(InCppScope("torch/csrc/autograd/functions/basic_ops.h"));
  EXPECT_FALSE(InCppScope("aten/src/ATen/native/mps/operations/Copy.mm"));
  EXPECT_FALSE(InCppScope("aten/src/ATen/native/native_functions.yaml"));
  EXPECT_FALSE(InCppScope("c10/core/TensorImpl.h"));
}

// ----------------------------------------------------------- PyTorch 2.6.0

TEST(CppIndexReal260, StructuredSoftmaxAndCudnnLstmStub) {
  REQUIRE_CORPUS("2.6.0");
  const CppIndex& index = TreeIndex("2.6.0");
  int32_t f = FunctionIn(index, "softmax_cuda_out", "aten/src/ATen/native/cuda/SoftMax.cu");
  ASSERT_GE(f, 0);
  EXPECT_EQ(index.functions()[f].form, DefForm::kImplFunc);
  EXPECT_EQ(index.functions()[f].line, 1091u);

  auto decls = index.StubDeclsNamed("lstm_cudnn_stub");
  std::vector<std::string> where;
  for (uint32_t d : decls) where.push_back(Where(index, index.stub_decls()[d].file, index.stub_decls()[d].line));
  EXPECT_EQ(where, (std::vector<std::string>{"aten/src/ATen/native/RNN.cpp:1419", "aten/src/ATen/native/RNN.h:13"}));
  for (uint32_t d : decls) {
    if (index.stub_decls()[d].kind == StubDeclKind::kDeclare) {
      EXPECT_EQ(index.stub_decls()[d].type, "lstm_fn");
    }
  }
  bool cuda = false;
  for (uint32_t r : index.RegistrationsOf("lstm_cudnn_stub")) {
    const StubRegistration& reg = index.registrations()[r];
    if (reg.macro != "REGISTER_CUDA_DISPATCH") continue;
    cuda = true;
    EXPECT_EQ(Where(index, reg.file, reg.line), "aten/src/ATen/native/cudnn/RNN.cpp:2745");
    EXPECT_EQ(reg.target, "lstm_cudnn");
    EXPECT_EQ(reg.device, "CUDA");
  }
  EXPECT_TRUE(cuda);
}

// The TORCH_IMPL_FUNC(name) in `path`, or -1.
int32_t ImplFuncIn(const CppIndex& index, std::string_view name, std::string_view path) {
  for (uint32_t i : index.FunctionsNamed(name)) {
    const CppFunction& f = index.functions()[i];
    if (f.form == DefForm::kImplFunc && index.file(f.file) == path) return static_cast<int32_t>(i);
  }
  return -1;
}

// The stubs a function names without calling them; the tracer follows them as calls.
std::vector<std::string> StubRefsOf(const CppIndex& index, int32_t f) {
  std::vector<std::string> out;
  const CppFunction& fn = index.functions()[f];
  for (uint32_t r : index.StubReferencesIn(fn.file, fn.body_begin, fn.body_end))
    out.push_back(Where(index, index.stub_refs()[r].file, index.stub_refs()[r].line) + " " + index.stub_refs()[r].stub);
  return out;
}

// The file-scope use MACRO(first_arg, ...) of `macro`, as "file:line".
std::vector<std::string> FileScopeUses(const CppIndex& index, std::string_view macro, std::string_view first_arg) {
  std::vector<std::string> out;
  for (uint32_t u : index.MacroUsesOf(macro)) {
    const CppMacroUse& use = index.macro_uses()[u];
    if (use.function < 0 && use.within_macro.empty() && use.first_arg == first_arg)
      out.push_back(Where(index, use.file, use.line));
  }
  return out;
}

// The facts both trees share, at each tree's lines (checked with sed):
// ReduceOps.cpp  impl_func_cum_ops(..., cumsum_stub);  (a stub passed as an argument)
// TensorCompare.cpp  //fill_stub because fill is not structured  (a comment: no reference)
// UnaryOps.cpp  CREATE_UNARY_TORCH_IMPL_FUNC(sigmoid_out, sigmoid_stub)  (a file-scope macro use)
struct StubRefFacts {
  uint32_t cumsum_ref_line, clamp_max_body_begin, sigmoid_use_line;
};

void ExpectStubRefFacts(const CppIndex& index, const StubRefFacts& facts) {
  int32_t cumsum = ImplFuncIn(index, "cumsum_out", "aten/src/ATen/native/ReduceOps.cpp");
  ASSERT_GE(cumsum, 0);
  EXPECT_EQ(StubRefsOf(index, cumsum),
            (std::vector<std::string>{"aten/src/ATen/native/ReduceOps.cpp:" + std::to_string(facts.cumsum_ref_line) +
                                      " cumsum_stub"}));
  int32_t clamp_max = ImplFuncIn(index, "clamp_max_out", "aten/src/ATen/native/TensorCompare.cpp");
  ASSERT_GE(clamp_max, 0);
  EXPECT_EQ(index.functions()[clamp_max].body_begin, facts.clamp_max_body_begin);
  EXPECT_TRUE(StubRefsOf(index, clamp_max).empty());
  EXPECT_EQ(FileScopeUses(index, "CREATE_UNARY_TORCH_IMPL_FUNC", "sigmoid_out"),
            (std::vector<std::string>{"aten/src/ATen/native/UnaryOps.cpp:" + std::to_string(facts.sigmoid_use_line)}));
}

// Issue 29 item 12: REGISTER_DISPATCH(cpublas::gemm_stub, ...) at
// cpu/BlasKernel.cpp is found under the stub's declared name, and only
// under its written one by RegistrationsWritten (at::native's copy_stub has
// registrations of its own).
TEST(CppIndexReal260, QualifiedRegistrationsUnderTheDeclaredName) {
  REQUIRE_CORPUS("2.6.0");
  const CppIndex& ix = TreeIndex("2.6.0");
  bool gemm = false;
  for (uint32_t r : ix.RegistrationsOf("gemm_stub")) {
    const StubRegistration& reg = ix.registrations()[r];
    gemm = gemm || (ix.file(reg.file) == "aten/src/ATen/native/cpu/BlasKernel.cpp" && reg.stub == "cpublas::gemm_stub");
  }
  EXPECT_TRUE(gemm);
  std::vector<uint32_t> written = ix.RegistrationsWritten("cpublas::copy_stub");
  ASSERT_EQ(written.size(), 1u);
  EXPECT_EQ(ix.registrations()[written[0]].target, "cpublas_copy_impl");
  for (uint32_t r : ix.RegistrationsWritten("copy_stub")) EXPECT_EQ(ix.registrations()[r].stub, "copy_stub");
  EXPECT_FALSE(ix.RegistrationsWritten("copy_stub").empty());
}

TEST(CppIndexReal260, StubReferencesAndMacroWrittenImplFuncs) {
  REQUIRE_CORPUS("2.6.0");
  const CppIndex& index = TreeIndex("2.6.0");
  ExpectStubRefFacts(index, {496, 725, 347});  // the comment is TensorCompare.cpp:728
  std::vector<std::string> at_347;
  for (uint32_t r : index.StubReferencesIn(FileId(index, "aten/src/ATen/native/UnaryOps.cpp"), 347, 347))
    at_347.push_back(index.stub_refs()[r].stub);
  EXPECT_EQ(at_347, (std::vector<std::string>{"sigmoid_stub"}));
  // BinaryOps.cpp:551  CREATE_BINARY_TORCH_IMPL_FUNC(remainder_out, remainder_stub)
  EXPECT_EQ(FileScopeUses(index, "CREATE_BINARY_TORCH_IMPL_FUNC", "remainder_out"),
            (std::vector<std::string>{"aten/src/ATen/native/BinaryOps.cpp:551"}));
}

TEST(CppIndexReal260, PersistentSoftmaxKernelLaunchedFromMacro) {
  REQUIRE_CORPUS("2.6.0");
  const CppIndex& index = TreeIndex("2.6.0");
  const std::string path = "aten/src/ATen/native/cuda/PersistentSoftmax.cuh";
  int32_t k = FunctionIn(index, "softmax_warp_forward", path);
  ASSERT_GE(k, 0);
  EXPECT_EQ(index.functions()[k].form, DefForm::kGlobalKernel);
  EXPECT_EQ(index.functions()[k].line, 68u);
  EXPECT_TRUE(index.functions()[k].is_template);
  bool from_macro = false;
  for (uint32_t l : index.LaunchesOfKernel("softmax_warp_forward")) {
    const CppLaunch& launch = index.launches()[l];
    if (index.file(launch.file) == path && launch.macro == "LAUNCH_SOFTMAX_WARP_FORWARD") {
      from_macro = true;
      EXPECT_EQ(launch.line, 329u);
      EXPECT_EQ(launch.function, -1);
    }
  }
  EXPECT_TRUE(from_macro);
  // dispatch_softmax_forward -> LAUNCH_SOFTMAX_WARP_FORWARD (first use at line 335).
  int32_t d = FunctionIn(index, "dispatch_softmax_forward", path);
  ASSERT_GE(d, 0);
  auto uses = index.MacroUsesIn(d);
  ASSERT_FALSE(uses.empty());
  bool first = false;
  for (uint32_t u : uses)
    first |= index.macro_uses()[u].macro == "LAUNCH_SOFTMAX_WARP_FORWARD" && index.macro_uses()[u].line == 335;
  EXPECT_TRUE(first);
  auto macros = index.MacrosNamed("LAUNCH_SOFTMAX_WARP_FORWARD");
  ASSERT_EQ(macros.size(), 1u);
  EXPECT_EQ(index.macros()[macros[0]].line, 328u);
  EXPECT_EQ(index.macros()[macros[0]].end_line, 333u);
}

TEST(CppIndexReal260, GeluImplCallsKernelImplWhichLaunchesGpuKernel) {
  REQUIRE_CORPUS("2.6.0");
  const CppIndex& index = TreeIndex("2.6.0");
  int32_t impl = FunctionIn(index, "gelu_out_cuda", "aten/src/ATen/native/cuda/Activation.cpp");
  ASSERT_GE(impl, 0);
  EXPECT_EQ(index.functions()[impl].line, 96u);
  bool calls = false;
  for (uint32_t c : index.CallsIn(impl))
    calls |= index.calls()[c].callee == "GeluCUDAKernelImpl" && index.calls()[c].line == 99;
  EXPECT_TRUE(calls);
  int32_t k = FunctionIn(index, "GeluCUDAKernelImpl", "aten/src/ATen/native/cuda/ActivationGeluKernel.cu");
  ASSERT_GE(k, 0);
  EXPECT_EQ(index.functions()[k].line, 21u);
  auto launches = index.LaunchesIn(k);
  ASSERT_FALSE(launches.empty());
  EXPECT_EQ(index.launches()[launches[0]].launcher, "gpu_kernel");
  EXPECT_EQ(index.launches()[launches[0]].line, 24u);
  EXPECT_TRUE(index.launches()[launches[0]].functors.empty());  // a lambda
  auto dtypes = index.DtypeDispatchesIn(k);
  ASSERT_FALSE(dtypes.empty());
  const DtypeDispatch& d = index.dtype_dispatches()[dtypes[0]];
  EXPECT_EQ(d.line, 23u);
  EXPECT_EQ(d.macro, "AT_DISPATCH_FLOATING_TYPES_AND2");
  EXPECT_EQ(d.name, "GeluCUDAKernelImpl");
  EXPECT_EQ(d.dtypes, (std::vector<std::string>{"double", "float", "Half", "BFloat16"}));
}

TEST(CppIndexReal260, JiteratorAbsAndMulFunctor) {
  REQUIRE_CORPUS("2.6.0");
  const CppIndex& index = TreeIndex("2.6.0");
  int32_t abs = FunctionIn(index, "abs_kernel_cuda", "aten/src/ATen/native/cuda/AbsKernel.cu");
  ASSERT_GE(abs, 0);
  bool jit = false;
  for (uint32_t l : index.LaunchesIn(abs)) {
    const CppLaunch& launch = index.launches()[l];
    if (launch.kind != LaunchKind::kJiterator) continue;
    jit = true;
    EXPECT_EQ(launch.kernel, "abs_kernel");  // constexpr char abs_name[] = "abs_kernel"; (line 18)
    EXPECT_EQ(launch.line, 26u);
  }
  EXPECT_TRUE(jit);
  ASSERT_NE(index.StringConstant(index.functions()[abs].file, "abs_name"), nullptr);
  EXPECT_EQ(*index.StringConstant(index.functions()[abs].file, "abs_name"), "abs_kernel");

  int32_t mul = FunctionIn(index, "mul_kernel_cuda", "aten/src/ATen/native/cuda/BinaryMulKernel.cu");
  ASSERT_GE(mul, 0);
  std::vector<uint32_t> lines;
  for (uint32_t l : index.LaunchesIn(mul)) {
    const CppLaunch& launch = index.launches()[l];
    if (launch.functors == std::vector<std::string>{"MulFunctor"}) lines.push_back(launch.line);
  }
  EXPECT_EQ(lines, (std::vector<uint32_t>{33, 40}));
  bool registered = false;
  for (uint32_t r : index.RegistrationsOf("mul_stub")) {
    const StubRegistration& reg = index.registrations()[r];
    if (index.file(reg.file) != "aten/src/ATen/native/cuda/BinaryMulKernel.cu") continue;
    registered = true;
    EXPECT_EQ(reg.line, 46u);
    EXPECT_EQ(reg.target, "mul_kernel_cuda");
    EXPECT_EQ(reg.device, "CUDA");
  }
  EXPECT_TRUE(registered);
  // MulFunctor::operator() is defined in BinaryInternal.h:29.
  bool functor = false;
  for (uint32_t f : index.FunctionsNamed("operator()")) {
    const CppFunction& fn = index.functions()[f];
    functor |= fn.qualified == "at::native::binary_internal::MulFunctor::operator()" && fn.line == 29 &&
               index.file(fn.file) == "aten/src/ATen/native/cuda/BinaryInternal.h";
  }
  EXPECT_TRUE(functor);
}

TEST(CppIndexReal260, CpuRegistrationsAndReduce) {
  REQUIRE_CORPUS("2.6.0");
  const CppIndex& index = TreeIndex("2.6.0");
  auto find = [&](std::string_view stub, std::string_view macro) -> const StubRegistration* {
    for (uint32_t r : index.RegistrationsOf(stub))
      if (index.registrations()[r].macro == macro) return &index.registrations()[r];
    return nullptr;
  };
  const StubRegistration* hs = find("hardsigmoid_stub", "REGISTER_DISPATCH");
  ASSERT_NE(hs, nullptr);
  EXPECT_EQ(Where(index, hs->file, hs->line), "aten/src/ATen/native/cpu/Activation.cpp:1348");
  EXPECT_EQ(hs->device, "CPU");
  EXPECT_EQ(hs->target, "hardsigmoid_kernel");
  const StubRegistration* gelu = find("GeluKernel", "ALSO_REGISTER_AVX512_DISPATCH");
  ASSERT_NE(gelu, nullptr);
  EXPECT_EQ(gelu->line, 1367u);
  EXPECT_EQ(gelu->device, "CPU");
  EXPECT_EQ(gelu->arch, "AVX512");
  EXPECT_EQ(gelu->target, "GeluKernelImpl");
  const StubRegistration* sdp = find("_fused_sdp_choice_stub", "REGISTER_ARCH_DISPATCH");
  ASSERT_NE(sdp, nullptr);
  EXPECT_EQ(Where(index, sdp->file, sdp->line), "aten/src/ATen/native/transformers/attention.cpp:445");
  EXPECT_EQ(sdp->arch, "DEFAULT");
  EXPECT_EQ(sdp->target, "_fused_sdp_choice_cpp");
  const StubRegistration* none = find("conv_depthwise2d_backward_stub", "REGISTER_NO_CPU_DISPATCH");
  ASSERT_NE(none, nullptr);
  EXPECT_EQ(Where(index, none->file, none->line), "aten/src/ATen/native/Convolution.cpp:630");
  EXPECT_EQ(none->device, "none");
  // No registration comes from DispatchStub.h's #define lines.
  for (const StubRegistration& r : index.registrations())
    EXPECT_NE(index.file(r.file), "aten/src/ATen/native/DispatchStub.h");

  bool mean = false;
  for (const CppLaunch& l : index.launches()) {
    if (index.file(l.file) != "aten/src/ATen/native/cuda/ReduceMomentKernel.cu" || l.line != 44) continue;
    mean = true;
    EXPECT_EQ(l.kind, LaunchKind::kReduce);
    EXPECT_EQ(l.functors, (std::vector<std::string>{"MeanOps"}));
  }
  EXPECT_TRUE(mean);
}

TEST(CppIndexReal260, CallsLibraryBlocksAndAutogradHelpers) {
  REQUIRE_CORPUS("2.6.0");
  const CppIndex& index = TreeIndex("2.6.0");
  auto call_at = [&](std::string_view callee, std::string_view path, uint32_t line) -> const CppCall* {
    for (uint32_t c : index.CallersOf(callee))
      if (index.file(index.calls()[c].file) == path && index.calls()[c].line == line) return &index.calls()[c];
    return nullptr;
  };
  const CppCall* ops = call_at("contiguous", "aten/src/ATen/core/Tensor.cpp", 26);
  ASSERT_NE(ops, nullptr);
  EXPECT_TRUE(ops->is_ops_call);
  EXPECT_EQ(ops->qualifier, "at::_ops::");
  const CppCall* sgemm = call_at("cublasSgemm", "aten/src/ATen/cuda/CUDABlas.cpp", 828);
  ASSERT_NE(sgemm, nullptr);
  ASSERT_GE(sgemm->function, 0);
  EXPECT_EQ(index.functions()[sgemm->function].name, "gemm_internal_cublas");
  EXPECT_EQ(index.functions()[sgemm->function].line, 820u);
  EXPECT_EQ(index.functions()[sgemm->function].qualified, "at::cuda::blas::gemm_internal_cublas<float>");
  const CppCall* conv = call_at("cudnnConvolutionForward", "aten/src/ATen/native/cudnn/Conv_v7.cpp", 759);
  ASSERT_NE(conv, nullptr);
  ASSERT_GE(conv->function, 0);
  EXPECT_EQ(index.functions()[conv->function].name, "raw_cudnn_convolution_forward_out_32bit");

  auto regs = index.LibraryRegistrationsOf("_cudnn_rnn_cast_reflatten");
  ASSERT_EQ(regs.size(), 1u);
  const LibraryRegistration& autocast = index.library_registrations()[regs[0]];
  EXPECT_EQ(Where(index, autocast.file, autocast.line), "aten/src/ATen/cudnn/AutocastRNN.cpp:123");
  EXPECT_EQ(autocast.key, "Autocast");
  EXPECT_EQ(autocast.op, "_cudnn_rnn");
  regs = index.LibraryRegistrationsOf("resize__functionalization");
  ASSERT_EQ(regs.size(), 1u);
  EXPECT_EQ(index.library_registrations()[regs[0]].line, 354u);
  EXPECT_EQ(index.library_registrations()[regs[0]].op, "resize_");

  const std::string manual = "torch/csrc/autograd/FunctionsManual.cpp";
  int32_t values = FunctionIn(index, "values_backward", manual);
  ASSERT_GE(values, 0);
  EXPECT_EQ(index.functions()[values].line, 7138u);
  EXPECT_EQ(index.functions()[values].qualified, "torch::autograd::generated::details::values_backward");
  EXPECT_EQ(index.functions()[values].params, "const Tensor& grad, const Tensor& self");
  int32_t to_non_opt = FunctionIn(index, "toNonOptFwGrad", manual);
  ASSERT_GE(to_non_opt, 0);
  EXPECT_EQ(index.functions()[to_non_opt].line, 68u);
  EXPECT_EQ(index.functions()[to_non_opt].return_type, "Tensor");
  // Kernels written through DEFINE_FLASH_BACKWARD_KERNEL(name, ...) { ... }.
  int32_t flash = FunctionIn(index, "flash_bwd_dq_dk_dv_loop_kernel",
                             "aten/src/ATen/native/transformers/cuda/flash_attn/flash_bwd_launch_template.h");
  ASSERT_GE(flash, 0);
  EXPECT_EQ(index.functions()[flash].form, DefForm::kGlobalKernel);
  EXPECT_EQ(index.functions()[flash].line, 36u);
}

// ---------------------------------------------------------- PyTorch 1.13.1

TEST(CppIndexReal1131, SoftmaxLstmAndPersistentSoftmax) {
  REQUIRE_CORPUS("1.13.1");
  const CppIndex& index = TreeIndex("1.13.1");
  int32_t f = FunctionIn(index, "softmax_cuda_out", "aten/src/ATen/native/cuda/SoftMax.cu");
  ASSERT_GE(f, 0);
  EXPECT_EQ(index.functions()[f].line, 935u);
  EXPECT_EQ(index.functions()[f].form, DefForm::kImplFunc);
  bool cuda = false;
  for (uint32_t r : index.RegistrationsOf("lstm_cudnn_stub")) {
    const StubRegistration& reg = index.registrations()[r];
    if (reg.macro != "REGISTER_CUDA_DISPATCH") continue;
    cuda = true;
    EXPECT_EQ(Where(index, reg.file, reg.line), "aten/src/ATen/native/cudnn/RNN.cpp:1719");
    EXPECT_EQ(reg.target, "lstm_cudnn");
  }
  EXPECT_TRUE(cuda);
  std::vector<std::string> where;
  for (uint32_t d : index.StubDeclsNamed("lstm_cudnn_stub"))
    where.push_back(Where(index, index.stub_decls()[d].file, index.stub_decls()[d].line));
  EXPECT_EQ(where, (std::vector<std::string>{"aten/src/ATen/native/RNN.cpp:1371", "aten/src/ATen/native/RNN.h:13"}));
  int32_t k = FunctionIn(index, "softmax_warp_forward", "aten/src/ATen/native/cuda/PersistentSoftmax.cuh");
  ASSERT_GE(k, 0);
  EXPECT_EQ(index.functions()[k].line, 69u);
  EXPECT_EQ(index.functions()[k].form, DefForm::kGlobalKernel);
  bool from_macro = false;
  for (uint32_t l : index.LaunchesInMacro("LAUNCH_SOFTMAX_WARP_FORWARD")) {
    from_macro |= index.launches()[l].kernel == "softmax_warp_forward" && index.launches()[l].line == 330;
  }
  EXPECT_TRUE(from_macro);
}

TEST(CppIndexReal1131, StubReferencesAndMacroWrittenImplFuncs) {
  REQUIRE_CORPUS("1.13.1");
  ExpectStubRefFacts(TreeIndex("1.13.1"), {412, 607, 201});  // the comment is TensorCompare.cpp:610
}

TEST(CppIndexReal1131, GeluAbsMulAndCpuRegistrations) {
  REQUIRE_CORPUS("1.13.1");
  const CppIndex& index = TreeIndex("1.13.1");
  int32_t impl = FunctionIn(index, "gelu_out_cuda", "aten/src/ATen/native/cuda/Activation.cpp");
  ASSERT_GE(impl, 0);
  EXPECT_EQ(index.functions()[impl].line, 181u);
  int32_t k = FunctionIn(index, "GeluCUDAKernelImpl", "aten/src/ATen/native/cuda/ActivationGeluKernel.cu");
  ASSERT_GE(k, 0);
  EXPECT_EQ(index.functions()[k].line, 22u);
  auto launches = index.LaunchesIn(k);
  ASSERT_FALSE(launches.empty());
  EXPECT_EQ(index.launches()[launches[0]].line, 25u);

  int32_t abs = FunctionIn(index, "abs_kernel_cuda", "aten/src/ATen/native/cuda/AbsKernel.cu");
  ASSERT_GE(abs, 0);
  bool jit = false;
  for (uint32_t l : index.LaunchesIn(abs))
    jit |= index.launches()[l].kind == LaunchKind::kJiterator && index.launches()[l].kernel == "abs_kernel" &&
           index.launches()[l].line == 26;  // const char abs_name[] = "abs_kernel"; (line 18)
  EXPECT_TRUE(jit);

  int32_t mul = FunctionIn(index, "mul_kernel_cuda", "aten/src/ATen/native/cuda/BinaryMulKernel.cu");
  ASSERT_GE(mul, 0);
  std::vector<uint32_t> lines;
  for (uint32_t l : index.LaunchesIn(mul))
    if (index.launches()[l].functors == std::vector<std::string>{"MulFunctor"})
      lines.push_back(index.launches()[l].line);
  EXPECT_EQ(lines, (std::vector<uint32_t>{34, 41}));

  const StubRegistration* sum = nullptr;
  const StubRegistration* no_avx512 = nullptr;
  for (const StubRegistration& r : index.registrations()) {
    if (index.file(r.file) != "aten/src/ATen/native/cpu/SumKernel.cpp") continue;
    if (r.line == 635) sum = &r;
    if (r.line == 642) no_avx512 = &r;
  }
  ASSERT_NE(sum, nullptr);
  EXPECT_EQ(sum->stub, "sum_stub");
  EXPECT_EQ(sum->device, "CPU");
  ASSERT_NE(no_avx512, nullptr);
  EXPECT_EQ(no_avx512->macro, "REGISTER_NO_AVX512_DISPATCH");
  EXPECT_EQ(no_avx512->stub, "nansum_stub");
  EXPECT_EQ(no_avx512->device, "none");
  EXPECT_EQ(no_avx512->arch, "AVX512");

  bool mean = false;
  for (const CppLaunch& l : index.launches())
    mean |= index.file(l.file) == "aten/src/ATen/native/cuda/ReduceMomentKernel.cu" && l.line == 49 &&
            l.functors == std::vector<std::string>{"MeanOps"};
  EXPECT_TRUE(mean);
}

TEST(CppIndexReal1131, CallsLibraryBlocksAndAutogradHelpers) {
  REQUIRE_CORPUS("1.13.1");
  const CppIndex& index = TreeIndex("1.13.1");
  bool ops = false, sgemm = false, conv = false;
  for (uint32_t c : index.CallersOf("contiguous")) {
    const CppCall& call = index.calls()[c];
    ops |= index.file(call.file) == "aten/src/ATen/core/Tensor.cpp" && call.line == 26 && call.is_ops_call;
  }
  for (uint32_t c : index.CallersOf("cublasSgemm")) {
    const CppCall& call = index.calls()[c];
    sgemm |= index.file(call.file) == "aten/src/ATen/cuda/CUDABlas.cpp" && call.line == 354 && call.function >= 0 &&
             index.functions()[call.function].name == "gemm";
  }
  for (uint32_t c : index.CallersOf("cudnnConvolutionForward")) {
    const CppCall& call = index.calls()[c];
    conv |= index.file(call.file) == "aten/src/ATen/native/cudnn/Conv_v7.cpp" && call.line == 656;
  }
  EXPECT_TRUE(ops);
  EXPECT_TRUE(sgemm);
  EXPECT_TRUE(conv);
  auto regs = index.LibraryRegistrationsOf("resize__functionalization");
  ASSERT_EQ(regs.size(), 1u);
  EXPECT_EQ(Where(index, index.library_registrations()[regs[0]].file, index.library_registrations()[regs[0]].line),
            "aten/src/ATen/FunctionalizeFallbackKernel.cpp:296");
  int32_t to_non_opt = FunctionIn(index, "toNonOptFwGrad", "torch/csrc/autograd/FunctionsManual.cpp");
  ASSERT_GE(to_non_opt, 0);
  EXPECT_EQ(index.functions()[to_non_opt].line, 67u);
  EXPECT_EQ(index.functions()[to_non_opt].params, "const c10::optional<Tensor>& t");
}

// ----------------------------------------------------------- whole trees

class CppIndexWholeTree : public ::testing::TestWithParam<const char*> {};

TEST_P(CppIndexWholeTree, ScansEverythingAndExplainsSkips) {
  REQUIRE_CORPUS(GetParam());
  const CppIndex& index = TreeIndex(GetParam());
  EXPECT_GT(index.files().size(), 1500u);
  EXPECT_GT(index.functions().size(), 15000u);
  EXPECT_GT(index.registrations().size(), 700u);
  EXPECT_GT(index.launches().size(), 700u);
  for (const CppSkipped& s : index.skipped()) EXPECT_FALSE(s.reason.empty()) << s.path;
  // Every record points at a file and, when it has one, at a function of that file.
  for (const CppCall& c : index.calls()) {
    ASSERT_LT(c.file, index.files().size());
    if (c.function >= 0) {
      ASSERT_LT(static_cast<size_t>(c.function), index.functions().size());
      EXPECT_EQ(index.functions()[c.function].file, c.file);
    } else {
      EXPECT_FALSE(c.macro.empty());
    }
  }
  for (const CppFunction& f : index.functions()) {
    // Named before its body, or at a use of the macro whose #define holds the body.
    EXPECT_TRUE(f.line <= f.body_begin || f.WrittenByMacroUse()) << index.file(f.file) << " " << f.name;
    EXPECT_LE(f.body_begin, f.body_end) << index.file(f.file) << " " << f.name;
  }
  std::ostringstream counts;
  PrintCppIndexCounts(index, counts);
  EXPECT_NE(counts.str().find("functions"), std::string::npos);
}

// The store rebuilds the index after a partial update from RecordsOf of
// every file it did not scan again: each must be the file's scan, exactly.
TEST_P(CppIndexWholeTree, RecordsOfEveryFileEqualItsScan) {
  REQUIRE_CORPUS(GetParam());
  const CppIndex& index = TreeIndex(GetParam());
  RealDisk disk(CorpusTree(GetParam()));
  std::string text;
  size_t differ = 0;
  for (uint32_t id = 0; id < index.files().size(); ++id) {
    ASSERT_TRUE(disk.ReadFile(index.file(id), &text).ok()) << index.file(id);
    CppFileRecords scanned = ScanCppFile(index.file(id), text);
    CppFileRecords given = index.RecordsOf(id);
    if (given == scanned) continue;
    ADD_FAILURE() << index.file(id) << ": " << FirstDifference(given, scanned);
    if (++differ == 5) break;
  }
  // Finish set records aside in these trees, so the test covers giving them
  // back. (No jiterator constant lives in another file here: the in-memory test covers that.)
  const CppRecordCounts all = index.Counts();
  EXPECT_GT(all.macro_uses, index.macro_uses().size());
  EXPECT_GT(all.stub_refs, index.stub_refs().size());
  ExpectSameIndex(Remerged(index), index);
}

// Edits to three real files (lines shifted, functions, calls, launches and
// a registration added or dropped; no macro, stub or constant changed): the
// layer answers as the edited tree's index does.
TEST(CppIndexLayer, RealTreeEditsAnswerAsARebuild) {
  REQUIRE_CORPUS("2.6.0");
  const CppIndex& base = TreeIndex("2.6.0");
  RealDisk disk(CorpusTree("2.6.0"));
  std::map<std::string, std::string> edits;
  for (const char* path : {"aten/src/ATen/native/cuda/SoftMax.cu", "aten/src/ATen/native/cpu/SoftMaxKernel.cpp",
                           "aten/src/ATen/native/Activation.cpp"}) {
    std::string text;
    ASSERT_TRUE(disk.ReadFile(path, &text).ok()) << path;
    edits[path] = "// edited\n\n" + text +
                  "\nnamespace at::native {\n"
                  "__global__ void layer_probe_kernel(float* x) {}\n"
                  "void layer_probe(const Tensor& t) {\n"
                  "  at::relu(t);\n"
                  "  layer_probe_kernel<<<1, 1>>>(nullptr);\n"
                  "}\n}\n";
  }
  // SoftMaxKernel.cpp loses a registration.
  std::string& cpu = edits["aten/src/ATen/native/cpu/SoftMaxKernel.cpp"];
  const std::string reg = "ALSO_REGISTER_AVX512_DISPATCH(softmax_lastdim_kernel, &softmax_lastdim_kernel_impl)";
  ASSERT_NE(cpu.find(reg), std::string::npos);
  cpu.erase(cpu.find(reg), reg.size());
  ExpectLayerAnswersAsARebuild(base, edits,
                               {"relu", "softmax", "_softmax", "softmax_lastdim_kernel", "host_softmax",
                                "softmax_warp_forward", "cunn_SoftMaxForward", "layer_probe_kernel", "gelu_stub",
                                "dispatch_softmax_forward", "AT_DISPATCH_FLOATING_TYPES_AND2"});
}

INSTANTIATE_TEST_SUITE_P(Trees, CppIndexWholeTree, ::testing::Values("2.6.0", "1.13.1"));

}  // namespace
}  // namespace optrace
