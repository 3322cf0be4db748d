#include "recorder/test_log.h"

#include "common/byte_order.h"
#include "event/format.h"
#include "event/reader.h"
#include "event/s2.h"
#include "event/test_util.h"

namespace rastrace::recorder::testing {

Result<std::vector<LoggedEvent>> ReadLog(const std::string& path) {
  event::ReaderOptions options;
  options.reformat = false;
  auto reader = event::LogReader::Open(path, options);
  if (!reader) return reader.error();
  const event::testing::ReadAll all = event::testing::ReadEvents(*reader);
  if (all.status == event::ReadStatus::kError) return reader->error();
  std::vector<LoggedEvent> events;
  for (const event::testing::ReadEvent& read : all.events) {
    const event::Event& e = read.event;
    events.push_back({e.hook_id, e.subhook, e.timestamped, e.generic, e.word_count, e.words,
                      e.generic_word, read.buffer, e.thread_id, e.timestamp});
  }
  return events;
}

std::vector<std::string> SplitS2(const std::vector<uint8_t>& buffer, size_t offset) {
  std::vector<std::string> strings;
  while (const auto text = event::ReadS2(buffer, offset, NativeByteOrder())) {
    strings.emplace_back(*text);
    offset = *event::S2End(buffer, offset, NativeByteOrder());
  }
  return strings;
}

uint64_t LostIn(const std::vector<LoggedEvent>& events) {
  uint64_t lost = 0;
  for (const LoggedEvent& e : events) {
    if (e.hook_id == event::kHookLost) lost += e.words[0];
  }
  return lost;
}

}  // namespace rastrace::recorder::testing
