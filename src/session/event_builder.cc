#include "session/event_builder.h"

#include <algorithm>
#include <cstring>

#include "event/encode.h"

namespace rastrace::session {

namespace {

void Encode(const event::EventFields& fields, std::vector<uint8_t>& out) {
  // The fields built here are always valid in the 64-bit layout.
  (void)event::Encode(fields, event::Layout::k64, NativeByteOrder(), out);
}

}  // namespace

void AppendWords(uint16_t hook, uint16_t subhook, std::initializer_list<uint64_t> words,
                 uint64_t thread_id, uint64_t timestamp, bool timestamped,
                 std::vector<uint8_t>& out) {
  event::EventFields fields;
  fields.hook_id = hook;
  fields.subhook = subhook;
  fields.timestamped = timestamped;
  fields.timestamp = timestamped ? timestamp : 0;
  fields.thread_id = thread_id;
  fields.word_count = static_cast<uint8_t>(std::min<size_t>(words.size(), event::kMaxDataWords));
  std::copy_n(words.begin(), fields.word_count, fields.words.begin());
  Encode(fields, out);
}

void AppendGeneric(uint16_t hook, uint16_t subhook, uint64_t word, std::span<const uint8_t> buffer,
                   uint64_t thread_id, uint64_t timestamp, bool timestamped,
                   std::vector<uint8_t>& out) {
  event::EventFields fields;
  fields.hook_id = hook;
  fields.subhook = subhook;
  fields.generic = true;
  fields.generic_word = word;
  fields.buffer = buffer.first(std::min<size_t>(buffer.size(), 0xFFFF));
  fields.timestamped = timestamped;
  fields.timestamp = timestamped ? timestamp : 0;
  fields.thread_id = thread_id;
  Encode(fields, out);
}

void AppendS2(std::string_view text, std::vector<uint8_t>& out) {
  const uint16_t length = static_cast<uint16_t>(std::min<size_t>(text.size(), 0xFFFF - 2));
  uint8_t bytes[2];
  std::memcpy(bytes, &length, 2);
  out.insert(out.end(), bytes, bytes + 2);
  out.insert(out.end(), text.begin(), text.begin() + length);
}

void AppendU64(uint64_t value, std::vector<uint8_t>& out) {
  uint8_t bytes[8];
  std::memcpy(bytes, &value, 8);
  out.insert(out.end(), bytes, bytes + 8);
}

void AppendProcessEvent(uint64_t pid, uint64_t ppid, uint64_t tid, std::string_view path,
                        uint64_t timestamp, std::vector<uint8_t>& out) {
  std::vector<uint8_t> buffer;
  AppendU64(ppid, buffer);
  AppendU64(tid, buffer);
  AppendS2(path, buffer);
  AppendGeneric(event::kHookUtil, event::kUtilProcess, pid, buffer, tid, timestamp, false, out);
}

}  // namespace rastrace::session
