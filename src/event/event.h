// One trace event, as a writer describes it and as a reader returns it.
#pragma once

#include <array>
#include <cstdint>
#include <span>

#include "common/byte_order.h"
#include "event/format.h"

namespace rastrace::event {

// What an event holds, independent of layout and byte order.
struct EventFields {
  uint16_t hook_id = 0;  // 16-bit id; a 32-bit event's 12-bit id MMM is MMM0
  uint16_t subhook = 0;  // 64-bit subhook; 32-bit hook data DDDD (non-generic)
  bool timestamped = false;
  bool generic = false;
  bool data32 = false;     // B: 4-byte data words (64-bit layout only)
  uint8_t word_count = 0;  // non-generic data words, 0..5
  std::array<uint64_t, kMaxDataWords> words{};
  uint64_t generic_word = 0;        // generic: the data word
  std::span<const uint8_t> buffer;  // generic: the buffer, without padding
  uint64_t thread_id = 0;
  uint64_t timestamp = 0;  // raw ticks (see TimeBase); 0 when not timestamped
};

// A decoded event. Spans point into memory owned by the reader, valid until its next call.
struct Event : EventFields {
  uint64_t offset = 0;          // byte offset of the event in the log file (magic at 0)
  Layout layout = Layout::k64;  // the layout the bytes below are in ($HOOKENV)
  bool reformatted = false;     // seed 002 part C was applied
  uint16_t flags = 0;           // 64-bit: the flags field; 32-bit: 0
  uint8_t type32 = 0;           // 32-bit: the hook type T; 64-bit: 0
  uint16_t data_length = 0;     // $HL: bytes of data words, or of the generic buffer
  // The whole event in `layout`, from the hookword through thread id and timestamp, in the log's
  // byte order: what templates index with the DATA_POINTER.
  std::span<const uint8_t> bytes;
};

}  // namespace rastrace::event
