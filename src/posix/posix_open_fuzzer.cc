// posix_trace_open on arbitrary log bytes: attributes, names, status and every event are read,
// then the log is rewound and closed. Nothing may crash, hang or allocate without bound.
#include <trace.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "posix/trace_table.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  trace_id_t trid;
  if (rastrace::posix::OpenLogTraceFromBytes(std::vector<uint8_t>(data, data + size), &trid) != 0) {
    return 0;
  }
  trace_attr_t attr;
  posix_trace_get_attr(trid, &attr);
  posix_trace_status_info status;
  posix_trace_get_status(trid, &status);
  char name[TRACE_EVENT_NAME_MAX + 1];
  for (;;) {
    trace_event_id_t id;
    int unavailable = 1;
    if (posix_trace_eventtypelist_getnext_id(trid, &id, &unavailable) != 0 || unavailable) break;
    posix_trace_eventid_get_name(trid, id, name);
  }
  for (int pass = 0; pass < 2; ++pass) {
    for (;;) {
      posix_trace_event_info info;
      char buffer[64];
      size_t len = 0;
      int unavailable = 1;
      if (posix_trace_getnext_event(trid, &info, buffer, sizeof buffer, &len, &unavailable) != 0 ||
          unavailable) {
        break;
      }
      if (len > sizeof buffer) __builtin_trap();
    }
    posix_trace_rewind(trid);
  }
  posix_trace_close(trid);
  return 0;
}
