// Test helpers: ring buffer pages and event records laid out as the kernel writes them to
// trace_pipe_raw, for tests of the binary kernel-event reader.
#pragma once

#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

#include "session/raw_events.h"

namespace rastrace::session::testing {

// Builds a ring buffer page the way the kernel lays it out.
class PageBuilder {
 public:
  explicit PageBuilder(uint64_t timestamp) : page_(16, 0) { Put64(0, timestamp); }
  void Data(uint32_t delta, std::span<const uint8_t> payload) {
    if (payload.size() <= 28 * 4 && payload.size() % 4 == 0) {
      Word(static_cast<uint32_t>(payload.size() / 4) | delta << 5);
    } else {
      Word(delta << 5);  // type 0: the length follows, counting itself
      Word(static_cast<uint32_t>(payload.size() + 4));
    }
    page_.insert(page_.end(), payload.begin(), payload.end());
    while (page_.size() % 4 != 0) page_.push_back(0);
  }
  void TimeExtend(uint64_t delta) {
    Word(30 | static_cast<uint32_t>(delta & ((1u << 27) - 1)) << 5);
    Word(static_cast<uint32_t>(delta >> 27));
  }
  void Padding(uint32_t bytes) {
    Word(29 | 1u << 5);
    Word(bytes + 4);  // counts itself, like a long event's length
    page_.resize(page_.size() + bytes);
  }
  std::vector<uint8_t> Finish(uint64_t flags = 0) {
    Put64(8, (page_.size() - 16) | flags);
    std::vector<uint8_t> page = page_;
    page.resize(4096, 0);
    return page;
  }

 private:
  void Word(uint32_t word) {
    const size_t at = page_.size();
    page_.resize(at + 4);
    std::memcpy(page_.data() + at, &word, 4);
  }
  void Put64(size_t at, uint64_t value) { std::memcpy(page_.data() + at, &value, 8); }
  std::vector<uint8_t> page_;
};

// A record as the kernel writes it for `format`, with `values` at their fields' offsets.
inline std::vector<uint8_t> Record(const RawFormat& format, uint32_t pid,
                                   std::initializer_list<std::pair<const char*, uint64_t>> values,
                                   std::string_view text = {}, const char* text_field = nullptr) {
  std::vector<uint8_t> bytes(64, 0);
  std::memcpy(bytes.data(), &format.id, 2);
  std::memcpy(bytes.data() + 4, &pid, 4);
  for (auto [name, value] : values) {
    const RawField& field = format.fields.at(name);
    std::memcpy(bytes.data() + field.offset, &value, field.size);
  }
  if (text_field != nullptr) {
    const uint32_t loc =
        static_cast<uint32_t>(bytes.size()) | static_cast<uint32_t>(text.size() + 1) << 16;
    std::memcpy(bytes.data() + format.fields.at(text_field).offset, &loc, 4);
    bytes.insert(bytes.end(), text.begin(), text.end());
    bytes.push_back(0);
  }
  return bytes;
}

}  // namespace rastrace::session::testing
