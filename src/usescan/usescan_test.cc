// `optrace scan` on the example user files of tests/data/scan against the
// real 2.6.0 tree: ops, their lines, Function forward/backward, classification.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "base/json.h"
#include "index/index.h"
#include "testing/test_tree_index.h"
#include "testing/test_util.h"
#include "usescan/usescan.h"

namespace optrace {
namespace {

using ::testing::HasSubstr;

// The 2.6.0 index through this binary's own store (test_tree_index.h).
const Index& CorpusIndex() { return TreeIndex("2.6.0"); }

std::string DataPath(const std::string& name) {
  std::string here = __FILE__;
  return here.substr(0, here.rfind("/src/")) + "/tests/data/scan/" + name;
}

ScanReport Scan(const std::string& name, Status* status = nullptr) {
  std::ifstream in(DataPath(name));
  std::stringstream buf;
  buf << in.rdbuf();
  ScanReport r;
  Status s = ScanUserFile(CorpusIndex(), name, buf.str(), &r);
  if (status) *status = s;
  return r;
}

const ScanOp* Op(const ScanReport& r, const std::string& query) {
  for (const ScanOp& op : r.ops)
    if (op.query == query) return &op;
  return nullptr;
}
std::vector<uint32_t> Lines(const ScanOp* op, const std::string& how_prefix = "") {
  std::vector<uint32_t> out;
  if (!op) return out;
  for (const ScanUse& u : op->uses)
    if (u.how.rfind(how_prefix, 0) == 0 && (out.empty() || out.back() != u.line)) out.push_back(u.line);
  return out;
}
const ScanFunction* Fn(const ScanReport& r, const std::string& q) {
  for (const ScanFunction& f : r.functions)
    if (f.qualname == q) return &f;
  return nullptr;
}
using V = std::vector<uint32_t>;
using S = std::vector<std::string>;

TEST(UseScan, TransformerOpsLinesAndKinds) {
  REQUIRE_CORPUS("2.6.0");
  Status s;
  ScanReport r = Scan("transformer.py", &s);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(r.modules, (S{"RMSNorm", "Attention", "Block"}));
  EXPECT_EQ(Lines(Op(r, "Tensor.pow")), V{16});
  EXPECT_EQ(Lines(Op(r, "Tensor.mean")), V{16});
  EXPECT_EQ(Lines(Op(r, "torch.rsqrt")), V{17});
  EXPECT_EQ(Lines(Op(r, "Tensor.__add__")), (V{17, 57, 58}));
  EXPECT_EQ(Lines(Op(r, "Tensor.__matmul__")), (V{37, 38}));
  EXPECT_EQ(Lines(Op(r, "Tensor.__truediv__")), V{37});
  EXPECT_EQ(Lines(Op(r, "F.scaled_dot_product_attention")), V{35});
  EXPECT_EQ(Lines(Op(r, "Tensor.softmax")), V{38});
  EXPECT_EQ(Lines(Op(r, "Tensor.transpose")), (V{29, 37, 39}));
  EXPECT_EQ(Lines(Op(r, "nn.Linear"), "layer"), (V{32, 40}));
  EXPECT_EQ(Lines(Op(r, "nn.Linear"), "built"), (V{24, 25, 53, 54}));
  EXPECT_EQ(Lines(Op(r, "F.gelu")), V{44});
  EXPECT_EQ(Op(r, "Tensor.__getitem__"), nullptr);  // q.shape[-1] is no tensor subscript
  // Classification from the 2.6.0 YAML (rsqrt: native_functions.yaml:5156, tags [core, pointwise]).
  EXPECT_EQ(Op(r, "torch.rsqrt")->category, "pointwise");
  EXPECT_THAT(Op(r, "torch.rsqrt")->basis, HasSubstr("native_functions.yaml:5156"));
  EXPECT_EQ(Op(r, "Tensor.mean")->category, "reduction");  // mean.dim at 3947 takes keepdim
  EXPECT_THAT(Op(r, "Tensor.mean")->basis, HasSubstr("native_functions.yaml:3947"));
  EXPECT_EQ(Op(r, "Tensor.transpose")->category, "view/shape");
  EXPECT_EQ(Op(r, "F.scaled_dot_product_attention")->category, "attention");
  EXPECT_TRUE(Op(r, "F.scaled_dot_product_attention")->needs_trace);
  EXPECT_EQ(Op(r, "nn.Linear")->category, "matmul/BLAS");
  EXPECT_EQ(Op(r, "nn.Linear")->resolved, "torch.nn.modules.linear.Linear");
  EXPECT_TRUE(Op(r, "Tensor.__matmul__")->inferred);
  EXPECT_FALSE(Op(r, "torch.rsqrt")->needs_trace);
  // forward follows the file's own helpers and sub-modules.
  ASSERT_NE(Fn(r, "Block.forward"), nullptr);
  EXPECT_EQ(Fn(r, "Block.forward")->calls, (S{"Attention.forward", "RMSNorm.forward", "gelu_mlp"}));
  EXPECT_EQ(Fn(r, "Attention._split")->role, "helper");
  // Parameters called as functions and **kwargs are listed, not guessed.
  ASSERT_EQ(r.unresolved.size(), 3u);
  EXPECT_EQ(r.unresolved[2].line, 57u);
  EXPECT_THAT(r.unresolved[2].reason, HasSubstr("**kwargs"));
}

TEST(UseScan, TraceQueriesCarryTheFilesLiteralArguments) {
  REQUIRE_CORPUS("2.6.0");
  ScanReport r = Scan("transformer.py");
  // transformer.py:35 `F.scaled_dot_product_attention(q, k, v, is_causal=True)`: its one call.
  ASSERT_NE(Op(r, "F.scaled_dot_product_attention"), nullptr);
  EXPECT_EQ(TraceQueryOf(*Op(r, "F.scaled_dot_product_attention")),
            "F.scaled_dot_product_attention(q, k, v, is_causal=True)");
  // nn.Linear is built with different arguments (:24 bias=False, :53 none): no one call to trace.
  EXPECT_EQ(TraceQueryOf(*Op(r, "nn.Linear")), "nn.Linear");
  // F.gelu(up(x)) (:44) passes nothing literal: the plain query.
  EXPECT_EQ(TraceQueryOf(*Op(r, "F.gelu")), "F.gelu");
}

TEST(UseScan, CnnSequentialChildren) {
  REQUIRE_CORPUS("2.6.0");
  ScanReport r = Scan("cnn.py");
  EXPECT_EQ(Op(r, "nn.Sequential"), nullptr);  // a container runs no op of its own
  EXPECT_EQ(Lines(Op(r, "nn.Conv2d")), (V{10, 18}));
  EXPECT_EQ(Lines(Op(r, "nn.BatchNorm2d")), (V{11, 18}));
  EXPECT_EQ(Lines(Op(r, "nn.ReLU")), (V{12, 18}));
  EXPECT_EQ(Lines(Op(r, "nn.MaxPool2d")), (V{13, 18}));
  EXPECT_EQ(Lines(Op(r, "torch.flatten")), V{19});
  EXPECT_EQ(Op(r, "nn.Conv2d")->category, "convolution");
  EXPECT_EQ(Op(r, "nn.BatchNorm2d")->category, "normalization");
  EXPECT_EQ(Op(r, "nn.ReLU")->category, "pointwise");  // ReLU.forward calls F.relu; relu is tagged pointwise
  EXPECT_EQ(Op(r, "torch.flatten")->category, "view/shape");
  ASSERT_EQ(r.layers.size(), 5u);
  EXPECT_EQ(r.layers[0].container, "features");
}

TEST(UseScan, LstmTagger) {
  REQUIRE_CORPUS("2.6.0");
  ScanReport r = Scan("lstm_tagger.py");
  EXPECT_EQ(Lines(Op(r, "nn.Embedding")), (V{10, 15}));
  EXPECT_EQ(Lines(Op(r, "nn.LSTM")), (V{11, 15}));
  EXPECT_EQ(Lines(Op(r, "F.log_softmax")), V{16});
  EXPECT_EQ(Lines(Op(r, "F.nll_loss")), V{20});
  EXPECT_EQ(Op(r, "nn.LSTM")->category, "RNN");
  EXPECT_EQ(Op(r, "nn.Embedding")->category, "indexing");  // embedding(weight, indices)
  EXPECT_EQ(Op(r, "F.nll_loss")->category, "loss");
  ASSERT_EQ(r.unresolved.size(), 1u);
  EXPECT_EQ(r.unresolved[0].line, 23u);  // getattr(opt, "step")
}

TEST(UseScan, AutogradFunctionForwardBackwardSeparate) {
  REQUIRE_CORPUS("2.6.0");
  ScanReport r = Scan("autograd_fn.py");
  ASSERT_EQ(r.autograd.size(), 1u);
  EXPECT_EQ(r.autograd[0].name, "ScaledTanh");
  ASSERT_EQ(r.autograd[0].applied.size(), 1u);
  EXPECT_EQ(r.autograd[0].applied[0].line, 21u);
  const ScanFunction* fwd = Fn(r, "ScaledTanh.forward");
  const ScanFunction* bwd = Fn(r, "ScaledTanh.backward");
  ASSERT_TRUE(fwd && bwd);
  EXPECT_EQ(fwd->role, "autograd forward");
  EXPECT_EQ(fwd->ops, (S{"torch.tanh", "Tensor.__mul__"}));
  EXPECT_EQ(fwd->save_for_backward, V{10});
  EXPECT_EQ(bwd->role, "autograd backward");
  EXPECT_EQ(bwd->ops, (S{"Tensor.__mul__", "Tensor.__rsub__"}));  // 1 - y * y: int.__sub__ gives way to y's
  EXPECT_EQ(bwd->saved_tensors, V{16});
  EXPECT_EQ(Lines(Op(r, "Tensor.sum")), V{26});
}

// Issue 27 on a LLaMA-style block: unary minus (-x2, line 22), reflected
// operators (1.0 / ..., theta ** ..., line 26), an augmented one (y *= 2.0,
// line 48); x.float() and y.half() are aten::to, copies like y.to(...) and
// .contiguous() after transpose (not aliases); C = self.proj.in_features is
// nn.Linear's int (linear.py annotates `in_features: int`), so C // self.n_heads
// (line 40) is no tensor op at all.
TEST(UseScan, EveryOperatorFormConversionsAndLayerInts) {
  REQUIRE_CORPUS("2.6.0");
  ScanReport r = Scan("llama_block.py");
  EXPECT_EQ(Lines(Op(r, "Tensor.__neg__")), V{22});
  EXPECT_EQ(Lines(Op(r, "Tensor.__rtruediv__")), V{26});
  EXPECT_EQ(Lines(Op(r, "Tensor.__rpow__")), V{26});
  EXPECT_EQ(Lines(Op(r, "Tensor.__truediv__")), (V{26, 49}));  // arange(...).float() / dim; self.out(y) / hd
  EXPECT_EQ(Lines(Op(r, "Tensor.__imul__")), V{48});
  EXPECT_EQ(Lines(Op(r, "Tensor.float")), (V{16, 26}));
  EXPECT_EQ(Lines(Op(r, "Tensor.half")), V{47});
  for (const char* copy : {"Tensor.float", "Tensor.half", "Tensor.to", "Tensor.contiguous", "Tensor.type_as"}) {
    ASSERT_NE(Op(r, copy), nullptr) << copy;
    EXPECT_EQ(Op(r, copy)->category, "copy") << copy;
    EXPECT_FALSE(Op(r, copy)->needs_trace) << copy;
  }
  EXPECT_EQ(Op(r, "Tensor.transpose")->category, "view/shape");
  EXPECT_EQ(Op(r, "Tensor.__floordiv__"), nullptr);
  EXPECT_EQ(Op(r, "Tensor.__rfloordiv__"), nullptr);
  EXPECT_TRUE(r.unresolved.empty()) << r.unresolved[0].text;
}

TEST(UseScan, NoTorchAndBrokenFiles) {
  REQUIRE_CORPUS("2.6.0");
  ScanReport r;
  EXPECT_EQ(ScanUserFile(CorpusIndex(), "plain.py", "def f(x):\n    return x + 1\n", &r).code(), ExitCode::kNotFound);
  Status s = ScanUserFile(CorpusIndex(), "bin.py", std::string("\0\x01\x02", 3), &r);
  EXPECT_EQ(s.code(), ExitCode::kSource);
  // Calling the module itself threw out_of_range (found by verify_input_fuzz).
  ScanReport called;
  EXPECT_EQ(ScanUserFile(CorpusIndex(), "m.py", "import torch\ntorch()\ny = torch.relu(x)\n", &called).code(),
            ExitCode::kOk);
}

// Issue 29 item 3: a chain of 4,000 .relu() gave 4.5 MB of scan output per
// 800 links (the receiver repeated per link); the report now stays small.
TEST(UseScan, LongCallChainStaysSmall) {
  REQUIRE_CORPUS("2.6.0");
  std::string text = "import torch\ndef f(x):\n    return x";
  for (int i = 0; i < 4000; ++i) text += ".relu()";
  text += "\n";
  ScanReport r;
  ASSERT_TRUE(ScanUserFile(CorpusIndex(), "chain.py", text, &r).ok());
  EXPECT_LT(DumpJson(ScanToJson(r, {})).size(), 100000u);
}

// Only tensor expressions become ops: int arithmetic on shapes and on
// attributes set from ints, metadata (size, dim, shape) and a set's add are
// none; tensor operators next to them still are.
TEST(UseScan, IntArithmeticAndMetadataAreNoTensorOps) {
  REQUIRE_CORPUS("2.6.0");
  ScanReport r = Scan("scalars.py");
  for (const char* none :
       {"Tensor.__floordiv__", "Tensor.__mod__", "Tensor.__getitem__", "Tensor.__iadd__", "Tensor.size", "Tensor.add"})
    EXPECT_EQ(Op(r, none), nullptr) << none;
  EXPECT_EQ(Lines(Op(r, "Tensor.__mul__")), (V{28, 30}));  // not line 23's x.shape[-1] * 2
  EXPECT_EQ(Lines(Op(r, "Tensor.__add__")), V{30});        // not line 23's int sum
  EXPECT_EQ(Lines(Op(r, "Tensor.__truediv__")), V{29});
  EXPECT_EQ(Lines(Op(r, "Tensor.__matmul__")), V{28});
  EXPECT_EQ(Lines(Op(r, "Tensor.split")), V{21});
  EXPECT_EQ(Lines(Op(r, "Tensor.view")), V{22});
  for (const ScanUnresolved& u : r.unresolved) EXPECT_NE(u.text, "x.dim");  // metadata, not an unknown call
}

// A layer is traced whatever the category of its forward's first op.
TEST(UseScan, LayersAreTraced) {
  REQUIRE_CORPUS("2.6.0");
  ScanReport r = Scan("scalars.py");
  const ScanOp* emb = Op(r, "nn.Embedding");
  ASSERT_NE(emb, nullptr);
  EXPECT_TRUE(emb->needs_trace);
  EXPECT_EQ(emb->resolved, "torch.nn.modules.sparse.Embedding");
}

// Every layer torch.nn exports (torch/nn/modules/__init__.py __all__, 161
// names in 2.6.0) but the containers is a module and traced, whatever its name or its forward's first op has in
// common with a category (Embedding and indexing, Softmax, Identity, the
// Pad and Pool classes): built and called the way a model does it.
TEST(UseScan, EveryNnLayerIsAModuleAndTraced) {
  REQUIRE_CORPUS("2.6.0");
  const Index& ix = CorpusIndex();
  std::vector<std::string> names;
  for (const PyModule& m : ix.py.modules())
    if (m.name == "torch.nn.modules") names = m.all;
  ASSERT_GT(names.size(), 100u);
  std::string init, forward;
  for (size_t i = 0; i < names.size(); ++i) {
    init += "        self.m" + std::to_string(i) + " = nn." + names[i] + "()\n";
    forward += "        x = self.m" + std::to_string(i) + "(x)\n";
  }
  std::string text =
      "import torch.nn as nn\nclass M(nn.Module):\n    def __init__(self):\n        super().__init__()\n" + init +
      "    def forward(self, x):\n" + forward + "        return x\n";
  ScanReport r;
  ASSERT_TRUE(ScanUserFile(ix, "layers.py", text, &r).ok());
  std::set<std::string> missing(names.begin(), names.end());
  for (const ScanOp& op : r.ops) {
    if (!op.query.starts_with("nn.")) continue;
    missing.erase(op.query.substr(3));
    EXPECT_EQ(op.kind, ScanOpKind::kModule) << op.query << " filed as " << op.category;
    EXPECT_TRUE(op.needs_trace) << op.query << " (" << op.category << ") is not traced";
  }
  // Containers (torch/nn/modules/container.py) are not ops: a Sequential
  // stands for its children (CnnSequentialChildren), a ModuleList is not called.
  for (const PyModule& m : ix.py.modules())
    if (m.name == "torch.nn.modules.container")
      for (const PyClass& c : m.classes) missing.erase(c.name);
  EXPECT_THAT(missing, ::testing::IsEmpty());
}

// Module-level statements of a script are scanned (a function "<module>").
TEST(UseScan, ModuleLevelCodeIsScanned) {
  REQUIRE_CORPUS("2.6.0");
  ScanReport r = Scan("scalars.py");
  EXPECT_EQ(Lines(Op(r, "torch.relu")), V{34});
  EXPECT_EQ(Lines(Op(r, "torch.randn")), V{33});
  const ScanFunction* top = Fn(r, "<module>");
  ASSERT_NE(top, nullptr);
  EXPECT_EQ(top->role, "module level");
  Status s;
  ScanReport one;
  s = ScanUserFile(CorpusIndex(), "top.py", "import torch\nx = torch.ones(2)\ny = torch.relu(x)\n", &one);
  EXPECT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(Lines(Op(one, "torch.relu")), V{3});
  EXPECT_EQ(ScanUserFile(CorpusIndex(), "empty.py", "", &one).code(), ExitCode::kNotFound);
}

// The scan is linear in the file: four times the classes cost about four
// times the work (the quadratic scan did ~16 times: name lookups, nested
// function marking and use de-duplication each walked every record).
TEST(UseScan, WorkGrowsLinearlyWithTheFile) {
  REQUIRE_CORPUS("2.6.0");
  std::ifstream in(DataPath("transformer.py"));
  std::stringstream buf;
  buf << in.rdbuf();
  const std::string text = buf.str();
  const size_t cut = text.find("\nclass RMSNorm");
  auto copies = [&](int n) {
    std::string out = text.substr(0, cut);
    for (int i = 0; i < n; ++i) {
      std::string body = text.substr(cut);
      for (const char* name : {"RMSNorm", "Attention", "Block", "gelu_mlp"}) {
        std::string from = name, to = from + std::to_string(i);
        for (size_t at = body.find(from); at != std::string::npos; at = body.find(from, at + to.size()))
          body.replace(at, from.size(), to);
      }
      out += body;
    }
    return out;
  };
  ScanReport small, large;
  ASSERT_TRUE(ScanUserFile(CorpusIndex(), "x.py", copies(100), &small).ok());
  ASSERT_TRUE(ScanUserFile(CorpusIndex(), "x.py", copies(400), &large).ok());
  ASSERT_GT(small.work, 0u);
  EXPECT_LT(large.work, small.work * 5) << small.work << " -> " << large.work;
  EXPECT_EQ(Lines(Op(large, "Tensor.__matmul__")).size(), 400u * 2);
}

// A line of a megabyte (one long identifier) in a module's __init__, a loop and a class body: each
// pattern scan reads these lines with used std::regex, which recursed once per character and
// overflowed the stack (bounded_regex.h). The file is scanned; its ordinary line still is.
TEST(UseScan, AMegabyteLineIsScannedWithoutOverflowingTheStack) {
  REQUIRE_CORPUS("2.6.0");
  const std::string name(1 << 20, 'a');
  const std::string text = "import torch\nclass M(torch.nn.Module):\n    " + name +
                           ": int = 3\n"
                           "    def __init__(self):\n        super().__init__()\n        self." +
                           name + " = torch.nn.Linear(3, 3)\n        for " + name +
                           " in self.layers:\n            pass\n"
                           "    def forward(self, x):\n        return torch.relu(x)\n";
  ScanReport r;
  ASSERT_TRUE(ScanUserFile(CorpusIndex(), "long.py", text, &r).ok());
  EXPECT_EQ(Lines(Op(r, "torch.relu")), std::vector<uint32_t>{10});
}

}  // namespace
}  // namespace optrace
