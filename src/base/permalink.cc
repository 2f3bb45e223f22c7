// Permalinks from the checkout's own version (why: permalink.h). Git metadata
// is read from the files, not by running git: a checkout's .git is a few
// small files, and the answer must not depend on a git binary being present.
#include "base/permalink.h"

#include <cctype>
#include <fstream>
#include <regex>
#include <sstream>

#include "base/bounded_regex.h"

namespace optrace {

namespace {

std::string ReadSmallFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return "";
  std::string text(4096, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<size_t>(in.gcount()));
  return text;
}

std::string Trim(std::string s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
  size_t start = 0;
  while (start < s.size() && std::isspace(static_cast<unsigned char>(s[start]))) ++start;
  return s.substr(start);
}

bool IsCommit(const std::string& s) {
  if (s.size() != 40) return false;
  for (char c : s)
    if (!std::isxdigit(static_cast<unsigned char>(c))) return false;
  return true;
}

// The commit a ref names in `git_dir`: its loose file, else packed-refs.
std::string ResolveRef(const std::string& git_dir, const std::string& ref) {
  if (ref.find("..") != std::string::npos) return "";
  std::string loose = Trim(ReadSmallFile(git_dir + "/" + ref));
  if (IsCommit(loose)) return loose;
  std::ifstream packed(git_dir + "/packed-refs");
  for (std::string line; std::getline(packed, line);) {
    if (line.size() > 41 && line[40] == ' ' && line.substr(41) == ref && IsCommit(line.substr(0, 40)))
      return line.substr(0, 40);
  }
  return "";
}

}  // namespace

std::string RefOfVersion(const std::string& version) {
  static const std::regex form(R"(^(\d+\.\d+\.\d+)(a0|rc(\d+))?(\+git([0-9a-f]{7,40}))?$)");
  std::smatch m;
  std::string v = Trim(version);
  if (!BoundedRegexMatch(v, &m, form)) return "";
  if (m[5].matched) return m[5].str();
  if (m[3].matched) return "v" + m[1].str() + "-rc" + m[3].str();
  return "v" + m[1].str();
}

std::string GitHeadCommit(const std::string& root) {
  std::string git_dir = root + "/.git";
  std::string dot_git = ReadSmallFile(git_dir);  // a worktree or submodule: "gitdir: PATH"
  if (dot_git.rfind("gitdir:", 0) == 0) {
    std::string target = Trim(dot_git.substr(7));
    git_dir = !target.empty() && target[0] == '/' ? target : root + "/" + target;
  }
  std::string head = Trim(ReadSmallFile(git_dir + "/HEAD"));
  if (IsCommit(head)) return head;
  if (head.rfind("ref:", 0) != 0) return "";
  std::string ref = Trim(head.substr(4));
  std::string commit = ResolveRef(git_dir, ref);
  if (commit.empty()) {  // a linked worktree keeps its branches in the common directory
    std::string common = Trim(ReadSmallFile(git_dir + "/commondir"));
    if (!common.empty()) commit = ResolveRef(common[0] == '/' ? common : git_dir + "/" + common, ref);
  }
  return commit;
}

std::string PermalinkBase(const std::string& root, const std::string& version) {
  std::string ref = root.empty() ? "" : GitHeadCommit(root);
  if (ref.empty()) ref = RefOfVersion(version);
  return ref.empty() ? "" : "https://github.com/pytorch/pytorch/blob/" + ref + "/";
}

std::string Permalink(const std::string& base, const std::string& file, int64_t line) {
  if (base.empty() || file.empty()) return "";
  return base + file + (line > 0 ? "#L" + std::to_string(line) : "");
}

void AddPermalinks(nlohmann::ordered_json* value, const std::string& base) {
  if (base.empty()) return;
  if (value->is_array()) {
    for (auto& item : *value) AddPermalinks(&item, base);
    return;
  }
  if (!value->is_object()) return;
  auto file = value->find("file");
  auto line = value->find("line");
  if (file != value->end() && file->is_string() && line != value->end() && line->is_number_integer() &&
      line->get<int64_t>() > 0 && !value->contains("url") && file->get_ref<const std::string&>()[0] != '/')
    (*value)["url"] = Permalink(base, file->get<std::string>(), line->get<int64_t>());
  for (auto& [key, item] : value->items())
    if (key != "url") AddPermalinks(&item, base);
}

}  // namespace optrace
