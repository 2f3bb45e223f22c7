// Arguments read from call text and bound to a def's parameters: keywords,
// positionals up to the keyword-only marker, calls spread over lines,
// strings holding commas; what a literal is.
#include "py/py_arguments.h"

#include <gtest/gtest.h>

namespace optrace {
namespace {

TEST(PyArguments, SplitsAtTopLevelCommasOnly) {
  auto args = SplitArguments("x, (1, 2), mode='a, b', align_corners=True, k = a == b");
  ASSERT_EQ(args.size(), 5u);
  EXPECT_EQ(args[1].value, "(1, 2)");
  EXPECT_EQ(args[2].name, "mode");
  EXPECT_EQ(args[2].value, "'a, b'");
  EXPECT_EQ(args[3].name, "align_corners");
  EXPECT_EQ(args[4].name, "k");
  EXPECT_EQ(args[4].value, "a == b");
  EXPECT_TRUE(SplitArguments("a == b")[0].name.empty()) << "a comparison is no keyword";
}

TEST(PyArguments, ParametersKeepDefaultsAndTheKeywordOnlyMarker) {
  auto p = ParseParameters(
      "def f(input: Tensor, size: Optional[int] = None, mode='nearest', *, antialias: bool = False, **kw):");
  ASSERT_EQ(p.size(), 5u);
  EXPECT_EQ(p[0].name, "input");
  EXPECT_FALSE(p[0].default_value);
  EXPECT_EQ(*p[1].default_value, "None");
  EXPECT_EQ(*p[2].default_value, "'nearest'");
  EXPECT_TRUE(p[3].keyword_only);
  EXPECT_EQ(*p[3].default_value, "False");
  EXPECT_TRUE(p[4].variadic);
}

TEST(PyArguments, ACommentAfterAParameterIsNoPartOfTheNext) {
  // modules/conv.py's Conv2d.__init__: `padding_mode: str = "zeros",  # TODO: refine this type`.
  auto p = ParseParameters(
      "def __init__(\n    self,\n    padding_mode: str = \"zeros\",  # TODO: refine, this type\n"
      "    device=None,  # '#' in a comment\n    tag='#x',\n):");
  ASSERT_EQ(p.size(), 4u);
  EXPECT_EQ(*p[1].default_value, "\"zeros\"");
  EXPECT_EQ(p[2].name, "device");
  EXPECT_EQ(*p[3].default_value, "'#x'") << "a '#' in a string is no comment";
}

TEST(PyArguments, ACommentAfterAnArgumentIsNoPartOfTheNext) {
  // torch/nn/modules/rnn.py:1127-1128 (2.6.0), LSTM.forward's _VF.lstm call.
  auto args = SplitArguments("input,\n hx,\n self._flat_weights,  # type: ignore[arg-type]\n self.bias,\n");
  ASSERT_EQ(args.size(), 4u);
  EXPECT_EQ(args[2].value, "self._flat_weights");
  EXPECT_EQ(args[3].value, "self.bias");
}

TEST(PyArguments, BindsPositionalsInOrderAndKeywordsByName) {
  auto params = ParseParameters("def forward(self, query, key, value, need_weights=True, *, is_causal=False):");
  auto bound = BindArguments(SplitArguments("q, k, v, False, True, is_causal=True"), params, /*method=*/true);
  EXPECT_EQ(bound["query"], "q");
  EXPECT_EQ(bound["need_weights"], "False");
  EXPECT_EQ(bound["is_causal"], "True") << "the extra positional does not reach a keyword-only parameter";
  EXPECT_EQ(bound.count("self"), 0u);
}

TEST(PyArguments, ReadsACallSpreadOverLines) {
  const char* text =
      "def g(x):\n"
      "    y = f(x,\n"
      "          mode=')',\n"
      "          n=2)\n";
  auto args = CallArgumentText(text, 2, "f");
  ASSERT_TRUE(args);
  auto split = SplitArguments(*args);
  ASSERT_EQ(split.size(), 3u);
  EXPECT_EQ(split[1].value, "')'");
  EXPECT_EQ(split[2].value, "2");
  EXPECT_FALSE(CallArgumentText(text, 3, "f")) << "no call opens on line 3";
  EXPECT_FALSE(CallArgumentText("    y = gf(x)\n", 1, "f")) << "a longer name holding the callee is another call";
}

TEST(PyArguments, ACalleeWithElidedArgumentsMatchesAnyWrittenThere) {
  const char* text =
      "        super(Conv2d, self).__init__(\n"
      "            in_channels, False, padding_mode)\n";
  auto args = CallArgumentText(text, 1, "super(...).__init__");
  ASSERT_TRUE(args) << "super(Conv2d, self) is super(...)";
  auto split = SplitArguments(*args);
  ASSERT_EQ(split.size(), 3u);
  EXPECT_EQ(split[2].value, "padding_mode");
  EXPECT_FALSE(CallArgumentText("        super(Conv2d, self).forward(x)\n", 1, "super(...).__init__"));
  EXPECT_FALSE(CallArgumentText("        super(Conv2d, self)\n", 1, "super(...).__init__"));
}

TEST(PyArguments, SplitsACallQueryFromAPlainName) {
  auto call = SplitCallQuery("F.interpolate(x, mode='bicubic', align_corners=True)");
  ASSERT_TRUE(call);
  EXPECT_EQ(call->name, "F.interpolate");
  EXPECT_EQ(call->arguments, "x, mode='bicubic', align_corners=True");
  EXPECT_FALSE(SplitCallQuery("F.interpolate"));
  EXPECT_FALSE(SplitCallQuery("(x)")) << "no name";
  EXPECT_FALSE(SplitCallQuery("f(x)(y)")) << "a call of a call's result is no query";
}

TEST(PyArguments, ANestedDefOrClassWritesItsOwnNames) {
  // torch/masked/_ops.py:999-1037 (2.6.0): Combine.backward's `(mask,) = ...`
  // binds Combine.backward's mask, not _combine_input_and_mask's.
  constexpr char kText[] = R"x(def combine(op, input, mask):
    def helper(input, mask):
        mask = input
        return mask

    class Combine(Function):
        @staticmethod
        def backward(ctx, grad_output):
            (mask,) = ctx.saved_tensors
            return mask
    if op:
        mask = None
    return helper(input, mask)
)x";
  std::vector<PyAssignment> w = AssignmentsOf(kText, 1, 14, "mask");
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(w[0].line, 12);
  EXPECT_EQ(w[0].value, "None");
  // Read from within the nested def, its own assignment counts.
  w = AssignmentsOf(kText, 2, 5, "mask");
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(w[0].line, 3);
}

TEST(PyArguments, LiteralsAreConstantsAndDtypesNotNames) {
  for (const char* v : {"True", "None", "0.0", "-1", "1e-5", "'bicubic'", "\"x\"", "torch.float16", "torch.bfloat16",
                        "(1, 1)", "[2, 3, -1]", "(1,)"})
    EXPECT_TRUE(IsLiteral(v)) << v;
  for (const char* v : {"x", "self.weight", "torch.zeros(3)", "need_weights", "", "(h_zeros, c_zeros)", "()", "[x, 1]"})
    EXPECT_FALSE(IsLiteral(v)) << v;
}

TEST(PyArguments, EveryStatementWritingALocalIsAnAssignment) {
  constexpr char kText[] = R"x(batch_sizes = None
if packed:
    input, batch_sizes, sorted_indices = input
(a, batch_sizes) = pair
batch_sizes += 1
batch_sizes //= 2
batch_sizes: int = 3
if batch_sizes == 4 or batch_sizes >= 5:
    f(x,
      y, batch_sizes=6)
    g(batch_sizes <= 7)
self.batch_sizes = 8
h(x,
  a, batch_sizes=9,
)
"""Docs: batch_sizes = 10
a, batch_sizes = 11
"""
)x";
  std::vector<PyAssignment> w = AssignmentsOf(kText, 1, 19, "batch_sizes");
  ASSERT_EQ(w.size(), 5u);
  EXPECT_EQ(w[0].line, 1);
  EXPECT_EQ(w[0].value, "None");
  EXPECT_EQ(w[1].line, 3);
  EXPECT_EQ(w[1].indent, 4);
  EXPECT_EQ(w[1].value, "(input)[1]");  // an element of what is unpacked
  EXPECT_EQ(w[2].value, "(pair)[1]");
  EXPECT_EQ(w[3].value, "batch_sizes + (1)");  // what it held, changed
  EXPECT_EQ(w[4].value, "batch_sizes // (2)");
  // Comparisons, keyword arguments on a call's continuation lines, an
  // attribute of the same name and a docstring write nothing; nor does an
  // annotation (`batch_sizes: int = 3` reads as a parameter of a `def`
  // spread over lines, where a scan from the body's first line starts).
}

TEST(PyArguments, ALocalHoldsATensorSizeOnlyIfEveryWriteReadsOne) {
  const std::string text =
      "def f(query, other, x):\n"                    // 1
      "    tgt_len, bsz, embed_dim = query.shape\n"  // 2
      "    n = x.size(0)  # rows\n"                  // 3
      "    d = x.dim()\n"                            // 4
      "    bsz += 1\n"                               // 5
      "    tgt_len = other\n"                        // 6
      "    a, b = divmod(other, 2)\n"                // 7
      "    s = \"embed_dim = 3\"\n";                 // 8
  EXPECT_TRUE(HoldsATensorSize(text, 2, 9, "embed_dim"));
  EXPECT_TRUE(HoldsATensorSize(text, 2, 9, "d"));
  EXPECT_TRUE(HoldsATensorSize(text, 2, 9, "n")) << "the comment is no part of the value read";
  EXPECT_FALSE(HoldsATensorSize(text, 2, 9, "bsz")) << "augmented";
  EXPECT_FALSE(HoldsATensorSize(text, 2, 9, "tgt_len")) << "written again from a parameter";
  EXPECT_TRUE(HoldsATensorSize(text, 2, 6, "tgt_len")) << "before that write";
  EXPECT_FALSE(HoldsATensorSize(text, 2, 9, "a"));
  EXPECT_FALSE(HoldsATensorSize(text, 2, 9, "query")) << "never written";
}

TEST(PyArguments, ABuiltinConversionOfALiteral) {
  EXPECT_EQ(ConvertedLiteral("float", "0"), "0.0");
  EXPECT_EQ(ConvertedLiteral("float", "0.5"), "0.5");
  EXPECT_EQ(ConvertedLiteral("float", "1e-05"), "1e-05");
  EXPECT_EQ(ConvertedLiteral("int", "2.5"), "2");
  EXPECT_EQ(ConvertedLiteral("int", "True"), "1");
  EXPECT_EQ(ConvertedLiteral("bool", "0"), "False");
  EXPECT_EQ(ConvertedLiteral("bool", "0.25"), "True");
  EXPECT_FALSE(ConvertedLiteral("float", "'1'").has_value()) << "a string";
  EXPECT_FALSE(ConvertedLiteral("float", "None").has_value());
  EXPECT_FALSE(ConvertedLiteral("str", "1").has_value()) << "another builtin";
  EXPECT_FALSE(ConvertedLiteral("int", "1e999").has_value()) << "no long long holds it";
}

}  // namespace
}  // namespace optrace
