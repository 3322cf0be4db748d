// A ring that grows: the producer moves to a region the consumer offered instead of dropping,
// and the consumer reads every event, in order, across the move.
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

#include "buffer/ring_buffer.h"
#include "buffer/ring_test_events.h"

namespace rastrace::buffer {
namespace {

constexpr uint64_t kTid = 77;

using testing::DrainRound;
using testing::RaceProducerAndConsumer;
using testing::WriteSeq;

// Rounds until the ring is empty.
std::vector<uint64_t> DrainAll(RingBuffer& ring) {
  std::vector<uint64_t> seqs;
  for (;;) {
    std::vector<uint64_t> round = DrainRound(ring);
    if (round.empty() && ring.head() == ring.tail()) return seqs;
    seqs.insert(seqs.end(), round.begin(), round.end());
  }
}

std::vector<uint64_t> Sequence(uint64_t from, uint64_t to) {
  std::vector<uint64_t> seqs;
  for (uint64_t i = from; i < to; ++i) seqs.push_back(i);
  return seqs;
}

TEST(RingGrowthTest, AFullRingMovesToTheOfferedRegionAndLosesNothing) {
  RingBuffer ring(4096, Mode::kAlternate, kTid);  // 128 events
  ASSERT_TRUE(ring.OfferGrowth(8192));
  for (uint64_t i = 0; i < 256; ++i) ASSERT_TRUE(WriteSeq(ring, i)) << i;
  EXPECT_EQ(ring.lost(), 0u);
  EXPECT_EQ(ring.capacity_bytes(), 8192u);  // the producer's side
  // The first round stops at the move, in the old region; the next follows the producer.
  EXPECT_EQ(DrainRound(ring), Sequence(0, 128));
  EXPECT_EQ(ring.growths(), 0u);
  EXPECT_EQ(DrainRound(ring), Sequence(128, 256));
  EXPECT_EQ(ring.growths(), 1u);
  EXPECT_EQ(ring.read_capacity_bytes(), 8192u);
}

TEST(RingGrowthTest, UnreadEventsBeforeTheMoveCountAgainstTheNewCapacity) {
  RingBuffer ring(4096, Mode::kAlternate, kTid);
  ASSERT_TRUE(ring.OfferGrowth(8192));
  uint64_t written = 0;
  for (uint64_t i = 0; i < 400; ++i) written += WriteSeq(ring, i) ? 1 : 0;
  // 128 events in the old region and 128 in the new fill 8 KiB in all.
  EXPECT_EQ(written, 256u);
  EXPECT_EQ(ring.lost(), 144u);
  EXPECT_EQ(DrainAll(ring), Sequence(0, 256));
}

TEST(RingGrowthTest, TheGrownRegionWrapsAndKeepsOrder) {
  RingBuffer ring(4096, Mode::kAlternate, kTid);
  ASSERT_TRUE(ring.OfferGrowth(8192));
  uint64_t next = 0;
  std::vector<uint64_t> seen;
  // Many times around the 8 KiB region, in bursts that never fill it.
  for (int burst = 0; burst < 50; ++burst) {
    for (int i = 0; i < 150; ++i) ASSERT_TRUE(WriteSeq(ring, next++));
    for (uint64_t seq : DrainAll(ring)) seen.push_back(seq);
  }
  EXPECT_EQ(seen, Sequence(0, next));
  EXPECT_EQ(ring.growths(), 1u);
  EXPECT_EQ(ring.lost(), 0u);
}

TEST(RingGrowthTest, GrowsStepByStepUpToTheLimit) {
  RingBuffer ring(4096, Mode::kAlternate, kTid);
  uint64_t next = 0;
  std::vector<uint64_t> seen;
  std::vector<size_t> offered;
  for (int round = 0; round < 6; ++round) {
    if (ring.OfferGrowth(32768)) offered.push_back(ring.read_capacity_bytes() * 2);
    // Fill whatever the producer can take, then drain it all.
    while (WriteSeq(ring, next)) ++next;
    for (uint64_t seq : DrainAll(ring)) seen.push_back(seq);
  }
  EXPECT_EQ(offered, (std::vector<size_t>{8192, 16384, 32768}));
  EXPECT_EQ(ring.growths(), 3u);
  EXPECT_EQ(ring.read_capacity_bytes(), 32768u);
  EXPECT_FALSE(ring.OfferGrowth(32768));
  EXPECT_EQ(seen, Sequence(0, next));
  // Each round ended with the one event that found the ring full, and only that one was lost.
  EXPECT_EQ(ring.lost(), 6u);
}

TEST(RingGrowthTest, OneSpareRegionAtATimeAndTheNextOnceItIsTaken) {
  RingBuffer ring(4096, Mode::kAlternate, kTid);  // 128 events
  ASSERT_TRUE(ring.OfferGrowth(1 << 20));         // 8 KiB
  EXPECT_FALSE(ring.OfferGrowth(1 << 20));        // not taken yet
  for (uint64_t i = 0; i < 200; ++i) ASSERT_TRUE(WriteSeq(ring, i));
  // Taken, not yet followed: the next size may be offered already, but no third.
  ASSERT_TRUE(ring.OfferGrowth(1 << 20));  // 16 KiB
  EXPECT_FALSE(ring.OfferGrowth(1 << 20));
  // The producer moves again before the consumer has read anything: 8 KiB in all fill, then
  // the 16 KiB region takes the rest.
  for (uint64_t i = 200; i < 500; ++i) ASSERT_TRUE(WriteSeq(ring, i)) << i;
  EXPECT_EQ(ring.lost(), 0u);
  EXPECT_EQ(ring.capacity_bytes(), 16384u);
  // The consumer reads the three regions in turn.
  EXPECT_EQ(DrainRound(ring), Sequence(0, 128));
  EXPECT_EQ(DrainRound(ring), Sequence(128, 256));
  EXPECT_EQ(DrainRound(ring), Sequence(256, 500));
  EXPECT_EQ(ring.growths(), 2u);
  EXPECT_EQ(ring.read_capacity_bytes(), 16384u);
  EXPECT_TRUE(ring.OfferGrowth(1 << 20));  // 32 KiB
}

TEST(RingGrowthTest, WithNothingOfferedTheProducerGrowsTheRingItselfUpToItsLimit) {
  RingBuffer ring(4096, Mode::kAlternate, kTid);  // 128 events
  ring.set_growth_limit(16384);
  uint64_t written = 0;
  for (uint64_t i = 0; i < 1000; ++i) written += WriteSeq(ring, i) ? 1 : 0;
  // 4 -> 8 -> 16 KiB while the consumer did nothing: 512 events, the rest lost.
  EXPECT_EQ(written, 512u);
  EXPECT_EQ(ring.lost(), 488u);
  EXPECT_EQ(ring.capacity_bytes(), 16384u);
  EXPECT_FALSE(ring.OfferGrowth(16384));  // at the limit
  EXPECT_EQ(DrainRound(ring), Sequence(0, 128));
  EXPECT_EQ(DrainRound(ring), Sequence(128, 256));
  EXPECT_EQ(DrainRound(ring), Sequence(256, 512));
  EXPECT_EQ(ring.growths(), 2u);
}

TEST(RingGrowthTest, AProducerGrowingItselfAndAConsumerOfferingTakeTurnsInOrder) {
  RingBuffer ring(4096, Mode::kAlternate, kTid);  // 4-word events: 128 fit
  ring.set_growth_limit(1 << 20);
  for (uint64_t i = 0; i < 200; ++i) ASSERT_TRUE(WriteSeq(ring, i));  // grew itself to 8 KiB
  EXPECT_EQ(ring.capacity_bytes(), 8192u);
  // Nothing was on offer when it needed room: the consumer's next offer is as large as its
  // limit allows (32 KiB), not the double.
  ASSERT_TRUE(ring.OfferGrowth(32768));
  EXPECT_FALSE(ring.OfferGrowth(32768));
  for (uint64_t i = 200; i < 900; ++i) ASSERT_TRUE(WriteSeq(ring, i));  // took the offer
  EXPECT_EQ(ring.capacity_bytes(), 32768u);
  for (uint64_t i = 900; i < 1500; ++i) ASSERT_TRUE(WriteSeq(ring, i));  // grew itself to 64 KiB
  EXPECT_EQ(ring.capacity_bytes(), 65536u);
  EXPECT_EQ(ring.lost(), 0u);
  EXPECT_EQ(DrainAll(ring), Sequence(0, 1500));
  EXPECT_EQ(ring.growths(), 3u);
  EXPECT_EQ(ring.read_capacity_bytes(), 65536u);
}

// Events dropped in a row (nothing to grow into) take the inline drop; a region offered in the
// middle of the streak is taken by the next event, and every drop is counted.
TEST(RingGrowthTest, ARegionOfferedWhileEventsAreDroppedIsTakenByTheNextEvent) {
  RingBuffer ring(4096, Mode::kAlternate, kTid);  // 128 events; cannot grow itself (no limit)
  uint64_t written = 0;
  for (uint64_t i = 0; i < 150; ++i) written += WriteSeq(ring, i) ? 1 : 0;
  EXPECT_EQ(written, 128u);
  EXPECT_EQ(ring.lost(), 22u);
  ASSERT_TRUE(ring.OfferGrowth(8192));
  for (uint64_t i = 150; i < 278; ++i) ASSERT_TRUE(WriteSeq(ring, i)) << i;
  EXPECT_EQ(ring.capacity_bytes(), 8192u);
  EXPECT_FALSE(WriteSeq(ring, 278));  // full again, nothing on offer
  EXPECT_EQ(ring.lost(), 23u);
  std::vector<uint64_t> expected = Sequence(0, 128);
  for (uint64_t seq : Sequence(150, 278)) expected.push_back(seq);
  EXPECT_EQ(DrainAll(ring), expected);
  EXPECT_TRUE(WriteSeq(ring, 300));  // the room handed back ends the streak
  EXPECT_EQ(DrainAll(ring), std::vector<uint64_t>{300});
}

TEST(RingGrowthTest, ModesThatKeepTheirSizeAreNotOffered) {
  EXPECT_FALSE(RingBuffer(4096, Mode::kCircular, kTid).OfferGrowth(1 << 20));
  EXPECT_FALSE(RingBuffer(4096, Mode::kSingle, kTid).OfferGrowth(1 << 20));
  EXPECT_FALSE(RingBuffer(4096, Mode::kAlternate, kTid).OfferGrowth(4096));
  EXPECT_FALSE(RingBuffer(4096, Mode::kAlternate, kTid).OfferGrowth(8191));
  EXPECT_TRUE(RingBuffer(4096, Mode::kBlocking, kTid).OfferGrowth(8192));
  // A ring in caller-supplied storage (a flight-recorder file) stays there.
  std::vector<uint64_t> words(512);
  RingControl control;
  RingBuffer placed(RingPlacement{words.data(), words.size(), &control, false}, Mode::kAlternate,
                    kTid);
  EXPECT_FALSE(placed.OfferGrowth(1 << 20));
}

TEST(RingGrowthTest, BlockingModeMovesInsteadOfWaiting) {
  RingBuffer ring(4096, Mode::kBlocking, kTid);
  ASSERT_TRUE(ring.OfferGrowth(8192));
  const auto start = std::chrono::steady_clock::now();
  for (uint64_t i = 0; i < 256; ++i) ASSERT_TRUE(WriteSeq(ring, i));
  // Without the move the 129th event would have waited kBlockingPatience for a consumer.
  EXPECT_LT(std::chrono::steady_clock::now() - start, RingBuffer::kBlockingPatience);
  EXPECT_EQ(ring.lost(), 0u);
  EXPECT_EQ(DrainAll(ring), Sequence(0, 256));
}

TEST(RingGrowthTest, ResetReturnsToTheStartingSize) {
  RingBuffer ring(4096, Mode::kAlternate, kTid);  // no growth limit: only offers grow it
  ASSERT_TRUE(ring.OfferGrowth(8192));
  for (uint64_t i = 0; i < 200; ++i) ASSERT_TRUE(WriteSeq(ring, i));
  (void)DrainAll(ring);
  ASSERT_EQ(ring.growths(), 1u);
  ring.Reset(4096, Mode::kAlternate);
  EXPECT_EQ(ring.growths(), 0u);
  EXPECT_EQ(ring.capacity_bytes(), 4096u);
  EXPECT_EQ(ring.read_capacity_bytes(), 4096u);
  uint64_t written = 0;
  for (uint64_t i = 0; i < 200; ++i) written += WriteSeq(ring, i) ? 1 : 0;
  EXPECT_EQ(written, 128u);  // nothing offered since the reset
  EXPECT_EQ(DrainAll(ring), Sequence(0, 128));
}

// A RegionSource that maps anonymous memory and remembers what it was told.
class RecordingSource : public RegionSource {
 public:
  uint64_t* MapRegion(size_t bytes) override {
    std::lock_guard lock(mutex_);
    AnonymousMemory memory = AnonymousMemory::Map(bytes, AnonymousMemory::Touch::kOnUse);
    uint64_t* words = memory.words();
    mapped_.emplace(words, std::move(memory));
    return words;
  }
  void RegionTaken(const uint64_t* words, uint64_t start) override {
    std::lock_guard lock(mutex_);
    taken.emplace_back(mapped_.at(const_cast<uint64_t*>(words)).bytes(), start);
  }
  void ReleaseRegion(uint64_t* words, size_t bytes) override {
    std::lock_guard lock(mutex_);
    released.push_back(bytes);
    if (words != base_words) mapped_.erase(words);
  }
  bool ReserveRegion(uint64_t* /*words*/, size_t offset, size_t bytes) override {
    std::this_thread::sleep_for(reserve_delay);
    std::lock_guard lock(mutex_);
    reserved.emplace_back(offset, bytes);
    return !refuse_reserve;
  }

  uint64_t* base_words = nullptr;
  std::vector<std::pair<size_t, uint64_t>> taken;   // bytes, start
  std::vector<size_t> released;                     // bytes
  std::vector<std::pair<size_t, size_t>> reserved;  // offset, bytes
  std::chrono::milliseconds reserve_delay{0};
  bool refuse_reserve = false;

 private:
  std::mutex mutex_;
  std::map<uint64_t*, AnonymousMemory> mapped_;
};

// A placed ring with a RegionSource grows into the regions the source maps, tells it where it
// moved, and (holding released space, as a flight-recorder ring does) releases a region it left
// only once every position in it was handed back: a crash before then still finds the events.
TEST(RingGrowthTest, APlacedRingGrowsThroughItsSourceAndReleasesOnlyWhatWasHandedBack) {
  RecordingSource source;
  AnonymousMemory base = AnonymousMemory::Map(4096, AnonymousMemory::Touch::kNow);
  source.base_words = base.words();
  RingControl control;
  RingBuffer ring({base.words(), 512, &control, /*hold_until_handed_back=*/true, &source},
                  Mode::kAlternate, kTid);
  ASSERT_TRUE(ring.OfferGrowth(16384));
  for (uint64_t i = 0; i < 200; ++i) ASSERT_TRUE(WriteSeq(ring, i)) << i;
  ASSERT_EQ(source.taken.size(), 1u);
  EXPECT_EQ(source.taken[0], (std::pair<size_t, uint64_t>{8192, 128 * 4}));
  EXPECT_EQ(DrainRound(ring), Sequence(0, 128));
  EXPECT_EQ(DrainRound(ring), Sequence(128, 200));  // follows into the grown region
  EXPECT_EQ(ring.growths(), 1u);
  EXPECT_TRUE(source.released.empty());  // released, not handed back: the base region stays
  ring.HandBack(100 * 4);
  EXPECT_TRUE(source.released.empty());
  ring.HandBack();
  EXPECT_EQ(source.released, (std::vector<size_t>{4096}));
  EXPECT_EQ(ring.lost(), 0u);
}

// A producer outrunning a consumer that offers growth between rounds, both racing to map the next
// region: every event is drained in order or counted lost, and the ring stays within the limit
// (TSan checks the hand-over).
TEST(RingGrowthTest, ConcurrentProducerAndGrowingConsumerAccountForEveryEvent) {
  RingBuffer ring(4096, Mode::kAlternate, kTid);
  constexpr uint64_t kEvents = 300000;
  constexpr size_t kLimit = 65536;
  ring.set_growth_limit(kLimit);  // the producer grows it too when nothing is offered
  const auto race = RaceProducerAndConsumer(ring, kEvents, std::chrono::microseconds(200),
                                            [&] { (void)ring.OfferGrowth(kLimit); });
  EXPECT_TRUE(race.ordered);
  EXPECT_EQ(race.drained + ring.lost(), kEvents);
  EXPECT_GE(ring.growths(), 1u);
  EXPECT_LE(ring.read_capacity_bytes(), kLimit);
}

// The slow part of growing (a file region's memory reserved and faulted in) runs on another
// thread, a step at a time: a producer that finds its ring full meanwhile waits as long as the
// preparation gets on, even past kClaimPatience in all, and then moves: nothing is lost.
TEST(RingGrowthTest, AProducerWaitsForARegionBeingPreparedWhileThePreparationGetsOn) {
  constexpr size_t kBase = size_t{2} << 20;  // the region grown into has 4 steps
  RecordingSource source;
  source.reserve_delay = std::chrono::milliseconds(30);  // 120 ms in all, 30 ms per step
  AnonymousMemory base = AnonymousMemory::Map(kBase, AnonymousMemory::Touch::kNow);
  source.base_words = base.words();
  RingControl control;
  RingBuffer ring({base.words(), kBase / 8, &control, /*hold_until_handed_back=*/false, &source},
                  Mode::kAlternate, kTid);
  const uint64_t fit = kBase / 32;  // 4-word events
  for (uint64_t i = 0; i < fit; ++i) ASSERT_TRUE(WriteSeq(ring, i)) << i;
  const size_t entry = ring.BeginGrowth(kBase * 2);
  ASSERT_NE(entry, RingBuffer::kNoEntry);
  EXPECT_EQ(ring.BeginGrowth(kBase * 2), RingBuffer::kNoEntry);  // one at a time
  EXPECT_TRUE(ring.growth_being_prepared());
  std::thread preparer([&] { ring.PrepareGrowth(entry); });
  EXPECT_TRUE(WriteSeq(ring, fit));  // waits for the region, then moves there
  preparer.join();
  EXPECT_EQ(ring.lost(), 0u);
  EXPECT_FALSE(ring.growth_being_prepared());
  EXPECT_EQ(source.reserved,
            (std::vector<std::pair<size_t, size_t>>{
                {0, 1 << 20}, {1 << 20, 1 << 20}, {2 << 20, 1 << 20}, {3 << 20, 1 << 20}}));
  ASSERT_EQ(source.taken.size(), 1u);
  EXPECT_EQ(source.taken[0], (std::pair<size_t, uint64_t>{kBase * 2, fit * 4}));
  EXPECT_EQ(DrainAll(ring), Sequence(0, fit + 1));
}

// A region the producer maps itself (nothing was on offer) has its pages faulted in at once, by
// the one hook that grows the ring, not one page fault at a time by the hooks that follow.
TEST(RingGrowthTest, ARegionTheProducerMapsItselfIsFaultedInAtOnce) {
  constexpr size_t kBase = 64 * 1024;
  RingBuffer ring(kBase, Mode::kAlternate, kTid);
  ring.set_growth_limit(kBase * 2);
  uint64_t next = 0;
  while (ring.capacity_bytes() == kBase) ASSERT_TRUE(WriteSeq(ring, next++)) << next;
  ASSERT_EQ(ring.capacity_bytes(), kBase * 2);
  const long page = sysconf(_SC_PAGESIZE);
  std::vector<unsigned char> resident(kBase * 2 / static_cast<size_t>(page));
  ASSERT_EQ(mincore(ring.data(), kBase * 2, resident.data()), 0);
  // One event was stored in the new region; every page of it is there all the same.
  EXPECT_EQ(std::count_if(resident.begin(), resident.end(), [](unsigned char r) { return r & 1; }),
            static_cast<long>(resident.size()));
}

// A producer that had to wait for the region it needed outruns doubling: the next growth goes
// straight to the limit (a burst then pays for the pages of 8 and 64 MiB, not of every size
// between). One that never waited keeps doubling (GrowsStepByStepUpToTheLimit).
TEST(RingGrowthTest, AProducerThatWaitedForItsRegionHasTheNextGrowToTheLimit) {
  RingBuffer ring(4096, Mode::kAlternate, kTid);  // 128 events
  const size_t entry = ring.BeginGrowth(1 << 20);
  ASSERT_NE(entry, RingBuffer::kNoEntry);
  std::thread preparer([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    ring.PrepareGrowth(entry);
  });
  uint64_t next = 0;
  for (; next < 200; ++next) ASSERT_TRUE(WriteSeq(ring, next)) << next;  // waits at 128
  preparer.join();
  EXPECT_EQ(ring.capacity_bytes(), 8192u);
  ASSERT_TRUE(ring.OfferGrowth(1 << 20));
  while (ring.capacity_bytes() < (1 << 20) && WriteSeq(ring, next)) ++next;
  EXPECT_EQ(ring.capacity_bytes(), size_t{1} << 20);  // 8 KiB -> 1 MiB, not 16 KiB
  EXPECT_EQ(ring.lost(), 0u);
  EXPECT_EQ(DrainAll(ring), Sequence(0, next));
  EXPECT_FALSE(ring.OfferGrowth(1 << 20));  // at the limit
}

// A region whose memory cannot be had is released and never offered: the producer counts what
// does not fit, and the next growth may be tried again.
TEST(RingGrowthTest, ARegionThatCannotBeReservedIsReleasedAndNotOffered) {
  RecordingSource source;
  source.refuse_reserve = true;
  AnonymousMemory base = AnonymousMemory::Map(4096, AnonymousMemory::Touch::kNow);
  source.base_words = base.words();
  RingControl control;
  RingBuffer ring({base.words(), 512, &control, /*hold_until_handed_back=*/false, &source},
                  Mode::kAlternate, kTid);
  const size_t entry = ring.BeginGrowth(16384);
  ASSERT_NE(entry, RingBuffer::kNoEntry);
  ring.PrepareGrowth(entry);
  EXPECT_FALSE(ring.growth_being_prepared());
  EXPECT_EQ(source.released, (std::vector<size_t>{8192}));
  uint64_t written = 0;
  for (uint64_t i = 0; i < 200; ++i) written += WriteSeq(ring, i) ? 1 : 0;
  EXPECT_EQ(written, 128u);
  EXPECT_EQ(ring.lost(), 72u);
  EXPECT_TRUE(source.taken.empty());
  EXPECT_NE(ring.BeginGrowth(16384), RingBuffer::kNoEntry);  // free again
}

// A preparation cancelled (its preparer is stopping) releases the region and offers nothing.
TEST(RingGrowthTest, ACancelledPreparationReleasesTheRegion) {
  RingBuffer ring(4096, Mode::kAlternate, kTid);
  const size_t entry = ring.BeginGrowth(8192);
  ASSERT_NE(entry, RingBuffer::kNoEntry);
  const std::atomic<bool> cancel{true};
  ring.PrepareGrowth(entry, &cancel);
  EXPECT_FALSE(ring.growth_being_prepared());
  uint64_t written = 0;
  for (uint64_t i = 0; i < 200; ++i) written += WriteSeq(ring, i) ? 1 : 0;
  EXPECT_EQ(written, 128u);  // nothing offered, and this ring does not grow itself
  EXPECT_EQ(DrainAll(ring), Sequence(0, 128));
}

// Producer and consumer race while a third thread prepares each region the consumer begins:
// every event is drained in order or counted lost (TSan checks the three-way hand-over).
TEST(RingGrowthTest, ConcurrentProducerConsumerAndPreparerAccountForEveryEvent) {
  RingBuffer ring(4096, Mode::kAlternate, kTid);
  constexpr uint64_t kEvents = 300000;
  constexpr size_t kLimit = 65536;
  ring.set_growth_limit(kLimit);
  std::vector<std::thread> preparers;
  const auto race = RaceProducerAndConsumer(ring, kEvents, std::chrono::microseconds(200), [&] {
    if (const size_t entry = ring.BeginGrowth(kLimit); entry != RingBuffer::kNoEntry) {
      preparers.emplace_back([&ring, entry] { ring.PrepareGrowth(entry); });
    }
  });
  for (std::thread& preparer : preparers) preparer.join();
  EXPECT_TRUE(race.ordered);
  EXPECT_EQ(race.drained + ring.lost(), kEvents);
  EXPECT_GE(ring.growths(), 1u);
  EXPECT_LE(ring.read_capacity_bytes(), kLimit);
}

}  // namespace
}  // namespace rastrace::buffer
