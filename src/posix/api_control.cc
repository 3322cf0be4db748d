// The trace controller: creating, starting, stopping, filtering and shutting down streams, and
// the event-type functions that take a trace_id_t.
#include <fcntl.h>
#include <sys/mman.h>
#include <trace.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <random>

#include "posix/futex.h"
#include "posix/process.h"
#include "posix/trace_table.h"

using namespace rastrace::posix;

#define API extern "C" __attribute__((visibility("default")))

namespace {

std::atomic<unsigned> g_stream_counter{0};

std::string NewStreamName() {
  std::random_device random;
  char name[kShmNameMax];
  std::snprintf(name, sizeof name, "/rastrace-posix-stream.%d.%u.%08x", static_cast<int>(g_pid),
                g_stream_counter.fetch_add(1), random());
  return name;
}

std::shared_ptr<ActiveTrace> FindActive(trace_id_t trid) {
  return std::dynamic_pointer_cast<ActiveTrace>(FindTrace(trid));
}

int Create(pid_t pid, const trace_attr_t* attr, int log_fd, trace_id_t* trid) {
  if (trid == nullptr) return EINVAL;
  if (pid < 0) return ESRCH;  // the standard's error for a pid that names no process
  trace_attr_t a{};
  if (attr == nullptr) {
    posix_trace_attr_init(&a);
  } else {
    if (attr->__magic != kAttrMagic) return EINVAL;
    a = *attr;
  }
  const bool has_log = log_fd >= 0;
  if (a.__stream_policy == 0) a.__stream_policy = has_log ? POSIX_TRACE_FLUSH : POSIX_TRACE_LOOP;
  if (a.__stream_policy == POSIX_TRACE_FLUSH && !has_log) return EINVAL;
  if (has_log && fcntl(log_fd, F_GETFL) < 0) return EBADF;
  clock_gettime(CLOCK_REALTIME, &a.__create_time);
  const pid_t target = pid == 0 ? static_cast<pid_t>(g_pid) : pid;

  StreamGeometry geometry = GeometryFor(a);
  std::string name = NewStreamName();
  int fd = shm_open(name.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) return errno == EMFILE || errno == ENFILE ? EAGAIN : ENOMEM;
  void* map = MAP_FAILED;
  if (ftruncate(fd, static_cast<off_t>(geometry.map_bytes)) == 0) {
    map = mmap(nullptr, geometry.map_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  }
  close(fd);
  if (map == MAP_FAILED) {
    shm_unlink(name.c_str());
    return ENOMEM;
  }
  auto* s = static_cast<StreamShared*>(map);
  StreamParams params;
  params.attr = a;
  params.has_log = has_log ? 1 : 0;
  params.target_pid = target;
  InitStream(*s, params);
  auto trace = std::make_shared<ActiveTrace>(s, geometry.map_bytes, name, target);
  // The event types the target opened so far are listed at once, at the ids it uses.
  if (int rc = AttachStreamTo(target, name, *s); rc != 0) {
    shm_unlink(name.c_str());
    return rc;
  }
  // Our own registry maps the stream at once; another process opens it by name later.
  if (target == g_pid) shm_unlink(name.c_str());
  if (has_log) {
    if (int rc =
            LogSink::Start(log_fd, *s, trace->reader, trace->mutex, trace->control, trace->log);
        rc != 0) {
      s->state.store(kStateShutdown);
      DetachStreamFrom(target, name);
      shm_unlink(name.c_str());
      return rc;
    }
  }
  *trid = AddTrace(std::move(trace));
  return 0;
}

}  // namespace

API int posix_trace_create(pid_t pid, const trace_attr_t* attr, trace_id_t* trid) {
  return Create(pid, attr, -1, trid);
}

API int posix_trace_create_withlog(pid_t pid, const trace_attr_t* attr, int file_desc,
                                   trace_id_t* trid) {
  if (file_desc < 0) return EBADF;
  return Create(pid, attr, file_desc, trid);
}

API int posix_trace_start(trace_id_t trid) {
  auto trace = FindActive(trid);
  if (!trace) return EINVAL;
  std::lock_guard lock(trace->control);
  StreamShared& s = *trace->stream;
  if (s.state.load() == kStateRunning) return 0;
  // "If the trace stream is full, the POSIX_TRACE_START trace event shall not be recorded and
  // the status of the trace stream shall not be changed": a bounded stream with no room left.
  // (A LOOP stream always has room: it overwrites.) UNTIL_FULL restarts once it is drained.
  if (s.stream_policy != POSIX_TRACE_LOOP && s.head.load() - s.tail.load() >= s.capacity) return 0;
  s.auto_stopped.store(0);
  s.full.store(0);
  trace_event_set_t filter = FilterOf(s);
  RecordSystemEvent(s, POSIX_TRACE_START, &filter, sizeof filter);
  s.state.store(kStateRunning, std::memory_order_release);
  return 0;
}

API int posix_trace_stop(trace_id_t trid) {
  auto trace = FindActive(trid);
  if (!trace) return EINVAL;
  std::lock_guard lock(trace->control);
  StreamShared& s = *trace->stream;
  uint32_t running = kStateRunning;
  if (!s.state.compare_exchange_strong(running, kStateSuspended)) {
    // Stopped already. When UNTIL_FULL stopped it, it stays stopped now instead of restarting
    // once drained; its status (SUSPENDED, FULL) does not change and no STOP is recorded.
    s.auto_stopped.store(0);
    return 0;
  }
  int automatic = 0;
  RecordSystemEvent(s, POSIX_TRACE_STOP, &automatic, sizeof automatic);
  return 0;
}

API int posix_trace_shutdown(trace_id_t trid) {
  auto trace = std::dynamic_pointer_cast<ActiveTrace>(FindTrace(trid));
  if (!trace) return EINVAL;
  RemoveTrace(trid);
  StreamShared& s = *trace->stream;
  {
    std::lock_guard lock(trace->control);
    uint32_t running = kStateRunning;
    if (s.state.compare_exchange_strong(running, kStateSuspended)) {
      int automatic = 0;
      RecordSystemEvent(s, POSIX_TRACE_STOP, &automatic, sizeof automatic);
    }
  }
  if (trace->log) trace->log->Finish();
  s.state.store(kStateShutdown, std::memory_order_release);
  WakeReaders(s);  // blocked readers return EINVAL
  DetachStreamFrom(trace->target, trace->shm_name);
  if (trace->target != g_pid) shm_unlink(trace->shm_name.c_str());
  return 0;
}

API int posix_trace_clear(trace_id_t trid) {
  auto trace = FindActive(trid);
  if (!trace) return EINVAL;
  // "The trace stream status shall remain unchanged": running stays running, suspended stays
  // suspended, also when UNTIL_FULL suspended it (StreamReader::Clear cancels that restart).
  // The reader's lock first, as the log flusher takes them.
  std::lock_guard lock(trace->mutex);
  std::lock_guard control(trace->control);
  trace->reader.Clear();
  return 0;
}

API int posix_trace_flush(trace_id_t trid) {
  auto trace = FindActive(trid);
  if (!trace || !trace->log) return EINVAL;
  trace->stream->flush_status.store(POSIX_TRACE_FLUSHING);
  trace->log->RequestFlush();
  return 0;
}

API int posix_trace_get_attr(trace_id_t trid, trace_attr_t* attr) {
  if (attr == nullptr) return EINVAL;
  auto trace = FindTrace(trid);
  if (!trace) return EINVAL;
  if (auto active = std::dynamic_pointer_cast<ActiveTrace>(trace)) {
    *attr = active->stream->attr;
  } else {
    *attr = static_cast<LogTrace&>(*trace).attr;
  }
  attr->__magic = kAttrMagic;
  return 0;
}

API int posix_trace_get_status(trace_id_t trid, struct posix_trace_status_info* info) {
  if (info == nullptr) return EINVAL;
  auto trace = FindTrace(trid);
  if (!trace) return EINVAL;
  if (auto active = std::dynamic_pointer_cast<ActiveTrace>(trace)) {
    StreamShared& s = *active->stream;
    uint32_t state = s.state.load();
    info->posix_stream_status =
        state == kStateRunning ? POSIX_TRACE_RUNNING : POSIX_TRACE_SUSPENDED;
    info->posix_stream_full_status = s.full.load() ? POSIX_TRACE_FULL : POSIX_TRACE_NOT_FULL;
    // Seed 003: the overrun statuses and the flush error are reset once read.
    info->posix_stream_overrun_status =
        s.stream_overrun.exchange(0) ? POSIX_TRACE_OVERRUN : POSIX_TRACE_NO_OVERRUN;
    info->posix_stream_flush_status = static_cast<int>(s.flush_status.load());
    info->posix_stream_flush_error = s.flush_error.exchange(0);
    info->posix_log_overrun_status =
        s.log_overrun.exchange(0) ? POSIX_TRACE_OVERRUN : POSIX_TRACE_NO_OVERRUN;
    info->posix_log_full_status = s.log_full.load() ? POSIX_TRACE_FULL : POSIX_TRACE_NOT_FULL;
    return 0;
  }
  auto& log = static_cast<LogTrace&>(*trace);
  std::lock_guard lock(log.mutex);
  info->posix_stream_status = POSIX_TRACE_SUSPENDED;
  info->posix_stream_full_status = log.status.stream_full ? POSIX_TRACE_FULL : POSIX_TRACE_NOT_FULL;
  info->posix_stream_overrun_status = log.status.stream_overrun ? POSIX_TRACE_OVERRUN : 0;
  info->posix_stream_flush_status = POSIX_TRACE_NOT_FLUSHING;
  info->posix_stream_flush_error = static_cast<int>(log.status.flush_error);
  info->posix_log_overrun_status = log.status.log_overrun ? POSIX_TRACE_OVERRUN : 0;
  info->posix_log_full_status = log.status.log_full ? POSIX_TRACE_FULL : POSIX_TRACE_NOT_FULL;
  log.status.stream_overrun = 0;
  log.status.log_overrun = 0;
  log.status.flush_error = 0;
  return 0;
}

API int posix_trace_get_filter(trace_id_t trid, trace_event_set_t* set) {
  if (set == nullptr) return EINVAL;
  auto trace = FindActive(trid);
  if (!trace) return EINVAL;
  *set = FilterOf(*trace->stream);
  return 0;
}

API int posix_trace_set_filter(trace_id_t trid, const trace_event_set_t* set, int how) {
  if (set == nullptr) return EINVAL;
  if (how != POSIX_TRACE_SET_EVENTSET && how != POSIX_TRACE_ADD_EVENTSET &&
      how != POSIX_TRACE_SUB_EVENTSET)
    return EINVAL;
  auto trace = FindActive(trid);
  if (!trace) return EINVAL;
  std::lock_guard lock(trace->control);
  StreamShared& s = *trace->stream;
  trace_event_set_t change[2];  // old and new: the data of POSIX_TRACE_FILTER
  change[0] = FilterOf(s);
  for (unsigned i = 0; i < kMaxEventTypes / 64; ++i) {
    uint64_t old_bits = change[0].__bits[i];
    uint64_t bits = set->__bits[i];
    if (how == POSIX_TRACE_ADD_EVENTSET) bits = old_bits | bits;
    if (how == POSIX_TRACE_SUB_EVENTSET) bits = old_bits & ~bits;
    change[1].__bits[i] = bits;
    s.filter[i].store(bits, std::memory_order_relaxed);
  }
  if (s.state.load() == kStateRunning) {
    RecordSystemEvent(s, POSIX_TRACE_FILTER, change, sizeof change);
  }
  return 0;
}

API int posix_trace_trid_eventid_open(trace_id_t trid, const char* event_name,
                                      trace_event_id_t* event) {
  if (event_name == nullptr || event == nullptr) return EINVAL;
  auto trace = FindActive(trid);
  if (!trace) return EINVAL;
  if (std::strlen(event_name) > TRACE_EVENT_NAME_MAX) return ENAMETOOLONG;
  unsigned hint = 0;
  // For a stream tracing this process, the id is the one posix_trace_eventid_open gives.
  if (trace->target == g_pid) (void)OpenLocalEventId(event_name, hint);
  *event = AddName(*trace->stream, event_name, hint);
  return 0;
}

API int posix_trace_eventid_equal(trace_id_t trid, trace_event_id_t event1,
                                  trace_event_id_t event2) {
  (void)trid;  // ids are numbers of one stream: equal ids name the same type
  return event1 == event2 ? 1 : 0;
}

API int posix_trace_eventid_get_name(trace_id_t trid, trace_event_id_t event, char* event_name) {
  if (event_name == nullptr) return EINVAL;
  auto trace = FindTrace(trid);
  if (!trace || event >= kMaxEventTypes) return EINVAL;
  std::string name;
  if (auto active = std::dynamic_pointer_cast<ActiveTrace>(trace)) {
    if (!NameOf(*active->stream, event, name)) return EINVAL;
  } else {
    auto& log = static_cast<LogTrace&>(*trace);
    if (!log.named[event]) return EINVAL;
    name = log.names[event];
  }
  std::snprintf(event_name, TRACE_EVENT_NAME_MAX + 1, "%s", name.c_str());
  return 0;
}

API int posix_trace_eventtypelist_getnext_id(trace_id_t trid, trace_event_id_t* event,
                                             int* unavailable) {
  if (event == nullptr || unavailable == nullptr) return EINVAL;
  auto trace = FindTrace(trid);
  if (!trace) return EINVAL;
  auto active = std::dynamic_pointer_cast<ActiveTrace>(trace);
  std::lock_guard lock(trace->mutex);
  std::string name;
  for (unsigned id = trace->type_cursor; id < kMaxEventTypes; ++id) {
    bool known =
        active ? NameOf(*active->stream, id, name) : static_cast<LogTrace&>(*trace).named[id];
    if (known) {
      *event = id;
      *unavailable = 0;
      trace->type_cursor = id + 1;
      return 0;
    }
  }
  trace->type_cursor = kMaxEventTypes;
  *unavailable = 1;
  return 0;
}

API int posix_trace_eventtypelist_rewind(trace_id_t trid) {
  auto trace = FindTrace(trid);
  if (!trace) return EINVAL;
  std::lock_guard lock(trace->mutex);
  trace->type_cursor = 0;
  return 0;
}
