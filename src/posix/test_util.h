// Helpers shared by the POSIX trace tests.
#pragma once

#include <trace.h>

#include <string>
#include <vector>

namespace rastrace::posix::testing {

struct ReadEvent {
  posix_trace_event_info info{};
  std::vector<unsigned char> data;
};

// A stream size that gives exactly `slots` ring slots for max data size `max_data` (<= 128).
inline size_t StreamSizeForSlots(size_t slots) {
  return slots * (48 + 128);
}

// Reads every event available now (trygetnext, or getnext for a log).
std::vector<ReadEvent> Drain(trace_id_t trid, bool pre_recorded = false);
std::string NameOf(trace_id_t trid, trace_event_id_t id);
int IntData(const ReadEvent& e);

}  // namespace rastrace::posix::testing
