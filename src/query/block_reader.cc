#include "query/block_reader.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace rastrace::query {

BlockReader::BlockReader(int fd, std::string name)
    : fd_(fd), name_(std::move(name)), blocks_(kBlocks) {}

Result<BlockReader::Block*> BlockReader::Load(uint64_t start) {
  Block* victim = &blocks_[0];
  for (Block& b : blocks_) {
    if (b.start == start) {
      b.used = ++clock_;
      return &b;
    }
    if (b.used < victim->used) victim = &b;
  }
  victim->bytes.resize(kBlockBytes);
  size_t got = 0;
  while (got < kBlockBytes) {
    const ssize_t n =
        pread(fd_, victim->bytes.data() + got, kBlockBytes - got, static_cast<off_t>(start + got));
    if (n < 0) {
      if (errno == EINTR) continue;
      victim->start = UINT64_MAX;
      return MakeError("{}: read error at offset {:#x}: {}", name_, start + got,
                       std::strerror(errno));
    }
    if (n == 0) break;
    got += static_cast<size_t>(n);
  }
  victim->start = start;
  victim->size = got;
  victim->used = ++clock_;
  return victim;
}

Result<std::span<const uint8_t>> BlockReader::ReadUpTo(uint64_t offset, size_t size) {
  const uint64_t first = offset / kBlockBytes * kBlockBytes;
  auto block = Load(first);
  if (!block) return block.error();
  const size_t at = static_cast<size_t>(offset - first);
  if (at >= (*block)->size) return std::span<const uint8_t>();
  if (at + size <= (*block)->size) {
    return std::span<const uint8_t>((*block)->bytes.data() + at, size);
  }
  if ((*block)->size < kBlockBytes) {
    // The file ends inside this block.
    return std::span<const uint8_t>((*block)->bytes.data() + at, (*block)->size - at);
  }
  // Across blocks: gather a copy.
  spanning_.clear();
  uint64_t position = offset;
  while (spanning_.size() < size) {
    const uint64_t start = position / kBlockBytes * kBlockBytes;
    auto next = Load(start);
    if (!next) return next.error();
    const size_t from = static_cast<size_t>(position - start);
    if (from >= (*next)->size) break;
    const size_t take = std::min(size - spanning_.size(), (*next)->size - from);
    spanning_.insert(spanning_.end(), (*next)->bytes.begin() + static_cast<std::ptrdiff_t>(from),
                     (*next)->bytes.begin() + static_cast<std::ptrdiff_t>(from + take));
    position += take;
    if ((*next)->size < kBlockBytes) break;
  }
  return std::span<const uint8_t>(spanning_);
}

Result<std::span<const uint8_t>> BlockReader::Read(uint64_t offset, size_t size) {
  auto bytes = ReadUpTo(offset, size);
  if (!bytes) return bytes;
  if (bytes->size() < size) {
    return MakeError(
        "{}: offset {:#x}: the file ended (need {} bytes, {} left); was it changed "
        "while being queried?",
        name_, offset, size, bytes->size());
  }
  return bytes;
}

}  // namespace rastrace::query
