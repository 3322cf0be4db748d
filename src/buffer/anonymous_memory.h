// Private anonymous memory for ring storage, mapped directly (not through malloc) so that a ring
// can be allocated or freed by the writer thread without taking the allocator's locks (a fork
// while another thread holds them deadlocks the child under some allocators), and so that grown
// rings cost nothing until the producer first writes to them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>

namespace rastrace::buffer {

// Faults every page of [address, address + bytes) in for writing now (MADV_POPULATE_WRITE, or one
// store per page on kernels before 5.14): for memory about to be written on a hot path. Works on
// shared mappings too; the contents are not changed.
void PopulateForWriting(void* address, size_t bytes);

class AnonymousMemory {
 public:
  enum class Touch : uint8_t {
    kNow,    // every page is faulted in here, so the first writes do not take page faults
    kOnUse,  // pages appear as they are first written (no memory used until then)
  };

  AnonymousMemory() = default;
  // `bytes` of zeroed memory, or an empty object when the kernel refuses the mapping.
  static AnonymousMemory Map(size_t bytes, Touch touch);
  AnonymousMemory(AnonymousMemory&& other) noexcept
      : words_(std::exchange(other.words_, nullptr)), bytes_(std::exchange(other.bytes_, 0)) {}
  AnonymousMemory& operator=(AnonymousMemory&& other) noexcept {
    if (this != &other) {
      Unmap();
      words_ = std::exchange(other.words_, nullptr);
      bytes_ = std::exchange(other.bytes_, 0);
    }
    return *this;
  }
  AnonymousMemory(const AnonymousMemory&) = delete;
  AnonymousMemory& operator=(const AnonymousMemory&) = delete;
  ~AnonymousMemory() { Unmap(); }

  uint64_t* words() const { return words_; }
  size_t bytes() const { return bytes_; }
  explicit operator bool() const { return words_ != nullptr; }

 private:
  void Unmap();

  uint64_t* words_ = nullptr;
  size_t bytes_ = 0;
};

}  // namespace rastrace::buffer
