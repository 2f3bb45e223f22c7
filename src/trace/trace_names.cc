// The one name table of each closed set of the Trace model (trace.h): the
// spelling JSON (optrace.trace/1, doc/trace-schema.md) and the text faces
// show. A renderer never writes these words itself, and no code compares
// the words: it compares the enum values. Where words come in (the guard
// readers' condition kinds, a walk's device), they are read back through
// the same table, so a word is written once.
#include "trace/trace.h"

namespace optrace {

namespace {

// The value of `E` spelled `word` in its table, trying kFirst..kLast.
template <class E>
std::optional<E> ValueNamed(std::string_view word, E first, E last) {
  for (int v = static_cast<int>(first); v <= static_cast<int>(last); ++v)
    if (Name(static_cast<E>(v)) == word) return static_cast<E>(v);
  return std::nullopt;
}

}  // namespace

std::string_view Name(OpRole role) {
  switch (role) {
    case OpRole::kForward:
      return "forward";
    case OpRole::kBackward:
      return "backward";
  }
  return "";
}

std::string_view Name(TargetKind kind) {
  switch (kind) {
    case TargetKind::kNone:
      return "";
    case TargetKind::kModule:
      return "module";
    case TargetKind::kFunctional:
      return "functional";
    case TargetKind::kTorch:
      return "torch";
    case TargetKind::kMethod:
      return "method";
    case TargetKind::kOperator:
      return "operator";
    case TargetKind::kAten:
      return "aten";
    case TargetKind::kPython:
      return "python";
    case TargetKind::kKernel:
      return "kernel";
    case TargetKind::kLibrary:
      return "library";
  }
  return "";
}

std::string_view Name(PayloadKind kind) {
  switch (kind) {
    case PayloadKind::kNone:
      return "";
    case PayloadKind::kFunctor:
      return "functor";
    case PayloadKind::kLambda:
      return "lambda";
    case PayloadKind::kJiterator:
      return "jiterator";
  }
  return "";
}

std::string_view Name(ConditionKind kind) {
  switch (kind) {
    case ConditionKind::kIf:
      return "if";
    case ConditionKind::kElse:
      return "else";
    case ConditionKind::kCase:
      return "case";
    case ConditionKind::kTernary:
      return "?:";
    case ConditionKind::kReturn:
      return "return";
    case ConditionKind::kPreprocessor:
      return "#if";
    case ConditionKind::kDevice:
      return "device";
    case ConditionKind::kRoute:
      return "route";
  }
  return "";
}

std::string_view Name(PyCallTarget kind) {
  switch (kind) {
    case PyCallTarget::kFunctional:
      return "functional";
    case PyCallTarget::kBridge:
      return "bridge";
    case PyCallTarget::kTorch:
      return "torch";
    case PyCallTarget::kMethod:
      return "method";
    case PyCallTarget::kPython:
      return "python";
    case PyCallTarget::kOperator:
      return "operator";
  }
  return "";
}

std::string_view Name(ImplForm form) {
  switch (form) {
    case ImplForm::kNone:
      return "";
    case ImplForm::kFunction:
      return DefFormName(DefForm::kFunction);
    case ImplForm::kImplFunc:
      return DefFormName(DefForm::kImplFunc);
    case ImplForm::kMetaFunc:
      return DefFormName(DefForm::kMetaFunc);
    case ImplForm::kPrecomputeMetaFunc:
      return DefFormName(DefForm::kPrecomputeMetaFunc);
    case ImplForm::kGlobalKernel:
      return DefFormName(DefForm::kGlobalKernel);
    case ImplForm::kUfunc:
      return "ufunc";
    case ImplForm::kGenerated:
      return "generated";
    case ImplForm::kPlaceholder:
      return "placeholder";
    case ImplForm::kHelper:
      return "helper";
  }
  return "";
}

std::string_view Name(CodeDevice device) {
  switch (device) {
    case CodeDevice::kAny:
      return "any";
    case CodeDevice::kCpu:
      return "CPU";
    case CodeDevice::kCuda:
      return "CUDA";
  }
  return "";
}

std::string_view Name(KernelLaunch launch) {
  switch (launch) {
    case KernelLaunch::kTripleChevron:
      return LaunchKindName(LaunchKind::kTripleChevron);
    case KernelLaunch::kTensorIterator:
      return LaunchKindName(LaunchKind::kTensorIterator);
    case KernelLaunch::kReduce:
      return LaunchKindName(LaunchKind::kReduce);
    case KernelLaunch::kJiterator:
      return LaunchKindName(LaunchKind::kJiterator);
    case KernelLaunch::kLaunchHelper:
      return LaunchKindName(LaunchKind::kLaunchHelper);
    case KernelLaunch::kMacro:
      return "macro";
    case KernelLaunch::kPassed:
      return "passed";
  }
  return "";
}

ConditionKind ConditionKindOf(std::string_view word) {
  return ValueNamed(word, ConditionKind::kIf, ConditionKind::kRoute).value_or(ConditionKind::kIf);
}

std::optional<CodeDevice> CodeDeviceOf(std::string_view name) {
  return ValueNamed(name, CodeDevice::kAny, CodeDevice::kCuda);
}

ImplForm FormOf(DefForm form) {
  switch (form) {
    case DefForm::kFunction:
      return ImplForm::kFunction;
    case DefForm::kImplFunc:
      return ImplForm::kImplFunc;
    case DefForm::kMetaFunc:
      return ImplForm::kMetaFunc;
    case DefForm::kPrecomputeMetaFunc:
      return ImplForm::kPrecomputeMetaFunc;
    case DefForm::kGlobalKernel:
      return ImplForm::kGlobalKernel;
  }
  return ImplForm::kNone;
}

KernelLaunch LaunchOf(LaunchKind kind) {
  switch (kind) {
    case LaunchKind::kTripleChevron:
      return KernelLaunch::kTripleChevron;
    case LaunchKind::kTensorIterator:
      return KernelLaunch::kTensorIterator;
    case LaunchKind::kReduce:
      return KernelLaunch::kReduce;
    case LaunchKind::kJiterator:
      return KernelLaunch::kJiterator;
    case LaunchKind::kLaunchHelper:
      return KernelLaunch::kLaunchHelper;
  }
  return KernelLaunch::kLaunchHelper;
}

}  // namespace optrace
