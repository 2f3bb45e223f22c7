// glibc's malloc (heap.h). The optrace executable replaces these three
// with src/heap_jemalloc.cc's when it links jemalloc: that object is on its
// link line before this library, so the linker never takes this member.
#include "base/heap.h"

#include <malloc.h>

namespace optrace {

// A block just under 32 MiB comes from the heap, and the heap's top is
// trimmed only past 1 GiB: a full build took ~47k page faults with glibc's
// defaults, ~19k with these.
void KeepFreedBlocks() {
  ::mallopt(M_MMAP_THRESHOLD, 32 << 20);
  ::mallopt(M_TRIM_THRESHOLD, 1 << 30);
}

void ReturnFreedMemory() { ::malloc_trim(0); }

std::string_view HeapName() { return "glibc"; }

}  // namespace optrace
