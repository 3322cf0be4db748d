#include "stda/trace_input.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>

#include "event/encode.h"
#include "event/format.h"
#include "event/timebase.h"

namespace rastrace::stda {

namespace {

constexpr uint64_t kNsPerSecond = 1'000'000'000ULL;
constexpr int64_t kSecondsPerDay = 86'400;

// Days since 1970-01-01 of a proleptic Gregorian date (the well-known civil-calendar formula).
int64_t DaysFromCivil(int64_t y, unsigned m, unsigned d) {
  y -= m <= 2 ? 1 : 0;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const auto yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<int64_t>(doe) - 719468;
}

bool ValidDate(uint16_t year, uint8_t month, uint8_t day) {
  return year >= 1980 && year <= 2200 && month >= 1 && month <= 12 && day >= 1 && day <= 31;
}

// Hundredths of a second since midnight.
int64_t Hundredths(uint8_t h, uint8_t m, uint8_t s, uint8_t hh) {
  return ((int64_t{h} * 60 + m) * 60 + s) * 100 + hh;
}

// Seconds a local time of `day` lies east of UTC: the save file's DATETIME timezone (minutes west)
// when it gives one (OS/2 writes -1 for "not set"), else this machine's zone at that time.
int64_t UtcOffsetSeconds(const DateTime& saved, int64_t local_seconds) {
  if (saved.timezone != -1) return -int64_t{saved.timezone} * 60;
  const auto t = static_cast<time_t>(local_seconds);
  std::tm tm{};
  if (localtime_r(&t, &tm) == nullptr) return 0;
  return tm.tm_gmtoff;
}

uint64_t ToRealtimeNs(int64_t day, int64_t hundredths, int64_t utc_offset) {
  const int64_t seconds = day * kSecondsPerDay + hundredths / 100 - utc_offset;
  if (seconds < 0) return 0;
  return static_cast<uint64_t>(seconds) * kNsPerSecond +
         static_cast<uint64_t>(hundredths % 100) * 10'000'000ULL;
}

Result<std::vector<uint8_t>> ReadHead(int fd, size_t limit, const std::string& path, bool& larger) {
  std::vector<uint8_t> bytes(limit + 1);
  size_t got = 0;
  while (got < bytes.size()) {
    const ssize_t n = ::read(fd, bytes.data() + got, bytes.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return MakeError("{}: read error: {}", path, std::strerror(errno));
    if (n == 0) break;
    got += static_cast<size_t>(n);
  }
  larger = got > limit;
  bytes.resize(std::min(got, limit));
  return bytes;
}

}  // namespace

bool IsSaveFile(std::span<const uint8_t> head) {
  return head.size() >= kSaveHeaderSize + sizeof kSignature &&
         std::memcmp(head.data() + kSaveHeaderSize, kSignature, sizeof kSignature) == 0;
}

std::vector<uint64_t> RecordTimes(const StdaContents& contents, const DateTime& saved) {
  std::vector<uint64_t> times(contents.records.size(), 0);
  // The day and time the walk back starts from: the save, else the TRACE OFF or ON stamp.
  int64_t day = 0;
  int64_t now = Hundredths(23, 59, 59, 99);
  if (ValidDate(saved.year, saved.month, saved.day)) {
    day = DaysFromCivil(saved.year, saved.month, saved.day);
    now = Hundredths(saved.hours, saved.minutes, saved.seconds, saved.hundredths);
  } else {
    for (const auto& stamp : {contents.trace_off, contents.trace_on}) {
      if (stamp && ValidDate(stamp->year, stamp->month, stamp->day)) {
        day = DaysFromCivil(stamp->year, stamp->month, stamp->day);
        now = Hundredths(stamp->hour, stamp->minute, stamp->second, stamp->hundredths);
        break;
      }
    }
  }
  const int64_t utc_offset = UtcOffsetSeconds(saved, day * kSecondsPerDay + now / 100);
  const bool ga = contents.format == Format::kGa;
  int64_t minute_of_day = now / 6000;  // GA: hours and minutes come from the save
  for (size_t i = contents.records.size(); i-- > 0;) {
    const Record& r = contents.records[i];
    if (!r.time) continue;
    int64_t t = 0;
    if (ga) {
      const int64_t within_minute = Hundredths(0, 0, r.time->seconds, r.time->hundredths);
      if (minute_of_day * 6000 + within_minute > now) --minute_of_day;
      if (minute_of_day < 0) {
        minute_of_day += 24 * 60;
        --day;
      }
      t = minute_of_day * 6000 + within_minute;
    } else {
      t = Hundredths(r.time->hours, r.time->minutes, r.time->seconds, r.time->hundredths);
      if (t > now) --day;  // midnight lies between this record and the next
    }
    now = t;
    times[i] = ToRealtimeNs(day, t, utc_offset);
  }
  return times;
}

SaveFileLog SaveFileAsLog(std::span<const uint8_t> file) {
  SaveFileLog out;
  const SaveFile save = ReadSaveFile(file);
  out.problems = save.contents.problems;
  const std::vector<uint64_t> times = RecordTimes(save.contents, save.saved);
  constexpr auto kOrder = ByteOrder::kLittle;
  event::EncodeMagic(event::Layout::k64, kOrder, out.bytes);
  const auto put = [&](const event::EventFields& fields) {
    // Every event built here fits (a record holds less than 64 KiB).
    (void)event::Encode(fields, event::Layout::k64, kOrder, out.bytes);
  };
  uint64_t first_time = 0;
  for (uint64_t t : times) {
    if (t != 0) {
      first_time = t;
      break;
    }
  }
  // No 00A/25C: without one, ticks are nanoseconds (docs/log-format.md), and a report would print
  // it in its header block.
  if (first_time != 0) {
    event::EventFields wall;
    wall.hook_id = event::kHookUtil;
    wall.subhook = event::kUtilWallClock;
    wall.word_count = 1;
    wall.words[0] = first_time;  // ticks are CLOCK_REALTIME nanoseconds
    wall.timestamped = true;
    wall.timestamp = first_time;
    put(wall);
  }
  for (size_t i = 0; i < save.contents.records.size(); ++i) {
    const Record& r = save.contents.records[i];
    event::EventFields hit;
    hit.hook_id = event::kHookDynamicTracepoint;
    hit.subhook = r.minor;
    hit.generic = true;
    hit.generic_word = uint64_t{r.major} | uint64_t{r.flags} << 16 | uint64_t{r.pid} << 32;
    hit.buffer = r.data;
    hit.thread_id = r.pid;
    hit.timestamped = times[i] != 0;
    hit.timestamp = times[i];
    put(hit);
    ++out.records;
  }
  return out;
}

Result<std::optional<SaveFileLogOf>> ReadSaveFileLog(const std::string& path) {
  if (path == "-") return std::optional<SaveFileLogOf>();
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::optional<SaveFileLogOf>();  // the log reader names the problem
  // Peek: a save file is small (at most kMaxSaveFileBytes); a log is left to LogReader.
  uint8_t head[kSaveHeaderSize + sizeof kSignature];
  ssize_t got = 0;
  do {
    got = ::pread(fd, head, sizeof head, 0);
  } while (got < 0 && errno == EINTR);
  if (got != static_cast<ssize_t>(sizeof head) || !IsSaveFile(head)) {
    ::close(fd);
    return std::optional<SaveFileLogOf>();
  }
  bool larger = false;
  auto bytes = ReadHead(fd, kMaxSaveFileBytes, path, larger);
  ::close(fd);
  if (!bytes) return bytes.error();
  SaveFileLog log = SaveFileAsLog(*bytes);
  SaveFileLogOf out;
  out.bytes = std::move(log.bytes);
  if (larger) {
    out.problems.push_back(fmt::format(
        "{}: offset {:#x}: a save file holds at most {} bytes (a 64 KiB STDA); the rest is "
        "not read",
        path, kMaxSaveFileBytes, kMaxSaveFileBytes));
  }
  for (const Problem& p : log.problems) {
    out.problems.push_back(fmt::format("{}: offset {:#x}: {}", path, p.offset, p.message));
  }
  return std::optional<SaveFileLogOf>(std::move(out));
}

Result<TraceInput> OpenTraceInput(const std::string& path, event::ReaderOptions options) {
  auto save = ReadSaveFileLog(path);
  if (!save) return save.error();
  if (*save) {
    TraceInput input{
        .reader =
            event::LogReader::FromOwnedBytes(std::move((*save)->bytes), path, options).value(),
        .clock = {},
        .save_file = true,
        .problems = std::move((*save)->problems)};
    input.clock.conversion = event::TimeConversion{};
    input.clock.anchor = event::WallClockAnchor::kPrecise;
    return input;
  }
  auto reader = event::LogReader::Open(path, options);
  if (!reader) {
    Error error = reader.error();
    if (error.message.find("not a trace log") != std::string::npos) {
      error.message +=
          fmt::format("; nor a TRACEFMT save file (no {} at offset {:#x})",
                      std::string_view(kSignature, sizeof kSignature), kSaveHeaderSize);
    }
    return error;
  }
  TraceInput input{
      .reader = std::move(reader).value(), .clock = {}, .save_file = false, .problems = {}};
  input.clock = event::ScanLogClockOf(path);
  return input;
}

}  // namespace rastrace::stda
