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
// recorded touch only a few words; recording itself is out of line. A filtered-out type is never
// recorded whatever the stream's state, so the filter bit is tested before the state.
__attribute__((noinline)) void EventToStreams(uint32_t mask, trace_event_id_t event_id,
                                              const void* data_ptr, size_t data_len,
                                              uint64_t prog_address) {
  if (mask & kRegistryDirty) [[unlikely]] {
    RefreshAttachments();
    mask = HotWord().load(std::memory_order_acquire) & ~kRegistryDirty;
  }
  if (event_id >= kMaxLocalIds) return;
  if (data_ptr == nullptr) data_len = 0;
  while (mask != 0) {
    unsigned slot = static_cast<unsigned>(__builtin_ctz(mask));
    mask &= mask - 1;
    Attachment& a = g_attachments[slot];
    StreamShared* s = a.stream.load(std::memory_order_acquire);
    if (s == nullptr) continue;
    uint16_t stream_id = a.xlate[event_id].load(std::memory_order_relaxed);
    if (stream_id != kUnresolved && Filtered(*s, stream_id)) continue;
    uint32_t state = s->state.load(std::memory_order_relaxed);
    if (state != kStateRunning) [[unlikely]] {
      if (state != kStateSuspended || s->auto_stopped.load(std::memory_order_relaxed) != 0) {
        NotRunning(slot, *s, state);
      }
      continue;
    }
    if (stream_id == kUnresolved) [[unlikely]] {
      uint16_t resolved = ResolveEventId(slot, event_id);  // stream id + 1, 0: none
      if (resolved == 0) continue;
      stream_id = static_cast<uint16_t>(resolved - 1);
      if (Filtered(*s, stream_id)) continue;
    }
    Record(*s, stream_id, data_ptr, data_len, prog_address);
  }
}

}  // namespace

// No stream attached to this process (the usual case): one load from a constant address and a
// return. One stream (the next most usual): its id translation, filter bit and state are checked
// here, without a call; a filtered-out type returns after the filter bit, before the state.
API void posix_trace_event(trace_event_id_t event_id, const void* data_ptr, size_t data_len) {
  uint32_t mask = HotWord().load(std::memory_order_acquire);
  if (mask == 0) [[likely]]
    return;
  // One attachment bit and nothing else (kRegistryDirty alone is also one bit: its slot would be
  // out of range, hence the bound on the slot).
  const unsigned slot = static_cast<unsigned>(__builtin_ctz(mask));
  if ((mask & (mask - 1)) == 0 && slot < TRACE_SYS_MAX && event_id < kMaxLocalIds) {
    Attachment& a = g_attachments[slot];
    StreamShared* s = a.stream.load(std::memory_order_acquire);
    if (s != nullptr) {
      uint16_t stream_id = a.xlate[event_id].load(std::memory_order_relaxed);
      if (stream_id != kUnresolved && Filtered(*s, stream_id)) return;
      uint32_t state = s->state.load(std::memory_order_relaxed);
      if (state == kStateRunning && stream_id != kUnresolved) [[likely]] {
        return Record(*s, stream_id, data_ptr, data_ptr == nullptr ? 0 : data_len,
                      reinterpret_cast<uint64_t>(__builtin_return_address(0)));
      }
      if (state == kStateSuspended && s->auto_stopped.load(std::memory_order_relaxed) == 0) return;
    }
  }
  EventToStreams(mask, event_id, data_ptr, data_len,
                 reinterpret_cast<uint64_t>(__builtin_return_address(0)));
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
