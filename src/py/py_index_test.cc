// Facts about the real PyTorch trees (2.6.0 and 1.13.1), each checked by hand
// against the file (sed -n 'Np'), plus whole-tree scans. The class and def
// counts were cross-checked against Python's own ast module over every file.
#include <algorithm>
#include <map>
#include <memory>

#include <gtest/gtest.h>

#include "py/py_index.h"
#include "testing/test_util.h"

namespace optrace {
namespace {

// One index per tree, built once for all tests of this binary.
const PyIndex& Tree(const std::string& version) {
  static std::map<std::string, std::unique_ptr<PyIndex>> cache;
  auto& slot = cache[version];
  if (!slot) {
    RealDisk disk(CorpusTree(version));
    slot = std::make_unique<PyIndex>(PyIndex::Build(disk, 2));
  }
  return *slot;
}

uint32_t ModuleIndex(const PyIndex& index, std::string_view name) {
  const PyModule* m = index.FindModule(name);
  return m ? static_cast<uint32_t>(m - index.modules().data()) : UINT32_MAX;
}

struct Where {
  std::string path;
  uint32_t line = 0;
  bool operator==(const Where&) const = default;
};
std::ostream& operator<<(std::ostream& o, const Where& w) { return o << w.path << ":" << w.line; }

// File and line of what a symbol names.
Where Locate(const PyIndex& index, const PySymbol& s) {
  if (s.kind == PySymbol::kNone) return {"<none>", 0};
  const PyModule& m = index.modules()[s.module];
  switch (s.kind) {
    case PySymbol::kClass:
      return {m.path, m.classes[s.index].line};
    case PySymbol::kFunction:
      return {m.path, m.functions[s.index].line};
    case PySymbol::kAlias:
      return {m.path, m.aliases[s.index].line};
    case PySymbol::kImport:
      return {m.path, m.imports[s.index].line};
    default:
      return {m.path, 0};
  }
}

const PyFunction& Function(const PyIndex& index, const PySymbol& s) {
  static const PyFunction none;
  if (s.kind != PySymbol::kFunction) return none;
  return index.modules()[s.module].functions[s.index];
}

// Lines of every call to `callee` in `fn`, in order.
std::vector<uint32_t> CallLines(const PyFunction& fn, std::string_view callee) {
  std::vector<uint32_t> lines;
  for (const auto& c : fn.calls)
    if (c.callee == callee) lines.push_back(c.line);
  return lines;
}

const PyCall* FirstCall(const PyFunction& fn, std::string_view callee) {
  for (const auto& c : fn.calls)
    if (c.callee == callee) return &c;
  return nullptr;
}

using Lines = std::vector<uint32_t>;

// ---- 2.6.0 -------------------------------------------------------------------

class Py260 : public ::testing::Test {
 protected:
  void SetUp() override { REQUIRE_CORPUS("2.6.0"); }
  const PyIndex& I() { return Tree("2.6.0"); }
};

TEST_F(Py260, WholeTreeScansWithoutErrors) {
  const PyIndex& index = I();
  EXPECT_EQ(index.modules().size(), 1966u);
  size_t errors = 0, classes = 0, defs = 0;
  for (const auto& m : index.modules()) {
    if (!m.error.empty()) {
      ++errors;
      ADD_FAILURE() << m.path << ":" << m.error_line << ": " << m.error;
    }
    classes += m.classes.size();
    for (const auto& f : m.functions) defs += f.name != "<lambda>";
  }
  EXPECT_EQ(errors, 0u);
  EXPECT_EQ(classes, 4314u);  // = ast.ClassDef nodes
  EXPECT_EQ(defs, 35578u);    // = ast.FunctionDef + AsyncFunctionDef nodes
}

TEST_F(Py260, Conv2dIsAnAddDocstrAliasOfTorchConv2d) {
  PySymbol s = I().Resolve("torch.nn.functional.conv2d");
  ASSERT_EQ(s.kind, PySymbol::kAlias);
  EXPECT_EQ(Locate(I(), s), (Where{"torch/nn/functional.py", 92}));
  const PyAlias& a = I().modules()[s.module].aliases[s.index];
  EXPECT_EQ(a.kind, PyAliasKind::kAddDocstr);
  EXPECT_EQ(a.target, "torch.conv2d");
}

TEST_F(Py260, ReluUnderscoreAndLinearAliases) {
  PySymbol relu_ = I().Resolve("torch.nn.functional.relu_");
  EXPECT_EQ(Locate(I(), relu_), (Where{"torch/nn/functional.py", 1708}));
  EXPECT_EQ(I().modules()[relu_.module].aliases[relu_.index].target, "torch.relu_");
  PySymbol linear = I().Resolve("torch.nn.functional.linear");
  EXPECT_EQ(Locate(I(), linear), (Where{"torch/nn/functional.py", 2309}));
  EXPECT_EQ(I().modules()[linear.module].aliases[linear.index].target, "torch._C._nn.linear");
}

TEST_F(Py260, SoftmaxCallsInputSoftmaxAfterThePreamble) {
  PySymbol s = I().Resolve("torch.nn.functional.softmax");
  ASSERT_EQ(s.kind, PySymbol::kFunction);
  EXPECT_EQ(Locate(I(), s), (Where{"torch/nn/functional.py", 2103}));
  const PyFunction& f = Function(I(), s);
  EXPECT_EQ(f.params, (std::vector<std::string>{"input", "dim", "_stacklevel", "dtype"}));
  EXPECT_EQ(CallLines(f, "input.softmax"), (Lines{2140, 2142}));
  EXPECT_EQ(FirstCall(f, "input.softmax")->args, "dim");
  const PyCall* htf = FirstCall(f, "handle_torch_function");
  ASSERT_TRUE(htf);
  EXPECT_EQ(htf->line, 2134u);
  EXPECT_TRUE(htf->in_preamble);
  EXPECT_NE(htf->args.find("_stacklevel=_stacklevel"), std::string::npos);
  EXPECT_FALSE(FirstCall(f, "input.softmax")->in_preamble);
}

TEST_F(Py260, MaxPool2dBooleanDispatchHasBothBranches) {
  PySymbol s = I().Resolve("torch.nn.functional.max_pool2d");
  ASSERT_EQ(s.kind, PySymbol::kAlias);
  EXPECT_EQ(Locate(I(), s), (Where{"torch/nn/functional.py", 833}));
  const PyAlias& a = I().modules()[s.module].aliases[s.index];
  EXPECT_EQ(a.kind, PyAliasKind::kBooleanDispatch);
  EXPECT_EQ(a.if_true, "max_pool2d_with_indices");
  EXPECT_EQ(a.if_false, "_max_pool2d");
  EXPECT_EQ(Locate(I(), I().ResolveIn(s.module, a.if_true)), (Where{"torch/nn/functional.py", 754}));
}

TEST_F(Py260, SiluAndLayerNormCalls) {
  const PyFunction& silu = Function(I(), I().Resolve("torch.nn.functional.silu"));
  EXPECT_EQ(silu.line, 2358u);
  EXPECT_EQ(CallLines(silu, "torch._C._nn.silu"), Lines{2380});
  EXPECT_EQ(CallLines(silu, "torch._C._nn.silu_"), Lines{2379});
  const PyFunction& ln = Function(I(), I().Resolve("torch.nn.functional.layer_norm"));
  EXPECT_EQ(ln.line, 2889u);
  EXPECT_EQ(CallLines(ln, "torch.layer_norm"), Lines{2910});
}

TEST_F(Py260, LstmClassForwardAndVfCall) {
  PySymbol lstm = I().Resolve("torch.nn.LSTM");
  ASSERT_EQ(lstm.kind, PySymbol::kClass);
  EXPECT_EQ(Locate(I(), lstm), (Where{"torch/nn/modules/rnn.py", 795}));
  const PyClass& c = I().modules()[lstm.module].classes[lstm.index];
  EXPECT_EQ(c.bases, std::vector<std::string>{"RNNBase"});
  EXPECT_EQ(c.resolved_bases, std::vector<std::string>{"torch.nn.modules.rnn.RNNBase"});
  // Two @overload stubs (1029, 1037) precede the real forward.
  PySymbol fwd = I().Resolve("torch.nn.modules.rnn.LSTM.forward");
  EXPECT_EQ(Locate(I(), fwd), (Where{"torch/nn/modules/rnn.py", 1042}));
  EXPECT_EQ(CallLines(Function(I(), fwd), "_VF.lstm"), (Lines{1124, 1136}));
  auto via_class = I().FindMethod(lstm.module, lstm.index, "forward");
  ASSERT_TRUE(via_class);
  EXPECT_EQ(Locate(I(), *via_class), (Where{"torch/nn/modules/rnn.py", 1042}));
}

TEST_F(Py260, RegisterDecompositionSites) {
  PySymbol silu = I().Resolve("torch._decomp.decompositions.silu_backward");
  const PyFunction& f = Function(I(), silu);
  EXPECT_EQ(f.line, 287u);
  ASSERT_EQ(f.decorators.size(), 3u);
  EXPECT_EQ(f.decorators[0].name, "register_decomposition");
  EXPECT_EQ(f.decorators[0].args, std::vector<std::string>{"aten.silu_backward"});
  EXPECT_EQ(f.decorators[0].line, 284u);
  EXPECT_EQ(f.decorators[1].name, "out_wrapper");
  EXPECT_EQ(f.decorators[1].args, std::vector<std::string>{"\"grad_input\""});
  EXPECT_EQ(f.decorators[2].name, "pw_cast_for_opmath");
  EXPECT_EQ(f.decorators[2].line, 286u);

  const PyFunction& ln = Function(I(), I().Resolve("torch._decomp.decompositions.native_layer_norm_backward"));
  EXPECT_EQ(ln.line, 1622u);
  ASSERT_FALSE(ln.decorators.empty());
  EXPECT_EQ(ln.decorators[0].args, std::vector<std::string>{"aten.native_layer_norm_backward.default"});
  EXPECT_EQ(ln.decorators[0].line, 1621u);

  auto all = I().DecoratedWith("register_decomposition");
  uint32_t decomp = ModuleIndex(I(), "torch._decomp.decompositions");
  bool has_silu = false, has_ln = false;
  for (auto [m, fn] : all) {
    has_silu |= m == decomp && fn == silu.index;
    has_ln |= m == decomp && I().modules()[m].functions[fn].line == 1622;
  }
  EXPECT_TRUE(has_silu);
  EXPECT_TRUE(has_ln);
}

TEST_F(Py260, PyImplDecoratorNameIsTheCallee) {
  const PyModule* m = I().FindModule("torch._decomp.decompositions");
  ASSERT_TRUE(m);
  const PyDecorator* found = nullptr;
  for (const auto& f : m->functions)
    for (const auto& d : f.decorators)
      if (d.line == 1135) found = &d;
  ASSERT_TRUE(found);
  EXPECT_EQ(found->name, "aten.dropout.default.py_impl");
  EXPECT_EQ(found->args, std::vector<std::string>{"DispatchKey.CompositeImplicitAutograd"});
}

TEST_F(Py260, Relu6InheritsHardtanhForward) {
  PySymbol relu6 = I().Resolve("torch.nn.ReLU6");
  EXPECT_EQ(Locate(I(), relu6), (Where{"torch/nn/modules/activation.py", 276}));
  auto fwd = I().FindMethod(relu6.module, relu6.index, "forward");
  ASSERT_TRUE(fwd);
  EXPECT_EQ(Locate(I(), *fwd), (Where{"torch/nn/modules/activation.py", 268}));
  EXPECT_EQ(I().NameOf(*fwd), "torch.nn.modules.activation.Hardtanh.forward");
}

TEST_F(Py260, Conv2dForwardGoesThroughConvForward) {
  PySymbol conv = I().Resolve("torch.nn.Conv2d");
  EXPECT_EQ(Locate(I(), conv), (Where{"torch/nn/modules/conv.py", 378}));
  EXPECT_EQ(I().modules()[conv.module].classes[conv.index].resolved_bases,
            std::vector<std::string>{"torch.nn.modules.conv._ConvNd"});
  const PyFunction& fwd = Function(I(), I().Resolve("torch.nn.Conv2d.forward"));
  EXPECT_EQ(fwd.line, 553u);
  EXPECT_EQ(CallLines(fwd, "self._conv_forward"), Lines{554});
  const PyFunction& impl = Function(I(), I().Resolve("torch.nn.Conv2d._conv_forward"));
  EXPECT_EQ(impl.line, 536u);
  EXPECT_EQ(CallLines(impl, "F.conv2d"), (Lines{538, 549}));
}

TEST_F(Py260, LinearForwardCallsFLinear) {
  PySymbol linear = I().Resolve("torch.nn.Linear");
  EXPECT_EQ(Locate(I(), linear), (Where{"torch/nn/modules/linear.py", 50}));
  EXPECT_EQ(I().modules()[linear.module].classes[linear.index].resolved_bases,
            std::vector<std::string>{"torch.nn.modules.module.Module"});
  const PyFunction& fwd = Function(I(), I().Resolve("torch.nn.Linear.forward"));
  EXPECT_EQ(fwd.line, 124u);
  EXPECT_EQ(CallLines(fwd, "F.linear"), Lines{125});
}

TEST_F(Py260, ModuleForwardIsTheUnimplementedAttribute) {
  PySymbol module = I().Resolve("torch.nn.Module");
  EXPECT_EQ(Locate(I(), module), (Where{"torch/nn/modules/module.py", 402}));
  auto fwd = I().FindMethod(module.module, module.index, "forward");
  ASSERT_TRUE(fwd);
  ASSERT_EQ(fwd->kind, PySymbol::kAlias);
  EXPECT_EQ(Locate(I(), *fwd), (Where{"torch/nn/modules/module.py", 520}));
  EXPECT_EQ(I().modules()[fwd->module].aliases[fwd->index].target, "_forward_unimplemented");
}

TEST_F(Py260, TensorSplitInTensorPy) {
  PySymbol split = I().Resolve("torch.Tensor.split");
  EXPECT_EQ(Locate(I(), split), (Where{"torch/_tensor.py", 1013}));
  const PyFunction& f = Function(I(), split);
  EXPECT_TRUE(f.is_method);
  EXPECT_EQ(CallLines(f, "torch._VF.split"), Lines{1026});
  EXPECT_EQ(CallLines(f, "torch._VF.split_with_sizes"), Lines{1028});
  const PyCall* htf = FirstCall(f, "handle_torch_function");
  ASSERT_TRUE(htf);
  EXPECT_EQ(htf->line, 1016u);
  EXPECT_TRUE(htf->in_preamble);
  PySymbol tensor = I().Resolve("torch.Tensor");
  EXPECT_EQ(Locate(I(), tensor), (Where{"torch/_tensor.py", 80}));
  EXPECT_EQ(I().modules()[tensor.module].classes[tensor.index].bases, std::vector<std::string>{"torch._C.TensorBase"});
  PySymbol abs = I().Resolve("torch.Tensor.__abs__");
  ASSERT_EQ(abs.kind, PySymbol::kAlias);
  EXPECT_EQ(Locate(I(), abs), (Where{"torch/_tensor.py", 1126}));
}

TEST_F(Py260, EinsumThroughTorchStarImport) {
  PySymbol e = I().Resolve("torch.einsum");
  EXPECT_EQ(Locate(I(), e), (Where{"torch/functional.py", 210}));
  EXPECT_EQ(I().NameOf(e), "torch.functional.einsum");
  EXPECT_EQ(CallLines(Function(I(), e), "_VF.einsum"), (Lines{407, 417}));
}

TEST_F(Py260, RefsAddDecoratorsAndPrimsCall) {
  const PyFunction& add = Function(I(), I().Resolve("torch._refs.add"));
  EXPECT_EQ(add.line, 1120u);
  ASSERT_EQ(add.decorators.size(), 3u);
  EXPECT_EQ(add.decorators[0].line, 1114u);
  EXPECT_EQ(add.decorators[0].args, std::vector<std::string>{"aten.add"});
  EXPECT_EQ(add.decorators[1].name, "out_wrapper");
  EXPECT_EQ(add.decorators[2].name, "elementwise_type_promotion_wrapper");
  EXPECT_EQ(add.decorators[2].line, 1116u);
  EXPECT_EQ(CallLines(add, "prims.add"), Lines{1145});
  EXPECT_EQ(CallLines(add, "prims.mul"), Lines{1141});
  const PyFunction& fill = Function(I(), I().Resolve("torch._refs.fill"));
  EXPECT_EQ(fill.line, 665u);
  ASSERT_EQ(fill.decorators.size(), 2u);
  EXPECT_EQ(fill.decorators[1].line, 661u);
}

TEST_F(Py260, NnModulesAllIsLiteral) {
  const PyModule* m = I().FindModule("torch.nn.modules");
  ASSERT_TRUE(m);
  EXPECT_FALSE(m->all_dynamic);
  EXPECT_NE(std::find(m->all.begin(), m->all.end(), "LSTM"), m->all.end());
  EXPECT_TRUE(I().FindModule("torch")->all_dynamic);  // __all__.append(__name) in a loop
}

TEST_F(Py260, FunctionalImportsVf) {
  const PyModule* m = I().FindModule("torch.nn.functional");
  ASSERT_TRUE(m);
  const PyImport* vf = nullptr;
  for (const auto& imp : m->imports)
    if (imp.local == "_VF") vf = &imp;
  ASSERT_TRUE(vf);
  EXPECT_EQ(vf->target, "torch._VF");
  EXPECT_EQ(vf->line, 9u);
}

// ---- 1.13.1 ------------------------------------------------------------------

class Py1131 : public ::testing::Test {
 protected:
  void SetUp() override { REQUIRE_CORPUS("1.13.1"); }
  const PyIndex& I() { return Tree("1.13.1"); }
};

TEST_F(Py1131, WholeTreeScansWithoutErrors) {
  const PyIndex& index = I();
  EXPECT_EQ(index.modules().size(), 1162u);
  size_t errors = 0, classes = 0, defs = 0;
  for (const auto& m : index.modules()) {
    if (!m.error.empty()) {
      ++errors;
      ADD_FAILURE() << m.path << ":" << m.error_line << ": " << m.error;
    }
    classes += m.classes.size();
    for (const auto& f : m.functions) defs += f.name != "<lambda>";
  }
  EXPECT_EQ(errors, 0u);
  EXPECT_EQ(classes, 2009u);
  EXPECT_EQ(defs, 15373u);
}

TEST_F(Py1131, FunctionalAliases) {
  EXPECT_EQ(Locate(I(), I().Resolve("torch.nn.functional.conv2d")), (Where{"torch/nn/functional.py", 81}));
  EXPECT_EQ(Locate(I(), I().Resolve("torch.nn.functional.relu_")), (Where{"torch/nn/functional.py", 1461}));
  EXPECT_EQ(Locate(I(), I().Resolve("torch.nn.functional.linear")), (Where{"torch/nn/functional.py", 1993}));
  PySymbol mp = I().Resolve("torch.nn.functional.max_pool2d");
  EXPECT_EQ(Locate(I(), mp), (Where{"torch/nn/functional.py", 785}));
  const PyAlias& a = I().modules()[mp.module].aliases[mp.index];
  EXPECT_EQ(a.if_true, "max_pool2d_with_indices");
  EXPECT_EQ(a.if_false, "_max_pool2d");
}

TEST_F(Py1131, SoftmaxSiluLayerNorm) {
  const PyFunction& sm = Function(I(), I().Resolve("torch.nn.functional.softmax"));
  EXPECT_EQ(sm.line, 1811u);
  EXPECT_EQ(CallLines(sm, "input.softmax"), (Lines{1841, 1843}));
  const PyFunction& silu = Function(I(), I().Resolve("torch.nn.functional.silu"));
  EXPECT_EQ(silu.line, 2038u);
  EXPECT_EQ(CallLines(silu, "torch._C._nn.silu"), Lines{2059});
  const PyFunction& ln = Function(I(), I().Resolve("torch.nn.functional.layer_norm"));
  EXPECT_EQ(ln.line, 2500u);
  EXPECT_EQ(CallLines(ln, "torch.layer_norm"), Lines{2515});
}

TEST_F(Py1131, LstmThroughBackslashContinuedReexport) {
  // torch/nn/modules/__init__.py:27 `from .rnn import RNNBase, RNN, LSTM, GRU, \`
  PySymbol lstm = I().Resolve("torch.nn.LSTM");
  EXPECT_EQ(Locate(I(), lstm), (Where{"torch/nn/modules/rnn.py", 518}));
  PySymbol fwd = I().Resolve("torch.nn.LSTM.forward");
  EXPECT_EQ(Locate(I(), fwd), (Where{"torch/nn/modules/rnn.py", 726}));
  EXPECT_EQ(CallLines(Function(I(), fwd), "_VF.lstm"), (Lines{774, 777}));
  // `from ... import _VF` in torch.nn.modules.rnn
  const PyModule* rnn = I().FindModule("torch.nn.modules.rnn");
  bool vf = false;
  for (const auto& imp : rnn->imports) vf |= imp.local == "_VF" && imp.target == "torch._VF" && imp.line == 12;
  EXPECT_TRUE(vf);
}

TEST_F(Py1131, DecompositionSites) {
  const PyFunction& silu = Function(I(), I().Resolve("torch._decomp.decompositions.silu_backward"));
  ASSERT_FALSE(silu.decorators.empty());
  EXPECT_EQ(silu.decorators[0].line, 260u);
  EXPECT_EQ(silu.decorators[0].args, std::vector<std::string>{"aten.silu_backward"});
  const PyFunction& ln = Function(I(), I().Resolve("torch._decomp.decompositions.native_layer_norm_backward"));
  ASSERT_FALSE(ln.decorators.empty());
  EXPECT_EQ(ln.decorators[0].line, 1232u);
  EXPECT_EQ(ln.decorators[0].args, std::vector<std::string>{"aten.native_layer_norm_backward"});
}

TEST_F(Py1131, Relu6AndConv2d) {
  PySymbol relu6 = I().Resolve("torch.nn.ReLU6");
  EXPECT_EQ(Locate(I(), relu6), (Where{"torch/nn/modules/activation.py", 243}));
  auto fwd = I().FindMethod(relu6.module, relu6.index, "forward");
  ASSERT_TRUE(fwd);
  EXPECT_EQ(Locate(I(), *fwd), (Where{"torch/nn/modules/activation.py", 233}));
  EXPECT_EQ(Locate(I(), I().Resolve("torch.nn.Conv2d")), (Where{"torch/nn/modules/conv.py", 316}));
  const PyFunction& impl = Function(I(), I().Resolve("torch.nn.Conv2d._conv_forward"));
  EXPECT_EQ(impl.line, 454u);
  EXPECT_EQ(CallLines(impl, "F.conv2d"), (Lines{456, 459}));
  EXPECT_EQ(CallLines(impl, "F.pad"), Lines{456});
  const PyFunction& f = Function(I(), I().Resolve("torch.nn.Conv2d.forward"));
  EXPECT_EQ(f.line, 462u);
  EXPECT_EQ(CallLines(f, "self._conv_forward"), Lines{463});
}

TEST_F(Py1131, TensorSplitAndEinsum) {
  PySymbol split = I().Resolve("torch.Tensor.split");
  EXPECT_EQ(Locate(I(), split), (Where{"torch/_tensor.py", 774}));
  EXPECT_EQ(CallLines(Function(I(), split), "torch._VF.split"), Lines{787});
  PySymbol tensor = I().Resolve("torch.Tensor");
  EXPECT_EQ(I().modules()[tensor.module].classes[tensor.index].bases, std::vector<std::string>{"torch._C._TensorBase"});
  PySymbol einsum = I().Resolve("torch.functional.einsum");
  EXPECT_EQ(Locate(I(), einsum), (Where{"torch/functional.py", 192}));
  EXPECT_EQ(CallLines(Function(I(), einsum), "_VF.einsum"), (Lines{378, 386}));
}

TEST_F(Py1131, RefsAtan2IsAWrapperCall) {
  PySymbol atan2 = I().Resolve("torch._refs.atan2");
  ASSERT_EQ(atan2.kind, PySymbol::kAlias);
  EXPECT_EQ(Locate(I(), atan2), (Where{"torch/_refs/__init__.py", 922}));
  const PyAlias& a = I().modules()[atan2.module].aliases[atan2.index];
  EXPECT_EQ(a.kind, PyAliasKind::kCall);
  EXPECT_EQ(a.target, "_make_elementwise_binary_reference");
}

}  // namespace
}  // namespace optrace

namespace optrace {
namespace {

// An index whose module was replaced after an edit (the store's layers)
// answers as the edited tree's index built in one go.
TEST(PyIndexReplaceModule, AnswersAsABuildOfTheEditedTree) {
  REQUIRE_CORPUS("2.6.0");
  const PyIndex& base = Tree("2.6.0");
  const uint32_t m = ModuleIndex(base, "torch.nn.functional");
  ASSERT_NE(m, UINT32_MAX);
  const PyModule& before = base.modules()[m];
  RealDisk disk(CorpusTree("2.6.0"));
  std::string text;
  ASSERT_TRUE(disk.ReadFile(before.path, &text).ok());
  size_t softmax = text.find("\ndef softmax(");
  ASSERT_NE(softmax, std::string::npos);
  text.replace(softmax, 13, "\ndef softmax_renamed(");
  text = "# edited\n\n" + text + "\n@register_decomposition(aten.layer_probe)\ndef layer_probe(x):\n    return x\n";
  PyModule edited = ScanPyFile(before.name, before.path, text);

  PyIndex replaced, full;
  for (uint32_t i = 0; i < base.modules().size(); ++i) {
    replaced.AddModule(base.modules()[i]);
    full.AddModule(i == m ? edited : base.modules()[i]);
  }
  replaced.Finish();
  full.Finish();
  EXPECT_FALSE(replaced.ReplaceModule(m + 1, edited));  // another module's name and path
  ASSERT_TRUE(replaced.ReplaceModule(m, edited));

  auto same = [](const PySymbol& a, const PySymbol& b) {
    return a.kind == b.kind && a.module == b.module && a.index == b.index;
  };
  for (uint32_t i = 0; i < full.modules().size(); ++i) ASSERT_EQ(replaced.NamesIn(i), full.NamesIn(i)) << i;
  std::vector<std::string> names = full.NamesIn(m);
  for (const std::string& n : base.NamesIn(m)) names.push_back(n);
  for (const std::string& n : names) {
    const std::string dotted = "torch.nn.functional." + n;
    EXPECT_TRUE(same(replaced.Resolve(dotted), full.Resolve(dotted))) << dotted;
    EXPECT_TRUE(same(replaced.ResolveIn(m, n), full.ResolveIn(m, n))) << n;
  }
  EXPECT_EQ(replaced.Resolve("torch.nn.functional.softmax").kind, PySymbol::kNone);
  const PySymbol probe = replaced.Resolve("torch.nn.functional.layer_probe");
  ASSERT_EQ(probe.kind, PySymbol::kFunction);
  EXPECT_EQ(replaced.modules()[m].functions[probe.index].line, edited.functions[probe.index].line);
  for (const char* decorator : {"register_decomposition", "_overload", "boolean_dispatch", "register_lowering"})
    EXPECT_EQ(replaced.DecoratedWith(decorator), full.DecoratedWith(decorator)) << decorator;
  const auto decomposed = replaced.DecoratedWith("register_decomposition");
  EXPECT_NE(std::find(decomposed.begin(), decomposed.end(), std::make_pair(m, probe.index)), decomposed.end());
}

}  // namespace
}  // namespace optrace
