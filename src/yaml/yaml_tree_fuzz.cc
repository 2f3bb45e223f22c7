// Fuzz target for the YAML reader: any bytes as native_functions.yaml (and,
// split at a form feed, as derivatives.yaml) must parse to a model or to a
// SourceError naming a line inside the file -- never a crash, a hang or a
// line number past the end.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "yaml/yaml_model.h"
#include "yaml/yaml_tree.h"

namespace {

// "file:LINE: ..." -> LINE must lie within the text (1 .. lines + 1); with
// no digits after the colon the message names no line.
void CheckErrorLine(const optrace::Status& s, std::string_view file, std::string_view text) {
  if (s.ok()) return;
  if (s.code() != optrace::ExitCode::kSource) std::abort();
  const std::string& m = s.message();
  if (m.compare(0, file.size(), file) != 0 || m.size() <= file.size() || m[file.size()] != ':') return;
  size_t at = file.size() + 1;
  long line = std::strtol(m.c_str() + at, nullptr, 10);
  // libyaml counts "\r" as a line break too (and "\r\n" once): at most this many lines.
  long lines =
      static_cast<long>(std::count(text.begin(), text.end(), '\n') + std::count(text.begin(), text.end(), '\r')) + 1;
  if (std::isdigit(static_cast<unsigned char>(m[at])) && (line < 1 || line > lines + 1)) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  size_t split = input.find('\f');
  std::string_view native = input.substr(0, split);
  std::string_view derivatives = split == std::string_view::npos ? std::string_view() : input.substr(split + 1);

  optrace::YamlNode root;
  CheckErrorLine(optrace::ParseYaml(native, "n.yaml", &root), "n.yaml", native);
  if (root.is_mapping() || root.is_sequence()) (void)root.Flow();

  optrace::YamlModel model;
  optrace::Status s = optrace::YamlModel::LoadFromText(native, "", derivatives, &model, "2.6.0");
  if (!s.ok() && s.code() != optrace::ExitCode::kSource) std::abort();
  CheckErrorLine(s, "aten/src/ATen/native/native_functions.yaml", native);
  return 0;
}
