// Size arithmetic shared by the encoder, the decoder and reformatting: the size of every event
// follows from its first word alone, so a reader never needs a template to step over one.
#pragma once

#include <cstddef>
#include <cstdint>

#include "event/format.h"

namespace rastrace::event {

constexpr size_t PadTo(size_t n, size_t alignment) {
  return (n + alignment - 1) / alignment * alignment;
}

// The largest event of either layout: a 64-bit generic event with a 65535-byte buffer, thread id
// and timestamp. Readers size their window from this.
inline constexpr size_t kMaxEventBytes = 8 + 8 + PadTo(0xFFFF, 8) + 8 + 8;

// Bytes after the 64-bit hookword and before the thread id, or 0 with *problem set when `len`
// cannot be right for `flags`.
inline size_t Body64(uint16_t flags, uint16_t len, const char** problem) {
  *problem = nullptr;
  if (flags & kFlagGeneric) return 8 + PadTo(len, 8);
  if (flags & kFlag32BitData) {
    if (len % 4 != 0 || len > 4 * kMaxDataWords) {
      *problem = "length of 4-byte data words must be a multiple of 4 and at most 20";
      return 0;
    }
    return PadTo(len, 8);
  }
  if (len % 8 != 0 || len > 8 * kMaxDataWords) {
    *problem = "length of data words must be a multiple of 8 and at most 40";
    return 0;
  }
  return len;
}

inline size_t Size64(uint16_t flags, size_t body) {
  return 8 + body + 8 + ((flags & kFlagTimestamp) ? 8 : 0);
}

// Bytes after the 32-bit hookword and before the thread id; false for a type outside
// {0,1,2,6} (| 8).
inline bool Body32(uint8_t type, uint16_t hook_data, size_t* body) {
  switch (type & 0x7) {
    case kType32Generic:
      *body = 4 + PadTo(hook_data, 4);
      return true;
    case kType32HookOnly:
      *body = 0;
      return true;
    case kType32OneWord:
      *body = 4;
      return true;
    case kType32FiveWords:
      *body = 4 * kMaxDataWords;
      return true;
    default:
      return false;
  }
}

inline size_t Size32(uint8_t type, size_t body) {
  return 4 + body + 4 + ((type & kType32TimestampBit) ? 4 : 0);
}

// Number of 32-bit data words a type carries (generic: 0).
inline unsigned WordCount32(uint8_t type) {
  switch (type & 0x7) {
    case kType32OneWord:
      return 1;
    case kType32FiveWords:
      return kMaxDataWords;
    default:
      return 0;
  }
}

// The 32-bit type for a non-generic event with `word_count` data words.
inline uint8_t Type32For(unsigned word_count, bool timestamped) {
  uint8_t type = word_count == 0   ? kType32HookOnly
                 : word_count == 1 ? kType32OneWord
                                   : kType32FiveWords;
  return timestamped ? static_cast<uint8_t>(type | kType32TimestampBit) : type;
}

}  // namespace rastrace::event
