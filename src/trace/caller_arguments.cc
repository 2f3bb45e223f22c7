// Values are kept in the schema's spelling (`False`, `None`, `1`) so that
// PathValues::AssumptionsFor treats them like a Python call's.
#include "trace/caller_arguments.h"

#include <algorithm>
#include <cctype>

#include "base/text.h"
#include "cpp/cpp_params.h"
#include "trace/condition_text.h"

namespace optrace {

namespace {

bool IsNumber(std::string_view s) {
  if (!s.empty() && s.front() == '-') s.remove_prefix(1);
  while (!s.empty() && (s.back() == 'L' || s.back() == 'l' || s.back() == 'f' || s.back() == 'F' || s.back() == 'u' ||
                        s.back() == 'U'))
    s.remove_suffix(1);
  if (s.empty() || !std::isdigit(static_cast<unsigned char>(s.front()))) return false;
  return std::all_of(s.begin(), s.end(),
                     [](char c) { return std::isdigit(static_cast<unsigned char>(c)) || c == '.'; });
}

// A view of another layout of strides than its base's, as written:
// `x.permute(...)`, `x.transpose(...)`, `x.t()`, `x.mT()`, `x.narrow(...)`,
// `x.select(...)`, `x.expand(...)`, ... -- the outermost call of the
// expression (a view of a view, `x.t().contiguous()`, is read by its last).
bool IsStridedView(std::string_view expr) {
  expr = TrimView(expr);
  if (!expr.ends_with(")")) return false;
  static const std::string_view kViews[] = {"permute",  "transpose", "t",       "mT",       "mH",        "T",
                                            "narrow",   "select",    "slice",   "expand",   "expand_as", "as_strided",
                                            "diagonal", "unfold",    "movedim", "moveaxis", "swapaxes",  "swapdims"};
  int depth = 0;
  for (size_t i = expr.size(); i-- > 0;) {
    if (expr[i] == ')') ++depth;
    if (expr[i] != '(' || --depth != 0) continue;
    size_t start = i;
    while (start > 0 && IsIdentChar(expr[start - 1])) --start;
    const std::string_view name = expr.substr(start, i - start);
    const bool member = start > 0 && expr[start - 1] == '.';
    const bool qualified = start >= 4 && expr.substr(start - 4, 4) == "at::";
    if (!member && !qualified) return false;
    return std::find(std::begin(kViews), std::end(kViews), name) != std::end(kViews);
  }
  return false;
}

// Whether the function `im` lists (defined at im.where) has a body holding `where`.
bool BodyHolds(const Index& ix, const ImplStep& im, const Location& where) {
  if (im.where.file != where.file) return false;
  for (uint32_t id : ix.cpp.FunctionsNamed(LastName(im.function))) {
    const CppFunction& f = ix.cpp.functions()[id];
    if (ix.cpp.file(f.file) == where.file && static_cast<int>(f.line) == im.where.line && f.HasBody() &&
        static_cast<int>(f.body_begin) <= where.line && where.line <= static_cast<int>(f.body_end))
      return true;
  }
  return false;
}

// The line defining the function of `parent`'s code (its implementation or
// a helper the walk listed) whose body holds `where`; 0 when none does.
int DefinitionHolding(const Index& ix, const OpStep& parent, const Location& where) {
  for (const auto* list : {&parent.impls, &parent.helpers})
    for (const ImplStep& im : *list)
      if (BodyHolds(ix, im, where)) return im.where.line;
  return 0;
}

}  // namespace

bool IsQualifiedConstant(std::string_view s) {
  if (s.find("::") == std::string_view::npos) return false;
  return std::all_of(s.begin(), s.end(), [](char c) { return IsIdentChar(c) || c == ':'; });
}

std::optional<std::string> LiteralValue(std::string_view arg, bool optional) {
  if (arg == "true") return "True";
  if (arg == "false") return "False";
  if (arg == "std::nullopt" || arg == "c10::nullopt" || arg == "::std::nullopt" || (arg == "{}" && optional))
    return "None";
  if (IsNumber(arg)) {
    std::string n(arg);
    while (!n.empty() && std::isalpha(static_cast<unsigned char>(n.back()))) n.pop_back();
    return n;
  }
  if (arg.size() >= 2 && arg.front() == '"' && arg.back() == '"') return std::string(arg);
  if (IsQualifiedConstant(arg)) return std::string(arg);
  return std::nullopt;
}

const ImplStep* ImplementationHolding(const Index& ix, const OpStep& parent, const Location& where) {
  for (const auto& im : parent.impls)
    if (im.reached_from.empty() && im.form == ImplForm::kFunction && BodyHolds(ix, im, where)) return &im;
  return nullptr;
}

// `x` of `x.has_value() ? ...::borrowed(*x) : ...::owned(std::in_place)`,
// a MaybeOwned view of optional `x` (an empty Tensor when it holds none);
// "" for anything else.
std::string_view OptionalBorrowed(std::string_view expr) {
  const size_t ask = expr.find(".has_value()");
  const size_t pick = expr.find('?');
  if (ask == std::string_view::npos || pick == std::string_view::npos || ask > pick) return "";
  const std::string_view held = TrimView(expr.substr(0, ask));
  if (!IsIdentifier(held) || TrimView(expr.substr(ask + 12, pick - ask - 12)) != "") return "";
  const std::string_view arms = expr.substr(pick + 1);
  const size_t colon = arms.find(" : ");
  if (colon == std::string_view::npos) return "";
  const std::string_view taken = TrimView(arms.substr(0, colon)), empty = TrimView(arms.substr(colon + 3));
  const std::string borrowed = "::borrowed(*" + std::string(held) + ")";
  return taken.ends_with(borrowed) && empty.ends_with("::owned(std::in_place)") ? held : "";
}

std::string ViewedParameter(const CppGuardReader& reader, int from_line, int before, const std::string& name,
                            const std::vector<CppParameter>& params) {
  constexpr int kViewSteps = 4;  // bias -> bias_r -> *bias_r_maybe_owned -> borrow(bias_r_opt)
  auto is_parameter = [&](std::string_view n) {
    return std::any_of(params.begin(), params.end(), [&](const CppParameter& p) { return p.name == n; });
  };
  std::string at = name;
  bool borrowed = false;  // a plain copy alone (`auto n = k;`, then `n++`) is no view
  for (int step = 0; step < kViewSteps && !is_parameter(at); ++step) {
    const std::string assigned = reader.AssignedExpression(from_line, before, at);
    std::string_view expr = TrimView(assigned);
    if (expr.starts_with("*")) expr = TrimView(expr.substr(1));
    for (std::string_view borrow : {"at::borrow_from_optional_tensor(", "borrow_from_optional_tensor("})
      if (expr.starts_with(borrow) && expr.ends_with(")")) {
        expr = TrimView(expr.substr(borrow.size(), expr.size() - borrow.size() - 1));
        borrowed = true;
      }
    // Linear.cpp's spelling: `x.has_value() ? c10::MaybeOwned<Tensor>::borrowed(*x)
    // : c10::MaybeOwned<Tensor>::owned(std::in_place)`.
    if (const std::string_view held = OptionalBorrowed(expr); !held.empty()) {
      expr = held;
      borrowed = true;
    }
    if (!IsIdentifier(expr) || expr == at) return "";
    at = std::string(expr);
  }
  return borrowed && is_parameter(at) ? at : "";
}

std::optional<std::string> ParameterAt(const ImplStep& im, const std::string& name_at_site, const Location& site,
                                       const CppGuardReader& reader, const Assumptions& values) {
  const std::vector<CppParameter>& params = ParseCppParameters(im.params);
  std::string name = name_at_site;
  if (std::none_of(params.begin(), params.end(), [&](const CppParameter& p) { return p.name == name; }))
    name = ViewedParameter(reader, im.where.line, site.line, name, params);
  if (name.empty()) return std::nullopt;
  auto it = values.defaults.find(name);
  if (it == values.defaults.end() || !reader.AssignedExpression(im.where.line, site.line, name).empty())
    return std::nullopt;
  return it->second == "std::nullopt" || it->second == "c10::nullopt" ? "None" : it->second;
}

namespace {

bool PositionsTrusted(const FunctionSchema& s) {
  bool device = false, layout = false;
  for (const auto& arg : s.arguments) {
    if (arg.is_out) return false;
    device = device || arg.name == "device";
    layout = layout || arg.name == "layout";
  }
  return !(device && layout);
}

}  // namespace

std::optional<PassedArguments> CppCallerArguments(const Index& ix, const OpStep& parent, const OpStep& child,
                                                  const Location& site, const CppGuardReader& reader,
                                                  const Assumptions& parent_values) {
  if (!child.yaml || !site.valid() || !PositionsTrusted(child.yaml->schema)) return std::nullopt;
  auto call = reader.CallWritten(site.line, OpBaseName(child.name));
  if (!call) return std::nullopt;
  const auto& schema = child.yaml->schema.arguments;
  const size_t start = call->method ? 1 : 0;
  size_t required = 0;
  for (const auto& arg : schema) required += !arg.default_value;
  if (start + call->arguments.size() > schema.size() || start + call->arguments.size() < required) return std::nullopt;
  const ImplStep* holder = ImplementationHolding(ix, parent, site);
  PassedArguments passed;
  // A Tensor written as a strided view, or as a local last assigned one.
  int from = -1;  // the line defining the function holding the call, read once
  auto strided_view = [&](const SchemaArgument& to, const std::string& written) {
    if (!StartsWith(to.type, "Tensor") || to.type.find('[') != std::string::npos || written.empty()) return false;
    if (IsStridedView(written)) return true;
    if (!IsIdentifier(written)) return false;
    if (from < 0) from = DefinitionHolding(ix, parent, site);
    return from > 0 && IsStridedView(reader.AssignedExpression(from, site.line, written));
  };
  if (call->method && strided_view(schema.front(), call->receiver))
    passed[schema.front().name] = std::string(kStridedView);
  for (size_t i = 0; i < call->arguments.size(); ++i) {
    const SchemaArgument& to = schema[start + i];
    const std::string& arg = call->arguments[i];
    std::optional<std::string> value = LiteralValue(arg, to.type.ends_with("?"));
    if (!value && holder) value = ParameterAt(*holder, arg, site, reader, parent_values);
    if (!value && strided_view(to, arg)) value = std::string(kStridedView);
    passed[to.name] = std::move(value);
  }
  return passed;
}

std::optional<PassedArguments> AgreedArguments(const OpStep& child, const std::vector<PassedArguments>& sites) {
  if (!child.yaml || sites.empty()) return std::nullopt;
  PassedArguments agreed;
  bool learned = false;
  for (const auto& arg : child.yaml->schema.arguments) {
    auto value_at = [&](const PassedArguments& site) {
      auto it = site.find(arg.name);
      return it == site.end() ? arg.default_value : it->second;
    };
    std::optional<std::string> value = value_at(sites.front());
    for (const auto& site : sites)
      if (value_at(site) != value) value.reset();
    if (value == arg.default_value) continue;
    learned = true;
    agreed[arg.name] = std::move(value);
  }
  if (!learned) return std::nullopt;
  return agreed;
}

std::optional<PassedArguments> ContradictedDefaults(const OpStep& child, const std::vector<PassedArguments>& sites) {
  if (!child.yaml) return std::nullopt;
  PassedArguments forgotten;
  for (const auto& arg : child.yaml->schema.arguments) {
    if (!arg.default_value) continue;
    for (const auto& site : sites)
      if (auto it = site.find(arg.name); it != site.end() && it->second != arg.default_value) {
        forgotten[arg.name] = std::nullopt;
        break;
      }
  }
  if (forgotten.empty()) return std::nullopt;
  return forgotten;
}

}  // namespace optrace
