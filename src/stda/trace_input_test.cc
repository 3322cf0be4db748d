// A save file as a trace log (docs/os2-formats.md, "A save file as a trace log"): record times
// placed before the save across midnight, GA records' minutes, the 00C events, and the error for a
// file that is neither a log nor a save file.
#include "stda/trace_input.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>

#include "event/format.h"
#include "stda/stda.h"

namespace rastrace::stda {
namespace {

constexpr uint64_t kNs = 1'000'000'000ULL;
// 2026-11-21 00:00:00 UTC.
constexpr uint64_t kDay = 1795219200ULL;

DateTime SavedAt(uint8_t h, uint8_t m, uint8_t s) {
  DateTime saved;
  saved.hours = h;
  saved.minutes = m;
  saved.seconds = s;
  saved.day = 21;
  saved.month = 11;
  saved.year = 2026;
  saved.timezone = 0;  // UTC
  return saved;
}

Record At(uint8_t h, uint8_t m, uint8_t s, uint8_t hh = 0) {
  Record r;
  r.time = Timestamp{h, m, s, hh};
  return r;
}

TEST(TraceInputTest, RecordTimesGoBackOverMidnight) {
  StdaContents contents;
  contents.records = {At(23, 59, 58), Record{}, At(0, 0, 1, 50)};  // the middle one: no time
  const auto times = RecordTimes(contents, SavedAt(0, 5, 0));
  ASSERT_EQ(times.size(), 3u);
  EXPECT_EQ(times[2], (kDay + 1) * kNs + 500'000'000);
  EXPECT_EQ(times[1], 0u);
  EXPECT_EQ(times[0], (kDay - 2) * kNs);  // the day before
}

TEST(TraceInputTest, TheTimezoneOfTheSaveMakesUtc) {
  StdaContents contents;
  contents.records = {At(8, 30, 0)};
  DateTime saved = SavedAt(9, 0, 0);
  saved.timezone = -60;  // minutes west: UTC+1
  EXPECT_EQ(RecordTimes(contents, saved)[0], (kDay + 7 * 3600 + 30 * 60) * kNs);
}

TEST(TraceInputTest, GaRecordsTakeTheSavesMinuteGoingBackWhenSecondsRise) {
  StdaContents contents;
  contents.format = Format::kGa;
  contents.records = {At(0, 0, 50), At(0, 0, 10), At(0, 0, 40)};  // only seconds are kept
  const auto times = RecordTimes(contents, SavedAt(10, 20, 45));
  EXPECT_EQ(times[2], (kDay + 10 * 3600 + 20 * 60 + 40) * kNs);
  EXPECT_EQ(times[1], (kDay + 10 * 3600 + 20 * 60 + 10) * kNs);
  EXPECT_EQ(times[0], (kDay + 10 * 3600 + 19 * 60 + 50) * kNs);  // a minute earlier
}

TEST(TraceInputTest, ASaveFileBecomesALogOfTracepointHits) {
  auto buffer = TraceBuffer::Create(Format::kNew, 4096);
  ASSERT_TRUE(buffer.ok());
  const uint8_t data[] = {0x05, 0x00};
  RecordSpec spec;
  spec.major = 0x65;
  spec.minor = 3;
  spec.pid = 88;
  spec.time = Timestamp{7, 30, 0, 1};
  spec.data = data;
  ASSERT_TRUE(buffer->Write(spec).ok());
  DateTime saved = SavedAt(7, 31, 0);
  const auto file = MakeSaveFile(buffer->Snapshot(), saved);
  const SaveFileLog log = SaveFileAsLog(file);
  EXPECT_EQ(log.records, 1u);
  EXPECT_TRUE(log.problems.empty());
  auto reader = event::LogReader::FromBytes(log.bytes, "save");
  ASSERT_TRUE(reader.ok());
  event::Event e;
  ASSERT_EQ(reader->Next(e), event::ReadStatus::kEvent);  // the wall clock: ticks are realtime
  EXPECT_EQ(e.hook_id, event::kHookUtil);
  EXPECT_EQ(e.subhook, event::kUtilWallClock);
  ASSERT_EQ(reader->Next(e), event::ReadStatus::kEvent);
  EXPECT_EQ(e.hook_id, event::kHookDynamicTracepoint);
  EXPECT_TRUE(e.generic);
  EXPECT_EQ(e.subhook, 3u);
  EXPECT_EQ(e.generic_word & 0xFFFF, 0x65u);
  EXPECT_EQ(e.generic_word >> 32, 88u);
  EXPECT_EQ(e.thread_id, 88u);
  EXPECT_EQ(e.timestamp, (kDay + 7 * 3600 + 30 * 60) * kNs + 10'000'000);
  EXPECT_EQ(std::vector<uint8_t>(e.buffer.begin(), e.buffer.end()),
            std::vector<uint8_t>(data, data + 2));
  EXPECT_EQ(reader->Next(e), event::ReadStatus::kEnd);
}

TEST(TraceInputTest, AFileThatIsNeitherNamesBothFormats) {
  char name[] = "/tmp/rastrace_trace_input_XXXXXX";
  const int fd = mkstemp(name);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(write(fd, "hello world, not a trace", 24), 24);
  close(fd);
  auto input = OpenTraceInput(name);
  unlink(name);
  ASSERT_FALSE(input.ok());
  EXPECT_NE(input.error().message.find("not a trace log"), std::string::npos);
  EXPECT_NE(input.error().message.find("nor a TRACEFMT save file (no SYSTRACE at offset 0x1a)"),
            std::string::npos)
      << input.error().message;
}

}  // namespace
}  // namespace rastrace::stda
