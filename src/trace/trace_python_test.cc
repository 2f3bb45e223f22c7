// The Python walk on the real trees: hand-written Tensor bindings, Tensor
// class aliases and generated dunders, operators on tensors in torch's own
// Python code, chained calls, super() into the C++ base, and layers typed
// from __init__, an alias written for type checkers. Each fact was checked with grep/sed in the tree.
#include <gtest/gtest.h>

#include <algorithm>

#include "testing/test_util.h"
#include "trace/trace.h"
#include "trace/trace_test_util.h"

namespace optrace {
namespace {

bool HasOp(const Trace& t, const std::string& name) {
  return std::any_of(t.ops.begin(), t.ops.end(),
                     [&](const OpStep& op) { return op.role == OpRole::kForward && op.name == name; });
}

const PyCallStep* FindCall(const Trace& t, const std::string& resolved) {
  for (const PyFrame& f : t.python)
    for (const PyCallStep& c : f.calls)
      if (c.resolved == resolved) return &c;
  return nullptr;
}

class PyWalk260 : public Tree260 {};
class PyWalk1131 : public Tree1131 {};

// {"half", castPyCFunctionWithKeywords(THPVariable_half), ...} at
// python_variable_methods.cpp:1300; THPVariable_half -> THPVariable_to_type
// -> dispatch_to -> self.to(dtype, ...) (line 414).
TEST_F(PyWalk260, HalfIsAHandWrittenBindingOfTo) {
  Trace t = TraceTree("2.6.0", "Tensor.half");
  EXPECT_EQ(t.target_name, "torch.Tensor.half");
  ASSERT_FALSE(t.python.empty());
  EXPECT_EQ(t.python[0].where.file, "tools/autograd/templates/python_variable_methods.cpp");
  EXPECT_EQ(t.python[0].where.line, 1300);
  EXPECT_NE(t.python[0].bridge.find("THPVariable_half"), std::string::npos) << t.python[0].bridge;
  EXPECT_TRUE(HasOp(t, "to.dtype"));
  EXPECT_NE(FindCall(t, "aten::to"), nullptr);
}

// THPVariable_tolist (python_variable_methods.cpp:1017) calls no aten op
// the tracer can follow: said so, not guessed.
TEST_F(PyWalk260, TolistReachesNoOpAndSaysSo) {
  Trace t = TraceTree("2.6.0", "Tensor.tolist");
  EXPECT_TRUE(t.ops.empty());
  bool said = false;
  for (const auto& n : t.not_found) said = said || n.detail.find("THPVariable_tolist") != std::string::npos;
  EXPECT_TRUE(said);
}

// torch/_tensor.py:1125 `__neg__ = _C.TensorBase.neg`; __and__ is
// generated from the YAML op __and__.
TEST_F(PyWalk260, TensorAliasesAndGeneratedDunders) {
  EXPECT_TRUE(HasOp(TraceTree("2.6.0", "Tensor.__neg__"), "neg"));
  EXPECT_TRUE(HasOp(TraceTree("2.6.0", "Tensor.__and__"), "__and__.Tensor"));
}

// functional.py:2097 `ret = (-input).softmax(dim)` with `input: Tensor`.
TEST_F(PyWalk260, UnaryMinusOnATensorParameter) {
  Trace t = TraceTree("2.6.0", "F.softmin");
  EXPECT_TRUE(HasOp(t, "neg"));
  EXPECT_TRUE(HasOp(t, "softmax.int"));
  const PyCallStep* neg = FindCall(t, "torch._tensor.Tensor.__neg__");
  ASSERT_NE(neg, nullptr);
  EXPECT_EQ(neg->line, 2097);
}

// functional.py:3008 `div = div.mul(alpha).add(k).pow(beta)` (chained) and
// :3009 `return input / div`.
TEST_F(PyWalk260, ChainedCallsAndDivisionOfTensors) {
  Trace t = TraceTree("2.6.0", "F.local_response_norm");
  for (const char* op : {"mul.Tensor", "add.Tensor", "pow.Tensor_Scalar", "div.Tensor"})
    EXPECT_TRUE(HasOp(t, op)) << op;
  bool division = false;
  for (const PyFrame& f : t.python)
    for (const PyCallStep& c : f.calls) division = division || (c.line == 3009 && c.resolved == "aten::div");
  EXPECT_TRUE(division);
}

// transformer.py:738 `self.dropout = Dropout(dropout)`, :759
// `self.activation = activation` with `activation=F.relu` (:718).
TEST_F(PyWalk260, LayersAndFunctionsTypedFromInit) {
  Trace t = TraceTree("2.6.0", "nn.TransformerEncoderLayer");
  EXPECT_TRUE(HasOp(t, "dropout"));
  EXPECT_TRUE(HasOp(t, "relu"));
  EXPECT_NE(FindCall(t, "torch.nn.modules.dropout.Dropout.forward"), nullptr);
}

// _tensor.py:1401 Tensor.unflatten calls super().unflatten: the C++ base.
TEST_F(PyWalk260, SuperIntoTheCxxBase) { EXPECT_TRUE(HasOp(TraceTree("2.6.0", "Tensor.unflatten"), "unflatten.int")); }

TEST_F(PyWalk260, AnAliasForTypeCheckersIsNoBranch) {
  // torch/__init__.py:2054 `if TYPE_CHECKING:` holds :2061 `_segment_reduce =
  // segment_reduce`, which the loop at :2075-2079 binds at run time.
  Trace t = TraceTree("2.6.0", "torch._segment_reduce", TraceOptions::Device::kCuda);
  const OpStep* op = FindOp(t, "segment_reduce");
  ASSERT_NE(op, nullptr);
  EXPECT_TRUE(op->typical && !op->undecided);
}

TEST_F(PyWalk1131, HalfAndTransformerLayer) {
  EXPECT_TRUE(HasOp(TraceTree("1.13.1", "Tensor.half"), "to.dtype"));
  Trace t = TraceTree("1.13.1", "nn.TransformerEncoderLayer");
  EXPECT_TRUE(HasOp(t, "dropout"));
  EXPECT_TRUE(HasOp(t, "relu"));
}

}  // namespace
}  // namespace optrace
