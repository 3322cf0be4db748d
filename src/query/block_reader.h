// Reads byte ranges of a file through a few cached blocks (pread, never mmap): a file that is
// cut short while it is read gives an error, not SIGBUS, and memory stays at the cache's size
// whatever the file's. Sequential reads cost one pread per block.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "common/result.h"

namespace rastrace::query {

class BlockReader {
 public:
  // Reads the open descriptor `fd` (not owned); `name` is used in messages.
  BlockReader(int fd, std::string name);

  // The bytes [offset, offset + size), valid until the next call. Fails (naming the offset)
  // when the file holds fewer bytes or cannot be read.
  Result<std::span<const uint8_t>> Read(uint64_t offset, size_t size);
  // Forgets the cached blocks (the file grew).
  void Invalidate() {
    for (Block& b : blocks_) b.start = UINT64_MAX;
  }
  // Like Read, but gives what there is when the file ends first (possibly nothing).
  Result<std::span<const uint8_t>> ReadUpTo(uint64_t offset, size_t size);

 private:
  static constexpr size_t kBlockBytes = 64 * 1024;
  static constexpr size_t kBlocks = 8;
  struct Block {
    uint64_t start = UINT64_MAX;
    size_t size = 0;
    uint64_t used = 0;  // for LRU
    std::vector<uint8_t> bytes;
  };
  Result<Block*> Load(uint64_t start);

  int fd_;
  std::string name_;
  std::vector<Block> blocks_;
  uint64_t clock_ = 0;
  std::vector<uint8_t> spanning_;  // a range across blocks, copied
};

}  // namespace rastrace::query
