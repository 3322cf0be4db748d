// Loads and stores of unaligned integers in a chosen byte order.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>

namespace rastrace {

enum class ByteOrder : uint8_t { kLittle, kBig };

constexpr ByteOrder NativeByteOrder() {
  return std::endian::native == std::endian::little ? ByteOrder::kLittle : ByteOrder::kBig;
}

namespace detail {
inline uint16_t Swap(uint16_t v) { return __builtin_bswap16(v); }
inline uint32_t Swap(uint32_t v) { return __builtin_bswap32(v); }
inline uint64_t Swap(uint64_t v) { return __builtin_bswap64(v); }
}  // namespace detail

template <class T>
inline T Load(const uint8_t* p, ByteOrder order) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return order == NativeByteOrder() ? v : detail::Swap(v);
}

template <class T>
inline void Store(uint8_t* p, T v, ByteOrder order) {
  if (order != NativeByteOrder()) v = detail::Swap(v);
  std::memcpy(p, &v, sizeof v);
}

inline uint16_t Load16(const uint8_t* p, ByteOrder o) { return Load<uint16_t>(p, o); }
inline uint32_t Load32(const uint8_t* p, ByteOrder o) { return Load<uint32_t>(p, o); }
inline uint64_t Load64(const uint8_t* p, ByteOrder o) { return Load<uint64_t>(p, o); }

// Reads an unsigned value of 1, 2, 4 or 8 bytes; other sizes read the first `size` bytes as a
// number in the given order (used by format codes like X3).
inline uint64_t LoadUnsigned(const uint8_t* p, size_t size, ByteOrder order) {
  switch (size) {
    case 1: return *p;
    case 2: return Load16(p, order);
    case 4: return Load32(p, order);
    case 8: return Load64(p, order);
    default: {
      uint64_t v = 0;
      for (size_t i = 0; i < size && i < 8; ++i) {
        size_t idx = order == ByteOrder::kBig ? i : size - 1 - i;
        v = (v << 8) | p[idx];
      }
      return v;
    }
  }
}

}  // namespace rastrace
