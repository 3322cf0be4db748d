#include "event/timebase.h"

#include <gtest/gtest.h>

#include <limits>

#include "event/encode.h"
#include "event/test_util.h"

namespace rastrace::event {
namespace {

// A log with one 00A/25C event carrying `conversion`, read back.
testing::ReadAll ConversionLog(Layout layout, ByteOrder order, const TimeConversion& conversion) {
  std::vector<uint8_t> buffer = EncodeTimeConversion(conversion, order);
  EventFields f;
  f.hook_id = kHookUtil;
  f.subhook = kUtilTimeConversion;
  f.generic = true;
  f.generic_word = layout == Layout::k64 ? 0 : kUtilTimeConversion;
  f.buffer = buffer;
  std::vector<uint8_t> log;
  EncodeMagic(layout, order, log);
  EXPECT_TRUE(Encode(f, layout, order, log).ok());
  return testing::ReadLog(log);
}

TEST(TimeBaseTest, ObservesTheConversionEventInBothOrdersAndLayouts) {
  for (ByteOrder order : {ByteOrder::kBig, ByteOrder::kLittle}) {
    for (Layout layout : {Layout::k64, Layout::k32}) {
      auto all = ConversionLog(layout, order, {3, 7, 2});
      ASSERT_EQ(all.events.size(), 1u) << all.error;
      TimeBase base;
      EXPECT_EQ(base.ToNanoseconds(700), 700u);  // ticks are ns until told otherwise
      ASSERT_TRUE(base.Observe(all.events[0].event, order));
      EXPECT_EQ(base.conversion().multiplier, 3u);
      EXPECT_EQ(base.conversion().divisor, 7u);
      EXPECT_EQ(base.conversion().flag, 2u);
      EXPECT_EQ(base.ToNanoseconds(700), 300u);
    }
  }
}

TEST(TimeBaseTest, IgnoresOtherEvents) {
  auto all = ConversionLog(Layout::k64, ByteOrder::kLittle, {3, 7, 2});
  ASSERT_EQ(all.events.size(), 1u);
  TimeBase base;
  Event e = all.events[0].event;
  e.subhook = kUtilProcess;
  EXPECT_FALSE(base.Observe(e, ByteOrder::kLittle));
  e = all.events[0].event;
  e.buffer = e.buffer.first(23);
  EXPECT_FALSE(base.Observe(e, ByteOrder::kLittle));
  e = all.events[0].event;
  e.hook_id = kHookHeader;
  EXPECT_FALSE(base.Observe(e, ByteOrder::kLittle));
  EXPECT_EQ(base.conversion().flag, 0u);
}

TEST(TimeBaseTest, UsesOneHundredTwentyEightBitIntermediates) {
  TimeBase base;
  // ticks * m overflows 64 bits; the quotient does not.
  base.Set({1'000'000'000, 3'000'000'000, 2});
  uint64_t ticks = 0xFFFF'FFFF'FFFF'FFF0;
  EXPECT_EQ(base.ToNanoseconds(ticks),
            static_cast<uint64_t>(static_cast<unsigned __int128>(ticks) / 3));
  base.Set({125, 3, 2});  // 24 MHz ticks
  EXPECT_EQ(base.ToNanoseconds(24'000'000), 1'000'000'000u);
  base.Set({3, 1, 2});  // result too large: saturates instead of wrapping
  EXPECT_EQ(base.ToNanoseconds(std::numeric_limits<uint64_t>::max()),
            std::numeric_limits<uint64_t>::max());
}

TEST(TimeBaseTest, FlagOtherThanTwoOrZeroDivisorMeansNanoseconds) {
  TimeBase base;
  base.Set({3, 7, 1});
  EXPECT_EQ(base.ToNanoseconds(700), 700u);
  base.Set({3, 0, 2});
  EXPECT_EQ(base.ToNanoseconds(700), 700u);
}

TEST(TimeBaseTest, EncodesThreeEightByteWords) {
  EXPECT_EQ(testing::Hex(EncodeTimeConversion({1, 2, 3}, ByteOrder::kBig)),
            "000000000000000100000000000000020000000000000003");
  EXPECT_EQ(testing::Hex(EncodeTimeConversion({1, 2, 3}, ByteOrder::kLittle)),
            "010000000000000002000000000000000300000000000000");
}

}  // namespace
}  // namespace rastrace::event
