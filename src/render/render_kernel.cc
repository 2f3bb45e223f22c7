// The lines a trace of a kernel name as a profiler prints it (issue 26)
// adds under its target, in text and markdown alike: the kernel's
// definition, the functor or lambda that holds its arithmetic (with its
// first line of code), or the library it comes from and where the tree
// calls that library.
#include "render/render_internal.h"

namespace optrace::render_detail {

std::vector<std::pair<std::string, std::string>> KernelSourceLines(const Trace& t) {
  std::vector<std::pair<std::string, std::string>> out;
  const KernelSource& k = t.kernel_source;
  if (!k.valid()) return out;
  if (!k.library.empty()) {
    out.push_back({"library", "not in this tree: " + k.library + " (" + k.library_reason + ")"});
    std::vector<std::string> calls;
    for (size_t i = 0; i < k.library_calls.size() && i < 4; ++i) calls.push_back(LocText(k.library_calls[i], true));
    if (!calls.empty()) {
      out.push_back({"called", "the tree calls " + k.library + " at " + Join(calls, ", ") +
                                   (k.library_calls.size() > 4 ? ", ..." : "")});
    }
  } else {
    out.push_back({"kernel", k.kernel + (k.definition.valid() ? "  " + LocText(k.definition, true) : "")});
    if (!k.payload.empty()) {
      std::string what = k.payload_kind == PayloadKind::kLambda      ? "the lambda of " + k.payload
                         : k.payload_kind == PayloadKind::kJiterator ? "jiterator kernel string \"" + k.payload + "\""
                                                                     : "functor " + k.payload;
      if (!k.dtype.empty()) what += " (" + k.dtype + ")";
      if (k.arithmetic.empty() && k.payload_definition.valid()) what += "  " + LocText(k.payload_definition, true);
      out.push_back({"runs", what});
      for (const Location& l : k.arithmetic) {
        std::vector<std::string> code = SnippetLines(l.snippet, 1);
        out.push_back({"", LocText(l, true) + (code.empty() ? "" : "  " + OneLine(code[0]))});
      }
    }
  }
  for (const std::string& n : k.notes) out.push_back({"note", n});
  return out;
}

}  // namespace optrace::render_detail
