#include "buffer/anonymous_memory.h"

#include <sys/mman.h>

#include <cstdint>

namespace rastrace::buffer {
namespace {

constexpr size_t kHugePage = size_t{2} << 20;
constexpr size_t kPage = 4096;

}  // namespace

void PopulateForWriting(void* address, size_t bytes) {
#ifdef MADV_POPULATE_WRITE
  if (madvise(address, bytes, MADV_POPULATE_WRITE) == 0) return;
#endif
  // An atomic add of zero writes every page without changing what another thread stored there.
  auto* at = static_cast<uint8_t*>(address);
  for (size_t offset = 0; offset < bytes; offset += kPage) {
    __atomic_fetch_add(at + offset, 0, __ATOMIC_RELAXED);
  }
}

AnonymousMemory AnonymousMemory::Map(size_t bytes, Touch touch) {
  AnonymousMemory memory;
  if (bytes == 0) return memory;
  // A region of a huge page or more is aligned to one and asks for huge pages (transparent huge
  // pages in `madvise` or `always` mode): a 4 MiB ring is then two TLB entries instead of 1024,
  // and a grown region first touched by the producer takes one fault per 2 MiB instead of 512.
  const bool huge = bytes >= kHugePage;
  const size_t mapped = huge ? bytes + kHugePage : bytes;
  void* address = mmap(nullptr, mapped, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (address == MAP_FAILED) return memory;
  auto* start = static_cast<uint8_t*>(address);
  if (huge) {
    auto* aligned = reinterpret_cast<uint8_t*>(
        (reinterpret_cast<uintptr_t>(start) + kHugePage - 1) & ~(kHugePage - 1));
    if (aligned != start) munmap(start, static_cast<size_t>(aligned - start));
    const size_t after = static_cast<size_t>(start + mapped - (aligned + bytes));
    if (after != 0) munmap(aligned + bytes, after);
    start = aligned;
    (void)madvise(start, bytes, MADV_HUGEPAGE);  // a kernel without THP just says no
  }
  if (touch == Touch::kNow) PopulateForWriting(start, bytes);
  memory.words_ = reinterpret_cast<uint64_t*>(start);
  memory.bytes_ = bytes;
  return memory;
}

void AnonymousMemory::Unmap() {
  if (words_ != nullptr) munmap(words_, bytes_);
  words_ = nullptr;
  bytes_ = 0;
}

}  // namespace rastrace::buffer
