// Seed 002 part C: events from a 32-bit application on a 64-bit kernel (B flag) are shown to
// templates in the 32-bit layout; hook 00B events of a 32-bit log (64-bit data from a 32-bit
// kernel) are shown in the 64-bit layout.
#pragma once

#include <cstdint>
#include <vector>

#include "common/byte_order.h"
#include "common/result.h"
#include "event/event.h"

namespace rastrace::event {

// True when `in` (read from a log of layout `trace_layout`) must be reformatted.
bool NeedsReformat(const Event& in, Layout trace_layout);

// Builds the reformatted event into `out`, its bytes stored in `scratch` (which must outlive the
// use of `out`). The seed's worked examples are the tests:
//   a000001450000005 0000000100000002 0000000300000004 0000000500000000 i t
//     -> 500e0005 00000001 00000002 00000003 00000004 00000005 i t
//   00b8002c 80000028 50000005 0000000000000001 ... 0000000000000005 i t
//     -> 8000002850000005 0000000000000001 ... 0000000000000005 i8 t8
//   00b00012 40000006 50000005 0000000000000001 "hello"
//     -> 4000000650000005 0000000000000001 "hello"
// Thread id and timestamp are 8 bytes in the reformatted bytes. Fails with the event's offset
// when the 00B payload is too short to hold what its flags say.
Result<void> Reformat(const Event& in, Layout trace_layout, ByteOrder order,
                      std::vector<uint8_t>& scratch, Event& out);

}  // namespace rastrace::event
