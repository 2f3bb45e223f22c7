// Where PyTorch calls an op nondeterministic (alertNotDeterministic), with
// the conditions around the call read as under
// torch.use_deterministic_algorithms(True): a call the schema's defaults or
// the build rule out is no note; an open one keeps its conditions. The
// hermetic tree below has one alert of each kind (line numbers are lines
// of kScatterCu); the real trees' tests follow (their lines read with sed).
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "testing/memory_index.h"
#include "trace/trace.h"
#include "trace/trace_test_util.h"

namespace optrace {
namespace {

// aten/src/ATen/native/native_functions.yaml
constexpr char kNativeFunctions[] = R"x(- func: spread(Tensor self, bool accumulate=False) -> Tensor
  dispatch:
    CUDA: spread_cuda

- func: gather_sum(Tensor self, int mode) -> Tensor
  dispatch:
    CUDA: gather_sum_cuda

- func: rocm_only(Tensor self) -> Tensor
  dispatch:
    CUDA: rocm_only_cuda
)x";

// aten/src/ATen/native/cuda/Scatter.cu
constexpr char kScatterCu[] = R"x(namespace at::native {
Tensor spread_cuda(const Tensor& self, bool accumulate) {
  if (accumulate) {
    globalContext().alertNotDeterministic("spread_cuda");
  }
  return self;
}
Tensor gather_sum_cuda(const Tensor& self, int64_t mode) {
  if (mode == 2) {
    globalContext().alertNotDeterministic("gather_sum_cuda");
  }
  return self;
}
Tensor rocm_only_cuda(const Tensor& self) {
#if defined(USE_ROCM)
  globalContext().alertNotDeterministic("rocm_only_cuda");
#endif
  return self;
}
}
)x";

constexpr char kScatterCuPath[] = "aten/src/ATen/native/cuda/Scatter.cu";

class Nondeterminism : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_NO_FATAL_FAILURE(
        BuildMemoryIndex(MemoryTree({{"version.txt", "2.6.0a0\n"},
                                     {"aten/src/ATen/native/native_functions.yaml", kNativeFunctions},
                                     {kScatterCuPath, kScatterCu}}),
                         &index_));
  }
  const OpStep& Traced(const std::string& op_name) {
    trace_ = TraceIndex(index_, "aten::" + op_name, TraceOptions::Device::kCuda);
    const OpStep* op = FindOp(trace_, op_name);
    EXPECT_NE(op, nullptr);
    static const OpStep none;
    return op ? *op : none;
  }
  Index index_;
  Trace trace_;
};

TEST_F(Nondeterminism, AnAlertTheDefaultsRuleOutIsNoNote) {
  // :3 `if (accumulate)`, accumulate=False by the schema.
  EXPECT_TRUE(Traced("spread").nondeterministic.empty());
}

TEST_F(Nondeterminism, AnAlertTheBuildLeavesOutIsNoNote) {
  // :15 `#if defined(USE_ROCM)`: a CUDA build never compiles :16.
  EXPECT_TRUE(Traced("rocm_only").nondeterministic.empty());
}

TEST_F(Nondeterminism, AnOpenAlertKeepsItsCondition) {
  // :9 `if (mode == 2)`, mode has no default.
  const OpStep& op = Traced("gather_sum");
  ASSERT_EQ(op.nondeterministic.size(), 1u);
  const NondeterminismStep& n = op.nondeterministic[0];
  EXPECT_EQ(n.where.file, kScatterCuPath);
  EXPECT_EQ(n.where.line, 10);
  ASSERT_EQ(n.when.size(), 1u);
  EXPECT_EQ(n.when[0].text, "mode == 2");
  EXPECT_EQ(n.when[0].where.line, 9);
  EXPECT_TRUE(n.when[0].open);
}

// ScanUtils.cuh:455 alerts in the `#else` (:454) of `#if (defined(CUDA_VERSION)
// && CUDA_VERSION > 11040) || defined(USE_ROCM)` (:452), inside `if
// (C10_UNLIKELY(at::globalContext().deterministicAlgorithms()) && ...)`
// (:451): on a newer toolkit cumsum scans deterministically.
TEST_F(Tree260, CumsumAlertsOnlyInTheElseOfItsCudaVersionTest) {
  Trace t = TraceTree("2.6.0", "torch.cumsum", TraceOptions::Device::kCuda);
  const NondeterminismStep* alert = nullptr;
  for (const OpStep& op : t.ops)
    for (const NondeterminismStep& n : op.nondeterministic)
      if (n.where.file == "aten/src/ATen/native/cuda/ScanUtils.cuh" && n.where.line == 455) alert = &n;
  ASSERT_NE(alert, nullptr);
  bool version_test = false, deterministic_mode = false;
  for (const Condition& c : alert->when) {
    if (c.kind == ConditionKind::kPreprocessor && c.where.line == 452) {
      version_test = c.negated && c.open && c.text.find("CUDA_VERSION > 11040") != std::string::npos;
    }
    if (c.where.line == 451) deterministic_mode = c.holds;  // float32 under deterministic mode
  }
  EXPECT_TRUE(version_test);
  EXPECT_TRUE(deterministic_mode);
}

// TensorAdvancedIndexing.cpp:739 `if (!accumulate || (accumulate &&
// self.device().type() == DeviceType::CUDA))` around :740's alert:
// accumulate=False by default, so put_ on CUDA is nondeterministic.
// SummaryOps.cu:375 alerts only `if (weights_opt.has_value())`; bincount's weights
// default to None.
TEST_F(Tree260, PutAlertsByDefaultAndBincountOnlyWithWeights) {
  Trace put = TraceTree("2.6.0", "Tensor.put_", TraceOptions::Device::kCuda);
  const OpStep* op = FindOp(put, "put_");
  ASSERT_NE(op, nullptr);
  ASSERT_FALSE(op->nondeterministic.empty());
  EXPECT_EQ(op->nondeterministic[0].where.line, 740);
  for (const Condition& c : op->nondeterministic[0].when) EXPECT_FALSE(c.open) << c.text;
  Trace bincount = TraceTree("2.6.0", "torch.bincount", TraceOptions::Device::kCuda);
  const OpStep* bin = FindOp(bincount, "bincount");
  ASSERT_NE(bin, nullptr);
  for (const NondeterminismStep& n : bin->nondeterministic) ADD_FAILURE() << n.where.file << ":" << n.where.line;
}

}  // namespace
}  // namespace optrace
