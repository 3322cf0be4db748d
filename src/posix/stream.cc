#include "posix/stream.h"

#include <unistd.h>

#include <algorithm>

#include "posix/futex.h"
#include "posix/shared_mutex.h"

namespace rastrace::posix {
namespace {

// The names XSH gives the predefined event types (section 2.11.3, and
// posix_trace_eventid_open for the unnamed user event), by id.
constexpr std::string_view kSystemNames[kSystemEventCount] = {
    "posix_trace_start",  "posix_trace_stop",        "posix_trace_overflow",
    "posix_trace_resume", "posix_trace_flush_start", "posix_trace_flush_stop",
    "posix_trace_error",  "posix_trace_filter",      "posix_trace_unnamed_userevent",
};

void SetOnce(std::atomic<uint32_t>& flag) {
  // Load first: the flag's cache line is shared by every recording thread.
  if (flag.load(std::memory_order_relaxed) == 0) flag.store(1, std::memory_order_relaxed);
}

void RequestFlush(StreamShared& s) {
  if (s.flush_request.load(std::memory_order_relaxed) != 0) return;
  if (s.flush_request.exchange(1, std::memory_order_acq_rel) == 0) FutexWakeAll(s.flush_request);
}

// UNTIL_FULL: the stream stops itself; the automatic STOP is its last event.
void AutoStop(StreamShared& s) {
  uint32_t running = kStateRunning;
  if (!s.state.compare_exchange_strong(running, kStateSuspended)) return;
  s.auto_stopped.store(1, std::memory_order_relaxed);
  s.full.store(1, std::memory_order_relaxed);
  int automatic = 1;
  RecordSystemEvent(s, POSIX_TRACE_STOP, &automatic, sizeof automatic);
}

}  // namespace

void OnLoopWrap(StreamShared& s, uint64_t index, uint64_t tail) {
  SetOnce(s.full);
  if (index - tail < s.slot_count) return;  // the ring just became full; nothing lost yet
  // This slot holds event index - slot_count, never read: it is lost.
  SetOnce(s.stream_overrun);
  if (s.overflow_pending.load(std::memory_order_relaxed) == 0) {
    uint64_t lost_ticks = SlotAt(s, index).ticks;
    uint32_t expected = 0;
    if (s.overflow_pending.compare_exchange_strong(expected, 1)) {
      s.overflow_ticks.store(lost_ticks, std::memory_order_release);
    }
  }
}

void OnBoundedFull(StreamShared& s, bool system) {
  if (s.stream_policy == POSIX_TRACE_UNTIL_FULL) {
    if (!system) AutoStop(s);
    SetOnce(s.stream_overrun);
    return;
  }
  // FLUSH: the flusher makes room; the standard counts an overrun once more than one event is lost.
  SetOnce(s.full);
  RequestFlush(s);
  if (s.lost_in_flush.fetch_add(1, std::memory_order_relaxed) + 1 > 1) SetOnce(s.stream_overrun);
}

void OnFilling(StreamShared& s, uint64_t count, bool system) {
  if (s.stream_policy == POSIX_TRACE_FLUSH) {
    RequestFlush(s);
    return;
  }
  if (!system && count >= s.capacity) AutoStop(s);
}

void WakeReaders(StreamShared& s) {
  s.wake_seq.fetch_add(1, std::memory_order_release);
  FutexWakeAll(s.wake_seq);
}

void RecordSystemEvent(StreamShared& s, uint16_t id, const void* data, size_t length) {
  RecordEvent(s, id, data, length, 0, Recorder{}, /*system=*/true);
}

trace_event_set_t FilterOf(const StreamShared& s) {
  trace_event_set_t set;
  for (unsigned i = 0; i < kMaxEventTypes / 64; ++i) {
    set.__bits[i] = s.filter[i].load(std::memory_order_relaxed);
  }
  return set;
}

bool RestartWhenDrained(StreamShared& s) {
  if (s.auto_stopped.load() == 0 || s.state.load() != kStateSuspended) return false;
  if (s.head.load(std::memory_order_acquire) != s.tail.load(std::memory_order_acquire))
    return false;
  if (s.has_log != 0 && s.attr.__log_policy == POSIX_TRACE_UNTIL_FULL && s.log_full.load() != 0)
    return false;
  s.auto_stopped.store(0);
  s.full.store(0);
  trace_event_set_t filter = FilterOf(s);
  RecordSystemEvent(s, POSIX_TRACE_START, &filter, sizeof filter);
  s.state.store(kStateRunning, std::memory_order_release);
  return true;
}

StreamGeometry GeometryFor(const trace_attr_t& attr) {
  StreamGeometry g{};
  g.max_data = attr.__max_data_size;
  g.data_capacity = (std::max<uint64_t>(g.max_data, kMaxSystemData) + 7) / 8 * 8;
  g.slot_size = sizeof(SlotHeader) + g.data_capacity;
  g.slot_count = std::max<uint64_t>(attr.__stream_size / g.slot_size, kMinSlots);
  uint64_t page = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
  g.map_bytes = (SlotsOffset() + g.slot_count * g.slot_size + page - 1) / page * page;
  return g;
}

void InitStream(StreamShared& s, const StreamParams& params) {
  StreamGeometry g = GeometryFor(params.attr);
  s.magic = kStreamMagic;
  s.version = kLayoutVersion;
  s.owner_uid = static_cast<uint32_t>(geteuid());
  s.creator_pid = static_cast<int32_t>(getpid());
  s.target_pid = params.target_pid;
  s.has_log = params.has_log;
  s.attr = params.attr;
  s.stream_policy = static_cast<uint32_t>(params.attr.__stream_policy);
  s.inherited = params.attr.__inheritance == POSIX_TRACE_INHERITED ? 1 : 0;
  s.max_data = g.max_data;
  s.data_capacity = g.data_capacity;
  s.slot_size = g.slot_size;
  s.slot_count = g.slot_count;
  s.capacity = g.slot_count - 1;
  s.fill_threshold =
      s.stream_policy == POSIX_TRACE_FLUSH ? std::max<uint64_t>(s.capacity / 2, 1) : s.capacity;
  s.map_bytes = g.map_bytes;
  s.clock = CurrentCalibration();
  s.state.store(kStateSuspended);
  InitSharedMutex(s.names_mutex);
  for (unsigned id = 0; id < kSystemEventCount; ++id) {
    kSystemNames[id].copy(s.names[id].name, TRACE_EVENT_NAME_MAX);
    s.names[id].used.store(1, std::memory_order_release);
  }
}

std::string_view SystemEventName(unsigned id) {
  return id < kSystemEventCount ? kSystemNames[id] : std::string_view();
}

std::optional<unsigned> FindName(StreamShared& s, std::string_view name) {
  for (unsigned id = 0; id < kMaxEventTypes; ++id) {
    if (s.names[id].used.load(std::memory_order_acquire) == 0) continue;
    if (name == std::string_view(s.names[id].name)) return id;
  }
  return std::nullopt;
}

unsigned AddName(StreamShared& s, std::string_view name, unsigned hint) {
  SharedLock lock(s.names_mutex);
  if (auto id = FindName(s, name)) return *id;
  unsigned id = 0;
  if (hint >= kFirstUserId && hint < kMaxEventTypes &&
      s.names[hint].used.load(std::memory_order_relaxed) == 0) {
    id = hint;
  } else {
    // Ids the controller adds come from the top, so they rarely take one a process would pick.
    for (unsigned candidate = kMaxEventTypes - 1; candidate >= kFirstUserId; --candidate) {
      if (s.names[candidate].used.load(std::memory_order_relaxed) == 0) {
        id = candidate;
        break;
      }
    }
    if (id == 0) return POSIX_TRACE_UNNAMED_USER_EVENT;
  }
  size_t n = std::min<size_t>(name.size(), TRACE_EVENT_NAME_MAX);
  std::memcpy(s.names[id].name, name.data(), n);
  s.names[id].name[n] = '\0';
  s.names[id].used.store(1, std::memory_order_release);
  return id;
}

bool NameOf(const StreamShared& s, unsigned id, std::string& out) {
  if (id >= kMaxEventTypes || s.names[id].used.load(std::memory_order_acquire) == 0) return false;
  out.assign(s.names[id].name);
  return true;
}

bool StreamReader::TakeSlot(EventRecord& out) {
  for (;;) {
    uint64_t tail = s_.tail.load(std::memory_order_relaxed);
    uint64_t head = s_.head.load(std::memory_order_acquire);
    if (tail == head) return false;
    if (head - tail > s_.slot_count) {
      // LOOP lapped the reader: everything older than one ring is gone.
      s_.tail.store(head - s_.slot_count, std::memory_order_release);
      lost_ = true;
      continue;
    }
    SlotHeader& slot = SlotAt(s_, tail);
    const uint64_t done = 2 * tail + 2;
    uint64_t seq = slot.seq.load(std::memory_order_acquire);
    if (seq < done) return false;  // reserved, still being written
    if (seq == done) {
      out.event_id = slot.event_id;
      out.truncation = slot.truncation;
      out.pid = slot.pid;
      out.kernel_tid = slot.kernel_tid;
      out.thread = slot.thread;
      out.prog_address = slot.prog_address;
      uint64_t ticks = slot.ticks;
      uint32_t length = std::min<uint32_t>(slot.length, static_cast<uint32_t>(s_.data_capacity));
      out.data.assign(reinterpret_cast<const uint8_t*>(&slot + 1),
                      reinterpret_cast<const uint8_t*>(&slot + 1) + length);
      std::atomic_thread_fence(std::memory_order_acquire);
      if (slot.seq.load(std::memory_order_relaxed) == done) {
        s_.tail.store(tail + 1, std::memory_order_release);
        out.realtime_ns = TicksToRealtimeNs(s_.clock, ticks);
        return true;
      }
    }
    // Overwritten by a later lap while we looked.
    s_.tail.store(tail + 1, std::memory_order_release);
    lost_ = true;
  }
}

bool StreamReader::TryTake(EventRecord& out) {
  if (!queued_.empty()) {
    out = std::move(queued_.front());
    queued_.pop_front();
    return true;
  }
  if (s_.overflow_pending.load(std::memory_order_acquire) != 0) {
    // A producer overwrote unread events: it kept the time of the first one.
    lost_ = true;
    lost_ticks_ = s_.overflow_ticks.load(std::memory_order_acquire);
    lost_ticks_known_ = true;
    s_.overflow_pending.store(0, std::memory_order_release);
  }
  if (!TakeSlot(out)) return false;
  if (!lost_) return true;
  lost_ = false;
  EventRecord overflow;
  overflow.event_id = POSIX_TRACE_OVERFLOW;
  overflow.realtime_ns =
      lost_ticks_known_ ? TicksToRealtimeNs(s_.clock, lost_ticks_) : out.realtime_ns;
  lost_ticks_known_ = false;
  EventRecord resume;
  resume.event_id = POSIX_TRACE_RESUME;
  resume.realtime_ns = out.realtime_ns;
  queued_.push_back(std::move(resume));
  queued_.push_back(std::move(out));
  out = std::move(overflow);
  return true;
}

void StreamReader::Clear() {
  queued_.clear();
  lost_ = false;
  lost_ticks_known_ = false;
  s_.tail.store(s_.head.load(std::memory_order_acquire), std::memory_order_release);
  s_.overflow_pending.store(0);
  s_.lost_in_flush.store(0);
  s_.full.store(0);
  s_.stream_overrun.store(0);
  // The stream keeps its running/suspended state: one that UNTIL_FULL stopped stays suspended
  // (and NOT_FULL) until posix_trace_start, instead of restarting as a drained stream would.
  s_.auto_stopped.store(0);
}

}  // namespace rastrace::posix
