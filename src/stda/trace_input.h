// What trcrpt, `rastrace export` and `rastrace merge` read: a rastrace trace log, or a TRACEFMT
// save file (an STDA snapshot, docs/os2-formats.md) turned into the log of tracepoint hits it
// holds, so one report or export interleaves OS/2 records with AIX hooks and POSIX events in time.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "common/result.h"
#include "event/log_clock.h"
#include "event/reader.h"
#include "stda/stda.h"

namespace rastrace::stda {

// True when `head` (the first bytes of a file) hold the STDA signature where a save file has it.
bool IsSaveFile(std::span<const uint8_t> head);

// The log a save file's records make (docs/os2-formats.md, "A save file as a trace log"): a 64-bit
// little-endian rastrace log whose ticks are CLOCK_REALTIME nanoseconds, an 00A/0x10B wall clock
// saying so, and one generic 00C event per record, oldest first: subhook = minor, data word = major
// | flags << 16 | pid << 32, buffer = the record's data, thread id = the pid, timestamp = the
// record's local time on the day the save file gives, as CLOCK_REALTIME nanoseconds (records
// without a timestamp have none). Problems of the save file keep their file offsets.
struct SaveFileLog {
  std::vector<uint8_t> bytes;
  std::vector<Problem> problems;
  size_t records = 0;
};
SaveFileLog SaveFileAsLog(std::span<const uint8_t> file);

// The realtime nanoseconds of each record of `contents` (0 for a record without a timestamp),
// placed before `saved`: the newest record on the save's day (or the day before when its time is
// later than the save's), each older one on the same day unless its time is later than the next
// one's (midnight between them). GA records keep only seconds: their minutes and hours are the
// save's, going back a minute each time the seconds go up.
std::vector<uint64_t> RecordTimes(const StdaContents& contents, const DateTime& saved);

// Largest file read as a save file: the header and a 64 KiB STDA.
inline constexpr size_t kMaxSaveFileBytes = kSaveHeaderSize + kMaxStdaSize;

// A save file's log (the bytes SaveFileAsLog makes) and its problems as "FILE: offset 0x..: ...".
struct SaveFileLogOf {
  std::vector<uint8_t> bytes;
  std::vector<std::string> problems;
};
// The log of `path` when it is a save file; nullopt for anything else (a log, standard input, a
// file that cannot be opened: the log reader names those). Fails when a save file cannot be read.
Result<std::optional<SaveFileLogOf>> ReadSaveFileLog(const std::string& path);

struct TraceInput {
  event::LogReader reader;
  event::LogClock clock;  // for standard input: nothing (it cannot be read twice)
  bool save_file = false;
  // "FILE: offset 0x..: ..." for each problem of a save file; its records before it are kept.
  std::vector<std::string> problems;
};

// Opens `path` ("-" is standard input, read as a log) as a log, or a save file as its log.
// Anything else is an error naming the first bytes and both formats.
Result<TraceInput> OpenTraceInput(const std::string& path, event::ReaderOptions options = {});

}  // namespace rastrace::stda
