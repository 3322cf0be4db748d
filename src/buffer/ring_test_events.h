// Test helpers shared by the ring tests: numbered TRCHKL1T-shaped events, a consumer round that
// checks and releases them, and a producer thread racing a consumer.
#pragma once

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <thread>
#include <vector>

#include "buffer/ring_buffer.h"

namespace rastrace::buffer::testing {

inline constexpr size_t kSeqEventWords = 4;

// Hookword, `seq`, the thread id, seq * 10 (standing in for a timestamp).
inline bool WriteSeq(RingBuffer& ring, uint64_t seq) {
  uint64_t at = 0;
  if (!ring.Reserve(kSeqEventWords, &at)) return false;
  ring.Put(at, MakeHookword(event::kFlagTimestamp, 8, 0x01100000));
  ring.Put(at + 1, seq);
  ring.Put(at + 2, ring.thread_id());
  ring.Put(at + 3, seq * 10);
  ring.Publish(at + kSeqEventWords);
  return true;
}

// One consumer round: every event up to head(), checked, then released. Their numbers.
inline std::vector<uint64_t> DrainRound(RingBuffer& ring) {
  std::vector<uint64_t> seqs;
  uint64_t position = ring.tail();
  const uint64_t end = ring.head();
  while (position < end) {
    uint64_t event[kSeqEventWords];
    EXPECT_EQ(EventWords(ring.WordAt(position)), kSeqEventWords);
    ring.CopyOut(position, kSeqEventWords, event);
    EXPECT_EQ(event[2], ring.thread_id());
    EXPECT_EQ(event[3], event[1] * 10);
    seqs.push_back(event[1]);
    position += kSeqEventWords;
  }
  ring.Release(position);
  return seqs;
}

struct RaceResult {
  uint64_t drained = 0;
  bool ordered = true;
};

// A producer thread writes `events` numbered events as fast as it can while this thread drains
// in rounds `pause` apart, calling `between_rounds` after each, until everything is drained.
inline RaceResult RaceProducerAndConsumer(RingBuffer& ring, uint64_t events,
                                          std::chrono::microseconds pause,
                                          const std::function<void()>& between_rounds = {}) {
  std::atomic<bool> done{false};
  std::thread producer([&] {
    for (uint64_t i = 0; i < events; ++i) (void)WriteSeq(ring, i);
    done.store(true, std::memory_order_release);
  });
  RaceResult result;
  int64_t previous = -1;
  for (;;) {
    const bool finished = done.load(std::memory_order_acquire);
    for (uint64_t seq : DrainRound(ring)) {
      result.ordered = result.ordered && static_cast<int64_t>(seq) > previous;
      previous = static_cast<int64_t>(seq);
      ++result.drained;
    }
    if (between_rounds) between_rounds();
    if (finished && ring.head() == ring.tail()) break;
    std::this_thread::sleep_for(pause);
  }
  producer.join();
  return result;
}

}  // namespace rastrace::buffer::testing
