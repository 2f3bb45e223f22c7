// Each step reads the code the index points at: a local's writes and a
// helper's returns through the file's guard reader (cpp/cpp_guards.h), a
// parameter's callers through the index's call records. An expression is
// a size only on such evidence; anything else is not known to be one.
#include "trace/size_values.h"

#include <vector>

#include "base/text.h"
#include "cpp/cpp_params.h"
#include "trace/guard_files.h"
#include "trace/trace_typical.h"
#include "trace/walk_bounds.h"

namespace optrace {

namespace {

// `x.sizes()` / `x.sym_sizes()` of an identifier x.
bool IsSizesList(std::string_view e) {
  e = TrimView(e);
  for (std::string_view tail : {".sizes()", ".sym_sizes()"})
    if (e.size() > tail.size() && e.ends_with(tail) && IsIdentifier(e.substr(0, e.size() - tail.size()))) return true;
  return false;
}

// The only write of local `name` in function `fn` before `before` (0:
// anywhere): its value, "" when it has none or several.
std::string OnlyWrite(const Index& ix, int32_t fn, std::string_view name, int before, const BuiltLine& built) {
  const CppFunction& f = ix.cpp.functions()[fn];
  const CppGuardReader& r = GuardReaderOf(ix, ix.cpp.file(f.file));
  std::vector<CppGuardReader::Write> writes =
      r.Writes(static_cast<int>(f.line), before, name, [&](int line) { return built(r, line); });
  return writes.size() == 1 && writes.front().plain ? writes.front().value : "";
}

// A tensor's sizes list: written so, or a local holding it
// (`const auto input_shape = input.sizes();`).
bool SizesList(const Index& ix, int32_t fn, std::string_view e, const BuiltLine& built) {
  e = TrimView(e);
  if (IsSizesList(e)) return true;
  return IsIdentifier(e) && IsSizesList(OnlyWrite(ix, fn, e, 0, built));
}

// `c10::multiply_integers(a, b)` over a tensor's sizes: each argument the
// list, or an iterator into it (`shape.cbegin() + axis`, `shape.cend()`).
bool ProductOfSizes(const Index& ix, int32_t fn, std::string_view e, const BuiltLine& built) {
  e = TrimView(e);
  const size_t open = e.find("multiply_integers(");
  if (open == std::string_view::npos || (open > 0 && !e.substr(0, open).ends_with("::")) || !e.ends_with(")"))
    return false;
  const size_t args_at = open + 18;
  std::vector<std::string> args = SplitTopLevel(e.substr(args_at, e.size() - args_at - 1), ',');
  if (args.empty()) return false;
  for (const std::string& arg : args) {
    std::string_view a = TrimView(arg);
    if (const size_t op = a.find_first_of("+-"); op != std::string_view::npos) a = TrimView(a.substr(0, op));
    for (std::string_view it : {".cbegin()", ".begin()", ".cend()", ".end()"})
      if (a.ends_with(it)) a = a.substr(0, a.size() - it.size());
    if (!SizesList(ix, fn, a, built)) return false;
  }
  return true;
}

// The index of the element `e` takes of a local: `x.first` 0, `x.second`
// 1, `std::get<I>(x)` I; the local in *local.
int ElementOf(std::string_view e, std::string_view* local) {
  e = TrimView(e);
  for (auto [tail, index] : {std::pair<std::string_view, int>{".first", 0}, {".second", 1}})
    if (e.ends_with(tail) && IsIdentifier(e.substr(0, e.size() - tail.size()))) {
      *local = e.substr(0, e.size() - tail.size());
      return index;
    }
  if (e.starts_with("std::get<") && e.ends_with(")")) {
    const size_t close = e.find(">(");
    if (close == std::string_view::npos) return -1;
    std::string_view index = e.substr(9, close - 9), inner = e.substr(close + 2, e.size() - close - 3);
    if (index.empty() || index.size() > 2 || !IsIdentifier(inner)) return -1;
    for (char c : index)
      if (c < '0' || c > '9') return -1;
    *local = inner;
    return std::stoi(std::string(index));
  }
  return -1;
}

// The definition of `callee` a call in function `caller` reaches: the one
// in the caller's file, else the one in a header its file #includes
// (vulkan/ and functorch/ define their own _check_layer_norm_inputs),
// else the only one; -1 when that is not one definition.
int32_t DefinitionSeenFrom(const Index& ix, int32_t caller, std::string_view callee) {
  const std::vector<uint32_t> defs = ix.cpp.FunctionsNamed(callee);
  if (defs.size() == 1) return static_cast<int32_t>(defs.front());
  const uint32_t from = ix.cpp.functions()[caller].file;
  const std::string_view text = GuardReaderOf(ix, ix.cpp.file(from)).text();
  int32_t same_file = -1, included = -1;
  int same_files = 0, includes = 0;
  for (uint32_t id : defs) {
    const uint32_t file = ix.cpp.functions()[id].file;
    if (file == from) {
      same_file = static_cast<int32_t>(id);
      ++same_files;
      continue;
    }
    const std::string& path = ix.cpp.file(file);
    for (size_t at = text.find("#include"); at != std::string_view::npos; at = text.find("#include", at + 8)) {
      const size_t open = text.find_first_of("<\"", at + 8), close = text.find_first_of(">\"\n", open + 1);
      if (open == std::string_view::npos || close == std::string_view::npos) break;
      const std::string_view header = text.substr(open + 1, close - open - 1);
      if (!header.empty() && std::string_view(path).ends_with(header)) {
        included = static_cast<int32_t>(id);
        ++includes;
        break;
      }
    }
  }
  if (same_files) return same_files == 1 ? same_file : -1;
  return includes == 1 ? included : -1;
}

// Element `i` of what helper call `call` returns on every return
// (`std::make_pair(M, N)`, `std::make_tuple(...)`, `{M, N}`), each a size
// in the helper.
bool ReturnedElementIsSize(const Index& ix, int32_t caller, std::string_view call, int i, const BuiltLine& built,
                           int depth) {
  call = TrimView(call);
  const size_t open = call.find('(');
  if (open == std::string_view::npos || !call.ends_with(")")) return false;
  std::string_view callee = call.substr(0, open);
  if (const size_t colon = callee.rfind("::"); colon != std::string_view::npos) callee = callee.substr(colon + 2);
  if (!IsIdentifier(callee)) return false;
  const int32_t def = DefinitionSeenFrom(ix, caller, callee);
  if (def < 0) return false;
  const CppFunction& f = ix.cpp.functions()[def];
  const CppGuardReader& r = GuardReaderOf(ix, ix.cpp.file(f.file));
  const std::vector<std::string> returns = r.ReturnedExpressions(static_cast<int>(f.line));
  if (returns.empty()) return false;
  for (const std::string& ret : returns) {
    std::string_view v = TrimView(ret);
    size_t from = 0;
    if (v.starts_with("std::make_pair(") || v.starts_with("std::make_tuple(")) from = v.find('(') + 1;
    else if (v.starts_with("{")) from = 1;
    else return false;
    if (!v.ends_with(")") && !v.ends_with("}")) return false;
    std::vector<std::string> parts = SplitTopLevel(v.substr(from, v.size() - from - 1), ',');
    if (i >= static_cast<int>(parts.size()) || !HoldsSize(ix, def, parts[i], built, depth + 1)) return false;
  }
  return true;
}

// A parameter every call of its function passes a size (in the calling function).
bool EveryCallPassesSize(const Index& ix, int32_t fn, std::string_view name, const BuiltLine& built, int depth) {
  const CppFunction& f = ix.cpp.functions()[fn];
  const std::string& callee = f.name;
  if (ix.cpp.FunctionsNamed(callee).size() != 1) return false;  // overloads: which one a call is, not read
  const std::vector<CppParameter>& params = ParseCppParameters(f.params);
  size_t at = 0;
  while (at < params.size() && params[at].name != name) ++at;
  if (at == params.size()) return false;
  const std::vector<uint32_t> calls = ix.cpp.CallersOf(callee);
  if (calls.empty() || calls.size() > kSizeCallersRead) return false;
  for (uint32_t id : calls) {
    const CppCall& call = ix.cpp.calls()[id];
    const std::string& file = ix.cpp.file(call.file);
    auto args = GuardReaderOf(ix, file).CallArguments(static_cast<int>(call.line), callee);
    if (!args || at >= args->size()) return false;
    const int32_t caller = ix.cpp.FunctionAt(call.file, call.line);
    if (IsSizeExpression((*args)[at])) continue;
    if (caller < 0 || !HoldsSize(ix, caller, (*args)[at], built, depth + 1)) return false;
  }
  return true;
}

}  // namespace

bool LocalHoldsSize(const Index& ix, int32_t fn, const std::string& name, int before, const BuiltLine& built,
                    int depth) {
  if (fn < 0 || depth > kSizeValueDepth) return false;
  const CppFunction& f = ix.cpp.functions()[fn];
  const CppGuardReader& r = GuardReaderOf(ix, ix.cpp.file(f.file));
  std::vector<CppGuardReader::Write> writes =
      r.Writes(static_cast<int>(f.line), before, name, [&](int line) { return built(r, line); });
  if (writes.empty()) return EveryCallPassesSize(ix, fn, name, built, depth);
  return writes.size() == 1 && writes.front().plain && HoldsSize(ix, fn, writes.front().value, built, depth + 1);
}

bool HoldsSize(const Index& ix, int32_t fn, std::string_view expr, const BuiltLine& built, int depth) {
  expr = TrimView(expr);
  if (expr.empty() || fn < 0 || depth > kSizeValueDepth) return false;
  if (IsSizeExpression(expr)) return true;
  std::vector<std::string> factors = SplitTopLevel(expr, '*');
  if (factors.size() > 1) {
    for (const std::string& factor : factors)
      if (!HoldsSize(ix, fn, factor, built, depth)) return false;
    return true;
  }
  if (IsIdentifier(expr)) return LocalHoldsSize(ix, fn, std::string(expr), 0, built, depth);
  if (ProductOfSizes(ix, fn, expr, built)) return true;
  std::string_view local;
  if (const int element = ElementOf(expr, &local); element >= 0) {
    const std::string call = OnlyWrite(ix, fn, local, 0, built);
    return !call.empty() && ReturnedElementIsSize(ix, fn, call, element, built, depth);
  }
  return false;
}

}  // namespace optrace
