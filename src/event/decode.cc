#include "event/decode.h"

#include <fmt/format.h>

#include "event/sizes.h"

namespace rastrace::event {
namespace {

DecodeResult NeedMore(size_t size) {
  return {DecodeStatus::kNeedMore, size, {}};
}

DecodeResult Decode64(std::span<const uint8_t> bytes, ByteOrder order, Event& out) {
  if (bytes.size() < 8) return NeedMore(8);
  const uint8_t* p = bytes.data();
  uint64_t word0 = Load64(p, order);
  auto flags = static_cast<uint16_t>(word0 >> 48);
  auto len = static_cast<uint16_t>(word0 >> 32);
  const char* problem = nullptr;
  size_t body = Body64(flags, len, &problem);
  if (problem != nullptr) {
    return {DecodeStatus::kCorrupt, 0,
            fmt::format("corrupt event: hookword {:016x}: {}", word0, problem)};
  }
  size_t size = Size64(flags, body);
  if (bytes.size() < size) return NeedMore(size);

  out = Event{};
  out.layout = Layout::k64;
  out.flags = flags;
  out.hook_id = static_cast<uint16_t>(word0 >> 16);
  out.subhook = static_cast<uint16_t>(word0);
  out.timestamped = (flags & kFlagTimestamp) != 0;
  out.generic = (flags & kFlagGeneric) != 0;
  out.data32 = (flags & kFlag32BitData) != 0;
  out.data_length = len;
  const uint8_t* data = p + 8;
  if (out.generic) {
    out.generic_word = Load64(data, order);
    out.buffer = bytes.subspan(16, len);
  } else if (out.data32) {
    out.word_count = static_cast<uint8_t>(len / 4);
    for (unsigned i = 0; i < out.word_count; ++i) out.words[i] = Load32(data + 4 * i, order);
  } else {
    out.word_count = static_cast<uint8_t>(len / 8);
    for (unsigned i = 0; i < out.word_count; ++i) out.words[i] = Load64(data + 8 * i, order);
  }
  out.thread_id = Load64(data + body, order);
  if (out.timestamped) out.timestamp = Load64(data + body + 8, order);
  out.bytes = bytes.first(size);
  return {DecodeStatus::kOk, size, {}};
}

DecodeResult Decode32(std::span<const uint8_t> bytes, ByteOrder order, Event& out) {
  if (bytes.size() < 4) return NeedMore(4);
  const uint8_t* p = bytes.data();
  uint32_t hookword = Load32(p, order);
  auto type = static_cast<uint8_t>((hookword >> 16) & 0xF);
  auto hook_data = static_cast<uint16_t>(hookword);
  size_t body = 0;
  if (!Body32(type, hook_data, &body)) {
    return {DecodeStatus::kCorrupt, 0,
            fmt::format("corrupt event: hookword {:08x}: hook type {:X} is not one of "
                        "0,1,2,6,8,9,A,E",
                        hookword, type)};
  }
  size_t size = Size32(type, body);
  if (bytes.size() < size) return NeedMore(size);

  out = Event{};
  out.layout = Layout::k32;
  out.type32 = type;
  out.hook_id = HookIdFrom12(static_cast<uint16_t>(hookword >> 20));
  out.timestamped = (type & kType32TimestampBit) != 0;
  out.generic = (type & 0x7) == kType32Generic;
  const uint8_t* data = p + 4;
  if (out.generic) {
    // DDDD is the buffer length here, so there is no subhook.
    out.data_length = hook_data;
    out.generic_word = Load32(data, order);
    out.buffer = bytes.subspan(8, hook_data);
  } else {
    out.subhook = hook_data;
    out.word_count = static_cast<uint8_t>(WordCount32(type));
    out.data_length = static_cast<uint16_t>(4 * out.word_count);
    for (unsigned i = 0; i < out.word_count; ++i) out.words[i] = Load32(data + 4 * i, order);
  }
  out.thread_id = Load32(data + body, order);
  if (out.timestamped) out.timestamp = Load32(data + body + 4, order);
  out.bytes = bytes.first(size);
  return {DecodeStatus::kOk, size, {}};
}

}  // namespace

DecodeResult DecodeEvent(std::span<const uint8_t> bytes, Layout layout, ByteOrder order,
                         Event& out) {
  return layout == Layout::k64 ? Decode64(bytes, order, out) : Decode32(bytes, order, out);
}

}  // namespace rastrace::event
