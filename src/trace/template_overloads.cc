// Each helper's definition is found by name, file and line in the index;
// a function is ruled out when every recorded call of its name made outside
// ruled-out functions (in its own file, unless a header defines it) is
// rejected by its constraints (none: kept), read
// again until nothing changes, so a helper called only from a ruled-out
// overload follows it out.
#include "trace/template_overloads.h"

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "base/text.h"
#include "cpp/template_constraints.h"
#include "trace/condition_text.h"
#include "trace/guard_files.h"

namespace optrace {
namespace {

// The C++ element type AT_DISPATCH binds scalar_t to for `dtype`; "" when unknown.
std::string ElementType(const std::string& dtype) {
  static const std::vector<std::pair<std::string, std::string>> kTypes = {{"float32", "float"},
                                                                          {"float64", "double"},
                                                                          {"float16", "Half"},
                                                                          {"bfloat16", "BFloat16"},
                                                                          {"complex64", "c10::complex<float>"},
                                                                          {"complex128", "c10::complex<double>"},
                                                                          {"int64", "int64_t"},
                                                                          {"int32", "int"},
                                                                          {"int16", "int16_t"},
                                                                          {"int8", "int8_t"},
                                                                          {"uint8", "uint8_t"},
                                                                          {"bool", "bool"}};
  for (const auto& [name, type] : kTypes)
    if (name == dtype) return type;
  return "";
}

// A template argument as a type: scalar_t is the dispatched element type
// (AT_DISPATCH's alias in a function that is no template of its own); a
// type written out is itself; anything else "".
std::string ArgumentType(std::string_view arg, const std::string& element) {
  arg = TrimView(arg);
  if (arg == "scalar_t") return element;
  for (std::string_view known : {"float", "double", "at::Half", "c10::Half", "Half", "at::BFloat16", "c10::BFloat16",
                                 "BFloat16", "int64_t", "int32_t", "int", "bool", "uint8_t", "int8_t", "int16_t"})
    if (arg == known) return std::string(arg);
  return "";
}

bool IsHeaderFile(std::string_view path) {
  return path.ends_with(".h") || path.ends_with(".cuh") || path.ends_with(".hpp");
}

class OverloadReader {
 public:
  OverloadReader(const Index& ix, std::string element) : ix_(ix), cpp_(ix.cpp), element_(std::move(element)) {}

  // The index's id of the function a helper names, -1 when not found.
  int64_t IdOf(const ImplStep& h) const {
    for (uint32_t id : cpp_.FunctionsNamed(LastName(h.function))) {
      const CppFunction& f = cpp_.functions()[id];
      if (static_cast<int>(f.line) == h.where.line && cpp_.file(f.file) == h.where.file) return id;
    }
    return -1;
  }

  // Why function `id` never runs, given the functions already ruled out; "" when it may.
  std::string WhyRuledOut(uint32_t id, const std::set<uint32_t>& out) const {
    const CppFunction& f = cpp_.functions()[id];
    const auto constraints = TemplateConstraintsOf(GuardReaderOf(ix_, cpp_.file(f.file)).lexed().tokens, f.line);
    std::string why;
    size_t inside = 0;  // calls made in functions ruled out
    // A template a source file defines is seen by that file's code alone.
    const bool header = IsHeaderFile(cpp_.file(f.file));
    for (uint32_t c : cpp_.CallersOf(f.name)) {
      const CppCall& call = cpp_.calls()[c];
      if (!header && call.file != f.file) continue;
      if (call.function >= 0 && out.count(static_cast<uint32_t>(call.function))) {
        ++inside;
        continue;
      }
      const std::string rejected = constraints ? Rejected(*constraints, call, f.name) : "";
      if (rejected.empty()) return "";
      why = rejected;
    }
    if (!why.empty() || inside == 0) return why;
    return "called only from overloads the dtype rules out";
  }

 private:
  // The constraint `call` instantiating the template fails, as a reason; "" when none does.
  std::string Rejected(const TemplateConstraints& tc, const CppCall& call, const std::string& name) const {
    const std::vector<Token>& tokens = GuardReaderOf(ix_, cpp_.file(call.file)).lexed().tokens;
    const std::vector<std::string> args = TemplateArgumentsAt(tokens, call.line, name);
    // A template's own parameter (`update<scalar_t, ...>`'s scalar_t, maybe
    // an opmath type) is what that template is instantiated with: unknown.
    std::vector<std::string> callers_parameters;
    if (call.function >= 0)
      if (auto own = TemplateConstraintsOf(tokens, cpp_.functions()[static_cast<size_t>(call.function)].line))
        callers_parameters = own->parameters;
    for (const std::string& condition : tc.conditions)
      for (size_t i = 0; i < tc.parameters.size() && i < args.size(); ++i) {
        const bool own = std::find(callers_parameters.begin(), callers_parameters.end(), TrimView(args[i])) !=
                         callers_parameters.end();
        const std::string type = own ? "" : ArgumentType(args[i], element_);
        if (type.empty()) continue;
        if (ConstraintHolds(condition, tc.parameters[i], type) == false)
          return "`enable_if<" + condition + ">` fails for " + tc.parameters[i] + " = " + type +
                 (TrimView(args[i]) == "scalar_t" ? " (the dispatched scalar_t)" : "") + " at " + cpp_.file(call.file) +
                 ":" + std::to_string(call.line);
      }
    return "";
  }

  const Index& ix_;
  const CppIndex& cpp_;
  std::string element_;
};

}  // namespace

void MarkTemplateOverloads(Trace& t, const Index& ix, const Assumptions& a) {
  const std::string element = ElementType(a.dtype);
  if (element.empty()) return;
  OverloadReader reader(ix, element);
  std::set<uint32_t> out;
  for (bool grew = true; grew;) {
    grew = false;
    for (OpStep& op : t.ops)
      for (ImplStep& h : op.helpers) {
        if (!h.ruled_out.empty() || h.reached_from.empty()) continue;
        const int64_t id = reader.IdOf(h);
        if (id < 0) continue;
        std::string why = reader.WhyRuledOut(static_cast<uint32_t>(id), out);
        if (why.empty()) continue;
        h.ruled_out = std::move(why);
        grew = out.insert(static_cast<uint32_t>(id)).second || grew;
      }
  }
}

}  // namespace optrace
