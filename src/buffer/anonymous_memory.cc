#include "buffer/anonymous_memory.h"

#include <sys/mman.h>

namespace rastrace::buffer {

AnonymousMemory AnonymousMemory::Map(size_t bytes, Touch touch) {
  AnonymousMemory memory;
  if (bytes == 0) return memory;
  const int populate = touch == Touch::kNow ? MAP_POPULATE : 0;
  void* address = mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | populate, -1, 0);
  if (address == MAP_FAILED) return memory;
  memory.words_ = static_cast<uint64_t*>(address);
  memory.bytes_ = bytes;
  return memory;
}

void AnonymousMemory::Unmap() {
  if (words_ != nullptr) munmap(words_, bytes_);
  words_ = nullptr;
  bytes_ = 0;
}

}  // namespace rastrace::buffer
