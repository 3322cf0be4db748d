// Any bytes through the reader: every event decoded and reformatted, never a crash, hang or
// unbounded allocation.
#include <cstddef>
#include <cstdint>
#include <span>

#include "event/encode.h"
#include "event/reader.h"
#include "event/reformat.h"

namespace {

using rastrace::event::Event;
using rastrace::event::LogReader;
using rastrace::event::ReadStatus;

// Reads every byte a span claims, so the sanitizers see any span that points outside its memory.
uint8_t Touch(std::span<const uint8_t> bytes) {
  uint8_t sum = 0;
  for (uint8_t b : bytes) sum = static_cast<uint8_t>(sum + b);
  return sum;
}

void ReadAll(std::span<const uint8_t> data, bool reformat) {
  auto reader = LogReader::FromBytes(data, "fuzz", {.reformat = reformat});
  if (!reader) return;
  Event event;
  std::vector<uint8_t> scratch;
  volatile uint8_t sink = 0;
  while (reader->Next(event) == ReadStatus::kEvent) {
    sink = static_cast<uint8_t>(sink + Touch(event.bytes) + Touch(event.buffer));
    if (!reformat) {
      // The size of an event follows from its first word, so re-encoding its fields must take
      // exactly the bytes it took in the log.
      if (rastrace::event::EncodedSize(event, event.layout) != event.bytes.size()) __builtin_trap();
      Event shown;
      if (rastrace::event::Reformat(event, reader->layout(), reader->byte_order(), scratch,
                                    shown)) {
        sink = static_cast<uint8_t>(sink + Touch(shown.bytes) + Touch(shown.buffer));
      }
    }
  }
  (void)sink;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::span<const uint8_t> bytes(data, size);
  ReadAll(bytes, true);
  ReadAll(bytes, false);
  return 0;
}
