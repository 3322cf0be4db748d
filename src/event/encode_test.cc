#include "event/encode.h"

#include <gtest/gtest.h>

#include <string>

#include "event/sizes.h"
#include "event/test_util.h"

namespace rastrace::event {
namespace {

using testing::Bytes;
using testing::Hex;

class EncodeTest : public ::testing::TestWithParam<ByteOrder> {
 protected:
  ByteOrder order() const { return GetParam(); }
  std::string Encoded(const EventFields& fields, Layout layout) {
    std::vector<uint8_t> out;
    auto result = Encode(fields, layout, order(), out);
    EXPECT_TRUE(result.ok()) << result.error().message;
    EXPECT_EQ(out.size(), EncodedSize(fields, layout));
    return Hex(out);
  }
  std::string Expected(std::string_view notation) { return Hex(Bytes(notation, order())); }
};

EventFields Words(uint16_t hook, uint16_t sub, std::initializer_list<uint64_t> words) {
  EventFields f;
  f.hook_id = hook;
  f.subhook = sub;
  for (uint64_t w : words) f.words[f.word_count++] = w;
  f.thread_id = 0x1111;
  return f;
}

TEST_P(EncodeTest, Hook64FiveWordsTimestamped) {  // TRCHK64L5T
  EventFields f = Words(0x1230, 5, {1, 2, 3, 4, 5});
  f.timestamped = true;
  f.timestamp = 0x2222;
  EXPECT_EQ(Encoded(f, Layout::k64),
            Expected("8000002812300005 0000000000000001 0000000000000002 0000000000000003 "
                     "0000000000000004 0000000000000005 0000000000001111 0000000000002222"));
}

TEST_P(EncodeTest, Hook64NoWordsNoTimestamp) {  // TRCHK64L0
  EXPECT_EQ(Encoded(Words(0x1234, 0xabcd, {}), Layout::k64),
            Expected("000000001234abcd 0000000000001111"));
}

TEST_P(EncodeTest, Hook64ThirtyTwoBitDataIsPackedAndPadded) {  // the seed's B example
  EventFields f = Words(0x5000, 5, {1, 2, 3, 4, 5});
  f.data32 = true;
  f.timestamped = true;
  f.timestamp = 0x2222;
  EXPECT_EQ(Encoded(f, Layout::k64),
            Expected("a000001450000005 00000001 00000002 00000003 00000004 00000005 00000000 "
                     "0000000000001111 0000000000002222"));
}

TEST_P(EncodeTest, Hook64GenericPadsBufferToEightBytes) {  // TRCGEN
  static const uint8_t kHello[] = {'h', 'e', 'l', 'l', 'o'};
  EventFields f = Words(0x1234, 6, {});
  f.generic = true;
  f.generic_word = 1;
  f.buffer = kHello;
  EXPECT_EQ(Encoded(f, Layout::k64),
            Expected("4000000512340006 0000000000000001 \"hello\" =000000 0000000000001111"));
}

TEST_P(EncodeTest, Hook32OneWordTimestamped) {  // TRCHKL1T: MMMTDDDD 11111111 iiiiiiii tttttttt
  EventFields f = Words(0x5000, 5, {0x11111111});
  f.timestamped = true;
  f.timestamp = 0x2222;
  EXPECT_EQ(Encoded(f, Layout::k32), Expected("500a0005 11111111 00001111 00002222"));
}

TEST_P(EncodeTest, Hook32HookOnly) {  // TRCHKL0: MMMTDDDD iiiiiiii
  EXPECT_EQ(Encoded(Words(0x5000, 5, {}), Layout::k32), Expected("50010005 00001111"));
}

TEST_P(EncodeTest, Hook32TwoToFiveWordsAreTypeSixWithFiveWords) {  // trchkg
  for (unsigned count = 2; count <= 5; ++count) {
    EventFields f = Words(0x5000, 5, {});
    std::string words;
    for (unsigned i = 0; i < 5; ++i) {
      if (i < count) f.words[f.word_count++] = i + 1;
      words += fmt::format(" {:08x}", i < count ? i + 1 : 0);
    }
    EXPECT_EQ(Encoded(f, Layout::k32), Expected("50060005" + words + " 00001111")) << count;
  }
}

TEST_P(EncodeTest, Hook32GenericTimestamped) {  // trcgent: MMMTLLLL 11111111 v... i t
  static const uint8_t kHello[] = {'h', 'e', 'l', 'l', 'o'};
  EventFields f = Words(0x5000, 0, {});
  f.generic = true;
  f.generic_word = 0x50000005;
  f.buffer = kHello;
  f.timestamped = true;
  f.timestamp = 0x2222;
  EXPECT_EQ(Encoded(f, Layout::k32),
            Expected("50080005 50000005 \"hello\" =000000 00001111 00002222"));
}

TEST_P(EncodeTest, GenericPaddingForLengthsZeroToSeventeen) {
  std::vector<uint8_t> payload(17, 0xAB);
  for (size_t len = 0; len <= 17; ++len) {
    EventFields f = Words(0x1230, 0, {});
    f.generic = true;
    f.buffer = std::span<const uint8_t>(payload).first(len);
    for (Layout layout : {Layout::k64, Layout::k32}) {
      size_t word = WordSize(layout);
      std::vector<uint8_t> out;
      ASSERT_TRUE(Encode(f, layout, order(), out).ok());
      size_t head = 2 * word;  // hookword and data word
      ASSERT_EQ(out.size(), head + PadTo(len, word) + word) << len;
      for (size_t i = 0; i < PadTo(len, word); ++i) {
        EXPECT_EQ(out[head + i], i < len ? 0xAB : 0) << "len " << len << " byte " << i;
      }
    }
  }
}

TEST_P(EncodeTest, SixteenBitIdsOnlyIn64BitLayout) {
  EventFields f = Words(0x1234, 0, {});
  EXPECT_EQ(EncodedSize(f, Layout::k64), 16u);
  EXPECT_EQ(EncodedSize(f, Layout::k32), 0u);
  std::vector<uint8_t> out;
  auto result = Encode(f, Layout::k32, order(), out);
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.error().message.find("12-bit"), std::string::npos) << result.error().message;
  EXPECT_TRUE(out.empty());
  f.hook_id = HookIdFrom12(0x123);
  EXPECT_EQ(EncodedSize(f, Layout::k32), 8u);
}

TEST_P(EncodeTest, RefusesWhatCannotBeEncoded) {
  EventFields f = Words(0x1230, 0, {});
  f.word_count = 6;
  EXPECT_EQ(EncodedSize(f, Layout::k64), 0u);
  std::vector<uint8_t> out;
  EXPECT_FALSE(Encode(f, Layout::k64, order(), out).ok());
  std::vector<uint8_t> big(0x10000);
  f.word_count = 0;
  f.generic = true;
  f.buffer = big;
  EXPECT_EQ(EncodedSize(f, Layout::k64), 0u);
  EXPECT_FALSE(Encode(f, Layout::k64, order(), out).ok());
  f.buffer = std::span<const uint8_t>(big).first(0xFFFF);
  EXPECT_EQ(EncodedSize(f, Layout::k64), kMaxEventBytes - 8);
}

TEST_P(EncodeTest, MagicInBothOrders) {
  std::vector<uint8_t> out;
  EncodeMagic(Layout::k64, order(), out);
  EncodeMagic(Layout::k32, order(), out);
  EXPECT_EQ(Hex(out), order() == ByteOrder::kBig ? "efdf1114efdf1112" : "1411dfef1211dfef");
}

// Every 64-bit flag combination and every 32-bit type, through Encode and the reader.
TEST_P(EncodeTest, RoundTripsEveryFlagCombinationAndType) {
  static const uint8_t kText[] = {'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j', 'k'};
  for (Layout layout : {Layout::k64, Layout::k32}) {
    for (int bits = 0; bits < 8; ++bits) {
      bool timestamped = bits & 1, generic = bits & 2, data32 = bits & 4;
      if (layout == Layout::k32 && data32) continue;
      for (unsigned count = 0; count <= (generic ? 0u : 5u); ++count) {
        for (size_t len : generic ? std::vector<size_t>{0, 1, 8, 11} : std::vector<size_t>{0}) {
          EventFields f;
          f.hook_id = layout == Layout::k64 ? 0xBEEF : 0xBEE0;
          f.subhook = 0x1234;
          f.timestamped = timestamped;
          f.generic = generic;
          f.data32 = data32;
          uint64_t wide = layout == Layout::k64 && !data32 ? 0x0102030405060700 : 0x01020300;
          for (unsigned i = 0; i < count; ++i) f.words[f.word_count++] = wide + i;
          f.generic_word = layout == Layout::k64 ? 0xFEDCBA9876543210 : 0x76543210;
          f.buffer = std::span<const uint8_t>(kText).first(len);
          f.thread_id = layout == Layout::k64 ? 0x1122334455667788 : 0x55667788;
          f.timestamp = timestamped ? (layout == Layout::k64 ? 0x99AABBCCDDEEFF00 : 0xDDEEFF00) : 0;
          SCOPED_TRACE(fmt::format("layout {} bits {} count {} len {}", static_cast<int>(layout),
                                   bits, count, len));
          std::vector<uint8_t> log;
          EncodeMagic(layout, order(), log);
          ASSERT_TRUE(Encode(f, layout, order(), log).ok());
          ASSERT_TRUE(Encode(f, layout, order(), log).ok());  // two, to check the stride
          auto all = testing::ReadLog(log, {.reformat = false});
          ASSERT_EQ(all.status, ReadStatus::kEnd) << all.error;
          ASSERT_EQ(all.events.size(), 2u);
          const Event& e = all.events[1].event;
          EXPECT_EQ(e.offset, 4 + EncodedSize(f, layout));
          EXPECT_EQ(e.bytes.size(), EncodedSize(f, layout));
          EXPECT_EQ(e.layout, layout);
          EXPECT_EQ(e.hook_id, f.hook_id);
          EXPECT_EQ(e.timestamped, timestamped);
          EXPECT_EQ(e.generic, generic);
          EXPECT_EQ(e.data32, data32);
          EXPECT_EQ(e.thread_id, f.thread_id);
          EXPECT_EQ(e.timestamp, f.timestamp);
          if (generic) {
            EXPECT_EQ(e.generic_word, f.generic_word);
            EXPECT_EQ(Hex(e.buffer), Hex(f.buffer));
            EXPECT_EQ(e.data_length, len);
            if (layout == Layout::k64) {
              EXPECT_EQ(e.subhook, f.subhook);
            }
          } else {
            EXPECT_EQ(e.subhook, f.subhook);
            unsigned expected_count = layout == Layout::k64 ? count : (count >= 2 ? 5 : count);
            ASSERT_EQ(e.word_count, expected_count);
            for (unsigned i = 0; i < expected_count; ++i) {
              EXPECT_EQ(e.words[i], i < count ? f.words[i] : 0) << i;
            }
          }
          if (layout == Layout::k64) {
            EXPECT_EQ(e.flags, (timestamped ? kFlagTimestamp : 0) | (generic ? kFlagGeneric : 0) |
                                   (data32 ? kFlag32BitData : 0));
          } else {
            uint8_t base = generic ? 0 : count == 0 ? 1 : count == 1 ? 2 : 6;
            EXPECT_EQ(e.type32, base | (timestamped ? 8 : 0));
          }
        }
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(BothOrders, EncodeTest,
                         ::testing::Values(ByteOrder::kBig, ByteOrder::kLittle),
                         [](const auto& info) {
                           return info.param == ByteOrder::kBig ? "Big" : "Little";
                         });

}  // namespace
}  // namespace rastrace::event
