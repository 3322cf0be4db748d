// The trcrpt command line (AIX flags plus --jobs), parsed by hand because AIX flags such as
// `-O exec=on,pid=on` and `-dLIST` do not fit a generic option parser.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "report/id_list.h"

namespace rastrace::report {

// -O timestamp=: how the time columns look (docs/trcrpt.md).
enum class TimestampStyle : uint8_t {
  kElapsedAndDeltaMsec = 0,
  kElapsedUsec = 1,
  kElapsedAndDeltaUsec = 2,
  kNone = 3,
};

// The columns and layout of the report (-O options that change what an event line looks like).
struct LayoutOptions {
  bool ids = true;
  bool exec = false;
  bool pid = false;
  bool tid = false;
  bool cpuid = false;
  bool svc = false;
  bool two_line = false;
  bool full_exec_path = false;  // -x: the PROCESS NAME column shows the whole path
  TimestampStyle timestamp = TimestampStyle::kElapsedAndDeltaMsec;
  uint32_t pagesize = 0;  // 0: the column header is printed once
};

struct ReportOptions {
  LayoutOptions layout;

  bool check_templates = false;  // -c
  bool list_ids = false;         // -j
  bool merge = false;            // -m (rastrace always merges several logs: docs/trcrpt.md)
  bool no_header = false;        // -h
  bool raw = false;              // -r
  bool verbose = false;          // -v
  bool quiet = false;            // -q
  bool hist = false;             // -O hist=on
  bool help = false;

  IdSet include_ids;                        // -d (empty: every id)
  IdSet exclude_ids;                        // -k
  std::vector<uint64_t> pids;               // -p numbers
  std::vector<std::string> process_names;   // -p names
  std::vector<uint64_t> tids;               // -T
  std::optional<int64_t> start_date;        // -s, seconds since 1970 (GMT)
  std::optional<int64_t> end_date;          // -e
  std::optional<int64_t> start_elapsed_ns;  // -O starttime=
  std::optional<int64_t> end_elapsed_ns;    // -O endtime=

  // -t, in order: template files and directories of TFF format files, each value possibly a
  // ':'-separated search path (none: the default search, docs/trcrpt.md).
  std::vector<std::string> template_paths;
  std::string output_file;    // -o (empty: standard output)
  std::string name_list;      // -n (accepted; rastrace has no kernel symbol lookup)
  unsigned jobs = 1;          // --jobs
  std::vector<std::string> logs;
};

// Parses arguments after the program name. Errors say which flag and what was expected.
Result<ReportOptions> ParseReportOptions(std::span<const std::string_view> args);

// Applies one -O list ("exec=on,pid=on,timestamp=1") to `options`.
Result<void> ApplyDashO(std::string_view list, ReportOptions& options);

// "on"/"yes"/"1"/"true" and "off"/"no"/"0"/"false", any case.
Result<bool> ParseSwitch(std::string_view name, std::string_view value);

// AIX date `mmddhhmmssyy` (GMT) as seconds since 1970.
Result<int64_t> ParseAixDate(std::string_view text);

// Decimal seconds ("1", "2.5", "0.000001") as nanoseconds.
Result<int64_t> ParseSeconds(std::string_view text);

// The usage text printed by -? / --help and after a usage error.
std::string_view UsageText();

}  // namespace rastrace::report
