#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <ctime>
#include <numeric>
#include <random>

#include "stda/stda.h"

namespace rastrace::stda {
namespace {

TEST(StdaClock, LocalTimestampOfARealtimeInstant) {
  setenv("TZ", "UTC", 1);
  tzset();
  // 01:02:03.456 on the first day of the epoch: hundredths are cut, not rounded.
  EXPECT_EQ(LocalTimestamp(3723'456'000'000u), (Timestamp{1, 2, 3, 45}));
  setenv("TZ", "UTC-2", 1);  // two hours east
  tzset();
  EXPECT_EQ(LocalTimestamp(3723'456'000'000u), (Timestamp{3, 2, 3, 45}));
  unsetenv("TZ");
  tzset();
}

using ::testing::HasSubstr;

std::vector<uint8_t> Bytes(size_t n, uint8_t seed) {
  std::vector<uint8_t> v(n);
  std::iota(v.begin(), v.end(), seed);
  return v;
}

TEST(TraceBuffer, FreshBufferLayout) {
  for (Format f : {Format::kGa, Format::kNew}) {
    auto buf = TraceBuffer::Create(f, 0x100);
    ASSERT_TRUE(buf.ok());
    auto img = buf->Snapshot();
    ASSERT_EQ(img.size(), 0x100u);
    EXPECT_EQ(std::string(img.begin(), img.begin() + 8), "SYSTRACE");
    const uint16_t first = FirstOffset(f);
    EXPECT_EQ(img[8] | img[9] << 8, first);
    EXPECT_EQ(img[10] | img[11] << 8, 0xFF);
    EXPECT_EQ(img[12] | img[13] << 8, first + 8);        // after the end marker
    EXPECT_EQ(img[first + 7], 0);                        // marker: major 0
    EXPECT_EQ(img[first + 5] | img[first + 6] << 8, 0);  // and length 0
    EXPECT_TRUE(ReadStda(img).records.empty());
  }
}

TEST(TraceBuffer, RecordIsDataTimestampTrailerForward) {
  auto buf = TraceBuffer::Create(Format::kGa, 0x40).value();
  const auto data = Bytes(3, 0x61);
  ASSERT_TRUE(buf.Write({0x12, 0x3456, 0x0789, flag::kNotKernel, {1, 2, 3, 4}, data}).ok());
  auto img = buf.Snapshot();
  const size_t at = kGaFirst + 8;
  EXPECT_EQ(img[at], 0x61);
  EXPECT_EQ(img[at + 2], 0x63);
  EXPECT_EQ(img[at + 3], 3);  // GA timestamp: seconds, hundredths
  EXPECT_EQ(img[at + 4], 4);
  const std::vector<uint8_t> trailer(img.begin() + at + 5, img.begin() + at + 13);
  EXPECT_EQ(trailer, (std::vector<uint8_t>{0x01, 0x89, 0x07, 0x56, 0x34, 0x03, 0x00, 0x12}));
  EXPECT_EQ(img[12] | img[13] << 8, at + 13);
}

TEST(TraceBuffer, NoTimestampFlagOmitsIt) {
  auto buf = TraceBuffer::Create(Format::kNew, 0x40).value();
  ASSERT_TRUE(buf.Write({1, 1, 1, flag::kNotKernel | flag::kNoTimestamp, {}, {}}).ok());
  auto img = buf.Snapshot();
  EXPECT_EQ(img[12] | img[13] << 8, kNewFirst + 16);
  auto c = ReadStda(img);
  ASSERT_EQ(c.records.size(), 1u);
  EXPECT_FALSE(c.records[0].time.has_value());
}

TEST(TraceBuffer, RejectsWhatCannotBeStored) {
  auto buf = TraceBuffer::Create(Format::kGa, 0x40).value();
  EXPECT_FALSE(buf.Write({0, 1, 1, flag::kNotKernel, {}, {}}).ok());
  const auto big = Bytes(0x40, 0);
  auto r = buf.Write({1, 1, 1, flag::kNotKernel, {}, big});
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.error().message, HasSubstr("does not fit"));
  EXPECT_FALSE(TraceBuffer::Create(Format::kGa, 0x10).ok());
  EXPECT_FALSE(TraceBuffer::Create(Format::kGa, 0x10001).ok());
}

TEST(TraceBuffer, GetStdaSnapshotsAndEmpties) {
  auto buf = TraceBuffer::Create(Format::kNew, 0x80).value();
  ASSERT_TRUE(buf.Write({5, 6, 7, flag::kNotKernel, {}, Bytes(4, 1)}).ok());
  auto snap = buf.GetStda();
  EXPECT_EQ(ReadStda(snap).records.size(), 1u);
  EXPECT_TRUE(ReadStda(buf.Snapshot()).records.empty());
}

// A filler record of every size moves the newest record's start around the buffer, so its
// trailer, its timestamp and its data each wrap at every split point.
class WrapEveryPiece : public ::testing::TestWithParam<Format> {};

TEST_P(WrapEveryPiece, NewestRecordReadsBackWhereverItWraps) {
  const Format format = GetParam();
  const size_t size = FirstOffset(format) + 40;  // a 40-byte record area
  const size_t stamp = TimestampSize(format);
  size_t trailer_splits = 0, stamp_splits = 0, data_splits = 0;
  for (size_t filler = 0; filler + stamp + 8 <= 40; ++filler) {
    for (size_t rounds = 1; rounds <= 3; ++rounds) {
      auto buf = TraceBuffer::Create(format, size).value();
      for (size_t i = 0; i < rounds; ++i) {
        ASSERT_TRUE(
            buf.Write({0x21, 1, 9, flag::kNotKernel, {1, 2, 3, 4}, Bytes(filler, 0x80)}).ok());
      }
      const auto before = buf.Snapshot();
      const size_t start = before[12] | before[13] << 8;  // where the newest record begins
      const auto data = Bytes(6, 0x30);
      ASSERT_TRUE(buf.Write({0x22, 2, 0x77, flag::kNotKernel, {5, 6, 7, 8}, data}).ok());
      // Which piece crosses the end of the buffer?
      const size_t first = FirstOffset(format), end = size;
      const size_t data_end = start + 6, stamp_end = data_end + stamp;
      if (start < end && data_end > end) ++data_splits;
      if (data_end < end && stamp_end > end) ++stamp_splits;
      if (stamp_end < end && stamp_end + 8 > end) ++trailer_splits;
      (void)first;

      StdaContents c = ReadStda(buf.Snapshot());
      ASSERT_TRUE(c.problems.empty()) << c.problems[0].message;
      ASSERT_FALSE(c.records.empty());
      const Record& newest = c.records.back();
      EXPECT_EQ(newest.major, 0x22);
      EXPECT_EQ(newest.minor, 2);
      EXPECT_EQ(newest.pid, 0x77);
      EXPECT_EQ(newest.data, data);
      const Timestamp expect =
          format == Format::kGa ? Timestamp{0, 0, 7, 8} : Timestamp{5, 6, 7, 8};
      EXPECT_EQ(newest.time, expect);
      // Every older record shown is intact.
      for (size_t i = 0; i + 1 < c.records.size(); ++i) {
        EXPECT_EQ(c.records[i].minor, 1);
        EXPECT_EQ(c.records[i].data, Bytes(filler, 0x80));
      }
      // As many records as fit: the newest ones whose total is within the record area.
      const size_t newest_size = 6 + stamp + 8, filler_size = filler + stamp + 8;
      const size_t fit = std::min(rounds, (40 - newest_size) / filler_size);
      EXPECT_EQ(c.records.size(), 1 + fit) << "filler " << filler << " rounds " << rounds;
    }
  }
  EXPECT_GT(data_splits, 0u);
  EXPECT_GT(stamp_splits, 0u);
  EXPECT_GT(trailer_splits, 0u);
}

INSTANTIATE_TEST_SUITE_P(BothFormats, WrapEveryPiece, ::testing::Values(Format::kGa, Format::kNew),
                         [](const auto& info) {
                           return info.param == Format::kGa ? std::string("Ga")
                                                            : std::string("New");
                         });

// Random record sizes, flags and buffer sizes against a model: the reader returns exactly the
// newest records whose total fits the record area, oldest first, byte for byte.
TEST(TraceBuffer, RandomSequencesMatchTheModel) {
  std::mt19937 random(20261121);
  for (int round = 0; round < 300; ++round) {
    const Format format = round % 2 ? Format::kGa : Format::kNew;
    const size_t area = 0x30 + random() % 400;
    auto buf = TraceBuffer::Create(format, FirstOffset(format) + area).value();
    std::vector<RecordSpec> written;
    std::vector<std::vector<uint8_t>> payloads;
    const int count = 1 + static_cast<int>(random() % 60);
    payloads.reserve(count);
    for (int i = 0; i < count; ++i) {
      payloads.push_back(Bytes(random() % 24, static_cast<uint8_t>(i)));
      RecordSpec r{static_cast<uint8_t>(1 + random() % 255),
                   static_cast<uint16_t>(i),
                   static_cast<uint16_t>(random()),
                   static_cast<uint8_t>(flag::kNotKernel | (random() % 2 ? flag::kNoTimestamp : 0)),
                   {static_cast<uint8_t>(i % 24), 1, 2, 3},
                   payloads.back()};
      ASSERT_TRUE(buf.Write(r).ok());
      written.push_back(r);
    }
    // The model: walk back from the newest while the records fit.
    size_t used = 0, kept = 0;
    for (auto it = written.rbegin(); it != written.rend(); ++it) {
      const size_t size =
          it->data.size() + 8 + ((it->flags & flag::kNoTimestamp) ? 0 : TimestampSize(format));
      if (used + size > area) break;
      used += size;
      ++kept;
    }
    StdaContents c = ReadStda(buf.Snapshot());
    ASSERT_TRUE(c.problems.empty()) << "round " << round << ": " << c.problems[0].message;
    ASSERT_EQ(c.records.size(), kept) << "round " << round;
    for (size_t k = 0; k < kept; ++k) {
      const RecordSpec& w = written[written.size() - kept + k];
      const Record& r = c.records[k];
      EXPECT_EQ(r.major, w.major);
      EXPECT_EQ(r.minor, w.minor);
      EXPECT_EQ(r.pid, w.pid);
      EXPECT_EQ(r.flags, w.flags);
      EXPECT_EQ(r.time.has_value(), (w.flags & flag::kNoTimestamp) == 0);
      EXPECT_EQ(r.data, std::vector<uint8_t>(w.data.begin(), w.data.end()));
    }
  }
}

TEST(SystemBuffer, DosSysTraceAndDosGetSTDA) {
  ASSERT_TRUE(ConfigureSystemBuffer(Format::kGa, 0x200).ok());
  const uint8_t data[] = {1, 2, 3};
  ASSERT_TRUE(DosSysTrace(0x40, 0x11, data).ok());
  auto r = DosSysTrace(0x100, 1, data);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.error().message, HasSubstr("does not fit the one-byte STDA trailer"));
  auto c = ReadStda(DosGetSTDA());
  ASSERT_EQ(c.records.size(), 1u);
  EXPECT_EQ(c.records[0].major, 0x40);
  EXPECT_EQ(c.records[0].pid, static_cast<uint16_t>(getpid()));
  EXPECT_TRUE(c.records[0].time.has_value());
  EXPECT_TRUE(ReadStda(DosGetSTDA()).records.empty());  // emptied by the first call
}

}  // namespace
}  // namespace rastrace::stda
