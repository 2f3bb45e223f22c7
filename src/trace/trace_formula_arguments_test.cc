// A derivatives.yaml formula hands the backward op it calls the forward
// call's own arguments (`embedding_backward(grad, ..., sparse)`): what the
// forward call binds, or its schema default, decides the backward op's
// branches the way the Python call decides the forward's. The tree below is
// a forward op `gather_rows` with a flag `sparse=False`, whose backward
// branches on it. Line numbers are lines of the raw strings (each starts at
// line 1 of its file).
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "testing/memory_index.h"
#include "trace/trace.h"
#include "trace/trace_test_util.h"

namespace optrace {
namespace {

// aten/src/ATen/native/native_functions.yaml
constexpr char kNativeFunctions[] = R"x(- func: gather_rows(Tensor weight, Tensor indices, bool sparse=False) -> Tensor
  dispatch:
    CUDA: gather_rows_cuda

- func: gather_rows_backward(Tensor grad, Tensor indices, bool sparse) -> Tensor

- func: rows_dense_backward(Tensor grad, Tensor indices) -> Tensor
  dispatch:
    CUDA: rows_dense_backward_cuda

- func: rows_sparse_backward(Tensor grad, Tensor indices) -> Tensor
  dispatch:
    CUDA: rows_sparse_backward_cuda
)x";

// tools/autograd/derivatives.yaml
constexpr char kDerivatives[] = R"x(- name: gather_rows(Tensor weight, Tensor indices, bool sparse=False) -> Tensor
  indices: non_differentiable
  weight: gather_rows_backward(grad, indices, sparse)
)x";

// aten/src/ATen/native/Rows.cpp
constexpr char kRowsCpp[] = R"x(namespace at::native {

Tensor gather_rows_cuda(const Tensor& weight, const Tensor& indices, bool sparse) { return weight; }

Tensor gather_rows_backward(const Tensor& grad, const Tensor& indices, bool sparse) {
  if (sparse) {
    return at::rows_sparse_backward(grad, indices);
  }
  return at::rows_dense_backward(grad, indices);
}

Tensor rows_dense_backward_cuda(const Tensor& grad, const Tensor& indices) { return grad; }
Tensor rows_sparse_backward_cuda(const Tensor& grad, const Tensor& indices) { return grad; }

} // namespace at::native
)x";

// torch/nn/functional.py
constexpr char kFunctionalPy[] = R"x(import torch

def gather_rows(weight, indices, sparse=False):
    return torch.gather_rows(weight, indices, sparse)
)x";

std::shared_ptr<MemoryDisk> RowsTree() {
  return MemoryTree({{"version.txt", "2.6.0a0\n"},
                     {"aten/src/ATen/native/native_functions.yaml", kNativeFunctions},
                     {"tools/autograd/derivatives.yaml", kDerivatives},
                     {"aten/src/ATen/native/Rows.cpp", kRowsCpp},
                     {"torch/nn/functional.py", kFunctionalPy},
                     {"torch/nn/__init__.py", "from . import functional\n"},
                     {"torch/__init__.py", "from torch import nn\n"}});
}

// The backward op `name`: decided on the typical path (1), open (0), off it (-1), not traced (-2).
int BackwardState(const Trace& t, const std::string& name) {
  for (const auto& op : t.ops)
    if (op.role == OpRole::kBackward && op.name == name) return op.undecided ? 0 : op.typical ? 1 : -1;
  return -2;
}

class FormulaArguments : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_NO_FATAL_FAILURE(BuildMemoryIndex(RowsTree(), &index_)); }
  Trace TraceOf(const std::string& query) { return TraceIndex(index_, query, TraceOptions::Device::kCuda); }
  Index index_;
};

TEST_F(FormulaArguments, TheForwardsDefaultDecidesTheBackwardsBranch) {
  // derivatives.yaml:3 passes `sparse`; the schema's default is False, so
  // Rows.cpp:6's `if (sparse)` is not taken.
  Trace t = TraceOf("aten::gather_rows");
  EXPECT_EQ(BackwardState(t, "gather_rows_backward"), 1);
  EXPECT_EQ(BackwardState(t, "rows_dense_backward"), 1);
  EXPECT_EQ(BackwardState(t, "rows_sparse_backward"), -1);
}

TEST_F(FormulaArguments, WhatThePythonCallPassesReachesTheBackward) {
  Trace t = TraceOf("F.gather_rows(w, i, sparse=True)");
  EXPECT_EQ(BackwardState(t, "rows_sparse_backward"), 1);
  EXPECT_EQ(BackwardState(t, "rows_dense_backward"), -1);
}

}  // namespace
}  // namespace optrace
