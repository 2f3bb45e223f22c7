// What the code fixes decides the typical path, on a small MemoryDisk tree
// written here: a Python default, a constant a caller passes, the user's
// own call query, only the calls a caller's defaults leave on the path,
// an open optional step (a lone `if` that falls through) off the path,
// a module attribute its base's __init__ sets (through an
// old-style super call) or its own sets in the branch its arguments take, a flag local set by a chain of checks, a
// composite's C++ branch on an argument the Python call passes, an overload the call cannot be, a selection
// function whose predicate's dtype lists rule a backend out, a size unpacked from a shape, no tensor, and the
// only return the call's arguments leave (sole_return.h). Line numbers
// are lines of the raw strings below (each starts at line 1 of its file).
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "testing/memory_index.h"
#include "trace/dtype_gates.h"
#include "trace/trace.h"
#include "trace/trace_test_util.h"

namespace optrace {
namespace {

// aten/src/ATen/native/native_functions.yaml
constexpr char kNativeFunctions[] = R"x(- func: pick_a(Tensor self) -> Tensor
  dispatch:
    CUDA: pick_a_cuda

- func: conv_it(Tensor self, Tensor? bias=None) -> Tensor
  dispatch:
    CompositeImplicitAutograd: conv_it

- func: conv_inner(Tensor self, Tensor? extra=None) -> Tensor
  dispatch:
    CompositeImplicitAutograd: conv_inner

- func: bump_(Tensor(a!) self, Scalar other) -> Tensor(a!)
  variants: method
  dispatch:
    CUDA: bump_cuda_

- func: pick_b(Tensor self) -> Tensor
  dispatch:
    CUDA: pick_b_cuda

- func: smooth(Tensor self, float smoothing=0.0) -> Tensor

- func: total(Tensor self, *, ScalarType? dtype=None) -> Tensor
  dispatch:
    CUDA: total_cuda

- func: total.dim_IntList(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor
  dispatch:
    CUDA: total_dim_cuda

- func: total.dim_DimnameList(Tensor self, Dimname[1] dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor
  dispatch:
    CUDA: total_names_cuda

- func: attend(Tensor self) -> Tensor

- func: drop(Tensor self, float p, bool train) -> Tensor

- func: pick_c(Tensor self) -> Tensor
  dispatch:
    CUDA: pick_c_cuda

- func: attend_in_order(Tensor self) -> Tensor

- func: blend(Tensor self) -> Tensor

- func: blend_fancy(Tensor self) -> Tensor

- func: norm_select(Tensor self) -> Tensor

- func: grad_select(Tensor self) -> Tensor

- func: pad_mode(Tensor self, str mode="constant") -> Tensor

- func: pad_reflect(Tensor self) -> Tensor

- func: clip_low(Tensor self, Scalar low) -> Tensor
  structured_delegate: clip_low.out

- func: clip_low.out(Tensor self, Scalar low, *, Tensor(a!) out) -> Tensor(a!)
  structured: True
  dispatch:
    CUDA: clip_low_out

- func: rectify(Tensor self) -> Tensor
  dispatch:
    CUDA: rectify_cuda

- func: reduce_any(Tensor self, int? dim=None) -> Tensor
  structured_delegate: reduce_any.out

- func: reduce_any.out(Tensor self, int? dim=None, *, Tensor(a!) out) -> Tensor(a!)
  structured: True
  dispatch:
    CUDA: reduce_any_out

- func: move_to(Tensor self, Tensor other) -> Tensor
  dispatch:
    CUDA: move_to_cuda

- func: lin_it(Tensor self, Tensor? bias=None) -> Tensor
  dispatch:
    CompositeImplicitAutograd: lin_it

- func: twin(Tensor self) -> Tensor
  variants: function, method
  dispatch:
    CUDA: twin_cuda

- func: twin.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)
  dispatch:
    CUDA: twin_out_cuda

- func: direct_it(Tensor self) -> Tensor
  dispatch:
    CUDA: direct_it_cuda

- func: mult_it(Tensor self) -> Tensor
  dispatch:
    CompositeImplicitAutograd: mult_it

- func: weigh_it(Tensor self, Tensor? weight=None) -> Tensor
  dispatch:
    CompositeImplicitAutograd: weigh_it

- func: scan_it.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)
  dispatch:
    CUDA: scan_it_out_cuda

- func: nudge_(Tensor(a!) self, Scalar by) -> Tensor(a!)
  variants: method
  structured_delegate: nudge.out

- func: nudge.out(Tensor self, Scalar by, *, Tensor(a!) out) -> Tensor(a!)
  structured: True
  dispatch:
    CUDA: nudge_out

- func: nudge_twice(Tensor self) -> Tensor
  dispatch:
    CUDA: nudge_twice_cuda

- func: nudge_sparse(Tensor self) -> Tensor
  dispatch:
    CUDA: nudge_sparse_cuda
)x";

// aten/src/ATen/native/Pick.cpp
constexpr char kPickCpp[] = R"x(namespace at::native {

Tensor pick_a_cuda(const Tensor& self) { return self; }
Tensor pick_b_cuda(const Tensor& self) { return self; }
Tensor total_cuda(const Tensor& self, std::optional<ScalarType> dtype) { return self; }
Tensor total_dim_cuda(const Tensor& self, OptionalIntArrayRef dim, bool keepdim, std::optional<ScalarType> dtype) { return self; }
Tensor total_names_cuda(const Tensor& self, DimnameList dim, bool keepdim, std::optional<ScalarType> dtype) { return self; }

Tensor smooth(const Tensor& self, double smoothing) {
  if (smoothing > 0.0) {
    return at::pick_a(self);
  } else {
    return at::pick_b(self);
  }
}

bool check_shape(Params const& p, bool debug) {
  return p.ok;
}

bool check_low_precision(Params const& p, bool debug) {
  constexpr auto low = array_of<at::ScalarType>(at::kHalf, at::kBFloat16);
  return check_tensor_dtype(p, low, debug);
}

bool can_use_fast(Params const& p, bool debug) {
  constexpr auto constraints = array_of<bool (*)(Params const&, bool)>(
      check_shape,
      check_low_precision);
  for (auto& c : constraints) {
    if (!c(p, debug)) {
      return false;
    }
  }
  return true;
}

Backend select_backend(Params const& p) {
  if (can_use_fast(p, false)) {
    return Backend::fast;
  }
  return Backend::slow;
}

Tensor attend(const Tensor& self) {
  auto backend = select_backend(Params{self});
  switch (backend) {
    case Backend::fast:
      return at::pick_a(self);
    case Backend::slow:
      return at::pick_b(self);
  }
}

bool fast_ok(const Tensor& input, double p) {
  return input.is_cuda() && p > 0 && p < 1;
}

Tensor drop(const Tensor& self, double p, bool train) {
  if (train && fast_ok(self, p)) {
    return at::pick_a(self);
  }
  return at::pick_b(self);
}

Backend select_norm_backend(const Tensor& input) {
  if (input.is_cuda() && input.dim() >= 3 && detail::getCUDAHooks().compiledWithCuDNN()) {
    return Backend::cudnn;
  }
  if (input.is_cuda() && input.dim() >= 3 && detail::getCUDAHooks().compiledWithMIOpen()) {
    return Backend::miopen;
  }
  return Backend::native;
}

Tensor norm_select(const Tensor& self) {
  auto backend = select_norm_backend(self);
  if (backend == Backend::cudnn) {
    return at::pick_c(self);
  }
  if (backend == Backend::miopen) {
    return at::pick_a(self);
  }
  return at::pick_b(self);
}

Tensor& bump_cuda_(Tensor& self, const Scalar& other) { return self; }

Tensor conv_it(const Tensor& self, const std::optional<Tensor>& bias_opt) {
  c10::MaybeOwned<Tensor> bias_maybe_owned = at::borrow_from_optional_tensor(bias_opt);
  const Tensor& bias = *bias_maybe_owned;
  return at::conv_inner(self, bias);
}

Tensor conv_inner(const Tensor& self, const std::optional<Tensor>& extra_opt) {
  c10::MaybeOwned<Tensor> extra_maybe_owned = at::borrow_from_optional_tensor(extra_opt);
  const Tensor& added = *extra_maybe_owned;
  if (added.defined()) {
    return at::pick_a(self);
  }
  return at::pick_b(self);
}

// A selection handed a flag its caller computes from what the assumptions
// decide (Convolution.cpp's `need_backward`), and a size it leaves open.
Backend select_grad_backend(const Tensor& input, bool need_backward, int64_t n) {
  if (!need_backward && n > 1) {
    return Backend::fast;
  }
  if (n > 1) {
    return Backend::middle;
  }
  return Backend::slow;
}

Tensor grad_select(const Tensor& self) {
  bool need_backward = GradMode::is_enabled() && self.requires_grad();
  auto backend = select_grad_backend(self, need_backward, self.size(0));
  if (backend == Backend::fast) {
    return at::pick_a(self);
  }
  if (backend == Backend::middle) {
    return at::pick_c(self);
  }
  return at::pick_b(self);
}

} // namespace at::native
)x";

// torch/nn/functional.py
constexpr char kFunctionalPy[] = R"x(import torch


def choose(input, mode="a", flag=None):
    if mode == "a":
        return torch.pick_a(input)
    return torch.pick_b(input)


def outer(input):
    return choose(input, mode="b")


def masked(input, mask=None):
    def helper(input, mask):
        if mask is None:
            return input
        return torch.pick_a(input)

    class Combine:
        def backward(ctx, grad):
            (mask,) = ctx.saved_tensors
            return mask

    return torch.pick_b(helper(input, mask))


def smooth(input, smoothing=0.0):
    return torch.smooth(input, smoothing)


def flagged(input, fast=True):
    why = ""
    if not fast:
        why = "fast was not asked for"
    elif torch.is_grad_enabled():
        why = "grad mode is on"
    if not why:
        return torch.pick_a(input)
    return torch.pick_b(input)


def drop(input, p=0.5, training=True):
    return torch.drop(input, p, training)


def permute(input, perm):
    if perm is None:
        return torch.pick_a(input)
    return torch.pick_b(input)


def maybe_sorted(input, sort=False):
    if sort:
        return permute(input, input)
    return permute(input, None)


def unbatched_too(input):
    if input.dim() == 2:
        input = torch.pick_b(input)
    return torch.pick_a(input)


def by_rank(input):
    if input.dim() == 2:
        return torch.pick_b(input)
    return torch.pick_a(input)


def two_outputs(input):
    out = torch.pick_a(input)
    weights = torch.pick_b(input)
    weights = weights + 1
    return out, weights


def heads(query, num_heads):
    tgt_len, bsz, embed_dim = query.shape
    if isinstance(embed_dim, torch.Tensor):
        return torch.pick_a(query)
    return torch.pick_b(query)


def heads_renamed(query, other):
    tgt_len, bsz, embed_dim = query.shape
    embed_dim = other
    if isinstance(embed_dim, torch.Tensor):
        return torch.pick_a(query)
    return torch.pick_b(query)


def by_rank_and_mode(input, mode="a"):
    if input.dim() == 2 and mode == "a":
        return torch.pick_a(input)
    if input.dim() == 3 and mode == "a":
        return torch.pick_c(input)
    if input.dim() == 4 and mode == "b":
        return torch.pick_b(
            input)
    raise ValueError(
        "a rank the mode does not take")


def by_rank_or_none(input, mode="b"):
    if input.dim() == 4 and mode == "b":
        return torch.pick_b(input)


def by_rank_or_itself(input, mode="b"):
    if input.dim() == 1: return input
    if input.dim() == 4 and mode == "b":
        return torch.pick_b(input)
    raise ValueError("a rank the mode does not take")


def heads_checked_twice(query, other):
    tgt_len, bsz, embed_dim = query.shape
    if isinstance(embed_dim, torch.Tensor):
        return torch.pick_a(query)
    embed_dim = other
    if isinstance(embed_dim, torch.Tensor):
        return torch.pick_c(query)
    return torch.pick_b(query)


conv_it = _add_docstr(
    torch.conv_it,
    r"""
conv_it(input, bias=None) -> Tensor
""",
)
)x";

// tools/autograd/derivatives.yaml
constexpr char kDerivatives[] = R"x(- name: pick_a(Tensor self) -> Tensor
  self: pick_a(grad)

- name: pick_b(Tensor self) -> Tensor
  self: pick_b(grad)

- name: bump_(Tensor(a!) self, Scalar other) -> Tensor(a!)
  self: pick_a(grad)
)x";

// aten/src/ATen/native/Order.cpp: a selection trying its backends in the
// order a Context member holds (cuda/sdp_utils.cpp's select_sdp_backend).
constexpr char kOrderCpp[] = R"x(namespace at::native {

Tensor pick_c_cuda(const Tensor& self) { return self; }

std::array<Backend, 3> priority_order(Params const& p) {
  return at::globalContext().backendOrder();
}

Backend select_in_order(Params const& p) {
  const auto ordering = priority_order(p);
  for (auto& backend : ordering) {
    switch (backend) {
      case Backend::fast:
        if (can_use_fast(p, false)) {
          return Backend::fast;
        }
        break;
      case Backend::middle:
        if (check_shape(p, false)) {
          return Backend::middle;
        }
        break;
      case Backend::slow:
        return Backend::slow;
    }
  }
  return Backend::slow;
}

Tensor attend_in_order(const Tensor& self) {
  auto backend = select_in_order(Params{self});
  switch (backend) {
    case Backend::fast:
      return at::pick_a(self);
    case Backend::middle:
      return at::pick_c(self);
    case Backend::slow:
      return at::pick_b(self);
  }
}

Tensor blend_impl(const Tensor& self, int64_t beta, Mode mode = Mode::Plain) {
  if (mode == Mode::Fancy) {
    return at::pick_a(self);
  }
  return at::pick_b(self);
}

Tensor blend(const Tensor& self) {
  return blend_impl(self, 0);
}

Tensor blend_fancy(const Tensor& self) {
  return blend_impl(self, 0, Mode::Fancy);
}

Tensor pad_enum_impl(const Tensor& self, int64_t mode_int) {
  auto mode = static_cast<at::padding_mode>(mode_int);
  if (mode == at::padding_mode::constant) {
    return at::pick_a(self);
  }
  switch (mode) {
    case at::padding_mode::reflect: return at::pick_b(self);
    default: {}
  }
  return at::pick_c(self);
}

Tensor pad_mode(const Tensor& self, std::string_view mode) {
  const auto mode_enum = [&] {
    if (mode == "reflect") {
      return at::padding_mode::reflect;
    } else if (mode == "constant") {
      return at::padding_mode::constant;
    }
    C10_THROW_ERROR(NotImplementedError, "no such mode");
  }();
  return at::native::pad_enum_impl(self, static_cast<int64_t>(mode_enum));
}

Tensor pad_reflect(const Tensor& self) {
  return at::pad_mode(self, "reflect");
}

TORCH_IMPL_FUNC(clip_low_out)
(const Tensor& self, const Scalar& low, const Tensor& result) {
  if (low.toDouble() != low.toDouble()) {
    at::pick_a(self);
  } else {
    at::pick_b(self);
  }
}

Tensor rectify_cuda(const Tensor& self) {
  return at::clip_low(self, 0);
}

void reduce_any_impl(const Tensor& self, std::optional<int64_t> dim, const Tensor& result) {
  if (dim.has_value()) {
    at::pick_a(self);
    return;
  }
  at::pick_c(self);
}

TORCH_IMPL_FUNC(reduce_any_out)
(const Tensor& self, std::optional<int64_t> dim, const Tensor& result) {
  reduce_any_impl(self, dim, result);
}

static bool needs_staging(TensorIterator& iter, bool peer) {
  Device dst_device = iter.device(0);
  Device src_device = iter.device(1);
  if (dst_device == src_device) {
    return false;
  }
  if (dst_device.is_cuda() && src_device.is_cuda()) {
    return !peer;
  }
  return true;
}

Tensor lin_it(const Tensor& self, const std::optional<Tensor>& bias_opt) {
  auto bias = bias_opt.has_value()
    ? c10::MaybeOwned<Tensor>::borrowed(*bias_opt)
    : c10::MaybeOwned<Tensor>::owned(std::in_place);
  if (bias->defined()) {
    return at::pick_a(self);
  }
  return at::pick_b(self);
}

static c10::MaybeOwned<Tensor> contiguous_arg(const Tensor &tensor) {
  if (tensor.is_contiguous()) {
    return c10::MaybeOwned<Tensor>::borrowed(tensor);
  }
  return c10::MaybeOwned<Tensor>::owned(at::empty(tensor.sizes(), tensor.options()));
}

Tensor& scan_it_out_cuda(const Tensor& self, Tensor& out) {
  auto out_ = contiguous_arg(out);
  if (!out.is_same(*out_)) {
    at::pick_a(self);
  }
  at::pick_b(self);
  return out;
}

Tensor move_to_cuda(const Tensor& self, const Tensor& other) {
  auto iter = TensorIterator::borrowing_unary_op(self, other);
  if (needs_staging(iter, false)) {
    return at::pick_a(self);
  }
  return at::pick_b(self);
}

Tensor direct_it_cuda(const Tensor& self) {
  return at::cuda::pick_a(self);
}

static Tensor weigh_it_impl(const Tensor& self, const Tensor& weight) {
  if (weight.defined()) {
    return at::pick_a(self);
  }
  return at::pick_b(self);
}

static Tensor mult_it_impl(Tensor& out, const Tensor& self) {
  const bool has_out = out.defined();
  if (has_out) {
    return at::pick_a(self);
  }
  return has_out ? at::twin_out(out, self) : self.twin();
}

Tensor mult_it(const Tensor& self) {
  at::Tensor result, unused;
  result = mult_it_impl(unused, self);
  return result;
}

Tensor weigh_it(const Tensor& self, const std::optional<Tensor>& weight) {
  c10::MaybeOwned<Tensor> weight_maybe_owned = at::borrow_from_optional_tensor(weight);
  const Tensor& weight_ = *weight_maybe_owned;
  return weigh_it_impl(self, weight_);
}

TORCH_IMPL_FUNC(nudge_out)
(const Tensor& self, const Scalar& by, const Tensor& result) {}

Tensor nudge_sparse_cuda(const Tensor& self) {
  Tensor out = at::empty_like(self);
  return at::nudge_out(out, self, 2);
}

Tensor nudge_twice_cuda(const Tensor& self) {
  if (self.is_sparse()) {
    return at::nudge_sparse(self);
  }
  Tensor out = at::empty_like(self);
  return out.nudge_(2);
}

} // namespace at::native
)x";

// aten/src/ATen/Context.cpp and Context.h: the order, a member's initializer.
constexpr char kContextCpp[] = R"x(namespace at {

std::array<Backend, 3> Context::backendOrder() {
  return backend_order;
}

} // namespace at
)x";
constexpr char kContextH[] = R"x(namespace at {
class Context {
 public:
  std::array<Backend, 3> backendOrder();
 private:
  std::array<Backend, 3> backend_order = {
      at::Backend::fast,
      at::Backend::middle,
      at::Backend::slow};
};
} // namespace at
)x";

// A module whose base's __init__ sets the attribute forward tests, called
// the old way, naming the class (1.13's `super(Conv2d, self).__init__(...,
// padding_mode, ...)`).
constexpr char kNnInitPy[] = R"x(from . import functional
import torch


class Module:
    def __init__(self):
        pass


class _PadNd(Module):
    def __init__(self, mode):
        super(_PadNd, self).__init__()
        self.mode = mode


class Pad(_PadNd):
    def __init__(self, mode="zeros"):
        super(Pad, self).__init__(
            mode)

    def forward(self, input):
        if self.mode != "zeros":
            return torch.pick_b(input)
        return torch.pick_a(input)


class Biased(Module):
    def __init__(self, bias=True):
        super().__init__()
        if bias:
            self.b = Parameter(torch.empty(3))
        else:
            self.register_parameter("b", None)

    def forward(self, input):
        return self._conv(input, self.b)

    def _conv(self, input, b):
        return functional.conv_it(input, b)


class Tracked(Module):
    def __init__(self, track=True, affine=True):
        super().__init__()
        if affine:
            self.weight = Parameter(torch.empty(3))
        else:
            self.register_parameter("weight", None)
        if track:
            self.register_buffer(
                "count",
                torch.tensor(0),
            )
        else:
            self.register_buffer("count", None)

    def forward(self, input):
        if self.count is not None:
            self.count.bump_(1)
        if self.weight is None:
            return torch.pick_c(input)
        return torch.pick_b(input)


class Weighted(Module):
    def __init__(self, weight=None):
        super().__init__()
        self.register_buffer("weight", weight)

    def forward(self, input):
        if self.weight is None:
            return torch.pick_c(input)
        return torch.pick_b(input)


class Extra(Module):
    def __init__(self, add_extra=False, bias=True):
        super().__init__()
        if add_extra:
            self.extra = torch.empty(1)
            self.other = torch.empty(1)
        else:
            self.extra = self.other = None
        if bias:
            self.b = torch.empty(1)
        else:
            self.register_parameter("b", None)

    def forward(self, input):
        if self.other is not None:
            return torch.pick_b(input)
        if self.b is None:
            return torch.pick_c(input)
        return torch.pick_a(input)
)x";
constexpr char kTorchInitPy[] = R"x(import torch.nn
)x";

std::shared_ptr<MemoryDisk> DecidedTree() {
  return MemoryTree({{"version.txt", "2.6.0a0\n"},
                     {"aten/src/ATen/native/native_functions.yaml", kNativeFunctions},
                     {"tools/autograd/derivatives.yaml", kDerivatives},
                     {"aten/src/ATen/native/Pick.cpp", kPickCpp},
                     {"aten/src/ATen/native/Order.cpp", kOrderCpp},
                     {"aten/src/ATen/Context.cpp", kContextCpp},
                     {"aten/src/ATen/Context.h", kContextH},
                     {"torch/nn/functional.py", kFunctionalPy},
                     {"torch/nn/__init__.py", kNnInitPy},
                     {"torch/__init__.py", kTorchInitPy}});
}

class DecidedPath : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_NO_FATAL_FAILURE(BuildMemoryIndex(DecidedTree(), &index_)); }

  Trace TraceOf(const std::string& query, std::vector<std::string> assume = {}) {
    return TraceIndex(index_, query, TraceOptions::Device::kCuda, std::move(assume));
  }

  // Whether the forward op `name` is on the typical path (decided, not open).
  static bool Typical(const Trace& t, const std::string& name) {
    for (const auto& op : t.ops)
      if (op.role == OpRole::kForward && op.name == name) return op.typical && !op.undecided;
    return false;
  }
  // Forward op `name` is listed and decided off the path: neither typical
  // nor behind an open condition, wherever it is reached.
  static ::testing::AssertionResult DecidedOff(const Trace& t, const std::string& name) {
    bool listed = false;
    for (const auto& op : t.ops) {
      if (op.name != name) continue;
      listed = listed || op.role == OpRole::kForward;
      if (op.undecided) return ::testing::AssertionFailure() << name << " is behind an open condition";
      if (op.role == OpRole::kForward && op.typical) return ::testing::AssertionFailure() << name << " runs";
    }
    if (!listed) return ::testing::AssertionFailure() << name << " is not listed";
    return ::testing::AssertionSuccess();
  }
  // Query `query` takes `taken` and rules `off` out (the two arms of one choice).
  ::testing::AssertionResult TakesOnly(const std::string& query, const std::string& taken, const std::string& off) {
    const Trace t = TraceOf(query);
    if (!Typical(t, taken)) return ::testing::AssertionFailure() << taken << " is not on the path";
    return DecidedOff(t, off);
  }
  static bool Listed(const Trace& t, const std::string& name) {
    for (const auto& op : t.ops)
      if (op.role == OpRole::kForward && op.name == name) return true;
    return false;
  }

  Index index_;
};

TEST_F(DecidedPath, ADefaultDecidesAndTheUsersCallOverridesIt) {
  Trace t = TraceOf("F.choose");
  EXPECT_TRUE(Typical(t, "pick_a")) << "mode='a' by default";
  EXPECT_FALSE(Typical(t, "pick_b"));
  Trace b = TraceOf("F.choose(x, mode='b')");
  EXPECT_TRUE(b.call_query);
  EXPECT_EQ(b.call_arguments, "x, mode='b'");
  EXPECT_FALSE(Typical(b, "pick_a"));
  EXPECT_TRUE(Typical(b, "pick_b"));
  // A symbolic argument leaves the choice open: both stay listed, neither decided.
  Trace open = TraceOf("F.choose(x, m)");
  EXPECT_FALSE(Typical(open, "pick_a"));
  EXPECT_FALSE(Typical(open, "pick_b"));
  EXPECT_TRUE(Listed(open, "pick_a") && Listed(open, "pick_b"));
}

TEST_F(DecidedPath, AnAttributeTheBaseInitSetsThroughAnOldStyleSuperCallDecides) {
  // Pad.__init__ passes mode="zeros" on to _PadNd.__init__ through
  // super(Pad, self).__init__(mode), which sets self.mode.
  Trace t = TraceOf("nn.Pad");
  EXPECT_TRUE(Typical(t, "pick_a"));
  EXPECT_FALSE(Listed(t, "pick_b") && Typical(t, "pick_b"));
  Trace reflect = TraceOf("nn.Pad(mode='reflect')");
  EXPECT_TRUE(Typical(reflect, "pick_b")) << "a module query's arguments go to its __init__";
  EXPECT_FALSE(Typical(reflect, "pick_a"));
}

TEST_F(DecidedPath, AnAttributeSetInTheBranchTheInitArgumentsTakeDecides) {
  // Extra.__init__: `if add_extra: ... else: self.extra = self.other = None`, and
  // `if bias: ... else: self.register_parameter("b", None)`.
  auto not_taken = [](const Trace& t, const std::string& name) {
    for (const auto& op : t.ops)
      if (op.role == OpRole::kForward && op.name == name) return !op.typical && !op.undecided;
    return false;
  };
  Trace t = TraceOf("nn.Extra");
  EXPECT_TRUE(not_taken(t, "pick_b"));
  EXPECT_FALSE(Typical(t, "pick_c")) << "self.b holds a tensor: not known to be None";
  Trace unbiased = TraceOf("nn.Extra(bias=False)");
  EXPECT_TRUE(Typical(unbiased, "pick_c")) << "an unset parameter reads as None";
  Trace extra = TraceOf("nn.Extra(add_extra=True)");
  EXPECT_FALSE(not_taken(extra, "pick_b")) << "self.other holds a tensor: not known to be None";
}

TEST_F(DecidedPath, AModulesBufferAndParameterAreTensorsAndABufferRecordsNoBackward) {
  // Tracked.__init__: `self.weight = Parameter(...)` and a buffer registered over three lines;
  // forward's `self.count.bump_(1)` under `if self.count is not None`.
  Trace t = TraceOf("nn.Tracked");
  EXPECT_TRUE(Typical(t, "bump_")) << "a registered buffer is not None";
  EXPECT_TRUE(Typical(t, "pick_b")) << "a Parameter is not None";
  EXPECT_FALSE(Typical(t, "pick_c"));
  const BackwardStep* bump = FindBackward(t, "bump_");
  ASSERT_NE(bump, nullptr);
  EXPECT_TRUE(bump->below_autograd) << "a buffer given a literal: nothing requires grad";
  EXPECT_FALSE(Typical(TraceOf("nn.Tracked(track=False)"), "bump_"));
  EXPECT_TRUE(Typical(TraceOf("nn.Tracked(affine=False)"), "pick_c"));
}

TEST_F(DecidedPath, ABufferRegisteredFromAParameterHoldsWhatThatHolds) {
  // Weighted.__init__: `self.register_buffer("weight", weight)` with `weight=None`.
  EXPECT_TRUE(Typical(TraceOf("nn.Weighted"), "pick_c")) << "the default None is registered";
  EXPECT_FALSE(Typical(TraceOf("nn.Weighted"), "pick_b"));
}

TEST_F(DecidedPath, AModuleParameterReachesCppThroughABuiltinAliasAndAnOptionalTensorsView) {
  // functional.conv_it = _add_docstr(torch.conv_it, ...) hands the builtin what Biased._conv
  // passes (self.b, a Parameter); Pick.cpp's conv_it passes conv_inner `bias`, its view of
  // bias_opt through at::borrow_from_optional_tensor and `*`; conv_inner's `added`, the
  // same view of extra_opt, is defined.
  Trace t = TraceOf("nn.Biased");
  EXPECT_TRUE(Typical(t, "pick_a"));
  EXPECT_FALSE(Typical(t, "pick_b"));
  // The view of an empty optional is an undefined Tensor, though the schema
  // argument `bias` shares the local's name.
  Trace unbiased = TraceOf("nn.Biased(bias=False)");
  EXPECT_FALSE(Typical(unbiased, "pick_a"));
  EXPECT_TRUE(Typical(unbiased, "pick_b")) << "self.b is None";
  Trace plain = TraceOf("aten::conv_it");
  EXPECT_TRUE(Typical(plain, "pick_b")) << "bias=None by default";
  EXPECT_FALSE(Typical(plain, "pick_a"));
}

TEST_F(DecidedPath, AConstantTheCallerPassesReachesTheCallee) {
  Trace t = TraceOf("F.outer");
  EXPECT_FALSE(Typical(t, "pick_a"));
  EXPECT_TRUE(Typical(t, "pick_b")) << "outer passes mode='b' to choose";
}

TEST_F(DecidedPath, ACallTheCallersDefaultsRuleOutPassesNothing) {
  // maybe_sorted's `permute(input, input)` runs only `if sort:`, false by
  // default: the one call that runs passes perm=None.
  Trace t = TraceOf("F.maybe_sorted");
  EXPECT_TRUE(Typical(t, "pick_a"));
  EXPECT_FALSE(Typical(t, "pick_b"));
  Trace sorted = TraceOf("F.maybe_sorted(x, sort=True)");
  EXPECT_FALSE(Typical(sorted, "pick_a")) << "both calls may run: perm is unknown";
}

TEST_F(DecidedPath, AnOpenOptionalStepIsOffThePathAnOpenPickAmongFormsStaysOn) {
  auto marked = [](const Trace& t, const std::string& name) {
    for (const auto& op : t.ops)
      if (op.role == OpRole::kForward && op.name == name) return std::pair{op.typical, op.undecided};
    return std::pair{false, false};
  };
  // `if input.dim() == 2: input = torch.pick_b(input)` with no else, going on to pick_a either way.
  Trace step = TraceOf("F.unbatched_too");
  EXPECT_EQ(marked(step, "pick_b"), (std::pair{false, true})) << "open, not typical";
  EXPECT_TRUE(Typical(step, "pick_a"));
  // `if input.dim() == 2: return torch.pick_b(input)`: each branch leaves, one of them runs.
  Trace forms = TraceOf("F.by_rank");
  EXPECT_EQ(marked(forms, "pick_b"), (std::pair{true, true}));
  EXPECT_EQ(marked(forms, "pick_a"), (std::pair{true, true}));
}

TEST_F(DecidedPath, TheOnlyReturnTheCallLeavesRunsWhateverTheRank) {
  // mode='b' rules out both other returns and the function ends in a raise:
  // a call that returns at all returned through pick_b, whatever input.dim() is.
  Trace b = TraceOf("F.by_rank_and_mode(x, mode='b')");
  EXPECT_TRUE(Typical(b, "pick_b"));
  EXPECT_FALSE(Typical(b, "pick_a"));
  EXPECT_FALSE(Typical(b, "pick_c"));
  // By default two returns are left, one per rank: the rank still picks.
  Trace a = TraceOf("F.by_rank_and_mode");
  EXPECT_FALSE(Typical(a, "pick_a"));
  EXPECT_FALSE(Typical(a, "pick_c"));
  EXPECT_TRUE(Listed(a, "pick_a") && Listed(a, "pick_c"));
  // Falling off the end returns None, and a one-line `if ...: return input`
  // is a return the reading by line cannot see: both stay open.
  Trace none = TraceOf("F.by_rank_or_none");
  EXPECT_TRUE(Listed(none, "pick_b"));
  EXPECT_FALSE(Typical(none, "pick_b"));
  Trace itself = TraceOf("F.by_rank_or_itself");
  EXPECT_TRUE(Listed(itself, "pick_b"));
  EXPECT_FALSE(Typical(itself, "pick_b"));
}

TEST_F(DecidedPath, ASizeUnpackedFromAShapeIsNoTensor) {
  // functional.py:65-66 `tgt_len, bsz, embed_dim = query.shape` then `isinstance(embed_dim,
  // torch.Tensor)` (a tensor only while JIT tracing): pick_b. Written again from a
  // parameter (:73), it may be anything: both stay on as argument forms.
  Trace t = TraceOf("F.heads");
  EXPECT_TRUE(Typical(t, "pick_b"));
  EXPECT_FALSE(Typical(t, "pick_a"));
  EXPECT_TRUE(Listed(t, "pick_a"));
  Trace renamed = TraceOf("F.heads_renamed");
  EXPECT_FALSE(Typical(renamed, "pick_b"));
  // The same local asked about at two lines: a size before it is written
  // from a parameter, anything after (the answers are kept per line range).
  Trace twice = TraceOf("F.heads_checked_twice");
  EXPECT_FALSE(Typical(twice, "pick_a"));
  EXPECT_TRUE(Listed(twice, "pick_c"));
  EXPECT_FALSE(Typical(twice, "pick_b"));
}

TEST_F(DecidedPath, WhatThePythonCallPassesDecidesTheCompositesBranch) {
  // Pick.cpp:10 `if (smoothing > 0.0)`: the default 0.0 takes the else branch.
  Trace t = TraceOf("F.smooth");
  EXPECT_TRUE(Typical(t, "pick_b"));
  EXPECT_FALSE(Typical(t, "pick_a"));
  Trace smoothing = TraceOf("F.smooth(x, smoothing=0.1)");
  EXPECT_TRUE(Typical(smoothing, "pick_a"));
  EXPECT_FALSE(Typical(smoothing, "pick_b"));
}

TEST_F(DecidedPath, AFlagSetByAChainOfChecksIsSetWhenOneCheckHolds) {
  // functional.py:22 `elif torch.is_grad_enabled():` holds (requires_grad):
  // `why` is set, so `if not why:` (:24) is not taken.
  Trace t = TraceOf("F.flagged");
  EXPECT_FALSE(Typical(t, "pick_a"));
  EXPECT_TRUE(Typical(t, "pick_b"));
  Trace no_grad = TraceOf("F.flagged", {"no-grad"});
  EXPECT_TRUE(Typical(no_grad, "pick_a"));
  EXPECT_FALSE(Typical(no_grad, "pick_b"));
}

TEST_F(DecidedPath, AValueOnlyALaterOutputCarriesHasNoFirstOrderBackward) {
  // functional.py:33-37: `weights` is returned second only; `out` first.
  Trace t = TraceOf("F.two_outputs");
  EXPECT_TRUE(Typical(t, "pick_a"));
  EXPECT_TRUE(Typical(t, "pick_b")) << "the forward still runs it";
  bool a_backward = false, b_backward = false;
  for (const auto& op : t.ops) {
    if (op.role != OpRole::kBackward) continue;
    a_backward = a_backward || (op.name == "pick_a" && op.typical);
    b_backward = b_backward || (op.name == "pick_b" && op.typical);
  }
  EXPECT_TRUE(a_backward);
  EXPECT_FALSE(b_backward);
}

TEST_F(DecidedPath, AOneStatementPredicateIsInlined) {
  // Pick.cpp:55-57 `bool fast_ok(...) { return input.is_cuda() && p > 0 && p < 1; }`, called
  // at :60 with the p F.drop passes (functional.py:29, default 0.5).
  Trace t = TraceOf("F.drop");
  EXPECT_TRUE(Typical(t, "pick_a"));
  EXPECT_FALSE(Typical(t, "pick_b"));
  Trace zero = TraceOf("F.drop(x, p=0.0)");
  EXPECT_FALSE(Typical(zero, "pick_a"));
  EXPECT_TRUE(Typical(zero, "pick_b"));
  Trace cpu = TraceOf("F.drop", {"device=cpu"});
  EXPECT_FALSE(Typical(cpu, "pick_a")) << "input.is_cuda() is false on the CPU";
}

TEST_F(DecidedPath, APredicateOfSeveralReturnsIsInlinedAsTheirChoice) {
  // Order.cpp:111-121 needs_staging returns false first for two operands on
  // one device (its locals `dst_device`, `src_device` read as written), as a
  // TensorIterator's operands are (Copy.cu's copy_requires_temporaries).
  EXPECT_TRUE(TakesOnly("aten::move_to", "pick_b", "pick_a"));
}

TEST_F(DecidedPath, AMaybeOwnedViewOfAnEmptyOptionalIsUndefined) {
  // Order.cpp:123-131, Linear.cpp's spelling of the view: `bias_opt.has_value()
  // ? MaybeOwned<Tensor>::borrowed(*bias_opt) : MaybeOwned<Tensor>::owned(std::in_place)`,
  // asked `bias->defined()`; lin_it's bias defaults to None.
  Trace t = TraceOf("aten::lin_it");
  EXPECT_TRUE(Typical(t, "pick_b"));
  EXPECT_FALSE(Typical(t, "pick_a"));
}

TEST_F(DecidedPath, AViewAHelperHandsBackIsTheTensorItViews) {
  // Order.cpp:133-146 (ScanKernels.cpp's contiguous_out_arg): a contiguous
  // out is handed back borrowed, so `!out.is_same(*out_)` is false.
  EXPECT_TRUE(TakesOnly("aten::scan_it.out", "pick_b", "pick_a"));
}

TEST_F(DecidedPath, AHelperPassedTheViewOfAnEmptyOptionalGetsAnUndefinedTensor) {
  // Order.cpp:161-166, 182-186 (LossNLL.cpp's cross_entropy_loss_symint): weigh_it
  // hands its helper `weight_`, the view of its empty optional `weight`.
  EXPECT_TRUE(TakesOnly("aten::weigh_it", "pick_b", "pick_a"));
}

TEST_F(DecidedPath, ALocalTensorDeclaredWithoutAValueIsUndefined) {
  // Order.cpp:168-180 (LinearAlgebra.cpp's matmul): `at::Tensor result, unused;`
  // hands the helper `unused`, so its `has_out = out.defined()` is false.
  Trace t = TraceOf("aten::mult_it");
  EXPECT_TRUE(Typical(t, "twin"));
  EXPECT_TRUE(DecidedOff(t, "pick_a"));
  // An out= overload's call is its `_out(` form, not the other arm's `.twin(`.
  EXPECT_TRUE(DecidedOff(t, "twin.out"));
}

TEST_F(DecidedPath, ACallOfANestedDefWalksItWithWhatTheCallPasses) {
  // functional.py's `masked` (torch/masked/_ops.py's _combine_input_and_mask):
  // `helper` is the def nested in it, given its mask; Combine.backward's
  // `(mask,) = ...` writes its own mask, not masked's.
  EXPECT_TRUE(TakesOnly("F.masked", "pick_b", "pick_a")) << "mask defaults to None";
  const Trace given = TraceOf("F.masked(x, mask=m)");
  EXPECT_TRUE(Typical(given, "pick_b"));
  EXPECT_TRUE(Listed(given, "pick_a") && !DecidedOff(given, "pick_a")) << "a mask is passed";
}

TEST_F(DecidedPath, ASelectionIsReadWithTheFlagItsCallerComputes) {
  // Pick.cpp:117 `bool need_backward = GradMode::is_enabled() && self.requires_grad();`
  // holds true in a training step: select_grad_backend's `!need_backward && n > 1`
  // (:107) never returns Backend::fast there; the size `n` leaves the others open.
  Trace t = TraceOf("aten::grad_select");
  EXPECT_TRUE(DecidedOff(t, "pick_a"));
  const OpStep* middle = FindOp(t, "pick_c");
  ASSERT_NE(middle, nullptr);
  EXPECT_TRUE(middle->undecided);
  // Under no-grad the flag is false: Backend::fast is open again.
  const Trace inference = TraceOf("aten::grad_select", {"no-grad"});
  const OpStep* fast = FindOp(inference, "pick_a");
  ASSERT_NE(fast, nullptr);
  EXPECT_TRUE(fast->undecided);
}

TEST_F(DecidedPath, ABackendsEntryPointCallsTheKernelWithNoDispatch) {
  // cuda/IndexKernel.cpp's `at::cuda::index_out(...)`: pick_a's CUDA kernel
  // runs, but no aten::pick_a is dispatched, so it stays open.
  const Trace t = TraceOf("aten::direct_it");
  bool open = false;
  for (const auto& op : t.ops)
    if (op.role == OpRole::kForward && op.name == "pick_a") open = op.undecided && !op.typical;
  EXPECT_TRUE(open);
}

TEST_F(DecidedPath, AnOverloadTheCallCannotBeIsOffThePath) {
  Trace t = TraceOf("torch.total(x, dim=1, dtype=torch.float16)");
  EXPECT_TRUE(Typical(t, "total.dim_IntList"));
  EXPECT_FALSE(Typical(t, "total")) << "no `dim` in total(Tensor self, *, ScalarType? dtype)";
  EXPECT_FALSE(Typical(t, "total.dim_DimnameList")) << "1 is no Dimname";
}

// The typical-path assumptions with `dtype`.
Assumptions Dtype(const std::string& dtype) {
  Assumptions a;
  a.dtype = dtype;
  return a;
}

TEST_F(DecidedPath, APredicatesDtypeListsRuleABackendOut) {
  EXPECT_EQ(DtypeGate(index_, "can_use_fast", "float32"), Tri::kFalse);
  EXPECT_EQ(DtypeGate(index_, "can_use_fast", "bfloat16"), Tri::kUnknown) << "shape checks remain";
  EXPECT_EQ(DtypeGate(index_, "check_shape", "float32"), Tri::kUnknown) << "no dtype list";
  Location select{"aten/src/ATen/native/Pick.cpp", 38, ""};
  EXPECT_EQ(SelectionCanReturn(index_, "select_backend", select, "Backend::fast", Dtype("float32")), Tri::kFalse);
  EXPECT_EQ(SelectionCanReturn(index_, "select_backend", select, "Backend::slow", Dtype("float32")), Tri::kUnknown)
      << "the return after the if's block is not guarded by it";
  EXPECT_EQ(SelectionCanReturn(index_, "select_backend", select, "Backend::fast", Dtype("float16")), Tri::kUnknown);
  Trace t = TraceOf("aten::attend");
  EXPECT_FALSE(Listed(t, "pick_a") && Typical(t, "pick_a"));
  bool fast_open = false;
  for (const auto& op : t.ops) fast_open = fast_open || (op.name == "pick_a" && (op.typical || op.undecided));
  EXPECT_FALSE(fast_open) << "float32 rules the fast backend out";
  Trace half = TraceOf("aten::attend", {"dtype=float16"});
  bool half_open = false;
  for (const auto& op : half.ops) half_open = half_open || (op.name == "pick_a" && op.undecided);
  EXPECT_TRUE(half_open) << "float16 passes the dtype list: the backend stays open";
}

// A return whose guard the assumptions decide false cannot be the
// selection's: MIOpen is compiled into ROCm builds only (Pick.cpp:70-71).
TEST_F(DecidedPath, AReturnBehindAConditionTheBuildRulesOutIsNoSelection) {
  Location select{"aten/src/ATen/native/Pick.cpp", 66, ""};
  EXPECT_EQ(SelectionCanReturn(index_, "select_norm_backend", select, "Backend::miopen", Dtype("float32")),
            Tri::kFalse);
  EXPECT_EQ(SelectionCanReturn(index_, "select_norm_backend", select, "Backend::cudnn", Dtype("float32")),
            Tri::kUnknown)
      << "input.dim() >= 3 is left open";
  Assumptions rocm = Dtype("float32");
  rocm.rocm = true;
  EXPECT_EQ(SelectionCanReturn(index_, "select_norm_backend", select, "Backend::miopen", rocm), Tri::kUnknown);
  Trace t = TraceOf("aten::norm_select");
  for (const auto& op : t.ops) {
    if (op.name == "pick_a") EXPECT_FALSE(op.typical || op.undecided) << "the MIOpen branch is ruled out";
    if (op.name == "pick_c") EXPECT_TRUE(op.undecided) << "the cuDNN branch stays open";
  }
  bool miopen_open = false;
  for (const auto& op : TraceOf("aten::norm_select", {"rocm"}).ops)
    miopen_open = miopen_open || (op.name == "pick_a" && op.undecided);
  EXPECT_TRUE(miopen_open) << "a ROCm build may take it";
}

// What else runs lists no branch the build gives no tensor: MIOpen's
// (Pick.cpp:70-71) on a CUDA build; a dtype's choice stays, for another
// tensor takes it (Pick.cpp:46-47 `Backend::fast` needs fp16 or bf16).
TEST_F(DecidedPath, AnAlternativeTheBuildRulesOutIsNotListed) {
  auto listed = [](const Trace& t, const std::string& function) {
    std::set<std::string> ops;
    for (const SelectionStep& s : t.selections)
      if (s.function == function)
        for (const auto& a : s.alternatives) ops.insert(a.op);
    return ops;
  };
  // pick_b is the way past both (`unless backend == Backend::miopen`).
  EXPECT_EQ(listed(TraceOf("aten::norm_select"), "select_norm_backend"), (std::set<std::string>{"pick_b", "pick_c"}));
  // A ROCm build has MIOpen and no cuDNN (Pick.cpp:67).
  EXPECT_EQ(listed(TraceOf("aten::norm_select", {"rocm"}), "select_norm_backend"),
            (std::set<std::string>{"pick_a", "pick_b"}));
  std::set<std::string> attend = listed(TraceOf("aten::attend"), "select_backend");
  EXPECT_TRUE(attend.count("pick_a")) << "float16 takes the fast backend";
}

TEST_F(DecidedPath, ACppDefaultTheCallerOmitsAndALiteralItPassesDecideTheHelper) {
  // Order.cpp:42 `blend_impl(..., Mode mode = Mode::Plain)`; blend (:50) omits mode, blend_fancy (:54)
  // passes Mode::Fancy.
  Trace t = TraceOf("aten::blend");
  EXPECT_TRUE(DecidedOff(t, "pick_a")) << "mode == Mode::Fancy is decided false";
  EXPECT_TRUE(Typical(t, "pick_b"));
  Trace fancy = TraceOf("aten::blend_fancy");
  EXPECT_TRUE(Typical(fancy, "pick_a"));
}

TEST_F(DecidedPath, AnEnumALambdaPicksFromAStringReachesTheHelperThroughCasts) {
  // Order.cpp:69-80: pad_mode's `mode_enum` is an immediately-invoked lambda's
  // return, passed as `static_cast<int64_t>(mode_enum)` to pad_enum_impl
  // (:57), whose local `mode = static_cast<at::padding_mode>(mode_int)`
  // picks the op (PadNd.cpp's pad_symint -> _pad_enum_symint).
  Trace t = TraceOf("aten::pad_mode");
  EXPECT_TRUE(Typical(t, "pick_a")) << "mode=\"constant\" by default";
  for (const char* off : {"pick_b", "pick_c"}) EXPECT_TRUE(DecidedOff(t, off));
  Trace reflect = TraceOf("aten::pad_reflect");
  EXPECT_TRUE(Typical(reflect, "pick_b")) << "pad_reflect passes \"reflect\"";
  EXPECT_FALSE(Typical(reflect, "pick_a"));
}

TEST_F(DecidedPath, AStructuredOpsDelegateRunsWithItsArguments) {
  // Order.cpp:85-92: clip_low.out's TORCH_IMPL_FUNC tests `low` for NaN;
  // rectify (:94) calls clip_low(self, 0), whose delegate it is.
  Trace t = TraceOf("aten::rectify");
  EXPECT_TRUE(Typical(t, "pick_b")) << "0 is no NaN";
  EXPECT_FALSE(Typical(t, "pick_a"));
  Trace open = TraceOf("aten::clip_low");
  EXPECT_FALSE(Typical(open, "pick_b")) << "any low: a NaN fills";
  // :98-109: the TORCH_IMPL_FUNC passes its `dim` (None by default) to a helper.
  Trace any = TraceOf("aten::reduce_any");
  EXPECT_TRUE(Typical(any, "pick_c"));
  EXPECT_FALSE(Typical(any, "pick_a"));
}

TEST_F(DecidedPath, ADelegateIsNoOpOfThePathThoughACallerOffItCallsItsOutForm) {
  // nudge_twice_cuda: `out.nudge_(2)` runs nudge.out inside nudge_'s kernel;
  // nudge_sparse, whose code calls at::nudge_out, runs only under
  // `if (self.is_sparse())`: never for a dense tensor.
  Trace t = TraceOf("aten::nudge_twice");
  const OpStep* nudge = FindOp(t, "nudge_");
  const OpStep* out = FindOp(t, "nudge.out");
  ASSERT_NE(nudge, nullptr);
  ASSERT_NE(out, nullptr);
  EXPECT_TRUE(nudge->typical);
  EXPECT_FALSE(out->typical);
}

TEST_F(DecidedPath, APriorityOrderPicksTheFirstBackendTheDtypeDoesNotRuleOut) {
  // Order.cpp:11-12 iterates priority_order's list, Context.cpp:3's member
  // initialized in Context.h:6-9 (fast, middle, slow).
  Location select{"aten/src/ATen/native/Order.cpp", 9, ""};
  std::vector<std::string> order = SelectionOrder(index_, "select_in_order", select);
  EXPECT_EQ(order, (std::vector<std::string>{"at::Backend::fast", "at::Backend::middle", "at::Backend::slow"}));
  EXPECT_EQ(SelectionPicks(index_, "select_in_order", select, "Backend::fast", Dtype("float32")), Tri::kFalse);
  EXPECT_EQ(SelectionPicks(index_, "select_in_order", select, "Backend::middle", Dtype("float32")), Tri::kTrue);
  EXPECT_EQ(SelectionPicks(index_, "select_in_order", select, "Backend::slow", Dtype("float32")), Tri::kFalse)
      << "behind middle, which float32 does not rule out";
  EXPECT_EQ(SelectionPicks(index_, "select_in_order", select, "Backend::fast", Dtype("float16")), Tri::kTrue);
  EXPECT_EQ(SelectionPicks(index_, "select_in_order", select, "Backend::middle", Dtype("float16")), Tri::kFalse);
  // select_backend (Pick.cpp:38) tries in the order of its code: no list, no order claimed.
  EXPECT_TRUE(SelectionOrder(index_, "select_backend", {"aten/src/ATen/native/Pick.cpp", 38, ""}).empty());

  Trace t = TraceOf("aten::attend_in_order");
  EXPECT_TRUE(Typical(t, "pick_c"));
  EXPECT_FALSE(Typical(t, "pick_a"));
  EXPECT_TRUE(DecidedOff(t, "pick_b")) << "slow is an alternative, not an open branch";
  Trace half = TraceOf("aten::attend_in_order", {"dtype=float16"});
  EXPECT_TRUE(Typical(half, "pick_a"));
  EXPECT_FALSE(Typical(half, "pick_c"));
}

}  // namespace
}  // namespace optrace
