// Where the real PyTorch trees of scripts/corpus.sh live, for tests and
// benchmarks alike (no GoogleTest here, so benchmarks can include it).
#pragma once

#include <cstdlib>
#include <string>

namespace optrace {

// Root of a real tree, e.g. CorpusTree("2.6.0"):
// ${OPTRACE_CORPUS:-$HOME/.cache/optrace-corpus}/pytorch-<version>.
inline std::string CorpusTree(const std::string& version) {
  const char* env = std::getenv("OPTRACE_CORPUS");
  const char* home = std::getenv("HOME");
  std::string base = env && *env ? env : std::string(home ? home : "/root") + "/.cache/optrace-corpus";
  return base + "/pytorch-" + version;
}

}  // namespace optrace
