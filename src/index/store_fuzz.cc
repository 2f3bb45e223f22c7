// Fuzz target for loading an index image: the input patches a real image of
// a small tree (built once, at start) -- a truncation length, then
// (offset, bytes) patches -- and the damaged image is loaded as a new
// process would. Whatever the damage, the load must give the index of the
// tree (served from the image when it is intact, else rebuilt in memory),
// never a crash, a hang or an index missing what the tree holds.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>

#include "base/disk.h"
#include "base/pytorch_paths.h"
#include "index/index.h"
#include "index/store.h"
#include "index/store_arena.h"

namespace {

namespace fs = std::filesystem;
using namespace optrace;

constexpr char kRoot[] = "/memory/fuzz-tree";

struct Fixture {
  std::shared_ptr<MemoryDisk> disk = std::make_shared<MemoryDisk>();
  std::string dir, image_path, image;

  Fixture() {
    disk->Add(kNativeFunctionsPath,
              "- func: frob(Tensor self) -> Tensor\n  dispatch:\n    CPU: frob_cpu\n    CUDA: frob_cuda\n");
    disk->Add(kDerivativesPath, "- name: frob(Tensor self) -> Tensor\n  self: grad * 2\n");
    disk->Add("version.txt", "2.6.0a0\n");
    disk->Add("aten/src/ATen/native/Frob.cpp",
              "namespace at { namespace native {\nTensor frob_cpu(const Tensor& self) { return self; }\n}}\n");
    disk->Add("aten/src/ATen/native/cuda/Frob.cu",
              "namespace at { namespace native {\n__global__ void frob_kernel(float* x) {}\n"
              "Tensor frob_cuda(const Tensor& self) { frob_kernel<<<1, 1>>>(nullptr); return self; }\n}}\n");
    disk->Add("torch/frob.py", "import torch\ndef frob(x):\n    return torch.frob(x)\n");
    dir = (fs::temp_directory_path() / ("optrace-store-fuzz-" + std::to_string(::getpid()))).string();
    fs::create_directories(dir);
    image_path = StorePath(dir, kRoot);
    {
      Index built;
      if (!Load(&built, /*write=*/true).ok() || !Complete(built)) std::abort();
    }
    ReleaseArenaMemory();
    std::ifstream in(image_path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    image = ss.str();
    if (image.empty()) std::abort();
  }
  ~Fixture() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }

  Status Load(Index* out, bool write) const {
    StoreOptions options;
    options.dir = dir;
    options.write = write;
    options.threads = 1;
    StoreReport report;
    return LoadWithStore({kRoot, "2.6.0a0", disk}, options, out, &report);
  }
  // What any correct index of the tree holds.
  static bool Complete(const Index& index) {
    return index.yaml.Find("frob") && index.yaml.FindDerivative("frob") && index.cpp.files().size() == 2;
  }
};

uint32_t Read32(const uint8_t* p) {
  uint32_t v;
  std::memcpy(&v, p, sizeof(v));
  return v;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static Fixture fixture;
  std::string image = fixture.image;
  // First 4 bytes: keep the image whole (high bit clear) or truncate it.
  if (size >= 4) {
    uint32_t keep = Read32(data);
    if (keep & 0x80000000u) image.resize(keep % (image.size() + 1));
    data += 4, size -= 4;
  }
  // Then patches: a 4-byte offset, a length byte, that many bytes.
  while (size >= 5 && !image.empty()) {
    size_t at = Read32(data) % image.size();
    size_t len = std::min<size_t>({data[4], size - 5, image.size() - at});
    std::memcpy(image.data() + at, data + 5, len);
    data += 5 + len, size -= 5 + len;
  }
  {
    std::ofstream out(fixture.image_path, std::ios::binary | std::ios::trunc);
    out.write(image.data(), static_cast<std::streamsize>(image.size()));
  }
  {
    Index loaded;
    Status s = fixture.Load(&loaded, /*write=*/false);
    if (!s.ok() || !Fixture::Complete(loaded)) std::abort();
  }
  ReleaseArenaMemory();
  return 0;
}
