#include "event/raw_dump.h"

#include <fmt/format.h>

namespace rastrace::event {
namespace {

// "T G- B-": a set flag is its letter, a clear one the letter and a dash.
std::string FlagText(const Event& event) {
  if (event.layout == Layout::k32) return fmt::format("type {:X}", event.type32);
  std::string text;
  for (auto [bit, letter] : {std::pair{kFlagTimestamp, 'T'}, std::pair{kFlagGeneric, 'G'},
                             std::pair{kFlag32BitData, 'B'}}) {
    if (!text.empty()) text += ' ';
    text += letter;
    if ((event.flags & bit) == 0) text += '-';
  }
  return text;
}

}  // namespace

Result<void> DumpRaw(LogReader& reader, std::FILE* out) {
  Event event;
  std::string line;
  for (;;) {
    ReadStatus status = reader.Next(event);
    if (status == ReadStatus::kEnd) return Ok();
    if (status == ReadStatus::kError) return reader.error();
    line = fmt::format("{:08x}  ID {:04x} SUB {:04x} {} len {}  tid {} ts {}{}  |", event.offset,
                       event.hook_id, event.subhook, FlagText(event), event.data_length,
                       event.thread_id, event.timestamp, event.reformatted ? "  R" : "");
    // Bytes as they are in the log, grouped by the word size of the event's layout.
    size_t word = WordSize(event.layout);
    for (size_t i = 0; i < event.bytes.size(); ++i) {
      if (i % word == 0) line += ' ';
      line += fmt::format("{:02x}", event.bytes[i]);
    }
    line += '\n';
    std::fputs(line.c_str(), out);
  }
}

}  // namespace rastrace::event
