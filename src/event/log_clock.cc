#include "event/log_clock.h"

#include <limits>

#include "event/format.h"

namespace rastrace::event {

namespace {

// 2000-01-01T00:00:00Z in nanoseconds: a nanosecond clock past it is CLOCK_REALTIME (a monotonic
// clock would need 30 years of uptime).
constexpr uint64_t kRealtimeFloorNs = 946'684'800ULL * 1'000'000'000ULL;

bool IsSubhook(const Event& e, uint16_t subhook) {
  // In a 32-bit log a recorded generic event keeps its subhook in the data word (timebase.cc).
  if (e.hook_id != kHookUtil) return false;
  if (e.layout == Layout::k32 && e.generic && !e.reformatted) return e.generic_word == subhook;
  return e.subhook == subhook;
}

}  // namespace

uint64_t LogClock::ToWall(uint64_t ns) const {
  if (offset_ns >= 0) {
    const auto add = static_cast<uint64_t>(offset_ns);
    return ns > std::numeric_limits<uint64_t>::max() - add ? std::numeric_limits<uint64_t>::max()
                                                           : ns + add;
  }
  const uint64_t sub = uint64_t{0} - static_cast<uint64_t>(offset_ns);
  return ns < sub ? 0 : ns - sub;
}

std::optional<uint64_t> WallClockOf(const Event& e) {
  if (!IsSubhook(e, kUtilWallClock) || e.generic || e.word_count < 1 || !e.timestamped) {
    return std::nullopt;
  }
  return e.words[0];
}

LogClock ScanLogClock(LogReader& reader) {
  LogClock clock;
  TimeBase timebase;
  std::optional<uint64_t> first_ticks;
  std::optional<std::pair<uint64_t, uint64_t>> precise;  // (ticks, realtime ns)
  std::optional<std::pair<uint64_t, uint64_t>> header;   // (ticks, seconds)
  Event e;
  for (int i = 0; i < kLogClockLookAhead && reader.Next(e) == ReadStatus::kEvent; ++i) {
    if (!clock.conversion && timebase.Observe(e, reader.byte_order())) {
      clock.conversion = timebase.conversion();
    }
    if (IsSubhook(e, kUtilSource)) break;
    if (e.timestamped && !first_ticks) first_ticks = e.timestamp;
    if (!precise) {
      if (const auto wall = WallClockOf(e)) precise.emplace(e.timestamp, *wall);
    }
    if (!header && e.hook_id == kHookHeader && e.generic && e.timestamped) {
      header.emplace(e.timestamp, e.generic_word);
    }
  }
  const auto signed_offset = [](uint64_t wall, uint64_t ns) {
    return static_cast<int64_t>(wall - ns);  // two's complement: negative when ns > wall
  };
  if (precise) {
    clock.anchor = WallClockAnchor::kPrecise;
    clock.offset_ns = signed_offset(precise->second, timebase.ToNanoseconds(precise->first));
  } else if (header && header->second < (uint64_t{1} << 33)) {
    clock.anchor = WallClockAnchor::kHeaderSecond;
    clock.offset_ns =
        signed_offset(header->second * 1'000'000'000ULL, timebase.ToNanoseconds(header->first));
  } else if (first_ticks && timebase.conversion().flag != 2 &&
             timebase.ToNanoseconds(*first_ticks) >= kRealtimeFloorNs) {
    clock.anchor = WallClockAnchor::kRealtime;
  }
  return clock;
}

void PlaceOnOneTimeLine(std::span<LogClock> clocks) {
  if (clocks.size() < 2) return;
  for (const LogClock& clock : clocks) {
    if (clock.anchor == WallClockAnchor::kPrecise || clock.anchor == WallClockAnchor::kRealtime) {
      return;
    }
  }
  for (LogClock& clock : clocks) {
    if (clock.anchor == WallClockAnchor::kHeaderSecond) {
      clock.anchor = WallClockAnchor::kNone;
      clock.offset_ns = 0;
    }
  }
}

LogClock ScanLogClockOf(const std::string& path) {
  if (path == "-") return {};
  auto reader = LogReader::Open(path, ReaderOptions{.reformat = false});
  if (!reader) return {};
  return ScanLogClock(*reader);
}

}  // namespace rastrace::event
