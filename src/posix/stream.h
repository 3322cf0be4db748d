// Recording into and reading from a stream's ring (StreamShared + slots in shared memory).
//
// Producers in any process reserve a ring index (fetch_add under LOOP, a bounded CAS otherwise),
// fill the slot and publish it through the slot's sequence word; one consumer per stream (the
// analyzer or the log flusher of the controller) reads in index order. The recording path takes
// no lock and makes no system call.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "posix/layout.h"
#include "posix/tick_clock.h"

namespace rastrace::posix {

inline SlotHeader& SlotAt(StreamShared& s, uint64_t index) {
  auto* base = reinterpret_cast<uint8_t*>(&s) + SlotsOffset();
  return *reinterpret_cast<SlotHeader*>(base + (index % s.slot_count) * s.slot_size);
}

inline bool Filtered(const StreamShared& s, unsigned id) {
  return (s.filter[id / 64].load(std::memory_order_relaxed) >> (id % 64)) & 1;
}

// Who records an event (system events: all zero).
struct Recorder {
  uint64_t thread = 0;
  int32_t pid = 0;
  int32_t kernel_tid = 0;
};

// The cold paths of RecordEvent.
void OnLoopWrap(StreamShared& s, uint64_t index, uint64_t tail);
void OnBoundedFull(StreamShared& s, bool system);
void OnFilling(StreamShared& s, uint64_t count, bool system);
void WakeReaders(StreamShared& s);

// Records one event. System events may use the slot kept for the automatic STOP and carry up to
// kMaxSystemData bytes; user data beyond max_data is cut and marked TRUNCATED_RECORD.
inline void RecordEvent(StreamShared& s, uint16_t id, const void* data, size_t length,
                        uint64_t prog_address, const Recorder& who, bool system) {
  uint16_t truncation = POSIX_TRACE_NOT_TRUNCATED;
  const size_t limit = system ? s.data_capacity : s.max_data;
  if (length > limit) {
    length = limit;
    truncation = POSIX_TRACE_TRUNCATED_RECORD;
  }
  uint64_t index;
  uint64_t tail;
  if (s.stream_policy == POSIX_TRACE_LOOP) {
    index = s.head.fetch_add(1, std::memory_order_relaxed);
    tail = s.tail.load(std::memory_order_relaxed);
    if (index - tail >= s.slot_count - 1) [[unlikely]]
      OnLoopWrap(s, index, tail);
  } else {
    const uint64_t room = system ? s.slot_count : s.capacity;
    index = s.head.load(std::memory_order_relaxed);
    for (;;) {
      tail = s.tail.load(std::memory_order_acquire);
      if (index - tail >= room) [[unlikely]] {
        OnBoundedFull(s, system);
        return;
      }
      if (s.head.compare_exchange_weak(index, index + 1, std::memory_order_relaxed)) break;
    }
  }
  SlotHeader& slot = SlotAt(s, index);
  slot.seq.store(2 * index + 1, std::memory_order_relaxed);
  std::atomic_thread_fence(std::memory_order_release);
  slot.ticks = NowTicks();
  slot.prog_address = prog_address;
  slot.thread = who.thread;
  slot.pid = who.pid;
  slot.kernel_tid = who.kernel_tid;
  slot.event_id = id;
  slot.truncation = truncation;
  slot.length = static_cast<uint32_t>(length);
  if (length != 0)
    std::memcpy(reinterpret_cast<uint8_t*>(&slot) + sizeof(SlotHeader), data, length);
  slot.seq.store(2 * index + 2, std::memory_order_release);
  // Readers sleeping on an empty stream (rare) are woken here; a reader also wakes on its own
  // within kReaderPollMs, which covers the store-load race of this unfenced check.
  if (s.waiters.load(std::memory_order_relaxed) != 0) [[unlikely]]
    WakeReaders(s);
  if (s.stream_policy != POSIX_TRACE_LOOP && index + 1 - tail >= s.fill_threshold) [[unlikely]]
    OnFilling(s, index + 1 - tail, system);
}

inline constexpr long kReaderPollMs = 20;

// A system event from the controller (pid and thread 0).
void RecordSystemEvent(StreamShared& s, uint16_t id, const void* data, size_t length);

// The filter as a trace_event_set_t (the data of POSIX_TRACE_START and POSIX_TRACE_FILTER).
trace_event_set_t FilterOf(const StreamShared& s);

// Stream-full policy UNTIL_FULL: "the trace system shall restart the trace stream when it is
// empty and may restart it sooner. A POSIX_TRACE_START trace event shall be reported before
// reporting the next recorded trace event" (POSIX, posix_trace_attr_getstreamfullpolicy). Once
// every event of a stream that stopped itself was reported or flushed, it runs again and records
// START. A stream whose UNTIL_FULL log is full stays stopped: STOP is that log's last event.
// Returns true when it restarted. The caller holds the trace's control mutex, so the START is
// never interleaved with posix_trace_start/stop.
bool RestartWhenDrained(StreamShared& s);

// What the stream is created with.
struct StreamParams {
  trace_attr_t attr;  // effective attributes (policies resolved, create time set)
  uint32_t has_log = 0;
  int32_t target_pid = 0;
};

// Bytes of shared memory a stream with these attributes needs, and its ring geometry.
struct StreamGeometry {
  uint64_t max_data;
  uint64_t data_capacity;
  uint64_t slot_size;
  uint64_t slot_count;
  uint64_t map_bytes;
};
StreamGeometry GeometryFor(const trace_attr_t& attr);

// Initializes freshly zeroed shared memory of GeometryFor(params.attr).map_bytes bytes.
void InitStream(StreamShared& s, const StreamParams& params);

// The name of system event type `id` (posix_trace_start, ...); empty for other ids.
std::string_view SystemEventName(unsigned id);

// Event-type names of the stream. AddName returns the id of `name`, adding it (at `hint` when
// that user id is free) when new; POSIX_TRACE_UNNAMED_USER_EVENT when the table is full.
std::optional<unsigned> FindName(StreamShared& s, std::string_view name);
unsigned AddName(StreamShared& s, std::string_view name, unsigned hint);
bool NameOf(const StreamShared& s, unsigned id, std::string& out);

// A decoded event, as the analyzer and the log writer see it.
struct EventRecord {
  uint16_t event_id = 0;
  uint16_t truncation = 0;
  int32_t pid = 0;
  int32_t kernel_tid = 0;
  uint64_t thread = 0;
  uint64_t prog_address = 0;
  uint64_t realtime_ns = 0;
  std::vector<uint8_t> data;
};

// The single consumer of a stream: oldest first, each event once, with POSIX_TRACE_OVERFLOW
// (time of the first lost event) and POSIX_TRACE_RESUME (just before the next event) wherever
// events were lost.
class StreamReader {
 public:
  explicit StreamReader(StreamShared& s) : s_(s) {}
  // False when no event is ready now.
  bool TryTake(EventRecord& out);
  // Discards everything recorded so far (posix_trace_clear).
  void Clear();

 private:
  bool TakeSlot(EventRecord& out);
  StreamShared& s_;
  std::deque<EventRecord> queued_;
  bool lost_ = false;
  uint64_t lost_ticks_ = 0;
  bool lost_ticks_known_ = false;
};

}  // namespace rastrace::posix
