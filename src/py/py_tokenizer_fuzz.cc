// libFuzzer target for the Python tokenizer and the structural pass: any
// byte string must tokenize to a stream ending in END, with tokens inside the
// input and lines never going backwards, and ScanPyFile must return without
// crashing (ASan/UBSan watch the rest).
#include <cstdint>
#include <cstdlib>
#include <string_view>
#include <vector>

#include "py/py_index.h"
#include "py/py_tokenizer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  std::vector<optrace::PyToken> tokens;
  optrace::TokenizePy(text, &tokens);
  if (tokens.empty() || tokens.back().kind != optrace::PyTok::kEnd) std::abort();
  uint32_t line = 1;
  for (const auto& t : tokens) {
    if (static_cast<size_t>(t.begin) + t.size > size) std::abort();
    if (t.line < line) std::abort();
    line = t.line;
  }
  optrace::PyModule m = optrace::ScanPyFile("fuzz", "torch/fuzz.py", text);
  for (const auto& f : m.functions)
    for (const auto& c : f.calls)
      if (c.args.size() > 200) std::abort();
  return 0;
}
