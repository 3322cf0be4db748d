// The shared-memory layouts of a POSIX trace stream and of a traced process's registry. Both live
// in POSIX shared memory objects (mode 0600) so that a controller in one process can trace another
// process that uses the library, and so that INHERITED streams survive fork.
#pragma once

#include <pthread.h>
#include <trace.h>

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace rastrace::posix {

inline constexpr uint32_t kStreamMagic = 0x52545053;    // "SPTR"
inline constexpr uint32_t kRegistryMagic = 0x32545052;  // "RPT2": with the event-type names
inline constexpr uint32_t kLayoutVersion = 1;
inline constexpr unsigned kAttrMagic = 0x41545452;  // marks an initialized trace_attr_t

// Event type ids: 0..15 system, 16..511 user (per stream). A process hands out ids from 16 up.
inline constexpr unsigned kMaxEventTypes = 512;
inline constexpr unsigned kFirstUserId = 16;
inline constexpr unsigned kSystemEventCount = 9;  // START .. UNNAMED_USER_EVENT
inline constexpr unsigned kMaxLocalIds = kFirstUserId + TRACE_USER_EVENT_MAX;
static_assert(kMaxLocalIds <= kMaxEventTypes);
static_assert(sizeof(trace_event_set_t) * 8 == kMaxEventTypes);

// The largest system event payload: POSIX_TRACE_FILTER carries the old and the new filter.
inline constexpr size_t kMaxSystemData = 2 * sizeof(trace_event_set_t);
inline constexpr size_t kDefaultMaxDataSize = 256;
inline constexpr size_t kDefaultStreamSize = size_t{1} << 20;
inline constexpr size_t kDefaultLogSize = size_t{16} << 20;
inline constexpr size_t kMinSlots = 2;
inline constexpr size_t kMaxStreamSize = size_t{1} << 32;
inline constexpr size_t kShmNameMax = 64;
inline constexpr uint32_t kRegistryDirty = 1u << 31;

// Stream states beyond the two POSIX ones: a shut down stream is never recorded into again.
inline constexpr uint32_t kStateRunning = POSIX_TRACE_RUNNING;
inline constexpr uint32_t kStateSuspended = POSIX_TRACE_SUSPENDED;
inline constexpr uint32_t kStateShutdown = 3;

// One recorded event. `seq` is 2*index+1 while the slot is being written and 2*index+2 once the
// event of ring index `index` is complete, so a reader can tell a finished event from one being
// written or already overwritten by a later lap.
struct SlotHeader {
  std::atomic<uint64_t> seq;
  uint64_t ticks;
  uint64_t prog_address;
  uint64_t thread;  // pthread_t of the recording thread, 0 for system events
  int32_t pid;
  int32_t kernel_tid;
  uint16_t event_id;
  uint16_t truncation;
  uint32_t length;  // bytes of data that follow
};
static_assert(sizeof(SlotHeader) == 48);

// TSC (or clock) ticks to CLOCK_REALTIME: ns = base_ns + (ticks - base_ticks) * ns_per_tick.
struct TickCalibration {
  uint64_t base_ticks;
  int64_t base_ns;
  double ns_per_tick;
  uint32_t uses_tsc;
};

struct NameEntry {
  std::atomic<uint32_t> used;
  char name[TRACE_EVENT_NAME_MAX + 1];
};

struct alignas(64) StreamShared {
  uint32_t magic;
  uint32_t version;
  uint32_t owner_uid;
  int32_t creator_pid;
  int32_t target_pid;
  uint32_t has_log;
  uint32_t stream_policy;  // effective policy
  uint32_t inherited;
  trace_attr_t attr;       // as created, with the effective policies and creation time
  uint64_t max_data;       // user data bytes kept per event
  uint64_t data_capacity;  // bytes of data per slot (>= max_data, >= kMaxSystemData)
  uint64_t slot_size;
  uint64_t slot_count;      // ring slots
  uint64_t capacity;        // user events that fit: slot_count - 1 (one slot kept for STOP)
  uint64_t fill_threshold;  // bounded policies: events in the ring that call for action
  uint64_t map_bytes;
  TickCalibration clock;

  alignas(64) std::atomic<uint32_t> state;
  std::atomic<uint32_t> full;
  std::atomic<uint32_t> stream_overrun;
  std::atomic<uint32_t> auto_stopped;
  std::atomic<uint32_t> flush_status;
  std::atomic<int32_t> flush_error;
  std::atomic<uint32_t> log_overrun;
  std::atomic<uint32_t> log_full;
  std::atomic<uint64_t> filter[kMaxEventTypes / 64];

  alignas(64) std::atomic<uint64_t> head;  // next ring index to reserve
  alignas(64) std::atomic<uint64_t> tail;  // next ring index to read

  alignas(64) std::atomic<uint32_t> wake_seq;  // futex word: bumped when readers must look again
  std::atomic<uint32_t> waiters;
  std::atomic<uint32_t> flush_request;  // futex word of the flusher
  std::atomic<uint32_t> overflow_pending;
  std::atomic<uint64_t> overflow_ticks;  // time of the first overwritten unread event
  std::atomic<uint64_t> lost_in_flush;   // FLUSH policy: events dropped since the last flush

  pthread_mutex_t names_mutex;  // process-shared, robust
  NameEntry names[kMaxEventTypes];
  // slot_count slots of slot_size bytes follow, at SlotsOffset().
};

inline constexpr size_t SlotsOffset() {
  return (sizeof(StreamShared) + 63) / 64 * 64;
}

// Streams attached to one traced process: a controller writes the shared memory name of its
// stream into a free entry and sets kRegistryDirty in `hot`; the traced process notices on its
// next event. The low bits of `hot` are the attachment slots the traced process uses, so that
// posix_trace_event learns from one word that it has nothing to do.
// `names` mirrors the event types the process opened (id kFirstUserId + i), so that a controller
// creating a stream for it lists them at once, without waiting for the process to run.
struct RegistryShared {
  uint32_t magic;
  uint32_t owner_uid;
  int32_t pid;
  std::atomic<uint32_t> hot;
  uint64_t start_time;    // of the process (/proc stat field 22): the same across exec
  pthread_mutex_t mutex;  // process-shared, robust
  struct Entry {
    std::atomic<uint32_t> used;
    char name[kShmNameMax];
  } entries[TRACE_SYS_MAX];
  uint32_t name_count;  // written under `mutex`
  char names[TRACE_USER_EVENT_MAX][TRACE_EVENT_NAME_MAX + 1];
};

}  // namespace rastrace::posix
