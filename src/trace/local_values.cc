// Locals are read the way a selection's local is (cpp_guards'
// Writes), in the function the index says holds the condition.
#include "trace/local_values.h"

#include <algorithm>
#include <cctype>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>

#include "base/text.h"
#include "cpp/cpp_guards.h"
#include "cpp/cpp_params.h"
#include "trace/caller_arguments.h"
#include "trace/decider_returns.h"
#include "trace/guard_files.h"
#include "trace/inline_predicates.h"
#include "trace/size_values.h"
#include "trace/trace_typical.h"

namespace optrace {

namespace {

// Whether the build the assumptions describe compiles `line`: no `#if`
// group around it is ruled out (USE_ROCM on a CUDA build).
bool Built(const CppGuardReader& r, int line, const Assumptions& a) {
  for (const CodeCondition& c : r.PreprocessorConditions(line)) {
    Tri t = EvaluateCondition(c.text, false, a);
    if (t == (c.negated ? Tri::kTrue : Tri::kFalse)) return false;
  }
  return true;
}

// `opt.value_or(v)` of an optional whose value is known: the value it
// holds, or the literal fallback v where it is empty (svd_cusolver's
// `driver.value_or("gesvdj")` of a call leaving `driver` at its None).
std::optional<std::string> ValueOr(std::string_view expr, const Assumptions& a) {
  expr = TrimView(expr);
  const size_t at = expr.find(".value_or(");
  if (at == std::string_view::npos || !expr.ends_with(")") || !IsIdentifier(expr.substr(0, at))) return std::nullopt;
  auto held = a.defaults.find(std::string(expr.substr(0, at)));
  if (held == a.defaults.end()) return std::nullopt;
  const std::string_view fallback = TrimView(expr.substr(at + 10, expr.size() - at - 11));
  const std::string& v = held->second;
  const bool empty = v == "None" || v == "std::nullopt" || v == "c10::nullopt";
  if (empty) return IsCppLiteral(fallback) ? std::optional<std::string>(fallback) : std::nullopt;
  // The incoming gradient a backward formula passes (`grads[0]`) stays
  // itself: whether it is defined is what the backward's conditions ask.
  return IsIncomingGradient(v) || IsCppLiteral(v) || (v.size() >= 2 && v.front() == '\'' && v.back() == '\'')
             ? std::optional<std::string>(v)
             : std::nullopt;
}

// The value an initializer gives a local: `ValueOr`'s, or what a value it
// copies holds, through a value-preserving cast (`auto mode =
// static_cast<at::padding_mode>(mode_int);` of a bound `mode_int`).
std::optional<std::string> HeldValue(std::string_view expr, const Assumptions& a) {
  if (std::optional<std::string> v = ValueOr(expr, a)) return v;
  // A tensor's suggested memory format (`auto memory_format =
  // input.suggest_memory_format();`): a typical tensor's is Contiguous
  // (trace/trace_typical.cc MemoryFormatTest).
  if (constexpr std::string_view kAsked = ".suggest_memory_format()";
      a.typical_sizes && TrimView(expr).ends_with(kAsked) &&
      IsIdentifier(TrimView(expr).substr(0, TrimView(expr).size() - kAsked.size())))
    return "at::MemoryFormat::Contiguous";
  const std::string_view copied = TrimView(StaticCastOperand(expr));
  if (copied != TrimView(expr) && IsCppLiteral(copied)) return std::string(copied);
  if (!IsIdentifier(copied)) return std::nullopt;
  auto held = a.defaults.find(std::string(copied));
  return held == a.defaults.end() ? std::nullopt : std::optional<std::string>(held->second);
}

// `text` with each `*name` (a whole name) written `viewed`.
std::string Dereferenced(const std::string& text, const std::string& name, const std::string& viewed) {
  const std::string deref = "*" + name;
  std::string out;
  size_t from = 0;
  for (size_t at = text.find(deref); at != std::string::npos; at = text.find(deref, at + 1)) {
    const size_t end = at + deref.size();
    if (end < text.size() && IsIdentChar(text[end])) continue;
    out.append(text, from, at - from);
    out += viewed;
    from = end;
  }
  return from == 0 ? text : out + text.substr(from);
}

// The variable `expr`, a call, hands back borrowed: ScanKernels.cpp's
// `contiguous_out_arg(values)` returns `MaybeOwned<Tensor>::borrowed(tensor)`
// under `tensor.is_contiguous()`, its first return, which a typical tensor
// takes. The function is the one of its arity the file defines (a static
// helper); "" when there is none, its returns are not read or another is
// taken.
std::string BorrowedByCall(const Index& ix, std::string_view expr, const std::string& file, const Assumptions& a) {
  expr = TrimView(expr);
  const size_t open = expr.find('(');
  if (open == std::string_view::npos || !expr.ends_with(")") || !IsIdentifier(expr.substr(0, open))) return "";
  const std::vector<std::string> args = SplitTopLevel(expr.substr(open + 1, expr.size() - open - 2), ',');
  const CppFunction* def = DefinitionTaking(ix, std::string(expr.substr(0, open)), file, args.size(), Location{});
  if (!def) return "";
  const CppGuardReader& r = GuardReaderOf(ix, ix.cpp.file(def->file));
  auto returns = r.ReturnsOf(static_cast<int>(def->line));
  if (!returns) return "";
  const std::vector<CppParameter>& params = ParseCppParameters(def->params);
  std::vector<std::string> names, values;
  for (size_t i = 0; i < params.size(); ++i) {
    names.push_back(params[i].name);
    values.emplace_back(TrimView(args[i]));
  }
  auto with_arguments = [&](const std::string& text) { return SubstituteWords(text, names, values); };
  const GuardedReturn* taken =
      TakenReturn(*returns, [&](const std::string& g) { return EvaluateCondition(with_arguments(g), false, a); });
  if (!taken) return "";
  const std::string_view value = TrimView(taken->value);
  const size_t at = value.find("::borrowed(");
  if (at == std::string_view::npos || !value.ends_with(")")) return "";
  const std::string held = with_arguments(std::string(TrimView(value.substr(at + 11, value.size() - at - 12))));
  return IsIdentifier(held) ? held : "";
}

// The truth local `name` holds after `writes` (each in terms of the value
// before it), starting from `held`: `held` where every write keeps it, so
// that any of them may run or not; unknown otherwise.
Tri KeptByEveryWrite(const std::string& name, Tri held, const std::vector<std::string>& writes, Assumptions with) {
  with.defaults[name] = held == Tri::kTrue ? "true" : "false";
  for (const std::string& value : writes)
    if (value.empty() || EvaluateCondition(value, false, with) != held) return Tri::kUnknown;
  return held;
}

}  // namespace

Tri EvaluateWithLocals(const std::string& condition, const LocalsRead& locals, const Assumptions& a) {
  if (locals.sizes.empty() && locals.assigned.empty()) return Tri::kUnknown;
  Assumptions with = a;
  with.sizes = locals.sizes;
  // A local viewing a parameter's optional Tensor is that local, whatever a
  // schema argument of its name holds (conv2d's `bias`, a view of
  // `bias_opt`); the view of an empty optional is an undefined Tensor.
  for (const auto& [name, parameter] : locals.views)
    if (auto held = a.defaults.find(parameter); held != a.defaults.end())
      with.defaults[name] = IsEmptyOptional(held->second) ? "Tensor()" : held->second;
  // What a view dereferences is the variable it views: `!values.is_same(*values_)`.
  std::string text = condition;
  for (const auto& [name, of] : locals.views) text = Dereferenced(text, name, of);
  for (const auto& [name, expr] : locals.assigned) {
    if (a.defaults.count(name)) continue;
    const auto later = locals.rewritten.find(name);
    const bool rewritten = later != locals.rewritten.end();
    if (IsCppLiteral(expr)) {
      if (!rewritten) {
        with.defaults[name] = expr;
        continue;
      }
      if (expr != "true" && expr != "false") continue;  // a number written again: any
    }
    if (std::optional<std::string> held = rewritten ? std::nullopt : HeldValue(expr, with)) {
      with.defaults[name] = *held;
      continue;
    }
    Tri t = EvaluateCondition(expr, false, with);
    if (auto body = locals.inlined.find(name);
        body != locals.inlined.end() && (t == Tri::kUnknown || DecidedByLibraryName(expr, with)))
      if (Tri by_body = EvaluateCondition(body->second, false, with); by_body != Tri::kUnknown) t = by_body;
    if (rewritten && t != Tri::kUnknown) t = KeptByEveryWrite(name, t, later->second, with);
    if (t != Tri::kUnknown) with.defaults[name] = t == Tri::kTrue ? "true" : "false";
  }
  return EvaluateCondition(text, false, with);
}

// Node-based: a reading handed out stays where it is while others join.
struct LocalValues::Memo {
  std::shared_mutex mu;
  std::unordered_map<std::string, LocalsRead> known;
};

LocalValues::LocalValues(const Index& ix)
    : ix_(ix), memo_(*ix.Derived<std::unique_ptr<Memo>>("local_values", [] { return std::make_unique<Memo>(); })) {}

const LocalsRead& LocalValues::Of(const std::string& condition, const Location& where, const Assumptions& a) {
  std::string key = a.Key() + '\x1e' + where.file + ':' + std::to_string(where.line) + ':' + condition;
  {
    std::shared_lock<std::shared_mutex> lock(memo_.mu);
    if (auto it = memo_.known.find(key); it != memo_.known.end()) return it->second;
  }
  LocalsRead read = Read(condition, where, a);  // unlocked: another trace's thread may read the same
  std::lock_guard<std::shared_mutex> lock(memo_.mu);
  return memo_.known.try_emplace(std::move(key), std::move(read)).first->second;
}

LocalsRead LocalValues::Read(const std::string& condition, const Location& where, const Assumptions& a) {
  LocalsRead out;
  std::vector<std::string> names = BareNames(condition);
  if (names.empty()) return out;
  int32_t fn = FunctionHolding(where);
  if (fn < 0) return out;
  const CppGuardReader& r = GuardReaderOf(ix_, where.file);
  const int from = static_cast<int>(ix_.cpp.functions()[fn].line);
  const BuiltLine built = [&](const CppGuardReader& reader, int line) { return Built(reader, line, a); };
  for (const std::string& name : names) {
    std::vector<CppGuardReader::Write> writes =
        r.Writes(from, where.line, name, [&](int line) { return Built(r, line, a); });
    if (writes.size() <= 1 && LocalHoldsSize(ix_, fn, name, where.line, built)) {
      out.sizes.insert(name);
      continue;
    }
    if (writes.empty() || !writes.front().plain || writes.front().value.empty()) continue;
    std::string expr = std::move(writes.front().value);
    if (writes.size() > 1) {
      std::vector<std::string>& later = out.rewritten[name];
      for (size_t i = 1; i < writes.size(); ++i) later.push_back(std::move(writes[i].value));
    }
    if (std::string inlined = InlinePredicates(ix_, expr, where.file, a); !inlined.empty())
      out.inlined[name] = std::move(inlined);
    if (writes.size() == 1) {
      std::string viewed =
          ViewedParameter(r, from, where.line, name, ParseCppParameters(ix_.cpp.functions()[fn].params));
      if (viewed.empty()) viewed = BorrowedByCall(ix_, expr, where.file, a);
      if (!viewed.empty()) out.views[name] = std::move(viewed);
    }
    out.assigned[name] = std::move(expr);
  }
  return out;
}

std::vector<std::string> LocalValues::BareNames(std::string_view text) {
  std::vector<std::string> out;
  for (size_t i = 0; i < text.size();) {
    if (!IsIdentChar(text[i]) || std::isdigit(static_cast<unsigned char>(text[i]))) {
      ++i;
      continue;
    }
    size_t j = i;
    while (j < text.size() && IsIdentChar(text[j])) ++j;
    const char before = i > 0 ? text[i - 1] : ' ', after = j < text.size() ? text[j] : ' ';
    const bool member = before == '.' || before == '>' || before == ':';
    // A receiver asked whether it holds a value (`grad_output_r.defined()`).
    const bool asked = text.substr(j).starts_with(".defined()") || text.substr(j).starts_with(".has_value()") ||
                       text.substr(j).starts_with("->defined()");
    if (!member && after != '(' && after != '<' && after != ':' && (after != '.' || asked) && (after != '-' || asked))
      out.emplace_back(text.substr(i, j - i));
    i = j;
  }
  return out;
}

int32_t LocalValues::FunctionHolding(const Location& where) {
  auto [slot, fresh] = file_ids_.try_emplace(where.file, -1);
  if (fresh) {
    const auto& files = ix_.cpp.files();
    auto it = std::find(files.begin(), files.end(), where.file);
    if (it != files.end()) slot->second = it - files.begin();
  }
  if (slot->second < 0) return -1;
  return ix_.cpp.FunctionAt(static_cast<uint32_t>(slot->second), static_cast<uint32_t>(where.line));
}

}  // namespace optrace
