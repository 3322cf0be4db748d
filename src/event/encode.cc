#include "event/encode.h"

#include <cstring>

#include "event/sizes.h"

namespace rastrace::event {
namespace {

// Why `fields` cannot be encoded in `layout`, or nullptr.
const char* Unencodable(const EventFields& fields, Layout layout) {
  if (fields.generic) {
    if (fields.buffer.size() > 0xFFFF) return "generic buffer longer than 65535 bytes";
  } else if (fields.word_count > kMaxDataWords) {
    return "more than 5 data words";
  }
  if (layout == Layout::k32 && !IsTwelveBitId(fields.hook_id)) {
    return "32-bit events need a 12-bit hook id (low nibble of the 16-bit id 0)";
  }
  return nullptr;
}

uint16_t Flags64(const EventFields& fields) {
  uint16_t flags = 0;
  if (fields.timestamped) flags |= kFlagTimestamp;
  if (fields.generic) flags |= kFlagGeneric;
  if (fields.data32) flags |= kFlag32BitData;
  return flags;
}

uint16_t Length64(const EventFields& fields) {
  if (fields.generic) return static_cast<uint16_t>(fields.buffer.size());
  return static_cast<uint16_t>(fields.word_count * (fields.data32 ? 4 : 8));
}

size_t Size64Of(const EventFields& fields) {
  const char* problem = nullptr;
  uint16_t flags = Flags64(fields);
  return Size64(flags, Body64(flags, Length64(fields), &problem));
}

uint8_t Type32Of(const EventFields& fields) {
  if (fields.generic) {
    return fields.timestamped ? kType32Generic | kType32TimestampBit : kType32Generic;
  }
  return Type32For(fields.word_count, fields.timestamped);
}

size_t Size32Of(const EventFields& fields) {
  uint8_t type = Type32Of(fields);
  uint16_t hook_data = fields.generic ? static_cast<uint16_t>(fields.buffer.size()) : 0;
  size_t body = 0;
  Body32(type, hook_data, &body);
  return Size32(type, body);
}

void Encode64(const EventFields& fields, ByteOrder order, uint8_t* p) {
  uint64_t word0 = (uint64_t{Flags64(fields)} << 48) | (uint64_t{Length64(fields)} << 32) |
                   (uint64_t{fields.hook_id} << 16) | fields.subhook;
  Store<uint64_t>(p, word0, order);
  p += 8;
  if (fields.generic) {
    Store<uint64_t>(p, fields.generic_word, order);
    p += 8;
    if (!fields.buffer.empty()) std::memcpy(p, fields.buffer.data(), fields.buffer.size());
    p += PadTo(fields.buffer.size(), 8);
  } else if (fields.data32) {
    for (unsigned i = 0; i < fields.word_count; ++i) {
      Store<uint32_t>(p + 4 * i, static_cast<uint32_t>(fields.words[i]), order);
    }
    p += PadTo(4 * fields.word_count, 8);
  } else {
    for (unsigned i = 0; i < fields.word_count; ++i)
      Store<uint64_t>(p + 8 * i, fields.words[i], order);
    p += 8 * fields.word_count;
  }
  Store<uint64_t>(p, fields.thread_id, order);
  if (fields.timestamped) Store<uint64_t>(p + 8, fields.timestamp, order);
}

void Encode32(const EventFields& fields, ByteOrder order, uint8_t* p) {
  uint8_t type = Type32Of(fields);
  uint16_t hook_data =
      fields.generic ? static_cast<uint16_t>(fields.buffer.size()) : fields.subhook;
  uint32_t hookword = (uint32_t{fields.hook_id} >> 4) << 20 | uint32_t{type} << 16 | hook_data;
  Store<uint32_t>(p, hookword, order);
  p += 4;
  if (fields.generic) {
    Store<uint32_t>(p, static_cast<uint32_t>(fields.generic_word), order);
    p += 4;
    if (!fields.buffer.empty()) std::memcpy(p, fields.buffer.data(), fields.buffer.size());
    p += PadTo(fields.buffer.size(), 4);
  } else {
    // Two to five words are all type 6, which always carries five: the missing ones are zero.
    unsigned count = WordCount32(type);
    for (unsigned i = 0; i < count; ++i) {
      uint64_t word = i < fields.word_count ? fields.words[i] : 0;
      Store<uint32_t>(p + 4 * i, static_cast<uint32_t>(word), order);
    }
    p += 4 * count;
  }
  Store<uint32_t>(p, static_cast<uint32_t>(fields.thread_id), order);
  if (fields.timestamped) Store<uint32_t>(p + 4, static_cast<uint32_t>(fields.timestamp), order);
}

}  // namespace

size_t EncodedSize(const EventFields& fields, Layout layout) {
  if (Unencodable(fields, layout) != nullptr) return 0;
  return layout == Layout::k64 ? Size64Of(fields) : Size32Of(fields);
}

Result<void> Encode(const EventFields& fields, Layout layout, ByteOrder order,
                    std::vector<uint8_t>& out) {
  if (const char* problem = Unencodable(fields, layout)) {
    return MakeError("cannot encode event of hook {:04x} subhook {:04x}: {}", fields.hook_id,
                     fields.subhook, problem);
  }
  size_t size = layout == Layout::k64 ? Size64Of(fields) : Size32Of(fields);
  size_t at = out.size();
  // Zero-filled, so padding bytes are zero without writing them one by one.
  out.resize(at + size);
  if (layout == Layout::k64) {
    Encode64(fields, order, out.data() + at);
  } else {
    Encode32(fields, order, out.data() + at);
  }
  return Ok();
}

void EncodeMagic(Layout layout, ByteOrder order, std::vector<uint8_t>& out) {
  size_t at = out.size();
  out.resize(at + 4);
  Store<uint32_t>(out.data() + at, layout == Layout::k64 ? kMagic64 : kMagic32, order);
}

}  // namespace rastrace::event
