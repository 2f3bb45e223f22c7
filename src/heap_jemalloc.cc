// jemalloc's answers to base/heap.h, linked into the optrace executable
// with Debian's libjemalloc.a (CMakeLists.txt): this object comes before
// liboptrace_base.a on the link line, so heap.cc's glibc versions are
// never linked, nor glibc's malloc, which malloc_trim and mallopt would
// pull in beside jemalloc's.
#include <jemalloc/jemalloc.h>

#include <string>

#include "base/heap.h"

namespace optrace {

// jemalloc keeps freed pages in its arenas and returns them as they age.
void KeepFreedBlocks() {}

// Every arena's unused dirty pages, purged now.
void ReturnFreedMemory() {
  const std::string purge = "arena." + std::to_string(MALLCTL_ARENAS_ALL) + ".purge";
  mallctl(purge.c_str(), nullptr, nullptr, nullptr, 0);
}

std::string_view HeapName() { return "jemalloc"; }

}  // namespace optrace
