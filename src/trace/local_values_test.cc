// LocalValues remembers what a condition's locals hold per index, for every
// trace of it (trace/local_values.h): a reading from the memo must equal a
// fresh index's, and the assumptions are part of what it is kept by -- a
// write in `#ifdef USE_ROCM` counts on a ROCm build only.
#include "trace/local_values.h"

#include <gtest/gtest.h>

#include <string>

#include "testing/memory_index.h"

namespace optrace {
namespace {

constexpr char kNativeFunctions[] = R"x(- func: pick(Tensor self) -> Tensor
  dispatch:
    CUDA: pick_cuda
)x";

// `fast` is written once on CUDA (line 4) and twice on ROCm (lines 4 and 6);
// the condition reading it is on line 8.
constexpr char kPickCu[] = R"x(namespace at::native {

Tensor pick_cuda(const Tensor& self) {
  bool fast = false;
#ifdef USE_ROCM
  fast = true;
#endif
  if (fast) {
    return self;
  }
  return self.clone();
}

}  // namespace at::native
)x";

constexpr char kFile[] = "aten/src/ATen/native/cuda/Pick.cu";

void BuildPickIndex(Index* ix) {
  BuildMemoryIndex(MemoryTree({{"aten/src/ATen/native/native_functions.yaml", kNativeFunctions}, {kFile, kPickCu}}),
                   ix);
}

// What `fast` holds at line 8 under `a`, read through `locals` ("" when
// it is not one known assignment).
std::string FastHolds(LocalValues& locals, const Assumptions& a) {
  const LocalsRead& read = locals.Of("fast", Location{kFile, 8, ""}, a);
  auto it = read.assigned.find("fast");
  return it == read.assigned.end() ? "" : it->second;
}

Assumptions Rocm() {
  Assumptions a;
  a.rocm = true;
  return a;
}

TEST(LocalValuesMemo, AReadingKeptForOneBuildIsNotAnothersAndEqualsAFreshIndexs) {
  Index fresh_cuda, fresh_rocm, shared;
  BuildPickIndex(&fresh_cuda);
  BuildPickIndex(&fresh_rocm);
  BuildPickIndex(&shared);
  LocalValues cuda_alone(fresh_cuda), rocm_alone(fresh_rocm);
  const std::string on_cuda = FastHolds(cuda_alone, Assumptions{});
  const std::string on_rocm = FastHolds(rocm_alone, Rocm());
  EXPECT_EQ(on_cuda, "false");  // the ROCm write is not compiled
  EXPECT_EQ(on_rocm, "");       // two writes: either may hold

  // One index, traces in turn (each its own LocalValues): CUDA, ROCm, CUDA.
  LocalValues first(shared), second(shared), third(shared);
  EXPECT_EQ(FastHolds(first, Assumptions{}), on_cuda);
  EXPECT_EQ(FastHolds(second, Rocm()), on_rocm);
  EXPECT_EQ(FastHolds(third, Assumptions{}), on_cuda);
}

TEST(LocalValuesMemo, TheOtherOrderToo) {
  Index fresh, shared;
  BuildPickIndex(&fresh);
  BuildPickIndex(&shared);
  LocalValues alone(fresh);
  const std::string on_cuda = FastHolds(alone, Assumptions{});
  LocalValues first(shared), second(shared);
  EXPECT_EQ(FastHolds(first, Rocm()), "");
  EXPECT_EQ(FastHolds(second, Assumptions{}), on_cuda);
  EXPECT_EQ(on_cuda, "false");
}

TEST(AssumptionsKey, DiffersWhereAnyFieldDoes) {
  const Assumptions base;
  std::vector<Assumptions> changed(9, base);
  changed[0].device = CodeDevice::kCpu;
  changed[1].dtype = "float16";
  changed[2].cudnn = false;
  changed[3].rocm = true;
  changed[4].grad = false;
  changed[5].defaults["inplace"] = "False";
  changed[6].sizes.insert("n");
  changed[7].library_names = false;
  changed[8].backward_pass = true;
  for (const Assumptions& a : changed) EXPECT_NE(a.Key(), base.Key());
  EXPECT_EQ(Assumptions{}.Key(), base.Key());
}

}  // namespace
}  // namespace optrace
