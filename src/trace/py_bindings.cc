// ReadHandBindings: see py_bindings.h. The text is first blanked of
// comments and literals (offsets and lines kept), so braces, parentheses
// and names found after that are code. A file is read once into a Source:
// its line starts, and the definitions of each name as first looked up
// (every table entry follows helpers that others follow too; searching the
// whole file again for each was most of a first trace's time).
#include "trace/py_bindings.h"

#include <algorithm>
#include <cctype>

#include "base/disk.h"
#include "base/text.h"

namespace optrace {
namespace {

constexpr int kMaxHelperDepth = 4;
constexpr const char* kTableFiles[] = {"tools/autograd/templates/python_variable_methods.cpp",
                                       "torch/csrc/autograd/python_variable.cpp"};

// Comments and string/char literals replaced by spaces (newlines kept).
std::string Blank(std::string_view text) {
  std::string out(text);
  for (size_t i = 0; i < out.size(); ++i) {
    char c = out[i];
    if (c == '/' && i + 1 < out.size() && out[i + 1] == '/') {
      while (i < out.size() && out[i] != '\n') out[i++] = ' ';
    } else if (c == '/' && i + 1 < out.size() && out[i + 1] == '*') {
      size_t end = out.find("*/", i + 2);
      end = end == std::string::npos ? out.size() : end + 2;
      for (; i < end; ++i)
        if (out[i] != '\n') out[i] = ' ';
      --i;
    } else if (c == '"' || c == '\'') {
      size_t j = i + 1;
      while (j < out.size() && out[j] != c && out[j] != '\n') j += out[j] == '\\' ? 2 : 1;
      for (size_t k = i + 1; k < j && k < out.size(); ++k) out[k] = ' ';
      i = std::min(j, out.size());
    }
  }
  return out;
}

// Index of the bracket closing the one at `open` in blanked code, or npos.
size_t Match(std::string_view code, size_t open) {
  const char o = code[open], c = o == '(' ? ')' : o == '{' ? '}' : o == '[' ? ']' : '>';
  int depth = 0;
  for (size_t i = open; i < code.size(); ++i) {
    if (code[i] == o) ++depth;
    else if (code[i] == c && --depth == 0) return i;
  }
  return std::string_view::npos;
}

size_t SkipSpace(std::string_view code, size_t i) {
  while (i < code.size() && std::isspace(static_cast<unsigned char>(code[i]))) ++i;
  return i;
}

// Bodies [open brace, close brace] of the definitions of `name`: a function
// (name at the start of a declaration line, a parameter list, then a body)
// or, for "struct X", the struct.
std::vector<std::pair<size_t, size_t>> Definitions(std::string_view code, std::string_view name) {
  std::vector<std::pair<size_t, size_t>> out;
  for (size_t at = code.find(name); at != std::string_view::npos; at = code.find(name, at + 1)) {
    if ((at > 0 && IsIdentChar(code[at - 1])) ||
        (at + name.size() < code.size() && IsIdentChar(code[at + name.size()])))
      continue;
    size_t line_start = code.rfind('\n', at);
    line_start = line_start == std::string_view::npos ? 0 : line_start + 1;
    std::string_view before = code.substr(line_start, at - line_start);
    if (before.empty() ? false : std::isspace(static_cast<unsigned char>(before[0]))) continue;
    if (before.find_first_of("=;(),.") != std::string_view::npos || before.find("return") != std::string_view::npos)
      continue;
    size_t i = SkipSpace(code, at + name.size());
    if (name.substr(0, 7) != "struct ") {
      if (i >= code.size() || code[i] != '(') continue;
      size_t close = Match(code, i);
      if (close == std::string_view::npos) continue;
      i = SkipSpace(code, close + 1);
      while (i < code.size() && IsIdentChar(code[i])) {  // const, noexcept, override
        while (i < code.size() && IsIdentChar(code[i])) ++i;
        i = SkipSpace(code, i);
      }
    } else {
      while (i < code.size() && code[i] != '{' && code[i] != ';') ++i;  // bases
    }
    if (i >= code.size() || code[i] != '{') continue;
    size_t end = Match(code, i);
    if (end != std::string_view::npos) out.emplace_back(i, end);
  }
  return out;
}

// One file's text, its blanked code, where its lines start and the
// definitions of the names looked up so far.
class Source {
 public:
  Source(std::string_view text, std::string file) : text_(text), code_(Blank(text)), file_(std::move(file)) {
    line_starts_.push_back(0);
    for (size_t i = 0; i < text_.size(); ++i)
      if (text_[i] == '\n') line_starts_.push_back(i + 1);
  }
  std::string_view code() const { return code_; }
  const std::string& file() const { return file_; }
  // The 1-based line of an offset.
  int LineAt(size_t offset) const {
    offset = std::min(offset, text_.size());
    return static_cast<int>(std::upper_bound(line_starts_.begin(), line_starts_.end(), offset) - line_starts_.begin());
  }
  const std::vector<std::pair<size_t, size_t>>& DefinitionsOf(const std::string& name) {
    auto it = definitions_.find(name);
    if (it == definitions_.end()) it = definitions_.emplace(name, Definitions(code_, name)).first;
    return it->second;
  }

 private:
  std::string_view text_;
  std::string code_;
  std::string file_;
  std::vector<size_t> line_starts_;
  std::map<std::string, std::vector<std::pair<size_t, size_t>>, std::less<>> definitions_;
};

bool IsKeyword(std::string_view w) {
  static const char* kWords[] = {"if",           "for",      "while",       "switch",           "return",
                                 "sizeof",       "catch",    "static_cast", "reinterpret_cast", "const_cast",
                                 "dynamic_cast", "decltype", "alignof"};
  return std::any_of(std::begin(kWords), std::end(kWords), [&](const char* k) { return w == k; });
}

void CollectCalls(Source& src, size_t b, size_t e, int depth, std::vector<std::string>* stack,
                  std::vector<HandBoundCall>* out);

// Follows a helper of the same text: every definition of it.
void FollowHelper(Source& src, const std::string& name, int depth, std::vector<std::string>* stack,
                  std::vector<HandBoundCall>* out) {
  if (depth > kMaxHelperDepth || std::count(stack->begin(), stack->end(), name)) return;
  stack->push_back(name);
  for (auto [b, e] : src.DefinitionsOf(name)) CollectCalls(src, b, e, depth + 1, stack, out);
  stack->pop_back();
}

void CollectCalls(Source& src, size_t b, size_t e, int depth, std::vector<std::string>* stack,
                  std::vector<HandBoundCall>* out) {
  const std::string_view code = src.code();
  for (size_t i = b; i < e; ++i) {
    if (!IsIdentChar(code[i]) || (i > 0 && IsIdentChar(code[i - 1])) ||
        std::isdigit(static_cast<unsigned char>(code[i])))
      continue;
    size_t j = i;
    while (j < e && IsIdentChar(code[j])) ++j;
    std::string_view word = code.substr(i, j - i);
    size_t k = SkipSpace(code, j);
    if (k < e && code[k] == '<') {  // a template argument list: name<...>(
      size_t close = Match(code, k);
      if (close != std::string_view::npos && close < e) k = SkipSpace(code, close + 1);
    }
    if (k >= e || code[k] != '(' || IsKeyword(word)) {
      i = j - 1;
      continue;
    }
    size_t p = i;
    while (p > b && std::isspace(static_cast<unsigned char>(code[p - 1]))) --p;
    bool method = (p > b && code[p - 1] == '.') || (p > b + 1 && code[p - 1] == '>' && code[p - 2] == '-');
    bool qualified = p > b + 1 && code[p - 1] == ':' && code[p - 2] == ':';
    std::string_view qualifier;
    if (qualified) {
      size_t q = p - 2;
      while (q > b && IsIdentChar(code[q - 1])) --q;
      qualifier = code.substr(q, p - 2 - q);
    }
    if (method || qualifier == "at") {
      out->push_back({std::string(word), method, src.LineAt(i), src.file()});
    } else if (qualified && !qualifier.empty()) {
      FollowHelper(src, "struct " + std::string(qualifier), depth, stack, out);  // T::fn of a struct
    } else if (!qualified) {
      FollowHelper(src, std::string(word), depth, stack, out);
    }
    i = j - 1;
  }
}

// The function an entry binds: the first name after the Python name that
// the file defines (casts and wrappers such as castPyCFunctionWithKeywords
// are not defined there). "X::getter" binds struct X.
std::string BoundFunction(Source& src, size_t b, size_t e, std::string* shown) {
  const std::string_view code = src.code();
  for (size_t i = b; i < e; ++i) {
    if (!IsIdentChar(code[i]) || (i > 0 && IsIdentChar(code[i - 1]))) continue;
    size_t j = i;
    while (j < e && (IsIdentChar(code[j]) || (code[j] == ':' && j + 1 < e && code[j + 1] == ':')))
      j += code[j] == ':' ? 2 : 1;
    std::string word(code.substr(i, j - i));
    size_t colons = word.find("::");
    std::string name = colons == std::string::npos ? word : "struct " + word.substr(0, colons);
    if (!src.DefinitionsOf(name).empty()) {
      *shown = word;
      return name;
    }
    i = j - 1;
  }
  return {};
}

// The entries of every PyMethodDef / PyGetSetDef table in the text.
void ReadTables(const std::string& file, std::string_view text, HandBindings* out) {
  Source src(text, file);
  const std::string_view code = src.code();
  for (const char* type : {"PyMethodDef", "PyGetSetDef"}) {
    const std::string kind = std::string_view(type) == "PyMethodDef" ? "method" : "property";
    for (size_t at = code.find(type); at != std::string::npos; at = code.find(type, at + 1)) {
      size_t eq = code.find('=', at), semi = code.find(';', at);
      if (eq == std::string::npos || semi < eq || code.substr(at, eq - at).find('[') == std::string::npos) continue;
      size_t open = code.find('{', eq);
      size_t close = open == std::string::npos ? open : Match(code, open);
      if (close == std::string::npos) continue;
      for (size_t entry = code.find('{', open + 1); entry != std::string::npos && entry < close;
           entry = code.find('{', entry + 1)) {
        size_t entry_end = Match(code, entry);
        if (entry_end == std::string::npos || entry_end > close) break;
        size_t quote = text.find('"', entry);
        if (quote == std::string::npos || quote > entry_end) continue;
        size_t quote_end = text.find('"', quote + 1);
        std::string name(text.substr(quote + 1, quote_end - quote - 1));
        HandBinding binding;
        binding.file = file;
        binding.line = src.LineAt(entry);
        binding.kind = kind;
        std::string function = BoundFunction(src, quote_end + 1, entry_end, &binding.function);
        if (!function.empty() && !out->count(name)) {
          std::vector<std::string> stack;
          FollowHelper(src, function, 0, &stack, &binding.calls);
          out->emplace(name, std::move(binding));
        }
        entry = entry_end;
      }
    }
  }
}

}  // namespace

std::vector<HandBoundCall> CallsOfDefinition(std::string_view text, const std::string& file,
                                             const std::string& function, int depth) {
  Source src(text, file);
  std::vector<HandBoundCall> out;
  std::vector<std::string> stack;
  FollowHelper(src, function, kMaxHelperDepth - depth, &stack, &out);
  return out;
}

HandBindings ReadHandBindings(const Disk& disk) {
  HandBindings out;
  for (const char* file : kTableFiles) {
    std::string text;
    if (disk.ReadFile(file, &text).ok()) ReadTables(file, text, &out);
  }
  return out;
}

}  // namespace optrace
