// Each helper's definition is found by name, file and line in the index;
// a function is ruled out when every recorded call of its name made outside
// ruled-out functions (in its own file, unless a header defines it) is
// rejected by its constraints (none: kept), read
// again until nothing changes, so a helper called only from a ruled-out
// overload follows it out.
#include "trace/template_overloads.h"

#include <algorithm>
#include <memory>
#include <mutex>
#include <set>
#include <shared_mutex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "base/text.h"
#include "cpp/template_constraints.h"
#include "trace/code_scope.h"
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

class OverloadReader {
 public:
  OverloadReader(const Index& ix, std::string element)
      : ix_(ix),
        cpp_(ix.cpp),
        element_(std::move(element)),
        memo_(*ix.Derived<std::unique_ptr<Memo>>("template overloads", [] { return std::make_unique<Memo>(); })) {}

  // Whether function `id` is a template with an enable_if: remembered per
  // index (every trace of `trace --all` lists the same helpers).
  bool Constrained(uint32_t id) const {
    const CppFunction& f = cpp_.functions()[id];
    if (!f.is_template) return false;
    {
      std::shared_lock<std::shared_mutex> lock(memo_.mu);
      if (auto it = memo_.constrained.find(id); it != memo_.constrained.end()) return it->second;
    }
    const auto constraints = TemplateConstraintsOf(GuardReaderOf(ix_, cpp_.file(f.file)).lexed().tokens, f.line);
    std::unique_lock<std::shared_mutex> lock(memo_.mu);
    return memo_.constrained.emplace(id, constraints && !constraints->conditions.empty()).first->second;
  }

  // Why function `id` never runs, given the functions already ruled out; "" when it may.
  std::string WhyRuledOut(uint32_t id, const std::set<uint32_t>& out) const {
    const CppFunction& f = cpp_.functions()[id];
    const auto constraints = f.is_template
                                 ? TemplateConstraintsOf(GuardReaderOf(ix_, cpp_.file(f.file)).lexed().tokens, f.line)
                                 : std::nullopt;
    std::string why;
    size_t inside = 0;  // calls made in functions ruled out
    // A template a source file defines is seen by that file's code alone.
    const bool header = IsHeader(cpp_.file(f.file));
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

  struct Memo {
    std::shared_mutex mu;
    std::unordered_map<uint32_t, bool> constrained;
  };
  const Index& ix_;
  const CppIndex& cpp_;
  std::string element_;
  Memo& memo_;
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
      for (size_t i = 0; i < op.helpers.size(); ++i) {
        const ImplStep& h = op.helpers[i];
        if (!h.ruled_out.empty() || h.reached_from.empty()) continue;
        if (h.definition < 0) continue;
        const auto id = static_cast<uint32_t>(h.definition);
        if (out.empty() && !reader.Constrained(id)) continue;  // no constraint, no caller ruled out yet
        std::string why = reader.WhyRuledOut(id, out);
        if (why.empty()) continue;
        op.helpers.Edit()[i].ruled_out = std::move(why);  // the trace's own copy: the expansion's stays
        grew = out.insert(id).second || grew;
      }
  }
}

}  // namespace optrace
