// ValueScope on expression texts (no checkout): what is known not to be a
// tensor, and what stays unknown.
#include "py/py_values.h"

#include <gtest/gtest.h>

namespace optrace {
namespace {

TensorFacts Facts() {
  return {[](std::string_view m) { return m == "size" || m == "dim" || m == "item"; },
          [](std::string_view a) { return a == "shape" || a == "dtype"; }};
}

TEST(PyValues, ShapesIntsAndAttributes) {
  TensorFacts facts = Facts();
  ValueScope s(&facts);
  s.SetLocal("x", ValueKind::kUnknown);
  s.SetAttr("n_head", ValueKind::kScalar);
  s.AddScalarModule("math");
  std::vector<Assignment> as;
  for (const char* line : {"B, T, C = x.size()", "hd = C // self.n_head", "y = x.view(B, T, hd)", "seen = set()",
                           "d = {}", "n = x.shape[-1] * 2 + len(x.shape)", "s = 1e-6 * math.sqrt(hd)"}) {
    Assignment a;
    ASSERT_TRUE(ParseAssignment(line, &a)) << line;
    as.push_back(a);
  }
  LearnAssignments(as, &s);
  for (const char* scalar : {"C", "hd", "C // self.n_head", "x.shape[-1]", "x.size(1) % 2", "n + 1", "-hd", "(B * T)",
                             "math.pi", "1e-6", "'a' + 'b'", "x.dim() - 1", "s", "len(xs) > 2 and hd"})
    EXPECT_EQ(s.KindOf(scalar), ValueKind::kScalar) << scalar;
  for (const char* container : {"seen", "d", "[1, 2]", "(x, y)"})
    EXPECT_EQ(s.KindOf(container), ValueKind::kContainer) << container;
  for (const char* unknown :
       {"x", "y", "x * 2", "hd * x", "x[0]", "seen.pop()", "lambda: 1", "f(hd)", "x.sum()", "... x", "self.other"})
    EXPECT_EQ(s.KindOf(unknown), ValueKind::kUnknown) << unknown;
}

// A name bound to a tensor anywhere is not a scalar anywhere (bindings are
// not ordered), nor is a parameter of unknown kind rebound to an int.
TEST(PyValues, ConflictingBindingsAreUnknown) {
  TensorFacts facts = Facts();
  ValueScope s(&facts);
  s.SetLocal("x", ValueKind::kUnknown);
  std::vector<Assignment> as(2);
  ASSERT_TRUE(ParseAssignment("n = 3", &as[0]));
  ASSERT_TRUE(ParseAssignment("n = x + 1", &as[1]));
  Assignment more;
  ASSERT_TRUE(ParseAssignment("x = x.size(0)", &more));
  as.push_back(more);
  LearnAssignments(as, &s);
  EXPECT_EQ(s.KindOf("n"), ValueKind::kUnknown);
  EXPECT_EQ(s.KindOf("x"), ValueKind::kUnknown);
}

// softsign's `input / (input.abs() + 1)` (torch/nn/functional.py:2039):
// `input.abs()` makes the unannotated parameter a tensor; a builtin type's
// method name (`s.split`), a non-tensor result (`n.size`), a local (`y`)
// and a parameter already known (`k`) teach nothing.
TEST(PyValues, ParametersUsedAsTensors) {
  TensorFacts facts = Facts();
  facts.method_returns_tensor = [](std::string_view m) { return m == "abs" || m == "split"; };
  ValueScope s(&facts);
  for (const char* p : {"input", "s", "n"}) s.SetLocal(p, ValueKind::kUnknown);
  s.SetLocal("k", ValueKind::kScalar);
  LearnTensorReceivers({"input", "s", "n", "k"}, {"input.abs", "s.split", "n.size", "y.abs", "k.abs"}, &s);
  EXPECT_EQ(s.KindOf("input"), ValueKind::kTensor);
  EXPECT_EQ(s.KindOf("input / (input.abs() + 1)"), ValueKind::kTensor);
  EXPECT_EQ(s.KindOf("s"), ValueKind::kUnknown);
  EXPECT_EQ(s.KindOf("n"), ValueKind::kUnknown);
  EXPECT_EQ(s.KindOf("y"), ValueKind::kUnknown);
  EXPECT_EQ(s.KindOf("k"), ValueKind::kScalar);
}

TEST(PyValues, AssignmentsAndParameters) {
  Assignment a;
  EXPECT_FALSE(ParseAssignment("if a == b:", &a));
  EXPECT_FALSE(ParseAssignment("n += 1", &a));
  EXPECT_FALSE(ParseAssignment("f(a=1)", &a));
  EXPECT_FALSE(ParseAssignment("x <= y", &a));
  EXPECT_FALSE(ParseAssignment("softmin, (input,), input, dim=dim, dtype=dtype", &a));  // a call's continuation
  EXPECT_FALSE(ParseAssignment("x) = y", &a));
  ASSERT_TRUE(ParseAssignment("self.n: int = 4  # heads", &a));
  EXPECT_EQ(a.targets, std::vector<std::string>{"self.n"});
  EXPECT_EQ(a.value, "4");
  ASSERT_TRUE(ParseAssignment("(a, *rest) = t", &a));
  EXPECT_EQ(a.targets, (std::vector<std::string>{"a", "rest"}));
  EXPECT_EQ(ScalarParams("def __init__(self, dim, n_head: int, eps=1e-6, x: Tensor = None, name='a'):"),
            (std::vector<std::string>{"n_head", "eps", "name"}));
}

// torch/masked/_ops.py:1042-1049 `def sum(...) -> Tensor:` shadows the
// builtin; mean's `total = sum(input, dim, ...)` is a tensor (:1402 `total / count`).
TEST(PyValues, ACallOfAFunctionReturningATensorIsATensor) {
  EXPECT_TRUE(ReturnsTensor(
      "def sum( input: Union[Tensor, MaskedTensor], dim=None, *, mask: Optional[Tensor] = None, ) -> Tensor:"));
  EXPECT_TRUE(ReturnsTensor("def f(x) -> torch.Tensor:  # note"));
  EXPECT_FALSE(ReturnsTensor("def f(x: Tensor) -> Tuple[Tensor, Tensor]:"));
  EXPECT_FALSE(ReturnsTensor("def f(x: Tensor):"));
  TensorFacts facts = Facts();
  ValueScope s(&facts);
  s.SetLocal("input", ValueKind::kUnknown);
  s.SetCallResult("sum", ValueKind::kTensor);
  std::vector<Assignment> as(2);
  ASSERT_TRUE(ParseAssignment("total = sum(input, dim, keepdim=keepdim)", &as[0]));
  ASSERT_TRUE(ParseAssignment("n = max(1, 2)", &as[1]));
  LearnAssignments(as, &s);
  EXPECT_EQ(s.KindOf("total"), ValueKind::kTensor);
  EXPECT_EQ(s.KindOf("total / count"), ValueKind::kTensor);
  EXPECT_EQ(s.KindOf("n"), ValueKind::kScalar);  // builtins not learned stay builtins
}

TEST(StringsAssigned, ASetOfStringsAtTheTopLevel) {
  const std::string source =
      "import re\n"
      "DONT_REQUIRE_DERIVATIVE = {\n"
      "    # These only depend on the input Tensor's shape\n"
      "    \"empty_like\",\n"
      "    'new_empty',\n"
      "}\n"
      "def f():\n"
      "    OTHER = {\"x\"}\n"
      "MIXED = [\"a\", b]\n";
  EXPECT_EQ(StringsAssigned(source, "DONT_REQUIRE_DERIVATIVE"), (std::vector<std::string>{"empty_like", "new_empty"}));
  EXPECT_TRUE(StringsAssigned(source, "OTHER").empty());  // not at the top level
  EXPECT_TRUE(StringsAssigned(source, "MIXED").empty());  // a name among the strings
  EXPECT_TRUE(StringsAssigned(source, "MISSING").empty());
}

}  // namespace
}  // namespace optrace
