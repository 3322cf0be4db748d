// The growth preparer: a region the writer began is prepared on the preparer's thread and offered
// to the producer; stopping it leaves no ring being prepared.
#include "recorder/growth_preparer.h"

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <vector>
#include <thread>

#include "buffer/ring_buffer.h"
#include "buffer/ring_test_events.h"

namespace rastrace::recorder {
namespace {

using buffer::Mode;
using buffer::RingBuffer;

using buffer::testing::WriteSeq;

void WaitUntilPrepared(const RingBuffer& ring) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (ring.growth_being_prepared() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

TEST(GrowthPreparerTest, ARegionSubmittedIsPreparedAndOfferedToTheProducer) {
  RingBuffer ring(4096, Mode::kAlternate, 1);  // 128 events; it does not grow by itself
  GrowthPreparer preparer;
  const size_t entry = ring.BeginGrowth(8192);
  ASSERT_NE(entry, RingBuffer::kNoEntry);
  ASSERT_TRUE(preparer.Submit(ring, entry));
  WaitUntilPrepared(ring);
  EXPECT_FALSE(ring.growth_being_prepared());
  uint64_t written = 0;
  for (uint64_t seq = 0; seq < 256; ++seq) written += WriteSeq(ring, seq) ? 1 : 0;
  EXPECT_EQ(written, 256u);  // moved to the 8 KiB the preparer offered
  EXPECT_EQ(ring.lost(), 0u);
  EXPECT_EQ(ring.capacity_bytes(), 8192u);
}

TEST(GrowthPreparerTest, AStoppedPreparerLeavesNoRingBeingPreparedAndTakesNoMore) {
  std::vector<std::unique_ptr<RingBuffer>> rings;
  GrowthPreparer preparer;
  for (int i = 0; i < 8; ++i) {
    rings.push_back(std::make_unique<RingBuffer>(size_t{1} << 20, Mode::kAlternate, i));
    const size_t entry = rings.back()->BeginGrowth(size_t{2} << 20);
    ASSERT_NE(entry, RingBuffer::kNoEntry);
    ASSERT_TRUE(preparer.Submit(*rings.back(), entry));
  }
  preparer.Stop();  // what was not prepared yet is released
  for (const auto& ring : rings) EXPECT_FALSE(ring->growth_being_prepared());
  const size_t entry = rings[0]->BeginGrowth(size_t{4} << 20);
  if (entry != RingBuffer::kNoEntry) {
    EXPECT_FALSE(preparer.Submit(*rings[0], entry));  // the caller prepares it
    rings[0]->CancelGrowth(entry);
  }
}

}  // namespace
}  // namespace rastrace::recorder
