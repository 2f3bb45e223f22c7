// libFuzzer target for the C++ lexer and structural pass: any byte string
// must lex and scan without crashing, hanging or reading out of bounds, and
// every token must lie inside the input with non-decreasing lines.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "cpp/cpp_index.h"
#include "cpp/cpp_lexer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  optrace::LexedFile lexed;
  optrace::LexCpp(text, &lexed);
  uint32_t line = 0;
  for (const optrace::Token& t : lexed.tokens) {
    if (t.text.data() < text.data() || t.text.data() + t.text.size() > text.data() + text.size()) std::abort();
    if (t.line < line) std::abort();
    line = t.line;
  }
  for (const optrace::MacroDef& m : lexed.macros) {
    if (m.body_begin > m.body_end || m.body_end > lexed.macro_tokens.size()) std::abort();
  }
  // The path picks the device of plain REGISTER_DISPATCH; a .cu path turns on
  // the CUDA-only shapes too.
  optrace::ScanCppFile("aten/src/ATen/native/cuda/Fuzz.cu", text);
  return 0;
}
