// Tracer tests on the real trees: each query of every kind, with the facts
// it must find (file, line, name), each checked by hand against the tree.
#include "trace/trace.h"
#include "trace/trace_test_util.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "testing/test_util.h"

namespace optrace {
namespace {

bool HasImpl(const OpStep& op, const std::string& key, const std::string& function, const std::string& file, int line) {
  for (const auto& i : op.impls) {
    if (i.key == key && i.function == function && i.where.file == file && i.where.line == line) return true;
  }
  return false;
}

bool HasKernel(const Trace& t, const std::string& name, const std::string& file = "", int line = 0) {
  for (const auto& op : t.ops) {
    for (const auto& k : op.kernels) {
      if (k.name == name && (file.empty() || (k.where.file == file && k.where.line == line))) return true;
    }
  }
  return false;
}

bool HasLibrary(const Trace& t, const std::string& name) {
  for (const auto& op : t.ops) {
    for (const auto& l : op.libraries) {
      if (l.name == name) return true;
    }
  }
  return false;
}

bool Contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

class Trace260 : public Tree260 {};
class Trace1131 : public Tree1131 {};

TEST_F(Trace260, LstmModuleToCudnnAndBackward) {
  Trace t = TraceTree("2.6.0", "nn.LSTM");
  EXPECT_EQ(t.target_kind, TargetKind::kModule);
  EXPECT_EQ(t.target_name, "torch.nn.modules.rnn.LSTM");
  ASSERT_FALSE(t.python.empty());
  EXPECT_EQ(t.python[0].symbol, "torch.nn.modules.rnn.LSTM.forward");
  EXPECT_EQ(t.python[0].where.file, "torch/nn/modules/rnn.py");
  EXPECT_EQ(t.python[0].where.line, 1042);
  bool vf_call = false;
  for (const auto& c : t.python[0].calls) vf_call = vf_call || (c.callee == "_VF.lstm" && c.line == 1124);
  EXPECT_TRUE(vf_call);
  const OpStep* lstm = FindOp(t, "lstm.input");
  ASSERT_NE(lstm, nullptr);
  EXPECT_EQ(lstm->yaml->line, 7854);
  EXPECT_TRUE(lstm->yaml->implicit_composite);
  EXPECT_TRUE(HasImpl(*lstm, "CompositeImplicitAutograd", "lstm", "aten/src/ATen/native/RNN.cpp", 1429));
  bool cudnn_registration = false;
  for (const auto& s : lstm->stubs) {
    if (s.name != "lstm_cudnn_stub") continue;
    EXPECT_EQ(s.declared.file, "aten/src/ATen/native/RNN.h");
    EXPECT_EQ(s.declared.line, 13);
    for (const auto& r : s.registrations) {
      cudnn_registration =
          cudnn_registration || (r.device == "CUDA" && r.target == "lstm_cudnn" &&
                                 r.where.file == "aten/src/ATen/native/cudnn/RNN.cpp" && r.where.line == 2745);
    }
  }
  EXPECT_TRUE(cudnn_registration);
  EXPECT_NE(FindOp(t, "_cudnn_rnn"), nullptr);
  EXPECT_TRUE(HasLibrary(t, "cuDNN"));
  const BackwardStep* b = FindBackward(t, "_cudnn_rnn");
  ASSERT_NE(b, nullptr);
  ASSERT_NE(b->derivatives, nullptr);
  EXPECT_EQ(b->derivatives->line, 2763);
  EXPECT_TRUE(Contains(b->ops, "_cudnn_rnn_backward"));
  // lstm.input itself has no backward entry: it is CompositeImplicitAutograd.
  EXPECT_EQ(FindBackward(t, "lstm.input"), nullptr);
}

// Issue 29 item 12: copy_ calls at::native's copy_stub (Copy.h:15), not the
// cpublas::copy_stub of CPUBlas.h:171 that shares its name; the cpublas
// registration (cpu/BlasKernel.cpp:534) is not one of its registrations.
TEST_F(Trace260, CopyStubIsCopyHNotCpublas) {
  Trace t = TraceTree("2.6.0", "aten::copy_");
  bool seen = false;
  for (const auto& op : t.ops) {
    for (const auto& s : op.stubs) {
      if (s.name != "copy_stub") continue;
      seen = true;
      EXPECT_EQ(s.declared.file, "aten/src/ATen/native/Copy.h");
      EXPECT_EQ(s.declared.line, 15);
      for (const auto& r : s.registrations) EXPECT_NE(r.target, "cpublas_copy_impl") << op.name;
    }
  }
  EXPECT_TRUE(seen);
}

TEST_F(Trace260, SoftmaxFunctionalToWarpKernel) {
  Trace t = TraceTree("2.6.0", "F.softmax");
  EXPECT_EQ(t.target_kind, TargetKind::kFunctional);
  ASSERT_FALSE(t.python.empty());
  EXPECT_EQ(t.python[0].where.file, "torch/nn/functional.py");
  EXPECT_EQ(t.python[0].where.line, 2103);
  const OpStep* softmax = FindOp(t, "softmax.int");
  ASSERT_NE(softmax, nullptr);
  EXPECT_EQ(softmax->yaml->line, 5541);
  ASSERT_NE(FindOp(t, "_softmax"), nullptr);
  const OpStep* out = FindOp(t, "_softmax.out");
  ASSERT_NE(out, nullptr);
  EXPECT_EQ(out->yaml->line, 5559);
  EXPECT_TRUE(HasImpl(*out, "CUDA", "softmax_cuda_out", "aten/src/ATen/native/cuda/SoftMax.cu", 1091));
  EXPECT_TRUE(HasImpl(*out, "CPU", "softmax_cpu_out", "aten/src/ATen/native/SoftMax.cpp", 335));
  EXPECT_TRUE(HasKernel(t, "softmax_warp_forward", "aten/src/ATen/native/cuda/PersistentSoftmax.cuh", 68));
  for (const auto& k : out->kernels) {
    if (k.name == "softmax_warp_forward") EXPECT_EQ(k.launch, KernelLaunch::kMacro);
  }
  const BackwardStep* b = FindBackward(t, "_softmax");
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->derivatives->line, 2196);
  EXPECT_TRUE(Contains(b->ops, "_softmax_backward_data"));
  EXPECT_TRUE(HasKernel(t, "softmax_warp_backward"));
  bool decomposition = false;
  for (const auto& d : t.decompositions) {
    decomposition = decomposition || (d.where.file == "torch/_decomp/decompositions.py" && d.where.line == 1161);
  }
  EXPECT_TRUE(decomposition);
}

// torch._refs registers most elementwise refs through a decorator factory
// (@_make_elementwise_unary_reference(...) def rsqrt: register_decomposition
// is called inside the factory, the aten op inferred from the name); a
// factory argument can switch the registration off (aten_op=None,
// should_register_decomposition=False).
TEST_F(Trace260, DecompositionsRegisteredByADecoratorFactory) {
  auto site = [](const Trace& t, int line) -> const DecompositionStep* {
    for (const auto& d : t.decompositions)
      if (d.where.file == "torch/_refs/__init__.py" && d.where.line == line) return &d;
    return nullptr;
  };
  Trace rms = TraceTree("2.6.0", "F.rms_norm");
  const DecompositionStep* rsqrt = site(rms, 932);  // @_make_elementwise_unary_reference(...) def rsqrt
  ASSERT_NE(rsqrt, nullptr);
  EXPECT_EQ(rsqrt->target, "aten.rsqrt");
  EXPECT_EQ(rsqrt->function, "rsqrt");
  EXPECT_NE(site(rms, 1241), nullptr);                    // pow, through _make_elementwise_binary_reference
  EXPECT_NE(site(rms, 1698), nullptr);                    // mul
  Trace zeta = TraceTree("2.6.0", "torch.special.zeta");  // a submodule: aten.special_zeta
  bool special = false;
  for (const auto& d : zeta.decompositions)
    special |=
        d.where.file == "torch/_refs/special/__init__.py" && d.where.line == 232 && d.target == "aten.special_zeta";
  EXPECT_TRUE(special);
  Trace floor_divide = TraceTree("2.6.0", "torch.floor_divide");  // should_register_decomposition=False
  EXPECT_EQ(site(floor_divide, 1325), nullptr);
  Trace true_divide = TraceTree("2.6.0", "torch.true_divide");  // aten_op=None
  for (const auto& d : true_divide.decompositions) EXPECT_NE(d.function, "true_divide") << d.where.line;
}

TEST_F(Trace260, AddThroughUfuncCodegen) {
  for (const std::string q : {"torch.add", "Tensor.__add__", "+"}) {
    Trace t = TraceTree("2.6.0", q);
    const OpStep* add = FindOp(t, "add.Tensor");
    ASSERT_NE(add, nullptr) << q;
    ASSERT_TRUE(add->yaml->structured_delegate.has_value());
    EXPECT_EQ(*add->yaml->structured_delegate, "add.out");
    const OpStep* out = FindOp(t, "add.out");
    ASSERT_NE(out, nullptr) << q;
    bool ufunc = false;
    for (const auto& i : out->impls) ufunc = ufunc || (i.form == ImplForm::kUfunc && i.function == "ufunc_add_CUDA");
    EXPECT_TRUE(ufunc) << q;
    EXPECT_TRUE(HasKernel(t, "CUDAFunctor_add")) << q;
    // add.Scalar has no Python binding (gen_python_functions.py skips it).
    EXPECT_EQ(FindOp(t, "add.Scalar"), nullptr) << q;
  }
}

TEST_F(Trace260, GeluToGpuKernel) {
  Trace t = TraceTree("2.6.0", "F.gelu");
  const OpStep* out = FindOp(t, "gelu.out");
  ASSERT_NE(out, nullptr);
  EXPECT_TRUE(HasImpl(*out, "CUDA", "gelu_out_cuda", "aten/src/ATen/native/cuda/Activation.cpp", 96));
  bool kernel = false;
  for (const auto& k : out->kernels) {
    kernel = kernel ||
             (k.name == "GeluCUDAKernelImpl" && k.launch == KernelLaunch::kTensorIterator &&
              k.launch_site.file == "aten/src/ATen/native/cuda/ActivationGeluKernel.cu" && k.launch_site.line == 24);
  }
  EXPECT_TRUE(kernel);
}

TEST_F(Trace260, WhereStubRegistrationPerDevice) {
  Trace t = TraceTree("2.6.0", "torch.where");
  bool cuda = false, cpu = false;
  for (const auto& op : t.ops) {
    for (const auto& s : op.stubs) {
      if (s.name != "where_kernel") continue;
      for (const auto& r : s.registrations) {
        cuda = cuda || (r.device == "CUDA" && r.where.file == "aten/src/ATen/native/cuda/TensorCompare.cu" &&
                        r.where.line == 96);
        cpu = cpu || (r.device == "CPU" && r.where.file == "aten/src/ATen/native/cpu/TensorCompareKernel.cpp" &&
                      r.where.line == 406);
      }
    }
  }
  EXPECT_TRUE(cuda);
  EXPECT_TRUE(cpu);
}

TEST_F(Trace260, MulMethodReachesMulFunctor) {
  Trace t = TraceTree("2.6.0", "Tensor.__mul__");
  EXPECT_EQ(t.selected_overload, "mul.Tensor");
  EXPECT_TRUE(HasKernel(t, "MulFunctor"));
  EXPECT_EQ(FindOp(t, "mul.Scalar"), nullptr);  // not bound for Python
}

TEST_F(Trace260, AtenSpellings) {
  for (const std::string q : {"aten::add.Tensor", "torch.ops.aten.add.Tensor", "add.Tensor"}) {
    Trace t = TraceTree("2.6.0", q);
    EXPECT_EQ(t.target_kind, TargetKind::kAten) << q;
    ASSERT_FALSE(t.ops.empty()) << q;
    EXPECT_EQ(t.ops[0].name, "add.Tensor") << q;
  }
  Trace mm = TraceTree("2.6.0", "aten.mm.default");
  ASSERT_FALSE(mm.ops.empty());
  EXPECT_EQ(mm.ops[0].name, "mm");
  EXPECT_TRUE(HasLibrary(mm, "cuBLAS"));
  Trace all = TraceTree("2.6.0", "_softmax");
  EXPECT_NE(FindOp(all, "_softmax"), nullptr);
  EXPECT_NE(FindOp(all, "_softmax.out"), nullptr);
}

TEST_F(Trace260, AddDefaultDoesNotExist) {
  // add has no overload-less schema, so torch.ops.aten.add.default does not exist.
  Trace t;
  Status s = TraceQuery(TreeIndex("2.6.0"), "aten.add.default", TraceOptions{}, &t);
  EXPECT_EQ(s.code(), ExitCode::kNotFound);
  EXPECT_TRUE(t.ops.empty());
}

TEST_F(Trace260, UnknownNameSuggestsAndTracesNothing) {
  Trace t;
  Status s = TraceQuery(TreeIndex("2.6.0"), "nn.LTSM", TraceOptions{}, &t);
  EXPECT_EQ(s.code(), ExitCode::kNotFound);
  EXPECT_TRUE(t.ops.empty());
  EXPECT_TRUE(Contains(t.suggestions, "nn.LSTM"));
}

TEST_F(Trace260, KernelNameBottomUp) {
  Trace t = TraceTree("2.6.0", "softmax_warp_forward");
  EXPECT_EQ(t.target_kind, TargetKind::kKernel);
  EXPECT_NE(FindOp(t, "_softmax.out"), nullptr);
  Trace l = TraceTree("2.6.0", "lstm_cudnn");
  EXPECT_EQ(l.target_kind, TargetKind::kKernel);
  EXPECT_NE(FindOp(l, "lstm.input"), nullptr);
}

TEST_F(Trace260, TensorSplitIsPython) {
  Trace t = TraceTree("2.6.0", "Tensor.split");
  ASSERT_FALSE(t.python.empty());
  EXPECT_EQ(t.python[0].symbol, "torch._tensor.Tensor.split");
  EXPECT_EQ(t.python[0].where.file, "torch/_tensor.py");
  EXPECT_EQ(t.python[0].where.line, 1013);
  EXPECT_NE(FindOp(t, "split.Tensor"), nullptr);
}

TEST_F(Trace260, RsubDunderIsPython) {
  Trace t = TraceTree("2.6.0", "Tensor.__rsub__");
  ASSERT_FALSE(t.python.empty());
  EXPECT_EQ(t.python[0].where.line, 1072);
  EXPECT_NE(FindOp(t, "rsub.Tensor"), nullptr);
  EXPECT_NE(FindOp(t, "sub.out"), nullptr);  // rsub's kernel redispatches to sub
}

TEST_F(Trace260, InheritedForward) {
  Trace t = TraceTree("2.6.0", "nn.ReLU6");
  ASSERT_FALSE(t.python.empty());
  EXPECT_EQ(t.python[0].symbol, "torch.nn.modules.activation.Hardtanh.forward");
  EXPECT_NE(t.python[0].note.find("inherits forward"), std::string::npos);
  EXPECT_NE(FindOp(t, "hardtanh"), nullptr);
}

TEST_F(Trace260, Conv2dThroughHelperMethod) {
  Trace t = TraceTree("2.6.0", "nn.Conv2d");
  ASSERT_GE(t.python.size(), 2u);
  EXPECT_EQ(t.python[0].symbol, "torch.nn.modules.conv.Conv2d.forward");
  EXPECT_EQ(t.python[1].symbol, "torch.nn.modules.conv.Conv2d._conv_forward");
  EXPECT_NE(FindOp(t, "conv2d"), nullptr);
  EXPECT_NE(FindOp(t, "cudnn_convolution"), nullptr);
  EXPECT_TRUE(HasLibrary(t, "cuDNN"));
}

TEST_F(Trace260, TorchSubmodules) {
  EXPECT_NE(FindOp(TraceTree("2.6.0", "torch.linalg.vector_norm"), "linalg_vector_norm"), nullptr);
  EXPECT_NE(FindOp(TraceTree("2.6.0", "torch.fft.rfft"), "fft_rfft"), nullptr);
  Trace matmul = TraceTree("2.6.0", "torch.matmul");
  EXPECT_NE(FindOp(matmul, "matmul"), nullptr);
  EXPECT_NE(FindOp(matmul, "mm"), nullptr);
}

TEST_F(Trace260, OperatorsAlone) {
  EXPECT_NE(FindOp(TraceTree("2.6.0", "@"), "matmul"), nullptr);
  EXPECT_NE(FindOp(TraceTree("2.6.0", "[]"), "index.Tensor"), nullptr);
}

TEST_F(Trace260, CrossEntropyCompositeChain) {
  Trace t = TraceTree("2.6.0", "F.cross_entropy");
  for (const char* op :
       {"cross_entropy_loss", "log_softmax.int", "_log_softmax", "nll_loss_nd", "nll_loss", "nll_loss_forward"}) {
    EXPECT_NE(FindOp(t, op), nullptr) << op;
  }
  EXPECT_TRUE(HasKernel(t, "nll_loss_forward_reduce_cuda_kernel_2d"));
}

TEST_F(Trace260, ImplFuncWrittenByAMacro) {
  // UnaryOps.cpp:347 is CREATE_UNARY_TORCH_IMPL_FUNC(sigmoid_out, sigmoid_stub).
  Trace t = TraceTree("2.6.0", "torch.sigmoid");
  const OpStep* out = FindOp(t, "sigmoid.out");
  ASSERT_NE(out, nullptr);
  EXPECT_TRUE(HasImpl(*out, "CUDA", "sigmoid_out", "aten/src/ATen/native/UnaryOps.cpp", 347));
  bool cuda = false;
  for (const auto& s : out->stubs) {
    for (const auto& r : s.registrations) {
      cuda = cuda || (s.name == "sigmoid_stub" && r.target == "sigmoid_kernel_cuda" &&
                      r.where.file == "aten/src/ATen/native/cuda/UnarySpecialOpsKernel.cu" && r.where.line == 386);
    }
  }
  EXPECT_TRUE(cuda);
  EXPECT_TRUE(HasKernel(t, "sigmoid_kernel_cuda"));
}

TEST_F(Trace1131, DropoutsNoiseRecordsNoBackward) {
  // Dropout.cpp:58-59 `auto noise = ... at::empty_like(input, ...); noise.bernoulli_(1 - p);`:
  // empty_like's result needs no grad (tools/autograd/gen_variable_type.py's
  // DONT_REQUIRE_DERIVATIVE), so autograd records no bernoulli_, nor div_ (:66).
  TraceOptions options;
  options.device = TraceOptions::Device::kCpu;
  Trace t = TraceTree("1.13.1", "F.dropout", options);
  for (const char* op : {"bernoulli_.float", "div_.Scalar"}) {
    const BackwardStep* b = FindBackward(t, op);
    ASSERT_NE(b, nullptr) << op;
    EXPECT_TRUE(b->below_autograd) << op;
  }
}

TEST_F(Trace1131, VectorizedMathInACpuKernelIsNoOp) {
  // cpu/ReduceOpsKernel.cpp:448 `return maximum(a, b);` of two Vectorized
  // values (at::vec::maximum), and cpu/BinaryOpsKernel.cpp:909
  // `m + (one + (a - b).abs().neg().exp()).log()`: no aten op runs.
  TraceOptions options;
  options.device = TraceOptions::Device::kCpu;
  EXPECT_EQ(FindOp(TraceTree("1.13.1", "torch.amax", options), "maximum"), nullptr);
  EXPECT_EQ(FindOp(TraceTree("1.13.1", "torch.logaddexp", options), "add.Tensor"), nullptr);
}

TEST_F(Trace1131, LstmImplicitComposite) {
  Trace t = TraceTree("1.13.1", "nn.LSTM");
  const OpStep* lstm = FindOp(t, "lstm.input");
  ASSERT_NE(lstm, nullptr);
  EXPECT_EQ(lstm->yaml->line, 6757);
  EXPECT_TRUE(lstm->yaml->implicit_composite);
}

TEST_F(Trace1131, SoftmaxCudaOut) {
  Trace t = TraceTree("1.13.1", "F.softmax");
  const OpStep* out = FindOp(t, "_softmax.out");
  ASSERT_NE(out, nullptr);
  EXPECT_EQ(out->yaml->line, 4759);
  EXPECT_TRUE(HasImpl(*out, "CUDA", "softmax_cuda_out", "aten/src/ATen/native/cuda/SoftMax.cu", 935));
}

TEST_F(Trace1131, UniqueThroughNestedBooleanDispatch) {
  Trace t = TraceTree("1.13.1", "torch.unique");
  const OpStep* u = FindOp(t, "_unique2");
  ASSERT_NE(u, nullptr);
  EXPECT_EQ(u->yaml->line, 5447);
}

TEST_F(Trace1131, GetitemAndCopyAreManualBindings) {
  EXPECT_NE(FindOp(TraceTree("1.13.1", "Tensor.__getitem__"), "index.Tensor"), nullptr);
  EXPECT_NE(FindOp(TraceTree("1.13.1", "Tensor.copy_"), "copy_"), nullptr);
}

TEST_F(Trace1131, NllLossChain) {
  Trace t = TraceTree("1.13.1", "F.nll_loss");
  for (const char* op : {"nll_loss_nd", "nll_loss", "nll_loss_forward"}) EXPECT_NE(FindOp(t, op), nullptr) << op;
}

}  // namespace
}  // namespace optrace
