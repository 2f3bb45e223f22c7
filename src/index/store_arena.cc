// The image arena and the replaced global allocation functions. Outside an
// ArenaScope every allocation goes to malloc exactly as before; the only cost
// everywhere else is one thread-local load per `new` and one range compare per
// `delete`.
#include "index/store_arena.h"

#include <link.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <new>
#include <vector>

namespace optrace {

namespace {

thread_local Arena* t_arena = nullptr;

size_t RoundUp(size_t n, size_t to) { return (n + to - 1) / to * to; }

}  // namespace

Arena* Arena::Create(int slot, std::string* error) {
  uintptr_t base = kArenaBases[slot];
  // The arena object itself lives in ordinary memory; only what is allocated
  // inside a scope lands in the range. MAP_NORESERVE: pages are committed
  // only when written.
  void* p = ::mmap(reinterpret_cast<void*>(base), kArenaSpan, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);
  if (p == MAP_FAILED || reinterpret_cast<uintptr_t>(p) != base) {
    if (p != MAP_FAILED) ::munmap(p, kArenaSpan);  // an old kernel ignoring NOREPLACE put it elsewhere
    *error = std::string("cannot reserve the index arena: ") + std::strerror(errno);
    return nullptr;
  }
  // Huge pages: a full build writes ~112 MiB here, and 4 KiB faults cost
  // about as much as the merge itself. Only a hint (THP may be off).
  ::madvise(p, kArenaSpan, MADV_HUGEPAGE);
  RememberArenaMapping(p, kArenaSpan);
  return new Arena(base, kArenaSpan);
}

Arena::Arena(uintptr_t base, size_t reserved) : base_(base), reserved_(reserved) {
  static std::atomic<uint64_t> serials{0};
  serial_ = ++serials;
}

uintptr_t Arena::Take(size_t bytes, size_t align) {
  size_t start, end, cur = used_.load();
  do {
    start = RoundUp(cur, align);
    end = start + bytes;
    if (end > reserved_) throw std::bad_alloc();
  } while (!used_.compare_exchange_weak(cur, end));
  return base_ + start;
}

bool Arena::MapFromFile(int file, size_t offset, size_t length) {
  void* at = reinterpret_cast<void*>(base_ + offset);
  void* p = ::mmap(at, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_FIXED, file,
                   static_cast<off_t>(kArenaPage + offset));
  return p == at;
}

namespace {

// This thread's current chunk of an arena.
struct Chunk {
  uint64_t arena = 0;  // Arena::serial()
  uintptr_t next = 0, end = 0;
};
thread_local Chunk t_chunk;
constexpr size_t kChunk = size_t{1} << 20;

}  // namespace

void* Arena::Allocate(size_t bytes, size_t align) {
  align = std::max<size_t>(align, 16);
  bytes = bytes ? bytes : 1;
  if (bytes > kChunk / 4) return reinterpret_cast<void*>(Take(bytes, align));
  Chunk& c = t_chunk;
  uintptr_t start = RoundUp(c.next, align);
  if (c.arena != serial_ || start + bytes > c.end) {
    c.arena = serial_;
    c.next = Take(kChunk, kArenaPage);
    c.end = c.next + kChunk;
    start = c.next;
  }
  c.next = start + bytes;
  return reinterpret_cast<void*>(start);
}

ArenaScope::ArenaScope(Arena* arena) : previous_(t_arena) { t_arena = arena; }
ArenaScope::~ArenaScope() { t_arena = previous_; }

namespace {

struct Mapping {
  void* addr;
  size_t length;
};
std::mutex g_mappings_mu;
std::vector<Mapping> g_mappings;

}  // namespace

void RememberArenaMapping(void* addr, size_t length) {
  std::lock_guard<std::mutex> lock(g_mappings_mu);
  g_mappings.push_back({addr, length});
}

void ReleaseArenaMemory() {
  std::lock_guard<std::mutex> lock(g_mappings_mu);
  for (const Mapping& m : g_mappings) ::munmap(m.addr, m.length);
  g_mappings.clear();
}

int ArenaSlotOf(const void* p) {
  uintptr_t a = reinterpret_cast<uintptr_t>(p);
  for (int slot = 0; slot < kArenaSlots; ++slot)
    if (a - kArenaBases[slot] < kArenaSpan) return slot;
  return -1;
}

namespace {

struct BuildIdSearch {
  std::string id;
};

int FindBuildId(struct dl_phdr_info* info, size_t, void* data) {
  auto* search = static_cast<BuildIdSearch*>(data);
  // The first object reported is the main program.
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_NOTE) continue;
    const char* p = reinterpret_cast<const char*>(info->dlpi_addr + ph.p_vaddr);
    const char* end = p + ph.p_memsz;
    while (p + sizeof(ElfW(Nhdr)) <= end) {
      const auto* note = reinterpret_cast<const ElfW(Nhdr)*>(p);
      const char* name = p + sizeof(ElfW(Nhdr));
      const char* desc = name + RoundUp(note->n_namesz, 4);
      if (desc + note->n_descsz > end) break;
      if (note->n_type == NT_GNU_BUILD_ID && note->n_namesz == 4 && std::memcmp(name, "GNU", 4) == 0) {
        static const char kHex[] = "0123456789abcdef";
        for (uint32_t k = 0; k < note->n_descsz; ++k) {
          unsigned char c = static_cast<unsigned char>(desc[k]);
          search->id += kHex[c >> 4];
          search->id += kHex[c & 15];
        }
        return 1;
      }
      p = desc + RoundUp(note->n_descsz, 4);
    }
  }
  return 1;  // only the main program counts
}

}  // namespace

const std::string& BinaryIdentity() {
  static const std::string identity = [] {
    BuildIdSearch search;
    dl_iterate_phdr(FindBuildId, &search);
    std::string id = search.id.empty() ? "" : "build-id:" + search.id;
    if (id.empty()) {
      struct stat st;
      char path[4096];
      ssize_t n = ::readlink("/proc/self/exe", path, sizeof(path) - 1);
      if (n > 0 && ::stat("/proc/self/exe", &st) == 0) {
        id = "exe:" + std::string(path, static_cast<size_t>(n)) + ":" + std::to_string(st.st_size) + ":" +
             std::to_string(st.st_mtim.tv_sec) + "." + std::to_string(st.st_mtim.tv_nsec);
      } else {
        id = "unknown";
      }
    }
    return id + " " + __VERSION__;
  }();
  return identity;
}

}  // namespace optrace

// The replaceable global allocation functions ([new.delete]). Inside an
// ArenaScope they allocate from the arena; deleting arena memory does nothing
// (an image is released whole, by the process exiting). Outside, malloc.

namespace {

constexpr size_t kHugePage = size_t{2} << 20;

void* Allocate(size_t n, size_t align) {
  if (optrace::Arena* arena = optrace::t_arena) return arena->Allocate(n, align);
  if (n >= kHugePage && align <= kHugePage) {
    // A block of 2 MiB or more (the token vectors of a large file, a whole
    // YAML file): aligned to a huge page and advised for transparent huge
    // pages, so that touching it costs one fault per 2 MiB instead of 512.
    // (Such blocks made up ~40% of a full index build's page faults.)
    // aligned_alloc wants a size that is a multiple of the alignment (C11;
    // ASan aborts otherwise): the tail past n is never touched.
    void* p = std::aligned_alloc(kHugePage, (n + kHugePage - 1) / kHugePage * kHugePage);
    if (!p) throw std::bad_alloc();
    ::madvise(p, n / kHugePage * kHugePage, MADV_HUGEPAGE);
    return p;
  }
  void* p = align <= alignof(std::max_align_t) ? std::malloc(n ? n : 1)
                                               : std::aligned_alloc(align, (n + align - 1) / align * align);
  if (!p) throw std::bad_alloc();
  return p;
}

void Free(void* p) noexcept {
  if (!p || optrace::InArenaRange(p)) return;
  std::free(p);
}

}  // namespace

void* operator new(size_t n) { return Allocate(n, alignof(std::max_align_t)); }
void* operator new[](size_t n) { return Allocate(n, alignof(std::max_align_t)); }
void* operator new(size_t n, std::align_val_t a) { return Allocate(n, static_cast<size_t>(a)); }
void* operator new[](size_t n, std::align_val_t a) { return Allocate(n, static_cast<size_t>(a)); }
void* operator new(size_t n, const std::nothrow_t&) noexcept {
  try {
    return Allocate(n, alignof(std::max_align_t));
  } catch (...) {
    return nullptr;
  }
}
void* operator new[](size_t n, const std::nothrow_t&) noexcept {
  try {
    return Allocate(n, alignof(std::max_align_t));
  } catch (...) {
    return nullptr;
  }
}
void operator delete(void* p) noexcept { Free(p); }
void operator delete[](void* p) noexcept { Free(p); }
void operator delete(void* p, size_t) noexcept { Free(p); }
void operator delete[](void* p, size_t) noexcept { Free(p); }
void operator delete(void* p, std::align_val_t) noexcept { Free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { Free(p); }
void operator delete(void* p, size_t, std::align_val_t) noexcept { Free(p); }
void operator delete[](void* p, size_t, std::align_val_t) noexcept { Free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { Free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { Free(p); }
