// A number compared with an enum member (`mode == BagMode::MAX`) is decided
// by the member's value as the index reads it (cpp/enum_members.h), on a
// small MemoryDisk tree written here: `bag` passes its schema defaults
// mode=0 and kind=1 on to `bag_impl`, whose conditions name a scoped
// enum's members, an unscoped enum's implicit ones, and members whose
// value the index does not know. Line numbers are lines of the raw strings
// below.
#include <gtest/gtest.h>

#include <string>

#include "cpp/cpp_index.h"
#include "cpp/enum_members.h"
#include "testing/memory_index.h"
#include "trace/trace.h"
#include "trace/trace_test_util.h"
#include "trace/trace_typical.h"

namespace optrace {
namespace {

// aten/src/ATen/native/native_functions.yaml
constexpr char kNativeFunctions[] = R"x(- func: bag(Tensor weight, int mode=0, int kind=1) -> Tensor

- func: bag_impl(Tensor weight, int mode, int kind) -> Tensor

- func: bag_max(Tensor weight) -> Tensor
  dispatch:
    CUDA: bag_max_cuda

- func: bag_sum(Tensor weight) -> Tensor
  dispatch:
    CUDA: bag_sum_cuda

- func: bag_one(Tensor weight) -> Tensor
  dispatch:
    CUDA: bag_one_cuda

- func: bag_clash(Tensor weight) -> Tensor
  dispatch:
    CUDA: bag_clash_cuda

- func: bag_unread(Tensor weight) -> Tensor
  dispatch:
    CUDA: bag_unread_cuda
)x";

// aten/src/ATen/native/Bag.h
constexpr char kBagH[] = R"x(namespace at::native {
enum class BagMode {
  SUM = 0,
  MEAN = 1,
  MAX = 2,
};
enum Kind { kNone, kOne, kTwo, kEnd };
enum class Clash { A = 1 };
enum class Unread { A = 1 << 2, B };
enum Reduce { None, Mean, Sum, END };
} // namespace at::native
namespace other {
enum class Clash { A = 2 };
}
)x";

// aten/src/ATen/native/Bag.cpp
constexpr char kBagCpp[] = R"x(namespace at::native {

Tensor bag(const Tensor& weight, int64_t mode, int64_t kind) {
  return at::bag_impl(weight, mode, kind);
}

Tensor bag_impl(const Tensor& weight, int64_t mode, int64_t kind) {
  if (mode == BagMode::MAX) {
    return at::bag_max(weight);
  }
  if (mode <= BagMode::MEAN && kind == kOne) {
    at::bag_sum(weight);
  }
  if (mode == Clash::A) {
    at::bag_clash(weight);
  }
  if (mode != Unread::B) {
    at::bag_unread(weight);
  }
  if (kind != Kind::kTwo) {
    return at::bag_one(weight);
  }
  return weight;
}

} // namespace at::native
)x";

// aten/src/ATen/native/cuda/Bag.cu
constexpr char kBagCu[] = R"x(namespace at::native {
Tensor bag_max_cuda(const Tensor& weight) { return weight; }
Tensor bag_sum_cuda(const Tensor& weight) { return weight; }
Tensor bag_one_cuda(const Tensor& weight) { return weight; }
Tensor bag_clash_cuda(const Tensor& weight) { return weight; }
Tensor bag_unread_cuda(const Tensor& weight) { return weight; }
} // namespace at::native
)x";

// The forward op `name` of `t`: "typical", "open" (`?`) or "ruled out"; "" when absent.
std::string Mark(const Trace& t, const std::string& name) {
  for (const OpStep& op : t.ops)
    if (op.name == name && op.role == OpRole::kForward)
      return op.typical ? "typical" : op.undecided ? "open" : "ruled out";
  return "";
}

TEST(EnumValuesTrace, ANumberAgainstAMemberIsDecidedByItsValue) {
  Index index;
  ASSERT_NO_FATAL_FAILURE(BuildMemoryIndex(MemoryTree({{"version.txt", "2.6.0a0\n"},
                                                       {"aten/src/ATen/native/native_functions.yaml", kNativeFunctions},
                                                       {"aten/src/ATen/native/Bag.h", kBagH},
                                                       {"aten/src/ATen/native/Bag.cpp", kBagCpp},
                                                       {"aten/src/ATen/native/cuda/Bag.cu", kBagCu}}),
                                           &index));
  const Trace t = TraceIndex(index, "aten::bag", TraceOptions::Device::kCuda, {});
  // Bag.cpp:8 `mode == BagMode::MAX`: mode is bag's default 0 (passed on at
  // :4), MAX is 2 (Bag.h:5): the max op never runs.
  EXPECT_EQ(Mark(t, "bag_max"), "ruled out");
  // :11 `mode <= BagMode::MEAN && kind == kOne`: 0 <= 1, and kind=1 is the
  // unscoped Kind's implicit kOne (Bag.h:7).
  EXPECT_EQ(Mark(t, "bag_sum"), "typical");
  // :20 `kind != Kind::kTwo`: 1 is not 2.
  EXPECT_EQ(Mark(t, "bag_one"), "typical");
  // :14 Clash::A is 1 in at::native and 2 in `other` (Bag.h:8, :13): never guessed.
  EXPECT_EQ(Mark(t, "bag_clash"), "open");
  // :17 Unread::B follows a value the index does not read (Bag.h:9).
  EXPECT_EQ(Mark(t, "bag_unread"), "open");
}

TEST(EvaluateCondition, ANumberAgainstAnEnumMemberIsDecidedByItsValue) {
  EnumValues enums;
  enums.Add(ScanCppFile("aten/src/ATen/native/Bag.h", kBagH).enum_members);
  Assumptions a;
  a.enums = &enums;
  a.defaults = {{"mode", "0"}, {"reduction", "1"}, {"named", "kTwo"}, {"none", "None"}};
  EXPECT_EQ(EvaluateCondition("mode == BagMode::MAX", false, a), Tri::kFalse);
  EXPECT_EQ(EvaluateCondition("mode != at::native::BagMode::MAX", false, a), Tri::kTrue);
  EXPECT_EQ(EvaluateCondition("mode == BagMode::SUM", false, a), Tri::kTrue);
  EXPECT_EQ(EvaluateCondition("mode < BagMode::MEAN", false, a), Tri::kTrue);
  EXPECT_EQ(EvaluateCondition("mode >= BagMode::MEAN", false, a), Tri::kFalse);
  EXPECT_EQ(EvaluateCondition("reduction == kOne", false, a), Tri::kTrue);
  EXPECT_EQ(EvaluateCondition("reduction == Kind::kEnd", false, a), Tri::kFalse);
  // A member held against a number: its value, too.
  EXPECT_EQ(EvaluateCondition("named == 2", false, a), Tri::kTrue);
  EXPECT_EQ(EvaluateCondition("named > 2", false, a), Tri::kFalse);
  // A name against a name compares last names, as before.
  EXPECT_EQ(EvaluateCondition("named == Kind::kTwo", false, a), Tri::kTrue);
  // Unknown: a namesake that disagrees, a value not read, no such enum.
  EXPECT_EQ(EvaluateCondition("mode == Clash::A", false, a), Tri::kUnknown);
  EXPECT_EQ(EvaluateCondition("mode == Unread::B", false, a), Tri::kUnknown);
  EXPECT_EQ(EvaluateCondition("mode == EmbeddingBagMode::MAX", false, a), Tri::kUnknown);
  // An empty optional equals no number, nor a member -- though Reduce has one named None.
  EXPECT_EQ(EvaluateCondition("none == BagMode::SUM", false, a), Tri::kFalse);
  EXPECT_EQ(EvaluateCondition("none != BagMode::SUM", false, a), Tri::kTrue);
  EXPECT_EQ(EvaluateCondition("none == 0", false, a), Tri::kFalse);
  EXPECT_EQ(EvaluateCondition("reduction == Reduce::Mean", false, a), Tri::kTrue);
  // Without the index's table, a member's value is not read.
  a.enums = nullptr;
  EXPECT_EQ(EvaluateCondition("mode == BagMode::MAX", false, a), Tri::kUnknown);
}

}  // namespace
}  // namespace optrace
