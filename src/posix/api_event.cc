// The traced process: posix_trace_event (the hot path) and posix_trace_eventid_open; event-type
// sets, which are plain bit sets in the caller's memory.
#include <trace.h>

#include <cerrno>
#include <cstring>

#include "posix/process.h"
#include "posix/stream.h"

using namespace rastrace::posix;

#define API extern "C" __attribute__((visibility("default")))

namespace {

__attribute__((noinline)) void Record(StreamShared& s, uint16_t stream_id, const void* data,
                                      size_t data_len, uint64_t prog_address) {
  const ThreadIdentity& me = Me();
  RecordEvent(s, stream_id, data, data_len, prog_address, Recorder{me.thread, g_pid, me.kernel_tid},
              /*system=*/false);
}

__attribute__((noinline)) void NotRunning(unsigned slot, StreamShared& s, uint32_t state) {
  if (state == kStateShutdown) {
    DropShutDownStream(slot);
  } else if (s.auto_stopped.load(std::memory_order_relaxed) != 0) {
    // UNTIL_FULL stopped the stream: every event generated while it is full is an overrun.
    if (s.stream_overrun.load(std::memory_order_relaxed) == 0) s.stream_overrun.store(1);
  }
}

// The streams of this process, for one event: the checks that decide whether anything is
// recorded touch only a few words; recording itself is out of line.
__attribute__((noinline)) void EventToStreams(std::atomic<uint32_t>& hot, uint32_t mask,
                                              trace_event_id_t event_id, const void* data_ptr,
                                              size_t data_len, uint64_t prog_address) {
  if (mask & kRegistryDirty) [[unlikely]] {
    RefreshAttachments();
    mask = hot.load(std::memory_order_acquire) & ~kRegistryDirty;
  }
  if (event_id >= kMaxLocalIds) return;
  if (data_ptr == nullptr) data_len = 0;
  while (mask != 0) {
    unsigned slot = static_cast<unsigned>(__builtin_ctz(mask));
    mask &= mask - 1;
    Attachment& a = g_attachments[slot];
    StreamShared* s = a.stream.load(std::memory_order_acquire);
    if (s == nullptr) continue;
    uint32_t state = s->state.load(std::memory_order_relaxed);
    if (state != kStateRunning) [[unlikely]] {
      if (state != kStateSuspended || s->auto_stopped.load(std::memory_order_relaxed) != 0) {
        NotRunning(slot, *s, state);
      }
      continue;
    }
    uint16_t stream_id = a.xlate[event_id].load(std::memory_order_relaxed);
    if (stream_id == 0) [[unlikely]] {
      stream_id = ResolveEventId(slot, event_id);
      if (stream_id == 0) continue;
    }
    --stream_id;
    if (Filtered(*s, stream_id)) continue;
    Record(*s, stream_id, data_ptr, data_len, prog_address);
  }
}

}  // namespace

// No stream attached to this process (the usual case): one load and a return. One stream (the
// next most usual): its state, id translation and filter are checked here, without a call.
API void posix_trace_event(trace_event_id_t event_id, const void* data_ptr, size_t data_len) {
  std::atomic<uint32_t>& hot = *g_hot.load(std::memory_order_relaxed);
  uint32_t mask = hot.load(std::memory_order_acquire);
  if (mask == 0) [[likely]]
    return;
  const uint64_t prog_address = reinterpret_cast<uint64_t>(__builtin_return_address(0));
  if ((mask & (mask - 1)) == 0 && mask != kRegistryDirty && event_id < kMaxLocalIds) {
    Attachment& a = g_attachments[__builtin_ctz(mask)];
    StreamShared* s = a.stream.load(std::memory_order_acquire);
    if (s != nullptr) {
      uint32_t state = s->state.load(std::memory_order_relaxed);
      if (state == kStateSuspended && s->auto_stopped.load(std::memory_order_relaxed) == 0) return;
      uint16_t stream_id = a.xlate[event_id].load(std::memory_order_relaxed);
      if (state == kStateRunning && stream_id != 0) {
        if (Filtered(*s, stream_id - 1u)) return;
        return Record(*s, static_cast<uint16_t>(stream_id - 1), data_ptr,
                      data_ptr == nullptr ? 0 : data_len, prog_address);
      }
    }
  }
  EventToStreams(hot, mask, event_id, data_ptr, data_len, prog_address);
}

API int posix_trace_eventid_open(const char* event_name, trace_event_id_t* event_id) {
  if (event_name == nullptr || event_id == nullptr) return EINVAL;
  unsigned id = 0;
  int rc = OpenLocalEventId(event_name, id);
  if (rc == 0) *event_id = id;
  return rc;
}

API int posix_trace_eventset_add(trace_event_id_t event_id, trace_event_set_t* set) {
  if (set == nullptr || event_id >= kMaxEventTypes) return EINVAL;
  set->__bits[event_id / 64] |= 1ULL << (event_id % 64);
  return 0;
}

API int posix_trace_eventset_del(trace_event_id_t event_id, trace_event_set_t* set) {
  if (set == nullptr || event_id >= kMaxEventTypes) return EINVAL;
  set->__bits[event_id / 64] &= ~(1ULL << (event_id % 64));
  return 0;
}

API int posix_trace_eventset_empty(trace_event_set_t* set) {
  if (set == nullptr) return EINVAL;
  std::memset(set, 0, sizeof *set);
  return 0;
}

API int posix_trace_eventset_fill(trace_event_set_t* set, int what) {
  if (set == nullptr) return EINVAL;
  switch (what) {
    case POSIX_TRACE_WOPID_EVENTS:
      // Every system event of this implementation is independent of any process.
      std::memset(set, 0, sizeof *set);
      set->__bits[0] = (1ULL << POSIX_TRACE_UNNAMED_USER_EVENT) - 1;
      return 0;
    case POSIX_TRACE_SYSTEM_EVENTS:
      std::memset(set, 0, sizeof *set);
      set->__bits[0] = (1ULL << kFirstUserId) - 1;
      set->__bits[0] &= ~(1ULL << POSIX_TRACE_UNNAMED_USER_EVENT);
      return 0;
    case POSIX_TRACE_ALL_EVENTS:
      std::memset(set, 0xFF, sizeof *set);
      return 0;
    default:
      return EINVAL;
  }
}

API int posix_trace_eventset_ismember(trace_event_id_t event_id, const trace_event_set_t* set,
                                      int* ismember) {
  if (set == nullptr || ismember == nullptr || event_id >= kMaxEventTypes) return EINVAL;
  *ismember = (set->__bits[event_id / 64] >> (event_id % 64)) & 1 ? 1 : 0;
  return 0;
}
