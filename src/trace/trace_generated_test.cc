// Kernels torchgen writes at build time, on a small MemoryDisk tree written
// here: a view op's `_copy` variant (gen_functionalization_type.py's
// GenCompositeViewCopyKernel) calls the view and clones its result, and
// autograd differentiates it by the view's derivatives.yaml entry
// (load_derivatives.py's add_view_copy_derivatives). Line numbers are lines
// of the raw strings below (each starts at line 1 of its file).
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "testing/memory_index.h"
#include "trace/trace.h"
#include "trace/trace_test_util.h"

namespace optrace {
namespace {

// aten/src/ATen/native/native_functions.yaml
constexpr char kNativeFunctions[] = R"x(- func: slant(Tensor(a) self, int offset=0) -> Tensor(a)
  variants: function, method
  dispatch:
    CompositeExplicitAutograd: slant

- func: slant_copy(Tensor self, int offset=0) -> Tensor
  variants: function
  dispatch:
    CompositeExplicitAutogradNonFunctional: slant_copy
  tags: view_copy
  autogen: slant_copy.out

- func: clone(Tensor self, *, MemoryFormat? memory_format=None) -> Tensor
  dispatch:
    CompositeExplicitAutograd: clone

- func: slant_backward(Tensor grad_output, int offset) -> Tensor
  dispatch:
    CompositeExplicitAutograd: slant_backward
)x";

// tools/autograd/derivatives.yaml
constexpr char kDerivatives[] = R"x(- name: slant(Tensor(a) self, int offset=0) -> Tensor(a)
  self: slant_backward(grad, offset)
  result: auto_linear
)x";

// aten/src/ATen/native/Slant.cpp
constexpr char kSlantCpp[] = R"x(namespace at::native {
Tensor slant(const Tensor& self, int64_t offset) { return self; }
Tensor clone(const Tensor& self, std::optional<MemoryFormat> memory_format) { return self; }
Tensor slant_backward(const Tensor& grad_output, int64_t offset) { return grad_output; }
} // namespace at::native
)x";

std::shared_ptr<MemoryDisk> Tree() {
  return MemoryTree({{"version.txt", "2.6.0a0\n"},
                     {"aten/src/ATen/native/native_functions.yaml", kNativeFunctions},
                     {"tools/autograd/derivatives.yaml", kDerivatives},
                     {"aten/src/ATen/native/Slant.cpp", kSlantCpp},
                     {"torch/__init__.py", ""}});
}

class GeneratedKernel : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_NO_FATAL_FAILURE(BuildMemoryIndex(Tree(), &index_)); }
  Trace TraceOf(const std::string& query) { return TraceIndex(index_, query, TraceOptions::Device::kCuda); }
  Index index_;
};

TEST_F(GeneratedKernel, AViewCopyCallsItsViewAndClonesTheResult) {
  // native_functions.yaml:6-9: slant_copy's kernel has no C++ definition; torchgen writes it.
  Trace t = TraceOf("aten::slant_copy");
  for (const std::string name : {"slant", "clone"}) {
    const OpStep* op = FindOp(t, name);
    ASSERT_NE(op, nullptr) << name;
    EXPECT_EQ(op->reached_from, "slant_copy") << name;
    EXPECT_TRUE(op->typical && !op->undecided) << name;
  }
  for (const auto& nf : t.not_found)
    EXPECT_EQ(nf.detail.find("no definition of slant_copy"), std::string::npos) << nf.detail;
}

TEST_F(GeneratedKernel, AViewCopyIsDifferentiatedByItsViewsEntry) {
  // derivatives.yaml:1-2: slant's formula runs slant_backward; slant_copy has no entry of its own.
  Trace t = TraceOf("aten::slant_copy");
  bool entry = false;
  for (const auto& b : t.backward) entry = entry || (b.op == "slant_copy" && b.derivatives && b.derivatives->line == 1);
  EXPECT_TRUE(entry);
  EXPECT_NE(FindOp(t, "slant_backward", OpRole::kBackward), nullptr);
}

}  // namespace
}  // namespace optrace
