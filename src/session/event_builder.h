// Builds the events a session writes itself (kernel events, the process table, trace on/off) in
// the 64-bit layout and native byte order, appended to a byte vector.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <span>
#include <string_view>
#include <vector>

namespace rastrace::session {

// An event with up to five data words.
void AppendWords(uint16_t hook, uint16_t subhook, std::initializer_list<uint64_t> words,
                 uint64_t thread_id, uint64_t timestamp, bool timestamped,
                 std::vector<uint8_t>& out);
// A generic event: data word `word`, then `buffer`.
void AppendGeneric(uint16_t hook, uint16_t subhook, uint64_t word, std::span<const uint8_t> buffer,
                   uint64_t thread_id, uint64_t timestamp, bool timestamped,
                   std::vector<uint8_t>& out);
// 00A subhook of a loader entry (-n): data word pid; buffer start address:8, S2 path.
inline constexpr uint16_t kUtilLoaderEntry = 0x0106;

// A 2-byte length in native order, then the bytes (cut at 65535).
void AppendS2(std::string_view text, std::vector<uint8_t>& out);
void AppendU64(uint64_t value, std::vector<uint8_t>& out);

// 00A/100: a process (or one of its threads): data word pid; buffer ppid, tid, S2 path.
void AppendProcessEvent(uint64_t pid, uint64_t ppid, uint64_t tid, std::string_view path,
                        uint64_t timestamp, std::vector<uint8_t>& out);

}  // namespace rastrace::session
