// An op's launches and its edges to the ops it calls are annotated once per
// remembered expansion and shared by later traces of the index
// (trace/shared_annotations.h): what a trace on a warm index says of each
// launch and each op -- conditions, typical or open -- must equal the same
// trace on a fresh index, whether the op was met first as an entry op or
// reached from another op's code, and with what a helper's defaults
// decided on the way.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "testing/memory_index.h"
#include "trace/trace.h"
#include "trace/trace_test_util.h"

namespace optrace {
namespace {

// outer calls leaf; leaf launches fast_kernel (through launch_fast) only
// when its `fast` argument (false by default) is set, slow_kernel otherwise.
constexpr char kNativeFunctions[] = R"x(- func: outer(Tensor self) -> Tensor
  dispatch:
    CUDA: outer_impl

- func: leaf(Tensor self, bool fast=False) -> Tensor
  dispatch:
    CUDA: leaf_cuda

- func: picker(Tensor self) -> Tensor
  dispatch:
    CUDA: picker_cuda

- func: rare(Tensor self) -> Tensor
  dispatch:
    CUDA: rare_cuda

- func: halfy(Tensor self) -> Tensor
  dispatch:
    CUDA: halfy_cuda

- func: fast_caller(Tensor self) -> Tensor
  dispatch:
    CUDA: fast_caller_cuda

- func: slow_caller(Tensor self) -> Tensor
  dispatch:
    CUDA: slow_caller_cuda
)x";

constexpr char kOpsCu[] = R"x(namespace at::native {

template <typename T>
__global__ void fast_kernel(T* out, int64_t n) {
  out[threadIdx.x] = 0;
}

template <typename T>
__global__ void slow_kernel(T* out, int64_t n) {
  out[threadIdx.x] = 1;
}

void launch_fast(Tensor& out) {
  fast_kernel<float><<<1, 128, 0, at::cuda::getCurrentCUDAStream()>>>(out.data_ptr<float>(), out.numel());
}

void launch_slow(Tensor& out) {
  slow_kernel<float><<<1, 128, 0, at::cuda::getCurrentCUDAStream()>>>(out.data_ptr<float>(), out.numel());
}

Tensor leaf_cuda(const Tensor& self, bool fast) {
  Tensor out = at::empty_like(self);
  if (fast) {
    launch_fast(out);
  } else {
    launch_slow(out);
  }
  return out;
}

Tensor outer_impl(const Tensor& self) {
  return at::leaf(self);
}

// picker calls rare only in a mode its helper's default rules out.
Tensor run_mode(const Tensor& self, int64_t mode = 0) {
  if (mode == 1) {
    return at::rare(self);
  }
  return self;
}

Tensor picker_cuda(const Tensor& self) {
  return run_mode(self);
}

Tensor rare_cuda(const Tensor& self) {
  return self;
}

// The launch a local flag picks by dtype: decided by the assumptions.
Tensor halfy_cuda(const Tensor& self) {
  Tensor out = at::empty_like(self);
  const bool half = self.scalar_type() == at::kHalf;
  if (half) {
    launch_fast(out);
  } else if (self.scalar_type() == at::kFloat) {
    launch_slow(out);
  }
  return out;
}

// leaf reached with `fast` passed: set by one caller, clear by the other.
Tensor fast_caller_cuda(const Tensor& self) {
  return at::leaf(self, true);
}

Tensor slow_caller_cuda(const Tensor& self) {
  return at::leaf(self, false);
}

} // namespace at::native
)x";

std::shared_ptr<MemoryDisk> Tree() {
  return MemoryTree({{"version.txt", "2.6.0a0\n"},
                     {"aten/src/ATen/native/native_functions.yaml", kNativeFunctions},
                     {"aten/src/ATen/native/cuda/Ops.cu", kOpsCu},
                     {"torch/__init__.py", ""}});
}

// Each launch of op `name`: its kernel, whether typical or open, its conditions.
std::string Launches(const Trace& t, const std::string& name) {
  const OpStep* op = FindOp(t, name);
  if (!op) return "no op " + name;
  std::string s;
  for (const KernelStep& k : op->kernels) {
    s += k.name + (k.typical ? " typical" : "") + (k.undecided ? " open" : "") + ":";
    for (const Condition& c : k.when) s += " " + c.Describe();
    s += "\n";
  }
  return s;
}

std::string FreshLaunches(const std::string& query, const std::string& op, std::vector<std::string> assume = {}) {
  Index fresh;
  BuildMemoryIndex(Tree(), &fresh);
  return Launches(TraceIndex(fresh, query, TraceOptions::Device::kCuda, std::move(assume)), op);
}

TEST(SharedAnnotations, AnOpReachedFromCodeAndThenAsTheEntryIsAnnotatedForEach) {
  Index index;
  ASSERT_NO_FATAL_FAILURE(BuildMemoryIndex(Tree(), &index));
  // Reached from outer's code: the caller may pass `fast`, so its launch stays open.
  const std::string reached = Launches(TraceIndex(index, "aten::outer", TraceOptions::Device::kCuda), "leaf");
  EXPECT_NE(reached.find("fast_kernel typical open: when fast"), std::string::npos) << reached;
  EXPECT_NE(reached.find("slow_kernel typical:"), std::string::npos) << reached;
  // The entry op: its schema's default rules the fast launch out.
  const std::string entry = Launches(TraceIndex(index, "aten::leaf", TraceOptions::Device::kCuda), "leaf");
  EXPECT_NE(entry.find("fast_kernel: when fast"), std::string::npos) << entry;
  EXPECT_EQ(entry, FreshLaunches("aten::leaf", "leaf"));
  // And again from code, after the entry's annotation was kept.
  EXPECT_EQ(Launches(TraceIndex(index, "aten::outer", TraceOptions::Device::kCuda), "leaf"), reached);
  EXPECT_EQ(reached, FreshLaunches("aten::outer", "leaf"));
}

// The other order: the launches kept for the entry op are not an op
// reached from code's (the memo's key holds whether the op is an entry).
TEST(SharedAnnotations, AnOpTracedAsTheEntryAndThenReachedFromCodeIsMarkedForEach) {
  Index index;
  ASSERT_NO_FATAL_FAILURE(BuildMemoryIndex(Tree(), &index));
  const std::string entry = Launches(TraceIndex(index, "aten::leaf", TraceOptions::Device::kCuda), "leaf");
  EXPECT_NE(entry.find("fast_kernel: when fast"), std::string::npos) << entry;
  const std::string reached = Launches(TraceIndex(index, "aten::outer", TraceOptions::Device::kCuda), "leaf");
  EXPECT_NE(reached.find("fast_kernel typical open: when fast"), std::string::npos) << reached;
  EXPECT_EQ(reached, FreshLaunches("aten::outer", "leaf"));
}

// What a trace knows of an op beyond its code (here: what its caller
// passes it) is part of the key its annotation is shared by: a trace whose
// caller passes `fast` otherwise annotates leaf afresh, and one whose
// caller passes the same replays it.
TEST(SharedAnnotations, AnOpPassedOtherArgumentsIsAnnotatedForEach) {
  Index index;
  ASSERT_NO_FATAL_FAILURE(BuildMemoryIndex(Tree(), &index));
  const std::string fast = Launches(TraceIndex(index, "aten::fast_caller", TraceOptions::Device::kCuda), "leaf");
  // A launch the caller's argument rules out stays open (launch_conditions.h).
  EXPECT_NE(fast.find("fast_kernel typical: when fast"), std::string::npos) << fast;
  EXPECT_NE(fast.find("slow_kernel typical open: unless fast"), std::string::npos) << fast;
  const std::string slow = Launches(TraceIndex(index, "aten::slow_caller", TraceOptions::Device::kCuda), "leaf");
  EXPECT_NE(slow.find("fast_kernel typical open: when fast"), std::string::npos) << slow;
  EXPECT_NE(slow.find("slow_kernel typical: unless fast"), std::string::npos) << slow;
  EXPECT_EQ(slow, FreshLaunches("aten::slow_caller", "leaf"));
  EXPECT_EQ(Launches(TraceIndex(index, "aten::fast_caller", TraceOptions::Device::kCuda), "leaf"), fast);
  EXPECT_EQ(fast, FreshLaunches("aten::fast_caller", "leaf"));
}

// Each op: typical or open, and its conditions.
std::string Ops(const Trace& t) {
  std::string s;
  for (const OpStep& op : t.ops) {
    s += op.name + (op.typical ? " typical" : "") + (op.undecided ? " open" : "") + ":";
    for (const Condition& c : op.when) s += " " + c.Describe();
    s += "\n";
  }
  return s;
}

TEST(SharedAnnotations, AnEdgeReadBeforeKeepsWhatItsHelperDefaultsDecided) {
  Index index;
  ASSERT_NO_FATAL_FAILURE(BuildMemoryIndex(Tree(), &index));
  const std::string first = Ops(TraceIndex(index, "aten::picker", TraceOptions::Device::kCuda));
  // run_mode's `mode` is 0 where picker calls it: rare is off the path.
  EXPECT_NE(first.find("\nrare: when mode == 1 when dispatch device == CUDA\n"), std::string::npos) << first;
  // The second trace reads the edges from the shared annotations.
  EXPECT_EQ(Ops(TraceIndex(index, "aten::picker", TraceOptions::Device::kCuda)), first);
  Index fresh;
  ASSERT_NO_FATAL_FAILURE(BuildMemoryIndex(Tree(), &fresh));
  EXPECT_EQ(Ops(TraceIndex(fresh, "aten::picker", TraceOptions::Device::kCuda)), first);
}

// What a condition is worth is kept with the index per set of assumptions
// (trace/path_values.h): a later trace under other assumptions evaluates
// the same conditions -- a local flag's and a plain one's -- afresh.
TEST(SharedAnnotations, ConditionsKeptForOneSetOfAssumptionsAreNotAnothers) {
  Index index;
  ASSERT_NO_FATAL_FAILURE(BuildMemoryIndex(Tree(), &index));
  const std::string float32 = Launches(TraceIndex(index, "aten::halfy", TraceOptions::Device::kCuda), "halfy");
  EXPECT_NE(float32.find("fast_kernel: when half"), std::string::npos) << float32;
  EXPECT_NE(float32.find("slow_kernel typical:"), std::string::npos) << float32;
  const std::string float16 =
      Launches(TraceIndex(index, "aten::halfy", TraceOptions::Device::kCuda, {"dtype=float16"}), "halfy");
  EXPECT_NE(float16.find("fast_kernel typical: when half"), std::string::npos) << float16;
  EXPECT_EQ(float16.find("slow_kernel typical"), std::string::npos) << float16;
  EXPECT_EQ(float16, FreshLaunches("aten::halfy", "halfy", {"dtype=float16"}));
  EXPECT_EQ(Launches(TraceIndex(index, "aten::halfy", TraceOptions::Device::kCuda), "halfy"), float32);
  EXPECT_EQ(float32, FreshLaunches("aten::halfy", "halfy"));
}

}  // namespace
}  // namespace optrace
