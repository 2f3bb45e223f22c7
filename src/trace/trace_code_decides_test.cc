// What the code itself decides on the typical path, on a small MemoryDisk
// tree written here: a local holding a size of the tensor is at least 1
// (the empty-input early return is not taken), a flag local holds what the
// assumptions decide of its expression, a helper's caller passing `{}` and
// `/*forward=*/true` binds its parameters (and the helpers it passes them
// on to), a Python if-chain whose branches all return guards what follows
// by every branch, a Python call with more arguments than an overload
// takes, or without one it has no default for, is not that overload, a helper call takes the C++ overload its
// arguments' declared types match exactly, and a structured delegate is
// folded into the op that delegates, a library check is what its body says, not what its
// name suggests, a named lambda's body runs where the lambda is called, an overload that
// needs a named tensor is not a typical tensor's, the right operand of `||` runs only when
// the left does not hold, an `auto` local holding a Tensor is a Tensor argument, and a local
// holding an optional's `value_or(fallback)` (its other write in an #if group the build leaves
// out) is the fallback where the call leaves the optional empty. Line
// numbers are lines of the raw strings below (each
// starts at line 1 of its file).
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "testing/memory_index.h"
#include "trace/trace.h"
#include "trace/trace_test_util.h"

namespace optrace {
namespace {

// aten/src/ATen/native/native_functions.yaml
constexpr char kNativeFunctions[] = R"x(- func: pick_a(Tensor self) -> Tensor
  dispatch:
    CUDA: pick_a_cuda

- func: solve_with(Tensor self, *, str? driver=None) -> Tensor
  dispatch:
    CUDA: solve_with_cuda

- func: pick_b(Tensor self) -> Tensor
  dispatch:
    CUDA: pick_b_cuda

- func: pick_c(Tensor self) -> Tensor
  dispatch:
    CUDA: pick_c_cuda

- func: shrink(Tensor self) -> Tensor
  dispatch:
    CUDA: shrink_cuda

- func: spectral(Tensor self) -> Tensor

- func: embed(Tensor weight) -> Tensor

- func: middle(Tensor self) -> Tensor
  dispatch:
    CUDA: middle_cuda

- func: middle.dim(Tensor self, int dim, bool keepdim=False) -> Tensor
  dispatch:
    CUDA: middle_dim_cuda

- func: grow.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)
  structured: True
  dispatch:
    CUDA: grow_out

- func: grow_(Tensor(a!) self) -> Tensor(a!)
  structured_delegate: grow.out

- func: lookup(Tensor weight, Tensor indices) -> Tensor

- func: chop(Tensor self, int size) -> Tensor

- func: blank(int[] size, *, ScalarType? dtype=None) -> Tensor
  dispatch:
    CompositeImplicitAutograd: blank

- func: blank.names(int[] size, *, Dimname[]? names, ScalarType? dtype=None) -> Tensor
  dispatch:
    CompositeImplicitAutograd: blank_names

- func: quot.Tensor(Tensor self, Tensor other) -> Tensor
  variants: function, method

- func: quot.Tensor_mode(Tensor self, Tensor other, *, str? rounding_mode) -> Tensor
  variants: function, method

- func: grow(Tensor self) -> Tensor
  structured_delegate: grow.out

- func: regrow(Tensor self) -> Tensor
  dispatch:
    CUDA: regrow_cuda

- func: settle(Tensor self) -> Tensor
  dispatch:
    CUDA: settle_cuda

- func: libcheck(Tensor self) -> Tensor
  dispatch:
    CUDA: libcheck_cuda

- func: libflag(Tensor self, int[] lengths) -> Tensor
  dispatch:
    CUDA: libflag_cuda

- func: factor(Tensor self) -> Tensor
  dispatch:
    CUDA: factor_cuda

- func: part(Tensor self, SymInt size, int dim=0) -> Tensor
  variants: function, method
  dispatch:
    CUDA: part_cuda

- func: part.sizes(Tensor self, SymInt[] size, int dim=0) -> Tensor
  variants: function, method
  dispatch:
    CUDA: part_sizes_cuda

- func: halve(Tensor self, int chunks) -> Tensor
  dispatch:
    CUDA: halve_cuda

- func: conj(Tensor(a) self) -> Tensor(a)
  variants: function, method
  dispatch:
    CompositeImplicitAutograd: conj

- func: solve_it(Tensor self, int n) -> Tensor
  dispatch:
    CUDA: solve_it_cuda

- func: scale_it.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)
  dispatch:
    CUDA: scale_it_out

- func: scale_it.Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out) -> Tensor(a!)
  dispatch:
    CUDA: scale_it_scalar_out

- func: rescale(Tensor self, bool flag) -> Tensor
  dispatch:
    CUDA: rescale_cuda

- func: short_it(Tensor self, Tensor w) -> Tensor
  dispatch:
    CUDA: short_it_cuda

- func: named_pick(Tensor self, int dim) -> Tensor
  dispatch:
    CompositeImplicitAutograd: named_pick

- func: named_pick.Dimname(Tensor self, Dimname dim) -> Tensor
  dispatch:
    CompositeImplicitAutograd: named_pick_dimname
)x";

// aten/src/ATen/native/Shrink.cpp
constexpr char kShrinkCpp[] = R"x(namespace at::native {
Tensor pick_a_cuda(const Tensor& self) { return self; }
Tensor pick_b_cuda(const Tensor& self) { return self; }
Tensor pick_c_cuda(const Tensor& self) { return self; }

Tensor shrink_cuda(const Tensor& self) {
  const auto n = self.numel();
  if (n == 0) {
    return at::pick_b(self);
  }
  const int64_t rows = self.size(0) - 1;
  if (rows == 0) {
    return at::pick_c(self);
  }
  return at::pick_a(self);
}

Tensor spectral_inner(const Tensor& out, const Tensor& input) {
  if (out.defined()) {
    return at::pick_a(input);
  }
  return at::pick_b(input);
}

Tensor spectral_helper(c10::string_view name, Tensor out, Tensor input, bool forward) {
  if (!forward) {
    return at::pick_c(input);
  }
  return spectral_inner(out, input);
}

Tensor spectral(const Tensor& self) {
  return spectral_helper("s", {}, self, /*forward=*/true);
}

Tensor embed(const Tensor& weight) {
  bool needs_grad = weight.requires_grad() || weight.is_sparse();
  if (!needs_grad) {
    return at::pick_a(weight);
  }
  return at::pick_b(weight);
}

Tensor middle_cuda(const Tensor& self) { return self; }
Tensor middle_dim_cuda(const Tensor& self, int64_t dim, bool keepdim) { return self; }
TORCH_IMPL_FUNC(grow_out) (const Tensor& self, const Tensor& result) {}

Tensor quot(const Tensor& self, const Tensor& other) { return at::pick_a(self); }
Tensor quot(const Tensor& self, const Tensor& other, std::optional<c10::string_view> rounding_mode) {
  return at::pick_b(self);
}

Tensor lookup(const Tensor& weight, const Tensor& indices) {
  if (indices.dim() == 1) {
    return at::pick_a(weight);
  }
  auto flat = at::pick_b(indices);
  return at::pick_a(weight);
}

std::vector<Tensor> cut(const Tensor& self, int64_t size) { return {at::pick_a(self)}; }
std::vector<Tensor> cut(const Tensor& self, IntArrayRef sizes) { return {at::pick_b(self)}; }

Tensor chop(const Tensor& self, int64_t size) {
  auto parts = at::native::cut(self, size);
  return parts[0];
}

Tensor blank(IntArrayRef size, std::optional<ScalarType> dtype) { return at::pick_a(Tensor()); }
Tensor blank_names(IntArrayRef size, std::optional<DimnameList> names, std::optional<ScalarType> dtype) {
  return at::pick_b(Tensor());
}

Tensor regrow_cuda(const Tensor& self) {
  Tensor result = self;
  if (self.is_sparse()) {
    return at::grow(self);
  }
  return at::grow_(result);
}

Tensor settle_cuda(const Tensor& self) {
  if (self.size(0) > 4) {
    return at::pick_a(self);
  } else {
    return at::pick_b(self);
  }
  return at::pick_c(self);
}

Tensor factor_cuda(const Tensor& self) {
  auto triangular = [&](const Tensor& b) {
    return at::pick_c(b);
  };
  const bool use_magma = at::globalContext().linalgPreferredBackend() == at::LinalgBackend::Magma;
  if (use_magma) {
    return at::pick_b(self);
  }
  if (self.size(-1) <= 16) {
    return at::pick_a(self);
  }
  return triangular(self);
}

Tensor part_cuda(const Tensor& self, int64_t size, int64_t dim) { return self; }
Tensor part_sizes_cuda(const Tensor& self, IntArrayRef size, int64_t dim) { return self; }
Tensor halve_cuda(const Tensor& self, int64_t chunks) {
  int64_t size = chunks / 2;
  return self.part(size, 0);
}

Tensor libcheck_cuda(const Tensor& self) {
  if (cudnn_is_acceptable(self)) {
    return at::pick_a(self);
  }
  return at::pick_b(self);
}

Tensor libflag_cuda(const Tensor& self, IntArrayRef lengths) {
  bool use_lib = self.is_cuda() && at::native::_use_cudnn_check(self, lengths);
  if (use_lib) {
    return at::pick_a(self);
  }
  return at::pick_b(self);
}

Tensor solve_it_cuda(const Tensor& self, int64_t n) {
  auto tri = [&](const Tensor& b) { return at::pick_c(b); };
  auto always = [&](const Tensor& b) { return at::pick_a(b); };
  auto out = always(self);
  if (n > 16) {
    return tri(out);
  }
  return out;
}

Tensor& scale_it_out(const Tensor& self, const Tensor& other, Tensor& out) { return at::pick_a(out); }
Tensor& scale_it_scalar_out(const Tensor& self, const Scalar& other, Tensor& out) { return at::pick_b(out); }
Tensor rescale_cuda(const Tensor& self, bool flag) {
  Tensor norm = at::pick_c(self);
  auto factor = flag ? norm : at::pick_c(self);
  Tensor out = at::pick_c(self);
  at::scale_it_outf(self, factor, out);
  return out;
}

Tensor short_it_cuda(const Tensor& self, const Tensor& w) {
  TORCH_CHECK(!w.defined() || at::pick_b(w).defined(), "w");
  return at::pick_a(self);
}

Tensor named_pick(const Tensor& self, int64_t dim) { return at::pick_a(self); }
Tensor named_pick_dimname(const Tensor& self, Dimname dim) { return at::pick_b(self); }
} // namespace at::native
)x";

// aten/src/ATen/native/LibChecks.cpp: a guard chain, an overload that
// forwards to it, and a check with a stub under `#if !AT_CUDNN_ENABLED()`
// whose real body reads another tensor's dtype.
constexpr char kLibChecksCpp[] = R"x(namespace at::native {
bool cudnn_is_acceptable(const TensorBase& self) {
  if (!globalContext().userEnabledCuDNN()) return false;
  if (!self.is_cuda()) return false;
  auto st = self.scalar_type();
  if (!(st == kDouble || st == kFloat || st == kHalf)) return false;
  return true;
}

bool cudnn_is_acceptable(const Tensor& self) {
  return cudnn_is_acceptable(static_cast<const TensorBase&>(self));
}

#if !AT_CUDNN_ENABLED()
bool _use_cudnn_check(const Tensor& self, IntArrayRef lengths) {
  return false;
}
#else
bool _use_cudnn_check(const Tensor& self, IntArrayRef lengths) {
  auto& ctx = at::globalContext();
  bool use = ctx.userEnabledCuDNN() && (self.scalar_type() == at::kDouble);
  if (use) {
    for (const auto l : lengths) {
      use = use && (l < 256);
    }
  }
  return use;
}
#endif
} // namespace at::native
)x";

// torch/nn/functional.py
constexpr char kFunctionalPy[] = R"x(import torch
def reduce(input, reduction="mean"):
    if reduction == "none":
        return torch.pick_b(input)
    elif reduction == "sum":
        return torch.pick_c(input)
    return torch.pick_a(input)
def middle_of(input, dim):
    return torch.middle(input, dim)
def blank_like(input):
    return torch.blank(2, 3, dtype=input.dtype)
def squared(input):
    return torch.pick_a(input.conj())
def pick_dim(input, dim):
    return torch.named_pick(input, dim)
)x";

// aten/src/ATen/templates/TensorBody.h
constexpr char kTensorBody[] = R"x(class TORCH_API Tensor: public TensorBase {
 public:
  Tensor conj() const {
    if (!this->is_complex()) {
      return *this;
    }
    return this->_conj();
  }
};
)x";

// tools/autograd/templates/python_variable_methods.cpp: `x / y` binds quot.
constexpr char kVariableMethods[] = R"x(static PyMethodDef variable_methods[] = {
  {"__truediv__", castPyCFunctionWithKeywords(TypeError_to_NotImplemented_<THPVariable_quot>), METH_VARARGS | METH_KEYWORDS, NULL},
};
)x";

// aten/src/ATen/native/Drivers.cpp: svd_cusolver's driver choice
// (cuda/linalg/BatchLinearAlgebraLib.cpp:657-665).
constexpr char kDriversCpp[] = R"x(namespace at::native {
void solve_helper(const Tensor& self, const std::optional<std::string_view>& driver) {
#ifdef USE_ROCM
  const auto driver_v = std::string_view("b");
#else
  const auto driver_v = driver.value_or("a");
#endif
  if (driver_v == "b") {
    at::pick_b(self);
  } else if (driver_v == "a") {
    at::pick_a(self);
  } else {
    at::pick_c(self);
  }
}
Tensor solve_with_cuda(const Tensor& self, std::optional<std::string_view> driver) {
  solve_helper(self, driver);
  return self;
}
}  // namespace at::native
)x";

constexpr char kNnInitPy[] = "from . import functional\n";
constexpr char kTorchInitPy[] = "import torch.nn\n";

std::shared_ptr<MemoryDisk> Tree() {
  return MemoryTree({{"version.txt", "2.6.0a0\n"},
                     {"aten/src/ATen/native/native_functions.yaml", kNativeFunctions},
                     {"aten/src/ATen/native/Shrink.cpp", kShrinkCpp},
                     {"aten/src/ATen/native/Drivers.cpp", kDriversCpp},
                     {"aten/src/ATen/native/LibChecks.cpp", kLibChecksCpp},
                     {"torch/nn/functional.py", kFunctionalPy},
                     {"aten/src/ATen/templates/TensorBody.h", kTensorBody},
                     {"tools/autograd/templates/python_variable_methods.cpp", kVariableMethods},
                     {"torch/nn/__init__.py", kNnInitPy},
                     {"torch/__init__.py", kTorchInitPy}});
}

class CodeDecides : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_NO_FATAL_FAILURE(BuildMemoryIndex(Tree(), &index_)); }
  Trace TraceOf(const std::string& query, std::vector<std::string> assume = {}) {
    return TraceIndex(index_, query, TraceOptions::Device::kCuda, std::move(assume));
  }
  Index index_;
};

TEST_F(CodeDecides, ASizeLocalIsNeverZero) {
  // Shrink.cpp:7-8 `const auto n = self.numel(); if (n == 0)`: a typical
  // tensor is not empty. :11-12's `self.size(0) - 1` may be 0: open.
  Trace t = TraceOf("aten::shrink");
  EXPECT_EQ(PathOf(t, "pick_b"), "not taken");
  EXPECT_EQ(PathOf(t, "pick_c"), "open");
  EXPECT_EQ(PathOf(t, "pick_a"), "open");
}

TEST_F(CodeDecides, AnOptionalsValueOrInTheBuiltIfGroupIsItsFallback) {
  // Drivers.cpp:5 `driver.value_or("a")` of an optional the call leaves at
  // its None: "a". :3's write is in an #if group a CUDA build leaves out,
  // so :5 is the local's only value.
  Trace t = TraceOf("aten::solve_with");
  EXPECT_EQ(PathOf(t, "pick_a"), "typical");
  EXPECT_EQ(PathOf(t, "pick_b"), "not taken");
  EXPECT_EQ(PathOf(t, "pick_c"), "not taken");
}

TEST_F(CodeDecides, AnIfChainOfReturnsGuardsWhatFollows) {
  // functional.py:3-7: pick_a runs unless reduction is 'none' or 'sum';
  // at the default 'mean' neither holds.
  Trace t = TraceOf("F.reduce");
  EXPECT_EQ(PathOf(t, "pick_a"), "typical");
  EXPECT_EQ(PathOf(t, "pick_b"), "not taken");
  EXPECT_EQ(PathOf(t, "pick_c"), "not taken");
  Trace sum = TraceOf("F.reduce(x, reduction='sum')");
  EXPECT_EQ(PathOf(sum, "pick_a"), "not taken");
  EXPECT_EQ(PathOf(sum, "pick_c"), "typical");
}

TEST_F(CodeDecides, ACallersEmptyValueAndCommentedLiteralBindTheHelper) {
  // Shrink.cpp:33 `spectral_helper("s", {}, self, /*forward=*/true)`:
  // `forward` is true (:26 not taken); `out` is undefined, and passed on to
  // spectral_inner unchanged (:29), so :19 is not taken there either.
  Trace t = TraceOf("aten::spectral");
  EXPECT_EQ(PathOf(t, "pick_a"), "not taken");
  EXPECT_EQ(PathOf(t, "pick_c"), "not taken");
  EXPECT_EQ(PathOf(t, "pick_b"), "typical");
}

TEST_F(CodeDecides, AFlagLocalHoldsWhatTheAssumptionsDecide) {
  // Shrink.cpp:37 `bool needs_grad = weight.requires_grad() || ...`.
  Trace t = TraceOf("aten::embed");
  EXPECT_EQ(PathOf(t, "pick_a"), "not taken");
  EXPECT_EQ(PathOf(t, "pick_b"), "typical");
  Trace no_grad = TraceOf("aten::embed", {"no-grad"});
  EXPECT_EQ(PathOf(no_grad, "pick_a"), "typical");
  EXPECT_EQ(PathOf(no_grad, "pick_b"), "not taken");
}

TEST_F(CodeDecides, APythonCallIsOnlyTheOverloadsItsArgumentsFit) {
  // functional.py:9 `torch.middle(input, dim)`: two arguments, so never
  // `middle(Tensor self)`.
  Trace t = TraceOf("F.middle_of");
  EXPECT_EQ(PathOf(t, "middle.dim"), "typical");
  EXPECT_EQ(PathOf(t, "middle"), "not taken");
}

TEST_F(CodeDecides, AnOpCalledOnBothSidesOfAnOpenEarlyReturnRuns) {
  // Shrink.cpp:54-56 `if (indices.dim() == 1) { return at::pick_a(weight); }`, :58 `return
  // at::pick_a(weight);` after it: pick_a runs either way; :57's pick_b only past the return.
  Trace t = TraceOf("aten::lookup");
  EXPECT_EQ(PathOf(t, "pick_a"), "typical");
  EXPECT_EQ(PathOf(t, "pick_b"), "open");
}

TEST_F(CodeDecides, ANamedLambdasCallsRunWhereItIsCalledAndNoLinalgLibraryIsChosen) {
  // Shrink.cpp:92-94 `auto triangular = [&](...) { return at::pick_c(b); };` is called only at
  // :102, past :99's open `if (self.size(-1) <= 16) return`: pick_c is open, not run where
  // written. :95-96 `use_magma` holds a test for one preferred library, false by default.
  Trace t = TraceOf("aten::factor");
  EXPECT_EQ(PathOf(t, "pick_c"), "open");
  EXPECT_EQ(PathOf(t, "pick_a"), "open");
  EXPECT_EQ(PathOf(t, "pick_b"), "not taken");
}

TEST_F(CodeDecides, APythonMethodCallOfAMethodReturningItselfRunsNoOp) {
  // functional.py:13 `input.conj()`: TensorBody.h:3-6 returns the tensor itself unless it is
  // complex, so a float32 tensor dispatches no conj; an assumed complex one does.
  EXPECT_EQ(PathOf(TraceOf("F.squared"), "conj"), "not taken");
  EXPECT_EQ(PathOf(TraceOf("F.squared"), "pick_a"), "typical");
  EXPECT_EQ(PathOf(TraceOf("F.squared", {"dtype=complex64"}), "conj"), "typical");
}

TEST_F(CodeDecides, TheBindingOfAnOpWithAMethodVariantCallsTheMethod) {
  // torchgen binds torch.conj to `self.conj()` (conj has a method variant): the
  // hand-written method at TensorBody.h:3-6 dispatches nothing for a real tensor.
  EXPECT_EQ(PathOf(TraceOf("torch.conj"), "conj"), "not taken");
  EXPECT_EQ(PathOf(TraceOf("torch.conj", {"dtype=complex64"}), "conj"), "typical");
}

TEST_F(CodeDecides, ANumberArgumentTakesTheScalarOverloadOverTheListOne) {
  // Shrink.cpp:109 `self.part(size, 0)` with `int64_t size`: part and part.sizes (SymInt[], from one
  // element) both admit it; C++ picks the exact match.
  Trace t = TraceOf("aten::halve");
  EXPECT_EQ(PathOf(t, "part"), "typical");
  EXPECT_EQ(PathOf(t, "part.sizes"), "");
}

TEST_F(CodeDecides, AHelperCallTakesTheOverloadItsArgumentsMatchExactly) {
  // Shrink.cpp:65 `at::native::cut(self, size)` with `int64_t size`: cut's int64_t overload (:61),
  // not the IntArrayRef one (:62) an int64_t also converts to.
  Trace t = TraceOf("aten::chop");
  EXPECT_EQ(PathOf(t, "pick_a"), "typical");
  EXPECT_NE(PathOf(t, "pick_b"), "typical");
  EXPECT_NE(PathOf(t, "pick_b"), "open");
}

TEST_F(CodeDecides, AnOperatorTakesTheOverloadTheParserPicksForTensors) {
  // `x / y` passes one tensor and no rounding_mode: quot.Tensor, whose
  // Shrink.cpp:48 calls pick_a; quot.Tensor_mode (:49-51, pick_b) takes a keyword it never passes.
  Trace t = TraceOf("Tensor.__truediv__");
  EXPECT_EQ(t.selected_overload, "quot.Tensor");
  EXPECT_EQ(PathOf(t, "quot.Tensor"), "typical");
  EXPECT_EQ(PathOf(t, "pick_a"), "typical");
  EXPECT_EQ(PathOf(t, "quot.Tensor_mode"), "not taken");
  EXPECT_EQ(PathOf(t, "pick_b"), "not taken");
}

TEST_F(CodeDecides, APythonCallPassesEveryArgumentWithoutDefault) {
  // functional.py:11 `torch.blank(2, 3, dtype=input.dtype)` passes no `names`, which blank.names
  // takes with no default: never that overload.
  Trace t = TraceOf("F.blank_like");
  EXPECT_EQ(PathOf(t, "blank"), "typical");
  EXPECT_EQ(PathOf(t, "pick_a"), "typical");
  EXPECT_EQ(PathOf(t, "blank.names"), "not taken");
  EXPECT_EQ(PathOf(t, "pick_b"), "not taken");
}

TEST_F(CodeDecides, AStructuredDelegateIsFoldedIntoItsOp) {
  // grow_ delegates to grow.out: the profiler sees aten::grow_ only, the
  // delegate's impl runs inside grow_'s generated kernel.
  Trace t = TraceOf("aten::grow_");
  EXPECT_EQ(PathOf(t, "grow_"), "typical");
  EXPECT_EQ(PathOf(t, "grow.out"), "not taken");
}

TEST_F(CodeDecides, WhatFollowsAnIfElseReturningOnBothBranchesNeverRuns) {
  // Shrink.cpp:56-63: pick_a and pick_b are the open branches; :62's pick_c is dead code.
  Trace t = TraceOf("aten::settle");
  EXPECT_EQ(PathOf(t, "pick_a"), "open");
  EXPECT_EQ(PathOf(t, "pick_b"), "open");
  EXPECT_EQ(PathOf(t, "pick_c"), "not taken");
}

TEST_F(CodeDecides, ADelegateReachedOnlyByOpsDelegatingToItIsFolded) {
  // Shrink.cpp:48-54: regrow calls grow only for a sparse tensor and
  // grow_ otherwise; both delegate to grow.out, which is no op of its own
  // on the path whichever of them reached it.
  Trace t = TraceOf("aten::regrow");
  EXPECT_EQ(PathOf(t, "grow_"), "typical");
  EXPECT_EQ(PathOf(t, "grow"), "not taken");
  EXPECT_EQ(PathOf(t, "grow.out"), "not taken");
}

TEST_F(CodeDecides, ALibraryCheckIsWhatItsBodyReturns) {
  // Shrink.cpp:113 `cudnn_is_acceptable(self)`: LibChecks.cpp:2-8's guards
  // take float32 (the overload at :10 forwards to it) and turn bfloat16
  // away, which the name alone would have let through.
  Trace t = TraceOf("aten::libcheck");
  EXPECT_EQ(PathOf(t, "pick_a"), "typical");
  EXPECT_EQ(PathOf(t, "pick_b"), "not taken");
  Trace bf16 = TraceOf("aten::libcheck", {"dtype=bfloat16"});
  EXPECT_EQ(PathOf(bf16, "pick_a"), "not taken");
  EXPECT_EQ(PathOf(bf16, "pick_b"), "typical");
}

TEST_F(CodeDecides, ALibraryCheckUnderItsConfigurationDecidesAFlag) {
  // Shrink.cpp:120 `bool use_lib = ... _use_cudnn_check(self, lengths)`:
  // with cuDNN built, LibChecks.cpp:19-28 runs (not :15's stub), and its
  // first value needs a double tensor: float32 takes pick_b.
  Trace t = TraceOf("aten::libflag");
  EXPECT_EQ(PathOf(t, "pick_a"), "not taken");
  EXPECT_EQ(PathOf(t, "pick_b"), "typical");
}

TEST_F(CodeDecides, ANamedLambdaRunsWhereItIsCalled) {
  // Shrink.cpp:128 `tri`'s pick_c runs only under `if (n > 16)` (:131-132), open;
  // :129 `always` is called where it is defined (:130): its pick_a is typical.
  Trace t = TraceOf("aten::solve_it");
  EXPECT_EQ(PathOf(t, "pick_a"), "typical");
  EXPECT_EQ(PathOf(t, "pick_c"), "open");
}

TEST_F(CodeDecides, AnOverloadThatNeedsNamesIsNotTheTypicalCall) {
  // functional.py:15 `torch.named_pick(input, dim)`: `dim` of either kind fits both overloads,
  // but named_pick.Dimname's required Dimname names a dimension a typical tensor has not.
  Trace t = TraceOf("F.pick_dim");
  EXPECT_EQ(PathOf(t, "named_pick"), "typical");
  EXPECT_EQ(PathOf(t, "pick_a"), "typical");
  EXPECT_EQ(PathOf(t, "named_pick.Dimname"), "not taken");
  EXPECT_EQ(PathOf(t, "pick_b"), "not taken");
}

TEST_F(CodeDecides, TheRightOperandOfOrRunsOnlyUnlessTheLeftHolds) {
  // Shrink.cpp:148 `!w.defined() || at::pick_b(w).defined()`: pick_b only where w is defined (open).
  Trace t = TraceOf("aten::short_it");
  EXPECT_EQ(PathOf(t, "pick_a"), "typical");
  EXPECT_EQ(PathOf(t, "pick_b"), "open");
}

TEST_F(CodeDecides, AnAutoLocalHoldingATensorIsATensorArgument) {
  // Shrink.cpp: `auto factor = flag ? norm : at::pick_c(self);` then `at::scale_it_outf(self, factor, out)`:
  // scale_it.out, never the Scalar overload.
  Trace t = TraceOf("aten::rescale");
  EXPECT_EQ(PathOf(t, "scale_it.out"), "typical");
  EXPECT_NE(PathOf(t, "scale_it.Scalar_out"), "typical");
  EXPECT_NE(PathOf(t, "pick_b"), "typical");
}

}  // namespace
}  // namespace optrace
