// Decoding of one event from bytes that may hold only part of it (the reader's window).
#pragma once

#include <cstddef>
#include <span>
#include <string>

#include "common/byte_order.h"
#include "event/event.h"

namespace rastrace::event {

enum class DecodeStatus { kOk, kNeedMore, kCorrupt };

struct DecodeResult {
  DecodeStatus status = DecodeStatus::kOk;
  // kOk: the size of the event; kNeedMore: the bytes needed to go on (the whole event once its
  // first word is known).
  size_t size = 0;
  std::string problem;  // kCorrupt: what is wrong, without the offset
};

// Decodes the event at the start of `bytes` into `out` (all fields but `offset`). Spans in `out`
// point into `bytes`.
DecodeResult DecodeEvent(std::span<const uint8_t> bytes, Layout layout, ByteOrder order,
                         Event& out);

}  // namespace rastrace::event
