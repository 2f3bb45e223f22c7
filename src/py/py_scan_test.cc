// Unit tests for ScanPyFile (the structural pass) and for PyIndex on small
// in-memory trees: imports, __all__, classes, decorators, aliases, calls and
// operators, the torch_function preamble, and resolution through packages.
#include <chrono>
#include <sstream>

#include <gtest/gtest.h>

#include "py/py_index.h"

namespace optrace {
namespace {

const PyFunction* Fn(const PyModule& m, std::string_view qualname) {
  for (const auto& f : m.functions)
    if (f.qualname == qualname) return &f;
  return nullptr;
}
const PyClass* Cls(const PyModule& m, std::string_view qualname) {
  for (const auto& c : m.classes)
    if (c.qualname == qualname) return &c;
  return nullptr;
}
const PyAlias* Alias(const PyModule& m, std::string_view name) {
  for (const auto& a : m.aliases)
    if (a.name == name) return &a;
  return nullptr;
}
std::string Target(const PyModule& m, std::string_view local) {
  for (const auto& i : m.imports)
    if (i.local == local) return i.target;
  return "<none>";
}
// "callee@line" for each call/operator, space-separated.
std::string Calls(const PyFunction& f, bool operators = true) {
  std::string out;
  for (const auto& c : f.calls) {
    if (!operators && c.kind == PyCallKind::kOperator) continue;
    if (!out.empty()) out += ' ';
    out += c.callee + "@" + std::to_string(c.line);
  }
  return out;
}

TEST(ModuleNameForPath, PathsAndPackages) {
  EXPECT_EQ(ModuleNameForPath("torch/nn/modules/rnn.py"), "torch.nn.modules.rnn");
  EXPECT_EQ(ModuleNameForPath("torch/nn/__init__.py"), "torch.nn");
  EXPECT_EQ(ModuleNameForPath("./torch/_refs/__init__.py"), "torch._refs");
  EXPECT_EQ(ModuleNameForPath("foo.py"), "foo");
}

TEST(PyScan, Imports) {
  PyModule m = ScanPyFile("torch.nn.modules.rnn", "torch/nn/modules/rnn.py",
                          "import a.b as c\n"
                          "import os.path, sys\n"
                          "from x import y as z, w\n"
                          "from .module import Module\n"
                          "from .. import functional as F\n"
                          "from ..functional import (relu,\n    gelu as g)\n"
                          "from ...utils import hooks\n"
                          "from .modules import *\n");
  EXPECT_EQ(Target(m, "c"), "a.b");
  EXPECT_EQ(Target(m, "os"), "os");
  EXPECT_EQ(Target(m, "sys"), "sys");
  EXPECT_EQ(Target(m, "z"), "x.y");
  EXPECT_EQ(Target(m, "w"), "x.w");
  EXPECT_EQ(Target(m, "Module"), "torch.nn.modules.module.Module");
  EXPECT_EQ(Target(m, "F"), "torch.nn.functional");
  EXPECT_EQ(Target(m, "relu"), "torch.nn.functional.relu");
  EXPECT_EQ(Target(m, "g"), "torch.nn.functional.gelu");
  EXPECT_EQ(Target(m, "hooks"), "torch.utils.hooks");
  EXPECT_EQ(Target(m, "*"), "torch.nn.modules.modules");
  EXPECT_EQ(m.imports.back().line, 9u);  // the parenthesised import spans 6-7
}

TEST(PyScan, RelativeImportInPackageInit) {
  PyModule m = ScanPyFile("torch.nn", "torch/nn/__init__.py", "from .modules import *\nfrom . import init\n");
  EXPECT_TRUE(m.is_package);
  EXPECT_EQ(Target(m, "*"), "torch.nn.modules");
  EXPECT_EQ(Target(m, "init"), "torch.nn.init");
}

TEST(PyScan, DunderAllForms) {
  PyModule m = ScanPyFile("p", "p.py",
                          "__all__ = ['a', \"b\"]\n__all__ += ('c',)\n__all__.extend(['d'])\n__all__.append('e')\n");
  EXPECT_EQ(m.all, (std::vector<std::string>{"a", "b", "c", "d", "e"}));
  EXPECT_FALSE(m.all_dynamic);
  PyModule d = ScanPyFile("p", "p.py", "__all__ = ['a'] + other.__all__\nfor n in x:\n    __all__.append(n)\n");
  EXPECT_EQ(d.all, std::vector<std::string>{"a"});
  EXPECT_TRUE(d.all_dynamic);
}

TEST(PyScan, ClassesBasesAndMethods) {
  PyModule m = ScanPyFile("torch.nn.modules.rnn", "torch/nn/modules/rnn.py",
                          "from .module import Module\n"
                          "import torch\n"
                          "class RNNBase(Module):\n"
                          "    def forward(self, x): pass\n"
                          "class LSTM(RNNBase, metaclass=Meta):\n"
                          "    class Inner(object):\n"
                          "        def deep(self): pass\n"
                          "    @overload\n"
                          "    def forward(self, input: Tensor, hx=None, *args, **kw) -> Tensor: ...\n"
                          "class F(torch.autograd.Function, Generic[T]): pass\n");
  const PyClass* base = Cls(m, "RNNBase");
  ASSERT_TRUE(base);
  EXPECT_EQ(base->resolved_bases, std::vector<std::string>{"torch.nn.modules.module.Module"});
  const PyClass* lstm = Cls(m, "LSTM");
  ASSERT_TRUE(lstm);
  EXPECT_EQ(lstm->line, 5u);
  EXPECT_EQ(lstm->bases, std::vector<std::string>{"RNNBase"});  // metaclass= is not a base
  EXPECT_EQ(lstm->resolved_bases, std::vector<std::string>{"torch.nn.modules.rnn.RNNBase"});
  ASSERT_TRUE(Cls(m, "LSTM.Inner"));
  EXPECT_EQ(Cls(m, "LSTM.Inner")->resolved_bases, std::vector<std::string>{""});  // builtin
  const PyFunction* deep = Fn(m, "LSTM.Inner.deep");
  ASSERT_TRUE(deep);
  EXPECT_TRUE(deep->is_method);
  EXPECT_EQ(m.classes[deep->class_index].qualname, "LSTM.Inner");
  const PyFunction* fwd = Fn(m, "LSTM.forward");
  ASSERT_TRUE(fwd);
  EXPECT_EQ(fwd->line, 9u);
  EXPECT_EQ(fwd->params, (std::vector<std::string>{"self", "input", "hx", "args", "kw"}));
  ASSERT_EQ(fwd->decorators.size(), 1u);
  EXPECT_EQ(fwd->decorators[0].name, "overload");
  EXPECT_EQ(fwd->decorators[0].line, 8u);
  const PyClass* f = Cls(m, "F");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->bases, (std::vector<std::string>{"torch.autograd.Function", "Generic[T]"}));
  EXPECT_EQ(f->resolved_bases, (std::vector<std::string>{"torch.autograd.Function", ""}));
}

TEST(PyScan, DecoratorsWithArgumentsOverSeveralLines) {
  PyModule m = ScanPyFile("d", "d.py",
                          "@register_decomposition([aten.x.default,\n"
                          "                         aten.x.out])\n"
                          "@out_wrapper()\n"
                          "@aten.matmul.default.py_impl(DispatchKey.CompositeImplicitAutograd)\n"
                          "@torch.jit.script\n"
                          "@elementwise_type_promotion_wrapper(\n"
                          "    type_promoting_args=(\"a\", \"b\"),\n"
                          "    type_promotion_kind=K.DEFAULT,\n"
                          ")\n"
                          "async def f(a, b):\n"
                          "    await g(a)\n");
  const PyFunction* f = Fn(m, "f");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->line, 10u);
  ASSERT_EQ(f->decorators.size(), 5u);
  EXPECT_EQ(f->decorators[0].name, "register_decomposition");
  EXPECT_EQ(f->decorators[0].args, std::vector<std::string>{"[aten.x.default, aten.x.out]"});
  EXPECT_EQ(f->decorators[0].line, 1u);
  EXPECT_EQ(f->decorators[1].name, "out_wrapper");
  EXPECT_TRUE(f->decorators[1].args.empty());
  EXPECT_EQ(f->decorators[2].name, "aten.matmul.default.py_impl");
  EXPECT_EQ(f->decorators[2].args, std::vector<std::string>{"DispatchKey.CompositeImplicitAutograd"});
  EXPECT_EQ(f->decorators[3].name, "torch.jit.script");
  EXPECT_EQ(f->decorators[3].text, "torch.jit.script");
  EXPECT_EQ(f->decorators[4].args,
            (std::vector<std::string>{"type_promoting_args=(\"a\", \"b\")", "type_promotion_kind=K.DEFAULT"}));
  EXPECT_EQ(Calls(*f), "g@11");
}

TEST(PyScan, ModuleLevelAliases) {
  PyModule m = ScanPyFile("torch.nn.functional", "torch/nn/functional.py",
                          "conv2d = _add_docstr(\n"
                          "    torch.conv2d,\n"
                          "    r\"\"\"\n"
                          "conv2d(input) -> Tensor\n"
                          "\"\"\",\n"
                          ")\n"
                          "max_pool2d = boolean_dispatch(\n"
                          "    arg_name=\"return_indices\",\n"
                          "    arg_index=6,\n"
                          "    default=False,\n"
                          "    if_true=max_pool2d_with_indices,\n"
                          "    if_false=_max_pool2d,\n"
                          ")\n"
                          "old = boolean_dispatch('r', 3, False, _with_indices, _without)\n"
                          "x = torch.y\n"
                          "loss = _reduction.legacy(size_average, reduce)\n"
                          "if TYPE_CHECKING:\n"
                          "    hidden = a.b\n"
                          "try:\n"
                          "    fast = _C._fast\n"
                          "except ImportError:\n"
                          "    fast = None\n"
                          "chained = a = b\n"
                          "n = 3\n");
  const PyAlias* conv = Alias(m, "conv2d");
  ASSERT_TRUE(conv);
  EXPECT_EQ(conv->kind, PyAliasKind::kAddDocstr);
  EXPECT_EQ(conv->target, "torch.conv2d");
  EXPECT_EQ(conv->line, 1u);
  const PyAlias* mp = Alias(m, "max_pool2d");
  ASSERT_TRUE(mp);
  EXPECT_EQ(mp->kind, PyAliasKind::kBooleanDispatch);
  EXPECT_EQ(mp->if_true, "max_pool2d_with_indices");
  EXPECT_EQ(mp->if_false, "_max_pool2d");
  EXPECT_EQ(mp->line, 7u);
  const PyAlias* old = Alias(m, "old");
  ASSERT_TRUE(old);
  EXPECT_EQ(old->if_true, "_with_indices");
  EXPECT_EQ(old->if_false, "_without");
  EXPECT_EQ(Alias(m, "x")->kind, PyAliasKind::kAssign);
  EXPECT_EQ(Alias(m, "x")->target, "torch.y");
  EXPECT_EQ(Alias(m, "loss")->kind, PyAliasKind::kCall);
  EXPECT_EQ(Alias(m, "loss")->target, "_reduction.legacy");
  EXPECT_EQ(Alias(m, "loss")->args, "size_average, reduce");
  ASSERT_TRUE(Alias(m, "hidden"));
  EXPECT_EQ(Alias(m, "hidden")->line, 18u);
  ASSERT_TRUE(Alias(m, "fast"));
  EXPECT_EQ(Alias(m, "fast")->target, "_C._fast");  // `fast = None` is not an alias
  EXPECT_FALSE(Alias(m, "chained"));
  EXPECT_FALSE(Alias(m, "n"));
}

TEST(PyScan, ClassAttributeAliases) {
  PyModule m = ScanPyFile("torch.nn.modules.module", "torch/nn/modules/module.py",
                          "class Module:\n"
                          "    forward: Callable[..., Any] = _forward_unimplemented\n"
                          "    __call__ = _wrapped_call_impl\n");
  const PyAlias* fwd = Alias(m, "forward");
  ASSERT_TRUE(fwd);
  EXPECT_EQ(fwd->class_index, 0);
  EXPECT_EQ(fwd->target, "_forward_unimplemented");
  EXPECT_EQ(fwd->line, 2u);
}

TEST(PyScan, CallsChainsAndOperators) {
  PyModule m = ScanPyFile("c", "c.py",
                          "def f(self, x, w):\n"
                          "    y = F.layer_norm(x, (3,), eps=1e-5)\n"
                          "    z = x.view(a, b).transpose(0, 1)\n"
                          "    s = super().forward(x)\n"
                          "    t = x @ w + 1 - -y ** 2 // 3 % 4 * 5 / 6\n"
                          "    u = x[0][1:]\n"
                          "    v: Optional[Tensor] = g(x)\n"
                          "    msg = 'a %s' % x + 'b'\n"
                          "    x += 1\n"
                          "    ', '.join(names)\n"
                          "    (a + b).sum()\n"
                          "    return torch.ops.aten.add.default(x,\n"
                          "                                      y)\n");
  const PyFunction* f = Fn(m, "f");
  ASSERT_TRUE(f);
  EXPECT_EQ(Calls(*f),
            "F.layer_norm@2 x.view@3 x.view(...).transpose@3 super@4 super().forward@4 "
            "@@5 +@5 -@5 u-@5 **@5 //@5 %@5 *@5 /@5 "
            "[]@6 []@6 g@7 +@8 +=@9 <str>.join@10 +@11 (...).sum@11 torch.ops.aten.add.default@12");
  EXPECT_EQ(f->calls[0].args, "x, (3,), eps=1e-5");
  EXPECT_EQ(f->calls.back().args, "x, y");
  EXPECT_EQ(f->end_line, 13u);
}

TEST(PyScan, LongArgumentsAreCut) {
  std::string src = "def f():\n    g(\"" + std::string(500, 'x') + "\")\n";
  PyModule m = ScanPyFile("c", "c.py", src);
  ASSERT_EQ(m.functions.size(), 1u);
  ASSERT_EQ(m.functions[0].calls.size(), 1u);
  EXPECT_EQ(m.functions[0].calls[0].args.size(), 200u);
  EXPECT_EQ(m.functions[0].calls[0].args.substr(197), "...");
}

TEST(PyScan, NestedDefsAndLambdasOwnTheirCalls) {
  PyModule m = ScanPyFile("c", "c.py",
                          "def outer(x):\n"
                          "    a(x)\n"
                          "    def inner(y):\n"
                          "        return b(y)\n"
                          "    k = sorted(x, key=lambda t: c(t), reverse=True)\n"
                          "    return d(inner)\n");
  EXPECT_EQ(Calls(*Fn(m, "outer")), "a@2 sorted@5 d@6");
  EXPECT_EQ(Calls(*Fn(m, "outer.inner")), "b@4");
  const PyFunction* lam = Fn(m, "outer.<lambda>");
  ASSERT_TRUE(lam);
  EXPECT_EQ(Calls(*lam), "c@5");
  EXPECT_EQ(lam->params, std::vector<std::string>{"t"});
}

TEST(PyScan, TorchFunctionPreamble) {
  PyModule m = ScanPyFile("torch.nn.functional", "torch/nn/functional.py",
                          "def softmax(input, dim=None, _stacklevel=3, dtype=None):\n"
                          "    \"\"\"def fake(): pass\"\"\"\n"
                          "    if has_torch_function_unary(input):\n"
                          "        return handle_torch_function(\n"
                          "            softmax, (input,), input, dim=dim, _stacklevel=_stacklevel, dtype=dtype\n"
                          "        )\n"
                          "    if dim is None:\n"
                          "        dim = _get_softmax_dim('softmax', input.dim(), _stacklevel)\n"
                          "    return input.softmax(dim)\n");
  ASSERT_EQ(m.functions.size(), 1u);  // the def in the docstring is text
  const PyFunction& f = m.functions[0];
  ASSERT_EQ(f.calls.size(), 5u);
  EXPECT_TRUE(f.calls[0].in_preamble);
  EXPECT_TRUE(f.calls[1].in_preamble);
  EXPECT_EQ(f.calls[1].callee, "handle_torch_function");
  EXPECT_EQ(f.calls[1].line, 4u);
  EXPECT_NE(f.calls[1].args.find("_stacklevel=_stacklevel"), std::string::npos);
  EXPECT_FALSE(f.calls[2].in_preamble);
  EXPECT_EQ(f.calls[4].callee, "input.softmax");
  EXPECT_EQ(f.calls[4].line, 9u);
  EXPECT_FALSE(f.calls[4].in_preamble);
}

TEST(PyScan, MatchStatementCasesAreNotCalls) {
  PyModule m = ScanPyFile("c", "c.py",
                          "def f(p):\n"
                          "    match p:\n"
                          "        case Point(x=0):\n"
                          "            g(p)\n"
                          "        case _:\n"
                          "            h()\n"
                          "    match(p)\n");
  EXPECT_EQ(Calls(*Fn(m, "f")), "g@4 h@6 match@7");
}

TEST(PyScan, OneLineBodiesAndLazyImports) {
  PyModule m = ScanPyFile("torch.nn.x", "torch/nn/x.py",
                          "def f(): return g()\n"
                          "class C: pass\n"
                          "def h():\n"
                          "    from torch._decomp import decomposition_table as t\n"
                          "    return t[0](1)\n");
  EXPECT_EQ(Calls(*Fn(m, "f")), "g@1");
  EXPECT_TRUE(Cls(m, "C"));
  const PyFunction* h = Fn(m, "h");
  ASSERT_EQ(h->imports.size(), 1u);
  EXPECT_EQ(h->imports[0].target, "torch._decomp.decomposition_table");
  EXPECT_EQ(Calls(*h), "[]@5 t[...]@5");
}

TEST(PyScan, ErrorsKeepWhatWasFound) {
  PyModule m = ScanPyFile("e", "e.py", "def ok():\n    a()\n\ndef broken():\n    s = '''never closed\n");
  EXPECT_EQ(m.error, "unterminated triple-quoted string literal");
  EXPECT_EQ(m.error_line, 5u);
  ASSERT_TRUE(Fn(m, "ok"));
  EXPECT_EQ(Calls(*Fn(m, "ok")), "a@2");
  EXPECT_TRUE(Fn(m, "broken"));
}

TEST(PyScan, BinaryFileIsRefusedWithReason) {
  std::string bin = "def f():\n";
  bin += '\0';
  PyModule m = ScanPyFile("b", "b.py", bin);
  EXPECT_NE(m.error.find("binary"), std::string::npos);
  EXPECT_TRUE(m.functions.empty());
}

TEST(PyScan, DeepNestingDoesNotRecurseWithoutBound) {
  std::string src;
  for (int i = 0; i < 3000; ++i) src += std::string(i, ' ') + "if a:\n";
  src += std::string(3000, ' ') + "def f(): g()\n";
  src += "def top():\n    lambda: " + std::string(2000, '(') + "\n";
  PyModule m = ScanPyFile("n", "n.py", src);
  EXPECT_TRUE(Fn(m, "top"));
}

// A three-module package in memory: star import with __all__, a re-export,
// an inherited method and decorator lookup.
class PyIndexMemory : public ::testing::Test {
 protected:
  void SetUp() override {
    disk_.Add("torch/__init__.py", "from torch._tensor import Tensor\n");
    disk_.Add("torch/_tensor.py",
              "class Tensor(torch._C.TensorBase):\n    def split(self, n): return torch._VF.split(self, n)\n");
    disk_.Add("torch/nn/__init__.py", "from .modules import *\nfrom . import functional as functional\n");
    disk_.Add("torch/nn/modules/__init__.py",
              "from .activation import ReLU6, Hardtanh\nfrom .hidden import Secret\n__all__ = ['ReLU6', 'Hardtanh']\n");
    disk_.Add("torch/nn/modules/module.py", "class Module:\n    forward = _forward_unimplemented\n");
    disk_.Add("torch/nn/modules/hidden.py", "class Secret: pass\n");
    disk_.Add("torch/nn/modules/activation.py",
              "from .module import Module\n"
              "class Hardtanh(Module):\n    def forward(self, input):\n        return F.hardtanh(input)\n"
              "class ReLU6(Hardtanh):\n    def __init__(self): pass\n");
    disk_.Add("torch/nn/functional.py",
              "conv2d = _add_docstr(torch.conv2d, r'''doc''')\n"
              "@register_decomposition(aten.x)\ndef a(): pass\n"
              "@torch._decomp.register_decomposition(aten.y)\ndef b(): pass\n"
              "@not_register_decomposition\ndef c(): pass\n");
    index_ = PyIndex::Build(disk_, 2);
  }
  MemoryDisk disk_;
  PyIndex index_;
};

TEST_F(PyIndexMemory, ResolvesThroughStarImportsAndReexports) {
  PySymbol relu6 = index_.Resolve("torch.nn.ReLU6");
  ASSERT_EQ(relu6.kind, PySymbol::kClass);
  EXPECT_EQ(index_.NameOf(relu6), "torch.nn.modules.activation.ReLU6");
  // Not in __all__: the star import does not carry it.
  EXPECT_EQ(index_.Resolve("torch.nn.Secret").kind, PySymbol::kNone);
  EXPECT_EQ(index_.Resolve("torch.nn.modules.Secret").kind, PySymbol::kClass);
  EXPECT_EQ(index_.Resolve("torch.nn.functional.conv2d").kind, PySymbol::kAlias);
  EXPECT_EQ(index_.Resolve("torch.nn.modules.activation").kind, PySymbol::kModule);
  EXPECT_EQ(index_.Resolve("torch.nn.Nope").kind, PySymbol::kNone);
  EXPECT_EQ(index_.NameOf(index_.Resolve("torch.Tensor.split")), "torch._tensor.Tensor.split");
}

TEST_F(PyIndexMemory, FindMethodWalksBases) {
  PySymbol relu6 = index_.Resolve("torch.nn.ReLU6");
  auto fwd = index_.FindMethod(relu6.module, relu6.index, "forward");
  ASSERT_TRUE(fwd);
  EXPECT_EQ(index_.NameOf(*fwd), "torch.nn.modules.activation.Hardtanh.forward");
  auto missing = index_.FindMethod(relu6.module, relu6.index, "backward");
  EXPECT_FALSE(missing);
  PySymbol module = index_.Resolve("torch.nn.modules.module.Module");
  auto unimpl = index_.FindMethod(module.module, module.index, "forward");
  ASSERT_TRUE(unimpl);
  EXPECT_EQ(unimpl->kind, PySymbol::kAlias);
  EXPECT_EQ(index_.NameOf(index_.Resolve("torch.nn.ReLU6.forward")), "torch.nn.modules.activation.Hardtanh.forward");
}

TEST_F(PyIndexMemory, DecoratedWithMatchesWholeNameComponents) {
  auto hits = index_.DecoratedWith("register_decomposition");
  ASSERT_EQ(hits.size(), 2u);
  const PyModule& m = index_.modules()[hits[0].first];
  EXPECT_EQ(m.functions[hits[0].second].name, "a");
  EXPECT_EQ(m.functions[hits[1].second].name, "b");
}

TEST_F(PyIndexMemory, ResolveInUsesModuleNames) {
  const PyModule* act = index_.FindModule("torch.nn.modules.activation");
  ASSERT_TRUE(act);
  uint32_t m = static_cast<uint32_t>(act - index_.modules().data());
  EXPECT_EQ(index_.NameOf(index_.ResolveIn(m, "Module")), "torch.nn.modules.module.Module");
  EXPECT_EQ(index_.NameOf(index_.ResolveIn(m, "Hardtanh.forward")), "torch.nn.modules.activation.Hardtanh.forward");
}

TEST_F(PyIndexMemory, CountsPrint) {
  std::ostringstream out;
  PrintPyIndexCounts(index_, out);
  EXPECT_NE(out.str().find("python modules:    8"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("python errors:     0"), std::string::npos) << out.str();
}

// Each operator keeps its operands, extended over tighter operators;
// unary minus and invert are recorded (not before a number literal).
TEST(PyScan, OperatorOperands) {
  PyModule m = ScanPyFile("m", "m.py",
                          "def f(x, C, n):\n"
                          "    hd = C // self.n_head\n"
                          "    y = x * 2 + 1\n"
                          "    z = (-x).softmax(-1) + x.shape[-1] ** 2\n"
                          "    y += a * b\n"
                          "    m = x >= 0 & ~x\n");
  ASSERT_EQ(m.functions.size(), 1u);
  std::vector<std::string> ops;
  for (const PyCall& c : m.functions[0].calls)
    if (c.kind == PyCallKind::kOperator) ops.push_back(c.callee + "|" + c.args);
  EXPECT_EQ(ops,
            (std::vector<std::string>{"//|C\tself.n_head", "*|x\t2", "+|x * 2\t1", "u-|\tx",
                                      "+|(-x).softmax(-1)\tx.shape[-1] ** 2", "[]|x.shape\t-1", "**|x.shape[-1]\t2",
                                      "+=|y\ta * b", "*|a\tb", ">=|x\t0 & ~x", "&|0\t~x", "u~|\tx"}));
}

// Module-level statements record calls only when asked (a user's script).
TEST(PyScan, ModuleCodeOnRequest) {
  const char* text = "import torch\nx = torch.ones(2)\ny = torch.relu(x)\ndef f():\n    return g()\n";
  EXPECT_EQ(ScanPyFile("m", "m.py", text).functions.size(), 1u);
  PyScanOptions options;
  options.module_code = true;
  PyModule m = ScanPyFile("m", "m.py", text, options);
  ASSERT_EQ(m.functions.size(), 2u);
  EXPECT_EQ(m.functions[0].qualname, "<module>");
  EXPECT_EQ(Calls(m.functions[0]), "torch.ones@2 torch.relu@3");
  EXPECT_EQ(Calls(m.functions[1]), "g@5");
}

}  // namespace
}  // namespace optrace

namespace optrace {
namespace {

// Issue 29 item 3: each link of a call chain used to repeat the whole
// receiver before it (x.relu(...).relu(...)...relu): n^2 bytes and time. The
// callee is read back over at most 16 trailers; past them the receiver is
// "(...)". 20,000 links (x.relu() and f(1)(1)... alike) stay small and fast.
TEST(PyScan, ChainedCallsAreLinear) {
  for (const std::string& link : {std::string(".relu()"), std::string("(1)")}) {
    std::string text = "import torch\ndef f(x):\n    return torch.relu(x)";
    for (int i = 0; i < 20000; ++i) text += link;
    text += "\n";
    auto start = std::chrono::steady_clock::now();
    PyModule m = ScanPyFile("m", "m.py", text);
    double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    ASSERT_EQ(m.functions.size(), 1u);
    const auto& calls = m.functions[0].calls;
    ASSERT_EQ(calls.size(), 20001u);
    size_t bytes = 0;
    for (const auto& c : calls) bytes += c.callee.size();
    EXPECT_LT(bytes, 20001u * 128) << link;
    EXPECT_LT(seconds, 5) << link;
    // Short chains keep their receiver as written.
    EXPECT_EQ(calls[0].callee, "torch.relu");
    EXPECT_EQ(calls[1].callee, link == "(1)" ? "torch.relu(...)" : "torch.relu(...).relu");
    EXPECT_EQ(calls.back().callee.substr(0, 5), "(...)");
  }
}

// Item 15: blocks nested past CPython's 100 levels were skipped silently
// (`scan` said "no torch ops found"); the module now says why, with the
// line, and the scan stays linear (5,000 levels took 29 s).
TEST(PyScan, TooDeepNestingIsReportedAndLinear) {
  for (const std::string& header : {std::string("def f{}(x):"), std::string("if x{}:")}) {
    std::string text = "import torch\n";
    for (int i = 0; i < 5000; ++i) {
      std::string h = header;
      h.replace(h.find("{}"), 2, std::to_string(i));
      text += std::string(4 * i, ' ') + h + "\n";
    }
    text += std::string(4 * 5000, ' ') + "return torch.relu(x)\n";
    auto start = std::chrono::steady_clock::now();
    PyModule m = ScanPyFile("m", "m.py", text);
    double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    EXPECT_NE(m.error.find("too many levels of indentation"), std::string::npos) << header << ": " << m.error;
    EXPECT_GE(m.error_line, 100u);
    EXPECT_LT(seconds, 5) << header;
  }
  // 99 levels are fine, and read to the bottom.
  std::string text = "import torch\ndef f(x):\n";
  for (int i = 1; i < 98; ++i) text += std::string(4 * i, ' ') + "if x:\n";
  text += std::string(4 * 98, ' ') + "y = torch.relu(x)\n";
  PyModule m = ScanPyFile("m", "m.py", text);
  EXPECT_EQ(m.error, "");
  bool relu = false;
  for (const auto& f : m.functions)
    for (const auto& c : f.calls) relu = relu || c.callee == "torch.relu";
  EXPECT_TRUE(relu);
}

}  // namespace
}  // namespace optrace
