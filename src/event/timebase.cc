#include "event/timebase.h"

#include <limits>

namespace rastrace::event {

bool TimeBase::Observe(const Event& event, ByteOrder order) {
  if (event.hook_id != kHookUtil || !event.generic) return false;
  // A recorded 32-bit generic event has no subhook field (its hook data is the length): there the
  // subhook travels in the data word. Reformatted events keep the subhook they were recorded with.
  bool native32 = event.layout == Layout::k32 && !event.reformatted;
  uint64_t subhook = native32 ? event.generic_word : event.subhook;
  if (subhook != kUtilTimeConversion || event.buffer.size() < 24) return false;
  const uint8_t* p = event.buffer.data();
  conversion_ = {Load64(p, order), Load64(p + 8, order), Load64(p + 16, order)};
  return true;
}

uint64_t TimeBase::ToNanoseconds(uint64_t ticks) const {
  if (conversion_.flag != 2 || conversion_.divisor == 0) return ticks;
  unsigned __int128 ns =
      static_cast<unsigned __int128>(ticks) * conversion_.multiplier / conversion_.divisor;
  if (ns > std::numeric_limits<uint64_t>::max()) return std::numeric_limits<uint64_t>::max();
  return static_cast<uint64_t>(ns);
}

std::vector<uint8_t> EncodeTimeConversion(const TimeConversion& conversion, ByteOrder order) {
  std::vector<uint8_t> buffer(24);
  Store<uint64_t>(buffer.data(), conversion.multiplier, order);
  Store<uint64_t>(buffer.data() + 8, conversion.divisor, order);
  Store<uint64_t>(buffer.data() + 16, conversion.flag, order);
  return buffer;
}

}  // namespace rastrace::event
