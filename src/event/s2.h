// S2 strings, the strings of generic buffers (docs/log-format.md): a 2-byte length in the log's
// byte order, then that many bytes, without a terminating NUL.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "common/byte_order.h"

namespace rastrace::event {

// The most bytes an S2 string can hold.
inline constexpr size_t kS2MaxLength = 0xFFFF;

// The offset just past the S2 string at `at` (all the bytes its length counts, NULs included):
// where the data after a string starts. nullopt when the string does not fit, as for ReadS2.
// Inline, as ReadS2: the loaders call them up to three times per system call event.
inline std::optional<size_t> S2End(std::span<const uint8_t> bytes, size_t at, ByteOrder order) {
  // Subtractions only: `at` may be any value a buffer's content claims.
  if (at > bytes.size() || bytes.size() - at < 2) return std::nullopt;
  const size_t length = Load16(bytes.data() + at, order);
  if (bytes.size() - at - 2 < length) return std::nullopt;
  return at + 2 + length;
}

// The S2 string at `at` of `bytes`; nullopt when its length or its bytes run past `bytes`.
// Trailing NULs are dropped: rastrace never writes them, but C producers that pass a char array's
// size do, and no name or path a log carries ends in a NUL, so dropping them loses nothing and
// every reader shows the same text.
inline std::optional<std::string_view> ReadS2(std::span<const uint8_t> bytes, size_t at,
                                              ByteOrder order) {
  const std::optional<size_t> end = S2End(bytes, at, order);
  if (!end) return std::nullopt;
  std::string_view text(reinterpret_cast<const char*>(bytes.data() + at + 2), *end - at - 2);
  while (!text.empty() && text.back() == '\0') text.remove_suffix(1);
  return text;
}

// Appends `text` as an S2 string in `order`, cut to kS2MaxLength bytes.
void AppendS2(std::string_view text, ByteOrder order, std::vector<uint8_t>& out);

}  // namespace rastrace::event
