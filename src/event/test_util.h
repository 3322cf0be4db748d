// Helpers for the event tests: logs written the way the seed writes them.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/byte_order.h"
#include "event/event.h"
#include "event/reader.h"
#include "event/temp_dir.h"

namespace rastrace::event::testing {

// Bytes from the seed's notation: space-separated hex groups are values of (digits / 2) bytes
// stored in `order`; a group starting with '=' is raw bytes in file order; "text" is the text's
// bytes and \0 in it a NUL.
std::vector<uint8_t> Bytes(std::string_view notation, ByteOrder order);

// A log: the magic of `layout` in `order`, then `events` (in the notation of Bytes).
std::vector<uint8_t> Log(Layout layout, ByteOrder order, std::string_view events = "");

// Reads every event of `log`, with the given options; the events' spans are copied into the
// returned events' own storage so they outlive the reader.
struct ReadEvent {
  Event event;
  std::vector<uint8_t> bytes;
  std::vector<uint8_t> buffer;
};
struct ReadAll {
  std::vector<ReadEvent> events;
  ReadStatus status = ReadStatus::kEnd;
  std::string error;
};
ReadAll ReadEvents(LogReader& reader);
ReadAll ReadLog(const std::vector<uint8_t>& log, ReaderOptions options = {});

std::string Hex(std::span<const uint8_t> bytes);

}  // namespace rastrace::event::testing
