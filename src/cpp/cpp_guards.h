// Guard conditions of a call in C++ source: the `if`, `else if`, `else`,
// `switch`/`case`, `?:`, early `return` and `#if` conditions under which a
// call written at one place runs. The tracer asks this for every edge it
// follows (an implementation calling an op, a stub, a helper), so a reader
// sees *when* each path is taken, and the typical-path evaluation
// (trace/trace_typical) can decide which side a dense float tensor takes.
//
// Why a separate pass and not part of cpp_scan: conditions are wanted for a
// handful of call sites per trace, not for the million calls of the index;
// reading them from the file's tokens on demand keeps the index small and
// the store's format unchanged.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "cpp/code_condition.h"
#include "cpp/cpp_lexer.h"
#include "cpp/guarded_returns.h"
#include "cpp/object_uses.h"
#include "cpp/preprocessor_groups.h"
#include "cpp/written_call.h"

namespace optrace {

// The calls of one function, each name's first call per line with what a
// walk finds there (cpp_guards.cc).
struct CppCallSites;

// One file lexed once, asked about several calls. `text` must outlive it.
// Answers are remembered (thread-safe): a warm daemon or `--all` asks about
// the same call sites again and again, and a walk from line 1 crosses the
// whole file.
class CppGuardReader {
 public:
  explicit CppGuardReader(std::string_view text);
  // As CppCallConditions below. The scan of a function (from_line > 1) stops
  // at its closing brace.
  bool CallConditions(int from_line, int call_line, std::string_view callee, std::vector<CodeCondition>* out) const;
  // The expression last assigned to local `name` (`auto name = e;`,
  // `T name = e;`, `name = e;`) in the function defined at `from_line`,
  // before line `before` (0: anywhere in it); "" when none.
  std::string AssignedExpression(int from_line, int before, std::string_view name) const;
  // Every write of `name` before `before` on the lines `built` admits, in
  // order, each as the value it leaves in terms of the value before it:
  // `name = e` gives e, `name &= e` gives `name && (e)`, `name |= e`
  // `name || (e)`; a write whose value is not an expression (another
  // compound assignment, `++`/`--`, `&name` handed out) gives "".
  struct Write {
    std::string value;
    bool plain = false;  // `name = e`
  };
  std::vector<Write> Writes(int from_line, int before, std::string_view name,
                            const std::function<bool(int line)>& built) const;
  // Every call written in the function defined at `from_line` (free
  // function calls, not methods), with its conditions, in order; the
  // remembered list itself (it lives as long as the reader), not a copy.
  struct GuardedCall {
    std::string callee;
    int line = 0;
    std::vector<CodeCondition> conditions;
    bool in_lambda = false;  // written in a named local lambda's body
  };
  const std::vector<GuardedCall>& CallsIn(int from_line) const;
  // As CppCallArguments (cpp/cpp_params.h) over the reader's text.
  std::optional<std::vector<std::string>> CallArguments(int line, std::string_view callee) const;
  // The expressions the function defined at `from_line` returns.
  std::vector<std::string> ReturnedExpressions(int from_line) const;
  // What the predicate defined at `from_line` returns, as one expression of
  // its parameters (cpp/cpp_predicate.h); "" when its body is not
  // straight-line or holds a preprocessor directive.
  std::string PredicateExpression(int from_line) const;
  // The returns of the function defined at `from_line`, each with its
  // if/else conditions (cpp/guarded_returns.h); nullopt when its body is
  // not read or holds a preprocessor directive. With `reachable`, for
  // readers that ask which returns may be reached, never which one is: a
  // loop's returns too (under a `loop` guard), and a body holding #if
  // groups, a return in one guarded by the group's conditions opened inside
  // the body, outermost first (`#ifdef USE_FBGEMM ... #else return false; #endif`).
  std::optional<std::vector<GuardedReturn>> ReturnsOf(int from_line, bool reachable = false) const;
  // The returns of the lambda that local `name` is initialised by calling
  // at once, its only write in the function defined at `from_line` before
  // line `before` (`const auto mode_enum = [&] { if (mode == "reflect")
  // return padding_mode::reflect; ... }();`), each with its conditions;
  // nullopt for any other local, or a body holding a preprocessor directive.
  std::optional<std::vector<GuardedReturn>> InvokedLambdaReturns(int from_line, int before,
                                                                 std::string_view name) const;
  // The uses of local `object` in the function defined at `from_line`
  // before line `before` (cpp/object_uses.h), `#if` groups and all;
  // nullopt when the body is not read.
  std::optional<std::vector<ObjectUse>> UsesOf(int from_line, int before, std::string_view object) const;
  // Whether the body of the function defined at `from_line` names `word`.
  bool Names(int from_line, std::string_view word) const;
  // The arguments of the first call of `callee` written on `line`
  // (cpp/written_call.h).
  std::optional<WrittenCall> CallWritten(int line, std::string_view callee) const;
  // The file's tokens (cpp/written_call.h ObjectTypesPassed reads them).
  const LexedFile& lexed() const { return lexed_; }
  // The `#if` groups around `line`, outermost first (include guards left out).
  std::vector<CodeCondition> PreprocessorConditions(int line) const;
  std::string_view text() const { return text_; }

 private:
  size_t FirstToken(int line) const;
  std::string LastAssignment(int from_line, int before,
                             std::string_view name) const;  // AssignedExpression, unremembered
  // `plain`: only a body without preprocessor directives.
  bool BodyBraces(int from_line, size_t* open, size_t* close, bool plain = false) const;
  std::string AssignedAt(size_t name_token, size_t end) const;
  // The remembered walk of the function defined at `from_line`.
  const CppCallSites& SitesOf(int from_line) const;
  // The calls written in #define bodies, from the expansions of the file's
  // macro uses, and a use's expansion by its line (nullptr when none);
  // built once per reader.
  struct ExpandedCode;
  const CppCallSites& ExpandedSites() const;
  const std::vector<Token>* ExpansionAt(int line) const;
  // The conditions of a call in the body of the named lambda whose name is
  // token `name_token`, with those of the lambda's own calls.
  std::vector<CodeCondition> WhereLambdaRuns(int from_line, size_t name_token,
                                             std::vector<CodeCondition> in_body) const;
  // A call in the body of local lambda `name` (opening at token `open`,
  // line `line`) runs where the lambda is called: the conditions of its
  // calls after the body in the enclosing block (those all share, then
  // the disjunction of the rest, unless one call has no other), then the
  // `#if` groups opened inside the body. False when it is called nowhere
  // there (passed on, not called by name): the body's place decides.
  bool ThroughLambdaCalls(int from_line, const std::string& name, int line, size_t open, int call_line,
                          std::vector<CodeCondition>* out) const;
  struct Memo {
    // Shared for lookups: the threads of `--all` ask the same hot files.
    std::shared_mutex mu;
    // "from:call_line:callee" -> (written there, its conditions)
    std::unordered_map<std::string, std::pair<bool, std::vector<CodeCondition>>> calls;
    // from_line -> the calls of the function there, from one walk of it:
    // CallConditions asks about several calls of one function, and a walk
    // per call crossed the body up to it again each time (nn.LSTM: 3,153
    // walks over 6.8M tokens of files holding 0.38M).
    std::unordered_map<int, std::shared_ptr<const CppCallSites>> sites;
    // from_line -> every call in the function there (CallsIn)
    std::unordered_map<int, std::vector<GuardedCall>> calls_in;
    // from_line -> what the predicate there returns (PredicateExpression)
    std::unordered_map<int, std::string> predicates;
    // "from:before:name" -> AssignedExpression's answer: the selections and
    // the caller-argument binding ask the same locals again and again, some
    // from line 1 (a scan of the file up to the asking line).
    std::unordered_map<std::string, std::string> assigned;
    std::once_flag expanded_once;
    std::shared_ptr<const ExpandedCode> expanded;  // shared: complete only in the .cc
  };
  std::string_view text_;
  std::vector<uint32_t> line_starts_;  // line n (1-based) starts at byte line_starts_[n - 1]
  LexedFile lexed_;
  std::vector<PreprocessorLine> pp_lines_;
  std::unique_ptr<Memo> memo_;  // a pointer: the reader stays movable
};

// The conditions under which the call of `callee` on line `call_line` runs,
// outermost first. The scan starts at line `from_line` (a function's
// definition; 1 scans the whole file); `call_line` 0 takes the first call of
// `callee` after `from_line`. `#if`/`#ifdef`/`#elif`/`#else` groups around
// the call are read from the whole file (include guards are left out).
// Returns false when no such call is written there.
bool CppCallConditions(std::string_view text, int from_line, int call_line, std::string_view callee,
                       std::vector<CodeCondition>* out);

}  // namespace optrace
