// Encoding of events into the bytes of a log.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "common/byte_order.h"
#include "common/result.h"
#include "event/event.h"

namespace rastrace::event {

// Size in bytes of `fields` encoded in `layout`. 0 when the fields cannot be encoded (more than 5
// words, a generic buffer over 65535 bytes, a 32-bit event whose id is not 12-bit).
size_t EncodedSize(const EventFields& fields, Layout layout);

// Appends the encoded event to `out`. 64-bit: word 0 ffffllllhhhhssss, data words (4-byte packed
// and padded to 8 with B), or data word + buffer padded to 8; then thread id and timestamp (8 bytes
// each). 32-bit: MMMTDDDD, types 1/2/6/0 (|8 with timestamp; 2..5 words are type 6 with five
// words), buffer padded to 4, thread id and timestamp 4 bytes each.
Result<void> Encode(const EventFields& fields, Layout layout, ByteOrder order,
                    std::vector<uint8_t>& out);

// Appends the 4-byte magic of `layout` in `order`.
void EncodeMagic(Layout layout, ByteOrder order, std::vector<uint8_t>& out);

}  // namespace rastrace::event
