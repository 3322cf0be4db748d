// rastrace hook API for C++: the same hooks as <rastrace/trchk.h>, typed and inline.
//
//   rastrace::Hook(0x01200000, 1, 2, 3, 4, 5);             // TRCHKL5
//   rastrace::HookT(0x01200000, 1, 2, 3, 4, 5);            // TRCHKL5T
//   rastrace::GenT(0, 0x01400000, 42, "hello");            // TRCGENT, the bytes of the string
//
// Each call compiles to the same channel test and call as the C macro; nothing is added.
#pragma once

#include <rastrace/trchk.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <type_traits>

namespace rastrace {

// What may be recorded as a data word: integers, enums and pointers, as 64 bits.
template <class T>
concept DataWord = std::is_integral_v<T> || std::is_enum_v<T> || std::is_pointer_v<T>;

namespace detail {
template <DataWord T>
constexpr uint64_t ToWord(T value) noexcept {
  if constexpr (std::is_pointer_v<T>) {
    return reinterpret_cast<uintptr_t>(value);
  } else {
    return static_cast<uint64_t>(value);
  }
}
}  // namespace detail

inline bool ChannelOn(unsigned channel) noexcept {
  return channel < RASTRACE_CHANNELS && RASTRACE_CHANNEL_ON(channel);
}

// TRCHKL0..TRCHKL5 on channel 0.
template <DataWord... Words>
requires(sizeof...(Words) <= 5) inline void Hook(uint32_t hkwd, Words... words) noexcept {
  if (!RASTRACE_CHANNEL_ON(0)) return;
  constexpr size_t n = sizeof...(Words);
  if constexpr (n == 0)
    RASTRACE_CALL_HOOK_(hook0, hkwd);
  else if constexpr (n == 1)
    RASTRACE_CALL_HOOK_(hook1, hkwd, detail::ToWord(words)...);
  else if constexpr (n == 2)
    RASTRACE_CALL_HOOK_(hook2, hkwd, detail::ToWord(words)...);
  else if constexpr (n == 3)
    RASTRACE_CALL_HOOK_(hook3, hkwd, detail::ToWord(words)...);
  else if constexpr (n == 4)
    RASTRACE_CALL_HOOK_(hook4, hkwd, detail::ToWord(words)...);
  else
    RASTRACE_CALL_HOOK_(hook5, hkwd, detail::ToWord(words)...);
}

// TRCHKL0T..TRCHKL5T on channel 0.
template <DataWord... Words>
requires(sizeof...(Words) <= 5) inline void HookT(uint32_t hkwd, Words... words) noexcept {
  if (!RASTRACE_CHANNEL_ON(0)) return;
  constexpr size_t n = sizeof...(Words);
  if constexpr (n == 0)
    RASTRACE_CALL_HOOK_(hook0t, hkwd);
  else if constexpr (n == 1)
    RASTRACE_CALL_HOOK_(hook1t, hkwd, detail::ToWord(words)...);
  else if constexpr (n == 2)
    RASTRACE_CALL_HOOK_(hook2t, hkwd, detail::ToWord(words)...);
  else if constexpr (n == 3)
    RASTRACE_CALL_HOOK_(hook3t, hkwd, detail::ToWord(words)...);
  else if constexpr (n == 4)
    RASTRACE_CALL_HOOK_(hook4t, hkwd, detail::ToWord(words)...);
  else
    RASTRACE_CALL_HOOK_(hook5t, hkwd, detail::ToWord(words)...);
}

// TRCGEN / TRCGENT: one data word and a buffer on `channel`.
inline void Gen(unsigned channel, uint32_t hkwd, uint64_t word,
                std::span<const std::byte> bytes) noexcept {
  if (ChannelOn(channel)) rastrace_gen(hkwd, word, bytes.size(), bytes.data());
}
inline void GenT(unsigned channel, uint32_t hkwd, uint64_t word,
                 std::span<const std::byte> bytes) noexcept {
  if (ChannelOn(channel)) rastrace_gent(hkwd, word, bytes.size(), bytes.data());
}
// The characters of `text`, without a terminating NUL.
inline void Gen(unsigned channel, uint32_t hkwd, uint64_t word, std::string_view text) noexcept {
  if (ChannelOn(channel)) rastrace_gen(hkwd, word, text.size(), text.data());
}
inline void GenT(unsigned channel, uint32_t hkwd, uint64_t word, std::string_view text) noexcept {
  if (ChannelOn(channel)) rastrace_gent(hkwd, word, text.size(), text.data());
}

// Trace control; see <rastrace/trchk.h>. A null `args` uses the RASTRACE_* environment.
inline int Start(const char* args = nullptr) noexcept {
  return trcstart(args);
}
inline int On(int channel) noexcept {
  return trcon(channel);
}
inline int Off(int channel) noexcept {
  return trcoff(channel);
}
inline int Stop(int channel = 0) noexcept {
  return trcstop(channel);
}

}  // namespace rastrace
