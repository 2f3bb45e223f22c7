// UserFile: a user's Python file as the scan reads it -- the module
// ScanPyFile makes of it (module-level code as a "<module>" function), its
// lines, and what its names stand for: imports, its own classes, functions
// and methods (first of a name wins, as a walk from the top finds it), the
// layer a line binds to self, a function's header and assignments. Every
// lookup counts one step of work (ScanReport::work), so a test can hold the
// scan linear in the file's size.
#include "usescan/user_file.h"

#include <regex>

#include "base/bounded_regex.h"
#include "base/text.h"

namespace optrace {

UserFile::UserFile(std::string_view path, std::string_view text, uint64_t* work) : work_(work) {
  PyScanOptions options;
  options.module_code = true;  // a script's top-level statements run too
  mod_ = ScanPyFile(ModuleNameForPath(path), path, text, options);
  for (size_t c = 0; c < mod_.classes.size(); ++c) class_by_name_.emplace(mod_.classes[c].name, c);
  for (size_t f = 0; f < mod_.functions.size(); ++f) {
    const PyFunction& fn = mod_.functions[f];
    function_by_qualname_[fn.qualname].push_back(f);
    if (!fn.is_method) plain_function_by_qualname_.emplace(fn.qualname, f);
  }
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    lines_.push_back(text.substr(pos, end - pos));
    pos = end + 1;
  }
}

const std::vector<size_t>& UserFile::FunctionsNamed(const std::string& qualname) const {
  static const std::vector<size_t> kNone;
  auto it = function_by_qualname_.find(qualname);
  return it == function_by_qualname_.end() ? kNone : it->second;
}

// The dotted name an expression's first component stands for through the
// file's imports (and the function's own), or "" when it is no import.
std::string UserFile::ExpandImport(std::string_view expr, int32_t fn) const {
  size_t end = expr.find_first_of(".([");
  std::string_view head = expr.substr(0, end);
  std::string_view rest = end == std::string_view::npos ? "" : expr.substr(end);
  auto look = [&](const std::vector<PyImport>& imports) -> std::string {
    for (const PyImport& im : imports)
      if (im.local == head) return im.target + std::string(rest);
    return {};
  };
  if (fn >= 0) {
    std::string s = look(mod_.functions[fn].imports);
    if (!s.empty()) return s;
  }
  return look(mod_.imports);
}

// The file's first class named `name`, or -1.
int32_t UserFile::LocalClass(std::string_view name) const {
  ++*work_;
  auto it = class_by_name_.find(std::string(name));
  return it == class_by_name_.end() ? -1 : static_cast<int32_t>(it->second);
}

// The file's first function (not a method) with qualname `name`, or -1.
int32_t UserFile::LocalFunction(std::string_view name) const {
  ++*work_;
  auto it = plain_function_by_qualname_.find(std::string(name));
  return it == plain_function_by_qualname_.end() ? -1 : static_cast<int32_t>(it->second);
}

// A method of a local class or of the local classes it derives from.
int32_t UserFile::LocalMethod(uint32_t cls, std::string_view name, int depth) const {
  if (depth > kMaxLocalBaseDepth) return -1;
  for (uint32_t m : mod_.classes[cls].methods) {
    ++*work_;
    if (mod_.functions[m].name == name) return static_cast<int32_t>(m);
  }
  for (const std::string& b : mod_.classes[cls].bases) {
    int32_t base = LocalClass(b);
    if (base >= 0) {
      int32_t m = LocalMethod(static_cast<uint32_t>(base), name, depth + 1);
      if (m >= 0) return m;
    }
  }
  return -1;
}

// The line span of the bracket group opening at the first '(' after
// `callee` on `line`: where a container's children are written.
uint32_t UserFile::SpanEnd(uint32_t line, std::string_view callee) const {
  std::string_view l = Line(line);
  size_t at = l.find(callee);
  if (at == std::string_view::npos) return line;
  size_t open = l.find('(', at + callee.size());
  if (open == std::string_view::npos) return line;
  int depth = 0;
  for (uint32_t n = line; n <= lines_.size() && n < line + 2000; ++n) {
    std::string_view t = Line(n);
    size_t i = n == line ? open : 0;
    char quote = 0;
    for (; i < t.size(); ++i) {
      char ch = t[i];
      if (quote) {
        if (ch == quote) quote = 0;
        continue;
      }
      if (ch == '"' || ch == '\'') quote = ch;
      else if (ch == '#') break;
      else if (ch == '(' || ch == '[' || ch == '{') ++depth;
      else if (ch == ')' || ch == ']' || ch == '}') {
        if (--depth == 0) return n;
      }
    }
  }
  return line;
}

// "self.proj" bound on this line right before `callee`, else "".
std::string UserFile::BoundAttr(uint32_t line, std::string_view callee) const {
  std::string l(Line(line));
  size_t at = l.find(callee);
  if (at == std::string::npos) return {};
  static const std::regex re(R"(self\.(\w+)\s*(:[^=]*)?=\s*$)");
  std::smatch m;
  std::string before = l.substr(0, at);
  if (BoundedRegexSearch(before, &m, re)) return m[1];
  return {};
}

// Loop variables bound to a container: `for layer in self.layers:`.
std::map<std::string, std::string> UserFile::LoopBindings(uint32_t f) const {
  std::map<std::string, std::string> out;
  static const std::regex re(R"(for\s+(\w+)\s+in\s+self\.(\w+)\s*:)");
  const PyFunction& fn = mod_.functions[f];
  for (uint32_t n = fn.line; n <= fn.end_line && n <= lines_.size(); ++n) {
    std::string l(Line(n));
    std::smatch m;
    if (BoundedRegexSearch(l, &m, re)) out[m[1]] = m[2];
  }
  return out;
}

// The text of function f's def header (up to the line ending in ':').
std::string UserFile::Header(uint32_t f) const {
  const PyFunction& fn = mod_.functions[f];
  if (fn.qualname == kModuleCodeName || fn.name == "<lambda>") return {};
  std::string out;
  for (uint32_t n = fn.line; n <= fn.end_line && n < fn.line + 32; ++n) {
    ++*work_;
    std::string_view l = Line(n);
    out += std::string(l) + " ";
    size_t end = l.find_last_not_of(" \t\r");
    if (end != std::string_view::npos && l[end] == ':') break;
  }
  return out;
}

std::vector<Assignment> UserFile::AssignmentsOf(uint32_t f) const {
  const PyFunction& fn = mod_.functions[f];
  std::vector<Assignment> out;
  uint32_t first = fn.qualname == kModuleCodeName ? 1 : fn.line + 1;
  for (uint32_t n = first; n <= fn.end_line && n <= lines_.size(); ++n) {
    ++*work_;
    Assignment a;
    if (ParseAssignment(Line(n), &a)) out.push_back(std::move(a));
  }
  return out;
}

}  // namespace optrace
