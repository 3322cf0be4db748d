#include "event/s2.h"

#include <gtest/gtest.h>

#include <string>

namespace rastrace::event {
namespace {

TEST(S2, ReadsStringsWithoutReadingPastTheBuffer) {
  const std::vector<uint8_t> ok = {0x03, 0x00, 'a', 'b', 'c'};
  EXPECT_EQ(ReadS2(ok, 0, ByteOrder::kLittle), "abc");
  const std::vector<uint8_t> long_length = {0x09, 0x00, 'a'};
  EXPECT_FALSE(ReadS2(long_length, 0, ByteOrder::kLittle).has_value());
  EXPECT_FALSE(ReadS2(ok, 4, ByteOrder::kLittle).has_value());
  EXPECT_FALSE(ReadS2(ok, 99, ByteOrder::kLittle).has_value());
  EXPECT_FALSE(ReadS2(ok, SIZE_MAX, ByteOrder::kLittle).has_value());
}

TEST(S2, TruncatedStringsAreNotRead) {
  std::vector<uint8_t> bytes = {5, 0, 'a', 'b'};
  EXPECT_FALSE(ReadS2(bytes, 0, ByteOrder::kLittle).has_value());
  bytes = {2, 0, 'a', 'b'};
  EXPECT_EQ(ReadS2(bytes, 0, ByteOrder::kLittle), "ab");
  EXPECT_FALSE(ReadS2(bytes, 3, ByteOrder::kLittle).has_value());
}

TEST(S2, TrailingNulsOfOtherProducersAreDroppedButStillCountForTheEnd) {
  const std::vector<uint8_t> nul = {0x00, 0x04, 'a', 'b', 0, 0, 0xEE};
  EXPECT_EQ(ReadS2(nul, 0, ByteOrder::kBig), "ab");
  EXPECT_EQ(S2End(nul, 0, ByteOrder::kBig), 6u);
  const std::vector<uint8_t> only_nuls = {0x02, 0x00, 0, 0};
  EXPECT_EQ(ReadS2(only_nuls, 0, ByteOrder::kLittle), "");
  const std::vector<uint8_t> inner_nul = {0x03, 0x00, 'a', 0, 'b'};
  EXPECT_EQ(ReadS2(inner_nul, 0, ByteOrder::kLittle), std::string_view("a\0b", 3));
}

TEST(S2, AppendWritesTheLengthInTheGivenOrderAndReadsBack) {
  std::vector<uint8_t> out = {0xAA};
  AppendS2("hi", ByteOrder::kBig, out);
  EXPECT_EQ(out, (std::vector<uint8_t>{0xAA, 0x00, 0x02, 'h', 'i'}));
  AppendS2("", ByteOrder::kLittle, out);
  EXPECT_EQ(out.size(), 7u);
  EXPECT_EQ(ReadS2(out, 1, ByteOrder::kBig), "hi");
  EXPECT_EQ(S2End(out, 1, ByteOrder::kBig), 5u);
  EXPECT_EQ(ReadS2(out, 5, ByteOrder::kLittle), "");
}

TEST(S2, AppendCutsTextLongerThanALengthCanSay) {
  std::vector<uint8_t> out;
  AppendS2(std::string(kS2MaxLength + 10, 'x'), ByteOrder::kLittle, out);
  ASSERT_EQ(out.size(), 2 + kS2MaxLength);
  EXPECT_EQ(ReadS2(out, 0, ByteOrder::kLittle)->size(), kS2MaxLength);
}

}  // namespace
}  // namespace rastrace::event
