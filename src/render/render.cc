// Renderers: one Trace, four faces. The JSON face is the contract
// (optrace.trace/1, doc/trace-schema.md) and carries no code snippets, so an
// agent's context stays small; the text face is for a 100-column terminal
// (flow diagram, layer-by-layer walk with snippets, summary table, notes);
// markdown is the text face in headings, tables and fenced code; DOT draws
// ops -> implementations -> kernels/libraries with backward edges dashed.
//
// Big traces (nn.MultiheadAttention reaches 30+ ops) stay readable because
// only the first few ops near the entry are shown in full; deeper ones get
// one line each in the diagram and the walk. Nothing here looks anything up:
// every fact printed is in the Trace, with the file:line the tracer gave it.
#include "render/render.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <sstream>

#include "base/text.h"
#include "yaml/yaml_json.h"

namespace optrace {

using Json = nlohmann::ordered_json;

namespace {

// ---------------------------------------------------------------------------
// Shared helpers.

// "add.Tensor" -> "add".
std::string_view BaseName(std::string_view op) {
  size_t dot = op.find('.');
  return dot == std::string_view::npos ? op : op.substr(0, dot);
}

bool SameOp(std::string_view a, std::string_view b) { return a == b || (BaseName(a) == b) || (a == BaseName(b)); }

// Paths in the diagram drop the long ATen prefix; the walk and the table
// print them whole.
std::string ShortPath(const std::string& file) {
  static constexpr std::string_view kNative = "aten/src/ATen/native/";
  if (StartsWith(file, kNative)) return file.substr(kNative.size());
  if (StartsWith(file, "tools/autograd/")) return file.substr(15);
  return file;
}

std::string LocText(const Location& l, bool shorten = false) {
  if (!l.valid()) return "";
  return (shorten ? ShortPath(l.file) : l.file) + ":" + std::to_string(l.line);
}

Location YamlLocation(const NativeFunction* f) {
  Location l;
  if (f && f->line > 0) {
    l.file = kNativeFunctionsPath;
    l.line = f->line;
  }
  return l;
}

Location DerivativeLocation(const DerivativeEntry* d) {
  Location l;
  if (d && d->line > 0) {
    l.file = kDerivativesPath;
    l.line = d->line;
  }
  return l;
}

std::string Join(const std::vector<std::string>& parts, std::string_view sep) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i) out += sep;
    out += parts[i];
  }
  return out;
}

// Display columns of UTF-8 text, skipping ANSI escapes. Every character
// optrace draws is one column wide.
size_t Columns(std::string_view s) {
  size_t n = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    unsigned char c = s[i];
    if (c == 0x1b) {
      while (i < s.size() && !(s[i] >= '@' && s[i] <= '~' && s[i] != '[')) ++i;
      continue;
    }
    if ((c & 0xC0) != 0x80) ++n;
  }
  return n;
}

// Cuts `s` to `width` columns, ending in "…" when something was cut. A
// coloured string gets a reset so the colour cannot leak.
std::string Fit(std::string_view s, size_t width) {
  if (Columns(s) <= width) return std::string(s);
  if (width == 0) return "";
  std::string out;
  size_t n = 0;
  bool escaped = false;
  for (size_t i = 0; i < s.size(); ++i) {
    unsigned char c = s[i];
    if (c == 0x1b) {
      escaped = true;
      size_t j = i;
      while (j < s.size() && !(s[j] >= '@' && s[j] <= '~' && s[j] != '[')) ++j;
      out.append(s.substr(i, j - i + 1));
      i = j;
      continue;
    }
    if ((c & 0xC0) != 0x80) {
      if (n + 1 == width) break;
      ++n;
    }
    out.push_back(static_cast<char>(c));
  }
  out += "…";
  if (escaped) out += "\x1b[0m";
  return out;
}

// Bytes of the first `columns` columns of UTF-8 text without escapes.
size_t BytesOfColumns(std::string_view s, size_t columns) {
  size_t n = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80) {
      if (n == columns) return i;
      ++n;
    }
  }
  return s.size();
}

// Greedy word wrap to `width` columns, for prose and formulas that must not
// be cut. A word longer than a line is split, after a '.', ':', ',', '(' or
// '_' when one falls in its second half.
std::vector<std::string> Wrap(std::string_view text, size_t width) {
  width = std::max<size_t>(width, 8);
  std::vector<std::string> lines;
  std::string line;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find(' ', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view word = text.substr(pos, end - pos);
    pos = end + 1;
    if (word.empty()) continue;
    if (!line.empty() && Columns(line) + 1 + Columns(word) <= width) {
      line += ' ';
      line += word;
      continue;
    }
    if (!line.empty()) lines.push_back(std::move(line));
    line.clear();
    while (Columns(word) > width) {
      size_t cut = BytesOfColumns(word, width);
      size_t brk = word.substr(0, cut).find_last_of(".:,(_");
      if (brk != std::string_view::npos && brk + 1 >= cut / 2) cut = brk + 1;
      lines.emplace_back(word.substr(0, cut));
      word.remove_prefix(cut);
    }
    line = std::string(word);
  }
  if (!line.empty() || lines.empty()) lines.push_back(std::move(line));
  return lines;
}

// Cuts `s` to `width` columns from the left, starting with "…" when cut:
// for paths, whose tail says the most.
std::string FitLeft(std::string_view s, size_t width) {
  size_t cols = Columns(s);
  if (cols <= width) return std::string(s);
  if (width == 0) return "";
  return "…" + std::string(s.substr(BytesOfColumns(s, cols - (width - 1))));
}

// Code from a checkout file made safe for a terminal: tabs expanded,
// control characters (binary files, stray escapes) shown as '?'.
std::string CleanLine(std::string_view line) {
  std::string out;
  for (char ch : line) {
    unsigned char c = ch;
    if (c == '\t') {
      out.append(4 - Columns(out) % 4, ' ');
    } else if (c < 0x20 || c == 0x7f) {
      if (c != '\r') out.push_back('?');
    } else {
      out.push_back(ch);
    }
  }
  return out;
}

std::vector<std::string> SnippetLines(const std::string& snippet, size_t max_lines) {
  std::vector<std::string> lines;
  std::string_view s = snippet;
  while (!s.empty() && lines.size() < max_lines) {
    size_t nl = s.find('\n');
    lines.push_back(CleanLine(s.substr(0, nl)));
    if (nl == std::string_view::npos) break;
    s.remove_prefix(nl + 1);
  }
  while (!lines.empty() && TrimView(lines.back()).empty()) lines.pop_back();
  return lines;
}

// One line of prose for a formula or schema: newlines and runs of spaces collapsed.
std::string OneLine(std::string_view s) {
  std::string out;
  bool space = false;
  for (char c : s) {
    if (c == '\n' || c == '\r' || c == '\t' || c == ' ') {
      space = !out.empty();
      continue;
    }
    if (space) out.push_back(' ');
    space = false;
    out.push_back(c);
  }
  return CleanLine(out);
}

std::string SnippetLanguage(const std::string& file) {
  if (EndsWith(file, ".py")) return "python";
  if (EndsWith(file, ".yaml")) return "yaml";
  return "cpp";
}

// Dispatch key names short enough for the diagram and the table.
std::string ShortKey(const std::string& key) {
  if (key == "CompositeImplicitAutograd") return "CompositeImplicit";
  if (key == "CompositeExplicitAutograd") return "CompositeExplicit";
  if (key == "CompositeExplicitAutogradNonFunctional") return "CompositeExplicitNF";
  if (key == "CompositeImplicitAutogradNestedTensor") return "CompositeImplicitNested";
  return key;
}

// Dispatch keys that tell where an op runs on CPU and CUDA; the diagram shows
// these and counts the rest (sparse, MPS, nested, ...), which the walk lists.
bool MainDispatchKey(std::string_view key) {
  return key == "CPU" || key == "CUDA" || StartsWith(key, "Composite") || StartsWith(key, "ufunc_") ||
         key == "Meta";
}

std::string DispatchSummary(const NativeFunction* f) {
  if (!f) return "";
  std::vector<std::string> keys;
  size_t others = 0;
  for (const auto& [key, fn] : f->dispatch) {
    if (MainDispatchKey(key))
      keys.push_back(ShortKey(key) + (key == "CompositeImplicitAutograd" && f->implicit_composite ? " (implied)" : ""));
    else ++others;
  }
  std::string out = Join(keys, " · ");
  if (others) out += (out.empty() ? "" : " ") + std::string("+") + std::to_string(others) + " more";
  if (f->structured_delegate) out += (out.empty() ? "" : "  ") + std::string("delegate→") + *f->structured_delegate;
  return out;
}

// ---------------------------------------------------------------------------
// JSON.

// ordered_json objects are vectors of pair<const string, json>: the const key
// makes each growth copy, not move, every value already inserted, subtrees
// included. The big objects reserve their members up front.
Json ObjectOf(size_t members) {
  Json o = Json::object();
  o.get_ref<Json::object_t&>().reserve(members);
  return o;
}

void PutLocation(Json& obj, const Location& l) {
  if (!l.valid()) return;
  obj["file"] = l.file;
  obj["line"] = l.line;
}

void PutLocationObject(Json& obj, const char* key, const Location& l) {
  if (!l.valid()) return;
  Json loc = Json::object();
  PutLocation(loc, l);
  obj[key] = std::move(loc);
}

// The YAML entry as the contract has it. The YAML stage's object carries every
// key torchgen knows; those that say nothing here (null, false, empty) are
// dropped to keep an agent's context small.
Json YamlJson(const NativeFunction& f) {
  Json y = NativeFunctionToJson(f);
  if (f.line <= 0) {  // the contract: a location without a line is left out
    y.erase("file");
    y.erase("line");
  }
  static const char* kOptional[] = {"structured_inherits", "precomputed", "autogen_from", "ufunc_inner_loop",
                                    "device_check", "device_guard", "category_override",
                                    "manual_kernel_registration", "manual_cpp_binding", "other_keys"};
  for (const char* key : kOptional) {
    auto it = y.find(key);
    if (it != y.end() && (it->is_null() || (it->is_boolean() && !it->get<bool>()) ||
                          ((it->is_array() || it->is_object()) && it->empty())))
      y.erase(it);
  }
  return y;
}

// {file, line, name: the schema as written, formulas: {inputs: formula}},
// plus output_differentiability and dispatch sections when present. (The
// YAML stage's DerivativeToJson lists formulas as an array; the contract
// wants an object keyed by the inputs.)
Json FormulasObject(const std::vector<DerivativeFormula>& formulas) {
  Json o = Json::object();
  for (const auto& f : formulas) o[f.inputs] = f.formula;
  return o;
}


Json OpJson(const OpStep& op) {
  Json o = ObjectOf(12);
  o["name"] = op.name;
  o["role"] = op.role;
  if (!op.reached_from.empty()) o["reached_from"] = op.reached_from;
  o["depth"] = op.depth;
  o["yaml"] = op.yaml ? YamlJson(*op.yaml) : Json(nullptr);
  Json impls = Json::array();
  for (const auto& i : op.impls) {
    Json j = {{"key", i.key}, {"function", i.function}};
    PutLocation(j, i.where);
    j["form"] = i.form;
    if (!i.params.empty()) j["params"] = i.params;
    if (!i.dtypes.empty()) j["dtypes"] = i.dtypes;
    impls.push_back(std::move(j));
  }
  o["impls"] = std::move(impls);
  // The C++ functions between an implementation and its kernels, located,
  // so a reader can open each hop (host_softmax, addmm_out_cuda_impl ...).
  if (!op.helpers.empty()) {
    Json helpers = Json::array();
    for (const auto& h : op.helpers) {
      Json j = {{"key", h.key}, {"function", h.function}};
      PutLocation(j, h.where);
      j["form"] = h.form;
      helpers.push_back(std::move(j));
    }
    o["helpers"] = std::move(helpers);
  }
  Json stubs = Json::array();
  for (const auto& s : op.stubs) {
    Json j = {{"name", s.name}};
    PutLocationObject(j, "declared", s.declared);
    PutLocationObject(j, "defined", s.defined);
    if (!s.called_from.empty()) j["called_from"] = s.called_from;
    PutLocationObject(j, "call_site", s.call_site);
    Json regs = Json::array();
    for (const auto& r : s.registrations) {
      Json rj = {{"device", r.device}, {"macro", r.macro}, {"target", r.target}};
      PutLocation(rj, r.where);
      if (r.target_definition.valid()) {
        Json def = {{"function", r.target}};
        PutLocation(def, r.target_definition);
        rj["definition"] = std::move(def);
      }
      regs.push_back(std::move(rj));
    }
    j["registrations"] = std::move(regs);
    stubs.push_back(std::move(j));
  }
  o["stubs"] = std::move(stubs);
  Json kernels = Json::array();
  for (const auto& k : op.kernels) {
    Json j = {{"name", k.name}, {"device", k.device}};
    PutLocation(j, k.where);
    j["launch"] = k.launch;
    if (!k.launcher.empty()) j["launcher"] = k.launcher;
    PutLocationObject(j, "launch_site", k.launch_site);
    j["path"] = k.path;
    kernels.push_back(std::move(j));
  }
  o["kernels"] = std::move(kernels);
  Json libs = Json::array();
  for (const auto& l : op.libraries) {
    Json j = {{"name", l.name}};
    PutLocation(j, l.where);
    j["calls"] = l.calls;
    if (!l.path.empty()) j["path"] = l.path;
    libs.push_back(std::move(j));
  }
  o["libraries"] = std::move(libs);
  Json calls = Json::array();
  for (const auto& c : op.calls) {
    Json j = {{"op", c.op}, {"device", c.device}};
    PutLocation(j, c.where);
    if (!c.from.empty()) j["from"] = c.from;
    if (!c.how.empty()) j["how"] = c.how;
    calls.push_back(std::move(j));
  }
  o["calls"] = std::move(calls);
  if (!op.notes.empty()) o["notes"] = op.notes;
  return o;
}

}  // namespace

nlohmann::ordered_json DerivativesJson(const DerivativeEntry& d) {
  Json j = Json::object();
  if (d.line > 0) {
    j["file"] = kDerivativesPath;
    j["line"] = d.line;
  }
  j["name"] = d.text;
  j["formulas"] = FormulasObject(d.formulas);
  if (d.output_differentiability) j["output_differentiability"] = *d.output_differentiability;
  if (!d.dispatch_sections.empty()) {
    Json sections = Json::object();
    for (const auto& [key, formulas] : d.dispatch_sections) sections[key] = FormulasObject(formulas);
    j["dispatch"] = std::move(sections);
  }
  return j;
}

Json TraceToJson(const Trace& t) {
  Json j = ObjectOf(11);
  j["schema"] = "optrace.trace/1";
  j["query"] = t.query;
  j["source"] = {{"root", t.source_root}, {"version", t.source_version}};
  j["source"]["installed_torch"] = t.installed_torch ? Json(*t.installed_torch) : Json(nullptr);
  if (!t.source_warning.empty()) j["source"]["warning"] = t.source_warning;
  j["target"] = {{"kind", t.target_kind}, {"name", t.target_name}};
  if (!t.selected_overload.empty()) j["target"]["selected_overload"] = t.selected_overload;
  Json python = Json::array();
  for (const auto& f : t.python) {
    Json fj = {{"symbol", f.symbol}};
    PutLocation(fj, f.where);
    Json calls = Json::array();
    for (const auto& c : f.calls) {
      Json cj = {{"callee", c.callee}};
      if (c.line > 0) cj["line"] = c.line;
      cj["kind"] = c.kind;
      if (!c.resolved.empty()) cj["resolved"] = c.resolved;
      calls.push_back(std::move(cj));
    }
    fj["calls"] = std::move(calls);
    if (!f.bridge.empty()) fj["bridge"] = f.bridge;
    if (!f.note.empty()) fj["note"] = f.note;
    python.push_back(std::move(fj));
  }
  j["python"] = std::move(python);
  Json ops = Json::array();
  for (const auto& op : t.ops) ops.push_back(OpJson(op));
  j["ops"] = std::move(ops);
  Json backward = Json::array();
  for (const auto& b : t.backward) {
    Json bj = {{"op", b.op}};
    bj["derivatives"] = b.derivatives ? DerivativesJson(*b.derivatives) : Json(nullptr);
    bj["ops"] = b.ops;
    // The FunctionsManual helpers the formulas call (mm_mat1_backward, ...).
    if (!b.helpers.empty()) bj["calls"] = b.helpers;
    if (!b.note.empty()) bj["note"] = b.note;
    backward.push_back(std::move(bj));
  }
  j["backward"] = std::move(backward);
  Json decomps = Json::array();
  for (const auto& d : t.decompositions) {
    Json dj = {{"op", d.op}};
    PutLocation(dj, d.where);
    dj["function"] = d.function;
    dj["registry"] = d.registry;
    if (!d.target.empty()) dj["target"] = d.target;
    decomps.push_back(std::move(dj));
  }
  j["decompositions"] = std::move(decomps);
  Json not_found = Json::array();
  for (const auto& n : t.not_found) not_found.push_back({{"what", n.what}, {"detail", n.detail}});
  j["not_found"] = std::move(not_found);
  j["notes"] = t.notes;
  if (!t.suggestions.empty()) j["suggestions"] = t.suggestions;
  return j;
}

namespace {

// ---------------------------------------------------------------------------
// The shape shared by text and markdown: which ops are shown in full, the
// order they are walked in (a tree from the entry ops along reached_from),
// the diagram lines, the walk's layers and the summary rows.

enum class Style { kPlain, kBold, kDim, kPath, kOp, kKernel, kLib, kWarn };

const char* StyleCode(Style s) {
  switch (s) {
    case Style::kBold: return "1";
    case Style::kDim: return "2";
    case Style::kPath: return "36";
    case Style::kOp: return "1;32";
    case Style::kKernel: return "33";
    case Style::kLib: return "35";
    case Style::kWarn: return "31";
    case Style::kPlain: break;
  }
  return nullptr;
}

// Ops walked in tree order: entry ops first, each followed by the ops it
// reaches. An op is shown in full while few have been, and near the entry.
struct OpOrder {
  struct Item {
    size_t op;
    int level;  // tree level below its root
    bool full;
  };
  std::vector<Item> forward, backward;
  std::vector<std::vector<size_t>> children;  // by op index
  std::vector<int> level;                      // by op index; -1 = not placed
  std::vector<bool> full;
};

constexpr int kMaxFullOps = 8;
constexpr int kMaxFullBackwardOps = 4;
constexpr size_t kBigTraceOps = 40;
constexpr size_t kMaxSnippetLines = 5;
constexpr size_t kMaxWalkCalls = 12;      // calls of one Python frame in the walk
constexpr size_t kMaxCondensedOps = 40;   // condensed ops listed in the walk
constexpr size_t kMaxNotes = 30;
constexpr size_t kMaxFullDerivatives = 4;  // derivatives entries with formulas, beyond those of full ops
constexpr size_t kMaxIndent = 24;    // diagram columns of tree indentation
constexpr size_t kMaxFlowCalls = 8;    // calls of one Python frame drawn in the diagram
constexpr size_t kMaxFlowKernels = 6;  // kernels of one op drawn in the diagram
// Diagram lines for forward and backward ops; past them ops are only named.
constexpr size_t kFlowForwardLines = 150;
constexpr size_t kFlowBackwardLines = 60;
constexpr size_t kMaxFlowDecompositions = 12;
constexpr int kMaxFullLevel = 2;

OpOrder OrderOps(const Trace& t) {
  OpOrder order;
  size_t n = t.ops.size();
  order.children.resize(n);
  order.level.assign(n, -1);
  order.full.assign(n, false);
  std::map<std::pair<std::string, std::string>, size_t> by_name;  // (role, name) -> first index
  for (size_t i = 0; i < n; ++i) by_name.emplace(std::make_pair(t.ops[i].role, t.ops[i].name), i);
  auto parent_of = [&](size_t i) -> long {
    const OpStep& op = t.ops[i];
    if (op.reached_from.empty()) return -1;
    auto it = by_name.find({op.role, op.reached_from});
    if (it == by_name.end() && op.role == "backward") it = by_name.find({"forward", op.reached_from});
    if (it == by_name.end() || it->second == i) return -1;
    // A backward op reached from a forward op is a root of the backward tree.
    if (t.ops[it->second].role != op.role) return -1;
    return static_cast<long>(it->second);
  };
  std::vector<long> parent(n);
  for (size_t i = 0; i < n; ++i) {
    parent[i] = parent_of(i);
    if (parent[i] >= 0) order.children[parent[i]].push_back(i);
  }
  int shown_full = 0, budget = kMaxFullOps;
  auto visit = [&](auto&& self, size_t i, int level, std::vector<OpOrder::Item>* out) -> void {
    if (order.level[i] >= 0) return;
    order.level[i] = level;
    bool full = level <= kMaxFullLevel && shown_full < budget;
    if (full) ++shown_full;
    order.full[i] = full;
    out->push_back({i, level, full});
    for (size_t c : order.children[i]) self(self, c, level + 1, out);
  };
  for (int pass = 0; pass < 2; ++pass) {
    // Forward and backward each get their own budget of ops shown in full.
    shown_full = 0;
    budget = pass == 0 ? kMaxFullOps : kMaxFullBackwardOps;
    if (n > kBigTraceOps) budget /= 2;  // a big trace shows fewer ops in full
    auto* out = pass == 0 ? &order.forward : &order.backward;
    for (size_t i = 0; i < n; ++i) {
      bool mine = pass == 0 ? t.ops[i].role != "backward" : t.ops[i].role == "backward";
      if (mine && parent[i] < 0) visit(visit, i, 0, out);
    }
    // Ops on a reached_from cycle have no root; show them anyway.
    for (size_t i = 0; i < n; ++i) {
      bool mine = pass == 0 ? t.ops[i].role != "backward" : t.ops[i].role == "backward";
      if (mine) visit(visit, i, 0, out);
    }
  }
  return order;
}

// A line of the diagram or the walk: pieces with styles, and an optional
// location placed in a column on the right.
struct Piece {
  std::string text;
  Style style = Style::kPlain;
};

class Painter {
 public:
  Painter(bool color, size_t width) : color_(color), width_(width) {}
  size_t width() const { return width_; }
  std::string Paint(const std::string& s, Style style) const {
    const char* code = StyleCode(style);
    if (!color_ || !code || s.empty()) return s;
    return std::string("\x1b[") + code + "m" + s + "\x1b[0m";
  }
  // prefix (plain) + pieces + loc, fitted to the width: pieces are cut
  // before the location is.
  std::string Line(const std::string& prefix, const std::vector<Piece>& pieces, const std::string& loc = "") const {
    size_t fixed = Columns(prefix);
    size_t loc_cols = loc.empty() ? 0 : Columns(loc) + 2;
    size_t room = width_ > fixed + loc_cols + 12 ? width_ - fixed - loc_cols : (width_ > fixed ? width_ - fixed : 0);
    std::string plain, painted;
    for (const auto& p : pieces) {
      if (Columns(plain) >= room) break;
      std::string text = Fit(p.text, room - Columns(plain));
      plain += text;
      painted += Paint(text, p.style);
    }
    std::string out = prefix + painted;
    if (!loc.empty()) {
      size_t used = fixed + Columns(plain);
      size_t column = std::max(used + 2, width_ > Columns(loc) + 40 ? std::min<size_t>(60, width_ - Columns(loc)) : 0);
      if (column + Columns(loc) <= width_) {
        out += std::string(column - used, ' ') + Paint(loc, Style::kPath);
      } else {
        out += "  " + Paint(Fit(loc, width_ > used + 2 ? width_ - used - 2 : 0), Style::kPath);
      }
    }
    return Fit(out, width_);
  }

 private:
  bool color_;
  size_t width_;
};

// ----- The flow diagram.

class FlowWriter {
 public:
  FlowWriter(const Trace& t, const OpOrder& order, const Painter& p) : t_(t), order_(order), p_(p) {}

  std::vector<std::string> Lines() {
    // An aten query is its own entry op: no call line above it.
    bool call_line = !(t_.python.empty() && t_.target_kind == "aten");
    if (call_line) lines_.push_back(p_.Line("", {{UserCall(), Style::kBold}}));
    // A helper frame (no bridge, calls nothing that reaches aten or another
    // frame, e.g. _get_softmax_dim) hangs beside the chain instead of
    // sitting in it: the ops below do not come from it.
    std::vector<bool> helper(t_.python.size(), false);
    for (size_t i = 1; i < t_.python.size(); ++i) {
      const PyFrame& f = t_.python[i];
      bool leads_on = !f.bridge.empty();
      for (const auto& c : f.calls) {
        if (StartsWith(c.resolved, "aten::")) leads_on = true;
        for (const auto& g : t_.python)
          if (!c.resolved.empty() && g.symbol == c.resolved) leads_on = true;
      }
      helper[i] = !leads_on;
    }
    for (size_t i = 0; i < t_.python.size(); ++i) {
      const PyFrame& f = t_.python[i];
      if (helper[i]) {
        lines_.push_back(p_.Line("  │  ", {{"↳ helper " + f.symbol, Style::kDim}}, LocText(f.where, true)));
        continue;
      }
      Arrow("  ");
      lines_.push_back(p_.Line("", {{f.symbol, Style::kBold}, {f.note.empty() ? "" : "  (" + f.note + ")", Style::kDim}},
                               LocText(f.where, true)));
      for (size_t ci = 0; ci < f.calls.size(); ++ci) {
        const PyCallStep& c = f.calls[ci];
        if (ci == kMaxFlowCalls && f.calls.size() > kMaxFlowCalls + 1) {
          lines_.push_back(p_.Line("  │  ", {{"… " + std::to_string(f.calls.size() - ci) + " more calls (see Layers)",
                                             Style::kDim}}));
          break;
        }
        std::string what = c.callee + "  (" + c.kind + (c.line > 0 ? ", :" + std::to_string(c.line) : "") + ")";
        if (!c.resolved.empty() && c.resolved != c.callee) what += " → " + c.resolved;
        lines_.push_back(p_.Line("  │  ", {{what, Style::kPlain}}));
      }
      if (!f.bridge.empty()) lines_.push_back(p_.Line("  │  ", {{"bridge: " + f.bridge, Style::kDim}}));
    }
    std::vector<size_t> roots;
    for (const auto& item : order_.forward)
      if (item.level == 0) roots.push_back(item.op);
    if (!roots.empty() && call_line) Arrow("  ");
    Budget(kFlowForwardLines);
    for (size_t r = 0; r < roots.size(); ++r) {
      if (r && lines_.size() < line_limit_) lines_.push_back("");  // several entry ops: one tree each
      Op(roots[r], "", "");
    }
    Deferred("");
    Undrawn("");
    BackwardLines();
    if (!t_.decompositions.empty()) {
      lines_.push_back("");
      lines_.push_back(p_.Line("", {{"decompositions (torch.compile / export)", Style::kBold}}));
      size_t shown = t_.decompositions.size() > kMaxFlowDecompositions + 1 ? kMaxFlowDecompositions
                                                                            : t_.decompositions.size();
      for (size_t i = 0; i < shown; ++i) {
        const auto& d = t_.decompositions[i];
        bool last = i + 1 == t_.decompositions.size();
        lines_.push_back(p_.Line(last ? "  └─ " : "  ├─ ",
                                 {{d.op, Style::kOp}, {"  " + d.registry + "  " + d.function, Style::kPlain}},
                                 LocText(d.where, true)));
      }
      if (shown < t_.decompositions.size())
        lines_.push_back(p_.Line("  └─ ", {{"… " + std::to_string(t_.decompositions.size() - shown) +
                                                " more (Summary and --json have them)",
                                            Style::kDim}}));
    }
    return std::move(lines_);
  }

 private:
  std::string UserCall() const {
    const std::string& k = t_.target_kind;
    if (k == "module" || k == "functional" || k == "torch" || k == "python")
      return t_.query + "(...)";
    if (k == "method") return "tensor." + t_.target_name.substr(t_.target_name.rfind('.') + 1) + "(...)";
    return t_.query;
  }

  void Arrow(const std::string& indent) {
    lines_.push_back(indent + "│");
    lines_.push_back(indent + "▼");
  }

  // Children of an op node, in order: implementations, stubs (with their
  // registrations below), kernels, libraries, aten calls that lead nowhere
  // else, then the ops it reaches. Past kMaxIndent columns the ops it reaches
  // are drawn later as new roots, so deep chains do not march off the page.
  void Op(size_t i, const std::string& prefix, const std::string& branch, const std::string& from = "") {
    const OpStep& op = t_.ops[i];
    if (drawn_.count(i)) return;
    if (lines_.size() >= line_limit_) {
      Skip(i);
      return;
    }
    drawn_.insert(i);
    std::vector<Piece> head = {{"aten::" + op.name, Style::kOp}};
    if (!from.empty()) head.push_back({"  (from " + from + ")", Style::kDim});
    std::string summary = DispatchSummary(op.yaml);
    if (!order_.full[i]) {
      head.push_back({"  " + Condensed(op), Style::kPlain});
    } else if (!summary.empty()) {
      head.push_back({"  " + summary, Style::kDim});
    }
    lines_.push_back(p_.Line(prefix + branch, head, LocText(YamlLocation(op.yaml), true)));
    std::string inner = prefix + (branch.empty() ? "" : branch == "└─▶ " ? "    " : "│   ");
    struct Sub {
      std::vector<Piece> pieces;
      std::string loc;
    };
    struct Child {
      std::vector<Piece> pieces;
      std::string loc;
      std::vector<Sub> subs = {};
      long op = -1;
    };
    std::vector<Child> kids;
    if (order_.full[i]) {
      for (const auto& im : op.impls) {
        std::string form = im.form.empty() || im.form == "function" ? "" : "  [" + im.form + "]";
        kids.push_back({{{Pad(ShortKey(im.key), 5), Style::kBold}, {" " + im.function + form, Style::kPlain}},
                        LocText(im.where, true)});
      }
      for (const auto& s : op.stubs) {
        Child c{{{"stub  ", Style::kBold}, {s.name, Style::kPlain}}, LocText(s.declared, true)};
        for (const auto& r : s.registrations)
          c.subs.push_back({{{r.device + " → ", Style::kDim}, {r.target, Style::kPlain}},
                            LocText(r.target_definition.valid() ? r.target_definition : r.where, true)});
        kids.push_back(std::move(c));
      }
      for (size_t ki = 0; ki < op.kernels.size(); ++ki) {
        if (ki == kMaxFlowKernels && op.kernels.size() > kMaxFlowKernels + 1) {
          kids.push_back({{{"… " + std::to_string(op.kernels.size() - ki) + " more kernels (see Layers)", Style::kDim}},
                          ""});
          break;
        }
        const KernelStep& k = op.kernels[ki];
        Child c{{{"kernel ", Style::kBold}, {k.name, Style::kKernel}, {"  " + k.device + " " + k.launch, Style::kDim}},
                LocText(k.where, true)};
        if (k.path.size() > 1) c.subs.push_back({{{"via " + Join(k.path, " → "), Style::kDim}}, ""});
        kids.push_back(std::move(c));
      }
      for (const auto& l : op.libraries) {
        kids.push_back({{{"lib   ", Style::kBold}, {l.name, Style::kLib}, {"  " + Join(l.calls, ", "), Style::kPlain}},
                        LocText(l.where, true)});
      }
      // The aten ops called that are not drawn below, by name only: the
      // walk has every call site.
      std::vector<std::string> called;
      for (const auto& c : op.calls) {
        if (ReachedOp(i, c.op) >= 0) continue;
        if (std::find(called.begin(), called.end(), c.op) == called.end()) called.push_back(c.op);
      }
      if (!called.empty()) kids.push_back({{{"calls ", Style::kBold}, {Join(called, ", "), Style::kPlain}}, ""});
    }
    bool too_deep = Columns(inner) >= kMaxIndent;
    for (size_t c : order_.children[i]) {
      if (too_deep) deferred_.push_back({c, op.name});
      else kids.push_back({{}, "", {}, static_cast<long>(c)});
    }
    if (too_deep && !order_.children[i].empty())
      kids.push_back({{{"▶ " + std::to_string(order_.children[i].size()) + " op(s) continued below", Style::kDim}}, ""});
    for (size_t k = 0; k < kids.size(); ++k) {
      bool last = k + 1 == kids.size();
      if (kids[k].op >= 0) {
        Op(kids[k].op, inner, last ? "└─▶ " : "├─▶ ");
        continue;
      }
      lines_.push_back(p_.Line(inner + (last ? "└─ " : "├─ "), kids[k].pieces, kids[k].loc));
      const auto& subs = kids[k].subs;
      for (size_t j = 0; j < subs.size(); ++j) {
        std::string sub_prefix = inner + (last ? "   " : "│  ") + (subs[j].loc.empty() ? "   " : j + 1 == subs.size() ? "└─ " : "├─ ");
        lines_.push_back(p_.Line(sub_prefix, subs[j].pieces, subs[j].loc));
      }
    }
  }

  // An op (and the ops below it) left out once the diagram is long enough.
  void Skip(size_t i) {
    if (drawn_.count(i)) return;
    drawn_.insert(i);
    undrawn_.push_back(t_.ops[i].name);
    for (size_t c : order_.children[i]) Skip(c);
  }

  // Starts a part of the diagram that may draw `lines` lines of ops.
  void Budget(size_t lines) {
    line_limit_ = lines_.size() + lines;
    undrawn_.clear();
  }

  // Names the ops the budget left out.
  void Undrawn(const std::string& indent) {
    if (undrawn_.empty()) return;
    lines_.push_back(p_.Line(indent, {{"… " + std::to_string(undrawn_.size()) +
                                           " more ops not drawn (Summary and --json have them):",
                                       Style::kDim}}));
    for (const auto& line : Wrap(Join(undrawn_, ", "), p_.width() - indent.size() - 2))
      lines_.push_back(indent + "  " + line);
  }

  // Ops whose parents sat too deep, drawn as roots (and so on, until none is left).
  void Deferred(const std::string& indent) {
    while (!deferred_.empty()) {
      auto [op, from] = deferred_.front();
      deferred_.erase(deferred_.begin());
      if (drawn_.count(op)) continue;
      lines_.push_back(indent + "┆");
      Op(op, indent, "", from);
    }
  }

  // The op reached through a call from op i, if it is drawn as a child.
  long ReachedOp(size_t i, const std::string& name) const {
    for (size_t c : order_.children[i])
      if (SameOp(t_.ops[c].name, name)) return static_cast<long>(c);
    return -1;
  }

  static std::string Pad(const std::string& s, size_t n) {
    return Columns(s) >= n ? s : s + std::string(n - Columns(s), ' ');
  }

  // One line for an op not shown in full: its CPU/CUDA functions and what runs.
  static std::string Condensed(const OpStep& op) {
    std::vector<std::string> parts, ran;
    auto add = [](std::vector<std::string>& list, std::string item) {
      if (std::find(list.begin(), list.end(), item) == list.end()) list.push_back(std::move(item));
    };
    for (const auto& im : op.impls)
      if (im.key != "Meta") add(parts, ShortKey(im.key) + " " + im.function);
    std::string out = Join(parts, " · ");
    for (const auto& k : op.kernels) add(ran, k.name);
    for (const auto& l : op.libraries) add(ran, l.name);
    if (!ran.empty()) out += (out.empty() ? "" : "  ") + std::string("⇒ ") + Join(ran, ", ");
    return out;
  }

  void BackwardLines() {
    if (t_.backward.empty() && order_.backward.empty()) return;
    lines_.push_back("");
    lines_.push_back(p_.Line("", {{"backward (autograd)", Style::kBold}}));
    Budget(kFlowBackwardLines);
    std::set<size_t> placed;
    std::vector<std::string> skipped;  // derivatives entries past the budget
    for (const auto& b : t_.backward) {
      if (lines_.size() >= line_limit_) {
        skipped.push_back(b.op);
        continue;
      }
      std::string formulas;
      if (b.derivatives) {
        std::vector<std::string> inputs;
        for (const auto& f : b.derivatives->formulas) inputs.push_back(f.inputs);
        formulas = Join(inputs, "; ");
      }
      std::vector<Piece> head = {{"∂ " + b.op, Style::kOp}};
      if (!formulas.empty()) head.push_back({"  " + formulas, Style::kDim});
      if (!b.derivatives && !b.note.empty()) head.push_back({"  " + b.note, Style::kDim});
      lines_.push_back(p_.Line("  ", head, LocText(DerivativeLocation(b.derivatives), true)));
      std::vector<size_t> kids;
      for (const auto& item : order_.backward) {
        if (item.level != 0 || placed.count(item.op)) continue;
        const OpStep& op = t_.ops[item.op];
        bool named = std::any_of(b.ops.begin(), b.ops.end(), [&](const std::string& n) { return SameOp(op.name, n); });
        if (named || SameOp(op.reached_from, b.op)) kids.push_back(item.op);
      }
      std::vector<std::string> unnamed;  // backward ops the formulas name but the trace did not follow
      for (const auto& n : b.ops) {
        bool drawn = std::any_of(kids.begin(), kids.end(), [&](size_t k) { return SameOp(t_.ops[k].name, n); });
        if (!drawn) unnamed.push_back(n);
      }
      if (!unnamed.empty())
        lines_.push_back(p_.Line("    ", {{"uses " + Join(unnamed, ", "), Style::kPlain}}));
      for (size_t k = 0; k < kids.size(); ++k) {
        placed.insert(kids[k]);
        Op(kids[k], "    ", k + 1 == kids.size() ? "└─▶ " : "├─▶ ");
      }
    }
    for (const auto& item : order_.backward)
      if (item.level == 0 && !placed.count(item.op)) Op(item.op, "  ", "└─▶ ");
    Deferred("  ");
    if (!skipped.empty()) {
      lines_.push_back(p_.Line("  ", {{"… " + std::to_string(skipped.size()) +
                                           " more derivatives.yaml entries (Summary and --json have them):",
                                       Style::kDim}}));
      for (const auto& line : Wrap(Join(skipped, ", "), p_.width() - 4)) lines_.push_back("    " + line);
    }
    Undrawn("  ");
  }

  const Trace& t_;
  const OpOrder& order_;
  const Painter& p_;
  std::set<size_t> drawn_;
  std::vector<std::pair<size_t, std::string>> deferred_;  // (op, the op it is reached from)
  size_t line_limit_ = SIZE_MAX;
  std::vector<std::string> undrawn_;
  std::vector<std::string> lines_;
};

// ----- The layer-by-layer walk and the summary table, as plain records that
// text and markdown both format.

struct Layer {
  std::string kind;   // "Python", "YAML", "C++ CUDA", "stub", "kernel", "library", "derivatives", ...
  std::string name;   // what is there
  Location where;
  std::vector<std::string> details;  // one short line each
  bool snippet = true;               // print where.snippet
};

struct Row {
  std::string layer, location, function;
};

// The table's layer column is 16 wide: composite keys get shorter names still.
std::string ImplKind(const ImplStep& im) {
  std::string key = ShortKey(im.key);
  if (StartsWith(key, "Composite")) key = "Comp" + key.substr(9);
  if (key == "CompExplicitNF") key = "CompExplNF";
  return "C++ " + key;
}

void OpLayers(const OpStep& op, std::vector<Layer>* layers) {
  size_t first = layers->size();  // the op's YAML layer: calls and notes go there
  if (op.yaml) {
    const NativeFunction& f = *op.yaml;
    Layer y{op.role == "backward" ? "YAML (backward)" : "YAML", "aten::" + op.name, YamlLocation(op.yaml), {}, false};
    y.details.push_back("func: " + OneLine(f.schema.text.empty() ? FunctionSchemaToString(f.schema) : f.schema.text));
    std::vector<std::string> dispatch;
    for (const auto& [key, fn] : f.dispatch) dispatch.push_back(key + ": " + fn);
    if (!dispatch.empty())
      y.details.push_back("dispatch: " + Join(dispatch, ", ") + (f.implicit_composite ? "  (implied: no dispatch:)" : ""));
    if (f.structured) y.details.push_back("structured: True");
    if (f.structured_delegate) y.details.push_back("structured_delegate: " + *f.structured_delegate);
    if (f.autogen_from) y.details.push_back("autogenerated from " + *f.autogen_from);
    if (!f.ufunc_inner_loop.empty()) {
      std::vector<std::string> loops;
      for (const auto& [key, v] : f.ufunc_inner_loop) loops.push_back(key + ": " + v);
      y.details.push_back("ufunc_inner_loop: " + Join(loops, ", "));
    }
    if (!f.tags.empty()) y.details.push_back("tags: " + Join(f.tags, ", "));
    if (!op.reached_from.empty()) y.details.push_back("reached from " + op.reached_from);
    layers->push_back(std::move(y));
  } else {
    Layer y{"aten op", "aten::" + op.name, {}, {"no native_functions.yaml entry in the trace"}, false};
    layers->push_back(std::move(y));
  }
  for (const auto& im : op.impls) {
    Layer l{ImplKind(im), im.function, im.where, {}};
    if (!im.form.empty() && im.form != "function") l.details.push_back("form: " + im.form);
    if (!im.dtypes.empty()) l.details.push_back("dtypes: " + Join(im.dtypes, ", "));
    layers->push_back(std::move(l));
  }
  for (const auto& s : op.stubs) {
    Layer l{"stub", s.name, s.declared, {}, false};
    if (s.call_site.valid())
      l.details.push_back("called" + (s.called_from.empty() ? "" : " from " + s.called_from) + " at " + LocText(s.call_site));
    for (const auto& r : s.registrations)
      l.details.push_back(r.device + ": " + r.macro + " → " + r.target + " at " + LocText(r.where));
    layers->push_back(std::move(l));
    for (const auto& r : s.registrations) {
      if (r.target_definition.valid())
        layers->push_back({"stub " + r.device, r.target, r.target_definition, {"registered for " + s.name}});
    }
  }
  for (const auto& k : op.kernels) {
    Layer l{"kernel " + k.device, k.name, k.where, {}};
    l.details.push_back("launch: " + k.launch + (k.launcher.empty() ? "" : " (" + k.launcher + ")") +
                        (k.launch_site.valid() ? " at " + LocText(k.launch_site) : ""));
    if (!k.path.empty()) l.details.push_back("via " + Join(k.path, " → "));
    layers->push_back(std::move(l));
  }
  for (const auto& lib : op.libraries) {
    Layer l{"library", lib.name, lib.where, {}};
    if (!lib.calls.empty()) l.details.push_back("calls " + Join(lib.calls, ", "));
    if (!lib.path.empty()) l.details.push_back("via " + Join(lib.path, " → "));
    layers->push_back(std::move(l));
  }
  if (!op.calls.empty()) {
    // One entry per called op, with the implementations (devices) calling it.
    std::vector<std::pair<std::string, std::vector<std::string>>> called;
    for (const auto& c : op.calls) {
      auto it = std::find_if(called.begin(), called.end(), [&](const auto& e) { return e.first == c.op; });
      if (it == called.end()) it = called.insert(called.end(), {c.op, {}});
      if (c.device != "any" && std::find(it->second.begin(), it->second.end(), c.device) == it->second.end())
        it->second.push_back(c.device);
    }
    std::vector<std::string> parts;
    for (const auto& [name, devices] : called)
      parts.push_back(name + (devices.empty() ? "" : " (" + Join(devices, ", ") + ")"));
    (*layers)[first].details.push_back("calls aten: " + Join(parts, ", "));
  }
  for (const auto& n : op.notes) (*layers)[first].details.push_back("note: " + n);
}

// Layers of the walk: Python frames, full ops in tree order, derivatives,
// decompositions. Condensed ops go to *condensed.
std::vector<Layer> Layers(const Trace& t, const OpOrder& order, std::vector<const OpStep*>* condensed) {
  std::vector<Layer> layers;
  for (const auto& f : t.python) {
    Layer l{"Python", f.symbol, f.where, {}};
    for (size_t ci = 0; ci < f.calls.size(); ++ci) {
      const PyCallStep& c = f.calls[ci];
      if (ci == kMaxWalkCalls && f.calls.size() > kMaxWalkCalls + 1) {
        l.details.push_back("… " + std::to_string(f.calls.size() - ci) + " more calls (--json lists them)");
        break;
      }
      std::string d = "calls " + c.callee + " (" + c.kind + ")";
      if (c.line > 0) d += " at line " + std::to_string(c.line);
      if (!c.resolved.empty() && c.resolved != c.callee) d += " → " + c.resolved;
      l.details.push_back(d);
    }
    if (!f.bridge.empty()) l.details.push_back("bridge to C++: " + f.bridge);
    if (!f.note.empty()) l.details.push_back(f.note);
    layers.push_back(std::move(l));
  }
  auto add_ops = [&](const std::vector<OpOrder::Item>& items) {
    for (const auto& item : items) {
      if (item.full) OpLayers(t.ops[item.op], &layers);
      else condensed->push_back(&t.ops[item.op]);
    }
  };
  add_ops(order.forward);
  // Formulas in full for the derivatives of ops shown in full (and the first
  // few); the others one line each, in one layer.
  Layer others{"derivatives", "further entries (formulas in --json)", {}, {}, false};
  size_t full_entries = 0;
  for (const auto& b : t.backward) {
    bool op_full = false;
    for (size_t i = 0; i < t.ops.size(); ++i)
      if (t.ops[i].role != "backward" && t.ops[i].name == b.op && order.full[i]) op_full = true;
    if (!op_full && full_entries >= kMaxFullDerivatives) {
      std::string line = b.op;
      if (b.derivatives) line += "  " + LocText(DerivativeLocation(b.derivatives));
      if (!b.ops.empty()) line += "  → " + Join(b.ops, ", ");
      if (others.details.size() < kMaxCondensedOps) others.details.push_back(line);
      continue;
    }
    ++full_entries;
    Layer l{"derivatives", b.op, DerivativeLocation(b.derivatives), {}, false};
    if (b.derivatives) {
      for (const auto& f : b.derivatives->formulas) l.details.push_back(f.inputs + ": " + OneLine(f.formula));
      if (b.derivatives->output_differentiability)
        l.details.push_back("output_differentiability: " + *b.derivatives->output_differentiability);
    }
    if (!b.ops.empty()) l.details.push_back("backward ops: " + Join(b.ops, ", "));
    if (!b.helpers.empty()) l.details.push_back("helpers: " + Join(b.helpers, ", "));
    if (!b.note.empty()) l.details.push_back(b.note);
    layers.push_back(std::move(l));
  }
  if (!others.details.empty()) layers.push_back(std::move(others));
  add_ops(order.backward);
  for (const auto& d : t.decompositions) {
    Layer l{"decomposition", d.function, d.where, {d.registry + (d.target.empty() ? "" : " for " + d.target)}};
    layers.push_back(std::move(l));
  }
  return layers;
}

std::vector<Row> Rows(const Trace& t, const OpOrder& order) {
  std::vector<Row> rows;
  for (const auto& f : t.python) rows.push_back({"Python", LocText(f.where), f.symbol});
  auto add_op = [&](const OpStep& op, bool full) {
    if (!full) {  // one row: where the op is and what implements it
      std::vector<std::string> impls;
      for (const auto& im : op.impls) impls.push_back(ShortKey(im.key) + " " + im.function);
      rows.push_back({op.role == "backward" ? "YAML (bwd)" : "YAML", LocText(YamlLocation(op.yaml)),
                      op.name + (impls.empty() ? "" : " → " + Join(impls, ", "))});
      return;
    }
    rows.push_back({op.role == "backward" ? "YAML (bwd)" : "YAML", LocText(YamlLocation(op.yaml)), op.name});
    for (const auto& im : op.impls) rows.push_back({ImplKind(im), LocText(im.where), im.function});
    for (const auto& s : op.stubs) {
      rows.push_back({"stub", LocText(s.declared), s.name});
      for (const auto& r : s.registrations)
        rows.push_back({"stub " + r.device, LocText(r.target_definition.valid() ? r.target_definition : r.where),
                        r.target});
    }
    for (const auto& k : op.kernels) rows.push_back({"kernel " + k.device, LocText(k.where), k.name});
    for (const auto& l : op.libraries)
      rows.push_back({l.name, LocText(l.where), l.calls.empty() ? "" : Join(l.calls, ", ")});
  };
  for (const auto& item : order.forward) add_op(t.ops[item.op], item.full);
  for (const auto& b : t.backward)
    if (b.derivatives) rows.push_back({"derivatives", LocText(DerivativeLocation(b.derivatives)), b.op});
  for (const auto& item : order.backward) add_op(t.ops[item.op], item.full);
  for (const auto& d : t.decompositions) rows.push_back({"decomposition", LocText(d.where), d.function});
  for (auto& r : rows)
    if (r.location.empty()) r.location = "-";
  return rows;
}

// Notes: the tracer's, each op's, the Python frames' and the backward ones,
// plus what the trace itself shows about backends (libraries, dtypes).
std::vector<std::string> AllNotes(const Trace& t, const OpOrder& order) {
  std::vector<std::string> notes = t.notes;
  for (size_t i = 0; i < t.ops.size(); ++i) {
    const OpStep& op = t.ops[i];
    // Per-op notes of condensed ops stay in the JSON: a big trace has dozens.
    if (order.full[i])
      for (const auto& n : op.notes) notes.push_back(op.name + ": " + n);
    // NVIDIA's closed libraries and MAGMA ship their own kernels; CUB,
    // Thrust, cutlass and the attention kernels are source (in the toolkit,
    // third_party/ or the tree), so nothing is claimed about them.
    static const std::set<std::string> kBinaryOnly = {"cuDNN",    "cuBLAS",   "cuBLASLt", "cuFFT",
                                                      "cuSOLVER", "cuSPARSE", "MAGMA"};
    std::vector<std::string> binary, source;
    for (const auto& l : op.libraries) {
      auto& list = kBinaryOnly.count(l.name) ? binary : source;
      if (std::find(list.begin(), list.end(), l.name) == list.end()) list.push_back(l.name);
    }
    if (!binary.empty())
      notes.push_back(op.name + ": calls into " + Join(binary, ", ") +
                      " (prebuilt library: the kernels that run are not in this tree)");
    if (!source.empty()) notes.push_back(op.name + ": calls into " + Join(source, ", "));
  }
  for (const auto& b : t.backward)
    if (!b.note.empty() && b.derivatives) notes.push_back("backward " + b.op + ": " + b.note);
  std::vector<std::string> unique;
  for (auto& n : notes)
    if (std::find(unique.begin(), unique.end(), n) == unique.end()) unique.push_back(std::move(n));
  if (unique.size() > kMaxNotes + 1) {
    size_t more = unique.size() - kMaxNotes;
    unique.resize(kMaxNotes);
    unique.push_back("… " + std::to_string(more) + " more notes (--json has them)");
  }
  return unique;
}

std::string TargetLine(const Trace& t) {
  std::string s = t.target_kind + " " + t.target_name;
  if (!t.selected_overload.empty()) s += "  (overload " + t.selected_overload + ")";
  return s;
}

std::string CheckoutLine(const Trace& t) {
  return t.source_root + (t.source_version.empty() ? "" : "  (version " + t.source_version + ")");
}

constexpr size_t kMaxTableRows = 60;

}  // namespace

std::string RenderText(const Trace& t, const RenderOptions& options) {
  Painter p(options.color, static_cast<size_t>(std::max(40, options.width)));
  size_t width = p.width();
  OpOrder order = OrderOps(t);
  std::ostringstream out;
  auto section = [&](const std::string& title) {
    std::string bar = "── " + title + " ";
    bar += std::string();
    while (Columns(bar) < width) bar += "─";
    out << "\n" << p.Paint(bar, Style::kBold) << "\n";
  };
  out << p.Line("", {{"optrace trace ", Style::kBold}, {t.query, Style::kBold}}) << "\n";
  out << p.Line("  ", {{"target    ", Style::kDim}, {TargetLine(t), Style::kPlain}}) << "\n";
  out << p.Line("  ", {{"checkout  ", Style::kDim}, {CheckoutLine(t), Style::kPlain}}) << "\n";
  if (t.installed_torch) out << p.Line("  ", {{"torch     ", Style::kDim}, {*t.installed_torch + " (installed)", Style::kPlain}}) << "\n";
  if (!t.source_warning.empty()) out << "  " << p.Paint(t.source_warning, Style::kBold) << "\n";  // whole, never cut

  if (!t.python.empty() || !t.ops.empty()) {
    section("Flow");
    FlowWriter flow(t, order, p);
    for (const auto& line : flow.Lines()) out << line << "\n";
  }

  std::vector<const OpStep*> condensed;
  std::vector<Layer> layers = Layers(t, order, &condensed);
  if (!layers.empty()) {
    section("Layers");
    for (size_t i = 0; i < layers.size(); ++i) {
      const Layer& l = layers[i];
      std::string num = std::to_string(i + 1);
      num = std::string(num.size() < 3 ? 3 - num.size() : 0, ' ') + num + "  ";
      out << p.Line(num, {{l.kind + "  ", Style::kBold}, {l.name, Style::kOp}}) << "\n";
      if (l.where.valid()) out << p.Line("     ", {{LocText(l.where), Style::kPath}}) << "\n";
      if (l.snippet && !l.where.snippet.empty()) {
        int n = l.where.line;
        for (const auto& code : SnippetLines(l.where.snippet, kMaxSnippetLines)) {
          std::string num_col = std::to_string(n++);
          num_col = std::string(num_col.size() < 6 ? 6 - num_col.size() : 0, ' ') + num_col;
          out << p.Line("     ", {{num_col + " │ ", Style::kDim}, {code, Style::kPlain}}) << "\n";
        }
      }
      for (const auto& d : l.details) {
        std::vector<std::string> wrapped = Wrap(d, width - 9);
        for (size_t k = 0; k < wrapped.size(); ++k) out << (k ? "         " : "       ") << wrapped[k] << "\n";
      }
    }
    if (!condensed.empty()) {
      out << p.Line("", {{"     deeper ops (shown condensed; --json has everything):", Style::kDim}}) << "\n";
      for (size_t ci = 0; ci < condensed.size(); ++ci) {
        const OpStep* op = condensed[ci];
        if (ci == kMaxCondensedOps && condensed.size() > kMaxCondensedOps + 1) {
          out << p.Line("       ", {{"… " + std::to_string(condensed.size() - ci) + " more (--json)", Style::kDim}})
              << "\n";
          break;
        }
        std::vector<std::string> impls;
        for (const auto& im : op->impls) impls.push_back(im.key + " " + im.function);
        out << p.Line("       · ", {{op->name, Style::kOp}, {"  " + Join(impls, ", "), Style::kPlain}},
                      LocText(YamlLocation(op->yaml)))
            << "\n";
      }
    }
  }

  std::vector<Row> rows = Rows(t, order);
  if (!rows.empty()) {
    section("Summary");
    // Columns: layer (at most 16), file:line and the function. A path too
    // long for its column loses its head ("…/native/cuda/x.cu:12": the walk
    // above has it whole); a function too long wraps onto continuation rows.
    size_t c1 = 5, c2 = 9, c3 = 8;
    for (const auto& r : rows) {
      c1 = std::max(c1, Columns(r.layer));
      c2 = std::max(c2, Columns(r.location));
      c3 = std::max(c3, Columns(r.function));
    }
    size_t room = width - 6;  // two " │ " separators
    c1 = std::min({c1, size_t{16}, room / 4});
    c2 = std::min(c2, room - c1 - std::min({c3, size_t{34}, room / 3}));
    c3 = room - c1 - c2;
    auto row = [&](const std::string& a, const std::string& b, const std::string& c, Style s) {
      std::vector<std::string> cells = Wrap(c, c3);
      for (size_t k = 0; k < cells.size(); ++k) {
        std::string a2 = k ? "" : Fit(a, c1), b2 = k ? "" : FitLeft(b, c2);
        out << p.Paint(a2, s) << std::string(c1 - Columns(a2), ' ') << " │ "
            << p.Paint(b2, s == Style::kBold ? s : Style::kPath) << std::string(c2 - Columns(b2), ' ') << " │ "
            << p.Paint(cells[k], s) << "\n";
      }
    };
    row("layer", "file:line", "function", Style::kBold);
    std::string rule;
    for (size_t i = 0; i < c1 + 1; ++i) rule += "─";
    rule += "┼";
    for (size_t i = 0; i < c2 + 2; ++i) rule += "─";
    rule += "┼";
    for (size_t i = 0; i < c3 + 1; ++i) rule += "─";
    out << rule << "\n";
    for (size_t i = 0; i < rows.size() && i < kMaxTableRows; ++i)
      row(rows[i].layer, rows[i].location, rows[i].function, Style::kPlain);
    if (rows.size() > kMaxTableRows)
      out << p.Paint("… " + std::to_string(rows.size() - kMaxTableRows) + " more rows (--json or --format md lists all)",
                     Style::kDim)
          << "\n";
  }

  std::vector<std::string> notes = AllNotes(t, order);
  if (!notes.empty()) {
    section("Notes");
    for (const auto& n : notes) {
      std::vector<std::string> wrapped = Wrap(n, width - 4);
      for (size_t k = 0; k < wrapped.size(); ++k) out << (k ? "    " : "  • ") << wrapped[k] << "\n";
    }
  }

  if (!t.not_found.empty() || !t.suggestions.empty()) {
    section("Not found");
    for (const auto& n : t.not_found)
      out << p.Line("  ", {{n.what + ": ", Style::kWarn}, {n.detail, Style::kPlain}}) << "\n";
    if (!t.suggestions.empty())
      out << p.Line("  ", {{"did you mean: ", Style::kBold}, {Join(t.suggestions, ", "), Style::kPlain}}) << "\n";
  }
  return out.str();
}

// ---------------------------------------------------------------------------
// Markdown.

namespace {

std::string MdCell(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '|') out += "\\|";
    else if (c == '\n') out += ' ';
    else out += c;
  }
  return out;
}

// Prose with markdown's special characters escaped.
std::string MdText(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (std::string_view("\\`*_[]<>|#").find(c) != std::string_view::npos) out += '\\';
    out += c == '\n' ? ' ' : c;
  }
  return out;
}

std::string MdCode(const std::string& s);

// A walk detail: "label: value" shows the value (code, a formula, a
// dispatch table) as inline code; anything else is escaped prose.
std::string MdDetail(const std::string& d) {
  size_t colon = d.find(": ");
  if (colon != std::string::npos && colon <= 30 && colon + 2 < d.size())
    return MdText(d.substr(0, colon)) + ": " + MdCode(d.substr(colon + 2));
  return MdText(d);
}

// Inline code that survives backticks in the text.
std::string MdCode(const std::string& s) {
  if (s.empty()) return "";
  std::string fence = s.find('`') == std::string::npos ? "`" : "``";
  std::string pad = fence.size() > 1 ? " " : "";
  return fence + pad + s + pad + fence;
}

}  // namespace

std::string RenderMarkdown(const Trace& t) {
  OpOrder order = OrderOps(t);
  std::ostringstream out;
  out << "# optrace: " << MdCode(t.query) << "\n\n";
  out << "- **Target:** " << MdCell(TargetLine(t)) << "\n";
  out << "- **Checkout:** " << MdCode(t.source_root)
      << (t.source_version.empty() ? "" : " (version " + t.source_version + ")") << "\n";
  if (t.installed_torch) out << "- **Installed torch:** " << MdCode(*t.installed_torch) << "\n";
  if (!t.source_warning.empty()) out << "- **Warning:** " << MdCell(t.source_warning) << "\n";

  if (!t.python.empty() || !t.ops.empty()) {
    Painter plain(false, 100);
    FlowWriter flow(t, order, plain);
    out << "\n## Flow\n\n```text\n";
    for (const auto& line : flow.Lines()) out << line << "\n";
    out << "```\n";
  }

  std::vector<const OpStep*> condensed;
  std::vector<Layer> layers = Layers(t, order, &condensed);
  if (!layers.empty()) {
    out << "\n## Layers\n";
    for (size_t i = 0; i < layers.size(); ++i) {
      const Layer& l = layers[i];
      out << "\n### " << i + 1 << ". " << l.kind << ": " << MdCode(l.name);
      if (l.where.valid()) out << " — " << MdCode(LocText(l.where));
      out << "\n";
      if (l.snippet && !l.where.snippet.empty()) {
        out << "\n```" << SnippetLanguage(l.where.file) << "\n";
        for (const auto& code : SnippetLines(l.where.snippet, kMaxSnippetLines)) {
          // A snippet line of backticks would close the fence early.
          out << (StartsWith(TrimView(code), "```") ? " " + code : code) << "\n";
        }
        out << "```\n";
      }
      if (!l.details.empty()) out << "\n";
      for (const auto& d : l.details) out << "- " << MdDetail(d) << "\n";
    }
    if (!condensed.empty()) {
      out << "\n### Deeper ops (condensed)\n\n";
      for (size_t ci = 0; ci < condensed.size(); ++ci) {
        const OpStep* op = condensed[ci];
        if (ci == kMaxCondensedOps && condensed.size() > kMaxCondensedOps + 1) {
          out << "- … " << condensed.size() - ci << " more (`--json` lists them)\n";
          break;
        }
        std::vector<std::string> impls;
        for (const auto& im : op->impls)
          impls.push_back(im.key + " " + MdCode(im.function) + (im.where.valid() ? " " + MdCode(LocText(im.where)) : ""));
        out << "- " << MdCode(op->name);
        if (op->yaml && op->yaml->line > 0) out << " (" << MdCode(LocText(YamlLocation(op->yaml))) << ")";
        if (!impls.empty()) out << ": " << MdCell(Join(impls, "; "));
        out << "\n";
      }
    }
  }

  std::vector<Row> rows = Rows(t, order);
  if (!rows.empty()) {
    out << "\n## Summary\n\n| Layer | File:line | Function |\n|---|---|---|\n";
    for (const auto& r : rows)
      out << "| " << MdCell(r.layer) << " | " << MdCode(MdCell(r.location)) << " | " << MdCode(MdCell(r.function))
          << " |\n";
  }

  std::vector<std::string> notes = AllNotes(t, order);
  if (!notes.empty()) {
    out << "\n## Notes\n\n";
    for (const auto& n : notes) out << "- " << MdCell(n) << "\n";
  }
  if (!t.not_found.empty() || !t.suggestions.empty()) {
    out << "\n## Not found\n\n";
    for (const auto& n : t.not_found) out << "- **" << MdCell(n.what) << "**: " << MdCell(n.detail) << "\n";
    if (!t.suggestions.empty()) {
      std::vector<std::string> s;
      for (const auto& x : t.suggestions) s.push_back(MdCode(x));
      out << "- did you mean: " << Join(s, ", ") << "\n";
    }
  }
  return out.str();
}

// ---------------------------------------------------------------------------
// DOT.

namespace {

std::string DotQuote(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    unsigned char u = c;
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else if (u >= 0x20 && u != 0x7f) {
      out += c;
    }
  }
  return out + "\"";
}

std::string DotLabel(const std::string& title, const Location& where) {
  return where.valid() ? title + "\n" + LocText(where, true) : title;
}

}  // namespace

std::string RenderDot(const Trace& t) {
  std::ostringstream out;
  out << "digraph optrace {\n  rankdir=TB;\n  node [shape=box, fontname=\"monospace\", fontsize=10];\n"
      << "  label=" << DotQuote("optrace trace " + t.query) << "; labelloc=t;\n";
  std::string previous;
  for (size_t i = 0; i < t.python.size(); ++i) {
    std::string id = "py" + std::to_string(i);
    out << "  " << id << " [label=" << DotQuote(DotLabel(t.python[i].symbol, t.python[i].where))
        << ", style=rounded];\n";
    if (!previous.empty()) out << "  " << previous << " -> " << id << ";\n";
    previous = id;
  }
  std::map<std::pair<std::string, std::string>, std::string> op_ids;
  for (size_t i = 0; i < t.ops.size(); ++i)
    op_ids.emplace(std::make_pair(t.ops[i].role, t.ops[i].name), "op" + std::to_string(i));
  for (size_t i = 0; i < t.ops.size(); ++i) {
    const OpStep& op = t.ops[i];
    std::string id = "op" + std::to_string(i);
    bool backward = op.role == "backward";
    out << "  " << id << " [label=" << DotQuote(DotLabel("aten::" + op.name, YamlLocation(op.yaml)))
        << ", style=filled, fillcolor=" << (backward ? "\"#f4e1ff\"" : "\"#dff5dd\"") << "];\n";
    auto from = op_ids.find({op.role, op.reached_from});
    if (from == op_ids.end()) from = op_ids.find({"forward", op.reached_from});
    if (!op.reached_from.empty() && from != op_ids.end() && from->second != id) {
      out << "  " << from->second << " -> " << id << (backward ? " [style=dashed]" : "") << ";\n";
    } else if (op.reached_from.empty() && !backward && !previous.empty()) {
      out << "  " << previous << " -> " << id << ";\n";
    }
    std::map<std::string, std::string> impl_ids;  // function -> node
    for (size_t k = 0; k < op.impls.size(); ++k) {
      const ImplStep& im = op.impls[k];
      std::string iid = id + "_i" + std::to_string(k);
      impl_ids.emplace(im.function, iid);
      out << "  " << iid << " [label=" << DotQuote(DotLabel(im.key + ": " + im.function, im.where)) << "];\n"
          << "  " << id << " -> " << iid << ";\n";
    }
    // A kernel or library hangs off the implementation its path starts at.
    auto parent = [&](const std::vector<std::string>& path) {
      if (!path.empty()) {
        auto it = impl_ids.find(path.front());
        if (it != impl_ids.end()) return it->second;
      }
      return id;
    };
    for (size_t k = 0; k < op.stubs.size(); ++k) {
      const StubStep& s = op.stubs[k];
      std::string sid = id + "_s" + std::to_string(k);
      out << "  " << sid << " [label=" << DotQuote(DotLabel("stub " + s.name, s.declared)) << ", shape=diamond];\n";
      auto it = impl_ids.find(s.called_from);
      out << "  " << (it != impl_ids.end() ? it->second : id) << " -> " << sid << ";\n";
      for (size_t r = 0; r < s.registrations.size(); ++r) {
        const auto& reg = s.registrations[r];
        std::string rid = sid + "_r" + std::to_string(r);
        out << "  " << rid << " [label="
            << DotQuote(DotLabel(reg.device + ": " + reg.target,
                                 reg.target_definition.valid() ? reg.target_definition : reg.where))
            << "];\n  " << sid << " -> " << rid << ";\n";
      }
    }
    for (size_t k = 0; k < op.kernels.size(); ++k) {
      const KernelStep& kn = op.kernels[k];
      std::string kid = id + "_k" + std::to_string(k);
      out << "  " << kid << " [label=" << DotQuote(DotLabel(kn.device + " kernel " + kn.name, kn.where))
          << ", style=filled, fillcolor=\"#fff2c6\"];\n  " << parent(kn.path) << " -> " << kid << ";\n";
    }
    for (size_t k = 0; k < op.libraries.size(); ++k) {
      const LibraryStep& l = op.libraries[k];
      std::string lid = id + "_l" + std::to_string(k);
      out << "  " << lid << " [label=" << DotQuote(DotLabel(l.name + (l.calls.empty() ? "" : ": " + Join(l.calls, ", ")), l.where))
          << ", shape=component];\n  " << parent(l.path) << " -> " << lid << ";\n";
    }
  }
  // Backward: the forward op -> the backward ops its derivatives formula names.
  for (const auto& b : t.backward) {
    auto from = op_ids.find({"forward", b.op});
    if (from == op_ids.end()) continue;
    for (const auto& name : b.ops) {
      for (size_t i = 0; i < t.ops.size(); ++i) {
        if (t.ops[i].role == "backward" && SameOp(t.ops[i].name, name) && t.ops[i].reached_from != b.op) {
          out << "  " << from->second << " -> op" << i << " [style=dashed, label=\"grad\"];\n";
          break;
        }
      }
    }
  }
  out << "}\n";
  return out.str();
}

}  // namespace optrace
