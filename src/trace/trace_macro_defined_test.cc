// Kernels defined by a use of their file's own macro (ForeachUnaryOp.cu's
// shape: OP(acos) -> CUSTOM(acos) -> foreach_tensor_acos_cuda): the
// implementation is found at the use, its body followed to its launch, and
// integer arithmetic on an element's numel() in the helper it calls is no
// tensor operator. The hermetic tree below is that shape in a few lines
// (line numbers are lines of kForeachCu); the real trees' tests follow
// (their lines read with sed).
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "testing/memory_index.h"
#include "trace/trace.h"
#include "trace/trace_test_util.h"

namespace optrace {
namespace {

// aten/src/ATen/native/native_functions.yaml
constexpr char kNativeFunctions[] = R"x(- func: _foreach_acos(Tensor[] self) -> Tensor[]
  dispatch:
    CompositeExplicitAutograd: foreach_tensor_acos_slow
    CUDA: foreach_tensor_acos_cuda

- func: div.Tensor(Tensor self, Tensor other) -> Tensor
  variants: function, method
  dispatch:
    CUDA: div_cuda

- func: add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor
  variants: function, method
  dispatch:
    CUDA: add_cuda

- func: acos(Tensor self) -> Tensor
  variants: function, method
  dispatch:
    CUDA: acos_cuda
)x";

// aten/src/ATen/native/ForeachOpsKernels.cpp
constexpr char kSlowCpp[] = R"x(namespace at::native {
std::vector<Tensor> foreach_tensor_acos_slow(TensorList tensors) {
  std::vector<Tensor> result;
  for (const auto& t : tensors) result.emplace_back(t.acos());
  return result;
}
Tensor div_cuda(const Tensor& self, const Tensor& other) { return self; }
Tensor add_cuda(const Tensor& self, const Tensor& other, const Scalar& alpha) { return self; }
Tensor acos_cuda(const Tensor& self) { return self; }
}
)x";

// aten/src/ATen/native/cuda/ForeachUnaryOp.cu
constexpr char kForeachCu[] = R"x(namespace at::native {
__global__ void apply_kernel(int64_t n) {}
template <typename T>
void apply(std::vector<std::vector<at::Tensor>>& lists) {
  for (size_t t = 0; t < lists[0].size(); t++) {
    const auto numel = lists[0][t].numel();
    const auto chunks = numel / 65536 + (numel % 65536 != 0);
    apply_kernel<<<chunks, 512>>>(numel);
  }
}
#define CUSTOM(op_name)                                                     \
  std::vector<Tensor> foreach_tensor_##op_name##_cuda(TensorList tensors) { \
    if (!can_use_fast_route({tensors})) {                                   \
      return at::native::foreach_tensor_##op_name##_slow(tensors);          \
    }                                                                       \
    std::vector<std::vector<at::Tensor>> lists{tensors.vec()};              \
    apply<float>(lists);                                                    \
    return lists[0];                                                        \
  }
#define OP(op_name) CUSTOM(op_name)
OP(acos)
}
)x";

class MacroDefined : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_NO_FATAL_FAILURE(
        BuildMemoryIndex(MemoryTree({{"version.txt", "2.6.0a0\n"},
                                     {"aten/src/ATen/native/native_functions.yaml", kNativeFunctions},
                                     {"aten/src/ATen/native/ForeachOpsKernels.cpp", kSlowCpp},
                                     {"aten/src/ATen/native/cuda/ForeachUnaryOp.cu", kForeachCu}}),
                         &index_));
  }
  Index index_;
};

TEST_F(MacroDefined, TheImplementationAUseWritesIsFoundAndFollowed) {
  Trace t = TraceIndex(index_, "aten::_foreach_acos", TraceOptions::Device::kCuda);
  const OpStep* op = FindOp(t, "_foreach_acos");
  ASSERT_NE(op, nullptr);
  const ImplStep* cuda = nullptr;
  for (const ImplStep& i : op->impls)
    if (i.key == "CUDA") cuda = &i;
  ASSERT_NE(cuda, nullptr);
  EXPECT_EQ(cuda->function, "foreach_tensor_acos_cuda");
  EXPECT_EQ(cuda->where.file, "aten/src/ATen/native/cuda/ForeachUnaryOp.cu");
  EXPECT_EQ(cuda->where.line, 21);  // OP(acos)
  bool launched = false;
  for (const KernelStep& k : op->kernels) launched = launched || (k.name == "apply_kernel" && k.where.line == 2);
  EXPECT_TRUE(launched);
  for (const auto& n : t.not_found) EXPECT_EQ(n.detail.find("foreach_tensor_acos_cuda"), std::string::npos) << n.detail;
}

TEST_F(MacroDefined, ArithmeticOnAnElementsNumelIsNoTensorOperator) {
  // :6 `const auto numel = lists[0][t].numel();` :7 `numel / 65536 + ...`: integers.
  Trace t = TraceIndex(index_, "aten::_foreach_acos", TraceOptions::Device::kCuda);
  EXPECT_EQ(FindOp(t, "div.Tensor"), nullptr);
  EXPECT_EQ(FindOp(t, "add.Tensor"), nullptr);
}

const ImplStep* ImplOf(const OpStep& op, const std::string& key) {
  for (const ImplStep& i : op.impls)
    if (i.key == key) return &i;
  return nullptr;
}

// RNN.cpp:1375 `ONE_HIDDEN_RNN(gru, GRUCell<CellParams>)` defines gru; its
// #define (:1184) calls gru_cudnn_stub under `at::cudnn_is_acceptable(_input)`
// (:1204), then returns; cudnn/RNN.cpp:2685 `ONE_HIDDEN_RNN(gru, CUDNN_GRU)`
// defines the registered gru_cudnn. The CPU fallback after the return
// (`_input.transpose(0, 1)`, :1239) is off the typical path.
TEST_F(Tree260, GruIsWrittenByAMacroUseAndRunsCudnn) {
  Trace t = TraceTree("2.6.0", "nn.GRU", TraceOptions::Device::kCuda);
  const OpStep* gru = FindOp(t, "gru.input");
  ASSERT_NE(gru, nullptr);
  const ImplStep* impl = ImplOf(*gru, "CompositeImplicitAutograd");
  ASSERT_NE(impl, nullptr);
  EXPECT_EQ(impl->where.file, "aten/src/ATen/native/RNN.cpp");
  EXPECT_EQ(impl->where.line, 1375);
  ASSERT_FALSE(gru->stubs.empty());
  const StubStep& stub = gru->stubs.front();
  EXPECT_EQ(stub.name, "gru_cudnn_stub");
  EXPECT_TRUE(stub.typical);
  EXPECT_FALSE(stub.undecided);
  ASSERT_FALSE(stub.registrations.empty());
  EXPECT_EQ(stub.registrations.front().target_definition.file, "aten/src/ATen/native/cudnn/RNN.cpp");
  EXPECT_EQ(stub.registrations.front().target_definition.line, 2685);
  const OpStep* transpose = FindOp(t, "transpose.int");
  EXPECT_TRUE(transpose == nullptr || !transpose->typical);
  const OpStep* cudnn = FindOp(t, "_cudnn_rnn");
  ASSERT_NE(cudnn, nullptr);
  EXPECT_TRUE(cudnn->typical);
  bool under_acceptable = false;  // read in the #define, on the way from gru to the stub
  for (const Condition& c : cudnn->when)
    under_acceptable = under_acceptable || c.Describe() == "when at::cudnn_is_acceptable(_input)";
  EXPECT_TRUE(under_acceptable);
}

TEST_F(Tree1131, GruIsWrittenByAMacroUse) {
  // RNN.cpp:1327 ONE_HIDDEN_RNN(gru, GRUCell<CellParams>); cudnn/RNN.cpp:1693 ONE_HIDDEN_RNN(gru, CUDNN_GRU).
  Trace t = TraceTree("1.13.1", "nn.GRU", TraceOptions::Device::kCuda);
  const OpStep* gru = FindOp(t, "gru.input");
  ASSERT_NE(gru, nullptr);
  const ImplStep* impl = ImplOf(*gru, "CompositeImplicitAutograd");
  ASSERT_NE(impl, nullptr);
  EXPECT_EQ(impl->where.line, 1327);
  ASSERT_FALSE(gru->stubs.empty());
  ASSERT_FALSE(gru->stubs.front().registrations.empty());
  EXPECT_EQ(gru->stubs.front().registrations.front().target_definition.line, 1693);
}

// ForeachUnaryOp.cu:247 `OP(floating_complex_half_bfloat16, acos, Acos);`
// writes foreach_tensor_acos_cuda through OP_CUSTOM_FUNCTOR (:217), which
// falls back to CompositeExplicitAutograd's foreach_tensor_acos_slow
// (ForeachOpsKernels.cpp, acos at :240) at :222 unless the fast route is
// taken, and launches multi_tensor_apply_kernel (MultiTensorApply.cuh:100).
// The fallback is another key's kernel: a note names it, and its acos is no
// op of the CUDA path.
TEST_F(Tree260, ForeachKernelsAreFoundAtTheirMacroUse) {
  Trace t = TraceTree("2.6.0", "aten::_foreach_acos", TraceOptions::Device::kCuda);
  const OpStep* op = FindOp(t, "_foreach_acos");
  ASSERT_NE(op, nullptr);
  const ImplStep* cuda = ImplOf(*op, "CUDA");
  ASSERT_NE(cuda, nullptr);
  EXPECT_EQ(cuda->function, "foreach_tensor_acos_cuda");
  EXPECT_EQ(cuda->where.file, "aten/src/ATen/native/cuda/ForeachUnaryOp.cu");
  EXPECT_EQ(cuda->where.line, 247);
  bool launched = false;
  for (const KernelStep& k : op->kernels)
    launched = launched || (k.name == "multi_tensor_apply_kernel" &&
                            k.where.file == "aten/src/ATen/native/cuda/MultiTensorApply.cuh" && k.where.line == 100);
  EXPECT_TRUE(launched);
  EXPECT_EQ(FindOp(t, "acos"), nullptr);
  EXPECT_TRUE(HasNoteContaining(*op,
                                "CompositeExplicitAutograd's foreach_tensor_acos_slow directly "
                                "(aten/src/ATen/native/cuda/ForeachUnaryOp.cu:222)"));
}

}  // namespace
}  // namespace optrace
