// What a recording session does: the `rastrace record` / trcstart options and the RASTRACE_*
// environment variables that carry them into a traced program (docs/recorder.md).
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "buffer/ring_buffer.h"
#include "common/result.h"

namespace rastrace::recorder {

enum class LogFull : uint8_t { kRotate, kStop };
enum class ClockChoice : uint8_t { kAuto, kTsc, kMonotonic };

inline constexpr uint64_t kDefaultBufferBytes = uint64_t{4} << 20;
// How far a ring of the default size may grow when the writer falls behind (docs/recorder.md).
inline constexpr uint64_t kDefaultBufferMaxBytes = uint64_t{64} << 20;

struct RecorderOptions {
  std::string log_path = "trcfile";              // -o
  buffer::Mode mode = buffer::Mode::kAlternate;  // -l circular, -f single, --blocking
  uint64_t buffer_bytes = kDefaultBufferBytes;   // -T, per thread
  // --buffer-max: a thread's ring starts at buffer_bytes and may double up to this size while
  // the writer falls behind (alternate and blocking modes, not with --shm-path). -T without
  // --buffer-max sets it to the -T size: a size given explicitly stays fixed, as on AIX.
  uint64_t buffer_max_bytes = kDefaultBufferMaxBytes;
  uint64_t log_bytes = 0;                  // -L, 0 = no limit
  LogFull log_full = LogFull::kRotate;     // -s: kStop
  bool keep_old = false;                   // -c: an existing log becomes LOG.old
  uint32_t channels = 0x1;                 // --channels, bit n = channel n
  std::vector<uint16_t> include_hooks;     // -j: only these 16-bit hook ids
  std::vector<uint16_t> exclude_hooks;     // -k: all but these
  ClockChoice clock = ClockChoice::kAuto;  // --clock
  // --shm-path DIR: rings in files under DIR, recoverable after a crash (docs/reliability.md).
  std::string shm_path;
  // --buffered-io clears it: the log is written through the page cache instead of with O_DIRECT
  // from the writer's own I/O thread (docs/recorder.md, "Writing the log").
  bool direct_io = true;
  // Set by a session attach: log_path is this process's own (no RASTRACE_LOG_OWNER naming).
  bool log_path_is_unique = false;
};

// "4096", "64K", "4M", "1G" (binary multiples). `what` names the option in errors.
Result<uint64_t> ParseSize(std::string_view text, std::string_view what);

// The largest ring one thread may ask for (-T, --buffer-max, RASTRACE_BUFSIZE, RASTRACE_BUFMAX,
// trace -T): a ring is mapped and pre-faulted whole, per thread, so a mistyped size must not map
// the machine's memory (docs/reliability.md, "Sizes").
inline constexpr uint64_t kMaxBufferBytes = uint64_t{1} << 30;

// ParseSize for a ring size: also refused above kMaxBufferBytes and above the machine's memory.
Result<uint64_t> ParseBufferSize(std::string_view text, std::string_view what);
// "010,0A1,4001": 3 hex digits are a 12-bit AIX id hhh (the 16-bit id hhh0), 4 digits a 16-bit id.
Result<std::vector<uint16_t>> ParseHookList(std::string_view text, std::string_view what);
// "0,3,5", "0-7" or "all".
Result<uint32_t> ParseChannels(std::string_view text, std::string_view what);

// Trace options as `rastrace record` and trcstart take them: -o LOG -l -f -T SIZE --buffer-max SIZE
// -L SIZE -s -c -j IDS -k IDS --channels LIST --clock auto|tsc|monotonic, applied on top of
// `base`.
Result<RecorderOptions> ParseTraceArgs(std::span<const std::string> args,
                                       RecorderOptions base = {});
// Splits a trcstart string on white space and parses it.
Result<RecorderOptions> ParseTraceString(std::string_view args, RecorderOptions base = {});

using GetEnv = std::function<const char*(const char*)>;
// Options from RASTRACE_LOG, RASTRACE_MODE, RASTRACE_BUFSIZE, RASTRACE_BUFMAX, RASTRACE_LOGSIZE,
// RASTRACE_LOGFULL,
// RASTRACE_KEEP_OLD, RASTRACE_CHANNELS, RASTRACE_EVENTS, RASTRACE_EXCLUDE, RASTRACE_CLOCK,
// RASTRACE_SHM_PATH, RASTRACE_DIRECT_IO.
Result<RecorderOptions> OptionsFromEnvironment(const GetEnv& getenv);
// The variables that make OptionsFromEnvironment return `options`.
std::vector<std::pair<std::string, std::string>> OptionsToEnvironment(
    const RecorderOptions& options);

inline constexpr const char* kEnvLog = "RASTRACE_LOG";
inline constexpr const char* kEnvShmPath = "RASTRACE_SHM_PATH";
// The pid of the process that writes RASTRACE_LOG itself; any other process (a forked child, a
// program it runs) writes RASTRACE_LOG.<pid>.
inline constexpr const char* kEnvLogOwner = "RASTRACE_LOG_OWNER";
// Set by `rastrace record` for the command it runs: the recorder's messages about the log (a full
// disk cut it) then name that command, whose exit status they decide.
inline constexpr const char* kEnvRecordCommand = "RASTRACE_RECORD_COMMAND";

}  // namespace rastrace::recorder
