// Where a log's time stands in real (wall-clock) time, so that logs written with different clocks
// (the recorder's TSC, a session's TSC or CLOCK_MONOTONIC, the CLOCK_REALTIME of POSIX streams and
// dynamic tracepoints) are merged and reported on one time line (docs/log-format.md, "Wall clock").
#pragma once

#include <cstdint>
#include <optional>
#include <span>

#include "common/byte_order.h"
#include "event/event.h"
#include "event/reader.h"
#include "event/timebase.h"

namespace rastrace::event {

// How the wall-clock offset of a log was found, best first.
enum class WallClockAnchor : uint8_t {
  kNone,          // nothing says: times stay as the log's clock gives them
  kPrecise,       // an 00A/0x10B event: the realtime clock read beside the log's clock
  kHeaderSecond,  // the 003 header's start time (whole seconds) at the header's timestamp
  kRealtime,      // no anchor, ticks are nanoseconds of CLOCK_REALTIME (POSIX, trace on --log)
};

// What the first events of a log say about its time.
struct LogClock {
  std::optional<TimeConversion> conversion;  // the first 00A/25C
  WallClockAnchor anchor = WallClockAnchor::kNone;
  int64_t offset_ns = 0;  // wall-clock ns = converted ns + offset_ns

  // Nanoseconds of the log's clock (by its conversion) as wall-clock nanoseconds; unchanged without
  // an anchor. Saturates instead of wrapping.
  uint64_t ToWall(uint64_t ns) const;
};

// Events looked at from the start of a log for its time conversion and wall-clock anchor: rastrace
// writes both within its first events (TRACE ON, the header, the conversion, ...).
inline constexpr int kLogClockLookAhead = 64;

// Reads up to kLogClockLookAhead events of `reader` (a reader of its own, opened without
// reformatting: it is consumed) and returns what they say. The 00A/0x10B event wins over the 003
// header; a log with neither whose first timestamp, as nanoseconds, lies after 2000-01-01 is taken
// as CLOCK_REALTIME. Events after an 00A/0x105 source event (the second source of a merged log)
// are not looked at: their header describes another machine.
LogClock ScanLogClock(LogReader& reader);

// Opens `path` once more and scans it; a default LogClock for standard input ("-") or a file that
// cannot be read (the caller's own reader reports that).
LogClock ScanLogClockOf(const std::string& path);

// Puts the clocks of logs read together on one time line. A 003 header's start time is only a
// whole second: it places one log in real time (a CTF clock offset), and places a log beside logs
// whose real time is exact (an 00A/0x10B wall clock, CLOCK_REALTIME ticks); but two or more logs
// that have only header seconds are merged by their own clocks, as before wall clocks existed
// (logs of one machine share its clock exactly; seconds would misorder them by up to a second).
void PlaceOnOneTimeLine(std::span<LogClock> clocks);

// The realtime nanoseconds an 00A/0x10B event carries (nullopt for other events).
std::optional<uint64_t> WallClockOf(const Event& e);

}  // namespace rastrace::event
