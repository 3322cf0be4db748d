#include "event/test_util.h"

#include <fmt/format.h>

#include <algorithm>

#include "event/encode.h"

namespace rastrace::event::testing {

std::vector<uint8_t> Bytes(std::string_view notation, ByteOrder order) {
  std::vector<uint8_t> out;
  size_t i = 0;
  while (i < notation.size()) {
    if (notation[i] == ' ') {
      ++i;
      continue;
    }
    if (notation[i] == '"') {
      size_t close = notation.find('"', i + 1);
      std::string_view text = notation.substr(i + 1, close - i - 1);
      for (size_t k = 0; k < text.size(); ++k) {
        if (text[k] == '\\' && k + 1 < text.size() && text[k + 1] == '0') {
          out.push_back(0);
          ++k;
        } else {
          out.push_back(static_cast<uint8_t>(text[k]));
        }
      }
      i = close + 1;
      continue;
    }
    bool raw = notation[i] == '=';
    if (raw) ++i;
    size_t stop = notation.find(' ', i);
    if (stop == std::string_view::npos) stop = notation.size();
    std::string_view group = notation.substr(i, stop - i);
    std::vector<uint8_t> value;
    for (size_t k = 0; k + 1 < group.size(); k += 2) {
      value.push_back(
          static_cast<uint8_t>(std::stoul(std::string(group.substr(k, 2)), nullptr, 16)));
    }
    if (!raw && order == ByteOrder::kLittle) std::reverse(value.begin(), value.end());
    out.insert(out.end(), value.begin(), value.end());
    i = stop;
  }
  return out;
}

std::vector<uint8_t> Log(Layout layout, ByteOrder order, std::string_view events) {
  std::vector<uint8_t> log;
  EncodeMagic(layout, order, log);
  std::vector<uint8_t> rest = Bytes(events, order);
  log.insert(log.end(), rest.begin(), rest.end());
  return log;
}

ReadAll ReadEvents(LogReader& reader) {
  ReadAll all;
  Event event;
  for (;;) {
    all.status = reader.Next(event);
    if (all.status != ReadStatus::kEvent) break;
    ReadEvent copy{event,
                   {event.bytes.begin(), event.bytes.end()},
                   {event.buffer.begin(), event.buffer.end()}};
    copy.event.bytes = copy.bytes;
    copy.event.buffer = copy.buffer;
    // Moving a vector keeps its heap storage, so the spans stay valid in the element.
    all.events.push_back(std::move(copy));
  }
  if (all.status == ReadStatus::kError) all.error = reader.error().message;
  return all;
}

ReadAll ReadLog(const std::vector<uint8_t>& log, ReaderOptions options) {
  auto reader = LogReader::FromBytes(log, "test.log", options);
  if (!reader) {
    ReadAll failed;
    failed.status = ReadStatus::kError;
    failed.error = reader.error().message;
    return failed;
  }
  return ReadEvents(*reader);
}

std::string Hex(std::span<const uint8_t> bytes) {
  std::string out;
  for (uint8_t b : bytes) out += fmt::format("{:02x}", b);
  return out;
}

}  // namespace rastrace::event::testing
