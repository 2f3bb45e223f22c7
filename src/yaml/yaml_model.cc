// The YAML model: native_functions.yaml, tags.yaml and derivatives.yaml read
// into NativeFunction / DerivativeEntry records, resolved exactly as torchgen
// (torchgen/model.py NativeFunction.from_yaml and
// torchgen/native_function_generation.py add_generated_native_functions) does:
//   - dispatch keys joined by commas are split, in YAML order;
//   - no dispatch:, no structured:, no structured_delegate: means an implied
//     CompositeImplicitAutograd entry named after the C++ API (cpp.name);
//   - ufunc_inner_loop ops get CPU/CUDA kernels named ufunc_<op>_<Key>;
//   - pt2_compliant_tag is added to every op when tags.yaml defines it;
//   - the functional / out= variants torchgen generates for groups that lack
//     them become NativeFunction entries of their own, with the schema,
//     CompositeExplicitAutograd kernel and tags torchgen gives them.
// A few generation rules differ between torchgen releases; they are keyed on
// the checkout's release (TorchgenRules below) and checked against the
// torchgen of 1.13.1 and 2.6.0 by yaml_torchgen_test.cc.
#include "yaml/yaml_model.h"

#include <algorithm>
#include <cctype>
#include <unordered_map>
#include <unordered_set>

#include "base/text.h"
#include "yaml/yaml_tree.h"

namespace optrace {

namespace {

// ---------------------------------------------------------------------------
// Small text helpers.

// Splits on `sep` outside (), [], {} and quotes (schemas have no <>); pieces are trimmed.
std::vector<std::string> SplitOutside(std::string_view s, char sep) { return SplitTopLevel(s, sep, "([{", ")]}"); }

// Position of the first `c` outside brackets and quotes, or npos.
size_t FindOutside(std::string_view s, char c, bool last = false) {
  int depth = 0;
  char quote = 0;
  size_t found = std::string_view::npos;
  for (size_t i = 0; i < s.size(); ++i) {
    char ch = s[i];
    if (quote) {
      if (ch == '\\') ++i;
      else if (ch == quote) quote = 0;
      continue;
    }
    if (ch == '"' || ch == '\'') quote = ch;
    else if (ch == '(' || ch == '[' || ch == '{') ++depth;
    else if (ch == ')' || ch == ']' || ch == '}') --depth;
    else if (ch == c && depth == 0) {
      found = i;
      if (!last) return found;
    }
  }
  return found;
}

// "a, b,c" -> {"a", "b", "c"}, empty pieces dropped.
std::vector<std::string> SplitList(std::string_view s) {
  std::vector<std::string> out;
  for (auto& piece : SplitOutside(s, ',')) {
    if (!piece.empty()) out.push_back(std::move(piece));
  }
  return out;
}

bool Contains(const std::vector<std::string>& v, std::string_view x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

// ---------------------------------------------------------------------------
// Schema parsing (torchgen FunctionSchema.parse, Argument.parse, Return.parse).

// Splits "Tensor(a!)?" into type "Tensor?" and annotation "a!".
bool SplitAnnotation(std::string_view type_and_annot, SchemaArgument* arg, std::string* error) {
  if (type_and_annot.rfind("Tensor(", 0) == 0) {
    size_t close = type_and_annot.find(')');
    if (close == std::string_view::npos) {
      *error = "unclosed alias annotation in '" + std::string(type_and_annot) + "'";
      return false;
    }
    arg->annotation = std::string(type_and_annot.substr(7, close - 7));
    arg->type = "Tensor" + std::string(type_and_annot.substr(close + 1));
    if (arg->annotation.empty()) {
      *error = "empty alias annotation in '" + std::string(type_and_annot) + "'";
      return false;
    }
  } else {
    arg->type = std::string(type_and_annot);
  }
  bool type_ok = !arg->type.empty() && std::all_of(arg->type.begin(), arg->type.end(), [](char c) {
    return IsIdentChar(c) || c == '.' || c == '?' || c == '[' || c == ']';
  });
  if (!type_ok) {
    *error = "bad type '" + arg->type + "'";
    return false;
  }
  return true;
}

// The last space outside parentheses: "Tensor(a -> *) self" splits before "self".
size_t LastSpaceOutsideParens(std::string_view s) {
  int depth = 0;
  size_t found = std::string_view::npos;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '(') ++depth;
    else if (s[i] == ')') --depth;
    else if (s[i] == ' ' && depth == 0) found = i;
  }
  return found;
}

bool ParseArgument(std::string_view text, SchemaArgument* arg, std::string* error) {
  std::string_view head = text;
  size_t eq = FindOutside(text, '=');
  if (eq != std::string_view::npos) {
    head = TrimView(text.substr(0, eq));
    arg->default_value = std::string(TrimView(text.substr(eq + 1)));
  }
  size_t space = LastSpaceOutsideParens(head);
  if (space == std::string_view::npos) {
    *error = "argument without a name: '" + std::string(text) + "'";
    return false;
  }
  arg->name = std::string(TrimView(head.substr(space + 1)));
  if (!IsIdentifier(arg->name)) {
    *error = "bad argument name in '" + std::string(text) + "'";
    return false;
  }
  return SplitAnnotation(TrimView(head.substr(0, space)), arg, error);
}

bool ParseReturn(std::string_view text, SchemaArgument* ret, std::string* error) {
  size_t space = LastSpaceOutsideParens(text);
  std::string_view type = text;
  if (space != std::string_view::npos) {
    ret->name = std::string(TrimView(text.substr(space + 1)));
    type = TrimView(text.substr(0, space));
    if (!IsIdentifier(ret->name)) {
      *error = "bad return name in '" + std::string(text) + "'";
      return false;
    }
  }
  return SplitAnnotation(type, ret, error);
}

bool IsWrite(const SchemaArgument& a) { return a.annotation.find('!') != std::string::npos; }

// The alias letters before '!' / " -> " ("a|b" -> {"a","b"}).
std::vector<std::string> AliasSetBefore(const std::string& ann) {
  std::string before = ann.substr(0, ann.find_first_of("! "));
  return SplitOutside(before, '|');
}
bool AliasAfterIsWildcard(const std::string& ann) {
  size_t arrow = ann.find("->");
  return arrow != std::string::npos && ann.find('*', arrow) != std::string::npos;
}

// "Tensor?[]" -> "Tensor": the base type under optional / list suffixes.
std::string_view BaseTypeOf(std::string_view type) {
  while (!type.empty()) {
    if (type.back() == '?') {
      type.remove_suffix(1);
    } else if (type.back() == ']') {
      size_t open = type.rfind('[');
      if (open == std::string_view::npos) break;
      type = type.substr(0, open);
    } else {
      break;
    }
  }
  return type;
}
bool IsTensorLike(const std::string& type) { return BaseTypeOf(type) == "Tensor"; }
bool IsSymIntLike(const std::string& type) { return BaseTypeOf(type) == "SymInt"; }

std::string ArgumentToString(const SchemaArgument& a, bool is_return) {
  std::string type = a.type;
  if (!a.annotation.empty()) {
    size_t t = type.find("Tensor");
    if (t != std::string::npos) type.insert(t + 6, "(" + a.annotation + ")");
  }
  std::string out = type;
  if (!a.name.empty()) out += " " + a.name;
  if (!is_return && a.default_value && !a.default_value->empty()) out += "=" + *a.default_value;
  return out;
}

// ---------------------------------------------------------------------------
// torchgen's view of a schema: operator-name parts, argument groups, kind.

const char* const kAugmentedAssignmentNames[] = {"add",    "sub",    "mul", "div", "mod", "pow",
                                                 "lshift", "rshift", "and", "xor", "or"};

// torchgen BaseOperatorName.
struct BaseName {
  std::string base;
  bool inplace = false;
  bool dunder = false;
  bool functional_overload = false;

  static BaseName Parse(const std::string& op) {
    BaseName b;
    if (op.size() > 4 && op.rfind("__", 0) == 0 && op.compare(op.size() - 2, 2, "__") == 0 &&
        op.substr(2, op.size() - 4).find('_') == std::string::npos) {
      b.dunder = true;
      b.base = op.substr(2, op.size() - 4);
      for (const char* n : kAugmentedAssignmentNames) {
        if (b.base == std::string("i") + n) {
          b.inplace = true;
          b.base = b.base.substr(1);
        }
      }
    } else {
      b.base = op;
      if (!b.base.empty() && b.base.back() == '_') {
        b.inplace = true;
        b.base.pop_back();
      }
    }
    static const std::string kFunctional = "_functional";
    if (b.base.size() > kFunctional.size() &&
        b.base.compare(b.base.size() - kFunctional.size(), kFunctional.size(), kFunctional) == 0) {
      b.functional_overload = true;
      b.base.resize(b.base.size() - kFunctional.size());
    }
    return b;
  }
  std::string Str() const {
    if (dunder) return "__" + std::string(inplace ? "i" : "") + base + "__";
    return base + (inplace ? "_" : functional_overload ? "_functional" : "");
  }
};

// Indices into schema.arguments, grouped the way torchgen's Arguments does.
struct ArgGroups {
  std::vector<size_t> positional, kwarg_only, out;
  int self = -1;                  // index into arguments, or -1
  std::vector<size_t> post_self;  // positional after self (all positional when no self)
  int tensor_options = -1;        // position in kwarg_only where dtype/layout/device/pin_memory start
};

ArgGroups GroupArguments(const FunctionSchema& s) {
  ArgGroups g;
  for (size_t i = 0; i < s.arguments.size(); ++i) {
    const auto& a = s.arguments[i];
    if (a.is_out) g.out.push_back(i);
    else if (a.kwarg_only) g.kwarg_only.push_back(i);
    else g.positional.push_back(i);
  }
  for (size_t p = 0; p < g.positional.size(); ++p) {
    if (s.arguments[g.positional[p]].name == "self") {
      g.self = static_cast<int>(g.positional[p]);
      g.post_self.assign(g.positional.begin() + p + 1, g.positional.end());
      break;
    }
  }
  if (g.self < 0) g.post_self = g.positional;
  static const std::pair<const char*, const char*> kOptions[] = {
      {"dtype", "ScalarType"}, {"layout", "Layout"}, {"device", "Device"}, {"pin_memory", "bool"}};
  for (size_t k = 0; k + 4 <= g.kwarg_only.size(); ++k) {
    bool all = true;
    for (size_t j = 0; j < 4 && all; ++j) {
      const auto& a = s.arguments[g.kwarg_only[k + j]];
      all = a.name == kOptions[j].first &&
            (a.type == kOptions[j].second || a.type == std::string(kOptions[j].second) + "?");
    }
    if (all) {
      g.tensor_options = static_cast<int>(k);
      break;
    }
  }
  return g;
}

enum class SchemaKind { kFunctional, kInplace, kOut, kMutable, kScratch };

SchemaKind KindOf(const FunctionSchema& s) {
  ArgGroups g = GroupArguments(s);
  if (BaseName::Parse(s.name).inplace) return SchemaKind::kInplace;
  for (size_t i : g.out) {
    if (s.arguments[i].name.rfind("_scratch_", 0) == 0) return SchemaKind::kScratch;
  }
  if (!g.out.empty()) return SchemaKind::kOut;
  for (size_t i : g.post_self) {
    if (IsWrite(s.arguments[i])) return SchemaKind::kMutable;
  }
  return SchemaKind::kFunctional;
}

// torchgen FunctionSchema.signature(): the schema shared by the functional,
// inplace, out= and mutable variants of one operator.
FunctionSchema SignatureOf(const FunctionSchema& s, bool keep_return_names) {
  ArgGroups g = GroupArguments(s);
  BaseName b = BaseName::Parse(s.name);
  FunctionSchema sig;
  sig.name = BaseName{b.base, false, b.dunder, false}.Str();
  auto stripped = [&](size_t i) {
    SchemaArgument a = s.arguments[i];
    a.annotation.clear();
    a.is_out = false;
    return a;
  };
  for (size_t i : g.positional) sig.arguments.push_back(stripped(i));
  for (size_t k = 0; k < g.kwarg_only.size(); ++k) {
    if (g.tensor_options >= 0 && k >= static_cast<size_t>(g.tensor_options) &&
        k < static_cast<size_t>(g.tensor_options) + 4) {
      continue;  // TensorOptions are dropped so factory functions pair with their out= variants
    }
    sig.arguments.push_back(stripped(g.kwarg_only[k]));
  }
  if (s.full_name() == "bernoulli.p") {
    // torchgen Note [bernoulli.p schema].
    for (auto& a : sig.arguments) {
      if (a.type == "float" && a.name == "p" && !a.default_value) a.default_value = "0.5";
    }
  }
  for (const auto& r : s.returns) {
    SchemaArgument nr;
    nr.type = r.type;
    if (keep_return_names) nr.name = r.name;
    sig.returns.push_back(nr);
  }
  std::vector<size_t> mutable_inputs;
  if (g.self >= 0) mutable_inputs.push_back(g.self);
  mutable_inputs.insert(mutable_inputs.end(), g.out.begin(), g.out.end());
  mutable_inputs.insert(mutable_inputs.end(), g.post_self.begin(), g.post_self.end());
  for (size_t i : mutable_inputs) {
    const auto& a = s.arguments[i];
    if (!IsWrite(a)) continue;
    bool returned = std::any_of(s.returns.begin(), s.returns.end(),
                                [&](const SchemaArgument& r) { return r.annotation == a.annotation; });
    if (returned) continue;
    SchemaArgument nr;
    nr.type = a.type;
    if (keep_return_names) nr.name = a.name + "_out";
    sig.returns.push_back(nr);
  }
  sig.text = FunctionSchemaToString(sig);
  return sig;
}

// ---------------------------------------------------------------------------
// Release-dependent torchgen rules. Verified against the torchgen of 1.13.1
// ("old") and 2.6.0 ("new"); releases before 2.0 take the old rules.
struct TorchgenRules {
  bool old = false;
  static TorchgenRules ForRelease(std::string_view release) {
    TorchgenRules r;
    int major = 0;
    size_t i = 0;
    while (i < release.size() && std::isdigit(static_cast<unsigned char>(release[i]))) {
      major = major * 10 + (release[i] - '0');
      ++i;
    }
    r.old = i > 0 && major < 2;
    return r;
  }
};

// torchgen NativeFunction.is_view_op.
bool IsViewOp(const NativeFunction& f, const TorchgenRules& rules) {
  const auto& rets = f.schema.returns;
  bool non_mutating_view = std::any_of(rets.begin(), rets.end(),
                                       [](const SchemaArgument& r) { return !r.annotation.empty() && !IsWrite(r); });
  std::string n = f.schema.full_name();
  bool inplace_view = Contains(f.tags, "inplace_view") && n != "resize_" && (rules.old || n != "resize_as_");
  bool wildcard_view = std::any_of(f.schema.arguments.begin(), f.schema.arguments.end(), [](const SchemaArgument& a) {
    return !a.annotation.empty() && AliasAfterIsWildcard(a.annotation);
  });
  return non_mutating_view || inplace_view || wildcard_view;
}

bool HasSymInt(const FunctionSchema& s, const TorchgenRules& rules) {
  for (const auto& a : s.arguments) {
    if (!a.is_out && IsSymIntLike(a.type)) return true;
  }
  if (rules.old) {
    for (const auto& r : s.returns) {
      if (IsSymIntLike(r.type)) return true;
    }
  }
  return false;
}

// torchgen generate_out_args_from_schema: out= arguments for the tensor-like returns.
void OutArgsFromReturns(const FunctionSchema& s, std::vector<SchemaArgument>* new_returns,
                        std::vector<SchemaArgument>* new_out_args) {
  std::unordered_set<std::string> used;
  for (const auto& a : s.arguments) {
    if (a.annotation.empty()) continue;
    for (auto& l : AliasSetBefore(a.annotation)) used.insert(l);
  }
  std::vector<std::string> valid;
  for (char c = 'a'; c <= 'z'; ++c) {
    if (!used.count(std::string(1, c))) valid.emplace_back(1, c);
  }
  bool all_tensors =
      std::all_of(s.returns.begin(), s.returns.end(), [](const SchemaArgument& r) { return r.type == "Tensor"; });
  for (size_t i = 0; i < s.returns.size(); ++i) {
    const auto& r = s.returns[i];
    if (IsTensorLike(r.type)) {
      SchemaArgument out;
      out.name = s.returns.size() == 1 ? "out" : "out" + std::to_string(i);
      out.type = r.type;
      out.annotation = (i < valid.size() ? valid[i] : std::string("z")) + "!";
      out.kwarg_only = true;
      out.is_out = true;
      new_out_args->push_back(out);
      if (all_tensors) {
        SchemaArgument ret;
        ret.type = out.type;
        ret.annotation = out.annotation;
        new_returns->push_back(ret);
      }
    } else {
      new_returns->push_back(r);
    }
  }
}

std::string OutOverloadName(const std::string& overload) { return overload.empty() ? "out" : overload + "_out"; }

// torchgen generate_function(f, kind): the schema of the generated variant.
FunctionSchema GeneratedSchema(const FunctionSchema& f, SchemaKind target) {
  SchemaKind kind = KindOf(f);
  BaseName b = BaseName::Parse(f.name);
  FunctionSchema g;
  if (target == SchemaKind::kFunctional) {
    g = SignatureOf(f, /*keep_return_names=*/true);
    g.name = BaseName{b.base, false, b.dunder, kind == SchemaKind::kMutable}.Str();
    g.overload = f.overload;
  } else if (kind == SchemaKind::kInplace) {
    g.name = BaseName{b.base, false, b.dunder, false}.Str();
    g.overload = OutOverloadName(f.overload);
    ArgGroups groups = GroupArguments(f);
    g.arguments = f.arguments;
    SchemaArgument out;
    if (groups.self >= 0) {
      g.arguments[groups.self].annotation.clear();
      out = f.arguments[groups.self];
    }
    out.name = "out";
    out.default_value.reset();
    out.kwarg_only = true;
    out.is_out = true;
    g.arguments.push_back(out);
    g.returns = f.returns;
  } else {
    std::vector<SchemaArgument> new_returns, new_outs;
    OutArgsFromReturns(f, &new_returns, &new_outs);
    g.name = BaseName{b.base, false, b.dunder, false}.Str();
    g.overload = OutOverloadName(f.overload);
    g.arguments = kind == SchemaKind::kMutable ? f.arguments : SignatureOf(f, false).arguments;
    g.arguments.insert(g.arguments.end(), new_outs.begin(), new_outs.end());
    g.returns = new_returns;
  }
  g.text = FunctionSchemaToString(g);
  return g;
}

// native_function_generation.py INPLACE_OPS_THAT_DONT_GET_GROUPED_PROPERLY.
const char* const kInplaceOpsThatDontGetGroupedProperly[] = {"polygamma_"};

// torchgen add_generated_native_functions: appends the functional and out=
// variants torchgen generates for operator groups missing them.
void AddGeneratedFunctions(const TorchgenRules& rules, std::vector<NativeFunction>* functions) {
  struct Group {
    std::map<SchemaKind, size_t> by_kind;
  };
  std::vector<Group> groups;
  std::unordered_map<std::string, size_t> group_of_signature;
  for (size_t i = 0; i < functions->size(); ++i) {
    const auto& f = (*functions)[i];
    std::string key = SignatureOf(f.schema, false).text;
    auto [it, inserted] = group_of_signature.emplace(key, groups.size());
    if (inserted) groups.emplace_back();
    groups[it->second].by_kind.emplace(KindOf(f.schema), i);
  }
  for (const Group& group : groups) {
    auto has = [&](SchemaKind k) { return group.by_kind.count(k) > 0; };
    auto fn = [&](SchemaKind k) -> const NativeFunction& { return (*functions)[group.by_kind.at(k)]; };
    bool has_functional = has(SchemaKind::kFunctional), has_inplace = has(SchemaKind::kInplace);
    bool has_mutable = has(SchemaKind::kMutable), has_out = has(SchemaKind::kOut);
    if (!(has_functional || has_inplace || has_mutable || has_out)) continue;
    bool are_manual = true, has_view_ops = false, are_composite_implicit = true, is_core = false;
    for (const auto& [kind, index] : group.by_kind) {
      const NativeFunction& f = (*functions)[index];
      are_manual = are_manual && f.manual_cpp_binding;
      // set_ is an inplace_view that the newer torchgen generates variants for anyway.
      if (IsViewOp(f, rules) && (rules.old || BaseName::Parse(f.schema.name).Str() != "set_")) has_view_ops = true;
      are_composite_implicit = are_composite_implicit && f.DispatchFor("CompositeImplicitAutograd") != nullptr;
      is_core = is_core || Contains(f.tags, "core");
    }
    if (rules.old) is_core = false;  // the old torchgen generated nothing for composite ops
    if (are_manual || has_view_ops || (are_composite_implicit && !is_core)) continue;
    if (has_out && group.by_kind.size() == 1) continue;
    if (has_inplace) {
      std::string name = fn(SchemaKind::kInplace).schema.full_name();
      bool skip = false;
      for (const char* n : kInplaceOpsThatDontGetGroupedProperly) skip = skip || name == n;
      if (skip) continue;
    }
    // The old torchgen preferred the inplace variant over the mutable one as the base.
    size_t base_index = rules.old ? (has_inplace   ? group.by_kind.at(SchemaKind::kInplace)
                                     : has_mutable ? group.by_kind.at(SchemaKind::kMutable)
                                     : has_out     ? group.by_kind.at(SchemaKind::kOut)
                                                   : group.by_kind.at(SchemaKind::kFunctional))
                                  : (has_mutable   ? group.by_kind.at(SchemaKind::kMutable)
                                     : has_inplace ? group.by_kind.at(SchemaKind::kInplace)
                                     : has_out     ? group.by_kind.at(SchemaKind::kOut)
                                                   : group.by_kind.at(SchemaKind::kFunctional));
    const NativeFunction base = (*functions)[base_index];  // copy: functions grows below
    SchemaKind base_kind = KindOf(base.schema);
    bool base_valid =
        base_kind == SchemaKind::kInplace || std::any_of(base.schema.returns.begin(), base.schema.returns.end(),
                                                         [](const SchemaArgument& r) { return IsTensorLike(r.type); });
    bool needs_out = std::any_of(base.autogen.begin(), base.autogen.end(),
                                 [](const std::string& n) { return n.find("out") != std::string::npos; });
    bool gets_out = !has_out && base_valid && needs_out;

    auto generate = [&](SchemaKind target) {
      NativeFunction g;
      g.schema = GeneratedSchema(base.schema, target);
      g.name = g.schema.full_name();
      g.line = base.line;
      g.variants = {"function"};
      // Generated out= kernels take the unambiguous name (name_overload), others cpp.name.
      std::string kernel = KindOf(g.schema) == SchemaKind::kOut
                               ? g.schema.name + (g.schema.overload.empty() ? "" : "_" + g.schema.overload)
                               : g.schema.name + (g.schema.is_out() ? "_out" : "");
      if (HasSymInt(base.schema, rules)) kernel += "_symint";
      g.dispatch = {{"CompositeExplicitAutograd", kernel}};
      g.autogen_from = base.name;
      g.tags = {"generated"};
      for (const auto& t : base.tags) {
        bool kept = t == "nondeterministic_seeded" || (!rules.old && (t == "view_copy" || t == "pt2_compliant_tag"));
        if (kept && !Contains(g.tags, t)) g.tags.push_back(t);
      }
      g.device_guard = "False";
      g.device_check = "NoCheck";
      functions->push_back(std::move(g));
    };
    if (gets_out) generate(SchemaKind::kOut);
    if (!has_functional && (has_out || gets_out)) generate(SchemaKind::kFunctional);
  }
}

// ---------------------------------------------------------------------------
// Reading native_functions.yaml entries.

struct NativeContext {
  std::string_view file;
  bool add_pt2_compliant_tag = false;
};

Status EntryError(const NativeContext& ctx, int line, const std::string& what) {
  return Status::SourceError(std::string(ctx.file) + ":" + std::to_string(line) + ": " + what);
}

// Scalar text of a node (null -> ""), or an error when it is a list/map.
bool ScalarText(const YamlNode& n, std::string* out) {
  if (n.kind == YamlNode::Kind::kNull) {
    out->clear();
    return true;
  }
  if (!n.is_scalar()) return false;
  *out = n.value;
  return true;
}

// torchgen's NamespaceHelper: "at::native::foo" -> "foo".
std::string KernelEntityName(const std::string& v) {
  size_t colons = v.rfind("::");
  return colons == std::string::npos ? v : v.substr(colons + 2);
}

Status ReadNativeFunction(const YamlNode& e, const NativeContext& ctx, NativeFunction* f) {
  f->line = e.line;
  if (!e.is_mapping()) return EntryError(ctx, e.line, "expected a mapping with func:");
  const YamlNode* func = e.Get("func");
  std::string func_text;
  if (!func || !ScalarText(*func, &func_text) || func_text.empty()) {
    return EntryError(ctx, e.line, "entry without a func: schema");
  }
  std::string error;
  std::string entity = func_text;
  size_t colons = entity.find("::");
  if (colons != std::string::npos && colons < entity.find('(')) entity = entity.substr(colons + 2);
  if (!ParseFunctionSchema(entity, &f->schema, &error)) {
    return EntryError(ctx, func->line, "bad schema: " + error);
  }
  f->schema.text = func_text;
  f->name = f->schema.full_name();

  bool has_dispatch = false;
  for (size_t i = 0; i + 1 < e.items.size(); i += 2) {
    const YamlNode& k = e.items[i];
    const YamlNode& v = e.items[i + 1];
    const std::string& key = k.value;
    std::string text;
    auto want_bool = [&](bool* out) -> Status {
      if (!v.AsBool(out)) return EntryError(ctx, v.line, key + ": expected True or False");
      return Status::Ok();
    };
    auto want_scalar = [&](std::string* out) -> Status {
      if (!ScalarText(v, out)) return EntryError(ctx, v.line, key + ": expected a scalar");
      return Status::Ok();
    };
    Status s;
    if (key == "func") {
      continue;
    } else if (key == "variants") {
      s = want_scalar(&text);
      f->variants = SplitList(text);
    } else if (key == "dispatch") {
      if (v.kind == YamlNode::Kind::kNull) continue;
      if (!v.is_mapping()) return EntryError(ctx, v.line, "dispatch: expected a mapping");
      has_dispatch = true;
      for (size_t j = 0; j + 1 < v.items.size(); j += 2) {
        std::string keys, kernel;
        if (!ScalarText(v.items[j], &keys) || !ScalarText(v.items[j + 1], &kernel) || kernel.empty()) {
          return EntryError(ctx, v.items[j].line, "dispatch: expected 'Key: kernel'");
        }
        for (auto& dk : SplitOutside(keys, ',')) {
          if (!IsIdentifier(dk)) return EntryError(ctx, v.items[j].line, "dispatch: bad key '" + dk + "'");
          auto same =
              std::find_if(f->dispatch.begin(), f->dispatch.end(), [&](const auto& p) { return p.first == dk; });
          if (same != f->dispatch.end()) same->second = KernelEntityName(kernel);
          else f->dispatch.emplace_back(dk, KernelEntityName(kernel));
        }
      }
    } else if (key == "structured") {
      s = want_bool(&f->structured);
    } else if (key == "structured_delegate") {
      s = want_scalar(&text);
      if (!text.empty()) f->structured_delegate = text;
    } else if (key == "structured_inherits") {
      s = want_scalar(&text);
      if (!text.empty()) f->structured_inherits = text;
    } else if (key == "precomputed") {
      if (v.is_sequence()) {
        for (const auto& item : v.items) f->precomputed.push_back(item.is_scalar() ? item.value : item.Flow());
      } else if (v.is_scalar()) {
        f->precomputed.push_back(v.value);
      }
    } else if (key == "autogen") {
      s = want_scalar(&text);
      f->autogen = SplitList(text);
    } else if (key == "ufunc_inner_loop") {
      if (v.is_scalar()) {
        f->ufunc_inner_loop.emplace_back("Generic", v.value);
      } else if (v.is_mapping()) {
        for (size_t j = 0; j + 1 < v.items.size(); j += 2) {
          std::string uk, uv;
          if (!ScalarText(v.items[j], &uk) || !ScalarText(v.items[j + 1], &uv)) {
            return EntryError(ctx, v.items[j].line, "ufunc_inner_loop: expected 'Key: loop (dtypes)'");
          }
          f->ufunc_inner_loop.emplace_back(uk, uv);
        }
      } else if (v.kind != YamlNode::Kind::kNull) {
        return EntryError(ctx, v.line, "ufunc_inner_loop: expected a scalar or mapping");
      }
    } else if (key == "tags") {
      // 2.x takes a string or a list; 1.x a ", "-joined string.
      if (v.is_sequence()) {
        for (const auto& item : v.items) {
          if (item.is_scalar() && !Contains(f->tags, item.value)) f->tags.push_back(item.value);
        }
      } else {
        s = want_scalar(&text);
        for (auto& t : SplitList(text)) {
          if (!Contains(f->tags, t)) f->tags.push_back(t);
        }
      }
    } else if (key == "python_module") {
      s = want_scalar(&text);
      if (!text.empty()) f->python_module = text;
    } else if (key == "device_check") {
      s = want_scalar(&text);
      f->device_check = text;
    } else if (key == "device_guard") {
      s = want_scalar(&text);
      f->device_guard = text;
    } else if (key == "category_override") {
      s = want_scalar(&text);
      f->category_override = text;
    } else if (key == "manual_kernel_registration") {
      s = want_bool(&f->manual_kernel_registration);
    } else if (key == "manual_cpp_binding") {
      s = want_bool(&f->manual_cpp_binding);
    } else {
      f->other_keys.emplace_back(key, v.is_scalar() ? v.value : v.Flow());
      if (key == "cpp_no_default_args")
        for (const auto& item : v.items)
          if (item.is_scalar()) f->cpp_no_default_args.push_back(item.value);
    }
    if (!s.ok()) return s;
  }
  if (f->variants.empty()) f->variants = {"function"};
  if (ctx.add_pt2_compliant_tag && !Contains(f->tags, "pt2_compliant_tag")) f->tags.push_back("pt2_compliant_tag");

  // torchgen: no dispatch table on a non-structured op means one
  // CompositeImplicitAutograd kernel named like the C++ API function.
  if (!has_dispatch && !f->structured && !f->structured_delegate) {
    f->dispatch.emplace_back("CompositeImplicitAutograd", f->schema.name + (f->schema.is_out() ? "_out" : ""));
    f->implicit_composite = true;
  }
  if (!f->ufunc_inner_loop.empty()) {
    // torchgen ufunc.schema_kernel_name: ufunc_<base operator name>_<DispatchKey>.
    for (const char* key : {"CPU", "CUDA"}) {
      f->dispatch.emplace_back(key, "ufunc_" + BaseName::Parse(f->schema.name).Str() + "_" + key);
    }
  }
  return Status::Ok();
}

// ---------------------------------------------------------------------------
// derivatives.yaml.

Status ReadFormulas(const YamlNode& map, std::string_view file, std::vector<DerivativeFormula>* out) {
  for (size_t i = 0; i + 1 < map.items.size(); i += 2) {
    const YamlNode& k = map.items[i];
    const YamlNode& v = map.items[i + 1];
    DerivativeFormula formula;
    if (!ScalarText(k, &formula.inputs)) {
      return Status::SourceError(std::string(file) + ":" + std::to_string(k.line) + ": expected 'inputs: formula'");
    }
    formula.formula = v.is_scalar() ? v.value : v.kind == YamlNode::Kind::kNull ? "" : v.Flow();
    formula.line = k.line;
    out->push_back(std::move(formula));
  }
  return Status::Ok();
}

Status ReadDerivative(const YamlNode& e, std::string_view file, DerivativeEntry* d) {
  auto error = [&](int line, const std::string& what) {
    return Status::SourceError(std::string(file) + ":" + std::to_string(line) + ": " + what);
  };
  d->line = e.line;
  if (!e.is_mapping()) return error(e.line, "expected a mapping with name:");
  const YamlNode* name = e.Get("name");
  if (!name || !ScalarText(*name, &d->text) || d->text.empty()) return error(e.line, "entry without a name: schema");
  std::string why;
  if (!ParseFunctionSchema(d->text, &d->schema, &why)) return error(name->line, "bad schema: " + why);
  d->name = d->schema.full_name();
  for (size_t i = 0; i + 1 < e.items.size(); i += 2) {
    const YamlNode& k = e.items[i];
    const YamlNode& v = e.items[i + 1];
    if (k.value == "name") continue;
    if (k.value == "output_differentiability") {
      d->output_differentiability = v.is_scalar() ? v.value : v.Flow();
    } else if (k.value == "dispatch") {
      if (!v.is_mapping()) return error(v.line, "dispatch: expected a mapping of dispatch keys");
      for (size_t j = 0; j + 1 < v.items.size(); j += 2) {
        const YamlNode& section = v.items[j + 1];
        std::vector<DerivativeFormula> formulas;
        if (section.is_mapping()) {
          Status s = ReadFormulas(section, file, &formulas);
          if (!s.ok()) return s;
        } else if (section.kind != YamlNode::Kind::kNull) {
          return error(section.line, "dispatch section: expected 'inputs: formula' lines");
        }
        d->dispatch_sections.emplace_back(v.items[j].value, std::move(formulas));
      }
    } else {
      DerivativeFormula formula;
      if (!ScalarText(k, &formula.inputs)) return error(k.line, "expected 'inputs: formula'");
      formula.formula = v.is_scalar() ? v.value : v.kind == YamlNode::Kind::kNull ? "" : v.Flow();
      formula.line = k.line;
      d->formulas.push_back(std::move(formula));
    }
  }
  return Status::Ok();
}

}  // namespace

// ---------------------------------------------------------------------------
// Public API.

bool FunctionSchema::is_out() const {
  return std::any_of(arguments.begin(), arguments.end(), [](const SchemaArgument& a) { return a.is_out; });
}

bool IsForwardDerivative(const DerivativeEntry& d, const DerivativeFormula& f) {
  for (const std::string& name : SplitTopLevel(f.inputs, ',')) {
    std::string_view n = TrimView(name);
    if (n == "result") return true;
    if (StartsWith(n, "result") && n.size() > 6 &&
        std::all_of(n.begin() + 6, n.end(), [](char c) { return c >= '0' && c <= '9'; }))
      return true;
    for (const SchemaArgument& r : d.schema.returns)
      if (!r.name.empty() && r.name == n) return true;
  }
  return false;
}

bool ParseFunctionSchema(std::string_view text, FunctionSchema* out, std::string* error) {
  *out = FunctionSchema();
  text = TrimView(text);
  out->text = std::string(text);
  size_t open = text.find('(');
  size_t arrow = text.rfind(") -> ");
  if (open == std::string_view::npos || open == 0 || arrow == std::string_view::npos || arrow < open) {
    *error = "expected 'name(args) -> returns' in '" + std::string(text) + "'";
    return false;
  }
  std::string_view name = text.substr(0, open);
  size_t dot = name.find('.');
  out->name = std::string(name.substr(0, dot));
  if (dot != std::string_view::npos) out->overload = std::string(name.substr(dot + 1));
  if (!IsIdentifier(out->name) || (dot != std::string_view::npos && !IsIdentifier(out->overload))) {
    *error = "bad operator name '" + std::string(name) + "'";
    return false;
  }
  std::string_view args = text.substr(open + 1, arrow - open - 1);
  bool kwarg_only = false, in_out = false;
  for (const auto& piece : SplitOutside(args, ',')) {
    if (piece.empty()) continue;
    if (piece == "*") {
      if (kwarg_only) {
        *error = "'*' given twice";
        return false;
      }
      kwarg_only = true;
      continue;
    }
    SchemaArgument a;
    if (!ParseArgument(piece, &a, error)) return false;
    a.kwarg_only = kwarg_only;
    // torchgen: the first mutable kwarg-only argument starts the out= arguments.
    if (kwarg_only && IsWrite(a)) in_out = true;
    a.is_out = in_out;
    out->arguments.push_back(std::move(a));
  }
  std::string_view rets = TrimView(text.substr(arrow + 5));
  if (rets.empty()) {
    *error = "missing returns";
    return false;
  }
  if (rets != "()") {
    if (rets.front() == '(' && rets.back() == ')') rets = rets.substr(1, rets.size() - 2);
    for (const auto& piece : SplitOutside(rets, ',')) {
      SchemaArgument r;
      if (piece.empty() || !ParseReturn(piece, &r, error)) {
        if (piece.empty()) *error = "empty return";
        return false;
      }
      out->returns.push_back(std::move(r));
    }
  }
  return true;
}

std::string FunctionSchemaToString(const FunctionSchema& s) {
  std::string out = s.full_name() + "(";
  bool first = true, star = false;
  for (const auto& a : s.arguments) {
    if (!first) out += ", ";
    if (a.kwarg_only && !star) {
      out += "*, ";
      star = true;
    }
    out += ArgumentToString(a, false);
    first = false;
  }
  out += ") -> ";
  if (s.returns.size() == 1) {
    out += ArgumentToString(s.returns[0], true);
  } else {
    out += "(";
    for (size_t i = 0; i < s.returns.size(); ++i) {
      if (i) out += ", ";
      out += ArgumentToString(s.returns[i], true);
    }
    out += ")";
  }
  return out;
}

size_t NativeFunction::CppRequiredArguments() const {
  size_t required = 0, position = 0;
  for (const auto& a : schema.arguments) {
    if (a.is_out) continue;
    ++position;
    if (!a.default_value || Contains(cpp_no_default_args, a.name)) required = position;
  }
  return required;
}

const std::string* NativeFunction::DispatchFor(std::string_view key) const {
  for (const auto& [k, kernel] : dispatch) {
    if (k == key) return &kernel;
  }
  return nullptr;
}

bool NativeFunction::HasVariant(std::string_view v) const { return Contains(variants, v); }

namespace {

// An optional file: absent is fine; one the disk refuses (a symlink leading
// out of the checkout) is an error naming it, never silently dropped -- a
// model without derivatives.yaml would trace no backward at all.
Status ReadOptional(const Disk& disk, const char* path, std::string* text) {
  if (disk.Exists(path)) return disk.ReadFile(path, text);
  if (disk.Present(path))
    return Status::SourceError(std::string(path) +
                               ": refused, it leads outside the checkout (or is dangling); optrace reads "
                               "only inside the checkout: put the file itself there");
  return Status::Ok();
}

}  // namespace

Status YamlModel::Load(const Disk& disk, YamlModel* model) {
  std::string native, tags, derivatives, version;
  Status s = disk.ReadFile(kNativeFunctionsPath, &native);
  if (!s.ok()) return s;
  s = ReadOptional(disk, kTagsPath, &tags);
  if (!s.ok()) return s;
  s = ReadOptional(disk, kDerivativesPath, &derivatives);
  if (!s.ok()) return s;
  if (disk.Exists("version.txt") && disk.ReadFile("version.txt", &version).ok()) {
    version = std::string(TrimView(version));
  }
  return LoadFromText(native, tags, derivatives, model, version);
}

Status YamlModel::LoadFromText(std::string_view native_functions, std::string_view tags, std::string_view derivatives,
                               YamlModel* model) {
  return LoadFromText(native_functions, tags, derivatives, model, "");
}

Status YamlModel::LoadFromText(std::string_view native_functions, std::string_view tags, std::string_view derivatives,
                               YamlModel* model, std::string_view release) {
  *model = YamlModel();
  model->release_ = std::string(release);
  TorchgenRules rules = TorchgenRules::ForRelease(release);

  YamlNode root;
  if (!tags.empty()) {
    Status s = ParseYaml(tags, kTagsPath, &root);
    if (!s.ok()) return s;
    if (root.is_sequence()) {
      for (const auto& e : root.items) {
        const YamlNode* tag = e.Get("tag");
        if (tag && tag->is_scalar()) model->known_tags_.push_back(tag->value);
      }
    } else if (root.kind != YamlNode::Kind::kNull) {
      return Status::SourceError(std::string(kTagsPath) + ":" + std::to_string(root.line) +
                                 ": expected a list of '- tag:' entries");
    }
  }

  Status s = ParseYaml(native_functions, kNativeFunctionsPath, &root);
  if (!s.ok()) return s;
  if (!root.is_sequence()) {
    return Status::SourceError(std::string(kNativeFunctionsPath) + ":" + std::to_string(std::max(root.line, 1)) +
                               ": expected a list of '- func:' entries");
  }
  NativeContext ctx{kNativeFunctionsPath, Contains(model->known_tags_, "pt2_compliant_tag")};
  model->functions_.reserve(root.items.size() + root.items.size() / 4);
  // torchgen groups entries by signature and asserts each kind appears once:
  // a second entry of one name is an error, never a silent shadow.
  std::unordered_map<std::string, int> entry_line;
  for (const auto& e : root.items) {
    NativeFunction f;
    s = ReadNativeFunction(e, ctx, &f);
    if (!s.ok()) return s;
    if (auto [it, inserted] = entry_line.emplace(f.name, f.line); !inserted)
      return EntryError(
          ctx, f.line,
          "duplicate entry " + f.name + " (first at line " + std::to_string(it->second) + "); torchgen rejects it");
    model->functions_.push_back(std::move(f));
  }
  AddGeneratedFunctions(rules, &model->functions_);

  if (!derivatives.empty()) {
    s = ParseYaml(derivatives, kDerivativesPath, &root);
    if (!s.ok()) return s;
    if (root.is_sequence()) {
      for (const auto& e : root.items) {
        DerivativeEntry d;
        s = ReadDerivative(e, kDerivativesPath, &d);
        if (!s.ok()) return s;
        model->derivatives_.push_back(std::move(d));
      }
    } else if (root.kind != YamlNode::Kind::kNull) {
      return Status::SourceError(std::string(kDerivativesPath) + ":" + std::to_string(root.line) +
                                 ": expected a list of '- name:' entries");
    }
  }
  model->BuildLookups();
  return Status::Ok();
}

void YamlModel::BuildLookups() {
  for (size_t i = 0; i < functions_.size(); ++i) {
    by_full_name_.emplace(functions_[i].name, i);
    by_base_[functions_[i].schema.name].push_back(i);
  }
  for (size_t i = 0; i < derivatives_.size(); ++i) derivative_by_name_.emplace(derivatives_[i].name, i);
}

const NativeFunction* YamlModel::GeneratedKernelCallee(const NativeFunction& fn) const {
  // native_function_generation.py writes a generated functional kernel as
  // "clone the mutated inputs, call the in-place or mutable op" -- the op
  // whose `autogen:` made it -- and a generated out= kernel as "call the
  // group's functional, copy into out": the functional generated from the
  // same op when there is one, else that op itself.
  if (!fn.autogen_from) return nullptr;
  const NativeFunction* base = Find(*fn.autogen_from);
  if (!base || !fn.schema.is_out()) return base;
  for (const NativeFunction& other : functions_) {
    if (&other != &fn && other.autogen_from == fn.autogen_from && !other.schema.is_out()) return &other;
  }
  return base;
}

namespace {

// torchgen's FunctionSchema.is_view_op: a return aliasing an input without
// writing it (`Tensor(a)`, `Tensor(a)[]`).
bool ReturnsAlias(const FunctionSchema& s) {
  for (const SchemaArgument& r : s.returns)
    if (!r.annotation.empty() && r.annotation.back() != '!') return true;
  return false;
}

bool SameSignatureArguments(const FunctionSchema& a, const FunctionSchema& b);

}  // namespace

const NativeFunction* YamlModel::ViewOfCopy(const NativeFunction& fn) const {
  // gen.py's get_grouped_by_view_native_functions groups a view op with the
  // functional op of its signature whose base name is the view's plus
  // "_copy" (FunctionSchema.view_signature strips it; overload names are
  // not compared).
  constexpr std::string_view kCopy = "_copy";
  const FunctionSchema& s = fn.schema;
  if (!s.name.ends_with(kCopy) || s.is_out() || s.is_inplace() || ReturnsAlias(s)) return nullptr;
  for (const NativeFunction* view : Overloads(std::string_view(s.name).substr(0, s.name.size() - kCopy.size()))) {
    if (ReturnsAlias(view->schema) && !view->schema.is_inplace() && SameSignatureArguments(view->schema, s))
      return view;
  }
  return nullptr;
}

std::vector<const NativeFunction*> YamlModel::GeneratedKernelCallees(const NativeFunction& fn) const {
  if (fn.autogen_from) {
    const NativeFunction* callee = GeneratedKernelCallee(fn);
    return callee ? std::vector<const NativeFunction*>{callee} : std::vector<const NativeFunction*>{};
  }
  // gen_functionalization_type.py's GenCompositeViewCopyKernel writes
  // `auto output = at::_ops::<view>::call(...); return output.clone(...);`
  // (each tensor of a list cloned in turn).
  const NativeFunction* view = ViewOfCopy(fn);
  if (!view) return {};
  std::vector<const NativeFunction*> callees = {view};
  if (const NativeFunction* clone = Find("clone")) callees.push_back(clone);
  return callees;
}

const NativeFunction* YamlModel::Find(std::string_view full_name) const {
  auto it = by_full_name_.find(full_name);
  return it == by_full_name_.end() ? nullptr : &functions_[it->second];
}

std::vector<const NativeFunction*> YamlModel::Overloads(std::string_view base_name) const {
  std::vector<const NativeFunction*> out;
  auto it = by_base_.find(base_name);
  if (it == by_base_.end()) return out;
  out.reserve(it->second.size());
  for (size_t i : it->second) out.push_back(&functions_[i]);
  return out;
}

const DerivativeEntry* YamlModel::FindDerivative(std::string_view full_name) const {
  auto it = derivative_by_name_.find(full_name);
  return it == derivative_by_name_.end() ? nullptr : &derivatives_[it->second];
}

namespace {

// torchgen's FunctionSchema.signature() compared on arguments: the non-out
// arguments' types (mutability annotations and defaults dropped), names and
// kwarg-only-ness.
bool SameSignatureArguments(const FunctionSchema& a, const FunctionSchema& b) {
  auto in = [](const FunctionSchema& s) {
    std::vector<const SchemaArgument*> args;
    for (const SchemaArgument& x : s.arguments) {
      if (!x.is_out) args.push_back(&x);
    }
    return args;
  };
  std::vector<const SchemaArgument*> x = in(a), y = in(b);
  if (x.size() != y.size()) return false;
  for (size_t i = 0; i < x.size(); ++i) {
    if (x[i]->type != y[i]->type || x[i]->name != y[i]->name || x[i]->kwarg_only != y[i]->kwarg_only) return false;
  }
  return true;
}

}  // namespace

const DerivativeEntry* YamlModel::DerivativeOf(const NativeFunction& fn) const {
  if (const DerivativeEntry* own = FindDerivative(fn.name)) return own;
  // load_derivatives.py's add_view_copy_derivatives: a view_copy op with no
  // entry of its own is differentiated by its view's.
  if (const NativeFunction* view = ViewOfCopy(fn)) return FindDerivative(view->name);
  // torchgen (load_derivatives.py, match_differentiability_info): an op with
  // no entry of its own takes the entry of the functional op with its
  // signature -- clamp_min_.Tensor is differentiated by clamp_min.Tensor's
  // formulas. Only in-place ops run them (out= ops refuse autograd).
  if (!fn.schema.is_inplace()) return nullptr;
  std::string_view base = std::string_view(fn.schema.name).substr(0, fn.schema.name.size() - 1);
  for (const NativeFunction* functional : Overloads(base)) {
    if (functional->schema.is_out() || !SameSignatureArguments(functional->schema, fn.schema)) continue;
    if (const DerivativeEntry* d = FindDerivative(functional->name)) return d;
  }
  return nullptr;
}

}  // namespace optrace
