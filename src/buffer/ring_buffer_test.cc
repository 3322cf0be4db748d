#include "buffer/ring_buffer.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <string>
#include <vector>

#include "buffer/ring_test_events.h"

namespace rastrace::buffer {
namespace {

constexpr uint64_t kTid = 4242;

using testing::DrainRound;
using testing::RaceProducerAndConsumer;
using testing::WriteSeq;

TEST(EventWordsTest, SizesFollowFromTheHookword) {
  EXPECT_EQ(EventWords(MakeHookword(0, 0, 0x01000000)), 2u);
  EXPECT_EQ(EventWords(MakeHookword(event::kFlagTimestamp, 0x28, 0x01200000)), 8u);
  // B: five 4-byte words packed in three words.
  EXPECT_EQ(EventWords(MakeHookword(event::kFlagTimestamp | event::kFlag32BitData, 0x14, 0)), 6u);
  // Generic with a 20-byte buffer: hookword, data word, 3 buffer words, tid, timestamp.
  EXPECT_EQ(EventWords(MakeHookword(event::kFlagTimestamp | event::kFlagGeneric, 20, 0)), 7u);
  EXPECT_EQ(GenericEventWords(20, true), 7u);
}

TEST(RingBufferTest, CapacityIsAPowerOfTwoAndAtLeastTheMinimum) {
  EXPECT_EQ(RingBuffer(1, Mode::kAlternate, kTid).capacity_bytes(), RingBuffer::kMinBytes);
  EXPECT_EQ(RingBuffer(5000, Mode::kAlternate, kTid).capacity_bytes(), 8192u);
}

TEST(RingBufferTest, AlternateDropsWhenFullAndCountsExactly) {
  RingBuffer ring(4096, Mode::kAlternate, kTid);  // 512 words = 128 events of 4 words
  uint64_t written = 0;
  for (uint64_t i = 0; i < 200; ++i) written += WriteSeq(ring, i) ? 1 : 0;
  EXPECT_EQ(written, 128u);
  EXPECT_EQ(ring.lost(), 72u);
  std::vector<uint64_t> seqs = DrainRound(ring);
  ASSERT_EQ(seqs.size(), 128u);
  for (uint64_t i = 0; i < 128; ++i) EXPECT_EQ(seqs[i], i);
  // Space handed back is reused.
  EXPECT_TRUE(WriteSeq(ring, 500));
  EXPECT_EQ(DrainRound(ring), std::vector<uint64_t>{500});
  EXPECT_FALSE(ring.full());
}

TEST(RingBufferTest, EventsStraddlingTheEndWrapIntact) {
  RingBuffer ring(4096, Mode::kAlternate, kTid);
  // 3-word events do not divide 512 words, so they straddle the end on later rounds.
  uint64_t seq = 0;
  for (int round = 0; round < 50; ++round) {
    for (int i = 0; i < 100; ++i) {
      const uint64_t hookword = MakeHookword(0, 8, 0x01100000);
      uint64_t at = 0;
      ASSERT_TRUE(ring.Reserve(3, &at));
      ring.Put(at, hookword);
      ring.Put(at + 1, seq++);
      ring.Put(at + 2, kTid);
      ring.Publish(at + 3);
    }
    uint64_t pos = ring.tail();
    const uint64_t end = ring.head();
    uint64_t expect = seq - 100;
    while (pos < end) {
      uint64_t event[3];
      ring.CopyOut(pos, 3, event);
      ASSERT_EQ(event[1], expect++);
      pos += EventWords(event[0]);
    }
    ring.Release(pos);
  }
  EXPECT_EQ(ring.lost(), 0u);
}

TEST(RingBufferTest, CircularKeepsTheNewestAndCountsOverwritten) {
  RingBuffer ring(4096, Mode::kCircular, kTid);
  for (uint64_t i = 0; i < 1000; ++i) ASSERT_TRUE(WriteSeq(ring, i));
  std::vector<uint64_t> seqs = DrainRound(ring);
  EXPECT_EQ(seqs.size() + ring.lost(), 1000u);
  // The newest events, oldest first: at least the ring's 128 less a block (16) and one event.
  ASSERT_GE(seqs.size(), 128u - 16u - 1u);
  ASSERT_LE(seqs.size(), 128u);
  for (size_t i = 0; i < seqs.size(); ++i) EXPECT_EQ(seqs[i], 1000 - seqs.size() + i);
}

// The oldest block (an eighth of this 4 KiB ring: 16 events of 4 words) goes at once when an
// event finds no room: the next 15 events then fit without overwriting anything (they take the
// hook's fast path), and only the 16th overwrites the next block.
TEST(RingBufferTest, CircularOverwritesTheOldestBlockAtOnce) {
  RingBuffer ring(4096, Mode::kCircular, kTid);
  ASSERT_EQ(RingBuffer::CircularBlockWords(512), 64u);
  for (uint64_t i = 0; i < 128; ++i) ASSERT_TRUE(WriteSeq(ring, i));
  EXPECT_EQ(ring.lost(), 0u);
  ASSERT_TRUE(WriteSeq(ring, 128));
  EXPECT_EQ(ring.lost(), 16u);
  EXPECT_EQ(ring.tail(), 16u * 4);
  for (uint64_t i = 129; i < 129 + 15; ++i) {
    EXPECT_TRUE(ring.FitsCached(4)) << i;
    ASSERT_TRUE(WriteSeq(ring, i));
  }
  EXPECT_EQ(ring.lost(), 16u);
  EXPECT_FALSE(ring.FitsCached(4));
  ASSERT_TRUE(WriteSeq(ring, 144));
  EXPECT_EQ(ring.lost(), 32u);
  const std::vector<uint64_t> seqs = DrainRound(ring);
  ASSERT_EQ(seqs.size(), 145u - 32u);
  EXPECT_EQ(seqs.front(), 32u);
  EXPECT_EQ(seqs.back(), 144u);
}

// A 4 MiB flight recorder overwrites an eighth of itself (512 KiB) at a time, not 64 KiB as it
// did when the hook crossing each block boundary was one in 1024 (the p99.9 of single hooks);
// the blocks stop growing at 1 MiB.
TEST(RingBufferTest, CircularBlocksAreAnEighthOfTheRingUpTo1MiB) {
  EXPECT_EQ(RingBuffer::CircularBlockWords((size_t{16} << 20) / 8), (size_t{1} << 20) / 8);
  RingBuffer ring(size_t{4} << 20, Mode::kCircular, kTid);
  constexpr uint64_t kEvents = (uint64_t{4} << 20) / 32;  // 4-word events
  for (uint64_t i = 0; i < kEvents; ++i) ASSERT_TRUE(WriteSeq(ring, i));
  EXPECT_EQ(ring.lost(), 0u);
  ASSERT_TRUE(WriteSeq(ring, kEvents));
  constexpr uint64_t kBlockEvents = (uint64_t{512} << 10) / 32;
  EXPECT_EQ(ring.lost(), kBlockEvents);
  EXPECT_EQ(ring.tail(), kBlockEvents * 4);
  for (uint64_t i = kEvents + 1; i < kEvents + kBlockEvents; ++i) ASSERT_TRUE(WriteSeq(ring, i));
  EXPECT_EQ(ring.lost(), kBlockEvents);
  const std::vector<uint64_t> seqs = DrainRound(ring);
  ASSERT_EQ(seqs.size(), kEvents);
  EXPECT_EQ(seqs.front(), kBlockEvents);
  EXPECT_EQ(seqs.back(), kEvents + kBlockEvents - 1);
}

// Traced events (not CPU markers) between the consumer's position and the head.
uint64_t TracedEventsIn(RingBuffer& ring) {
  uint64_t traced = 0;
  for (uint64_t pos = ring.tail(); pos < ring.head(); pos += EventWords(ring.WordAt(pos))) {
    if (ring.WordAt(pos) != kCpuMarkerHookword) ++traced;
  }
  return traced;
}

// A CPU marker (3 words) as the recorder writes it; false when it found no room.
bool WriteCpuMarker(RingBuffer& ring, uint64_t cpu) {
  uint64_t at = 0;
  if (!ring.ReserveIfRoom(3, &at)) return false;
  ring.Put(at, kCpuMarkerHookword);
  ring.Put(at + 1, cpu);
  ring.Put(at + 2, ring.thread_id());
  ring.PublishMarker(at + 3);
  return true;
}

TEST(RingBufferTest, ACpuMarkerWithoutRoomWaitsAndIsNotCountedLost) {
  for (Mode mode : {Mode::kAlternate, Mode::kSingle, Mode::kBlocking}) {
    RingBuffer ring(4096, mode, kTid);
    for (uint64_t i = 0; i < 128; ++i) ASSERT_TRUE(WriteSeq(ring, i));
    EXPECT_FALSE(WriteCpuMarker(ring, 1));
    EXPECT_EQ(ring.lost(), 0u);
    EXPECT_FALSE(ring.full());  // single mode: a marker does not end tracing
    // Room again (the writer drained): the marker goes in.
    EXPECT_EQ(DrainRound(ring).size(), 128u);
    EXPECT_TRUE(WriteCpuMarker(ring, 1));
    EXPECT_EQ(ring.head(), 3u + 512u);
  }
}

TEST(RingBufferTest, CircularOverwritesMarkersWithoutCountingThem) {
  RingBuffer ring(4096, Mode::kCircular, kTid);
  ASSERT_TRUE(WriteCpuMarker(ring, 0));
  for (uint64_t i = 0; i < 200; ++i) ASSERT_TRUE(WriteSeq(ring, i));
  // The marker was overwritten with the first block and is not counted.
  EXPECT_NE(ring.WordAt(ring.tail()), kCpuMarkerHookword);
  EXPECT_EQ(TracedEventsIn(ring) + ring.lost(), 200u);
  // A marker overwrites traced events when it must, and those are counted.
  while (ring.FitsCached(3)) ASSERT_TRUE(WriteSeq(ring, 1000));
  const uint64_t before = ring.lost();
  const uint64_t traced = TracedEventsIn(ring);
  ASSERT_TRUE(WriteCpuMarker(ring, 1));
  EXPECT_GT(ring.lost(), before);
  EXPECT_EQ(ring.lost() - before, traced - TracedEventsIn(ring));
}

TEST(RingBufferTest, CircularOverwritesWholeEventsOfMixedSizes) {
  RingBuffer ring(4096, Mode::kCircular, kTid);
  const std::string text = "a generic buffer of some length";
  uint64_t generated = 0;
  for (int i = 0; i < 300; ++i, ++generated) {
    if (i % 3 == 0) {
      const size_t words = GenericEventWords(text.size(), true);
      uint64_t at = 0;
      ASSERT_TRUE(ring.Reserve(words, &at));
      ring.Put(at, MakeHookword(event::kFlagTimestamp | event::kFlagGeneric,
                                static_cast<uint16_t>(text.size()), 0x01400000));
      ring.Put(at + 1, static_cast<uint64_t>(i));
      ring.PutBytes(at + 2, text.data(), text.size());
      ring.Put(at + words - 2, kTid);
      ring.Put(at + words - 1, static_cast<uint64_t>(i));
      ring.Publish(at + words);
    } else {
      ASSERT_TRUE(WriteSeq(ring, static_cast<uint64_t>(i)));
    }
  }
  uint64_t kept = 0;
  uint64_t pos = ring.tail();
  int64_t previous = -1;
  while (pos < ring.head()) {
    const uint64_t hookword = ring.WordAt(pos);
    const size_t words = EventWords(hookword);
    std::vector<uint64_t> event(words);
    ring.CopyOut(pos, words, event.data());
    const auto seq = static_cast<int64_t>(event[1]);
    EXPECT_GT(seq, previous);
    previous = seq;
    if (FlagsOf(hookword) & event::kFlagGeneric) {
      EXPECT_EQ(std::memcmp(reinterpret_cast<const char*>(&event[2]), text.data(), text.size()), 0);
    }
    pos += words;
    ++kept;
  }
  EXPECT_EQ(previous, 299);
  EXPECT_EQ(kept + ring.lost(), generated);
}

TEST(RingBufferTest, SingleStopsWhenFull) {
  RingBuffer ring(4096, Mode::kSingle, kTid);
  uint64_t written = 0;
  for (uint64_t i = 0; i < 130; ++i) written += WriteSeq(ring, i) ? 1 : 0;
  EXPECT_EQ(written, 128u);
  EXPECT_EQ(ring.lost(), 2u);
  EXPECT_TRUE(ring.full());
  EXPECT_EQ(DrainRound(ring).size(), 128u);
}

TEST(RingBufferTest, EventLargerThanTheRingIsLost) {
  RingBuffer ring(4096, Mode::kCircular, kTid);
  uint64_t at = 0;
  EXPECT_FALSE(ring.Reserve(600, &at));
  EXPECT_EQ(ring.lost(), 1u);
}

TEST(RingBufferTest, PutBytesPadsWithZeroAcrossTheWrap) {
  RingBuffer ring(4096, Mode::kAlternate, kTid);
  // Move the positions close to the end of the ring.
  for (int i = 0; i < 127; ++i) ASSERT_TRUE(WriteSeq(ring, 1));
  DrainRound(ring);
  const char text[] = "0123456789abcdefXYZ";  // 20 bytes with the NUL
  uint64_t at = 0;
  ASSERT_TRUE(ring.Reserve(3, &at));
  EXPECT_EQ(at & 511, 508u);
  ring.PutBytes(at, text, sizeof text);
  ring.Publish(at + 3);
  uint64_t words[3];
  ring.CopyOut(at, 3, words);
  EXPECT_EQ(std::memcmp(words, text, sizeof text), 0);
  const auto* bytes = reinterpret_cast<const uint8_t*>(words);
  for (size_t i = sizeof text; i < 24; ++i) EXPECT_EQ(bytes[i], 0) << i;
}

TEST(RingBufferTest, ResetEmptiesAndChangesMode) {
  RingBuffer ring(4096, Mode::kSingle, kTid);
  for (int i = 0; i < 200; ++i) (void)WriteSeq(ring, 1);
  ring.Reset(8192, Mode::kAlternate);
  EXPECT_EQ(ring.lost(), 0u);
  EXPECT_FALSE(ring.full());
  EXPECT_EQ(ring.head(), ring.tail());
  EXPECT_EQ(ring.capacity_bytes(), 8192u);
  EXPECT_EQ(ring.mode(), Mode::kAlternate);
}

// A producer outrunning a slow consumer: every event is either drained, in order, or counted lost.
TEST(RingBufferTest, ConcurrentProducerAndSlowConsumerAccountForEveryEvent) {
  RingBuffer ring(4096, Mode::kAlternate, kTid);
  constexpr uint64_t kEvents = 200000;
  const auto race = RaceProducerAndConsumer(ring, kEvents, std::chrono::microseconds(50));
  EXPECT_TRUE(race.ordered);
  EXPECT_GT(race.drained, 0u);
  EXPECT_EQ(race.drained + ring.lost(), kEvents);
}

}  // namespace
}  // namespace rastrace::buffer
