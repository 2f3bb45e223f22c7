// Which torch the user's Python would import, to warn when the checkout
// optrace reads is another release. The answer depends on the interpreter,
// so the interpreter is chosen the way the user's shell would run their
// code: $PYTHON, else the active virtualenv ($VIRTUAL_ENV) or conda env
// ($CONDA_PREFIX), else python3 on PATH.
//
// Python runs isolated (-I: no current directory, no PYTHON* variables on
// sys.path), so a csv.py or email/ in the directory where optrace runs is
// never executed; the user site-packages that -I drops is put back by path.
// Asking costs 40 ms to seconds (a pyenv shim), more than a warm trace, so
// the answer is cached per interpreter and stays valid while the interpreter
// and every site directory it searched keep their mtimes (a pip install or
// uninstall changes the directory holding the dist-info).
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace optrace {

struct PythonInterpreter {
  std::string path;      // absolute; "" when none was found
  std::string found_by;  // "$PYTHON", "$VIRTUAL_ENV", "$CONDA_PREFIX", "PATH"
};

struct InstalledTorch {
  PythonInterpreter python;
  std::optional<std::string> version;  // nullopt: no interpreter, or torch not installed in it
  std::string executable;              // sys.executable as the interpreter reports it
  std::vector<std::string> site_dirs;  // the directories searched for torch's metadata
};

// The interpreter, by the order above; .path is "" when none exists.
PythonInterpreter FindPythonInterpreter();

// Asks `python` (isolated) which torch it has, run `niceness` lower in
// priority than optrace. Never cached.
InstalledTorch AskInstalledTorch(const PythonInterpreter& python, int niceness = 0);

// AskInstalledTorch of FindPythonInterpreter(), remembered in cache_dir
// (one file per interpreter) while still valid, see the note above.
InstalledTorch CachedInstalledTorch(const std::string& cache_dir, int niceness = 0);

// The cache folder: $XDG_CACHE_HOME/optrace when that is absolute, else
// ~/.cache/optrace. The index store (index/store.h) lives there too.
std::string OptraceCacheDir();

}  // namespace optrace
