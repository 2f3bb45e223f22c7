// Index store tests. In-process tests on MemoryDisk trees: a second load is
// served from the image and answers as a fresh build does; edits, touches,
// added/removed files and YAML changes are noticed; damaged files are
// rebuilt. Real-process tests run the built optrace (OPTRACE_BINARY) on a copy
// of part of the 2.6.0 tree and compare every warm answer with a build from
// the tree (OPTRACE_NO_STORE=1): after kill -9 mid-write, with two cold runs
// racing, after an edit, after truncation or garbage. No test writes under
// the real ~/.cache: each uses its own temporary XDG_CACHE_HOME / store dir.
#include "index/store.h"
#include "index/index.h"

#include <fcntl.h>
#include <malloc.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <set>
#include <sstream>
#include <thread>

#include <gtest/gtest.h>

#include "index/store_arena.h"
#include "testing/test_util.h"

namespace optrace {
namespace {

namespace fs = std::filesystem;

std::string TempDir(const std::string& name) {
  std::string dir = fs::temp_directory_path() / ("optrace-store-test-" + name + "-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

void WriteText(const std::string& path, const std::string& text) {
  fs::create_directories(fs::path(path).parent_path());
  std::ofstream(path, std::ios::binary) << text;
}

// ---------------------------------------------------------------------------
// In-process tests on a MemoryDisk tree.

constexpr char kNative[] =
    "- func: frob(Tensor self) -> Tensor\n"
    "  dispatch:\n"
    "    CPU: frob_cpu\n"
    "    CUDA: frob_cuda\n";
constexpr char kDerivatives[] =
    "- name: frob(Tensor self) -> Tensor\n"
    "  self: grad * 2\n";
constexpr char kFrobCpu[] =
    "namespace at { namespace native {\n"
    "Tensor frob_cpu(const Tensor& self) {\n"
    "  return self;\n"
    "}\n"
    "}}\n";
constexpr char kFrobCuda[] =
    "namespace at { namespace native {\n"
    "__global__ void frob_kernel(float* x) {}\n"
    "Tensor frob_cuda(const Tensor& self) {\n"
    "  frob_kernel<<<1, 1>>>(nullptr);\n"
    "  return self;\n"
    "}\n"
    "}}\n";
constexpr char kPy[] =
    "import torch\n"
    "def frob(x):\n"
    "    return torch.frob(x)\n";

class StoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = TempDir("unit");
    disk_ = std::make_shared<MemoryDisk>();
    disk_->Add(kNativeFunctionsPath, kNative);
    disk_->Add(kDerivativesPath, kDerivatives);
    disk_->Add("version.txt", "2.6.0a0\n");
    disk_->Add("aten/src/ATen/native/Frob.cpp", kFrobCpu);
    disk_->Add("aten/src/ATen/native/cuda/Frob.cu", kFrobCuda);
    disk_->Add("aten/src/ATen/native/notes.txt", "not C++");
    disk_->Add("torch/frob.py", kPy);
    disk_->Add("torch/nn/__init__.py", "");
  }
  void TearDown() override {
    // Every Index of the test is gone; free both arena address ranges for the next test.
    ReleaseArenaMemory();
    fs::remove_all(dir_);
  }

  StoreReport Load(Index* out, bool write = true) {
    StoreOptions options;
    options.dir = dir_;
    options.write = write;
    options.threads = 2;
    StoreReport report;
    Status s = LoadWithStore({"/memory/tree", "2.6.0a0", disk_}, options, out, &report);
    EXPECT_TRUE(s.ok()) << s.message();
    return report;
  }
  std::string ImagePath() const { return StorePath(dir_, "/memory/tree"); }
  // Builds and saves the image, then frees the arena it was built in, as a
  // new process would start: the next Load can map the image.
  void Save() {
    {
      Index i;
      Load(&i);
    }
    ReleaseArenaMemory();
  }
  // Loads as a new process would (its Index checked by `check`, then gone).
  StoreReport LoadOnce(const std::function<void(const Index&)>& check = {}) {
    StoreReport r;
    {
      Index idx;
      r = Load(&idx);
      if (check) check(idx);
    }
    ReleaseArenaMemory();
    return r;
  }
  // An update that wrote a new image, with no layer over it.
  void ExpectNewImage(const StoreReport& r) {
    EXPECT_EQ(r.action, StoreReport::Action::kUpdated);
    EXPECT_EQ(r.layer_files, 0u);
    EXPECT_FALSE(fs::exists(ImagePath() + ".layer"));
  }
  // The line of the only function named `name`.
  static uint32_t LineOf(const Index& idx, std::string_view name) {
    auto ids = idx.cpp.FunctionsNamed(name);
    EXPECT_EQ(ids.size(), 1u) << name;
    return ids.empty() ? 0 : idx.cpp.functions()[ids[0]].line;
  }

  std::string dir_;
  std::shared_ptr<MemoryDisk> disk_;
};

TEST_F(StoreTest, SecondLoadComesFromTheImageAndMatchesABuild) {
  {
    Index first;
    StoreReport r = Load(&first);
    EXPECT_EQ(r.action, StoreReport::Action::kBuilt);
    EXPECT_EQ(r.reason, "no index yet");
    EXPECT_EQ(r.cpp_files, 2u);
    EXPECT_EQ(r.py_files, 2u);
    EXPECT_TRUE(fs::exists(ImagePath()));
  }
  ReleaseArenaMemory();  // as if a new process: the image can map
  Index warm;
  StoreReport r = Load(&warm);
  EXPECT_EQ(r.action, StoreReport::Action::kLoaded) << r.reason;

  CppIndex cpp = CppIndex::Build(*disk_, 1);
  PyIndex py = PyIndex::Build(*disk_, 1);
  ASSERT_EQ(warm.cpp.files(), cpp.files());
  ASSERT_EQ(warm.cpp.functions().size(), cpp.functions().size());
  for (size_t i = 0; i < cpp.functions().size(); ++i) {
    EXPECT_EQ(warm.cpp.functions()[i].qualified, cpp.functions()[i].qualified);
    EXPECT_EQ(warm.cpp.functions()[i].line, cpp.functions()[i].line);
  }
  EXPECT_EQ(warm.cpp.FunctionsNamed("frob_cuda"), cpp.FunctionsNamed("frob_cuda"));
  ASSERT_EQ(warm.cpp.FunctionsNamed("frob_cuda").size(), 1u);
  EXPECT_EQ(warm.cpp.LaunchesOfKernel("frob_kernel").size(), 1u);
  ASSERT_EQ(warm.py.modules().size(), py.modules().size());
  const PyModule* frob = warm.py.FindModule("torch.frob");
  ASSERT_NE(frob, nullptr);
  ASSERT_EQ(frob->functions.size(), 1u);
  EXPECT_EQ(frob->functions[0].line, 2u);
  EXPECT_EQ(frob->functions[0].calls[0].callee, "torch.frob");
  ASSERT_NE(warm.yaml.Find("frob"), nullptr);
  EXPECT_EQ(*warm.yaml.Find("frob")->DispatchFor("CUDA"), "frob_cuda");
  ASSERT_NE(warm.yaml.FindDerivative("frob"), nullptr);
  EXPECT_EQ(warm.yaml.FindDerivative("frob")->line, 1);
  EXPECT_EQ(warm.root, "/memory/tree");
  EXPECT_EQ(warm.version, "2.6.0a0");
}

TEST_F(StoreTest, AnEditedFileIsScannedAgainAndShowsUp) {
  Save();
  // frob_cuda moves two lines down.
  disk_->Add("aten/src/ATen/native/cuda/Frob.cu", std::string("\n\n") + kFrobCuda, 2);
  {
    Index idx;
    StoreReport r = Load(&idx);
    EXPECT_EQ(r.action, StoreReport::Action::kUpdated);
    EXPECT_EQ(r.rescanned, 1u);
    auto fns = idx.cpp.FunctionsNamed("frob_cuda");
    ASSERT_EQ(fns.size(), 1u);
    EXPECT_EQ(idx.cpp.functions()[fns[0]].line, 5u);
  }
  ReleaseArenaMemory();
  Index again;
  EXPECT_EQ(Load(&again).action, StoreReport::Action::kLoaded);
  EXPECT_EQ(again.cpp.functions()[again.cpp.FunctionsNamed("frob_cuda")[0]].line, 5u);
}

TEST_F(StoreTest, ATouchWithoutAChangeReusesTheRecords) {
  Save();
  disk_->Add("aten/src/ATen/native/Frob.cpp", kFrobCpu, 99);  // same text, new mtime
  Index idx;
  StoreReport r = Load(&idx);
  EXPECT_EQ(r.action, StoreReport::Action::kUpdated);
  EXPECT_EQ(r.rescanned, 0u);
  EXPECT_EQ(idx.cpp.FunctionsNamed("frob_cpu").size(), 1u);
}

// Edits to C++ files go to a small layer over the image, not a new image;
// the next process loads image + layer and answers as a build of the tree.
TEST_F(StoreTest, EditedCppFilesGoToALayerOverTheImage) {
  Save();
  const std::string image_before = ReadText(ImagePath());
  disk_->Add("aten/src/ATen/native/cuda/Frob.cu", std::string("\n\n") + kFrobCuda, 2);
  StoreReport r = LoadOnce([](const Index& idx) { EXPECT_EQ(LineOf(idx, "frob_cuda"), 5u); });
  EXPECT_EQ(r.action, StoreReport::Action::kUpdated);
  EXPECT_EQ(r.layer_files, 1u);
  EXPECT_GT(r.layer_bytes, 0u);
  EXPECT_TRUE(fs::exists(ImagePath() + ".layer"));
  EXPECT_EQ(ReadText(ImagePath()), image_before);  // the image itself was not rewritten
  // A second file joins the layer; the first stays in it.
  disk_->Add("aten/src/ATen/native/Frob.cpp", std::string("\n") + kFrobCpu, 3);
  r = LoadOnce();
  EXPECT_EQ(r.action, StoreReport::Action::kUpdated);
  EXPECT_EQ(r.rescanned, 1u);
  EXPECT_EQ(r.layer_files, 2u);
  r = LoadOnce([&](const Index& warm) {
    CppIndex built = CppIndex::Build(*disk_, 1);
    std::vector<std::pair<std::string, uint32_t>> got, want;
    for (const CppFunction& f : warm.cpp.functions()) got.emplace_back(f.qualified, f.line);
    for (const CppFunction& f : built.functions()) want.emplace_back(f.qualified, f.line);
    EXPECT_EQ(got, want);
    ASSERT_EQ(warm.cpp.LaunchesOfKernel("frob_kernel").size(), 1u);
    EXPECT_EQ(warm.cpp.launches()[warm.cpp.LaunchesOfKernel("frob_kernel")[0]].line, 6u);
  });
  EXPECT_EQ(r.action, StoreReport::Action::kLoaded) << r.reason;
  EXPECT_EQ(r.layer_files, 2u);
  StoreOptions options;
  options.dir = dir_;
  StoreReport check;
  Status s = CheckStore({"/memory/tree", "", disk_}, options, &check);
  EXPECT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(check.layer_files, 2u);
}

// What a layer cannot carry: a new macro (other files' macro uses depend on
// it), a new file; both write a new image and drop the layer.
TEST_F(StoreTest, ChangesALayerCannotCarryWriteANewImage) {
  Save();
  disk_->Add("aten/src/ATen/native/cuda/Frob.cu", std::string("\n") + kFrobCuda, 2);
  EXPECT_EQ(LoadOnce().layer_files, 1u);
  disk_->Add("aten/src/ATen/native/Frob.cpp", std::string("#define FROB_TWICE(x) x\n") + kFrobCpu, 3);
  StoreReport r = LoadOnce([](const Index& idx) {
    EXPECT_EQ(idx.cpp.MacrosNamed("FROB_TWICE").size(), 1u);
    EXPECT_EQ(LineOf(idx, "frob_cuda"), 4u);  // the layer's edit kept
  });
  ExpectNewImage(r);

  // A Python edit joins the layer; a new file does not.
  disk_->Add("aten/src/ATen/native/cuda/Frob.cu", std::string("\n\n") + kFrobCuda, 4);
  EXPECT_EQ(LoadOnce().layer_files, 1u);
  disk_->Add("torch/frob.py", std::string("\n") + kPy, 5);
  auto frob_py_moved = [](const Index& idx) { EXPECT_EQ(idx.py.FindModule("torch.frob")->functions[0].line, 3u); };
  EXPECT_EQ(LoadOnce(frob_py_moved).layer_files, 2u);
  r = LoadOnce(frob_py_moved);
  EXPECT_EQ(r.action, StoreReport::Action::kLoaded);
  EXPECT_EQ(r.layer_files, 2u);
  disk_->Add("torch/frob3.py", "def frob3():\n    pass\n", 6);
  r = LoadOnce([&](const Index& idx) {
    frob_py_moved(idx);
    EXPECT_EQ(LineOf(idx, "frob_cuda"), 5u);
    EXPECT_NE(idx.py.FindModule("torch.frob3"), nullptr);
  });
  ExpectNewImage(r);
  EXPECT_EQ(r.added, 1u);
}

// Two edits, one a layer could carry and one it cannot: one new image, each
// file counted once.
TEST_F(StoreTest, OneEditALayerCannotCarryMakesANewImageForAll) {
  Save();
  // Frob.cpp (first in listing order) could go to a layer; Frob.cu cannot.
  disk_->Add("aten/src/ATen/native/Frob.cpp", std::string("\n") + kFrobCpu, 2);
  disk_->Add("aten/src/ATen/native/cuda/Frob.cu", std::string("#define FROB_TWICE(x) x\n") + kFrobCuda, 2);
  StoreReport r = LoadOnce([](const Index& idx) {
    EXPECT_EQ(LineOf(idx, "frob_cpu"), 3u);
    EXPECT_EQ(idx.cpp.MacrosNamed("FROB_TWICE").size(), 1u);
  });
  ExpectNewImage(r);
  EXPECT_EQ(r.rescanned, 2u);
}

// A damaged layer is reported and ignored: the image's stamps then show the
// edit, which goes to a new layer. A layer made for another image is ignored quietly.
TEST_F(StoreTest, DamagedOrForeignLayersAreIgnored) {
  Save();
  disk_->Add("aten/src/ATen/native/cuda/Frob.cu", std::string("\n\n") + kFrobCuda, 2);
  EXPECT_EQ(LoadOnce().layer_files, 1u);
  const std::string layer = ImagePath() + ".layer";
  const std::string good = ReadText(layer);
  std::string damaged = good;
  damaged[20] ^= 0x11;  // in the header
  WriteText(layer, damaged);
  testing::internal::CaptureStderr();
  StoreReport r = LoadOnce([](const Index& idx) { EXPECT_EQ(LineOf(idx, "frob_cuda"), 5u); });
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("index layer"), std::string::npos) << err;
  EXPECT_NE(err.find("ignoring it"), std::string::npos) << err;
  EXPECT_EQ(r.action, StoreReport::Action::kUpdated);
  EXPECT_EQ(r.layer_files, 1u);
  // The image is rebuilt (--rebuild); the old layer, copied back, does not fit it.
  {
    Index idx;
    StoreOptions options;
    options.dir = dir_;
    options.rebuild = true;
    ASSERT_TRUE(LoadWithStore({"/memory/tree", "2.6.0a0", disk_}, options, &idx, &r).ok());
  }
  ReleaseArenaMemory();
  WriteText(layer, good);
  testing::internal::CaptureStderr();
  r = LoadOnce([](const Index& idx) { EXPECT_EQ(LineOf(idx, "frob_cuda"), 5u); });
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
  EXPECT_EQ(r.action, StoreReport::Action::kLoaded) << r.reason;
  EXPECT_EQ(r.layer_files, 0u);
}

// What a loaded index says about its C++ records, comparable with a build
// of the tree: every list in iteration order with each record's function
// named by (file, line), and every file's records as scanned.
std::vector<std::string> CppAnswers(const CppIndex& cpp) {
  std::vector<std::string> out;
  auto fn = [&](int32_t f) {
    if (f < 0) return std::string("-");
    const CppFunction& g = cpp.functions()[static_cast<size_t>(f)];
    return cpp.file(g.file) + ":" + std::to_string(g.line);
  };
  auto at = [&](uint32_t file, uint32_t line) { return cpp.file(file) + ":" + std::to_string(line); };
  for (const CppFunction& f : cpp.functions()) out.push_back("function " + f.qualified + " " + at(f.file, f.line));
  for (const CppLaunch& l : cpp.launches())
    out.push_back("launch " + l.kernel + " in " + fn(l.function) + " " + at(l.file, l.line));
  for (const CppCall& c : cpp.calls())
    out.push_back("call " + c.callee + " in " + fn(c.function) + " " + at(c.file, c.line));
  for (const CppMacroUse& u : cpp.macro_uses())
    out.push_back("use " + u.macro + " in " + fn(u.function) + " " + at(u.file, u.line));
  for (const DtypeDispatch& d : cpp.dtype_dispatches())
    out.push_back("dtype " + d.name + " in " + fn(d.function) + " " + at(d.file, d.line));
  for (const CppStubRef& r : cpp.stub_refs()) out.push_back("ref " + r.stub + " " + at(r.file, r.line));
  for (const StubRegistration& r : cpp.registrations()) out.push_back("reg " + r.stub + " " + at(r.file, r.line));
  for (uint32_t f = 0; f < cpp.files().size(); ++f) {
    const CppFileRecords r = cpp.RecordsOf(f);
    out.push_back(cpp.file(f) + ": " + std::to_string(r.functions.size()) + " functions, " +
                  std::to_string(r.macro_uses.size()) + " macro uses, " + std::to_string(r.stub_refs.size()) +
                  " stub refs");
  }
  const CppRecordCounts c = cpp.Counts();
  out.push_back("counts " + std::to_string(c.functions) + " " + std::to_string(c.macro_uses) + " " +
                std::to_string(c.stub_refs) + " " + std::to_string(c.launches) + " " + std::to_string(c.calls));
  return out;
}

// Edits to the first and the last C++ file, then to one in between (a
// second layer keeping the first's files), then the same Python module
// twice: each load answers as a build of the tree does. Z.cu's jiterator
// name is defined in the first file; its set-aside macro use and stub
// reference come back through RecordsOf.
TEST_F(StoreTest, LayersOverFirstLastAndMiddleFilesAnswerAsABuild) {
  constexpr char kFirst[] =
      "#define LAUNCH_IT(k) k<<<1, 1>>>(nullptr)\n"
      "DECLARE_DISPATCH(fn_t, frob_stub);\n"
      "constexpr char frob_name[] = \"frob_jit\";\n";
  constexpr char kLast[] =
      "namespace at { namespace native {\n"
      "__global__ void z_kernel(float* x) {}\n"
      "void z_last(TensorIterator& iter) {\n"
      "  LAUNCH_IT(z_kernel);\n"
      "  NOT_A_MACRO(iter);\n"
      "  jitted_gpu_kernel<frob_name, float, float, 1>(iter, \"\");\n"
      "  g(&frob_stub, &stray_stub);\n"
      "}\n"
      "}}\n";
  disk_->Add("aten/src/ATen/native/Aaa.h", kFirst);
  disk_->Add("aten/src/ATen/native/cuda/Zzz.cu", kLast);
  Save();
  auto same_as_build = [&](const Index& idx) {
    EXPECT_EQ(CppAnswers(idx.cpp), CppAnswers(CppIndex::Build(*disk_, 1)));
    PyIndex py = PyIndex::Build(*disk_, 1);
    ASSERT_EQ(idx.py.modules().size(), py.modules().size());
    for (size_t m = 0; m < py.modules().size(); ++m) {
      EXPECT_EQ(idx.py.NamesIn(m), py.NamesIn(m)) << py.modules()[m].path;
      ASSERT_EQ(idx.py.modules()[m].functions.size(), py.modules()[m].functions.size());
      for (size_t i = 0; i < py.modules()[m].functions.size(); ++i)
        EXPECT_EQ(idx.py.modules()[m].functions[i].line, py.modules()[m].functions[i].line);
    }
  };
  disk_->Add("aten/src/ATen/native/Aaa.h", std::string("\n") + kFirst + "void in_first() {}\n", 2);
  disk_->Add("aten/src/ATen/native/cuda/Zzz.cu", std::string("\n\n") + kLast, 2);
  StoreReport r = LoadOnce(same_as_build);
  EXPECT_EQ(r.layer_files, 2u);
  r = LoadOnce([&](const Index& idx) {
    same_as_build(idx);
    auto jit = std::find_if(idx.cpp.launches().begin(), idx.cpp.launches().end(),
                            [](const CppLaunch& l) { return l.kind == LaunchKind::kJiterator; });
    ASSERT_NE(jit, idx.cpp.launches().end());
    EXPECT_EQ(jit->kernel, "frob_jit");
    EXPECT_EQ(jit->line, 8u);
  });
  EXPECT_EQ(r.action, StoreReport::Action::kLoaded) << r.reason;
  disk_->Add("aten/src/ATen/native/Frob.cpp", std::string("\n") + kFrobCpu, 3);
  EXPECT_EQ(LoadOnce(same_as_build).layer_files, 3u);
  for (int i = 1; i <= 2; ++i) {
    disk_->Add("torch/frob.py", std::string(i, '\n') + kPy + "def more" + std::to_string(i) + "():\n    pass\n", 3 + i);
    r = LoadOnce(same_as_build);
    EXPECT_EQ(r.layer_files, 4u);
    EXPECT_EQ(r.rescanned, 1u);
  }
  r = LoadOnce([&](const Index& idx) {
    same_as_build(idx);
    EXPECT_EQ(idx.py.FindModule("torch.frob")->functions[1].name, "more2");
  });
  EXPECT_EQ(r.action, StoreReport::Action::kLoaded) << r.reason;
  // A new file: a new image from the layered one (its RecordsOf and Counts).
  disk_->Add("aten/src/ATen/native/Mid.cpp", "void mid() { LAUNCH_IT(z_kernel); }\n", 9);
  r = LoadOnce(same_as_build);
  EXPECT_EQ(r.layer_files, 0u);
  EXPECT_EQ(LoadOnce(same_as_build).action, StoreReport::Action::kLoaded);
}

// A touch without a change while a layer is on: the layer keeps its files,
// takes the new stamp, and the next load is served as is.
TEST_F(StoreTest, ATouchOverALayerKeepsItAndTheNextLoadIsFresh) {
  Save();
  disk_->Add("aten/src/ATen/native/cuda/Frob.cu", std::string("\n\n") + kFrobCuda, 2);
  EXPECT_EQ(LoadOnce().layer_files, 1u);
  disk_->Add("aten/src/ATen/native/Frob.cpp", kFrobCpu, 50);  // same text
  disk_->Add("torch/frob.py", kPy, 50);                       // same text
  StoreReport r = LoadOnce([](const Index& idx) { EXPECT_EQ(LineOf(idx, "frob_cuda"), 5u); });
  EXPECT_EQ(r.action, StoreReport::Action::kUpdated);
  EXPECT_EQ(r.rescanned, 0u);
  EXPECT_EQ(r.layer_files, 1u);
  r = LoadOnce([](const Index& idx) { EXPECT_EQ(LineOf(idx, "frob_cuda"), 5u); });
  EXPECT_EQ(r.action, StoreReport::Action::kLoaded) << r.reason;
  // Edited back as it was in the image: the layer still holds it, as now scanned.
  disk_->Add("aten/src/ATen/native/cuda/Frob.cu", kFrobCuda, 51);
  r = LoadOnce([](const Index& idx) { EXPECT_EQ(LineOf(idx, "frob_cuda"), 3u); });
  EXPECT_EQ(r.rescanned, 1u);
  EXPECT_EQ(LoadOnce([](const Index& idx) { EXPECT_EQ(LineOf(idx, "frob_cuda"), 3u); }).action,
            StoreReport::Action::kLoaded);
}

// At most 32 files in a layer (C++ and Python together); one more writes a new image.
TEST_F(StoreTest, ALayerHoldsAtMost32Files) {
  auto path = [](int i) { return "aten/src/ATen/native/F" + std::to_string(100 + i) + ".cpp"; };
  auto text = [](int i, int version) { return std::string(version, '\n') + "void f" + std::to_string(i) + "() {}\n"; };
  for (int i = 0; i < 33; ++i) disk_->Add(path(i), text(i, 0));
  Save();
  for (int i = 0; i < 31; ++i) disk_->Add(path(i), text(i, 1), 2);
  disk_->Add("torch/frob.py", std::string("\n") + kPy, 2);
  StoreReport r = LoadOnce();
  EXPECT_EQ(r.layer_files, 32u);
  EXPECT_TRUE(fs::exists(ImagePath() + ".layer"));
  disk_->Add(path(32), text(32, 1), 3);
  r = LoadOnce([&](const Index& idx) {
    EXPECT_EQ(LineOf(idx, "f0"), 2u);
    EXPECT_EQ(LineOf(idx, "f32"), 2u);
    EXPECT_EQ(LineOf(idx, "f31"), 1u);
  });
  ExpectNewImage(r);
}

// A MemoryDisk whose files in `unreadable` fail to read (stat still works).
class FlakyDisk : public MemoryDisk {
 public:
  explicit FlakyDisk(const MemoryDisk& files) : MemoryDisk(files) {}
  Status ReadFile(const std::string& path, std::string* contents) const override {
    if (unreadable.count(path)) return Status::SourceError(path + ": unreadable");
    return MemoryDisk::ReadFile(path, contents);
  }
  std::set<std::string> unreadable;
};

// A package's __init__.py that cannot be read any more: a rebuild indexes it
// as a module with an error (and not a package); so must the update.
TEST_F(StoreTest, AnUnreadablePackageInitAnswersAsABuild) {
  auto flaky = std::make_shared<FlakyDisk>(*disk_);
  auto load = [&](const std::function<void(const Index&)>& check) {
    StoreOptions options;
    options.dir = dir_;
    options.threads = 2;
    StoreReport report;
    {
      Index idx;
      Status s = LoadWithStore({"/memory/tree", "2.6.0a0", flaky}, options, &idx, &report);
      EXPECT_TRUE(s.ok()) << s.message();
      check(idx);
    }
    ReleaseArenaMemory();
    return report;
  };
  load([](const Index&) {});
  flaky->Add("torch/nn/__init__.py", "", 2);
  flaky->unreadable.insert("torch/nn/__init__.py");
  const PyIndex built = PyIndex::Build(*flaky, 1);
  const PyModule* want = built.FindModule("torch.nn");
  ASSERT_NE(want, nullptr);
  ASSERT_FALSE(want->error.empty());
  for (int pass = 0; pass < 2; ++pass) {
    load([&](const Index& idx) {
      const PyModule* got = idx.py.FindModule("torch.nn");
      ASSERT_NE(got, nullptr);
      EXPECT_EQ(got->error, want->error) << "pass " << pass;
      EXPECT_EQ(got->is_package, want->is_package) << "pass " << pass;
    });
  }
}

TEST_F(StoreTest, AddedAndRemovedFilesAreNoticed) {
  Save();
  disk_->Add("aten/src/ATen/native/cuda/Frob2.cu", "void frob2_cuda() {}\n", 5);
  disk_->Remove("aten/src/ATen/native/Frob.cpp");
  disk_->Add("torch/frob2.py", "def frob2():\n    pass\n", 5);
  Index idx;
  StoreReport r = Load(&idx);
  EXPECT_EQ(r.action, StoreReport::Action::kUpdated);
  EXPECT_EQ(r.added, 2u);
  EXPECT_EQ(r.removed, 1u);
  EXPECT_EQ(idx.cpp.FunctionsNamed("frob2_cuda").size(), 1u);
  EXPECT_TRUE(idx.cpp.FunctionsNamed("frob_cpu").empty());
  ASSERT_NE(idx.py.FindModule("torch.frob2"), nullptr);
  EXPECT_EQ(idx.py.FindModule("torch.frob2")->functions[0].name, "frob2");
  EXPECT_EQ(idx.cpp.files().size(), 2u);
}

TEST_F(StoreTest, AYamlChangeRebuildsEverything) {
  Save();
  disk_->Add(kNativeFunctionsPath, std::string(kNative) + "\n- func: frob2(Tensor self) -> Tensor\n", 7);
  Index idx;
  StoreReport r = Load(&idx);
  EXPECT_EQ(r.action, StoreReport::Action::kBuilt);
  EXPECT_EQ(r.reason, "the YAML files changed");
  ASSERT_NE(idx.yaml.Find("frob2"), nullptr);
  EXPECT_EQ(idx.yaml.Find("frob2")->line, 6);
}

TEST_F(StoreTest, CheckSaysFreshThenStale) {
  Save();
  StoreOptions options;
  options.dir = dir_;
  StoreReport r;
  EXPECT_TRUE(CheckStore({"/memory/tree", "", disk_}, options, &r).ok());
  disk_->Add("torch/frob.py", std::string(kPy) + "x = 1\n", 3);
  Status s = CheckStore({"/memory/tree", "", disk_}, options, &r);
  EXPECT_EQ(s.code(), ExitCode::kSource);
  EXPECT_NE(s.message().find("stale: 1 file changed"), std::string::npos) << s.message();
}

TEST_F(StoreTest, CheckFindsADamagedByteAnywhere) {
  Save();
  std::string bytes = ReadText(ImagePath());
  bytes[bytes.size() / 2 + 1] ^= 0x5a;  // a page a sampled check may not look at
  WriteText(ImagePath(), bytes);
  StoreOptions options;
  options.dir = dir_;
  StoreReport r;
  Status s = CheckStore({"/memory/tree", "", disk_}, options, &r);
  EXPECT_EQ(s.code(), ExitCode::kSource);
  EXPECT_NE(s.message().find("checksum mismatch"), std::string::npos) << s.message();
}

TEST_F(StoreTest, TruncatedForeignAndGarbageImagesAreRebuilt) {
  Save();
  std::string good = ReadText(ImagePath());
  struct Case {
    std::string bytes, reason;
  };
  std::string foreign = good;
  foreign[8] = 99;  // the format version field, after the 8-byte magic
  for (const Case& c :
       {Case{good.substr(0, good.size() / 2), "truncated"}, Case{"garbage", "truncated (no complete header)"},
        Case{std::string(8192, 'x'), "bad magic"}, Case{foreign, "header checksum mismatch"}}) {
    WriteText(ImagePath(), c.bytes);
    testing::internal::CaptureStderr();
    {
      Index idx;
      StoreReport r = Load(&idx);
      std::string err = testing::internal::GetCapturedStderr();
      EXPECT_EQ(r.action, StoreReport::Action::kBuilt) << c.reason;
      EXPECT_NE(r.reason.find(c.reason), std::string::npos) << r.reason;
      EXPECT_NE(err.find("is unusable"), std::string::npos) << err;
      EXPECT_EQ(idx.cpp.FunctionsNamed("frob_cuda").size(), 1u);
    }
    ReleaseArenaMemory();
  }
  Index idx;
  EXPECT_EQ(Load(&idx).action, StoreReport::Action::kLoaded);
}

TEST_F(StoreTest, NoWriteBuildsInMemory) {
  Index idx;
  StoreReport r = Load(&idx, /*write=*/false);
  EXPECT_EQ(r.action, StoreReport::Action::kInMemory);
  EXPECT_FALSE(fs::exists(ImagePath()));
  EXPECT_EQ(idx.cpp.FunctionsNamed("frob_cpu").size(), 1u);
}

TEST_F(StoreTest, BothArenaSlotsTakenStillGivesACorrectIndex) {
  Index a, b, c;
  Load(&a);                  // built into slot 0
  Load(&b);                  // the image cannot map over slot 0: rebuilt into slot 1
  StoreReport r = Load(&c);  // no slot left: the heap, not saved
  EXPECT_EQ(r.action, StoreReport::Action::kInMemory);
  EXPECT_EQ(c.cpp.FunctionsNamed("frob_cuda").size(), 1u);
  EXPECT_EQ(c.yaml.functions().size(), 1u);
}

// Issue 18 #3: the load verified 49 sampled pages, so damage elsewhere gave
// a SIGSEGV or silently missing records. Now every byte is checked at load.
TEST_F(StoreTest, ADamagedByteAnywhereIsRebuiltAtLoadWithOneLine) {
  Save();
  std::string good = ReadText(ImagePath());
  for (size_t at : {good.size() / 2 + 1, good.size() / 3 + 4097, good.size() - 5}) {
    std::string bytes = good;
    bytes[at] ^= 0x5a;
    WriteText(ImagePath(), bytes);
    testing::internal::CaptureStderr();
    {
      Index idx;
      StoreReport r = Load(&idx);
      std::string err = testing::internal::GetCapturedStderr();
      EXPECT_EQ(r.action, StoreReport::Action::kBuilt) << at;
      EXPECT_NE(r.reason.find("checksum mismatch"), std::string::npos) << r.reason;
      EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
      EXPECT_NE(err.find("is unusable (checksum mismatch"), std::string::npos) << err;
      EXPECT_EQ(idx.cpp.FunctionsNamed("frob_cuda").size(), 1u);
    }
    ReleaseArenaMemory();
    EXPECT_EQ(LoadOnce().action, StoreReport::Action::kLoaded);  // written again
  }
}

TEST_F(StoreTest, CheckSaysWhatToRun) {
  StoreOptions options;
  options.dir = dir_;
  StoreReport r;
  Status none = CheckStore({"/memory/tree", "", disk_}, options, &r);
  EXPECT_NE(none.message().find("run `optrace index`"), std::string::npos) << none.message();
  Save();
  std::string bytes = ReadText(ImagePath());
  bytes[bytes.size() / 2] ^= 1;
  WriteText(ImagePath(), bytes);
  Status damaged = CheckStore({"/memory/tree", "", disk_}, options, &r);
  EXPECT_NE(damaged.message().find("run `optrace index --rebuild`"), std::string::npos) << damaged.message();
}

// Issue 18 #4: a cache another user can write to is refused (exit 3).
TEST_F(StoreTest, ACacheFolderOrFileWritableByOthersIsRefused) {
  Save();
  ASSERT_EQ(::chmod(dir_.c_str(), 0777), 0);
  Index a;
  StoreOptions options;
  options.dir = dir_;
  StoreReport r;
  Status s = LoadWithStore({"/memory/tree", "2.6.0a0", disk_}, options, &a, &r);
  EXPECT_EQ(s.code(), ExitCode::kSource);
  EXPECT_NE(s.message().find("refusing to use the cache folder " + dir_), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("writable by other users (mode 0777)"), std::string::npos) << s.message();
  ASSERT_EQ(::chmod(dir_.c_str(), 0755), 0);
  ASSERT_EQ(::chmod(ImagePath().c_str(), 0666), 0);
  Index b;
  s = LoadWithStore({"/memory/tree", "2.6.0a0", disk_}, options, &b, &r);
  EXPECT_EQ(s.code(), ExitCode::kSource);
  EXPECT_NE(s.message().find(ImagePath() + " is writable by other users"), std::string::npos) << s.message();
  EXPECT_EQ(CheckStore({"/memory/tree", "", disk_}, options, &r).code(), ExitCode::kSource);
  ASSERT_EQ(::chmod(ImagePath().c_str(), 0644), 0);
  ASSERT_EQ(::symlink("/etc/passwd", (dir_ + "/planted").c_str()), 0);
  EXPECT_NE(CheckCacheDir(dir_).message().find("planted is a symbolic link"), std::string::npos);
  ::unlink((dir_ + "/planted").c_str());
  EXPECT_TRUE(CheckCacheDir(dir_).ok());
  EXPECT_TRUE(CheckCacheDir(dir_ + "/not-yet").ok());
}

// Issue 18 #9: a huge file is listed as skipped, not scanned.
TEST_F(StoreTest, FilesOverTheSizeCapAreSkippedNotScanned) {
  const std::string big(9u << 20, 'x');
  disk_->Add("aten/src/ATen/native/Huge.cpp", "void huge_function() {}\n" + big);
  disk_->Add("torch/huge.py", "def huge():\n    pass\n#" + big);
  Index idx;
  Load(&idx);
  EXPECT_TRUE(idx.cpp.FunctionsNamed("huge_function").empty());
  bool listed = false;
  for (const auto& s : idx.cpp.skipped())
    listed = listed || (s.path == "aten/src/ATen/native/Huge.cpp" && s.reason.find("too large (9.0 MiB") == 0);
  EXPECT_TRUE(listed);
  bool py_listed = false;
  for (const PyModule& m : idx.py.modules())
    py_listed = py_listed || (m.path == "torch/huge.py" && m.error.find("too large") == 0 && m.functions.empty());
  EXPECT_TRUE(py_listed);
  EXPECT_EQ(idx.cpp.FunctionsNamed("frob_cpu").size(), 1u);
}

// Issue 18 #14: a cache that cannot be written is said, not silently rebuilt.
TEST_F(StoreTest, ACacheThatCannotBeWrittenIsSaid) {
  WriteText(dir_ + "/file", "a file where a folder should be");
  StoreOptions options;
  options.dir = dir_ + "/file/optrace";
  StoreReport r;
  Index idx;
  testing::internal::CaptureStderr();
  ASSERT_TRUE(LoadWithStore({"/memory/tree", "2.6.0a0", disk_}, options, &idx, &r).ok());
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(r.action, StoreReport::Action::kInMemory);
  EXPECT_NE(err.find("cannot save the index in " + options.dir), std::string::npos) << err;
  EXPECT_NE(err.find("built in memory on every run"), std::string::npos) << err;
}

// This process's anonymous resident memory (heaps, the arena before it is
// written), from /proc/self/status.
size_t AnonymousResidentBytes() {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);)
    if (line.rfind("RssAnon:", 0) == 0) return std::stoull(line.substr(8)) * 1024;
  return 0;
}

// A build frees each file's scan once the image holds it and gives the memory
// back: the scans stayed in the process, freed but resident (BuildImage's
// malloc settings keep freed memory), so a cold run carried every scan beside
// the image into the trace that followed it. Here the scans are ~30 MB:
// held, a trim after the load gave them back.
TEST_F(StoreTest, ABuildLeavesNoFreedScansInMemory) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "ASan's allocator is not malloc's";
#endif
  for (int f = 0; f < 64; ++f) {
    std::string text = "namespace at { namespace native {\n";
    for (int i = 0; i < 1500; ++i)
      text += "Tensor f" + std::to_string(f) + "_" + std::to_string(i) +
              "(const Tensor& self) {\n  return at::frob(self);\n}\n";
    disk_->Add("aten/src/ATen/native/Many" + std::to_string(f) + ".cpp", text + "}}\n");
  }
  Index idx;
  Load(&idx);
  ASSERT_EQ(idx.cpp.FunctionsNamed("f63_1499").size(), 1u);
  const size_t after_load = AnonymousResidentBytes();
  ::malloc_trim(0);
  const size_t held = after_load - std::min(after_load, AnonymousResidentBytes());
  EXPECT_LT(held, size_t{4} << 20) << held << " bytes of freed memory were still held after the build";
}

// Issue 18 #9: copies of a file are indexed once, so a tree of hundreds of
// copies does not make every trace through them hundreds of times slower.
TEST_F(StoreTest, CopiesOfAFileAreIndexedOnceAndComeBackWhenTheyDiffer) {
  disk_->Add("aten/src/ATen/native/Frob2.cpp", kFrobCpu);
  disk_->Add("aten/src/ATen/native/Frob3.cpp", kFrobCpu);
  auto duplicates = [](const Index& idx) {
    std::vector<std::string> out;
    for (const auto& s : idx.cpp.skipped())
      if (s.reason.find("duplicate of ") == 0) out.push_back(s.path + ": " + s.reason);
    return out;
  };
  const std::vector<std::string> expected = {
      "aten/src/ATen/native/Frob2.cpp: duplicate of aten/src/ATen/native/Frob.cpp (the same contents)",
      "aten/src/ATen/native/Frob3.cpp: duplicate of aten/src/ATen/native/Frob.cpp (the same contents)"};
  {
    Index idx;
    Load(&idx);
    EXPECT_EQ(idx.cpp.FunctionsNamed("frob_cpu").size(), 1u);
    EXPECT_EQ(duplicates(idx), expected);
  }
  ReleaseArenaMemory();
  LoadOnce([&](const Index& idx) { EXPECT_EQ(duplicates(idx), expected); });  // from the image
  // The first copy edited: the second is indexed again, the third duplicates it.
  disk_->Add("aten/src/ATen/native/Frob.cpp", std::string("\n") + kFrobCpu, 5);
  StoreReport r = LoadOnce([&](const Index& idx) {
    EXPECT_EQ(idx.cpp.FunctionsNamed("frob_cpu").size(), 2u);
    EXPECT_EQ(duplicates(idx), std::vector<std::string>{"aten/src/ATen/native/Frob3.cpp: duplicate of "
                                                        "aten/src/ATen/native/Frob2.cpp (the same contents)"});
  });
  ExpectNewImage(r);
}

// Skipped copies take no room in the image: the records' room was reserved
// for every scanned file, copies too, so 800 copies of one file doubled the
// image (and the memory of every trace that loads it).
TEST_F(StoreTest, CopiesTakeNoRoomInTheImage) {
  std::string big = "namespace at { namespace native {\n";
  for (int i = 0; i < 4000; ++i) {
    const std::string n = std::to_string(i);
    big += "Tensor big_" + n + "(const Tensor& self) { return at::add(at::mul(self, " + n + "), at::sub(self, 1)); }\n";
  }
  big += "}}\n";
  disk_->Add("aten/src/ATen/native/Big.cpp", big);
  Save();
  const auto alone = fs::file_size(ImagePath());
  for (int i = 0; i < 40; ++i) disk_->Add("aten/src/ATen/native/copies/Big" + std::to_string(i) + ".cpp", big);
  fs::remove(ImagePath());
  Save();
  const auto with_copies = fs::file_size(ImagePath());
  // A copy adds its path, its stat and its skip reason: well under 1 KiB.
  // Room for 40 copies' records would be over 20 MiB.
  EXPECT_LT(with_copies, alone + (4u << 20)) << alone << " bytes alone";
  LoadOnce([](const Index& idx) { EXPECT_EQ(idx.cpp.FunctionsNamed("big_3999").size(), 1u); });
}

TEST(StorePathTest, KeyedByRootUnderTheCacheDir) {
  EXPECT_EQ(StorePath("/c", "/a").substr(0, 9), "/c/index-");
  EXPECT_EQ(StorePath("/c", "/a").size(), std::string("/c/index-0123456789abcdef.img").size());
  EXPECT_NE(StorePath("/c", "/a"), StorePath("/c", "/b"));
  EXPECT_EQ(StorePath("/c", "/a"), StorePath("/c", "/a"));
}

// ---------------------------------------------------------------------------
// Real processes on a copy of part of the 2.6.0 tree.

// Runs optrace with XDG_CACHE_HOME=cache; no_store builds from the tree.
ProcessRun Optrace(const std::string& cache, const std::string& args, bool no_store = false) {
  static int n = 0;
  std::string base = cache + "/run" + std::to_string(::getpid()) + "-" + std::to_string(n++);
  return RunOptrace("XDG_CACHE_HOME=" + cache + " OPTRACE_NO_VERSION_CHECK=1" + (no_store ? " OPTRACE_NO_STORE=1" : ""),
                    args, base);
}

class StoreProcessTest : public ::testing::Test {
 protected:
  void SetUp() override {
    REQUIRE_CORPUS("2.6.0");
    std::string from = CorpusTree("2.6.0");
    tree_ = TempDir("tree");
    cache_ = TempDir("cache");
    CopySoftmaxSlice(from, tree_);
    source_ = "--source " + tree_;
  }
  void TearDown() override {
    fs::remove_all(tree_);
    fs::remove_all(cache_);
  }
  std::string Cold(const std::string& query) {
    ProcessRun r = Optrace(cache_, "trace --json " + source_ + " " + query, /*no_store=*/true);
    EXPECT_EQ(r.rc, 0) << r.err;
    return r.out;
  }
  std::string ImagePath() const {
    for (const auto& e : fs::directory_iterator(cache_ + "/optrace"))
      if (e.path().extension() == ".img") return e.path();
    return "";
  }

  std::string tree_, cache_, source_;
};

TEST_F(StoreProcessTest, WarmTraceEqualsColdTraceAndIndexReportsLoaded) {
  std::string cold = Cold("F.softmax");
  ASSERT_NE(cold.find("softmax"), std::string::npos);
  ProcessRun first = Optrace(cache_, "trace --json " + source_ + " F.softmax");
  EXPECT_EQ(first.rc, 0) << first.err;
  EXPECT_EQ(first.out, cold);
  ProcessRun second = Optrace(cache_, "trace --json " + source_ + " F.softmax");
  EXPECT_EQ(second.out, cold);
  ProcessRun index = Optrace(cache_, "index " + source_);
  EXPECT_EQ(index.rc, 0) << index.err;
  EXPECT_NE(index.out.find("  loaded\n"), std::string::npos) << index.out;
  EXPECT_EQ(Optrace(cache_, "index --check " + source_).rc, 0);
}

TEST_F(StoreProcessTest, AnEditedCuFileShowsUpInTheNextTrace) {
  std::string before = Cold("aten::_softmax");
  EXPECT_EQ(Optrace(cache_, "trace --json " + source_ + " aten::_softmax").out, before);
  std::string cu = tree_ + "/aten/src/ATen/native/cuda/SoftMax.cu";
  WriteText(cu, "// three\n// new\n// lines\n" + ReadText(cu));
  EXPECT_EQ(Optrace(cache_, "index --check " + source_).rc, 3);
  std::string after = Cold("aten::_softmax");
  ASSERT_NE(after, before);  // SoftMax.cu's line numbers moved
  ProcessRun warm = Optrace(cache_, "trace --json " + source_ + " aten::_softmax");
  EXPECT_EQ(warm.out, after);
  ProcessRun index = Optrace(cache_, "index " + source_);
  EXPECT_NE(index.out.find("  loaded\n"), std::string::npos) << index.out;  // the trace saved the update
  EXPECT_NE(index.out.find("  layer: 1 edited file over the image"), std::string::npos) << index.out;
  EXPECT_EQ(Optrace(cache_, "index --check " + source_).rc, 0);
  // A second edited file and a Python module join the layer; a new file folds it into a new image.
  std::string cpp = tree_ + "/aten/src/ATen/native/SoftMax.cpp";
  WriteText(cpp, "\n" + ReadText(cpp));
  EXPECT_EQ(Optrace(cache_, "trace --json " + source_ + " aten::_softmax").out, Cold("aten::_softmax"));
  index = Optrace(cache_, "index " + source_);
  EXPECT_NE(index.out.find("  layer: 2 edited files over the image"), std::string::npos) << index.out;
  std::string py = tree_ + "/torch/nn/functional.py";
  WriteText(py, "# moved\n" + ReadText(py));
  std::string cold_py = Cold("F.softmax");
  EXPECT_EQ(Optrace(cache_, "trace --json " + source_ + " F.softmax").out, cold_py);
  index = Optrace(cache_, "index " + source_);
  EXPECT_NE(index.out.find("  layer: 3 edited files over the image"), std::string::npos) << index.out;
  WriteText(tree_ + "/aten/src/ATen/native/cuda/New.cu", "void brand_new() {}\n");
  EXPECT_EQ(Optrace(cache_, "trace --json " + source_ + " F.softmax").out, cold_py);
  index = Optrace(cache_, "index " + source_);
  EXPECT_NE(index.out.find("  loaded\n"), std::string::npos) << index.out;
  EXPECT_EQ(index.out.find("layer:"), std::string::npos) << index.out;
  EXPECT_FALSE(fs::exists(ImagePath() + ".layer"));
}

// `git checkout v1.13.1` in a 2.6.0 tree: every file and the YAML change
// (some files go, others come). The next trace answers for 1.13.1.
TEST_F(StoreProcessTest, CheckingOutAnotherTagShowsUpInTheNextTrace) {
  REQUIRE_CORPUS("1.13.1");
  const std::string before = Cold("F.softmax");
  EXPECT_EQ(Optrace(cache_, "trace --json " + source_ + " F.softmax").out, before);
  for (const auto& e : fs::directory_iterator(tree_)) fs::remove_all(e.path());
  CopySoftmaxSlice(CorpusTree("1.13.1"), tree_);
  const std::string after = Cold("F.softmax");
  ASSERT_NE(after, before);
  ProcessRun warm = Optrace(cache_, "trace --json " + source_ + " F.softmax");
  EXPECT_EQ(warm.out, after);
  ProcessRun index = Optrace(cache_, "index " + source_);
  EXPECT_NE(index.out.find("  loaded\n"), std::string::npos) << index.out;
  EXPECT_EQ(Optrace(cache_, "index --check " + source_).rc, 0);
}

TEST_F(StoreProcessTest, KillNineDuringARebuildLeavesAUsableIndex) {
  std::string cold = Cold("F.softmax");
  ASSERT_EQ(Optrace(cache_, "index " + source_).rc, 0);
  std::string image = ImagePath();
  ASSERT_FALSE(image.empty());
  // Kill rebuilds at several moments: scanning, merging, writing.
  for (int delay_ms : {30, 150, 400, 800}) {
    pid_t pid = ::fork();
    if (pid == 0) {
      ::setenv("XDG_CACHE_HOME", cache_.c_str(), 1);
      ::setenv("OPTRACE_NO_VERSION_CHECK", "1", 1);
      int null = ::open("/dev/null", O_WRONLY);
      ::dup2(null, 1);
      ::dup2(null, 2);
      ::execl(OPTRACE_BINARY, OPTRACE_BINARY, "index", "--rebuild", "--source", tree_.c_str(), (char*)nullptr);
      ::_exit(127);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
    ::kill(pid, SIGKILL);
    int status = 0;
    ::waitpid(pid, &status, 0);
    // Either the old image or a complete new one: never a torn file.
    ProcessRun check = Optrace(cache_, "index --check " + source_);
    EXPECT_EQ(check.rc, 0) << "after kill at " << delay_ms << " ms: " << check.err;
    ProcessRun warm = Optrace(cache_, "trace --json " + source_ + " F.softmax");
    EXPECT_EQ(warm.rc, 0) << warm.err;
    EXPECT_EQ(warm.out, cold) << "after kill at " << delay_ms << " ms";
  }
}

TEST_F(StoreProcessTest, TwoConcurrentColdRunsBothAnswerRight) {
  std::string cold = Cold("F.softmax");
  ProcessRun a, b;
  std::thread ta([&] { a = Optrace(cache_, "trace --json " + source_ + " F.softmax"); });
  std::thread tb([&] { b = Optrace(cache_, "trace --json " + source_ + " F.softmax"); });
  ta.join();
  tb.join();
  EXPECT_EQ(a.rc, 0) << a.err;
  EXPECT_EQ(b.rc, 0) << b.err;
  EXPECT_EQ(a.out, cold);
  EXPECT_EQ(b.out, cold);
  EXPECT_EQ(Optrace(cache_, "index --check " + source_).rc, 0);
}

TEST_F(StoreProcessTest, DamagedImagesAreRebuiltWithAMessage) {
  std::string cold = Cold("F.softmax");
  ASSERT_EQ(Optrace(cache_, "index " + source_).rc, 0);
  std::string image = ImagePath();
  std::string good = ReadText(image);
  for (const std::string& bad : {good.substr(0, good.size() - 4096), std::string("not an index\n"),
                                 good.substr(0, 4096) + std::string(good.size() - 4096, '\0')}) {
    WriteText(image, bad);
    ProcessRun warm = Optrace(cache_, "trace --json " + source_ + " F.softmax");
    EXPECT_EQ(warm.rc, 0) << warm.err;
    EXPECT_NE(warm.err.find("is unusable"), std::string::npos) << warm.err;
    EXPECT_EQ(warm.out, cold);
    EXPECT_EQ(Optrace(cache_, "index --check " + source_).rc, 0);  // and it was written again
  }
  // --check on a damaged file: exit 3 with a message.
  WriteText(image, good.substr(0, 100));
  ProcessRun check = Optrace(cache_, "index --check " + source_);
  EXPECT_EQ(check.rc, 3);
  EXPECT_NE(check.err.find("truncated"), std::string::npos) << check.err;
}

// Issue 18 #3, as reported: a 4 KiB page zeroed or 2 MB of garbage inside the
// image's body (written in place, as damage comes) gave missing ops or a
// SIGSEGV on every later run. Now: one line, a rebuild, the right answer.
TEST_F(StoreProcessTest, DamageInsideTheImageIsRebuiltWithOneLine) {
  std::string cold = Cold("F.softmax");
  ASSERT_EQ(Optrace(cache_, "index " + source_).rc, 0);
  std::string image = ImagePath();
  const std::string good = ReadText(image);
  ASSERT_GT(good.size(), 3u << 20);
  auto damage = [&](size_t at, const std::string& bytes) {
    std::fstream f(image, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(static_cast<std::streamoff>(at));
    f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  };
  std::string garbage(2u << 20, '\0');
  for (size_t i = 0; i < garbage.size(); ++i) garbage[i] = static_cast<char>(i * 7919 >> 3);
  for (const auto& [at, bytes] :
       {std::pair<size_t, std::string>{good.size() / 2 / 4096 * 4096, std::string(4096, '\0')},
        std::pair<size_t, std::string>{good.size() / 3, garbage}}) {
    damage(at, bytes);
    ProcessRun check = Optrace(cache_, "index --check " + source_);
    EXPECT_EQ(check.rc, 3);
    EXPECT_NE(check.err.find("optrace index --rebuild"), std::string::npos) << check.err;
    ProcessRun warm = Optrace(cache_, "trace --json " + source_ + " F.softmax");
    EXPECT_EQ(warm.rc, 0) << warm.err;
    EXPECT_EQ(warm.out, cold);
    EXPECT_EQ(std::count(warm.err.begin(), warm.err.end(), '\n'), 1) << warm.err;
    EXPECT_NE(warm.err.find("is unusable (checksum mismatch"), std::string::npos) << warm.err;
    EXPECT_EQ(Optrace(cache_, "index --check " + source_).rc, 0);
  }
}

// Issue 18 #11: an edit that keeps the size and the mtime (cp -p, rsync -t)
// was missed: old line numbers served, `index --check` said fresh.
TEST_F(StoreProcessTest, AnEditKeepingSizeAndMtimeShowsUp) {
  std::string before = Cold("aten::_softmax");
  ASSERT_EQ(Optrace(cache_, "trace --json " + source_ + " aten::_softmax").out, before);
  std::string cu = tree_ + "/aten/src/ATen/native/cuda/SoftMax.cu";
  struct stat st;
  ASSERT_EQ(::stat(cu.c_str(), &st), 0);
  std::string text = ReadText(cu);
  // Every line one down, the same number of bytes: a blank line first, the last newline gone.
  ASSERT_EQ(text.back(), '\n');
  std::string edited = "\n" + text.substr(0, text.size() - 1);
  ASSERT_EQ(edited.size(), text.size());
  WriteText(cu, edited);
  timespec times[2] = {st.st_atim, st.st_mtim};  // as cp -p leaves it
  ASSERT_EQ(::utimensat(AT_FDCWD, cu.c_str(), times, 0), 0);
  ProcessRun check = Optrace(cache_, "index --check " + source_);
  EXPECT_EQ(check.rc, 3) << check.out;
  std::string after = Cold("aten::_softmax");
  ASSERT_NE(after, before);
  EXPECT_EQ(Optrace(cache_, "trace --json " + source_ + " aten::_softmax").out, after);
}

}  // namespace
}  // namespace optrace
