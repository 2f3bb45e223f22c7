// What each Python frame's parameters hold on the typical path, so that a
// condition on them (`label_smoothing > 0.0`, `mode == 'bicubic'`,
// `need_weights`, `self.norm_first`) is decided where the code fixes it:
//
//   * a parameter's default (`align_corners=None`);
//   * overridden by what the calls reaching the frame pass: a literal
//     (`need_weights=False`), or a parameter of the caller passed on
//     (`need_weights=need_weights`, whatever the caller's holds); callers
//     that disagree leave it unknown; a call whose own conditions the
//     caller's known values rule out (`hx = self.permute_hidden(hx,
//     sorted_indices)` under `isinstance(orig_input, PackedSequence)`)
//     never reaches the frame and has no say;
//   * for a name bound to a builtin (`conv2d = _add_docstr(torch.conv2d,
//     ...)`, no def to read), what the calls reaching it pass, where they
//     agree;
//   * for the traced function itself, the arguments of the user's own call
//     query (`F.interpolate(x, mode='bicubic')`); a module query's
//     arguments go to its `__init__`;
//   * for a module's method, `self.attr` for each attribute `__init__` (or
//     the base `__init__` it calls through super()) sets from a literal or
//     a parameter (`self.norm_first = norm_first`, `self.bias_k =
//     self.bias_v = None`, `self.register_parameter("in_proj_bias", None)`),
//     or makes a tensor (`self.weight = Parameter(...)`: kModuleParameter;
//     `self.register_buffer("num_batches_tracked", torch.tensor(0))`:
//     kModuleBuffer -- not None, and a buffer requires no grad),
//     unconditionally or in the branch of an `if` chain its arguments
//     decide (`if add_bias_kv: ... else: ...`); a statement continued over
//     lines is read whole.
//   * a local unpacked from a tensor's shape (`tgt_len, bsz, embed_dim =
//     query.shape`) or read as one of its sizes, and written nowhere else:
//     an int at least 1 (`isinstance(embed_dim, torch.Tensor)` holds only
//     while JIT tracing).
//
// Values are kept as written; an expression the text cannot evaluate
// (`_Reduction.get_enum(reduction)`) is unknown when it reads a parameter
// that left its default, and otherwise leaves the callee's default alone --
// torch's wrappers pass their own defaults on, which is what the schema's
// defaults say.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "index/index.h"
#include "py/py_arguments.h"
#include "trace/trace.h"
#include "trace/trace_typical.h"

namespace optrace {

// name -> value for the parameters whose value is known; absent: unknown.
using Bindings = std::map<std::string, std::string>;

// What the lines of a frame's file say about its locals, read from the
// frame's own lines: `text` (the file's) from the start of line `from` on,
// found by the index's line table, so a reader never scans the thousands
// of lines above a frame once per name it asks about. Each answer is kept:
// a trace evaluates a frame's conditions again on every way through it,
// and each asks about the same locals.
class FrameLines {
 public:
  explicit FrameLines(const Index& ix) : ix_(ix) {}
  // `file`'s `text` from the start of line `line` on.
  std::string_view From(const std::string& file, std::string_view text, int line) const;
  // AssignmentsOf lines [from, before), with the lines they are on numbered in the file.
  const std::vector<PyAssignment>& Assignments(const std::string& file, std::string_view text, int from, int before,
                                               std::string_view name);
  // HoldsATensorSize of lines [from, before).
  bool HoldsSize(const std::string& file, std::string_view text, int from, int before, const std::string& name);

 private:
  const Index& ix_;
  using Key = std::tuple<std::string, int, int, std::string>;  // (file, from, before, name)
  std::map<Key, std::vector<PyAssignment>> assignments_;
  std::map<Key, bool> sizes_;
};

class FrameBindings {
 public:
  // `a`: the trace's assumptions, which decide a calling line's conditions.
  FrameBindings(const Index& ix, const Trace& t, const Assumptions& a) : ix_(ix), t_(t), a_(a) {}

  // The known parameters (and `self.attr`s) of frame `f`.
  const Bindings& Of(const PyFrame& f);

  // Python condition `c` of frame `f` (not negated) with what the frame's
  // parameters and the locals before it (LocalTruths) hold.
  Tri Evaluate(const PyFrame& f, const Condition& c);

  // Locals of frame `f` that condition `c` reads and that hold a size of a
  // tensor (py/py_arguments.h HoldsATensorSize: `tgt_len, bsz, embed_dim =
  // query.shape`): ints in eager mode, at least 1 for a typical tensor.
  std::set<std::string> SizeLocals(const PyFrame& f, const Condition& c);

  // Whether Python condition `c` heads an optional step its frame's known
  // values leave open: a lone `if` whose suite falls through
  // (py/py_guards.h PyOptionalStep), undecided.
  bool IsOpenOptionalStep(const Condition& c);

  // Whether the value call `c` of frame `f` assigns (`w = w.mean(dim=1)`)
  // reaches only a later element of what the frame returns (`return out,
  // w`): a typical caller differentiates the first output, so that call's
  // backward does not run.
  bool FeedsOnlyLaterOutputs(const PyFrame& f, const PyCallStep& c);

  // Locals of frame `f` read by `condition` at line `line` whose truth the
  // assignments before it fix: "True"/"False" by name. A flag set by a
  // chain of checks (`why_not_fast_path = "training is enabled"` under
  // `elif self.training:`) is set when one branch of the chain holds and
  // every branch sets it alike; `evaluate` decides a branch's own condition.
  Bindings LocalTruths(const PyFrame& f, const std::string& condition, int line,
                       const std::function<Tri(const std::string&, const Bindings&)>& evaluate);

  // What call `c` of frame `f` passes to the arguments of the aten schema
  // `fn`: name -> value (a literal or a known parameter passed on), or
  // nullopt where what is passed is unknown and may differ from the
  // schema's default. Arguments not listed keep the schema's default.
  // *fits becomes false when the call cannot be this overload: more
  // arguments than it takes, a keyword the schema lacks, a literal of the
  // wrong kind, or an argument without default it does not pass
  // (`torch.zeros(n, m, dtype=...)` is never zeros.names, whose `names` has none).
  std::map<std::string, std::optional<std::string>> ToSchema(const PyFrame& f, const PyCallStep& c,
                                                             const NativeFunction& fn, bool* fits);

  // Whether call `c` of frame `f` passes what this trace cannot read: the
  // user's call of a bound function when the query gives no arguments
  // (`torch.where`), or a call whose text is not a call with arguments
  // (`conv2d = _add_docstr(torch.conv2d, ...)`). Every overload fits it.
  bool ArgumentsUnread(const PyFrame& f, const PyCallStep& c);

 private:
  const Bindings& Compute(const PyFrame& f, int depth);
  std::vector<PyParameter> ParametersOf(const Location& def);
  // The arguments written at call `c` of frame `from`; nullopt when unread.
  std::optional<std::vector<PyArgument>> ArgumentsAt(const PyFrame& from, const PyCallStep& c);
  // `value` passed at line `line` of frame `from` (its bindings `caller`,
  // its def's `caller_params`): a known value, nullopt for unknown, "" to
  // keep the callee's default. A local assigned once before is its value.
  std::optional<std::string> Resolve(const std::string& value, const Bindings& caller,
                                     const std::vector<PyParameter>& caller_params, const PyFrame* from = nullptr,
                                     int line = 0, int depth = 0);
  void AddAttributes(const std::string& symbol, Bindings* out, int depth);
  struct BodyLine {
    int indent = 0;
    std::string text;  // without its indentation; a statement continued over lines joined by spaces
  };
  static std::vector<BodyLine> BodyLines(std::string_view body, uint32_t first, uint32_t last);
  void AssignAttributes(const std::vector<BodyLine>& lines, size_t begin, size_t end, const Bindings& local,
                        Bindings* out);
  Tri BranchCondition(std::string_view header, const Bindings& local, const Bindings& attributes) const;
  static void AssignAttribute(std::string_view stmt, const Bindings& local, Bindings* out);
  static void ForgetAttribute(std::string_view stmt, Bindings* out);
  void InitAttributes(uint32_t module, uint32_t cls, const std::optional<std::vector<PyArgument>>& args, Bindings* out,
                      int depth);
  bool IsTarget(const PyFrame& f) const;
  // Whether a condition of call `c` is false where its frame's parameters hold `caller`.
  bool RuledOut(const PyCallStep& c, const Bindings& caller) const;
  static void PackIntListVarargs(const NativeFunction& fn, bool method, std::vector<PyArgument>* args);
  static bool Fits(const std::vector<PyArgument>& args, const std::map<std::string, std::string>& bound,
                   const NativeFunction& fn, bool method);
  bool IsModuleTarget() const { return t_.target_kind == TargetKind::kModule; }

  const Index& ix_;
  const Trace& t_;
  const Assumptions& a_;
  std::map<std::string, Bindings> done_;
  // parser_order.h NumbersAsTensorsFunctions of the checkout, read when first asked.
  std::optional<std::set<std::string>> numbers_as_tensors_;
  FrameLines lines_{ix_};
  std::map<std::string, bool> busy_;  // frames being computed (a recursion through callers)
};

// Whether method call `c` of frame `f` is made on a module buffer (as
// `frames` binds the frame) with nothing but literals passed
// (`self.num_batches_tracked.add_(1)`): nothing it is given requires grad,
// so autograd records nothing.
bool OnABufferAlone(const Index& ix, FrameBindings& frames, const PyFrame& f, const PyCallStep& c);

}  // namespace optrace
