// Helpers shared by the POSIX trace tests.
#pragma once

#include <trace.h>

#include <string>
#include <utility>
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
// The stream's (or log's) event types from its type list, rewound first: id and name.
std::vector<std::pair<trace_event_id_t, std::string>> EventTypes(trace_id_t trid);
// The id of the type named `name` in the type list, or -1 when it is not listed.
long ListedId(trace_id_t trid, const std::string& name);
int IntData(const ReadEvent& e);

}  // namespace rastrace::posix::testing
