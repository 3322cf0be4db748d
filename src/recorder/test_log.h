// Test helpers: a log read back into plain values (scratch directories: event/temp_dir.h).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "common/result.h"

namespace rastrace::recorder::testing {

struct LoggedEvent {
  uint16_t hook_id = 0;
  uint16_t subhook = 0;
  bool timestamped = false;
  bool generic = false;
  uint8_t word_count = 0;
  std::array<uint64_t, 5> words{};
  uint64_t generic_word = 0;
  std::vector<uint8_t> buffer;
  uint64_t thread_id = 0;
  uint64_t timestamp = 0;
};

// Every event of the log; an error if the log is not a trace log or ends inside an event.
Result<std::vector<LoggedEvent>> ReadLog(const std::string& path);

// Strings of a buffer made of S2 strings (2-byte native length, then the bytes).
std::vector<std::string> SplitS2(const std::vector<uint8_t>& buffer, size_t offset = 0);

// The events lost according to the 006 events of `events`.
uint64_t LostIn(const std::vector<LoggedEvent>& events);

}  // namespace rastrace::recorder::testing
