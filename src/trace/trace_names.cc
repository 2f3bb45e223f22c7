// The one name table of each closed set of the Trace model (trace.h): the
// spelling JSON (optrace.trace/1, doc/trace-schema.md) and the text faces
// show. A renderer never writes these words itself, and no code compares
// the words: it compares the enum values.
#include "trace/trace.h"

namespace optrace {

std::string_view Name(OpRole role) {
  switch (role) {
    case OpRole::kForward: return "forward";
    case OpRole::kBackward: return "backward";
  }
  return "";
}

std::string_view Name(TargetKind kind) {
  switch (kind) {
    case TargetKind::kNone: return "";
    case TargetKind::kModule: return "module";
    case TargetKind::kFunctional: return "functional";
    case TargetKind::kTorch: return "torch";
    case TargetKind::kMethod: return "method";
    case TargetKind::kOperator: return "operator";
    case TargetKind::kAten: return "aten";
    case TargetKind::kPython: return "python";
    case TargetKind::kKernel: return "kernel";
    case TargetKind::kLibrary: return "library";
  }
  return "";
}

std::string_view Name(PayloadKind kind) {
  switch (kind) {
    case PayloadKind::kNone: return "";
    case PayloadKind::kFunctor: return "functor";
    case PayloadKind::kLambda: return "lambda";
    case PayloadKind::kJiterator: return "jiterator";
  }
  return "";
}

}  // namespace optrace
