#include "session/cpu_order.h"

#include <gtest/gtest.h>

#include <vector>

namespace rastrace::session {
namespace {

struct Seen {
  uint64_t timestamp;
  uint32_t cpu;
  uint8_t first_byte;
  bool operator==(const Seen&) const = default;
};

class CpuOrderTest : public ::testing::Test {
 protected:
  // A round's records of one cpu, each with a one-byte payload in `page` (reused by the caller,
  // as the reader reuses its pages).
  std::vector<RawRecord> Records(std::vector<uint8_t>& page, std::vector<uint64_t> timestamps,
                                 uint8_t tag) {
    page.assign(timestamps.size(), tag);
    std::vector<RawRecord> records;
    for (size_t i = 0; i < timestamps.size(); ++i) {
      records.push_back({timestamps[i], std::span<const uint8_t>(page.data() + i, 1)});
    }
    return records;
  }
  CpuOrder::Consume Collect() {
    return [this](const RawRecord& record, uint32_t cpu) {
      seen_.push_back({record.timestamp, cpu, record.payload[0]});
    };
  }
  std::vector<Seen> seen_;
};

// The flake of SessionE2E.TwoProcessesAndACommandInOneReport: a round read cpu 0 before the
// parent's FORK was committed there, and cpu 1 after the child's EXEC and first events. Handed on
// as read, the FORK came after the EXEC in the kernel log and renamed the child after its parent.
TEST_F(CpuOrderTest, AnEventReadInALaterRoundStillComesBeforeNewerEventsOfOtherCpus) {
  CpuOrder order;
  std::vector<uint8_t> page0, page1;
  // Round 1: cpu 0 read at 100 (nothing yet), cpu 1 at 200: its EXEC at 170 and a hook at 190.
  order.Add(0, Records(page0, {}, 0));
  order.Add(1, Records(page1, {170, 190}, 'e'));
  order.Release(100, Collect());
  EXPECT_TRUE(seen_.empty());
  EXPECT_EQ(order.held(), 2u);
  // The round's pages are reused: what was held back was copied.
  page1.assign(page1.size(), 'x');
  // Round 2: cpu 0 gives the FORK at 150; both cpus are complete up to 300.
  order.Add(0, Records(page0, {150}, 'f'));
  order.Add(1, Records(page1, {}, 0));
  order.Release(300, Collect());
  EXPECT_EQ(seen_, (std::vector<Seen>{{150, 0, 'f'}, {170, 1, 'e'}, {190, 1, 'e'}}));
  EXPECT_EQ(order.held(), 0u);
}

TEST_F(CpuOrderTest, OnlyEventsUpToTheBoundGoOnAndTiesKeepTheOrderRead) {
  CpuOrder order;
  std::vector<uint8_t> page0, page1, page2;
  order.Add(0, Records(page0, {10, 20, 20, 40}, 'a'));
  order.Add(1, Records(page1, {20, 30}, 'b'));
  order.Release(20, Collect());
  EXPECT_EQ(seen_, (std::vector<Seen>{{10, 0, 'a'}, {20, 0, 'a'}, {20, 0, 'a'}, {20, 1, 'b'}}));
  seen_.clear();
  // An event held back precedes a later round's event of the same time (it was read first).
  order.Add(0, Records(page0, {30}, 'c'));
  order.Release(35, Collect());
  EXPECT_EQ(seen_, (std::vector<Seen>{{30, 1, 'b'}, {30, 0, 'c'}}));
  seen_.clear();
  order.Add(2, Records(page2, {41}, 'd'));
  order.ReleaseAll(Collect());
  EXPECT_EQ(seen_, (std::vector<Seen>{{40, 0, 'a'}, {41, 2, 'd'}}));
}

TEST_F(CpuOrderTest, WhatIsHeldBackIsBounded) {
  // Room for two one-byte payloads: the oldest beyond that go on although no bound allows it.
  CpuOrder order(2);
  std::vector<uint8_t> page;
  order.Add(0, Records(page, {5, 6, 7, 8}, 'a'));
  order.Release(0, Collect());
  EXPECT_EQ(seen_, (std::vector<Seen>{{5, 0, 'a'}, {6, 0, 'a'}}));
  EXPECT_EQ(order.held(), 2u);
  seen_.clear();
  order.ReleaseAll(Collect());
  EXPECT_EQ(seen_, (std::vector<Seen>{{7, 0, 'a'}, {8, 0, 'a'}}));
}

}  // namespace
}  // namespace rastrace::session
