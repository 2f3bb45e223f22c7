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

// The truth of local `name` at `line` of `file` under `a`, read through
// `locals`: "true", "false", or "" when the writes leave it open.
std::string Holds(LocalValues& locals, const Assumptions& a, const char* file, int line, const std::string& name) {
  Tri t = EvaluateWithLocals(name, locals.Of(name, Location{file, line, ""}, a), a);
  return t == Tri::kUnknown ? "" : t == Tri::kTrue ? "true" : "false";
}

// What `fast` holds at line 8 under `a`.
std::string FastHolds(LocalValues& locals, const Assumptions& a) { return Holds(locals, a, kFile, 8, "fast"); }

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

// Flags narrowed after their initializer, in a branch or not: the line
// numbers are those of the condition reading them (line 13).
constexpr char kNarrowCu[] = R"x(namespace at::native {

Tensor pick_cuda(const Tensor& self, int64_t op) {
  bool deterministic = globalContext().deterministicAlgorithms() && self.is_cuda();
  bool fast = true;
  bool ok = false;
  bool any = false;
  if (op == 1) {
    deterministic = deterministic && (op == 2);
    fast = fast && op > 3;
  }
  ok &= op > 4;
  any |= op > 5;
  if (deterministic || fast || ok || any) {
    return self;
  }
  return self.clone();
}

}  // namespace at::native
)x";

TEST(LocalValues, AFlagEveryLaterWriteKeepsHoldsItsInitializersTruth) {
  Index ix;
  const char* file = "aten/src/ATen/native/cuda/Narrow.cu";
  BuildMemoryIndex(MemoryTree({{"aten/src/ATen/native/native_functions.yaml", kNativeFunctions}, {file, kNarrowCu}}),
                   &ix);
  LocalValues locals(ix);
  const Assumptions typical;
  EXPECT_EQ(Holds(locals, typical, file, 15, "deterministic"), "false") << "false && (...) stays false";
  EXPECT_EQ(Holds(locals, typical, file, 15, "ok"), "false") << "false &= ... stays false";
  EXPECT_EQ(Holds(locals, typical, file, 15, "fast"), "") << "true && (op > 3) may turn it false";
  EXPECT_EQ(Holds(locals, typical, file, 15, "any"), "") << "false |= ... may turn it true";
  Assumptions deterministic;
  deterministic.deterministic = true;
  EXPECT_EQ(Holds(locals, deterministic, file, 15, "deterministic"), "") << "true && (op == 2) may not hold";
}

// `n` of launch() is a size at both its calls; `m` of other() is not at one.
constexpr char kCallersCu[] = R"x(namespace at::native {

void launch(int64_t n) {
  if (n == 0) return;
}

void other(int64_t m) {
  if (m == 0) return;
}

Tensor pick_cuda(const Tensor& self) {
  launch<4>(self.numel());
  launch(self.size(0) * self.size(1));
  other(self.numel());
  other(self.numel() - 1);
  return self;
}

}  // namespace at::native
)x";

TEST(LocalValues, AParameterEveryCallerPassesASizeIsOne) {
  Index ix;
  const char* file = "aten/src/ATen/native/cuda/Callers.cu";
  BuildMemoryIndex(MemoryTree({{"aten/src/ATen/native/native_functions.yaml", kNativeFunctions}, {file, kCallersCu}}),
                   &ix);
  LocalValues locals(ix);
  const Assumptions typical;
  auto at_least_one = [&](const char* name, int line) {
    return locals.Of(std::string(name) + " == 0", Location{file, line, ""}, typical).sizes.count(name) > 0;
  };
  EXPECT_TRUE(at_least_one("n", 4)) << "numel() and a product of sizes";
  EXPECT_FALSE(at_least_one("m", 8)) << "numel() - 1 may be 0";
}

TEST(LocalValues, AReceiverAskedWhetherItHoldsAValueIsALocalRead) {
  EXPECT_EQ(LocalValues::BareNames("!grad_output_r.defined() && x.size(0) == n || opt.has_value()"),
            (std::vector<std::string>{"grad_output_r", "n", "opt"}));
}

TEST(LocalValues, ALocalHoldingATypicalTensorsFormatIsContiguous) {
  // cuda/DilatedMaxPool2d.cu:327 `const auto memory_format = input_.suggest_memory_format();`.
  LocalsRead locals;
  locals.assigned["memory_format"] = "input_.suggest_memory_format()";
  Assumptions a;
  EXPECT_EQ(EvaluateWithLocals("memory_format == MemoryFormat::ChannelsLast", locals, a), Tri::kFalse);
  EXPECT_EQ(EvaluateWithLocals("memory_format == MemoryFormat::Contiguous", locals, a), Tri::kTrue);
  a.typical_sizes = false;
  EXPECT_EQ(EvaluateWithLocals("memory_format == MemoryFormat::ChannelsLast", locals, a), Tri::kUnknown);
}

TEST(AssumptionsKey, DiffersWhereAnyFieldDoes) {
  const Assumptions base;
  std::vector<Assumptions> changed(10, base);
  changed[0].device = CodeDevice::kCpu;
  changed[1].dtype = "float16";
  changed[2].cudnn = false;
  changed[3].rocm = true;
  changed[4].grad = false;
  changed[5].defaults["inplace"] = "False";
  changed[6].sizes.insert("n");
  changed[7].library_names = false;
  changed[8].backward_pass = true;
  changed[9].tunable_op = true;
  for (const Assumptions& a : changed) EXPECT_NE(a.Key(), base.Key());
  EXPECT_EQ(Assumptions{}.Key(), base.Key());
}

}  // namespace
}  // namespace optrace
