#include "dyntrace/target_memory.h"

#include <sys/uio.h>

#include <algorithm>
#include <cstring>

#include "dyntrace/process_maps.h"

namespace rastrace::dyntrace {
namespace {

constexpr uint64_t kPageSize = 4096;

}  // namespace

ReadStatus TargetMemory::ReadString(uint64_t address, std::span<uint8_t> out, size_t& length) {
  length = 0;
  // Page by page, so a short string just before an unmapped page is still read.
  while (length < out.size()) {
    uint64_t at = address + length;
    size_t chunk = std::min<uint64_t>(out.size() - length, kPageSize - at % kPageSize);
    ReadStatus status = Read(at, out.subspan(length, chunk));
    if (status != ReadStatus::kOk) return length == 0 ? status : ReadStatus::kOk;
    const void* nul = std::memchr(out.data() + length, 0, chunk);
    if (nul != nullptr) {
      length = static_cast<const uint8_t*>(nul) - out.data();
      return ReadStatus::kOk;
    }
    length += chunk;
  }
  return ReadStatus::kOk;
}

ReadStatus ProcessMemory::Read(uint64_t address, std::span<uint8_t> out) {
  if (out.empty()) return ReadStatus::kOk;
  if (address + out.size() < address) return ReadStatus::kInvalidAddress;
  iovec local{out.data(), out.size()};
  iovec remote{reinterpret_cast<void*>(address), out.size()};
  ssize_t got = process_vm_readv(pid_, &local, 1, &remote, 1, 0);
  if (got == static_cast<ssize_t>(out.size())) return ReadStatus::kOk;
  uint64_t failed_at = address + (got > 0 ? static_cast<uint64_t>(got) : 0);
  return ClassifyUnreadable(pid_, failed_at);
}

ReadStatus ClassifyUnreadable(pid_t pid, uint64_t address) {
  auto maps = ReadMaps(pid);
  if (!maps) return ReadStatus::kInvalidAddress;
  const Mapping* mapping = FindMapping(*maps, address);
  if (mapping != nullptr && mapping->readable) return ReadStatus::kNotPresent;
  return ReadStatus::kInvalidAddress;
}

}  // namespace rastrace::dyntrace
