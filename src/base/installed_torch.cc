// The cache file of one interpreter holds, one per line: the key (the
// interpreter's path, plus the working directory and $PYENV_VERSION when the
// interpreter is a script such as a pyenv shim, whose choice depends on
// them), the torch version or "none", sys.executable, then "mtime path" for
// the interpreter, sys.executable and every site directory. It is valid while
// every one of those mtimes is unchanged; a script interpreter's answer also
// expires after five minutes (`pyenv global` edits a file optrace cannot
// know about).
#include "base/installed_torch.h"

#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "base/disk.h"
#include "base/subprocess.h"

namespace optrace {

namespace {

// Prints torch's version ("none" without it), sys.executable, then the
// directories it searched. distributions(path=...) reads metadata only: torch
// itself is never imported (seconds, and it may want a GPU driver).
const char kAskTorch[] = R"(import os, sys, site
p = [d for d in sys.path if d]
if sys.prefix == sys.base_prefix:
    u = site.getusersitepackages()
    s = [i for i, d in enumerate(p) if d.endswith(("site-packages", "dist-packages"))]
    if os.path.isdir(u): p.insert(s[0] if s else len(p), u)
import importlib.metadata as m
d = next(iter(m.distributions(name="torch", path=p)), None)
print(d.version if d else "none")
print(sys.executable)
for x in p:
    if os.path.isdir(x): print(x)
)";

std::string Env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

long long MtimeNs(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return -1;
  return static_cast<long long>(st.st_mtim.tv_sec) * 1000000000LL + st.st_mtim.tv_nsec;
}

// A "#!" script (a pyenv or asdf shim) picks the real interpreter itself.
bool IsScript(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  char magic[2] = {0, 0};
  in.read(magic, 2);
  return magic[0] == '#' && magic[1] == '!';
}

std::string CacheKey(const PythonInterpreter& python) {
  std::string key = python.path;
  if (IsScript(python.path)) {
    std::error_code ec;
    key += " cwd=" + std::filesystem::current_path(ec).string() + " PYENV_VERSION=" + Env("PYENV_VERSION");
  }
  return key;
}

std::string CacheFile(const std::string& cache_dir, const std::string& key) {
  std::ostringstream name;
  name << cache_dir << "/installed-torch-" << std::hex << std::hash<std::string>{}(key);
  return name.str();
}

// The files whose mtimes vouch for a cached answer.
std::vector<std::string> Witnesses(const InstalledTorch& t) {
  std::vector<std::string> w = {t.python.path};
  if (!t.executable.empty()) w.push_back(t.executable);
  w.insert(w.end(), t.site_dirs.begin(), t.site_dirs.end());
  return w;
}

// A cache file (and its folder) another user owns or may write is ignored:
// its answer would decide which release `fetch` clones and what every
// version check says (the index store's rule, base/disk.h OwnedBySelf).
bool Trusted(const std::string& file) {
  struct stat st;
  std::string why;
  std::string dir = file.substr(0, file.find_last_of('/'));
  return ::lstat(dir.c_str(), &st) == 0 && S_ISDIR(st.st_mode) && OwnedBySelf(st, dir, &why) &&
         ::lstat(file.c_str(), &st) == 0 && S_ISREG(st.st_mode) && OwnedBySelf(st, file, &why);
}

bool ReadCache(const std::string& file, const std::string& key, bool expires, InstalledTorch* t) {
  if (!Trusted(file)) return false;
  std::ifstream in(file);
  std::string line, version;
  if (!std::getline(in, line) || line != key || !std::getline(in, version) || !std::getline(in, t->executable))
    return false;
  if (expires) {
    struct stat st;
    auto now = std::chrono::system_clock::now().time_since_epoch();
    if (::stat(file.c_str(), &st) != 0 ||
        std::chrono::duration_cast<std::chrono::seconds>(now).count() - st.st_mtim.tv_sec >= 300)
      return false;
  }
  std::vector<std::string> dirs;
  while (std::getline(in, line)) {
    size_t space = line.find(' ');
    if (space == std::string::npos) return false;
    std::string path = line.substr(space + 1);
    if (std::to_string(MtimeNs(path)) != line.substr(0, space)) return false;
    dirs.push_back(path);
  }
  // The first witnesses are the interpreter and sys.executable.
  size_t skip = t->executable.empty() ? 1 : 2;
  if (dirs.size() < skip) return false;
  t->site_dirs.assign(dirs.begin() + static_cast<long>(skip), dirs.end());
  t->version = version == "none" ? std::nullopt : std::optional<std::string>(version);
  return true;
}

void WriteCache(const std::string& file, const std::string& key, const InstalledTorch& t) {
  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::path(file).parent_path(), ec);
  std::string tmp = file + ".tmp." + std::to_string(::getpid());
  {
    std::ofstream out(tmp);
    out << key << "\n" << t.version.value_or("none") << "\n" << t.executable << "\n";
    for (const std::string& w : Witnesses(t)) out << MtimeNs(w) << " " << w << "\n";
    if (!out.flush()) {
      std::filesystem::remove(tmp, ec);
      return;
    }
  }
  std::filesystem::rename(tmp, file, ec);
  if (ec) std::filesystem::remove(tmp, ec);
}

}  // namespace

PythonInterpreter FindPythonInterpreter() {
  if (std::string p = Env("PYTHON"); !p.empty()) return {FindOnPath(p), "$PYTHON"};
  for (const char* env : {"VIRTUAL_ENV", "CONDA_PREFIX"}) {
    std::string prefix = Env(env);
    if (prefix.empty()) continue;
    for (const char* name : {"/bin/python", "/bin/python3"})
      if (std::string p = FindOnPath(prefix + name); !p.empty()) return {p, std::string("$") + env};
  }
  return {FindOnPath("python3"), "PATH"};
}

InstalledTorch AskInstalledTorch(const PythonInterpreter& python, int niceness) {
  InstalledTorch t;
  t.python = python;
  if (python.path.empty()) return t;
  RunSettings settings;
  // Run where the user's own scripts (and `optrace verify`) run: a pyenv
  // shim picks the interpreter by the directory's .python-version. -I keeps
  // the directory off sys.path, so nothing there is imported.
  settings.timeout_s = 20;
  // Calls already queued when an MCP client hangs up still report the
  // installed torch: a wrong "not installed" would be a wrong fact.
  settings.stops_on_hangup = false;
  settings.niceness = niceness;
  RunResult r = RunProgram({python.path, "-I", "-c", kAskTorch}, settings);
  if (r.exit_code != 0) return t;
  std::istringstream lines(r.out);
  std::string version, line;
  if (!std::getline(lines, version) || !std::getline(lines, t.executable)) return t;
  while (std::getline(lines, line))
    if (!line.empty() && line[0] == '/') t.site_dirs.push_back(line);
  if (version != "none" && !version.empty()) t.version = version;
  return t;
}

InstalledTorch CachedInstalledTorch(const std::string& cache_dir, int niceness) {
  PythonInterpreter python = FindPythonInterpreter();
  if (python.path.empty()) return InstalledTorch{python, std::nullopt, "", {}};
  std::string key = CacheKey(python);
  std::string file = CacheFile(cache_dir, key);
  InstalledTorch cached;
  cached.python = python;
  if (ReadCache(file, key, IsScript(python.path), &cached)) return cached;
  InstalledTorch asked = AskInstalledTorch(python, niceness);
  // An interpreter that failed to answer (a timeout, a broken install) is
  // asked again next time rather than remembered as torch-less.
  if (!asked.executable.empty()) WriteCache(file, key, asked);
  return asked;
}

std::string OptraceCacheDir() {
  // A relative $XDG_CACHE_HOME is ignored, as the XDG spec says: it would put
  // the cache under whatever directory optrace runs in.
  std::string xdg = Env("XDG_CACHE_HOME");
  if (!xdg.empty() && xdg[0] == '/') return xdg + "/optrace";
  std::string home = Env("HOME");
  return (home.empty() ? std::string("/tmp") : home) + "/.cache/optrace";
}

}  // namespace optrace
