// Reading OpInfo/ModuleInfo entries with the Python tokenizer. An entry is a
// call of a capitalised name ending in "Info" (OpInfo, UnaryUfuncInfo,
// ReductionOpInfo, PythonRefInfo, ModuleInfo ...), never DecorateInfo or
// AliasInfo, and never the class statement that defines one. Its arguments
// are split at the call's own commas; DecorateInfo calls inside `skips` and
// `decorators` are split the same way. Functions named in an argument
// (sample_inputs_func=partial(sample_inputs_softmax_variant, ...)) are
// located by their `def` in the files read.
#include "verify/test_finder.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <set>

#include "base/text.h"
#include "index/index.h"
#include "index/query_names.h"
#include "py/py_tokenizer.h"

namespace optrace {

namespace {

constexpr const char* kMethodsFile = "torch/testing/_internal/common_methods_invocations.py";
constexpr const char* kDefinitionsDir = "torch/testing/_internal/opinfo/definitions";
constexpr const char* kModulesFile = "torch/testing/_internal/common_modules.py";
constexpr size_t kUseFilesShown = 15;

struct Source {
  std::string file, text;
  std::vector<PyToken> tokens;
  std::string_view Tok(size_t i) const { return tokens[i].text(text); }
};

Source Tokenize(std::string file, std::string text) {
  Source s{std::move(file), std::move(text), {}};
  PyTokenizer tokenizer(s.text);
  for (PyToken t = tokenizer.Next(); t.kind != PyTok::kEnd; t = tokenizer.Next()) {
    if (t.kind != PyTok::kNewline && t.kind != PyTok::kIndent && t.kind != PyTok::kDedent) s.tokens.push_back(t);
  }
  return s;
}

std::string Collapse(std::string_view text) {
  std::string out;
  bool space = false;
  for (char c : text) {
    if (c == ' ' || c == '\n' || c == '\t' || c == '\r') {
      space = !out.empty();
    } else {
      if (space && !(out.back() == '(' || out.back() == '[' || c == ')' || c == ']')) out += ' ';
      space = false;
      out += c;
    }
  }
  return out;
}

std::string Unquote(const std::string& s) {
  if (s.size() >= 2 && (s[0] == '\'' || s[0] == '"') && s.back() == s[0]) return s.substr(1, s.size() - 2);
  return s;
}

// The arguments of the call whose '(' is token `open`; *close gets its ')'.
std::vector<TestArg> CallArgs(const Source& s, size_t open, size_t* close) {
  std::vector<TestArg> args;
  int depth = 0;
  size_t start = open + 1;
  auto finish = [&](size_t end) {  // tokens [start, end)
    if (start >= end) return;
    TestArg a;
    size_t first = start;
    if (end - start >= 2 && s.tokens[start].kind == PyTok::kName && s.Tok(start + 1) == "=") {
      a.name = std::string(s.Tok(start));
      first = start + 2;
    }
    if (first >= end) return;
    size_t b = s.tokens[first].begin, e = s.tokens[end - 1].begin + s.tokens[end - 1].size;
    a.value = Collapse(std::string_view(s.text).substr(b, e - b));
    a.line = s.tokens[first].line;
    args.push_back(std::move(a));
  };
  size_t i = open;
  for (; i < s.tokens.size(); ++i) {
    if (s.tokens[i].kind != PyTok::kOp) continue;
    std::string_view t = s.Tok(i);
    if (t == "(" || t == "[" || t == "{") {
      ++depth;
    } else if (t == ")" || t == "]" || t == "}") {
      if (--depth == 0) break;
    } else if (t == "," && depth == 1) {
      finish(i);
      start = i + 1;
    }
  }
  finish(i);
  *close = i;
  return args;
}

bool IsEntryName(std::string_view name) {
  return name.size() > 4 && EndsWith(name, "Info") && std::isupper(static_cast<unsigned char>(name[0])) &&
         name != "DecorateInfo" && name != "AliasInfo";
}

const TestArg* Arg(const std::vector<TestArg>& args, std::string_view name) {
  for (const auto& a : args) {
    if (a.name == name) return &a;
  }
  return nullptr;
}

std::string Keyword(const std::vector<TestArg>& args, std::string_view name) {
  const TestArg* a = Arg(args, name);
  return a ? a->value : "";
}

TestDecoration Decoration(const Source& s, size_t open) {
  size_t close = 0;
  std::vector<TestArg> args = CallArgs(s, open, &close);
  TestDecoration d;
  size_t b = s.tokens[open - 1].begin, e = s.tokens[close].begin + 1;
  d.text = Collapse(std::string_view(s.text).substr(b, e - b));
  d.line = s.tokens[open - 1].line;
  std::vector<std::string> positional;
  for (const auto& a : args) {
    if (a.name.empty()) positional.push_back(a.value);
  }
  const std::string what = positional.empty() ? "" : positional[0];
  d.decorator = what;
  d.kind = what.find("toleranceOverride") != std::string::npos || what.find("precisionOverride") != std::string::npos
               ? "tolerance"
           : what.find("expectedFailure") != std::string::npos                                ? "expected failure"
           : what.find("skip") != std::string::npos || what.find("Skip") != std::string::npos ? "skip"
                                                                                              : "decorator";
  if (positional.size() > 1) d.test_class = Unquote(positional[1]);
  if (positional.size() > 2) d.test_name = Unquote(positional[2]);
  d.device_type = Unquote(Keyword(args, "device_type"));
  d.dtypes = Keyword(args, "dtypes");
  d.active_if = Keyword(args, "active_if");
  return d;
}

// The DecorateInfo calls of a variable that skips= or decorators= names
// (`decorators=rnn_gru_lstm_module_info_decorators`, a tuple defined once in
// common_modules.py): they hide expected failures per device that a kernel
// author must know of (issue 27), so they are read from its definition, in
// whichever database file holds it, and marked with the variable's name.
void ExpandDecorationNames(const std::vector<Source>& sources, TestEntry* e) {
  for (const auto& a : e->decoration_names) {
    if (!IsIdentifier(a.value)) continue;  // an expression (a + b, a call) stays as written
    bool found = false;
    for (const auto& s : sources) {
      for (size_t i = 0; !found && i + 2 < s.tokens.size(); ++i) {
        if (s.tokens[i].kind != PyTok::kName || s.Tok(i) != a.value || s.Tok(i + 1) != "=") continue;
        if (i > 0 && s.Tok(i - 1) == ".") continue;
        if (s.Tok(i + 2) != "(" && s.Tok(i + 2) != "[") continue;
        int depth = 0;
        size_t close = i + 2;
        for (; close < s.tokens.size(); ++close) {
          std::string_view t = s.Tok(close);
          if (s.tokens[close].kind != PyTok::kOp) continue;
          if (t == "(" || t == "[" || t == "{") ++depth;
          if ((t == ")" || t == "]" || t == "}") && --depth == 0) break;
        }
        for (size_t k = i + 3; k + 1 < close; ++k) {
          if (s.Tok(k) != "DecorateInfo" || s.Tok(k + 1) != "(") continue;
          TestDecoration d = Decoration(s, k + 1);
          d.via = a.value;
          d.file = s.file;
          e->decorations.push_back(std::move(d));
        }
        found = true;
      }
      if (found) break;
    }
  }
}

// DecorateInfo calls inside the tokens of `arg` (skips=, decorators=).
void Decorations(const Source& s, size_t open, size_t close, TestEntry* entry) {
  int depth = 0;
  std::string_view in;
  for (size_t i = open + 1; i < close; ++i) {
    std::string_view t = s.Tok(i);
    if (s.tokens[i].kind == PyTok::kOp && (t == "(" || t == "[" || t == "{")) ++depth;
    if (s.tokens[i].kind == PyTok::kOp && (t == ")" || t == "]" || t == "}")) --depth;
    if (depth == 0 && s.tokens[i].kind == PyTok::kName && i + 1 < close && s.Tok(i + 1) == "=") in = t;
    if ((in == "skips" || in == "decorators") && t == "DecorateInfo" && i + 1 < close && s.Tok(i + 1) == "(") {
      entry->decorations.push_back(Decoration(s, i + 1));
    }
  }
}

TestEntry Entry(const Source& s, size_t name_token) {
  TestEntry e;
  e.kind = std::string(s.Tok(name_token));
  e.file = s.file;
  e.line = s.tokens[name_token].line;
  size_t close = 0;
  e.args = CallArgs(s, name_token + 1, &close);
  if (!e.args.empty() && e.args[0].name.empty()) e.name = Unquote(e.args[0].value);
  if (e.name.empty()) e.name = Unquote(Keyword(e.args, "name"));
  e.variant = Unquote(Keyword(e.args, "variant_test_name"));
  Decorations(s, name_token + 1, close, &e);
  for (const auto& a : e.args) {
    if ((a.name == "skips" || a.name == "decorators") && a.value.find("DecorateInfo") == std::string::npos) {
      e.decoration_names.push_back(a);
    }
  }
  return e;
}

// The names a query may be filed under: F.softmax -> nn.functional.softmax.
std::vector<std::string> EntryNames(std::string query) {
  query = std::string(TrimView(query));
  if (StartsWith(query, "aten::")) query = std::string(OpBaseName(query));
  const std::pair<const char*, const char*> rewrites[] = {{"torch.nn.functional.", "nn.functional."},
                                                          {"F.", "nn.functional."},
                                                          {"torch.Tensor.", ""},
                                                          {"Tensor.", ""},
                                                          {"torch.ops.aten.", ""},
                                                          {"aten::", ""}};
  for (const auto& [prefix, repl] : rewrites) {
    if (StartsWith(query, prefix)) return {repl + query.substr(std::strlen(prefix))};
  }
  if (StartsWith(query, "torch.nn.") || StartsWith(query, "nn.")) {
    std::string rest = query.substr(query.find("nn.") + 3);
    return {"torch.nn." + rest, "nn." + rest};
  }
  if (StartsWith(query, "torch.")) return {query.substr(6)};
  return {query};
}

bool ListMatches(const std::string& value, const std::set<std::string>& names) {
  for (const auto& n : names) {
    if (value.find("'" + n + "'") != std::string::npos || value.find("\"" + n + "\"") != std::string::npos) return true;
  }
  return false;
}

std::string MatchedBy(const TestEntry& e, const std::set<std::string>& names, const std::set<std::string>& primaries) {
  if (names.count(e.name)) return "name";
  if (ListMatches(Keyword(e.args, "aliases"), names)) return "alias";
  if (names.count(Unquote(Keyword(e.args, "aten_name")))) return "aten_name";
  if (primaries.count(Unquote(Keyword(e.args, "torch_opinfo_name")))) return "torch_opinfo_name";
  return "";
}

void LocateFunctions(const std::map<std::string, std::pair<std::string, int>>& defs, TestEntry* e) {
  for (const auto& a : e->args) {
    if (a.name.empty() || !(EndsWith(a.name, "_func") || a.name == "ref" || a.name == "op" || EndsWith(a.name, "_ref")))
      continue;
    bool located = false;
    Source s = Tokenize("", a.value);
    for (size_t i = 0; i < s.tokens.size(); ++i) {
      if (s.tokens[i].kind != PyTok::kName) continue;
      auto def = defs.find(std::string(s.Tok(i)));
      if (def == defs.end()) continue;
      e->functions.push_back({a.name, def->first, def->second.first, def->second.second});
      located = true;
    }
    if (!located) e->functions.push_back({a.name, a.value, "", 0});
  }
}

void Dtypes(TestEntry* e) {
  if (e->kind == "ModuleInfo") {
    if (const TestArg* a = Arg(e->args, "dtypes")) e->dtypes.push_back("every device: " + a->value);
    return;
  }
  const TestArg* cpu = Arg(e->args, "dtypes");
  e->dtypes.push_back("cpu: " + (cpu ? cpu->value : std::string("(OpInfo default)")));
  for (const char* device : {"CUDA", "ROCM", "Hpu", "XPU"}) {
    if (const TestArg* a = Arg(e->args, std::string("dtypesIf") + device)) {
      e->dtypes.push_back(Lower(device) + ": " + a->value);
    } else if (std::string(device) == "CUDA") {
      e->dtypes.push_back("cuda: same as cpu (no dtypesIfCUDA)");
    }
  }
}

// Files that test the test harness itself (OpInfo/ModuleInfo machinery run
// on toy entries), not any op: never a test of the query.
bool HarnessOnly(const std::string& file) { return file == "test/test_testing.py"; }

// A needle found at `at` of `line` as a whole name: no name character
// before one that starts with a name, none after one that ends with one.
bool WholeName(std::string_view line, size_t at, const std::string& needle) {
  auto name_char = IsIdentChar;
  if (at > 0 && name_char(needle[0]) && name_char(line[at - 1])) return false;
  size_t end = at + needle.size();
  return !(end < line.size() && name_char(needle.back()) && name_char(line[end]));
}

struct Def {
  size_t indent;
  std::string name;
};

// The test a line belongs to: the outermost enclosing `def test_*` (a
// nested helper's lines count for their test), else "" with *helper the
// outermost enclosing function (a method such as _test_RNN_cpu_vs_cudnn).
std::string OwnerTest(const std::vector<Def>& stack, std::string* helper) {
  for (const auto& d : stack)
    if (StartsWith(d.name, "test_")) return d.name;
  if (helper && !stack.empty()) *helper = stack.front().name;
  return "";
}

// Walks a file line by line with the stack of enclosing defs.
template <class OnLine>
void WalkDefs(const std::string& text, OnLine on_line) {
  std::vector<Def> stack;
  int line = 0;
  for (size_t pos = 0; pos < text.size(); ++line) {
    size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    std::string_view l(text.data() + pos, end - pos);
    pos = end + 1;
    std::string_view t = TrimView(l);
    if (t.empty() || t[0] == '#') continue;
    size_t indent = l.find_first_not_of(" \t");
    while (!stack.empty() && indent <= stack.back().indent) stack.pop_back();
    bool def = StartsWith(t, "def ") || StartsWith(t, "async def ");
    if (def) {
      std::string_view rest = t.substr(t.find("def ") + 4);
      stack.push_back({indent, std::string(rest.substr(0, rest.find('(')))});
    }
    on_line(l, line + 1, stack, def);
  }
}

// Files under test/ whose lines hold a needle as a whole name, with the
// tests around the matches: the test functions holding them, and the tests
// calling a helper that holds them. Tests named after the query (`prefer`:
// test_LSTM_grad_and_gradgrad for LSTM) come first.
std::vector<TestFileUse> Uses(const Disk& disk, const std::vector<std::string>& test_files,
                              const std::vector<std::string>& needles, bool decorated_test, const std::string& prefer,
                              size_t max_tests) {
  std::vector<TestFileUse> out;
  for (const auto& file : test_files) {
    if (HarnessOnly(file)) continue;
    std::string text;
    // The index's cap: one planted 1.5 GB test file must not cost seconds and
    // its size in memory.
    FileStat stat;
    if (!disk.Stat(file, &stat).ok() || stat.size > kMaxSourceFileBytes) continue;
    if (!disk.ReadFile(file, &text).ok() || text.size() > kMaxSourceFileBytes) continue;
    bool any = false;
    for (const auto& n : needles) any |= text.find(n) != std::string::npos;
    if (!any) continue;
    TestFileUse use{file, 0, 0, {}};
    std::vector<std::string> tests;
    std::set<std::string> helpers;
    bool pending = false;
    auto add = [&](const std::string& t) {
      if (!t.empty() && std::find(tests.begin(), tests.end(), t) == tests.end()) tests.push_back(t);
    };
    WalkDefs(text, [&](std::string_view l, int line, const std::vector<Def>& stack, bool def) {
      if (def && pending) {
        add(stack.back().name);
        pending = false;
      }
      bool hit = false;
      for (const auto& n : needles)
        for (size_t at = l.find(n); !hit && at != std::string_view::npos; at = l.find(n, at + 1))
          hit = WholeName(l, at, n);
      if (!hit) return;
      if (!use.uses) use.first_line = line;
      ++use.uses;
      if (decorated_test) {
        pending = true;
        return;
      }
      std::string helper;
      add(OwnerTest(stack, &helper));
      if (!helper.empty()) helpers.insert(helper);
    });
    if (!helpers.empty()) {
      WalkDefs(text, [&](std::string_view l, int, const std::vector<Def>& stack, bool) {
        for (const auto& h : helpers)
          if (l.find(h + "(") != std::string_view::npos && !(stack.size() && stack.front().name == h))
            add(OwnerTest(stack, nullptr));
      });
    }
    std::string lower_prefer = Lower(prefer);
    std::stable_partition(tests.begin(), tests.end(), [&](const std::string& t) {
      return !lower_prefer.empty() && Lower(t).find(lower_prefer) != std::string::npos;
    });
    if (tests.size() > max_tests) tests.resize(max_tests);
    use.tests = std::move(tests);
    if (use.uses) out.push_back(std::move(use));
  }
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.uses > b.uses; });
  return out;
}

std::vector<Source> DatabaseSources(const Disk& disk) {
  std::vector<std::string> files = {kMethodsFile, kModulesFile};
  std::vector<SkippedPath> skipped;
  disk.ListFiles(
      kDefinitionsDir, [](std::string_view p) { return EndsWith(p, ".py"); }, &files, &skipped);
  std::vector<Source> out;
  for (const auto& f : files) {
    std::string text;
    if (disk.ReadFile(f, &text).ok()) out.push_back(Tokenize(f, std::move(text)));
  }
  return out;
}

}  // namespace

Status FindTests(const Disk& disk, const std::string& query, TestsAnswer* out) {
  out->query = query;
  out->names_tried = EntryNames(query);
  // '', 'torch.', 'aten::', 'Tensor.': no name is left to look for, and an
  // empty needle would match every entry (a did-you-mean, not 1,050 entries).
  for (const std::string& n : out->names_tried) {
    if (n.empty() || n.back() == '.' || n.back() == ':') {
      return Status::NotFound("'" + EscapeControl(query) +
                              "' names no op or module (nothing follows the prefix); did you mean a full name such "
                              "as F.softmax, torch.matmul, nn.LSTM or aten::_softmax?");
    }
  }
  std::set<std::string> names(out->names_tried.begin(), out->names_tried.end());
  std::vector<Source> sources = DatabaseSources(disk);
  if (sources.empty()) return Status::SourceError(std::string("no ") + kMethodsFile + " in the checkout");
  std::map<std::string, std::pair<std::string, int>> defs;
  std::vector<TestEntry> all;
  for (const auto& s : sources) {
    for (size_t i = 0; i + 1 < s.tokens.size(); ++i) {
      if (s.tokens[i].kind != PyTok::kName) continue;
      std::string_view t = s.Tok(i);
      bool after_keyword = i > 0 && (s.Tok(i - 1) == "class" || s.Tok(i - 1) == "def");
      if (t == "def" && s.tokens[i + 1].kind == PyTok::kName)
        defs.emplace(std::string(s.Tok(i + 1)), std::make_pair(s.file, s.tokens[i + 1].line));
      if (IsEntryName(t) && !after_keyword && s.Tok(i + 1) == "(") all.push_back(Entry(s, i));
    }
  }
  std::set<std::string> primaries;
  for (auto& e : all) {
    e.matched_by = MatchedBy(e, names, {});
    if (!e.matched_by.empty()) primaries.insert(e.name);
  }
  for (auto& e : all) {
    if (e.matched_by.empty()) e.matched_by = MatchedBy(e, names, primaries);
    if (e.matched_by.empty()) continue;
    LocateFunctions(defs, &e);
    Dtypes(&e);
    ExpandDecorationNames(sources, &e);
    out->entries.push_back(std::move(e));
  }
  if (out->entries.empty()) {
    return Status::NotFound("no OpInfo or ModuleInfo entry for " + query + " (looked for " +
                            [&] {
                              std::string s;
                              for (auto& n : out->names_tried) s += (s.empty() ? "" : ", ") + n;
                              return s;
                            }() +
                            " in " + kMethodsFile + ", " + kDefinitionsDir + "/*.py, " + kModulesFile + ")");
  }
  std::vector<std::string> test_files;
  std::vector<SkippedPath> skipped;
  disk.ListFiles(
      "test", [](std::string_view p) { return EndsWith(p, ".py"); }, &test_files, &skipped);
  bool module = out->entries[0].kind == "ModuleInfo";
  out->database_tests = Uses(disk, test_files, {module ? "@modules(module_db" : "@ops(op_db"}, true, "", 8);
  std::string last = out->names_tried[0].substr(out->names_tried[0].rfind('.') + 1);
  // A module by its class wherever it is named (`for module in (nn.GRU, nn.LSTM)`,
  // `isinstance(rnn, nn.LSTM)`), an op by its calls.
  std::vector<std::string> needles =
      module ? std::vector<std::string>{"nn." + last} : std::vector<std::string>{"." + last + "("};
  out->direct_uses = Uses(disk, test_files, needles, false, last, 24);
  if (out->direct_uses.size() > kUseFilesShown) out->direct_uses.resize(kUseFilesShown);
  return Status::Ok();
}

Status FindTestsOrSuggest(const Index& index, const std::string& query, TestsAnswer* out) {
  Status s = FindTests(*index.disk, query, out);
  if (s.code() != ExitCode::kNotFound || s.message().find("did you mean") != std::string::npos) return s;
  out->suggestions = SuggestQueries(index, query, 5);
  if (out->suggestions.empty()) return s;
  return Status::NotFound(s.message() + "; did you mean: " + Join(out->suggestions, ", "));
}

}  // namespace optrace
