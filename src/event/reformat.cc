#include "event/reformat.h"

#include <cstring>

#include "event/decode.h"
#include "event/sizes.h"

namespace rastrace::event {
namespace {

// A 32-bit application's event on a 64-bit kernel (B flag), shown in the 32-bit layout. Thread id
// and timestamp stay 8 bytes: they are the system's, not the application's.
void ToLayout32(const Event& in, ByteOrder order, std::vector<uint8_t>& scratch, Event& out) {
  uint8_t type = 0;
  uint16_t hook_data = 0;
  unsigned word_count = 0;
  size_t body = 0;
  if (in.generic) {
    type = in.timestamped ? kType32Generic | kType32TimestampBit : kType32Generic;
    hook_data = static_cast<uint16_t>(in.buffer.size());
    body = 4 + PadTo(in.buffer.size(), 4);
  } else {
    type = Type32For(in.word_count, in.timestamped);
    hook_data = in.subhook;
    word_count = WordCount32(type);
    body = 4 * word_count;
  }
  size_t size = 4 + body + 8 + (in.timestamped ? 8 : 0);
  scratch.assign(size, 0);
  uint8_t* p = scratch.data();
  uint32_t hookword = (uint32_t{in.hook_id} >> 4) << 20 | uint32_t{type} << 16 | hook_data;
  Store<uint32_t>(p, hookword, order);

  out = Event{};
  out.hook_id = in.hook_id;
  out.subhook = in.subhook;
  out.timestamped = in.timestamped;
  out.generic = in.generic;
  out.thread_id = in.thread_id;
  out.timestamp = in.timestamp;
  if (in.generic) {
    // The 32-bit data word is the low half of the 8-byte data word slot.
    out.generic_word = static_cast<uint32_t>(in.generic_word);
    Store<uint32_t>(p + 4, static_cast<uint32_t>(out.generic_word), order);
    if (!in.buffer.empty()) std::memcpy(p + 8, in.buffer.data(), in.buffer.size());
    out.buffer = std::span<const uint8_t>(scratch).subspan(8, in.buffer.size());
    out.data_length = hook_data;
  } else {
    out.word_count = static_cast<uint8_t>(word_count);
    for (unsigned i = 0; i < word_count; ++i) {
      out.words[i] = i < in.word_count ? static_cast<uint32_t>(in.words[i]) : 0;
      Store<uint32_t>(p + 4 + 4 * i, static_cast<uint32_t>(out.words[i]), order);
    }
    out.data_length = static_cast<uint16_t>(4 * word_count);
  }
  Store<uint64_t>(p + 4 + body, in.thread_id, order);
  if (in.timestamped) Store<uint64_t>(p + 4 + body + 8, in.timestamp, order);
  out.layout = Layout::k32;
  out.type32 = type;
  out.bytes = std::span<const uint8_t>(scratch);
}

// A 64-bit application's event traced by a 32-bit kernel (hook 00B, generic): its data word holds
// the 64-bit flags and length, the buffer starts with the 64-bit hook id and subhook and goes on
// with the 64-bit payload. Rebuilt as the 64-bit event it was meant to be.
Result<void> ToLayout64(const Event& in, ByteOrder order, std::vector<uint8_t>& scratch,
                        Event& out) {
  if (in.buffer.size() < 4) {
    return MakeError("offset {:#x}: hook 00B payload of {} bytes is too short to hold a hook id",
                     in.offset, in.buffer.size());
  }
  auto d1 = static_cast<uint32_t>(in.generic_word);
  // The 32-bit event is the one that really carries a timestamp, so it decides T.
  auto flags = static_cast<uint16_t>((d1 >> 16) & ~kFlagTimestamp);
  if (in.timestamped) flags |= kFlagTimestamp;
  auto len = static_cast<uint16_t>(d1);
  const char* problem = nullptr;
  size_t body = Body64(flags, len, &problem);
  if (problem != nullptr) {
    return MakeError("offset {:#x}: hook 00B flags/length {:08x}: {}", in.offset, d1, problem);
  }
  size_t payload = (flags & kFlagGeneric) ? 8 + size_t{len} : len;
  std::span<const uint8_t> rest = in.buffer.subspan(4);
  if (rest.size() < payload) {
    return MakeError(
        "offset {:#x}: hook 00B payload too short: flags/length {:08x} need {} bytes after the "
        "hook id, {} present",
        in.offset, d1, payload, rest.size());
  }
  uint64_t word0 =
      (uint64_t{flags} << 48) | (uint64_t{len} << 32) | Load32(in.buffer.data(), order);
  size_t size = Size64(flags, body);
  scratch.assign(size, 0);
  uint8_t* p = scratch.data();
  Store<uint64_t>(p, word0, order);
  if (payload != 0) std::memcpy(p + 8, rest.data(), payload);
  Store<uint64_t>(p + 8 + body, in.thread_id, order);
  if (in.timestamped) Store<uint64_t>(p + 16 + body, in.timestamp, order);
  DecodeResult decoded = DecodeEvent(scratch, Layout::k64, order, out);
  if (decoded.status != DecodeStatus::kOk) {
    return MakeError("offset {:#x}: hook 00B payload does not decode: {}", in.offset,
                     decoded.problem);
  }
  return Ok();
}

}  // namespace

bool NeedsReformat(const Event& in, Layout trace_layout) {
  if (in.reformatted) return false;
  if (trace_layout == Layout::k64) return in.layout == Layout::k64 && in.data32;
  return in.layout == Layout::k32 && in.generic && in.hook_id == kHook64On32;
}

Result<void> Reformat(const Event& in, Layout trace_layout, ByteOrder order,
                      std::vector<uint8_t>& scratch, Event& out) {
  // A copy, so that `in` and `out` may be the same event.
  const Event source = in;
  if (!NeedsReformat(source, trace_layout)) {
    out = source;
    return Ok();
  }
  if (trace_layout == Layout::k64) {
    ToLayout32(source, order, scratch, out);
  } else if (auto result = ToLayout64(source, order, scratch, out); !result) {
    return result;
  }
  out.offset = source.offset;
  out.reformatted = true;
  return Ok();
}

}  // namespace rastrace::event
