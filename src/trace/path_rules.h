// Small rules the path annotation (trace/trace_paths.cc and its parts)
// applies to one op, call or condition at a time, with no state of their
// own: which op reached an op, which code serves a device, which call is a
// method call, which entry overload a typical tensor never takes, which
// calls are worth naming as alternatives, each condition once, what every
// call site binds alike.
#pragma once

#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cpp/cpp_guards.h"
#include "index/index.h"
#include "py/py_guards.h"
#include "trace/trace.h"
#include "trace/trace_typical.h"

namespace optrace {

// The op `t` reached `op` from (OpStep::reached_from), of `op`'s role
// where there is one of each -- unless that one is reached from `op`
// itself: a derivative's where.ScalarOther, named by the forward
// where.self's formula, calls a backward where.self, which is its callee,
// never its parent. Null for an entry op.
const OpStep* ParentOf(const Trace& t, const OpStep& op);

// The op of `t` named `name` in `role`, or null.
const OpStep* OpNamed(const Trace& t, const std::string& name, OpRole role);

// Whether `caller` is an op of `op`'s role whose structured delegate `op` is.
bool DelegatesTo(const OpStep* caller, const OpStep& op);

// Whether torchgen's generated kernel for `parent` calls `child`.
bool GeneratedKernelCalls(const YamlModel& yaml, const OpStep& parent, const OpStep& child);

// Whether code under dispatch key (or stub registration device) `key`
// runs for `device` (kAny: for any): the device's own, or code every
// device shares. CPU and CUDA files often define functions of one name
// (GroupNormKernelImplInternal): a way to the CUDA one never passes
// through the CPU registration.
bool Serves(std::string_view key, CodeDevice device);

// `x.base()` as written (OpCallStep::how: "self.contiguous()"), not at::base.
bool IsMethodCall(const OpCallStep& call, const std::string& base);

// The `A::b` side of `x == A::b` (either side), or "".
std::string EnumMember(const std::string& text);

// Whether the entry overload needs a named tensor: a Dimname argument it
// cannot do without (`diagonal.Dimname`'s outdim, dim1, dim2). A typical
// tensor has no names, and such an overload fails on one (no dimension
// has the name), so it is never the typical call's.
bool NeedsNames(const OpStep& op);

// Whether the two overloads need the same arguments, by type (those with
// no default; out= arguments aside): a call with default arguments fits
// both, and the Python argument parser's order picks, not the call
// (conv2d and conv2d.padding: input, weight). Overloads that need other
// arguments (where.self's three tensors, the one-argument where) are told
// apart by what the call passes.
bool SameRequiredArguments(const OpStep& a, const OpStep& b);

// Whether the overload needs a keyword-only argument that has no default
// (randn.generator's `generator=`): a call with default arguments never
// passes one, so it never takes this overload.
bool NeedsKeyword(const OpStep& op);

// Python's `x.conj()` calls the hand-written Tensor method, which returns x
// itself for a real x (trace/tensor_methods.h): the call reaches the op only
// otherwise, as a C++ method call does.
void UnlessSelfReturn(const Index& ix, const Assumptions& a, const OpStep& op,
                      std::pair<std::vector<Condition>, Tri>* way);

// A Python guard (py/py_guards.h) as the trace states it, placed in `file`.
Condition PythonCondition(const PyCondition& p, const std::string& file);

// A reader's conditions as the trace states them, placed in `file`.
std::vector<Condition> ConditionsIn(const std::vector<CodeCondition>& in, const std::string& file);

// Whether a call written in an implementation is worth naming as an
// alternative: a dispatch stub, an aten op, or a function the tree defines
// (not a macro, not std:: plumbing).
bool WorthNaming(const Index& ix, const std::string& callee);

// Each condition once (a walk through several functions of one file meets
// the same #if group at every hop).
std::vector<Condition> EachConditionOnce(std::vector<Condition> in);

// What every call site binds alike: the first site's bindings, narrowed by
// each later site to the names it binds to the same value.
template <class Map>
void KeepAgreed(std::optional<Map>* agreed, Map site) {
  if (!*agreed) {
    *agreed = std::move(site);
    return;
  }
  for (auto it = (*agreed)->begin(); it != (*agreed)->end();) {
    auto o = site.find(it->first);
    it = o == site.end() || o->second != it->second ? (*agreed)->erase(it) : std::next(it);
  }
}

}  // namespace optrace
