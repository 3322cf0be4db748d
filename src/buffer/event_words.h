// Size arithmetic of 64-bit-layout events held in a ring as native 8-byte words (the hookword
// ffffllllhhhhssss is the first word of every event, so its size follows from that word alone).
#pragma once

#include <cstddef>
#include <cstdint>

#include "event/format.h"

namespace rastrace::buffer {

constexpr uint64_t MakeHookword(uint16_t flags, uint16_t length, uint32_t hkwd) {
  return (uint64_t{flags} << 48) | (uint64_t{length} << 32) | hkwd;
}

constexpr uint16_t FlagsOf(uint64_t hookword) {
  return static_cast<uint16_t>(hookword >> 48);
}
constexpr uint16_t LengthOf(uint64_t hookword) {
  return static_cast<uint16_t>(hookword >> 32);
}
constexpr uint16_t HookIdOf(uint64_t hookword) {
  return static_cast<uint16_t>(hookword >> 16);
}

// Words of the event whose first word is `hookword`: hookword, data words (4-byte words packed two
// to a word with B) or data word and padded buffer, thread id, timestamp when T.
constexpr size_t EventWords(uint64_t hookword) {
  const uint16_t flags = FlagsOf(hookword);
  const size_t length = LengthOf(hookword);
  size_t words = 2 + ((flags & event::kFlagTimestamp) ? 1 : 0);
  if (flags & event::kFlagGeneric) words += 1;
  return words + (length + 7) / 8;
}

// The hookword of the 00A/108 event a thread writes when it moves to another CPU. Not a traced
// event: it is never counted as lost (a marker that finds no room waits for the next hook).
inline constexpr uint64_t kCpuMarkerHookword =
    MakeHookword(0, 8, uint32_t{event::kHookUtil} << 16 | event::kUtilCpu);

constexpr size_t GenericEventWords(size_t buffer_bytes, bool timestamped) {
  return 3 + (timestamped ? 1 : 0) + (buffer_bytes + 7) / 8;
}

}  // namespace rastrace::buffer
