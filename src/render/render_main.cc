// The answer first: the main path a typical tensor takes on the traced
// device (entry -> op -> implementation -> stub -> kernel or library ->
// backward op and kernels), and the alternatives with the conditions that
// choose them -- names first: what runs, what else runs, then the frames
// and the tree that locate each name. It reads only the
// typical/when/selections fields the tracer filled (trace/trace_paths.h),
// so text, markdown, JSON `summary` and the MCP brief all say the same
// thing. Long lines wrap; an identifier is never cut.
#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <tuple>
#include <utility>
#include <vector>

#include "base/text.h"
#include "render/render_internal.h"
#include "trace/condition_text.h"
#include "trace/path_rules.h"

namespace optrace::render_detail {

namespace {

// 0 a launch the assumptions take, 1 one they leave open, 2 one they rule out.
int LaunchRank(const KernelStep& k) { return k.undecided ? 1 : k.typical ? 0 : 2; }

std::string DeviceOf(const Trace& t) {
  for (const auto& a : t.assumptions)
    if (StartsWith(a, "device=")) return a.substr(7);
  return "cuda";
}

// The device a Main path is for ("cuda" | "cpu", as the assumptions say it)
// as the trace's code devices say it: the one place that reads the word.
CodeDevice TracedCodeDevice(const std::string& device) {
  return device == "cuda" ? CodeDevice::kCuda : CodeDevice::kCpu;
}

// Whether a dispatch key (or registration device) is the traced device's own.
bool DeviceKey(const std::string& key, const std::string& device) {
  return CodeDeviceOf(key) == TracedCodeDevice(device);
}

// The innermost condition worth showing (not a device or #if line); for a
// branch left open, the innermost condition the assumptions leave open.
const Condition* Deciding(const OpStep& op) {
  if (op.undecided)
    for (auto it = op.when.rbegin(); it != op.when.rend(); ++it)
      if (it->open && it->kind != ConditionKind::kPreprocessor) return &*it;
  for (auto it = op.when.rbegin(); it != op.when.rend(); ++it)
    if (it->kind != ConditionKind::kDevice && it->kind != ConditionKind::kPreprocessor) return &*it;
  return nullptr;
}

// How an op's line states its edge's conditions: the deciding one, and for
// a branch left open, how many more open conditions it waits on -- the
// innermost alone ("when input.sym_numel()==0") would state one part of a
// conjunction as the whole of it. --detail full and the JSON list them all.
std::string WhenText(const OpStep& op, const Condition* deciding) {
  if (!deciding) return "";
  size_t open = 0;
  if (op.undecided)
    for (const auto& c : op.when)
      open += c.open && c.kind != ConditionKind::kPreprocessor && c.kind != ConditionKind::kDevice;
  if (open <= 1) return deciding->Describe();
  return deciding->Describe() + " (+" + std::to_string(open - 1) + " condition" + (open > 2 ? "s" : "") + ")";
}

// " when C (+N conditions)": the innermost condition of `when` the
// assumptions leave open (an `#if` too: a CUDA version test decides
// whether cumsum alerts) and how many more; "" when none is open.
std::string OpenConditionsText(const std::vector<Condition>& when) {
  const Condition* deciding = nullptr;
  size_t open = 0;
  for (const auto& c : when) {
    if (!c.open) continue;
    deciding = &c;
    ++open;
  }
  if (!deciding) return "";
  std::string text = " " + deciding->Describe();
  if (open > 1) text += " (+" + std::to_string(open - 1) + " condition" + (open > 2 ? "s" : "") + ")";
  return text;
}

// The innermost condition of an entry op's Python call that is about the
// arguments and does not hold: interpreter state (scripting, tracing,
// __torch_function__ overrides) is never what a user chooses, and a
// condition the defaults take (`unless inplace`) is not why the op is off
// the path (MHA's dropout: `if dropout_p > 0.0`).
const Condition* ArgumentCondition(const OpStep& op) {
  const Condition* open = nullptr;
  for (auto it = op.when.rbegin(); it != op.when.rend(); ++it) {
    if (it->kind == ConditionKind::kDevice || it->kind == ConditionKind::kPreprocessor || it->holds) continue;
    const std::string& c = it->text;
    if (c.find("torch.jit.") != std::string::npos || c.find("torch._C.") != std::string::npos ||
        c.find("has_torch_function") != std::string::npos)
      continue;
    if (!it->open) return &*it;  // decided false: why the op is off the path
    if (!open) open = &*it;
  }
  return open;
}

// Where a kernel named after dtypes (fmha_cutlassF_f32_aligned_..., _bf16_)
// goes for `dtype`: 0 named for it, 1 named for none, 2 for another only.
int DtypeRank(const std::string& kernel, const std::string& dtype) {
  static const std::pair<const char*, const char*> kTokens[] = {
      {"f32", "float32"},  {"fp32", "float32"}, {"float32", "float32"}, {"f16", "float16"},
      {"fp16", "float16"}, {"half", "float16"}, {"bf16", "bfloat16"},   {"bfloat16", "bfloat16"},
      {"f64", "float64"},  {"fp64", "float64"}, {"double", "float64"}};
  bool other = false;
  for (const auto& [token, meaning] : kTokens) {
    // A token between underscores (or at an end): "_f32_", not "f32" in "xf32y".
    std::string t = token;
    for (size_t at = kernel.find(t); at != std::string::npos; at = kernel.find(t, at + 1)) {
      bool left = at == 0 || kernel[at - 1] == '_';
      bool right = at + t.size() == kernel.size() || kernel[at + t.size()] == '_';
      if (!left || !right) continue;
      if (meaning == dtype) return 0;
      other = true;
    }
  }
  return other ? 2 : 1;
}

// The architecture a kernel is built for (`fmha_cutlassF_f32_aligned_64x64_rf_sm80`:
// 80, an `smNN` token between underscores or at an end), 0 when it names none.
// A launcher picks among such a family by the device's compute capability,
// the newest one at most the device's: the newest is what today's GPUs run.
int ArchOf(const std::string& kernel) {
  for (size_t at = kernel.find("sm"); at != std::string::npos; at = kernel.find("sm", at + 1)) {
    size_t end = at + 2;
    while (end < kernel.size() && std::isdigit(static_cast<unsigned char>(kernel[end]))) ++end;
    bool left = at == 0 || kernel[at - 1] == '_', right = end == kernel.size() || kernel[end] == '_';
    if (left && right && end > at + 2) return std::stoi(kernel.substr(at + 2, end - at - 2));
  }
  return 0;
}

// Builds the MainPath of a trace: the tree of ops on the path, the
// derivatives autograd records for it, the backward tree, and what each
// alternative runs.
class PathBuilder {
 public:
  explicit PathBuilder(const Trace& t) : t_(t) {
    m_.device = DeviceOf(t);
    for (const auto& a : t.assumptions)
      if (StartsWith(a, "dtype=")) dtype_ = a.substr(6);
    for (size_t i = 0; i < t.ops.size(); ++i)
      first_of_.emplace(std::string(Name(t.ops[i].role)) + " " + t.ops[i].name, i);
    m_.marked = !t.assumptions.empty();
    for (const auto& op : t.ops)
      for (const auto& im : op.impls) implementations_.insert(std::string(LastNameView(im.function)));
  }

  MainPath Build() {
    Forward();
    Derivatives();
    Backward();
    for (const auto& op : t_.ops)
      if (op.role == OpRole::kForward && op.undecided && !op.reached_from.empty()) m_.undecided.push_back(&op);
    AlternativeOps();
    ArgumentOps();
    return std::move(m_);
  }

 private:
  const OpStep* First(OpRole role, const std::string& name) const {
    auto it = first_of_.find(std::string(Name(role)) + " " + name);
    return it == first_of_.end() ? nullptr : &t_.ops[it->second];
  }
  bool IsFirst(size_t i) const { return First(t_.ops[i].role, t_.ops[i].name) == &t_.ops[i]; }

  // Typical ops, and the branches below them the assumptions leave open
  // (both sides of an unknown condition are kept, marked).
  // A backward op is on the path the same way: typical below the
  // derivative that names it, or behind an open condition (marked).
  // Where the assumptions rule every op out (a walk that stopped above the
  // code that runs: nn.Transformer's layers, cloned into a ModuleList), the
  // path is empty -- never the entry ops they ruled out. A trace the
  // assumptions were never applied to (no typical marks) has its entry ops
  // for a path.
  bool OnPath(const OpStep& op) const {
    if (!m_.marked) return op.role != OpRole::kForward || op.reached_from.empty();
    return op.typical || op.undecided;
  }

  // What runs for the device, added to an entry (an overload folded into
  // the entry of its base name brings its own).
  void FillOwn(const OpStep& op, MainPathOp& e) const {
    for (const auto& im : op.impls)
      if (DeviceKey(im.key, m_.device) && !e.impl) e.impl = &im;
    for (const auto& im : op.impls)
      if (StartsWith(im.key, "Composite") && !e.impl) e.impl = &im;
    // A stub or library call the assumptions rule out names nothing that
    // runs; one they leave open comes after one they take.
    for (bool open : {false, true})
      for (const auto& s : op.stubs)
        for (const auto& r : s.registrations)
          if (DeviceKey(r.device, m_.device) && s.typical && s.undecided == open && !e.stub) {
            e.stub = &s;
            e.registration = &r;
            e.stub_owner = &op;
          }
    for (const auto& s : op.stubs)
      if (!s.typical && !s.undecided)
        for (const auto& r : s.registrations) e.ruled_out_targets.push_back(r.target);
    for (const auto& k : op.kernels) {
      bool have = false;
      for (const KernelStep* x : e.kernels) have = have || x->name == k.name;
      if (k.device == TracedCodeDevice(m_.device) && !have) e.kernels.push_back(&k);
    }
    if (TracedCodeDevice(m_.device) == CodeDevice::kCuda)
      for (const auto& l : op.libraries) {
        if (!l.typical) continue;
        bool have = false;
        for (const LibraryStep* x : e.libraries) have = have || x->name == l.name;
        if (!have) e.libraries.push_back(&l);
      }
  }

  // A structured op runs its delegate's implementation and kernels
  // (structured_delegate: add.out), whichever overload the tracer reached
  // the delegate from first: they are folded into the op's entry.
  void Fill(const OpStep& op, MainPathOp& e) const {
    FillOwn(op, e);
    if (op.yaml && op.yaml->structured_delegate)
      if (const OpStep* d = First(op.role, *op.yaml->structured_delegate); d && d != &op) FillOwn(*d, e);
    // The order, most telling first: what runs (launches the assumptions
    // take, then those they leave open, then those they rule out: copy_'s
    // conj_kernel for a tensor that is no conjugate view); the op's own
    // kernels before those its code reaches through another op's
    // implementation it calls directly (addmm_out_cuda_impl's
    // `at::native::copy_(result, *self_)`: copy_'s kernels); those named
    // for the assumed dtype first, those named for another last; the
    // newest architecture first (ArchOf); kernels reached through the
    // device's stub registration before those of other stubs the
    // implementation may call. Each kernel's key is read once.
    const std::set<std::string> own = ImplementationsOf(e);
    auto through_other = [&](const KernelStep* k) {
      for (size_t i = 1; i < k->path.size(); ++i)
        if (implementations_.count(k->path[i]) && !own.count(k->path[i])) return true;
      return false;
    };
    auto off_registration = [&](const KernelStep* k) {
      if (!e.registration) return false;
      const std::string& target = e.registration->target;
      return std::find(k->path.begin(), k->path.end(), target) == k->path.end() && k->name != target;
    };
    using Key = std::tuple<int, bool, int, int, bool>;
    std::vector<std::pair<Key, const KernelStep*>> keyed;
    keyed.reserve(e.kernels.size());
    for (const KernelStep* k : e.kernels)
      keyed.push_back(
          {{LaunchRank(*k), through_other(k), DtypeRank(k->name, dtype_), -ArchOf(k->name), off_registration(k)}, k});
    std::stable_sort(keyed.begin(), keyed.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    for (size_t i = 0; i < keyed.size(); ++i) e.kernels[i] = keyed[i].second;
  }

  // The implementation functions of the entry's ops (its own, its folded
  // overloads' and their structured delegates').
  std::set<std::string> ImplementationsOf(const MainPathOp& e) const {
    std::set<std::string> out;
    auto add = [&](const OpStep& op) {
      for (const auto& im : op.impls) out.insert(std::string(LastNameView(im.function)));
    };
    std::vector<size_t> ops = e.folded;
    ops.push_back(e.op);
    for (size_t i : ops) {
      const OpStep& op = t_.ops[i];
      add(op);
      if (op.yaml && op.yaml->structured_delegate)
        if (const OpStep* d = First(op.role, *op.yaml->structured_delegate)) add(*d);
    }
    return out;
  }

  // Whether `child` hangs below `op`: reached from it, or from its
  // structured delegate (folded into the op, so what it calls is the op's).
  static bool Below(const OpStep& op, const OpStep& child) {
    const auto& delegate = op.yaml ? op.yaml->structured_delegate : std::nullopt;
    if (delegate && *delegate == child.name) return false;  // folded, not a child
    return child.role == op.role && (child.reached_from == op.name || (delegate && child.reached_from == *delegate));
  }

  void Visit(size_t i, int level, std::vector<MainPathOp>* out) {
    const OpStep& op = t_.ops[i];
    // A root is visited too: diagonal_backward's callee diagonal is reached
    // from diagonal_backward, never its caller (the forward diagonal is).
    visited_.insert(i);
    std::string base(OpBaseName(op.name));
    if (!shown_bases_.insert(std::string(Name(op.role)) + " " + base).second) {
      for (auto& e : *out)
        if (OpBaseName(t_.ops[e.op].name) == base && t_.ops[e.op].role == op.role) {
          ++e.overloads;
          e.folded.push_back(i);
          Fill(op, e);
          // An overload the typical path takes decides the entry an open
          // one began (add_.Scalar behind an open condition in linear,
          // add_.Tensor on the path in the encoder layer).
          // (A structured delegate is marked as taken whenever the op
          // delegating to it is: it decides nothing.)
          const auto& delegate = t_.ops[e.op].yaml ? t_.ops[e.op].yaml->structured_delegate : std::nullopt;
          if (e.undecided && op.typical && !op.undecided && !(delegate && *delegate == op.name)) {
            std::swap(e.op, e.folded.back());  // the entry names the overload that runs
            e.undecided = false;
            e.when = Deciding(op);
            e.when_text = WhenText(op, e.when);
          }
          break;
        }
    } else {
      MainPathOp e;
      e.op = i;
      e.level = level;
      Fill(op, e);
      e.when = Deciding(op);
      e.when_text = WhenText(op, e.when);
      e.undecided = op.undecided;  // an entry kept on the path by an open Python condition too
      out->push_back(e);
    }
    for (size_t c = 0; c < t_.ops.size(); ++c)
      if (c != i && Below(op, t_.ops[c]) && OnPath(t_.ops[c]) && IsFirst(c) && visited_.insert(c).second)
        Visit(c, level + 1, out);
  }

  // Roots of the path: entry ops the typical path takes, and entry ops an
  // open Python condition keeps as an optional step (`if dropout_p > 0.0:
  // dropout(...)`): both may run, the latter marked open (`?`).
  void Forward() {
    for (size_t i = 0; i < t_.ops.size(); ++i) {
      const OpStep& op = t_.ops[i];
      if (op.role != OpRole::kForward || !OnPath(op)) continue;
      const OpStep* parent = op.reached_from.empty() ? nullptr : First(OpRole::kForward, op.reached_from);
      bool root = op.reached_from.empty() || !parent || !OnPath(*parent);
      bool open_entry = op.reached_from.empty() && op.undecided;
      if (root && (op.typical || open_entry || !m_.marked)) Visit(i, 0, &m_.forward);
    }
  }

  // Autograd records the outermost op on the path that has a derivatives
  // entry; what that op's implementation calls runs below autograd, so
  // its own entries never apply (relu's, not clamp_min's).
  void Derivatives() {
    std::set<std::string> recorded_ops, path_ops;
    for (const auto& b : t_.backward)
      if (b.derivatives && !b.below_autograd) recorded_ops.insert(b.op);
    std::vector<std::pair<int, bool>> above;  // (level, recorded at or above) along the tree
    for (const auto& e : m_.forward) {
      while (!above.empty() && above.back().first >= e.level) above.pop_back();
      bool covered = !above.empty() && above.back().second;
      bool recorded = recorded_ops.count(t_.ops[e.op].name) > 0;
      // An entry an open condition keeps -- Python's (upsample_nearest2d
      // when input.dim() == 4) or C++'s (cudnn_batch_norm when the backend
      // selection is left open) -- may run: its backward may too, marked open.
      // An overload folded into the entry (upsample_nearest2d below its
      // .vec form) has the derivatives.yaml entry autograd records.
      std::vector<size_t> ops = e.folded;
      ops.push_back(e.op);
      for (size_t o : ops) {
        if (!covered) path_ops.insert(t_.ops[o].name);
        if (e.undecided && !covered) open_ops_.insert(t_.ops[o].name);
        recorded = recorded || recorded_ops.count(t_.ops[o].name) > 0;
      }
      above.push_back({e.level, covered || recorded});
    }
    for (const auto& b : t_.backward)
      if (path_ops.count(b.op) && !b.below_autograd) m_.derivatives.push_back(&b);
  }

  void Backward() {
    for (size_t i = 0; i < t_.ops.size(); ++i) {
      const OpStep& op = t_.ops[i];
      if (op.role != OpRole::kBackward || !IsFirst(i)) continue;
      // mul_'s structured delegate mul.out runs as mul_'s own kernel, folded into its entry: no op of its own.
      const OpStep* parent = op.reached_from.empty() ? nullptr : First(op.role, op.reached_from);
      if (parent && parent->yaml && parent->yaml->structured_delegate == op.name) continue;
      bool named = false, decided = false;
      for (const BackwardStep* b : m_.derivatives) {
        bool here = false;
        for (const auto& n : b->ops) here = here || SameOp(op.name, n) || op.reached_from == b->op;
        named = named || here;
        decided = decided || (here && !open_ops_.count(b->op));
      }
      if (!named || !OnPath(op)) continue;
      size_t first = m_.backward.size();
      Visit(i, 0, &m_.backward);
      if (!decided)
        for (size_t k = first; k < m_.backward.size(); ++k) m_.backward[k].undecided = true;
    }
  }

  // What each alternative of a selection runs: the ops off the path whose
  // edge carries that alternative's condition (the innermost one that is
  // an alternative's, so an op behind use_miopen inside the cuDNN-less
  // branch goes to use_miopen), when they or what they call run something.
  void AlternativeOps() {
    std::set<std::string> keys, placed;
    for (const auto& s : t_.selections)
      for (const auto& a : s.alternatives) keys.insert(a.condition + "@" + LocText(a.where));
    for (size_t i = 0; i < t_.ops.size(); ++i) {
      const OpStep& op = t_.ops[i];
      if (op.role != OpRole::kForward || op.typical || op.reached_from.empty() || !IsFirst(i)) continue;
      std::string key;
      for (const auto& w : op.when)
        if (keys.count(w.Describe() + "@" + LocText(w.where))) key = w.Describe() + "@" + LocText(w.where);
      if (OnAnotherDevice(op) || key.empty() || !placed.insert(key + " " + std::string(OpBaseName(op.name))).second)
        continue;
      MainPathOp e;
      e.op = i;
      FillBelow(op, e);
      if (!e.kernels.empty() || !e.libraries.empty() || e.stub) m_.alternative_ops[key].push_back(e);
    }
  }

  // Whether `op` is called from another device's implementation alone
  // (mkldnn_rnn on CPU; _embedding_bag_cpu's apply_bag_size on CUDA): no
  // argument makes it run on the traced device, so it is no alternative.
  bool OnAnotherDevice(const OpStep& op) const {
    const std::string_view mine = Name(TracedCodeDevice(m_.device));
    return std::any_of(op.when.begin(), op.when.end(),
                       [&](const Condition& w) { return w.kind == ConditionKind::kDevice && !w.text.ends_with(mine); });
  }

  // What `op` runs: its own kernels and those of the ops it calls
  // unconditionally, a few calls deep (a composite's math runs in them).
  void FillBelow(const OpStep& op, MainPathOp& e) const {
    std::vector<const OpStep*> callers = {&op};
    for (int depth = 0; depth < 3 && !callers.empty(); ++depth) {
      std::vector<const OpStep*> next;
      for (const OpStep* c : callers) {
        Fill(*c, e);
        for (const auto& child : t_.ops)
          if (Below(*c, child) && !Deciding(child)) next.push_back(&child);
      }
      callers = std::move(next);
    }
  }

  // The condition that makes `op`, off the path, an argument's branch of
  // the op on the path calling it: the innermost one decided false naming a
  // non-Tensor argument of that caller's schema (kl_div's `if (log_target)`,
  // `reduction == at::Reduction::Sum`) -- the call's arguments decide it,
  // not the tensor. nullptr when none.
  const Condition* CallerArgumentCondition(const OpStep& op) const {
    const OpStep* caller = op.reached_from.empty() ? nullptr : First(OpRole::kForward, op.reached_from);
    if (!caller || !caller->yaml || !OnPath(*caller) || caller->undecided || OnAnotherDevice(op)) return nullptr;
    for (auto it = op.when.rbegin(); it != op.when.rend(); ++it) {
      if (it->open || it->holds || it->kind == ConditionKind::kDevice || it->kind == ConditionKind::kPreprocessor)
        continue;
      for (const auto& a : caller->yaml->schema.arguments)
        if (a.type.find("Tensor") == std::string::npos && NamesIdentifier(it->text, a.name)) return &*it;
    }
    return nullptr;
  }

  // Whether `text` names `id` as a whole identifier.
  static bool NamesIdentifier(std::string_view text, std::string_view id) {
    for (size_t at = text.find(id); at != std::string_view::npos; at = text.find(id, at + 1)) {
      bool left = at == 0 || !IsIdentChar(text[at - 1]);
      bool right = at + id.size() == text.size() || !IsIdentChar(text[at + id.size()]);
      if (left && right) return true;
    }
    return false;
  }

  // The ops an argument chooses and the defaults do not take: entry ops a
  // Python argument picks (mode == "bilinear", inplace), and ops the op on
  // the path calls on an argument's branch (log_target): what each runs,
  // its own kernels and those of the ops it calls unconditionally (a .vec
  // overload calling the op whose delegate launches), its overloads folded in.
  void ArgumentOps() {
    std::map<std::string, size_t> index;  // base name -> entry
    std::set<std::string> selected;       // conditions a selection's alternatives draw already
    for (const auto& s : t_.selections)
      for (const auto& a : s.alternatives) selected.insert(a.condition + "@" + LocText(a.where));
    std::set<size_t> called;  // entries for ops the path's ops call: listed only when they run something
    // An overload that needs a named tensor beside one the path takes
    // (`squeeze.dimname` beside `squeeze.dim`) is no branch an argument
    // chooses: the condition it shares with the taken one decides neither,
    // and no typical tensor has names (trace/path_rules.h). Other overloads
    // (`max.dim` beside `max`) stay: an argument does pick them.
    std::set<std::string> on_path;
    for (const auto& op : t_.ops)
      if (op.role == OpRole::kForward && (op.typical || op.undecided)) on_path.insert(std::string(OpBaseName(op.name)));
    for (size_t i = 0; i < t_.ops.size(); ++i) {
      const OpStep& op = t_.ops[i];
      if (op.role != OpRole::kForward || op.typical || op.undecided) continue;
      if (on_path.count(std::string(OpBaseName(op.name))) && NeedsNames(op)) continue;
      const Condition* cond = op.reached_from.empty() ? ArgumentCondition(op) : CallerArgumentCondition(op);
      if (!cond || selected.count(cond->Describe() + "@" + LocText(cond->where))) continue;
      if (!op.reached_from.empty() && !index.count(std::string(OpBaseName(op.name))))
        called.insert(m_.argument_ops.size());
      auto [slot, added] = index.emplace(std::string(OpBaseName(op.name)), m_.argument_ops.size());
      if (added) {
        m_.argument_ops.emplace_back();
        m_.argument_ops.back().op = i;
        m_.argument_ops.back().when = cond;
      }
      FillBelow(op, m_.argument_ops[slot->second]);
    }
    std::vector<MainPathOp> kept;
    for (size_t i = 0; i < m_.argument_ops.size(); ++i) {
      const MainPathOp& e = m_.argument_ops[i];
      if (!called.count(i) || !e.kernels.empty() || !e.libraries.empty()) kept.push_back(e);
    }
    m_.argument_ops = std::move(kept);
    std::stable_partition(m_.argument_ops.begin(), m_.argument_ops.end(),
                          [](const MainPathOp& e) { return !e.kernels.empty() || !e.libraries.empty(); });
  }

  const Trace& t_;
  MainPath m_;
  std::string dtype_ = "float32";           // the assumed dtype: its kernels are named first
  std::map<std::string, size_t> first_of_;  // (role + name) -> op index
  std::set<std::string> implementations_;   // every op's implementation functions (last names)
  std::set<std::string> open_ops_;          // forward entries on the path behind an open condition
  std::set<std::string> shown_bases_;
  std::set<size_t> visited_;
};

}  // namespace

MainPath ComputeMainPath(const Trace& t) { return PathBuilder(t).Build(); }

namespace {

// The functions between an entry's implementation and a kernel's launch
// that the entry does not already name (its implementation, stub and the
// stub's target): how the implementation gets to the kernel.
std::vector<std::string> Via(const MainPathOp& e, const KernelStep& k) {
  std::vector<std::string> out;
  for (size_t i = 1; i < k.path.size(); ++i) {  // path[0] is the implementation
    const std::string& f = k.path[i];
    bool named = f == k.name || f.ends_with("_stub") || (e.registration && f == e.registration->target) ||
                 (e.impl && f == e.impl->function);
    // The walk's first way to the launch may pass a stub the assumptions
    // rule out, another stub's way runs: its target is not named.
    bool ruled_out = std::find(e.ruled_out_targets.begin(), e.ruled_out_targets.end(), f) != e.ruled_out_targets.end();
    if (!named && !ruled_out && std::find(out.begin(), out.end(), f) == out.end()) out.push_back(f);
  }
  return out;
}

// Device code below a stub whose kernel launch was not found: the helpers on
// the device's path defined beside the stub's target, each located.
std::vector<const ImplStep*> DeviceCode(const MainPathOp& e, const std::string& device) {
  std::vector<const ImplStep*> out;
  if (!e.kernels.empty() || !e.libraries.empty() || !e.registration || !e.stub_owner) return out;
  const Location& target = e.registration->target_definition;
  for (const auto& h : e.stub_owner->helpers)
    if (DeviceKey(h.key, device) && h.where.file == target.file && h.function != e.registration->target &&
        h.ruled_out.empty())
      out.push_back(&h);
  return out;
}

// What an entry runs, by name only: kernels (with the functions leading to
// them), device code, libraries -- up to `max_names` besides the libraries,
// which come first when `libraries_early`.
std::vector<std::string> RunNames(const MainPathOp& e, const std::string& device, size_t max_names = 6,
                                  bool libraries_early = false) {
  std::vector<std::string> names;
  auto add = [&](const std::string& n) {
    if (std::find(names.begin(), names.end(), n) == names.end()) names.push_back(n);
  };
  auto library = [](const LibraryStep* l) { return (l->undecided ? "?" : "") + l->name; };
  if (libraries_early)
    for (const LibraryStep* l : e.libraries) add(library(l));
  // A <<<>>> launch of a variable (kernel_fn<<<...>>>, the kernels handed to
  // it are listed too) names no kernel: after those that are defined.
  auto unresolved = [](const KernelStep& k) {
    return (k.launch == KernelLaunch::kTripleChevron || k.launch == KernelLaunch::kMacro) &&
           k.where.line == k.launch_site.line && k.where.file == k.launch_site.file;
  };
  // Launches the assumptions rule out are left off; those they leave open
  // come after the rest, marked `?` (their conditions are in the op's
  // kernels, `--detail full` and JSON).
  for (const KernelStep* k : e.kernels)
    if (k->typical && !k->undecided && !unresolved(*k)) add(k->name);
  for (const KernelStep* k : e.kernels)
    if (k->typical && !k->undecided && unresolved(*k)) add(k->name);
  for (const KernelStep* k : e.kernels)
    if (k->undecided) add("?" + k->name);
  // The device's stub target is what the op's code runs below dispatch
  // (cauchy_stub -> cauchy_kernel): named even where no stub line is drawn,
  // once -- a launch of that name left open (`?maximum_kernel_cuda`) says it.
  // A stub the assumptions leave open runs its target and device code only maybe.
  const std::string stub_mark = e.stub && e.stub->undecided ? "?" : "";
  if (e.registration && !e.registration->target.empty() &&
      std::find(names.begin(), names.end(), "?" + e.registration->target) == names.end())
    add(stub_mark + e.registration->target);
  // The functions nearest each launch first: they say most about the code
  // that runs (the functor a launcher is handed, then who hands it).
  // The way to a launch the assumptions leave open is open too (`?`) below
  // the functions that run whenever the op does (KernelStep::path_runs);
  // to one they rule out, no answer.
  auto runs = [&](const std::string& f) {
    auto open = std::find(names.begin(), names.end(), "?" + f);
    if (open != names.end()) *open = f;
    else add(f);
  };
  for (bool open : {false, true}) {
    for (const KernelStep* k : e.kernels) {
      if (!k->typical || k->undecided != open) continue;
      std::vector<std::string> via = Via(e, *k);
      for (auto f = via.rbegin(); f != via.rend(); ++f) {
        const auto at = static_cast<size_t>(std::find(k->path.begin(), k->path.end(), *f) - k->path.begin());
        if (!open || at < k->path_runs) runs(*f);
        else if (std::find(names.begin(), names.end(), *f) == names.end()) add("?" + *f);
      }
    }
  }
  for (const ImplStep* h : DeviceCode(e, device)) add(stub_mark + h->function);
  if (names.size() > max_names) {
    names.resize(max_names);
    names.push_back("…");
  }
  for (const LibraryStep* l : e.libraries) add(library(l));
  return names;
}

// Where the first of `names` (RunNames' kernels, a `?` before one left
// open) is defined: the line a reader opens for what is named first. Else
// the op's first kernel, else `fallback`.
Location FirstNamedAt(const MainPathOp& e, const std::vector<std::string>& names, const Location& fallback) {
  if (!names.empty()) {
    std::string_view first = names.front();
    if (first.starts_with("?")) first.remove_prefix(1);
    for (const KernelStep* k : e.kernels)
      if (k->name == first) return k->where;
  }
  return !e.kernels.empty() ? e.kernels[0]->where : fallback;
}

class MainWriter {
 public:
  MainWriter(const Trace& t, const MainPath& m, size_t width) : t_(t), m_(m), width_(width) {}

  std::vector<std::string> Lines(bool alternatives) {
    // Entry ops that are set-up beside the work (factories; views and
    // shape plumbing that run nothing) collapse, with what they call, into
    // one line below the frames -- unless nothing else would be left.
    std::vector<bool> shown(m_.forward.size(), true);
    std::vector<size_t> setup;
    size_t roots = 0;
    for (size_t i = 0; i < m_.forward.size(); ++i) {
      if (m_.forward[i].level != 0) continue;
      ++roots;
      if (!SubtreeRuns(m_.forward, i) || IsFactory(t_.ops[m_.forward[i].op])) setup.push_back(i);
    }
    std::vector<std::string> collapsed;
    if (setup.size() < roots) {
      for (size_t i : setup) {
        std::fill(shown.begin() + static_cast<long>(i), shown.begin() + static_cast<long>(SubtreeEnd(m_.forward, i)),
                  false);
        // An optional step an open condition keeps is marked open here too.
        collapsed.push_back((m_.forward[i].undecided ? "?" : "") + t_.ops[m_.forward[i].op].name);
        collapsed_.insert(t_.ops[m_.forward[i].op].name);
      }
    }
    // What else runs follows what runs, before where each runs: the names
    // come first (the tree below locates them). Without the names' lines
    // (one op), the tree is as short and comes first.
    const bool names_first = RunLines(shown);
    if (m_.forward.empty() && m_.marked &&
        std::any_of(t_.ops.begin(), t_.ops.end(), [](const OpStep& op) { return op.role == OpRole::kForward; })) {
      // Every op reached is ruled out: the walk stopped above the code that
      // runs (what it could not follow is under Not found).
      Add("",
          "nothing found that runs on " + m_.device + " for a typical call: the assumptions rule out every op reached",
          "");
      Add("  ", "(the calls the walk could not follow are under Not found; what else runs follows)", "");
      lines_.push_back("");
    }
    if (alternatives && names_first && AlternativeLines()) lines_.push_back("");
    PythonLines(shown);
    if (!collapsed.empty()) Add("  · ", "also on the path, set-up (factories, views): " + Join(collapsed, ", "), "");
    for (size_t i = 0; i < m_.forward.size(); ++i) {
      const MainPathOp& e = m_.forward[i];
      bool has_children = i + 1 < m_.forward.size() && m_.forward[i + 1].level > e.level;
      // A branch left open that runs nothing of its own and leads nowhere
      // is plumbing: the alternatives list it with its condition.
      if (e.undecided && !has_children && RunNames(e, m_.device).empty()) continue;
      if (shown[i]) OpLines(e, "");
    }
    if (!m_.derivatives.empty() || !m_.backward.empty()) {
      Add("", "backward (autograd)", "");
      // An op is drawn when something runs in it or below it.
      std::vector<bool> drawn(m_.backward.size());
      for (size_t i = 0; i < m_.backward.size(); ++i) drawn[i] = SubtreeRuns(m_.backward, i);
      // Entries whose backward ops draw nothing (views, factories: no
      // kernel of their own) share one line.
      std::vector<std::string> quiet;
      for (const BackwardStep* b : m_.derivatives) {
        bool draws = false;
        for (size_t i = 0; i < m_.backward.size(); ++i) {
          const OpStep& op = t_.ops[m_.backward[i].op];
          if (!drawn[i] || m_.backward[i].level != 0) continue;
          draws = draws || op.reached_from == b->op;
          for (const auto& n : b->ops) draws = draws || SameOp(op.name, n) || OpBaseName(op.name) == OpBaseName(n);
        }
        if (!draws) {
          quiet.push_back(b->op);
          continue;
        }
        // The ops a first-order backward runs; those an open condition
        // decides marked `?`, those it never takes left out.
        std::vector<std::string> runs;
        for (const auto& n : b->ops) {
          if (std::find(b->untaken.begin(), b->untaken.end(), n) != b->untaken.end()) continue;
          bool open = std::find(b->open.begin(), b->open.end(), n) != b->open.end();
          runs.push_back(open ? "?" + n : n);
        }
        Add("  ", "∂ " + b->op + (runs.empty() ? "" : " → " + Join(runs, ", ")),
            LocText(DerivativeLocation(b->derivatives), true));
      }
      if (!quiet.empty())
        Add("  ∂ ", Join(quiet, ", ") + ": their backward ops run no kernel on this path (--detail full)", "");
      for (size_t i = 0; i < m_.backward.size(); ++i)
        if (drawn[i]) OpLines(m_.backward[i], "  ");
    }
    if (alternatives && !names_first) AlternativeLines();
    return std::move(lines_);
  }

  // Past the last entry of the tree drawn from entry i (those below it).
  static size_t SubtreeEnd(const std::vector<MainPathOp>& entries, size_t i) {
    size_t j = i + 1;
    while (j < entries.size() && entries[j].level > entries[i].level) ++j;
    return j;
  }

  // Whether entry i or an entry below it runs something (a view whose child
  // is as_strided runs nothing).
  static bool SubtreeRuns(const std::vector<MainPathOp>& entries, size_t i) {
    for (size_t j = i, end = SubtreeEnd(entries, i); j < end; ++j)
      if (!entries[j].kernels.empty() || !entries[j].libraries.empty() || entries[j].stub) return true;
    return false;
  }

  // A factory (no tensor argument: zeros, empty, full): set-up work, even
  // when its fill runs a kernel (the digest above still names it).
  static bool IsFactory(const OpStep& op) {
    if (!op.yaml) return false;
    for (const auto& a : op.yaml->schema.arguments)
      if (a.type.find("Tensor") != std::string::npos) return false;
    return true;
  }

  // text, and the location right-aligned when it fits; else on a line of its own.
  void Add(const std::string& prefix, const std::string& text, const std::string& loc) {
    size_t room = width_ > Columns(prefix) + 8 ? width_ - Columns(prefix) : 40;
    std::vector<std::string> wrapped = Wrap(text, room);
    for (size_t i = 0; i < wrapped.size(); ++i) {
      std::string line = (i ? std::string(Columns(prefix) + 2, ' ') : prefix) + wrapped[i];
      if (i + 1 == wrapped.size() && !loc.empty()) {
        size_t used = Columns(line);
        size_t col = std::max<size_t>(used + 2, 60);
        // A long location (a torch/ Python path) keeps its line where it
        // fits short of the column the others align at.
        if (col + Columns(loc) > width_ && used + 2 + Columns(loc) <= width_) col = used + 2;
        if (col + Columns(loc) <= width_) {
          line += std::string(col - used, ' ') + loc;
        } else {
          lines_.push_back(line);
          size_t indent = std::min(Columns(prefix) + 4, width_ > Columns(loc) ? width_ - Columns(loc) : 0);
          line = std::string(indent, ' ') + FitLeft(loc, width_ - indent);
        }
      }
      lines_.push_back(line);
    }
  }

  // The Python frames that lead to the path's shown entry ops, each with
  // the calls that do (one line per callee); every other call and frame
  // (bookkeeping: flatten_parameters, permute_hidden ...) folds into one line.
  void PythonLines(const std::vector<bool>& shown) {
    if (t_.python.empty()) return;
    std::set<std::string> entries;
    for (size_t i = 0; i < m_.forward.size(); ++i)
      if (m_.forward[i].level == 0 && shown[i]) entries.insert(std::string(OpBaseName(t_.ops[m_.forward[i].op].name)));
    // Frames on the way: those calling an entry, then those calling them.
    std::set<std::string> on_way;
    for (bool grew = true; grew;) {
      grew = false;
      for (const auto& f : t_.python) {
        if (on_way.count(f.symbol)) continue;
        for (const auto& c : f.calls) {
          bool leads =
              (StartsWith(c.resolved, "aten::") && entries.count(std::string(OpBaseName(c.resolved.substr(6))))) ||
              (on_way.count(c.resolved) && c.resolved != f.symbol);
          if (leads) {
            on_way.insert(f.symbol);
            grew = true;
            break;
          }
        }
      }
    }
    Add("", t_.call_query ? t_.query : t_.query + "(...)", "");
    std::vector<std::string> folded;
    size_t other_branches = 0;
    std::set<std::string> path_bases;  // every entry op on the path, shown or collapsed
    for (const auto& e : m_.forward)
      if (e.level == 0) path_bases.insert(std::string(OpBaseName(t_.ops[e.op].name)));
    auto fold = [&](const std::string& name) {
      if (std::find(folded.begin(), folded.end(), name) == folded.end()) folded.push_back(name);
    };
    for (const auto& f : t_.python) {
      if (!on_way.count(f.symbol)) {
        fold(f.symbol.substr(f.symbol.rfind('.') + 1));
        continue;
      }
      Add("  ", f.symbol, LocText(f.where, true));
      // One line per callee: its call lines grouped by the innermost
      // condition they are written under (the outer ones are the frame's
      // own branches, shown on the lines that lead there).
      struct Lead {
        std::string name;
        std::vector<std::pair<std::string, std::vector<int>>> sites;  // (condition, lines)
      };
      std::vector<Lead> leads;
      for (const auto& c : f.calls) {
        bool to_entry =
            StartsWith(c.resolved, "aten::") && entries.count(std::string(OpBaseName(c.resolved.substr(6))));
        bool to_frame = on_way.count(c.resolved) && c.resolved != f.symbol;
        if (!to_entry && !to_frame) {
          // A call into an op the path does not take is an argument's
          // branch (the alternatives list it), not bookkeeping.
          if (StartsWith(c.resolved, "aten::") && !path_bases.count(std::string(OpBaseName(c.resolved.substr(6)))))
            ++other_branches;
          else fold(c.callee);
          continue;
        }
        std::string name = c.callee + (c.resolved.empty() || c.resolved == c.callee ? "" : " → " + c.resolved);
        std::string cond;
        for (const auto& w : c.when)
          if (w.kind != ConditionKind::kReturn) cond = w.Describe();
        auto it = std::find_if(leads.begin(), leads.end(), [&](const Lead& l) { return l.name == name; });
        if (it == leads.end()) it = leads.insert(leads.end(), Lead{name, {}});
        auto site = std::find_if(it->sites.begin(), it->sites.end(), [&](const auto& s) { return s.first == cond; });
        if (site == it->sites.end()) site = it->sites.insert(it->sites.end(), {cond, {}});
        if (c.line > 0 && std::find(site->second.begin(), site->second.end(), c.line) == site->second.end())
          site->second.push_back(c.line);
      }
      for (const Lead& l : leads) {
        std::vector<std::string> at;
        for (const auto& [cond, lines] : l.sites) {
          std::vector<std::string> nums;
          for (int n : lines) nums.push_back(":" + std::to_string(n));
          at.push_back(Join(nums, ", ") + (cond.empty() ? "" : " " + cond));
        }
        Add("    → ", l.name + "  " + Join(at, "; "), "");
      }
    }
    if (!folded.empty()) Add("  · ", "bookkeeping, folded: " + Join(folded, ", "), "");
    if (other_branches)
      Add("  · ",
          std::to_string(other_branches) + " call" + (other_branches > 1 ? "s" : "") +
              " into ops off the path (alternatives below)",
          "");
  }

  void OpLines(const MainPathOp& e, const std::string& base_indent) {
    const OpStep& op = t_.ops[e.op];
    std::string indent = base_indent + std::string(static_cast<size_t>(std::min(e.level, 8)) * 2, ' ');
    std::string head = (e.undecided ? "?▶ " : e.level ? "└▶ " : "▶ ") + std::string("aten::") + op.name;
    if (e.overloads) head += "  (+" + std::to_string(e.overloads) + " overload" + (e.overloads > 1 ? "s" : "") + ")";
    if (e.when) head += "  " + e.when_text;
    // Where the caller calls it (the hop a reader follows), else where the
    // deciding condition of an entry is written, else its YAML entry.
    Location at = op.called_at.valid() ? op.called_at : e.when ? e.when->where : YamlLocation(op.yaml);
    Add(indent, head, LocText(at, true));
    std::string in = indent + "     ";
    if (e.undecided) {  // a branch left open: what it runs, on one line
      std::vector<std::string> names = RunNames(e, m_.device);
      Location at = FirstNamedAt(e, names,
                                 !e.libraries.empty() ? e.libraries[0]->where
                                 : e.impl             ? e.impl->where
                                                      : Location{});
      if (!names.empty()) Add(in, "runs " + Join(names, ", "), LocText(at, true));
      NondeterminismLines(e, in);
      return;
    }
    if (e.impl) Add(in, ShortKey(e.impl->key) + " " + e.impl->function, LocText(e.impl->where, true));
    if (e.stub)
      Add(in, "stub " + e.stub->name + " → " + e.registration->target,
          LocText(e.registration->target_definition.valid() ? e.registration->target_definition : e.registration->where,
                  true));
    KernelLines(e, in);
    NondeterminismLines(e, in);
    for (const ImplStep* h : DeviceCode(e, m_.device))
      Add(in, "device code " + h->function + " (no kernel launch found)", LocText(h->where, true));
    for (const LibraryStep* l : e.libraries) {
      std::vector<std::string> calls(l->calls.begin(), l->calls.begin() + std::min<size_t>(l->calls.size(), 3));
      Add(in, "lib " + l->name + "  " + Join(calls, ", ") + (l->calls.size() > 3 ? ", …" : ""),
          LocText(l->where, true));
    }
    // What its kernels compute (an op that launches none has nothing to port).
    if (!e.kernels.empty() || !e.libraries.empty())
      if (const DecompositionStep* d = ReadableFormula(op)) Add(in, "formula " + d->function, LocText(d->where, true));
  }

  // What the op computes, written in Python: its reference in torch._refs,
  // else its decomposition in torch._decomp (what a port can be checked
  // against). Inductor's and meta registrations say how it is compiled or
  // shaped, not what it computes.
  const DecompositionStep* ReadableFormula(const OpStep& op) const {
    for (const char* registry : {"torch._refs", "torch._decomp"})
      for (const DecompositionStep& d : t_.decompositions)
        if (d.registry == registry && OpBaseName(d.op) == OpBaseName(op.name)) return &d;
    return nullptr;
  }

  // The op of `e`, the stub's owner and the overloads folded into it (the
  // structured out= variant holding the implementation).
  std::vector<const OpStep*> OpsOf(const MainPathOp& e) const {
    std::vector<const OpStep*> ops{&t_.ops[e.op]};
    if (e.stub_owner) ops.push_back(e.stub_owner);
    for (size_t f : e.folded) ops.push_back(&t_.ops[f]);
    return ops;
  }

  // Stub `name` of OpsOf(e), as the assumptions take it best (taken, then
  // open, then ruled out); null when none of them calls it.
  const StubStep* StubOf(const MainPathOp& e, const std::string& name) const {
    const StubStep* best = nullptr;
    auto rank = [](const StubStep& s) { return !s.typical ? 0 : s.undecided ? 1 : 2; };
    for (const OpStep* op : OpsOf(e))
      for (const StubStep& s : op->stubs)
        if (s.name == name && (!best || rank(s) > rank(*best))) best = &s;
    return best;
  }

  // What makes the op's result vary run to run: the atomic operations its
  // kernels perform ("atomics gpuAtomicAddNoReturn in K"), and where
  // PyTorch calls it nondeterministic (alertNotDeterministic).
  void NondeterminismLines(const MainPathOp& e, const std::string& in) {
    // One line per set of atomics: the first kernel performing it, and how
    // many more do (SDPA's 45 fmha kernels share atomicMaxFloat, atomicAdd).
    std::vector<std::pair<const KernelStep*, size_t>> sets;  // first kernel, kernels with its atomics
    for (const KernelStep* k : e.kernels) {
      if (k->atomics.empty() || LaunchRank(*k) == 2) continue;
      auto same = std::find_if(sets.begin(), sets.end(), [&](const auto& s) { return s.first->atomics == k->atomics; });
      if (same == sets.end()) sets.push_back({k, 1});
      else ++same->second;
    }
    for (const auto& [k, n] : sets)
      Add(in,
          "atomics " + Join(k->atomics, ", ") + " in " + k->name +
              (n > 1 ? " and " + std::to_string(n - 1) + " more kernel" + (n > 2 ? "s" : "") : ""),
          LocText(k->where, true));
    // The objects handed to kernels that call what they are given: once per
    // class, with the first kernel it is handed to.
    std::vector<std::pair<const KernelStep::PassedAtomics*, const KernelStep*>> passed;
    for (const KernelStep* k : e.kernels) {
      if (LaunchRank(*k) == 2) continue;
      for (const KernelStep::PassedAtomics& p : k->passed_atomics)
        if (std::none_of(passed.begin(), passed.end(), [&](const auto& q) {
              return q.first->where.file == p.where.file && q.first->where.line == p.where.line;
            }))
          passed.push_back({&p, k});
    }
    for (const auto& [p, k] : passed) {
      const StubStep* stub = p->stub.empty() ? nullptr : StubOf(e, p->stub);
      if (stub && !stub->typical) continue;  // handed on another way than the one that runs
      Add(in,
          std::string(stub && stub->undecided ? "?" : "") + "atomics " + Join(p->atomics, ", ") + " in " + p->functor +
              ", handed to " + k->name,
          LocText(p->where, true));
    }
    // The op, the stub's owner or a folded overload says so.
    for (const OpStep* op : OpsOf(e))
      if (!op->nondeterministic.empty()) {
        const NondeterminismStep& n = op->nondeterministic.front();
        Add(in, "nondeterministic: alertNotDeterministic" + OpenConditionsText(n.when), LocText(n.where, true));
        return;
      }
  }

  // One line per file and launching function: "kernel A" with its
  // location, or "kernels A:12, B:40" with the file; "via f" names the
  // function that launches them when the entry does not already.
  void KernelLines(const MainPathOp& e, const std::string& in) {
    constexpr size_t kMaxKernels = 6;
    // A launch the assumptions rule out is no answer (it comes last, Fill):
    // counted, named in --detail full; one they leave open is marked `?`.
    size_t runs = 0;
    while (runs < e.kernels.size() && LaunchRank(*e.kernels[runs]) < 2) ++runs;
    std::vector<std::pair<std::string, std::vector<const KernelStep*>>> groups;  // (file + via, kernels)
    size_t shown = std::min(runs, kMaxKernels);
    for (size_t k = 0; k < shown; ++k) {
      const KernelStep* kernel = e.kernels[k];
      std::vector<std::string> via = Via(e, *kernel);  // the function launching it is enough here
      std::string key = kernel->where.file + "\n" + (via.empty() ? "" : via.back());
      auto it = std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == key; });
      if (it == groups.end()) groups.push_back({key, {kernel}});
      else it->second.push_back(kernel);
    }
    for (const auto& [key, kernels] : groups) {
      std::string via = key.substr(key.find('\n') + 1);
      via = via.empty() ? "" : "  via " + via;
      auto name = [](const KernelStep* k) { return (k->undecided ? "?" : "") + k->name; };
      if (kernels.size() == 1) {
        Add(in, "kernel " + name(kernels[0]) + via, LocText(kernels[0]->where, true));
        continue;
      }
      std::vector<std::string> named;
      for (const KernelStep* k : kernels) named.push_back(name(k) + ":" + std::to_string(k->where.line));
      Add(in, "kernels " + Join(named, ", ") + via, ShortPath(kernels[0]->where.file));
    }
    const size_t more = runs - shown, ruled_out = e.kernels.size() - runs;
    if (more > 0 || ruled_out > 0)
      Add(in,
          "… " + (more > 0 ? std::to_string(more) + " more kernels" : "") + (more > 0 && ruled_out > 0 ? ", " : "") +
              (ruled_out > 0 ? std::to_string(ruled_out) + " the assumptions rule out" : "") + " (--detail full)",
          "");
  }

  // The answer first: what runs on the device, each op that runs something
  // of its own (decided first, then those behind a condition the
  // assumptions leave open, then the backward's), by name only; the tree
  // below locates each.
  // `drawn`: the forward entries the tree draws; the others are set-up
  // collapsed into one line (factories and what they call: nn.LSTM's
  // torch.zeros -> fill_), named after the work.
  bool RunLines(const std::vector<bool>& drawn) {
    if (m_.forward.size() + m_.backward.size() < 2) return false;  // one op: the tree below is as short
    std::vector<std::string> decided, open, backward;
    // A name a line above already gave (CompareFunctor under gt, then lt) is
    // not repeated: each line says what is new.
    std::set<std::string> named;
    // An op the assumptions decide runs gets four lines, one behind an open
    // condition and the backward's two: names that do not fit are left to
    // the tree below.
    auto line = [&](const MainPathOp& e, size_t max_lines = 2) {
      std::vector<std::string> names = RunNames(e, m_.device, SIZE_MAX, /*libraries_early=*/true), fresh;
      if (names.empty()) return std::string();
      for (const auto& n : names)
        if (n == "…" || named.insert(n).second) fresh.push_back(n);
      if (fresh.empty() || (fresh.size() == 1 && fresh[0] == "…")) fresh = {names.front(), "…"};
      std::string head = std::string(OpBaseName(t_.ops[e.op].name)) + ": ", text = head;
      const size_t room = width_ > 12 ? width_ - 8 : 40;
      for (size_t i = 0; i < fresh.size(); ++i) {
        std::string next = (text == head ? text : text + ", ") + fresh[i];
        if (Wrap(next + ", …", room).size() > max_lines && text != head) return text + ", …";
        text = std::move(next);
      }
      return text;
    };
    for (bool work : {true, false})
      for (size_t i = 0; i < m_.forward.size(); ++i) {
        const MainPathOp& e = m_.forward[i];
        if (e.undecided || drawn[i] != work) continue;
        if (std::string l = line(e, 4); !l.empty()) decided.push_back(l);
      }
    for (const auto& e : m_.forward) {
      if (!e.undecided) continue;
      if (std::string l = line(e); !l.empty()) open.push_back(l);
    }
    std::vector<std::string> backward_open;
    for (const auto& e : m_.backward)
      if (std::string l = line(e); !l.empty()) (e.undecided ? backward_open : backward).push_back(l);
    if (decided.empty() && open.empty() && backward.empty() && backward_open.empty()) return false;
    Add("", "runs on " + m_.device + " (typical path" + (open.empty() ? "" : "; ? behind a condition left open") + ")",
        "");
    // A screenful at most, one op per line.
    constexpr size_t kMaxLines = 30;
    size_t used = 0, shown = 0, total = decided.size() + open.size() + backward.size() + backward_open.size();
    const size_t room = width_ > 12 ? width_ - 4 : 40;
    auto emit = [&](const std::vector<std::string>& entries, const std::string& prefix) {
      for (const auto& l : entries) {
        size_t n = Wrap(l, room).size();
        if (used + n > kMaxLines) return;
        Add(prefix, l, "");
        used += n;
        ++shown;
      }
    };
    emit(decided, "  ");
    if (shown == decided.size()) emit(open, "  ? ");
    if (shown == decided.size() + open.size()) emit(backward, "  ∂ ");
    if (shown == decided.size() + open.size() + backward.size()) emit(backward_open, "  ?∂ ");
    if (total > shown) Add("  ", "… " + std::to_string(total - shown) + " more below", "");
    return true;
  }

  // Whether it drew any.
  bool AlternativeLines() {
    if (t_.selections.empty() && m_.undecided.empty() && m_.argument_ops.empty()) return false;
    const size_t before = lines_.size();
    lines_.push_back("");
    Add("", "alternatives (what else runs, and when)", "");
    constexpr size_t kMaxArguments = 16;
    for (size_t i = 0; i < m_.argument_ops.size(); ++i) {
      const MainPathOp& e = m_.argument_ops[i];
      if (i == kMaxArguments) {
        Add("  ", "… " + std::to_string(m_.argument_ops.size() - i) + " more argument branches (--detail full)", "");
        break;
      }
      std::vector<std::string> names = RunNames(e, m_.device);
      constexpr size_t kNames = 3;  // one line each: the first kernels are enough to recognise it
      if (names.size() > kNames) names.resize(kNames), names.push_back("…");
      Add("  ", e.when->Describe() + ": aten::" + t_.ops[e.op].name + (names.empty() ? "" : " → " + Join(names, ", ")),
          LocText(e.when->where, true));
    }
    std::set<std::string> done;  // (function, op base): overloads share their selections
    for (const auto& s : t_.selections) {
      if (collapsed_.count(s.op) || !done.insert(s.function + " " + std::string(OpBaseName(s.op))).second) continue;
      Add("  ", s.function + " decides in " + s.op, LocText(s.where, true));
      // One line per condition, its ops after it (the typical one marked).
      std::vector<std::string> conditions;
      for (const auto& a : s.alternatives)
        if (std::find(conditions.begin(), conditions.end(), a.condition) == conditions.end())
          conditions.push_back(a.condition);
      for (const auto& cond : conditions) {
        std::vector<std::string> ops;
        bool typical = false;
        Location where;
        for (const auto& a : s.alternatives) {
          if (a.condition != cond) continue;
          typical = typical || a.typical;
          where = a.where;
          if (ops.size() < 5) ops.push_back(a.op);
          else if (ops.size() == 5) ops.push_back("…");
        }
        Add(typical ? "    ✓ " : "      ", cond + ": " + Join(ops, ", "), LocText(where, true));
        auto runs = m_.alternative_ops.find(cond + "@" + LocText(where));
        if (typical || runs == m_.alternative_ops.end()) continue;
        for (const MainPathOp& e : runs->second) {
          std::vector<std::string> names = RunNames(e, m_.device);
          const Location at = FirstNamedAt(e, names, e.impl ? e.impl->where : YamlLocation(t_.ops[e.op].yaml));
          Add("          → ", "aten::" + t_.ops[e.op].name + (names.empty() ? "" : ": " + Join(names, ", ")),
              LocText(at, true));
        }
      }
    }
    // Undecided ops not drawn already (by base name: the main path draws
    // "aten::cat (+1 overload)" once for all of cat's overloads).
    std::set<std::string> listed;
    for (const auto& s : t_.selections)
      for (const auto& a : s.alternatives) listed.insert(std::string(OpBaseName(a.op)));
    size_t shown = 0;
    constexpr size_t kMaxUndecided = 5;
    std::set<std::string> said;  // one line per base name and condition
    for (const auto& e : m_.forward) listed.insert(std::string(OpBaseName(t_.ops[e.op].name)));
    for (const OpStep* op : m_.undecided) {
      if (listed.count(std::string(OpBaseName(op->name)))) continue;
      const Condition* c = Deciding(*op);
      if (!c || !said.insert(std::string(OpBaseName(op->name)) + "\n" + c->Describe()).second) continue;
      if (shown++ == kMaxUndecided) {
        Add("  ", "… more branches the assumptions do not decide (--json: ops[].undecided)", "");
        break;
      }
      Add("  ? ", std::string(OpBaseName(op->name)) + "  " + c->Describe() + "  (from " + op->reached_from + ")",
          LocText(c->where, true));
    }
    if (lines_.size() > before + 2) return true;
    lines_.resize(before);  // a heading with nothing under it says nothing
    return false;
  }

  const Trace& t_;
  const MainPath& m_;
  size_t width_;
  std::vector<std::string> lines_;
  std::set<std::string> collapsed_;  // entry ops folded into one line
};

}  // namespace

std::vector<std::string> MainPathLines(const Trace& t, const MainPath& m, size_t width, bool alternatives) {
  return MainWriter(t, m, width).Lines(alternatives);
}

}  // namespace optrace::render_detail
