// The join's rules on small hand-made traces and runs (no torch, no tree):
// overloads told apart by the dispatch mode, the dispatch rule for
// implementations, unexplained ops with their nearest traced op, setup code
// kept apart, CUDA kernels matched by identifier and by library; and the
// observed document read back as written.
#include <gtest/gtest.h>

#include "verify/python_run.h"
#include "verify/verify.h"

namespace optrace {
namespace {

const StaticMark* Mark(const QueryVerification& q, const std::string& kind, const std::string& name) {
  for (const auto& m : q.marks) {
    if (m.kind == kind && m.name == name) return &m;
  }
  return nullptr;
}

std::vector<std::string> Names(const std::vector<RuntimeItem>& items) {
  std::vector<std::string> out;
  for (const auto& i : items) out.push_back(i.name + "@" + i.nearest);
  return out;
}

// softmax.int (composite) -> _softmax (CPU, CUDA, a stub and a CUDA kernel).
Trace SoftmaxTrace() {
  Trace t;
  t.query = "F.softmax";
  OpStep softmax;
  softmax.name = "softmax.int";
  softmax.role = OpRole::kForward;
  softmax.impls.push_back({"CompositeImplicitAutograd", "softmax", ImplForm::kFunction, {"a.cpp", 10, ""}, "", {}});
  softmax.helpers.push_back({"any", "host_softmax", ImplForm::kHelper, {"a.cpp", 40, ""}, "", {}});
  softmax.helpers.push_back({"any", "log_helper", ImplForm::kHelper, {"a.cpp", 50, ""}, "", {}});
  softmax.calls.push_back({"_softmax", CodeDevice::kAny, "host_softmax", {"a.cpp", 42, ""}, "at::x"});
  softmax.calls.push_back({"log", CodeDevice::kAny, "log_helper", {"a.cpp", 52, ""}, "at::x"});
  OpStep inner;
  inner.name = "_softmax";
  inner.role = OpRole::kForward;
  inner.impls.push_back({"CPU", "softmax_cpu_out", ImplForm::kImplFunc, {"a.cpp", 20, ""}, "", {}});
  inner.impls.push_back({"CUDA", "softmax_cuda_out", ImplForm::kImplFunc, {"b.cu", 30, ""}, "", {}});
  StubStep stub;
  stub.name = "softmax_lastdim_kernel";
  stub.registrations.push_back({"CPU", "REGISTER_DISPATCH", "softmax_lastdim_kernel_impl", {"c.cpp", 5, ""}, {}});
  inner.stubs.push_back(stub);
  inner.kernels.push_back(
      {"softmax_warp_forward", CodeDevice::kCuda, {"d.cuh", 40, ""}, KernelLaunch::kTripleChevron, {}, "", {}});
  OpStep add;
  add.name = "add.Tensor";
  add.role = OpRole::kBackward;
  OpStep add_scalar;
  add_scalar.name = "add.Scalar";
  add_scalar.role = OpRole::kBackward;
  t.ops = {softmax, inner, add, add_scalar};
  return t;
}

ObservedRun SoftmaxRun() {
  ObservedRun run;
  run.label = "softmax sample 0";
  run.query = "F.softmax";
  run.ops = {{"softmax", {}, "forward", "", 1, {}},
             {"_softmax", {"softmax"}, "forward", "", 1, {{"void softmax_warp_forward<float, 10>(float*)", 1}}},
             {"empty", {"softmax", "_softmax"}, "forward", "", 1, {}},
             {"add", {}, "backward", "AddBackward0", 1, {}},
             {"is_same_size", {}, "backward", "", 2, {}}};
  run.overloads = {{"_softmax", {"default"}}, {"add", {"Tensor"}}};
  return run;
}

TEST(VerifyJoin, MarksOpsAndTellsOverloadsApart) {
  Trace trace = SoftmaxTrace();
  ObservedRun run = SoftmaxRun();
  QueryVerification q = JoinTrace(nullptr, trace, {&run}, "cpu");
  ASSERT_TRUE(Mark(q, "op", "softmax.int"));
  EXPECT_TRUE(Mark(q, "op", "softmax.int")->observed);  // above the dispatch mode: profiler only
  EXPECT_TRUE(Mark(q, "op", "_softmax")->observed);
  EXPECT_TRUE(Mark(q, "op", "add.Tensor")->observed);
  EXPECT_FALSE(Mark(q, "op", "add.Scalar")->observed);  // the dispatch mode saw add.Tensor only
}

TEST(VerifyJoin, CompositeOverloadsAreToldByThePythonCallElseFlagged) {
  Trace trace = SoftmaxTrace();
  OpStep dimname;
  dimname.name = "softmax.Dimname";
  dimname.role = OpRole::kForward;
  trace.ops.push_back(dimname);
  ObservedRun run = SoftmaxRun();
  QueryVerification unknown = JoinTrace(nullptr, trace, {&run}, "cpu");
  EXPECT_TRUE(Mark(unknown, "op", "softmax.Dimname")->observed);
  EXPECT_FALSE(Mark(unknown, "op", "softmax.Dimname")->overload_told);
  trace.selected_overload = "softmax.int";
  QueryVerification told = JoinTrace(nullptr, trace, {&run}, "cpu");
  EXPECT_TRUE(Mark(told, "op", "softmax.int")->observed);
  EXPECT_FALSE(Mark(told, "op", "softmax.Dimname")->observed);
}

TEST(VerifyJoin, DispatchRulePicksTheDeviceImplementationAndItsStubs) {
  Trace trace = SoftmaxTrace();
  ObservedRun run = SoftmaxRun();
  QueryVerification cpu = JoinTrace(nullptr, trace, {&run}, "cpu");
  EXPECT_TRUE(Mark(cpu, "impl", "softmax_cpu_out")->observed);
  EXPECT_FALSE(Mark(cpu, "impl", "softmax_cuda_out")->observed);
  EXPECT_TRUE(Mark(cpu, "impl", "softmax")->observed);                  // composite implicit: the only key
  EXPECT_FALSE(Mark(cpu, "stub", "softmax_lastdim_kernel")->observed);  // the profiler cannot see it
  EXPECT_TRUE(Mark(cpu, "stub", "softmax_lastdim_kernel")->on_path);
  QueryVerification cuda = JoinTrace(nullptr, trace, {&run}, "cuda");
  EXPECT_TRUE(Mark(cuda, "impl", "softmax_cuda_out")->observed);
  EXPECT_FALSE(Mark(cuda, "stub", "softmax_lastdim_kernel")->on_path);  // registered for CPU only
}

TEST(VerifyJoin, AHelperIsObservedWhenAnOpItCallsRanInsideItsOp) {
  Trace trace = SoftmaxTrace();
  ObservedRun run = SoftmaxRun();
  QueryVerification q = JoinTrace(nullptr, trace, {&run}, "cpu");
  EXPECT_TRUE(Mark(q, "helper", "host_softmax")->observed);
  EXPECT_EQ(Mark(q, "helper", "host_softmax")->evidence, "its call to _softmax (a.cpp:42) ran inside softmax");
  EXPECT_FALSE(Mark(q, "helper", "log_helper")->observed);
}

TEST(VerifyJoin, UnexplainedOpsNameTheNearestTracedOpAndEngineOpsStayOutside) {
  Trace trace = SoftmaxTrace();
  ObservedRun run = SoftmaxRun();
  QueryVerification q = JoinTrace(nullptr, trace, {&run}, "cpu");
  EXPECT_EQ(Names(q.unexplained_ops), std::vector<std::string>{"empty@_softmax"});
  EXPECT_EQ(Names(q.outside_ops), std::vector<std::string>{"is_same_size@"});
  EXPECT_EQ(q.ops.explained, 3);
  EXPECT_EQ(q.ops.unexplained, 1);
  EXPECT_EQ(q.ops.outside, 1);
}

TEST(VerifyJoin, OpsInsideACallTheTraceNamesButDoesNotFollowAreExplained) {
  Trace trace = SoftmaxTrace();
  ObservedRun run = SoftmaxRun();
  run.ops.push_back({"log", {"softmax"}, "forward", "", 1, {}});
  run.ops.push_back({"_to_copy", {"softmax", "log"}, "forward", "", 1, {}});  // log: named, not followed
  QueryVerification q = JoinTrace(nullptr, trace, {&run}, "cpu");
  EXPECT_EQ(q.ops.explained, 5);
  EXPECT_EQ(q.ops.explained_inside_call, 1);
  EXPECT_EQ(Names(q.unexplained_ops), std::vector<std::string>{"empty@_softmax"});  // _softmax was followed
}

TEST(VerifyJoin, SetupCodeTopLevelOpsAreOutsideButOpInfoTopLevelOpsCount) {
  Trace trace = SoftmaxTrace();
  ObservedRun run = SoftmaxRun();
  run.ops.push_back({"randn", {}, "forward", "", 1, {}});
  QueryVerification opinfo = JoinTrace(nullptr, trace, {&run}, "cpu");
  EXPECT_EQ(Names(opinfo.unexplained_ops), (std::vector<std::string>{"empty@_softmax", "randn@"}));
  run.setup_in_run = true;
  QueryVerification code = JoinTrace(nullptr, trace, {&run}, "cpu");
  EXPECT_EQ(Names(code.outside_ops), (std::vector<std::string>{"is_same_size@", "randn@"}));
}

TEST(VerifyJoin, CudaKernelsMatchByIdentifierThenByLibrary) {
  Trace trace = SoftmaxTrace();
  LibraryStep cublas{"cuBLAS", {"e.cpp", 7, ""}, {"at::cuda::blas::gemm"}, {}};
  OpStep mm;
  mm.name = "mm";
  mm.role = OpRole::kForward;
  mm.libraries.push_back(cublas);
  trace.ops.push_back(mm);
  ObservedRun run = SoftmaxRun();
  run.ops.push_back({"mm", {}, "forward", "", 1, {{"sm90_xmma_gemm_f32f32_tf32f32_f32_nn_n", 1}}});
  run.ops.push_back({"_softmax", {}, "forward", "", 1, {{"void other_kernel<float>(float*)", 1}}});
  QueryVerification q = JoinTrace(nullptr, trace, {&run}, "cuda");
  const StaticMark* kernel = Mark(q, "kernel", "softmax_warp_forward");
  ASSERT_TRUE(kernel);
  EXPECT_TRUE(kernel->observed);
  EXPECT_EQ(kernel->runtime_names, std::vector<std::string>{"void softmax_warp_forward<float, 10>(float*)"});
  EXPECT_TRUE(Mark(q, "library", "cuBLAS")->observed);
  EXPECT_EQ(q.kernels.explained, 2);
  EXPECT_EQ(q.kernels.explained_by_library, 1);
  EXPECT_EQ(Names(q.unexplained_kernels), std::vector<std::string>{"void other_kernel<float>(float*)@_softmax"});
}

TEST(VerifyObserved, ReadsBackWhatItWrites) {
  Observed o;
  o.torch_version = "2.11.0+cu130";
  o.device = "cuda";
  o.runs = {SoftmaxRun()};
  Observed back;
  ASSERT_TRUE(ParseObserved(ObservedToJson(o).dump(), &back).ok());
  EXPECT_EQ(back.torch_version, "2.11.0+cu130");
  ASSERT_EQ(back.runs.size(), 1u);
  EXPECT_EQ(back.runs[0].ops.size(), 5u);
  EXPECT_EQ(back.runs[0].ops[1].stack, std::vector<std::string>{"softmax"});
  EXPECT_EQ(back.runs[0].ops[1].kernels[0].name, "void softmax_warp_forward<float, 10>(float*)");
  EXPECT_EQ(back.runs[0].overloads["add"], std::vector<std::string>{"Tensor"});
}

TEST(VerifyObserved, RejectsOtherDocuments) {
  Observed o;
  EXPECT_EQ(ParseObserved("{\"schema\": \"optrace.trace/1\"}", &o).code(), ExitCode::kUsage);
  EXPECT_EQ(ParseObserved("not json", &o).code(), ExitCode::kUsage);
  // A schema of the wrong type threw instead (found by verify_input_fuzz).
  EXPECT_EQ(ParseObserved("{\"schema\": [1]}", &o).code(), ExitCode::kUsage);
}

TEST(VerifyVersions, WarnsOnlyWhenReleasesDiffer) {
  EXPECT_EQ(VerifyVersionWarning("1.13.0a0", "1.13.0a0"), "");
  EXPECT_NE(VerifyVersionWarning("2.6.0a0", "2.11.0+cu130").find("2.11.0+cu130"), std::string::npos);
}

// Issue 29 item 4: 200,000 nested '[' overflowed the stack; refused before
// any parse now, with the depth the MCP reader allows.
TEST(VerifyObserved, DeepNestingIsRefused) {
  Observed o;
  Status s = ParseObserved(std::string(200000, '['), &o);
  EXPECT_EQ(s.code(), ExitCode::kUsage);
  EXPECT_NE(s.message().find("nested deeper"), std::string::npos) << s.message();
  // Brackets inside strings are text, not nesting.
  EXPECT_TRUE(
      ParseObserved("{\"schema\": \"optrace.observed/1\", \"python\": \"" + std::string(1000, '[') + "\"}", &o).ok());
}

// Item 13: what an --observed file says (torch version, labels) is printed
// with its escape sequences escaped.
TEST(VerifyText, ObservedTextCannotDriveTheTerminal) {
  Observed o;
  ASSERT_TRUE(ParseObserved(R"({"schema": "optrace.observed/1", "torch_version": "2.6\u001b]0;owned\u0007",
                               "python": "/usr/bin/python3\u001b[2J", "device": "cpu", "runs": []})",
                            &o)
                  .ok());
  VerifyReport r;
  r.observed = o;
  std::string text = VerifyText(r, false) + VerifyText(r, true);
  EXPECT_EQ(text.find('\x1b'), std::string::npos) << text;
  EXPECT_EQ(text.find('\x07'), std::string::npos) << text;
  EXPECT_NE(text.find("2.6\\x1b]0;owned"), std::string::npos) << text;
}

// Item 10: the config reaches the child on stdin (no argv size limit).
TEST(RunProcess, InputGoesToStdinWhateverItsSize) {
  std::string big(1 << 20, 'x');
  ProcessResult r = RunProcess({"wc", "-c"}, 10, big);
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out, std::to_string(big.size()) + "\n");
}

TEST(RunProcess, NoShellAndAMissingProgramIsReported) {
  ProcessResult echo = RunProcess({"echo", "$HOME; `x`"}, 10);
  EXPECT_EQ(echo.exit_code, 0);
  EXPECT_EQ(echo.out, "$HOME; `x`\n");  // printed as given: no shell expanded it
  ProcessResult missing = RunProcess({"/nonexistent/python3"}, 10);
  EXPECT_TRUE(missing.not_started);
}

}  // namespace
}  // namespace optrace
