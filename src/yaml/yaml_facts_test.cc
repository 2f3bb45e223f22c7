// Facts about the real 2.6.0 and 1.13.1 trees, each checked by hand against
// the files (sed -n 'Np'): lines, dispatch tables, implied entries, generated
// variants and derivatives.yaml formulas.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "base/disk.h"
#include "testing/test_util.h"
#include "yaml/yaml_model.h"

namespace optrace {
namespace {

using ::testing::ElementsAre;
using ::testing::Pair;

const YamlModel& ModelOf(const std::string& version) {
  static std::map<std::string, YamlModel> models;
  auto it = models.find(version);
  if (it == models.end()) {
    RealDisk disk(CorpusTree(version));
    YamlModel m;
    Status s = YamlModel::Load(disk, &m);
    EXPECT_TRUE(s.ok()) << s.message();
    it = models.emplace(version, std::move(m)).first;
  }
  return it->second;
}

const NativeFunction& Fn(const YamlModel& m, const std::string& name) {
  const NativeFunction* f = m.Find(name);
  static const NativeFunction kMissing;
  EXPECT_NE(f, nullptr) << name;
  return f ? *f : kMissing;
}

// --- 2.6.0 ------------------------------------------------------------------

TEST(YamlFacts260, LstmInputHasImpliedCompositeImplicit) {
  REQUIRE_CORPUS("2.6.0");
  const auto& f = Fn(ModelOf("2.6.0"), "lstm.input");
  EXPECT_EQ(f.line, 7854);
  EXPECT_TRUE(f.implicit_composite);
  EXPECT_THAT(f.dispatch, ElementsAre(Pair("CompositeImplicitAutograd", "lstm")));
  EXPECT_THAT(f.tags, ElementsAre("nondeterministic_seeded", "pt2_compliant_tag"));
}

TEST(YamlFacts260, SoftmaxOutIsStructured) {
  REQUIRE_CORPUS("2.6.0");
  const auto& f = Fn(ModelOf("2.6.0"), "_softmax.out");
  EXPECT_EQ(f.line, 5559);
  EXPECT_TRUE(f.structured);
  EXPECT_THAT(f.dispatch, ElementsAre(Pair("CPU", "softmax_cpu_out"), Pair("CUDA", "softmax_cuda_out"),
                                      Pair("MPS", "softmax_mps_out")));
  EXPECT_TRUE(f.schema.is_out());
}

TEST(YamlFacts260, AddOutUfuncKernelsAndSplitKeys) {
  REQUIRE_CORPUS("2.6.0");
  const auto& f = Fn(ModelOf("2.6.0"), "add.out");
  EXPECT_EQ(f.line, 575);
  EXPECT_EQ(f.structured_inherits.value_or(""), "TensorIteratorBase");
  EXPECT_THAT(f.ufunc_inner_loop, ElementsAre(Pair("Generic", "add (AllAndComplex, BFloat16, Half, ComplexHalf)"),
                                              Pair("ScalarOnly", "add (Bool)")));
  ASSERT_NE(f.DispatchFor("CPU"), nullptr);
  EXPECT_EQ(*f.DispatchFor("CPU"), "ufunc_add_CPU");
  EXPECT_EQ(*f.DispatchFor("CUDA"), "ufunc_add_CUDA");
  // "SparseCPU, SparseMeta: add_out_sparse_cpu" (line 583) is two entries.
  EXPECT_EQ(*f.DispatchFor("SparseCPU"), "add_out_sparse_cpu");
  EXPECT_EQ(*f.DispatchFor("SparseMeta"), "add_out_sparse_cpu");
  EXPECT_EQ(f.dispatch.front().first, "SparseCPU");
  EXPECT_EQ(f.device_check.value_or(""), "NoCheck");
}

TEST(YamlFacts260, AddTensorDelegatesWithListTags) {
  REQUIRE_CORPUS("2.6.0");
  const auto& f = Fn(ModelOf("2.6.0"), "add.Tensor");
  EXPECT_EQ(f.line, 552);
  EXPECT_EQ(f.structured_delegate.value_or(""), "add.out");
  EXPECT_FALSE(f.implicit_composite);
  EXPECT_THAT(f.variants, ElementsAre("function", "method"));
  EXPECT_THAT(f.tags, ElementsAre("core", "pointwise", "pt2_compliant_tag"));
  EXPECT_EQ(*f.DispatchFor("NestedTensorCUDA"), "NestedTensor_add_Tensor");
  EXPECT_EQ(f.DispatchFor("CPU"), nullptr);  // delegated to add.out
}

TEST(YamlFacts260, LinearExplicitCompositeIsNotImplicit) {
  REQUIRE_CORPUS("2.6.0");
  const auto& f = Fn(ModelOf("2.6.0"), "linear");
  EXPECT_EQ(f.line, 3331);
  EXPECT_EQ(f.python_module.value_or(""), "nn");
  EXPECT_FALSE(f.implicit_composite);
  EXPECT_THAT(f.dispatch,
              ElementsAre(Pair("CompositeImplicitAutograd", "linear"), Pair("NestedTensorCPU", "nested_linear"),
                          Pair("NestedTensorCUDA", "nested_linear"), Pair("MPS", "_mps_linear")));
}

TEST(YamlFacts260, GeneratedFunctionalOfMutableOp) {
  REQUIRE_CORPUS("2.6.0");
  const auto& m = ModelOf("2.6.0");
  const auto& base = Fn(m, "_fused_moving_avg_obs_fq_helper");
  EXPECT_EQ(base.line, 7710);
  const auto& g = Fn(m, "_fused_moving_avg_obs_fq_helper_functional");
  EXPECT_EQ(g.line, 7710);
  EXPECT_EQ(g.autogen_from.value_or(""), "_fused_moving_avg_obs_fq_helper");
  EXPECT_THAT(g.dispatch, ElementsAre(Pair("CompositeExplicitAutograd", "_fused_moving_avg_obs_fq_helper_functional")));
  EXPECT_THAT(g.tags, ElementsAre("generated", "pt2_compliant_tag"));
  const auto& out = Fn(m, "_fused_moving_avg_obs_fq_helper.out");
  EXPECT_THAT(out.dispatch, ElementsAre(Pair("CompositeExplicitAutograd", "_fused_moving_avg_obs_fq_helper_out")));
}

TEST(YamlFacts260, GeneratedOutKeepsViewCopyTagAndBernoulliDefault) {
  REQUIRE_CORPUS("2.6.0");
  const auto& m = ModelOf("2.6.0");
  const auto& t = Fn(m, "transpose_copy.int_out");
  EXPECT_EQ(t.line, 14658);
  EXPECT_THAT(t.tags, ElementsAre("generated", "view_copy", "pt2_compliant_tag"));
  EXPECT_EQ(t.schema.text, "transpose_copy.int_out(Tensor self, int dim0, int dim1, *, Tensor(a!) out) -> Tensor(a!)");
  // bernoulli.p (line 1136) groups with its generated out= only through torchgen's p=0.5 note.
  const auto& b = Fn(m, "bernoulli.float_out");
  EXPECT_EQ(
      b.schema.text,
      "bernoulli.float_out(Tensor self, float p=0.5, *, Generator? generator=None, Tensor(a!) out) -> Tensor(a!)");
  EXPECT_THAT(b.dispatch, ElementsAre(Pair("CompositeExplicitAutograd", "bernoulli_float_out")));
}

TEST(YamlFacts260, MmDelegatesWithCommaKeys) {
  REQUIRE_CORPUS("2.6.0");
  const auto& f = Fn(ModelOf("2.6.0"), "mm");
  EXPECT_EQ(f.line, 4132);
  EXPECT_THAT(f.dispatch, ElementsAre(Pair("SparseCPU", "_sparse_mm"), Pair("SparseCUDA", "_sparse_mm"),
                                      Pair("SparseCsrCPU", "_sparse_csr_mm"), Pair("SparseCsrCUDA", "_sparse_csr_mm"),
                                      Pair("SparseCsrMeta", "_sparse_csr_mm")));
  auto overloads = ModelOf("2.6.0").Overloads("mm");
  ASSERT_GE(overloads.size(), 2u);
  EXPECT_EQ(overloads[0]->name, "mm");
  EXPECT_EQ(overloads[1]->name, "mm.out");
}

TEST(YamlFacts260, DerivativesSoftmaxAndCudnnRnn) {
  REQUIRE_CORPUS("2.6.0");
  const auto& m = ModelOf("2.6.0");
  const DerivativeEntry* d = m.FindDerivative("_softmax");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->line, 2196);
  ASSERT_EQ(d->formulas.size(), 2u);
  EXPECT_EQ(d->formulas[0].inputs, "self");
  EXPECT_EQ(d->formulas[0].formula, "_softmax_backward_data(grad, result, dim, self.scalar_type())");
  EXPECT_EQ(d->formulas[0].line, 2197);
  EXPECT_EQ(d->formulas[1].inputs, "result");
  EXPECT_EQ(d->formulas[1].line, 2198);

  const DerivativeEntry* rnn = m.FindDerivative("_cudnn_rnn");
  ASSERT_NE(rnn, nullptr);
  EXPECT_EQ(rnn->line, 2763);
  EXPECT_EQ(rnn->output_differentiability.value_or(""), "[True, True, True, False, False]");
  ASSERT_EQ(rnn->formulas.size(), 2u);
  EXPECT_EQ(rnn->formulas[0].inputs, "dropout_state");
  EXPECT_EQ(rnn->formulas[0].formula, "non_differentiable");
  EXPECT_EQ(rnn->formulas[1].inputs, "input, hx, cx, weight");
  EXPECT_EQ(rnn->formulas[1].line, 2766);
  EXPECT_EQ(rnn->formulas[1].formula.rfind("_cudnn_rnn_backward_symint(input, weight,", 0), 0u);
}

TEST(YamlFacts260, DerivativeDispatchSections) {
  REQUIRE_CORPUS("2.6.0");
  const DerivativeEntry* d = ModelOf("2.6.0").FindDerivative("chunk");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->line, 401);
  EXPECT_TRUE(d->formulas.empty());
  ASSERT_EQ(d->dispatch_sections.size(), 2u);
  EXPECT_EQ(d->dispatch_sections[0].first, "Default");
  ASSERT_EQ(d->dispatch_sections[0].second.size(), 1u);
  EXPECT_EQ(d->dispatch_sections[0].second[0].formula, "not_implemented(\"chunk\")");
  EXPECT_EQ(d->dispatch_sections[0].second[0].line, 405);
  EXPECT_EQ(d->dispatch_sections[1].first, "AutogradNestedTensor");
  EXPECT_EQ(d->dispatch_sections[1].second[0].line, 407);
  EXPECT_EQ(d->schema.arguments[0].annotation, "a -> *");
  EXPECT_EQ(d->schema.returns[0].type, "Tensor[]");
}

TEST(YamlFacts260, MmDerivativeFormulas) {
  REQUIRE_CORPUS("2.6.0");
  const DerivativeEntry* d = ModelOf("2.6.0").FindDerivative("mm");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->line, 1203);
  ASSERT_EQ(d->formulas.size(), 3u);
  EXPECT_EQ(d->formulas[1].inputs, "mat2");
  EXPECT_EQ(d->formulas[2].formula, "at::mm(self_t, mat2_p) + at::mm(self_p, mat2_t)");
  EXPECT_EQ(ModelOf("2.6.0").FindDerivative("mm.out"), nullptr);
}

TEST(YamlFacts260, InPlaceOpsTakeTheirFunctionalVariantsDerivative) {
  REQUIRE_CORPUS("2.6.0");
  // derivatives.yaml:432 `- name: clamp_min(Tensor self, Scalar min)`, :436
  // `- name: clamp_min.Tensor(Tensor self, Tensor min)`; neither clamp_min_
  // nor clamp_min_.Tensor has an entry of its own.
  const YamlModel& m = ModelOf("2.6.0");
  EXPECT_EQ(m.FindDerivative("clamp_min_.Tensor"), nullptr);
  const DerivativeEntry* d = m.DerivativeOf(Fn(m, "clamp_min_.Tensor"));
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->name, "clamp_min.Tensor");
  EXPECT_EQ(d->line, 436);
  d = m.DerivativeOf(Fn(m, "clamp_min_"));  // Scalar min: the Scalar overload's entry
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->line, 432);
  EXPECT_EQ(m.DerivativeOf(Fn(m, "clamp_min.out")), nullptr);  // out= ops refuse autograd
  EXPECT_EQ(m.DerivativeOf(Fn(m, "mm")), m.FindDerivative("mm"));
}

TEST(YamlFacts260, AViewCopyOpIsItsViewsCopy) {
  REQUIRE_CORPUS("2.6.0");
  // native_functions.yaml:14624 split_with_sizes_copy pairs with :5607 split_with_sizes (whose self
  // is `Tensor(a -> *)`, returning `Tensor(a)[]`); view_copy.dtype with view.dtype. derivatives.yaml
  // has no diagonal_copy entry: :572 diagonal's differentiates it.
  const YamlModel& m = ModelOf("2.6.0");
  const NativeFunction* view = m.ViewOfCopy(Fn(m, "split_with_sizes_copy"));
  ASSERT_NE(view, nullptr);
  EXPECT_EQ(view->line, 5607);
  ASSERT_NE(m.ViewOfCopy(Fn(m, "view_copy.dtype")), nullptr);
  EXPECT_EQ(m.ViewOfCopy(Fn(m, "view_copy.dtype"))->name, "view.dtype");
  EXPECT_EQ(m.FindDerivative("diagonal_copy"), nullptr);
  const DerivativeEntry* d = m.DerivativeOf(Fn(m, "diagonal_copy"));
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->line, 572);
  EXPECT_EQ(m.ViewOfCopy(Fn(m, "index_copy")), nullptr);  // no view named index
}

// --- 1.13.1 -----------------------------------------------------------------

TEST(YamlFacts1131, LstmInputAndSoftmaxOut) {
  REQUIRE_CORPUS("1.13.1");
  const auto& m = ModelOf("1.13.1");
  const auto& lstm = Fn(m, "lstm.input");
  EXPECT_EQ(lstm.line, 6757);
  EXPECT_THAT(lstm.dispatch, ElementsAre(Pair("CompositeImplicitAutograd", "lstm")));
  EXPECT_TRUE(lstm.tags.empty());  // 1.13.1's tags.yaml has no pt2_compliant_tag
  const auto& softmax = Fn(m, "_softmax.out");
  EXPECT_EQ(softmax.line, 4759);
  EXPECT_TRUE(softmax.structured);
  EXPECT_EQ(*softmax.DispatchFor("CUDA"), "softmax_cuda_out");
}

TEST(YamlFacts1131, AddOut) {
  REQUIRE_CORPUS("1.13.1");
  const auto& f = Fn(ModelOf("1.13.1"), "add.out");
  EXPECT_EQ(f.line, 504);
  EXPECT_EQ(*f.DispatchFor("CPU"), "ufunc_add_CPU");
  EXPECT_EQ(*f.DispatchFor("CUDA"), "ufunc_add_CUDA");
  EXPECT_EQ(*f.DispatchFor("SparseCsrCPU"), "add_out_sparse_csr_cpu");
}

TEST(YamlFacts1131, MmCommaKeys) {
  REQUIRE_CORPUS("1.13.1");
  const auto& f = Fn(ModelOf("1.13.1"), "mm");
  EXPECT_EQ(f.line, 3561);
  EXPECT_THAT(f.dispatch, ElementsAre(Pair("SparseCPU", "_sparse_mm"), Pair("SparseCUDA", "_sparse_mm"),
                                      Pair("SparseCsrCPU", "_sparse_csr_mm"), Pair("SparseCsrCUDA", "_sparse_csr_mm")));
}

TEST(YamlFacts1131, GeneratedTagsFollowTheOldRules) {
  REQUIRE_CORPUS("1.13.1");
  const auto& m = ModelOf("1.13.1");
  const auto& g = Fn(m, "_fused_moving_avg_obs_fq_helper_functional");
  EXPECT_EQ(g.line, 6617);
  EXPECT_THAT(g.tags, ElementsAre("generated"));
  const auto& b = Fn(m, "bernoulli.float_out");
  EXPECT_THAT(b.tags, ElementsAre("generated", "nondeterministic_seeded"));
  // bernoulli.p (line 980) had no dispatch table in 1.13.1.
  const auto& p = Fn(m, "bernoulli.p");
  EXPECT_EQ(p.line, 980);
  EXPECT_TRUE(p.implicit_composite);
}

TEST(YamlFacts1131, Derivatives) {
  REQUIRE_CORPUS("1.13.1");
  const auto& m = ModelOf("1.13.1");
  const DerivativeEntry* d = m.FindDerivative("_softmax");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->line, 1989);
  const DerivativeEntry* rnn = m.FindDerivative("_cudnn_rnn");
  ASSERT_NE(rnn, nullptr);
  EXPECT_EQ(rnn->line, 2628);
  EXPECT_EQ(rnn->output_differentiability.value_or(""), "[True, True, True, False, False]");
  const DerivativeEntry* select = m.FindDerivative("select.int");
  ASSERT_NE(select, nullptr);
  EXPECT_EQ(select->line, 1388);
  ASSERT_EQ(select->dispatch_sections.size(), 2u);
  EXPECT_EQ(select->dispatch_sections[0].second[1].inputs, "result");
  EXPECT_EQ(select->dispatch_sections[0].second[1].formula, "auto_linear");
  EXPECT_EQ(m.release(), "1.13.0a0");
}

}  // namespace
}  // namespace optrace
