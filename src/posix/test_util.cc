#include "posix/test_util.h"

#include <cstring>

namespace rastrace::posix::testing {

std::vector<ReadEvent> Drain(trace_id_t trid, bool pre_recorded) {
  std::vector<ReadEvent> out;
  for (;;) {
    ReadEvent e;
    e.data.resize(1024);
    size_t len = 0;
    int unavailable = 0;
    int rc = pre_recorded ? posix_trace_getnext_event(trid, &e.info, e.data.data(), e.data.size(),
                                                      &len, &unavailable)
                          : posix_trace_trygetnext_event(trid, &e.info, e.data.data(),
                                                         e.data.size(), &len, &unavailable);
    if (rc != 0 || unavailable) break;
    e.data.resize(len);
    out.push_back(std::move(e));
  }
  return out;
}

std::string NameOf(trace_id_t trid, trace_event_id_t id) {
  char name[TRACE_EVENT_NAME_MAX + 1] = {};
  if (posix_trace_eventid_get_name(trid, id, name) != 0) return "<none>";
  return name;
}

std::vector<std::pair<trace_event_id_t, std::string>> EventTypes(trace_id_t trid) {
  std::vector<std::pair<trace_event_id_t, std::string>> types;
  if (posix_trace_eventtypelist_rewind(trid) != 0) return types;
  for (;;) {
    trace_event_id_t id = 0;
    int unavailable = 0;
    if (posix_trace_eventtypelist_getnext_id(trid, &id, &unavailable) != 0 || unavailable) break;
    types.emplace_back(id, NameOf(trid, id));
  }
  return types;
}

long ListedId(trace_id_t trid, const std::string& name) {
  for (const auto& [id, type_name] : EventTypes(trid)) {
    if (type_name == name) return static_cast<long>(id);
  }
  return -1;
}

int IntData(const ReadEvent& e) {
  int v = -1;
  if (e.data.size() >= sizeof v) std::memcpy(&v, e.data.data(), sizeof v);
  return v;
}

}  // namespace rastrace::posix::testing
