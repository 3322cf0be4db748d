// Byte-level helpers for the STDA image: little-endian fields and the 8-byte trailer.
#pragma once

#include <array>
#include <cstdint>

#include "common/byte_order.h"

namespace rastrace::stda::layout {

inline constexpr size_t kFirstField = 8;  // header: SYSTRACE, FIRST, LAST, NEXT
inline constexpr size_t kLastField = 10;
inline constexpr size_t kNextField = 12;
inline constexpr size_t kHeaderSize = 14;
inline constexpr size_t kTraceOnField = 0x0E;  // new format: TRACE ON and TRACE OFF stamps
inline constexpr size_t kTraceOffField = 0x16;
inline constexpr size_t kStampSize = 8;

// Trailer: flags:1 pid:2 minor:2 length:2 major:1.
struct Trailer {
  uint8_t flags = 0;
  uint16_t pid = 0;
  uint16_t minor = 0;
  uint16_t length = 0;
  uint8_t major = 0;
};

inline std::array<uint8_t, 8> EncodeTrailer(const Trailer& t) {
  std::array<uint8_t, 8> b{};
  b[0] = t.flags;
  Store<uint16_t>(&b[1], t.pid, ByteOrder::kLittle);
  Store<uint16_t>(&b[3], t.minor, ByteOrder::kLittle);
  Store<uint16_t>(&b[5], t.length, ByteOrder::kLittle);
  b[7] = t.major;
  return b;
}

inline Trailer DecodeTrailer(const uint8_t* b) {
  return {b[0], Load16(&b[1], ByteOrder::kLittle), Load16(&b[3], ByteOrder::kLittle),
          Load16(&b[5], ByteOrder::kLittle), b[7]};
}

}  // namespace rastrace::stda::layout
