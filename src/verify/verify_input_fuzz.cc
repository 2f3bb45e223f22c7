// libFuzzer target for the readers of user input that issue 29 found
// unbounded: `scan`'s use scanner (call chains and their receivers: the
// text is a user's model file) and the `verify --observed` document reader.
// The first byte picks the reader; the rest is the input. Any input must
// return without crashing, in time linear in its size (the driver's
// per-input budget catches a quadratic chain), and the scan's JSON must
// stay within a fixed multiple of the input (receivers are never repeated
// per link).
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>

#include "base/disk.h"
#include "base/json.h"
#include "index/index.h"
#include "usescan/usescan.h"
#include "verify/verify.h"

namespace {

// A two-op checkout: enough for the scanner to resolve torch.relu, x.relu()
// and F.relu and to classify them.
const optrace::Index& TinyIndex() {
  static optrace::Index* index = [] {
    auto disk = std::make_shared<optrace::MemoryDisk>();
    disk->Add("version.txt", "2.6.0a0\n");
    disk->Add("aten/src/ATen/native/native_functions.yaml",
              "- func: relu(Tensor self) -> Tensor\n  variants: function, method\n"
              "- func: add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor\n"
              "  variants: function, method\n");
    disk->Add("aten/src/ATen/native/tags.yaml", "- tag: pointwise\n  desc: x\n");
    disk->Add("torch/__init__.py", "from torch._C._VariableFunctions import *\n");
    disk->Add("torch/nn/functional.py", "def relu(input):\n    return torch.relu(input)\n");
    auto* ix = new optrace::Index;
    ix->root = "/fuzz/pytorch";
    ix->disk = disk;
    ix->version = "2.6.0a0";
    if (!optrace::YamlModel::Load(*disk, &ix->yaml).ok()) std::abort();
    ix->cpp = optrace::CppIndex::Build(*disk, 1);
    ix->py = optrace::PyIndex::Build(*disk, 1);
    return ix;
  }();
  return *index;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  if (data[0] & 1) {
    optrace::Observed observed;
    (void)optrace::ParseObserved(std::string(text), &observed);
    return 0;
  }
  optrace::ScanReport report;
  (void)optrace::ScanUserFile(TinyIndex(), "model.py", text, &report);
  std::string json = optrace::DumpJson(optrace::ScanToJson(report, {}));
  if (json.size() > 4096 + 400 * text.size()) std::abort();  // no receiver repeated per link
  return 0;
}
