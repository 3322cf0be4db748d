#include "recorder/drain.h"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <span>
#include <vector>

#include "recorder/header_events.h"

namespace rastrace::recorder {
namespace {

using Cursor = DrainCursor;

// How far ahead of the walk the ring is prefetched (32 cache lines).
constexpr uint64_t kPrefetchWords = 256;
// Events whose positions a lone thread's walk guesses at once.
constexpr size_t kBatch = 8;

// The timestamp that orders the event of `words` words at `position` of a ring (`data`, `mask`):
// its own, or `last` (its thread's timestamp before it) when it has none.
uint64_t OrderingTimestamp(const uint64_t* data, uint64_t mask, uint64_t position, size_t words,
                           uint64_t hookword, uint64_t last) {
  return (buffer::FlagsOf(hookword) & event::kFlagTimestamp) ? data[(position + words - 1) & mask]
                                                             : last;
}

// Words of the event at the cursor, or 0 when its hookword cannot be right (the event would run
// past what the producer published).
size_t WordsAt(const Cursor& cursor, uint64_t* hookword) {
  *hookword = cursor.slot->ring.WordAt(cursor.position);
  const size_t words = buffer::EventWords(*hookword);
  return cursor.position + words <= cursor.end ? words : 0;
}

// Counts the events left at the cursor as lost because the log is full.
void DiscardRest(Cursor& cursor, DrainResult& result) {
  while (cursor.position < cursor.end) {
    uint64_t hookword = 0;
    const size_t words = WordsAt(cursor, &hookword);
    if (hookword != buffer::kCpuMarkerHookword) {  // a CPU marker is not a traced event
      ++cursor.slot->lost_by_writer;
      ++result.discarded;
    }
    if (words == 0) {
      cursor.position = cursor.end;
      break;
    }
    cursor.position += words;
  }
}

// One thread's ring in the fine merge (MergeFinely), its state in locals.
struct Lane {
  const uint64_t* data;
  uint64_t mask;
  uint64_t position;
  uint64_t end;
  uint64_t last_ts;  // the ordering timestamp of the thread's event before `position`
  uint64_t ts;       // the ordering timestamp of the event at `position`
  size_t words;      // its size; 0 when the lane is done or its hookword cannot be right
};

// Threads a fine merge takes at most (more go through the general loop alone).
constexpr size_t kMaxLanes = 16;

// Looks at the event at the lane's position: its size and ordering timestamp.
inline void Peek(Lane& lane) {
  if (lane.position >= lane.end) {
    lane.words = 0;
    return;
  }
  const uint64_t hookword = lane.data[lane.position & lane.mask];
  const size_t words = buffer::EventWords(hookword);
  if (lane.position + words > lane.end) {
    lane.words = 0;
    return;
  }
  lane.words = words;
  lane.ts = OrderingTimestamp(lane.data, lane.mask, lane.position, words, hookword, lane.last_ts);
}

// The merge of threads whose events alternate in time (two threads hooking at once interleave
// event by event): the general loop below pays, for every run, a look at every thread's next
// event, a call to the sink and a copy with wrap checks, which at one event per run made two
// threads' drain cost several times one thread's (docs/performance.md, "The hook end to end").
// Here each thread's next timestamp is kept, only the thread just copied is looked at again, and
// the events are copied word by word into the sink's staging buffer. Same order as the general
// loop: the oldest next event first, ties to the thread listed first, a thread's run going on
// while its events are not newer than any other thread's next one. It stops as soon as one
// thread has nothing more (or an event it cannot place: the general loop deals with it), and
// leaves the rest to the general loop. Only for a log without a size limit (no rotation or stop
// can happen in the middle), with every thread's name already written.
void MergeFinely(std::vector<Cursor>& cursors, LogSink& sink, DrainResult& result) {
  const size_t n = cursors.size();
  if (n < 2 || n > kMaxLanes) return;
  std::array<Lane, kMaxLanes> lanes{};
  for (size_t i = 0; i < n; ++i) {
    const buffer::RingRegion region = cursors[i].slot->ring.read_region();
    lanes[i] = {region.words,
                region.mask,
                cursors[i].position,
                cursors[i].end,
                cursors[i].slot->last_timestamp,
                0,
                0};
    Peek(lanes[i]);
    if (lanes[i].words == 0) return;
  }
  uint64_t max_ts = result.max_timestamp;
  uint64_t events = 0;
  uint64_t bytes = 0;
  std::span<uint8_t> room;
  size_t used = 0;
  for (bool done = false; !done;) {
    size_t best = 0;
    uint64_t best_ts = lanes[0].ts;
    uint64_t second_ts = UINT64_MAX;
    for (size_t i = 1; i < n; ++i) {
      if (lanes[i].ts < best_ts) {
        second_ts = best_ts;
        best_ts = lanes[i].ts;
        best = i;
      } else if (lanes[i].ts < second_ts) {
        second_ts = lanes[i].ts;
      }
    }
    Lane& lane = lanes[best];
    do {
      const size_t event_bytes = lane.words * 8;
      if (room.size() - used < event_bytes) {
        sink.CommitStaged(used);
        used = 0;
        room = sink.StagingRoom(event_bytes);
        if (room.size() < event_bytes) {  // the log stopped, or an event longer than the buffer
          done = true;
          break;
        }
      }
      __builtin_prefetch(lane.data + ((lane.position + kPrefetchWords) & lane.mask));
      uint8_t* const out = room.data() + used;
      for (size_t i = 0; i < lane.words; ++i) {
        const uint64_t word = lane.data[(lane.position + i) & lane.mask];
        std::memcpy(out + i * 8, &word, 8);
      }
      used += event_bytes;
      bytes += event_bytes;
      ++events;
      lane.last_ts = lane.ts;
      max_ts = std::max(max_ts, lane.ts);
      lane.position += lane.words;
      Peek(lane);
      if (lane.words == 0) {
        done = true;
        break;
      }
    } while (lane.ts <= second_ts);
  }
  sink.CommitStaged(used);
  for (size_t i = 0; i < n; ++i) {
    cursors[i].position = lanes[i].position;
    cursors[i].slot->last_timestamp = lanes[i].last_ts;
  }
  result.events += events;
  result.bytes += bytes;
  result.max_timestamp = max_ts;
}

// Hands back the rings whose cursors reached their end and drops those cursors, or follows a
// producer that moved to a grown region into it in this round, so that its events still merge in
// time with the other threads'. A finished cursor must go before the next look at every thread's
// next event: the word at its end is not published (the producer may be writing it).
void RetireFinished(std::vector<Cursor>& cursors) {
  for (size_t i = 0; i < cursors.size();) {
    if (cursors[i].position >= cursors[i].end) {
      buffer::RingBuffer& ring = cursors[i].slot->ring;
      ring.Release(cursors[i].end);
      if (cursors[i].end < cursors[i].published) {
        const uint64_t next = std::min(ring.head(), cursors[i].published);
        if (next > cursors[i].end) {
          cursors[i].end = next;
          ++i;
          continue;
        }
      }
      cursors[i] = cursors.back();
      cursors.pop_back();
    } else {
      ++i;
    }
  }
}

}  // namespace

void AppendLostEvents(std::span<ThreadSlot* const> slots, uint64_t timestamp,
                      std::vector<uint8_t>& out) {
  for (ThreadSlot* slot : slots) {
    const uint64_t lost = slot->ring.lost() + slot->lost_by_writer;
    if (lost > slot->lost_reported) {
      AppendLost(lost - slot->lost_reported, slot->ring.thread_id(), timestamp, out);
      slot->lost_reported = lost;
    }
  }
}

DrainResult DrainOnce(std::span<ThreadSlot* const> slots, LogSink& sink,
                      uint64_t fallback_timestamp) {
  DrainScratch scratch;
  return DrainOnce(slots, sink, fallback_timestamp, scratch);
}

DrainResult DrainOnce(std::span<ThreadSlot* const> slots, LogSink& sink,
                      uint64_t fallback_timestamp, DrainScratch& working) {
  DrainResult result;
  std::vector<Cursor>& cursors = working.cursors;
  cursors.clear();
  for (ThreadSlot* slot : slots) {
    const uint64_t end = slot->ring.head();
    const uint64_t tail = slot->ring.tail();
    if (tail < end) cursors.push_back({slot, tail, end, slot->ring.published_head()});
  }
  std::vector<uint8_t>& scratch = working.bytes;
  if (cursors.size() >= 2 && sink.available() == UINT64_MAX && !sink.stopped()) {
    // Every thread's name before its first event, then the fine merge as far as it goes.
    for (const Cursor& cursor : cursors) {
      ThreadSlot& slot = *cursor.slot;
      if (slot.name_written) continue;
      scratch.clear();
      AppendThreadName(slot.ring.thread_id(), slot.name.data(), static_cast<uint64_t>(getpid()),
                       scratch);
      sink.Append(scratch);
      slot.name_written = true;
    }
    MergeFinely(cursors, sink, result);
    RetireFinished(cursors);
  }
  uint64_t rotations = sink.rotations();
  while (!cursors.empty()) {
    // A new file after a rotation names its threads again.
    if (sink.rotations() != rotations) {
      rotations = sink.rotations();
      for (ThreadSlot* slot : slots) slot->name_written = false;
    }
    // The thread whose next event is oldest, and the oldest next event of any other thread.
    size_t best = 0;
    uint64_t best_ts = UINT64_MAX;
    uint64_t second_ts = UINT64_MAX;
    for (size_t i = 0; i < cursors.size(); ++i) {
      uint64_t hookword = 0;
      const size_t words = WordsAt(cursors[i], &hookword);
      const buffer::RingRegion region = cursors[i].slot->ring.read_region();
      const uint64_t ts = words
                              ? OrderingTimestamp(region.words, region.mask, cursors[i].position,
                                                  words, hookword, cursors[i].slot->last_timestamp)
                              : 0;
      if (ts < best_ts) {
        second_ts = best_ts;
        best_ts = ts;
        best = i;
      } else if (ts < second_ts) {
        second_ts = ts;
      }
    }
    Cursor& cursor = cursors[best];
    ThreadSlot& slot = *cursor.slot;
    auto name_thread = [&] {
      if (slot.name_written || sink.stopped()) return;
      scratch.clear();
      AppendThreadName(slot.ring.thread_id(), slot.name.data(), static_cast<uint64_t>(getpid()),
                       scratch);
      if (scratch.size() <= sink.available()) sink.Append(scratch);
      slot.name_written = true;
    };
    name_thread();
    // Copy the run of events that are not newer than any other thread's next one.
    uint64_t run_start = cursor.position;
    uint64_t run_events = 0;
    uint64_t available = sink.available();
    auto flush_run = [&] {
      if (run_events == 0) return;
      sink.AppendFromRing(slot.ring, run_start, cursor.position - run_start);
      result.events += run_events;
      result.bytes += (cursor.position - run_start) * 8;
      run_events = 0;
    };
    // The walk keeps its state in locals (stores through `cursor` and `slot` would be repeated
    // for every event, as the compiler cannot tell them apart from the ring's words) and
    // writes it back when the run ends.
    const buffer::RingRegion region = slot.ring.read_region();
    const uint64_t* const data = region.words;
    const uint64_t mask = region.mask;
    const uint64_t end = cursor.end;
    uint64_t position = cursor.position;
    uint64_t last_ts = slot.last_timestamp;
    uint64_t max_ts = result.max_timestamp;
    // No other thread has an event waiting: every event of this one is due.
    const bool alone = second_ts == UINT64_MAX;
    bool first = true;
    while (position < end) {
      // Another core wrote these lines: ask for later ones before the walk needs them.
      __builtin_prefetch(data + ((position + kPrefetchWords) & mask));
      const uint64_t hookword = data[position & mask];
      const size_t words = buffer::EventWords(hookword);
      if (alone && position + kBatch * words <= end && available >= kBatch * words * 8) {
        // Found one event at a time, each position depends on the load before it (of a line
        // another core has just written). A thread's events are mostly of one size, so the next
        // kBatch positions are guessed, their words loaded together, and the guess kept as far
        // as it holds.
        uint64_t hookwords[kBatch];
        for (size_t i = 0; i < kBatch; ++i) hookwords[i] = data[(position + i * words) & mask];
        size_t same = 1;
        while (same < kBatch && buffer::EventWords(hookwords[same]) == words) ++same;
        for (size_t i = 0; i < same; ++i) {
          last_ts =
              OrderingTimestamp(data, mask, position + i * words, words, hookwords[i], last_ts);
          max_ts = std::max(max_ts, last_ts);
        }
        position += same * words;
        run_events += same;
        available -= same * words * 8;
        first = false;
        continue;
      }
      if (position + words > end) {
        // A hookword that cannot be right (possible only when a producer wrote during a
        // circular-mode read): drop what is left of this ring and count it.
        cursor.position = position;
        flush_run();
        ++slot.lost_by_writer;
        position = end;
        break;
      }
      const uint64_t ts = OrderingTimestamp(data, mask, position, words, hookword, last_ts);
      if (ts > second_ts && !first) break;
      first = false;
      const uint64_t bytes = words * 8;
      if (bytes > available) {
        cursor.position = position;
        flush_run();
        if (!sink.OnFull()) {
          for (Cursor& c : cursors) DiscardRest(c, result);
          position = cursor.position;
          break;
        }
        rotations = sink.rotations();
        for (ThreadSlot* other : slots) other->name_written = false;
        name_thread();
        available = sink.available();
        if (bytes > available) {
          // Larger than an empty file may hold: it can never be written.
          ++slot.lost_by_writer;
          ++result.discarded;
          position += words;
          cursor.position = position;
          run_start = position;
          continue;
        }
        run_start = position;
      }
      available -= bytes;
      last_ts = ts;
      max_ts = std::max(max_ts, ts);
      position += words;
      ++run_events;
    }
    cursor.position = position;
    slot.last_timestamp = last_ts;
    result.max_timestamp = max_ts;
    flush_run();
    RetireFinished(cursors);
  }
  const uint64_t stamp = result.max_timestamp ? result.max_timestamp : fallback_timestamp;
  scratch.clear();
  AppendLostEvents(slots, stamp, scratch);
  if (!scratch.empty()) sink.AppendTrailer(scratch);
  return result;
}

}  // namespace rastrace::recorder
