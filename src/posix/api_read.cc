// The trace analyzer: reading events from an active stream (blocking, timed, non-blocking) or
// from a pre-recorded log (posix_trace_open / rewind / close).
#include <trace.h>

#include <cerrno>
#include <cstring>

#include "posix/futex.h"
#include "posix/log_format.h"
#include "posix/trace_table.h"

using namespace rastrace::posix;

#define API extern "C" __attribute__((visibility("default")))

namespace {

enum class Wait { kBlock, kTimed, kNever };

void Report(const EventRecord& e, posix_trace_event_info* event, void* data, size_t num_bytes,
            size_t* data_len) {
  event->posix_event_id = e.event_id;
  event->posix_pid = static_cast<pid_t>(e.pid);
  event->posix_prog_address = reinterpret_cast<void*>(e.prog_address);
  event->posix_timestamp = NsToTimespec(e.realtime_ns);
  event->posix_thread_id = static_cast<pthread_t>(e.thread);
  size_t n = e.data.size();
  event->posix_truncation_status = e.truncation;
  if (n > num_bytes) {
    n = num_bytes;
    event->posix_truncation_status = POSIX_TRACE_TRUNCATED_READ;  // overrides TRUNCATED_RECORD
  }
  if (n != 0) std::memcpy(data, e.data.data(), n);
  *data_len = n;
}

int ReadActive(ActiveTrace& trace, posix_trace_event_info* event, void* data, size_t num_bytes,
               size_t* data_len, int* unavailable, Wait wait, const timespec* deadline) {
  StreamShared& s = *trace.stream;
  if (trace.log) return EINVAL;  // its events belong to the log
  EventRecord e;
  for (;;) {
    bool taken;
    {
      std::lock_guard lock(trace.mutex);
      if (s.state.load(std::memory_order_acquire) == kStateShutdown) return EINVAL;
      taken = trace.reader.TryTake(e);
    }
    if (s.auto_stopped.load(std::memory_order_relaxed) != 0) [[unlikely]] {
      // Reading reuses the room of reported events: a drained UNTIL_FULL stream runs again.
      std::lock_guard lock(trace.control);
      RestartWhenDrained(s);
    }
    if (taken) {
      Report(e, event, data, num_bytes, data_len);
      *unavailable = 0;
      return 0;
    }
    *unavailable = 1;
    *data_len = 0;
    if (wait == Wait::kNever) return 0;
    if (wait == Wait::kTimed && !TimespecBefore(RealtimeAfterMs(0), *deadline)) return ETIMEDOUT;
    s.waiters.fetch_add(1, std::memory_order_seq_cst);
    uint32_t seen = s.wake_seq.load(std::memory_order_seq_cst);
    bool ready = s.head.load() != s.tail.load() || s.state.load() == kStateShutdown;
    int rc = 0;
    if (!ready) {
      // Bounded sleeps: a producer checks `waiters` without a fence (see RecordEvent).
      timespec poll = RealtimeAfterMs(kReaderPollMs);
      const timespec* until = &poll;
      if (wait == Wait::kTimed && TimespecBefore(*deadline, poll)) until = deadline;
      rc = FutexWait(s.wake_seq, seen, until);
    }
    s.waiters.fetch_sub(1, std::memory_order_seq_cst);
    if (rc == EINTR) return EINTR;
  }
}

int ReadLog(LogTrace& trace, posix_trace_event_info* event, void* data, size_t num_bytes,
            size_t* data_len, int* unavailable) {
  std::lock_guard lock(trace.mutex);
  rastrace::event::Event e;
  while (trace.reader->Next(e) == rastrace::event::ReadStatus::kEvent) {
    if (auto decoded = DecodePosixEvent(e, trace.reader->byte_order())) {
      Report(decoded->record, event, data, num_bytes, data_len);
      *unavailable = 0;
      return 0;
    }
  }
  *unavailable = 1;  // the end of the log (or of its last whole event)
  *data_len = 0;
  return 0;
}

int Read(trace_id_t trid, posix_trace_event_info* event, void* data, size_t num_bytes,
         size_t* data_len, int* unavailable, Wait wait, const timespec* deadline) {
  if (event == nullptr || data_len == nullptr || unavailable == nullptr) return EINVAL;
  if (data == nullptr && num_bytes != 0) return EINVAL;
  auto trace = FindTrace(trid);
  if (!trace) return EINVAL;
  if (auto active = std::dynamic_pointer_cast<ActiveTrace>(trace)) {
    return ReadActive(*active, event, data, num_bytes, data_len, unavailable, wait, deadline);
  }
  if (wait != Wait::kBlock) return EINVAL;  // only posix_trace_getnext_event reads a log
  return ReadLog(static_cast<LogTrace&>(*trace), event, data, num_bytes, data_len, unavailable);
}

}  // namespace

API int posix_trace_getnext_event(trace_id_t trid, struct posix_trace_event_info* event, void* data,
                                  size_t num_bytes, size_t* data_len, int* unavailable) {
  return Read(trid, event, data, num_bytes, data_len, unavailable, Wait::kBlock, nullptr);
}

API int posix_trace_timedgetnext_event(trace_id_t trid, struct posix_trace_event_info* event,
                                       void* data, size_t num_bytes, size_t* data_len,
                                       int* unavailable, const struct timespec* abstime) {
  if (abstime == nullptr || abstime->tv_nsec < 0 || abstime->tv_nsec >= 1000000000L) return EINVAL;
  return Read(trid, event, data, num_bytes, data_len, unavailable, Wait::kTimed, abstime);
}

API int posix_trace_trygetnext_event(trace_id_t trid, struct posix_trace_event_info* event,
                                     void* data, size_t num_bytes, size_t* data_len,
                                     int* unavailable) {
  return Read(trid, event, data, num_bytes, data_len, unavailable, Wait::kNever, nullptr);
}

API int posix_trace_open(int file_desc, trace_id_t* trid) {
  if (trid == nullptr) return EINVAL;
  return OpenLogTrace(file_desc, trid);
}

API int posix_trace_rewind(trace_id_t trid) {
  auto trace = std::dynamic_pointer_cast<LogTrace>(FindTrace(trid));
  if (!trace) return EINVAL;
  std::lock_guard lock(trace->mutex);
  return trace->Rewind();
}

API int posix_trace_close(trace_id_t trid) {
  auto trace = std::dynamic_pointer_cast<LogTrace>(FindTrace(trid));
  if (!trace) return EINVAL;
  RemoveTrace(trid);
  return 0;
}
