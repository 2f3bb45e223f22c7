// The ways through an op's C++ code: from its implementation to one of its
// functions, through the helpers and dispatch stubs the op lists, each hop
// adding the guard of its own call (found by name in the caller's body) --
// a stub hop also the device its registration serves. Edges
// (trace/op_edges.h) and launches (trace/launch_conditions.h) start their
// conditions with such a way. Reads the op's lists and the files' guards,
// and evaluates with PathValues to pick the best of several call sites.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "cpp/cpp_guards.h"
#include "cpp/cpp_params.h"
#include "index/index.h"
#include "trace/path_values.h"
#include "trace/trace.h"

namespace optrace {

// Each file's guard reader, asked once per trace: the index's table
// (trace/guard_files.h) is locked and keyed by long paths, and a trace asks
// for a few files hundreds of times.
class GuardReaders {
 public:
  explicit GuardReaders(const Index& ix) : ix_(ix) {}
  const CppGuardReader& Of(const std::string& file);

 private:
  const Index& ix_;
  std::unordered_map<std::string, const CppGuardReader*> readers_;
};

// Where function `name` is defined among those `op` lists.
Location Definition(const OpStep& op, const std::string& name);

// The indexed function `name` defined at `where` (as Definition gives it), or null.
const CppFunction* FunctionDefinedAt(const Index& ix, std::string_view name, const Location& where);

// Whether `name` is an implementation the dispatcher runs for `device`
// (kAny: any).
bool IsImpl(const OpStep& op, const std::string& name, CodeDevice device = CodeDevice::kAny);

// The definitions a call of a helper by name may reach: the classes
// defining it, and the overloads of one scope no argument tells apart.
struct HelperNamesakes {
  int classes = 0, overloads = 0;
};

class CodeRoutes {
 public:
  CodeRoutes(const Index& ix, GuardReaders& readers, PathValues& values);

  // The conditions on the way from `op`'s implementation to function `fn`
  // through code for `device` (kAny: any), appended to *out; false when
  // the way is not read. `route` (when given): the functions of that way,
  // the implementation first, stubs by name, `fn` last.
  bool WayTo(const OpStep& op, const std::string& fn, CodeDevice device, std::vector<Condition>* out,
             std::vector<std::string>* route = nullptr);

  // The conditions of the best of `fn`'s call sites in the function
  // defined at `where` (taken, else open, else ruled out); false: no call.
  bool BestCallSite(const OpStep& op, const Location& where, const std::string& fn, std::vector<Condition>* out);

  // Where the helper bindings decided from here on go too (null: nowhere):
  // an edge read once and replayed into later traces (trace/op_edges.h)
  // replays them with it.
  void LogBindingsTo(std::vector<std::pair<std::string, Tri>>* log) { binding_log_ = log; }

  // The conditions of stub `s`'s call, appended to *out: those around it
  // where it is called by name; where it is passed by name to a helper
  // (`scatter_impl(self, dim, index, src, out, scatter_reduce_stub,
  // scatter_stub)`), those around that call, then those of the helper's
  // best call of the parameter receiving it (`if (reduce.has_value())
  // reduce_stub(...); else fill_stub(...);`), decided with what the call
  // passes the helper's other parameters (their defaults where it passes
  // none). False when neither is read.
  bool StubCallConditions(const OpStep& op, const StubStep& s, std::vector<Condition>* out);

  // `macro` and the macros of `file` whose definitions use it, up to
  // kMacroUserDepth levels (walk_bounds.h): read once per index (CodeMemo).
  std::vector<std::string> MacrosUsing(const std::string& macro, const std::string& file);

 private:
  // StubCallConditions, uncached.
  bool ReadStubCall(const OpStep& op, const StubStep& s, std::vector<Condition>* out);
  // The conditions of the call at or above `site` in `caller` that passes
  // `passed` by name, then of its receiver's use of it (ReceiverUse).
  bool PassedOnConditions(const OpStep& op, const Location& caller, const Location& site, const std::string& passed,
                          std::vector<Condition>* out);
  // `call`'s arguments, as written in the function at `caller`.
  std::optional<std::vector<std::string>> ArgumentsOf(const Location& caller, const CppGuardReader::GuardedCall& call);
  // The conditions under which the helper `call` passes `passed` to uses
  // the parameter receiving it: the best of its calls of it and of its
  // calls passing it on (taken, else open, else ruled out).
  bool ReceiverUse(const OpStep& op, const Location& caller, const CppGuardReader::GuardedCall& call,
                   const std::string& passed, int depth, std::vector<Condition>* out);
  // Decides, for `op`, the conditions of stub `s`'s kernel `r` that the
  // stub call's arguments fix.
  void BindStubKernel(const OpStep& op, const StubStep& s, const StubRegistrationStep& r);
  // Decides, for `op`, the conditions of a helper with parameters
  // `params` that the call's `args` fix.
  void BindParameters(const OpStep& op, const std::vector<CppParameter>& params, const std::vector<std::string>& args,
                      const std::vector<Condition>& conditions);

  bool RouteTo(const OpStep& op, const std::string& fn, int depth, std::set<std::string>* seen,
               std::vector<Condition>* out, CodeDevice device, std::vector<std::string>* names);
  // Calls `visit` with each function `op` lists for `device`
  // (implementations, helpers, stub targets) in order, until it returns
  // true; whether one did.
  bool ForEachListed(const OpStep& op, CodeDevice device,
                     const std::function<bool(std::string_view, const Location&)>& visit);
  // Those whose bodies call `fn` where the index records the call
  // (FunctionsCalling), in order, once per trace: every launch's way asks
  // again, and reading every listed function's guards for `fn` was a
  // fifth of trace --all.
  const std::vector<std::pair<std::string_view, const Location*>>& RecordedCallers(const OpStep& op,
                                                                                   const std::string& fn,
                                                                                   CodeDevice device);
  // The functions (file, line of the definition) the index records a call
  // of `fn` in: read once per index (CodeMemo), looked up once per trace.
  const std::set<std::pair<std::string_view, int>>& FunctionsCalling(const std::string& fn);
  // How many classes define `op`'s helpers named `fn` for `device`, and how
  // many overloads of one scope no argument tells apart, once per trace.
  HelperNamesakes ClassesDefining(const OpStep& op, const std::string& fn, CodeDevice device);
  // The conditions of the first call of `fn` in the function defined at
  // `where`: read once per index (CodeMemo), looked up once per trace;
  // nullptr: it calls no `fn`.
  const std::vector<Condition>* FirstCall(const Location& where, const std::string& fn);

  // What FirstCall and FunctionsCalling read depends on the code alone, so
  // it is kept with the index for every later trace (code_routes.cc).
  struct CodeMemo;
  using FirstCallConditions = std::optional<std::vector<Condition>>;

  const Index& ix_;
  CodeMemo& memo_;
  GuardReaders& readers_;
  PathValues& values_;
  std::vector<std::pair<std::string, Tri>>* binding_log_ = nullptr;                        // LogBindingsTo
  std::map<std::tuple<const OpStep*, std::string, CodeDevice>, HelperNamesakes> classes_;  // ClassesDefining's answers
  std::map<std::tuple<const OpStep*, std::string, CodeDevice>,
           std::vector<std::pair<std::string_view, const Location*>>>
      callers_;  // RecordedCallers' answers
  // StubCallConditions's answers, by what they read: the op, and the stub's
  // call (name, site, calling function). Not by the StubStep's address: a
  // trace's stubs may move to another array (a replay of their annotations,
  // an edit of a shared copy), and a freed array's address may be another's.
  using StubCallKey = std::tuple<const OpStep*, std::string, std::string, int, std::string>;
  std::map<StubCallKey, std::optional<std::vector<Condition>>> stub_calls_;
  // The registrations BindStubKernel has bound: (op, stub, device, target),
  // by value as stub_calls_.
  std::set<std::tuple<const OpStep*, std::string, std::string, std::string>> stub_kernels_bound_;
  std::unordered_map<std::string, const std::set<std::pair<std::string_view, int>>*>
      functions_calling_;  // FunctionsCalling's
  // FirstCall's answers, by (file, line, callee): hashed, looked up
  // without copying the strings (every caller of every launch's way asks).
  struct PlaceCall {
    std::string_view file;
    int line;
    std::string_view fn;
  };
  struct PlaceCallKey {
    std::string file;
    int line;
    std::string fn;
  };
  struct PlaceCallHash {
    using is_transparent = void;
    size_t operator()(const PlaceCall& k) const;
    size_t operator()(const PlaceCallKey& k) const { return (*this)(PlaceCall{k.file, k.line, k.fn}); }
  };
  struct PlaceCallEqual {
    using is_transparent = void;
    static PlaceCall View(const PlaceCallKey& k) { return {k.file, k.line, k.fn}; }
    static const PlaceCall& View(const PlaceCall& k) { return k; }
    template <typename A, typename B>
    bool operator()(const A& a, const B& b) const {
      const PlaceCall& x = View(a);
      const PlaceCall& y = View(b);
      return x.line == y.line && x.fn == y.fn && x.file == y.file;
    }
  };
  std::unordered_map<PlaceCallKey, const FirstCallConditions*, PlaceCallHash, PlaceCallEqual> first_calls_;
};

}  // namespace optrace
