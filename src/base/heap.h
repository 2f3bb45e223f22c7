// The process heap, asked for by what it is wanted for: the index build
// keeps freed blocks in the process while it scans and gives them back
// after (index/store_scan.cc). The optrace executable links jemalloc when
// the build finds Debian's libjemalloc.a (src/heap_jemalloc.cc answers
// then): a trace makes and frees many small strings and vectors, and
// `trace --all` ran ~12 % faster on it than on glibc's malloc. Everything
// else (tests, tools) uses glibc's malloc through heap.cc.
#pragma once

#include <string_view>

namespace optrace {

// Keeps freed blocks of up to 32 MiB in the process for its lifetime
// rather than returning each to the kernel (and faulting it in again for
// the next file); a no-op where the allocator does not work that way.
void KeepFreedBlocks();

// Gives the memory freed so far back to the system, now.
void ReturnFreedMemory();

// The allocator answering malloc: "glibc" or "jemalloc".
std::string_view HeapName();

}  // namespace optrace
