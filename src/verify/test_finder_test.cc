// `optrace tests`' reader on the real 2.6.0 and 1.13.1 trees (lines checked
// with sed: common_methods_invocations.py:14548 is OpInfo('softmax', ...),
// :14560 its with_dtype variant, sample_inputs_softmax_variant is defined at
// opinfo/definitions/_masked.py:36; common_modules.py:4363 is
// ModuleInfo(torch.nn.LSTM, ...) whose module_inputs_torch_nn_LSTM is at
// :2781 and whose skips hold DecorateInfo(skipMPS) at :4369), and on a small
// MemoryDisk tree for skips and tolerance overrides.
#include <algorithm>

#include <gtest/gtest.h>

#include "base/checkout.h"
#include "base/disk.h"
#include "testing/test_tree_index.h"
#include "testing/test_util.h"
#include "verify/test_finder.h"

namespace optrace {
namespace {

TestsAnswer Find(const std::string& version, const std::string& query) {
  Checkout checkout;
  EXPECT_TRUE(FindCheckout(CorpusTree(version), &checkout).ok());
  TestsAnswer answer;
  Status s = FindTests(*checkout.disk, query, &answer);
  EXPECT_TRUE(s.ok()) << s.message();
  return answer;
}

TEST(TestFinder, SoftmaxOpInfosOf260) {
  REQUIRE_CORPUS("2.6.0");
  TestsAnswer a = Find("2.6.0", "F.softmax");
  ASSERT_GE(a.entries.size(), 2u);
  const TestEntry& plain = a.entries[0];
  EXPECT_EQ(plain.kind, "OpInfo");
  EXPECT_EQ(plain.name, "softmax");
  EXPECT_EQ(plain.file, "torch/testing/_internal/common_methods_invocations.py");
  EXPECT_EQ(plain.line, 14548);
  EXPECT_EQ(plain.matched_by, "alias");
  ASSERT_FALSE(plain.functions.empty());
  EXPECT_EQ(plain.functions[0].role, "sample_inputs_func");
  EXPECT_EQ(plain.functions[0].name, "sample_inputs_softmax_variant");
  EXPECT_EQ(plain.functions[0].file, "torch/testing/_internal/opinfo/definitions/_masked.py");
  EXPECT_EQ(plain.functions[0].line, 36);
  EXPECT_EQ(plain.dtypes[0], "cpu: floating_types_and(torch.half, torch.bfloat16)");
  EXPECT_EQ(a.entries[1].line, 14560);
  EXPECT_EQ(a.entries[1].variant, "with_dtype");
  ASSERT_FALSE(a.database_tests.empty());
  bool test_ops = false;
  for (const auto& u : a.database_tests) test_ops |= u.file == "test/test_ops.py";
  EXPECT_TRUE(test_ops);
}

TEST(TestFinder, LstmModuleInfoOf260) {
  REQUIRE_CORPUS("2.6.0");
  TestsAnswer a = Find("2.6.0", "nn.LSTM");
  ASSERT_EQ(a.entries.size(), 1u);
  const TestEntry& e = a.entries[0];
  EXPECT_EQ(e.kind, "ModuleInfo");
  EXPECT_EQ(e.name, "torch.nn.LSTM");
  EXPECT_EQ(e.file, "torch/testing/_internal/common_modules.py");
  EXPECT_EQ(e.line, 4363);
  ASSERT_FALSE(e.functions.empty());
  EXPECT_EQ(e.functions[0].name, "module_inputs_torch_nn_LSTM");
  EXPECT_EQ(e.functions[0].line, 2781);
  // skipMPS of its own skips, then the six of decorators=rnn_gru_lstm_module_info_decorators
  // (common_modules.py:3151): test_grad, test_gradgrad and test_non_contiguous_tensors
  // fail as expected on cuDNN CUDA.
  ASSERT_EQ(e.decorations.size(), 7u);
  EXPECT_EQ(e.decorations[0].decorator, "skipMPS");
  EXPECT_EQ(e.decorations[0].line, 4369);
  EXPECT_EQ(e.decorations[0].via, "");
  const char* expected[] = {"test_grad", "test_gradgrad", "test_non_contiguous_tensors"};
  const int lines[] = {3154, 3160, 3165};
  for (int i = 0; i < 3; ++i) {
    const TestDecoration& d = e.decorations[1 + i];
    EXPECT_EQ(d.kind, "expected failure");
    EXPECT_EQ(d.test_class, "TestModule");
    EXPECT_EQ(d.test_name, expected[i]);
    EXPECT_EQ(d.device_type, "cuda");
    EXPECT_EQ(d.active_if, "(TEST_CUDNN and not TEST_WITH_ROCM)");
    EXPECT_EQ(d.via, "rnn_gru_lstm_module_info_decorators");
    EXPECT_EQ(d.file, "torch/testing/_internal/common_modules.py");
    EXPECT_EQ(d.line, lines[i]);
  }
  EXPECT_EQ(e.decorations[6].kind, "skip");
  EXPECT_EQ(e.decorations[6].test_name, "test_rnn_decomp_module");
  EXPECT_EQ(a.database_tests[0].file, "test/test_modules.py");
  for (const auto& u : a.database_tests) EXPECT_NE(u.file, "test/test_testing.py");  // the harness's own tests
}

// test_nn.py's LSTM tests by name, first: those named after it, those
// naming nn.LSTM anywhere (`for module in (nn.GRU, nn.LSTM)` in
// test_rnn_fused), and those calling a helper that does
// (_test_RNN_cpu_vs_cudnn, test_nn.py:4001); never a nested `def test`.
TEST(TestFinder, LstmTestsOfTestNnByName) {
  REQUIRE_CORPUS("2.6.0");
  TestsAnswer a = Find("2.6.0", "nn.LSTM");
  ASSERT_FALSE(a.direct_uses.empty());
  const TestFileUse& nn = a.direct_uses[0];
  EXPECT_EQ(nn.file, "test/test_nn.py");
  auto has = [&](const std::string& t) { return std::find(nn.tests.begin(), nn.tests.end(), t) != nn.tests.end(); };
  for (const char* t : {"test_LSTM_grad_and_gradgrad", "test_rnn_fused", "test_RNN_cpu_vs_cudnn_no_dropout",
                        "test_RNN_cpu_vs_cudnn_with_dropout"})
    EXPECT_TRUE(has(t)) << t << " in " << ::testing::PrintToString(nn.tests);
  EXPECT_FALSE(has("test"));
  EXPECT_NE(nn.tests[0].find("lstm"), std::string::npos);  // named after the module first
  for (const auto& u : a.direct_uses) {
    EXPECT_NE(u.file, "test/test_testing.py");
    for (const auto& t : u.tests) EXPECT_EQ(t.rfind("test_", 0), 0u) << u.file << ": " << t;
  }
}

TEST(TestFinder, Conv2dModuleInfoOf1131) {
  REQUIRE_CORPUS("1.13.1");
  TestsAnswer a = Find("1.13.1", "nn.Conv2d");
  ASSERT_EQ(a.entries.size(), 1u);
  EXPECT_EQ(a.entries[0].line, 1077);
}

TEST(TestFinder, SkipsAndToleranceOverridesOnAMemoryTree) {
  MemoryDisk disk;
  disk.Add("torch/testing/_internal/common_methods_invocations.py",
           "def sample_inputs_frob(op_info, device, dtype, requires_grad):\n"
           "    return []\n"
           "op_db = [\n"
           "    UnaryUfuncInfo('frob',\n"
           "           aliases=('special.frob',),\n"
           "           sample_inputs_func=partial(sample_inputs_frob, x=1),\n"
           "           ref=np.frob,\n"
           "           dtypesIfCUDA=floating_types(),\n"
           "           skips=(\n"
           "               DecorateInfo(unittest.skip('slow'), 'TestCommon', 'test_out', device_type='cuda'),\n"
           "               DecorateInfo(toleranceOverride({torch.float16: tol(atol=1e-3, rtol=0)}),\n"
           "                            'TestUnaryUfuncs', 'test_reference_numerics_normal'),\n"
           "           )),\n"
           "    OpInfo('other'),\n"
           "]\n");
  TestsAnswer a;
  ASSERT_TRUE(FindTests(disk, "torch.special.frob", &a).ok());
  ASSERT_EQ(a.entries.size(), 1u);
  const TestEntry& e = a.entries[0];
  EXPECT_EQ(e.kind, "UnaryUfuncInfo");
  EXPECT_EQ(e.line, 4);
  EXPECT_EQ(e.matched_by, "alias");
  ASSERT_EQ(e.functions.size(), 2u);
  EXPECT_EQ(e.functions[0].name, "sample_inputs_frob");
  EXPECT_EQ(e.functions[0].line, 1);
  EXPECT_EQ(e.functions[1].name, "np.frob");  // not defined in the files read: as written
  EXPECT_EQ(e.functions[1].line, 0);
  EXPECT_EQ(e.dtypes[1], "cuda: floating_types()");
  ASSERT_EQ(e.decorations.size(), 2u);
  EXPECT_EQ(e.decorations[0].kind, "skip");
  EXPECT_EQ(e.decorations[0].test_class, "TestCommon");
  EXPECT_EQ(e.decorations[0].test_name, "test_out");
  EXPECT_EQ(e.decorations[0].device_type, "cuda");
  EXPECT_EQ(e.decorations[1].kind, "tolerance");
  EXPECT_EQ(e.decorations[1].line, 11);
  TestsAnswer none;
  EXPECT_EQ(FindTests(disk, "torch.nothing", &none).code(), ExitCode::kNotFound);
}

// A miss suggests as trace does (issue 27: `tests nn.lstm`, `tests F.sdpa`
// said nothing more), once, in the message and in suggestions.
TEST(TestFinder, AMissSuggestsAsTraceDoes) {
  REQUIRE_CORPUS("2.6.0");
  for (const auto& [query, wanted] :
       {std::pair<std::string, std::string>{"nn.lstm", "nn.LSTM"}, {"F.sdpa", "F.scaled_dot_product_attention"}}) {
    TestsAnswer a;
    Status s = FindTestsOrSuggest(TreeIndex("2.6.0"), query, &a);
    EXPECT_EQ(s.code(), ExitCode::kNotFound) << query;
    ASSERT_FALSE(a.suggestions.empty()) << query;
    EXPECT_EQ(a.suggestions[0], wanted);
    size_t first = s.message().find("did you mean");
    ASSERT_NE(first, std::string::npos) << s.message();
    EXPECT_EQ(s.message().find("did you mean", first + 1), std::string::npos) << s.message();
  }
  TestsAnswer found;
  EXPECT_TRUE(FindTestsOrSuggest(TreeIndex("2.6.0"), "nn.LSTM", &found).ok());
  EXPECT_TRUE(found.suggestions.empty());
}

// Issue 29: on a tree holding an escape sequence in a variant name and a
// planted 9 MiB test file, the text face escapes the sequence (item 13),
// the big file is not read (item 7: the index's cap), and a name with
// nothing after its prefix matches nothing (item 11).
TEST(TestFinder, HostileTreeAndEmptyNames) {
  MemoryDisk disk;
  disk.Add("torch/testing/_internal/common_methods_invocations.py",
           "op_db = [\n"
           "    OpInfo('frob', variant_test_name='\x1b]0;owned\x07\x1b[31m'),\n"
           "    OpInfo('other'),\n"
           "]\n");
  disk.Add("test/test_ops.py", "@ops(op_db)\ndef test_small(self):\n    x.frob(1)\n");
  disk.Add("test/test_big.py", "@ops(op_db)\ndef test_big(self):\n    x.frob(1)\n" + std::string(9u << 20, '#'));
  TestsAnswer a;
  ASSERT_TRUE(FindTests(disk, "torch.frob", &a).ok());
  std::string text = TestsText(a, false);
  EXPECT_EQ(text.find('\x1b'), std::string::npos) << text;
  EXPECT_EQ(text.find('\x07'), std::string::npos) << text;
  EXPECT_NE(text.find("\\x1b]0;owned"), std::string::npos) << text;
  bool big = false, small = false;
  for (const auto& u : a.database_tests) {
    big = big || u.file == "test/test_big.py";
    small = small || u.file == "test/test_ops.py";
  }
  EXPECT_TRUE(small);
  EXPECT_FALSE(big);
  for (const char* empty : {"", "torch.", "aten::", "Tensor.", "F.", "torch.nn.functional.", "  "}) {
    TestsAnswer none;
    Status s = FindTests(disk, empty, &none);
    EXPECT_EQ(s.code(), ExitCode::kNotFound) << "'" << empty << "'";
    EXPECT_TRUE(none.entries.empty()) << "'" << empty << "'";
    EXPECT_NE(s.message().find("did you mean"), std::string::npos) << s.message();
  }
}

}  // namespace
}  // namespace optrace
