// The model's name table (trace_names.cc): each closed set's words are the
// JSON schema's (doc/trace-schema.md), every value has its own word, and the
// words read back in (the guard readers' condition kinds, a walk's device)
// give the value they name.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "trace/trace.h"

namespace optrace {
namespace {

// Each value of E from first to last has a word of its own, none empty.
template <class E>
std::set<std::string> Words(E first, E last) {
  std::set<std::string> words;
  for (int v = static_cast<int>(first); v <= static_cast<int>(last); ++v) {
    std::string w(Name(static_cast<E>(v)));
    EXPECT_FALSE(w.empty()) << v;
    EXPECT_TRUE(words.insert(w).second) << w << " names two values";
  }
  return words;
}

TEST(TraceNames, EveryValueHasTheSchemasWord) {
  EXPECT_EQ(Words(ConditionKind::kIf, ConditionKind::kRoute),
            (std::set<std::string>{"if", "else", "case", "?:", "return", "#if", "device", "route"}));
  EXPECT_EQ(Words(PyCallTarget::kFunctional, PyCallTarget::kOperator),
            (std::set<std::string>{"functional", "bridge", "torch", "method", "python", "operator"}));
  EXPECT_EQ(Words(ImplForm::kFunction, ImplForm::kHelper),
            (std::set<std::string>{"function", "TORCH_IMPL_FUNC", "TORCH_META_FUNC", "TORCH_PRECOMPUTE_META_FUNC",
                                   "__global__", "ufunc", "generated", "placeholder", "helper"}));
  EXPECT_EQ(Name(ImplForm::kNone), "");
  EXPECT_EQ(Words(CodeDevice::kAny, CodeDevice::kCuda), (std::set<std::string>{"any", "CPU", "CUDA"}));
  EXPECT_EQ(
      Words(KernelLaunch::kTripleChevron, KernelLaunch::kPassed),
      (std::set<std::string>{"<<<>>>", "gpu_kernel", "gpu_reduce_kernel", "jiterator", "launch", "macro", "passed"}));
}

TEST(TraceNames, WordsReadBackToTheirValues) {
  for (ConditionKind k :
       {ConditionKind::kIf, ConditionKind::kElse, ConditionKind::kCase, ConditionKind::kTernary, ConditionKind::kReturn,
        ConditionKind::kPreprocessor, ConditionKind::kDevice, ConditionKind::kRoute})
    EXPECT_EQ(ConditionKindOf(Name(k)), k) << Name(k);
  for (CodeDevice d : {CodeDevice::kAny, CodeDevice::kCpu, CodeDevice::kCuda}) EXPECT_EQ(CodeDeviceOf(Name(d)), d);
  // Dispatch keys of other devices (and composite keys) are no code device of the trace's.
  EXPECT_EQ(CodeDeviceOf("HIP"), std::nullopt);
  EXPECT_EQ(CodeDeviceOf("CompositeImplicitAutograd"), std::nullopt);
  EXPECT_EQ(CodeDeviceOf("cuda"), std::nullopt);  // the table's words are the dispatch keys'
}

TEST(TraceNames, ScanFormsAndLaunchesKeepTheirWords) {
  for (DefForm f : {DefForm::kFunction, DefForm::kImplFunc, DefForm::kMetaFunc, DefForm::kPrecomputeMetaFunc,
                    DefForm::kGlobalKernel})
    EXPECT_EQ(Name(FormOf(f)), DefFormName(f));
  for (LaunchKind k : {LaunchKind::kTripleChevron, LaunchKind::kTensorIterator, LaunchKind::kReduce,
                       LaunchKind::kJiterator, LaunchKind::kLaunchHelper})
    EXPECT_EQ(Name(LaunchOf(k)), LaunchKindName(k));
}

}  // namespace
}  // namespace optrace
