// `optrace op NAME` and `optrace ops`: what native_functions.yaml and
// derivatives.yaml say about an operator, resolved the way torchgen resolves
// them (implied CompositeImplicitAutograd entries, ufunc kernels, generated
// functional/out= variants), each fact with its file:line. These read only the
// YAML model, so they answer in tens of milliseconds without an index; which
// entries a name means is decided in lookup/op.h, as for the MCP `op` tool
// (so aten::add.Tensor, torch.ops.aten.mm.default work here too).
#include <iostream>
#include <set>
#include <string>
#include <vector>

#include "base/text.h"
#include "cli/cmd_common.h"
#include "lookup/op.h"
#include "lookup/query.h"
#include "yaml/yaml_json.h"
#include "yaml/yaml_model.h"

namespace optrace {

int CmdOp(int argc, char** argv);
int CmdOps(int argc, char** argv);

namespace {

void PrintFormulas(const std::vector<DerivativeFormula>& formulas, const char* indent) {
  for (const auto& f : formulas) {
    std::cout << indent << f.inputs << ": " << f.formula << "   (line " << f.line << ")\n";
  }
}

void PrintFunction(const YamlModel& model, const NativeFunction& f) {
  std::cout << f.name << "   " << kNativeFunctionsPath << ":" << f.line << "\n";
  std::cout << "  func:        " << f.schema.text << "\n";
  if (f.autogen_from) {
    std::cout << "  generated:   by torchgen from " << *f.autogen_from << " (line " << f.line
              << "); not written in the YAML\n";
  }
  std::cout << "  variants:    " << Join(f.variants, ", ") << "\n";
  const char* label = "  dispatch:    ";
  if (f.dispatch.empty()) std::cout << label << "(none of its own)\n";
  for (const auto& [key, kernel] : f.dispatch) {
    std::cout << label << key << ": " << kernel;
    if (f.implicit_composite && key == "CompositeImplicitAutograd") std::cout << "   [implied: no dispatch: table]";
    if (!f.ufunc_inner_loop.empty() && kernel == "ufunc_" + f.schema.name + "_" + key) {
      std::cout << "   [implied: ufunc_inner_loop codegen]";
    }
    if (f.autogen_from) std::cout << "   [generated kernel]";
    std::cout << "\n";
    label = "               ";
  }
  if (f.structured) {
    std::cout << "  structured:  True" << (f.structured_inherits ? " (inherits " + *f.structured_inherits + ")" : "")
              << "\n";
  }
  if (f.structured_delegate) std::cout << "  structured_delegate: " << *f.structured_delegate << "\n";
  for (const auto& p : f.precomputed) std::cout << "  precomputed: " << p << "\n";
  if (!f.autogen.empty()) std::cout << "  autogen:     " << Join(f.autogen, ", ") << "\n";
  for (const auto& [key, loop] : f.ufunc_inner_loop) std::cout << "  ufunc_inner_loop: " << key << ": " << loop << "\n";
  if (!f.tags.empty()) std::cout << "  tags:        " << Join(f.tags, ", ") << "\n";
  if (f.python_module) std::cout << "  python_module: " << *f.python_module << "\n";
  if (f.device_check) std::cout << "  device_check: " << *f.device_check << "\n";
  if (f.device_guard) std::cout << "  device_guard: " << *f.device_guard << "\n";
  if (f.category_override) std::cout << "  category_override: " << *f.category_override << "\n";
  if (f.manual_kernel_registration) std::cout << "  manual_kernel_registration: True\n";
  if (f.manual_cpp_binding) std::cout << "  manual_cpp_binding: True\n";
  for (const auto& [key, value] : f.other_keys) std::cout << "  " << key << ": " << value << "\n";
  const DerivativeEntry* d = model.DerivativeOf(f);
  if (!d) {
    std::cout << "  derivative:  no " << kDerivativesPath << " entry named " << f.name << "\n";
  } else {
    std::cout << "  derivative:  " << kDerivativesPath << ":" << d->line << "   " << d->text << "\n";
    if (d->name != f.name)
      std::cout << "    (" << d->name
                << "'s entry: torchgen differentiates an in-place op by its functional variant)\n";
    if (d->output_differentiability)
      std::cout << "    output_differentiability: " << *d->output_differentiability << "\n";
    PrintFormulas(d->formulas, "    ");
    for (const auto& [section, formulas] : d->dispatch_sections) {
      std::cout << "    dispatch " << section << ":\n";
      PrintFormulas(formulas, "      ");
    }
  }
}

// Opens the checkout and loads the model; prints and returns false on failure.
bool LoadModel(const std::string& source, Checkout* checkout, YamlModel* model, int* rc) {
  if (!OpenCheckoutOrReport(source, checkout, rc)) return false;
  Status s = YamlModel::Load(*checkout->disk, model);
  if (!s.ok()) {
    *rc = Report(s);
    return false;
  }
  return true;
}

}  // namespace

int CmdOp(int argc, char** argv) {
  CLI::App app{"Show what native_functions.yaml and derivatives.yaml say about an operator", "optrace op"};
  std::string source, name;
  bool json = false;
  AddSourceFlag(app, &source);
  app.add_option("name", name, "operator: a base name (add) for every overload, or name.overload (add.out)")
      ->required();
  app.add_flag("--json", json, "print JSON (one object per overload, with its derivative entry)");
  int rc = 0;
  if (!ParseOrReport(app, argc, argv, &rc)) return rc;
  if (Status s = CheckQuery(name); !s.ok()) return Report(s);
  Checkout checkout;
  YamlModel model;
  if (!LoadModel(source, &checkout, &model, &rc)) return rc;

  OpAnswer answer = LookupOp(model, name);
  const std::vector<const NativeFunction*>& found = answer.entries;
  if (found.empty()) {
    const std::vector<std::string>& near = answer.suggestions;
    std::string msg = "no operator '" + name + "' in " + kNativeFunctionsPath;
    if (!near.empty()) msg += "; did you mean " + Join(near, " or ") + "?";
    if (json) {
      nlohmann::ordered_json j = {
          {"query", name}, {"error", msg}, {"suggestions", near}, {"source", SourceJson(checkout)}};
      std::cout << j.dump(2) << "\n";
    }
    return Report(Status::NotFound(msg));
  }
  if (json) {
    nlohmann::ordered_json list = nlohmann::ordered_json::array();
    for (const NativeFunction* f : found) {
      nlohmann::ordered_json j = NativeFunctionToJson(*f);
      const DerivativeEntry* d = model.DerivativeOf(*f);
      j["derivative"] = d ? DerivativeToJson(*d) : nlohmann::ordered_json(nullptr);
      list.push_back(std::move(j));
    }
    nlohmann::ordered_json out = {{"query", name},
                                  {"release", model.release()},
                                  {"functions", std::move(list)},
                                  {"source", SourceJson(checkout)}};
    std::cout << out.dump(2) << "\n";
    return 0;
  }
  std::cout << WarningHeader(checkout);
  for (size_t i = 0; i < found.size(); ++i) {
    if (i) std::cout << "\n";
    PrintFunction(model, *found[i]);
  }
  const std::string& base = answer.name;
  if (base.find('.') == std::string::npos && base.back() != '_' && !model.Overloads(base + "_").empty()) {
    std::cout << "\nsee also: optrace op " << base << "_   (the in-place overloads)\n";
  }
  return 0;
}

int CmdOps(int argc, char** argv) {
  CLI::App app{"List every operator of native_functions.yaml (and torchgen's generated ones)", "optrace ops"};
  std::string source;
  bool json = false;
  AddSourceFlag(app, &source);
  app.add_flag("--json", json, "print the whole model as a JSON array, one object per function");
  int rc = 0;
  if (!ParseOrReport(app, argc, argv, &rc)) return rc;
  Checkout checkout;
  YamlModel model;
  if (!LoadModel(source, &checkout, &model, &rc)) return rc;
  if (json) {
    std::cout << ModelToJson(model).dump(1) << "\n";
    return 0;
  }
  for (const auto& f : model.functions()) {
    std::vector<std::string> keys;
    for (const auto& [key, kernel] : f.dispatch) keys.push_back(key);
    std::cout << f.name << "\t" << kNativeFunctionsPath << ":" << f.line << "\t" << Join(keys, ",")
              << (f.autogen_from ? "\tgenerated" : "") << "\n";
  }
  return 0;
}

}  // namespace optrace
