// Which entry overload a call takes, on a small MemoryDisk tree written
// here: a query that gives no arguments (`torch.choose`) may take any
// overload that needs other arguments (three tensors, a tensor and a
// number, one tensor), so what only some of them run is open while what
// every one reaches by name runs, and a backward op every overload's
// formula names runs. Overloads that need the same arguments are told
// apart by the Python parser's order where their defaults differ (conv's
// padding=0 before conv.padding's "valid"), not where both are None; an
// overload needing a keyword-only argument with no default is no choice of
// a call with default arguments. Line numbers are lines of the raw
// strings below.
#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <set>
#include <string>

#include "testing/memory_index.h"
#include "trace/parser_order.h"
#include "trace/trace.h"
#include "trace/trace_test_util.h"

namespace optrace {
namespace {

// aten/src/ATen/native/native_functions.yaml
constexpr char kNativeFunctions[] = R"x(- func: choose.self(Tensor condition, Tensor self, Tensor other) -> Tensor
  variants: function, method
  dispatch:
    CUDA: choose_cuda

- func: choose.ScalarOther(Tensor condition, Tensor self, Scalar other) -> Tensor
  variants: function, method

- func: choose(Tensor condition) -> Tensor[]
  variants: function

- func: convert(Tensor self) -> Tensor
  dispatch:
    CUDA: convert_cuda

- func: find_all(Tensor self) -> Tensor
  dispatch:
    CUDA: find_all_cuda

- func: chain_it(Tensor self, Tensor mask) -> Tensor
  dispatch:
    CUDA: chain_it_cuda

- func: retype(Tensor self) -> Tensor
  dispatch:
    CUDA: retype_cuda

- func: shared_step(Tensor self) -> Tensor
  dispatch:
    CUDA: shared_step_cuda

- func: fill_in.Scalar(Tensor self, Tensor mask, Scalar value) -> Tensor
  variants: function, method

- func: fill_in.Tensor(Tensor self, Tensor mask, Tensor value) -> Tensor
  variants: function, method

- func: fill_in_.Scalar(Tensor(a!) self, Tensor mask, Scalar value) -> Tensor(a!)
  variants: method
  dispatch:
    CUDA: fill_in_scalar_cuda

- func: fill_in_.Tensor(Tensor(a!) self, Tensor mask, Tensor value) -> Tensor(a!)
  variants: method
  dispatch:
    CUDA: fill_in_tensor_cuda

- func: scale(Tensor self, Tensor other) -> Tensor
  variants: function, method
  dispatch:
    CUDA: scale_cuda

- func: total(Tensor self) -> Tensor
  variants: function, method
  dispatch:
    CUDA: total_cuda

- func: conv(Tensor input, Tensor weight, int[2] padding=0) -> Tensor

- func: conv.padding(Tensor input, Tensor weight, str padding="valid") -> Tensor

- func: conv_impl(Tensor input, Tensor weight) -> Tensor
  dispatch:
    CUDA: conv_impl_cuda

- func: conv_mode(Tensor input, Tensor weight) -> Tensor
  dispatch:
    CUDA: conv_mode_cuda

- func: bound(Tensor self, Scalar? low=None) -> Tensor

- func: bound.Tensor(Tensor self, Tensor? low=None) -> Tensor

- func: bound_number(Tensor self) -> Tensor
  dispatch:
    CUDA: bound_number_cuda

- func: draw(int[] size, *, ScalarType? dtype=None) -> Tensor

- func: draw.generator(int[] size, *, Generator? generator, ScalarType? dtype=None) -> Tensor

- func: draw_into(Tensor self) -> Tensor
  dispatch:
    CUDA: draw_into_cuda

- func: draw_with(Tensor self) -> Tensor
  dispatch:
    CUDA: draw_with_cuda
)x";

// tools/autograd/derivatives.yaml
constexpr char kDerivatives[] = R"x(- name: choose.self(Tensor condition, Tensor self, Tensor other) -> Tensor
  self: grad.scale(condition)

- name: fill_in_.Scalar(Tensor(a!) self, Tensor mask, Scalar value) -> Tensor(a!)
  self: grad.scale(mask)

- name: fill_in_.Tensor(Tensor(a!) self, Tensor mask, Tensor value) -> Tensor(a!)
  self: grad.scale(mask)
  value: grad.total()
)x";

// aten/src/ATen/native/Choose.cpp
constexpr char kChooseCpp[] = R"x(namespace at::native {

Tensor convert_cuda(const Tensor& self) { return self; }
Tensor find_all_cuda(const Tensor& self) { return self; }
Tensor shared_step_cuda(const Tensor& self) { return self; }
Tensor retype_cuda(const Tensor& self) { return self; }

Tensor chain_it_cuda(const Tensor& self, const Tensor& mask) {
  auto converted = at::convert(self);
  auto kept = converted;
  auto held = kept;
  auto value = held;
  return at::fill_in(self, mask, value);
}
Tensor scale_cuda(const Tensor& self, const Tensor& other) { return self; }
Tensor total_cuda(const Tensor& self) { return self; }
Tensor conv_impl_cuda(const Tensor& input, const Tensor& weight) { return input; }
Tensor conv_mode_cuda(const Tensor& input, const Tensor& weight) { return input; }
Tensor draw_into_cuda(const Tensor& self) { return self; }
Tensor bound_number_cuda(const Tensor& self) { return self; }
Tensor draw_with_cuda(const Tensor& self) { return self; }
Tensor& fill_in_scalar_cuda(Tensor& self, const Tensor& mask, const Scalar& value) { return self; }
Tensor& fill_in_tensor_cuda(Tensor& self, const Tensor& mask, const Tensor& value) { return self; }

Tensor choose_cuda(const Tensor& condition, const Tensor& self, const Tensor& other) {
  if (self.scalar_type() != other.scalar_type()) {
    at::retype(self);
  }
  return at::shared_step(self);
}

Tensor choose(const Tensor& condition, const Tensor& self, const Scalar& other) {
  Tensor other_t = at::convert(self);
  at::retype(self);
  return at::choose(condition, self, other_t);
}

std::vector<Tensor> choose(const Tensor& condition) {
  at::shared_step(condition);
  at::retype(condition);
  return {at::find_all(condition)};
}

Tensor fill_in(const Tensor& self, const Tensor& mask, const Scalar& value) {
  at::convert(self);
  Tensor result = self.clone();
  return result.fill_in_(mask, value);
}

Tensor fill_in(const Tensor& self, const Tensor& mask, const Tensor& value) {
  if (self.is_sparse()) {
    at::convert(self);
  }
  Tensor result = self.clone();
  return result.fill_in_(mask, value);
}

Tensor conv(const Tensor& input, const Tensor& weight, IntArrayRef padding) {
  return at::conv_impl(input, weight);
}

Tensor conv(const Tensor& input, const Tensor& weight, c10::string_view padding) {
  return at::conv_mode(input, weight);
}

Tensor bound(const Tensor& self, const std::optional<Scalar>& low) {
  return at::bound_number(self);
}

Tensor bound(const Tensor& self, const std::optional<Tensor>& low) {
  return self;
}

Tensor draw(IntArrayRef size, std::optional<ScalarType> dtype) {
  Tensor result = at::empty(size);
  return at::draw_into(result);
}

Tensor draw(IntArrayRef size, std::optional<Generator> generator, std::optional<ScalarType> dtype) {
  Tensor result = at::empty(size);
  return at::draw_with(result);
}

}  // namespace at::native
)x";

// torch/csrc/utils/python_arg_parser.cpp: the functions whose Tensor
// parameters take a Python number.
constexpr char kPythonArgParserCpp[] = R"x(namespace torch {

bool should_allow_numbers_as_tensors(const std::string& name) {
  static std::unordered_set<std::string> allowed = {
      "add",          "add_",          "add_out",
      // "bound",
      "_conj"}; // _conj needed because mul.Tensor backward calls it
  return allowed.find(name) != allowed.end();
}

} // namespace torch
)x";

// torch/_tensor.py: a reflected operator hands the tensor on as the second argument.
constexpr char kTensorPy[] = R"x(import torch


class Tensor(torch._C.TensorBase):
    def __rbound__(self, other):
        return torch.bound(other, self)
)x";

std::shared_ptr<MemoryDisk> OverloadsTree() {
  return MemoryTree({{"version.txt", "2.6.0a0\n"},
                     {"aten/src/ATen/native/native_functions.yaml", kNativeFunctions},
                     {"tools/autograd/derivatives.yaml", kDerivatives},
                     {"aten/src/ATen/native/Choose.cpp", kChooseCpp},
                     {"torch/csrc/utils/python_arg_parser.cpp", kPythonArgParserCpp},
                     {"torch/_tensor.py", kTensorPy},
                     {"torch/__init__.py", "\n"}});
}

class EntryOverloads : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_NO_FATAL_FAILURE(BuildMemoryIndex(OverloadsTree(), &index_)); }

  Trace TraceOf(const std::string& query) { return TraceIndex(index_, query, TraceOptions::Device::kCuda, {}); }

  static const OpStep* Op(const Trace& t, OpRole role, const std::string& name) {
    for (const auto& op : t.ops)
      if (op.role == role && op.name == name) return &op;
    return nullptr;
  }
  // On the typical path, decided.
  static bool Runs(const Trace& t, const std::string& name, OpRole role = OpRole::kForward) {
    const OpStep* op = Op(t, role, name);
    return op && op->typical && !op->undecided;
  }
  // Not on the path: not listed, or listed and ruled out.
  static bool Off(const Trace& t, const std::string& name) {
    const OpStep* op = Op(t, OpRole::kForward, name);
    return !op || !(op->typical || op->undecided);
  }
  // Listed, behind what the assumptions leave open.
  static bool Open(const Trace& t, const std::string& name, OpRole role = OpRole::kForward) {
    const OpStep* op = Op(t, role, name);
    return op && !op->typical && op->undecided;
  }

  Index index_;
};

TEST_F(EntryOverloads, WhatOnlySomeOverloadsOfAnUnreadCallRunIsOpen) {
  Trace t = TraceOf("torch.choose");
  // One of the overloads runs: each stays on the path.
  EXPECT_TRUE(Runs(t, "choose.self"));
  EXPECT_TRUE(Runs(t, "choose.ScalarOther"));
  EXPECT_TRUE(Runs(t, "choose"));
  EXPECT_TRUE(Open(t, "convert")) << "only choose.ScalarOther converts its number";
  EXPECT_TRUE(Open(t, "find_all")) << "only the one-argument choose finds indices";
  EXPECT_TRUE(Runs(t, "shared_step")) << "every overload reaches it (the number's through choose.self)";
  EXPECT_TRUE(Open(t, "retype")) << "choose.self retypes only where the dtypes differ";
}

TEST_F(EntryOverloads, ACallThatFitsOneOverloadDecidesIt) {
  Trace t = TraceOf("torch.choose(c)");
  EXPECT_TRUE(Runs(t, "find_all"));
  EXPECT_FALSE(Runs(t, "convert"));
  EXPECT_FALSE(Open(t, "convert"));
}

TEST_F(EntryOverloads, AnOpEveryOverloadReachesByNameRuns) {
  Trace t = TraceOf("Tensor.fill_in");
  // fill_in.Scalar calls fill_in_.Scalar, fill_in.Tensor fill_in_.Tensor:
  // the Main path names fill_in_ either way.
  EXPECT_TRUE(Runs(t, "fill_in_.Scalar"));
  EXPECT_TRUE(Runs(t, "fill_in_.Tensor"));
}

TEST_F(EntryOverloads, ACallTheAssumptionsRuleOutReachesNothing) {
  // fill_in.Tensor converts only a sparse tensor: of the two, fill_in.Scalar alone converts.
  Trace t = TraceOf("Tensor.fill_in");
  EXPECT_TRUE(Open(t, "convert"));
}

TEST_F(EntryOverloads, ABackwardOpEveryOverloadsFormulaNamesRuns) {
  Trace t = TraceOf("Tensor.fill_in");
  EXPECT_TRUE(Runs(t, "scale", OpRole::kBackward)) << "both fill_in_ formulas: grad.scale(mask)";
  EXPECT_TRUE(Open(t, "total", OpRole::kBackward)) << "only fill_in_.Tensor's value has a gradient";
  Trace c = TraceOf("torch.choose");
  EXPECT_TRUE(Open(c, "scale", OpRole::kBackward)) << "choose.ScalarOther and the one-argument choose name none";
}

TEST_F(EntryOverloads, ACallWithDefaultArgumentsTakesTheOverloadTheParserTriesFirst) {
  // conv and conv.padding need input and weight alike; omitted, padding is
  // 0 or "valid", and the parser tries `SymIntArrayRef[2] padding` before
  // `c10::string_view padding`.
  Trace conv = TraceOf("torch.conv");
  EXPECT_TRUE(Runs(conv, "conv"));
  EXPECT_TRUE(Runs(conv, "conv_impl"));
  const OpStep* mode = Op(conv, OpRole::kForward, "conv_mode");
  ASSERT_NE(mode, nullptr);
  EXPECT_FALSE(mode->typical || mode->undecided);
  // bound's low defaults to None in both: a call passes a number or a
  // tensor, and that picks; the path stays as it was.
  Trace bound = TraceOf("torch.bound");
  EXPECT_TRUE(Runs(bound, "bound_number"));
}

TEST_F(EntryOverloads, ANumberParsesAsATensorOnlyWhereTheParserAllowsIt) {
  // python_arg_parser.cpp names no `bound` (its line is a comment): 0.5 is
  // bound's Scalar low, never bound.Tensor's Tensor low.
  Trace t = TraceOf("torch.bound(x, 0.5)");
  EXPECT_TRUE(Runs(t, "bound"));
  EXPECT_TRUE(Off(t, "bound.Tensor"));
}

TEST_F(EntryOverloads, ATensorParsesAsNoNumber) {
  // `torch.bound(other, self)` in a Tensor method: self, a tensor that requires
  // grad, is no Scalar `low` (python_arg_parser.cpp's SCALAR case), so only
  // bound.Tensor takes the call.
  Trace t = TraceOf("Tensor.__rbound__");
  EXPECT_TRUE(Runs(t, "bound.Tensor"));
  EXPECT_TRUE(Off(t, "bound"));
}

TEST_F(EntryOverloads, AnAutoChainOfTensorsIsATensorArgument) {
  // Loss.cpp's cosine_embedding_loss passes `pos` (`1 - cos`, `cos = prod_sum / denom`, ...) to
  // at::where: `value`, three `auto` copies from at::convert's Tensor, is no Scalar.
  Trace t = TraceOf("aten::chain_it");
  EXPECT_TRUE(Runs(t, "fill_in.Tensor"));
  EXPECT_TRUE(Off(t, "fill_in.Scalar"));
}

TEST_F(EntryOverloads, AnOverloadNeedingAKeywordIsNoneOfTheCallsChoices) {
  // draw.generator needs generator=, which a call with default arguments never passes.
  Trace draw = TraceOf("torch.draw");
  EXPECT_TRUE(Runs(draw, "draw_into"));
}

FunctionSchema Schema(const char* text) {
  FunctionSchema s;
  std::string error;
  EXPECT_TRUE(ParseFunctionSchema(text, &s, &error)) << error;
  return s;
}

TEST(ParserOrder, TheSignatureTextThenThePartialOrderDecide) {
  const FunctionSchema conv = Schema("conv2d(Tensor input, Tensor weight, SymInt[2] padding=0) -> Tensor");
  const FunctionSchema by_mode = Schema("conv2d.padding(Tensor input, Tensor weight, str padding=\"valid\") -> Tensor");
  EXPECT_EQ(ParserTriesFirst(conv, by_mode), true);  // "SymIntArrayRef[2] " < "c10::string_view "
  EXPECT_EQ(ParserTriesFirst(by_mode, conv), false);
  // A Tensor is preferred over a Scalar whatever the text says.
  const FunctionSchema scalar = Schema("clamp(Tensor self, Scalar? min=None) -> Tensor");
  const FunctionSchema tensor = Schema("clamp.Tensor(Tensor self, Tensor? min=None) -> Tensor");
  EXPECT_EQ(ParserTriesFirst(scalar, tensor), false);
  EXPECT_EQ(ParserTriesFirst(tensor, scalar), true);
  // A type not rendered here leaves the order unknown.
  const FunctionSchema layout = Schema("f.a(Tensor self, QScheme q=0) -> Tensor");
  const FunctionSchema other = Schema("f.b(Tensor self, str q=\"x\") -> Tensor");
  EXPECT_EQ(ParserTriesFirst(layout, other), std::nullopt);
}

TEST(ParserOrder, TheParserTakesNumbersAsTensorsForTheFunctionsItNames) {
  EXPECT_EQ(NumbersAsTensorsFunctions(kPythonArgParserCpp), (std::set<std::string>{"add", "add_", "add_out", "_conj"}));
  EXPECT_TRUE(NumbersAsTensorsFunctions("bool should_allow_numbers_as_tensors(const std::string& name);").empty())
      << "a declaration lists nothing";
  EXPECT_TRUE(NumbersAsTensorsFunctions("").empty());
}

}  // namespace
}  // namespace optrace
