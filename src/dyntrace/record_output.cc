#include "dyntrace/record_output.h"

#include <time.h>

namespace rastrace::dyntrace {

uint64_t RealtimeNow() {
  timespec now;
  clock_gettime(CLOCK_REALTIME, &now);
  return static_cast<uint64_t>(now.tv_sec) * 1000000000u + static_cast<uint64_t>(now.tv_nsec);
}

uint8_t StdaFlags(const BuiltRecord& built) {
  // Values of seed 000's trailer flags (docs/spec os2.md): bit 0 set = not kernel generated,
  // bit 3 dynamic, bit 4 incomplete dynamic record; bit 1 clear = a timestamp is present.
  uint8_t flags = 0x01 | 0x08;
  if (built.incomplete) flags |= 0x10;
  return flags;
}

void RecordOutput::Count(const Result<void>& stored) {
  if (stored) {
    ++records_;
    return;
  }
  if (failed_++ == 0) first_failure_ = stored.error().message;
}

}  // namespace rastrace::dyntrace
