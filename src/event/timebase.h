// Conversion of raw timestamps to nanoseconds (hook 00A subhook 25C, docs/log-format.md).
#pragma once

#include <cstdint>
#include <vector>

#include "event/event.h"

namespace rastrace::event {

struct TimeConversion {
  uint64_t multiplier = 1;
  uint64_t divisor = 1;
  uint64_t flag = 0;  // 2: ns = ticks * multiplier / divisor; otherwise ticks are ns
};

class TimeBase {
 public:
  // Takes the conversion from a 00A/25C event; other events are ignored. Returns true when taken.
  bool Observe(const Event& event, ByteOrder order);
  void Set(TimeConversion conversion) { conversion_ = conversion; }
  const TimeConversion& conversion() const { return conversion_; }
  // ticks * m / d with 128-bit intermediate, or ticks when flag != 2 or d == 0.
  uint64_t ToNanoseconds(uint64_t ticks) const;

 private:
  TimeConversion conversion_;
};

// The generic buffer of a 00A/25C event carrying `conversion`.
std::vector<uint8_t> EncodeTimeConversion(const TimeConversion& conversion, ByteOrder order);

}  // namespace rastrace::event
