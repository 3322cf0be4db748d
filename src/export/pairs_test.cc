#include "export/pairs.h"

#include <gtest/gtest.h>

#include "event/format.h"

namespace rastrace::exporter {
namespace {

event::Event Hook(uint16_t hook_id, uint16_t subhook, std::initializer_list<uint64_t> words = {}) {
  event::Event e;
  e.hook_id = hook_id;
  e.subhook = subhook;
  for (uint64_t w : words) e.words[e.word_count++] = w;
  return e;
}

TEST(ExportPairs, DefaultTablePairsTraceOnOffByChannelAndSystemCalls) {
  const PairTable table = PairTable::Default();
  const auto on = table.Find(Hook(event::kHookTraceOn, 0, {3}));
  ASSERT_TRUE(on.has_value());
  EXPECT_TRUE(on->begins);
  EXPECT_EQ(on->key, 3u);
  EXPECT_EQ(table.rule(on->rule).scope, PairScope::kGlobal);
  const auto off = table.Find(Hook(event::kHookTraceOff, 0, {3}));
  ASSERT_TRUE(off.has_value());
  EXPECT_FALSE(off->begins);
  EXPECT_EQ(off->rule, on->rule);
  EXPECT_EQ(off->key, 3u);

  const auto entry = table.Find(Hook(0x1010, 0));
  const auto exit = table.Find(Hook(0x1040, 0));
  ASSERT_TRUE(entry && exit);
  EXPECT_EQ(entry->rule, exit->rule);
  EXPECT_EQ(table.rule(entry->rule).scope, PairScope::kThread);
  EXPECT_FALSE(table.Find(Hook(0x1230, 0)).has_value());

  // POSIX trace: 0FF1 with the START (0) / STOP (1) event type ids; other types are not paired.
  const auto start = table.Find(Hook(0x0FF1, 0));
  const auto stop = table.Find(Hook(0x0FF1, 1));
  ASSERT_TRUE(start && stop);
  EXPECT_TRUE(start->begins);
  EXPECT_FALSE(stop->begins);
  EXPECT_EQ(start->rule, stop->rule);
  EXPECT_FALSE(table.Find(Hook(0x0FF1, 7)).has_value());
}

// Rules of the kinds the POSIX and dyntrace parts will add: a generic START/STOP pair told apart by
// subhook, and entry/RETEP tracepoints of one major told apart by a subhook bit, paired by minor.
TEST(ExportPairs, AddedRulesMatchBySubhookMaskAndKey) {
  PairTable table;
  table.Add({"posix trace",
             {0x0C00, 0x0001, 0xFFFF},
             {0x0C00, 0x0002, 0xFFFF},
             PairScope::kGlobal,
             PairKey::kNone});
  table.Add({"tracepoint",
             {0x0D00, 0x0000, 0x8000},
             {0x0D00, 0x8000, 0x8000},
             PairScope::kThread,
             PairKey::kSubhook});
  const auto start = table.Find(Hook(0x0C00, 1));
  const auto stop = table.Find(Hook(0x0C00, 2));
  ASSERT_TRUE(start && stop);
  EXPECT_TRUE(start->begins);
  EXPECT_FALSE(stop->begins);
  EXPECT_FALSE(table.Find(Hook(0x0C00, 3)).has_value());

  const auto entry = table.Find(Hook(0x0D00, 0x0005));
  const auto retep = table.Find(Hook(0x0D00, 0x8005));
  const auto other = table.Find(Hook(0x0D00, 0x8006));
  ASSERT_TRUE(entry && retep && other);
  EXPECT_TRUE(entry->begins);
  EXPECT_FALSE(retep->begins);
  EXPECT_EQ(entry->key, retep->key);  // minor 5 pairs with minor 5...
  EXPECT_NE(entry->key, other->key);  // ...not with minor 6
}

}  // namespace
}  // namespace rastrace::exporter
