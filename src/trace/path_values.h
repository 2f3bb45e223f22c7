// What a condition of the trace is worth under the assumptions: the value
// of an edge's (or a launch's) conditions out of one op's code, evaluated
// with that op's own assumptions -- the trace's, with its schema's defaults,
// overridden by what the Python call passes -- and with what the path
// annotation decided on the way: selections and inlined predicates
// (trace/path_selections.h) and conditions its helpers' callers bind
// (trace/op_edges.h). The evaluations are cached: a trace evaluates the
// same long guard chains (copy_'s twenty) for every launch and edge below
// them. The path annotator (trace/trace_paths.cc) owns one per trace; what
// a condition's text (and the locals it reads) is worth under one set of
// assumptions is also kept with the index for every later trace
// (`trace --all` evaluates the guards of an op again in each trace
// reaching it).
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "index/index.h"
#include "trace/local_values.h"
#include "trace/trace.h"
#include "trace/trace_typical.h"

namespace optrace {

// Schema argument -> what a call passes (nullopt: unknown).
using PassedArguments = std::map<std::string, std::optional<std::string>>;

// *v and t both hold: false wins, then unknown.
void Meet(Tri* v, Tri t);

// How well the assumptions decide a way: 2 taken, 1 undecided, 0 not taken.
int Rank(Tri v);

// The key a decision of condition `c` of `parent`'s code is kept by:
// "condition@file@parent".
std::string DecidedKey(const OpStep& parent, const Condition& c);

class PathValues {
 public:
  // `a`: the trace's assumptions, which outlive this.
  PathValues(const Index& ix, const Assumptions& a);

  const Assumptions& assumptions() const { return a_; }

  // Conditions of an edge out of `parent`'s implementation, evaluated with
  // the defaults of the parent op's schema arguments (or, with
  // `schema_defaults` false, the trace's assumptions alone).
  Tri Evaluate(const OpStep& parent, const std::vector<Condition>& when, bool schema_defaults = true) const;

  // EvaluateCondition, once per condition text and set of assumptions (the
  // trace's, or one op's AssumptionsOf).
  Tri EvaluateOnce(const std::string& text, const Assumptions& a) const;
  // `c` with the predicates it calls inlined (trace/inline_predicates.h),
  // evaluated under `a`, once per text, file and assumptions for every
  // trace of the index; unknown where it calls none.
  Tri InlinedOnce(const Condition& c, const Assumptions& a) const;
  // What condition `c` (not negated) is worth under `a` by the code alone:
  // its text, else with the locals it reads (`in_capture_stream`, whose
  // initializer the assumptions decide) -- never by a decision of the trace.
  Tri ByCode(const Condition& c, const Assumptions& a) const {
    const Tri t = EvaluateOnce(c.text, a);
    return t != Tri::kUnknown ? t : WithLocals(c, a);
  }

  // What condition `c` is worth under `with` -- assumptions made for one
  // helper, with what its callers bind -- reading the locals it names
  // (`mode = static_cast<at::padding_mode>(mode_int)`); not remembered.
  Tri WithLocalsUnder(const Condition& c, const Assumptions& with) const;

  // The assumptions every condition of every edge out of `parent` is
  // evaluated with, made once per op (SetEntryArguments forgets them).
  const Assumptions& AssumptionsOf(const OpStep& parent) const;

  // What the Python call (or a backward formula) passes `op`'s schema arguments.
  void SetEntryArguments(const OpStep& op, PassedArguments passed);
  bool HasEntryArguments(const OpStep& op) const { return entry_arguments_.count(&op) > 0; }

  // What this trace knows about `op` beyond its code alone, as a key: what
  // its Python call (or its callers, or a backward formula) passes, the
  // conditions decided for it, the library-named conditions a predicate
  // body decided; empty when its code alone decides. Two traces that know
  // the same annotate `op` the same, so they share the annotation
  // (trace/shared_annotations.h).
  std::string KnowledgeOf(const OpStep& op) const;

  // What a selection function or an inlined predicate decides, by DecidedKey.
  bool IsSelected(const std::string& key) const { return selected_.count(key) > 0; }
  void Select(const std::string& key, Tri t) { selected_[key] = t; }
  // A condition the vocabulary decides by a library's name whose predicate
  // body decided otherwise: its selection wins.
  void DecidedByBody(const std::string& text) { by_body_.insert(text); }
  // A condition in a helper, decided by its callers' arguments (Bind).
  void BindInHelper(const std::string& key, Tri t);

 private:
  Tri WithLocals(const Condition& c, const Assumptions& a) const;
  Assumptions AssumptionsFor(const OpStep& parent) const;
  // The index's answers under `a` (with the trace's assumptions), found
  // once per assumptions object of this trace.
  struct SharedAnswers;
  struct SharedTables;
  SharedAnswers& SharedFor(const Assumptions& a) const;

  const Index& ix_;
  const Assumptions& a_;
  std::map<std::string, Tri> selected_;
  std::set<std::string> by_body_;
  std::map<std::string, Tri> bound_;
  std::map<const OpStep*, PassedArguments> entry_arguments_;
  mutable std::map<const OpStep*, Assumptions> assumptions_;                                // AssumptionsOf
  mutable std::map<const Assumptions*, std::unordered_map<std::string, Tri>> evaluated_;    // EvaluateOnce
  mutable std::map<const Assumptions*, std::unordered_map<std::string, Tri>> with_locals_;  // WithLocals
  mutable LocalValues locals_;
  SharedTables& shared_;
  mutable std::map<const Assumptions*, SharedAnswers*> answers_;  // SharedFor
};

}  // namespace optrace
