// Wall-clock stamps in the shapes OS/2 used (local time).
#include <sys/time.h>

#include <ctime>

#include "stda/stda.h"

namespace rastrace::stda {
namespace {

struct LocalNow {
  std::tm tm{};
  uint8_t hundredths = 0;
};

LocalNow LocalAt(uint64_t realtime_ns) {
  const auto seconds = static_cast<time_t>(realtime_ns / 1'000'000'000u);
  LocalNow now;
  localtime_r(&seconds, &now.tm);
  now.hundredths = static_cast<uint8_t>(realtime_ns % 1'000'000'000u / 10'000'000u);
  return now;
}

LocalNow Now() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  return LocalAt(static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000u +
                 static_cast<uint64_t>(ts.tv_nsec));
}

Timestamp ToTimestamp(const LocalNow& n) {
  return {static_cast<uint8_t>(n.tm.tm_hour), static_cast<uint8_t>(n.tm.tm_min),
          static_cast<uint8_t>(n.tm.tm_sec), n.hundredths};
}

}  // namespace

Timestamp NowTimestamp() {
  return ToTimestamp(Now());
}

Timestamp LocalTimestamp(uint64_t realtime_ns) {
  return ToTimestamp(LocalAt(realtime_ns));
}

Stamp NowStamp() {
  const LocalNow n = Now();
  return {static_cast<uint16_t>(n.tm.tm_year + 1900),
          static_cast<uint8_t>(n.tm.tm_mon + 1),
          static_cast<uint8_t>(n.tm.tm_mday),
          static_cast<uint8_t>(n.tm.tm_hour),
          static_cast<uint8_t>(n.tm.tm_min),
          static_cast<uint8_t>(n.tm.tm_sec),
          n.hundredths};
}

DateTime NowDateTime() {
  const LocalNow n = Now();
  DateTime d;
  d.hours = static_cast<uint8_t>(n.tm.tm_hour);
  d.minutes = static_cast<uint8_t>(n.tm.tm_min);
  d.seconds = static_cast<uint8_t>(n.tm.tm_sec);
  d.hundredths = n.hundredths;
  d.day = static_cast<uint8_t>(n.tm.tm_mday);
  d.month = static_cast<uint8_t>(n.tm.tm_mon + 1);
  d.year = static_cast<uint16_t>(n.tm.tm_year + 1900);
  // DATETIME's timezone is minutes west of UTC; tm_gmtoff is seconds east.
  d.timezone = static_cast<int16_t>(-n.tm.tm_gmtoff / 60);
  d.weekday = static_cast<uint8_t>(n.tm.tm_wday);
  return d;
}

}  // namespace rastrace::stda
