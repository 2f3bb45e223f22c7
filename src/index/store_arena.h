// The image arena: a stretch of virtual memory at a fixed address into which
// every `operator new` of one thread goes while an ArenaScope is open. The
// index store copies the finished indexes (plain std::string / std::vector /
// std::unordered_map objects) into an arena and writes the arena's bytes to
// disk; a later process of the same binary maps that file back at the same
// address and finds the objects ready to use, with every pointer valid --
// loading costs a few page faults instead of decoding ~500k records and
// rebuilding hash tables (see doc/index-format.md for the measurements).
//
// `operator delete` of a pointer inside any arena range is a no-op, so
// objects moved out of an image can be destroyed normally. Two fixed bases
// alternate, so an update can build a new image while the old one is mapped
// (and two more do the same for the small layers put over an image).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>

namespace optrace {

// The address ranges images live at. Far below where Linux places mmaps
// (near 0x7f..) and above a PIE binary's heap (0x55..-0x56..).
// Slots 0 and 1 hold index images, 2 and 3 the layers over them (store.h).
inline constexpr int kArenaSlots = 4;
inline constexpr uintptr_t kArenaBases[kArenaSlots] = {0x200000000000ull, 0x280000000000ull, 0x300000000000ull,
                                                       0x380000000000ull};
inline constexpr size_t kArenaSpan = 0x080000000000ull;  // 8 TiB of address space each; never committed
inline constexpr size_t kArenaPage = 4096;

// True when `p` lies in one of the arena ranges (mapped or not).
inline bool InArenaRange(const void* p) {
  return reinterpret_cast<uintptr_t>(p) - kArenaBases[0] < kArenaSlots * kArenaSpan;
}

// A writable arena being filled at a base: anonymous memory, in transparent
// huge pages where the kernel allows (the image is ~112 MiB: 56 faults of
// 2 MiB instead of ~28k of 4 KiB). Saving writes its bytes to the image file.
class Arena {
 public:
  // Reserves the range at kArenaBases[slot]. Returns nullptr (with *error)
  // when the range is taken in this process (an image already mapped there).
  static Arena* Create(int slot, std::string* error);
  uintptr_t base() const { return base_; }
  uint64_t serial() const { return serial_; }
  size_t used() const { return used_.load(); }
  // Thread-safe: each thread bump-allocates inside 1 MiB chunks it takes
  // from the arena (so threads building different indexes do not contend).
  void* Allocate(size_t bytes, size_t align);
  // Once bytes [offset, offset + length) of the arena (page-aligned) are
  // saved in `file` at kArenaPage + offset: maps them from the file instead,
  // privately (later writes stay in this process), giving their memory back.
  bool MapFromFile(int file, size_t offset, size_t length);

 private:
  Arena(uintptr_t base, size_t reserved);
  uintptr_t base_;
  size_t reserved_;
  // Takes [start, start + bytes) at the arena's end.
  uintptr_t Take(size_t bytes, size_t align);
  uint64_t serial_;  // unique per arena in this process (threads' chunks name it)
  std::atomic<size_t> used_{0};
};

// While alive, this thread's `operator new` allocates from `arena`.
// Threads must not be started inside a scope.
class ArenaScope {
 public:
  explicit ArenaScope(Arena* arena);
  ~ArenaScope();
  ArenaScope(const ArenaScope&) = delete;
  ArenaScope& operator=(const ArenaScope&) = delete;

 private:
  Arena* previous_;
};

// The arena slot (0 to kArenaSlots - 1) that `p` belongs to, or -1.
int ArenaSlotOf(const void* p);

// Records a mapping (an arena or a mapped image) for ReleaseArenaMemory.
void RememberArenaMapping(void* addr, size_t length);
// Unmaps every arena and image of this process. Only once nothing loaded
// from them is alive any more (tests; a server reloading its index).
void ReleaseArenaMemory();

// An identity of this executable's memory layout: the ELF build-id of the
// main program (or, without one, the path, size and mtime of /proc/self/exe),
// plus the compiler version. An image is only valid for the same identity.
const std::string& BinaryIdentity();

}  // namespace optrace
