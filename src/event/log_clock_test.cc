// Where a log stands in real time: the 0x10B wall clock, the header second, CLOCK_REALTIME ticks,
// and the rule that keeps header-second-only logs merging by their own clocks.
#include "event/log_clock.h"

#include <gtest/gtest.h>

#include "event/format.h"
#include "event/log_builder.h"

namespace rastrace::event {
namespace {

using testing::LogBuilder;

constexpr uint64_t kWallSeconds = 1795246200;  // 2026-11-21 07:30:00 UTC
constexpr uint64_t kWallNs = kWallSeconds * 1'000'000'000ULL;

LogClock Scan(const LogBuilder& log) {
  auto reader = LogReader::FromBytes(log.bytes(), "clock", ReaderOptions{.reformat = false});
  EXPECT_TRUE(reader.ok());
  return ScanLogClock(*reader);
}

TEST(LogClockTest, TheWallClockEventPlacesTicksInRealTime) {
  // Ticks at 2 per ns; the wall clock read at tick 4000 (2000 ns) says kWallNs.
  LogBuilder log;
  log.Header(kWallSeconds - 5, "Linux", "n", "6.1", "#1", "x86_64", "app", 4000)
      .TimeConversion(1, 2, 2, 4000)
      .Hook(kHookUtil, kUtilWallClock, {kWallNs}, 1, 4000)
      .Hook(0x0110, 0, {1}, 1, 6000);
  const LogClock clock = Scan(log);
  EXPECT_EQ(clock.anchor, WallClockAnchor::kPrecise);  // wins over the header's second
  ASSERT_TRUE(clock.conversion.has_value());
  EXPECT_EQ(clock.ToWall(2000), kWallNs);
  EXPECT_EQ(clock.ToWall(3000), kWallNs + 1000);
}

TEST(LogClockTest, WithoutOneTheHeaderSecondPlacesTheLog) {
  LogBuilder log;
  log.Header(kWallSeconds, "Linux", "n", "6.1", "#1", "x86_64", "app", 500)
      .Hook(0x0110, 0, {1}, 1, 1500);
  const LogClock clock = Scan(log);
  EXPECT_EQ(clock.anchor, WallClockAnchor::kHeaderSecond);
  EXPECT_EQ(clock.ToWall(500), kWallNs);
}

TEST(LogClockTest, RealtimeTicksAndPlainTicks) {
  LogBuilder realtime;
  realtime.Hook(0x0110, 0, {1}, 1, static_cast<int64_t>(kWallNs));
  EXPECT_EQ(Scan(realtime).anchor, WallClockAnchor::kRealtime);
  EXPECT_EQ(Scan(realtime).ToWall(kWallNs), kWallNs);
  LogBuilder boot;  // nanoseconds since boot: nothing says where they stand
  boot.Hook(0x0110, 0, {1}, 1, 1'000'000);
  EXPECT_EQ(Scan(boot).anchor, WallClockAnchor::kNone);
  EXPECT_EQ(Scan(boot).ToWall(1'000'000), 1'000'000u);
}

TEST(LogClockTest, HeaderSecondsPlaceLogsOnlyBesideAPreciseOne) {
  LogClock header;
  header.anchor = WallClockAnchor::kHeaderSecond;
  header.offset_ns = 5'000'000'000;
  LogClock precise;
  precise.anchor = WallClockAnchor::kPrecise;
  precise.offset_ns = 7;

  std::vector<LogClock> two_headers = {header, header};
  PlaceOnOneTimeLine(two_headers);
  for (const LogClock& c : two_headers) {
    EXPECT_EQ(c.anchor, WallClockAnchor::kNone);
    EXPECT_EQ(c.offset_ns, 0);
  }
  std::vector<LogClock> one_header = {header};
  PlaceOnOneTimeLine(one_header);
  EXPECT_EQ(one_header[0].offset_ns, 5'000'000'000);  // one log keeps its real time (CTF dates)
  std::vector<LogClock> mixed = {header, precise};
  PlaceOnOneTimeLine(mixed);
  EXPECT_EQ(mixed[0].offset_ns, 5'000'000'000);
  EXPECT_EQ(mixed[1].offset_ns, 7);
}

TEST(LogClockTest, NegativeOffsetsSaturateAtZero) {
  LogClock clock;
  clock.anchor = WallClockAnchor::kPrecise;
  clock.offset_ns = -100;
  EXPECT_EQ(clock.ToWall(150), 50u);
  EXPECT_EQ(clock.ToWall(50), 0u);
}

}  // namespace
}  // namespace rastrace::event
