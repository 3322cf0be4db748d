// tracefmt: formats a TRACEFMT save file (an STDA snapshot), or the tracepoint hits of a rastrace
// log (hook 00C), with trace format files.
// Exit status: 0 when the buffer was read to a normal end, 2 when corruption was reported, 1 when
// the save file could not be read or a format file is broken.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <tuple>

#include "filters.h"
#include "log_input.h"
#include "stda/report.h"
#include "stda/stda.h"

namespace {

using rastrace::stda::Format;

std::string SavedText(const rastrace::stda::DateTime& d) {
  return fmt::format("{:04}-{:02}-{:02} {:02}:{:02}:{:02}.{:02}", d.year, d.month, d.day, d.hours,
                     d.minutes, d.seconds, d.hundredths);
}

std::string StampText(const rastrace::stda::Stamp& s) {
  return fmt::format("{:04}-{:02}-{:02} {:02}:{:02}:{:02}.{:02}", s.year, s.month, s.day, s.hour,
                     s.minute, s.second, s.hundredths);
}

// The records that pass the filters, then the summary: the same for a save file and a log.
struct Shown {
  size_t shown = 0, formatted = 0;
  std::map<uint16_t, size_t> by_major;
  uint64_t lost = 0;        // hits the tracer could not record (lost-hits records, 006 events)
  size_t lost_records = 0;  // lost-hits records: not counted as records
};

Shown AppendRecords(const std::vector<rastrace::stda::Record>& records, Format format,
                    const rastrace::tracefmt::Filters& filters,
                    rastrace::stda::FormatLibrary& library, std::string& out) {
  Shown s;
  for (size_t i = 0; i < records.size(); ++i) {
    const auto& r = records[i];
    if (r.lost_hits()) {
      s.lost += r.lost_count();
      ++s.lost_records;
      continue;
    }
    if (!filters.Accepts(r)) continue;
    ++s.shown;
    ++s.by_major[r.major];
    const rastrace::tsf::FormatFile* file = library.Find(r.major);
    const rastrace::tsf::TracepointFormat* entry = file ? file->Find(r.minor) : nullptr;
    s.formatted += rastrace::stda::AppendRecordText(i + 1, r, format, entry, out) ? 1 : 0;
  }
  return s;
}

void AppendSummary(const Shown& s, size_t total, std::string_view where, std::string& out) {
  total -= std::min(total, s.lost_records);
  out += fmt::format(
      "\nSummary: {} record{} in the {}, {} shown ({} formatted, {} in "
      "hex), {} filtered out\n",
      total, total == 1 ? "" : "s", where, s.shown, s.formatted, s.shown - s.formatted,
      total - s.shown);
  for (const auto& [major, count] : s.by_major) {
    out += fmt::format("  major {:#04x}: {} record{}\n", major, count, count == 1 ? "" : "s");
  }
  if (s.lost != 0) {
    out += fmt::format("  lost: {} hit{} the tracer could not record (its buffer was full)\n",
                       s.lost, s.lost == 1 ? "" : "s");
  }
}

// A rastrace log: its 00C events (tracepoint hits of majors up to 0xFFFF) formatted like STDA
// records with their timestamps. Exit status as for a save file.
int FormatLog(const std::string& path, const std::string& tff_dir,
              const rastrace::tracefmt::Filters& filters, bool no_summary) {
  const rastrace::tracefmt::LogRecords log = rastrace::tracefmt::ReadLogRecords(path);
  for (const auto& p : log.problems) fmt::print(stderr, "tracefmt: {}\n", p.message);
  std::string out = fmt::format("Log file {}: rastrace trace log, {} events, {} tracepoint hits\n",
                                path, log.events, log.records.size());
  rastrace::stda::FormatLibrary library(tff_dir);
  Shown s = AppendRecords(log.records, Format::kNew, filters, library, out);
  s.lost += log.lost;
  if (!no_summary) {
    AppendSummary(s, log.records.size(), "log", out);
    for (const auto& p : log.problems) out += fmt::format("Corruption: {}\n", p.message);
  }
  fmt::print("{}", out);
  for (const std::string& e : library.errors()) fmt::print(stderr, "tracefmt: {}\n", e);
  if (!log.problems.empty()) return log.events == 0 ? 1 : 2;
  return library.errors().empty() ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "tracefmt: format a TRACEFMT save file (OS/2 STDA snapshot) with the trace format "
      "files TRCxxxx.TFF of a directory"};
  std::string tff_dir = ".";
  std::string save_path;
  std::vector<std::string> majors, minors, pids;
  bool no_summary = false;
  app.add_option("-t,--tff-dir", tff_dir, "directory of the TRCxxxx.TFF format files")
      ->check(CLI::ExistingDirectory);
  app.add_option("savefile", save_path,
                 "the unformatted save file, or a rastrace log holding tracepoint hits (hook 00C)")
      ->required();
  app.add_option("-M,--major", majors, "show only these majors (decimal or 0x hex)")
      ->delimiter(',')
      ->allow_extra_args(false);
  app.add_option("-m,--minor", minors, "show only these minors")
      ->delimiter(',')
      ->allow_extra_args(false);
  app.add_option("-p,--pid", pids, "show only records of these process ids")
      ->delimiter(',')
      ->allow_extra_args(false);
  app.add_flag("--no-summary", no_summary, "leave out the summary at the end");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 1;
  }

  rastrace::tracefmt::Filters filters;
  for (auto [list, out, max, what] : {std::tuple{&majors, &filters.majors, 0xFFFFu, "major"},
                                      std::tuple{&minors, &filters.minors, 0xFFFFu, "minor"},
                                      std::tuple{&pids, &filters.pids, 0xFFFFFFFFu, "pid"}}) {
    auto parsed = rastrace::tracefmt::ParseNumberList(*list, max, what);
    if (!parsed) {
      fmt::print(stderr, "tracefmt: {}\n", parsed.error().message);
      return 1;
    }
    *out = std::move(parsed.value());
  }

  std::ifstream in(save_path, std::ios::binary);
  if (!in) {
    fmt::print(stderr, "tracefmt: {}: cannot open the save file\n", save_path);
    return 1;
  }
  const std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                                   std::istreambuf_iterator<char>());
  if (rastrace::tracefmt::IsRastraceLog(bytes)) {
    return FormatLog(save_path, tff_dir, filters, no_summary);
  }
  const rastrace::stda::SaveFile save = rastrace::stda::ReadSaveFile(bytes);
  const auto& c = save.contents;
  for (const auto& p : c.problems) {
    fmt::print(stderr, "tracefmt: {}: offset {:#x} ({}): {}\n", save_path, p.offset, p.offset,
               p.message);
  }

  std::string out;
  out += fmt::format(
      "Save file {}: saved {}, {} STDA of {} bytes (FIRST {:#06x} LAST {:#06x} "
      "NEXT {:#06x})\n",
      save_path, SavedText(save.saved), c.format == Format::kGa ? "GA format" : "new format",
      save.stda_length, c.first, c.last, c.next);
  if (c.trace_on && c.trace_on->year != 0) {
    out += fmt::format("Trace on {}", StampText(*c.trace_on));
    if (c.trace_off && c.trace_off->year != 0) {
      out += fmt::format(", trace off {}", StampText(*c.trace_off));
    }
    out += '\n';
  }

  rastrace::stda::FormatLibrary library(tff_dir);
  Shown shown = AppendRecords(c.records, c.format, filters, library, out);
  if (!no_summary) {
    AppendSummary(shown, c.records.size(), "buffer", out);
    if (c.corrupt()) {
      out +=
          fmt::format("Corruption: {} problem{}; the records that could be read are shown above\n",
                      c.problems.size(), c.problems.size() == 1 ? "" : "s");
      for (const auto& p : c.problems) {
        out += fmt::format("  offset {:#x} ({}): {}\n", p.offset, p.offset, p.message);
      }
    }
  }
  fmt::print("{}", out);
  for (const std::string& e : library.errors()) fmt::print(stderr, "tracefmt: {}\n", e);
  if (c.corrupt()) return 2;
  return library.errors().empty() ? 0 : 1;
}
