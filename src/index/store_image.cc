// The image and layer files: hashing, opening (every header field, the owner
// and the checksum of every byte checked before anything in it is used),
// mapping or copying at the fixed base, and writing a new file beside the old
// one and renaming it into place.
//
// Why every byte is verified on every load (format 4; format 3 hashed 49
// sampled pages): the image holds raw pointers, so one damaged page the
// sample missed gave a SIGSEGV on every later run, or silently missing ops.
// The check is CRC32C in hardware on three interleaved streams (~10 GB/s a
// core) over 16 MiB segments on up to 4 threads, each thread faulting in its
// own segment first (MADV_POPULATE_READ: one call maps a segment's pages,
// instead of a fault per 64 KiB): ~15-30 ms of CPU for the 112 MiB 2.6.0
// image on the 2-core VM (doc/benchmarks.md). It detects damage, not an
// attacker: the cache's owner is checked for that (OwnedBySelf).
//
// Long-lived processes (the daemon, the MCP server) ask for a copy instead of
// a mapping (ImageKind::copy): a private mapping of a file still shows
// changes made to the file in place until a page is written, so a `truncate`
// or `cp other.img` over the image crashed them (SIGBUS, SIGSEGV). Read into
// anonymous memory at the base, the index no longer depends on the file.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <dirent.h>

#include <cerrno>
#include <cstddef>
#include <cstdio>
#include <cstring>

#include "index/store_internal.h"

#if defined(__x86_64__)
#include <nmmintrin.h>
#endif

namespace optrace {
namespace store_internal {

namespace {

inline uint64_t Rotl(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }
constexpr uint64_t kMulA = 0x9E3779B97F4A7C15ull, kMulB = 0xC2B2AE3D27D4EB4Full;

constexpr char kMagic[8] = {'O', 'P', 'T', 'R', 'I', 'M', 'G', '\n'};
constexpr char kLayerMagic[8] = {'O', 'P', 'T', 'R', 'L', 'Y', 'R', '\n'};

uint64_t HeaderHash(const Header& h) { return Hash64(&h, offsetof(Header, header_hash), 7); }

#if defined(__x86_64__)
// Three CRC32C streams over 24-byte blocks: the instruction has a latency of
// three cycles and a throughput of one, so three independent streams keep
// the unit busy.
__attribute__((target("sse4.2"))) uint64_t Crc32cHash(const unsigned char* p, size_t n) {
  uint64_t a = 0, b = ~uint64_t{0}, c = kMulA;
  size_t i = 0;
  for (; i + 24 <= n; i += 24) {
    uint64_t x, y, z;
    std::memcpy(&x, p + i, 8);
    std::memcpy(&y, p + i + 8, 8);
    std::memcpy(&z, p + i + 16, 8);
    a = _mm_crc32_u64(a, x);
    b = _mm_crc32_u64(b, y);
    c = _mm_crc32_u64(c, z);
  }
  for (; i < n; ++i) a = _mm_crc32_u8(static_cast<uint32_t>(a), p[i]);
  return Hash64(&a, sizeof(a), (b << 32 | c) ^ n);
}
bool HaveCrc32c() {
  static const bool have = __builtin_cpu_supports("sse4.2");
  return have;
}
#else
uint64_t Crc32cHash(const unsigned char* p, size_t n) { return Hash64(p, n); }
bool HaveCrc32c() { return false; }
#endif

constexpr size_t kChecksumSegment = size_t{16} << 20;

// Maps the file's pages of [p, p + n) now, in one call (see the top).
void Populate(const unsigned char* p, size_t n) {
#ifdef MADV_POPULATE_READ
  uintptr_t begin = reinterpret_cast<uintptr_t>(p) & ~(kArenaPage - 1);
  ::madvise(reinterpret_cast<void*>(begin), reinterpret_cast<uintptr_t>(p) + n - begin, MADV_POPULATE_READ);
#else
  (void)p;
  (void)n;
#endif
}

// Reads [0, n) of the file at `offset` into `dest`; false on a short file.
bool ReadAll(int fd, unsigned char* dest, size_t n, off_t offset) {
  while (n > 0) {
    ssize_t r = ::pread(fd, dest, std::min<size_t>(n, size_t{64} << 20), offset);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    dest += r;
    n -= static_cast<size_t>(r);
    offset += r;
  }
  return true;
}

// The header's own checks: magic, checksum, version, identity, root, size,
// ranges. kOk or why not.
OpenResult CheckHeader(const Header& h, const struct stat& st, const std::string& root, ImageKind kind,
                       std::string* why) {
  if (std::memcmp(h.magic, kind.layer ? kLayerMagic : kMagic, sizeof(kMagic)) != 0) {
    *why = kind.layer ? "not an optrace index layer (bad magic)" : "not an optrace index (bad magic)";
    return OpenResult::kBroken;
  }
  if (HeaderHash(h) != h.header_hash) {
    *why = "header checksum mismatch";
    return OpenResult::kBroken;
  }
  if (h.format_version != kStoreFormatVersion || h.header_size != sizeof(Header)) {
    *why = "format version " + std::to_string(h.format_version) + ", this optrace writes " +
           std::to_string(kStoreFormatVersion);
    return OpenResult::kForeign;
  }
  if (h.identity_hash != Hash64(BinaryIdentity().data(), BinaryIdentity().size())) {
    *why = "written by another optrace build";
    return OpenResult::kForeign;
  }
  if (h.root_hash != Hash64(root.data(), root.size())) {
    *why = "belongs to another checkout";
    return OpenResult::kForeign;
  }
  if (static_cast<uint64_t>(st.st_size) != kArenaPage + h.image_bytes) {
    *why = "truncated (" + std::to_string(st.st_size) + " bytes, header says " +
           std::to_string(kArenaPage + h.image_bytes) + ")";
    return OpenResult::kBroken;
  }
  if (kind.layer && h.base_header_hash != kind.base_header_hash) {
    *why = "made for another image";
    return OpenResult::kForeign;
  }
  const int first_slot = kind.layer ? 2 : 0;
  if ((h.base != kArenaBases[first_slot] && h.base != kArenaBases[first_slot + 1]) || h.image_bytes == 0 ||
      h.image_bytes > kArenaSpan ||
      h.root_offset + (kind.layer ? sizeof(LayerRoot) : sizeof(ImageRoot)) > h.image_bytes) {
    *why = "header fields out of range";
    return OpenResult::kBroken;
  }
  return OpenResult::kOk;
}

// Puts the file's image at h.base: mapped privately, or (kind.copy) read
// into anonymous memory. Null when the range is taken or the read fails.
void* PlaceImage(int fd, const Header& h, size_t length, bool copy) {
  int flags = MAP_PRIVATE | MAP_FIXED_NOREPLACE | (copy ? MAP_ANONYMOUS : 0);
  void* addr = ::mmap(reinterpret_cast<void*>(h.base), length, PROT_READ | PROT_WRITE, flags, copy ? -1 : fd,
                      copy ? 0 : static_cast<off_t>(kArenaPage));
  if (addr == MAP_FAILED) return nullptr;
  if (reinterpret_cast<uintptr_t>(addr) != h.base) {
    ::munmap(addr, length);
    return nullptr;
  }
  if (copy) {
    ::madvise(addr, length, MADV_HUGEPAGE);
    if (!ReadAll(fd, static_cast<unsigned char*>(addr), h.image_bytes, static_cast<off_t>(kArenaPage))) {
      ::munmap(addr, length);
      return nullptr;
    }
  }
  return addr;
}

}  // namespace

uint64_t Hash64(const void* data, size_t n, uint64_t seed) {
  const unsigned char* p = static_cast<const unsigned char*>(data);
  uint64_t lane[4] = {seed + 1, seed + 2, seed + 3, seed + 4};
  size_t i = 0;
  for (; i + 32 <= n; i += 32) {
    uint64_t w[4];
    std::memcpy(w, p + i, 32);
    for (int k = 0; k < 4; ++k) lane[k] = Rotl(lane[k] + w[k] * kMulA, 31) * kMulB;
  }
  uint64_t h = lane[0] ^ Rotl(lane[1], 7) ^ Rotl(lane[2], 13) ^ Rotl(lane[3], 29) ^ (n * kMulA);
  for (; i < n; ++i) h = Rotl(h ^ (p[i] * kMulB), 23) * kMulA;
  h ^= h >> 33;
  h *= kMulB;
  h ^= h >> 29;
  return h;
}

uint64_t ImageChecksum(const unsigned char* image, size_t bytes) {
  const size_t segments = (bytes + kChecksumSegment - 1) / kChecksumSegment;
  std::vector<uint64_t> hashes(segments);
  const bool crc = HaveCrc32c();
  ParallelFor(segments, std::min(Threads(0), 4u), [&](size_t k) {
    const unsigned char* p = image + k * kChecksumSegment;
    const size_t n = std::min(kChecksumSegment, bytes - k * kChecksumSegment);
    Populate(p, n);
    hashes[k] = crc ? Crc32cHash(p, n) : Hash64(p, n);
  });
  return Hash64(hashes.data(), hashes.size() * sizeof(uint64_t), bytes ^ (crc ? 0 : kMulB));
}

FileIdentity IdentityOf(const struct stat& st) {
  return {true,
          st.st_dev,
          st.st_ino,
          st.st_size,
          static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec,
          static_cast<int64_t>(st.st_ctim.tv_sec) * 1000000000 + st.st_ctim.tv_nsec};
}

FileIdentity IdentifyPath(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 ? IdentityOf(st) : FileIdentity{};
}

void Unmap(Mapped* m) {
  if (m->addr) ::munmap(m->addr, m->length);
  *m = Mapped{};
}

OpenResult OpenImage(const std::string& path, const std::string& root, ImageKind kind, Mapped* out, std::string* why) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) {
    *why = errno == ENOENT ? "no index yet" : std::string("cannot open: ") + std::strerror(errno);
    return errno == ENOENT ? OpenResult::kMissing : OpenResult::kBroken;
  }
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  Header h;
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    *why = std::string("cannot stat: ") + std::strerror(errno);
    return OpenResult::kBroken;
  }
  out->file = IdentityOf(st);
  if (!OwnedBySelf(st, path, why)) return OpenResult::kNotOwned;
  if (!S_ISREG(st.st_mode) || ::pread(fd, &h, sizeof(h), 0) != static_cast<ssize_t>(sizeof(h))) {
    *why = "truncated (no complete header)";
    return OpenResult::kBroken;
  }
  if (OpenResult r = CheckHeader(h, st, root, kind, why); r != OpenResult::kOk) return r;
  size_t length = (h.image_bytes + kArenaPage - 1) / kArenaPage * kArenaPage;
  void* addr = PlaceImage(fd, h, length, kind.copy);
  if (!addr) {
    *why = "its address range is in use in this process";
    return OpenResult::kBusy;
  }
  if (ImageChecksum(static_cast<const unsigned char*>(addr), h.image_bytes) != h.full_hash) {
    ::munmap(addr, length);
    *why = "checksum mismatch (the file is damaged)";
    return OpenResult::kBroken;
  }
  out->addr = addr;
  out->length = length;
  out->header = h;
  if (kind.layer) out->layer = reinterpret_cast<LayerRoot*>(h.base + h.root_offset);
  else out->image = reinterpret_cast<ImageRoot*>(h.base + h.root_offset);
  return OpenResult::kOk;
}

// ---------------------------------------------------------------------------
// Writing.

namespace {

std::string DirOf(const std::string& path) { return path.substr(0, path.rfind('/')); }

// Removes temporaries left by killed writers (only the flock holder writes).
void RemoveStaleTemporaries(const std::string& path) {
  std::string dir = DirOf(path), prefix = path.substr(dir.size() + 1) + ".tmp.";
  DIR* d = ::opendir(dir.c_str());
  if (!d) return;
  while (struct dirent* e = ::readdir(d))
    if (std::strncmp(e->d_name, prefix.c_str(), prefix.size()) == 0) ::unlink((dir + "/" + e->d_name).c_str());
  ::closedir(d);
}

// pwrite until all of [data, data + n) is at `offset` in the file.
bool WriteAll(int fd, const void* data, size_t n, off_t offset) {
  const char* p = static_cast<const char*>(data);
  while (n > 0) {
    ssize_t w = ::pwrite(fd, p, n, offset);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      if (w == 0) errno = ENOSPC;
      return false;
    }
    p += w;
    n -= static_cast<size_t>(w);
    offset += w;
  }
  return true;
}

}  // namespace

ImageFile::~ImageFile() {
  if (fd >= 0) ::close(fd);
}

bool ImageFile::Open(const std::string& path) {
  RemoveStaleTemporaries(path);
  tmp = path + ".tmp." + std::to_string(::getpid());
  fd = ::open(tmp.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
  return fd >= 0;
}

void ImageFile::Discard() {
  if (fd >= 0) ::unlink(tmp.c_str());
}

// The image's bytes go to the temporary after the header page, then the
// header, then the temporary is renamed over the old image. (Renaming over a
// file makes ext4 start the new file's writeback first -- auto_da_alloc, the
// power-failure guarantee -- which costs ~180 ms for pages written through a
// shared mapping, ~60 ms for pages written with pwrite.)
//
// The bytes are written 4 MiB at a time, and (map_back) each piece, once in
// the page cache, replaces the arena's memory for it (Arena::MapFromFile):
// the memory given back is what the page cache takes for the next piece.
// Fresh memory is slow to touch the first time on this VM (~2 ms per MiB);
// the image then costs one copy of fresh memory in all instead of two.
Status WriteImage(const std::string& path, const std::string& root, Arena& arena, const void* root_object,
                  ImageKind kind, bool map_back, ImageFile& file, uint64_t* bytes) {
  Header h{};
  std::memcpy(h.magic, kind.layer ? kLayerMagic : kMagic, sizeof(kMagic));
  h.base_header_hash = kind.base_header_hash;
  h.format_version = kStoreFormatVersion;
  h.header_size = sizeof(Header);
  h.base = arena.base();
  h.image_bytes = arena.used();
  h.root_offset = reinterpret_cast<uintptr_t>(root_object) - arena.base();
  const std::string& id = BinaryIdentity();
  h.identity_hash = Hash64(id.data(), id.size());
  h.root_hash = Hash64(root.data(), root.size());
  const auto* image = reinterpret_cast<const unsigned char*>(arena.base());
  h.full_hash = ImageChecksum(image, h.image_bytes);
  std::snprintf(h.identity, sizeof(h.identity), "%s", id.c_str());
  std::snprintf(h.root, sizeof(h.root), "%s", root.c_str());
  h.header_hash = HeaderHash(h);
  std::vector<char> page(kArenaPage, 0);
  std::memcpy(page.data(), &h, sizeof(h));
  constexpr size_t kPiece = size_t{4} << 20;
  bool ok = true, mapped = map_back;
  for (size_t off = 0; ok && off < h.image_bytes; off += kPiece) {
    size_t n = std::min<size_t>(kPiece, h.image_bytes - off);
    ok = WriteAll(file.fd, image + off, n, static_cast<off_t>(kArenaPage + off));
    // A failed mapping leaves the rest in anonymous memory (the bytes are the same).
    if (ok && mapped) mapped = arena.MapFromFile(file.fd, off, (n + kArenaPage - 1) / kArenaPage * kArenaPage);
  }
  ok = ok && WriteAll(file.fd, page.data(), page.size(), 0) && ::rename(file.tmp.c_str(), path.c_str()) == 0;
  if (!ok) {
    int err = errno;
    file.Discard();
    return Status::SourceError("cannot write " + path + ": " + std::strerror(err));
  }
  *bytes = kArenaPage + h.image_bytes;
  return Status::Ok();
}

}  // namespace store_internal
}  // namespace optrace
