#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>

#include "common/byte_order.h"
#include "stda/stda.h"

namespace rastrace::stda {
namespace {

using ::testing::HasSubstr;

void Put16(std::vector<uint8_t>& b, size_t at, uint16_t v) {
  Store<uint16_t>(&b[at], v, ByteOrder::kLittle);
}

void PutTrailer(std::vector<uint8_t>& b, size_t at, uint8_t flags, uint16_t pid, uint16_t minor,
                uint16_t length, uint8_t major) {
  b[at] = flags;
  Put16(b, at + 1, pid);
  Put16(b, at + 3, minor);
  Put16(b, at + 5, length);
  b[at + 7] = major;
}

std::vector<uint8_t> Header(size_t size, uint16_t first, uint16_t next) {
  std::vector<uint8_t> b(size, 0);
  std::memcpy(b.data(), "SYSTRACE", 8);
  Put16(b, 8, first);
  Put16(b, 10, static_cast<uint16_t>(size - 1));
  Put16(b, 12, next);
  return b;
}

// Seed 000's worked example: FIRST 14, NEXT 26; the newest record's trailer is at 18, its 2-byte
// timestamp at 16, and its 4 data bytes wrap: 2 right after FIRST, the 2 before at LAST.
TEST(StdaReader, Seed000WorkedExample) {
  constexpr size_t kSize = 64;  // LAST = 63, a 50-byte record area
  auto b = Header(kSize, 14, 26);
  // The newest record (major 0x10, minor 3): data "ABCD", timestamp 5.25 s.
  b[62] = 'A';
  b[63] = 'B';
  b[14] = 'C';
  b[15] = 'D';
  b[16] = 5;
  b[17] = 25;
  PutTrailer(b, 18, flag::kNotKernel, 0x42, 3, 4, 0x10);
  // The oldest record begins exactly at NEXT: a timestamp and a trailer with length 0.
  b[26] = 1;
  b[27] = 2;
  PutTrailer(b, 28, flag::kNotKernel, 0x42, 1, 0, 0x10);
  // A record in between: 16 data bytes at 36..51, timestamp 52..53, trailer 54..61.
  for (int i = 0; i < 16; ++i) b[36 + i] = static_cast<uint8_t>(0xA0 + i);
  b[52] = 3;
  b[53] = 4;
  PutTrailer(b, 54, flag::kNotKernel | flag::kDynamic, 0x43, 2, 16, 0x10);

  StdaContents c = ReadStda(b);
  EXPECT_TRUE(c.problems.empty()) << c.problems[0].message;
  EXPECT_EQ(c.format, Format::kGa);
  EXPECT_EQ(c.first, 14);
  EXPECT_EQ(c.last, 63);
  EXPECT_EQ(c.next, 26);
  ASSERT_EQ(c.records.size(), 3u);  // oldest first
  EXPECT_EQ(c.records[0].minor, 1);
  EXPECT_EQ(c.records[0].trailer_offset, 28);
  EXPECT_TRUE(c.records[0].data.empty());
  EXPECT_EQ(c.records[1].minor, 2);
  EXPECT_EQ(c.records[1].pid, 0x43);
  EXPECT_EQ(c.records[1].data.size(), 16u);
  EXPECT_EQ(c.records[1].data[15], 0xAF);
  const Record& newest = c.records[2];
  EXPECT_EQ(newest.trailer_offset, 18);
  EXPECT_EQ(newest.major, 0x10);
  EXPECT_EQ(newest.minor, 3);
  EXPECT_EQ(newest.pid, 0x42);
  ASSERT_TRUE(newest.time.has_value());
  EXPECT_EQ(newest.time->seconds, 5);
  EXPECT_EQ(newest.time->hundredths, 25);
  EXPECT_EQ(std::string(newest.data.begin(), newest.data.end()), "ABCD");
}

TEST(StdaReader, StopsAtTheEndMarker) {
  auto b = Header(64, 14, 14 + 8 + 3 + 2 + 8);
  PutTrailer(b, 14, 0, 0, 0, 0, 0);  // end marker
  b[22] = 'x';
  b[23] = 'y';
  b[24] = 'z';
  PutTrailer(b, 27, flag::kNotKernel, 7, 9, 3, 0x20);
  // Garbage that would be a record if the walk went past the marker.
  PutTrailer(b, 56, flag::kNotKernel | flag::kNoTimestamp, 1, 1, 0, 0x30);
  StdaContents c = ReadStda(b);
  EXPECT_TRUE(c.problems.empty());
  ASSERT_EQ(c.records.size(), 1u);
  EXPECT_EQ(c.records[0].minor, 9);
}

TEST(StdaReader, EmptyBufferHasNoRecords) {
  auto b = Header(64, 14, 14);
  StdaContents c = ReadStda(b);
  EXPECT_TRUE(c.problems.empty());
  EXPECT_TRUE(c.records.empty());
}

TEST(StdaReader, ImpossibleLengthIsCorruptionAndNewerRecordsAreKept) {
  auto b = Header(64, 14, 14 + 8 + 8 + 2 + 8);
  PutTrailer(b, 14, 0, 0, 0, 0, 0);
  PutTrailer(b, 22, flag::kNotKernel | flag::kNoTimestamp, 1, 1, 0x7000, 0x20);  // cannot fit
  PutTrailer(b, 32, flag::kNotKernel, 1, 2, 0, 0x20);
  StdaContents c = ReadStda(b, 0x1A);
  ASSERT_EQ(c.problems.size(), 1u);
  EXPECT_EQ(c.problems[0].offset, 0x1Au + 22);
  EXPECT_THAT(c.problems[0].message, HasSubstr("data length 28672 cannot fit"));
  ASSERT_EQ(c.records.size(), 1u);
  EXPECT_EQ(c.records[0].minor, 2);
}

TEST(StdaReader, BadHeaderOffsetsAreReported) {
  auto next_outside = Header(64, 14, 70);
  StdaContents c = ReadStda(next_outside);
  ASSERT_FALSE(c.problems.empty());
  EXPECT_EQ(c.problems[0].offset, 12u);
  EXPECT_THAT(c.problems[0].message, HasSubstr("NEXT 0x0046 is outside"));

  auto first_after_last = Header(64, 14, 14);
  Put16(first_after_last, 10, 10);
  c = ReadStda(first_after_last);
  ASSERT_FALSE(c.problems.empty());
  EXPECT_THAT(c.problems.back().message, HasSubstr("leave no room"));

  c = ReadStda(std::vector<uint8_t>(5, 0));
  ASSERT_EQ(c.problems.size(), 1u);
  EXPECT_THAT(c.problems[0].message, HasSubstr("shorter than its 14-byte header"));
}

TEST(StdaReader, TruncatedImageKeepsWhatCanBeRead) {
  auto full = Header(64, 14, 14 + 8 + 2 + 8 + 2 + 8);
  PutTrailer(full, 14, 0, 0, 0, 0, 0);
  PutTrailer(full, 24, flag::kNotKernel, 1, 1, 0, 0x20);
  PutTrailer(full, 34, flag::kNotKernel, 1, 2, 0, 0x20);
  std::vector<uint8_t> cut(full.begin(), full.begin() + 42);
  StdaContents c = ReadStda(cut);
  ASSERT_FALSE(c.problems.empty());
  EXPECT_THAT(c.problems[0].message, HasSubstr("truncated"));
  ASSERT_EQ(c.records.size(), 2u);  // both lie before the cut
}

TEST(StdaReader, NewFormatStampsAndFourByteTimestamps) {
  auto b = Header(80, 0x1E, 0x1E + 8 + 4 + 8);
  b[0x0E] = 0xEA;  // TRACE ON 2026-11-21 08:30:15.50
  b[0x0F] = 0x07;
  b[0x10] = 11;
  b[0x11] = 21;
  b[0x12] = 8;
  b[0x13] = 30;
  b[0x14] = 15;
  b[0x15] = 50;
  PutTrailer(b, 0x1E, 0, 0, 0, 0, 0);
  b[0x26] = 10;
  b[0x27] = 11;
  b[0x28] = 12;
  b[0x29] = 13;
  PutTrailer(b, 0x2A, flag::kNotKernel, 3, 4, 0, 0x50);
  StdaContents c = ReadStda(b);
  EXPECT_TRUE(c.problems.empty());
  EXPECT_EQ(c.format, Format::kNew);
  ASSERT_TRUE(c.trace_on.has_value());
  EXPECT_EQ(c.trace_on->year, 2026);
  EXPECT_EQ(c.trace_on->minute, 30);
  ASSERT_EQ(c.records.size(), 1u);
  EXPECT_EQ(c.records[0].time, (Timestamp{10, 11, 12, 13}));
}

}  // namespace
}  // namespace rastrace::stda
