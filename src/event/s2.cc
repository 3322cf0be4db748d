#include "event/s2.h"

namespace rastrace::event {

std::optional<size_t> S2End(std::span<const uint8_t> bytes, size_t at, ByteOrder order) {
  // Subtractions only: `at` may be any value a buffer's content claims.
  if (at > bytes.size() || bytes.size() - at < 2) return std::nullopt;
  const size_t length = Load16(bytes.data() + at, order);
  if (bytes.size() - at - 2 < length) return std::nullopt;
  return at + 2 + length;
}

std::optional<std::string_view> ReadS2(std::span<const uint8_t> bytes, size_t at, ByteOrder order) {
  const std::optional<size_t> end = S2End(bytes, at, order);
  if (!end) return std::nullopt;
  std::string_view text(reinterpret_cast<const char*>(bytes.data() + at + 2), *end - at - 2);
  while (!text.empty() && text.back() == '\0') text.remove_suffix(1);
  return text;
}

void AppendS2(std::string_view text, ByteOrder order, std::vector<uint8_t>& out) {
  text = text.substr(0, kS2MaxLength);
  uint8_t length[2];
  Store<uint16_t>(length, static_cast<uint16_t>(text.size()), order);
  out.insert(out.end(), length, length + 2);
  out.insert(out.end(), text.begin(), text.end());
}

}  // namespace rastrace::event
