// Wrong-fact regressions on the real 2.6.0 tree: one test per class of wrong
// fact the tracer once stated (a Vulkan relu_ as the CPU relu_, a file's
// __device__ min as the CUDA min, the XNNPACK linear as the composite one,
// at::native's copy_stub registrations for cpublas::copy_stub, another file's
// HANDLE_CASE, Device::index as aten::index, a cuDNN-less build's error stub
// as the CUDA implementation). Every file and line was checked with grep/sed
// in the tree.
#include <gtest/gtest.h>

#include <algorithm>

#include "testing/test_util.h"
#include "trace/trace_internal.h"
#include "trace/trace_test_util.h"

namespace optrace {
namespace {

class Truth260 : public Tree260 {};

// Every implementation and helper of every op, as "key file:line".
std::vector<std::string> CodeClaims(const Trace& t) {
  std::vector<std::string> out;
  for (const auto& op : t.ops) {
    for (const auto& i : op.impls) out.push_back(i.key + " " + i.where.file + ":" + std::to_string(i.where.line));
    for (const auto& h : op.helpers) out.push_back(h.key + " " + h.where.file + ":" + std::to_string(h.where.line));
  }
  return out;
}

bool AnyContains(const std::vector<std::string>& claims, const std::string& part) {
  return std::any_of(claims.begin(), claims.end(),
                     [&](const std::string& c) { return c.find(part) != std::string::npos; });
}

TEST_F(Truth260, DispatchNameIsAtNativeNotABackendNamesake) {
  // relu_: Activation.cpp:516 `Tensor & relu_(Tensor & self)` in at::native;
  // vulkan/ops/Clamp.cpp:305 defines at::native::vulkan::ops::relu_.
  Trace t = TraceTree("2.6.0", "aten::relu_");
  const OpStep* op = FindOp(t, "relu_");
  ASSERT_NE(op, nullptr);
  ASSERT_FALSE(op->impls.empty());
  for (const auto& i : op->impls) {
    EXPECT_EQ(i.where.file, "aten/src/ATen/native/Activation.cpp") << i.key;
    EXPECT_EQ(i.where.line, 516);
  }
  // linear: Linear.cpp:73; xnnpack/Linear.cpp:214 and xnnpack/Shim.cpp:61 are at::native::xnnpack's.
  Trace lin = TraceTree("2.6.0", "aten::linear");
  const OpStep* l = FindOp(lin, "linear");
  ASSERT_NE(l, nullptr);
  ASSERT_EQ(l->impls.size(), 1u);
  EXPECT_EQ(l->impls[0].where.file, "aten/src/ATen/native/Linear.cpp");
  EXPECT_EQ(l->impls[0].where.line, 73);
  EXPECT_FALSE(AnyContains(CodeClaims(lin), "/xnnpack/"));
}

TEST_F(Truth260, DeviceHelperInAnAnonymousNamespaceIsNotTheOp) {
  // cuda/AveragePool2d.cu:24 `__device__ inline int min(int a, int b)` sits
  // in at::native's anonymous namespace: never the CUDA `min` (nor `max`).
  for (const std::string q : {"aten::min", "aten::max"}) {
    Trace t = TraceTree("2.6.0", q);
    EXPECT_FALSE(AnyContains(CodeClaims(t), "AveragePool2d.cu")) << q;
    // The reductions' own CUDA code is on the trace (an empty trace would pass the line above).
    EXPECT_TRUE(AnyContains(CodeClaims(t), "CUDA aten/src/ATen/native/cuda/")) << q;
  }
}

TEST_F(Truth260, BackendFoldersNeverOnCpuCudaOrCompositeWalks) {
  // Ops whose walks once reached vulkan/, qnnpack/ and native/cpu/ code by name.
  for (const std::string q : {"aten::affine_grid_generator", "aten::bmm", "aten::tril", "aten::cat", "aten::abs",
                              "aten::binary_cross_entropy", "aten::addmv", "aten::convolution"}) {
    Trace t = TraceTree("2.6.0", q);
    size_t checked = 0;
    for (const auto& op : t.ops) {
      for (const auto* list : {&op.impls, &op.helpers}) {
        for (const auto& s : *list) {
          const std::string& f = s.where.file;
          checked += s.key == "CPU" || s.key == "CUDA";
          for (const char* foreign : {"/vulkan/", "/xnnpack/", "/mps/", "/metal/", "/mkldnn/xpu/", "/qnnpack/"})
            EXPECT_EQ(f.find(foreign), std::string::npos) << q << ": " << op.name << " " << s.key << " " << f;
          if (s.key == "CUDA") EXPECT_EQ(f.find("/native/cpu/"), std::string::npos) << q << ": " << f;
          if (s.key == "CPU") EXPECT_EQ(f.find("/cuda/"), std::string::npos) << q << ": " << f;
        }
      }
    }
    EXPECT_GT(checked, 0u) << q << ": no CPU or CUDA code on the trace to check";
  }
}

TEST_F(Truth260, StubCalledInsideCpublasIsCpublasStub) {
  // CPUBlas.cpp:67 opens at::native::cpublas; copy() calls copy_stub( at
  // line 792; cpu/BlasKernel.cpp:534 registers cpublas::copy_stub, while
  // cpu/CopyKernel.cpp:328 registers at::native's copy_stub.
  const Index& ix = TreeIndex("2.6.0");
  TraceOptions options;
  CallFactsReader calls(ix, options);
  int checked = 0;
  for (uint32_t id : ix.cpp.FunctionsNamed("copy")) {
    const CppFunction& f = ix.cpp.functions()[id];
    if (ix.cpp.file(f.file) != "aten/src/ATen/native/CPUBlas.cpp") continue;
    for (uint32_t c : ix.cpp.CallsIn(id)) {
      const CppCall& call = ix.cpp.calls()[c];
      if (call.callee != "copy_stub") continue;
      EXPECT_EQ(calls.StubRegistrationKey(call, f), "cpublas::copy_stub");
      ++checked;
    }
  }
  EXPECT_GT(checked, 0);
}

TEST_F(Truth260, MacroMeansTheDefinitionOfItsTranslationUnit) {
  // HANDLE_CASE is #defined in cuda/Sort.cu:196, cuda/Shape.cu:408 and
  // cuda/SummaryOps.cu:129: topk's and sort's code never launches cat's
  // CatArrayBatchedCopy or the histogram's kernelHistogram1D.
  for (const std::string q : {"aten::topk", "aten::sort"}) {
    Trace t = TraceTree("2.6.0", q);
    size_t sort_kernels = 0;
    for (const auto& op : t.ops) {
      for (const auto& k : op.kernels) {
        EXPECT_EQ(k.name.find("CatArrayBatchedCopy"), std::string::npos) << q << " " << op.name;
        EXPECT_EQ(k.name.find("kernelHistogram1D"), std::string::npos) << q << " " << op.name;
        sort_kernels += k.where.file.find("aten/src/ATen/native/cuda/Sort") == 0 ||
                        k.where.file.find("aten/src/ATen/native/cuda/TensorTopK") == 0;
      }
    }
    // Their own kernels are there (Sort.cu, SortImpl.cu, TensorTopK.cu): the lines above check something.
    EXPECT_GT(sort_kernels, 0u) << q;
  }
}

TEST_F(Truth260, OnlyTensorReceiversMakeMethodOps) {
  // x.device().index(), sizes.data(): Device::index and IntArrayRef::data.
  // Across every trace of these ops, `index` / `data` are only ever called on
  // receivers that are not a Device or an IntArrayRef.
  for (const std::string q : {"aten::cat", "aten::_cudnn_rnn", "aten::embedding_bag", "aten::conv2d"}) {
    Trace t = TraceTree("2.6.0", q);
    size_t calls = 0;
    for (const auto& op : t.ops) {
      for (const auto& c : op.calls) {
        EXPECT_NE(c.how, "device().index()") << q;
        EXPECT_NE(c.how, "sizes().data()") << q;
        EXPECT_NE(c.how, ".index()") << q;
        ++calls;
      }
    }
    // The ops' code calls other ops (an empty trace would pass the lines above).
    EXPECT_GT(calls, 0u) << q;
  }
}

TEST_F(Truth260, OperatorsCountOnlyOnTensorOperands) {
  EXPECT_TRUE(OperatorOps("if (input_dim == 2 && n * 2 > 3) return -k;", false, [](std::string_view) {
                return false;
              }).empty());
  auto tensor_x = [](std::string_view n) { return n == "x"; };
  std::vector<std::string> ops = OperatorOps("auto y = x * 2; int m = n / 2; return -x;", false, tensor_x);
  EXPECT_EQ(ops, (std::vector<std::string>{"mul", "neg"}));
  EXPECT_FALSE(IsTensorType(DeclaredType("const Tensor& self, int64_t dim", "", "dim")));
  EXPECT_TRUE(IsTensorType(DeclaredType("const Tensor& self, int64_t dim", "", "self")));
  EXPECT_TRUE(IsTensorType(DeclaredType("", "{\n  Tensor out = at::empty({});\n  out.add_(1);", "out")));
  EXPECT_EQ(DeclaredType("", "{ auto iter = make(); }", "iter"), "auto");
  EXPECT_TRUE(IsTensorType("const at::Tensor& "));
  EXPECT_FALSE(IsTensorType("TensorIteratorBase& "));
  EXPECT_FALSE(IsTensorType("TensorList "));
}

TEST_F(Truth260, AnInitializersArgumentsAndReceiversAreNotItsValue) {
  // Each helper below compares or multiplies values that are no Tensor:
  //   Fill.cpp:148-149 `auto size_bytes = nelements * self.dtype().itemsize(); if (size_bytes > 0)`
  //   TensorAdvancedIndexing.cpp:1358 `auto grain_size = at::internal::GRAIN_SIZE;`, :1383 `slice_size >= grain_size`
  //   cuda/Blas.cpp:277 `if (&result != &self)`: addresses
  //   cudnn/RNN.cpp:1212 `auto cudnnDataType = getCudnnDataType(input);`, then `!= CUDNN_DATA_DOUBLE`
  const std::vector<std::pair<std::string, std::string>> cases = {{"aten::zero_", "zero_cpu_"},
                                                                  {"aten::index_select", "index_select_out_cpu_"},
                                                                  {"aten::addmm", "addmm_out_cuda_impl"},
                                                                  {"aten::_cudnn_rnn", "get_algo"}};
  for (const auto& [query, helper] : cases) {
    Trace t = TraceTree("2.6.0", query);
    for (const auto& op : t.ops) {
      for (const std::string& note : op.notes)
        EXPECT_EQ(note.find(helper + " applies C++ operators"), std::string::npos) << query << ": " << note;
    }
  }
  // RNN.cpp:751 `auto cy = (forgetgate * cx).add_(ingate * cellgate);` on Tensors still is mul.
  Trace lstm = TraceTree("2.6.0", "aten::lstm.input");
  bool cell_mul = false;
  for (const auto& op : lstm.ops) {
    for (const std::string& note : op.notes)
      cell_mul = cell_mul || note == "LSTMCell applies C++ operators to tensors: mul";
  }
  EXPECT_TRUE(cell_mul);
}

TEST_F(Truth260, AClassNamedInTemplateArgumentsRunsWhereItIsNamed) {
  // RNN.cpp:1434 `if (at::cudnn_is_acceptable(_input)) { ... return ...; }`,
  // then :1482 `_lstm_impl<FullLayer, FullBidirectionalLayer>(...)`:
  // FullLayer (:821) runs only on that way, so the ops its operator() calls
  // (stack, unbind) are off the cuDNN path -- not left open.
  Trace t = TraceTree("2.6.0", "aten::lstm.input", TraceOptions::Device::kCuda);
  for (const char* name : {"stack", "unbind.int"}) {
    const OpStep* op = nullptr;
    for (const auto& o : t.ops) {
      if (o.name == name && o.role == OpRole::kForward) op = &o;
    }
    ASSERT_NE(op, nullptr) << name;
    EXPECT_FALSE(op->typical) << name;
    EXPECT_FALSE(op->undecided) << name;
    bool cudnn = false;
    for (const auto& w : op->when)
      cudnn = cudnn || (w.text == "at::cudnn_is_acceptable(_input)" && w.negated && w.where.line == 1434);
    EXPECT_TRUE(cudnn) << name;
  }
}

TEST_F(Truth260, MembersQualifiedNamesAndCommentsAreNoDeclarations) {
  // cuda/Resize.cpp:22 `c10::Device device = storage->device();`: the member
  // call is no second declaration of `device`, so device.index() (:30) is
  // Device's, not aten::index; nor is a comment naming a variable.
  EXPECT_EQ(DeclaredType("", "{ c10::Device device = storage->device(); x.device; c10::device; }", "device"),
            "c10::Device");
  // cuda/Copy.cu:204 `Device src_device = iter.device(1);`, :264 `// Still on src_device, record stream event`.
  EXPECT_EQ(DeclaredType("", "{ Device src_device = d;\n  // Still on src_device, record\n}", "src_device"), "Device");
  Trace t = TraceTree("2.6.0", "aten::resize_", TraceOptions::Device::kCuda);
  for (const auto& op : t.ops) EXPECT_NE(op.name, "index.Tensor");
}

TEST_F(Truth260, AnOpCallFollowsTheOverloadsItsArgumentsAdmit) {
  // TensorAdvancedIndexing.cpp:1672 `scalar_t init_val;`, :1692
  // `self.scatter_(dim, index, init_val);`: scatter_.value runs (its
  // scatter_fill kernel), not scatter_.src.
  Trace t = TraceTree("2.6.0", "aten::scatter_reduce.two", TraceOptions::Device::kCuda);
  bool value = false, src = false;
  for (const auto& op : t.ops) {
    if (op.role != OpRole::kForward || op.reached_from.rfind("scatter_reduce", 0) != 0) continue;
    value = value || op.name == "scatter_.value";
    src = src || op.name == "scatter_.src";
  }
  EXPECT_TRUE(value);
  EXPECT_FALSE(src);
}

TEST_F(Truth260, BothBranchesOperatorsAreReadWhereWritten) {
  // LinearAlgebra.cpp:532 `if (!hermitian) {` ... :538 `S > tol` (S from
  // :535's svd binding), :548 `S_abs > tol` in the else: gt is taken on the
  // default (hermitian=False) way.
  Trace t = TraceTree("2.6.0", "aten::linalg_pinv.atol_rtol_tensor", TraceOptions::Device::kCuda);
  std::vector<int> gt_lines;
  bool gt_typical = false;
  for (const auto& op : t.ops) {
    if (op.name == "linalg_pinv.atol_rtol_tensor")
      for (const auto& c : op.calls)
        if (c.op == "gt") gt_lines.push_back(c.where.line);
    if (op.name == "gt.Tensor" && op.role == OpRole::kForward) gt_typical = op.typical;
  }
  EXPECT_EQ(gt_lines, (std::vector<int>{538, 548}));
  EXPECT_TRUE(gt_typical);
}

TEST_F(Truth260, CudnnLessBuildPlaceholderIsNotTheImplementation) {
  // cudnn/AffineGridGenerator.cpp:22 (under #if !AT_CUDNN_ENABLED()) only
  // raises "ATen not compiled with cuDNN support"; :76 is the real one.
  Trace t = TraceTree("2.6.0", "aten::cudnn_affine_grid_generator");
  const OpStep* op = FindOp(t, "cudnn_affine_grid_generator");
  ASSERT_NE(op, nullptr);
  ASSERT_EQ(op->impls.size(), 1u);
  EXPECT_EQ(op->impls[0].where.file, "aten/src/ATen/native/cudnn/AffineGridGenerator.cpp");
  EXPECT_EQ(op->impls[0].where.line, 76);
  bool noted = false;
  for (const auto& n : op->notes) noted = noted || n.find("AffineGridGenerator.cpp:22") != std::string::npos;
  EXPECT_TRUE(noted);
}

// A vendor library call is the vendor's camelCase C API (cudnnSetStream,
// cublasSgemm); PyTorch's own snake_case cudnn_* functions and stubs are code
// to follow (Recall260.AtenCodeNamedLikeAVendorLibraryIsFollowed: the stub's
// registration on the real tree).
TEST(LibraryOfCall, VendorApisAreCamelCaseNotPytorchsOwnCudnnFunctions) {
  EXPECT_EQ(LibraryOfCall("", "cudnnConvolutionForward"), "cuDNN");
  EXPECT_EQ(LibraryOfCall("", "cublasSgemm"), "cuBLAS");
  EXPECT_EQ(LibraryOfCall("", "cublasLtMatmul"), "cuBLASLt");
  EXPECT_EQ(LibraryOfCall("cudnn_frontend::", "make_operation"), "cuDNN");
  EXPECT_EQ(LibraryOfCall("", "cudnn_convolution_backward_stub"), "");
  EXPECT_EQ(LibraryOfCall("", "cudnn_is_acceptable"), "");
  EXPECT_EQ(LibraryOfCall("", "cufft_clear_plan_cache"), "");
}

// Thrust's and CUB's algorithms launch device work; their value types,
// factories, function objects and policies do not.
TEST(LibraryOfCall, ThrustAndCubVocabularyIsNoLibraryCall) {
  EXPECT_EQ(LibraryOfCall("thrust::", "sort_by_key"), "Thrust");
  EXPECT_EQ(LibraryOfCall("cub::DeviceReduce::", "Sum"), "CUB");
  EXPECT_EQ(LibraryOfCall("at::cuda::cub::", "radix_sort_pairs"), "CUB");
  EXPECT_EQ(LibraryOfCall("thrust::", "pair"), "");
  EXPECT_EQ(LibraryOfCall("thrust::", "make_counting_iterator"), "");
  EXPECT_EQ(LibraryOfCall("thrust::", "maximum"), "");
  EXPECT_EQ(LibraryOfCall("thrust::", "device_pointer_cast"), "");
  EXPECT_EQ(LibraryOfCall("thrust::cuda::", "par"), "");
  EXPECT_EQ(LibraryOfCall("cub::", "Sum"), "");
  EXPECT_EQ(LibraryOfCall("::cub::", "TransformInputIterator"), "");
  EXPECT_EQ(LibraryOfCall("cuda::cub::", "get_num_bits"), "");
}

// A vendor call that sets the library up is no work it runs.
TEST(LibraryOfCall, SetupCallsAreNoWork) {
  for (const char* setup :
       {"cudnnSetStream", "cudnnGetErrorString", "cudnnDropoutGetStatesSize", "cublasSetWorkspace_v2",
        "cufftSetWorkArea", "cusolverDnCreateParams", "cudnnDestroyTensorDescriptor"})
    EXPECT_TRUE(IsLibrarySetupCall(setup, setup)) << setup;
  EXPECT_TRUE(IsLibrarySetupCall("VariantPackBuilder", "cudnn_frontend::VariantPackBuilder"));
  for (const char* work : {"cudnnBackendExecute", "cudnnRNNForwardTraining", "cudnnBatchNormalizationBackwardEx",
                           "cufftXtExec", "cublasSgemm", "cusolverDnXgesvdj", "cudnnCTCLoss_v8", "cudnnGettysburg"})
    EXPECT_FALSE(IsLibrarySetupCall(work, work)) << work;
}

// cuda/ReduceArgMaxKernel.cu:25 hands gpu_reduce_kernel an initial value
// `thrust::pair<acc_t, int64_t>(...)`: a value, no Thrust launch. The
// embedding backward's CUB step is located at its first algorithm
// (cuda/Embedding.cu:301 radix_sort_pairs), not at `get_num_bits` (:300).
TEST_F(Truth260, ThrustPairIsAValueNotALibraryLaunch) {
  Trace t = TraceTree("2.6.0", "torch.argmax", TraceOptions::Device::kCuda);
  bool functor = false;
  for (const auto& op : t.ops) {
    for (const auto& k : op.kernels) functor = functor || k.name == "ArgMaxOps";
    for (const auto& l : op.libraries) EXPECT_NE(l.name, "Thrust") << l.where.file << ":" << l.where.line;
  }
  EXPECT_TRUE(functor);
  Trace e = TraceTree("2.6.0", "aten::embedding_dense_backward", TraceOptions::Device::kCuda);
  bool cub = false;
  for (const auto& o : e.ops)
    for (const auto& l : o.libraries)
      if (l.name == "CUB" && l.where.file == "aten/src/ATen/native/cuda/Embedding.cu") {
        cub = true;
        EXPECT_EQ(l.where.line, 301);
      }
  EXPECT_TRUE(cub);
}

// sub.out calls add_stub (BinaryOps.cpp:436), which nothing in the tree
// registers: torchgen's ufunc codegen writes UfuncCPU_add.cpp and
// UfuncCUDA_add.cu from the add group's ufunc_inner_loop, each with a
// REGISTER_DISPATCH line of its generator in torchgen/dest/ufunc.py.
TEST_F(Truth260, StubRegisteredByUfuncCodegenReachesTheGeneratedKernels) {
  Trace t = TraceTree("2.6.0", "aten::sub.out");
  const OpStep* op = FindOp(t, "sub.out");
  ASSERT_NE(op, nullptr);
  std::vector<std::string> regs;
  for (const auto& s : op->stubs)
    if (s.name == "add_stub")
      for (const auto& r : s.registrations)
        regs.push_back(r.device + " " + r.target + " " + r.where.file + ":" + std::to_string(r.where.line));
  EXPECT_TRUE(AnyContains(regs, "CUDA add_kernel torchgen/dest/ufunc.py:325"));
  EXPECT_TRUE(AnyContains(regs, "CPU add_kernel torchgen/dest/ufunc.py:552"));
  bool functor = false;
  for (const auto& k : op->kernels) functor = functor || k.name == "CUDAFunctorOnSelf_add";
  EXPECT_TRUE(functor);
}

// What runs on the GPU for a TensorIterator launch is a __global__ template
// of the launcher's own code with the functor as argument:
// vectorized_elementwise_kernel<4, MulFunctor<float>, ...> (CUDALoops.cuh:92).
TEST_F(Truth260, TensorIteratorKernelsNameTheGlobalTheLauncherRuns) {
  Trace t = TraceTree("2.6.0", "torch.mul");
  bool vectorized = false, reduce_listed = false;
  for (const auto& op : t.ops)
    for (const auto& k : op.kernels)
      if (k.name == "MulFunctor")
        for (const auto& g : k.runs_in)
          vectorized |= g.name == "vectorized_elementwise_kernel" &&
                        g.where.file == "aten/src/ATen/native/cuda/CUDALoops.cuh" && g.where.line == 92;
  EXPECT_TRUE(vectorized);
  Trace sum = TraceTree("2.6.0", "torch.sum");
  for (const auto& op : sum.ops)
    for (const auto& k : op.kernels)
      for (const auto& g : k.runs_in)
        reduce_listed |= g.name == "reduce_kernel" && g.where.file == "aten/src/ATen/native/cuda/Reduce.cuh";
  EXPECT_TRUE(reduce_listed);
}

TEST_F(Truth260, TokenPastingMacroWritesTheImplAndNamesTheStub) {
  // BinaryOps.cpp:1454 #define CREATE_COMPARISON_SCALAR_TENSOR_IMPL_FUNC(func)
  // writes TORCH_IMPL_FUNC(func##_Tensor_out) calling func##_stub; line 1465
  // uses it for eq. cuda/CompareEQKernel.cu:47 registers eq_kernel_cuda, which
  // launches CompareEqFunctor (line 35).
  Trace t = TraceTree("2.6.0", "aten::eq.Tensor_out");
  const OpStep* op = FindOp(t, "eq.Tensor_out");
  ASSERT_NE(op, nullptr);
  bool impl = false;
  for (const auto& i : op->impls) {
    impl = impl || (i.where.file == "aten/src/ATen/native/BinaryOps.cpp" && i.where.line == 1465);
  }
  EXPECT_TRUE(impl);
  bool stub = false;
  for (const auto& s : op->stubs) stub = stub || s.name == "eq_stub";
  EXPECT_TRUE(stub);
  bool functor = false;
  for (const auto& k : op->kernels) functor = functor || k.name == "CompareEqFunctor";
  EXPECT_TRUE(functor);
}

TEST_F(Truth260, HelperCalledOnBothBranchesTakesTheBranchTheAssumptionsAllow) {
  // ReduceOps.cpp:1488 `if (at::isIntegralType(self.scalar_type(), ...))`
  // calls logsumexp_out_impl at :1491 and, in its else, at :1493; the impl
  // calls at::amax at :1469 under :1466 `if (self.numel() != 0)`. A float
  // tensor takes the else: amax is typical, and its edge says so (it once
  // said "when isIntegralType", the first call site's branch).
  Trace t = TraceTree("2.6.0", "torch.logsumexp");
  const OpStep* amax = FindOp(t, "amax");
  ASSERT_NE(amax, nullptr);
  EXPECT_TRUE(amax->typical);
  bool integral_else = false;
  for (const auto& c : amax->when)
    if (c.text.find("isIntegralType") != std::string::npos) integral_else = c.negated && c.where.line == 1488;
  EXPECT_TRUE(integral_else);
}

}  // namespace
}  // namespace optrace
