#include "event/reformat.h"

#include <gtest/gtest.h>

#include "event/test_util.h"

namespace rastrace::event {
namespace {

using testing::Bytes;
using testing::Hex;
using testing::Log;
using testing::ReadLog;

// The three worked examples of seed 002 part C (and a few more), byte for byte, in both orders.
class ReformatTest : public ::testing::TestWithParam<ByteOrder> {
 protected:
  ByteOrder order() const { return GetParam(); }

  // The one event of a log of `layout` holding `event`, as the reader shows it to templates.
  testing::ReadAll Shown(Layout layout, std::string_view event) {
    auto all = ReadLog(Log(layout, order(), event));
    EXPECT_EQ(all.status, ReadStatus::kEnd) << all.error;
    EXPECT_EQ(all.events.size(), 1u);
    return all;
  }
  std::string Expected(std::string_view notation) { return Hex(Bytes(notation, order())); }
};

TEST_P(ReformatTest, SeedExampleThirtyTwoBitAppOnSixtyFourBitKernel) {
  // The seed shows the 4-byte words in pairs ("0000000100000002"); each is its own 4-byte value,
  // which matters in a little-endian log.
  auto all = Shown(Layout::k64,
                   "a000001450000005 00000001 00000002 00000003 00000004 00000005 00000000 "
                   "0000000000000abc 0000000000000def");
  ASSERT_EQ(all.events.size(), 1u);
  const Event& e = all.events[0].event;
  EXPECT_EQ(Hex(e.bytes), Expected("500e0005 00000001 00000002 00000003 00000004 00000005 "
                                   "0000000000000abc 0000000000000def"));
  EXPECT_TRUE(e.reformatted);
  EXPECT_EQ(e.layout, Layout::k32);
  EXPECT_EQ(e.type32, 0xE);
  EXPECT_EQ(e.flags, 0);
  EXPECT_EQ(e.hook_id, 0x5000);
  EXPECT_EQ(e.subhook, 5);
  EXPECT_EQ(e.word_count, 5);
  EXPECT_EQ(e.data_length, 20);
  EXPECT_EQ(e.words[4], 5u);
  EXPECT_EQ(e.thread_id, 0xabcu);
  EXPECT_EQ(e.timestamp, 0xdefu);
  EXPECT_EQ(e.offset, 4u);
}

TEST_P(ReformatTest, SeedExampleSixtyFourBitAppOnThirtyTwoBitKernel) {
  auto all = Shown(Layout::k32,
                   "00b8002c 80000028 50000005 0000000000000001 0000000000000002 "
                   "0000000000000003 0000000000000004 0000000000000005 00000abc 00000def");
  ASSERT_EQ(all.events.size(), 1u);
  const Event& e = all.events[0].event;
  EXPECT_EQ(Hex(e.bytes), Expected("8000002850000005 0000000000000001 0000000000000002 "
                                   "0000000000000003 0000000000000004 0000000000000005 "
                                   "0000000000000abc 0000000000000def"));
  EXPECT_TRUE(e.reformatted);
  EXPECT_EQ(e.layout, Layout::k64);
  EXPECT_EQ(e.flags, kFlagTimestamp);
  EXPECT_EQ(e.type32, 0);
  EXPECT_EQ(e.hook_id, 0x5000);
  EXPECT_EQ(e.subhook, 5);
  EXPECT_FALSE(e.generic);
  EXPECT_EQ(e.word_count, 5);
  EXPECT_EQ(e.data_length, 40);
  EXPECT_EQ(e.words[0], 1u);
  EXPECT_EQ(e.words[4], 5u);
  EXPECT_EQ(e.thread_id, 0xabcu);
  EXPECT_EQ(e.timestamp, 0xdefu);
  EXPECT_EQ(e.offset, 4u);
}

TEST_P(ReformatTest, SeedExampleGenericFromSixtyFourBitAppOnThirtyTwoBitKernel) {
  // TRCGEN(1, 0x50000005, 1, 6, "hello"): six bytes with the NUL, 0x12 = 4 + 8 + 6.
  auto all =
      Shown(Layout::k32, "00b00012 40000006 50000005 0000000000000001 \"hello\\0\" =0000 00000abc");
  ASSERT_EQ(all.events.size(), 1u);
  const Event& e = all.events[0].event;
  EXPECT_EQ(Hex(e.bytes),
            Expected("4000000650000005 0000000000000001 \"hello\\0\" =0000 0000000000000abc"));
  EXPECT_EQ(e.layout, Layout::k64);
  EXPECT_EQ(e.flags, kFlagGeneric);
  EXPECT_TRUE(e.generic);
  EXPECT_FALSE(e.timestamped);
  EXPECT_EQ(e.hook_id, 0x5000);
  EXPECT_EQ(e.subhook, 5);
  EXPECT_EQ(e.generic_word, 1u);
  EXPECT_EQ(e.data_length, 6);
  EXPECT_EQ(std::string(e.buffer.begin(), e.buffer.end()), std::string("hello\0", 6));
  EXPECT_EQ(e.thread_id, 0xabcu);
}

TEST_P(ReformatTest, ThirtyTwoBitAppWordCountsChooseTheType) {
  struct Case {
    const char* in;
    const char* out;
    uint8_t type;
  };
  for (const Case& c : {
           Case{"2000000050000005 0000000000000007", "50010005 0000000000000007", 1},
           Case{"2000000450000005 00000009 =00000000 0000000000000007",
                "50020005 00000009 0000000000000007", 2},
           Case{"a000000c50000005 00000001 00000002 00000003 =00000000 0000000000000007 "
                "0000000000000008",
                "500e0005 00000001 00000002 00000003 00000000 00000000 0000000000000007 "
                "0000000000000008",
                0xE},
       }) {
    auto all = Shown(Layout::k64, c.in);
    ASSERT_EQ(all.events.size(), 1u) << c.in;
    EXPECT_EQ(Hex(all.events[0].event.bytes), Expected(c.out)) << c.in;
    EXPECT_EQ(all.events[0].event.type32, c.type) << c.in;
  }
}

TEST_P(ReformatTest, ThirtyTwoBitAppGenericGetsAFourByteDataWord) {
  auto all = Shown(Layout::k64,
                   "e000000550000005 0000000012345678 \"hello\" =000000 0000000000000007 "
                   "0000000000000008");
  ASSERT_EQ(all.events.size(), 1u);
  const Event& e = all.events[0].event;
  EXPECT_EQ(Hex(e.bytes), Expected("50080005 12345678 \"hello\" =000000 0000000000000007 "
                                   "0000000000000008"));
  EXPECT_EQ(e.type32, 8);
  EXPECT_EQ(e.generic_word, 0x12345678u);
  EXPECT_EQ(e.data_length, 5);
  EXPECT_EQ(std::string(e.buffer.begin(), e.buffer.end()), "hello");
}

TEST_P(ReformatTest, ShortHook00BPayloadIsAnErrorWithTheOffset) {
  for (const char* event : {"00b00002 80000028 =50000000 00000001",  // no room for the hook id
                            "00b8000c 80000028 50000005 0000000000000001 00000001 00000002",
                            "00b00004 8000000c 50000005 00000001"}) {  // length 12: not words
    auto all = ReadLog(Log(Layout::k32, order(), std::string("10010002 00000007 ") + event));
    EXPECT_EQ(all.status, ReadStatus::kError) << event;
    EXPECT_EQ(all.events.size(), 1u) << event;
    EXPECT_EQ(all.error.rfind("test.log: offset 0xc: hook 00B", 0), 0u) << all.error;
  }
}

TEST_P(ReformatTest, OtherEventsAreLeftAlone) {
  Event in;
  in.layout = Layout::k64;
  in.hook_id = 0x00B0;
  in.generic = true;
  EXPECT_FALSE(NeedsReformat(in, Layout::k64));
  in.layout = Layout::k32;
  EXPECT_TRUE(NeedsReformat(in, Layout::k32));
  in.generic = false;
  EXPECT_FALSE(NeedsReformat(in, Layout::k32));
  in.layout = Layout::k64;
  in.data32 = true;
  EXPECT_TRUE(NeedsReformat(in, Layout::k64));
  std::vector<uint8_t> scratch;
  Event out;
  in.data32 = false;
  ASSERT_TRUE(Reformat(in, Layout::k64, order(), scratch, out).ok());
  EXPECT_FALSE(out.reformatted);
  EXPECT_EQ(out.hook_id, 0x00B0);
}

INSTANTIATE_TEST_SUITE_P(BothOrders, ReformatTest,
                         ::testing::Values(ByteOrder::kBig, ByteOrder::kLittle),
                         [](const auto& info) {
                           return info.param == ByteOrder::kBig ? "Big" : "Little";
                         });

}  // namespace
}  // namespace rastrace::event
