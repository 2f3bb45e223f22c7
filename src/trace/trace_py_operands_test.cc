// Operators of torch's own Python code on tensors a function unpacks:
// `q, k, v = _project(...)` of a function annotated `-> List[Tensor]` (its
// call written over several lines, too) or of a Tensor method returning
// `Tensor[]` (`x.chunk(3)`) binds tensors, so `q / math.sqrt(n)` is a tensor
// operator; and the operator calls its dunder with one argument, so the
// overloads it reaches are those one argument fits (div.Tensor, never
// div.Tensor_mode's or div.Scalar_mode's required rounding_mode); a device
// written as a string fits a `Device` parameter. The tree
// below is that shape in a few lines; line numbers are lines of
// kFunctionalPy. The real-tree tests' lines were read with sed.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "testing/memory_index.h"
#include "trace/trace.h"
#include "trace/trace_test_util.h"

namespace optrace {
namespace {

// aten/src/ATen/native/native_functions.yaml
constexpr char kNativeFunctions[] = R"x(- func: div.Tensor(Tensor self, Tensor other) -> Tensor
  variants: function, method
  dispatch:
    CUDA: div_cuda

- func: div.Tensor_mode(Tensor self, Tensor other, *, str? rounding_mode) -> Tensor
  variants: function, method
  dispatch:
    CUDA: div_mode_cuda

- func: div.Scalar_mode(Tensor self, Scalar other, *, str? rounding_mode) -> Tensor
  variants: function, method
  dispatch:
    CUDA: div_scalar_mode_cuda

- func: chunk(Tensor(a -> *) self, int chunks, int dim=0) -> Tensor(a)[]
  variants: function, method
  dispatch:
    CompositeImplicitAutograd: chunk

- func: blank(SymInt[] size, *, Device? device=None) -> Tensor
  dispatch:
    CUDA: blank_cuda
)x";

// aten/src/ATen/native/Div.cpp
constexpr char kDivCpp[] = R"x(namespace at::native {

Tensor div_cuda(const Tensor& self, const Tensor& other) { return self; }
Tensor div_mode_cuda(const Tensor& self, const Tensor& other, std::optional<c10::string_view> mode) { return self; }
Tensor div_scalar_mode_cuda(const Tensor& self, const Scalar& other, std::optional<c10::string_view> mode) { return self; }
std::vector<Tensor> chunk(const Tensor& self, int64_t chunks, int64_t dim) { return {self}; }
Tensor blank_cuda(IntArrayRef size, std::optional<Device> device) { return at::Tensor(); }

} // namespace at::native
)x";

// tools/autograd/templates/python_variable_methods.cpp
constexpr char kVariableMethods[] = R"x(PyMethodDef variable_methods[] = {
  {"__truediv__", castPyCFunctionWithKeywords(TypeError_to_NotImplemented_<THPVariable_div>), METH_VARARGS | METH_KEYWORDS, nullptr},
};
)x";

// torch/nn/functional.py
constexpr char kFunctionalPy[] = R"x(import math
from typing import List, Tuple
import torch
from torch import Tensor

def _project(x: Tensor, w: Tensor) -> List[Tensor]:
    return x.chunk(3)

def packed(query: Tensor, w: Tensor, n: int) -> Tensor:
    q, k, v = _project(query, w)
    return q / math.sqrt(n)

def spread(query: Tensor, w: Tensor, n: int) -> Tensor:
    q, k, v = _project(
        query,  # the input
        w,
    )
    return q / n

def split(query: Tensor, n: int) -> Tensor:
    a, b = query.chunk(2)
    return b / n

def unread(query, n: int):
    a, b = query.pieces()
    return a / n

def made() -> Tensor:
    return torch.blank((), device="cpu")
)x";

std::shared_ptr<MemoryDisk> OperandsTree() {
  return MemoryTree({{"version.txt", "2.6.0a0\n"},
                     {"aten/src/ATen/native/native_functions.yaml", kNativeFunctions},
                     {"aten/src/ATen/native/Div.cpp", kDivCpp},
                     {"tools/autograd/templates/python_variable_methods.cpp", kVariableMethods},
                     {"torch/nn/functional.py", kFunctionalPy},
                     {"torch/nn/__init__.py", "from . import functional\n"},
                     {"torch/__init__.py", "from torch import nn\n"}});
}

class PyOperands : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_NO_FATAL_FAILURE(BuildMemoryIndex(OperandsTree(), &index_)); }
  Index index_;
};

// The division's line, if the walk followed it as a tensor operator.
int DivisionLine(const Trace& t) {
  for (const PyFrame& f : t.python)
    for (const PyCallStep& c : f.calls)
      if (c.kind == PyCallTarget::kOperator && c.resolved == "aten::div") return c.line;
  return 0;
}

TEST_F(PyOperands, ATupleOfTensorsAFunctionReturnsUnpacksToTensors) {
  // :10 `q, k, v = _project(query, w)` (:6 `-> List[Tensor]`); :11 `q / math.sqrt(n)`.
  Trace t = TraceIndex(index_, "F.packed", TraceOptions::Device::kCuda);
  EXPECT_EQ(DivisionLine(t), 11);
  const OpStep* div = FindOp(t, "div.Tensor");
  ASSERT_NE(div, nullptr);
  EXPECT_TRUE(div->typical);
}

TEST_F(PyOperands, AnAssignmentOverSeveralLinesIsReadWhole) {
  // :14-17 the call's arguments on lines of their own, one with a comment; :18 `q / n`.
  EXPECT_EQ(DivisionLine(TraceIndex(index_, "F.spread", TraceOptions::Device::kCuda)), 18);
}

TEST_F(PyOperands, ATensorMethodReturningAListUnpacksToTensors) {
  // :21 `a, b = query.chunk(2)` (chunk returns Tensor(a)[]); :22 `b / n`.
  EXPECT_EQ(DivisionLine(TraceIndex(index_, "F.split", TraceOptions::Device::kCuda)), 22);
}

TEST_F(PyOperands, WhatAnUnknownCallReturnsStaysUnknown) {
  // :25 `query.pieces()`: no method the tree defines; `a / n` is no known tensor operator.
  EXPECT_EQ(DivisionLine(TraceIndex(index_, "F.unread", TraceOptions::Device::kCuda)), 0);
}

TEST_F(PyOperands, AnOperatorTakesOnlyOverloadsItsOneArgumentFits) {
  // `q / math.sqrt(n)` is q.__truediv__(math.sqrt(n)): no rounding_mode, which
  // div.Tensor_mode and div.Scalar_mode require.
  Trace t = TraceIndex(index_, "F.packed", TraceOptions::Device::kCuda);
  for (const char* name : {"div.Tensor_mode", "div.Scalar_mode"}) {
    const OpStep* op = FindOp(t, name);
    ASSERT_NE(op, nullptr) << name;  // the operator reaches the op's every overload
    EXPECT_FALSE(op->typical) << name;
  }
}

TEST_F(PyOperands, ADeviceWrittenAsAStringFitsTheSchema) {
  // :28 `torch.blank((), device="cpu")`: the parser takes "cpu" for `Device? device`.
  const Trace t = TraceIndex(index_, "F.made", TraceOptions::Device::kCuda);
  const OpStep* blank = FindOp(t, "blank");
  ASSERT_NE(blank, nullptr);
  EXPECT_TRUE(blank->typical);
}

// torch/nn/modules/transformer.py:538 `x = self.norm1(x + self._sa_block(x,
// src_mask, src_key_padding_mask))` (:544 `def _sa_block(...) -> Tensor:`),
// and torch/nn/functional.py:5046 `q, k, v = _in_projection_packed(...)`
// (:4699 `-> List[Tensor]`), :5156 `q_scaled = q / math.sqrt(E)`.
TEST_F(Tree1131, EncoderLayerAddsAndScalesOnItsTypicalPath) {
  Trace t = TraceTree("1.13.1", "nn.TransformerEncoderLayer", TraceOptions::Device::kCpu);
  for (const char* name : {"add.Tensor", "div.Tensor"}) {
    const OpStep* op = FindOp(t, name);
    ASSERT_NE(op, nullptr) << name;
    EXPECT_TRUE(op->typical) << name;
  }
  const OpStep* mode = FindOp(t, "div.Scalar_mode");
  ASSERT_NE(mode, nullptr);
  EXPECT_FALSE(mode->typical);
}

// torch/nn/functional.py:6362 `q_scaled = q * math.sqrt(1.0 / float(E))`,
// q from :6230 `q, k, v = _in_projection_packed(...)` or :6245 `q, k, v =
// _in_projection(` (its arguments on the lines after; :5651's def returns
// `Tuple[Tensor, Tensor, Tensor]`).
TEST_F(Tree260, MultiheadAttentionScalesTheQueryOnItsTypicalPath) {
  Trace t = TraceTree("2.6.0", "nn.MultiheadAttention", TraceOptions::Device::kCuda);
  const OpStep* mul = FindOp(t, "mul.Tensor");
  ASSERT_NE(mul, nullptr);
  EXPECT_TRUE(mul->typical);
}

}  // namespace
}  // namespace optrace
