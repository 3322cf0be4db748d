#include "export/merged_stream.h"

#include <gtest/gtest.h>

#include "event/format.h"
#include "event/log_builder.h"

namespace rastrace::exporter {
namespace {

using event::testing::LogBuilder;

event::LogReader Reader(const LogBuilder& log, std::string name) {
  auto reader = event::LogReader::FromBytes(log.bytes(), std::move(name), {.reformat = false});
  EXPECT_TRUE(reader.ok()) << reader.error().message;
  return std::move(reader).value();
}

struct Seen {
  size_t input;
  size_t origin;
  uint64_t time_ns;
  uint16_t hook;
  uint64_t word;
};

std::vector<Seen> Drain(MergedStream& stream) {
  std::vector<Seen> seen;
  SourceEvent item;
  while (stream.Next(item) == event::ReadStatus::kEvent) {
    const auto& e = *item.event;
    seen.push_back(
        {item.input, item.origin, item.time_ns, e.hook_id, e.word_count > 0 ? e.words[0] : 0});
  }
  return seen;
}

TEST(ExportMergedStream, InterleavesByConvertedTimeWithEachLogsOwnConversion) {
  // Log A: 1 tick = 10 ns. Log B: 3 ticks = 1 ns... expressed as m/d = 1/3.
  LogBuilder a;
  a.TimeConversion(10, 1)
      .Hook(0x1230, 0, {1}, 1, 1)
      .Hook(0x1230, 0, {3}, 1, 30)
      .Hook(0x1230, 0, {5}, 1, 50);
  LogBuilder b;
  b.TimeConversion(1, 3)
      .Hook(0x4560, 0, {2}, 2, 60)
      .Hook(0x4560, 0, {4}, 2, 1200)
      .Hook(0x4560, 0, {6}, 2, 3000);
  std::vector<event::LogReader> readers;
  readers.push_back(Reader(a, "a.trc"));
  readers.push_back(Reader(b, "b.trc"));
  auto stream = MergedStream::FromReaders(std::move(readers));
  const auto seen = Drain(stream);
  ASSERT_EQ(seen.size(), 8u);  // two 25C events and six hooks
  std::vector<uint64_t> words;
  uint64_t last = 0;
  for (const auto& s : seen) {
    EXPECT_GE(s.time_ns, last);
    last = s.time_ns;
    if (s.hook != event::kHookUtil) words.push_back(s.word);
  }
  EXPECT_EQ(words, (std::vector<uint64_t>{1, 2, 3, 4, 5, 6}));
  // A's third event: 50 ticks * 10 = 500 ns; B's second: 1200 / 3 = 400 ns.
  EXPECT_EQ(seen.back().time_ns, 1000u);
  EXPECT_EQ(stream.origins().size(), 2u);
  EXPECT_EQ(stream.origins()[1].name, "b.trc");
  EXPECT_TRUE(stream.warnings().empty());
}

TEST(ExportMergedStream, EqualTimesKeepInputOrderAndUntimestampedEventsStayInPlace) {
  LogBuilder a;
  a.Hook(0x1230, 0, {1}, 1, 100).Hook(0x1230, 0, {2}, 1, /*timestamp=*/-1);
  LogBuilder b;
  b.Hook(0x4560, 0, {3}, 2, 100).Hook(0x4560, 0, {4}, 2, 150);
  std::vector<event::LogReader> readers;
  readers.push_back(Reader(a, "a"));
  readers.push_back(Reader(b, "b"));
  auto stream = MergedStream::FromReaders(std::move(readers));
  const auto seen = Drain(stream);
  ASSERT_EQ(seen.size(), 4u);
  EXPECT_EQ(seen[0].word, 1u);
  EXPECT_EQ(seen[1].word, 2u);  // untimestamped: carries a's last time (100), before b's 100
  EXPECT_EQ(seen[1].time_ns, 100u);
  EXPECT_EQ(seen[2].word, 3u);
  EXPECT_EQ(seen[3].word, 4u);
}

TEST(ExportMergedStream, TruncatedInputEndsWithAWarningWhileOthersGoOn) {
  LogBuilder a;
  a.Hook(0x1230, 0, {1}, 1, 10).Hook(0x1230, 0, {3}, 1, 30);
  std::vector<uint8_t> cut = a.bytes();
  cut.resize(cut.size() - 5);
  LogBuilder b;
  b.Hook(0x4560, 0, {2}, 2, 20).Hook(0x4560, 0, {4}, 2, 40);
  std::vector<event::LogReader> readers;
  auto ra = event::LogReader::FromBytes(cut, "cut.trc", {.reformat = false});
  ASSERT_TRUE(ra.ok());
  readers.push_back(std::move(ra).value());
  readers.push_back(Reader(b, "b"));
  auto stream = MergedStream::FromReaders(std::move(readers));
  const auto seen = Drain(stream);
  ASSERT_EQ(seen.size(), 3u);
  EXPECT_EQ(seen[0].word, 1u);
  EXPECT_EQ(seen[1].word, 2u);
  EXPECT_EQ(seen[2].word, 4u);
  ASSERT_EQ(stream.warnings().size(), 1u);
  EXPECT_NE(stream.warnings()[0].message.find("cut.trc"), std::string::npos)
      << stream.warnings()[0].message;
}

TEST(ExportMergedStream, SourceEventsOfAMergedLogBecomeOrigins) {
  LogBuilder m;
  m.Source(0, "hostA", 5)
      .Hook(0x1230, 0, {1}, 1, 5)
      .Source(1, "hostB", 6)
      .Hook(0x1230, 0, {2}, 1, 6)
      .Source(0, "hostA", 7)
      .Hook(0x1230, 0, {3}, 1, 7);
  std::vector<event::LogReader> readers;
  readers.push_back(Reader(m, "merged.trc"));
  auto stream = MergedStream::FromReaders(std::move(readers));
  const auto seen = Drain(stream);
  ASSERT_EQ(seen.size(), 3u);  // the source events themselves are consumed
  ASSERT_EQ(stream.origins().size(), 3u);
  EXPECT_EQ(stream.origins()[1].name, "hostA");
  EXPECT_EQ(stream.origins()[2].name, "hostB");
  EXPECT_EQ(seen[0].origin, 1u);
  EXPECT_EQ(seen[1].origin, 2u);
  EXPECT_EQ(seen[2].origin, 1u);
}

}  // namespace
}  // namespace rastrace::exporter
