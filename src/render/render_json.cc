// The JSON face written straight to text: JsonWriter (render_json.h) and
// RenderJson (render.h), which writes the optrace.trace/1 object with the
// same fields, in the same order, as TraceToJson builds them; render_json_test
// checks the two agree on real traces, so the contract has one meaning.
#include "render/render_json.h"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <optional>
#include <utility>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <nlohmann/json.hpp>

#include "render/render.h"
#include "render/render_internal.h"
#include "yaml/yaml_model.h"

namespace optrace {

namespace {

// Well-formed UTF-8 as Unicode's table 3-7 defines it (no overlong forms, no
// surrogates, nothing past U+10FFFF): exactly what nlohmann's decoder accepts.
bool ValidUtf8(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    unsigned char c = s[i];
    if (c < 0x80) {
      ++i;
      continue;
    }
    size_t extra;
    unsigned char lo = 0x80, hi = 0xBF;  // bounds of the second byte
    if (c >= 0xC2 && c <= 0xDF) {
      extra = 1;
    } else if (c >= 0xE0 && c <= 0xEF) {
      extra = 2;
      if (c == 0xE0) lo = 0xA0;
      if (c == 0xED) hi = 0x9F;
    } else if (c >= 0xF0 && c <= 0xF4) {
      extra = 3;
      if (c == 0xF0) lo = 0x90;
      if (c == 0xF4) hi = 0x8F;
    } else {
      return false;
    }
    if (s.size() - i <= extra) return false;
    unsigned char second = s[i + 1];
    if (second < lo || second > hi) return false;
    for (size_t k = 2; k <= extra; ++k) {
      unsigned char b = s[i + k];
      if (b < 0x80 || b > 0xBF) return false;
    }
    i += extra + 1;
  }
  return true;
}

}  // namespace

namespace {

// Word-at-a-time scanning: whether any of the 8 bytes of `w` needs more than
// copying (a control character, '"', '\\', or, until the string is known to
// be valid UTF-8, a byte of a multi-byte sequence). The classic "has a zero
// byte" / "has a byte less than n" tricks, exact as yes/no answers.
constexpr uint64_t kOnes = 0x0101010101010101ULL;
constexpr uint64_t kHighs = 0x8080808080808080ULL;

constexpr uint64_t HasZeroByte(uint64_t v) { return (v - kOnes) & ~v & kHighs; }

bool WordNeedsWork(uint64_t w, bool utf8_ok) {
  uint64_t special =
      HasZeroByte(w ^ (kOnes * '"')) | HasZeroByte(w ^ (kOnes * '\\')) | ((w - kOnes * 0x20) & ~w & kHighs);
  if (!utf8_ok) special |= w & kHighs;
  return special != 0;
}

#if defined(__SSE2__)
// The same question of 16 bytes at once: a byte below 0x20 as a signed
// char is a control character or one of 0x80-0xff.
bool BlockNeedsWork(const char* p) {
  const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  const __m128i special =
      _mm_or_si128(_mm_cmplt_epi8(v, _mm_set1_epi8(0x20)),
                   _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('"')), _mm_cmpeq_epi8(v, _mm_set1_epi8('\\'))));
  return _mm_movemask_epi8(special) != 0;
}
#endif

// Whether `s` is printable ASCII without '"' or '\\': JSON text as it is.
// Most strings a trace writes are (names, paths, conditions).
bool PlainAscii(std::string_view s) {
  size_t i = 0;
#if defined(__SSE2__)
  if (s.size() >= 16) {  // blocks, the tail as the last sixteen bytes, overlapping
    for (; i + 16 <= s.size(); i += 16)
      if (BlockNeedsWork(s.data() + i)) return false;
    return i == s.size() || !BlockNeedsWork(s.data() + s.size() - 16);
  }
#endif
  for (; i + 8 <= s.size(); i += 8) {
    uint64_t w;
    std::memcpy(&w, s.data() + i, 8);
    if (WordNeedsWork(w, false)) return false;
  }
  if (i < s.size() && s.size() >= 8) {  // the tail: the last eight bytes, overlapping
    uint64_t w;
    std::memcpy(&w, s.data() + s.size() - 8, 8);
    return !WordNeedsWork(w, false);
  }
  for (; i < s.size(); ++i) {
    const unsigned char c = s[i];
    if (c < 0x20 || c == '"' || c == '\\' || c >= 0x80) return false;
  }
  return true;
}

}  // namespace

void AppendJsonString(std::string& out, std::string_view s) {
  if (PlainAscii(s)) {
    out.push_back('"');
    out.append(s);
    out.push_back('"');
    return;
  }
  size_t start = out.size();
  out.push_back('"');
  bool utf8_ok = false;  // the whole string was checked and is valid UTF-8
  size_t run = 0;        // start of the bytes still to copy as they are
  size_t i = 0;
  while (i < s.size()) {
    if (s.size() - i >= 8) {
      uint64_t w;
      std::memcpy(&w, s.data() + i, 8);
      if (!WordNeedsWork(w, utf8_ok)) {
        i += 8;
        continue;
      }
    }
    for (size_t end = std::min(i + 8, s.size()); i < end; ++i) {
      unsigned char c = s[i];
      if (c >= 0x20 && c != '"' && c != '\\' && c < 0x80) continue;
      if (c >= 0x80) {
        if (utf8_ok) continue;
        // Text from checkout files may be any bytes. Valid UTF-8 passes
        // through; for the rare invalid string, nlohmann itself decides
        // where the replacement characters go.
        if (!ValidUtf8(s)) {
          out.resize(start);
          out += nlohmann::ordered_json(std::string(s))
                     .dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
          return;
        }
        utf8_ok = true;
        continue;
      }
      out.append(s.data() + run, i - run);
      run = i + 1;
      out.push_back('\\');
      switch (c) {
        case '"':
          out.push_back('"');
          break;
        case '\\':
          out.push_back('\\');
          break;
        case '\b':
          out.push_back('b');
          break;
        case '\t':
          out.push_back('t');
          break;
        case '\n':
          out.push_back('n');
          break;
        case '\f':
          out.push_back('f');
          break;
        case '\r':
          out.push_back('r');
          break;
        default: {
          static constexpr char kHex[] = "0123456789abcdef";
          out += "u00";
          out.push_back(kHex[c >> 4]);
          out.push_back(kHex[c & 0xF]);
        }
      }
    }
  }
  out.append(s.data() + run, s.size() - run);
  out.push_back('"');
}

namespace {
thread_local std::string spare_json_room;
}  // namespace

JsonText::JsonText() : out_(std::exchange(spare_json_room, std::string())) {
  if (out_.size() < 16 * 1024) out_.resize(16 * 1024);
}

JsonText::~JsonText() {
  if (out_.size() > spare_json_room.size()) spare_json_room = std::move(out_);
}

JsonWriter::JsonWriter(int indent) : indent_(indent) {}

void JsonText::PutQuoted(std::string_view s, std::string_view tail) {
  char* p = Room(s.size() + 2 + tail.size());
  *p++ = '"';
  std::memcpy(p, s.data(), s.size());
  p += s.size();
  *p++ = '"';
  for (char c : tail) *p++ = c;  // ":" or ": " after a key, else nothing: no call for it
}

void JsonText::PutString(std::string_view s) {
  if (PlainAscii(s)) {
    PutQuoted(s, "");
    return;
  }
  std::string escaped;  // rare: written as AppendJsonString escapes it
  AppendJsonString(escaped, s);
  Put(escaped);
}

void JsonWriter::Newline(size_t depth) {
  const size_t n = depth * static_cast<size_t>(indent_);
  char* p = out_.Room(1 + n);
  *p = '\n';
  std::memset(p + 1, ' ', n);
}

void JsonWriter::BeginElement() {
  if (empty_.empty()) return;  // the top-level value
  if (!empty_.back()) out_.Put(',');
  empty_.back() = false;
  if (indent_ >= 0) Newline(empty_.size());
}

void JsonWriter::BeginValue() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  BeginElement();
}

void JsonWriter::BeginContainer(char open) {
  BeginValue();
  out_.Put(open);
  empty_.push_back(true);
}

void JsonWriter::EndContainer(char close) {
  bool was_empty = empty_.back();
  empty_.pop_back();
  if (!was_empty && indent_ >= 0) Newline(empty_.size());
  out_.Put(close);
}

void JsonWriter::BeginObject() { BeginContainer('{'); }
void JsonWriter::EndObject() { EndContainer('}'); }
void JsonWriter::BeginArray() { BeginContainer('['); }
void JsonWriter::EndArray() { EndContainer(']'); }

void JsonWriter::Key(JsonKey key) {
  BeginElement();
  out_.PutQuoted(key.view(), indent_ >= 0 ? ": " : ":");
  after_key_ = true;
}

void JsonWriter::KeyText(std::string_view key) {
  BeginElement();
  out_.PutString(key);
  out_.Put(indent_ >= 0 ? ": " : ":");
  after_key_ = true;
}

void JsonWriter::String(std::string_view s) {
  BeginValue();
  out_.PutString(s);
}

void JsonWriter::Int(long long v) {
  BeginValue();
  char buf[24];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  out_.Put(std::string_view(buf, static_cast<size_t>(end - buf)));
}

void JsonWriter::Bool(bool b) {
  BeginValue();
  out_.Put(b ? "true" : "false");
}

void JsonWriter::Null() {
  BeginValue();
  out_.Put("null");
}

void JsonWriter::StringArray(const std::vector<std::string>& items) {
  BeginArray();
  for (const auto& s : items) String(s);
  EndArray();
}

void JsonWriter::StringField(JsonKey key, std::string_view value) {
  Key(key);
  String(value);
}

void JsonWriter::OptionalString(JsonKey key, std::string_view value) {
  if (!value.empty()) StringField(key, value);
}

void JsonWriter::IntField(JsonKey key, long long value) {
  Key(key);
  Int(value);
}

void JsonWriter::BoolField(JsonKey key, bool value) {
  Key(key);
  Bool(value);
}

void JsonWriter::StringArrayField(JsonKey key, const std::vector<std::string>& items) {
  Key(key);
  StringArray(items);
}

void JsonWriter::StringPairsObject(const std::vector<std::pair<std::string, std::string>>& pairs) {
  BeginObject();
  for (size_t i = 0; i < pairs.size(); ++i) {
    const std::string& key = pairs[i].first;
    bool seen = false;
    for (size_t k = 0; k < i && !seen; ++k) seen = pairs[k].first == key;
    if (seen) continue;
    const std::string* value = &pairs[i].second;
    for (size_t k = i + 1; k < pairs.size(); ++k)
      if (pairs[k].first == key) value = &pairs[k].second;
    KeyText(key);
    String(*value);
  }
  EndObject();
}

namespace {

void PutLocation(JsonWriter& w, const Location& l) {
  if (!l.valid()) return;
  w.StringField("file", l.file);
  w.IntField("line", l.line);
}

void PutLocationObject(JsonWriter& w, JsonKey key, const Location& l) {
  if (!l.valid()) return;
  w.Key(key);
  w.BeginObject();
  PutLocation(w, l);
  w.EndObject();
}

void PutOptionalString(JsonWriter& w, JsonKey key, const std::optional<std::string>& v, bool keep_null) {
  if (!v && !keep_null) return;
  w.Key(key);
  if (v) w.String(*v);
  else w.Null();
}

// yaml_json.cc's NativeFunctionToJson less what says nothing here: the
// location when there is no line, and optional keys that are null, false or
// empty (an agent's context stays small).
void WriteYaml(JsonWriter& w, const NativeFunction& f) {
  w.BeginObject();
  w.StringField("name", f.name);
  if (f.line > 0) {
    w.StringField("file", kNativeFunctionsPath);
    w.IntField("line", f.line);
  }
  w.StringField("func", f.schema.text);
  w.StringArrayField("variants", f.variants);
  w.Key("dispatch");
  w.StringPairsObject(f.dispatch);
  w.BoolField("implicit_composite", f.implicit_composite);
  w.BoolField("structured", f.structured);
  PutOptionalString(w, "structured_delegate", f.structured_delegate, true);
  PutOptionalString(w, "structured_inherits", f.structured_inherits, false);
  if (!f.precomputed.empty()) {
    w.StringArrayField("precomputed", f.precomputed);
  }
  w.StringArrayField("autogen", f.autogen);
  PutOptionalString(w, "autogen_from", f.autogen_from, false);
  if (!f.ufunc_inner_loop.empty()) {
    w.Key("ufunc_inner_loop");
    w.StringPairsObject(f.ufunc_inner_loop);
  }
  w.StringArrayField("tags", f.tags);
  PutOptionalString(w, "python_module", f.python_module, true);
  PutOptionalString(w, "device_check", f.device_check, false);
  PutOptionalString(w, "device_guard", f.device_guard, false);
  PutOptionalString(w, "category_override", f.category_override, false);
  if (f.manual_kernel_registration) {
    w.BoolField("manual_kernel_registration", true);
  }
  if (f.manual_cpp_binding) {
    w.BoolField("manual_cpp_binding", true);
  }
  if (!f.other_keys.empty()) {
    w.Key("other_keys");
    w.StringPairsObject(f.other_keys);
  }
  w.EndObject();
}

// {inputs: formula}; a repeated inputs key keeps its first position and
// takes its last formula, as operator[] does.
void WriteFormulas(JsonWriter& w, const std::vector<DerivativeFormula>& formulas) {
  w.BeginObject();
  for (size_t i = 0; i < formulas.size(); ++i) {
    const std::string& key = formulas[i].inputs;
    bool seen = false;
    for (size_t k = 0; k < i && !seen; ++k) seen = formulas[k].inputs == key;
    if (seen) continue;
    const std::string* value = &formulas[i].formula;
    for (size_t k = i + 1; k < formulas.size(); ++k)
      if (formulas[k].inputs == key) value = &formulas[k].formula;
    w.KeyText(key);
    w.String(*value);
  }
  w.EndObject();
}

void WriteDerivatives(JsonWriter& w, const DerivativeEntry& d) {
  w.BeginObject();
  if (d.line > 0) {
    w.StringField("file", kDerivativesPath);
    w.IntField("line", d.line);
  }
  w.StringField("name", d.text);
  w.Key("formulas");
  WriteFormulas(w, d.formulas);
  PutOptionalString(w, "output_differentiability", d.output_differentiability, false);
  if (!d.dispatch_sections.empty()) {
    w.Key("dispatch");
    w.BeginObject();
    const auto& sections = d.dispatch_sections;
    for (size_t i = 0; i < sections.size(); ++i) {
      bool seen = false;
      for (size_t k = 0; k < i && !seen; ++k) seen = sections[k].first == sections[i].first;
      if (seen) continue;
      const std::vector<DerivativeFormula>* value = &sections[i].second;
      for (size_t k = i + 1; k < sections.size(); ++k)
        if (sections[k].first == sections[i].first) value = &sections[k].second;
      w.KeyText(sections[i].first);
      WriteFormulas(w, *value);
    }
    w.EndObject();
  }
  w.EndObject();
}

// "when": [{"condition", "negated"?, "kind", "file", "line"}], only when there are any.
void WriteConditions(JsonWriter& w, const std::vector<Condition>& when) {
  if (when.empty()) return;
  w.Key("when");
  w.BeginArray();
  for (const auto& c : when) {
    w.BeginObject();
    w.StringField("condition", c.text);
    if (c.negated) {
      w.BoolField("negated", true);
    }
    w.StringField("kind", Name(c.kind));
    PutLocation(w, c.where);
    w.EndObject();
  }
  w.EndArray();
}

void WriteImpl(JsonWriter& w, const ImplStep& i, bool with_details) {
  w.BeginObject();
  w.StringField("key", i.key);
  w.StringField("function", i.function);
  PutLocation(w, i.where);
  w.StringField("form", Name(i.form));
  if (with_details && !i.params.empty()) {
    w.StringField("params", i.params);
  }
  if (with_details && !i.dtypes.empty()) {
    w.StringArrayField("dtypes", i.dtypes);
  }
  w.OptionalString("ruled_out", i.ruled_out);
  w.EndObject();
}

// The aten ops an implementation calls, each where it is made.
void WriteOpCalls(JsonWriter& w, JsonKey key, const std::vector<OpCallStep>& calls) {
  w.Key(key);
  w.BeginArray();
  for (const auto& c : calls) {
    w.BeginObject();
    w.StringField("op", c.op);
    w.StringField("device", Name(c.device));
    PutLocation(w, c.where);
    w.OptionalString("from", c.from);
    w.OptionalString("how", c.how);
    w.EndObject();
  }
  w.EndArray();
}

void WriteOp(JsonWriter& w, const OpStep& op) {
  w.BeginObject();
  w.StringField("name", op.name);
  w.StringField("role", Name(op.role));
  w.OptionalString("reached_from", op.reached_from);
  if (!op.also_reached_from.empty()) w.StringArrayField("also_reached_from", op.also_reached_from);
  PutLocationObject(w, "called_at", op.called_at);
  w.IntField("depth", op.depth);
  w.Key("yaml");
  if (op.yaml) WriteYaml(w, *op.yaml);
  else w.Null();
  w.Key("impls");
  w.BeginArray();
  for (const auto& i : op.impls) WriteImpl(w, i, true);
  w.EndArray();
  if (!op.helpers.empty()) {
    w.Key("helpers");
    w.BeginArray();
    for (const auto& h : op.helpers) WriteImpl(w, h, false);
    w.EndArray();
  }
  w.Key("stubs");
  w.BeginArray();
  for (const auto& s : op.stubs) {
    w.BeginObject();
    w.StringField("name", s.name);
    PutLocationObject(w, "declared", s.declared);
    PutLocationObject(w, "defined", s.defined);
    w.OptionalString("called_from", s.called_from);
    PutLocationObject(w, "call_site", s.call_site);
    WriteConditions(w, s.when);
    if (!s.typical) w.BoolField("typical", false);
    if (s.undecided) w.BoolField("undecided", true);
    w.Key("registrations");
    w.BeginArray();
    for (const auto& r : s.registrations) {
      w.BeginObject();
      w.StringField("device", r.device);
      w.StringField("macro", r.macro);
      w.StringField("target", r.target);
      PutLocation(w, r.where);
      if (r.target_definition.valid()) {
        w.Key("definition");
        w.BeginObject();
        w.StringField("function", r.target);
        PutLocation(w, r.target_definition);
        w.EndObject();
      }
      w.EndObject();
    }
    w.EndArray();
    w.EndObject();
  }
  w.EndArray();
  w.Key("kernels");
  w.BeginArray();
  for (const auto& k : op.kernels) {
    w.BeginObject();
    w.StringField("name", k.name);
    w.StringField("device", Name(k.device));
    PutLocation(w, k.where);
    w.StringField("launch", Name(k.launch));
    w.OptionalString("launcher", k.launcher);
    PutLocationObject(w, "launch_site", k.launch_site);
    w.StringArrayField("path", k.path);
    WriteConditions(w, k.when);
    if (!k.typical) w.BoolField("typical", false);
    if (k.undecided) w.BoolField("undecided", true);
    if (k.path_runs > 1) w.IntField("path_runs", static_cast<long long>(k.path_runs));
    if (!k.runs_in.empty()) {
      w.Key("runs_in");
      w.BeginArray();
      for (const auto& g : k.runs_in) {
        w.BeginObject();
        w.StringField("name", g.name);
        PutLocation(w, g.where);
        w.EndObject();
      }
      w.EndArray();
    }
    if (!k.atomics.empty()) w.StringArrayField("atomics", k.atomics);
    if (!k.passed_atomics.empty()) {
      w.Key("passed_atomics");
      w.BeginArray();
      for (const auto& p : k.passed_atomics) {
        w.BeginObject();
        w.StringField("functor", p.functor);
        PutLocation(w, p.where);
        PutLocationObject(w, "passed", p.passed);
        w.OptionalString("stub", p.stub);
        w.StringArrayField("atomics", p.atomics);
        w.EndObject();
      }
      w.EndArray();
    }
    w.EndObject();
  }
  w.EndArray();
  w.Key("libraries");
  w.BeginArray();
  for (const auto& l : op.libraries) {
    w.BeginObject();
    w.StringField("name", l.name);
    PutLocation(w, l.where);
    w.StringArrayField("calls", l.calls);
    if (!l.path.empty()) {
      w.StringArrayField("path", l.path);
    }
    if (!l.typical) w.BoolField("typical", false);
    if (l.undecided) w.BoolField("undecided", true);
    w.EndObject();
  }
  w.EndArray();
  WriteOpCalls(w, "calls", op.calls);
  if (!op.other_device_calls.empty()) WriteOpCalls(w, "other_device_calls", op.other_device_calls);
  if (!op.notes.empty()) {
    w.StringArrayField("notes", op.notes);
  }
  if (!op.nondeterministic.empty()) {
    w.Key("nondeterministic");
    w.BeginArray();
    for (const auto& n : op.nondeterministic) {
      w.BeginObject();
      PutLocation(w, n.where);
      WriteConditions(w, n.when);
      w.EndObject();
    }
    w.EndArray();
  }
  WriteConditions(w, op.when);
  if (op.role == OpRole::kForward) {
    w.BoolField("typical", op.typical);
    if (op.undecided) {
      w.BoolField("undecided", true);
    }
  }
  w.EndObject();
}

void WriteSelection(JsonWriter& w, const SelectionStep& s) {
  w.BeginObject();
  w.StringField("function", s.function);
  PutLocation(w, s.where);
  w.StringField("op", s.op);
  w.Key("alternatives");
  w.BeginArray();
  for (const auto& a : s.alternatives) {
    w.BeginObject();
    w.StringField("op", a.op);
    w.StringField("condition", a.condition);
    PutLocation(w, a.where);
    w.BoolField("typical", a.typical);
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
}

void PutStep(JsonWriter& w, JsonKey key, const std::string& name, const Location& where) {
  w.Key(key);
  w.BeginObject();
  w.StringField("name", name);
  PutLocation(w, where);
  w.EndObject();
}

// One node of the summary's path: the op, what implements it on the device,
// the stub, kernels and libraries, and the condition that leads there.
void WritePathOp(JsonWriter& w, const Trace& t, const render_detail::MainPathOp& e) {
  const OpStep& op = t.ops[e.op];
  w.BeginObject();
  w.StringField("op", op.name);
  if (e.level) {
    w.IntField("level", e.level);
  }
  if (e.when) {
    w.StringField("when", e.when->Describe());
  }
  if (e.undecided) {
    w.BoolField("undecided", true);
  }
  if (e.impl) PutStep(w, "implementation", e.impl->function, e.impl->where);
  if (e.stub)
    PutStep(w, "stub", e.stub->name + " -> " + e.registration->target,
            e.registration->target_definition.valid() ? e.registration->target_definition : e.registration->where);
  if (!e.kernels.empty()) {
    w.Key("kernels");
    w.BeginArray();
    for (const KernelStep* k : e.kernels) {
      w.BeginObject();
      w.StringField("name", k->name);
      PutLocation(w, k->where);
      w.EndObject();
    }
    w.EndArray();
  }
  if (!e.libraries.empty()) {
    w.Key("libraries");
    std::vector<std::string> names;
    for (const LibraryStep* l : e.libraries) names.push_back(l->name);
    w.StringArray(names);
  }
  w.EndObject();
}

// What an agent reads first: the entry, the typical path on the traced
// device with its kernels and libraries, the functions that select among
// alternatives, and the backward ops on that path (render_main.cc).
void WriteSummary(JsonWriter& w, const Trace& t) {
  render_detail::MainPath m = render_detail::ComputeMainPath(t);
  w.Key("summary");
  w.BeginObject();
  w.StringField("entry", m.forward.empty() ? "" : t.ops[m.forward.front().op].name);
  w.StringField("device", m.device);
  w.StringArrayField("assumptions", t.assumptions);
  w.Key("path");
  w.BeginArray();
  for (const auto& e : m.forward) WritePathOp(w, t, e);
  w.EndArray();
  w.Key("selections");
  w.BeginArray();
  for (const auto& s : t.selections) {
    w.BeginObject();
    w.StringField("function", s.function);
    PutLocation(w, s.where);
    w.Key("alternatives");
    std::vector<std::string> alts;
    for (const auto& a : s.alternatives) alts.push_back(a.op + (a.typical ? " (typical) " : " ") + a.condition);
    w.StringArray(alts);
    w.EndObject();
  }
  w.EndArray();
  w.Key("backward");
  w.BeginObject();
  std::vector<std::string> entries;
  for (const BackwardStep* b : m.derivatives) entries.push_back(b->op);
  w.StringArrayField("derivatives", entries);
  w.Key("path");
  w.BeginArray();
  for (const auto& e : m.backward) WritePathOp(w, t, e);
  w.EndArray();
  w.EndObject();
  w.EndObject();
}

// The kernel name a profiler printed, resolved (trace.h KernelSource).
void WriteKernelSource(JsonWriter& w, const KernelSource& k) {
  w.Key("kernel_source");
  w.BeginObject();
  w.StringField("name", k.name);
  w.BoolField("truncated", k.truncated);
  w.StringField("kernel", k.kernel);
  PutLocationObject(w, "definition", k.definition);
  if (!k.payload.empty()) {
    w.StringField("payload", k.payload);
    w.StringField("payload_kind", Name(k.payload_kind));
    PutLocationObject(w, "payload_definition", k.payload_definition);
  }
  w.Key("arithmetic");
  w.BeginArray();
  for (const Location& l : k.arithmetic) {
    w.BeginObject();
    PutLocation(w, l);
    w.EndObject();
  }
  w.EndArray();
  w.OptionalString("dtype", k.dtype);
  if (!k.library.empty()) {
    w.StringField("library", k.library);
    w.StringField("library_reason", k.library_reason);
    w.Key("library_calls");
    w.BeginArray();
    for (const Location& l : k.library_calls) {
      w.BeginObject();
      PutLocation(w, l);
      w.EndObject();
    }
    w.EndArray();
  }
  w.StringArrayField("notes", k.notes);
  w.EndObject();
}

void WriteTrace(JsonWriter& w, const Trace& t) {
  w.BeginObject();
  w.StringField("schema", "optrace.trace/1");
  w.StringField("query", t.query);
  w.Key("source");
  w.BeginObject();
  w.StringField("root", t.source_root);
  w.StringField("version", t.source_version);
  w.Key("installed_torch");
  if (t.installed_torch) {
    w.String(*t.installed_torch);
  } else {
    w.Null();
  }
  w.OptionalString("warning", t.source_warning);
  w.EndObject();
  w.Key("target");
  w.BeginObject();
  w.StringField("kind", Name(t.target_kind));
  w.StringField("name", t.target_name);
  w.OptionalString("selected_overload", t.selected_overload);
  w.EndObject();
  if (t.kernel_source.valid()) WriteKernelSource(w, t.kernel_source);
  if (!t.ops.empty()) WriteSummary(w, t);
  w.Key("python");
  w.BeginArray();
  for (const auto& f : t.python) {
    w.BeginObject();
    w.StringField("symbol", f.symbol);
    PutLocation(w, f.where);
    w.Key("calls");
    w.BeginArray();
    for (const auto& c : f.calls) {
      w.BeginObject();
      w.StringField("callee", c.callee);
      if (c.line > 0) {
        w.IntField("line", c.line);
      }
      w.StringField("kind", Name(c.kind));
      w.OptionalString("resolved", c.resolved);
      WriteConditions(w, c.when);
      w.EndObject();
    }
    w.EndArray();
    w.OptionalString("bridge", f.bridge);
    w.OptionalString("note", f.note);
    w.EndObject();
  }
  w.EndArray();
  w.Key("ops");
  w.BeginArray();
  for (const auto& op : t.ops) WriteOp(w, op);
  w.EndArray();
  w.Key("backward");
  w.BeginArray();
  for (const auto& b : t.backward) {
    w.BeginObject();
    w.StringField("op", b.op);
    w.Key("derivatives");
    if (b.derivatives) WriteDerivatives(w, *b.derivatives);
    else w.Null();
    w.StringArrayField("ops", b.ops);
    if (!b.untaken.empty()) {
      w.StringArrayField("untaken", b.untaken);
    }
    if (!b.open.empty()) {
      w.StringArrayField("open", b.open);
    }
    if (b.below_autograd) w.BoolField("below_autograd", true);
    if (!b.helpers.empty()) {
      w.StringArrayField("calls", b.helpers);
    }
    w.OptionalString("note", b.note);
    w.EndObject();
  }
  w.EndArray();
  w.Key("decompositions");
  w.BeginArray();
  for (const auto& d : t.decompositions) {
    w.BeginObject();
    w.StringField("op", d.op);
    PutLocation(w, d.where);
    w.StringField("function", d.function);
    w.StringField("registry", d.registry);
    w.OptionalString("target", d.target);
    w.EndObject();
  }
  w.EndArray();
  if (!t.selections.empty()) {
    w.Key("selections");
    w.BeginArray();
    for (const auto& s : t.selections) WriteSelection(w, s);
    w.EndArray();
  }
  w.Key("not_found");
  w.BeginArray();
  for (const auto& n : t.not_found) {
    w.BeginObject();
    w.StringField("what", n.what);
    w.StringField("detail", n.detail);
    w.EndObject();
  }
  w.EndArray();
  w.StringArrayField("notes", t.notes);
  if (!t.suggestions.empty()) {
    w.StringArrayField("suggestions", t.suggestions);
  }
  w.EndObject();
}

}  // namespace

std::string RenderJson(const Trace& trace, int indent) {
  JsonWriter w(indent);
  WriteTrace(w, trace);
  return w.Take();
}

nlohmann::ordered_json DerivativesJson(const DerivativeEntry& d) {
  JsonWriter w(-1);
  WriteDerivatives(w, d);  // the same writer as backward[].derivatives
  return nlohmann::ordered_json::parse(w.Take());
}

}  // namespace optrace
