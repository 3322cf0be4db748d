// Draining per-thread rings into the log, merged by timestamp.
//
// Guarantee (docs/recorder.md): each thread's events keep their order; within one drain the
// events of all threads are merged by timestamp (an untimestamped event takes the timestamp of
// the event before it in its thread). Across drains the log is in timestamp order unless a thread
// published an event more than one drain interval after taking its timestamp.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "recorder/log_sink.h"
#include "recorder/thread_slot.h"

namespace rastrace::recorder {

struct DrainResult {
  uint64_t events = 0;     // events copied to the log
  uint64_t bytes = 0;      // bytes copied to the log (events only)
  uint64_t discarded = 0;  // events discarded because the log is full
  uint64_t max_timestamp = 0;
};

// Where a drain round is in one thread's ring.
struct DrainCursor {
  ThreadSlot* slot;
  uint64_t position;
  uint64_t end;
  // What the producer had published when the round began: past `end` when the ring grew, and
  // the round reads on into the new region once `end` is reached.
  uint64_t published;
};

// Working memory a writer keeps from one drain round to the next, so that its steady state does
// not allocate: a fork can then never catch the writer inside the allocator (gcc 12's ASan
// allocator is not fork-safe, and the child would deadlock on its lock).
struct DrainScratch {
  std::vector<DrainCursor> cursors;
  std::vector<uint8_t> bytes;
};

// Copies every event published in `slots` to `sink`, with a 00A/104 thread name before a thread's
// first event and a 006 event for each thread that lost events since the last drain.
// `fallback_timestamp` stamps 006 events when no timestamped event was drained.
DrainResult DrainOnce(std::span<ThreadSlot* const> slots, LogSink& sink,
                      uint64_t fallback_timestamp, DrainScratch& scratch);
// The same with working memory of its own (tests, one-off drains).
DrainResult DrainOnce(std::span<ThreadSlot* const> slots, LogSink& sink,
                      uint64_t fallback_timestamp);

// The 006 events for losses not yet reported (used by the final drain after the log stopped).
void AppendLostEvents(std::span<ThreadSlot* const> slots, uint64_t timestamp,
                      std::vector<uint8_t>& out);

}  // namespace rastrace::recorder
