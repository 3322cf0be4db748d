#include "report/options.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <ctime>

namespace rastrace::report {

namespace {

std::string Lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

template <class T>
bool ParseDecimal(std::string_view text, T& value) {
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value, 10);
  return !text.empty() && ec == std::errc() && ptr == text.data() + text.size();
}

bool IsAllDigits(std::string_view text) {
  return !text.empty() && std::all_of(text.begin(), text.end(),
                                      [](unsigned char c) { return std::isdigit(c) != 0; });
}

Result<void> ApplyProcessList(std::string_view text, ReportOptions& options) {
  auto items = SplitList(text);
  if (items.empty()) return MakeError("-p: empty process list");
  for (std::string_view item : items) {
    uint64_t pid = 0;
    if (ParseDecimal(item, pid)) {
      options.pids.push_back(pid);
    } else {
      options.process_names.emplace_back(item);
    }
  }
  return Ok();
}

// Flags that take a value, as on AIX.
constexpr std::string_view kValueFlags = "deknopstTO";
constexpr std::string_view kPlainFlags = "chjmrvqx";

Result<void> ApplyFlag(char flag, std::string_view value, ReportOptions& options) {
  switch (flag) {
    case 'c':
      options.check_templates = true;
      return Ok();
    case 'h':
      options.no_header = true;
      return Ok();
    case 'j':
      options.list_ids = true;
      return Ok();
    case 'm':
      options.merge = true;
      return Ok();
    case 'r':
      options.raw = true;
      return Ok();
    case 'v':
      options.verbose = true;
      return Ok();
    case 'q':
      options.quiet = true;
      return Ok();
    case 'x':
      options.layout.full_exec_path = true;
      options.layout.exec = true;
      return Ok();
    case 'd': {
      auto r = ParseIdList(value, options.include_ids);
      if (!r) return MakeError("-d: {}", r.error().message);
      return Ok();
    }
    case 'k': {
      auto r = ParseIdList(value, options.exclude_ids);
      if (!r) return MakeError("-k: {}", r.error().message);
      return Ok();
    }
    case 'e':
    case 's': {
      auto date = ParseAixDate(value);
      if (!date) return MakeError("-{}: {}", flag, date.error().message);
      (flag == 's' ? options.start_date : options.end_date) = *date;
      return Ok();
    }
    case 'n':
      options.name_list = value;
      return Ok();
    case 'o':
      options.output_file = value;
      return Ok();
    case 't':
      options.template_paths.emplace_back(value);
      return Ok();
    case 'p':
      return ApplyProcessList(value, options);
    case 'T': {
      auto tids = ParseNumberList(value, "thread id");
      if (!tids) return MakeError("-T: {}", tids.error().message);
      options.tids.insert(options.tids.end(), tids->begin(), tids->end());
      return Ok();
    }
    case 'O':
      return ApplyDashO(value, options);
    default:
      return MakeError("unknown flag -{}", flag);
  }
}

Result<unsigned> ParseJobs(std::string_view value) {
  unsigned jobs = 0;
  if (!ParseDecimal(value, jobs) || jobs == 0 || jobs > 256) {
    return MakeError("--jobs: expected a number of threads from 1 to 256, got '{}'", value);
  }
  return jobs;
}

}  // namespace

Result<bool> ParseSwitch(std::string_view name, std::string_view value) {
  std::string v = Lower(value);
  if (v == "on" || v == "yes" || v == "1" || v == "true") return true;
  if (v == "off" || v == "no" || v == "0" || v == "false") return false;
  return MakeError("-O {}: expected on or off, got '{}'", name, value);
}

Result<int64_t> ParseSeconds(std::string_view text) {
  size_t dot = text.find('.');
  std::string_view whole = text.substr(0, dot);
  std::string_view fraction = dot == std::string_view::npos ? "" : text.substr(dot + 1);
  int64_t seconds = 0;
  if ((!whole.empty() && !ParseDecimal(whole, seconds)) || (whole.empty() && fraction.empty()) ||
      (!fraction.empty() && !IsAllDigits(fraction)) || seconds < 0 || seconds > 9'000'000'000) {
    return MakeError("expected seconds such as 1 or 2.5, got '{}'", text);
  }
  int64_t ns = 0;
  for (size_t i = 0; i < 9; ++i) ns = ns * 10 + (i < fraction.size() ? fraction[i] - '0' : 0);
  return seconds * 1'000'000'000 + ns;
}

Result<int64_t> ParseAixDate(std::string_view text) {
  if (text.size() != 12 || !IsAllDigits(text)) {
    return MakeError("expected a date mmddhhmmssyy (12 digits), got '{}'", text);
  }
  auto two = [&](size_t at) { return (text[at] - '0') * 10 + (text[at + 1] - '0'); };
  std::tm tm{};
  tm.tm_mon = two(0) - 1;
  tm.tm_mday = two(2);
  tm.tm_hour = two(4);
  tm.tm_min = two(6);
  tm.tm_sec = two(8);
  int yy = two(10);
  tm.tm_year = yy < 69 ? yy + 100 : yy;  // as POSIX %y: 69-99 are 19yy, 00-68 are 20yy
  if (tm.tm_mon < 0 || tm.tm_mon > 11 || tm.tm_mday < 1 || tm.tm_mday > 31 || tm.tm_hour > 23 ||
      tm.tm_min > 59 || tm.tm_sec > 60) {
    return MakeError("date '{}' out of range (mmddhhmmssyy)", text);
  }
  return static_cast<int64_t>(timegm(&tm));
}

Result<void> ApplyDashO(std::string_view list, ReportOptions& options) {
  auto items = SplitList(list);
  if (items.empty()) return MakeError("-O: empty option list");
  LayoutOptions& layout = options.layout;
  for (std::string_view item : items) {
    size_t eq = item.find('=');
    std::string name = Lower(item.substr(0, eq));
    // A bare name turns the option on, as users of `-O exec` expect.
    std::string_view value = eq == std::string_view::npos ? "on" : item.substr(eq + 1);
    bool* flag = nullptr;
    if (name == "ids") flag = &layout.ids;
    if (name == "exec") flag = &layout.exec;
    if (name == "pid") flag = &layout.pid;
    if (name == "tid") flag = &layout.tid;
    if (name == "cpuid") flag = &layout.cpuid;
    if (name == "svc") flag = &layout.svc;
    if (name == "2line") flag = &layout.two_line;
    if (name == "hist") flag = &options.hist;
    if (flag != nullptr) {
      auto on = ParseSwitch(name, value);
      if (!on) return on.error();
      *flag = *on;
    } else if (name == "timestamp") {
      unsigned style = 0;
      if (!ParseDecimal(value, style) || style > 3) {
        return MakeError("-O timestamp: expected 0, 1, 2 or 3, got '{}'", value);
      }
      layout.timestamp = static_cast<TimestampStyle>(style);
    } else if (name == "pagesize") {
      uint32_t lines = 0;
      if (!ParseDecimal(value, lines) || lines > 100000) {
        return MakeError("-O pagesize: expected a number of lines (0 for no pages), got '{}'",
                         value);
      }
      layout.pagesize = lines;
    } else if (name == "starttime" || name == "endtime") {
      auto ns = ParseSeconds(value);
      if (!ns) return MakeError("-O {}: {}", name, ns.error().message);
      (name == "starttime" ? options.start_elapsed_ns : options.end_elapsed_ns) = *ns;
    } else {
      return MakeError(
          "-O: unknown option '{}' (expected ids, exec, pid, tid, cpuid, svc, 2line, timestamp, "
          "pagesize, starttime, endtime or hist)",
          item.substr(0, eq));
    }
  }
  return Ok();
}

Result<ReportOptions> ParseReportOptions(std::span<const std::string_view> args) {
  ReportOptions options;
  bool only_files = false;
  for (size_t i = 0; i < args.size(); ++i) {
    std::string_view arg = args[i];
    if (only_files || arg.size() < 2 || arg[0] != '-') {
      options.logs.emplace_back(arg);
      continue;
    }
    if (arg == "--") {
      only_files = true;
      continue;
    }
    if (arg == "--help" || arg == "-?") {
      options.help = true;
      continue;
    }
    if (arg.starts_with("--jobs")) {
      std::string_view value;
      if (arg.size() > 6 && arg[6] == '=') {
        value = arg.substr(7);
      } else if (arg.size() == 6 && i + 1 < args.size()) {
        value = args[++i];
      } else {
        return MakeError("--jobs: expected a number of threads");
      }
      auto jobs = ParseJobs(value);
      if (!jobs) return jobs.error();
      options.jobs = *jobs;
      continue;
    }
    if (arg.starts_with("--")) return MakeError("unknown option {}", arg);
    // A cluster of AIX flags: -hv, -d010,011, -O exec=on.
    for (size_t at = 1; at < arg.size(); ++at) {
      char flag = arg[at];
      if (kValueFlags.find(flag) != std::string_view::npos) {
        std::string_view value;
        if (at + 1 < arg.size()) {
          value = arg.substr(at + 1);
        } else if (i + 1 < args.size()) {
          value = args[++i];
        } else {
          return MakeError("-{}: missing value", flag);
        }
        auto r = ApplyFlag(flag, value, options);
        if (!r) return r.error();
        break;
      }
      if (kPlainFlags.find(flag) == std::string_view::npos) {
        return MakeError("unknown flag -{} (see trcrpt --help)", flag);
      }
      auto r = ApplyFlag(flag, {}, options);
      if (!r) return r.error();
    }
  }
  if (options.start_elapsed_ns && options.end_elapsed_ns &&
      *options.start_elapsed_ns > *options.end_elapsed_ns) {
    return MakeError("-O starttime is after endtime");
  }
  return options;
}

std::string_view UsageText() {
  return R"(usage: trcrpt [-c] [-d List] [-e Date] [-h] [-j] [-k List] [-m] [-n Name] [-o File]
              [-p List] [-q] [-r] [-s Date] [-t Path] [-T List] [-v] [-x]
              [-O Options] [--jobs N] [File ...]
  -c          check the template file and exit (1 on any error)
  -d List     report only these hook ids (hhh, hhhh, or hh for hh0-hhF)
  -k List     leave out these hook ids
  -p List     report only these process ids or process names
  -T List     report only these thread ids
  -s Date     start at this date, mmddhhmmssyy (GMT)
  -e Date     end at this date, mmddhhmmssyy (GMT)
  -h          no header (template 003) and no column header
  -j          list the trace ids and labels of the template file
  -m          merge the logs in time order (what trcrpt does with several logs anyway)
  -o File     write the report to File
  -r          raw: each event's bytes in hex instead of its template
  -t Path     template file, or directory of TRCxxxx.TFF format files (OS/2 tracepoints);
              repeatable, or a ':'-separated list (default: $RASTRACE_TEMPLATES, the installed
              trcfmt, the source tree's; format files from the current directory)
  -v          print the name of each file as it is opened
  -q          with -c: only the exit status
  -x          show the whole exec path in the PROCESS NAME column
  -n Name     accepted for AIX compatibility; ignored
  -O Options  ids, exec, pid, tid, cpuid, svc, 2line, hist (=on|off), timestamp=0..3,
              pagesize=N, starttime=Seconds, endtime=Seconds
  --jobs N    format with N threads (the output is the same as with one)
)";
}

}  // namespace rastrace::report
