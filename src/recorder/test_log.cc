#include "recorder/test_log.h"

#include <stdlib.h>

#include <cstring>
#include <filesystem>

#include "common/byte_order.h"
#include "event/format.h"
#include "event/reader.h"
#include "event/s2.h"

namespace rastrace::recorder::testing {

Result<std::vector<LoggedEvent>> ReadLog(const std::string& path) {
  event::ReaderOptions options;
  options.reformat = false;
  auto reader = event::LogReader::Open(path, options);
  if (!reader) return reader.error();
  std::vector<LoggedEvent> events;
  event::Event e;
  for (;;) {
    const event::ReadStatus status = reader->Next(e);
    if (status == event::ReadStatus::kEnd) break;
    if (status == event::ReadStatus::kError) return reader->error();
    LoggedEvent out;
    out.hook_id = e.hook_id;
    out.subhook = e.subhook;
    out.timestamped = e.timestamped;
    out.generic = e.generic;
    out.word_count = e.word_count;
    out.words = e.words;
    out.generic_word = e.generic_word;
    out.buffer.assign(e.buffer.begin(), e.buffer.end());
    out.thread_id = e.thread_id;
    out.timestamp = e.timestamp;
    events.push_back(std::move(out));
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

ScratchDir::ScratchDir() {
  std::string pattern = (std::filesystem::temp_directory_path() / "rastrace-test-XXXXXX").string();
  if (mkdtemp(pattern.data()) != nullptr) path_ = pattern;
}

ScratchDir::~ScratchDir() {
  std::error_code ignored;
  if (!path_.empty()) std::filesystem::remove_all(path_, ignored);
}

}  // namespace rastrace::recorder::testing
