// The shared answers of lookup/ on the real 2.6.0 tree: facts checked by hand
// with grep (file:line noted beside each), and the query names ("did you
// mean", the meanings of a bare name) that the CLI and the MCP tools offer.
#include <gtest/gtest.h>

#include <algorithm>

#include "index/query_names.h"
#include "lookup/find.h"
#include "lookup/find_json.h"
#include "lookup/op.h"
#include "lookup/py.h"
#include "lookup/query.h"
#include "testing/test_tree_index.h"
#include "testing/test_util.h"
#include "trace/trace.h"

namespace optrace {
namespace {

bool Has(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

class Lookup260 : public ::testing::Test {
 protected:
  void SetUp() override { REQUIRE_CORPUS("2.6.0"); }
  const Index& ix() { return TreeIndex("2.6.0"); }
};

TEST_F(Lookup260, ConvOffersModulesFunctionsAndTheAtenOp) {
  std::vector<std::string> near = SuggestQueries(ix(), "conv");
  for (const char* want :
       {"nn.Conv1d", "nn.Conv2d", "nn.Conv3d", "F.conv1d", "F.conv2d", "F.conv3d", "aten::convolution"})
    EXPECT_TRUE(Has(near, want)) << want;
  // aten::conv2d is what F.conv2d calls: not offered twice.
  EXPECT_FALSE(Has(near, "aten::conv2d"));
}

TEST_F(Lookup260, CaseAndShortNames) {
  EXPECT_EQ(SuggestQueries(ix(), "nn.lstm").at(0), "nn.LSTM");                        // torch/nn/modules/rnn.py:795
  EXPECT_EQ(SuggestQueries(ix(), "F.sdpa").at(0), "F.scaled_dot_product_attention");  // functional.py:5720
  EXPECT_EQ(SuggestQueries(ix(), "nn.LTSM").at(0), "nn.LSTM");
  EXPECT_TRUE(Has(SuggestQueries(ix(), "aten::sofmax"), "aten::softmax"));
}

TEST_F(Lookup260, AmbiguousBareNameListsItsMeanings) {
  // aten::norm (native_functions.yaml:6767), torch.norm (torch/functional.py:1676),
  // Tensor.norm (torch/_tensor.py:860): three different pieces of code.
  EXPECT_EQ(BareNameMeanings(ix(), "norm"), (std::vector<std::string>{"aten::norm", "torch.norm", "Tensor.norm"}));
  EXPECT_TRUE(BareNameMeanings(ix(), "add").empty());  // torch.add and Tensor.add are bindings of aten::add
  EXPECT_TRUE(BareNameMeanings(ix(), "torch.norm").empty());
  Trace t;
  Status s = TraceQuery(ix(), "norm", TraceOptions{}, &t);
  EXPECT_EQ(s.code(), ExitCode::kNotFound);
  EXPECT_TRUE(t.ops.empty());
  EXPECT_EQ(t.suggestions, (std::vector<std::string>{"aten::norm", "torch.norm", "Tensor.norm"}));
  Trace named;
  EXPECT_TRUE(TraceQuery(ix(), "aten::norm", TraceOptions{}, &named).ok());
}

TEST_F(Lookup260, UnknownTraceQuerySuggestsFromTheSameList) {
  Trace t;
  EXPECT_EQ(TraceQuery(ix(), "conv", TraceOptions{}, &t).code(), ExitCode::kNotFound);
  EXPECT_TRUE(Has(t.suggestions, "nn.Conv2d"));
  EXPECT_TRUE(Has(t.suggestions, "aten::convolution"));
}

TEST_F(Lookup260, OpNamesInEverySpelling) {
  for (const char* q : {"add.Tensor", "aten::add.Tensor", "torch.ops.aten.add.Tensor"}) {
    OpAnswer a = LookupOp(ix().yaml, q);
    ASSERT_EQ(a.entries.size(), 1u) << q;
    EXPECT_EQ(a.entries[0]->line, 552);  // native_functions.yaml:552
  }
  OpAnswer mm = LookupOp(ix().yaml, "torch.ops.aten.mm.default");
  ASSERT_EQ(mm.entries.size(), 1u);
  EXPECT_EQ(mm.entries[0]->line, 4132);
  EXPECT_GT(LookupOp(ix().yaml, "add").entries.size(), 3u);
  OpAnswer typo = LookupOp(ix().yaml, "_sofmax");
  EXPECT_TRUE(typo.entries.empty());
  EXPECT_TRUE(Has(typo.suggestions, "_softmax"));
  EXPECT_TRUE(Has(LookupOp(ix().yaml, "aten::add.Tensr").suggestions, "add.Tensor"));
}

TEST_F(Lookup260, FindAStubAKernelAnOpAndAPythonName) {
  // ReduceOps.h:44 DECLARE_DISPATCH(structured_cum_fn, cumsum_stub); registered at
  // cpu/ReduceOpsKernel.cpp:444 and cuda/ScanKernels.cpp:107.
  FindAnswer stub = FindName(ix(), "cumsum_stub");
  ASSERT_FALSE(stub.stub_decls.empty());
  bool declared = false;
  for (uint32_t i : stub.stub_decls) {
    const StubDecl& d = ix().cpp.stub_decls()[i];
    declared = declared || (ix().cpp.file(d.file) == "aten/src/ATen/native/ReduceOps.h" && d.line == 44);
  }
  EXPECT_TRUE(declared);
  std::vector<std::string> registered;
  for (uint32_t i : stub.stub_registrations) {
    const StubRegistration& r = ix().cpp.registrations()[i];
    registered.push_back(ix().cpp.file(r.file) + ":" + std::to_string(r.line));
  }
  EXPECT_TRUE(Has(registered, "aten/src/ATen/native/cpu/ReduceOpsKernel.cpp:444"));
  EXPECT_TRUE(Has(registered, "aten/src/ATen/native/cuda/ScanKernels.cpp:107"));

  FindAnswer kernel = FindName(ix(), "softmax_warp_forward");
  ASSERT_FALSE(kernel.definitions.empty());
  const CppFunction& k = ix().cpp.functions()[kernel.definitions[0]];
  EXPECT_EQ(ix().cpp.file(k.file), "aten/src/ATen/native/cuda/PersistentSoftmax.cuh");
  EXPECT_EQ(k.line, 68u);
  EXPECT_FALSE(kernel.launches_of.empty());

  FindAnswer op = FindName(ix(), "aten::add.Tensor");
  ASSERT_EQ(op.ops.size(), 1u);
  EXPECT_EQ(op.ops[0]->line, 552);

  FindAnswer py = FindName(ix(), "nn.LSTM");
  ASSERT_EQ(py.python.size(), 1u);
  PyLocation l = LocatePython(ix().py, py.python[0]);
  EXPECT_EQ(l.path, "torch/nn/modules/rnn.py");
  EXPECT_EQ(l.line, 795u);

  FindAnswer typo = FindName(ix(), "softmax_warp_forwrd");
  EXPECT_FALSE(typo.found());
  EXPECT_TRUE(Has(typo.suggestions, "softmax_warp_forward"));
}

TEST(QueryLength, LongQueriesAreUsageErrorsBeforeAnyWork) {
  EXPECT_TRUE(CheckQueryLength(std::string(kMaxQueryLength, 'a')).ok());
  Status s = CheckQueryLength(std::string(kMaxQueryLength + 1, 'a'));
  EXPECT_EQ(s.code(), ExitCode::kUsage);
  // Characters, not bytes.
  std::string accented;
  for (size_t i = 0; i < kMaxQueryLength; ++i) accented += "\xc3\xa9";
  EXPECT_TRUE(CheckQueryLength(accented).ok());
}

}  // namespace
}  // namespace optrace

namespace optrace {
namespace {

// issue 26: `find` takes a kernel name as a profiler prints it and answers for the code it runs.
TEST(LookupKernelName, AProfilerNameFindsTheFunctionHoldingItsLambda) {
  REQUIRE_CORPUS("2.6.0");
  const Index& ix = TreeIndex("2.6.0");
  FindAnswer a = FindName(ix,
                          "void at::native::vectorized_elementwise_kernel<4, at::native::sigmoid_kernel_cuda(at::"
                          "TensorIteratorBase&)::{lambda()#2}::operator()() const::{lambda()#2}::operator()() const::"
                          "{lambda(float)#1}, std::array<char*, 2ul> >(int)");
  EXPECT_EQ(a.name, "sigmoid_kernel_cuda");
  ASSERT_EQ(a.definitions.size(), 1u);
  const CppFunction& f = ix.cpp.functions()[a.definitions[0]];
  EXPECT_EQ(ix.cpp.file(f.file), "aten/src/ATen/native/cuda/UnarySpecialOpsKernel.cu");
  EXPECT_EQ(f.line, 124u);
  EXPECT_FALSE(a.registered_as_target.empty());  // REGISTER_DISPATCH(sigmoid_stub, &sigmoid_kernel_cuda)
}

// The one JSON form of the answer (CLI and MCP): each list holds at most
// `limit` items, `totals` counts them all, and a launch says how it relates
// to the name (PersistentSoftmax.cuh:329, inside #define LAUNCH_SOFTMAX_WARP_FORWARD).
TEST_F(Lookup260, FindJsonBoundsEveryListAndCountsAll) {
  const nlohmann::ordered_json kernel = FindJson(ix(), FindName(ix(), "softmax_warp_forward"), 10);
  ASSERT_EQ(kernel["launches"].size(), 1u);
  EXPECT_EQ(kernel["launches"][0]["relation"], "of");
  EXPECT_EQ(kernel["launches"][0]["line"], 329);
  EXPECT_EQ(kernel["launches"][0]["from"], "#define LAUNCH_SOFTMAX_WARP_FORWARD");
  EXPECT_EQ(kernel["definitions"][0]["body"], nlohmann::ordered_json::array({69, 212}));

  const nlohmann::ordered_json add = FindJson(ix(), FindName(ix(), "add"), 3);
  EXPECT_EQ(add["callers"].size(), 3u);
  EXPECT_GT(add["totals"]["callers"].get<size_t>(), 3u);
  const nlohmann::ordered_json all = FindJson(ix(), FindName(ix(), "add"), 0);
  EXPECT_EQ(all["callers"].size(), add["totals"]["callers"].get<size_t>());
}

}  // namespace
}  // namespace optrace
