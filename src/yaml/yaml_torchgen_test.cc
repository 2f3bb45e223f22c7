// Acceptance test of the YAML model: for every NativeFunction torchgen makes
// of a real tree (including the variants it generates), the model must give
// the same name, line, schema, variants, dispatch table, structured fields,
// autogen list, python_module, device flags, tags and ufunc loops.
// torchgen is run from the tree itself by scripts/torchgen_dump.py with the
// system python3 + PyYAML, so each release is checked against its own rules.
#include <cstdio>
#include <map>
#include <memory>
#include <set>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "base/disk.h"
#include "testing/test_util.h"
#include "yaml/yaml_model.h"

namespace optrace {
namespace {

std::string ScriptPath() {
  std::string here = __FILE__;  // .../src/yaml_torchgen_test.cc
  return here.substr(0, here.rfind("/src/")) + "/scripts/torchgen_dump.py";
}

bool RunTorchgen(const std::string& tree, nlohmann::json* out, std::string* error) {
  std::string cmd = "python3 '" + ScriptPath() + "' '" + tree + "'";
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(cmd.c_str(), "r"), pclose);
  if (!pipe) {
    *error = "cannot run " + cmd;
    return false;
  }
  std::string text;
  char buf[65536];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, pipe.get())) > 0) text.append(buf, n);
  *out = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (out->is_discarded() || !out->is_array()) {
    *error = "torchgen_dump.py gave no JSON array (is python3-yaml installed?)";
    return false;
  }
  return true;
}

nlohmann::json OptionalJson(const std::optional<std::string>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

// The model's answer in the dump's shape; device_guard/device_check are
// resolved to torchgen's defaults (True, ExactSame) when the YAML omits them.
nlohmann::json ModelView(const NativeFunction& f) {
  nlohmann::json j;
  j["name"] = f.name;
  j["line"] = f.line;
  j["func"] = f.schema.text;
  std::set<std::string> variants(f.variants.begin(), f.variants.end());
  j["variants"] = variants;
  nlohmann::json dispatch = nlohmann::json::object();
  for (const auto& [k, v] : f.dispatch) dispatch[k] = v;
  j["dispatch"] = dispatch;
  j["structured"] = f.structured;
  j["structured_delegate"] = OptionalJson(f.structured_delegate);
  j["structured_inherits"] = OptionalJson(f.structured_inherits);
  j["autogen"] = f.autogen;
  j["python_module"] = OptionalJson(f.python_module);
  j["category_override"] = OptionalJson(f.category_override);
  j["device_guard"] = !f.device_guard || (*f.device_guard != "False" && *f.device_guard != "false");
  j["device_check"] = f.device_check ? *f.device_check : "ExactSame";
  j["manual_kernel_registration"] = f.manual_kernel_registration;
  j["manual_cpp_binding"] = f.manual_cpp_binding;
  std::set<std::string> tags(f.tags.begin(), f.tags.end());
  j["tags"] = tags;
  nlohmann::json loops = nlohmann::json::object();
  for (const auto& [k, v] : f.ufunc_inner_loop) loops[k] = v.substr(0, v.find(' '));
  j["ufunc_inner_loop"] = loops;
  return j;
}

void CompareWithTorchgen(const std::string& version) {
  std::string tree = CorpusTree(version);
  RealDisk disk(tree);
  YamlModel model;
  Status s = YamlModel::Load(disk, &model);
  ASSERT_TRUE(s.ok()) << s.message();
  nlohmann::json torchgen;
  std::string error;
  ASSERT_TRUE(RunTorchgen(tree, &torchgen, &error)) << error;

  size_t compared = 0, mismatched = 0;
  std::set<std::string> seen;
  for (const auto& expected : torchgen) {
    std::string name = expected["name"];
    seen.insert(name);
    const NativeFunction* f = model.Find(name);
    if (!f) {
      ADD_FAILURE() << version << ": torchgen has " << name << " (line " << expected["line"] << "), the model not";
      ++mismatched;
      continue;
    }
    nlohmann::json actual = ModelView(*f);
    ++compared;
    bool same = true;
    for (const auto& [field, value] : expected.items()) {
      if (actual[field] != value) {
        same = false;
        ADD_FAILURE() << version << " " << name << "." << field << ": torchgen " << value.dump() << ", model "
                      << actual[field].dump();
      }
    }
    if (!same) ++mismatched;
  }
  for (const auto& f : model.functions()) {
    EXPECT_TRUE(seen.count(f.name)) << version << ": the model has " << f.name << " (line " << f.line
                                    << "), torchgen not";
  }
  EXPECT_EQ(model.functions().size(), torchgen.size());
  std::printf("[ torchgen ] %s: %zu NativeFunctions compared field by field, %zu mismatched\n", version.c_str(),
              compared, mismatched);
  EXPECT_EQ(mismatched, 0u);
  EXPECT_GT(compared, 2500u);
}

TEST(YamlTorchgen, MatchesTorchgen_2_6_0) {
  REQUIRE_CORPUS("2.6.0");
  CompareWithTorchgen("2.6.0");
}

TEST(YamlTorchgen, MatchesTorchgen_1_13_1) {
  REQUIRE_CORPUS("1.13.1");
  CompareWithTorchgen("1.13.1");
}

}  // namespace
}  // namespace optrace
