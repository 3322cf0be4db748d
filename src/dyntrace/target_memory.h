// Reading a traced process's memory without ever harming it: a read that faults is a status
// (seed 001), not a signal in the target.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <span>

namespace rastrace::dyntrace {

// Status byte of a data-record prefix (seed 001).
enum class ReadStatus : uint8_t { kOk = 0, kNotPresent = 1, kInvalidAddress = 2 };

class TargetMemory {
 public:
  virtual ~TargetMemory() = default;
  // Fills `out` from `address` entirely, or returns why it could not.
  virtual ReadStatus Read(uint64_t address, std::span<uint8_t> out) = 0;
  // Reads up to `out.size()` bytes stopping at (and excluding) the first NUL; `length` receives
  // the bytes before it. A string that becomes unreadable after its first byte ends there.
  ReadStatus ReadString(uint64_t address, std::span<uint8_t> out, size_t& length);
};

// Status of an address of process `pid` that could not be read, from its maps as they are now:
// inside a readable mapping (whose page could not be brought in, e.g. a file mapping beyond the
// end of its file) "not present"; anything else, or a process gone, "invalid".
ReadStatus ClassifyUnreadable(pid_t pid, uint64_t address);

// The memory of a live process through process_vm_readv. On a failed read the process's maps
// tell the two statuses apart: an address inside a readable mapping whose page could not be
// brought in (a file mapping beyond its end) is "not present"; anything else is "invalid".
class ProcessMemory : public TargetMemory {
 public:
  explicit ProcessMemory(pid_t pid) : pid_(pid) {}
  ReadStatus Read(uint64_t address, std::span<uint8_t> out) override;

 private:
  pid_t pid_;
};

}  // namespace rastrace::dyntrace
