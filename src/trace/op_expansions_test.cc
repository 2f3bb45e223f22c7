// An op's expansion, and a forward op's backward, are made once per index
// and options and replayed by later traces (op_expansions.cc): a trace on an
// index that has expanded its ops before must equal the same trace on a
// fresh index, whatever the earlier traces reached and at what depth.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "testing/memory_index.h"
#include "trace/trace.h"

namespace optrace {
namespace {

// outer calls inner, inner calls comp, ghost and leaf; ghost's CPU kernel
// has no definition (a not_found entry); leaf's CUDA kernel launches a
// __global__ kernel.
constexpr char kNativeFunctions[] = R"x(- func: outer(Tensor self) -> Tensor
  dispatch:
    CPU, CUDA: outer_impl

- func: inner(Tensor self) -> Tensor
  dispatch:
    CPU, CUDA: inner_impl

- func: leaf(Tensor self) -> Tensor
  dispatch:
    CPU: leaf_cpu
    CUDA: leaf_cuda

- func: ghost(Tensor self) -> Tensor
  dispatch:
    CPU: ghost_cpu

- func: comp(Tensor self) -> Tensor
  dispatch:
    CompositeImplicitAutograd: comp
)x";

// inner's backward runs leaf; comp has an entry but only a
// CompositeImplicitAutograd kernel (a note: autograd differentiates its ops).
constexpr char kDerivatives[] = R"x(- name: inner(Tensor self) -> Tensor
  self: leaf(grad)

- name: comp(Tensor self) -> Tensor
  self: grad
)x";

constexpr char kOpsCpp[] = R"x(namespace at::native {

Tensor outer_impl(const Tensor& self) {
  return at::inner(self);
}

Tensor inner_impl(const Tensor& self) {
  auto t = at::ghost(self);
  return at::leaf(at::comp(t));
}

Tensor comp(const Tensor& self) {
  return self.clone();
}

Tensor leaf_cpu(const Tensor& self) {
  return self.clone();
}

} // namespace at::native
)x";

constexpr char kLeafCu[] = R"x(namespace at::native {

__global__ void leaf_kernel(float* out, const float* in, int64_t n) {
  out[threadIdx.x] = in[threadIdx.x];
}

Tensor leaf_cuda(const Tensor& self) {
  Tensor out = at::empty_like(self);
  leaf_kernel<<<1, 128, 0, at::cuda::getCurrentCUDAStream()>>>(out.data_ptr<float>(), self.data_ptr<float>(), self.numel());
  return out;
}

} // namespace at::native
)x";

std::shared_ptr<MemoryDisk> Tree() {
  return MemoryTree({{"version.txt", "2.6.0a0\n"},
                     {"aten/src/ATen/native/native_functions.yaml", kNativeFunctions},
                     {"tools/autograd/derivatives.yaml", kDerivatives},
                     {"aten/src/ATen/native/Ops.cpp", kOpsCpp},
                     {"aten/src/ATen/native/cuda/Leaf.cu", kLeafCu},
                     {"torch/__init__.py", ""}});
}

// What the expansion gives a trace, op by op, in the trace's order.
std::string Summary(const Trace& t) {
  std::string s;
  for (const OpStep& op : t.ops) {
    s += (op.role == OpRole::kBackward ? "backward " : "") + op.name + " from '" + op.reached_from + "' depth " +
         std::to_string(op.depth) + ":";
    for (const ImplStep& i : op.impls) s += " impl " + i.key + "=" + i.function + "@" + std::to_string(i.where.line);
    for (const ImplStep& h : op.helpers) s += " helper " + h.function;
    for (const KernelStep& k : op.kernels) s += " kernel " + k.name + "@" + std::to_string(k.launch_site.line);
    for (const OpCallStep& c : op.calls) s += " call " + c.op + "@" + std::to_string(c.where.line);
    for (const OpCallStep& c : op.other_device_calls) s += " other " + c.op;
    for (const std::string& n : op.notes) s += " note " + n;
    for (const std::string& a : op.also_reached_from) s += " also " + a;
    s += "\n";
  }
  for (const BackwardStep& b : t.backward) {
    s += "backward of " + b.op + ":";
    for (const std::string& o : b.ops) s += " " + o;
    s += "\n";
  }
  for (const std::string& n : t.notes) s += "note: " + n + "\n";
  for (const NotFoundStep& n : t.not_found) s += "not found: " + n.what + " " + n.detail + "\n";
  return s;
}

std::string TraceSummary(const Index& index, const std::string& query, const TraceOptions& options) {
  Trace t;
  Status s = TraceQuery(index, query, options, &t);
  EXPECT_TRUE(s.ok()) << query << ": " << s.message();
  return Summary(t);
}

std::string FreshSummary(const std::string& query, const TraceOptions& options) {
  Index fresh;
  BuildMemoryIndex(Tree(), &fresh);
  return TraceSummary(fresh, query, options);
}

TEST(OpExpansions, ATraceAfterOthersEqualsTheSameTraceOnAFreshIndex) {
  Index index;
  ASSERT_NO_FATAL_FAILURE(BuildMemoryIndex(Tree(), &index));
  TraceOptions options;
  const std::string outer = TraceSummary(index, "aten::outer", options);
  // inner, leaf and ghost were expanded by the outer trace, one level deeper.
  const std::string inner = TraceSummary(index, "aten::inner", options);
  EXPECT_EQ(inner, FreshSummary("aten::inner", options));
  EXPECT_EQ(TraceSummary(index, "aten::outer", options), outer);
  // The replayed expansion still queues what the op calls, and says what was not found.
  EXPECT_NE(inner.find("\nleaf from 'inner' depth 1: impl CPU=leaf_cpu"), std::string::npos) << inner;
  EXPECT_NE(inner.find("kernel leaf_kernel@9"), std::string::npos) << inner;
  EXPECT_NE(inner.find("not found: implementation ghost CPU"), std::string::npos) << inner;
  // ... and the replayed backward of each forward op: its entry, its ops, its notes.
  EXPECT_NE(inner.find("backward of inner: leaf\n"), std::string::npos) << inner;
  EXPECT_NE(inner.find("backward leaf from 'inner'"), std::string::npos) << inner;
  // comp runs inside inner's kernel, below autograd: its backward note comes with a trace of comp itself.
  const std::string comp = TraceSummary(index, "aten::comp", options);
  EXPECT_EQ(comp, FreshSummary("aten::comp", options));
  EXPECT_NE(comp.find("note: backward of comp: derivatives.yaml has an entry"), std::string::npos) << comp;
}

// A replayed op reads the expansion's steps, not a copy of them: two traces
// of one index hold one array of leaf's implementations, calls and (as
// annotated once, trace_paths.cc's SharedLaunches) kernels, and what one
// trace changes in its own stays out of the other's.
TEST(OpExpansions, TracesShareAReplayedOpsStepsUntilOneChangesThem) {
  Index index;
  ASSERT_NO_FATAL_FAILURE(BuildMemoryIndex(Tree(), &index));
  TraceOptions options;
  Trace first, second;
  ASSERT_TRUE(TraceQuery(index, "aten::inner", options, &first).ok());
  ASSERT_TRUE(TraceQuery(index, "aten::outer", options, &second).ok());
  auto named = [](Trace& t, const std::string& name) -> OpStep& {
    for (OpStep& op : t.ops)
      if (op.name == name && op.role == OpRole::kForward) return op;
    ADD_FAILURE() << "no forward " << name;
    return t.ops.front();
  };
  OpStep &a = named(first, "leaf"), &b = named(second, "leaf");
  ASSERT_FALSE(a.kernels.empty());
  EXPECT_TRUE(a.impls.SharesWith(b.impls));
  EXPECT_TRUE(a.kernels.SharesWith(b.kernels));
  EXPECT_TRUE(named(first, "inner").calls.SharesWith(named(second, "inner").calls));
  b.kernels.Edit()[0].name = "changed";
  EXPECT_EQ(a.kernels[0].name, "leaf_kernel");
  EXPECT_EQ(TraceSummary(index, "aten::inner", options), FreshSummary("aten::inner", options));
}

TEST(OpExpansions, AnOpAtTheDepthBoundIsExpandedAgainWhereItMayGoDeeper) {
  Index index;
  ASSERT_NO_FATAL_FAILURE(BuildMemoryIndex(Tree(), &index));
  TraceOptions options;
  options.depth = 1;
  // inner at depth 1: its calls are not followed (depth + 1 > --depth).
  const std::string outer = TraceSummary(index, "aten::outer", options);
  EXPECT_EQ(outer.find("\nleaf from"), std::string::npos) << outer;
  // inner as the entry op (depth 0): its calls are followed.
  const std::string inner = TraceSummary(index, "aten::inner", options);
  EXPECT_NE(inner.find("\nleaf from 'inner' depth 1"), std::string::npos) << inner;
  EXPECT_EQ(inner, FreshSummary("aten::inner", options));
}

TEST(OpExpansions, OtherOptionsAreExpandedOnTheirOwn) {
  Index index;
  ASSERT_NO_FATAL_FAILURE(BuildMemoryIndex(Tree(), &index));
  TraceOptions all, cpu;
  cpu.device = TraceOptions::Device::kCpu;
  TraceSummary(index, "aten::inner", all);
  const std::string on_cpu = TraceSummary(index, "aten::inner", cpu);
  EXPECT_EQ(on_cpu, FreshSummary("aten::inner", cpu));
  EXPECT_EQ(on_cpu.find("leaf_kernel"), std::string::npos) << on_cpu;
}

}  // namespace
}  // namespace optrace
